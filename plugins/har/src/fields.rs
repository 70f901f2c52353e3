//! Typed access to the standard members of a HAR object, each refusal naming its JSON pointer.
//!
//! Optional members may be absent or `null` (producers write `null` for fields they do not know,
//! such as mitmproxy's `headersSize` and `redirectURL`); when present they must have the standard
//! type. Standard numbers must be lossless as native numbers (`Number::lossless_f64`).

use rea_plugin_api::json::{Json, Object};

use crate::refusal::HarRefusal;

/// The members of one HAR object, with the pointer of the object (spelled out only when a
/// refusal needs it: most objects are fine, and there are many).
pub(crate) struct Fields<'a> {
    object: &'a Object,
    pointer: Pointer<'a>,
}

#[derive(Clone, Copy)]
enum Pointer<'a> {
    /// A pointer as given.
    Plain(&'a str),
    /// Item `index` of the list `list` of the object at `parent`.
    Item(&'a str, &'a str, usize),
}

impl<'a> Fields<'a> {
    pub(crate) fn new(object: &'a Object, pointer: &'a str) -> Self {
        Self {
            object,
            pointer: Pointer::Plain(pointer),
        }
    }

    fn item(object: &'a Object, parent: &'a str, list: &'a str, index: usize) -> Self {
        Self {
            object,
            pointer: Pointer::Item(parent, list, index),
        }
    }

    fn own_pointer(&self) -> String {
        match self.pointer {
            Pointer::Plain(pointer) => pointer.to_owned(),
            Pointer::Item(parent, list, index) => format!("{parent}/{list}/{index}"),
        }
    }

    pub(crate) fn pointer_of(&self, name: &str) -> String {
        format!("{}/{name}", self.own_pointer())
    }

    /// A refusal for a value of the wrong type.
    pub(crate) fn wrong_type(pointer: &str, expected: &str, found: &Json) -> HarRefusal {
        HarRefusal::input(
            format!(
                "the standard HAR field {pointer} must be {expected}, not {}",
                found.type_name()
            ),
            Some(pointer.to_owned()),
        )
    }

    fn missing(&self, name: &str, expected: &str) -> HarRefusal {
        let pointer = self.pointer_of(name);
        HarRefusal::input(
            format!("the standard HAR field {pointer} is required and must be {expected}"),
            Some(pointer),
        )
    }

    fn present(&self, name: &str) -> Option<&'a Json> {
        self.object.get(name).filter(|value| !value.is_null())
    }

    /// A required string.
    pub(crate) fn string(&self, name: &str) -> Result<&'a str, HarRefusal> {
        match self.object.get(name) {
            Some(Json::String(text)) => Ok(text),
            Some(other) => Err(Self::wrong_type(&self.pointer_of(name), "a string", other)),
            None => Err(self.missing(name, "a string")),
        }
    }

    /// An optional string (absent or `null` → `None`).
    pub(crate) fn optional_string(&self, name: &str) -> Result<Option<&'a str>, HarRefusal> {
        match self.present(name) {
            Some(Json::String(text)) => Ok(Some(text)),
            Some(other) => Err(Self::wrong_type(&self.pointer_of(name), "a string", other)),
            None => Ok(None),
        }
    }

    /// An optional object.
    pub(crate) fn optional_object(&self, name: &str) -> Result<Option<&'a Object>, HarRefusal> {
        match self.present(name) {
            Some(Json::Object(object)) => Ok(Some(object)),
            Some(other) => Err(Self::wrong_type(&self.pointer_of(name), "an object", other)),
            None => Ok(None),
        }
    }

    /// A required object.
    pub(crate) fn object(&self, name: &str) -> Result<&'a Object, HarRefusal> {
        match self.object.get(name) {
            Some(Json::Object(object)) => Ok(object),
            Some(other) => Err(Self::wrong_type(&self.pointer_of(name), "an object", other)),
            None => Err(self.missing(name, "an object")),
        }
    }

    /// An optional array.
    pub(crate) fn optional_array(&self, name: &str) -> Result<Option<&'a Vec<Json>>, HarRefusal> {
        match self.present(name) {
            Some(Json::Array(items)) => Ok(Some(items)),
            Some(other) => Err(Self::wrong_type(&self.pointer_of(name), "an array", other)),
            None => Ok(None),
        }
    }

    /// An optional boolean.
    pub(crate) fn optional_bool(&self, name: &str) -> Result<Option<bool>, HarRefusal> {
        match self.present(name) {
            Some(Json::Bool(flag)) => Ok(Some(*flag)),
            Some(other) => Err(Self::wrong_type(&self.pointer_of(name), "a boolean", other)),
            None => Ok(None),
        }
    }

    /// An optional number that a native `f64` keeps exactly.
    pub(crate) fn optional_number(&self, name: &str) -> Result<Option<f64>, HarRefusal> {
        match self.present(name) {
            Some(Json::Number(number)) => number
                .lossless_f64()
                .map(Some)
                .ok_or_else(|| unsafe_number(&self.pointer_of(name))),
            Some(other) => Err(Self::wrong_type(&self.pointer_of(name), "a number", other)),
            None => Ok(None),
        }
    }

    /// A required integer number within `range`.
    pub(crate) fn integer_in(
        &self,
        name: &str,
        range: std::ops::RangeInclusive<i64>,
    ) -> Result<i64, HarRefusal> {
        let value = match self.object.get(name) {
            Some(Json::Number(number)) => number
                .lossless_f64()
                .ok_or_else(|| unsafe_number(&self.pointer_of(name)))?,
            Some(other) => {
                return Err(Self::wrong_type(
                    &self.pointer_of(name),
                    "an integer",
                    other,
                ));
            }
            None => return Err(self.missing(name, "an integer")),
        };
        if value.fract() != 0.0 || value < *range.start() as f64 || value > *range.end() as f64 {
            let pointer = self.pointer_of(name);
            return Err(HarRefusal::input(
                format!(
                    "the standard HAR field {pointer} must be an integer from {} to {}",
                    range.start(),
                    range.end()
                ),
                Some(pointer),
            ));
        }
        Ok(value as i64)
    }

    /// An optional array of objects whose listed members are optional strings (cookies, query
    /// pairs, form parameters); returns the array.
    pub(crate) fn optional_list_of(
        &self,
        name: &str,
        required_strings: &[&str],
        optional_strings: &[&str],
        optional_bools: &[&str],
    ) -> Result<Option<&'a Vec<Json>>, HarRefusal> {
        let Some(items) = self.optional_array(name)? else {
            return Ok(None);
        };
        let parent = self.own_pointer();
        for (index, item) in items.iter().enumerate() {
            let Json::Object(object) = item else {
                return Err(Self::wrong_type(
                    &format!("{parent}/{name}/{index}"),
                    "an object",
                    item,
                ));
            };
            let fields = Fields::item(object, &parent, name, index);
            for member in required_strings {
                fields.string(member)?;
            }
            for member in optional_strings {
                fields.optional_string(member)?;
            }
            for member in optional_bools {
                fields.optional_bool(member)?;
            }
        }
        Ok(Some(items))
    }
}

/// The refusal of a standard number that a native `f64` would change.
fn unsafe_number(pointer: &str) -> HarRefusal {
    HarRefusal::input(
        format!(
            "the standard HAR field {pointer} holds a number that would lose information as a native number"
        ),
        Some(pointer.to_owned()),
    )
}

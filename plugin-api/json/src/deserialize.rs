//! Reading [`Json`] with serde, and typed values out of a [`Json`] tree without losing a number's
//! lexeme ([`from_json_exact`]).
//!
//! serde's data model has no number lexemes, so [`TreeDeserializer`] presents a number as
//! `u64`/`i64` when that is its exact spelling, as `f64` when the shortest round-trip spelling of
//! the `f64` is its exact spelling, and otherwise (`1.50`, `1E3`, integers past 64 bits) as a
//! one-member map `{NUMBER_TOKEN: lexeme}`, which [`Json`]'s `Deserialize` reads back as that
//! number (the way `serde_json` keeps arbitrary precision). So a [`Json`] read through the tree —
//! also inside internally tagged or flattened types, which serde buffers — is the value written,
//! lexemes included; typed fields (`u64`, `u16`, `f64`, …) read the number they ask for.
//!
//! From other deserializers (`serde_json::from_str`) a [`Json`] gets numbers as native values
//! spelled as `serde_json` spells them.

use serde::de::value::{Error as DeError, MapDeserializer, SeqDeserializer};
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, EnumAccess, IntoDeserializer, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};
use serde::{Deserialize, Deserializer};

use super::convert::ConversionError;
use super::{Json, JsonString, Number, Object};

/// The member name a number whose lexeme no native number spells is presented under.
pub const NUMBER_TOKEN: &str = "$rea::json::Number";

/// Reads a typed value out of a [`Json`] tree (consumed, so strings move rather than copy),
/// keeping every [`Json`] inside it exactly as it is in the tree.
pub fn from_json_exact<T: DeserializeOwned>(value: Json) -> Result<T, ConversionError> {
    T::deserialize(TreeDeserializer(value)).map_err(|error| ConversionError::Shape {
        message: error.to_string(),
    })
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Json, D::Error> {
        deserializer.deserialize_any(JsonVisitor)
    }
}

impl<'de> Deserialize<'de> for Object {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Object, D::Error> {
        match Json::deserialize(deserializer)? {
            Json::Object(object) => Ok(object),
            other => Err(de::Error::custom(format!(
                "expected an object, got {}",
                other.type_name()
            ))),
        }
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_none<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Json, D::Error> {
        Json::deserialize(deserializer)
    }

    fn visit_bool<E>(self, value: bool) -> Result<Json, E> {
        Ok(Json::Bool(value))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Json, E> {
        Ok(Json::Number(value.into()))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Json, E> {
        Ok(Json::Number(value.into()))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Json, E> {
        Number::from_f64(value)
            .map(Json::Number)
            .ok_or_else(|| E::custom("a JSON number must be finite"))
    }

    fn visit_str<E>(self, value: &str) -> Result<Json, E> {
        Ok(Json::String(JsonString::from(value)))
    }

    fn visit_string<E>(self, value: String) -> Result<Json, E> {
        Ok(Json::String(JsonString::from(value)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let Some(first) = map.next_key::<String>()? else {
            return Ok(Json::Object(Object::new()));
        };
        if first == NUMBER_TOKEN {
            let lexeme: String = map.next_value()?;
            return Number::from_lexeme(&lexeme)
                .map(Json::Number)
                .ok_or_else(|| de::Error::custom(format!("not a JSON number: {lexeme}")));
        }
        let mut members = Vec::with_capacity(map.size_hint().unwrap_or(0).min(4096) + 1);
        members.push((first, map.next_value()?));
        while let Some((key, value)) = map.next_entry()? {
            members.push((key, value));
        }
        Ok(Json::Object(unique_members(members)))
    }
}

/// An object of members whose keys are most likely unique (a later duplicate replaces an
/// earlier value, as [`Object`]'s `FromIterator` does).
fn unique_members(members: Vec<(String, Json)>) -> Object {
    let unique = if members.len() <= 16 {
        members
            .iter()
            .enumerate()
            .all(|(index, (key, _))| members[..index].iter().all(|(other, _)| other != key))
    } else {
        let mut seen = std::collections::HashSet::with_capacity(members.len());
        members.iter().all(|(key, _)| seen.insert(key.as_str()))
    };
    if !unique {
        return members.into_iter().collect();
    }
    let mut object = Object::with_capacity(members.len());
    for (key, value) in members {
        object.push_unique(key, value);
    }
    object
}

/// A serde deserializer over an owned [`Json`] tree (see the module documentation).
#[derive(Debug)]
pub struct TreeDeserializer(pub Json);

impl<'de> IntoDeserializer<'de, DeError> for Json {
    type Deserializer = TreeDeserializer;

    fn into_deserializer(self) -> TreeDeserializer {
        TreeDeserializer(self)
    }
}

pub(crate) fn visit_number<'de, V: Visitor<'de>>(
    number: Number,
    visitor: V,
) -> Result<V::Value, DeError> {
    let lexeme = number.as_str();
    if let Some(value) = number.as_u64().filter(|value| value.to_string() == lexeme) {
        return visitor.visit_u64(value);
    }
    if let Some(value) = number.as_i64().filter(|value| value.to_string() == lexeme) {
        return visitor.visit_i64(value);
    }
    if let Some(value) = number
        .lossless_f64()
        .filter(|value| Number::from_f64(*value).is_some_and(|spelled| spelled == number))
    {
        return visitor.visit_f64(value);
    }
    let token = std::iter::once((NUMBER_TOKEN, lexeme.to_owned()));
    visitor.visit_map(MapDeserializer::new(token))
}

/// Invokes `$reader!` with every typed number a deserializer reads (its method, the visitor's
/// method, the type, how it is read from a [`Number`]), then forwards the other methods to
/// `deserialize_any`: the typed methods of [`TreeDeserializer`] and of the text reader.
macro_rules! typed_number_methods {
    ($reader:ident) => {
        $reader! {
            deserialize_u64 visit_u64 u64 => Number::as_u64;
            deserialize_u32 visit_u32 u32 => $crate::deserialize::narrow::<u32>;
            deserialize_u16 visit_u16 u16 => $crate::deserialize::narrow::<u16>;
            deserialize_u8 visit_u8 u8 => $crate::deserialize::narrow::<u8>;
            deserialize_i64 visit_i64 i64 => Number::as_i64;
            deserialize_i32 visit_i32 i32 => $crate::deserialize::narrow_signed::<i32>;
            deserialize_i16 visit_i16 i16 => $crate::deserialize::narrow_signed::<i16>;
            deserialize_i8 visit_i8 i8 => $crate::deserialize::narrow_signed::<i8>;
            deserialize_f64 visit_f64 f64 => |number: &Number| Some(number.as_f64()).filter(|value| value.is_finite());
            deserialize_f32 visit_f32 f32 => |number: &Number| Some(number.as_f64() as f32).filter(|value| value.is_finite());
        }

        serde::forward_to_deserialize_any! {
            bool char str string bytes byte_buf unit unit_struct seq tuple tuple_struct map struct
            identifier i128 u128
        }
    };
}
pub(crate) use typed_number_methods;

macro_rules! typed_number {
    ($($method:ident $visit:ident $kind:ty => $read:expr;)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
                match self.0 {
                    Json::Number(number) => match ($read)(&number) {
                        Some(value) => visitor.$visit(value),
                        None => Err(de::Error::custom(format!(
                            "the number {} is not a {}",
                            number.as_str(),
                            stringify!($kind)
                        ))),
                    },
                    other => TreeDeserializer(other).deserialize_any(visitor),
                }
            }
        )*
    };
}

pub(crate) fn narrow<T: TryFrom<u64>>(number: &Number) -> Option<T> {
    number.as_u64().and_then(|value| T::try_from(value).ok())
}

pub(crate) fn narrow_signed<T: TryFrom<i64>>(number: &Number) -> Option<T> {
    number.as_i64().and_then(|value| T::try_from(value).ok())
}

impl<'de> Deserializer<'de> for TreeDeserializer {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.0 {
            Json::Null => visitor.visit_unit(),
            Json::Bool(value) => visitor.visit_bool(value),
            Json::Number(number) => visit_number(number, visitor),
            Json::String(text) => visitor.visit_string(text.into_string()),
            Json::Array(items) => {
                let mut seq = SeqDeserializer::new(items.into_iter());
                let value = visitor.visit_seq(&mut seq)?;
                seq.end()?;
                Ok(value)
            }
            Json::Object(object) => {
                let mut map = MapDeserializer::new(object.into_iter());
                let value = visitor.visit_map(&mut map)?;
                map.end()?;
                Ok(value)
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.0 {
            Json::Null => visitor.visit_none(),
            other => visitor.visit_some(TreeDeserializer(other)),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        match self.0 {
            Json::String(variant) => visitor.visit_enum(variant.into_deserializer()),
            Json::Object(object) if object.len() == 1 => {
                let (variant, value) = object.into_iter().next().unwrap_or_default();
                visitor.visit_enum(TreeEnum { variant, value })
            }
            other => Err(de::Error::custom(format!(
                "expected an enum (a string or a one-member object), got {}",
                other.type_name()
            ))),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_unit()
    }

    typed_number_methods!(typed_number);
}

/// An externally tagged enum value: `{"variant": value}`.
struct TreeEnum {
    variant: String,
    value: Json,
}

impl<'de> EnumAccess<'de> for TreeEnum {
    type Error = DeError;
    type Variant = TreeDeserializer;

    fn variant_seed<S: DeserializeSeed<'de>>(
        self,
        seed: S,
    ) -> Result<(S::Value, TreeDeserializer), DeError> {
        let variant = seed.deserialize(self.variant.into_deserializer())?;
        Ok((variant, TreeDeserializer(self.value)))
    }
}

impl<'de> VariantAccess<'de> for TreeDeserializer {
    type Error = DeError;

    fn unit_variant(self) -> Result<(), DeError> {
        match self.0 {
            Json::Null => Ok(()),
            other => Err(de::Error::custom(format!(
                "a unit variant holds null, got {}",
                other.type_name()
            ))),
        }
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value, DeError> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_any(visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_any(visitor)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::BTreeMap;

    use super::super::parse;
    use super::*;

    /// An internally tagged enum, flattened into the samples of this module and of the text
    /// deserializer's tests.
    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    #[serde(tag = "kind", rename_all = "kebab-case")]
    pub(crate) enum Tagged {
        Value { value: Json, count: u16 },
        Plain,
    }

    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    struct Sample {
        fields: Json,
        maybe: Option<Json>,
        by_name: BTreeMap<String, Json>,
        pairs: Vec<(String, String)>,
        #[serde(flatten)]
        tagged: Tagged,
        ratio: f64,
        state: Mode,
    }

    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    #[serde(rename_all = "kebab-case")]
    enum Mode {
        StartInstant,
    }

    #[test]
    fn a_tree_reads_back_with_every_lexeme_and_member_order() {
        let text = br#"{"fields":{"z":1.50,"a":[1E3,-0,12345678901234567890123,0.1,-7],"m":null},"maybe":{"x":2.0},"by_name":{"b":1e-7,"a":"t"},"pairs":[["q","1"]],"kind":"value","value":{"n":100.00,"k":true},"count":404,"ratio":0.25,"state":"start-instant"}"#;
        let tree = parse(text).unwrap();
        let sample: Sample = from_json_exact(tree.clone()).unwrap();
        assert_eq!(
            sample.fields.to_canonical_string(),
            tree.get("fields").unwrap().to_canonical_string()
        );
        assert_eq!(
            serde_json::to_string(&sample.fields).unwrap(),
            r#"{"z":1.50,"a":[1E3,-0,12345678901234567890123,0.1,-7],"m":null}"#
        );
        assert_eq!(
            serde_json::to_string(&sample.tagged).unwrap(),
            r#"{"kind":"value","value":{"n":100.00,"k":true},"count":404}"#
        );
        assert_eq!(
            serde_json::to_string(&sample.maybe).unwrap(),
            r#"{"x":2.0}"#
        );
        assert_eq!(sample.ratio, 0.25);
        assert_eq!(sample.state, Mode::StartInstant);
        // Written and read again: the same text.
        let written = serde_json::to_vec(&sample).unwrap();
        let again: Sample = from_json_exact(parse(&written).unwrap()).unwrap();
        assert_eq!(serde_json::to_vec(&again).unwrap(), written);
    }

    #[test]
    fn shape_errors_name_the_problem() {
        let error = from_json_exact::<Sample>(parse(br#"{"fields":1}"#).unwrap()).unwrap_err();
        assert!(error.to_string().contains("missing field"), "{error}");
        let error = from_json_exact::<u16>(parse(b"70000").unwrap()).unwrap_err();
        assert!(error.to_string().contains("is not a u16"), "{error}");
    }

    #[test]
    fn serde_json_reads_json_with_native_numbers() {
        let value: Json = serde_json::from_str(r#"{"a":[1,-2,0.5],"b":{"c":null}}"#).unwrap();
        assert_eq!(
            value.to_canonical_string(),
            r#"{"a":[1,-2,0.5],"b":{"c":null}}"#
        );
    }
}

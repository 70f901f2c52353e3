//! Conversions between [`Json`] and serde: the safe conversion to `serde_json::Value`, typed
//! reading, and building a [`Json`] from any `Serialize` value.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use super::write::escape_pointer_segment;
use super::{Json, JsonString, Number, Object, ParseOptions, parse_with};

/// Why a [`Json`] value could not be converted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConversionError {
    /// A number that `i64`, `u64` and `f64` would all change (see [`Number::is_lossless`]).
    UnsafeNumber {
        /// JSON pointer of the number.
        pointer: String,
        /// Its lexeme.
        lexeme: String,
    },
    /// The value does not have the shape of the requested type.
    Shape {
        /// serde's description.
        message: String,
    },
}

impl std::fmt::Display for ConversionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConversionError::UnsafeNumber { pointer, lexeme } => {
                let shown: String = lexeme.chars().take(64).collect();
                write!(
                    f,
                    "the number {shown} at {} would lose information as a native number",
                    if pointer.is_empty() {
                        "the root"
                    } else {
                        pointer
                    }
                )
            }
            ConversionError::Shape { message } => f.write_str(message),
        }
    }
}

impl std::error::Error for ConversionError {}

impl Json {
    /// Converts to a `serde_json::Value`, failing at the first number (in document order) that a
    /// native number would not keep.
    pub fn to_serde_value(&self) -> Result<serde_json::Value, ConversionError> {
        let mut pointer = String::new();
        to_serde(self, &mut pointer)
    }

    /// The pointer of the first number that a native number would not keep, if any.
    pub fn first_unsafe_number(&self) -> Option<String> {
        self.first_number_where(|number| !number.is_lossless())
    }

    /// The pointer of the first number (in document order) for which `test` holds, if any.
    pub fn first_number_where(&self, test: impl Fn(&Number) -> bool) -> Option<String> {
        fn walk(value: &Json, pointer: &mut String, test: &dyn Fn(&Number) -> bool) -> bool {
            match value {
                Json::Number(number) => test(number),
                Json::Array(items) => items.iter().enumerate().any(|(index, item)| {
                    let length = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&index.to_string());
                    let found = walk(item, pointer, test);
                    if !found {
                        pointer.truncate(length);
                    }
                    found
                }),
                Json::Object(object) => object.iter().any(|(key, item)| {
                    let length = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&escape_pointer_segment(key));
                    let found = walk(item, pointer, test);
                    if !found {
                        pointer.truncate(length);
                    }
                    found
                }),
                _ => false,
            }
        }
        let mut pointer = String::new();
        walk(self, &mut pointer, &test).then_some(pointer)
    }

    /// Converts a `serde_json::Value` (numbers take serde_json's spelling).
    pub fn from_serde_value(value: &serde_json::Value) -> Json {
        match value {
            serde_json::Value::Null => Json::Null,
            serde_json::Value::Bool(flag) => Json::Bool(*flag),
            serde_json::Value::Number(number) => {
                Json::Number(Number::from_validated(&number.to_string()))
            }
            serde_json::Value::String(text) => Json::String(JsonString::from(text.as_str())),
            serde_json::Value::Array(items) => {
                Json::Array(items.iter().map(Json::from_serde_value).collect())
            }
            serde_json::Value::Object(members) => Json::Object(
                members
                    .iter()
                    .map(|(key, item)| (key.clone(), Json::from_serde_value(item)))
                    .collect(),
            ),
        }
    }

    /// Builds a value from anything serde can write as JSON (through `serde_json`'s writer, so
    /// numbers take its spelling; no depth limit applies).
    pub fn from_serialize<T: Serialize + ?Sized>(value: &T) -> Result<Json, ConversionError> {
        let bytes = serde_json::to_vec(value).map_err(|error| ConversionError::Shape {
            message: error.to_string(),
        })?;
        parse_with(&bytes, &ParseOptions::default().max_depth(usize::MAX)).map_err(|error| {
            ConversionError::Shape {
                message: error.to_string(),
            }
        })
    }
}

/// Reads a typed value from a [`Json`] value; numbers must be lossless.
pub fn from_json<T: DeserializeOwned>(value: &Json) -> Result<T, ConversionError> {
    let value = value.to_serde_value()?;
    serde_json::from_value(value).map_err(|error| ConversionError::Shape {
        message: error.to_string(),
    })
}

fn to_serde(value: &Json, pointer: &mut String) -> Result<serde_json::Value, ConversionError> {
    Ok(match value {
        Json::Null => serde_json::Value::Null,
        Json::Bool(flag) => serde_json::Value::Bool(*flag),
        Json::Number(number) => match number.to_serde_number() {
            Some(number) => serde_json::Value::Number(number),
            None => {
                return Err(ConversionError::UnsafeNumber {
                    pointer: pointer.clone(),
                    lexeme: number.as_str().to_owned(),
                });
            }
        },
        Json::String(text) => serde_json::Value::String(text.to_string()),
        Json::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for (index, item) in items.iter().enumerate() {
                let length = pointer.len();
                pointer.push('/');
                pointer.push_str(&index.to_string());
                out.push(to_serde(item, pointer)?);
                pointer.truncate(length);
            }
            serde_json::Value::Array(out)
        }
        Json::Object(object) => {
            let mut out = serde_json::Map::new();
            for (key, item) in object.iter() {
                let length = pointer.len();
                pointer.push('/');
                pointer.push_str(&escape_pointer_segment(key));
                out.insert(key.to_owned(), to_serde(item, pointer)?);
                pointer.truncate(length);
            }
            serde_json::Value::Object(out)
        }
    })
}

impl Serialize for Json {
    /// Serializes member order as stored. Numbers keep their lexeme with `serde_json` (through
    /// its raw-value hook); other serializers see them as raw-value structs.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeMap, SerializeSeq};
        match self {
            Json::Null => serializer.serialize_unit(),
            Json::Bool(flag) => serializer.serialize_bool(*flag),
            Json::Number(number) => {
                let raw: Box<RawValue> =
                    RawValue::from_string(number.as_str().to_owned()).map_err(S::Error::custom)?;
                raw.serialize(serializer)
            }
            Json::String(text) => serializer.serialize_str(text),
            Json::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Object(object) => {
                let mut map = serializer.serialize_map(Some(object.len()))?;
                for (key, item) in object.iter() {
                    map.serialize_entry(key, item)?;
                }
                map.end()
            }
        }
    }
}

impl Object {
    /// Builds an object from a `Serialize` value that serializes as a JSON object.
    pub fn from_serialize<T: Serialize + ?Sized>(value: &T) -> Result<Object, ConversionError> {
        match Json::from_serialize(value)? {
            Json::Object(object) => Ok(object),
            other => Err(ConversionError::Shape {
                message: format!("expected an object, got {}", other.type_name()),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse;
    use super::*;

    #[test]
    fn safe_conversion_refuses_lossy_numbers_with_their_pointer() {
        let value = parse(br#"{"ok": [1, 0.5, 18446744073709551615, -9223372036854775808], "bad": {"x": [0, 1e400]}}"#)
            .unwrap();
        let error = value.to_serde_value().unwrap_err();
        assert_eq!(
            error,
            ConversionError::UnsafeNumber {
                pointer: "/bad/x/1".to_owned(),
                lexeme: "1e400".to_owned()
            }
        );
        assert_eq!(value.first_unsafe_number().as_deref(), Some("/bad/x/1"));
        let ok = value.get("ok").unwrap().to_serde_value().unwrap();
        assert_eq!(ok, serde_json::json!([1, 0.5, u64::MAX, i64::MIN]));
    }

    #[test]
    fn serialize_keeps_lexemes_with_serde_json() {
        let value = parse(br#"{"n": 1.50, "big": 123456789012345678901234567890}"#).unwrap();
        assert_eq!(
            serde_json::to_string(&value).unwrap(),
            r#"{"n":1.50,"big":123456789012345678901234567890}"#
        );
    }

    #[test]
    fn typed_values_round_trip() {
        #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        struct Sample {
            name: String,
            count: u64,
            ratio: f64,
        }
        let sample = Sample {
            name: "x".into(),
            count: 3,
            ratio: 0.25,
        };
        let json = Json::from_serialize(&sample).unwrap();
        assert_eq!(
            json.to_canonical_string(),
            r#"{"count":3,"name":"x","ratio":0.25}"#
        );
        assert_eq!(from_json::<Sample>(&json).unwrap(), sample);
    }
}

//! Typed values read straight from JSON text, keeping every [`Json`] inside them exactly as
//! written ([`from_slice_exact`]): what [`crate::from_json_exact`] gives for the parsed tree,
//! without building the tree first.
//!
//! Numbers are presented as [`crate::TreeDeserializer`] presents them (native when that is their
//! exact spelling, otherwise a one-member map `{NUMBER_TOKEN: lexeme}` that [`Json`] reads back),
//! strings without escapes are lent rather than copied, and objects and arrays are read member
//! by member as the type asks. This reader is for text whose origin is already established (a
//! file rea wrote, authenticated by its digest): it checks grammar and UTF-8 but, unlike
//! [`crate::parse`], neither refuses duplicate keys (a later one replaces an earlier one in a
//! [`Json`] object; a typed struct refuses a repeated field) nor limits nesting.

use std::borrow::Cow;

use serde::Deserializer;
use serde::de::value::Error as DeError;
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, EnumAccess, IntoDeserializer, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};

use super::convert::ConversionError;
use super::deserialize::{typed_number_methods, visit_number};
use super::number::scan_number;
use super::parse::{JsonErrorKind, Parser, find_special};
use super::{Json, Number};

/// Reads a typed value from JSON text (see the module documentation).
pub fn from_slice_exact<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ConversionError> {
    let shape = |message: String| ConversionError::Shape { message };
    let text = std::str::from_utf8(bytes)
        .map_err(|error| shape(format!("invalid UTF-8 at byte {}", error.valid_up_to())))?;
    let mut reader = TextDeserializer {
        parser: Parser::over(text),
    };
    let value = T::deserialize(&mut reader)
        .map_err(|error| shape(format!("{error} (at byte {})", reader.parser.pos)))?;
    reader.parser.skip_whitespace();
    if reader.parser.pos != bytes.len() {
        return Err(shape(format!(
            "trailing characters at byte {}",
            reader.parser.pos
        )));
    }
    Ok(value)
}

/// A serde deserializer over JSON text (see the module documentation).
struct TextDeserializer<'de> {
    parser: Parser<'de, 'static>,
}

fn syntax(error: super::JsonError) -> DeError {
    de::Error::custom(error.to_string())
}

impl<'de> TextDeserializer<'de> {
    /// The next byte after whitespace.
    fn peek(&mut self) -> Option<u8> {
        self.parser.skip_whitespace();
        self.parser.bytes.get(self.parser.pos).copied()
    }

    /// Consumes `byte` after whitespace, or refuses.
    fn expect(&mut self, byte: u8) -> Result<(), DeError> {
        if self.peek() == Some(byte) {
            self.parser.pos += 1;
            Ok(())
        } else {
            Err(syntax(self.parser.unexpected()))
        }
    }

    /// A string at its opening quote: lent when it holds no escape.
    fn string(&mut self) -> Result<Cow<'de, str>, DeError> {
        let text: &'de str = self.parser.text;
        let start = self.parser.pos + 1;
        let stop = find_special(self.parser.bytes, start);
        if self.parser.bytes.get(stop) == Some(&b'"') {
            self.parser.pos = stop + 1;
            return Ok(Cow::Borrowed(&text[start..stop]));
        }
        self.parser.string().map(Cow::Owned).map_err(syntax)
    }

    fn literal(&mut self, word: &[u8]) -> Result<(), DeError> {
        let end = self.parser.pos + word.len();
        if self.parser.bytes.get(self.parser.pos..end) == Some(word) {
            self.parser.pos = end;
            Ok(())
        } else {
            Err(syntax(self.parser.unexpected()))
        }
    }

    fn number(&mut self) -> Result<Number, DeError> {
        let start = self.parser.pos;
        match scan_number(self.parser.bytes, start) {
            Some(end) => {
                self.parser.pos = end;
                Number::from_lexeme(&self.parser.text[start..end])
                    .ok_or_else(|| syntax(self.parser.error(JsonErrorKind::InvalidNumber)))
            }
            None => Err(syntax(self.parser.error(JsonErrorKind::InvalidNumber))),
        }
    }
}

macro_rules! typed_number {
    ($($method:ident $visit:ident $kind:ty => $read:expr;)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
                match self.peek() {
                    Some(b'-' | b'0'..=b'9') => {
                        let number = self.number()?;
                        match ($read)(&number) {
                            Some(value) => visitor.$visit(value),
                            None => Err(de::Error::custom(format!(
                                "the number {} is not a {}",
                                number.as_str(),
                                stringify!($kind)
                            ))),
                        }
                    }
                    _ => self.deserialize_any(visitor),
                }
            }
        )*
    };
}

impl<'de> Deserializer<'de> for &mut TextDeserializer<'de> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.peek() {
            Some(b'{') => {
                self.parser.pos += 1;
                let value = visitor.visit_map(Members {
                    reader: &mut *self,
                    first: true,
                })?;
                self.expect(b'}')?;
                Ok(value)
            }
            Some(b'[') => {
                self.parser.pos += 1;
                let value = visitor.visit_seq(Members {
                    reader: &mut *self,
                    first: true,
                })?;
                self.expect(b']')?;
                Ok(value)
            }
            Some(b'"') => match self.string()? {
                Cow::Borrowed(text) => visitor.visit_borrowed_str(text),
                Cow::Owned(text) => visitor.visit_string(text),
            },
            Some(b't') => self
                .literal(b"true")
                .and_then(|()| visitor.visit_bool(true)),
            Some(b'f') => self
                .literal(b"false")
                .and_then(|()| visitor.visit_bool(false)),
            Some(b'n') => self.literal(b"null").and_then(|()| visitor.visit_unit()),
            Some(b'-' | b'0'..=b'9') => {
                let number = self.number()?;
                visit_number(number, visitor)
            }
            _ => Err(syntax(self.parser.unexpected())),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        if self.peek() == Some(b'n') {
            self.literal(b"null")?;
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
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
        match self.peek() {
            Some(b'"') => {
                let variant = self.string()?.into_owned();
                visitor.visit_enum(variant.into_deserializer())
            }
            Some(b'{') => {
                self.parser.pos += 1;
                let value = visitor.visit_enum(Variant { reader: &mut *self })?;
                self.expect(b'}')?;
                Ok(value)
            }
            _ => Err(de::Error::custom(
                "expected an enum (a string or a one-member object)",
            )),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        Json::deserialize(&mut *self)?;
        visitor.visit_unit()
    }

    typed_number_methods!(typed_number);
}

use serde::Deserialize;

/// The members of an object or the items of an array, read one at a time.
struct Members<'r, 'de> {
    reader: &'r mut TextDeserializer<'de>,
    first: bool,
}

impl Members<'_, '_> {
    /// Whether another member follows (consuming the comma before it), before `close`.
    fn more(&mut self, close: u8) -> Result<bool, DeError> {
        let next = self.reader.peek();
        if next == Some(close) {
            return Ok(false);
        }
        if !std::mem::take(&mut self.first) {
            self.reader.expect(b',')?;
        }
        Ok(true)
    }
}

impl<'de> SeqAccess<'de> for Members<'_, 'de> {
    type Error = DeError;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, DeError> {
        if !self.more(b']')? {
            return Ok(None);
        }
        seed.deserialize(&mut *self.reader).map(Some)
    }
}

impl<'de> MapAccess<'de> for Members<'_, 'de> {
    type Error = DeError;

    fn next_key_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, DeError> {
        if !self.more(b'}')? {
            return Ok(None);
        }
        if self.reader.peek() != Some(b'"') {
            return Err(syntax(self.reader.parser.unexpected()));
        }
        let key = self.reader.string()?;
        let key = match key {
            Cow::Borrowed(text) => seed.deserialize(de::value::BorrowedStrDeserializer::new(text)),
            Cow::Owned(text) => seed.deserialize(text.into_deserializer()),
        }?;
        self.reader.expect(b':')?;
        Ok(Some(key))
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, DeError> {
        seed.deserialize(&mut *self.reader)
    }
}

/// An externally tagged enum value: `{"variant": value}`, read after its opening brace.
struct Variant<'r, 'de> {
    reader: &'r mut TextDeserializer<'de>,
}

impl<'r, 'de> EnumAccess<'de> for Variant<'r, 'de> {
    type Error = DeError;
    type Variant = Self;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self), DeError> {
        if self.reader.peek() != Some(b'"') {
            return Err(syntax(self.reader.parser.unexpected()));
        }
        let name = self.reader.string()?.into_owned();
        let variant = seed.deserialize(name.into_deserializer())?;
        self.reader.expect(b':')?;
        Ok((variant, self))
    }
}

impl<'de> VariantAccess<'de> for Variant<'_, 'de> {
    type Error = DeError;

    fn unit_variant(self) -> Result<(), DeError> {
        self.reader.literal_null()
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value, DeError> {
        seed.deserialize(&mut *self.reader)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, DeError> {
        self.reader.deserialize_any(visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.reader.deserialize_any(visitor)
    }
}

impl TextDeserializer<'_> {
    fn literal_null(&mut self) -> Result<(), DeError> {
        if self.peek() == Some(b'n') {
            self.literal(b"null")
        } else {
            Err(de::Error::custom("a unit variant holds null"))
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::deserialize::tests::Tagged;
    use crate::{from_json_exact, parse};

    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    enum External {
        Unit,
        Pair(String, u8),
        Named { at: u64 },
    }

    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    struct Sample {
        fields: Json,
        maybe: Option<Json>,
        absent: Option<String>,
        by_name: BTreeMap<String, Json>,
        pairs: Vec<(String, String)>,
        #[serde(flatten)]
        tagged: Tagged,
        ratio: f64,
        external: Vec<External>,
        escaped: String,
    }

    const TEXT: &[u8] = br#" {"fields":{"z":1.50,"a":[1E3,-0,12345678901234567890123,0.1,-7],"m":null,"e":{}},"maybe":{"x":2.0},"absent":null,"by_name":{"b":1e-7,"a":"t"},"pairs":[["q","1"]],"kind":"value","value":{"n":100.00,"k":true,"l":[]},"count":404,"ratio":0.25,"external":["Unit",{"Pair":["p",7]},{"Named":{"at":9}}],"escaped":"a\"b\\c\u00e9\n"} "#;

    #[test]
    fn text_reads_as_the_parsed_tree_reads() {
        let from_text: Sample = from_slice_exact(TEXT).unwrap();
        let from_tree: Sample = from_json_exact(parse(TEXT).unwrap()).unwrap();
        assert_eq!(from_text, from_tree);
        assert_eq!(
            serde_json::to_string(&from_text.fields).unwrap(),
            r#"{"z":1.50,"a":[1E3,-0,12345678901234567890123,0.1,-7],"m":null,"e":{}}"#
        );
        assert_eq!(from_text.escaped, "a\"b\\c\u{e9}\n");
        // Written and read again: the same text.
        let written = serde_json::to_vec(&from_text).unwrap();
        let again: Sample = from_slice_exact(&written).unwrap();
        assert_eq!(serde_json::to_vec(&again).unwrap(), written);
    }

    #[test]
    fn malformed_text_and_wrong_shapes_are_refused() {
        for text in [
            &br#"{"fields":1"#[..],
            br#"{"fields":{},}"#,
            br#"[1 2]"#,
            br#"{"a" 1}"#,
            b"tru",
            b"01",
            b"{} x",
        ] {
            assert!(from_slice_exact::<Json>(text).is_err(), "{text:?}");
        }
        let error = from_slice_exact::<Sample>(br#"{"fields":1}"#).unwrap_err();
        assert!(error.to_string().contains("missing field"), "{error}");
        let error = from_slice_exact::<u16>(b"70000").unwrap_err();
        assert!(error.to_string().contains("is not a u16"), "{error}");
        assert!(from_slice_exact::<Json>(b"\xff").is_err());
    }
}

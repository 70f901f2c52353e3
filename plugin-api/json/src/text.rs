//! A string value's text, stored compactly (issue 17, bounded memory): a text of up to 22 bytes
//! (most values an API answers: ids, names, states, dates) lives inside the value without an
//! allocation; a longer text read without escapes from a shared source (a recorded body, see
//! [`crate::parse_shared_text`]) is a range of that source, not a copy of it; any other is one
//! boxed text. Before, each string value was a `String` of its own, and a derivation holding a
//! capture's bodies and their parsed answers held every long string twice.
//!
//! It reads as a `&str` everywhere (`Deref`), compares, orders and hashes as its text, and
//! serializes as its text: how it is stored never shows.

use std::borrow::Borrow;
use std::sync::Arc;

/// A text parsed strings may point into: one per shared parse, holding the source alive as long
/// as a string read from it.
#[derive(Debug)]
pub struct SourceText(Arc<str>);

impl SourceText {
    /// The source `text` (shared, not copied).
    pub fn new(text: Arc<str>) -> Arc<Self> {
        Arc::new(Self(text))
    }

    /// The source's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A JSON string value's text (see the module docs).
#[derive(Clone)]
pub struct JsonString(Repr);

#[derive(Clone)]
enum Repr {
    Inline {
        length: u8,
        bytes: [u8; INLINE],
    },
    Boxed(Box<str>),
    Shared {
        source: Arc<SourceText>,
        start: u32,
        length: u32,
    },
}

/// The longest text kept inline: the size of a `String` less the length byte and the tag.
const INLINE: usize = 22;

impl JsonString {
    /// The empty text.
    pub const fn new() -> Self {
        Self(Repr::Inline {
            length: 0,
            bytes: [0; INLINE],
        })
    }

    /// The text of `source` at `range` (a range of whole characters): inline when short, a range
    /// of the shared source otherwise (or a copy where the range does not fit the stored width).
    pub(crate) fn from_source(source: &Arc<SourceText>, range: std::ops::Range<usize>) -> Self {
        let text = &source.as_str()[range.clone()];
        if text.len() <= INLINE {
            return Self::from(text);
        }
        match (u32::try_from(range.start), u32::try_from(text.len())) {
            (Ok(start), Ok(length)) => Self(Repr::Shared {
                source: Arc::clone(source),
                start,
                length,
            }),
            _ => Self::from(text),
        }
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            // Inline bytes are a whole `&str`'s (cut at its end, never inside a character).
            Repr::Inline { length, bytes } => {
                std::str::from_utf8(&bytes[..usize::from(*length)]).unwrap_or_default()
            }
            Repr::Boxed(text) => text,
            Repr::Shared {
                source,
                start,
                length,
            } => {
                let start = *start as usize;
                source
                    .as_str()
                    .get(start..start + *length as usize)
                    .unwrap_or_default()
            }
        }
    }

    /// The text as an owned `String`.
    pub fn into_string(self) -> String {
        match self.0 {
            Repr::Boxed(text) => text.into_string(),
            _ => self.as_str().to_owned(),
        }
    }
}

impl Default for JsonString {
    fn default() -> Self {
        Self::new()
    }
}

impl From<&str> for JsonString {
    fn from(text: &str) -> Self {
        if text.len() <= INLINE {
            let mut bytes = [0; INLINE];
            bytes[..text.len()].copy_from_slice(text.as_bytes());
            return Self(Repr::Inline {
                length: text.len() as u8,
                bytes,
            });
        }
        Self(Repr::Boxed(Box::from(text)))
    }
}

impl From<String> for JsonString {
    fn from(text: String) -> Self {
        if text.len() <= INLINE {
            return Self::from(text.as_str());
        }
        Self(Repr::Boxed(text.into_boxed_str()))
    }
}

impl From<&String> for JsonString {
    fn from(text: &String) -> Self {
        Self::from(text.as_str())
    }
}

impl From<JsonString> for String {
    fn from(text: JsonString) -> Self {
        text.into_string()
    }
}

impl std::ops::Deref for JsonString {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for JsonString {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for JsonString {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl std::fmt::Debug for JsonString {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl std::fmt::Display for JsonString {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq for JsonString {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for JsonString {}

impl PartialOrd for JsonString {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for JsonString {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl std::hash::Hash for JsonString {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl PartialEq<str> for JsonString {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for JsonString {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for JsonString {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<JsonString> for str {
    fn eq(&self, other: &JsonString) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<JsonString> for &str {
    fn eq(&self, other: &JsonString) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<JsonString> for String {
    fn eq(&self, other: &JsonString) -> bool {
        self == other.as_str()
    }
}

impl serde::Serialize for JsonString {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for JsonString {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        <std::borrow::Cow<'de, str>>::deserialize(deserializer).map(|text| Self::from(&*text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_reads_compares_and_hashes_as_its_text() {
        let long = "a text longer than twenty-two bytes";
        let source = SourceText::new(Arc::from(format!("[\"{long}\"]")));
        let shared = JsonString::from_source(&source, 2..2 + long.len());
        let boxed = JsonString::from(long.to_owned());
        assert!(matches!(shared.0, Repr::Shared { .. }));
        assert!(matches!(boxed.0, Repr::Boxed(_)));
        assert_eq!(shared, boxed);
        assert_eq!(shared.as_str(), long);
        let short = JsonString::from_source(&source, 2..6);
        assert!(matches!(short.0, Repr::Inline { .. }));
        assert_eq!(short, "a te");
        let hasher = std::collections::hash_map::RandomState::new();
        let hash = |text: &JsonString| {
            use std::hash::BuildHasher;
            hasher.hash_one(text)
        };
        assert_eq!(hash(&shared), hash(&boxed));
        assert_eq!(shared.into_string(), long);
    }

    #[test]
    fn a_shared_parse_points_into_its_source_only_for_long_texts_without_escapes() {
        let text = r#"{"long":"a text longer than twenty-two bytes","short":"ok","escaped":"a text longer than twenty-two \u0062ytes"}"#;
        let source = SourceText::new(Arc::from(text));
        let parsed = crate::parse_shared_text(&source, &mut crate::SharedObjects::new()).unwrap();
        let form = |name: &str| match parsed.get(name) {
            Some(crate::Json::String(value)) => &value.0,
            other => panic!("{name}: {other:?}"),
        };
        assert!(matches!(form("long"), Repr::Shared { .. }));
        assert!(matches!(form("short"), Repr::Inline { .. }));
        assert!(matches!(form("escaped"), Repr::Boxed(_)));
        assert_eq!(Arc::strong_count(&source), 2);
        // The same value as an ordinary parse, which shares nothing.
        assert_eq!(parsed, crate::parse(text.as_bytes()).unwrap());
        drop(parsed);
        assert_eq!(Arc::strong_count(&source), 1);
        let with_mark = SourceText::new(Arc::from("\u{feff}\"x\""));
        let refused = crate::parse_shared_text(&with_mark, &mut crate::SharedObjects::new());
        assert_eq!(
            refused.unwrap_err().kind,
            crate::JsonErrorKind::ByteOrderMark
        );
    }

    #[test]
    fn a_string_value_takes_no_more_room_than_a_string() {
        assert_eq!(std::mem::size_of::<JsonString>(), 24);
        assert_eq!(
            std::mem::size_of::<crate::Json>(),
            std::mem::size_of::<Option<crate::Json>>()
        );
    }
}

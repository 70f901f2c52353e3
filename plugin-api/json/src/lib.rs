//! `rea-json`: a strict JSON reader and a canonical writer, pure (no I/O).
//!
//! `rea` reads recorded captures and its own Evidence with this crate rather than with
//! `serde_json`, because the contract asks for more than a general-purpose parser gives:
//!
//! * **Strict.** Duplicate object keys are refused anywhere, comparing decoded keys (`"a"` and
//!   `"\u0061"` collide); nesting deeper than [`ParseOptions::max_depth`] (64 by default) is refused;
//!   so are invalid UTF-8, lone surrogate escapes, raw control characters in strings, and anything
//!   after the value. A leading UTF-8 byte-order mark is refused unless
//!   [`ParseOptions::allow_byte_order_mark`] is set (HAR reading sets it: Chrome on Windows writes
//!   one; RFC 8259 §8.1 lets a parser ignore it). Every error carries the byte offset and the JSON
//!   pointer of the value being read ([`JsonError`]).
//! * **Lossless.** A [`Json`] number keeps its original lexeme ([`Number`]); objects keep their
//!   member order; members named `__proto__` are ordinary members.
//! * **Canonical.** [`Json::write_canonical`] writes compact JSON with object keys sorted by code
//!   point (byte order of UTF-8), numbers as their lexeme, and strings with the minimal escaping
//!   (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, other control characters as `\u00xx`). Every
//!   Evidence id is the SHA-256 of this serialization.
//! * **Safe conversion.** [`Json::to_serde_value`] converts to `serde_json::Value` and fails with
//!   the pointer of any number a native `i64`/`u64`/`f64` would not carry without loss (see
//!   [`Number::is_lossless`]).
//!
//! The reader is linear in the input: strings are scanned eight bytes at a time and copied once;
//! duplicate-key checks are linear scans for small objects and hashed for large ones.

mod convert;
mod deserialize;
mod key;
mod members;
mod number;
mod parse;
mod shared;
mod text;
mod text_deserializer;
mod write;

pub use convert::{ConversionError, from_json};
pub use deserialize::{NUMBER_TOKEN, TreeDeserializer, from_json_exact};
use key::Key;
use members::Members;
pub use number::Number;
pub use parse::{
    ItemStream, JsonError, JsonErrorKind, ParseOptions, Streamed, parse, parse_shared_text,
    parse_sharing, parse_streaming, parse_streaming_text, parse_with,
};
pub use shared::SharedObjects;
pub use text::{JsonString, SourceText};
pub use text_deserializer::from_slice_exact;
pub use write::{
    CHUNK_BYTES, escape_pointer_segment, unescape_pointer_segment, write_canonical_chunks,
    write_canonical_string,
};

/// The default nesting limit: 64 levels of arrays and objects.
pub const DEFAULT_MAX_DEPTH: usize = 64;

/// The UTF-8 byte-order mark.
pub const BYTE_ORDER_MARK: &[u8] = b"\xEF\xBB\xBF";

/// A JSON value that keeps number lexemes and member order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Json {
    /// `null`.
    #[default]
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as its original lexeme.
    Number(Number),
    /// A string (stored compactly, see [`JsonString`]).
    String(JsonString),
    /// An array.
    Array(Vec<Json>),
    /// An object, members in document order.
    Object(Object),
}

/// A JSON object: members in insertion order, keys unique.
///
/// Equality is JSON's: the same members with equal values, in any order.
///
/// Keys are stored compactly (see the `key` module): most take no allocation of their own.
///
/// A parsed object's members are shared (see the `members` module): a clone of it is a count,
/// not a copy, until either side changes it.
#[derive(Clone, Default)]
pub struct Object {
    members: Members,
}

impl std::fmt::Debug for Object {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Object")
            .field("members", &self.members())
            .finish()
    }
}

impl PartialEq for Object {
    fn eq(&self, other: &Self) -> bool {
        if self.members.same(&other.members) {
            return true;
        }
        if self.members.len() != other.members.len() {
            return false;
        }
        fn sorted(object: &Object) -> Vec<&(Key, Json)> {
            let mut members: Vec<&(Key, Json)> = object.members().iter().collect();
            members.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            members
        }
        sorted(self)
            .into_iter()
            .zip(sorted(other))
            .all(|(a, b)| a.0.as_bytes() == b.0.as_bytes() && a.1 == b.1)
    }
}

impl Eq for Object {}

impl Object {
    /// An empty object.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty object with room for `capacity` members.
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            members: Members::Owned(Vec::with_capacity(capacity)),
        }
    }

    /// The number of members.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether the object has no members.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// The member's value.
    pub fn get(&self, key: &str) -> Option<&Json> {
        self.members()
            .iter()
            .find(|(name, _)| name == key)
            .map(|(_, value)| value)
    }

    /// The member's value, mutably.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Json> {
        self.members
            .owned()
            .iter_mut()
            .find(|(name, _)| name == key)
            .map(|(_, value)| value)
    }

    /// Whether a member with that key exists.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Sets a member: replaces the value of an existing key in place, or appends a new member.
    /// Returns the previous value.
    pub fn insert(&mut self, key: impl Into<String>, value: impl Into<Json>) -> Option<Json> {
        let key = key.into();
        let value = value.into();
        let members = self.members.owned();
        match members.iter_mut().find(|(name, _)| *name == *key) {
            Some((_, slot)) => Some(std::mem::replace(slot, value)),
            None => {
                members.push((Key::from(key), value));
                None
            }
        }
    }

    /// Removes a member, keeping the order of the others. Returns its value.
    pub fn remove(&mut self, key: &str) -> Option<Json> {
        let index = self.members().iter().position(|(name, _)| name == key)?;
        Some(self.members.owned().remove(index).1)
    }

    /// Takes a member's value out, leaving `null` in its place (cheap for large values).
    pub fn take(&mut self, key: &str) -> Option<Json> {
        self.get_mut(key).map(std::mem::take)
    }

    /// The members in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &Json)> {
        self.members()
            .iter()
            .map(|(key, value)| (key.as_str(), value))
    }

    /// The members in order, values mutable.
    pub fn iter_mut(&mut self) -> impl ExactSizeIterator<Item = (&str, &mut Json)> {
        self.members
            .owned()
            .iter_mut()
            .map(|(key, value)| (key.as_str(), value))
    }

    /// The keys in order.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = &str> {
        self.members().iter().map(|(key, _)| key.as_str())
    }

    /// Appends a member without checking that its key is new. Only for callers that know it is
    /// (the parser checks); a duplicate breaks the canonical form.
    pub(crate) fn push_unique(&mut self, key: impl Into<Key>, value: Json) {
        self.members.owned().push((key.into(), value));
    }

    /// Makes the members shared, at their size (the parser's objects are kept whole, often for a
    /// program's lifetime: a list grown by doubling holds up to twice its size, and a copy of a
    /// shared object is a count).
    pub(crate) fn share(&mut self) {
        self.members.share();
    }

    pub(crate) fn members(&self) -> &[(Key, Json)] {
        self.members.as_slice()
    }
}

impl IntoIterator for Object {
    type Item = (String, Json);
    type IntoIter = IntoMembers;

    fn into_iter(self) -> Self::IntoIter {
        IntoMembers(self.members.into_vec().into_iter())
    }
}

/// An object's members, taken in order (see [`Object`]'s `IntoIterator`).
#[derive(Debug)]
pub struct IntoMembers(std::vec::IntoIter<(Key, Json)>);

impl Iterator for IntoMembers {
    type Item = (String, Json);

    fn next(&mut self) -> Option<(String, Json)> {
        self.0.next().map(|(key, value)| (key.into_string(), value))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl DoubleEndedIterator for IntoMembers {
    fn next_back(&mut self) -> Option<(String, Json)> {
        self.0
            .next_back()
            .map(|(key, value)| (key.into_string(), value))
    }
}

impl ExactSizeIterator for IntoMembers {}

impl FromIterator<(String, Json)> for Object {
    /// Collects members; a later duplicate key replaces the earlier value.
    fn from_iter<T: IntoIterator<Item = (String, Json)>>(iter: T) -> Self {
        let mut object = Object::new();
        for (key, value) in iter {
            object.insert(key, value);
        }
        object
    }
}

impl Json {
    /// Parses with [`ParseOptions::default`] (depth 64, no byte-order mark).
    pub fn parse(bytes: &[u8]) -> Result<Json, JsonError> {
        parse(bytes)
    }

    /// The canonical serialization (see the module documentation) appended to `out`.
    pub fn write_canonical(&self, out: &mut Vec<u8>) {
        write::write_canonical(self, out);
    }

    /// The canonical serialization.
    pub fn to_canonical_vec(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.write_canonical(&mut out);
        out
    }

    /// The canonical serialization as a string.
    pub fn to_canonical_string(&self) -> String {
        // The writer only ever emits UTF-8 (strings are Rust strings, the rest is ASCII).
        String::from_utf8(self.to_canonical_vec()).unwrap_or_default()
    }

    /// The JSON type's name (`null`, `boolean`, `number`, `string`, `array`, `object`).
    pub fn type_name(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "boolean",
            Json::Number(_) => "number",
            Json::String(_) => "string",
            Json::Array(_) => "array",
            Json::Object(_) => "object",
        }
    }

    /// Whether this is `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }

    /// The string, when this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(text) => Some(text),
            _ => None,
        }
    }

    /// The boolean, when this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Bool(value) => Some(*value),
            _ => None,
        }
    }

    /// The number, when this is one.
    pub fn as_number(&self) -> Option<&Number> {
        match self {
            Json::Number(number) => Some(number),
            _ => None,
        }
    }

    /// The array, when this is one.
    pub fn as_array(&self) -> Option<&Vec<Json>> {
        match self {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The array, mutably, when this is one.
    pub fn as_array_mut(&mut self) -> Option<&mut Vec<Json>> {
        match self {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The object, when this is one.
    pub fn as_object(&self) -> Option<&Object> {
        match self {
            Json::Object(object) => Some(object),
            _ => None,
        }
    }

    /// The object, mutably, when this is one.
    pub fn as_object_mut(&mut self) -> Option<&mut Object> {
        match self {
            Json::Object(object) => Some(object),
            _ => None,
        }
    }

    /// The member of an object (`None` for other types or a missing key).
    pub fn get(&self, key: &str) -> Option<&Json> {
        self.as_object()?.get(key)
    }

    /// The value at a JSON pointer (RFC 6901), `None` when it names nothing.
    pub fn pointer(&self, pointer: &str) -> Option<&Json> {
        if pointer.is_empty() {
            return Some(self);
        }
        let rest = pointer.strip_prefix('/')?;
        let mut current = self;
        for raw in rest.split('/') {
            let segment = write::unescape_pointer_segment(raw);
            current = match current {
                Json::Object(object) => object.get(&segment)?,
                Json::Array(items) => {
                    if segment.len() > 1 && segment.starts_with('0') {
                        return None;
                    }
                    items.get(segment.parse::<usize>().ok()?)?
                }
                _ => return None,
            };
        }
        Some(current)
    }
}

impl From<bool> for Json {
    fn from(value: bool) -> Self {
        Json::Bool(value)
    }
}

impl From<String> for Json {
    fn from(value: String) -> Self {
        Json::String(JsonString::from(value))
    }
}

impl From<&str> for Json {
    fn from(value: &str) -> Self {
        Json::String(JsonString::from(value))
    }
}

impl From<JsonString> for Json {
    fn from(value: JsonString) -> Self {
        Json::String(value)
    }
}

impl From<u64> for Json {
    fn from(value: u64) -> Self {
        Json::Number(Number::from(value))
    }
}

impl From<i64> for Json {
    fn from(value: i64) -> Self {
        Json::Number(Number::from(value))
    }
}

impl From<usize> for Json {
    fn from(value: usize) -> Self {
        Json::Number(Number::from(value as u64))
    }
}

impl From<Number> for Json {
    fn from(value: Number) -> Self {
        Json::Number(value)
    }
}

impl From<Object> for Json {
    fn from(value: Object) -> Self {
        Json::Object(value)
    }
}

impl From<Vec<Json>> for Json {
    fn from(value: Vec<Json>) -> Self {
        Json::Array(value)
    }
}

impl<T: Into<Json>> From<Option<T>> for Json {
    fn from(value: Option<T>) -> Self {
        value.map_or(Json::Null, Into::into)
    }
}

impl std::fmt::Display for Json {
    /// The canonical serialization.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_canonical_string())
    }
}

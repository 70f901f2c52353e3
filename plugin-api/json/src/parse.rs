//! The strict reader: bytes in, a [`Json`] value or a located [`JsonError`] out.
//!
//! Recursive descent over input validated as UTF-8 up front, so strings are sliced and copied
//! without re-validation. Recursion depth is bounded by [`ParseOptions::max_depth`], so the stack
//! stays small whatever the input.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::Arc;

use super::key::Key;
use super::number::scan_number;
use super::write::escape_pointer_segment;
use super::{
    BYTE_ORDER_MARK, DEFAULT_MAX_DEPTH, Json, JsonString, Number, Object, SharedObjects, SourceText,
};

/// How strict the reader is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseOptions {
    /// The deepest nesting of arrays and objects accepted (the outermost container is level 1).
    pub max_depth: usize,
    /// Skip one leading UTF-8 byte-order mark instead of refusing it.
    pub allow_byte_order_mark: bool,
}

impl Default for ParseOptions {
    /// Depth 64, no byte-order mark.
    fn default() -> Self {
        Self {
            max_depth: DEFAULT_MAX_DEPTH,
            allow_byte_order_mark: false,
        }
    }
}

impl ParseOptions {
    /// These options with another depth limit.
    pub fn max_depth(mut self, max_depth: usize) -> Self {
        self.max_depth = max_depth;
        self
    }

    /// These options with a leading byte-order mark accepted.
    pub fn allow_byte_order_mark(mut self, allow: bool) -> Self {
        self.allow_byte_order_mark = allow;
        self
    }
}

/// Why the reader refused its input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonErrorKind {
    /// The input is not UTF-8.
    InvalidUtf8,
    /// The input starts with a byte-order mark and the options refuse one.
    ByteOrderMark,
    /// The input ended inside a value (or held no value at all).
    UnexpectedEnd,
    /// A character that cannot appear here.
    UnexpectedCharacter,
    /// Malformed number grammar.
    InvalidNumber,
    /// An unknown or malformed escape sequence.
    InvalidEscape,
    /// A `\u` escape of a lone UTF-16 surrogate.
    LoneSurrogate,
    /// A raw control character inside a string.
    ControlCharacter,
    /// An object key that an earlier member of the same object already has (after decoding).
    DuplicateKey,
    /// Arrays and objects nested deeper than the limit.
    TooDeep {
        /// The limit in force.
        limit: usize,
    },
    /// Something after the value.
    TrailingCharacters,
}

impl JsonErrorKind {
    /// A stable snake_case name.
    pub fn code(&self) -> &'static str {
        match self {
            JsonErrorKind::InvalidUtf8 => "invalid_utf8",
            JsonErrorKind::ByteOrderMark => "byte_order_mark",
            JsonErrorKind::UnexpectedEnd => "unexpected_end",
            JsonErrorKind::UnexpectedCharacter => "unexpected_character",
            JsonErrorKind::InvalidNumber => "invalid_number",
            JsonErrorKind::InvalidEscape => "invalid_escape",
            JsonErrorKind::LoneSurrogate => "lone_surrogate",
            JsonErrorKind::ControlCharacter => "control_character",
            JsonErrorKind::DuplicateKey => "duplicate_key",
            JsonErrorKind::TooDeep { .. } => "too_deep",
            JsonErrorKind::TrailingCharacters => "trailing_characters",
        }
    }
}

/// A refusal of the reader: what, at which byte offset, and at which JSON pointer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    /// What is wrong.
    pub kind: JsonErrorKind,
    /// Byte offset in the input (counting a skipped byte-order mark).
    pub offset: usize,
    /// JSON pointer of the value being read when the error was found (for a duplicate key, the
    /// pointer of the duplicate member). Empty for the document itself or when unknown.
    pub pointer: String,
}

impl JsonError {
    fn new(kind: JsonErrorKind, offset: usize) -> Self {
        Self {
            kind,
            offset,
            pointer: String::new(),
        }
    }

    fn within(mut self, segment: &str) -> Self {
        let mut prefix = String::with_capacity(segment.len() + 1 + self.pointer.len());
        prefix.push('/');
        prefix.push_str(&escape_pointer_segment(segment));
        self.pointer.insert_str(0, &prefix);
        self
    }

    /// One sentence naming the problem and where it is.
    pub fn describe(&self) -> String {
        let what = match &self.kind {
            JsonErrorKind::InvalidUtf8 => "the input is not valid UTF-8".to_owned(),
            JsonErrorKind::ByteOrderMark => "the input starts with a byte-order mark".to_owned(),
            JsonErrorKind::UnexpectedEnd => {
                "the input ends before the JSON value is complete".to_owned()
            }
            JsonErrorKind::UnexpectedCharacter => "unexpected character".to_owned(),
            JsonErrorKind::InvalidNumber => "malformed number".to_owned(),
            JsonErrorKind::InvalidEscape => "invalid escape sequence in a string".to_owned(),
            JsonErrorKind::LoneSurrogate => "a \\u escape names a lone UTF-16 surrogate".to_owned(),
            JsonErrorKind::ControlCharacter => "unescaped control character in a string".to_owned(),
            JsonErrorKind::DuplicateKey => "duplicate object key".to_owned(),
            JsonErrorKind::TooDeep { limit } => {
                format!("arrays and objects nest deeper than {limit} levels")
            }
            JsonErrorKind::TrailingCharacters => "characters after the JSON value".to_owned(),
        };
        if self.pointer.is_empty() {
            format!("{what} at byte {}", self.offset)
        } else {
            format!("{what} at byte {} ({})", self.offset, self.pointer)
        }
    }
}

impl std::fmt::Display for JsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

impl std::error::Error for JsonError {}

/// Parses with [`ParseOptions::default`].
pub fn parse(bytes: &[u8]) -> Result<Json, JsonError> {
    parse_with(bytes, &ParseOptions::default())
}

/// Parses one JSON document.
pub fn parse_with(bytes: &[u8], options: &ParseOptions) -> Result<Json, JsonError> {
    parse_document(bytes, options, None, None).map(|parsed| parsed.0)
}

/// Parses one JSON document with [`ParseOptions::default`], sharing its objects with the earlier
/// parses of `objects` that read the same text (see [`SharedObjects`]).
pub fn parse_sharing(bytes: &[u8], objects: &mut SharedObjects) -> Result<Json, JsonError> {
    parse_document(bytes, &ParseOptions::default(), None, Some(objects)).map(|parsed| parsed.0)
}

/// As [`parse_sharing`], over a shared source text: a long string value read without escapes is
/// a range of `source`, not a copy (see [`JsonString`]), so the parse holds the source alive as
/// long as such a string.
pub fn parse_shared_text(
    source: &Arc<SourceText>,
    objects: &mut SharedObjects,
) -> Result<Json, JsonError> {
    let options = ParseOptions::default();
    parse_text(
        source.as_str(),
        &options,
        None,
        (Some(objects), Some(source)),
    )
    .map(|parsed| parsed.0)
}

/// How [`parse_streaming`] hands over the items of one array.
pub struct ItemStream<'s> {
    /// Object keys from the root to the array (`["log", "entries"]`).
    pub path: &'s [&'s str],
    /// String values (not keys) longer than this inside the items are checked but handed over
    /// empty (for callers that only need the items' shape); `usize::MAX` keeps every string.
    pub string_limit: usize,
    /// Receives each item as soon as it is read: its index, its value and its byte range.
    pub on_item: &'s mut dyn FnMut(usize, Json, std::ops::Range<usize>),
}

impl std::fmt::Debug for ItemStream<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ItemStream")
            .field("path", &self.path)
            .field("string_limit", &self.string_limit)
            .finish_non_exhaustive()
    }
}

/// What [`parse_streaming`] returns besides the items.
#[derive(Debug, Clone, PartialEq)]
pub struct Streamed {
    /// The document, the streamed array left empty (`[]`).
    pub document: Json,
    /// Whether the input was exactly the canonical serialization of what it holds (no
    /// whitespace, keys ascending, minimal escapes, no byte-order mark), so byte ranges of it are
    /// canonical too.
    pub canonical: bool,
}

/// Parses one JSON document, handing the items of the array at `stream.path` to a callback as
/// they are read instead of keeping them: a large array costs the memory of one item at a time.
/// Every rule of [`parse_with`] applies to the items too; an error anywhere still fails the whole
/// parse (items already handed over stay with the caller).
pub fn parse_streaming(
    bytes: &[u8],
    options: &ParseOptions,
    stream: ItemStream<'_>,
) -> Result<Streamed, JsonError> {
    parse_document(bytes, options, Some(stream), None).map(|(document, canonical)| Streamed {
        document,
        canonical,
    })
}

/// [`parse_streaming`] for text already known to be UTF-8 (a Rust string), which is not checked
/// again: the same rules, the same result.
pub fn parse_streaming_text(
    text: &str,
    options: &ParseOptions,
    stream: ItemStream<'_>,
) -> Result<Streamed, JsonError> {
    parse_text(text, options, Some(stream), (None, None)).map(|(document, canonical)| Streamed {
        document,
        canonical,
    })
}

fn parse_document<'s>(
    bytes: &[u8],
    options: &ParseOptions,
    stream: Option<ItemStream<'s>>,
    objects: Option<&'s mut SharedObjects>,
) -> Result<(Json, bool), JsonError> {
    // A refused byte-order mark is reported before anything invalid after it.
    if bytes.starts_with(BYTE_ORDER_MARK) && !options.allow_byte_order_mark {
        return Err(JsonError::new(JsonErrorKind::ByteOrderMark, 0));
    }
    let text = std::str::from_utf8(bytes)
        .map_err(|error| JsonError::new(JsonErrorKind::InvalidUtf8, error.valid_up_to()))?;
    parse_text(text, options, stream, (objects, None))
}

/// Parses `text`; `objects` shares objects across parses, `source` (the shared text `text` is)
/// lets long string values be ranges of it (see [`parse_shared_text`]).
fn parse_text<'s>(
    text: &str,
    options: &ParseOptions,
    stream: Option<ItemStream<'s>>,
    (objects, source): (Option<&'s mut SharedObjects>, Option<&Arc<SourceText>>),
) -> Result<(Json, bool), JsonError> {
    let bytes = text.as_bytes();
    let mut start = 0;
    if bytes.starts_with(BYTE_ORDER_MARK) {
        if !options.allow_byte_order_mark {
            return Err(JsonError::new(JsonErrorKind::ByteOrderMark, 0));
        }
        start = BYTE_ORDER_MARK.len();
    }
    let mut parser = Parser {
        text,
        bytes,
        pos: start,
        max_depth: options.max_depth,
        hasher: None,
        canonical: start == 0,
        string_limit: usize::MAX,
        stream,
        objects,
        source: source.cloned(),
    };
    parser.whole_value()
}

/// Objects with at least this many members check duplicate keys through a hash index.
const HASHED_OBJECT_MEMBERS: usize = 16;

pub(crate) struct Parser<'a, 's> {
    pub(crate) text: &'a str,
    pub(crate) bytes: &'a [u8],
    pub(crate) pos: usize,
    max_depth: usize,
    hasher: Option<RandomState>,
    /// Whether everything read so far is canonical.
    canonical: bool,
    /// Strings longer than this are checked but kept empty (inside streamed items only).
    string_limit: usize,
    stream: Option<ItemStream<'s>>,
    /// The table objects are shared through, when the caller gave one.
    objects: Option<&'s mut SharedObjects>,
    /// The shared text being read, when the caller gave one: long string values are ranges of it.
    source: Option<Arc<SourceText>>,
}

impl<'a> Parser<'a, 'static> {
    /// A parser over text for the typed reader ([`crate::text_deserializer`]): no stream, no
    /// nesting limit (the typed reader recurses as the type does).
    pub(crate) fn over(text: &'a str) -> Self {
        Parser {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            max_depth: usize::MAX,
            hasher: None,
            canonical: false,
            string_limit: usize::MAX,
            stream: None,
            objects: None,
            source: None,
        }
    }
}

impl Parser<'_, '_> {
    /// The document's one value, nothing but whitespace around it; whether it was canonical.
    fn whole_value(&mut self) -> Result<(Json, bool), JsonError> {
        self.skip_whitespace();
        let track = self.stream.as_ref().map(|_| 0);
        let value = self.value(0, track)?;
        self.skip_whitespace();
        if self.pos != self.bytes.len() {
            return Err(JsonError::new(JsonErrorKind::TrailingCharacters, self.pos));
        }
        Ok((value, self.canonical))
    }

    pub(crate) fn skip_whitespace(&mut self) {
        let start = self.pos;
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
        if self.pos != start {
            self.canonical = false;
        }
    }

    /// How many path segments the value at hand matches after reading member `key` of an
    /// object that matched `track` segments.
    fn track_member(&self, track: Option<usize>, key: &str) -> Option<usize> {
        let matched = track?;
        let path = self.stream.as_ref()?.path;
        (path.get(matched) == Some(&key)).then_some(matched + 1)
    }

    fn streams_here(&self, track: Option<usize>) -> bool {
        match (&self.stream, track) {
            (Some(stream), Some(matched)) => matched == stream.path.len(),
            _ => false,
        }
    }

    pub(crate) fn error(&self, kind: JsonErrorKind) -> JsonError {
        JsonError::new(kind, self.pos)
    }

    pub(crate) fn unexpected(&self) -> JsonError {
        if self.pos >= self.bytes.len() {
            self.error(JsonErrorKind::UnexpectedEnd)
        } else {
            self.error(JsonErrorKind::UnexpectedCharacter)
        }
    }

    fn value(&mut self, depth: usize, track: Option<usize>) -> Result<Json, JsonError> {
        match self.bytes.get(self.pos) {
            Some(b'{') => self.object(depth + 1, track),
            Some(b'[') if self.streams_here(track) => self.streamed_array(depth + 1),
            Some(b'[') => self.array(depth + 1, track),
            Some(b'"') => self.string_value().map(Json::from),
            Some(b't') => self.literal(b"true", Json::Bool(true)),
            Some(b'f') => self.literal(b"false", Json::Bool(false)),
            Some(b'n') => self.literal(b"null", Json::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.unexpected()),
        }
    }

    fn literal(&mut self, word: &[u8], value: Json) -> Result<Json, JsonError> {
        let end = self.pos + word.len();
        if self.bytes.get(self.pos..end) == Some(word) {
            self.pos = end;
            Ok(value)
        } else {
            let matched = word
                .iter()
                .zip(&self.bytes[self.pos..])
                .take_while(|(a, b)| a == b)
                .count();
            self.pos += matched;
            Err(self.unexpected())
        }
    }

    fn number(&mut self) -> Result<Json, JsonError> {
        let start = self.pos;
        match scan_number(self.bytes, start) {
            Some(end) => {
                self.pos = end;
                Ok(Json::Number(Number::from_validated(&self.text[start..end])))
            }
            None => Err(self.error(JsonErrorKind::InvalidNumber)),
        }
    }

    fn enter(&self, depth: usize) -> Result<(), JsonError> {
        if depth > self.max_depth {
            Err(self.error(JsonErrorKind::TooDeep {
                limit: self.max_depth,
            }))
        } else {
            Ok(())
        }
    }

    /// An array whose items go to the stream's callback.
    fn streamed_array(&mut self, depth: usize) -> Result<Json, JsonError> {
        self.enter(depth)?;
        self.pos += 1;
        self.skip_whitespace();
        if self.bytes.get(self.pos) == Some(&b']') {
            self.pos += 1;
            return Ok(Json::Array(Vec::new()));
        }
        let limit = self
            .stream
            .as_ref()
            .map_or(usize::MAX, |stream| stream.string_limit);
        let mut index = 0;
        loop {
            self.skip_whitespace();
            let start = self.pos;
            self.string_limit = limit;
            let item = self.value(depth, None);
            self.string_limit = usize::MAX;
            let item = item.map_err(|error| error.within(&index.to_string()))?;
            if let Some(stream) = self.stream.as_mut() {
                (stream.on_item)(index, item, start..self.pos);
            }
            index += 1;
            self.skip_whitespace();
            match self.bytes.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Json::Array(Vec::new()));
                }
                _ => return Err(self.unexpected().within(&index.to_string())),
            }
        }
    }

    fn array(&mut self, depth: usize, track: Option<usize>) -> Result<Json, JsonError> {
        // Arrays are not on a streaming path (only object keys are).
        let _ = track;
        self.enter(depth)?;
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_whitespace();
        if self.bytes.get(self.pos) == Some(&b']') {
            self.pos += 1;
            return Ok(Json::Array(items));
        }
        loop {
            self.skip_whitespace();
            let item = self
                .value(depth, None)
                .map_err(|error| error.within(&items.len().to_string()))?;
            items.push(item);
            self.skip_whitespace();
            match self.bytes.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    // Without the room the list grew beyond its items (see `Object::share`).
                    items.shrink_to_fit();
                    return Ok(Json::Array(items));
                }
                _ => return Err(self.unexpected().within(&items.len().to_string())),
            }
        }
    }

    fn object(&mut self, depth: usize, track: Option<usize>) -> Result<Json, JsonError> {
        self.enter(depth)?;
        let start = self.pos;
        self.pos += 1;
        let mut object = Object::new();
        let mut index: Option<HashMap<u64, usize>> = None;
        self.skip_whitespace();
        if self.bytes.get(self.pos) == Some(&b'}') {
            self.pos += 1;
            return Ok(Json::Object(object));
        }
        loop {
            self.skip_whitespace();
            if self.bytes.get(self.pos) != Some(&b'"') {
                return Err(self.unexpected());
            }
            let key_offset = self.pos;
            let key = self.key()?;
            let key_text = key.as_str();
            if self.is_duplicate(&object, &mut index, key_text) {
                return Err(
                    JsonError::new(JsonErrorKind::DuplicateKey, key_offset).within(key_text)
                );
            }
            if self.canonical
                && object
                    .members()
                    .last()
                    .is_some_and(|(previous, _)| previous.as_bytes() >= key.as_bytes())
            {
                self.canonical = false;
            }
            self.skip_whitespace();
            if self.bytes.get(self.pos) != Some(&b':') {
                return Err(self.unexpected().within(key_text));
            }
            self.pos += 1;
            self.skip_whitespace();
            let member_track = self.track_member(track, key_text);
            let value = self
                .value(depth, member_track)
                .map_err(|error| error.within(key_text))?;
            object.push_unique(key, value);
            self.skip_whitespace();
            match self.bytes.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    object.share();
                    if let Some(objects) = self.objects.as_deref_mut() {
                        objects.share(&self.bytes[start..self.pos], &mut object.members);
                    }
                    return Ok(Json::Object(object));
                }
                _ => return Err(self.unexpected()),
            }
        }
    }

    /// Whether `key` is already a member; keeps the hash index of large objects up to date.
    fn is_duplicate(
        &mut self,
        object: &Object,
        index: &mut Option<HashMap<u64, usize>>,
        key: &str,
    ) -> bool {
        let members = object.members();
        if members.len() < HASHED_OBJECT_MEMBERS {
            return members.iter().any(|(name, _)| name == key);
        }
        let hasher = self.hasher.get_or_insert_with(RandomState::new);
        let index = index.get_or_insert_with(|| {
            let mut map = HashMap::with_capacity(members.len() * 2);
            for (position, (name, _)) in members.iter().enumerate() {
                map.entry(hasher.hash_one(name.as_str()))
                    .or_insert(position);
            }
            map
        });
        let hash = hasher.hash_one(key);
        match index.get(&hash) {
            // A hash match: compare for real (SipHash with random keys makes collisions rare).
            Some(_) => members.iter().any(|(name, _)| name == key),
            None => {
                index.insert(hash, members.len());
                false
            }
        }
    }

    /// Reads an object key starting at its opening quote: a key without escapes is taken from the
    /// text as it stands (a short one then needs no allocation, see [`Key`]). Keys are always kept
    /// whole (the string limit is for values): two long keys must not read as one empty key.
    fn key(&mut self) -> Result<Key, JsonError> {
        let start = self.pos + 1;
        let stop = find_special(self.bytes, start);
        if self.bytes.get(stop) == Some(&b'"') {
            self.pos = stop + 1;
            return Ok(Key::from(&self.text[start..stop]));
        }
        let limit = std::mem::replace(&mut self.string_limit, usize::MAX);
        let key = self.string();
        self.string_limit = limit;
        key.map(Key::from)
    }

    /// Reads a string value starting at its opening quote: one without escapes is taken from the
    /// text as it stands (a range of the shared source when there is one, see [`JsonString`]).
    fn string_value(&mut self) -> Result<JsonString, JsonError> {
        let start = self.pos + 1;
        let stop = find_special(self.bytes, start);
        if self.bytes.get(stop) != Some(&b'"') {
            return self.string().map(JsonString::from);
        }
        self.pos = stop + 1;
        if stop - start > self.string_limit {
            return Ok(JsonString::new());
        }
        Ok(match &self.source {
            Some(source) => JsonString::from_source(source, start..stop),
            None => JsonString::from(&self.text[start..stop]),
        })
    }

    /// Reads a string starting at its opening quote.
    pub(crate) fn string(&mut self) -> Result<String, JsonError> {
        self.pos += 1;
        let start = self.pos;
        let stop = find_special(self.bytes, start);
        if self.bytes.get(stop) == Some(&b'"') {
            self.pos = stop + 1;
            if stop - start > self.string_limit {
                return Ok(String::new());
            }
            return Ok(self.text[start..stop].to_owned());
        }
        // Inside streamed items a string longer than the limit is checked but not kept.
        let limit = self.string_limit;
        let mut exceeded = stop - start > limit;
        let mut out = String::with_capacity(if exceeded { 0 } else { stop - start + 16 });
        if !exceeded {
            out.push_str(&self.text[start..stop]);
        }
        self.pos = stop;
        loop {
            match self.bytes.get(self.pos) {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(if exceeded { String::new() } else { out });
                }
                // The most frequent escapes (quotes and backslashes of JSON inside JSON) are
                // canonical and decode to themselves.
                Some(b'\\') => match self.bytes.get(self.pos + 1) {
                    Some(&byte @ (b'"' | b'\\')) => {
                        if !exceeded {
                            out.push(char::from(byte));
                        }
                        self.pos += 2;
                    }
                    _ => {
                        self.escape(&mut out)?;
                        if exceeded {
                            out.clear();
                        }
                    }
                },
                Some(_) => return Err(self.error(JsonErrorKind::ControlCharacter)),
                None => return Err(self.error(JsonErrorKind::UnexpectedEnd)),
            }
            let run = next_special(self.bytes, self.pos);
            if !exceeded {
                out.push_str(&self.text[self.pos..run]);
                if out.len() > limit {
                    exceeded = true;
                    out = String::new();
                }
            }
            self.pos = run;
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), JsonError> {
        let escape_at = self.pos;
        let Some(&kind) = self.bytes.get(self.pos + 1) else {
            self.pos += 1;
            return Err(self.error(JsonErrorKind::UnexpectedEnd));
        };
        self.pos += 2;
        if !matches!(kind, b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' | b'u') {
            // `\/` and invalid escapes: not canonical (the canonical writer never escapes `/`).
            self.canonical = false;
        }
        let decoded = match kind {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let first = self.hex4(escape_at)?;
                // Canonical `\u` escapes are lower-case and only for control characters without a
                // short escape.
                if first >= 0x20
                    || matches!(first, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d)
                    || self.bytes[escape_at + 2..escape_at + 6]
                        .iter()
                        .any(u8::is_ascii_uppercase)
                {
                    self.canonical = false;
                }
                match first {
                    0xD800..=0xDBFF => {
                        if self.bytes.get(self.pos..self.pos + 2) != Some(b"\\u") {
                            return Err(JsonError::new(JsonErrorKind::LoneSurrogate, escape_at));
                        }
                        self.pos += 2;
                        let second = self.hex4(escape_at)?;
                        if !(0xDC00..=0xDFFF).contains(&second) {
                            return Err(JsonError::new(JsonErrorKind::LoneSurrogate, escape_at));
                        }
                        let code = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
                        char::from_u32(code).ok_or_else(|| {
                            JsonError::new(JsonErrorKind::LoneSurrogate, escape_at)
                        })?
                    }
                    0xDC00..=0xDFFF => {
                        return Err(JsonError::new(JsonErrorKind::LoneSurrogate, escape_at));
                    }
                    code => char::from_u32(code)
                        .ok_or_else(|| JsonError::new(JsonErrorKind::InvalidEscape, escape_at))?,
                }
            }
            _ => return Err(JsonError::new(JsonErrorKind::InvalidEscape, escape_at)),
        };
        out.push(decoded);
        Ok(())
    }

    fn hex4(&mut self, escape_at: usize) -> Result<u32, JsonError> {
        let digits = self
            .bytes
            .get(self.pos..self.pos + 4)
            .ok_or_else(|| JsonError::new(JsonErrorKind::InvalidEscape, escape_at))?;
        let mut value = 0u32;
        for &digit in digits {
            let nibble = match digit {
                b'0'..=b'9' => digit - b'0',
                b'a'..=b'f' => digit - b'a' + 10,
                b'A'..=b'F' => digit - b'A' + 10,
                _ => return Err(JsonError::new(JsonErrorKind::InvalidEscape, escape_at)),
            };
            value = value * 16 + u32::from(nibble);
        }
        self.pos += 4;
        Ok(value)
    }
}

/// Like [`find_special`], for the text right after an escape: runs there are often a few bytes
/// long (JSON inside JSON escapes every quote), so look byte by byte first.
#[inline]
pub(crate) fn next_special(bytes: &[u8], from: usize) -> usize {
    let mut at = from;
    while let Some(&byte) = bytes.get(at) {
        if byte == b'"' || byte == b'\\' || byte < 0x20 {
            return at;
        }
        at += 1;
        if at - from == 16 {
            return find_special(bytes, at);
        }
    }
    at
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The offset of the first `"`, `\` or control character at or after `from` (or the length).
/// Eight bytes at a time: the lowest flagged byte of each SWAR test is exact.
#[inline]
pub(crate) fn find_special(bytes: &[u8], from: usize) -> usize {
    let mut at = from;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let word = u64::from_le_bytes(word);
        let quote = word ^ (ONES * u64::from(b'"'));
        let backslash = word ^ (ONES * u64::from(b'\\'));
        let flags = (quote.wrapping_sub(ONES) & !quote
            | backslash.wrapping_sub(ONES) & !backslash
            | word.wrapping_sub(ONES * 0x20) & !word)
            & HIGHS;
        if flags != 0 {
            return at + (flags.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while let Some(&byte) = bytes.get(at) {
        if byte == b'"' || byte == b'\\' || byte < 0x20 {
            return at;
        }
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind_of(text: &str) -> JsonErrorKind {
        parse(text.as_bytes()).unwrap_err().kind
    }

    #[test]
    fn reads_values_and_keeps_lexemes_and_order() {
        let value = parse(
            br#" {"b": [1.50, -0, 1e2, true, null], "a": "x\u00e9\ud83d\ude00", "__proto__": {}} "#,
        )
        .unwrap();
        let object = value.as_object().unwrap();
        assert_eq!(object.keys().collect::<Vec<_>>(), ["b", "a", "__proto__"]);
        let numbers: Vec<&str> = value.get("b").unwrap().as_array().unwrap()[..3]
            .iter()
            .map(|item| item.as_number().unwrap().as_str())
            .collect();
        assert_eq!(numbers, ["1.50", "-0", "1e2"]);
        assert_eq!(value.get("a").unwrap().as_str(), Some("xé😀"));
    }

    #[test]
    fn parsed_lists_keep_no_room_beyond_their_items() {
        let value = parse(br#"{"a": [1, 2, 3, 4, 5], "b": 1, "c": 2, "d": 3, "e": 4}"#).unwrap();
        let items = value.get("a").unwrap().as_array().unwrap();
        assert_eq!(items.capacity(), items.len());
        let members = &value.as_object().unwrap().members;
        assert!(
            members.is_shared(),
            "parsed members are held at their size, shared"
        );
        assert_eq!(members.len(), 5);
    }

    #[test]
    fn refuses_duplicate_keys_after_decoding() {
        let error = parse(br#"{"x": {"a": 1, "\u0061": 1}}"#).unwrap_err();
        assert_eq!(error.kind, JsonErrorKind::DuplicateKey);
        assert_eq!(error.pointer, "/x/a");
        assert_eq!(error.offset, 15);
        // Large objects go through the hash index.
        let mut text = String::from("{");
        for index in 0..100 {
            text.push_str(&format!("\"k{index}\": {index},"));
        }
        text.push_str("\"k57\": 0}");
        let error = parse(text.as_bytes()).unwrap_err();
        assert_eq!(error.kind, JsonErrorKind::DuplicateKey);
        assert_eq!(error.pointer, "/k57");
    }

    #[test]
    fn refuses_deep_nesting_at_the_limit() {
        let ok = format!("{}{}", "[".repeat(64), "]".repeat(64));
        assert!(parse(ok.as_bytes()).is_ok());
        let deep = format!("{}{}", "[".repeat(65), "]".repeat(65));
        let error = parse(deep.as_bytes()).unwrap_err();
        assert_eq!(error.kind, JsonErrorKind::TooDeep { limit: 64 });
        assert_eq!(error.offset, 64);
        assert!(parse_with(deep.as_bytes(), &ParseOptions::default().max_depth(65)).is_ok());
    }

    #[test]
    fn refuses_malformed_input() {
        assert_eq!(kind_of(""), JsonErrorKind::UnexpectedEnd);
        assert_eq!(kind_of("{} x"), JsonErrorKind::TrailingCharacters);
        assert_eq!(kind_of("[01]"), JsonErrorKind::UnexpectedCharacter);
        assert_eq!(kind_of("\"a\u{1}\""), JsonErrorKind::ControlCharacter);
        assert_eq!(kind_of(r#""\ud800""#), JsonErrorKind::LoneSurrogate);
        assert_eq!(kind_of(r#""\udc00""#), JsonErrorKind::LoneSurrogate);
        assert_eq!(kind_of(r#""\x""#), JsonErrorKind::InvalidEscape);
        assert_eq!(kind_of("[1,]"), JsonErrorKind::UnexpectedCharacter);
        assert_eq!(kind_of("{\"a\" 1}"), JsonErrorKind::UnexpectedCharacter);
        assert_eq!(kind_of("tru"), JsonErrorKind::UnexpectedEnd);
        assert_eq!(kind_of("-"), JsonErrorKind::InvalidNumber);
        assert_eq!(
            parse(b"[\"\xff\"]").unwrap_err(),
            JsonError::new(JsonErrorKind::InvalidUtf8, 2)
        );
        let located = parse(br#"{"a": [1, {"b": nul}]}"#).unwrap_err();
        assert_eq!(located.pointer, "/a/1/b");
    }

    #[test]
    fn streaming_hands_over_items_with_their_ranges() {
        let text = br#"{"a":{"items":[{"k":"vvvvvv"},[1,2],3]},"z":[]}"#;
        let mut seen = Vec::new();
        let streamed = parse_streaming(
            text,
            &ParseOptions::default(),
            ItemStream {
                path: &["a", "items"],
                string_limit: 3,
                on_item: &mut |index, item, range| seen.push((index, item, range)),
            },
        )
        .unwrap();
        assert!(streamed.canonical);
        assert_eq!(
            streamed.document.to_canonical_string(),
            r#"{"a":{"items":[]},"z":[]}"#
        );
        assert_eq!(seen.len(), 3);
        // Long strings inside items are handed over empty; ranges are the items' spelling.
        assert_eq!(seen[0].1.to_canonical_string(), r#"{"k":""}"#);
        assert_eq!(&text[seen[1].2.clone()], b"[1,2]");
        assert_eq!(seen[2].0, 2);
        // An error inside an item names its pointer.
        let error = parse_streaming(
            br#"{"a":{"items":[1,{"x":1,"x":2}]}}"#,
            &ParseOptions::default(),
            ItemStream {
                path: &["a", "items"],
                string_limit: usize::MAX,
                on_item: &mut |_, _, _| {},
            },
        )
        .unwrap_err();
        assert_eq!(error.pointer, "/a/items/1/x");
    }

    #[test]
    fn escapes_decode_the_same_within_and_beyond_the_string_limit() {
        let text = r#"{"items":[{"a":"x\"y\\z\/\u00e9\n","b":"\\\"\\\"\\\"\\\"\\\"\\\"\\\""}],"z":"q\"\\"}"#;
        let whole = parse(text.as_bytes()).unwrap();
        let item = &whole.get("items").unwrap().as_array().unwrap()[0];
        assert_eq!(item.get("a").unwrap().as_str(), Some("x\"y\\z/é\n"));
        assert_eq!(item.get("b").unwrap().as_str().unwrap().len(), 14);
        assert_eq!(whole.get("z").unwrap().as_str(), Some("q\"\\"));
        for limit in [0, 5, 13, 14, usize::MAX] {
            let mut seen = Vec::new();
            let streamed = parse_streaming_text(
                text,
                &ParseOptions::default(),
                ItemStream {
                    path: &["items"],
                    string_limit: limit,
                    on_item: &mut |_, item, _| seen.push(item),
                },
            )
            .unwrap();
            assert!(!streamed.canonical, "`\\/` and `\\u00e9` are not canonical");
            assert_eq!(streamed.document.get("z"), whole.get("z"));
            for name in ["a", "b"] {
                let full = item.get(name).unwrap().as_str().unwrap();
                let kept = seen[0].get(name).unwrap().as_str().unwrap();
                let expected = if full.len() > limit { "" } else { full };
                assert_eq!(kept, expected, "{name} with limit {limit}");
            }
        }
        // Errors after a fast-path escape are still found.
        assert_eq!(kind_of(r#""\"\x""#), JsonErrorKind::InvalidEscape);
        assert_eq!(kind_of("\"\\\\\u{1}\""), JsonErrorKind::ControlCharacter);
        assert_eq!(kind_of(r#""\\"#), JsonErrorKind::UnexpectedEnd);
        // Text and bytes read alike (a byte-order mark too).
        let marked = "\u{feff}[1]";
        assert_eq!(
            parse_streaming_text(
                marked,
                &ParseOptions::default(),
                ItemStream {
                    path: &[],
                    string_limit: usize::MAX,
                    on_item: &mut |_, _, _| {},
                },
            )
            .unwrap_err()
            .kind,
            JsonErrorKind::ByteOrderMark
        );
    }

    #[test]
    fn strings_decode_as_serde_json_decodes_them() {
        // Deterministic pseudo-random strings dense in escapes, with runs of every length.
        let pieces = [
            "a",
            "\"",
            "\\",
            "/",
            "\n",
            "\u{1}",
            "\u{1f}",
            "é",
            "漢",
            "😀",
            "\t",
            " ",
            "0123456789abcdef0123",
        ];
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..2000 {
            let mut text = String::new();
            for _ in 0..(state % 40) {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                text.push_str(pieces[(state >> 33) as usize % pieces.len()]);
            }
            let mut escaped = serde_json::to_string(&text).unwrap();
            if state.is_multiple_of(3) {
                // `\/` and `\u` spellings decode the same.
                escaped = escaped.replace('/', "\\/").replace('é', "\\u00e9");
            }
            let document = format!("[{escaped}]");
            let parsed = parse(document.as_bytes()).unwrap();
            assert_eq!(parsed.as_array().unwrap()[0].as_str(), Some(text.as_str()));
            let limit = (state % 24) as usize;
            let mut kept = Vec::new();
            parse_streaming_text(
                &document,
                &ParseOptions::default(),
                ItemStream {
                    path: &[],
                    string_limit: limit,
                    on_item: &mut |_, item, _| kept.push(item),
                },
            )
            .unwrap();
            let expected = if text.len() > limit {
                ""
            } else {
                text.as_str()
            };
            assert_eq!(kept[0].as_str(), Some(expected), "{escaped} limit {limit}");
        }
    }

    #[test]
    fn canonical_input_is_recognized() {
        let canonical = |text: &str| {
            parse_streaming(
                text.as_bytes(),
                &ParseOptions::default(),
                ItemStream {
                    path: &[],
                    string_limit: usize::MAX,
                    on_item: &mut |_, _, _| {},
                },
            )
            .unwrap()
            .canonical
        };
        assert!(canonical(r#"{"a":"\"\\\n\u001f","b":[1.50,null]}"#));
        assert!(!canonical(r#"{"b":1,"a":2}"#), "keys out of order");
        assert!(!canonical(r#"{"a": 1}"#), "whitespace");
        assert!(!canonical(r#"["\/"]"#), "escaped solidus");
        assert!(!canonical(r#"["\u0041"]"#), "needless \\u escape");
        assert!(!canonical(r#"["\u001F"]"#), "upper-case hex");
        assert!(!canonical(r#"["\u000a"]"#), "\\n has a short escape");
        for text in [
            r#"{"a":"\"\\\n\u001f","b":[1.50,null]}"#,
            r#"{"b":1,"a":2}"#,
        ] {
            let value = parse(text.as_bytes()).unwrap();
            assert!(canonical(&value.to_canonical_string()));
        }
    }

    #[test]
    fn byte_order_mark_is_an_option() {
        let text = b"\xEF\xBB\xBF{\"a\":1}";
        assert_eq!(kind_of_bytes(text), JsonErrorKind::ByteOrderMark);
        let options = ParseOptions::default().allow_byte_order_mark(true);
        assert!(parse_with(text, &options).is_ok());
    }

    fn kind_of_bytes(bytes: &[u8]) -> JsonErrorKind {
        parse(bytes).unwrap_err().kind
    }

    #[test]
    fn special_byte_scan_matches_the_simple_loop() {
        let sample: Vec<u8> = (0u8..=255)
            .chain(b"abcdefgh\"ijkl\\mn".iter().copied())
            .collect();
        for start in 0..sample.len() {
            let simple = sample[start..]
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
                .map_or(sample.len(), |p| p + start);
            assert_eq!(find_special(&sample, start), simple);
        }
        let text = "é漢字😀 plain ascii text that is long enough";
        assert_eq!(find_special(text.as_bytes(), 0), text.len());
    }
}

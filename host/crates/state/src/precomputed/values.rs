//! A precomputed state's body read value by value from a reader: each kept record is typed from
//! its own text as soon as it has been read, then the state, each of its entities from its own
//! text and its other members from theirs, so the server holds one record's or one entity's text
//! (or the text of the state's other members) at a time instead of the whole file's bytes beside
//! the typed values they become.
//!
//! [`ValueScanner`] finds where one JSON value ends (strings and their escapes, nesting) without
//! interpreting it; [`rea_plugin_api::json::from_slice_exact`] then types the value's text. The
//! body must be laid out as the writer writes it: `{"records":[…],"state":…}` (whitespace between
//! tokens allowed). What is read is also hashed and counted ([`HashingReader`]); the caller uses
//! the values only when the digest and the length are the header's.

use std::io::{BufRead, Read, Write};

use rea_evidence::HashingWriter;
use rea_plugin_api::contracts::capture::CaptureRecord;
use rea_plugin_api::json;
use serde::de::DeserializeOwned;

use crate::model::{Entity, StateView};

/// Why a body cannot be read, as a sentence's end.
type Unreadable = String;

/// A reader that hashes (SHA-256) and counts every byte read through it.
pub(crate) struct HashingReader<R> {
    inner: R,
    digest: HashingWriter<std::io::Sink>,
}

impl<R: Read> HashingReader<R> {
    pub(crate) fn new(inner: R) -> Self {
        Self {
            inner,
            digest: HashingWriter::new(std::io::sink()),
        }
    }

    /// Reads what is left to its end (hashed too), then answers the SHA-256 and length of all.
    pub(crate) fn finish(mut self) -> std::io::Result<(String, u64)> {
        std::io::copy(&mut self.inner, &mut self.digest)?;
        Ok(self.digest.finish())
    }
}

impl<R: Read> Read for HashingReader<R> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let read = self.inner.read(buffer)?;
        self.digest.write_all(&buffer[..read])?;
        Ok(read)
    }
}

/// The records and the state of a body.
pub(crate) struct Body {
    pub(crate) records: Vec<CaptureRecord>,
    pub(crate) state: StateView,
}

/// How a body's records are typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RecordForm {
    /// Whole, every member as written.
    Whole,
    /// The part a server reads ([`super::served`]).
    Served,
}

/// Reads a body laid out as `{"records":[…],"state":…}` (see the module documentation), its
/// records in `form`; the reader is left after the closing brace.
pub(crate) fn read_body<R: BufRead>(reader: R, form: RecordForm) -> Result<Body, Unreadable> {
    let mut scanner = ValueScanner::new(reader);
    scanner.expect(b'{')?;
    scanner.expect_key("records")?;
    scanner.expect(b'[')?;
    let mut records = Vec::new();
    if scanner.peek()? == Some(b']') {
        scanner.consume(1);
    } else {
        loop {
            records.push(match form {
                RecordForm::Whole => scanner.typed::<CaptureRecord>()?,
                RecordForm::Served => scanner.typed::<super::served::ServedRecord>()?.into(),
            });
            match scanner.next_byte()? {
                Some(b',') => {}
                Some(b']') => break,
                _ => return Err("its records are not a JSON array".to_owned()),
            }
        }
    }
    records.shrink_to_fit();
    scanner.expect(b',')?;
    scanner.expect_key("state")?;
    let state = read_state(&mut scanner)?;
    scanner.expect(b'}')?;
    Ok(Body { records, state })
}

/// The state's member holding its entities (read entity by entity, see [`read_state`]).
const ENTITIES_KEY: &[u8] = b"\"entities\"";

/// Reads the state object member by member: its entities one by one, each typed from its own
/// text, and every other member's text gathered into an object typed as the state with an empty
/// entity list in their place; so the text held at once is one entity's, or the other members',
/// never the whole state's beside the entities it becomes.
fn read_state<R: BufRead>(scanner: &mut ValueScanner<R>) -> Result<StateView, Unreadable> {
    scanner.expect(b'{')?;
    let mut rest = vec![b'{'];
    let mut entities = None;
    if scanner.peek()? == Some(b'}') {
        scanner.consume(1);
    } else {
        loop {
            scanner.scan()?;
            let key = std::mem::take(&mut scanner.text);
            scanner.expect(b':')?;
            rest.extend_from_slice(&key);
            rest.push(b':');
            if key == ENTITIES_KEY && entities.is_none() {
                entities = Some(read_entities(scanner)?);
                rest.extend_from_slice(b"[]");
            } else {
                scanner.scan()?;
                rest.extend_from_slice(&scanner.text);
                scanner.release_large();
            }
            match scanner.next_byte()? {
                Some(b',') => rest.push(b','),
                Some(b'}') => break,
                _ => return Err("its state is not a JSON object".to_owned()),
            }
        }
    }
    rest.push(b'}');
    let mut state: StateView = typed_text(&rest)?;
    drop(rest);
    if let Some(entities) = entities {
        state.entities = entities;
    }
    Ok(state)
}

/// Reads the state's entity array, each entity typed from its own text.
fn read_entities<R: BufRead>(
    scanner: &mut ValueScanner<R>,
) -> Result<Vec<std::sync::Arc<Entity>>, Unreadable> {
    scanner.expect(b'[')?;
    let mut entities = Vec::new();
    if scanner.peek()? == Some(b']') {
        scanner.consume(1);
        return Ok(entities);
    }
    loop {
        entities.push(std::sync::Arc::new(scanner.typed::<Entity>()?));
        match scanner.next_byte()? {
            Some(b',') => {}
            Some(b']') => break,
            _ => return Err("its entities are not a JSON array".to_owned()),
        }
    }
    entities.shrink_to_fit();
    Ok(entities)
}

/// A value typed from its text.
fn typed_text<T: DeserializeOwned>(text: &[u8]) -> Result<T, Unreadable> {
    json::from_slice_exact(text).map_err(|error| format!("its body is not a state: {error}"))
}

/// Finds the text of one JSON value at a time in a reader (see the module documentation).
struct ValueScanner<R> {
    reader: R,
    /// The text of the value last scanned.
    text: Vec<u8>,
}

impl<R: BufRead> ValueScanner<R> {
    fn new(reader: R) -> Self {
        Self {
            reader,
            text: Vec::new(),
        }
    }

    fn failed(error: std::io::Error) -> Unreadable {
        format!("it cannot be read: {error}")
    }

    /// The next byte after whitespace, not consumed; `None` at the end.
    fn peek(&mut self) -> Result<Option<u8>, Unreadable> {
        loop {
            let buffer = self.reader.fill_buf().map_err(Self::failed)?;
            let Some(&byte) = buffer.first() else {
                return Ok(None);
            };
            let blanks = buffer
                .iter()
                .take_while(|byte| matches!(byte, b' ' | b'\t' | b'\n' | b'\r'))
                .count();
            if blanks == 0 {
                return Ok(Some(byte));
            }
            self.reader.consume(blanks);
        }
    }

    fn consume(&mut self, bytes: usize) {
        self.reader.consume(bytes);
    }

    /// The next byte after whitespace, consumed.
    fn next_byte(&mut self) -> Result<Option<u8>, Unreadable> {
        let byte = self.peek()?;
        if byte.is_some() {
            self.consume(1);
        }
        Ok(byte)
    }

    fn expect(&mut self, wanted: u8) -> Result<(), Unreadable> {
        match self.next_byte()? {
            Some(byte) if byte == wanted => Ok(()),
            _ => Err(format!(
                "its body is not laid out as a state's (`{}` expected)",
                char::from(wanted)
            )),
        }
    }

    /// A member name spelled without escapes, and its colon.
    fn expect_key(&mut self, name: &str) -> Result<(), Unreadable> {
        self.scan()?;
        if self.text.len() != name.len() + 2
            || &self.text[1..self.text.len() - 1] != name.as_bytes()
        {
            return Err(format!(
                "its body is not laid out as a state's (`{name}` expected)"
            ));
        }
        self.expect(b':')
    }

    /// The next value, typed from its text.
    fn typed<T: DeserializeOwned>(&mut self) -> Result<T, Unreadable> {
        self.scan()?;
        let value = typed_text(&self.text);
        self.release_large();
        value
    }

    /// Frees the text buffer when it grew large: a large value's text is not kept for the next
    /// (smaller) one.
    fn release_large(&mut self) {
        if self.text.capacity() > SCAN_BUFFER_BYTES {
            self.text = Vec::new();
        }
    }

    /// Scans the next value's text into `text`.
    fn scan(&mut self) -> Result<(), Unreadable> {
        self.text.clear();
        let first = self.peek()?.ok_or("its body ends before its last value")?;
        let mut shape = Shape::new(first);
        loop {
            let buffer = self.reader.fill_buf().map_err(Self::failed)?;
            if buffer.is_empty() {
                return match shape.ends_at_end() {
                    true => Ok(()),
                    false => Err("its body ends inside a value".to_owned()),
                };
            }
            match shape.end_in(buffer) {
                Some(end) => {
                    self.text.extend_from_slice(&buffer[..end]);
                    self.reader.consume(end);
                    return Ok(());
                }
                None => {
                    let length = buffer.len();
                    self.text.extend_from_slice(buffer);
                    self.reader.consume(length);
                }
            }
        }
    }
}

/// The text buffer kept between values (larger ones are freed once typed).
const SCAN_BUFFER_BYTES: usize = 1024 * 1024;

/// Where a value being scanned is: inside a string (after an escape), at which nesting depth.
struct Shape {
    /// An object or array (counted by depth), a string, or a bare scalar.
    kind: Kind,
    depth: usize,
    in_string: bool,
    escaped: bool,
    started: bool,
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Nested,
    String,
    Scalar,
}

impl Shape {
    fn new(first: u8) -> Self {
        let kind = match first {
            b'{' | b'[' => Kind::Nested,
            b'"' => Kind::String,
            _ => Kind::Scalar,
        };
        Self {
            kind,
            depth: 0,
            in_string: false,
            escaped: false,
            started: false,
        }
    }

    /// A scalar may end with the body (it is checked when typed); nothing else may.
    fn ends_at_end(&self) -> bool {
        self.kind == Kind::Scalar && self.started
    }

    /// Where the value ends in `bytes` (one past its last byte), when it does.
    fn end_in(&mut self, bytes: &[u8]) -> Option<usize> {
        for (at, &byte) in bytes.iter().enumerate() {
            if self.kind == Kind::Scalar {
                if matches!(byte, b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r') {
                    return Some(at);
                }
                self.started = true;
                continue;
            }
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if byte == b'\\' {
                    self.escaped = true;
                } else if byte == b'"' {
                    self.in_string = false;
                    if self.kind == Kind::String {
                        return Some(at + 1);
                    }
                }
                continue;
            }
            match byte {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        return Some(at + 1);
                    }
                }
                _ => {}
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scanned(text: &str) -> Vec<String> {
        let mut scanner = ValueScanner::new(text.as_bytes());
        let mut values = Vec::new();
        while scanner.peek().unwrap().is_some() {
            scanner.scan().unwrap();
            values.push(String::from_utf8(scanner.text.clone()).unwrap());
            if scanner.peek().unwrap() == Some(b',') {
                scanner.consume(1);
            }
        }
        values
    }

    #[test]
    fn values_end_where_their_text_does() {
        assert_eq!(
            scanned(r#"{"a":"}]\"","b":[1,{"c":[]}]} , "x\\" ,12.5e3,true,[ ] "#),
            [
                r#"{"a":"}]\"","b":[1,{"c":[]}]}"#,
                r#""x\\""#,
                "12.5e3",
                "true",
                "[ ]"
            ]
        );
    }

    #[test]
    fn a_value_across_small_reads_is_whole() {
        let text = r#"{"records":[],"state":{"x":"y"}}"#;
        let reader = std::io::BufReader::with_capacity(3, text.as_bytes());
        let mut scanner = ValueScanner::new(reader);
        scanner.expect(b'{').unwrap();
        scanner.expect_key("records").unwrap();
        scanner.expect(b'[').unwrap();
        scanner.expect(b']').unwrap();
        scanner.expect(b',').unwrap();
        scanner.expect_key("state").unwrap();
        scanner.scan().unwrap();
        assert_eq!(scanner.text, br#"{"x":"y"}"#);
        scanner.expect(b'}').unwrap();
        assert_eq!(scanner.peek().unwrap(), None);
    }

    #[test]
    fn a_body_of_another_layout_or_cut_short_is_refused() {
        let refused = |text: &str| read_body(text.as_bytes(), RecordForm::Whole).err().unwrap();
        assert!(refused(r#"{"state":{},"records":[]}"#).contains("`records` expected"));
        assert!(refused(r#"{"records":[{"a":"#).contains("ends inside a value"));
        assert!(refused(r#"{"records":{}}"#).contains("`[` expected"));
    }

    #[test]
    fn a_state_read_entity_by_entity_is_the_state_written() {
        use crate::derive::tests::{derive, record};
        use serde_json::json;
        let state = derive(vec![
            record(
                1,
                "GET",
                "/api/items/1",
                200,
                json!({"id": 1, "title": "a"}),
            ),
            record(
                2,
                "GET",
                "/api/items/2",
                200,
                json!({"id": 2, "title": "b"}),
            ),
            record(
                3,
                "GET",
                "/api/items",
                200,
                json!([{"id": 1, "title": "a"}, {"id": 2, "title": "b"}]),
            ),
        ])
        .state;
        assert_eq!(state.entities.len(), 2);
        let written = serde_json::to_vec(&state).unwrap();
        // The members in another order (by name), the entities among them.
        let mut moved: serde_json::Map<String, serde_json::Value> = serde_json::Map::new();
        let value: serde_json::Value = serde_json::from_slice(&written).unwrap();
        let members = value.as_object().unwrap();
        moved.insert("entities".to_owned(), members["entities"].clone());
        moved.extend(members.clone());
        for text in [written, serde_json::to_vec(&moved).unwrap()] {
            let body = [br#"{"records":[],"state":"#.as_slice(), &text, b"}"].concat();
            let read = read_body(body.as_slice(), RecordForm::Whole).unwrap();
            assert_eq!(
                serde_json::to_vec(&read.state).unwrap(),
                serde_json::to_vec(&state).unwrap()
            );
        }
        let refused = br#"{"records":[],"state":{"entities":[] , "x": 1}}"#;
        assert!(
            read_body(refused.as_slice(), RecordForm::Served)
                .is_err_and(|why| why.contains("not a state"))
        );
    }

    #[test]
    fn what_is_read_is_hashed_and_counted() {
        let mut reader = HashingReader::new(&b"abcdef"[..]);
        let mut first = [0u8; 2];
        reader.read_exact(&mut first).unwrap();
        let (sha256, bytes) = reader.finish().unwrap();
        assert_eq!(bytes, 6);
        assert_eq!(sha256, rea_evidence::sha256_hex(b"abcdef"));
    }
}

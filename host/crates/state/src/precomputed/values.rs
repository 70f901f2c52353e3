//! A precomputed state's body read value by value from a reader: each kept record is typed from
//! its own text as soon as it has been read, then the state from its text, so the server holds
//! one record's text (or the state's) at a time instead of the whole file's bytes beside the
//! typed values they become.
//!
//! `serde_json` streams the body ([`serde_json::Deserializer::from_reader`]) and finds where each
//! value's text ends (a [`RawValue`]); [`rea_plugin_api::json::from_slice_exact`] then types that
//! text (the strict reader, number lexemes kept). The body must be laid out as the writer writes
//! it: `{"records":[…],"state":…}`. What is read is also hashed and counted ([`HashingReader`]);
//! the caller uses the values only when the digest and the length are the header's.

use std::fmt;
use std::io::{Read, Write};
use std::marker::PhantomData;

use rea_evidence::HashingWriter;
use rea_plugin_api::contracts::capture::CaptureRecord;
use rea_plugin_api::json;
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor,
};
use serde_json::value::RawValue;

use crate::model::StateView;

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

/// Reads a body laid out as `{"records":[…],"state":…}` (see the module documentation); the
/// reader is left after the closing brace and the whitespace after it. Give it a buffered reader:
/// `serde_json` reads a reader byte by byte.
pub(crate) fn read_body<R: Read>(reader: R) -> Result<Body, Unreadable> {
    let mut deserializer = serde_json::Deserializer::from_reader(reader);
    let body =
        de::Deserializer::deserialize_map(&mut deserializer, BodyVisitor).map_err(unreadable)?;
    deserializer.end().map_err(unreadable)?;
    Ok(body)
}

/// An error of the body as a sentence's end.
fn unreadable(error: serde_json::Error) -> Unreadable {
    match error.classify() {
        serde_json::error::Category::Io => format!("it cannot be read: {error}"),
        serde_json::error::Category::Eof => format!("its body ends inside a value ({error})"),
        _ => format!("its body is not a state: {error}"),
    }
}

/// The body's object: `records`, then `state`, nothing else.
struct BodyVisitor;

impl<'de> Visitor<'de> for BodyVisitor {
    type Value = Body;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a state's body (an object of `records` and `state`)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Body, A::Error> {
        expect_key(&mut map, "records")?;
        let records = map.next_value_seed(RecordsSeed)?;
        expect_key(&mut map, "state")?;
        let state = map.next_value_seed(Typed::<StateView>(PhantomData))?;
        if map.next_key::<IgnoredAny>()?.is_some() {
            return Err(de::Error::custom(
                "its body is not laid out as a state's (nothing expected after `state`)",
            ));
        }
        Ok(Body { records, state })
    }
}

/// The next member's name, which must be `name`.
fn expect_key<'de, A: MapAccess<'de>>(map: &mut A, name: &str) -> Result<(), A::Error> {
    match map.next_key::<String>()? {
        Some(key) if key == name => Ok(()),
        _ => Err(de::Error::custom(format!(
            "its body is not laid out as a state's (`{name}` expected)"
        ))),
    }
}

/// The records array, each record typed from its text as soon as it is read.
struct RecordsSeed;

impl<'de> DeserializeSeed<'de> for RecordsSeed {
    type Value = Vec<CaptureRecord>;

    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for RecordsSeed {
    type Value = Vec<CaptureRecord>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("the kept records (an array)")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut records = Vec::new();
        while let Some(record) = seq.next_element_seed(Typed::<CaptureRecord>(PhantomData))? {
            records.push(record);
        }
        records.shrink_to_fit();
        Ok(records)
    }
}

/// One value: its text (a [`RawValue`], held only until it is typed), typed by the strict reader.
struct Typed<T>(PhantomData<T>);

impl<'de, T: DeserializeOwned> DeserializeSeed<'de> for Typed<T> {
    type Value = T;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<T, D::Error> {
        let text: Box<RawValue> = serde::Deserialize::deserialize(deserializer)?;
        json::from_slice_exact(text.get().as_bytes()).map_err(de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A state of nothing: no tool, no record.
    const EMPTY_STATE: &str = r#"{"documents":[],"entities":[],"first_write_ordinal":null,
        "related_writes":[],"manifest_evidence_id":"ev_m","parent_evidence_id":"ev_p",
        "record_order":"RECORD_ORDER","template_rules":[],"types":[],"views":[],
        "write_clock":null,"rule_stages":[],"write_plans":[]}"#;

    fn empty_state() -> String {
        let order = serde_json::to_string(&crate::observation::RecordOrder::RecordOrder).unwrap();
        EMPTY_STATE.replace("\"RECORD_ORDER\"", &order)
    }

    #[test]
    fn a_body_read_through_small_reads_is_whole() {
        let text = format!(r#" {{ "records" : [ ] , "state" : {} }} "#, empty_state());
        let mut reader = std::io::BufReader::with_capacity(3, text.as_bytes());
        let body = read_body(&mut reader).unwrap();
        assert!(body.records.is_empty());
        assert_eq!(body.state.manifest_evidence_id, "ev_m");
        // Everything was read, the whitespace after the body too.
        assert_eq!(reader.bytes().count(), 0);
    }

    #[test]
    fn a_value_is_typed_by_the_strict_reader() {
        // Duplicate members are refused, as `from_slice_exact` refuses them.
        let state = empty_state().replacen("\"types\":[]", "\"types\":[],\"types\":[]", 1);
        let refused = read_body(format!(r#"{{"records":[],"state":{state}}}"#).as_bytes());
        assert!(refused.err().unwrap().contains("not a state"));
    }

    #[test]
    fn a_body_of_another_layout_or_cut_short_is_refused() {
        let refused = |text: &str| read_body(text.as_bytes()).err().unwrap();
        assert!(refused(r#"{"state":{},"records":[]}"#).contains("`records` expected"));
        assert!(refused(r#"{"records":[{"a":"#).contains("ends inside a value"));
        assert!(refused(r#"{"records":{}}"#).contains("expected the kept records"));
        assert!(refused(r#"[[],{}]"#).contains("expected a state's body"));
        let state = empty_state();
        let after = format!(r#"{{"records":[],"state":{state},"x":1}}"#);
        assert!(refused(&after).contains("after `state`"));
        let trailing = format!(r#"{{"records":[],"state":{state}}} x"#);
        assert!(
            refused(&trailing).contains("trailing"),
            "{}",
            refused(&trailing)
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

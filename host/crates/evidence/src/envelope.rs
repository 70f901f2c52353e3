//! The Evidence envelope: sealing and authenticating Evidence documents.
//!
//! An Evidence document is a JSON object with at least `evidence_id` and `operation`. Its id is
//! `ev_` + the lower-case hex SHA-256 of the canonical serialization
//! ([`rea_json`]) of the document **without** `evidence_id`, so any stage can seal any
//! object ([`Evidence::seal`], [`Evidence::seal_value`]) and anyone can check a document read back
//! ([`Evidence::authenticate`], [`Evidence::read_file`]).
//!
//! Sealing serializes once: the canonical bytes of the document without its id are hashed, and the
//! document's own canonical bytes are those bytes with the `evidence_id` member spliced in at its
//! sorted place ([`Evidence::to_canonical_vec`] and [`Evidence::write_to`] re-serialize the same
//! way, so what is written always hashes to the id it carries).

use std::io::Write;
use std::path::Path;

use rea_json::{self as json, Json, Object, ParseOptions, write_canonical_string};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::file::read_bounded;
use crate::refusal::Refusal;

/// Every Evidence id starts with this.
pub const EVIDENCE_ID_PREFIX: &str = "ev_";

/// The member holding the id.
pub const EVIDENCE_ID_MEMBER: &str = "evidence_id";

/// The member naming the operation that produced the document.
pub const OPERATION_MEMBER: &str = "operation";

/// Nesting accepted when reading Evidence back: a 64-level capture container sits a few levels
/// down in capture Evidence, and manifests wrap capture Evidence again.
pub const EVIDENCE_MAX_DEPTH: usize = 128;

/// The largest Evidence file [`Evidence::read_file`] reads by default (64 MiB: a 32 MiB capture
/// grows when its bodies are escaped and its records annotated).
pub const EVIDENCE_FILE_MAX_BYTES: u64 = 64 * 1024 * 1024;

/// A sealed Evidence document.
#[derive(Debug, Clone, PartialEq)]
pub struct Evidence {
    id: String,
    operation: String,
    body: Object,
}

impl Evidence {
    /// Seals an object under `operation`: sets its `operation` member, drops any `evidence_id`
    /// member, and computes the id.
    pub fn seal(operation: &str, mut body: Object) -> Evidence {
        body.remove(EVIDENCE_ID_MEMBER);
        body.insert(OPERATION_MEMBER, operation);
        let id = evidence_id_of(&body);
        Evidence {
            id,
            operation: operation.to_owned(),
            body,
        }
    }

    /// Evidence of an id hashed elsewhere over more than `body` holds: only for
    /// [`crate::capture::SealedCapture::into_header`], whose body leaves out the records.
    pub(crate) fn from_parts(id: String, operation: String, body: Object) -> Evidence {
        Evidence {
            id,
            operation,
            body,
        }
    }

    /// Seals anything serde writes as a JSON object (numbers take `serde_json`'s spelling).
    pub fn seal_value<T: Serialize + ?Sized>(
        operation: &str,
        value: &T,
    ) -> Result<Evidence, Refusal> {
        let body = Object::from_serialize(value).map_err(|error| {
            Refusal::internal(format!(
                "the {operation} Evidence did not serialize: {error}"
            ))
        })?;
        Ok(Evidence::seal(operation, body))
    }

    /// Authenticates an Evidence document: strict JSON (duplicate keys, depth
    /// [`EVIDENCE_MAX_DEPTH`]), an object with string `evidence_id` and `operation`, and an id that
    /// matches the content. Every refusal is `invalid_request`.
    pub fn authenticate(bytes: &[u8]) -> Result<Evidence, Refusal> {
        let options = ParseOptions::default().max_depth(EVIDENCE_MAX_DEPTH);
        let document = json::parse_with(bytes, &options).map_err(|error| {
            let refusal = Refusal::invalid_request(format!(
                "the Evidence is not valid JSON: {}",
                error.describe()
            ));
            if error.pointer.is_empty() {
                refusal
            } else {
                refusal.at(error.pointer)
            }
        })?;
        Evidence::authenticate_json(document)
    }

    /// Authenticates an Evidence document already parsed (with lexemes kept).
    pub fn authenticate_json(document: Json) -> Result<Evidence, Refusal> {
        let Json::Object(mut body) = document else {
            return Err(Refusal::invalid_request(format!(
                "Evidence must be a JSON object, not {}",
                document.type_name()
            ))
            .at(""));
        };
        let claimed = match body.remove(EVIDENCE_ID_MEMBER) {
            Some(Json::String(id)) if id.starts_with(EVIDENCE_ID_PREFIX) => id,
            Some(_) => {
                return Err(Refusal::invalid_request(
                    "the Evidence's `evidence_id` must be a string starting with `ev_`",
                )
                .at("/evidence_id"));
            }
            None => {
                return Err(
                    Refusal::invalid_request("the Evidence has no `evidence_id`")
                        .at("/evidence_id"),
                );
            }
        };
        let operation = match body.get(OPERATION_MEMBER) {
            Some(Json::String(operation)) => operation.clone(),
            _ => {
                return Err(Refusal::invalid_request(
                    "the Evidence's `operation` must be a string",
                )
                .at("/operation"));
            }
        };
        let actual = evidence_id_of(&body);
        if actual != claimed {
            return Err(Refusal::invalid_request(format!(
                "the Evidence's evidence_id {claimed} does not match its content (which seals as {actual}): it was changed after sealing"
            ))
            .at("/evidence_id")
            .with_data(serde_json::json!({"claimed": claimed, "actual": actual})));
        }
        Ok(Evidence {
            id: String::from(claimed),
            operation: String::from(operation),
            body,
        })
    }

    /// Reads and authenticates an Evidence file (at most `max_bytes`; see
    /// [`crate::file::read_bounded`] for the file refusals).
    pub fn read_file(path: &Path, max_bytes: u64) -> Result<Evidence, Refusal> {
        let file = read_bounded(path, max_bytes)?;
        Evidence::authenticate(&file.bytes)
    }

    /// The id (`ev_…`).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The operation that produced it.
    pub fn operation(&self) -> &str {
        &self.operation
    }

    /// Refuses Evidence of another operation.
    pub fn expect_operation(&self, operations: &[&str]) -> Result<(), Refusal> {
        if operations.contains(&self.operation.as_str()) {
            Ok(())
        } else {
            Err(Refusal::invalid_request(format!(
                "Evidence {} comes from `{}`, not from {}",
                self.id,
                self.operation,
                operations
                    .iter()
                    .map(|operation| format!("`{operation}`"))
                    .collect::<Vec<_>>()
                    .join(" or ")
            ))
            .at("/operation"))
        }
    }

    /// The document without `evidence_id`.
    pub fn body(&self) -> &Object {
        &self.body
    }

    /// A top-level member (`evidence_id` included).
    pub fn get(&self, member: &str) -> Option<&Json> {
        self.body.get(member)
    }

    /// The whole document, `evidence_id` included.
    pub fn to_json(&self) -> Json {
        self.clone().into_json()
    }

    /// The whole document, `evidence_id` included.
    pub fn into_json(self) -> Json {
        let mut body = self.body;
        body.insert(EVIDENCE_ID_MEMBER, self.id);
        Json::Object(body)
    }

    /// The document without `evidence_id`, consuming the Evidence (for stages that take parts of
    /// it apart).
    pub fn into_body(self) -> Object {
        self.body
    }

    /// The canonical serialization of the whole document.
    pub fn to_canonical_vec(&self) -> Vec<u8> {
        let mut out = Vec::new();
        write_document(&self.body, None, Some(&self.id), &mut |chunk| {
            out.extend_from_slice(chunk)
        });
        out
    }

    /// Writes the canonical serialization of the whole document (no trailing newline), streaming
    /// it in chunks: no copy of the whole document is made.
    pub fn write_to(&self, out: &mut impl Write) -> std::io::Result<()> {
        let mut failure = None;
        write_document(&self.body, None, Some(&self.id), &mut |chunk| {
            if failure.is_none()
                && let Err(error) = out.write_all(chunk)
            {
                failure = Some(error);
            }
        });
        failure.map_or(Ok(()), Err)
    }
}

/// The id of an object: `ev_` + SHA-256 of its canonical serialization, ignoring any
/// `evidence_id` member it has. Streams the serialization into the hash.
pub fn evidence_id_of(body: &Object) -> String {
    id_of_members(body, None)
}

/// A member whose value is already canonical JSON text: an array of canonical items, written as
/// `[item,item,…]` without being parsed again (capture Evidence keeps an extractor's canonical
/// record text this way, or writes its typed records' canonical text again).
#[derive(Clone, Copy)]
pub(crate) struct RawArray<'a> {
    pub(crate) key: &'a str,
    pub(crate) items: RawItems<'a>,
}

/// The items of a [`RawArray`]: their text, or a writer giving each item's text in turn.
#[derive(Clone, Copy)]
pub(crate) enum RawItems<'a> {
    /// Each item's canonical text.
    Text(&'a [&'a [u8]]),
    /// How many items there are and what writes item `index`'s canonical text.
    Written(usize, &'a dyn ItemWriter),
}

/// Writes the canonical text of a raw array's items one at a time.
pub(crate) trait ItemWriter {
    /// Writes item `index`'s canonical text through `flush` (in as many pieces as it likes).
    fn write_item(&self, index: usize, flush: &mut dyn FnMut(&[u8]));
}

impl RawItems<'_> {
    fn len(&self) -> usize {
        match self {
            RawItems::Text(items) => items.len(),
            RawItems::Written(count, _) => *count,
        }
    }

    fn write_item(&self, index: usize, flush: &mut dyn FnMut(&[u8])) {
        match self {
            RawItems::Text(items) => flush(items[index]),
            RawItems::Written(_, writer) => writer.write_item(index, flush),
        }
    }
}

/// The id of `body` plus an optional raw member.
pub(crate) fn id_of_members(body: &Object, raw: Option<RawArray<'_>>) -> String {
    let mut hasher = Sha256::new();
    write_document(body, raw, None, &mut |chunk| hasher.update(chunk));
    id_of_digest(&hasher.finalize())
}

/// The id for a SHA-256 digest of a serialization.
pub(crate) fn id_of_digest(digest: &[u8]) -> String {
    format!("{EVIDENCE_ID_PREFIX}{}", hex::encode(digest))
}

/// The canonical serialization of `body` (without any `evidence_id` member) with a raw array
/// member `key` cut out around its items: everything up to the array's `[`, and everything from
/// its `]`. `before`, the items joined by `,`, then `after`, is what [`write_document`] writes for
/// them without an id.
pub(crate) fn document_around(body: &Object, key: &str) -> (Vec<u8>, Vec<u8>) {
    let mut members: Vec<(&str, &Json)> = body
        .iter()
        .filter(|(name, _)| *name != EVIDENCE_ID_MEMBER && *name != key)
        .collect();
    members.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let split = members.partition_point(|(name, _)| name.as_bytes() < key.as_bytes());
    let mut before = vec![b'{'];
    for (name, value) in &members[..split] {
        write_canonical_string(name, &mut before);
        before.push(b':');
        value.write_canonical(&mut before);
        before.push(b',');
    }
    write_canonical_string(key, &mut before);
    before.extend_from_slice(b":[");
    let mut after = vec![b']'];
    for (name, value) in &members[split..] {
        after.push(b',');
        write_canonical_string(name, &mut after);
        after.push(b':');
        value.write_canonical(&mut after);
    }
    after.push(b'}');
    (before, after)
}

/// Streams the canonical serialization of `body` (without any `evidence_id` member) plus the raw
/// member, with `id` as the `evidence_id` member when given, each at its sorted place.
pub(crate) fn write_document(
    body: &Object,
    raw: Option<RawArray<'_>>,
    id: Option<&str>,
    flush: &mut dyn FnMut(&[u8]),
) {
    enum Value<'a> {
        Json(&'a Json),
        Raw(RawItems<'a>),
        Id(&'a str),
    }
    let mut members: Vec<(&str, Value<'_>)> = body
        .iter()
        .filter(|(key, _)| *key != EVIDENCE_ID_MEMBER && raw.is_none_or(|raw| *key != raw.key))
        .map(|(key, value)| (key, Value::Json(value)))
        .collect();
    if let Some(raw) = raw {
        members.push((raw.key, Value::Raw(raw.items)));
    }
    if let Some(id) = id {
        members.push((EVIDENCE_ID_MEMBER, Value::Id(id)));
    }
    members.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut buffer = Vec::with_capacity(2 * json::CHUNK_BYTES);
    buffer.push(b'{');
    for (index, (key, value)) in members.into_iter().enumerate() {
        if index > 0 {
            buffer.push(b',');
        }
        write_canonical_string(key, &mut buffer);
        buffer.push(b':');
        match value {
            Value::Json(value) => {
                json::write_canonical_chunks(value, &mut buffer, &mut |full: &mut Vec<u8>| {
                    flush(full);
                    full.clear();
                });
            }
            Value::Id(id) => write_canonical_string(id, &mut buffer),
            Value::Raw(items) => {
                buffer.push(b'[');
                for position in 0..items.len() {
                    if position > 0 {
                        buffer.push(b',');
                    }
                    // Items go out as they are, not copied: the buffer only holds what is
                    // between them.
                    flush(&buffer);
                    buffer.clear();
                    items.write_item(position, flush);
                }
                buffer.push(b']');
            }
        }
    }
    buffer.push(b'}');
    flush(&buffer);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(text: &str) -> Object {
        match json::parse(text.as_bytes()).unwrap() {
            Json::Object(object) => object,
            _ => unreachable!("test objects are objects"),
        }
    }

    #[test]
    fn the_id_is_the_digest_of_the_rest_and_the_output_carries_it() {
        let evidence = Evidence::seal("probe", object(r#"{"z": 1.50, "a": [true], "f": "x"}"#));
        let without_id = br#"{"a":[true],"f":"x","operation":"probe","z":1.50}"#;
        let expected = format!("ev_{}", crate::file::sha256_hex(without_id));
        assert_eq!(evidence.id(), expected);
        let written = String::from_utf8(evidence.to_canonical_vec()).unwrap();
        assert_eq!(
            written,
            format!(
                r#"{{"a":[true],"evidence_id":"{expected}","f":"x","operation":"probe","z":1.50}}"#
            )
        );
        assert_eq!(evidence.to_json().to_canonical_string(), written);
        let back = Evidence::authenticate(written.as_bytes()).unwrap();
        assert_eq!(back, evidence);
    }

    #[test]
    fn the_document_around_a_raw_member_is_what_the_writer_writes() {
        let items: [&[u8]; 2] = [b"{\"x\":1}", b"[2]"];
        for body in [
            r#"{}"#,
            r#"{"a": 1, "z": [true]}"#,
            r#"{"zz": 1, "evidence_id": "ev_x"}"#,
            r#"{"a": {"q": "\n"}, "records": 7}"#,
        ] {
            let body = object(body);
            for count in [0, 1, 2] {
                let raw = RawArray {
                    key: "records",
                    items: RawItems::Text(&items[..count]),
                };
                let mut written = Vec::new();
                write_document(&body, Some(raw), None, &mut |chunk| {
                    written.extend_from_slice(chunk)
                });
                let (mut around, after) = document_around(&body, "records");
                around.extend_from_slice(&items[..count].join(&b","[..]));
                around.extend_from_slice(&after);
                assert_eq!(
                    String::from_utf8(around).unwrap(),
                    String::from_utf8(written).unwrap()
                );
            }
        }
    }

    #[test]
    fn the_id_member_splices_at_either_end() {
        for body in [r#"{}"#, r#"{"a": 1}"#, r#"{"zz": 1}"#] {
            let evidence = Evidence::seal("a", object(body));
            let written = evidence.to_canonical_vec();
            assert_eq!(written, evidence.to_json().to_canonical_vec(), "{body}");
            assert!(Evidence::authenticate(&written).is_ok());
        }
    }

    #[test]
    fn authentication_refuses_changed_or_malformed_evidence() {
        let evidence = Evidence::seal("probe", object(r#"{"n": 1}"#));
        let written = String::from_utf8(evidence.to_canonical_vec()).unwrap();
        let changed = written.replace("\"n\":1", "\"n\":2");
        let refusal = Evidence::authenticate(changed.as_bytes()).unwrap_err();
        assert_eq!(refusal.code, "invalid_request");
        assert_eq!(refusal.pointer.as_deref(), Some("/evidence_id"));
        // The same number spelled differently is different content.
        let respelled = written.replace("\"n\":1", "\"n\":1.0");
        assert!(Evidence::authenticate(respelled.as_bytes()).is_err());
        // Formatting does not matter: the id covers the content.
        let pretty = serde_json::to_string_pretty(
            &serde_json::from_str::<serde_json::Value>(&written).unwrap(),
        )
        .unwrap();
        assert!(Evidence::authenticate(pretty.as_bytes()).is_ok());
        let duplicate = written.replacen('{', "{\"n\":1,", 1);
        assert_eq!(
            Evidence::authenticate(duplicate.as_bytes())
                .unwrap_err()
                .pointer
                .as_deref(),
            Some("/n")
        );
        assert!(Evidence::authenticate(b"[]").is_err());
        assert!(Evidence::authenticate(br#"{"operation":"x"}"#).is_err());
    }
}

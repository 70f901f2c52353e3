//! The request journal: every MCP tool call and every data-plane call as one entry (time, kind,
//! tool or method, a digest of the arguments, where the answer came from, status, µs).
//!
//! The last [`JOURNAL_CAPACITY`] entries are kept in memory for `GET /agentenv/journal` (loopback
//! callers only) and the status page; with `--journal` each entry is also written to stderr as it
//! happens, as a text line or (`--journal-format json`) a JSON line:
//!
//! ```text
//! 2026-05-04T10:12:03.417Z mcp  get_posts_by_id   args:7d3f0a1c29be state            ok     412µs
//! 2026-05-04T10:12:03.902Z data data/get          args:44136fa355b3 state            ok    1033µs
//! ```
//!
//! The argument digest is the first 12 hex digits of the SHA-256 of the arguments' compact JSON:
//! equal arguments give equal digests, and no argument value (which may be a secret) is written.
//! The source is `state` (rendered or applied from the state), `recording-exact` or
//! `recording-approximate` (a recorded answer whose parameters all matched, or not),
//! `refused` (an unknown tool, invalid arguments, a data-plane error) or `replay-data-plane`.

use std::collections::VecDeque;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::backend::{BoxFuture, DataCall, DataPlane, RpcError};

/// How many entries the journal keeps in memory.
pub const JOURNAL_CAPACITY: usize = 200;

/// Where an answer came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum AnswerSource {
    /// Rendered from, or applied to, the state.
    State,
    /// A recorded answer whose supplied parameters all matched the recording.
    RecordingExact,
    /// A recorded answer chosen by the closest match (some supplied parameter differed).
    RecordingApproximate,
    /// Refused before or by the backend (unknown tool, invalid arguments, a tool or RPC error).
    Refused,
    /// Not said by the backend.
    #[default]
    Unspecified,
}

impl AnswerSource {
    /// The journal's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::State => "state",
            Self::RecordingExact => "recording-exact",
            Self::RecordingApproximate => "recording-approximate",
            Self::Refused => "refused",
            Self::Unspecified => "unspecified",
        }
    }
}

/// When a call arrived, to the millisecond; written (RFC 3339, UTC, milliseconds:
/// `2026-05-04T10:12:03.417Z`) only when its entry is read or echoed, not on every call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JournalTime(pub jiff::Timestamp);

impl JournalTime {
    /// The time now, to the millisecond.
    pub fn now() -> Self {
        let now = jiff::Timestamp::now();
        Self(jiff::Timestamp::from_millisecond(now.as_millisecond()).unwrap_or(now))
    }
}

impl std::fmt::Display for JournalTime {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "{:.3}", self.0)
    }
}

impl Serialize for JournalTime {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// One journal entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JournalEntry {
    /// When the call arrived (RFC 3339, UTC, milliseconds).
    pub time: JournalTime,
    /// `mcp` (a tool call) or `data` (a data-plane call).
    pub kind: &'static str,
    /// The tool name or the data-plane method.
    #[serde(serialize_with = "shared_text")]
    pub name: Arc<str>,
    /// The first 12 hex digits of the SHA-256 of the arguments' compact JSON.
    #[serde(serialize_with = "shared_text")]
    pub arguments: Arc<str>,
    /// Where the answer came from.
    pub source: AnswerSource,
    /// `ok`, or the error's code (`invalid_arguments`, `-32602`, …).
    #[serde(serialize_with = "shared_text")]
    pub status: Arc<str>,
    /// How long the call took, in microseconds.
    pub micros: u64,
}

impl JournalEntry {
    /// The entry as one text line (no newline).
    pub fn to_text(&self) -> String {
        format!(
            "{} {:<4} {:<32} args:{} {:<21} {:<17} {:>7}µs",
            self.time,
            self.kind,
            self.name,
            self.arguments,
            self.source.as_str(),
            self.status,
            self.micros
        )
    }

    /// The entry as one JSON line (no newline).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// The digest of a call's arguments (see the module documentation).
pub fn arguments_digest(arguments: &Value) -> String {
    digest_of_json(&serde_json::to_vec(arguments).unwrap_or_default())
}

/// [`arguments_digest`] of a tool call's arguments (absent ones are `{}`), read where they are
/// rather than from a copy.
pub fn members_digest(arguments: Option<&Map<String, Value>>) -> String {
    match arguments {
        Some(members) => digest_of_json(&serde_json::to_vec(members).unwrap_or_default()),
        None => digest_of_json(b"{}"),
    }
}

/// The first 12 hex digits of the SHA-256 (only the six bytes they show are written out).
fn digest_of_json(json: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digest = Sha256::digest(json);
    let mut text = String::with_capacity(12);
    for byte in &digest[..6] {
        text.push(char::from(HEX[usize::from(byte >> 4)]));
        text.push(char::from(HEX[usize::from(byte & 0xf)]));
    }
    text
}

/// How journal entries are echoed to stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Echo {
    /// Not echoed (kept in memory only).
    #[default]
    Off,
    /// Text lines.
    Text,
    /// JSON lines.
    Json,
}

/// The journal of one server.
#[derive(Debug, Default)]
pub struct Journal {
    echo: Echo,
    inner: Mutex<Entries>,
}

#[derive(Debug, Default)]
struct Entries {
    recent: VecDeque<JournalEntry>,
    total: u64,
}

impl Journal {
    /// A journal echoing its entries as `echo` says.
    pub fn new(echo: Echo) -> Self {
        Self {
            echo,
            inner: Mutex::default(),
        }
    }

    /// Records one call.
    pub fn record(&self, entry: JournalEntry) {
        match self.echo {
            Echo::Off => {}
            Echo::Text => echo_line(&entry.to_text()),
            Echo::Json => echo_line(&entry.to_json()),
        }
        if let Ok(mut entries) = self.inner.lock() {
            if entries.recent.len() == JOURNAL_CAPACITY {
                entries.recent.pop_front();
            }
            entries.recent.push_back(entry);
            entries.total += 1;
        }
    }

    /// Records a call from its parts (`arguments`: their digest, [`arguments_digest`]); the
    /// texts are shared, so a call repeated records no copy of them.
    #[allow(clippy::too_many_arguments)]
    pub fn call(
        &self,
        time: JournalTime,
        kind: &'static str,
        name: Arc<str>,
        arguments: Arc<str>,
        source: AnswerSource,
        status: Arc<str>,
        took: Duration,
    ) {
        self.record(JournalEntry {
            time,
            kind,
            name,
            arguments,
            source,
            status,
            micros: u64::try_from(took.as_micros()).unwrap_or(u64::MAX),
        });
    }

    /// The last `limit` entries, oldest first, and how many calls were recorded in all.
    pub fn recent(&self, limit: usize) -> (Vec<JournalEntry>, u64) {
        match self.inner.lock() {
            Ok(entries) => {
                let skip = entries.recent.len().saturating_sub(limit);
                (
                    entries.recent.iter().skip(skip).cloned().collect(),
                    entries.total,
                )
            }
            Err(_) => (Vec::new(), 0),
        }
    }
}

/// A data plane whose calls are journaled (kind `data`): `state` and `ok` for a result, `refused`
/// and the JSON-RPC code for an error.
pub struct JournaledPlane {
    inner: std::sync::Arc<dyn DataPlane>,
    journal: std::sync::Arc<Journal>,
}

impl JournaledPlane {
    /// Journals the calls of `inner`.
    pub fn new(inner: std::sync::Arc<dyn DataPlane>, journal: std::sync::Arc<Journal>) -> Self {
        Self { inner, journal }
    }
}

impl DataPlane for JournaledPlane {
    fn handle(&self, call: DataCall) -> BoxFuture<'_, Result<Value, RpcError>> {
        Box::pin(async move {
            let time = JournalTime::now();
            let started = std::time::Instant::now();
            let method = call.method.clone();
            let digest = arguments_digest(call.params.as_ref().unwrap_or(&Value::Null));
            let result = self.inner.handle(call).await;
            let (source, status) = match &result {
                Ok(_) => (AnswerSource::State, Arc::from("ok")),
                Err(error) => (AnswerSource::Refused, Arc::from(error.code.to_string())),
            };
            self.journal.call(
                time,
                "data",
                method.into(),
                digest.into(),
                source,
                status,
                started.elapsed(),
            );
            result
        })
    }

    fn state_report(&self) -> Value {
        self.inner.state_report()
    }
}

/// A shared text written as a JSON string.
fn shared_text<S: serde::Serializer>(text: &Arc<str>, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(text)
}

fn echo_line(line: &str) {
    let stderr = std::io::stderr();
    let mut out = stderr.lock();
    let _ = writeln!(out, "{line}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(name: &str) -> JournalEntry {
        JournalEntry {
            time: JournalTime("2026-05-04T10:12:03.417Z".parse().unwrap()),
            kind: "mcp",
            name: name.into(),
            arguments: arguments_digest(&json!({"id": 1})).into(),
            source: AnswerSource::State,
            status: "ok".into(),
            micros: 412,
        }
    }

    #[test]
    fn digests_name_equal_arguments_alike_and_never_show_them() {
        let secret = json!({"token": "s3cr3t-value"});
        let digest = arguments_digest(&secret);
        assert_eq!(digest.len(), 12);
        assert_eq!(digest, arguments_digest(&json!({"token": "s3cr3t-value"})));
        assert_ne!(digest, arguments_digest(&json!({"token": "other"})));
        assert!(!entry("t").to_text().contains("s3cr3t"));
    }

    #[test]
    fn entries_read_as_one_line_of_text_or_json() {
        let entry = entry("get_posts_by_id");
        let text = entry.to_text();
        assert!(
            text.starts_with("2026-05-04T10:12:03.417Z mcp  get_posts_by_id "),
            "{text}"
        );
        assert!(
            text.contains(" state ") && text.ends_with("412µs"),
            "{text}"
        );
        assert!(!text.contains('\n'));
        let json: Value = serde_json::from_str(&entry.to_json()).unwrap();
        assert_eq!(json["source"], "state");
        assert_eq!(json["micros"], 412);
        assert_eq!(json["kind"], "mcp");
    }

    #[test]
    fn the_journal_keeps_the_last_entries_and_counts_them_all() {
        let journal = Journal::new(Echo::Off);
        for index in 0..(JOURNAL_CAPACITY + 5) {
            journal.record(entry(&format!("t{index}")));
        }
        let (recent, total) = journal.recent(3);
        assert_eq!(total, (JOURNAL_CAPACITY + 5) as u64);
        let names: Vec<&str> = recent.iter().map(|entry| &*entry.name).collect();
        let last = JOURNAL_CAPACITY + 4;
        assert_eq!(
            names,
            [
                format!("t{}", last - 2),
                format!("t{}", last - 1),
                format!("t{last}")
            ]
        );
        assert_eq!(journal.recent(usize::MAX).0.len(), JOURNAL_CAPACITY);
    }

    #[test]
    fn members_are_digested_as_their_json_object() {
        let members = json!({"id": "1", "q": [1, 2.50]});
        assert_eq!(
            members_digest(members.as_object()),
            arguments_digest(&members)
        );
        assert_eq!(members_digest(None), arguments_digest(&json!({})));
    }

    #[test]
    fn a_digest_is_the_first_12_hex_digits_of_the_sha256() {
        for json in [&b"{}"[..], br#"{"id":"1","q":[1,2.5]}"#] {
            assert_eq!(digest_of_json(json), rea_evidence::sha256_hex(json)[..12]);
        }
    }

    #[test]
    fn times_are_utc_with_milliseconds() {
        let time = JournalTime::now().to_string();
        assert_eq!(time.len(), "2026-05-04T10:12:03.417Z".len(), "{time}");
        assert!(time.ends_with('Z'));
    }
}

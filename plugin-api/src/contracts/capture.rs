//! The capture contract: what a capture extractor is asked, and the records it answers.
//!
//! A record is one recorded request and its response, kept as the capture recorded it: the raw
//! query spelling beside its decoded pairs, bodies in their representation (UTF-8 text, exact bytes
//! as base64, a reported null, or missing), the start time exactly as recorded beside a parsed
//! instant. Authentication header values never appear: the extractor reports them as excluded.
//!
//! Field order in these structs is alphabetical so serde writes keys mostly sorted; the canonical
//! form is still the writer's job ([`crate::json`]).
//!
//! # Sensitive values
//!
//! A field holding a value the caller declared sensitive is reported as `null` (a body as
//! [`Body::Excluded`]) and listed in the extraction's redactions; that is why the string fields a
//! declaration can reach are `Option`s. Without declarations only the documented cases are `None`.

pub mod base64;
mod limitations;
pub mod url;

pub use compact_str::CompactString;
pub use limitations::Limitations;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::{current_schema_version, schema_versioned};

/// Headers whose values no capture keeps (compared ASCII case-insensitively): the standard
/// authentication headers.
pub const AUTHENTICATION_HEADERS: [&str; 4] = [
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
];

/// Why an authentication header's value is absent, in a record ([`RecordHeader::excluded`]).
pub const AUTHENTICATION_EXCLUSION: &str = "authentication";

/// The redaction reason of an authentication header value ([`Redaction::reason`]).
pub const AUTHENTICATION_REDACTION: &str = "authentication-header";

/// Whether a header is one of the [`AUTHENTICATION_HEADERS`].
pub fn is_authentication_header(name: &str) -> bool {
    AUTHENTICATION_HEADERS
        .iter()
        .any(|header| name.eq_ignore_ascii_case(header))
}

/// What the host asks a capture extractor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtractRequest {
    /// The input kind the pipeline chose this extractor for (such as `har`).
    pub input_kind: String,
    /// Values the caller declared sensitive: any field containing one is excluded (reported as
    /// `null` with a redaction entry) and the value is never written anywhere, errors included.
    #[serde(default)]
    pub sensitive_values: Vec<String>,
    /// Always [`super::SCHEMA_VERSION`].
    #[serde(default = "current_schema_version")]
    pub schema_version: u32,
}

/// What a capture extractor answers: every record of the capture, validated.
///
/// Selection (`--record`) happens in the host after every record was validated.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Extraction {
    /// The capture's container metadata (for a HAR: `log` with `entries` replaced by `null`), as
    /// canonical JSON text (numbers keep their original spelling).
    pub container: Box<RawValue>,
    /// Caveats about what the capture cannot show.
    pub limitations: Vec<Limitation>,
    /// The records, in producer order.
    pub records: Vec<CaptureRecord>,
    /// JSON pointer of the record collection in the capture (`/log/entries`).
    pub records_pointer: String,
    /// What was excluded, where, and why (never the value).
    pub redactions: Vec<Redaction>,
    /// Always [`super::SCHEMA_VERSION`].
    pub schema_version: u32,
}

impl PartialEq for Extraction {
    fn eq(&self, other: &Self) -> bool {
        self.container.get() == other.container.get()
            && self.limitations == other.limitations
            && self.records == other.records
            && self.records_pointer == other.records_pointer
            && self.redactions == other.redactions
            && self.schema_version == other.schema_version
    }
}

schema_versioned! {
    ExtractRequest => "capture extract request",
    Extraction => "capture extraction",
}

/// One recorded request and its response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaptureRecord {
    /// Duration in milliseconds as recorded (HAR `time`), when recorded and not negative.
    pub duration_ms: Option<f64>,
    /// The request method as recorded (case kept); `None` only when excluded as sensitive.
    pub method: Option<CompactString>,
    /// The producer's zero-based position of this record (index in `log.entries`).
    pub ordinal: u64,
    /// `scheme://host[:port]` of the URL, lower-cased scheme and host, default port omitted;
    /// `None` when the URL has no authority (`data:`, a relative URL) or it was excluded.
    pub origin: Option<CompactString>,
    /// The URL's path as recorded (percent-encoding kept); `/` when the URL has none; `None` when
    /// excluded as sensitive.
    pub path: Option<CompactString>,
    /// JSON pointer of the record in the capture (`/log/entries/N`).
    pub pointer: CompactString,
    /// The query: `None` when the URL has no `?` (or the whole URL was excluded).
    pub query: Option<RecordQuery>,
    /// The request.
    pub request: RecordRequest,
    /// The response.
    pub response: RecordResponse,
    /// The start time; `None` when not recorded or excluded as sensitive.
    pub started: Option<StartTime>,
    /// The URL as recorded with userinfo removed; `None` when it holds a sensitive value.
    pub url: Option<CompactString>,
}

impl CaptureRecord {
    /// The first request header with that name (ASCII case-insensitive) that has a value.
    pub fn request_header(&self, name: &str) -> Option<&str> {
        header_value(&self.request.headers, name)
    }

    /// The first response header with that name (ASCII case-insensitive) that has a value.
    pub fn response_header(&self, name: &str) -> Option<&str> {
        header_value(&self.response.headers, name)
    }
}

fn header_value<'a>(headers: &'a [RecordHeader], name: &str) -> Option<&'a str> {
    headers.iter().find_map(|header| {
        header
            .name
            .as_deref()
            .filter(|candidate| candidate.eq_ignore_ascii_case(name))
            .and(header.value.as_deref())
    })
}

/// A URL query: its raw spelling and its decoded pairs in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordQuery {
    /// Decoded `[name, value]` pairs in request order (form-urlencoded decoding: `+` is a space,
    /// percent-escapes that are not UTF-8 become U+FFFD; the raw spelling stays exact). A pair
    /// holding a sensitive value is `null`.
    #[serde(deserialize_with = "super::exact_list")]
    pub pairs: Vec<Option<(String, String)>>,
    /// The text after `?` exactly as recorded (may be empty for an explicit empty query); `None`
    /// when it holds a sensitive value.
    pub raw: Option<CompactString>,
}

/// A header as recorded, or excluded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordHeader {
    /// Why the value is absent: `authentication` (a standard authentication header) or
    /// `sensitive-value` (a declared sensitive value matched). `None` when the value is kept.
    pub excluded: Option<CompactString>,
    /// The header name as recorded; `None` when the name itself holds a sensitive value.
    pub name: Option<CompactString>,
    /// The header value, `None` when excluded.
    pub value: Option<CompactString>,
}

/// A body in its recorded representation.
///
/// JSON: `{"kind": "missing"}`, `{"kind": "reported-null"}`, `{"kind": "text", "text"}`,
/// `{"base64", "bytes", "kind": "base64"}`, `{"kind": "excluded", "reason"}`. It serializes with
/// its keys sorted, like every contract type here, so `serde_json` writes canonical JSON and
/// the host can keep an extractor's record text as it is.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Body {
    /// The capture has no body for this message.
    Missing,
    /// The producer reported a null body (mitmproxy writes `postData.text: null`).
    ReportedNull,
    /// UTF-8 text.
    Text {
        /// The text, shared: a record's clones (the replay environment's, the state's kept
        /// records) hold one copy of a body, not one each.
        #[serde(deserialize_with = "shared_text")]
        text: Arc<str>,
    },
    /// Exact bytes, recorded as base64 by the producer (decoded and re-encoded canonically).
    Base64 {
        /// Standard base64 with padding.
        base64: String,
        /// Number of decoded bytes.
        bytes: u64,
    },
    /// Excluded because it contained a declared sensitive value.
    Excluded {
        /// Always `sensitive-value`.
        reason: String,
    },
}

impl Serialize for Body {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        match self {
            Body::Missing => map.serialize_entry("kind", "missing")?,
            Body::ReportedNull => map.serialize_entry("kind", "reported-null")?,
            Body::Text { text } => {
                map.serialize_entry("kind", "text")?;
                map.serialize_entry("text", &**text)?;
            }
            Body::Base64 { base64, bytes } => {
                map.serialize_entry("base64", base64)?;
                map.serialize_entry("bytes", bytes)?;
                map.serialize_entry("kind", "base64")?;
            }
            Body::Excluded { reason } => {
                map.serialize_entry("kind", "excluded")?;
                map.serialize_entry("reason", reason)?;
            }
        }
        map.end()
    }
}

/// A body's text read as a string and kept shared (the `rc` feature of serde is not used).
fn shared_text<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Arc<str>, D::Error> {
    let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
    Ok(Arc::from(text.as_ref()))
}

impl Body {
    /// A text body.
    pub fn text_of(text: impl Into<Arc<str>>) -> Self {
        Body::Text { text: text.into() }
    }

    /// The text of a [`Body::Text`] body.
    pub fn text(&self) -> Option<&str> {
        match self {
            Body::Text { text } => Some(text),
            _ => None,
        }
    }

    /// The body's bytes when it has any: the UTF-8 of a text body, the decoded bytes of a base64
    /// body (`None` also for base64 that does not decode, which an extractor never answers).
    pub fn bytes(&self) -> Option<std::borrow::Cow<'_, [u8]>> {
        match self {
            Body::Text { text } => Some(std::borrow::Cow::Borrowed(text.as_bytes())),
            Body::Base64 { base64, .. } => base64::decode(base64).ok().map(std::borrow::Cow::Owned),
            _ => None,
        }
    }

    /// Whether the capture recorded a body (text or bytes, possibly empty).
    pub fn is_recorded(&self) -> bool {
        matches!(self, Body::Text { .. } | Body::Base64 { .. })
    }
}

/// The request part of a record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordRequest {
    /// The request body (`postData`).
    pub body: Body,
    /// Request headers in recorded order.
    #[serde(deserialize_with = "super::exact_list")]
    pub headers: Vec<RecordHeader>,
    /// The HTTP version as recorded.
    pub http_version: Option<CompactString>,
    /// The request body's media type (`postData.mimeType`), as recorded.
    pub media_type: Option<CompactString>,
}

/// The response part of a record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordResponse {
    /// The response body (`content.text`, decoded from base64 when so recorded).
    pub body: Body,
    /// Response headers in recorded order.
    #[serde(deserialize_with = "super::exact_list")]
    pub headers: Vec<RecordHeader>,
    /// The HTTP version as recorded.
    pub http_version: Option<CompactString>,
    /// The media type (`content.mimeType`) as recorded.
    pub media_type: Option<CompactString>,
    /// The status; `0` means the capture recorded no answer.
    pub status: u16,
    /// The status text as recorded; `None` when not recorded or excluded as sensitive.
    pub status_text: Option<CompactString>,
}

/// A start time exactly as recorded, with its parsed instant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartTime {
    /// The instant in UTC as `YYYY-MM-DDTHH:MM:SS.fffffffffZ` (nine fraction digits, so text order
    /// is time order), or `None` when the recorded text does not parse.
    pub instant: Option<CompactString>,
    /// The recorded text (`startedDateTime`).
    pub recorded: CompactString,
}

/// One exclusion: where, and why. Never the excluded value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Redaction {
    /// JSON pointer into the capture of the excluded field.
    pub pointer: String,
    /// `authentication-header`, `url-userinfo` or `sensitive-value`.
    pub reason: String,
    /// The record ordinal it belongs to, when it belongs to one.
    pub record_ordinal: Option<u64>,
}

/// A caveat about what the capture cannot show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limitation {
    /// A stable kebab-case code.
    pub code: String,
    /// One sentence (never containing a sensitive value).
    pub message: String,
    /// The ordinals of the records it is about, ascending; empty when it is about the whole
    /// capture. A host selecting records keeps a limitation when it is about the whole capture or
    /// about a selected record.
    #[serde(default)]
    pub record_ordinals: Vec<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_and_query_pairs_are_read_without_spare_room() {
        let response: RecordResponse = serde_json::from_str(
            r#"{"body": {"kind": "missing"}, "headers": [{"excluded": null, "name": "A", "value": "1"}],
               "http_version": null, "media_type": null, "status": 200, "status_text": null}"#,
        )
        .unwrap();
        assert_eq!(response.headers.capacity(), 1);
        let query: RecordQuery =
            serde_json::from_str(r#"{"pairs": [["a", "1"], null, ["b", "2"]], "raw": null}"#)
                .unwrap();
        assert_eq!(query.pairs.capacity(), 3);
    }
}

//! The credential-name scan: which recorded names look like credentials and hold a value.
//!
//! A bundle ships the whole capture Evidence. Inspection already excludes the values of the
//! standard authentication headers and URL userinfo, but a custom key header, a token in a query
//! string or a token an application returns in a body remain. The scan reports them **by record
//! and pointer, never by value**, so the report can be shared:
//!
//! * request and response header names (`record 4 request header X-Api-Key`),
//! * query parameter names (`record 4 query access_token`),
//! * JSON or form body member names (`record 4 response /data/token`, a JSON pointer into the
//!   body). A body is read as JSON or as a form by its recorded media type, or by its shape when
//!   it has none or one naming neither.
//!
//! A name looks like a credential when one of its whole segments (split at punctuation and at
//! lower-to-upper case changes, compared lower-cased) is a credential word (`token`, `secret`,
//! `password`, `authorization`, `session`, …) or two adjacent segments are (`api` `key`). It holds
//! a value when the value is not null, empty, `{}` or `[]`.
//!
//! Bodies over [`SCAN_BODY_LIMIT`] bytes of text (a base64 body: decoded) are not scanned: they
//! are counted by `credential-scan-incomplete` instead. Each warning lists its first
//! [`LISTED_LIMIT`] items. Names never make anything refused.

use rea_plugin_api::contracts::capture::url::{decode_query, split_url};
use rea_plugin_api::contracts::capture::{Body, CaptureRecord, RecordHeader};
use rea_plugin_api::contracts::session::{Content, RecordedSession, SessionEvent, SessionHeader};
use rea_plugin_api::json::Json;
use serde::Serialize;
use serde_json::Value;

pub use rea_evidence::credential_names::looks_like_credential;

/// Bodies larger than this many bytes of text are not scanned (4 MiB).
pub const SCAN_BODY_LIMIT: usize = 4 * 1024 * 1024;

/// How many items a warning lists.
pub const LISTED_LIMIT: usize = 20;

/// The warning of credential-like names that hold a value.
pub const CREDENTIAL_NAMED_MEMBERS: &str = "credential-named-members";

/// The warning of bodies the scan did not read.
pub const CREDENTIAL_SCAN_INCOMPLETE: &str = "credential-scan-incomplete";

/// The warning of a browser scenario's saved values named like credentials and not secret.
pub const CREDENTIAL_NAMED_SAVED_VALUES: &str = "credential-named-saved-values";

/// One warning of a report: `{code, message}`, with the count and the listed items.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    /// Stable kebab-case code.
    pub code: String,
    /// One or two sentences.
    pub message: String,
    /// How many occurrences, when the warning counts something.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// The first occurrences by record and pointer.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<String>,
}

impl Warning {
    /// A warning with a code and message only.
    pub fn new(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            message: message.into(),
            count: None,
            items: Vec::new(),
        }
    }
}

/// What the scan found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CredentialScan {
    /// Credential-like names holding a value.
    pub named: Tally,
    /// Bodies that were not scanned.
    pub unscanned: Tally,
    /// A browser scenario's saved values named like credentials, not marked secret.
    pub saved: Tally,
}

/// A count and its first [`LISTED_LIMIT`] items.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    /// Every occurrence.
    pub count: u64,
    /// The first ones.
    pub items: Vec<String>,
}

impl Tally {
    fn add(&mut self, item: impl FnOnce() -> String) {
        self.count += 1;
        if self.items.len() < LISTED_LIMIT {
            self.items.push(item());
        }
    }
}

impl CredentialScan {
    /// The report's warnings: `credential-named-members` and `credential-scan-incomplete`, each
    /// only when it counts something.
    pub fn warnings(&self) -> Vec<Warning> {
        let mut warnings = Vec::new();
        if self.named.count > 0 {
            warnings.push(Warning {
                code: CREDENTIAL_NAMED_MEMBERS.to_owned(),
                message: format!(
                    "{} recorded header, query or body member name(s) look like credentials and hold a value; evidence.json ships them unredacted (listed by record and pointer, at most {LISTED_LIMIT}, never by value). Names do not establish sensitivity: check them, and scrub the capture before sharing the bundle if they are secrets.",
                    self.named.count
                ),
                count: Some(self.named.count),
                items: self.named.items.clone(),
            });
        }
        if self.unscanned.count > 0 {
            warnings.push(Warning {
                code: CREDENTIAL_SCAN_INCOMPLETE.to_owned(),
                message: format!(
                    "{} body or bodies larger than {} MiB of text were not scanned for credential names (listed by record, at most {LISTED_LIMIT}); the absence of other warnings says nothing about them.",
                    self.unscanned.count,
                    SCAN_BODY_LIMIT / (1024 * 1024)
                ),
                count: Some(self.unscanned.count),
                items: self.unscanned.items.clone(),
            });
        }
        if self.saved.count > 0 {
            warnings.push(Warning {
                code: CREDENTIAL_NAMED_SAVED_VALUES.to_owned(),
                message: format!(
                    "{} value(s) the browser scenario saved (`save`, `save_response`) are named like credentials and not marked `secret: true`, so they are recorded unredacted (listed by parameter pointer, at most {LISTED_LIMIT}, never by value). Mark them `secret: true` to replace them by markers.",
                    self.saved.count
                ),
                count: Some(self.saved.count),
                items: self.saved.items.clone(),
            });
        }
        warnings
    }
}

/// Scans capture records.
pub fn scan<'a>(records: impl IntoIterator<Item = &'a CaptureRecord>) -> CredentialScan {
    let mut scan = CredentialScan::default();
    for record in records {
        let at = format!("record {}", record.ordinal);
        let headers = |headers: &'a [RecordHeader]| {
            headers
                .iter()
                .filter_map(|header| Some((header.name.as_deref()?, header.value.as_deref()?)))
        };
        scan_headers(&mut scan, &at, "request", headers(&record.request.headers));
        if let Some(query) = &record.query {
            scan_query(&mut scan, &at, query.pairs.iter().flatten());
        }
        scan_body(
            &mut scan,
            &at,
            "request",
            &record.request.body,
            record.request.media_type.as_deref(),
        );
        scan_headers(
            &mut scan,
            &at,
            "response",
            headers(&record.response.headers),
        );
        scan_body(
            &mut scan,
            &at,
            "response",
            &record.response.body,
            record.response.media_type.as_deref(),
        );
    }
    scan
}

/// Scans a recorded browser session by event (`event 4 response /token` names
/// `normalized_result.events.items[4]` of the Evidence's container): every kept request and
/// response content event, whether or not a record represents it, and each request hop's URL
/// query once.
pub fn scan_session(session: &RecordedSession) -> CredentialScan {
    let mut scan = CredentialScan::default();
    for (index, event) in session.normalized_result.events.items.iter().enumerate() {
        let at = format!("event {index}");
        let headers = |headers: &'_ [SessionHeader]| -> Vec<(String, String)> {
            headers
                .iter()
                .filter_map(|header| Some((header.name.clone(), header.value.clone()?)))
                .collect()
        };
        match event {
            SessionEvent::Request(request) => {
                let listed = headers(&request.headers);
                let pairs = || listed.iter().map(|(n, v)| (n.as_str(), v.as_str()));
                scan_headers(&mut scan, &at, "request", pairs());
                let query = split_url(&request.url).query.unwrap_or_default();
                scan_query(&mut scan, &at, decode_query(&query).iter());
                let media_type = header_value(&request.headers, "content-type");
                scan_body(
                    &mut scan,
                    &at,
                    "request",
                    &content_body(&request.body),
                    media_type,
                );
            }
            SessionEvent::Response(response) => {
                let listed = headers(&response.headers);
                let pairs = || listed.iter().map(|(n, v)| (n.as_str(), v.as_str()));
                scan_headers(&mut scan, &at, "response", pairs());
                let media_type = header_value(&response.headers, "content-type")
                    .or(response.media_type.as_deref());
                scan_body(
                    &mut scan,
                    &at,
                    "response",
                    &content_body(&response.body),
                    media_type,
                );
            }
            SessionEvent::Finished(_) | SessionEvent::Failed(_) => {}
        }
    }
    scan
}

fn header_value<'a>(headers: &'a [SessionHeader], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|header| header.name.eq_ignore_ascii_case(name))
        .and_then(|header| header.value.as_deref())
}

/// A kept body as the scan reads it (a cut body's beginning is text it may hold names in).
fn content_body(content: &Content) -> Body {
    match content {
        Content::Text { text } => Body::Text {
            text: text.as_str().into(),
        },
        Content::Base64 { base64, bytes } => Body::Base64 {
            base64: base64.clone(),
            bytes: *bytes,
        },
        Content::Truncated {
            prefix: Some(prefix),
            ..
        } => Body::Text {
            text: prefix.as_str().into(),
        },
        _ => Body::Missing,
    }
}

fn scan_headers<'h>(
    scan: &mut CredentialScan,
    at: &str,
    part: &str,
    headers: impl Iterator<Item = (&'h str, &'h str)>,
) {
    for (name, value) in headers {
        if !value.is_empty() && looks_like_credential(name) {
            scan.named
                .add(|| format!("{at} {part} header {}", printable(name)));
        }
    }
}

fn scan_query<'q>(
    scan: &mut CredentialScan,
    at: &str,
    pairs: impl Iterator<Item = &'q (String, String)>,
) {
    for (name, value) in pairs {
        if !value.is_empty() && looks_like_credential(name) {
            scan.named.add(|| format!("{at} query {}", printable(name)));
        }
    }
}

/// The saved values of a browser scenario (`save` and `save_response` steps) named like
/// credentials but not marked `secret: true`: recorded unredacted, listed by the pointer of their
/// name in the Evidence's parameters.
pub fn saved_values(scenario: &Json) -> Tally {
    let mut tally = Tally::default();
    let Some(actions) = scenario.get("actions").and_then(Json::as_array) else {
        return tally;
    };
    for (index, action) in actions.iter().enumerate() {
        let save = match action.get("action").and_then(Json::as_str) {
            Some("save") => Some((action, "")),
            Some("request") => action
                .get("save_response")
                .map(|save| (save, "/save_response")),
            _ => None,
        };
        let Some((save, member)) = save else { continue };
        let secret = matches!(save.get("secret"), Some(Json::Bool(true)));
        let Some(name) = save.get("name").and_then(Json::as_str) else {
            continue;
        };
        if !secret && looks_like_credential(name) {
            tally.add(|| format!("/parameters/scenario/actions/{index}{member}/name"));
        }
    }
    tally
}

/// How a body is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BodyFormat {
    Json,
    Form,
    Other,
}

fn format_of(media_type: Option<&str>, text: &str) -> BodyFormat {
    let essence = media_type
        .map(|media| {
            media
                .split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase()
        })
        .unwrap_or_default();
    if essence.contains("json") {
        return BodyFormat::Json;
    }
    if essence == "application/x-www-form-urlencoded" {
        return BodyFormat::Form;
    }
    // No media type, or one naming neither: the shape decides.
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        BodyFormat::Json
    } else if looks_like_form(text) {
        BodyFormat::Form
    } else {
        BodyFormat::Other
    }
}

fn looks_like_form(text: &str) -> bool {
    !text.is_empty()
        && text.split('&').all(|pair| {
            pair.split_once('=').is_some_and(|(name, _)| {
                !name.is_empty()
                    && !pair
                        .bytes()
                        .any(|b| b.is_ascii_whitespace() || b == b'<' || b == b'>')
            })
        })
}

fn scan_body(
    scan: &mut CredentialScan,
    at: &str,
    part: &str,
    body: &Body,
    media_type: Option<&str>,
) {
    let decoded;
    let text: &str = match body {
        Body::Text { text } => {
            if text.len() > SCAN_BODY_LIMIT {
                scan.unscanned.add(|| format!("{at} {part} body"));
                return;
            }
            text
        }
        Body::Base64 { bytes, .. } => {
            if *bytes > SCAN_BODY_LIMIT as u64 {
                scan.unscanned.add(|| format!("{at} {part} body (base64)"));
                return;
            }
            let Some(bytes) = body.bytes() else { return };
            match String::from_utf8(bytes.into_owned()) {
                Ok(text) => {
                    decoded = text;
                    &decoded
                }
                // Binary content holds no JSON or form members.
                Err(_) => return,
            }
        }
        Body::Missing | Body::ReportedNull | Body::Excluded { .. } => return,
    };
    match format_of(media_type, text) {
        BodyFormat::Json => {
            if let Ok(value) = serde_json::from_str::<Value>(text) {
                scan_json(scan, at, part, &value);
            }
        }
        BodyFormat::Form => {
            for pair in text.split('&') {
                let Some((name, value)) = pair.split_once('=') else {
                    continue;
                };
                let name = form_decode(name);
                if !value.is_empty() && looks_like_credential(&name) {
                    scan.named
                        .add(|| format!("{at} {part} /{}", printable(&escape_pointer(&name))));
                }
            }
        }
        BodyFormat::Other => {}
    }
}

fn scan_json(scan: &mut CredentialScan, at: &str, part: &str, value: &Value) {
    let mut stack: Vec<(String, &Value)> = vec![(String::new(), value)];
    while let Some((pointer, value)) = stack.pop() {
        match value {
            Value::Object(members) => {
                // Pushed in reverse so members are visited (and listed) in order.
                for (name, member) in members.iter().rev() {
                    let child = format!("{pointer}/{}", escape_pointer(name));
                    stack.push((child, member));
                }
                for (name, member) in members {
                    if holds_value(member) && looks_like_credential(name) {
                        let child = format!("{pointer}/{}", escape_pointer(name));
                        scan.named
                            .add(|| format!("{at} {part} {}", printable(&child)));
                    }
                }
            }
            Value::Array(items) => {
                for (index, item) in items.iter().enumerate().rev() {
                    stack.push((format!("{pointer}/{index}"), item));
                }
            }
            _ => {}
        }
    }
}

fn holds_value(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::String(text) => !text.is_empty(),
        Value::Array(items) => !items.is_empty(),
        Value::Object(members) => !members.is_empty(),
        Value::Bool(_) | Value::Number(_) => true,
    }
}

fn escape_pointer(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// A name as listed: control characters escaped, at most 200 bytes.
fn printable(name: &str) -> String {
    let mut out = String::new();
    for character in name.chars() {
        if out.len() >= 200 {
            out.push('…');
            break;
        }
        if character.is_control() {
            out.push_str(&character.escape_default().to_string());
        } else {
            out.push(character);
        }
    }
    out
}

/// Form-urlencoded decoding of a name: `+` is a space, percent escapes are bytes (invalid UTF-8
/// becomes U+FFFD).
fn form_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        match bytes[index] {
            b'+' => out.push(b' '),
            b'%' if index + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[index + 1..index + 3])
                    .ok()
                    .and_then(|hex| u8::from_str_radix(hex, 16).ok());
                match hex {
                    Some(byte) => {
                        out.push(byte);
                        index += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            byte => out.push(byte),
        }
        index += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::contracts::capture::{RecordQuery, RecordRequest, RecordResponse};

    fn header(name: &str, value: Option<&str>) -> RecordHeader {
        RecordHeader {
            excluded: value.is_none().then(|| "authentication".into()),
            name: Some(name.into()),
            value: value.map(Into::into),
        }
    }

    fn record(ordinal: u64) -> CaptureRecord {
        CaptureRecord {
            duration_ms: None,
            method: Some("GET".into()),
            ordinal,
            origin: Some("http://app".into()),
            path: Some("/".into()),
            pointer: format!("/log/entries/{ordinal}").into(),
            query: None,
            request: RecordRequest {
                body: Body::Missing,
                headers: Vec::new(),
                http_version: None,
                media_type: None,
            },
            response: RecordResponse {
                body: Body::Missing,
                headers: Vec::new(),
                http_version: None,
                media_type: None,
                status: 200,
                status_text: None,
            },
            started: None,
            url: None,
        }
    }

    #[test]
    fn names_are_matched_by_whole_segments() {
        // contract: BUILD-072
        for name in [
            "token",
            "X-Api-Key",
            "apiKey",
            "api_key",
            "access_token",
            "refreshToken",
            "client_secret",
            "PASSWORD",
            "Authorization",
            "session",
            "X-CSRF-Token",
            "sessionId",
        ] {
            assert!(looks_like_credential(name), "{name}");
        }
        for name in [
            "author",
            "tokenizer",
            "keyboard",
            "passage",
            "id",
            "title",
            "sessions_count2x",
            "Access-Control-Allow-Credentials",
        ] {
            assert!(!looks_like_credential(name), "{name}");
        }
    }

    #[test]
    fn the_scan_lists_records_and_pointers_never_values() {
        // contract: BUILD-071, BUILD-073, BUILD-074
        let mut first = record(3);
        first.request.headers = vec![
            header("X-Api-Key", Some("s3cr3t-value")),
            header("Authorization", None),
            header("Accept", Some("application/json")),
        ];
        first.query = Some(RecordQuery {
            pairs: vec![
                Some(("access_token".into(), "abc-value".into())),
                Some(("token".into(), String::new())),
            ],
            raw: Some("access_token=abc-value&token=".into()),
        });
        first.response.media_type = Some("application/json".into());
        first.response.body = Body::Text {
            text: r#"{"data": {"token": "tok-value", "password": null, "name": "x"}, "items": [{"secret": 1}]}"#
                .into(),
        };
        let mut second = record(4);
        second.request.body = Body::Text {
            text: "user=a&password=hunter2-value&api%5Fkey=k-value".into(),
        };
        let scan = scan([&first, &second]);
        assert_eq!(
            scan.named.items,
            vec![
                "record 3 request header X-Api-Key",
                "record 3 query access_token",
                "record 3 response /data/token",
                "record 3 response /items/0/secret",
                "record 4 request /password",
                "record 4 request /api_key",
            ]
        );
        assert_eq!(scan.named.count, 6);
        let warnings = serde_json::to_string(&scan.warnings()).unwrap();
        for value in [
            "s3cr3t-value",
            "abc-value",
            "tok-value",
            "hunter2-value",
            "k-value",
        ] {
            assert!(!warnings.contains(value), "{value} leaked: {warnings}");
        }
        assert!(warnings.contains(CREDENTIAL_NAMED_MEMBERS));
        assert!(!warnings.contains(CREDENTIAL_SCAN_INCOMPLETE));
    }

    #[test]
    fn large_bodies_are_counted_not_scanned_and_lists_stop_at_twenty() {
        // contract: BUILD-078, BUILD-079, BUILD-080
        let mut records = Vec::new();
        for ordinal in 0..25 {
            let mut big = record(ordinal);
            big.response.body = Body::Text {
                text: format!("{{\"token\": \"{}\"}}", "x".repeat(4 * 1024 * 1024)).into(),
            };
            records.push(big);
        }
        let scan = scan(&records);
        assert_eq!(scan.named.count, 0);
        assert_eq!(scan.unscanned.count, 25);
        assert_eq!(scan.unscanned.items.len(), 20);
        assert_eq!(scan.unscanned.items[0], "record 0 response body");
        let warnings = scan.warnings();
        assert_eq!(warnings.len(), 1);
        assert_eq!(warnings[0].code, CREDENTIAL_SCAN_INCOMPLETE);
        assert_eq!(warnings[0].count, Some(25));
    }

    #[test]
    fn a_session_is_scanned_by_event_and_large_bodies_are_counted() {
        use rea_plugin_api::contracts::session::{
            Allocation, EventLog, NetworkSelection, NormalizedResult, RequestEvent, ResponseEvent,
            SessionBrowser, SessionCapture, SessionLimits,
        };
        let request = SessionEvent::Request(RequestEvent {
            body: Content::Absent,
            headers: vec![SessionHeader {
                name: "X-Api-Key".into(),
                redacted: None,
                value: Some("k-value".into()),
            }],
            hop: 0,
            method: "GET".into(),
            observed: 0.0,
            request_id: "1".into(),
            resource_type: None,
            step_id: None,
            timestamp: 0.0,
            url: "http://app/x?access_token=t-value".into(),
            wall_time: None,
        });
        let big = SessionEvent::Response(ResponseEvent {
            body: Content::Text {
                text: format!("{{\"token\": \"{}\"}}", "x".repeat(SCAN_BODY_LIMIT)),
            },
            headers: Vec::new(),
            hop: 0,
            media_type: Some("application/json".into()),
            protocol: None,
            request_id: "1".into(),
            status: 200,
            status_text: None,
            timestamp: 0.1,
        });
        let session = RecordedSession {
            browser: SessionBrowser {
                mode: "launch".into(),
                product: None,
                protocol_version: None,
            },
            capture: SessionCapture {
                events: vec!["network".into()],
                limits: SessionLimits {
                    max_event_allocation_bytes: 1,
                    max_network_body_allocation_bytes: 1,
                    max_network_body_bytes: 1,
                    max_total_event_allocation_bytes: 1,
                },
                network: NetworkSelection {
                    header_values: true,
                    request_body: true,
                    response_body: true,
                },
            },
            normalized_result: NormalizedResult {
                allocation: Allocation { charged_bytes: 0 },
                events: EventLog {
                    items: vec![request, big],
                    omitted: Vec::new(),
                },
                steps: Vec::new(),
            },
            schema: "rea-browser-session/v1".into(),
            secrets: Vec::new(),
            start_origin: "http://app".into(),
        };
        let scan = scan_session(&session);
        assert_eq!(
            scan.named.items,
            [
                "event 0 request header X-Api-Key",
                "event 0 query access_token"
            ]
        );
        // contract: BUILD-078
        assert_eq!(scan.unscanned.items, ["event 1 response body"]);
        // contract: BUILD-079
        assert_eq!(scan.unscanned.count, 1);
    }

    #[test]
    fn bodies_without_a_media_type_are_read_by_shape() {
        let mut json = record(1);
        json.response.media_type = Some("text/plain".into());
        json.response.body = Body::Text {
            text: r#"[{"session": "v"}]"#.into(),
        };
        let mut html = record(2);
        html.response.body = Body::Text {
            text: "<p>token=abc</p>".into(),
        };
        let scan = scan([&json, &html]);
        assert_eq!(scan.named.items, vec!["record 1 response /0/session"]);
    }
}

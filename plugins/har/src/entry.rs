//! One `log.entries` item to one [`CaptureRecord`]: validation of its standard fields, the URL
//! split, headers with authentication values excluded, bodies in their representation, and the
//! exclusion of fields that hold a declared sensitive value.

use rea_plugin_api::contracts::capture::url::{decode_query, percent_decode, split_url};
use rea_plugin_api::contracts::capture::{
    AUTHENTICATION_EXCLUSION, AUTHENTICATION_REDACTION, Body, CaptureRecord, RecordHeader,
    RecordQuery, RecordRequest, RecordResponse, Redaction, StartTime, base64,
    is_authentication_header,
};
use rea_plugin_api::json::{Json, Object};

use crate::fields::Fields;
use crate::refusal::HarRefusal;
use crate::sensitive::{SENSITIVE_REASON, Sensitive, redaction};
use rea_plugin_api::contracts::capture::Limitations;

/// Redaction reason of URL userinfo.
const USERINFO_REDACTION: &str = "url-userinfo";

/// Everything one entry contributes besides its record.
pub(crate) struct Sink<'a> {
    pub(crate) ordinal: u64,
    pub(crate) sensitive: &'a Sensitive,
    pub(crate) redactions: &'a mut Vec<Redaction>,
    pub(crate) limitations: &'a mut Limitations,
}

impl Sink<'_> {
    fn redact(&mut self, pointer: String, reason: &str) {
        self.redactions.push(Redaction {
            pointer,
            reason: reason.to_owned(),
            record_ordinal: Some(self.ordinal),
        });
    }

    fn redact_sensitive(&mut self, pointer: String) {
        self.redactions.push(redaction(pointer, Some(self.ordinal)));
    }

    fn limit(&mut self, code: &'static str, message: &'static str) {
        self.limitations.record(code, message, self.ordinal);
    }

    /// The text unless it holds a sensitive value (then `None` and a redaction at `pointer`).
    fn keep(&mut self, text: Option<&str>, pointer: impl FnOnce() -> String) -> Option<String> {
        let text = text?;
        if self.sensitive.hit(text) {
            self.redact_sensitive(pointer());
            None
        } else {
            Some(text.to_owned())
        }
    }
}

/// The longest duration (`time`, in milliseconds) a record keeps: a day. A longer one (`1e17`,
/// `1e308`) would carry the served clock thousands of years past the recording.
const MAX_DURATION_MS: f64 = 86_400_000.0;

/// Validates one entry and builds its record.
pub(crate) fn record(
    item: Json,
    ordinal: u64,
    sensitive: &Sensitive,
    redactions: &mut Vec<Redaction>,
    limitations: &mut Limitations,
) -> Result<CaptureRecord, HarRefusal> {
    let pointer = format!("/log/entries/{ordinal}");
    let Json::Object(mut entry) = item else {
        return Err(Fields::wrong_type(&pointer, "an object", &item));
    };
    let mut sink = Sink {
        ordinal,
        sensitive,
        redactions,
        limitations,
    };
    let fields = Fields::new(&entry, &pointer);
    let (started_at, time) = check_entry_fields(&fields)?;
    let request_pointer = fields.pointer_of("request");
    let response_pointer = fields.pointer_of("response");
    let request = fields.object("request")?;
    let response = fields.object("response")?;
    let checked_request = check_request(request, &request_pointer)?;
    let checked_response = check_response(response, &response_pointer)?;

    let (started, duration_ms) = timing((started_at, time), &entry, &pointer, &mut sink);

    let method = sink.keep(Some(request_method(request)), || {
        format!("{request_pointer}/method")
    });
    let url_line = request_line(request_url(request), &request_pointer, &mut sink);
    let request_headers = headers(request, &request_pointer, &mut sink);
    let response_headers = headers(response, &response_pointer, &mut sink);
    let kept = KeptSpellings::of(
        (&checked_request, &request_pointer),
        (&checked_response, &response_pointer),
        &mut sink,
    );
    let status = checked_response.status;

    // Bodies last: their text moves out of the document instead of being copied.
    let (request_body, response_body) =
        take_bodies(&mut entry, &request_pointer, &response_pointer, &mut sink)?;
    note_missing_response(status, &response_body, &mut sink);

    Ok(CaptureRecord {
        duration_ms,
        method: method.map(Into::into),
        ordinal,
        origin: url_line.origin.map(Into::into),
        path: url_line.path.map(Into::into),
        pointer: pointer.into(),
        query: url_line.query,
        request: RecordRequest {
            body: request_body,
            headers: request_headers,
            http_version: kept.request_version.map(Into::into),
            media_type: kept.request_media.map(Into::into),
        },
        response: RecordResponse {
            body: response_body,
            headers: response_headers,
            http_version: kept.response_version.map(Into::into),
            media_type: kept.response_media.map(Into::into),
            status,
            status_text: kept.status_text.map(Into::into),
        },
        started,
        url: url_line.url.map(Into::into),
    })
}

/// Notes a response the capture did not record (status 0), or whose body it did not keep.
fn note_missing_response(status: u16, body: &Body, sink: &mut Sink<'_>) {
    if status == 0 {
        sink.limit(
            "no-response",
            "The capture recorded no response for these requests (status 0).",
        );
    } else if matches!(body, Body::Missing) {
        sink.limit(
            "response-body-not-recorded",
            "The capture kept no response body for these records (a reply without a body is recorded as empty text, not as missing).",
        );
    }
}

/// The entry's start and duration as a record keeps them, noting WebSocket messages the
/// record leaves out.
fn timing(
    (started_at, time): (Option<&str>, Option<f64>),
    entry: &Object,
    pointer: &str,
    sink: &mut Sink<'_>,
) -> (Option<StartTime>, Option<f64>) {
    let started = start_time(started_at, pointer, sink);
    let duration_ms = duration(time, sink);
    if entry.contains_key("_webSocketMessages") {
        sink.limit(
            "websocket-messages-omitted",
            "These entries carry WebSocket messages (`_webSocketMessages`), which are not represented as records.",
        );
    }
    (started, duration_ms)
}

/// The request's and response's HTTP versions, media types and status text, each kept unless
/// it holds a sensitive value (then redacted).
struct KeptSpellings {
    request_version: Option<String>,
    response_version: Option<String>,
    request_media: Option<String>,
    response_media: Option<String>,
    status_text: Option<String>,
}

impl KeptSpellings {
    fn of(
        (request, request_pointer): (&CheckedRequest, &str),
        (response, response_pointer): (&CheckedResponse, &str),
        sink: &mut Sink<'_>,
    ) -> Self {
        let request_version = sink.keep(request.http_version.as_deref(), || {
            format!("{request_pointer}/httpVersion")
        });
        let response_version = sink.keep(response.http_version.as_deref(), || {
            format!("{response_pointer}/httpVersion")
        });
        let request_media = sink.keep(request.media_type.as_deref(), || {
            format!("{request_pointer}/postData/mimeType")
        });
        let response_media = sink.keep(response.media_type.as_deref(), || {
            format!("{response_pointer}/content/mimeType")
        });
        let status_text = sink.keep(response.status_text.as_deref(), || {
            format!("{response_pointer}/statusText")
        });
        Self {
            request_version,
            response_version,
            request_media,
            response_media,
            status_text,
        }
    }
}

/// Checks the entry's optional standard fields (and its `timings`); answers its recorded start
/// time text and duration.
fn check_entry_fields<'a>(
    fields: &Fields<'a>,
) -> Result<(Option<&'a str>, Option<f64>), HarRefusal> {
    fields.optional_string("pageref")?;
    let started_at = fields.optional_string("startedDateTime")?;
    let time = fields.optional_number("time")?;
    fields.optional_object("cache")?;
    if let Some(timings) = fields.optional_object("timings")? {
        let timings_pointer = fields.pointer_of("timings");
        let timing_fields = Fields::new(timings, &timings_pointer);
        for name in [
            "blocked", "dns", "connect", "send", "wait", "receive", "ssl",
        ] {
            timing_fields.optional_number(name)?;
        }
        timing_fields.optional_string("comment")?;
    }
    fields.optional_string("serverIPAddress")?;
    fields.optional_string("connection")?;
    fields.optional_string("comment")?;
    Ok((started_at, time))
}

/// The record's start time: as recorded, with its instant when it parses; a limitation when it
/// is missing or does not parse, a redaction when it holds a sensitive value.
fn start_time(started_at: Option<&str>, pointer: &str, sink: &mut Sink<'_>) -> Option<StartTime> {
    let Some(recorded) = started_at else {
        sink.limit(
            "start-time-not-recorded",
            "These records have no recorded start time; only their position orders them.",
        );
        return None;
    };
    let recorded = sink.keep(Some(recorded), || format!("{pointer}/startedDateTime"))?;
    let instant = rea_plugin_api::date::instant_text(&recorded);
    if instant.is_none() {
        sink.limit(
            "start-time-unparsed",
            "These records' start time is not an ISO 8601 date-time with an offset; it is kept as recorded without an instant.",
        );
    }
    Some(StartTime {
        instant: instant.map(Into::into),
        recorded: recorded.into(),
    })
}

/// The record's duration in milliseconds: a non-negative, finite `time` of at most a day, else
/// `None` with a limitation.
fn duration(time: Option<f64>, sink: &mut Sink<'_>) -> Option<f64> {
    match time.filter(|value| *value >= 0.0) {
        Some(value) if !value.is_finite() || value > MAX_DURATION_MS => {
            sink.limit(
                "duration-out-of-range",
                "These records' duration (`time`) is more than a day (86,400,000 ms); it is not used.",
            );
            None
        }
        Some(value) => Some(value),
        None => {
            sink.limit(
                "duration-not-recorded",
                "These records have no recorded non-negative duration (`time`).",
            );
            None
        }
    }
}

/// Moves the request's `postData.text` and the response's `content.text` out of the entry, as
/// bodies in their representation.
fn take_bodies(
    entry: &mut Object,
    request_pointer: &str,
    response_pointer: &str,
    sink: &mut Sink<'_>,
) -> Result<(Body, Body), HarRefusal> {
    let request_body = {
        let request = object_mut(entry, "request");
        match request.and_then(|request| object_mut_in(request, "postData")) {
            None => Body::Missing,
            Some(post_data) => text_body(
                take_member(post_data, "text"),
                None,
                &format!("{request_pointer}/postData/text"),
                sink,
            )?,
        }
    };
    let response_body = {
        let response = object_mut(entry, "response");
        match response.and_then(|response| object_mut_in(response, "content")) {
            None => Body::Missing,
            Some(content) => {
                let encoding = content
                    .get("encoding")
                    .and_then(Json::as_str)
                    .map(str::to_owned);
                text_body(
                    take_member(content, "text"),
                    encoding.as_deref(),
                    &format!("{response_pointer}/content/text"),
                    sink,
                )?
            }
        }
    };
    Ok((request_body, response_body))
}

struct CheckedRequest {
    http_version: Option<String>,
    media_type: Option<String>,
}

struct CheckedResponse {
    status: u16,
    status_text: Option<String>,
    http_version: Option<String>,
    media_type: Option<String>,
}

fn request_method(request: &Object) -> &str {
    request
        .get("method")
        .and_then(Json::as_str)
        .unwrap_or_default()
}

fn request_url(request: &Object) -> &str {
    request
        .get("url")
        .and_then(Json::as_str)
        .unwrap_or_default()
}

fn check_request(request: &Object, pointer: &str) -> Result<CheckedRequest, HarRefusal> {
    let fields = Fields::new(request, pointer);
    fields.string("method")?;
    fields.string("url")?;
    let http_version = fields.optional_string("httpVersion")?.map(str::to_owned);
    fields.optional_list_of(
        "cookies",
        &["name", "value"],
        &["path", "domain", "expires", "comment"],
        &["httpOnly", "secure"],
    )?;
    fields.optional_list_of("headers", &["name", "value"], &["comment"], &[])?;
    fields.optional_list_of("queryString", &["name", "value"], &["comment"], &[])?;
    let mut media_type = None;
    if let Some(post_data) = fields.optional_object("postData")? {
        let post_pointer = fields.pointer_of("postData");
        let post_fields = Fields::new(post_data, &post_pointer);
        media_type = post_fields.optional_string("mimeType")?.map(str::to_owned);
        // `text: null` is mitmproxy's reported null; a string otherwise.
        post_fields.optional_string("text")?;
        post_fields.optional_list_of(
            "params",
            &["name"],
            &["value", "fileName", "contentType", "comment"],
            &[],
        )?;
        post_fields.optional_string("comment")?;
    }
    fields.optional_number("headersSize")?;
    fields.optional_number("bodySize")?;
    fields.optional_string("comment")?;
    Ok(CheckedRequest {
        http_version,
        media_type,
    })
}

fn check_response(response: &Object, pointer: &str) -> Result<CheckedResponse, HarRefusal> {
    let fields = Fields::new(response, pointer);
    // Status 0 is what producers write for a request that got no answer.
    let status = fields.integer_in("status", 0..=999)? as u16;
    let status_text = fields.optional_string("statusText")?.map(str::to_owned);
    let http_version = fields.optional_string("httpVersion")?.map(str::to_owned);
    fields.optional_list_of(
        "cookies",
        &["name", "value"],
        &["path", "domain", "expires", "comment"],
        &["httpOnly", "secure"],
    )?;
    fields.optional_list_of("headers", &["name", "value"], &["comment"], &[])?;
    let mut media_type = None;
    if let Some(content) = fields.optional_object("content")? {
        let content_pointer = fields.pointer_of("content");
        let content_fields = Fields::new(content, &content_pointer);
        content_fields.optional_number("size")?;
        content_fields.optional_number("compression")?;
        media_type = content_fields
            .optional_string("mimeType")?
            .map(str::to_owned);
        content_fields.optional_string("text")?;
        content_fields.optional_string("encoding")?;
        content_fields.optional_string("comment")?;
    }
    fields.optional_string("redirectURL")?;
    fields.optional_number("headersSize")?;
    fields.optional_number("bodySize")?;
    fields.optional_string("comment")?;
    Ok(CheckedResponse {
        status,
        status_text,
        http_version,
        media_type,
    })
}

struct RequestLine {
    url: Option<String>,
    origin: Option<String>,
    path: Option<String>,
    query: Option<RecordQuery>,
}

/// The URL split into its record fields, userinfo removed, sensitive parts excluded.
fn request_line(recorded: &str, request_pointer: &str, sink: &mut Sink<'_>) -> RequestLine {
    let url_pointer = format!("{request_pointer}/url");
    let parts = split_url(recorded);
    if parts.had_userinfo {
        sink.redact(url_pointer.clone(), USERINFO_REDACTION);
    }
    let sensitive = sink.sensitive;
    if !sensitive.is_active() {
        return RequestLine {
            url: Some(parts.url),
            origin: parts.origin,
            path: Some(parts.path),
            query: parts.query.map(|raw| RecordQuery {
                pairs: decode_query(&raw).into_iter().map(Some).collect(),
                raw: Some(raw.into()),
            }),
        };
    }
    let hit = |text: &str| sensitive.hit(text) || sensitive.hit(&percent_decode(text));
    let url_hit = hit(&parts.url);
    if url_hit {
        sink.redact_sensitive(url_pointer);
    }
    RequestLine {
        url: (!url_hit).then_some(parts.url),
        origin: parts.origin.filter(|origin| !sensitive.hit(origin)),
        path: (!hit(&parts.path)).then_some(parts.path),
        query: parts.query.map(|raw| RecordQuery {
            pairs: decode_query(&raw)
                .into_iter()
                .map(|(name, value)| {
                    (!sensitive.hit(&name) && !sensitive.hit(&value)).then_some((name, value))
                })
                .collect(),
            raw: (!hit(&raw)).then(|| raw.into()),
        }),
    }
}

/// The headers of a request or response, authentication values and sensitive fields excluded.
fn headers(message: &Object, message_pointer: &str, sink: &mut Sink<'_>) -> Vec<RecordHeader> {
    let Some(Json::Array(items)) = message.get("headers") else {
        return Vec::new();
    };
    let mut out = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        // Validated before: an object with string `name` and `value`.
        let name = item.get("name").and_then(Json::as_str).unwrap_or_default();
        let value = item.get("value").and_then(Json::as_str).unwrap_or_default();
        let header_pointer = format!("{message_pointer}/headers/{index}");
        if sink.sensitive.hit(name) {
            sink.redact_sensitive(header_pointer);
            out.push(RecordHeader {
                excluded: Some(SENSITIVE_REASON.into()),
                name: None,
                value: None,
            });
        } else if is_authentication_header(name) {
            sink.redact(format!("{header_pointer}/value"), AUTHENTICATION_REDACTION);
            out.push(RecordHeader {
                excluded: Some(AUTHENTICATION_EXCLUSION.into()),
                name: Some(name.into()),
                value: None,
            });
        } else if sink.sensitive.hit(value) {
            sink.redact_sensitive(format!("{header_pointer}/value"));
            out.push(RecordHeader {
                excluded: Some(SENSITIVE_REASON.into()),
                name: Some(name.into()),
                value: None,
            });
        } else {
            out.push(RecordHeader {
                excluded: None,
                name: Some(name.into()),
                value: Some(value.into()),
            });
        }
    }
    out
}

/// A body member as found: absent, `null`, or text moved out of the document.
enum Slot {
    Absent,
    Null,
    Text(String),
}

fn take_member(object: &mut Object, key: &str) -> Slot {
    match object.get_mut(key) {
        None => Slot::Absent,
        Some(Json::String(text)) => Slot::Text(std::mem::take(text).into_string()),
        Some(_) => Slot::Null,
    }
}

fn object_mut<'a>(entry: &'a mut Object, key: &str) -> Option<&'a mut Object> {
    entry.get_mut(key).and_then(Json::as_object_mut)
}

fn object_mut_in<'a>(object: &'a mut Object, key: &str) -> Option<&'a mut Object> {
    object.get_mut(key).and_then(Json::as_object_mut)
}

/// A body in its representation: missing, reported null, text, or exact bytes from base64.
fn text_body(
    slot: Slot,
    encoding: Option<&str>,
    pointer: &str,
    sink: &mut Sink<'_>,
) -> Result<Body, HarRefusal> {
    let text = match slot {
        Slot::Absent => return Ok(Body::Missing),
        Slot::Null => {
            sink.limit(
                "body-reported-null",
                "The producer reported these bodies as null (mitmproxy writes `postData.text: null`); no body is assumed.",
            );
            return Ok(Body::ReportedNull);
        }
        Slot::Text(text) => text,
    };
    match encoding {
        Some("base64") => {
            let decoded = base64::decode(&text).map_err(|error| {
                HarRefusal::input(
                    format!(
                        "{pointer} is marked `encoding: \"base64\"` but is not valid base64 ({error})"
                    ),
                    Some(pointer.to_owned()),
                )
            })?;
            if sink.sensitive.is_active()
                && (sink.sensitive.hit(&text) || sink.sensitive.hit_bytes(&decoded))
            {
                sink.redact_sensitive(pointer.to_owned());
                return Ok(excluded());
            }
            let base64 = if base64::is_padded(&text) {
                text
            } else {
                base64::encode(&decoded)
            };
            Ok(Body::Base64 {
                base64,
                bytes: decoded.len() as u64,
            })
        }
        other => {
            if other.is_some_and(|encoding| !encoding.is_empty()) {
                sink.limit(
                    "unknown-content-encoding",
                    "These bodies name a content encoding other than base64; their text is kept as recorded.",
                );
            }
            if sink.sensitive.hit(&text) {
                sink.redact_sensitive(pointer.to_owned());
                return Ok(excluded());
            }
            Ok(Body::Text { text: text.into() })
        }
    }
}

fn excluded() -> Body {
    Body::Excluded {
        reason: SENSITIVE_REASON.to_owned(),
    }
}

//! One attributable transaction to one [`CaptureRecord`], in the HAR extractor's terms: the URL
//! split the same way, authentication header values excluded, bodies in their representation,
//! the start from the browser's wall clock (or the time the scenario observed the request) and
//! the duration from its monotonic clock.

use rea_plugin_api::contracts::capture::url::{decode_query, split_url};
use rea_plugin_api::contracts::capture::{
    AUTHENTICATION_EXCLUSION, AUTHENTICATION_REDACTION, Body, CaptureRecord, Limitations,
    RecordHeader, RecordQuery, RecordRequest, RecordResponse, Redaction, StartTime,
};
use rea_plugin_api::contracts::session::{Content, EVENTS_POINTER, RecordedSession, SessionHeader};
use rea_plugin_api::date::{self, Spelling, UtcInstant};

use crate::transactions::{HopResponse, Transaction, Unattributed, pair};

/// The redaction reason of a field where a declared secret was replaced by its marker.
pub const SECRET_REDACTION: &str = "declared-secret";

/// The records of a session's attributable transactions, in request order.
pub(crate) fn records(
    session: &RecordedSession,
    redactions: &mut Vec<Redaction>,
    limitations: &mut Limitations,
) -> Vec<CaptureRecord> {
    let markers: Vec<&str> = session
        .secrets
        .iter()
        .map(|secret| secret.marker.as_str())
        .collect();
    let (transactions, unmatched) = pair(session);
    if unmatched > 0 {
        limitations.whole(
            "response-without-request",
            "Some responses answer requests the browser sent before the scenario attached to it; their events are kept and no record represents them.",
        );
    }
    let mut out = Vec::new();
    for transaction in &transactions {
        let pointer = format!("{EVENTS_POINTER}/{}", transaction.index);
        let url_marked = markers
            .iter()
            .any(|marker| transaction.request.url.contains(marker));
        if url_marked {
            redactions.push(Redaction {
                pointer: format!("{pointer}/url"),
                reason: SECRET_REDACTION.to_owned(),
                record_ordinal: None,
            });
            limitations.whole(
                "secret-in-url",
                "Some requests carried a declared secret in their URL; they are left unrepresented rather than templated, and their events keep the secret's marker.",
            );
            continue;
        }
        if let Some(reason) = transaction.unattributed {
            unattributed(reason, limitations);
            continue;
        }
        let Some(answer) = transaction.answer else {
            continue;
        };
        let parts = split_url(&transaction.request.url);
        if !parts.url.starts_with("http://") && !parts.url.starts_with("https://") {
            limitations.whole(
                "not-http",
                "Some requests were not HTTP (`data:`, `blob:` and the like); no record represents them.",
            );
            continue;
        }
        let ordinal = out.len() as u64;
        let mut sink = Sink {
            ordinal,
            markers: &markers,
            redactions,
            limitations,
        };
        out.push(record(transaction, answer, pointer, &mut sink));
    }
    out
}

fn unattributed(reason: Unattributed, limitations: &mut Limitations) {
    let (code, message) = match reason {
        Unattributed::RepeatedRequest | Unattributed::RepeatedResponse => (
            "unattributed-transaction",
            "Some request hops had more than one request or response event; the capture cannot attribute them to a single request and response, so no record represents them.",
        ),
        Unattributed::NoResponse => (
            "no-response",
            "Some requests got no response the browser reported (they failed, were cancelled, or had not finished when the scenario ended); no record represents them.",
        ),
    };
    limitations.whole(code, message);
}

/// What building one record adds to the extraction besides the record.
struct Sink<'a> {
    ordinal: u64,
    markers: &'a [&'a str],
    redactions: &'a mut Vec<Redaction>,
    limitations: &'a mut Limitations,
}

impl Sink<'_> {
    fn redact(&mut self, pointer: String, reason: &str) {
        self.redactions.push(Redaction {
            pointer,
            reason: reason.to_owned(),
            record_ordinal: Some(self.ordinal),
        });
    }

    fn limit(&mut self, code: &'static str, message: &'static str) {
        self.limitations.record(code, message, self.ordinal);
    }

    fn marked(&self, text: &str) -> bool {
        self.markers.iter().any(|marker| text.contains(marker))
    }
}

fn record(
    transaction: &Transaction<'_>,
    answer: HopResponse<'_>,
    pointer: String,
    sink: &mut Sink<'_>,
) -> CaptureRecord {
    let request = transaction.request;
    let parts = split_url(&request.url);
    let request_headers = headers(&request.headers, &format!("{pointer}/headers"), sink);
    let request_media = header(&request.headers, "content-type");
    let request_body = body(&request.body, &format!("{pointer}/body"), "request", sink);
    let (response, protocol) = recorded_response(answer, sink);
    let duration_ms = transaction
        .end
        .map(|end| (end - request.timestamp) * 1000.0)
        .filter(|duration| *duration >= 0.0);
    if duration_ms.is_none() {
        sink.limit(
            "duration-not-recorded",
            "The browser reported no end for these requests, so they have no duration.",
        );
    }
    let started = match request.wall_time {
        Some(seconds) => start_time(seconds),
        None => {
            sink.limit(
                "start-time-observed",
                "The browser reported no start for these requests; their start is the time the scenario observed them.",
            );
            start_time(request.observed)
        }
    };
    CaptureRecord {
        duration_ms,
        method: Some(request.method.as_str().into()),
        ordinal: sink.ordinal,
        origin: parts.origin.map(Into::into),
        path: Some(parts.path.into()),
        pointer: pointer.into(),
        query: parts.query.map(|raw| RecordQuery {
            pairs: decode_query(&raw).into_iter().map(Some).collect(),
            raw: Some(raw.into()),
        }),
        request: RecordRequest {
            body: request_body,
            headers: request_headers,
            http_version: protocol.map(|protocol| http_version(protocol).into()),
            media_type: request_media.map(Into::into),
        },
        response,
        started,
        url: Some(parts.url.into()),
    }
}

/// The response record of a transaction's answer and the protocol it was spoken in: a kept
/// response event whole, an omitted one by its status alone.
fn recorded_response<'a>(
    answer: HopResponse<'a>,
    sink: &mut Sink<'_>,
) -> (RecordResponse, Option<&'a str>) {
    match answer {
        HopResponse::Kept(index, response) => {
            let at = format!("{EVENTS_POINTER}/{index}");
            let media_type =
                header(&response.headers, "content-type").or_else(|| response.media_type.clone());
            let record = RecordResponse {
                body: body(&response.body, &format!("{at}/body"), "response", sink),
                headers: headers(&response.headers, &format!("{at}/headers"), sink),
                http_version: response
                    .protocol
                    .as_deref()
                    .map(|protocol| http_version(protocol).into()),
                media_type: media_type.map(Into::into),
                status: response.status,
                status_text: response.status_text.as_deref().map(Into::into),
            };
            (record, response.protocol.as_deref())
        }
        HopResponse::Omitted(omitted) => {
            sink.limit(
                "response-event-omitted",
                "These responses' content events exceeded an allocation budget and were left out whole, headers included (the capture lists them among its omissions); their tools replay no body.",
            );
            let record = RecordResponse {
                body: Body::Missing,
                headers: Vec::new(),
                http_version: None,
                media_type: None,
                status: omitted.status.unwrap_or_default(),
                status_text: None,
            };
            (record, None)
        }
    }
}

/// The first value of a header (ASCII case-insensitive name) that has one.
fn header(headers: &[SessionHeader], name: &str) -> Option<String> {
    headers
        .iter()
        .find(|header| header.name.eq_ignore_ascii_case(name) && header.value.is_some())
        .and_then(|header| header.value.clone())
}

fn headers(headers: &[SessionHeader], pointer: &str, sink: &mut Sink<'_>) -> Vec<RecordHeader> {
    headers
        .iter()
        .enumerate()
        .map(|(index, header)| {
            let value_pointer = || format!("{pointer}/{index}/value");
            match header.redacted.as_deref() {
                Some(AUTHENTICATION_EXCLUSION) => {
                    sink.redact(value_pointer(), AUTHENTICATION_REDACTION);
                }
                Some(_) => {}
                None => {
                    if header
                        .value
                        .as_deref()
                        .is_some_and(|value| sink.marked(value))
                    {
                        sink.redact(value_pointer(), SECRET_REDACTION);
                    }
                }
            }
            RecordHeader {
                excluded: header.redacted.as_deref().map(Into::into),
                name: Some(header.name.as_str().into()),
                value: header.value.as_deref().map(Into::into),
            }
        })
        .collect()
}

/// A kept body in its record representation; anything but a whole body is no body.
fn body(content: &Content, pointer: &str, part: &str, sink: &mut Sink<'_>) -> Body {
    match content {
        Content::Absent => Body::Missing,
        Content::Text { text } => {
            if sink.marked(text) {
                sink.redact(pointer.to_owned(), SECRET_REDACTION);
            }
            Body::Text {
                text: text.as_str().into(),
            }
        }
        Content::Base64 { base64, bytes } => Body::Base64 {
            base64: base64.clone(),
            bytes: *bytes,
        },
        Content::Truncated { .. } => {
            sink.limit(
                "body-truncated",
                "These records' bodies were longer than `max_network_body_bytes`: the session keeps their beginning for reading, and the records have no body.",
            );
            Body::Missing
        }
        Content::Redacted => {
            sink.redact(pointer.to_owned(), SECRET_REDACTION);
            sink.limit(
                "body-redacted",
                "These records' bodies held a declared secret in bytes that are not text; redaction emptied them, so their tools replay no body.",
            );
            Body::Excluded {
                reason: "sensitive-value".to_owned(),
            }
        }
        Content::Unavailable { reason } => {
            unavailable(reason, part, sink);
            Body::Missing
        }
    }
}

fn unavailable(reason: &str, part: &str, sink: &mut Sink<'_>) {
    let (code, message) = match (reason, part) {
        ("not-selected", "request") => (
            "request-body-not-selected",
            "The scenario did not select request bodies (`capture.network.request_body`).",
        ),
        ("not-selected", _) => (
            "response-body-not-selected",
            "The scenario did not select response bodies (`capture.network.response_body`); these tools replay no body.",
        ),
        ("max_network_body_allocation_bytes", _) => (
            "body-over-allocation",
            "These bodies would have been charged more than `max_network_body_allocation_bytes`; they are kept as `unavailable` and their tools replay no body.",
        ),
        ("not-exposed", _) => (
            "body-not-exposed",
            "The browser exposed no body for these messages (a redirect's body, or one it no longer held).",
        ),
        _ => (
            "body-unavailable",
            "The session has no body for these messages (the request had not finished, or the browser could not give it).",
        ),
    };
    sink.limit(code, message);
}

/// `http/1.1` as HAR producers spell it (`HTTP/1.1`); `h2` as `HTTP/2`, `h3` as `HTTP/3`.
fn http_version(protocol: &str) -> String {
    match protocol {
        "h2" => "HTTP/2".to_owned(),
        "h3" => "HTTP/3".to_owned(),
        other => other.to_ascii_uppercase(),
    }
}

/// A start time from seconds since the epoch: recorded with microseconds (the browser's
/// resolution), and its instant with nine fraction digits.
fn start_time(seconds: f64) -> Option<StartTime> {
    let micros = (seconds * 1_000_000.0).round();
    if !micros.is_finite() {
        return None;
    }
    let instant = UtcInstant::from_nanos(micros as i128 * 1_000)?;
    Some(StartTime {
        instant: Some(date::spell(instant, &Spelling::utc(9))?.into()),
        recorded: date::spell(instant, &Spelling::utc(6))?.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn browser_clocks_become_start_times() {
        let started = start_time(1_714_564_800.123_456).unwrap();
        assert_eq!(started.recorded, "2024-05-01T12:00:00.123456Z");
        assert_eq!(
            started.instant.as_deref(),
            Some("2024-05-01T12:00:00.123456000Z")
        );
        assert_eq!(http_version("http/1.1"), "HTTP/1.1");
        assert_eq!(http_version("h2"), "HTTP/2");
    }
}

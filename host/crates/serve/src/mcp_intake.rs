//! What rea checks of a `POST /mcp` body before the SDK sees it (issue 15, defect 7), and JSON-RPC
//! batches, which the SDK does not take.
//!
//! * The body is read within the request-body bound and the body timeout (`413` or `408` with a
//!   JSON-RPC `-32000` error past them). An empty body or one that is not JSON is `400` with `-32700 Parse error`; JSON that is
//!   not a JSON-RPC message (`{}`, `42`, an empty array) is `400` with `-32600 Invalid Request`
//!   (the SDK answered both `415` with plain text). Errors carry `id: null`, or the message's id
//!   when it has a valid one.
//! * A batch (a JSON array) is taken only inside a session that negotiated `2025-03-26`, the one
//!   revision whose Streamable HTTP transport requires servers to accept batches (2025-06-18
//!   removed them; rmcp 3.11 reads single messages only). Each message is handed to the SDK as
//!   its own request with the batch's headers, in order; the replies to its requests are answered
//!   as one JSON array (`application/json`), or `202` with no body when it held only
//!   notifications and responses. `initialize` is never batched (`-32600` for that message); a
//!   batch is at most [`MAX_BATCH`] messages; each call's argument order goes with it, as a
//!   single call's ([`crate::arguments::SentOrder`]). Elsewhere a batch is `400` with `-32600`
//!   naming the revision that allows them.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::sessions::CappedSessions;

/// The one revision that batches.
pub const BATCH_REVISION: &str = "2025-03-26";
/// The most messages a batch holds (as on `/agentenv`).
pub const MAX_BATCH: usize = 100;
/// The most bytes of one SDK reply read back for a batch.
const MAX_REPLY_BYTES: usize = 64 * 1024 * 1024;

/// What a body is.
pub enum Intake<'a> {
    /// One JSON object: the SDK (or the fast path) answers it.
    Single,
    /// A JSON array of messages.
    Batch(Vec<&'a RawValue>),
    /// Refused before the SDK: the answer.
    Refused(Response),
}

/// A JSON-RPC error answered with an HTTP status.
pub fn error_response(status: StatusCode, id: &RawValue, code: i64, message: &str) -> Response {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":{},"error":{{"code":{code},"message":{}}}}}"#,
        id.get(),
        Value::String(message.to_owned())
    );
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        Body::from(body),
    )
        .into_response()
}

fn null() -> &'static RawValue {
    RawValue::NULL
}

/// Reads the body within `limit` bytes and `timeout`; past them, the `413` or `408` answer.
pub async fn read_body(
    body: Body,
    limit: usize,
    timeout: std::time::Duration,
) -> Result<Bytes, Response> {
    let Ok(read) = tokio::time::timeout(timeout, collect_within(body, limit)).await else {
        return Err(crate::agentenv::body_timed_out(timeout));
    };
    read.ok_or_else(|| {
        error_response(
            StatusCode::PAYLOAD_TOO_LARGE,
            null(),
            -32000,
            &format!("the request body is over {limit} bytes"),
        )
    })
}

/// The body's data when it holds at most `limit` bytes; `None` past it or when reading failed
/// (what `axum::body::to_bytes` errs on). A body that arrives as one data frame, as a request
/// sent with its length usually does, is taken as it is, without a list of frames to join.
async fn collect_within(mut body: Body, limit: usize) -> Option<Bytes> {
    use http_body_util::BodyExt;
    let (mut first, mut joined, mut size) = (Bytes::new(), None::<Vec<u8>>, 0_usize);
    while let Some(frame) = body.frame().await {
        let Ok(data) = frame.ok()?.into_data() else {
            continue;
        };
        size = size.saturating_add(data.len());
        if size > limit {
            return None;
        }
        match &mut joined {
            Some(joined) => joined.extend_from_slice(&data),
            None if first.is_empty() => first = data,
            None => joined = Some([first.as_ref(), data.as_ref()].concat()),
        }
    }
    Some(joined.map_or(first, Bytes::from))
}

/// Classifies a body (see the module documentation).
pub fn classify(bytes: &[u8]) -> Intake<'_> {
    let parsed = std::str::from_utf8(bytes)
        .map_err(|error| error.to_string())
        .and_then(|text| serde_json::from_str::<&RawValue>(text).map_err(|e| e.to_string()));
    let raw = match parsed {
        Ok(raw) => raw,
        Err(error) => {
            let message = format!("Parse error: the body is not JSON ({error})");
            return Intake::Refused(error_response(
                StatusCode::BAD_REQUEST,
                null(),
                -32700,
                &message,
            ));
        }
    };
    match raw.get().as_bytes().first() {
        Some(b'{') => Intake::Single,
        Some(b'[') => match serde_json::from_str::<Vec<&RawValue>>(raw.get()) {
            Ok(items) if items.is_empty() => Intake::Refused(invalid(null(), "an empty batch")),
            Ok(items) if items.len() > MAX_BATCH => Intake::Refused(invalid(
                null(),
                &format!(
                    "a batch holds at most {MAX_BATCH} messages, this one {}",
                    items.len()
                ),
            )),
            Ok(items) => Intake::Batch(items),
            Err(_) => Intake::Refused(invalid(null(), "a batch must be an array of messages")),
        },
        _ => Intake::Refused(invalid(null(), "a message must be a JSON object")),
    }
}

fn invalid(id: &RawValue, reason: &str) -> Response {
    error_response(
        StatusCode::BAD_REQUEST,
        id,
        -32600,
        &format!("Invalid Request: {reason}"),
    )
}

/// The message's `id` when it has a valid one.
fn id_of(message: &RawValue) -> Option<Box<RawValue>> {
    #[derive(serde::Deserialize)]
    struct WithId<'a> {
        #[serde(borrow)]
        id: Option<&'a RawValue>,
    }
    let id = serde_json::from_str::<WithId<'_>>(message.get()).ok()?.id?;
    crate::jsonrpc::check_id(id).ok()?;
    Some(id.to_owned())
}

/// The SDK's answer to a single message, with its `415 fail to deserialize` (JSON that is no
/// JSON-RPC message) turned into `400` and `-32600`.
pub async fn remap_undecodable(response: Response, message: &[u8]) -> Response {
    if response.status() != StatusCode::UNSUPPORTED_MEDIA_TYPE {
        return response;
    }
    let (parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, 64 * 1024)
        .await
        .unwrap_or_default();
    let Some(detail) = std::str::from_utf8(&text)
        .ok()
        .and_then(|text| text.strip_prefix("fail to deserialize request body"))
    else {
        return Response::from_parts(parts, Body::from(text));
    };
    let id = std::str::from_utf8(message)
        .ok()
        .and_then(|text| serde_json::from_str::<&RawValue>(text).ok())
        .and_then(id_of);
    invalid(
        id.as_deref().unwrap_or(null()),
        &format!("not a JSON-RPC message ({})", detail.trim()),
    )
}

/// Answers a batch (see the module documentation); `delegate` hands one message to the SDK.
pub async fn batch<F, Fut>(
    sessions: &Arc<CappedSessions>,
    parts: &Parts,
    items: Vec<&RawValue>,
    delegate: F,
) -> Response
where
    F: Fn(Request) -> Fut,
    Fut: Future<Output = Response>,
{
    let session = parts
        .headers
        .get("mcp-session-id")
        .and_then(|value| value.to_str().ok());
    let revision = match session {
        Some(id) => sessions.revision(id),
        None => None,
    };
    if revision.as_deref() != Some(BATCH_REVISION) {
        let why = match (session, revision) {
            (None, _) => "a request outside a session".to_owned(),
            (Some(_), None) => "an unknown session".to_owned(),
            (Some(_), Some(revision)) => format!("a session at {revision}"),
        };
        return invalid(
            null(),
            &format!("JSON-RPC batches belong to MCP revision {BATCH_REVISION} only, not to {why}"),
        );
    }
    let mut replies: Vec<Box<RawValue>> = Vec::new();
    for item in items {
        replies.extend(one_of_batch(parts, item, &delegate).await);
    }
    if replies.is_empty() {
        return StatusCode::ACCEPTED.into_response();
    }
    let texts: Vec<&str> = replies.iter().map(|reply| reply.get()).collect();
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        Body::from(format!("[{}]", texts.join(","))),
    )
        .into_response()
}

/// One message of a batch as its own request, with the batch's headers and, for a call, the
/// order its arguments were written in (as a single call's, for the SDK's handler).
fn batched_request(parts: &Parts, item: &RawValue) -> Request {
    let mut request = Request::new(Body::from(item.get().to_owned()));
    *request.method_mut() = parts.method.clone();
    *request.uri_mut() = parts.uri.clone();
    *request.headers_mut() = parts.headers.clone();
    request.headers_mut().remove(header::CONTENT_LENGTH);
    request.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    if let Some(sent) = crate::arguments::SentOrder::of_message(item.get().as_bytes()) {
        request.extensions_mut().insert(sent);
    }
    request
}

/// The replies to one message of a batch.
async fn one_of_batch<F, Fut>(parts: &Parts, item: &RawValue, delegate: &F) -> Vec<Box<RawValue>>
where
    F: Fn(Request) -> Fut,
    Fut: Future<Output = Response>,
{
    let id = id_of(item);
    let error = |code: i64, message: &str| -> Vec<Box<RawValue>> {
        let Some(id) = &id else { return Vec::new() };
        let text = format!(
            r#"{{"jsonrpc":"2.0","id":{},"error":{{"code":{code},"message":{}}}}}"#,
            id.get(),
            Value::String(message.to_owned())
        );
        RawValue::from_string(text).into_iter().collect()
    };
    let method = serde_json::from_str::<Value>(item.get())
        .ok()
        .and_then(|value| {
            value
                .get("method")
                .and_then(Value::as_str)
                .map(str::to_owned)
        });
    if method.as_deref() == Some("initialize") {
        return error(
            -32600,
            "Invalid Request: initialize must not be part of a batch",
        );
    }
    let response = delegate(batched_request(parts, item)).await;
    let status = response.status();
    let event_stream = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("text/event-stream"));
    let body = axum::body::to_bytes(response.into_body(), MAX_REPLY_BYTES)
        .await
        .unwrap_or_default();
    if status == StatusCode::ACCEPTED {
        return Vec::new();
    }
    let text = String::from_utf8_lossy(&body);
    if !status.is_success() {
        return error(-32600, &format!("Invalid Request: {}", text.trim()));
    }
    let messages: Vec<&str> = if event_stream {
        text.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(str::trim)
            .filter(|data| !data.is_empty())
            .collect()
    } else {
        vec![text.trim()]
    };
    let replies: Vec<Box<RawValue>> = messages
        .into_iter()
        .filter_map(|data| serde_json::from_str::<Box<RawValue>>(data).ok())
        .filter(|reply| {
            serde_json::from_str::<Value>(reply.get())
                .is_ok_and(|value| value.get("result").is_some() || value.get("error").is_some())
        })
        .collect();
    if replies.is_empty() && id.is_some() {
        return error(-32603, "Internal error: the request got no reply");
    }
    replies
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;
    use std::convert::Infallible;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    /// A body arriving as these data frames.
    struct Frames(VecDeque<&'static str>);

    impl futures_core::Stream for Frames {
        type Item = Result<Bytes, Infallible>;

        fn poll_next(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Self::Item>> {
            Poll::Ready(self.0.pop_front().map(|text| Ok(Bytes::from(text))))
        }
    }

    fn body(frames: &[&'static str]) -> Body {
        Body::from_stream(Frames(frames.iter().copied().collect()))
    }

    #[tokio::test]
    async fn a_body_is_read_whole_within_its_bound_in_any_number_of_frames() {
        for frames in [&[][..], &["{}"], &["", "{", "}"], &["[1,", "", "2", "]"]] {
            let read = collect_within(body(frames), 5).await;
            assert_eq!(
                read.as_deref(),
                Some(frames.concat().as_bytes()),
                "{frames:?}"
            );
        }
        assert_eq!(collect_within(body(&["abc", "def"]), 5).await, None);
        assert_eq!(collect_within(body(&["abcdef"]), 5).await, None);
        assert!(collect_within(body(&["abcde"]), 5).await.is_some());
    }
}

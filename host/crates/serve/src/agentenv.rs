//! `POST /agentenv`: the JSON-RPC transport of the data plane.
//!
//! In order: the body is read within the 4 MiB bound (a larger one is `413` with `-32000` before
//! any of it is parsed, refused from `Content-Length` when declared); a body that is not JSON is
//! `400` with `-32700`; an empty batch or one over 100 messages is `-32600`; every message is
//! checked ([`crate::jsonrpc`]); the calls (requests and notifications) are queued together
//! ([`crate::queue`]); a body of notifications only is `202` with no body; the replies are then
//! assembled in order within the response budget ([`crate::budget`]). If the caller leaves before
//! its replies, its calls are cancelled.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use serde_json::Value;
use serde_json::value::RawValue;
use tokio_util::sync::CancellationToken;

use crate::backend::{DataCall, RpcError};
use crate::budget::{self, Assembler};
use crate::jsonrpc::{self, Message, RpcBody};
use crate::queue::{CallQueue, QueuedCall, ReplyReceiver};

/// The limits of the data-plane transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataPlaneLimits {
    /// The request body bound (4 MiB, as for `/mcp`).
    pub max_body_bytes: usize,
    /// The most messages a batch may hold (100).
    pub max_batch: usize,
    /// The most bytes one response carries (64 MiB).
    pub max_response_bytes: usize,
    /// How long reading a request body may take, `/mcp` too (`REA_BODY_TIMEOUT_SECONDS`, 30 s);
    /// past it the request is answered `408`.
    pub body_timeout: std::time::Duration,
}

/// The default body timeout.
pub const DEFAULT_BODY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// The answer to a body that did not arrive in time: `408` with a JSON-RPC `-32000` error.
pub fn body_timed_out(timeout: std::time::Duration) -> Response {
    let error = RpcError::new(
        RpcError::SERVER_ERROR,
        format!(
            "request timeout: the body did not arrive within {} s",
            timeout.as_secs()
        ),
    );
    error_response(StatusCode::REQUEST_TIMEOUT, &error)
}

impl Default for DataPlaneLimits {
    fn default() -> Self {
        Self {
            max_body_bytes: 4 * 1024 * 1024,
            max_batch: 100,
            max_response_bytes: budget::MAX_RESPONSE_BYTES,
            body_timeout: DEFAULT_BODY_TIMEOUT,
        }
    }
}

/// What the route needs.
#[derive(Debug, Clone)]
pub struct DataPlaneRoute {
    /// The queue in front of the data plane.
    pub queue: CallQueue,
    /// Cancelled when the server stops.
    pub shutdown: CancellationToken,
    /// The transport limits.
    pub limits: DataPlaneLimits,
}

enum Slot {
    /// An invalid message: its error reply is known.
    Known(Box<RawValue>, RpcError),
    /// A queued request.
    Pending(Box<RawValue>, ReplyReceiver),
}

fn json_response(status: StatusCode, body: Vec<u8>) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

fn error_response(status: StatusCode, error: &RpcError) -> Response {
    json_response(status, budget::reply_bytes(RawValue::NULL, Err(error)))
}

fn too_large(limits: &DataPlaneLimits) -> Response {
    let error = RpcError::new(
        RpcError::SERVER_ERROR,
        format!(
            "request body too large: the bound is {} bytes",
            limits.max_body_bytes
        ),
    )
    .with_data(serde_json::json!({ "max_body_bytes": limits.max_body_bytes }));
    error_response(StatusCode::PAYLOAD_TOO_LARGE, &error)
}

/// The route handler.
pub async fn handle(State(route): State<Arc<DataPlaneRoute>>, request: Request<Body>) -> Response {
    let limits = route.limits;
    let bytes = match read_body(request, &limits).await {
        Ok(bytes) => bytes,
        Err(response) => return response,
    };
    let (raw_messages, batch) = match messages(&bytes, &limits) {
        Ok(messages) => messages,
        Err(response) => return response,
    };
    let caller = route.shutdown.child_token();
    let (calls, slots) = queued_calls(raw_messages, &route, &caller);
    drop(bytes);
    route.queue.submit(calls);
    if slots.is_empty() {
        return StatusCode::ACCEPTED.into_response();
    }

    // Dropped with this future when the caller leaves: its calls not yet run are cancelled.
    let departure = caller.drop_guard();
    let replies = assemble_replies(slots, &limits, batch).await;
    departure.disarm();
    json_response(StatusCode::OK, replies)
}

/// Reads the request body within the size bound (refused from `Content-Length` when declared)
/// and the body timeout; a failure is answered as its error response.
async fn read_body(request: Request<Body>, limits: &DataPlaneLimits) -> Result<Bytes, Response> {
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    if declared.is_some_and(|length| length > limits.max_body_bytes as u64) {
        return Err(too_large(limits));
    }
    let reading = Limited::new(request.into_body(), limits.max_body_bytes).collect();
    let Ok(read) = tokio::time::timeout(limits.body_timeout, reading).await else {
        return Err(body_timed_out(limits.body_timeout));
    };
    match read {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(error) if error.is::<LengthLimitError>() => Err(too_large(limits)),
        Err(_) => {
            let error = RpcError::new(
                RpcError::PARSE_ERROR,
                "parse error: the body could not be read",
            );
            Err(error_response(StatusCode::BAD_REQUEST, &error))
        }
    }
}

/// The body's messages and whether it is a batch; a body that is not JSON, an empty batch and
/// one over the batch bound are answered as their error response.
fn messages<'b>(
    bytes: &'b [u8],
    limits: &DataPlaneLimits,
) -> Result<(Vec<&'b RawValue>, bool), Response> {
    let Ok(body) = jsonrpc::parse_body(bytes) else {
        let error = RpcError::new(RpcError::PARSE_ERROR, "parse error: the body is not JSON");
        return Err(error_response(StatusCode::BAD_REQUEST, &error));
    };
    match body {
        RpcBody::Single(raw) => Ok((vec![raw], false)),
        RpcBody::Batch(items) if items.is_empty() => {
            let error = RpcError::new(RpcError::INVALID_REQUEST, "invalid request: empty batch");
            Err(error_response(StatusCode::OK, &error))
        }
        RpcBody::Batch(items) if items.len() > limits.max_batch => {
            let error = RpcError::new(
                RpcError::INVALID_REQUEST,
                format!(
                    "invalid request: a batch holds at most {} messages, this one {}",
                    limits.max_batch,
                    items.len()
                ),
            );
            Err(error_response(StatusCode::OK, &error))
        }
        RpcBody::Batch(items) => Ok((items, true)),
    }
}

/// Checks each message: requests and notifications become calls to queue, requests and
/// invalid messages a reply slot in order.
fn queued_calls(
    raw_messages: Vec<&RawValue>,
    route: &DataPlaneRoute,
    caller: &CancellationToken,
) -> (Vec<QueuedCall>, Vec<Slot>) {
    let mut calls = Vec::with_capacity(raw_messages.len());
    let mut slots = Vec::with_capacity(raw_messages.len());
    for raw in raw_messages {
        match jsonrpc::classify(raw) {
            Message::Request {
                id,
                method,
                params,
                params_raw,
            } => {
                let (queued, reply) = QueuedCall::request(DataCall {
                    method,
                    params,
                    params_raw,
                    expects_reply: true,
                    cancel: caller.clone(),
                });
                calls.push(queued);
                slots.push(Slot::Pending(id, reply));
            }
            Message::Notification {
                method,
                params,
                params_raw,
            } => {
                // Nobody waits for a notification, so its caller's departure does not cancel it;
                // the server's stop does.
                calls.push(QueuedCall::notification(DataCall {
                    method,
                    params,
                    params_raw,
                    expects_reply: false,
                    cancel: route.shutdown.child_token(),
                }));
            }
            Message::Invalid { id, code, reason } => {
                let error = if code == RpcError::INVALID_PARAMS {
                    RpcError::new(code, format!("invalid params: {reason}"))
                } else {
                    RpcError::new(code, format!("invalid request: {reason}"))
                };
                slots.push(Slot::Known(id, error));
            }
        }
    }
    (calls, slots)
}

/// Awaits the replies in order and assembles them within the response budget.
async fn assemble_replies(slots: Vec<Slot>, limits: &DataPlaneLimits, batch: bool) -> Vec<u8> {
    let rooms: Vec<usize> = slots
        .iter()
        .map(|slot| match slot {
            Slot::Known(id, error) => budget::reply_bytes(id, Err(error)).len(),
            Slot::Pending(id, _) => budget::budget_error_room(id, limits.max_response_bytes),
        })
        .collect();
    let mut assembler = Assembler::new(limits.max_response_bytes, batch, &rooms);
    for slot in slots {
        match slot {
            Slot::Known(id, error) => {
                assembler.push(&id, Err(&error));
            }
            Slot::Pending(id, reply) => {
                let outcome: Result<Value, RpcError> =
                    reply.await.unwrap_or_else(|_| Err(RpcError::cancelled()));
                assembler.push(&id, outcome.as_ref());
            }
        }
    }
    assembler.finish()
}

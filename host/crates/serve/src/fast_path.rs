//! A fast path for the one hot MCP request: a stateless `tools/call` at the 2026-07-28 revision.
//!
//! Why: the SDK serves each stateless request by building a one-shot service (tasks, channels,
//! cancellation trees, a second JSON conversion of the message for header checks), which costs
//! about three times what the answer itself does and kept `tools/call` throughput under the
//! target (10x json-server at concurrency 64 on a 2-core machine). Where the SDK ends: every other
//! MCP request (initialize, sessions, `server/discover`, `tools/list`, GET streams, DELETE,
//! notifications, batches) and every `tools/call` this module does not recognise exactly goes to
//! the SDK unchanged.
//!
//! A request is answered here only when all of these hold, each being what the SDK would accept
//! and answer `200` with a `CallToolResult` for:
//! - no `Mcp-Session-Id`; `Content-Type` is `application/json`; `Accept` names exactly
//!   `application/json` and `text/event-stream` with no parameters; `MCP-Protocol-Version`,
//!   `Mcp-Method` (`tools/call`) and `Mcp-Name` (the tool's name, as written) appear once each and
//!   no `Mcp-Param-*` header is sent; a body known to hold at most 64 KiB;
//! - the body is one object with exactly `jsonrpc: "2.0"`, an integer or string `id`, `method:
//!   "tools/call"` and `params` holding only `name`, `arguments` (an object) and `_meta`, whose
//!   `io.modelcontextprotocol/protocolVersion` is `2026-07-28` (equal to the header) and whose
//!   `io.modelcontextprotocol/clientCapabilities` is an object;
//! - the tool exists.
//!
//! The answer is built by the same [`McpSurface::call`] the SDK route uses and serialized through
//! the SDK's own message types, so both routes write the same bytes (a test compares them).

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rmcp::model::{NumberOrString, ServerJsonRpcMessage, ServerResult};
use rmcp::transport::streamable_http_server::StreamableHttpService;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tower::ServiceExt;

use crate::mcp::McpSurface;
use crate::mcp_intake::{self, Intake};
use crate::sessions::{self, CappedSessions};

/// The revision served here.
const REVISION: &str = "2026-07-28";
/// The largest body answered here (a tool call's arguments are small).
const MAX_FAST_BODY: u64 = 64 * 1024;

/// The `/mcp` route: the fast path in front of the SDK's service.
#[derive(Clone)]
pub struct McpRoute {
    /// The surface answering calls.
    pub surface: McpSurface,
    /// The SDK's Streamable HTTP service.
    pub sdk: StreamableHttpService<McpSurface, CappedSessions>,
    /// The SDK's sessions (batches ask a session's revision).
    pub sessions: Arc<CappedSessions>,
    /// The request-body bound.
    pub max_body_bytes: usize,
    /// How long reading a body may take.
    pub body_timeout: std::time::Duration,
}

/// The route handler: every `POST` body is read and checked first ([`mcp_intake`]); a batch is
/// answered there, a recognised call here, anything else by the SDK.
pub async fn handle(State(route): State<Arc<McpRoute>>, request: Request) -> Response {
    if request.method() != axum::http::Method::POST {
        return delegate(&route, request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match mcp_intake::read_body(body, route.max_body_bytes, route.body_timeout).await {
        Ok(bytes) => bytes,
        Err(response) => return response,
    };
    match mcp_intake::classify(&bytes) {
        Intake::Refused(response) => return response,
        Intake::Batch(items) => {
            let one = |request: Request| delegate(&route, request);
            return mcp_intake::batch(&route.sessions, &parts, items, one).await;
        }
        Intake::Single => {}
    }
    if bytes.len() as u64 <= MAX_FAST_BODY
        && headers_qualify(&parts.method, &parts.headers)
        && let Some(call) = recognise(&bytes, &parts.headers, &route.surface)
    {
        return answer(&route.surface, call).await;
    }
    let response = delegate(
        &route,
        Request::from_parts(parts, Body::from(bytes.clone())),
    )
    .await;
    mcp_intake::remap_undecodable(response, &bytes).await
}

/// Hands the request to the SDK; a session it refused at the cap is answered
/// [`sessions::refusal_response`] instead of the SDK's bare `500`.
async fn delegate(route: &McpRoute, request: Request) -> Response {
    let answer = async {
        match route.sdk.clone().oneshot(request).await {
            Ok(response) => response.map(Body::new),
            Err(never) => match never {},
        }
    };
    match sessions::track_refusal(answer).await {
        (_, Some(max)) => sessions::refusal_response(max),
        (response, None) => response,
    }
}

/// The sole value of a header, as text.
fn single<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    let mut values = headers.get_all(name).iter();
    let value = values.next()?;
    if values.next().is_some() {
        return None;
    }
    value.to_str().ok()
}

fn headers_qualify(method: &axum::http::Method, headers: &HeaderMap) -> bool {
    if method != axum::http::Method::POST || headers.contains_key("mcp-session-id") {
        return false;
    }
    if headers
        .keys()
        .any(|name| name.as_str().starts_with("mcp-param-"))
    {
        return false;
    }
    let content_type_ok = single(headers, header::CONTENT_TYPE.as_str()).is_some_and(|value| {
        let essence = value.split(';').next().unwrap_or("").trim();
        essence.eq_ignore_ascii_case("application/json")
    });
    let accept_ok = single(headers, header::ACCEPT.as_str()).is_some_and(|value| {
        let mut essences: Vec<String> = value
            .split(',')
            .map(|part| part.trim().to_ascii_lowercase())
            .collect();
        essences.sort();
        essences == ["application/json", "text/event-stream"]
    });
    content_type_ok
        && accept_ok
        && single(headers, "mcp-protocol-version") == Some(REVISION)
        && single(headers, "mcp-method") == Some("tools/call")
        && single(headers, "mcp-name").is_some()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Message<'a> {
    jsonrpc: &'a str,
    #[serde(borrow)]
    id: &'a RawValue,
    method: &'a str,
    #[serde(borrow)]
    params: Params<'a>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Params<'a> {
    name: &'a str,
    #[serde(default)]
    arguments: Option<Map<String, Value>>,
    #[serde(rename = "_meta", borrow)]
    meta: Meta<'a>,
}

#[derive(Deserialize)]
struct Meta<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow)]
    protocol_version: Option<&'a str>,
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities")]
    client_capabilities: Option<Map<String, Value>>,
}

/// A recognised call.
struct Call {
    id: NumberOrString,
    name: String,
    arguments: Option<Map<String, Value>>,
}

fn recognise(bytes: &Bytes, headers: &HeaderMap, surface: &McpSurface) -> Option<Call> {
    let message: Message<'_> = serde_json::from_slice(bytes).ok()?;
    if message.jsonrpc != "2.0" || message.method != "tools/call" {
        return None;
    }
    let id = match serde_json::from_str::<Value>(message.id.get()).ok()? {
        Value::Number(number) => NumberOrString::Number(number.as_i64()?),
        Value::String(text) => NumberOrString::String(text.into()),
        _ => return None,
    };
    let params = message.params;
    if params.meta.protocol_version != Some(REVISION) || params.meta.client_capabilities.is_none() {
        return None;
    }
    if single(headers, "mcp-name") != Some(params.name) || !surface.has_tool(params.name) {
        return None;
    }
    Some(Call {
        id,
        name: params.name.to_owned(),
        arguments: params.arguments,
    })
}

async fn answer(surface: &McpSurface, call: Call) -> Response {
    tracing::trace!(tool = %call.name, "tools/call answered on the fast path");
    let message = match surface.call(&call.name, call.arguments).await {
        Ok(result) => ServerJsonRpcMessage::response(ServerResult::CallToolResult(result), call.id),
        Err(error) => ServerJsonRpcMessage::error(error, Some(call.id)),
    };
    match serde_json::to_vec(&message) {
        Ok(body) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/json")],
            body,
        )
            .into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

//! A fast path for the one hot MCP request, `tools/call`: stateless at the 2026-07-28 revision,
//! and inside an initialize-based session (2024-11-05 to 2025-11-25).
//!
//! Why: the SDK serves each stateless request by building a one-shot service (tasks, channels,
//! cancellation trees, a second JSON conversion of the message for header checks), which costs
//! about three times what the answer itself does and kept `tools/call` throughput under the
//! target (10x json-server at concurrency 8 and 64 on a 2-core machine). A call inside a session
//! costs more still: it travels from the HTTP task to the session's worker task twice (a channel
//! for the reply stream, then the message), on to the session's service task, which spawns a task
//! for the handler, and back the same way to an SSE stream, five task hand-offs for one answer.
//! Where the SDK ends: every other MCP request (initialize, `server/discover`, `tools/list`,
//! notifications, GET streams, DELETE, batches) and every `tools/call` this module does not
//! recognise exactly goes to the SDK unchanged.
//!
//! A request is answered here only when all of these hold, each being what the SDK would accept
//! and answer `200` with a `CallToolResult` for:
//! - `Content-Type` is `application/json`; `Accept` names exactly `application/json` and
//!   `text/event-stream` with no parameters; a body known to hold at most 64 KiB;
//! - stateless: no `Mcp-Session-Id`; `MCP-Protocol-Version`, `Mcp-Method` (`tools/call`) and
//!   `Mcp-Name` (the tool's name, as written) appear once each and no `Mcp-Param-*` header is
//!   sent; the body is one object with exactly `jsonrpc: "2.0"`, an integer or string `id`,
//!   `method: "tools/call"` and `params` holding only `name`, `arguments` (an object) and
//!   `_meta`, whose `io.modelcontextprotocol/protocolVersion` is `2026-07-28` (equal to the
//!   header) and whose `io.modelcontextprotocol/clientCapabilities` is an object;
//! - in a session: one `Mcp-Session-Id` naming an open session whose `initialize` was answered,
//!   and one `MCP-Protocol-Version` naming the revision it negotiated (the SDK reads no `Mcp-*`
//!   request header below 2026-07-28, and neither does this path); the body as above, with
//!   `_meta` absent or holding only a `progressToken` (nothing reports progress on a call);
//! - the tool exists.
//!
//! The answer is built by the same [`McpSurface::call`] the SDK route uses and serialized through
//! the SDK's own message types, into one buffer sized for it. A stateless call is answered as JSON, byte for byte the SDK's
//! answer; a session call as an SSE stream of one event carrying the same message, framed as
//! the SDK frames an event (a test compares them), without the SDK's event ids and priming
//! event: those let a client resume a stream that broke before its answer, and this stream is
//! its answer, written whole. Every request naming a session counts as its activity
//! ([`CappedSessions::touch`]), whichever route answers it. Either route hands on the order the
//! call's arguments were written in ([`SentOrder`]; to the SDK's handler in the request's
//! parts), which the argument object does not keep.

use std::sync::{Arc, LazyLock};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rmcp::model::{CallToolResult, NumberOrString, ServerJsonRpcMessage, ServerResult};
use rmcp::transport::streamable_http_server::StreamableHttpService;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tower::ServiceExt;

use crate::answer_cache::{AnswerCache, Reused, Shape};
use crate::arguments::SentOrder;
use crate::mcp::McpSurface;
use crate::mcp_intake::{self, Intake};
use crate::sessions::{self, CappedSessions};

/// The stateless revision served here.
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
    /// The SDK's sessions (batches ask a session's revision; calls in a session count as its
    /// activity).
    pub sessions: Arc<CappedSessions>,
    /// Answers kept to answer the same read again ([`crate::answer_cache`]).
    pub answers: Arc<AnswerCache>,
    /// The request-body bound.
    pub max_body_bytes: usize,
    /// How long reading a body may take.
    pub body_timeout: std::time::Duration,
}

/// Where a request may be answered here: stateless, or inside an open session at the revision it
/// negotiated (one before 2026-07-28: ISO dates compare as text).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Lane {
    Stateless,
    Session { revision: Arc<str> },
}

/// The route handler: every request naming a session counts as its activity; every `POST` body
/// is read and checked first ([`mcp_intake`]); a batch is answered there, a recognised call here,
/// anything else by the SDK.
pub async fn handle(State(route): State<Arc<McpRoute>>, request: Request) -> Response {
    let (mut parts, body) = request.into_parts();
    let heads = Heads::read(&parts.headers);
    let lane = match heads.session.single() {
        Some(id) => route
            .sessions
            .touch(id)
            .filter(|revision| &**revision < REVISION)
            .map(|revision| Lane::Session { revision }),
        None if heads.session.present() => None,
        None => Some(Lane::Stateless),
    };
    if parts.method != axum::http::Method::POST {
        let method = parts.method.clone();
        let response = delegate(&route, Request::from_parts(parts, body)).await;
        return crate::mcp::session_delete_status(&method, response);
    }
    let bytes = match mcp_intake::read_body(body, route.max_body_bytes, route.body_timeout).await {
        Ok(bytes) => bytes,
        Err(response) => return response,
    };
    // A recognised call is one JSON object, which the intake check passes: it reads only bodies
    // the fast path leaves, so a call's body is parsed once.
    if let Some(lane) = lane
        && bytes.len() as u64 <= MAX_FAST_BODY
        && headers_qualify(&lane, &heads)
        && let Some(call) = recognise(&bytes, &lane, &heads, &route.surface)
        && let Some(response) = answer(&route, call, &lane).await
    {
        return response;
    }
    match mcp_intake::classify(&bytes) {
        Intake::Refused(response) => return response,
        Intake::Batch(items) => {
            let one = |request: Request| delegate(&route, request);
            return mcp_intake::batch(&route.sessions, &parts, items, one).await;
        }
        Intake::Single => {}
    }
    // The order the call's arguments were written in, which the SDK's parse drops: the
    // handler reads it from the request's parts ([`McpSurface`]'s `call_tool`).
    if let Some(sent) = SentOrder::of_message(&bytes) {
        parts.extensions.insert(sent);
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

/// The values a header was sent with: none, one, or more than one.
#[derive(Debug, Default, Clone, Copy)]
enum Slot<'a> {
    #[default]
    Absent,
    One(&'a HeaderValue),
    Many,
}

impl<'a> Slot<'a> {
    fn add(&mut self, value: &'a HeaderValue) {
        *self = match self {
            Self::Absent => Self::One(value),
            _ => Self::Many,
        };
    }

    /// The sole value, as text.
    fn single(self) -> Option<&'a str> {
        match self {
            Self::One(value) => value.to_str().ok(),
            _ => None,
        }
    }

    fn present(self) -> bool {
        !matches!(self, Self::Absent)
    }
}

/// The request headers this path reads, gathered in one pass over the headers (a look-up by a
/// name's text parses and hashes the name each time; six of them cost more than the pass).
#[derive(Debug, Default)]
struct Heads<'a> {
    content_type: Slot<'a>,
    accept: Slot<'a>,
    session: Slot<'a>,
    protocol_version: Slot<'a>,
    method: Slot<'a>,
    name: Slot<'a>,
    /// Whether any `Mcp-Param-*` header was sent.
    params: bool,
}

impl<'a> Heads<'a> {
    fn read(headers: &'a HeaderMap) -> Self {
        let mut heads = Self::default();
        for (name, value) in headers {
            let slot = if name == header::CONTENT_TYPE {
                &mut heads.content_type
            } else if name == header::ACCEPT {
                &mut heads.accept
            } else {
                match name.as_str() {
                    "mcp-session-id" => &mut heads.session,
                    "mcp-protocol-version" => &mut heads.protocol_version,
                    "mcp-method" => &mut heads.method,
                    "mcp-name" => &mut heads.name,
                    other => {
                        heads.params |= other.starts_with("mcp-param-");
                        continue;
                    }
                }
            };
            slot.add(value);
        }
        heads
    }
}

fn headers_qualify(lane: &Lane, heads: &Heads<'_>) -> bool {
    // A header value read as text holds no whitespace but spaces and tabs, which `trim_ascii`
    // trims as `trim` would; its parts are split as bytes (all ASCII).
    let content_type_ok = heads.content_type.single().is_some_and(|value| {
        let essence = value.as_bytes().split(|&byte| byte == b';').next();
        essence.is_some_and(|essence| {
            essence
                .trim_ascii()
                .eq_ignore_ascii_case(b"application/json")
        })
    });
    let accept_ok = heads.accept.single().is_some_and(accepts_json_and_sse);
    if !content_type_ok || !accept_ok {
        return false;
    }
    match lane {
        Lane::Session { revision } => heads.protocol_version.single() == Some(&**revision),
        Lane::Stateless => {
            !heads.params
                && heads.protocol_version.single() == Some(REVISION)
                && heads.method.single() == Some("tools/call")
                && heads.name.single().is_some()
        }
    }
}

/// Whether an `Accept` value names exactly `application/json` and `text/event-stream` (in either
/// order, any case, no parameters), read in place.
fn accepts_json_and_sse(value: &str) -> bool {
    let (mut json, mut event_stream, mut parts) = (false, false, 0);
    for part in value.as_bytes().split(|&byte| byte == b',') {
        let part = part.trim_ascii();
        parts += 1;
        if part.eq_ignore_ascii_case(b"application/json") {
            json = true;
        } else if part.eq_ignore_ascii_case(b"text/event-stream") {
            event_stream = true;
        } else {
            return false;
        }
    }
    parts == 2 && json && event_stream
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
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    #[serde(rename = "_meta", borrow, default)]
    meta: Option<&'a RawValue>,
}

/// The `_meta` of a stateless call: its negotiation.
#[derive(Deserialize)]
struct StatelessMeta<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow)]
    protocol_version: Option<&'a str>,
    /// Checked to be an object, not read.
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities", borrow)]
    client_capabilities: Option<&'a RawValue>,
}

/// The `_meta` a call in a session may carry here: a progress token (a string or an integer).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SessionMeta {
    #[serde(rename = "progressToken")]
    _progress_token: Option<NumberOrString>,
}

/// A recognised call.
struct Call<'a> {
    id: NumberOrString,
    name: &'a str,
    /// The tool's catalog position.
    position: usize,
    /// The arguments as written (`None` when absent or `null`).
    arguments: Option<&'a RawValue>,
}

impl Call<'_> {
    /// The arguments' text, the key of a kept answer (empty when absent).
    fn arguments_text(&self) -> &str {
        self.arguments.map_or("", RawValue::get)
    }

    /// The arguments as members; `None` when they are not an object (the SDK answers that).
    fn members(&self) -> Option<Option<Map<String, Value>>> {
        match self.arguments {
            None => Some(None),
            Some(raw) => serde_json::from_str(raw.get()).ok().map(Some),
        }
    }
}

fn recognise<'a>(
    bytes: &'a Bytes,
    lane: &Lane,
    heads: &Heads<'_>,
    surface: &McpSurface,
) -> Option<Call<'a>> {
    // Read as text once: parsing bytes checks each string's UTF-8 again (with the same verdict).
    let message: Message<'_> = serde_json::from_str(std::str::from_utf8(bytes).ok()?).ok()?;
    if message.jsonrpc != "2.0" || message.method != "tools/call" {
        return None;
    }
    let id = request_id(message.id)?;
    let params = message.params;
    let meta_ok = match lane {
        Lane::Stateless => {
            let meta: StatelessMeta<'_> = serde_json::from_str(params.meta?.get()).ok()?;
            meta.protocol_version == Some(REVISION)
                && meta
                    .client_capabilities
                    .is_some_and(|capabilities| capabilities.get().starts_with('{'))
                && heads.name.single() == Some(params.name)
        }
        Lane::Session { .. } => params
            .meta
            .is_none_or(|meta| serde_json::from_str::<SessionMeta>(meta.get()).is_ok()),
    };
    if !meta_ok
        || params
            .arguments
            .is_some_and(|raw| !raw.get().starts_with('{'))
    {
        return None;
    }
    Some(Call {
        id,
        name: params.name,
        position: surface.position(params.name)?,
        arguments: params.arguments,
    })
}

/// A JSON-RPC id this path echoes: a string, or a number that is an `i64` (a fraction, an
/// exponent or a number past `i64` goes to the SDK).
fn request_id(raw: &RawValue) -> Option<NumberOrString> {
    let text = raw.get();
    if text.starts_with('"') {
        let text: String = serde_json::from_str(text).ok()?;
        Some(NumberOrString::String(text.into()))
    } else {
        serde_json::from_str::<i64>(text)
            .ok()
            .map(NumberOrString::Number)
    }
}

/// How a lane's answer is shaped.
fn shape(lane: &Lane) -> Shape {
    match lane {
        Lane::Stateless => Shape::Stateless,
        Lane::Session { .. } => Shape::Legacy,
    }
}

/// The framing around a shape's JSON message.
fn framing(shape: Shape) -> (&'static [u8], &'static [u8]) {
    match shape {
        Shape::Stateless => (b"", b""),
        Shape::Legacy => (b"data: ", b"\n\n"),
    }
}

/// The answer to a recognised call: a kept answer while the backend's generation holds, else
/// the surface's (kept when the generation did not move meanwhile). `None` (nothing done yet):
/// the arguments are not an object, for the SDK to answer.
async fn answer(route: &McpRoute, call: Call<'_>, lane: &Lane) -> Option<Response> {
    let started = std::time::Instant::now();
    let shape = shape(lane);
    let generation = route.surface.answer_generation(call.name);
    if let Some(generation) = generation
        && let Some(reused) =
            route
                .answers
                .get(call.position, shape, call.arguments_text(), generation)
    {
        tracing::trace!(tool = %call.name, "tools/call answered on the fast path from a kept answer");
        route
            .surface
            .journal_reused(call.position, &reused.note, started);
        let encoded = reuse(&call.id, shape, &reused.tail);
        return Some(respond(shape, encoded));
    }
    let members = call.members()?;
    let sent = call.arguments.and_then(|raw| SentOrder::of_text(raw.get()));
    tracing::trace!(tool = %call.name, "tools/call answered on the fast path");
    let answered = route.surface.call_noted(call.name, members, sent).await;
    let mut size = 256;
    let (message, note) = match answered {
        Ok((result, note)) => {
            size += encoded_size_hint(&result);
            let mut result = ServerResult::CallToolResult(result);
            if shape == Shape::Legacy {
                // What the SDK's handler does for a peer that negotiated a revision before
                // 2026-07-28: the result keeps that revision's shape.
                result.strip_result_type_for_legacy_peer();
                result.strip_non_object_output_for_legacy_peer();
            }
            (
                ServerJsonRpcMessage::response(result, call.id.clone()),
                Some(note),
            )
        }
        Err(error) => (
            ServerJsonRpcMessage::error(error, Some(call.id.clone())),
            None,
        ),
    };
    let (prefix, suffix) = framing(shape);
    let encoded = encode(&message, prefix, suffix, size);
    if let (Ok(encoded), Some(generation), Some(note)) = (&encoded, generation, note)
        && route.surface.answer_generation(call.name) == Some(generation)
        && let Some(tail) = tail_after_id(encoded, &call.id, shape)
    {
        let tail = Bytes::copy_from_slice(tail);
        let reused = Reused {
            generation,
            tail,
            note,
        };
        route
            .answers
            .put(call.position, shape, call.arguments_text(), reused);
    }
    Some(respond(shape, encoded))
}

/// The head of an answer up to its id: the framing's prefix and `{"jsonrpc":"2.0","id":`.
const fn head(shape: Shape) -> &'static [u8] {
    match shape {
        Shape::Stateless => b"{\"jsonrpc\":\"2.0\",\"id\":",
        Shape::Legacy => b"data: {\"jsonrpc\":\"2.0\",\"id\":",
    }
}

/// What follows the id in an encoded answer to a call of that id, when the answer is spelled
/// [`head`], the id as [`reuse`] writes it, then `,"result":`: the part a kept answer reuses.
fn tail_after_id<'a>(encoded: &'a [u8], id: &NumberOrString, shape: Shape) -> Option<&'a [u8]> {
    let rest = encoded.strip_prefix(head(shape))?;
    let id = serde_json::to_vec(id).ok()?;
    let tail = rest.strip_prefix(id.as_slice())?;
    tail.starts_with(b",\"result\":").then_some(tail)
}

/// A kept answer around a call's id.
fn reuse(id: &NumberOrString, shape: Shape, tail: &[u8]) -> serde_json::Result<Vec<u8>> {
    let head = head(shape);
    let mut out = Vec::with_capacity(head.len() + 24 + tail.len());
    out.extend_from_slice(head);
    serde_json::to_writer(&mut out, id)?;
    out.extend_from_slice(tail);
    Ok(out)
}

/// The `200` carrying an encoded answer as its shape is sent.
fn respond(shape: Shape, encoded: serde_json::Result<Vec<u8>>) -> Response {
    let Ok(encoded) = encoded else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    let mut response = Response::new(Body::from(encoded));
    *response.headers_mut() = answer_headers(shape).clone();
    response
}

/// The headers of an answer of this shape, made once (a copy of a made map costs less than
/// hashing each name into a new one).
fn answer_headers(shape: Shape) -> &'static HeaderMap {
    static STATELESS: LazyLock<HeaderMap> = LazyLock::new(|| {
        HeaderMap::from_iter([(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )])
    });
    static LEGACY: LazyLock<HeaderMap> = LazyLock::new(|| {
        HeaderMap::from_iter([
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/event-stream"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
            (
                header::HeaderName::from_static("x-accel-buffering"),
                HeaderValue::from_static("no"),
            ),
        ])
    });
    match shape {
        Shape::Stateless => &STATELESS,
        Shape::Legacy => &LEGACY,
    }
}

/// The message's compact JSON between `prefix` and `suffix`, written into one buffer sized for it
/// (`size`, a guess: it grows past it) rather than grown from 128 bytes by doubling. A session's
/// answer is one SSE event framed as the SDK frames an event without an id: `data: `, the compact
/// JSON (which holds no line break), then a blank line.
fn encode(
    message: &ServerJsonRpcMessage,
    prefix: &[u8],
    suffix: &[u8],
    size: usize,
) -> serde_json::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(size);
    out.extend_from_slice(prefix);
    serde_json::to_writer(&mut out, message)?;
    out.extend_from_slice(suffix);
    Ok(out)
}

/// About how many bytes a result's text takes in JSON (a quarter more for escapes: JSON text quoted again).
fn encoded_size_hint(result: &CallToolResult) -> usize {
    let text: usize = result
        .content
        .iter()
        .filter_map(|block| block.as_text())
        .map(|text| text.text.len())
        .sum();
    text + text / 4
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::ContentBlock;

    fn message(id: NumberOrString) -> ServerJsonRpcMessage {
        let text = r#"{"status": 200, "body": {"title": "caf\u00e9 \"quoted\"\n"}}"#;
        let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
        result.meta = Some(crate::mcp::provenance());
        ServerJsonRpcMessage::response(ServerResult::CallToolResult(result), id)
    }

    #[test]
    fn a_kept_answer_around_another_id_is_the_sdks_answer_to_that_id() {
        let ids = [
            NumberOrString::Number(7),
            NumberOrString::Number(-3),
            NumberOrString::String("call \"1\" é".into()),
        ];
        for shape in [Shape::Stateless, Shape::Legacy] {
            let (prefix, suffix) = framing(shape);
            let first = encode(&message(NumberOrString::Number(1)), prefix, suffix, 0).unwrap();
            let tail = tail_after_id(&first, &NumberOrString::Number(1), shape).unwrap();
            for id in &ids {
                let sdk = encode(&message(id.clone()), prefix, suffix, 0).unwrap();
                assert_eq!(
                    String::from_utf8(reuse(id, shape, tail).unwrap()).unwrap(),
                    String::from_utf8(sdk).unwrap()
                );
            }
        }
    }

    #[test]
    fn headers_are_read_in_one_pass_as_single_values() {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        headers.append("mcp-name", HeaderValue::from_static("get_x"));
        headers.append("mcp-name", HeaderValue::from_static("get_y"));
        headers.insert(
            "mcp-method",
            HeaderValue::from_bytes(b"tools/\xffcall").unwrap(),
        );
        headers.insert("mcp-session-id", HeaderValue::from_static("s1"));
        let heads = Heads::read(&headers);
        assert_eq!(heads.content_type.single(), Some("application/json"));
        assert_eq!(heads.session.single(), Some("s1"));
        assert!(
            heads.name.present() && heads.name.single().is_none(),
            "sent twice"
        );
        assert!(
            heads.method.present() && heads.method.single().is_none(),
            "not text"
        );
        assert!(!heads.accept.present() && !heads.params);
        headers.insert("mcp-param-id", HeaderValue::from_static("1"));
        assert!(Heads::read(&headers).params);
    }

    #[test]
    fn an_answer_spelled_otherwise_is_not_kept() {
        let (prefix, suffix) = framing(Shape::Stateless);
        let first = encode(&message(NumberOrString::Number(1)), prefix, suffix, 0).unwrap();
        assert!(tail_after_id(&first, &NumberOrString::Number(2), Shape::Stateless).is_none());
        assert!(tail_after_id(&first, &NumberOrString::Number(1), Shape::Legacy).is_none());
        let reordered = br#"{"id":1,"jsonrpc":"2.0","result":{}}"#;
        assert!(tail_after_id(reordered, &NumberOrString::Number(1), Shape::Stateless).is_none());
        let error = br#"{"jsonrpc":"2.0","id":1,"error":{}}"#;
        assert!(tail_after_id(error, &NumberOrString::Number(1), Shape::Stateless).is_none());
    }
}

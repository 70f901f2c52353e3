//! The backend boundary: where answers come from.
//!
//! The server in this crate speaks HTTP, MCP and JSON-RPC; it never decides what a tool answers or
//! what a data-plane method does. Two traits carry those decisions:
//!
//! - [`ToolBackend`]: the MCP tool catalog (names, descriptions, input schemas, annotations), the
//!   server's name and instructions, the environment card, and the answer to one tool call. The
//!   `rea-backends` crate implements it for replay and for the state.
//! - [`DataPlane`]: the answer to one `/agentenv` JSON-RPC call. The server has already validated
//!   the message, queued it behind every earlier call (calls run one at a time, in arrival order,
//!   a batch as one unit) and will measure the reply against the response budget; the data plane
//!   only computes a result or a JSON-RPC error. [`ReplayDataPlane`] answers every method
//!   `-32601 method not found: <method>`, as a replay environment must.
//!
//! Both traits are object safe (`Arc<dyn ToolBackend>`, `Arc<dyn DataPlane>`): their async
//! methods return a boxed future ([`BoxFuture`]).

use std::future::Future;
use std::pin::Pin;

use serde::Serialize;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

pub use crate::journal::AnswerSource;

/// A boxed, sendable future: what the backend traits' async methods return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// One MCP tool as `tools/list` advertises it.
///
/// The card lists the same `name`, `description` and `inputSchema` (without annotations); the
/// backend builds the card, and the server checks at startup that both agree
/// ([`crate::check_card_agrees`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDescriptor {
    /// The MCP tool name (`get_users_by_id`): at most 128 characters of `[A-Za-z0-9_.-]`.
    pub name: String,
    /// The description, starting with the untrusted-catalog warning.
    pub description: String,
    /// The JSON Schema of the arguments: an object schema with `properties`, `required` and
    /// `additionalProperties: false`. The server refuses arguments the schema does not name, lacks
    /// a required one, or of a type the schema does not allow, before the backend is called.
    pub input_schema: Map<String, Value>,
    /// MCP tool annotations (`readOnlyHint`, `destructiveHint`, `idempotentHint`,
    /// `openWorldHint`), exactly the members to advertise; `None` advertises none.
    pub annotations: Option<Map<String, Value>>,
    /// The tool's `_meta` in `tools/list` (the card does not carry it); `None` advertises none.
    pub meta: Option<Map<String, Value>>,
}

/// The answer to one tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolAnswer {
    /// The result document as JSON text: the tool result's one text content (for replay:
    /// `{status, content_type, body, replay}` spelled exactly as the backend wrote it; for an error,
    /// `{"error": {"code", "message", …}}`).
    pub text: String,
    /// The same document as `structuredContent`, when the backend offers it (an object).
    pub structured: Option<Value>,
    /// Whether the call failed (`isError: true` on the MCP result).
    pub is_error: bool,
    /// Where the answer came from (the request journal's `source`).
    pub source: AnswerSource,
}

impl ToolAnswer {
    /// A successful answer from JSON text (no structured content).
    pub fn text(text: String) -> Self {
        Self {
            text,
            structured: None,
            is_error: false,
            source: AnswerSource::Unspecified,
        }
    }

    /// The same answer, saying where it came from.
    pub fn from_source(mut self, source: AnswerSource) -> Self {
        self.source = source;
        self
    }

    /// A successful answer from a JSON value (no structured content).
    pub fn ok(value: &Value) -> Self {
        Self::text(value.to_string())
    }

    /// A tool error whose document is `{"error": error}`.
    pub fn error(error: Value) -> Self {
        Self {
            text: serde_json::json!({ "error": error }).to_string(),
            structured: None,
            is_error: true,
            source: AnswerSource::Refused,
        }
    }
}

/// Where MCP answers come from: the tool catalog, the card and the tool calls.
///
/// Implementations must be cheap to query: `tools()`, `card()` and `instructions()` are called on
/// every discovery request, so return data built once.
pub trait ToolBackend: Send + Sync + 'static {
    /// The served environment name (`ENVIRONMENT_NAME`, else the manifest's `name`); the MCP
    /// `serverInfo.name` and the card's `name`.
    fn server_name(&self) -> &str;

    /// The MCP server instructions (REA's untrusted-content instructions and the catalog
    /// warning).
    fn instructions(&self) -> &str;

    /// Every tool, in catalog order.
    fn tools(&self) -> &[ToolDescriptor];

    /// The environment card document served at `GET /.well-known/agent-env.json`.
    fn card(&self) -> &Value;

    /// What the status page shows now (`GET /`): how it serves, each tool's source, the
    /// coverage and the live state. The default lists the tools alone.
    fn status(&self) -> crate::status::StatusPage {
        crate::status::StatusPage {
            serving: String::new(),
            tools: self
                .tools()
                .iter()
                .map(|tool| crate::status::ToolStatus {
                    name: tool.name.clone(),
                    kind: String::new(),
                    source: String::new(),
                })
                .collect(),
            ..crate::status::StatusPage::default()
        }
    }

    /// Answers one call of the tool `name` (one of [`ToolBackend::tools`]) with arguments the
    /// server already checked against the tool's input schema.
    fn call_tool<'a>(
        &'a self,
        name: &'a str,
        arguments: Map<String, Value>,
    ) -> BoxFuture<'a, ToolAnswer>;

    /// [`ToolBackend::call_tool`] for a caller whose argument order is known (`sent`: the
    /// arguments' names as the caller wrote them; the object keeps no order), for answers that
    /// repeat the call as sent. The default ignores the order.
    fn call_tool_sent<'a>(
        &'a self,
        name: &'a str,
        arguments: Map<String, Value>,
        sent: crate::arguments::SentOrder,
    ) -> BoxFuture<'a, ToolAnswer> {
        let _ = sent;
        self.call_tool(name, arguments)
    }

    /// Whether the answers of the tool `name` may be reused, and until when: `Some(generation)`
    /// vouches that, while this method keeps giving the same generation, a call of the tool with
    /// equal arguments answers the same (text, error flag and source) and changes nothing, so the
    /// server may answer it again without calling ([`crate::answer_cache`]). The generation must
    /// change before any change a call could observe is visible to a call. `None` (the default):
    /// every call is answered by [`ToolBackend::call_tool`].
    fn answer_generation(&self, name: &str) -> Option<u64> {
        let _ = name;
        None
    }
}

/// A JSON-RPC error object (`{code, message, data?}`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RpcError {
    /// The JSON-RPC error code (`-32601`, `-32602`, `-32000`, …).
    pub code: i64,
    /// One sentence.
    pub message: String,
    /// Structured detail (`{"reason": "cancelled"}`, `{"path": "/rea_state/…"}`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl RpcError {
    /// `-32700`: the body is not JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// `-32600`: the message is not a valid JSON-RPC request.
    pub const INVALID_REQUEST: i64 = -32600;
    /// `-32601`: the method is not served.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// `-32602`: the params are invalid.
    pub const INVALID_PARAMS: i64 = -32602;
    /// `-32603`: an internal error.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// `-32000`: a server error (body too large, response budget, cancelled, download failed).
    pub const SERVER_ERROR: i64 = -32000;

    /// An error with a code and message.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// Attaches structured detail.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// `-32601 method not found: <method>`.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(
            Self::METHOD_NOT_FOUND,
            format!("method not found: {method}"),
        )
    }

    /// `-32000 cancelled` with `data.reason: "cancelled"`: the call was cancelled by the server's
    /// stop or its caller's departure, before or while it ran.
    pub fn cancelled() -> Self {
        Self::new(Self::SERVER_ERROR, "cancelled")
            .with_data(serde_json::json!({ "reason": "cancelled" }))
    }
}

/// One data-plane call, as the queue hands it to the [`DataPlane`].
#[derive(Debug, Clone)]
pub struct DataCall {
    /// The JSON-RPC method (`data/reset`, `data/add`, `data/get`, or anything a caller sent).
    pub method: String,
    /// The params: an object or an array (validated), or `None` when the message had none.
    pub params: Option<Value>,
    /// The same params exactly as the caller wrote them, when the call came over the wire: a
    /// data plane that must see number spellings (exact numbers only) reads this text.
    pub params_raw: Option<std::sync::Arc<str>>,
    /// Whether the caller expects a reply (false for a notification, whose result is dropped).
    pub expects_reply: bool,
    /// Cancelled when the server stops or the caller leaves before its reply. A long call (a
    /// download) must watch it and end promptly, leaving the state unchanged; the queue also
    /// drops the call's future when it fires and answers [`RpcError::cancelled`].
    pub cancel: CancellationToken,
}

/// Where `/agentenv` answers come from.
///
/// Calls are serialized by the server: `handle` is never called while another call runs, so an
/// implementation may assume exclusive access to its state for the duration of one call.
pub trait DataPlane: Send + Sync + 'static {
    /// Runs one call and returns its result or a JSON-RPC error.
    fn handle(&self, call: DataCall) -> BoxFuture<'_, Result<Value, RpcError>>;

    /// The `state` member of the stopped document (`{"served": false, "reason": "replay-only"}`,
    /// `{"served": true, "evidence_id": …}`, …).
    fn state_report(&self) -> Value;
}

/// The replay data plane: it carries no operations, so every method is `-32601 method not found:
/// <method>`.
#[derive(Debug, Clone)]
pub struct ReplayDataPlane {
    state_report: Value,
}

impl ReplayDataPlane {
    /// A replay data plane whose stopped document reports `state` as given (for `--replay-only`:
    /// `{"served": false, "reason": "replay-only"}`).
    pub fn new(state_report: Value) -> Self {
        Self { state_report }
    }

    /// The replay data plane of `--replay-only`.
    pub fn replay_only() -> Self {
        Self::new(serde_json::json!({ "served": false, "reason": "replay-only" }))
    }
}

impl DataPlane for ReplayDataPlane {
    fn handle(&self, call: DataCall) -> BoxFuture<'_, Result<Value, RpcError>> {
        Box::pin(std::future::ready(Err(RpcError::method_not_found(
            &call.method,
        ))))
    }

    fn state_report(&self) -> Value {
        self.state_report.clone()
    }
}

//! The MCP surface: an `rmcp` [`ServerHandler`] over a [`ToolBackend`], and the Streamable HTTP
//! service that mounts it at `/mcp`.
//!
//! `rmcp` owns the protocol: Streamable HTTP (POST, GET streams, DELETE), sessions for the
//! initialize-based 2025 revisions, stateless `server/discover` and per-request negotiation for
//! 2026-07-28, version negotiation, JSON-RPC framing and the 4 MiB request-body bound. This module
//! owns what rea promises on top: the catalog advertised as the backend gives it, arguments
//! checked against the input schema before the backend runs (unknown, missing or mistyped
//! arguments are a tool error, not an omitted parameter), `_meta.provenance` on every tool
//! result, argument errors included, and recorded credentials redacted ([`crate::redact`]).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use axum::http::{Method, StatusCode};
use axum::response::Response;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, MetaObject, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::answer_cache::CallNote;
use crate::arguments::{self, SentOrder};
use crate::backend::{ToolAnswer, ToolBackend};
use crate::journal::{Journal, JournalTime, members_digest};
use crate::schema::CompiledSchema;
use crate::sessions::CappedSessions;

/// The `_meta.provenance` every tool result carries: replayed content is target content.
pub fn provenance() -> MetaObject {
    let mut meta = Map::new();
    meta.insert(
        "provenance".to_owned(),
        json!({ "untrusted_content": true, "source": "analysis_target" }),
    );
    MetaObject(meta)
}

/// The MCP server handler: one per process, cloned (cheaply) for every session and stateless
/// request.
#[derive(Clone)]
pub struct McpSurface {
    inner: Arc<Surface>,
}

struct Surface {
    backend: Arc<dyn ToolBackend>,
    /// Answers carry recorded credentials as recorded (`--keep-credentials`); else redacted.
    keep_credentials: bool,
    tools: Vec<Tool>,
    /// Each tool's name, shared by its journal entries.
    names: Vec<Arc<str>>,
    /// Each tool's input schema compiled, at its first call.
    checks: Vec<OnceLock<CompiledSchema>>,
    index: HashMap<String, usize>,
    info: ServerConfig,
    journal: Option<Arc<Journal>>,
}

impl McpSurface {
    /// Builds the surface from a backend: the catalog is converted to MCP tools once.
    pub fn new(backend: Arc<dyn ToolBackend>) -> Self {
        Self::journaled(backend, None)
    }

    /// [`McpSurface::new`], recording every tool call in the journal.
    pub fn journaled(backend: Arc<dyn ToolBackend>, journal: Option<Arc<Journal>>) -> Self {
        let tools: Vec<Tool> = backend
            .tools()
            .iter()
            .map(|descriptor| {
                let mut tool = Tool::new(
                    descriptor.name.clone(),
                    descriptor.description.clone(),
                    Arc::new(descriptor.input_schema.clone()),
                );
                tool.annotations = descriptor.annotations.as_ref().map(annotations);
                tool.meta = descriptor.meta.clone().map(MetaObject);
                tool
            })
            .collect();
        let index = tools
            .iter()
            .enumerate()
            .map(|(position, tool)| (tool.name.to_string(), position))
            .collect();
        let info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                backend.server_name(),
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(backend.instructions());
        Self {
            inner: Arc::new(Surface {
                backend,
                keep_credentials: false,
                checks: tools.iter().map(|_| OnceLock::new()).collect(),
                names: tools.iter().map(|tool| Arc::from(&*tool.name)).collect(),
                tools,
                index,
                info,
                journal,
            }),
        }
    }

    /// The same surface, answering recorded credentials as recorded (`keep`) or redacted
    /// ([`crate::redact`], the default). Call before the surface is cloned.
    pub fn keeping_credentials(mut self, keep: bool) -> Self {
        if let Some(surface) = Arc::get_mut(&mut self.inner) {
            surface.keep_credentials = keep;
        }
        self
    }

    /// Whether a tool of that name is served.
    pub fn has_tool(&self, name: &str) -> bool {
        self.inner.index.contains_key(name)
    }

    /// The Streamable HTTP service to mount at `/mcp`.
    ///
    /// `shutdown` ends every session and open stream when cancelled. `Host`/`Origin` checks are
    /// left to rea's own guard, which covers every route the same way
    /// ([`crate::guard`]); the request body bound is `max_body_bytes`; `sessions` caps and expires
    /// the sessions ([`crate::sessions`]).
    pub fn http_service(
        &self,
        shutdown: CancellationToken,
        max_body_bytes: usize,
        sessions: Arc<CappedSessions>,
    ) -> StreamableHttpService<McpSurface, CappedSessions> {
        let config = StreamableHttpServerConfig::default()
            .with_json_response(true)
            .with_cancellation_token(shutdown)
            .with_max_request_body_bytes(max_body_bytes)
            .disable_allowed_hosts()
            .disable_allowed_origins();
        let surface = self.clone();
        StreamableHttpService::new(move || Ok(surface.clone()), sessions, config)
    }

    /// Where the tool of that name is in the catalog, when it is served.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.inner.index.get(name).copied()
    }

    /// How many tools are served.
    pub fn tool_count(&self) -> usize {
        self.inner.tools.len()
    }

    /// The backend's answer generation of a tool ([`ToolBackend::answer_generation`]).
    pub fn answer_generation(&self, name: &str) -> Option<u64> {
        self.inner.backend.answer_generation(name)
    }

    /// Answers one `tools/call`: the argument check, the backend call, and the result with its
    /// provenance. An unknown tool is a JSON-RPC `-32602` error (MCP's "unknown tool"), not a
    /// tool result.
    pub async fn call(
        &self,
        name: &str,
        arguments: Option<Map<String, Value>>,
    ) -> Result<CallToolResult, McpError> {
        self.call_sent(name, arguments, None).await
    }

    /// [`McpSurface::call`] for a caller whose argument order is known (`sent`, read from the
    /// arguments' text: [`SentOrder`]).
    pub async fn call_sent(
        &self,
        name: &str,
        arguments: Option<Map<String, Value>>,
        sent: Option<SentOrder>,
    ) -> Result<CallToolResult, McpError> {
        self.call_noted(name, arguments, sent)
            .await
            .map(|(result, _)| result)
    }

    /// [`McpSurface::call_sent`], with what the journal recorded of a served tool's call.
    pub async fn call_noted(
        &self,
        name: &str,
        arguments: Option<Map<String, Value>>,
        sent: Option<SentOrder>,
    ) -> Result<(CallToolResult, CallNote), McpError> {
        let time = JournalTime::now();
        let started = std::time::Instant::now();
        let digest = Arc::from(members_digest(arguments.as_ref()));
        let Some(&position) = self.inner.index.get(name) else {
            let note = CallNote {
                digest,
                source: crate::journal::AnswerSource::Refused,
                status: Arc::from("unknown-tool"),
            };
            self.journal(time, Arc::from(name), &note, started);
            return Err(McpError::invalid_params(
                format!("unknown tool: {}", Value::String(name.to_owned())),
                None,
            ));
        };
        let answer = self.answer(position, name, (arguments, sent)).await;
        let note = CallNote {
            digest,
            source: answer.source,
            status: Arc::from(answer_status(&answer)),
        };
        self.journal(
            time,
            Arc::clone(&self.inner.names[position]),
            &note,
            started,
        );
        Ok((tool_result(answer), note))
    }

    /// Records in the journal a call of the tool at `position` answered again from a kept
    /// answer ([`crate::answer_cache`]) as its first call was recorded, timed from `started`.
    pub fn journal_reused(&self, position: usize, note: &CallNote, started: std::time::Instant) {
        if let Some(name) = self.inner.names.get(position) {
            self.journal(JournalTime::now(), Arc::clone(name), note, started);
        }
    }

    fn journal(
        &self,
        time: JournalTime,
        name: Arc<str>,
        note: &CallNote,
        started: std::time::Instant,
    ) {
        if let Some(journal) = &self.inner.journal {
            journal.call(
                time,
                "mcp",
                name,
                Arc::clone(&note.digest),
                note.source,
                Arc::clone(&note.status),
                started.elapsed(),
            );
        }
    }

    /// The backend's answer to a served tool's call whose arguments fit its schema, else the
    /// `invalid_arguments` error; redacted unless credentials are kept.
    async fn answer(
        &self,
        position: usize,
        name: &str,
        (arguments, sent): (Option<Map<String, Value>>, Option<SentOrder>),
    ) -> ToolAnswer {
        let schema = &self.inner.tools[position].input_schema;
        // Arguments that fit cost one validation; only others are checked again for the issues.
        let arguments = Value::Object(arguments.unwrap_or_default());
        let fits = self.inner.checks[position]
            .get_or_init(|| CompiledSchema::new(schema))
            .fits(&arguments);
        let arguments = match arguments {
            Value::Object(members) => members,
            _ => Map::new(), // never: wrapped as an object above
        };
        let verdict = if fits {
            Ok(())
        } else {
            arguments::check(schema, &arguments)
        };
        let answer = match verdict {
            Ok(()) => match sent {
                Some(sent) => {
                    self.inner
                        .backend
                        .call_tool_sent(name, arguments, sent)
                        .await
                }
                None => self.inner.backend.call_tool(name, arguments).await,
            },
            Err(error) => ToolAnswer::error(json!({
                "code": "invalid_arguments",
                "message": error.message,
                "unknown": error.unknown,
                "missing": error.missing,
                "mistyped": error.mistyped,
            })),
        };
        if self.inner.keep_credentials {
            answer
        } else {
            crate::redact::redact_answer(answer)
        }
    }
}

/// The journal's status of an answer: `ok`, or the error document's `code`.
fn answer_status(answer: &ToolAnswer) -> String {
    if !answer.is_error {
        return "ok".to_owned();
    }
    serde_json::from_str::<Value>(&answer.text)
        .ok()
        .and_then(|document| {
            document
                .pointer("/error/code")
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .unwrap_or_else(|| "error".to_owned())
}

/// An MCP tool result from a backend answer: the JSON text as the one text content, the
/// structured content when the backend gave it, `isError`, and the provenance.
pub fn tool_result(answer: ToolAnswer) -> CallToolResult {
    let content = vec![ContentBlock::text(answer.text)];
    let mut result = if answer.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    result.structured_content = answer.structured;
    result.meta = Some(provenance());
    result
}

fn annotations(members: &Map<String, Value>) -> ToolAnnotations {
    let hint = |key: &str| members.get(key).and_then(Value::as_bool);
    let mut annotations = ToolAnnotations::default();
    annotations.title = members
        .get("title")
        .and_then(Value::as_str)
        .map(str::to_owned);
    annotations.read_only_hint = hint("readOnlyHint");
    annotations.destructive_hint = hint("destructiveHint");
    annotations.idempotent_hint = hint("idempotentHint");
    annotations.open_world_hint = hint("openWorldHint");
    annotations
}

impl ServerHandler for McpSurface {
    fn get_info(&self) -> ServerConfig {
        self.inner.info.clone()
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.inner.tools.clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        // The order the `/mcp` route read from the body's text ([`crate::fast_path`]).
        let sent = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<SentOrder>())
            .cloned();
        self.call_sent(&request.name, request.arguments, sent)
            .await
            .map(CallToolResponse::from)
    }
}

/// A session `DELETE` the SDK accepted answers `200` rather than its `202`: MCP clients (the
/// Python and TypeScript SDKs) expect `200`/`204` for a terminated session and warn otherwise.
/// (The `/mcp` route applies it to the SDK's answer to a `DELETE`; a layer of its own cost every
/// request a boxed middleware.)
pub fn session_delete_status(method: &Method, mut response: Response) -> Response {
    if method == Method::DELETE && response.status() == StatusCode::ACCEPTED {
        *response.status_mut() = StatusCode::OK;
    }
    response
}

//! `rea-serve`: the environment server, independent of where answers come from.
//!
//! [`app`] builds the axum router of a served environment over two backends
//! ([`backend::ToolBackend`] for MCP and the card, [`backend::DataPlane`] for `/agentenv`):
//!
//! | Route | Answer |
//! | --- | --- |
//! | `POST /mcp` (and `GET`/`DELETE` for sessions) | MCP over Streamable HTTP |
//! | `GET /.well-known/agent-env.json` | the environment card |
//! | `POST /agentenv` | the JSON-RPC data plane |
//! | `GET /ready` | `200 {"ready": true}` (the agentenv gateway's readiness probe) |
//! | `GET /` | the status page: tools and their sources, coverage, the live state, the last calls |
//! | `GET /agentenv/journal` | the last calls of the request journal (loopback callers only) |
//!
//! Every route first passes the `Host`/`Origin` guard ([`guard`]). [`server`] binds, announces,
//! serves until a signal and reports; [`config`] resolves flags and environment variables. A
//! served connection takes `POST /mcp` past the router, through the same guard to the same
//! handler ([`connection`], built by [`app_with_mcp_lane`]).
//!
//! # Where the SDK ends and rea begins
//!
//! The official Rust MCP SDK (`rmcp` 3.11) owns the MCP protocol at `/mcp`:
//! Streamable HTTP framing (POST with JSON or SSE replies, GET streams, DELETE), session
//! management for the initialize-based 2025 revisions (`Mcp-Session-Id`, `LocalSessionManager`),
//! stateless `server/discover` and per-request negotiation of the 2026-07-28 revision, protocol
//! version negotiation and headers, JSON-RPC parsing and error codes of MCP messages, and the
//! 4 MiB request-body bound of `/mcp`. rea supplies, through the SDK's `ServerHandler`
//! ([`mcp::McpSurface`]): the tool catalog and instructions from the backend, the argument check
//! against each input schema before the backend runs ([`arguments`]), and `_meta.provenance`
//! (`untrusted_content: true`, `source: "analysis_target"`) on every tool result.
//!
//! rea reads and checks every `POST /mcp` body first ([`mcp_intake`]): a body that is not JSON or
//! not a JSON-RPC message is `400` with `-32700`/`-32600` (the SDK answered `415` and text), and
//! JSON-RPC batches, which the SDK does not read, are taken inside sessions at the one revision
//! that requires them (2025-03-26) and refused elsewhere. Sessions are capped and their memory
//! given back ([`sessions`]); recorded credentials are redacted in answers ([`redact`]).
//!
//! One exception, for speed: a `tools/call` whose headers and body have exactly the canonical
//! shape, stateless at the 2026-07-28 revision or inside an open session at the revision it
//! negotiated, is answered by rea's [`fast_path`] with the same `McpSurface::call` and the SDK's
//! own message types (the SDK's answer byte for byte, as JSON; in a session, the same message in
//! one SSE event, without the SDK's resumption ids; tests compare them); anything it does not
//! recognise goes to the SDK. The SDK's per-request machinery (in a session, five task hand-offs
//! through the session's worker and service) cost several times the answer and kept throughput
//! under the target. So that a session's activity counts whichever route answers, rea expires
//! idle sessions itself ([`sessions`]).
//!
//! Everything else is rea's: the `Host`/`Origin` DNS-rebinding guard on every route (the SDK's own
//! host and origin checks are disabled so one rule covers `/mcp`, the card and the data plane
//! alike), the card and readiness routes, the whole `/agentenv` transport (4 MiB bound with `413`
//! before parsing, `-32700`/`-32600` rules, raw ids checked against JavaScript's safe range and
//! echoed byte for byte, `202` for notifications, batches of at most 100, the arrival-order call
//! queue with cancellation, the 64 MiB response budget), listen configuration
//! (`--host`/`--port`/`MCP_HOST`/`MCP_PORT`/`MCP_ALLOWED_HOSTS`/`ENVIRONMENT_NAME`/`REA_LOG_LEVEL`),
//! the JSON log line, signal handling and the stopped document.
//!
//! Decisions where the reference is silent: several MCP clients may hold sessions at once (the
//! reference serves one at a time; rea's answers do not depend on the session, and a stale
//! session must not lock out a gateway); `GET /ready` is served beside the three documented
//! routes because the agentenv gateway probes it; an unknown tool is a JSON-RPC `-32602` error,
//! not a tool result; a session `DELETE` answers `200` (the SDK's `202` makes MCP clients warn);
//! `MCP_ALLOWED_HOSTS` replaces the loopback default rather than adding to it, and an `Origin`
//! must name an allowed host (any port); a notification is not cancelled when its caller leaves
//! (nobody waits for it), only by the server's stop; JSON-RPC errors other than parse errors
//! (`400`) and oversized bodies (`413`) answer HTTP `200`; accepted sockets use `TCP_NODELAY`;
//! an accept error that is not one pending connection's (`EMFILE`, `ENFILE`, `ENOBUFS`, …) is the
//! listener's failure (logged, then `resource_constraint`, exit 1; axum alone would retry it every
//! second forever), as the reference's Node listener fails on its server's `error` event.
//!
//! Test-only hook (`rea_evidence::test_hooks`, compiled only with the `test-hooks` feature): the
//! `binding` hold keeps [`server::bind`] waiting after logging `{"msg":"test hold","stage":"binding"}`,
//! so tests can signal during DNS/bind without racing it. See `CONTRACT-NOTES.md`
//! for the checklist items this crate covers, differs on, or leaves to others.

pub mod agentenv;
pub mod answer_cache;
pub mod arguments;
pub mod backend;
pub mod budget;
pub mod config;
pub mod connection;
pub mod error;
pub mod fast_path;
pub mod guard;
pub mod journal;
pub mod jsonrpc;
pub mod logging;
pub mod mcp;
pub mod mcp_intake;
pub mod memory;
pub mod pages;
pub mod queue;
pub mod redact;
pub mod relocations;
pub mod schema;
pub mod server;
pub mod sessions;
pub mod status;

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::{any, get, post};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub use agentenv::DataPlaneLimits;
pub use backend::{
    AnswerSource, BoxFuture, DataCall, DataPlane, ReplayDataPlane, RpcError, ToolAnswer,
    ToolBackend, ToolDescriptor,
};
pub use connection::App;
pub use error::ServeError;
pub use guard::HostAllowlist;
pub use tokio_util::sync::CancellationToken as ShutdownToken;

/// How the router is built.
#[derive(Debug, Clone)]
pub struct AppOptions {
    /// The `Host`/`Origin` allowlist.
    pub allowed_hosts: HostAllowlist,
    /// Cancelled when the server stops: ends MCP sessions and cancels pending data-plane calls.
    pub shutdown: CancellationToken,
    /// The `/agentenv` limits; `max_body_bytes` bounds `/mcp` too.
    pub limits: DataPlaneLimits,
    /// The cap and idle lifetime of MCP sessions.
    pub sessions: sessions::SessionLimits,
    /// Answer recorded credentials as recorded instead of redacted ([`redact`]).
    pub keep_credentials: bool,
    /// The request journal every tool and data-plane call is recorded in.
    pub journal: Arc<journal::Journal>,
}

impl Default for AppOptions {
    fn default() -> Self {
        Self {
            allowed_hosts: HostAllowlist::loopback(),
            shutdown: CancellationToken::new(),
            limits: DataPlaneLimits::default(),
            sessions: sessions::SessionLimits::default(),
            keep_credentials: false,
            journal: Arc::default(),
        }
    }
}

/// Checks that the card's `capabilities.tools` lists exactly the catalog's names, descriptions
/// and input schemas, in order (`CARD-013`). A mismatch is a backend bug, refused before binding.
pub fn check_card_agrees(backend: &dyn ToolBackend) -> Result<(), ServeError> {
    let card_tools = backend
        .card()
        .pointer("/capabilities/tools")
        .and_then(Value::as_array)
        .ok_or_else(|| ServeError::CatalogMismatch {
            message: "the card has no capabilities.tools array".to_owned(),
        })?;
    let tools = backend.tools();
    if card_tools.len() != tools.len() {
        return Err(ServeError::CatalogMismatch {
            message: format!(
                "the card lists {} tools, tools/list {}",
                card_tools.len(),
                tools.len()
            ),
        });
    }
    for (card_tool, tool) in card_tools.iter().zip(tools) {
        let same = card_tool.get("name").and_then(Value::as_str) == Some(tool.name.as_str())
            && card_tool.get("description").and_then(Value::as_str)
                == Some(tool.description.as_str())
            && card_tool.get("inputSchema").and_then(Value::as_object) == Some(&tool.input_schema);
        if !same {
            return Err(ServeError::CatalogMismatch {
                message: format!("tool {} differs", Value::String(tool.name.clone())),
            });
        }
    }
    Ok(())
}

/// The router of a served environment. Must be called within a tokio runtime (it starts the
/// data-plane queue's worker).
pub fn app(
    backend: Arc<dyn ToolBackend>,
    data_plane: Arc<dyn DataPlane>,
    options: AppOptions,
) -> Router {
    app_with_mcp_lane(backend, data_plane, options).router
}

/// [`app`], with the MCP lane a served connection takes for `POST /mcp` instead of the router
/// ([`connection`]): what [`server::serve`] is given. Must be called within a tokio runtime.
pub fn app_with_mcp_lane(
    backend: Arc<dyn ToolBackend>,
    data_plane: Arc<dyn DataPlane>,
    options: AppOptions,
) -> App {
    let card = Bytes::from(backend.card().to_string());
    let journal = Arc::clone(&options.journal);
    let surface = mcp::McpSurface::journaled(Arc::clone(&backend), Some(Arc::clone(&journal)))
        .keeping_credentials(options.keep_credentials);
    let activity = memory::Activity::default();
    activity.trim_when_idle(options.shutdown.child_token());
    let sessions = Arc::new(sessions::CappedSessions::new(
        options.sessions,
        activity.clone(),
    ));
    sessions.expire_idle(options.shutdown.child_token());
    let mcp_service = surface.http_service(
        options.shutdown.child_token(),
        options.limits.max_body_bytes,
        Arc::clone(&sessions),
    );
    let journaled: Arc<dyn DataPlane> = Arc::new(journal::JournaledPlane::new(
        data_plane,
        Arc::clone(&journal),
    ));
    let route = Arc::new(agentenv::DataPlaneRoute {
        queue: queue::CallQueue::start(journaled),
        shutdown: options.shutdown.clone(),
        limits: options.limits,
    });
    let allowed = Arc::new(options.allowed_hosts);
    let mcp_route = Arc::new(fast_path::McpRoute {
        answers: Arc::new(answer_cache::AnswerCache::new(surface.tool_count())),
        surface,
        sdk: mcp_service,
        sessions,
        max_body_bytes: options.limits.max_body_bytes,
        body_timeout: options.limits.body_timeout,
    });
    let front = Arc::new(connection::Front { allowed, activity });
    let lane = connection::McpLane {
        front: Arc::clone(&front),
        route: Arc::clone(&mcp_route),
    };
    let mcp = Router::new().route("/mcp", any(fast_path::handle).with_state(mcp_route));
    let page = Arc::new(pages::Pages { backend, journal });
    let router = Router::new()
        .merge(mcp)
        .route(
            "/.well-known/agent-env.json",
            get(move || {
                let card = card.clone();
                async move { ([(header::CONTENT_TYPE, "application/json")], card).into_response() }
            }),
        )
        .route("/agentenv", post(agentenv::handle).with_state(route))
        .route(
            "/agentenv/journal",
            get(pages::journal).with_state(Arc::clone(&page)),
        )
        .route("/", get(pages::status).with_state(page))
        .route(
            "/ready",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "application/json")],
                    "{\"ready\":true}",
                )
            }),
        )
        .layer(axum::middleware::from_fn_with_state(front, self::front));
    App {
        router,
        mcp: Some(lane),
    }
}

/// The middleware in front of every route: the request counts as activity, then passes the
/// `Host`/`Origin` guard ([`connection::Front::admit`]). One layer rather than one each: every
/// `from_fn` layer costs each request a boxed future and a cloned service.
async fn front(
    axum::extract::State(front): axum::extract::State<Arc<connection::Front>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    match front.admit(request.extensions().get::<memory::Connection>(), &request) {
        Ok(()) => next.run(request).await,
        Err(refusal) => refusal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    struct Catalog {
        tools: Vec<ToolDescriptor>,
        card: Value,
    }

    impl ToolBackend for Catalog {
        fn server_name(&self) -> &str {
            "t"
        }
        fn instructions(&self) -> &str {
            ""
        }
        fn tools(&self) -> &[ToolDescriptor] {
            &self.tools
        }
        fn card(&self) -> &Value {
            &self.card
        }
        fn call_tool<'a>(
            &'a self,
            _name: &'a str,
            _arguments: serde_json::Map<String, Value>,
        ) -> BoxFuture<'a, ToolAnswer> {
            Box::pin(std::future::ready(ToolAnswer::ok(&Value::Null)))
        }
    }

    fn catalog(card_description: &str) -> Catalog {
        let schema = json!({"type": "object", "properties": {}, "additionalProperties": false});
        Catalog {
            tools: vec![ToolDescriptor {
                name: "get_x".to_owned(),
                description: "d".to_owned(),
                input_schema: schema.as_object().cloned().unwrap_or_default(),
                annotations: None,
                meta: None,
            }],
            card: json!({"capabilities": {"tools": [
                {"name": "get_x", "description": card_description, "inputSchema": schema}
            ]}}),
        }
    }

    // contract: CARD-013
    #[test]
    fn the_card_must_list_the_catalog() {
        assert!(check_card_agrees(&catalog("d")).is_ok());
        let error = check_card_agrees(&catalog("other")).unwrap_err();
        assert_eq!(error.refusal().code, "internal_error");
    }
}

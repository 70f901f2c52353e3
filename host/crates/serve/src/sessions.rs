//! MCP sessions with a cap: at most [`SessionLimits::max_sessions`] initialize-based sessions are
//! open at once, an idle one expires after [`SessionLimits::idle`], and the heap a closed session
//! freed is given back to the operating system.
//!
//! [`CappedSessions`] wraps rmcp's `LocalSessionManager` (every session operation is its own).
//! Creating a session past the cap fails inside the SDK's handler, which would answer a bare
//! `500`; the `/mcp` route runs each delegated request inside [`track_refusal`] and turns such a
//! refusal into `503 Service Unavailable` with `Retry-After` and a JSON-RPC error naming the cap
//! and the setting that raises it ([`refusal_response`]).
//!
//! A closed session counts as [`Activity`]: its freed heap is given back once the server is idle
//! (`memory.rs`).

use std::cell::Cell;
use std::collections::HashMap;
use std::time::Duration;

use axum::body::Body;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_core::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::WorkerTransport;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError, LocalSessionWorker, SessionConfig,
};
use rmcp::transport::streamable_http_server::session::{
    ServerSseMessage, SessionId, SessionManager,
};
use serde_json::json;

use crate::memory::Activity;

/// The limits of MCP sessions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionLimits {
    /// The most sessions open at once (`REA_MAX_SESSIONS`, default [`Self::DEFAULT_MAX`]).
    pub max_sessions: usize,
    /// How long an idle session lives (`REA_SESSION_IDLE_SECONDS`, default 300 s).
    pub idle: Duration,
}

impl SessionLimits {
    /// The default cap. A session costs about 50 KB of heap while open.
    pub const DEFAULT_MAX: usize = 256;
    /// The default idle lifetime (rmcp's own default).
    pub const DEFAULT_IDLE: Duration = SessionConfig::DEFAULT_KEEP_ALIVE;
}

impl Default for SessionLimits {
    fn default() -> Self {
        Self {
            max_sessions: Self::DEFAULT_MAX,
            idle: Self::DEFAULT_IDLE,
        }
    }
}

/// Why a session operation failed.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The cap is reached.
    #[error("{max} MCP sessions are open, the most this server allows")]
    Full {
        /// The cap.
        max: usize,
    },
    /// The SDK's session manager failed.
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
}

tokio::task_local! {
    /// Set when the request being handled in this task was refused a session.
    static REFUSED: Cell<Option<usize>>;
}

/// Runs a delegated `/mcp` request; answers its response and the cap, when a session was refused
/// while it ran.
pub async fn track_refusal<F: Future<Output = Response>>(request: F) -> (Response, Option<usize>) {
    REFUSED
        .scope(Cell::new(None), async move {
            let response = request.await;
            (response, REFUSED.with(Cell::get))
        })
        .await
}

/// The answer to an `initialize` refused at the cap: `503`, `Retry-After`, and a JSON-RPC error
/// (`-32000`) naming the cap and how to raise it.
pub fn refusal_response(max: usize) -> Response {
    let body = json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {
            "code": -32000,
            "message": format!(
                "{max} MCP sessions are open, the most this server allows: close one (DELETE /mcp with its Mcp-Session-Id), wait for an idle one to expire, or raise REA_MAX_SESSIONS"
            ),
            "data": {"reason": "too_many_sessions", "max_sessions": max},
        }
    });
    (
        StatusCode::SERVICE_UNAVAILABLE,
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::RETRY_AFTER, "5"),
        ],
        Body::from(body.to_string()),
    )
        .into_response()
}

/// rmcp's local session manager with a cap and memory given back.
#[derive(Debug)]
pub struct CappedSessions {
    inner: LocalSessionManager,
    max: usize,
    /// Serializes creation, so the count checked is the count when the session is added.
    creating: tokio::sync::Mutex<()>,
    /// Where a closed session is counted (the trim task gives memory back when idle).
    activity: Activity,
    /// The protocol revision each open session negotiated.
    revisions: std::sync::Mutex<HashMap<String, String>>,
}

impl CappedSessions {
    /// A manager for these limits, counting closed sessions in `activity`.
    pub fn new(limits: SessionLimits, activity: Activity) -> Self {
        let mut inner = LocalSessionManager::default();
        inner.session_config.keep_alive = Some(limits.idle);
        Self {
            inner,
            max: limits.max_sessions.max(1),
            creating: tokio::sync::Mutex::new(()),
            activity,
            revisions: std::sync::Mutex::new(HashMap::new()),
        }
    }

    /// The protocol revision a session negotiated, while it is open.
    pub fn revision(&self, id: &str) -> Option<String> {
        self.revisions
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .get(id)
            .cloned()
    }

    /// How many sessions are open.
    pub async fn open(&self) -> usize {
        self.inner.sessions.read().await.len()
    }
}

impl SessionManager for CappedSessions {
    type Error = SessionError;
    type Transport = WorkerTransport<LocalSessionWorker>;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let _creating = self.creating.lock().await;
        if self.open().await >= self.max {
            let _ = REFUSED.try_with(|refused| refused.set(Some(self.max)));
            tracing::warn!(
                max_sessions = self.max,
                "MCP session refused: the cap is reached"
            );
            return Err(SessionError::Full { max: self.max });
        }
        Ok(self.inner.create_session().await?)
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        let response = self.inner.initialize_session(id, message).await?;
        let revision = serde_json::to_value(&response).ok().and_then(|value| {
            value
                .pointer("/result/protocolVersion")
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned)
        });
        if let Some(revision) = revision {
            self.revisions
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .insert(id.to_string(), revision);
        }
        Ok(response)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.inner.close_session(id).await?;
        self.revisions
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .remove(&id.to_string());
        self.activity.touch();
        Ok(())
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_stream(id, message).await?)
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.resume(id, last_event_id).await?)
    }
}

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
//! rea expires idle sessions itself ([`CappedSessions::expire_idle`]): every request naming a
//! session ([`CappedSessions::touch`]) counts as its activity, whichever route answers it. The
//! SDK's session worker has an idle timer of its own, but it sees only the requests that reach it,
//! and the session `tools/call`s rea's [`crate::fast_path`] answers never do; so that timer is
//! off and rea's is the one rule.
//!
//! A closed session counts as [`Activity`]: its freed heap is given back once the server is idle
//! (`memory.rs`).

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

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
use tokio_util::sync::CancellationToken;

use crate::memory::Activity;

/// How often idle sessions are looked for (a quarter of the idle limit when that is shorter).
pub const EXPIRY_TICK: Duration = Duration::from_secs(1);

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

/// rmcp's local session manager with a cap, idle expiry and memory given back.
#[derive(Debug)]
pub struct CappedSessions {
    inner: LocalSessionManager,
    max: usize,
    /// How long a session no request names stays open.
    idle: Duration,
    /// Serializes creation, so the count checked is the count when the session is added.
    creating: tokio::sync::Mutex<()>,
    /// Where a closed session is counted (the trim task gives memory back when idle).
    activity: Activity,
    /// The open sessions, as the SDK's manager holds them: what rea keeps of each.
    entries: Mutex<HashMap<SessionId, Entry>>,
}

/// What rea keeps of an open session.
#[derive(Debug)]
struct Entry {
    /// The protocol revision it negotiated, once its `initialize` was answered (shared with
    /// each request's check rather than copied).
    revision: Option<Arc<str>>,
    /// When a request last named it.
    last_active: Instant,
}

impl CappedSessions {
    /// A manager for these limits, counting closed sessions in `activity`. Idle sessions expire
    /// once [`CappedSessions::expire_idle`] runs.
    pub fn new(limits: SessionLimits, activity: Activity) -> Self {
        let mut inner = LocalSessionManager::default();
        // rea's expiry replaces the SDK worker's idle timer (see the module docs).
        inner.session_config.keep_alive = None;
        Self {
            inner,
            max: limits.max_sessions.max(1),
            idle: limits.idle,
            creating: tokio::sync::Mutex::new(()),
            activity,
            entries: Mutex::new(HashMap::new()),
        }
    }

    fn entries(&self) -> MutexGuard<'_, HashMap<SessionId, Entry>> {
        self.entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The protocol revision a session negotiated, while it is open.
    pub fn revision(&self, id: &str) -> Option<String> {
        self.entries()
            .get(id)?
            .revision
            .as_deref()
            .map(str::to_owned)
    }

    /// Counts a request naming the session as its activity; answers the revision it negotiated
    /// while it is open and initialized.
    pub fn touch(&self, id: &str) -> Option<Arc<str>> {
        let mut entries = self.entries();
        let entry = entries.get_mut(id)?;
        entry.last_active = Instant::now();
        entry.revision.clone()
    }

    /// How many sessions are open.
    pub async fn open(&self) -> usize {
        self.inner.sessions.read().await.len()
    }

    /// Closes, until `shutdown`, every session no request named for the idle limit (checked
    /// every [`EXPIRY_TICK`], or a quarter of the limit when that is shorter). Must be called
    /// within a tokio runtime; the task ends with the manager.
    pub fn expire_idle(self: &Arc<Self>, shutdown: CancellationToken) {
        let sessions = Arc::downgrade(self);
        let tick = (self.idle / 4).clamp(Duration::from_millis(1), EXPIRY_TICK);
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = shutdown.cancelled() => return,
                    () = tokio::time::sleep(tick) => {}
                }
                let Some(sessions) = sessions.upgrade() else {
                    return;
                };
                for id in sessions.idle_sessions() {
                    tracing::debug!(session = %id, "MCP session closed after its idle limit");
                    if let Err(error) = sessions.close_session(&id).await {
                        tracing::warn!(session = %id, %error, "closing an idle MCP session failed");
                    }
                }
            }
        });
    }

    /// The sessions no request named for the idle limit.
    fn idle_sessions(&self) -> Vec<SessionId> {
        self.entries()
            .iter()
            .filter(|(_, entry)| entry.last_active.elapsed() >= self.idle)
            .map(|(id, _)| id.clone())
            .collect()
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
        let (id, transport) = self.inner.create_session().await?;
        let entry = Entry {
            revision: None,
            last_active: Instant::now(),
        };
        self.entries().insert(id.clone(), entry);
        Ok((id, transport))
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
                .map(Arc::from)
        });
        if let Some(entry) = self.entries().get_mut(id) {
            entry.revision = revision;
        }
        Ok(response)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        // rea's entry goes first: no request is answered outside the SDK once closing began.
        self.entries().remove(id);
        self.inner.close_session(id).await?;
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

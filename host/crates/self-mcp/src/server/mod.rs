//! The `rea mcp` server: shared state (catalog, scope, Evidence ledger, listeners), the stdio and
//! Streamable HTTP transports, and prompt/tool list-change notifications.
//!
//! One `rea mcp` process serves one session: over stdio its one client, over HTTP the client of
//! the moment, every request sharing the Evidence ledger (clients on the 2026 revision are served
//! statelessly per request, so the ledger cannot be per connection). When the scope changes
//! ([`SelfMcpServer::set_scope`]), every connected client is told `notifications/prompts/
//! list_changed` (and `tools/list_changed`) if its lists changed: clients of the initialize-based
//! revisions on their session, clients of the 2026 revision on their `subscriptions/listen`.

pub mod gateway;
mod handler;
pub mod params;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use rea_evidence::Refusal;
use rea_serve::HostAllowlist;
use rmcp::service::{Peer, SubscriptionSink};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{RoleServer, ServiceExt};
use tokio_util::sync::CancellationToken;

pub use handler::McpHandler;

use crate::catalog::ToolCatalog;
use crate::error::SelfMcpError;
use crate::guidance::BundleSource;
use crate::identity::ScopedContracts;
use crate::ledger::{EvidenceDocument, EvidenceLedger};
use crate::scope::ToolScope;

/// The path the MCP endpoint is served at over HTTP.
pub const MCP_PATH: &str = "/mcp";

pub(crate) struct Shared {
    catalog: ToolCatalog,
    contracts: RwLock<Arc<ScopedContracts>>,
    guidance: BundleSource,
    ledger: Mutex<EvidenceLedger>,
    peers: Mutex<Vec<Peer<RoleServer>>>,
    sinks: Mutex<Vec<(u64, SubscriptionSink)>>,
    next_sink: AtomicU64,
    scope_history: Mutex<ScopeHistory>,
}

/// The scope changes by generation, so a subscription acknowledged before a change but
/// registered after it still hears of it: rmcp acknowledges `subscriptions/listen` before it
/// calls the handler's `listen`, and a change between the two would reach no sink.
#[derive(Default)]
struct ScopeHistory {
    /// How many scope changes there were.
    generation: u64,
    /// The latest changes (at most [`ScopeHistory::KEPT`]), by generation.
    recent: std::collections::VecDeque<(u64, ScopeChange)>,
    /// The generation each subscription being acknowledged began at, oldest first.
    beginning: std::collections::VecDeque<u64>,
}

impl ScopeHistory {
    const KEPT: usize = 64;

    fn record(&mut self, change: ScopeChange) {
        self.generation += 1;
        self.recent.push_back((self.generation, change));
        if self.recent.len() > Self::KEPT {
            self.recent.pop_front();
        }
    }

    /// What changed after generation `since` (everything, when older changes were forgotten).
    fn since(&self, since: u64) -> ScopeChange {
        let forgotten = self
            .recent
            .front()
            .is_some_and(|(generation, _)| *generation > since + 1);
        let mut missed = ScopeChange {
            prompts_changed: forgotten,
            tools_changed: forgotten,
        };
        for (_, change) in self
            .recent
            .iter()
            .filter(|(generation, _)| *generation > since)
        {
            missed.prompts_changed |= change.prompts_changed;
            missed.tools_changed |= change.tools_changed;
        }
        missed
    }
}

impl Shared {
    fn contracts(&self) -> Arc<ScopedContracts> {
        Arc::clone(
            &self
                .contracts
                .read()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    fn ledger_snapshot(&self) -> EvidenceLedger {
        self.ledger
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn retain(&self, evidence: EvidenceDocument) -> Result<String, Refusal> {
        self.ledger
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(evidence)
    }

    fn add_peer(&self, peer: Peer<RoleServer>) {
        self.peers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(peer);
    }

    /// A subscription is being acknowledged: the scope generation it begins at.
    fn subscription_begins(&self) {
        let mut history = self
            .scope_history
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let generation = history.generation;
        history.beginning.push_back(generation);
    }

    /// Registers a subscription's sink; returns its id and what changed between its
    /// acknowledgment and now (which no notification reached it for).
    fn add_sink(&self, sink: SubscriptionSink) -> (u64, ScopeChange) {
        let id = self.next_sink.fetch_add(1, Ordering::Relaxed);
        let mut history = self
            .scope_history
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let began = history.beginning.pop_front().unwrap_or(history.generation);
        self.sinks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((id, sink));
        (id, history.since(began))
    }

    fn record_scope_change(&self, change: ScopeChange) {
        self.scope_history
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .record(change);
    }

    fn remove_sink(&self, id: u64) {
        self.sinks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|(sink_id, _)| *sink_id != id);
    }
}

/// Tells one subscription what changed, as far as it asked to hear of it.
async fn notify_sink(sink: &SubscriptionSink, change: ScopeChange) {
    if change.prompts_changed && sink.accepted().prompts_list_changed == Some(true) {
        let _ = sink.notify_prompt_list_changed().await;
    }
    if change.tools_changed && sink.accepted().tools_list_changed == Some(true) {
        let _ = sink.notify_tool_list_changed().await;
    }
}

/// What a scope change changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScopeChange {
    /// The advertised prompts changed (`notifications/prompts/list_changed` was sent).
    pub prompts_changed: bool,
    /// The advertised tools changed (`notifications/tools/list_changed` was sent).
    pub tools_changed: bool,
}

/// The `rea mcp` server. Cloning shares the state.
#[derive(Clone)]
pub struct SelfMcpServer {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for SelfMcpServer {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("SelfMcpServer")
            .field("digest", &self.contracts().digest)
            .finish_non_exhaustive()
    }
}

impl SelfMcpServer {
    /// A server for this catalog, scope and guidance source, with an empty ledger.
    pub fn new(catalog: ToolCatalog, scope: ToolScope, guidance: BundleSource) -> Self {
        let contracts = Arc::new(ScopedContracts::new(&catalog, &scope));
        Self {
            shared: Arc::new(Shared {
                catalog,
                contracts: RwLock::new(contracts),
                guidance,
                ledger: Mutex::new(EvidenceLedger::new()),
                peers: Mutex::new(Vec::new()),
                sinks: Mutex::new(Vec::new()),
                next_sink: AtomicU64::new(0),
                scope_history: Mutex::new(ScopeHistory::default()),
            }),
        }
    }

    /// The contracts currently in scope.
    pub fn contracts(&self) -> Arc<ScopedContracts> {
        self.shared.contracts()
    }

    /// The catalog.
    pub fn catalog(&self) -> &ToolCatalog {
        &self.shared.catalog
    }

    /// The rmcp handler (for embedding in another transport).
    pub fn handler(&self) -> McpHandler {
        McpHandler {
            shared: Arc::clone(&self.shared),
        }
    }

    /// A snapshot of the session's Evidence ledger.
    pub fn ledger(&self) -> EvidenceLedger {
        self.shared.ledger_snapshot()
    }

    /// Changes the scope; when the advertised prompts or tools change, tells every connected
    /// client.
    pub async fn set_scope(&self, scope: ToolScope) -> ScopeChange {
        let next = Arc::new(ScopedContracts::new(&self.shared.catalog, &scope));
        let previous = {
            let mut current = self
                .shared
                .contracts
                .write()
                .unwrap_or_else(PoisonError::into_inner);
            std::mem::replace(&mut *current, Arc::clone(&next))
        };
        let change = ScopeChange {
            prompts_changed: previous.document["prompts"] != next.document["prompts"],
            tools_changed: previous.tools != next.tools,
        };
        self.notify(change).await;
        change
    }

    async fn notify(&self, change: ScopeChange) {
        if !change.prompts_changed && !change.tools_changed {
            return;
        }
        // Recorded before the sinks are read: a sink registered after this hears of it from
        // [`Shared::add_sink`], one registered before from the loop below.
        self.shared.record_scope_change(change);
        let peers: Vec<Peer<RoleServer>> = self
            .shared
            .peers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        for peer in &peers {
            // A failed send means the client is gone; it is dropped below.
            if change.prompts_changed {
                let _ = peer.notify_prompt_list_changed().await;
            }
            if change.tools_changed {
                let _ = peer.notify_tool_list_changed().await;
            }
        }
        self.shared
            .peers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|peer| !peer.is_transport_closed());
        let sinks: Vec<SubscriptionSink> = self
            .shared
            .sinks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .map(|(_, sink)| sink.clone())
            .collect();
        for sink in &sinks {
            notify_sink(sink, change).await;
        }
    }

    /// Serves over stdin/stdout until the client closes its end or `cancel` fires.
    pub async fn serve_stdio(&self, cancel: CancellationToken) -> Result<(), SelfMcpError> {
        self.serve_lines(tokio::io::stdin(), tokio::io::stdout(), cancel)
            .await
    }

    /// Serves newline-delimited MCP over any byte streams, through the params gateway, until
    /// `input` ends or `cancel` fires. The session's ledger is cleared when it ends.
    pub async fn serve_lines<I, O>(
        &self,
        input: I,
        output: O,
        cancel: CancellationToken,
    ) -> Result<(), SelfMcpError>
    where
        I: tokio::io::AsyncRead + Unpin + Send + 'static,
        O: tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        let cancel_copy = cancel.clone();
        let (relay_side, server_side) = tokio::io::duplex(1 << 20);
        let (relay_reader, relay_writer) = tokio::io::split(relay_side);
        let relay = tokio::spawn(gateway::relay_lines(
            input,
            output,
            relay_writer,
            relay_reader,
        ));
        let served = async {
            let running = self
                .handler()
                .serve_with_ct(tokio::io::split(server_side), cancel)
                .await
                .map_err(|error| SelfMcpError::Server(error.to_string()))?;
            running
                .waiting()
                .await
                .map_err(|error| SelfMcpError::Server(error.to_string()))
        }
        .await;
        // The relay ends by itself once the client closed its input; when the session was
        // cancelled instead, the input may stay open, so stop reading it.
        let mut relay = relay;
        tokio::select! {
            _ = &mut relay => {}
            () = cancel_copy.cancelled() => relay.abort(),
        }
        self.shared
            .ledger
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
        served.map(|_| ())
    }

    /// The axum router serving MCP at [`MCP_PATH`] over Streamable HTTP, behind the same
    /// `Host`/`Origin` guard as `environment-serve` (requests naming a host the allowlist does
    /// not hold, or carrying a foreign `Origin`, are refused `403`).
    pub fn http_router(
        &self,
        allowed_hosts: HostAllowlist,
        cancel: CancellationToken,
    ) -> axum::Router {
        let handler = self.handler();
        let config = StreamableHttpServerConfig::default()
            .with_json_response(true)
            .with_legacy_session_mode(true)
            .with_cancellation_token(cancel)
            .disable_allowed_hosts()
            .disable_allowed_origins();
        let service: StreamableHttpService<McpHandler, LocalSessionManager> =
            StreamableHttpService::new(move || Ok(handler.clone()), Default::default(), config);
        axum::Router::new()
            .route_service(MCP_PATH, service)
            .route_layer(axum::middleware::from_fn(gateway::http_gateway))
            .layer(axum::middleware::from_fn_with_state(
                Arc::new(allowed_hosts),
                rea_serve::guard::protect,
            ))
    }
}

#[cfg(test)]
mod tests {
    use super::{ScopeChange, ScopeHistory};

    const PROMPTS: ScopeChange = ScopeChange {
        prompts_changed: true,
        tools_changed: false,
    };
    const TOOLS: ScopeChange = ScopeChange {
        prompts_changed: false,
        tools_changed: true,
    };
    const NOTHING: ScopeChange = ScopeChange {
        prompts_changed: false,
        tools_changed: false,
    };

    #[test]
    fn a_subscription_hears_of_the_changes_after_it_began_and_only_those() {
        let mut history = ScopeHistory::default();
        history.record(PROMPTS);
        let began = history.generation;
        assert_eq!(history.since(began), NOTHING);
        history.record(TOOLS);
        assert_eq!(history.since(began), TOOLS);
        assert_eq!(
            history.since(0),
            ScopeChange {
                prompts_changed: true,
                ..TOOLS
            }
        );
    }

    #[test]
    fn changes_older_than_the_kept_ones_count_as_everything() {
        let mut history = ScopeHistory::default();
        for _ in 0..ScopeHistory::KEPT + 2 {
            history.record(TOOLS);
        }
        let everything = ScopeChange {
            prompts_changed: true,
            tools_changed: true,
        };
        assert_eq!(history.since(0), everything);
        assert_eq!(history.since(history.generation - 1), TOOLS);
    }
}

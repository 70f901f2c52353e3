//! The listener's life: resolve and bind (refusing a non-loopback bind without an allowlist),
//! announce the URL, serve until SIGINT or SIGTERM, stop, and report.
//!
//! Stopping cancels the shutdown token first (every MCP session and open stream ends, every
//! pending data-plane call is cancelled), stops accepting connections, and gives in-flight
//! requests a short grace period ([`SHUTDOWN_GRACE`]); it never waits longer for a download or a
//! client.
//!
//! A listener that fails after binding is logged and reported as [`ServeError::ListenerFailed`]
//! (`resource_constraint`, exit 1) instead of serving nothing: `WatchedListener` accepts,
//! retries the errors that belong to one pending connection (reset, aborted, the network
//! errors Linux passes on from it), and treats any other accept error (`EMFILE`, `ENFILE`,
//! `ENOBUFS`, `ENOMEM`, a socket that stopped listening, …) as the listener's failure, as the
//! reference's Node listener does when its server emits `error`. (axum's own accept loop would
//! log such an error and retry every second forever, serving nothing while it lasts.)
//!
//! Connections are served by hyper's connection builder (HTTP/1.1 and HTTP/2, upgrades), with a
//! request-head timeout (`REA_HEADER_TIMEOUT_SECONDS`, 10 s by default): axum's `serve` sets no
//! timer, so a client sending its headers a byte at a time held a connection forever.
//! Each connection carries a [`crate::memory::Connection`] to its requests, so its close counts
//! as activity and the last one closing lets the server give freed heap back. A connection's
//! `POST /mcp` goes to the MCP route past the router when the app has that lane
//! ([`crate::connection`]).

use std::future::Future;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder as ConnectionBuilder;
use hyper_util::server::graceful::GracefulShutdown;
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

use crate::config::ListenConfig;
use crate::connection::{App, ConnectionService};
use crate::error::ServeError;

/// How long in-flight requests may finish after a stop signal.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// The signal that stopped the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopSignal {
    /// SIGINT (Ctrl-C): exit 130.
    Interrupt,
    /// SIGTERM: exit 143.
    Terminate,
}

impl StopSignal {
    /// The conventional exit status: 128 + the signal number.
    pub fn exit_code(self) -> u8 {
        match self {
            Self::Interrupt => 130,
            Self::Terminate => 143,
        }
    }

    /// `SIGINT` or `SIGTERM`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Interrupt => "SIGINT",
            Self::Terminate => "SIGTERM",
        }
    }
}

/// Installs SIGINT and SIGTERM handlers now and returns a future resolving at the first of them.
/// Installing early means a signal during loading or binding is caught too (the caller races it
/// against that work and reports `cancelled`).
pub fn stop_signals() -> Result<impl Future<Output = StopSignal> + Send + 'static, ServeError> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let install = |kind| {
            signal(kind).map_err(|error| ServeError::ListenerFailed {
                message: format!("cannot install a signal handler: {error}"),
            })
        };
        let mut interrupt = install(SignalKind::interrupt())?;
        let mut terminate = install(SignalKind::terminate())?;
        Ok(async move {
            tokio::select! {
                _ = interrupt.recv() => StopSignal::Interrupt,
                _ = terminate.recv() => StopSignal::Terminate,
            }
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async move {
            let _ = tokio::signal::ctrl_c().await;
            StopSignal::Interrupt
        })
    }
}

/// A bound listener and the URL it serves MCP at.
#[derive(Debug)]
pub struct Bound {
    /// The listener.
    pub listener: TcpListener,
    /// The bound address.
    pub address: SocketAddr,
    /// `http://<address>/mcp`.
    pub url: String,
}

/// The MCP URL of a bound address.
pub fn mcp_url(address: SocketAddr) -> String {
    format!("http://{address}/mcp")
}

/// Resolves the host and binds. A host resolving to any address outside loopback (including
/// `0.0.0.0` and `::`) needs a declared `MCP_ALLOWED_HOSTS`, else `configuration_invalid` before
/// binding.
pub async fn bind(config: &ListenConfig) -> Result<Bound, ServeError> {
    hold_if_asked("binding").await;
    let address_text = format!("{}:{}", config.host, config.port);
    let host = config
        .host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(&config.host);
    let addresses: Vec<SocketAddr> = tokio::net::lookup_host((host, config.port))
        .await
        .map_err(|source| ServeError::Bind {
            address: address_text.clone(),
            source,
        })?
        .collect();
    if addresses.iter().any(|a| !a.ip().is_loopback()) && !config.allowlist_declared {
        return Err(ServeError::configuration(
            "MCP_ALLOWED_HOSTS",
            format!(
                "binding {} is outside loopback: set MCP_ALLOWED_HOSTS to the host names clients use (DNS-rebinding protection)",
                Value::String(config.host.clone())
            ),
        ));
    }
    let mut last_error = None;
    for address in addresses {
        match TcpListener::bind(address).await {
            Ok(listener) => {
                let address = listener.local_addr().map_err(|source| ServeError::Bind {
                    address: address_text.clone(),
                    source,
                })?;
                return Ok(Bound {
                    listener,
                    address,
                    url: mcp_url(address),
                });
            }
            Err(error) => last_error = Some(error),
        }
    }
    Err(ServeError::Bind {
        address: address_text,
        source: last_error.unwrap_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "the host resolves to no address",
            )
        }),
    })
}

/// Whether an accept error belongs to the one pending connection it came from (retry the
/// accept) rather than to the listener. Linux `accept(2)` passes on a pending connection's
/// network errors, which "should be treated like EAGAIN by retrying".
pub fn is_connection_error(error: &std::io::Error) -> bool {
    use std::io::ErrorKind;
    if matches!(
        error.kind(),
        ErrorKind::ConnectionRefused
            | ErrorKind::ConnectionAborted
            | ErrorKind::ConnectionReset
            | ErrorKind::NetworkDown
            | ErrorKind::NetworkUnreachable
            | ErrorKind::HostUnreachable
            | ErrorKind::TimedOut
            | ErrorKind::Interrupted
            | ErrorKind::WouldBlock
    ) {
        return true;
    }
    // EPROTO, ENONET, ENOPROTOOPT, EOPNOTSUPP, EHOSTDOWN (Linux numbers; their kinds are not
    // distinguished by std).
    #[cfg(target_os = "linux")]
    if matches!(error.raw_os_error(), Some(71 | 64 | 92 | 95 | 112)) {
        return true;
    }
    false
}

/// Why the `WatchedListener` failed, shared with [`serve`].
#[derive(Debug, Clone, Default)]
struct ListenerFailure {
    failed: CancellationToken,
    message: Arc<Mutex<Option<String>>>,
}

impl ListenerFailure {
    fn fail(&self, message: String) {
        if let Ok(mut slot) = self.message.lock() {
            slot.get_or_insert(message);
        }
        self.failed.cancel();
    }

    fn message(&self) -> Option<String> {
        self.message.lock().ok().and_then(|slot| slot.clone())
    }
}

/// The bound listener: sets `TCP_NODELAY` on each connection (replies
/// are small and often written in several parts, SSE events: without it, Nagle's algorithm and
/// delayed ACKs add ~40 ms to each), retries connection errors, and reports any other accept
/// error as the listener's failure, after which it accepts nothing more.
#[derive(Debug)]
struct WatchedListener {
    listener: TcpListener,
    failure: ListenerFailure,
}

/// The peer address of an accepted connection, as the handlers see it
/// (`ConnectInfo<PeerAddress>`, added to every request of the connection).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeerAddress(pub SocketAddr);

impl WatchedListener {
    async fn accept(&mut self) -> (TcpStream, SocketAddr) {
        loop {
            if self.failure.failed.is_cancelled() {
                return std::future::pending().await;
            }
            match self.listener.accept().await {
                Ok((stream, address)) => {
                    let _ = stream.set_nodelay(true);
                    return (stream, address);
                }
                Err(error) if is_connection_error(&error) => continue,
                Err(error) => self
                    .failure
                    .fail(format!("accepting a connection failed: {error}")),
            }
        }
    }
}

/// A test-only hold of DNS/bind ([`rea_evidence::test_hooks`], stage `binding`): logs
/// `{"level":"warn","msg":"test hold","stage":"binding"}` and waits before resolving, so a test
/// can deliver a signal during DNS/bind without racing it (contract SERVE-018..020).
async fn hold_if_asked(stage: &str) {
    if rea_evidence::test_hooks::holds(stage) {
        tracing::warn!(stage, "test hold");
        tokio::time::sleep(rea_evidence::test_hooks::HOLD).await;
    }
}

/// Serves `app` (a router, or [`crate::app_with_mcp_lane`]'s app) on the bound listener until
/// `stop` resolves, then stops (see the module docs), with the default request-head timeout.
pub async fn serve(
    bound: Bound,
    app: impl Into<App>,
    shutdown: CancellationToken,
    stop: impl Future<Output = StopSignal> + Send + 'static,
) -> Result<StopSignal, ServeError> {
    let header_timeout = crate::config::RequestTimeouts::default().header;
    serve_with(bound, app, shutdown, stop, header_timeout).await
}

/// [`serve`] with this request-head timeout: a connection whose request head (request line and
/// headers) does not arrive whole within it is closed (hyper's `header_read_timeout`). The
/// listening line is logged first. Returns the signal, or [`ServeError::ListenerFailed`] when the
/// listener failed or ended by itself (logged at `error`).
pub async fn serve_with(
    bound: Bound,
    app: impl Into<App>,
    shutdown: CancellationToken,
    stop: impl Future<Output = StopSignal> + Send + 'static,
    header_timeout: Duration,
) -> Result<StopSignal, ServeError> {
    tracing::info!(url = %bound.url, "MCP transport listening");
    let app = app.into();
    let failure = ListenerFailure::default();
    let mut listener = WatchedListener {
        listener: bound.listener,
        failure: failure.clone(),
    };
    let mut builder = ConnectionBuilder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout);
    let graceful = GracefulShutdown::new();
    let mut stop = Box::pin(stop);
    let signal = loop {
        tokio::select! {
            signal = &mut stop => break Some(signal),
            () = failure.failed.cancelled() => break None,
            (stream, peer) = listener.accept() => {
                // Its close counts as activity: the server trims the heap it frees.
                let life = crate::memory::Connection::default();
                let service = ConnectionService::new(app.clone(), PeerAddress(peer), life.clone());
                let connection = builder
                    .serve_connection_with_upgrades(TokioIo::new(stream), service)
                    .into_owned();
                let connection = graceful.watch(connection);
                tokio::spawn(async move {
                    let _ = connection.await;
                    drop(life);
                });
            }
        }
    };
    // End sessions, streams and pending calls first, so the graceful wait below is short.
    shutdown.cancel();
    drop(listener);
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, graceful.shutdown()).await;
    match signal {
        Some(signal) => Ok(signal),
        None => {
            let message = failure
                .message()
                .unwrap_or_else(|| "the listener ended without a stop signal".to_owned());
            tracing::error!(error = %message, "the listener failed");
            Err(ServeError::ListenerFailed { message })
        }
    }
}

/// The document printed on stdout after a signal stopped the server:
/// `{"status": "stopped", "signal", "name", "url", "tool_count", "state"}`.
pub fn stopped_document(
    signal: StopSignal,
    name: &str,
    url: &str,
    tool_count: usize,
    state: Value,
) -> Value {
    json!({
        "status": "stopped",
        "signal": signal.name(),
        "name": name,
        "url": url,
        "tool_count": tool_count,
        "state": state,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Error, ErrorKind};

    #[test]
    fn only_errors_of_one_pending_connection_are_retried() {
        for kind in [
            ErrorKind::ConnectionAborted,
            ErrorKind::ConnectionReset,
            ErrorKind::Interrupted,
        ] {
            assert!(is_connection_error(&Error::from(kind)), "{kind:?}");
        }
        // EMFILE, ENFILE, ENOBUFS, ENOMEM, EBADF, EINVAL: the listener itself cannot go on.
        for errno in [24, 23, 105, 12, 9, 22] {
            assert!(
                !is_connection_error(&Error::from_raw_os_error(errno)),
                "errno {errno}"
            );
        }
        #[cfg(target_os = "linux")]
        assert!(is_connection_error(&Error::from_raw_os_error(71)), "EPROTO");
    }
}

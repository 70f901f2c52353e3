//! Giving freed heap back to the operating system once the server goes idle.
//!
//! Why: glibc keeps freed heap in its arenas, so 11,000 MCP sessions that expired left RSS at
//! 703 MB, and a burst of calls (the 100,000-call soak) left RSS well above where it started.
//! Every request and every closed session counts as [`Activity`]; a background task calls
//! `malloc_trim(0)` once the count has stood still for a whole [`TRIM_INTERVAL`] after it moved,
//! so a busy server never trims and an idle one trims once.
//!
//! Connections outlive the requests: a client's idle keep-alive connections stay open until
//! hyper's request-head timeout closes them (10 s after their last request), after the idle trim,
//! and the buffers they free would stay resident. So every accepted connection that carried a
//! request is a [`Connection`]; its close counts as activity too, and when the last open one
//! closes the server trims again once nothing moved for [`CONNECTIONLESS_SETTLE`].
//!
//! Trimming alone left the 100,000-call soak 17.5% above its start after idle: what glibc keeps
//! is not only free heap at the top of an arena but heap it cannot give back at all. Two of its
//! defaults cause that in a server, and [`configure_allocator`] changes both before the runtime
//! starts its threads:
//! * per-thread arenas: every thread that allocates under contention gets an arena of its own (up
//!   to eight per core), each a heap of its own whose freed holes other threads never reuse; the
//!   soak's two tokio workers each grew one to 23 MiB. At most [`ARENA_MAX`] arenas are made.
//! * the dynamic mmap threshold: allocations of 128 KiB and more are mapped and unmapped alone,
//!   until one is freed, which raises the threshold to its size (up to 32 MiB); from then on
//!   request bodies, `data/get` documents and answers of that size are carved out of the arenas
//!   among small long-lived allocations, and the holes they leave stay resident. The threshold is
//!   fixed at [`MMAP_THRESHOLD`] (which also keeps the trim threshold at its 128 KiB default,
//!   where glibc would raise it to twice the mmap threshold).
//!
//! A user's own tuning (`MALLOC_ARENA_MAX`, `MALLOC_MMAP_THRESHOLD_`, `GLIBC_TUNABLES`) is kept.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

/// How long the server must have been idle before freed heap is given back.
pub const TRIM_INTERVAL: Duration = Duration::from_secs(5);

/// How long nothing must move after the last open connection closed before freed heap is given
/// back (short: no request can be in flight without a connection).
pub const CONNECTIONLESS_SETTLE: Duration = Duration::from_secs(1);

/// The most malloc arenas a server makes (glibc's default is eight per core).
pub const ARENA_MAX: i32 = 2;

/// Allocations of this many bytes or more are mapped alone and unmapped when freed (glibc's
/// initial threshold, kept from rising).
pub const MMAP_THRESHOLD: i32 = 128 * 1024;

/// Sets glibc malloc up for a long-lived server (see the module documentation): at most
/// [`ARENA_MAX`] arenas, and a fixed [`MMAP_THRESHOLD`]. Call it before any thread but the main
/// one starts; each setting the user tuned through the environment is left as they set it.
pub fn configure_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let tuned = |variable: &str| std::env::var_os(variable).is_some();
        let tunables = std::env::var("GLIBC_TUNABLES").unwrap_or_default();
        let settings = [
            (
                libc::M_ARENA_MAX,
                ARENA_MAX,
                "MALLOC_ARENA_MAX",
                "glibc.malloc.arena_max",
            ),
            (
                libc::M_MMAP_THRESHOLD,
                MMAP_THRESHOLD,
                "MALLOC_MMAP_THRESHOLD_",
                "glibc.malloc.mmap_threshold",
            ),
        ];
        for (parameter, value, variable, tunable) in settings {
            if !tuned(variable) && !tunables.contains(tunable) {
                // SAFETY: mallopt only changes malloc's parameters; it has no preconditions.
                unsafe {
                    libc::mallopt(parameter, value);
                }
            }
        }
    }
}

/// A count of requests, closed sessions and closed connections, and of the connections open,
/// shared by the router, the listener's connections and the trim task.
#[derive(Debug, Clone, Default)]
pub struct Activity(Arc<Counts>);

#[derive(Debug, Default)]
struct Counts {
    moves: AtomicU64,
    open_connections: AtomicU64,
    /// Notified when the last open connection closed.
    none_open: Notify,
    /// Trims done, which the unit tests read (not compiled into the shipped binary).
    #[cfg(test)]
    trims: AtomicU64,
}

impl Activity {
    /// Counts one request or one closed session.
    pub fn touch(&self) {
        self.0.moves.fetch_add(1, Ordering::Relaxed);
    }

    fn count(&self) -> u64 {
        self.0.moves.load(Ordering::Relaxed)
    }

    fn open_connections(&self) -> u64 {
        self.0.open_connections.load(Ordering::Relaxed)
    }

    fn connection_opened(&self) {
        self.0.open_connections.fetch_add(1, Ordering::Relaxed);
    }

    fn connection_closed(&self) {
        self.touch();
        if self.0.open_connections.fetch_sub(1, Ordering::Relaxed) == 1 {
            self.0.none_open.notify_one();
        }
    }

    /// Starts the trim task, which ends with `shutdown`. Must be called within a tokio runtime.
    pub fn trim_when_idle(&self, shutdown: CancellationToken) {
        tokio::spawn(trim_when_idle(self.clone(), shutdown));
    }
}

/// One accepted connection: the listener adds it to each of the connection's requests (an
/// extension) and keeps it while the connection is served; the first request that reaches
/// [`count_request`] ties it to the server's [`Activity`], and its close (the last clone
/// dropped) counts there.
#[derive(Debug, Clone, Default)]
pub struct Connection(Arc<ConnectionLife>);

#[derive(Debug, Default)]
struct ConnectionLife {
    activity: OnceLock<Activity>,
}

impl Connection {
    fn attach(&self, activity: &Activity) {
        if self.0.activity.set(activity.clone()).is_ok() {
            activity.connection_opened();
        }
    }
}

impl Drop for ConnectionLife {
    fn drop(&mut self) {
        if let Some(activity) = self.activity.get() {
            activity.connection_closed();
        }
    }
}

/// Middleware: every request is activity, and ties its connection to the activity.
pub async fn count_request(
    State(activity): State<Activity>,
    request: Request,
    next: Next,
) -> Response {
    count(&activity, &request);
    next.run(request).await
}

/// [`count_request`]'s work: the request is activity, and ties its connection to it.
pub fn count(activity: &Activity, request: &Request) {
    count_on(activity, request.extensions().get::<Connection>());
}

/// A request on this connection (when known) is activity, and ties the connection to it.
pub fn count_on(activity: &Activity, connection: Option<&Connection>) {
    if let Some(connection) = connection {
        connection.attach(activity);
    }
    activity.touch();
}

/// Trims once the activity count stood still for a whole interval after it last moved, and
/// once it stood still for [`CONNECTIONLESS_SETTLE`] after the last open connection closed.
async fn trim_when_idle(activity: Activity, shutdown: CancellationToken) {
    let mut seen = activity.count();
    let mut trimmed_at = seen;
    loop {
        let none_open = tokio::select! {
            () = shutdown.cancelled() => return,
            () = tokio::time::sleep(TRIM_INTERVAL) => false,
            () = activity.0.none_open.notified() => true,
        };
        if none_open {
            seen = activity.count();
            tokio::select! {
                () = shutdown.cancelled() => return,
                () = tokio::time::sleep(CONNECTIONLESS_SETTLE) => {}
            }
        }
        let now = activity.count();
        let settled = !none_open || activity.open_connections() == 0;
        if now == seen && now != trimmed_at && settled {
            trimmed_at = now;
            let _ = tokio::task::spawn_blocking(give_memory_back).await;
            #[cfg(test)]
            activity.0.trims.fetch_add(1, Ordering::Relaxed);
        }
        seen = now;
    }
}

/// Returns the free heap of every arena to the operating system (glibc's `malloc_trim(0)`): a
/// server going idle, and a build between its state stage and writing its files.
pub fn give_memory_back() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases memory malloc holds free; it has no preconditions.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trims(activity: &Activity) -> u64 {
        activity.0.trims.load(Ordering::Relaxed)
    }

    async fn settle() {
        tokio::time::sleep(CONNECTIONLESS_SETTLE + Duration::from_millis(500)).await;
    }

    #[tokio::test]
    async fn the_last_connection_closing_trims_again() {
        let activity = Activity::default();
        let shutdown = CancellationToken::new();
        activity.trim_when_idle(shutdown.clone());
        let (first, second) = (Connection::default(), Connection::default());
        for connection in [&first, &second] {
            connection.attach(&activity);
            connection.attach(&activity);
        }
        activity.touch();
        assert_eq!(activity.open_connections(), 2, "a connection counts once");
        drop(first);
        settle().await;
        assert_eq!(trims(&activity), 0, "one connection is still open");
        let request_held = second.clone();
        drop(second);
        settle().await;
        assert_eq!(trims(&activity), 0, "a request still holds the connection");
        drop(request_held);
        settle().await;
        assert_eq!(trims(&activity), 1, "the last connection closed");
        assert_eq!(activity.open_connections(), 0);
        shutdown.cancel();
    }
}

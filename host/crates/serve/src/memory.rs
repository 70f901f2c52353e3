//! Giving freed heap back to the operating system once the server goes idle.
//!
//! Why: glibc keeps freed heap in its arenas, so 11,000 MCP sessions that expired left RSS at
//! 703 MB, and a burst of calls (the 100,000-call soak) left RSS well above where it started.
//! Every request and every closed session counts as [`Activity`]; a background task calls
//! `malloc_trim(0)` once the count has stood still for a whole [`TRIM_INTERVAL`] after it moved,
//! so a busy server never trims and an idle one trims once.
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

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use tokio_util::sync::CancellationToken;

/// How long the server must have been idle before freed heap is given back.
pub const TRIM_INTERVAL: Duration = Duration::from_secs(5);

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

/// A count of requests and closed sessions, shared by the router and the trim task.
#[derive(Debug, Clone, Default)]
pub struct Activity(Arc<AtomicU64>);

impl Activity {
    /// Counts one request or one closed session.
    pub fn touch(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }

    fn count(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }

    /// Starts the trim task, which ends with `shutdown`. Must be called within a tokio runtime.
    pub fn trim_when_idle(&self, shutdown: CancellationToken) {
        tokio::spawn(trim_when_idle(self.clone(), shutdown));
    }
}

/// Middleware: every request is activity.
pub async fn count_request(
    State(activity): State<Activity>,
    request: Request,
    next: Next,
) -> Response {
    activity.touch();
    next.run(request).await
}

/// Trims once the activity count stood still for a whole interval after it last moved.
async fn trim_when_idle(activity: Activity, shutdown: CancellationToken) {
    let mut seen = activity.count();
    let mut trimmed_at = seen;
    loop {
        tokio::select! {
            () = shutdown.cancelled() => return,
            () = tokio::time::sleep(TRIM_INTERVAL) => {}
        }
        let now = activity.count();
        if now == seen && now != trimmed_at {
            trimmed_at = now;
            let _ = tokio::task::spawn_blocking(give_memory_back).await;
        }
        seen = now;
    }
}

/// Returns the free heap at the top of every arena to the operating system (glibc).
fn give_memory_back() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases memory malloc holds free; it has no preconditions.
    unsafe {
        libc::malloc_trim(0);
    }
}

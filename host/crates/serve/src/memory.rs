//! Giving freed heap back to the operating system once the server goes idle.
//!
//! Why: glibc keeps freed heap in its arenas, so 11,000 MCP sessions that expired left RSS at
//! 703 MB, and a burst of calls (the 100,000-call soak) left RSS well above where it started.
//! Every request and every closed session counts as [`Activity`]; a background task calls
//! `malloc_trim(0)` once the count has stood still for a whole [`TRIM_INTERVAL`] after it moved,
//! so a busy server never trims and an idle one trims once.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use tokio_util::sync::CancellationToken;

/// How long the server must have been idle before freed heap is given back.
pub const TRIM_INTERVAL: Duration = Duration::from_secs(5);

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

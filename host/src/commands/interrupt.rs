//! Signals during the synchronous bundle commands (`environment-build`, `environment-export`).
//!
//! * The first SIGINT, or a SIGTERM, sets a flag the stages poll: the command stops at its next
//!   check (between stages, between files, between the chunks of a copied file) with a
//!   `cancelled` refusal naming the signal, and exits 130 (SIGINT) or 143 (SIGTERM).
//! * SIGTERM or a second SIGINT ends the command: when the command has not reported within a
//!   short grace period (a stage that does not poll, such as inspecting a large capture), the
//!   signal thread removes the bundle's staging folder, prints the `cancelled` refusal itself and
//!   exits 143/130. Either way a bundle appears whole or not at all.
//!
//! Exactly one of the command and the signal thread reports the end (`reported`), so a refusal
//! is never printed twice.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rea_evidence::Refusal;

/// How long an ending signal waits for the command to report on its own.
const GRACE: Duration = Duration::from_secs(3);

const SIGINT: i32 = 2;
const SIGTERM: i32 = 15;

/// SIGINT and SIGTERM as flags the stages poll, shared with the signal thread.
#[derive(Debug, Clone, Default)]
pub struct Interrupt(Arc<Shared>);

#[derive(Debug, Default)]
struct Shared {
    /// The first signal (SIGINT or SIGTERM), 0 before any.
    first: AtomicI32,
    /// The signal that ends the command (SIGTERM, or a second SIGINT), 0 before any.
    ending: AtomicI32,
    /// Whether the command ended its own way (set by [`Interrupt::claim_report`]).
    reported: Mutex<bool>,
    /// The folder a bundle is being written into, to remove if the process must end.
    staging: Mutex<Option<PathBuf>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The name of a signal number this module handles.
fn signal_name(signal: i32) -> &'static str {
    if signal == SIGTERM {
        "SIGTERM"
    } else {
        "SIGINT"
    }
}

impl Interrupt {
    /// Installs the handlers: `json` and `stage` shape the refusal the signal thread prints when it
    /// must end the process itself. A failure to install leaves the default actions.
    pub fn install(json: bool, stage: &'static str) -> Self {
        let interrupt = Self::default();
        #[cfg(unix)]
        if let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) {
            let shared = interrupt.clone();
            let _ = std::thread::Builder::new()
                .name("rea-signals".to_owned())
                .spawn(move || {
                    for signal in signals.forever() {
                        if shared.record(signal) {
                            shared.end_after_grace(json, stage);
                        }
                    }
                });
        }
        #[cfg(not(unix))]
        let _ = (json, stage);
        interrupt
    }

    /// A flag that never fires (the MCP tool).
    pub fn never() -> Self {
        Self::default()
    }

    /// Records a signal; answers whether it ends the command (SIGTERM or a second SIGINT).
    fn record(&self, signal: i32) -> bool {
        let first = self
            .0
            .first
            .compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst);
        if signal == SIGINT && first.is_ok() {
            return false;
        }
        self.0.ending.store(signal, Ordering::SeqCst);
        true
    }

    /// Whether a signal arrived: the stages stop at their next check.
    pub fn fired(&self) -> bool {
        self.0.first.load(Ordering::SeqCst) != 0
    }

    /// Whether a signal that ends the command arrived (SIGTERM or a second SIGINT).
    pub fn ending(&self) -> bool {
        self.0.ending.load(Ordering::SeqCst) != 0
    }

    /// The signal the command reports: the ending one, else the first (`SIGINT` before any).
    pub fn signal(&self) -> &'static str {
        match self.0.ending.load(Ordering::SeqCst) {
            0 => signal_name(self.0.first.load(Ordering::SeqCst)),
            ending => signal_name(ending),
        }
    }

    /// The exit code of a command a signal cancelled: 143 for SIGTERM, 130 for SIGINT.
    pub fn exit_code(&self) -> u8 {
        if self.signal() == "SIGTERM" { 143 } else { 130 }
    }

    /// The folder a bundle is being written into (`None` once renamed or removed).
    pub fn set_staging(&self, folder: Option<&Path>) {
        *lock(&self.0.staging) = folder.map(Path::to_path_buf);
    }

    /// The command reports its own end: the signal thread will not. Blocks forever when the
    /// signal thread is already ending the process.
    pub fn claim_report(&self) {
        *lock(&self.0.reported) = true;
    }

    /// Gives the command [`GRACE`] to report on its own; otherwise removes the staging folder,
    /// prints the refusal and exits.
    fn end_after_grace(&self, json: bool, stage: &'static str) {
        let deadline = Instant::now() + GRACE;
        while Instant::now() < deadline {
            if *lock(&self.0.reported) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let mut reported = lock(&self.0.reported);
        if *reported {
            return;
        }
        *reported = true;
        let staging = lock(&self.0.staging).take();
        let removed = staging
            .as_deref()
            .map(|folder| std::fs::remove_dir_all(folder).is_ok());
        let signal = self.signal();
        let detail = match removed {
            None => "nothing was written".to_owned(),
            Some(true) => "the partial bundle was removed; nothing was left".to_owned(),
            Some(false) => format!(
                "the partial bundle {} could not be removed",
                staging.unwrap_or_default().display()
            ),
        };
        let refusal = Refusal::cancelled(format!("{signal} received; {detail}"))
            .with_data(serde_json::json!({ "signal": signal }))
            .in_stage(stage);
        let line = if json {
            refusal.to_json_line()
        } else {
            refusal.to_text_line()
        };
        eprintln!("{line}");
        // `reported` stays locked: the command cannot print after this.
        std::process::exit(i32::from(self.exit_code()));
    }

    /// Names the signal in a cancellation refusal (`data.signal`).
    pub fn name_signal(&self, refusal: Refusal) -> Refusal {
        let signal = self.signal();
        let mut data = refusal
            .data
            .clone()
            .unwrap_or_else(|| serde_json::json!({}));
        if let Some(object) = data.as_object_mut() {
            object.insert("signal".to_owned(), serde_json::json!(signal));
        }
        Refusal {
            data: Some(data),
            ..refusal
        }
    }
}

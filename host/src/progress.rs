//! Progress of a long command on stderr (`environment-build`, `environment-export`, `serve`).
//!
//! Three modes, chosen once:
//! - **terminal** (stderr is a terminal, no `--quiet`): nothing for the first second, so a quick
//!   command stays quiet; after that a one-line bar with the elapsed time and the stage, a line
//!   per finished stage with what it counted (`inspect: 13204 records, 31.2 MB`), and a
//!   byte-based percentage while the capture is read (`inspect:  42% 13.1 MB of 31.2 MB`, as the
//!   extractor reports it through the plugin ABI) and while the bundle is written. Counted lines
//!   from the first second are shown when the bar appears.
//! - **log** (stderr is not a terminal): JSON log lines at info level (`{"level":"info",
//!   "msg":"inspecting …","stage":"inspect"}`, and `"msg":"counted"` with the counts), as the
//!   spec's "stage progress is logged to stderr at info level" asks; `REA_LOG_LEVEL` filters them.
//!   Once the command has run a second, a byte-counting stage logs `"msg":"progress"` with
//!   `bytes`, `total_bytes` and `percent` each time it passes a tenth of its total.
//! - **quiet** (`--quiet`): nothing.
//!
//! SIGINT and SIGTERM are flags the stages poll ([`Interrupt`]); `REA_TEST_HOLD=<stage>` holds a stage until
//! SIGINT (a test hook, see [`Progress::stage`]).

use std::io::IsTerminal;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rea_bundle::ExportObserver;
use rea_bundle::output::WriteObserver;
use rea_evidence::Refusal;

pub use crate::commands::interrupt::Interrupt;
use crate::memory_limit::MemoryLimit;

/// How long a command runs before its progress bar appears (and its `progress` log lines start).
pub const QUIET_PERIOD: Duration = Duration::from_secs(1);

/// How long this command stays quiet: [`QUIET_PERIOD`], unless a test forces another
/// ([`rea_evidence::test_hooks::quiet_period`], absent from the shipped binary).
fn quiet_period() -> Duration {
    rea_evidence::test_hooks::quiet_period().unwrap_or(QUIET_PERIOD)
}

/// Off a terminal, a byte-counting stage logs a line each time it passes this many percent.
pub const LOG_STEP_PERCENT: u64 = 10;

/// The terminal bar: hidden for the first second, then drawn on stderr.
struct Bar {
    bar: indicatif::ProgressBar,
    started: Instant,
    /// Counted lines waiting for the bar to appear.
    pending: Arc<Mutex<Vec<String>>>,
    visible: Arc<AtomicBool>,
}

impl Bar {
    fn start() -> Self {
        let bar =
            indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::hidden());
        bar.set_style(style("{spinner} {elapsed:>3} {msg}"));
        let pending: Arc<Mutex<Vec<String>>> = Arc::default();
        let visible: Arc<AtomicBool> = Arc::default();
        let shown = (bar.clone(), Arc::clone(&pending), Arc::clone(&visible));
        std::thread::spawn(move || {
            std::thread::sleep(quiet_period());
            let (bar, pending, visible) = shown;
            if bar.is_finished() {
                return;
            }
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            bar.enable_steady_tick(Duration::from_millis(120));
            visible.store(true, Ordering::SeqCst);
            for line in pending
                .lock()
                .map(|mut lines| std::mem::take(&mut *lines))
                .unwrap_or_default()
            {
                bar.println(line);
            }
        });
        Self {
            bar,
            started: Instant::now(),
            pending,
            visible,
        }
    }

    fn println(&self, line: String) {
        if self.visible.load(Ordering::SeqCst) {
            self.bar.println(line);
        } else if let Ok(mut pending) = self.pending.lock() {
            pending.push(line);
        }
    }
}

fn style(template: &str) -> indicatif::ProgressStyle {
    indicatif::ProgressStyle::with_template(template)
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner())
}

enum Mode {
    Terminal(Bar),
    Log,
    Quiet,
}

/// Stage progress on stderr (see the module documentation).
pub struct Progress {
    interrupt: Interrupt,
    mode: Mode,
    /// The planned files' sizes, and the bytes written so far.
    sizes: std::collections::BTreeMap<String, u64>,
    written: u64,
    total: u64,
    started: Instant,
    /// The last byte share shown or logged: the stage and its percentage (its log step off a
    /// terminal), so a report that changes neither costs nothing.
    last_share: Option<(String, u64)>,
    /// `--max-memory`, checked at each stage boundary ([`crate::memory_limit`]).
    memory: Option<MemoryLimit>,
    /// The stage running (what a memory refusal names).
    current: String,
    /// The memory refusal a boundary check found (reported instead of the cancellation it
    /// caused, see [`Progress::explain`]).
    over_memory: Option<Refusal>,
}

impl Progress {
    /// Starts reporting: on a terminal unless `quiet`, else JSON log lines unless `quiet`.
    pub fn start(interrupt: Interrupt, quiet: bool) -> Self {
        let mode = if quiet {
            Mode::Quiet
        } else if std::io::stderr().is_terminal() {
            Mode::Terminal(Bar::start())
        } else {
            let level = rea_serve::config::log_level(&rea_serve::config::ProcessEnv)
                .unwrap_or(tracing::level_filters::LevelFilter::INFO);
            rea_serve::logging::init(level);
            Mode::Log
        };
        Self {
            interrupt,
            mode,
            sizes: std::collections::BTreeMap::new(),
            written: 0,
            total: 0,
            started: Instant::now(),
            last_share: None,
            memory: None,
            current: String::new(),
            over_memory: None,
        }
    }

    /// Checks `--max-memory` at every stage boundary from now on.
    pub fn with_memory_limit(mut self, memory: Option<MemoryLimit>) -> Self {
        self.memory = memory;
        self
    }

    /// Whether the peak memory passed `--max-memory` (remembering the refusal).
    fn over_memory(&mut self) -> bool {
        if self.over_memory.is_none()
            && let Some(limit) = self.memory
        {
            self.over_memory = limit.check_peak(&self.current).err();
        }
        self.over_memory.is_some()
    }

    /// The refusal to report for a command that ended in `refusal`: the memory refusal when a
    /// boundary check stopped it (as a signal would, so a bundle being written was removed),
    /// keeping the stage and what the cancellation said about the files.
    pub fn explain(&mut self, refusal: Refusal) -> Refusal {
        let Some(memory) = self.over_memory.take() else {
            return refusal;
        };
        if refusal.code != "cancelled" || self.interrupt.fired() {
            return refusal;
        }
        let mut data = memory.data.clone().unwrap_or_default();
        if let (Some(data), Some(serde_json::Value::Object(files))) =
            (data.as_object_mut(), refusal.data)
        {
            data.extend(files);
        }
        let mut explained =
            nothing_written(Refusal::resource_constraint(memory.message).with_data(data));
        explained.stage = refusal.stage;
        explained
    }

    /// A stage has read (or written) `done` of its `total` bytes: the bar shows the percentage;
    /// off a terminal a `progress` line is logged per [`LOG_STEP_PERCENT`] once the command has
    /// run for [`QUIET_PERIOD`].
    pub fn bytes(&mut self, stage: &str, done: u64, total: u64) {
        let percent = percent(done, total);
        match &self.mode {
            Mode::Terminal(bar) => {
                if changed_share(&mut self.last_share, stage, percent) {
                    bar.bar.set_message(format!(
                        "{stage}: {percent:>3}% {} of {}",
                        human_bytes(done),
                        human_bytes(total)
                    ));
                }
            }
            Mode::Log => self.log_share(stage, done, total),
            Mode::Quiet => {}
        }
    }

    /// Logs a `progress` line when the stage passed a log step since the last one.
    fn log_share(&mut self, stage: &str, done: u64, total: u64) {
        let percent = percent(done, total);
        if self.started.elapsed() < quiet_period()
            || !changed_share(&mut self.last_share, stage, percent / LOG_STEP_PERCENT)
        {
            return;
        }
        tracing::info!(
            stage,
            bytes = done,
            total_bytes = total,
            percent,
            "progress"
        );
    }

    /// A stage starts.
    pub fn stage(&mut self, stage: &str, detail: &str) {
        stage.clone_into(&mut self.current);
        match &self.mode {
            Mode::Terminal(bar) => bar.bar.set_message(format!("{stage}: {detail}")),
            Mode::Log => tracing::info!(stage, "{detail}"),
            Mode::Quiet => {}
        }
        self.hold_for_test(stage);
    }

    /// A stage counted what it made: a line on the terminal, a `counted` log line otherwise.
    pub fn counted(&mut self, stage: &str, counts: &[(&str, u64)]) {
        let listed: Vec<String> = counts
            .iter()
            .map(|(what, count)| match *what {
                "bytes" => human_bytes(*count),
                what => format!("{count} {}", what.replace('_', " ")),
            })
            .collect();
        match &self.mode {
            Mode::Terminal(bar) => bar.println(format!(
                "  {stage}: {} ({:.1} s)",
                listed.join(", "),
                bar.started.elapsed().as_secs_f64()
            )),
            Mode::Log => {
                let counts: serde_json::Map<String, serde_json::Value> = counts
                    .iter()
                    .map(|(what, count)| ((*what).to_owned(), (*count).into()))
                    .collect();
                tracing::info!(stage, counts = %serde_json::Value::Object(counts), "counted");
            }
            Mode::Quiet => {}
        }
    }

    /// Test hook ([`rea_evidence::test_hooks::hold`]): holds the command at the start of a stage
    /// the tests name (logging `{"level":"warn","msg":"test hold","stage":…}`) until a signal
    /// arrives or the hold ends, so a test can cancel inside a stage that otherwise takes
    /// milliseconds; a `written:<file>` stage holds until a signal ends the command (SIGTERM or a
    /// second SIGINT); a stuck hold ignores every signal, as a stage that never polls would.
    fn hold_for_test(&self, stage: &str) {
        let Some(hold) = rea_evidence::test_hooks::hold(stage) else {
            return;
        };
        tracing::warn!(stage, "test hold");
        let deadline = Instant::now() + rea_evidence::test_hooks::HOLD;
        let released = || match hold {
            rea_evidence::test_hooks::Hold::Stuck => false,
            rea_evidence::test_hooks::Hold::UntilSignal if stage.starts_with("written:") => {
                self.interrupt.ending()
            }
            rea_evidence::test_hooks::Hold::UntilSignal => self.interrupt.fired(),
        };
        while !released() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Refuses with `cancelled` when a signal arrived, and with `resource_constraint` when the
    /// peak memory passed `--max-memory` (nothing written yet).
    pub fn check(&mut self) -> Result<(), Refusal> {
        if self.interrupt.fired() {
            let signal = self.interrupt.signal();
            return Err(Refusal::cancelled(format!(
                "{signal} received before the bundle was written; nothing was written"
            ))
            .with_data(serde_json::json!({ "signal": signal })));
        }
        if self.over_memory()
            && let Some(refusal) = self.over_memory.take()
        {
            return Err(nothing_written(refusal));
        }
        Ok(())
    }

    /// Clears the bar.
    pub fn finish(&mut self) {
        if let Mode::Terminal(bar) = &self.mode {
            bar.bar.finish_and_clear();
        }
    }
}

/// A memory refusal of a build, saying what it left.
fn nothing_written(mut refusal: Refusal) -> Refusal {
    refusal.message.push_str("; nothing was written");
    refusal
}

/// Whether `(stage, mark)` differs from the `last` share shown, remembering it when it does.
fn changed_share(last: &mut Option<(String, u64)>, stage: &str, mark: u64) -> bool {
    let same = last
        .as_ref()
        .is_some_and(|(last_stage, last_mark)| last_stage == stage && *last_mark == mark);
    if !same {
        *last = Some((stage.to_owned(), mark));
    }
    !same
}

/// `done` of `total` in whole percent (100 for an empty total), never above 100.
fn percent(done: u64, total: u64) -> u64 {
    (done.min(total).saturating_mul(100))
        .checked_div(total)
        .unwrap_or(100)
}

/// Bytes as a person reads them (`31.2 MB`).
pub fn human_bytes(bytes: u64) -> String {
    let bytes = bytes as f64;
    if bytes >= 1e6 {
        format!("{:.1} MB", bytes / 1e6)
    } else if bytes >= 1e3 {
        format!("{:.1} kB", bytes / 1e3)
    } else {
        format!("{bytes} B")
    }
}

impl WriteObserver for Progress {
    fn written(&mut self, path: &str, done: usize, total: usize) {
        self.hold_for_test(&format!("written:{path}"));
        self.written += self.sizes.get(path).copied().unwrap_or(0);
        match &self.mode {
            Mode::Terminal(bar) => {
                let percent = percent(self.written, self.total);
                bar.bar.set_message(format!(
                    "write: {percent:>3}% {} of {} ({done}/{total} files) {path}",
                    human_bytes(self.written),
                    human_bytes(self.total)
                ));
            }
            Mode::Log => {
                tracing::debug!(stage = "write", path, done, total, "file written");
                let (written, total) = (self.written, self.total);
                self.log_share("write", written, total);
            }
            Mode::Quiet => {}
        }
    }

    fn cancelled(&mut self) -> bool {
        self.interrupt.fired() || self.over_memory()
    }

    fn staging(&mut self, folder: Option<&Path>) {
        self.interrupt.set_staging(folder);
    }

    fn swept(&mut self, folder: &Path) {
        let folder = folder.display().to_string();
        tracing::warn!(
            folder,
            "removed the staging folder of an earlier build that was killed"
        );
    }
}

impl ExportObserver for Progress {
    fn stage(&mut self, stage: &str, detail: &str) {
        Progress::stage(self, stage, detail);
    }

    fn counted(&mut self, stage: &str, counts: &[(&str, u64)]) {
        Progress::counted(self, stage, counts);
    }

    fn planned(&mut self, files: &[(&str, u64)]) {
        self.sizes = files
            .iter()
            .map(|(path, bytes)| ((*path).to_owned(), *bytes))
            .collect();
        self.total = files.iter().map(|(_, bytes)| bytes).sum();
        self.written = 0;
    }
}

/// An observer that reports nothing and never cancels (the MCP tool).
#[derive(Debug, Default)]
pub struct Quiet;

impl WriteObserver for Quiet {
    fn written(&mut self, _: &str, _: usize, _: usize) {}
    fn cancelled(&mut self) -> bool {
        false
    }
}

impl ExportObserver for Quiet {
    fn stage(&mut self, _: &str, _: &str) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_read_as_a_person_reads_them() {
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(31_200_000), "31.2 MB");
        assert_eq!(human_bytes(1_500), "1.5 kB");
    }

    #[test]
    fn the_share_is_whole_percent_and_never_over_a_hundred() {
        assert_eq!(percent(0, 200), 0);
        assert_eq!(percent(199, 200), 99);
        assert_eq!(percent(200, 200), 100);
        assert_eq!(percent(300, 200), 100);
        assert_eq!(percent(0, 0), 100);
    }

    #[test]
    fn a_share_is_shown_again_only_when_its_stage_or_mark_changes() {
        let mut last = None;
        assert!(changed_share(&mut last, "inspect", 1));
        assert!(!changed_share(&mut last, "inspect", 1));
        assert!(changed_share(&mut last, "inspect", 2));
        assert!(changed_share(&mut last, "write", 2));
        assert!(!changed_share(&mut last, "write", 2));
    }

    #[test]
    fn the_written_bytes_follow_the_plan() {
        let mut progress = Progress::start(Interrupt::never(), true);
        progress.planned(&[("a", 30), ("bin/rea", 70)]);
        progress.written("a", 1, 2);
        assert_eq!((progress.written, progress.total), (30, 100));
        progress.written("bin/rea", 2, 2);
        assert_eq!(progress.written, 100);
    }
}

//! Test hooks: environment variables only the integration tests set, compiled only with the
//! `test-hooks` feature (the tests crate's `rea-under-test` binary enables it; `cargo build
//! --release -p rea` does not, so the shipped binary neither reads nor names them).
//!
//! * `REA_TEST_HOLD=<stage>`: [`holds`] answers `true` for that stage, and the stage waits (up
//!   to 60 s, or until a signal) after logging `{"level":"warn","msg":"test hold","stage":…}`, so
//!   a test can deliver a signal inside a stage that otherwise takes milliseconds: `loading`
//!   (`rea_manifest::Environment::from_evidence`), `binding` (`rea_serve::server::bind`) and the
//!   stages of `environment-build` / `environment-export`. There `written:<file>` holds the
//!   write after that file until a signal ends the command, and `stuck:<stage>` ([`hold`]) holds
//!   whatever arrives.
//! * `REA_TEST_HEAP_HEADROOM=<bytes>`: [`heap_headroom`] replaces the measured heap headroom, so a
//!   test can force one too small for any input.
//! * `REA_TEST_QUIET_PERIOD_MS=<ms>`: [`quiet_period`] replaces the second a command runs before
//!   its progress shows, so a test sees the progress of a capture this machine reads quickly.
//!
//! Without the feature each answers "not set".

use std::time::Duration;

/// How long a held stage waits at most.
pub const HOLD: Duration = Duration::from_secs(60);

/// Whether `REA_TEST_HOLD` names `stage` (always `false` without the `test-hooks` feature).
#[cfg(feature = "test-hooks")]
pub fn holds(stage: &str) -> bool {
    std::env::var_os("REA_TEST_HOLD").is_some_and(|value| value == stage)
}

/// Whether `REA_TEST_HOLD` names `stage` (always `false` without the `test-hooks` feature).
#[cfg(not(feature = "test-hooks"))]
pub fn holds(_stage: &str) -> bool {
    false
}

/// The heap headroom `REA_TEST_HEAP_HEADROOM` forces: `None` when unset (always without the
/// `test-hooks` feature), `Some(None)` when set to something other than a byte count.
#[cfg(feature = "test-hooks")]
pub fn heap_headroom() -> Option<Option<u64>> {
    let forced = std::env::var_os("REA_TEST_HEAP_HEADROOM")?;
    Some(forced.to_str().and_then(|text| text.trim().parse().ok()))
}

/// The heap headroom `REA_TEST_HEAP_HEADROOM` forces: `None` when unset (always without the
/// `test-hooks` feature), `Some(None)` when set to something other than a byte count.
#[cfg(not(feature = "test-hooks"))]
pub fn heap_headroom() -> Option<Option<u64>> {
    None
}

/// The quiet period `REA_TEST_QUIET_PERIOD_MS` forces: `None` when unset or not a number of
/// milliseconds (always without the `test-hooks` feature).
#[cfg(feature = "test-hooks")]
pub fn quiet_period() -> Option<Duration> {
    let forced = std::env::var("REA_TEST_QUIET_PERIOD_MS").ok()?;
    forced.trim().parse().ok().map(Duration::from_millis)
}

/// The quiet period `REA_TEST_QUIET_PERIOD_MS` forces: `None` when unset or not a number of
/// milliseconds (always without the `test-hooks` feature).
#[cfg(not(feature = "test-hooks"))]
pub fn quiet_period() -> Option<Duration> {
    None
}

/// How `REA_TEST_HOLD` holds a stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hold {
    /// `REA_TEST_HOLD=<stage>`: until a signal arrives (or [`HOLD`] passes).
    UntilSignal,
    /// `REA_TEST_HOLD=stuck:<stage>`: whatever arrives, as a stage that never polls would (until
    /// [`HOLD`] passes).
    Stuck,
}

/// How `REA_TEST_HOLD` holds `stage`, if it names it (always `None` without the `test-hooks`
/// feature).
#[cfg(feature = "test-hooks")]
pub fn hold(stage: &str) -> Option<Hold> {
    let held = std::env::var_os("REA_TEST_HOLD")?;
    if held == stage {
        return Some(Hold::UntilSignal);
    }
    (held.to_str()?.strip_prefix("stuck:") == Some(stage)).then_some(Hold::Stuck)
}

/// How `REA_TEST_HOLD` holds `stage`, if it names it (always `None` without the `test-hooks`
/// feature).
#[cfg(not(feature = "test-hooks"))]
pub fn hold(_stage: &str) -> Option<Hold> {
    None
}

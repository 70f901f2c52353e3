//! A test-only hold of input loading, for testing a signal that arrives while `rea
//! environment-serve` loads its inputs (contract SERVE-018..020) without racing the load, which
//! takes milliseconds.
//!
//! With `REA_TEST_HOLD=loading` in the environment, [`crate::Environment::from_evidence`] writes
//! `{"level":"warn","msg":"test hold","stage":"loading"}` on stderr and then blocks its thread
//! for [`HOLD`] before going on. The serve command loads on a blocking thread and races that
//! load against SIGINT/SIGTERM, so a test waits for the line, signals, and sees the `cancelled`
//! result. `REA_TEST_HOLD=binding` holds `rea-serve`'s DNS/bind the same way. Nothing sets the
//! variable but tests; unset, the hold costs one environment lookup per load.

use std::time::Duration;

/// The variable naming the stage to hold.
pub const TEST_HOLD_VARIABLE: &str = "REA_TEST_HOLD";

/// How long a held stage waits.
pub const HOLD: Duration = Duration::from_secs(60);

/// Holds the calling thread when `REA_TEST_HOLD` names `stage` (see the module docs).
pub fn hold_if_asked(stage: &str) {
    if std::env::var_os(TEST_HOLD_VARIABLE).is_some_and(|value| value == stage) {
        eprintln!(
            "{}",
            serde_json::json!({"level": "warn", "msg": "test hold", "stage": stage})
        );
        std::thread::sleep(HOLD);
    }
}

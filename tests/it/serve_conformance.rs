//! The shared conformance kit's real clients against replay servers of every shared capture:
//! `tests/conformance/run.sh` (which `.ci/run` calls) run from the test suite. Ignored by
//! default because the kit's setup installs pinned Python and npm packages:
//!
//! ```sh
//! cargo test -p rea-tests --test it serve_conformance -- --ignored
//! ```
//!
//! `REA_CONFORMANCE_KIT=/some/dir` reuses a kit already set up there.

use std::process::Command;

use rea_tests::workspace_root;

// contract: SERVE-022, SERVE-025, SERVE-026, SERVE-028, CARD-013, REPLAY-039
#[test]
#[ignore = "installs the conformance kit's pinned packages; run with --ignored"]
fn real_clients_pass_against_every_shared_capture() {
    let script = workspace_root().join("tests/conformance/run.sh");
    let output = Command::new("bash")
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_rea-under-test"))
        .output()
        .expect("run tests/conformance/run.sh");
    let stdout = String::from_utf8_lossy(&output.stdout);
    println!("{stdout}");
    eprintln!("{}", String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "conformance failed:\n{stdout}");
    assert!(stdout.contains(" 0 failed"), "{stdout}");
}

//! Helpers of the `compare_*` tests: a shared capture's build and probes as Evidence files in a
//! temporary folder (made with the binary, as a user would), crafted probes, and the binary run.

use std::path::{Path, PathBuf};

use rea_evidence::Evidence;
use rea_tests::{Run, run_rea, shared_dir};

/// The binary under test.
pub fn rea() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rea-under-test"))
}

/// A shared capture file.
pub fn shared_har(app: &str, name: &str) -> PathBuf {
    shared_dir()
        .join("captures")
        .join(app)
        .join(format!("{name}.har"))
}

/// Inspects a HAR into `dir/<name>.json`.
pub fn inspect_into(dir: &Path, har: &Path, name: &str) {
    let har = har.display().to_string();
    let run = run_rea(&rea(), dir, &["inspect-web-network-capture", &har, "har"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    std::fs::write(dir.join(format!("{name}.json")), run.stdout).expect("write capture");
}

/// A folder holding an app's `build.json`, `manifest.json` (every template rule),
/// `probe-reads.json` and `probe-crud.json`.
pub fn app_dir(app: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for name in ["build", "probe-reads", "probe-crud"] {
        inspect_into(dir.path(), &shared_har(app, name), name);
    }
    std::fs::write(
        dir.path().join("view.json"),
        r#"{"source": {"kind": "evidence-file", "path": "build.json"}, "view": {"kind": "environment-manifest", "template_rules": ["after-uid-literal", "opaque-token", "sibling-variance", "prefix-variance"]}}"#,
    )
    .expect("view");
    let run = run_rea(&rea(), dir.path(), &["inspect-analysis-view", "view.json"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    std::fs::write(dir.path().join("manifest.json"), run.stdout).expect("manifest");
    dir
}

/// Runs `environment-compare manifest.json --evidence build.json` with more arguments.
pub fn compare(dir: &Path, more: &[&str]) -> Run {
    let mut args = vec![
        "environment-compare",
        "manifest.json",
        "--evidence",
        "build.json",
    ];
    args.extend_from_slice(more);
    run_rea(&rea(), dir, &args)
}

/// A successful `--json` run's Evidence, authenticated.
pub fn evidence_of(run: &Run) -> serde_json::Value {
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let evidence = Evidence::authenticate(run.stdout.trim_end().as_bytes()).expect("Evidence");
    assert_eq!(evidence.operation(), "environment_compare");
    serde_json::from_str(&run.stdout).expect("JSON")
}

/// A refused `--json` run's one refusal line; nothing on stdout.
pub fn refusal_of(run: &Run) -> serde_json::Value {
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stdout.is_empty(), "nothing is written: {}", run.stdout);
    assert_eq!(run.stderr.trim_end().lines().count(), 1, "{}", run.stderr);
    serde_json::from_str(run.stderr.trim()).expect("a JSON refusal line")
}

/// A HAR of a shared capture with its entries changed, inspected into `dir/<name>.json`.
pub fn edited_har_into(
    dir: &Path,
    har: &Path,
    name: &str,
    edit: impl FnOnce(&mut Vec<serde_json::Value>),
) {
    let text = std::fs::read_to_string(har).expect("har");
    let mut value: serde_json::Value = serde_json::from_str(&text).expect("HAR JSON");
    let entries = value
        .pointer_mut("/log/entries")
        .and_then(serde_json::Value::as_array_mut)
        .expect("entries");
    edit(entries);
    let path = dir.join(format!("{name}.har"));
    std::fs::write(&path, serde_json::to_vec(&value).expect("text")).expect("write har");
    inspect_into(dir, &path, name);
}

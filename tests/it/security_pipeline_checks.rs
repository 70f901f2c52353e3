//! Issue 15, defect 8: what `rea pipeline check` must refuse, and what a panicking plugin leaves
//! in the log and the build report.

use std::path::PathBuf;

use rea_tests::{built_library, run_rea, shared_dir};
use serde_json::Value;

fn rea() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rea-under-test"))
}

fn check(text: &str) -> (Option<i32>, Vec<Value>) {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("pipeline.toml"), text).expect("pipeline written");
    let run = run_rea(
        &rea(),
        dir.path(),
        &["pipeline", "check", "pipeline.toml", "--json"],
    );
    let refusals = run
        .stderr
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|line| line.get("code").is_some())
        .collect();
    (run.code, refusals)
}

#[test]
fn a_rule_stage_listed_twice_fails_check() {
    let (code, refusals) = check(
        "[capture.extractors]\nhar = \"har\"\n\n[[rules]]\nstage = \"clock\"\n\n[[rules]]\nstage = \"uuid\"\n\n[[rules]]\nstage = \"clock\"\n",
    );
    assert_eq!(code, Some(2), "{refusals:?}");
    assert_eq!(refusals.len(), 1, "{refusals:?}");
    assert_eq!(refusals[0]["code"], "duplicate_rule_stage", "{refusals:?}");
    assert_eq!(
        refusals[0]["data"]["line"], 11,
        "the second listing: {refusals:?}"
    );
}

#[test]
fn a_pipeline_without_a_capture_extractor_fails_check() {
    let (code, refusals) = check("[[rules]]\nstage = \"clock\"\n");
    assert_eq!(code, Some(2), "{refusals:?}");
    assert_eq!(refusals[0]["code"], "no_capture_extractor", "{refusals:?}");
    assert!(
        refusals[0]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("[capture.extractors]"),
        "{refusals:?}"
    );
}

#[test]
fn a_plugin_panic_is_a_structured_log_line_and_in_the_build_report() {
    let dir = tempfile::tempdir().expect("tempdir");
    let library = built_library("rea_fixture_panicking_stage");
    std::fs::write(
        dir.path().join("pipeline.toml"),
        format!(
            "[[plugins]]\npath = \"{}\"\n\n[capture.extractors]\nhar = \"har\"\n\n[[rules]]\nstage = \"fixture-panics\"\n\n[[rules]]\nstage = \"clock\"\n",
            library.display()
        ),
    )
    .expect("pipeline written");
    let har = shared_dir().join("captures/json-server/build.har");
    let run = run_rea(
        &rea(),
        dir.path(),
        &[
            "environment-build",
            &har.display().to_string(),
            "--dry-run",
            "--json",
            "--name",
            "panics",
            "--pipeline",
            "pipeline.toml",
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    for line in run.stderr.lines() {
        assert!(
            serde_json::from_str::<Value>(line).is_ok(),
            "every stderr line is JSON, not raw panic text: {line:?}"
        );
    }
    assert!(
        run.stderr.contains("fixture panic while learning"),
        "the panic is logged: {}",
        run.stderr
    );
    let report: Value = serde_json::from_str(&run.stdout).expect("the report");
    let warning = report["warnings"]
        .as_array()
        .and_then(|warnings| warnings.iter().find(|w| w["code"] == "rule-stage-failed"))
        .unwrap_or_else(|| panic!("no rule-stage-failed warning: {}", report["warnings"]));
    let items = warning["items"].to_string();
    assert!(
        items.contains("fixture-panics") && items.contains("plugin_panicked"),
        "{warning}"
    );
}

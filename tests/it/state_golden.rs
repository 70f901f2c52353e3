//! Golden state Evidence for every shared application capture, and `rea inspect-analysis-view`
//! with an `environment-state` view printing exactly that Evidence.
//!
//! The capture Evidence is inspected in-process with the captures folder replaced by a
//! placeholder (and re-sealed), so the golden files do not depend on where the checkout lives.
//! `REA_BLESS=1` rewrites them.

use crate::state_support;

use rea_state::project_state_evidence;
use serde_json::json;
use state_support::{APPS, RULES, capture, check_golden, golden_dir, rules};

#[test]
fn state_evidence_matches_the_golden_files() {
    // contract: STATE-003, STATE-004, STATE-005, STATE-006, STATE-007, STATE-013
    for app in APPS {
        let capture = capture(&format!("{app}/build.har"));
        let projected = project_state_evidence(&capture, &rules(), &state_support::state_rules())
            .expect("state");
        assert_eq!(projected.state.parent_evidence_id, capture.id());
        let mut bytes = projected.evidence.to_canonical_vec();
        bytes.push(b'\n');
        check_golden(&golden_dir().join(format!("{app}.json")), &bytes);
        // The same capture and rules always seal the same id.
        let again = project_state_evidence(&capture, &rules(), &state_support::state_rules())
            .expect("state");
        assert_eq!(again.evidence.id(), projected.evidence.id());
    }
}

#[test]
fn inspect_analysis_view_prints_the_state_evidence() {
    // contract: STATE-014
    let binary = std::path::PathBuf::from(env!("CARGO_BIN_EXE_rea-under-test"));
    let folder = tempfile::tempdir().expect("temp");
    let capture = capture("json-server/build.har");
    std::fs::write(
        folder.path().join("capture.json"),
        capture.to_canonical_vec(),
    )
    .expect("write");
    let view = json!({
        "source": {"kind": "evidence-file", "path": "capture.json"},
        "view": {"kind": "environment-state", "template_rules": RULES}
    });
    std::fs::write(folder.path().join("view.json"), view.to_string()).expect("write");
    let run = rea_tests::run_rea(
        &binary,
        folder.path(),
        &["inspect-analysis-view", "view.json"],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let expected = std::fs::read_to_string(golden_dir().join("json-server.json")).expect("golden");
    assert_eq!(run.stdout, expected);
    let text = rea_tests::run_rea(
        &binary,
        folder.path(),
        &["inspect-analysis-view", "view.json", "--format", "text"],
    );
    assert_eq!(text.code, Some(0), "{}", text.stderr);
    assert!(
        text.stdout.starts_with("environment state ev_"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("get_posts GET /posts: list of /posts"),
        "{}",
        text.stdout
    );
    // A malformed state view request is refused with a pointer, as the manifest view's are.
    let bad = json!({
        "source": {"kind": "evidence-file", "path": "capture.json"},
        "view": {"kind": "environment-state", "template_rules": ["opaque-token", "opaque-token"]}
    });
    std::fs::write(folder.path().join("bad.json"), bad.to_string()).expect("write");
    let refused = rea_tests::run_rea(
        &binary,
        folder.path(),
        &["inspect-analysis-view", "bad.json"],
    );
    assert_eq!(refused.code, Some(1));
    // contract: BUILD-017 (the views refuse a repeated template rule)
    assert!(
        refused.stderr.contains("/view/template_rules/1"),
        "{}",
        refused.stderr
    );
    assert!(refused.stdout.is_empty());
}

#[test]
fn coverage_matches_the_golden_files() {
    let folder = rea_tests::workspace_root()
        .join("tests")
        .join("golden")
        .join("coverage");
    for app in APPS {
        let capture = capture(&format!("{app}/build.har"));
        let projected = project_state_evidence(&capture, &rules(), &state_support::state_rules())
            .expect("state");
        let coverage = rea_state::coverage::seal_coverage(&projected).expect("coverage");
        assert_eq!(
            coverage
                .body()
                .get("parent_evidence_id")
                .and_then(|id| id.as_str()),
            Some(capture.id())
        );
        let mut bytes = coverage.to_canonical_vec();
        bytes.push(b'\n');
        check_golden(&folder.join(format!("{app}.json")), &bytes);
        // Every withheld write carries its reason's hint; served ones are in the served list.
        for plan in &projected.state.write_plans {
            if plan.served {
                assert!(plan.reason.is_none());
            } else {
                // contract: STATE-107
                let reason = plan.reason.as_deref().expect("a reason");
                assert_eq!(
                    plan.hint.as_deref(),
                    Some(rea_state::writes::model::hint(reason))
                );
            }
        }
    }
}

#[test]
fn inspect_analysis_view_prints_the_coverage_evidence() {
    let binary = std::path::PathBuf::from(env!("CARGO_BIN_EXE_rea-under-test"));
    let folder = tempfile::tempdir().expect("temp");
    let capture = capture("kinto/build.har");
    std::fs::write(
        folder.path().join("capture.json"),
        capture.to_canonical_vec(),
    )
    .expect("write");
    let view = json!({
        "source": {"kind": "evidence-file", "path": "capture.json"},
        "view": {"kind": "environment-coverage", "template_rules": RULES}
    });
    std::fs::write(folder.path().join("view.json"), view.to_string()).expect("write");
    let run = rea_tests::run_rea(
        &binary,
        folder.path(),
        &["inspect-analysis-view", "view.json"],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let expected = std::fs::read_to_string(
        rea_tests::workspace_root().join("tests/golden/coverage/kinto.json"),
    )
    .expect("golden");
    assert_eq!(run.stdout, expected);
    let text = rea_tests::run_rea(
        &binary,
        folder.path(),
        &["inspect-analysis-view", "view.json", "--format", "text"],
    );
    assert!(
        text.stdout.starts_with("environment coverage ev_"),
        "{}",
        text.stdout
    );
    assert!(text.stdout.contains("served"), "{}", text.stdout);
}

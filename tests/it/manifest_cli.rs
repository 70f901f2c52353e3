//! `rea inspect-analysis-view` through the binary: the manual pipeline's second step, its sources,
//! its output and its refusals.

use std::path::{Path, PathBuf};

use rea_evidence::Evidence;
use rea_json::Json;
use rea_tests::{Run, run_rea, shared_dir};

fn rea() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rea-under-test"))
}

fn capture(name: &str) -> PathBuf {
    shared_dir().join("captures").join(name)
}

/// A temporary folder holding `capture.json`, the capture Evidence of a shared capture.
fn workspace(har: &str, extra: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let har = capture(har).display().to_string();
    let mut args = vec!["inspect-web-network-capture", har.as_str(), "har"];
    args.extend_from_slice(extra);
    let run = run_rea(&rea(), dir.path(), &args);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    std::fs::write(dir.path().join("capture.json"), run.stdout).expect("write capture");
    dir
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).expect("write view");
}

fn file_view(path: &str, rules: &str) -> String {
    format!(
        r#"{{"source": {{"kind": "evidence-file", "path": "{path}"}}, "view": {{"kind": "environment-manifest", "template_rules": {rules}}}}}"#
    )
}

fn inline_view(dir: &Path, rules: &str) -> String {
    let evidence = std::fs::read_to_string(dir.join("capture.json")).expect("capture");
    format!(
        r#"{{"source": {{"kind": "inline", "evidence": {}}}, "view": {{"kind": "environment-manifest", "template_rules": {rules}}}}}"#,
        evidence.trim_end()
    )
}

fn view(dir: &Path, name: &str) -> Run {
    run_rea(&rea(), dir, &["inspect-analysis-view", name, "--json"])
}

fn refusal(run: &Run) -> serde_json::Value {
    refusal_with(run, 1)
}

/// [`refusal`] with another exit code (2: a usage mistake, such as a missing file).
fn refusal_with(run: &Run, exit: i32) -> serde_json::Value {
    assert_eq!(run.code, Some(exit), "{}", run.stderr);
    assert!(run.stdout.is_empty());
    serde_json::from_str(run.stderr.trim())
        .unwrap_or_else(|_| panic!("one JSON line: {}", run.stderr))
}

const EXAMPLE_RULES: &str = r#"["after-uid-literal", "opaque-token", "sibling-variance"]"#;

#[test]
fn inline_and_file_sources_project_the_same_manifest_evidence() {
    let dir = workspace("json-server/build.har", &[]);
    write(
        dir.path(),
        "file.view.json",
        &file_view("capture.json", EXAMPLE_RULES),
    );
    write(
        dir.path(),
        "inline.view.json",
        &inline_view(dir.path(), EXAMPLE_RULES),
    );
    let from_file = view(dir.path(), "file.view.json");
    // contract: MANIFEST-004, MANIFEST-006
    assert_eq!(from_file.code, Some(0), "{}", from_file.stderr);
    assert!(from_file.stderr.is_empty());
    let from_inline = view(dir.path(), "inline.view.json");
    // contract: MANIFEST-003
    assert_eq!(from_inline.stdout, from_file.stdout);
    assert_eq!(
        view(dir.path(), "file.view.json").stdout,
        from_file.stdout,
        "two runs differ"
    );
    let (body, newline) = from_file.stdout.split_at(from_file.stdout.len() - 1);
    assert_eq!(newline, "\n");
    // contract: MANIFEST-005
    let manifest =
        Evidence::authenticate(body.as_bytes()).expect("manifest Evidence authenticates");
    assert_eq!(
        manifest.to_canonical_vec(),
        body.as_bytes(),
        "canonical output"
    );
    assert_eq!(manifest.operation(), "inspect_analysis_view");
    let capture =
        Evidence::authenticate(&std::fs::read(dir.path().join("capture.json")).unwrap()).unwrap();
    // contract: MANIFEST-010
    assert_eq!(
        manifest.get("parent_evidence_id").and_then(Json::as_str),
        Some(capture.id())
    );
    assert_eq!(
        manifest.get("view").and_then(Json::as_str),
        Some("environment-manifest")
    );
    // The served pair authenticates and cross-checks.
    // contract: MANIFEST-002
    let environment =
        rea_manifest::Environment::from_evidence(&manifest, &capture).expect("environment");
    assert!(environment.tool("get_posts_by_id").is_some());
}

// contract: BUILD-015
#[test]
fn rules_apply_in_their_fixed_order_whatever_the_view_lists() {
    let dir = workspace("kinto/build.har", &[]);
    write(
        dir.path(),
        "a.json",
        &file_view("capture.json", r#"["prefix-variance", "sibling-variance"]"#),
    );
    write(
        dir.path(),
        "b.json",
        &file_view("capture.json", r#"["sibling-variance", "prefix-variance"]"#),
    );
    write(dir.path(), "none.json", &file_view("capture.json", "[]"));
    let a = view(dir.path(), "a.json");
    assert_eq!(a.code, Some(0), "{}", a.stderr);
    assert_eq!(a.stdout, view(dir.path(), "b.json").stdout);
    let none = view(dir.path(), "none.json");
    assert_ne!(a.stdout, none.stdout);
    assert!(a.stdout.contains("{prefix-variance}"));
    assert!(!none.stdout.contains("variance}"));
}

#[test]
fn a_relative_evidence_file_is_found_beside_the_view() {
    let dir = workspace("tiddlywiki/build.har", &[]);
    std::fs::create_dir(dir.path().join("views")).unwrap();
    write(
        &dir.path().join("views"),
        "v.json",
        &file_view("../capture.json", "[]"),
    );
    let elsewhere = tempfile::tempdir().unwrap();
    let path = dir.path().join("views/v.json").display().to_string();
    let run = run_rea(
        &rea(),
        elsewhere.path(),
        &["inspect-analysis-view", &path, "--format", "text"],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.starts_with("environment manifest ev_"));
    assert!(run.stdout.contains("primary origin: http://127.0.0.1:8080"));
    assert!(run.stdout.contains("get_status GET /status"));
}

// contract: BUILD-017, BUILD-037
#[test]
fn malformed_views_are_refused_with_pointers_and_no_output() {
    let dir = workspace("json-server/build.har", &[]);
    let cases = [
        (file_view("capture.json", r#"["opaque-token", "opaque-token"]"#), "invalid_request", "/view/template_rules/1"),
        (file_view("capture.json", r#"["numeric"]"#), "invalid_request", "/view/template_rules/0"),
        (
            r#"{"source": {"kind": "evidence-file", "path": "capture.json"}, "view": {"kind": "environment-graph"}}"#.to_owned(),
            "invalid_request",
            "/view/kind",
        ),
        (file_view("missing.json", "[]"), "invalid_request", ""),
        ("{".to_owned(), "invalid_request", ""),
    ];
    for (text, code, pointer) in cases {
        write(dir.path(), "v.json", &text);
        // A capture file the view names that does not exist is a usage mistake: exit 2.
        let exit = if text.contains("missing.json") { 2 } else { 1 };
        let refused = refusal_with(&view(dir.path(), "v.json"), exit);
        assert_eq!(refused["code"], code, "{text}");
        assert_eq!(refused["stage"], "inspect_analysis_view", "{text}");
        if !pointer.is_empty() {
            assert_eq!(refused["pointer"], pointer, "{text}");
        }
    }
}

// contract: LIMITS-003, LIMITS-005
#[test]
fn sources_that_are_not_capture_evidence_are_refused() {
    let dir = workspace("json-server/build.har", &[]);
    write(dir.path(), "v.json", &file_view("capture.json", "[]"));
    let manifest = view(dir.path(), "v.json");
    write(dir.path(), "manifest.json", &manifest.stdout);
    write(
        dir.path(),
        "of-manifest.json",
        &file_view("manifest.json", "[]"),
    );
    let refused = refusal(&view(dir.path(), "of-manifest.json"));
    assert_eq!(
        (refused["code"].as_str(), refused["pointer"].as_str()),
        (Some("invalid_request"), Some("/operation"))
    );
    // A capture changed after sealing does not authenticate.
    let tampered = inline_view(dir.path(), "[]").replacen("\"GET\"", "\"PUT\"", 1);
    write(dir.path(), "tampered.json", &tampered);
    let refused = refusal(&view(dir.path(), "tampered.json"));
    assert_eq!(refused["pointer"], "/source/evidence/evidence_id");
    write(
        dir.path(),
        "har.json",
        &file_view(
            &capture("json-server/build.har").display().to_string(),
            "[]",
        ),
    );
    assert_eq!(
        refusal(&view(dir.path(), "har.json"))["code"],
        "invalid_request"
    );
}

// contract: BUILD-070
#[test]
fn captures_inspected_with_sensitive_values_are_refused() {
    let dir = workspace("json-server/build.har", &["--sensitive-value", "alice"]);
    write(dir.path(), "v.json", &file_view("capture.json", "[]"));
    let refused = refusal(&view(dir.path(), "v.json"));
    assert_eq!(refused["code"], "unsupported_target");
    assert!(!refused["message"].as_str().unwrap().contains("alice"));
}

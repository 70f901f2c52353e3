//! `rea environment-compare` with browser scenario captures on json-server in Chromium: the build
//! capture is a scenario (the UI, the collection read, a create and an edit each read back), and
//! the probes are scenarios of the same application recorded after it (so the application holds
//! what the environment's state starts from). The probe's network selection is read from the
//! recorded session its Evidence keeps, as `environment-build` reads it: a probe recorded without
//! response bodies, or writing without request bodies, is refused.

use std::path::Path;

use serde_json::{Value, json};

use crate::browser_support::{capture, json_server, scenario};
use crate::serve_support::process::binary;
use rea_tests::run_rea;

fn build_document(origin: &str) -> Value {
    scenario(
        &format!("{origin}/"),
        json!([
            {"step_id": "open-comments", "action": "click",
             "locator": {"kind": "css", "selector": "a[href='comments']"}},
            {"step_id": "list", "action": "request", "method": "GET", "path": "/posts", "expected_status": [200]},
            {"step_id": "create", "action": "request", "method": "POST", "path": "/posts",
             "json": {"id": 90, "title": "Recorded by a browser", "author": "rea", "views": 0},
             "expected_status": [201]},
            {"step_id": "read", "action": "request", "method": "GET", "path": "/posts/90", "expected_status": [200]},
            {"step_id": "list-after", "action": "request", "method": "GET", "path": "/posts", "expected_status": [200]},
            {"step_id": "gap", "action": "wait", "milliseconds": 1100},
            {"step_id": "edit", "action": "request", "method": "PATCH", "path": "/posts/90",
             "json": {"views": 5}, "expected_status": [200]},
            {"step_id": "read-edit", "action": "request", "method": "GET", "path": "/posts/90", "expected_status": [200]},
            {"step_id": "list-edit", "action": "request", "method": "GET", "path": "/posts", "expected_status": [200]}
        ]),
    )
}

/// A probe: reads, a create (of post `id`) read back, an edit read back; `network` is its body
/// selection.
fn probe_document(origin: &str, id: u64, network: Value) -> Value {
    let mut document = scenario(
        &format!("{origin}/db"),
        json!([
            {"step_id": "list", "action": "request", "method": "GET", "path": "/posts", "expected_status": [200]},
            {"step_id": "read", "action": "request", "method": "GET", "path": "/posts/90", "expected_status": [200]},
            {"step_id": "create", "action": "request", "method": "POST", "path": "/posts",
             "json": {"id": id, "title": "Probed by a browser", "author": "rea", "views": 1},
             "expected_status": [201]},
            {"step_id": "read-new", "action": "request", "method": "GET", "path": format!("/posts/{id}"), "expected_status": [200]},
            {"step_id": "edit", "action": "request", "method": "PATCH", "path": format!("/posts/{id}"),
             "json": {"views": 2}, "expected_status": [200]},
            {"step_id": "read-edit", "action": "request", "method": "GET", "path": format!("/posts/{id}"), "expected_status": [200]}
        ]),
    );
    document["capture"]["network"] = network;
    document
}

/// A read-only probe with `network` as its body selection.
fn read_probe_document(origin: &str, network: Value) -> Value {
    let mut document = scenario(
        &format!("{origin}/db"),
        json!([
            {"step_id": "list", "action": "request", "method": "GET", "path": "/posts", "expected_status": [200]}
        ]),
    );
    document["capture"]["network"] = network;
    document
}

/// Records `document` into `dir/<name>.json`.
fn record(dir: &Path, document: &Value, name: &str) {
    let run = capture(dir, document, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.evidence()["operation"], "capture_browser_scenario");
    std::fs::write(dir.join(format!("{name}.json")), &run.stdout).unwrap();
}

fn compare(dir: &Path, probe: &str) -> rea_tests::Run {
    run_rea(
        &binary(),
        dir,
        &[
            "environment-compare",
            "manifest.json",
            "--evidence",
            "build.json",
            "--probe",
            &format!("{probe}.json"),
            "--json",
        ],
    )
}

fn refusal_message(run: &rea_tests::Run) -> String {
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    let refusal: Value = serde_json::from_str(run.stderr.trim()).unwrap();
    assert_eq!(refusal["code"], "invalid_request", "{refusal}");
    refusal["message"].as_str().unwrap().to_owned()
}

#[test]
fn a_scenario_built_environment_is_compared_with_scenario_probes() {
    let app = json_server(&[]);
    let origin = app.origin();
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    record(dir, &build_document(&origin), "build");
    let view = json!({
        "source": {"kind": "evidence-file", "path": "build.json"},
        "view": {"kind": "environment-manifest", "template_rules": ["after-uid-literal", "opaque-token", "sibling-variance", "prefix-variance"]}
    });
    std::fs::write(dir.join("view.json"), view.to_string()).unwrap();
    let manifest = run_rea(&binary(), dir, &["inspect-analysis-view", "view.json"]);
    assert_eq!(manifest.code, Some(0), "{}", manifest.stderr);
    std::fs::write(dir.join("manifest.json"), &manifest.stdout).unwrap();

    let all = json!({"request_body": true, "response_body": true, "header_values": true});
    record(dir, &probe_document(&origin, 91, all), "probe");
    let run = compare(dir, "probe");
    // contract: COMPARE-003
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["operation"], "environment_compare");
    let probe: Value =
        serde_json::from_slice(&std::fs::read(dir.join("probe.json")).unwrap()).unwrap();
    let records = probe["records"].as_array().unwrap();
    let steps = report["probes"][0]["steps"].as_array().unwrap();
    // Every record of the scenario probe became a step (the page load of `/db`, its favicon and
    // the six request steps), none unobserved, in the order the browser made the calls.
    assert_eq!(steps.len(), records.len(), "{report}");
    assert_eq!(report["summary"]["unobserved"], json!(0));
    assert_eq!(report["probes"][0]["order"], "start-time");
    let lines: Vec<&str> = steps
        .iter()
        .filter_map(|step| step["request"].as_str())
        .filter(|line| line.contains("/posts"))
        .collect();
    assert_eq!(
        lines,
        [
            "GET /posts",
            "GET /posts/90",
            "POST /posts",
            "GET /posts/91",
            "PATCH /posts/91",
            "GET /posts/91"
        ]
    );
    // The writes the scenario-built state serves answer as the application did.
    for line in ["POST /posts", "PATCH /posts/91"] {
        let step = steps.iter().find(|step| step["request"] == line).unwrap();
        assert_eq!(
            (&step["source"], &step["agrees"]),
            (&json!("write"), &json!(true)),
            "{line}: {report}"
        );
    }

    // A probe recorded without response bodies cannot be compared.
    let headers_only = json!({"request_body": true, "response_body": false, "header_values": true});
    record(dir, &read_probe_document(&origin, headers_only), "headers");
    // contract: COMPARE-104
    assert!(refusal_message(&compare(dir, "headers")).ends_with(
        "was captured without capture.network.response_body: its answers cannot be compared"
    ));
    // A probe that writes without request bodies cannot be compared; reading without them can.
    let no_requests = json!({"request_body": false, "response_body": true, "header_values": false});
    record(
        dir,
        &probe_document(&origin, 92, no_requests.clone()),
        "writes",
    );
    // contract: COMPARE-105
    assert!(refusal_message(&compare(dir, "writes")).ends_with(
        "makes POST, PUT or PATCH calls but was captured without capture.network.request_body"
    ));
    record(dir, &read_probe_document(&origin, no_requests), "reads");
    assert_eq!(compare(dir, "reads").code, Some(0));
}

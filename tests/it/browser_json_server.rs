//! `rea capture-browser-scenario` on a real application: json-server 0.17.4 in Debian's Chromium,
//! recorded through its UI (its homepage's resource links, and a page whose form posts JSON with
//! the page's own script) plus request steps, then built into a bundle and served.
//!
//! One recording is shared by the tests of this module (recorded once, on first use).

use std::path::PathBuf;
use std::sync::OnceLock;

use serde_json::{Value, json};

use crate::browser_support::{
    capture, capture_in, contains, files_under, get, json_server, processes_naming, profiles_left,
    scenario,
};
use crate::serve_support::process::{Server, binary, mcp};
use rea_tests::run_rea;

/// The secret typed into the note form (and so posted, echoed and read back).
const NOTE: &str = "s3cr3t-note-7f3a";
/// The secret sent as a bearer token and in a custom header, and in one URL.
const TOKEN: &str = "bearer-t0ken-91c4";
/// A session token the application returns in bodies (not a declared secret: kept).
const SESSION_TOKEN: &str = "kept-session-token-5521";

/// The note page: a form whose script posts JSON to `/posts` (as an application's UI does).
fn note_page() -> Vec<u8> {
    format!(
        r#"<!doctype html><html><body>
<input id="note" name="note"><button id="save" type="button">Save</button><p id="done"></p>
<script>
document.getElementById('save').addEventListener('click', async () => {{
  const response = await fetch('/posts', {{
    method: 'POST',
    headers: {{'Content-Type': 'application/json'}},
    body: JSON.stringify({{id: 77, title: document.getElementById('note').value, author: 'ui', session_token: '{SESSION_TOKEN}'}})
  }});
  document.getElementById('done').textContent = 'saved ' + response.status;
}});
</script></body></html>"#
    )
    .into_bytes()
}

/// A binary document the application serves (`application/octet-stream`, which the browser
/// exposes as its bytes) whose bytes are not UTF-8 and hold the note secret: redaction cannot
/// rewrite it, so it empties it. (Served as `.json`, Chromium 148 exposes such a body as text
/// decoded with replacement characters, which redaction rewrites: SCENARIO-022's "the bytes the
/// browser exposes".)
fn export_document() -> Vec<u8> {
    let mut bytes = br#"{"note": ""#.to_vec();
    bytes.extend_from_slice(NOTE.as_bytes());
    bytes.extend_from_slice(b"\", \"raw\": \"\xff\xfe\"}");
    bytes
}

/// One recording of json-server, built into a bundle.
pub struct Recorded {
    /// The application's origin.
    pub origin: String,
    /// What the application answered afterwards for `/posts/77` and `/posts/1` (it is stopped
    /// once recorded: a static is never dropped).
    pub afterwards: [(u16, String); 2],
    /// The run.
    pub evidence: Value,
    /// The run's stdout and stderr.
    pub outputs: Vec<String>,
    /// The run's folder.
    pub dir: PathBuf,
    /// The build report.
    pub report: Value,
    /// The processes naming the run's temporary folder, and what was left in it, once it ended.
    pub left_behind: (Vec<u32>, Vec<String>),
}

fn recorded() -> &'static Recorded {
    static RECORDED: OnceLock<Recorded> = OnceLock::new();
    RECORDED.get_or_init(record)
}

fn record() -> Recorded {
    let app = json_server(&[
        ("note.html", note_page()),
        ("export.bin", export_document()),
    ]);
    let origin = app.origin();
    let secret = |id: &str| json!({"source": "secret", "secret_id": id});
    let mut document = scenario(
        &format!("{origin}/"),
        json!([
            {"step_id": "open-posts", "action": "click",
             "locator": {"kind": "css", "selector": "a[href='posts']"}},
            {"step_id": "home", "action": "goto",
             "destination": {"url": format!("{origin}/"), "query": []}, "wait_until": "load"},
            {"step_id": "note-page", "action": "goto",
             "destination": {"url": format!("{origin}/note.html"),
                             "query": [{"name": "access_token", "value": {"source": "literal", "value": "visible-query-value"}}]}},
            {"step_id": "type-note", "action": "fill",
             "locator": {"kind": "css", "selector": "#note"}, "value": secret("note")},
            {"step_id": "save-note", "action": "click",
             "locator": {"kind": "css", "selector": "#save"}},
            {"step_id": "read-note", "action": "request", "method": "GET", "path": "/posts/77",
             "headers": [{"name": "Authorization", "value": secret("token")},
                         {"name": "X-Trace", "value": secret("token")}],
             "expected_status": [200],
             "save_response": {"name": "session_token", "pointer": "/session_token"}},
            {"step_id": "list-posts", "action": "request", "method": "GET", "path": "/posts",
             "expected_status": [200]},
            {"step_id": "token-in-url", "action": "goto",
             "destination": {"url": format!("{origin}/posts"),
                             "query": [{"name": "api_key", "value": secret("token")}]}},
            {"step_id": "export", "action": "request", "method": "GET", "path": "/export.bin",
             "expected_status": [200]},
            {"step_id": "patch-unread", "action": "request", "method": "PATCH", "path": "/posts/1",
             "json": {"title": "Patched and never read back"}, "expected_status": [200]}
        ]),
    );
    document["secrets"] = json!([
        {"secret_id": "note", "environment_variable": "REA_TEST_NOTE"},
        {"secret_id": "token", "environment_variable": "REA_TEST_TOKEN"}
    ]);
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("browser-json-server");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // The run's temporary folder is short (Chromium's sockets live there) and checked and
    // removed once the run is over.
    let tmp = tempfile::tempdir().unwrap();
    let run = capture_in(
        &dir,
        tmp.path(),
        &document,
        &[("REA_TEST_NOTE", NOTE), ("REA_TEST_TOKEN", TOKEN)],
    );
    let left_behind = (processes_naming(tmp.path()), profiles_left(tmp.path()));
    drop(tmp);
    let evidence = run.evidence();
    std::fs::write(dir.join("capture.json"), &run.stdout).unwrap();
    let build = run_rea(
        &binary(),
        &dir,
        &[
            "environment-build",
            "capture.json",
            "bundle",
            "--name",
            "json-server-scenario",
            "--json",
        ],
    );
    assert_eq!(build.code, Some(0), "{}", build.stderr);
    let report: Value = serde_json::from_str(&build.stdout).unwrap();
    let afterwards = ["/posts/77", "/posts/1"].map(|path| get(app.port, path).unwrap());
    Recorded {
        origin: app.origin(),
        afterwards,
        evidence,
        outputs: vec![run.stdout, run.stderr, build.stdout, build.stderr],
        dir,
        report,
        left_behind,
    }
}

/// The replayed answer a `tools/call` result carries as its text.
pub fn replayed(answer: &Value) -> Value {
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text content: {answer}"));
    serde_json::from_str(text).unwrap()
}

fn records(evidence: &Value) -> &Vec<Value> {
    evidence["records"].as_array().unwrap()
}

fn record_of<'a>(evidence: &'a Value, method: &str, path: &str) -> Vec<&'a Value> {
    records(evidence)
        .iter()
        .filter(|record| record["method"] == method && record["path"] == path)
        .collect()
}

fn events(evidence: &Value) -> &Vec<Value> {
    evidence["container"]["normalized_result"]["events"]["items"]
        .as_array()
        .unwrap()
}

fn codes(evidence: &Value) -> Vec<&str> {
    evidence["limitations"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|limitation| limitation["code"].as_str())
        .collect()
}

#[test]
fn the_session_is_capture_evidence_with_one_record_per_transaction_in_request_order() {
    let recorded = recorded();
    let evidence = &recorded.evidence;
    // contract: SCENARIO-001
    assert_eq!(evidence["operation"], "capture_browser_scenario");
    assert_eq!(evidence["subject"]["kind"], "browser-scenario");
    assert_eq!(
        evidence["parameters"]["extractor"]["plugin"],
        "browser-scenario"
    );
    let records = records(evidence);
    let starts: Vec<&str> = records
        .iter()
        .map(|record| record["started"]["instant"].as_str().unwrap())
        .collect();
    let mut sorted = starts.clone();
    sorted.sort_unstable();
    // contract: SCENARIO-015
    assert_eq!(starts, sorted, "records are in request order");
    for (position, record) in records.iter().enumerate() {
        // contract: SCENARIO-015
        assert_eq!(record["ordinal"], position as u64);
        let pointer = record["pointer"].as_str().unwrap();
        let event = evidence["container"].pointer(pointer).unwrap();
        assert_eq!(event["kind"], "request", "{pointer}");
    }
    // Through the UI: the homepage's link opened /posts as a document, and the note form's
    // script posted the note.
    let documents: Vec<&Value> = events(evidence)
        .iter()
        .filter(|event| event["kind"] == "request" && event["resource_type"] == "Document")
        .collect();
    assert!(
        documents
            .iter()
            .any(|event| event["step_id"] == "open-posts"
                && event["url"].as_str().unwrap().ends_with("/posts"))
    );
    let posted = record_of(evidence, "POST", "/posts");
    assert_eq!(posted.len(), 1);
    assert_eq!(posted[0]["response"]["status"], 201);
    let steps = evidence["container"]["normalized_result"]["steps"]
        .as_array()
        .unwrap();
    assert_eq!(steps.len(), 10);
    assert_eq!(steps[5]["response_status"], 200);
}

#[test]
fn records_take_their_start_and_duration_from_the_browser() {
    let evidence = &recorded().evidence;
    for record in records(evidence) {
        let started = record["started"]["recorded"].as_str().unwrap();
        // contract: SCENARIO-032
        assert!(started.ends_with('Z') && started.len() == 27, "{started}");
        assert!(record["started"]["instant"].is_string());
        // contract: SCENARIO-032
        assert!(record["duration_ms"].as_f64().unwrap() >= 0.0);
        let pointer = record["pointer"].as_str().unwrap();
        let event = &evidence["container"].pointer(pointer).unwrap();
        assert!(event["wall_time"].as_f64().unwrap() > 1.0e9);
    }
}

#[test]
fn secrets_never_appear_in_any_output_and_markers_stand_for_them() {
    let recorded = recorded();
    for output in &recorded.outputs {
        for secret in [NOTE, TOKEN] {
            assert!(!output.contains(secret), "a secret leaked: {output:.300}");
        }
    }
    for (path, bytes) in files_under(&recorded.dir) {
        if path.ends_with("scenario.json") {
            continue;
        }
        for secret in [NOTE, TOKEN] {
            // contract: SCENARIO-020
            assert!(
                !contains(&bytes, secret),
                "{} holds a secret",
                path.display()
            );
        }
    }
    let evidence = &recorded.evidence;
    let posted = record_of(evidence, "POST", "/posts")[0];
    let request = posted["request"]["body"]["text"].as_str().unwrap();
    // contract: SCENARIO-020
    assert!(
        request.contains("\"title\":\"[redacted:note]\""),
        "{request}"
    );
    let response = posted["response"]["body"]["text"].as_str().unwrap();
    // contract: SCENARIO-022
    assert!(
        response.contains("\"title\": \"[redacted:note]\""),
        "{response}"
    );
    let read = record_of(evidence, "GET", "/posts/77")[0];
    let headers = read["request"]["headers"].as_array().unwrap();
    let authorization = headers
        .iter()
        .find(|header| {
            header["name"]
                .as_str()
                .unwrap()
                .eq_ignore_ascii_case("authorization")
        })
        .unwrap();
    // contract: SCENARIO-020
    assert_eq!(authorization["value"], Value::Null);
    assert_eq!(authorization["excluded"], "authentication");
    let trace = headers
        .iter()
        .find(|header| {
            header["name"]
                .as_str()
                .unwrap()
                .eq_ignore_ascii_case("x-trace")
        })
        .unwrap();
    // contract: SCENARIO-020
    assert_eq!(trace["value"], "[redacted:token]");
    assert_eq!(
        evidence["container"]["secrets"],
        json!([
            {"marker": "[redacted:note]", "secret_id": "note"},
            {"marker": "[redacted:token]", "secret_id": "token"}
        ])
    );
}

#[test]
fn bodies_keep_what_the_application_returned_and_empty_only_what_redaction_cannot_rewrite() {
    let evidence = &recorded().evidence;
    let read = record_of(evidence, "GET", "/posts/77")[0];
    let body = read["response"]["body"]["text"].as_str().unwrap();
    // contract: SCENARIO-021
    assert!(body.contains(SESSION_TOKEN), "{body}");
    // contract: SCENARIO-022
    assert!(body.contains("[redacted:note]"));
    let export = record_of(evidence, "GET", "/export.bin")[0];
    // contract: SCENARIO-023
    assert_eq!(
        export["response"]["body"],
        json!({"kind": "excluded", "reason": "sensitive-value"})
    );
    assert!(codes(evidence).contains(&"body-redacted"));
}

#[test]
fn a_url_carrying_a_secret_and_an_unanswered_request_have_no_record() {
    let evidence = &recorded().evidence;
    let carried: Vec<&Value> = events(evidence)
        .iter()
        .filter(|event| event["kind"] == "request" && event["step_id"] == "token-in-url")
        .collect();
    assert_eq!(carried.len(), 1);
    assert!(
        carried[0]["url"]
            .as_str()
            .unwrap()
            .ends_with("/posts?api_key=[redacted:token]")
    );
    let represented = records(evidence)
        .iter()
        .any(|record| record["url"].as_str().unwrap().contains("api_key"));
    // contract: SCENARIO-016
    assert!(!represented);
    assert!(codes(evidence).contains(&"secret-in-url"));
    // The homepage asks a host outside the scenario for a stylesheet: it never answers (the
    // launched browser resolves only the scenario's hosts), so no record represents it.
    let outside = events(evidence)
        .iter()
        .any(|event| event["kind"] == "failed");
    assert!(outside);
    let records_outside = records(evidence).iter().any(|record| {
        !record["url"]
            .as_str()
            .unwrap()
            .starts_with("http://127.0.0.1")
    });
    // contract: SCENARIO-017
    assert!(!records_outside);
    assert!(codes(evidence).contains(&"no-response"));
}

#[test]
fn request_steps_go_through_the_page_with_its_cookies_and_change_the_application() {
    let recorded = recorded();
    let evidence = &recorded.evidence;
    let read = record_of(evidence, "GET", "/posts/77")[0];
    let pointer = read["pointer"].as_str().unwrap();
    let event = evidence["container"].pointer(pointer).unwrap();
    // contract: SCENARIO-024
    assert_eq!(event["resource_type"], "Fetch");
    assert_eq!(event["step_id"], "read-note");
    assert_eq!(read["origin"], recorded.origin);
    let (status, body) = &recorded.afterwards[0];
    // contract: SCENARIO-031
    assert_eq!(*status, 200);
    // The application got the secret's value, read from the environment variable the scenario
    // names.
    // contract: SCENARIO-013
    assert!(body.contains(NOTE), "{body}");
    let (_, patched) = &recorded.afterwards[1];
    // contract: SCENARIO-031
    assert!(patched.contains("Patched and never read back"));
}

#[test]
fn the_bundle_records_how_it_was_captured_and_serves_only_confirmed_writes() {
    let recorded = recorded();
    let report = &recorded.report;
    assert_eq!(report["capture"]["operation"], "capture_browser_scenario");
    let readme = std::fs::read_to_string(recorded.dir.join("bundle/README.md")).unwrap();
    assert!(
        readme.contains("- Captured by: a browser scenario rea drove (`capture_browser_scenario`, launch mode, Chrome/"),
        "{readme}"
    );
    assert_eq!(report["state"]["served"], true);
    let served = report["coverage"]["writes"]["served"].as_array().unwrap();
    let withheld = report["coverage"]["writes"]["withheld"].as_array().unwrap();
    // contract: SCENARIO-027
    assert!(
        served.iter().any(|write| write["tool"] == "post_posts"),
        "{report}"
    );
    let patch = withheld
        .iter()
        .find(|write| write["tool"] == "patch_posts_by_id")
        .unwrap_or_else(|| panic!("{report}"));
    // contract: SCENARIO-027
    assert_eq!(patch["reason"], "unconfirmed");
    // contract: SCENARIO-030
    assert!(
        patch["hint"]
            .as_str()
            .unwrap()
            .contains("Read the entity and its list after the write")
    );
}

#[test]
fn the_credential_scan_reads_events_and_saved_values() {
    let recorded = recorded();
    let warnings = recorded.report["warnings"].as_array().unwrap();
    let items = |code: &str| -> Vec<String> {
        warnings
            .iter()
            .find(|warning| warning["code"] == code)
            .map(|warning| {
                warning["items"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|item| item.as_str().unwrap().to_owned())
                    .collect()
            })
            .unwrap_or_default()
    };
    let named = items("credential-named-members");
    let evidence = &recorded.evidence;
    let index_of = |step: &str, kind: &str| {
        events(evidence)
            .iter()
            .position(|event| event["kind"] == kind && event["step_id"] == step)
            .unwrap()
    };
    let posted = events(evidence)
        .iter()
        .position(|event| {
            event["kind"] == "response"
                && event["body"]["text"].as_str().is_some_and(|text| {
                    text.contains("\"session_token\"") && text.contains("\"id\": 77")
                })
        })
        .unwrap();
    // contract: BUILD-075
    assert!(
        named.contains(&format!("event {posted} response /session_token")),
        "{named:?}"
    );
    let unrepresented = index_of("token-in-url", "request");
    // contract: BUILD-076
    assert!(
        named.contains(&format!("event {unrepresented} query api_key")),
        "{named:?}"
    );
    let note_page = index_of("note-page", "request");
    let listed = named
        .iter()
        .filter(|item| item.ends_with("query access_token"))
        .count();
    // contract: BUILD-077
    assert_eq!(listed, 1, "{named:?}");
    assert!(named.contains(&format!("event {note_page} query access_token")));
    let saved = items("credential-named-saved-values");
    // contract: BUILD-082
    assert_eq!(
        saved,
        vec!["/parameters/scenario/actions/5/save_response/name"]
    );
    let steps = &evidence["container"]["normalized_result"]["steps"];
    // contract: BUILD-081
    assert_eq!(
        steps[5]["saved"],
        json!({"name": "session_token", "secret": false, "value": SESSION_TOKEN})
    );
    for warning in warnings {
        let text = warning.to_string();
        assert!(!text.contains(SESSION_TOKEN) && !text.contains("visible-query-value"));
    }
}

#[test]
fn the_evidence_is_served_like_a_har_inspection_and_an_emptied_body_replays_none() {
    let recorded = recorded();
    let dir = &recorded.dir;
    let view = json!({
        "source": {"kind": "evidence-file", "path": "capture.json"},
        "view": {"kind": "environment-manifest", "template_rules": []}
    });
    std::fs::write(dir.join("view.json"), view.to_string()).unwrap();
    let manifest = run_rea(&binary(), dir, &["inspect-analysis-view", "view.json"]);
    assert_eq!(manifest.code, Some(0), "{}", manifest.stderr);
    std::fs::write(dir.join("manifest.json"), &manifest.stdout).unwrap();
    let projected: Value = serde_json::from_str(&manifest.stdout).unwrap();
    // contract: SCENARIO-014
    assert_eq!(
        projected["parent_evidence_id"],
        recorded.evidence["evidence_id"]
    );
    let mut server = Server::start_in(
        dir,
        &[
            "manifest.json",
            "--evidence",
            "capture.json",
            "--replay-only",
        ],
    );
    let url = server.url();
    let export = replayed(&mcp(
        &url,
        1,
        "tools/call",
        json!({"name": "get_export_bin", "arguments": {}}),
    ));
    assert_eq!(export["status"], 200);
    // contract: SCENARIO-023
    assert_eq!(export["body"], Value::Null);
    assert_eq!(export["replay"]["body_recorded"], false);
    let read = replayed(&mcp(
        &url,
        2,
        "tools/call",
        json!({"name": "get_posts_by_id", "arguments": {"id": "77"}}),
    ));
    // contract: SCENARIO-022
    assert_eq!(read["body"]["title"], "[redacted:note]");
    // A saved value not marked secret is recorded as it was, but serving redacts a member named
    // like a credential.
    assert_eq!(read["body"]["session_token"], "[redacted]");
    server.signal("SIGTERM");
    let (code, _, _) = server.finish();
    assert!(code.is_some());
}

#[test]
fn the_run_left_no_browser_and_no_profile() {
    let (processes, files) = &recorded().left_behind;
    assert!(processes.is_empty(), "{processes:?}");
    assert!(files.is_empty(), "{files:?}");
}

#[test]
fn the_extractor_loaded_as_a_library_answers_as_the_built_in_does() {
    let evidence = &recorded().evidence;
    let session = serde_json::to_vec(&evidence["container"]).unwrap();
    let builtin = rea_registry::Registry::with_builtins().unwrap();
    let mut library = rea_registry::Registry::empty();
    let path = rea_tests::built_library("rea_plugin_browser_scenario_cdylib");
    let plugin = library.load_library(&path, None).expect("the cdylib loads");
    assert_eq!(plugin.name, "browser-scenario");
    let request = rea_plugin_api::contracts::capture::ExtractRequest {
        input_kind: "browser-scenario".to_owned(),
        sensitive_values: Vec::new(),
        schema_version: rea_plugin_api::contracts::SCHEMA_VERSION,
    };
    let from_builtin = builtin
        .capture_stage("browser-scenario")
        .unwrap()
        .extract_raw(&request, &session)
        .unwrap();
    let from_library = library
        .capture_stage("browser-scenario")
        .unwrap()
        .extract_raw(&request, &session)
        .unwrap();
    assert!(from_builtin == from_library, "the answers differ");
    let answer: Value = serde_json::from_str(&from_library).unwrap();
    assert_eq!(answer["records"], evidence["records"]);
}

#[test]
fn header_values_without_response_bodies_give_a_manifest_served_by_replay() {
    let app = json_server(&[]);
    let dir = tempfile::tempdir().unwrap();
    let mut document = scenario(
        &format!("{}/posts", app.origin()),
        json!([
            {"step_id": "one", "action": "request", "method": "GET", "path": "/posts/1",
             "expected_status": [200]}
        ]),
    );
    document["capture"]["network"]["response_body"] = json!(false);
    let run = capture(dir.path(), &document, &[]);
    let evidence = run.evidence();
    assert!(
        records(&evidence)
            .iter()
            .all(|record| record["response"]["body"]["kind"] == "missing")
    );
    assert!(codes(&evidence).contains(&"response-body-not-selected"));
    std::fs::write(dir.path().join("capture.json"), &run.stdout).unwrap();
    let build = run_rea(
        &binary(),
        dir.path(),
        &[
            "environment-build",
            "capture.json",
            "bundle",
            "--name",
            "headers-only",
            "--json",
        ],
    );
    assert_eq!(build.code, Some(0), "{}", build.stderr);
    let report: Value = serde_json::from_str(&build.stdout).unwrap();
    // contract: SCENARIO-019
    assert!(
        report["manifest"]["tools"].as_u64().unwrap() >= 2,
        "{report}"
    );
    // contract: SCENARIO-019
    assert_eq!(report["state"]["served"], false, "{report}");
    assert_eq!(report["coverage"], Value::Null);
}

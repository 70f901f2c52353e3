//! A browser scenario and a HAR of the same session build the same environment: each session is
//! recorded once, by `rea capture-browser-scenario` in Chromium and, at the same time, by the
//! corpus kit's mitmproxy recorder standing between the browser and the application (a reverse
//! proxy the scenario's URLs point at). Both captures are projected, derived, built and served;
//! the tools and the state must agree. Only the write clock may differ, by at most a second: it is
//! the latest recorded end rounded up to a second, and the proxy sees each exchange a few
//! milliseconds inside the browser's own timing of it.
//!
//! Two applications: json-server through its UI plus request steps that write, and Jupyter Server,
//! signed in through its `/login` form (an `_xsrf` form field matching the `_xsrf` cookie), then
//! its contents API written with the `_xsrf` cookie as the `X-XSRFToken` header.

use std::path::Path;

use serde_json::{Value, json};

use crate::browser_support::{
    App, capture, contains, files_under, json_server, jupyter, recorder, scenario,
};
use crate::serve_support::process::{Server, binary, tools_list};
use rea_tests::run_rea;

/// The Jupyter password (a declared secret of the scenario).
const PASSWORD: &str = "lab-passw0rd-2718";

/// Records `document` through a recorder in front of `app`; the scenario's Evidence and the HAR.
fn record_both(
    app: &App,
    document: impl Fn(&str) -> Value,
    env: &[(&str, &str)],
    dir: &Path,
) -> Value {
    let (mut proxy, har) = recorder(app);
    let run = capture(dir, &document(&proxy.origin()), env);
    let evidence = run.evidence();
    std::fs::write(dir.join("scenario.capture.json"), &run.stdout).unwrap();
    proxy.stop();
    assert!(har.is_file(), "the recorder wrote no HAR");
    std::fs::copy(&har, dir.join("session.har")).unwrap();
    for secret in env.iter().map(|(_, value)| *value) {
        assert!(!run.stdout.contains(secret) && !run.stderr.contains(secret));
    }
    evidence
}

/// The manifest, state and coverage views of a capture Evidence file.
fn views(dir: &Path, capture: &str) -> [Value; 3] {
    ["environment-manifest", "environment-state", "environment-coverage"].map(|kind| {
        let view = json!({
            "source": {"kind": "evidence-file", "path": capture},
            "view": {"kind": kind, "template_rules": ["after-uid-literal", "opaque-token", "sibling-variance", "prefix-variance"]}
        });
        let file = format!("{capture}.{kind}.view.json");
        std::fs::write(dir.join(&file), view.to_string()).unwrap();
        let run = run_rea(&binary(), dir, &["inspect-analysis-view", &file]);
        assert_eq!(run.code, Some(0), "{kind} of {capture}: {}", run.stderr);
        serde_json::from_str(&run.stdout).unwrap()
    })
}

/// Drops what names the capture itself (Evidence ids) from a view, and record ordinals: two
/// requests the page sends at once (json-server's homepage asks `/db` and `/__rules` together)
/// reach the proxy in an order the browser need not have reported, so the two captures may number
/// the same calls differently ([`same_calls`] checks that the calls are the same). Lists of named
/// members are put in name order, which the ordinals decided.
fn without_ids(mut view: Value) -> Value {
    for member in [
        "evidence_id",
        "parent_evidence_id",
        "manifest_evidence_id",
        "state_evidence_id",
        // A digest of the state, record ordinals and write clock included, which the two
        // captures may order and time apart (see below).
        "draw_seed",
    ] {
        view.as_object_mut().unwrap().remove(member);
    }
    without_ordinals(&mut view);
    // A page's stylesheets and images load at once: the browser and the proxy may see them in
    // either order, and the manifest lists excluded groups in record order.
    if let Some(Value::Array(groups)) = view.get_mut("excluded_groups") {
        groups.sort_by_key(|group| group.to_string());
    }
    view
}

fn without_ordinals(value: &mut Value) {
    match value {
        Value::Object(members) => {
            // `rea/records` (a tool's record ordinals in `_meta`) follows the capture's order too.
            members.retain(|name, _| {
                !name.contains("ordinal") && name != "record_order" && name != "rea/records"
            });
            members.values_mut().for_each(without_ordinals);
        }
        Value::Array(items) => {
            items.iter_mut().for_each(without_ordinals);
            if items
                .iter()
                .all(|item| item.get("name").is_some_and(Value::is_string))
            {
                items.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
            }
        }
        _ => {}
    }
}

/// The calls of a capture, each `METHOD URL` with how many times it came before: the same
/// multiset whatever order concurrent calls were recorded in.
fn same_calls(dir: &Path) {
    let calls = |file: &str| {
        let evidence: Value =
            serde_json::from_slice(&std::fs::read(dir.join(file)).unwrap()).unwrap();
        let mut calls: Vec<String> = evidence["records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|record| {
                format!(
                    "{} {} {}",
                    record["method"], record["url"], record["response"]["status"]
                )
            })
            .collect();
        calls.sort();
        calls
    };
    assert_eq!(calls("har.capture.json"), calls("scenario.capture.json"));
}

/// A document's text with every Evidence id (`ev_` and 64 hex digits) spelled `ev_…` and the
/// record lists of tool descriptions (`retained records [3, 10]`) dropped: descriptions name the
/// capture and the records they replay (see [`without_ids`] for ordinals).
fn without_evidence_ids(value: &Value) -> String {
    let mut text = value.to_string();
    while let Some(at) = text.find("retained records [") {
        let end = text[at..].find(']').map_or(text.len(), |end| at + end + 1);
        text.replace_range(at..end, "retained records");
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find("ev_") {
        out.push_str(&rest[..at + 3]);
        rest = &rest[at + 3..];
        let digits = rest.bytes().take_while(u8::is_ascii_hexdigit).count();
        if digits == 64 {
            out.push('…');
            rest = &rest[64..];
        }
    }
    out.push_str(rest);
    out
}

/// Seconds of a `…THH:MM:SS…` clock, counted within its day.
fn seconds_of(clock: &str) -> i64 {
    let time = clock.split('T').nth(1).unwrap();
    let parts: Vec<i64> = time[..8]
        .split(':')
        .map(|part| part.parse().unwrap())
        .collect();
    parts[0] * 3600 + parts[1] * 60 + parts[2]
}

/// Asserts that the HAR and the scenario build the same environment.
fn assert_same_environment(dir: &Path) -> (Value, Value, Value) {
    let inspected = run_rea(
        &binary(),
        dir,
        &["inspect-web-network-capture", "session.har", "har"],
    );
    assert_eq!(inspected.code, Some(0), "{}", inspected.stderr);
    std::fs::write(dir.join("har.capture.json"), &inspected.stdout).unwrap();
    same_calls(dir);
    let [har_manifest, har_state, har_coverage] = views(dir, "har.capture.json");
    let [manifest, state, coverage] = views(dir, "scenario.capture.json");
    assert_eq!(
        har_manifest["tools"].as_array().map(Vec::len),
        manifest["tools"].as_array().map(Vec::len)
    );
    assert_eq!(without_ids(har_manifest), without_ids(manifest.clone()));
    let clock = |state: &Value| state["write_clock"].as_str().map(seconds_of);
    let (har_clock, clock_seen) = (clock(&har_state), clock(&state));
    assert!(har_clock.is_some() && clock_seen.is_some(), "{state}");
    assert!((har_clock.unwrap() - clock_seen.unwrap()).abs() <= 1);
    // The views follow the capture's order of first requests; requests a page sends at once
    // (`/db` and `/__rules` on load) reach the browser's log and the proxy in either order, so
    // the views are compared by tool.
    let drop_clock = |state: Value| {
        let mut state = without_ids(state);
        state.as_object_mut().unwrap().remove("write_clock");
        if let Some(views) = state["views"].as_array_mut() {
            views.sort_by(|a, b| a["tool"].as_str().cmp(&b["tool"].as_str()));
        }
        state
    };
    assert_eq!(drop_clock(har_state), drop_clock(state.clone()));
    assert_eq!(without_ids(har_coverage), without_ids(coverage));
    let mut reports = Vec::new();
    let mut catalogs = Vec::new();
    for (capture, bundle) in [
        ("har.capture.json", "har-bundle"),
        ("scenario.capture.json", "scenario-bundle"),
    ] {
        let build = run_rea(
            &binary(),
            dir,
            &[
                "environment-build",
                capture,
                bundle,
                "--name",
                "same",
                "--json",
            ],
        );
        assert_eq!(build.code, Some(0), "{}", build.stderr);
        let report: Value = serde_json::from_str(&build.stdout).unwrap();
        let env = dir.join(bundle).join("envs/same");
        let mut server = Server::start_in(
            &env,
            &[
                "manifest.json",
                "--evidence",
                "evidence.json",
                "--pipeline",
                "pipeline.toml",
            ],
        );
        catalogs.push(tools_list(&server.url()));
        server.signal("SIGTERM");
        server.finish();
        reports.push(report);
    }
    assert_eq!(reports[0]["tool_count"], reports[1]["tool_count"]);
    assert_eq!(reports[0]["state"]["served"], reports[1]["state"]["served"]);
    assert_eq!(reports[0]["coverage"], reports[1]["coverage"]);
    let [mut har_catalog, mut catalog] = [0, 1].map(|side| Value::Array(catalogs[side].clone()));
    without_ordinals(&mut har_catalog);
    without_ordinals(&mut catalog);
    assert_eq!(
        without_evidence_ids(&har_catalog),
        without_evidence_ids(&catalog)
    );
    let report = reports.pop().unwrap();
    (manifest, state, report)
}

#[test]
fn json_server_through_its_ui_builds_the_environment_its_har_builds() {
    let app = json_server(&[]);
    let dir = tempfile::tempdir().unwrap();
    let document = |origin: &str| {
        scenario(
            &format!("{origin}/"),
            json!([
                {"step_id": "open-comments", "action": "click",
                 "locator": {"kind": "css", "selector": "a[href='comments']"}},
                {"step_id": "home", "action": "goto",
                 "destination": {"url": format!("{origin}/"), "query": []}},
                {"step_id": "list", "action": "request", "method": "GET", "path": "/posts", "expected_status": [200]},
                {"step_id": "create", "action": "request", "method": "POST", "path": "/posts",
                 "json": {"id": 90, "title": "Recorded twice", "author": "rea", "views": 0},
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
    };
    let evidence = record_both(&app, document, &[], dir.path());
    assert!(evidence["records"].as_array().unwrap().len() >= 10);
    let (manifest, _, report) = assert_same_environment(dir.path());
    let mut served: Vec<&str> = report["coverage"]["writes"]["served"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|write| write["tool"].as_str())
        .collect();
    served.sort_unstable();
    // Recorded as the guidance says (the collection read before the writes, each written entity
    // read back by id and in its list right after, more than a second between the create and the
    // edit), both writes are served.
    // contract: SCENARIO-028
    assert_eq!(served, ["patch_posts_by_id", "post_posts"], "{report}");
    let tools: Vec<&str> = manifest["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert!(
        tools.contains(&"post_posts") && tools.contains(&"patch_posts_by_id"),
        "{tools:?}"
    );
}

#[test]
fn jupyter_signed_in_through_its_form_builds_the_environment_its_har_builds() {
    let app = jupyter(PASSWORD);
    let dir = tempfile::tempdir().unwrap();
    let xsrf = json!([{"name": "X-XSRFToken", "value": {"source": "cookie", "name": "_xsrf"}}]);
    let document = |origin: &str| {
        let mut document = scenario(
            &format!("{origin}/login"),
            json!([
                {"step_id": "password", "action": "fill",
                 "locator": {"kind": "css", "selector": "#password_input"},
                 "value": {"source": "secret", "secret_id": "lab_password"}},
                {"step_id": "sign-in", "action": "click",
                 "locator": {"kind": "css", "selector": "#login_submit"}},
                {"step_id": "list", "action": "request", "method": "GET", "path": "/api/contents",
                 "expected_status": [200]},
                {"step_id": "create", "action": "request", "method": "PUT", "path": "/api/contents/notes.txt",
                 "headers": xsrf, "json": {"type": "file", "format": "text", "content": "first draft"},
                 "expected_status": [201]},
                {"step_id": "read", "action": "request", "method": "GET", "path": "/api/contents/notes.txt",
                 "expected_status": [200]},
                {"step_id": "list-after", "action": "request", "method": "GET", "path": "/api/contents",
                 "expected_status": [200]},
                {"step_id": "gap", "action": "wait", "milliseconds": 1500},
                {"step_id": "update", "action": "request", "method": "PUT", "path": "/api/contents/notes.txt",
                 "headers": xsrf, "json": {"type": "file", "format": "text", "content": "second draft"},
                 "expected_status": [200]},
                {"step_id": "read-update", "action": "request", "method": "GET", "path": "/api/contents/notes.txt",
                 "expected_status": [200]},
                {"step_id": "list-update", "action": "request", "method": "GET", "path": "/api/contents",
                 "expected_status": [200]}
            ]),
        );
        document["secrets"] =
            json!([{"secret_id": "lab_password", "environment_variable": "REA_TEST_LAB_PASSWORD"}]);
        document
    };
    let evidence = record_both(
        &app,
        document,
        &[("REA_TEST_LAB_PASSWORD", PASSWORD)],
        dir.path(),
    );
    let records = evidence["records"].as_array().unwrap();
    let login = records
        .iter()
        .find(|record| record["method"] == "POST" && record["path"] == "/login")
        .unwrap_or_else(|| panic!("no sign-in: {records:?}"));
    let form = login["request"]["body"]["text"].as_str().unwrap();
    assert!(
        form.contains("_xsrf=") && form.contains("password=[redacted:lab_password]"),
        "{form}"
    );
    assert!(login["response"]["status"] == 302, "{login}");
    let created = records
        .iter()
        .find(|record| record["method"] == "PUT" && record["response"]["status"] == 201)
        .unwrap();
    let header = created["request"]["headers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|header| {
            header["name"]
                .as_str()
                .unwrap()
                .eq_ignore_ascii_case("x-xsrftoken")
        })
        .unwrap_or_else(|| panic!("{created}"));
    // The CSRF cookie the application's own requests send, carried by a request step's header,
    // with the session's cookies (the write would be refused without both).
    // contract: SCENARIO-025
    assert!(
        header["value"].as_str().unwrap().starts_with("2|"),
        "{header}"
    );
    let cookie = created["request"]["headers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|header| {
            header["name"]
                .as_str()
                .unwrap()
                .eq_ignore_ascii_case("cookie")
        })
        .unwrap();
    // contract: SCENARIO-024
    assert_eq!(cookie["excluded"], "authentication");
    for (path, bytes) in files_under(dir.path()) {
        if path.ends_with("session.har") || path.ends_with("scenario.json") {
            continue;
        }
        assert!(
            !contains(&bytes, PASSWORD),
            "{} holds the password",
            path.display()
        );
    }
    let (_, state, _) = assert_same_environment(dir.path());
    // The browser's timings give the state a write clock, as a HAR's do.
    // contract: SCENARIO-033
    assert!(state["write_clock"].is_string(), "{state}");
}

//! Synthetic HARs for the catalog-size tests (discovery reservation, state catalog budget) of
//! the serve and bundle tests, and what the server charges their catalogs.

use serde_json::{Value, json};

/// A HAR of `tools` GET endpoints, one record each; query field `n` (of `fields`) goes to
/// endpoint `n % tools`. Field names have one length, so each field charges the catalog alike.
pub fn many_endpoints_har(tools: usize, fields: usize) -> String {
    let entries: Vec<Value> = (0..tools)
        .map(|tool| {
            let names: Vec<String> = (tool..fields)
                .step_by(tools)
                .map(|n| format!("field_{n:05}_{}", "x".repeat(40)))
                .collect();
            let query: Vec<String> = names.iter().map(|name| format!("{name}=v")).collect();
            let url = if query.is_empty() {
                format!("http://127.0.0.1:8080/api/resource{tool:04}")
            } else {
                format!(
                    "http://127.0.0.1:8080/api/resource{tool:04}?{}",
                    query.join("&")
                )
            };
            let body = json!({"id": tool, "name": "n"}).to_string();
            get_entry("2026-01-01T00:00:00.000Z", &url, &names, &body)
        })
        .collect();
    har_text(entries)
}

/// What the discovery reservation charges the replay catalog and the state catalog (read tools
/// only: these captures have no writes) of a HAR, computed in-process as the server does.
pub fn catalog_charges(har: &str) -> (u64, u64) {
    use rea::commands::inspect_capture::{InspectRequest, inspect_with_builtins};
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("capture.har");
    std::fs::write(&path, har).unwrap();
    let capture = inspect_with_builtins(&InspectRequest {
        capture: &path,
        input_kind: "har",
        selection: None,
        sensitive_values: &[],
    })
    .unwrap();
    let (manifest, evidence) =
        rea_manifest::project_manifest_evidence(&capture, &rea_manifest::TemplateRules::none())
            .unwrap();
    let environment = rea_manifest::Environment::from_evidence(&evidence, &capture).unwrap();
    let charged =
        |result: Result<rea_manifest::DiscoveryCharge, rea_evidence::Refusal>| match result {
            Ok(charge) => charge.charged_bytes,
            Err(refusal) => refusal.data.expect("charge data")["charged_bytes"]
                .as_u64()
                .unwrap(),
        };
    let replay = charged(environment.check_discovery_reservation(environment.name()));
    let state_tools = rea_state::catalog::state_tools(&environment, &manifest, &[]);
    let state = charged(rea_state::catalog::check_state_catalog(
        &state_tools,
        environment.name(),
    ));
    (replay, state)
}

/// A HAR of one endpoint of `origin` recorded `records` times with 100 distinct query fields each.
pub fn wide_har(records: usize, origin: &str) -> String {
    let entries: Vec<Value> = (0..records)
        .map(|record| {
            let names: Vec<String> = (0..100)
                .map(|i| format!("filter_field_{:05}", record * 100 + i))
                .collect();
            let query: Vec<String> = names.iter().map(|n| format!("{n}=v")).collect();
            let body = json!({"items": [{"id": record}], "total": 1}).to_string();
            let url = format!("{origin}/api/search?{}", query.join("&"));
            get_entry("2026-01-01T00:00:00.000Z", &url, &names, &body)
        })
        .collect();
    har_text(entries)
}

/// A HAR of about `bytes` bytes: one item read per entity with a JSON body, so reading it takes
/// seconds in a test build (a long build, as a user's 31 MB recording is in a release build).
pub fn large_har(path: &std::path::Path, bytes: usize) {
    let filler = "x".repeat(1500);
    let mut entries = Vec::new();
    let mut size = 0;
    for n in 0.. {
        if size >= bytes {
            break;
        }
        let body = json!({ "id": n, "title": format!("item {n}"), "notes": filler }).to_string();
        let started = format!("2024-01-01T00:{:02}:{:02}.000Z", n / 60 % 60, n % 60);
        let entry = get_entry(
            &started,
            &format!("http://127.0.0.1:9/items/{n}"),
            &[],
            &body,
        );
        size += entry.to_string().len();
        entries.push(entry);
    }
    std::fs::write(path, har_text(entries)).expect("large HAR");
}

/// The size of [`large_har`] the progress tests build: 24 MB (the HAR budget is 32 MiB).
pub const LARGE_HAR_BYTES: usize = 24_000_000;

/// One recorded GET with these query field names (each `=v`) answering a JSON body.
fn get_entry(started: &str, url: &str, query_names: &[String], body: &str) -> Value {
    json!({
        "startedDateTime": started, "time": 1,
        "request": {"method": "GET", "url": url, "httpVersion": "HTTP/1.1", "headers": [],
                    "cookies": [], "queryString": query_names.iter().map(|n| json!({"name": n, "value": "v"})).collect::<Vec<_>>(),
                    "headersSize": -1, "bodySize": 0},
        "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                     "headers": [{"name": "Content-Type", "value": "application/json"}], "cookies": [],
                     "content": {"size": body.len(), "mimeType": "application/json", "text": body},
                     "redirectURL": "", "headersSize": -1, "bodySize": body.len()},
        "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}
    })
}

/// A HAR 1.2 document of these entries, as text.
fn har_text(entries: Vec<Value>) -> String {
    json!({"log": {"version": "1.2", "creator": {"name": "rea-tests", "version": "1"}, "entries": entries}})
        .to_string()
}

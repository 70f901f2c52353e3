//! Folder listings composed after writes, on two recorded applications.
//!
//! Jupyter Server (`rea_state::folder_compose`): a folder read after a served write below it
//! answers its rows in the tree's order, less the children a write removed, its stamps the
//! write's clock in the format the build's reads after its writes show; the listing after a
//! served delete of `notes/ideas.txt` is the live application's (probe-crud step 25, clocks
//! compared by format, as `environment-compare` compares them). A new child among siblings has
//! no place the recordings show (`folder-child-place`), and a folder the build never listed
//! (`data`, read only `content=0`) is refused (`folder-unlisted`).
//!
//! etcd (`rea_state::listings`): `sorted=true`, the one `true` pair of a listing query every
//! listing read with it shows sorted by key, is learned as an order flag: a call without it
//! answers the composed folder where no folder holds two children (`services/worker`, or `queue`
//! after a served delete of one of its two keys), and is refused where the order is etcd's own,
//! which no build read shows (`queue` before, two children).

use std::sync::Arc;

use rea_backends::fetch::FetchOptions;
use serde_json::{Value, json};

use crate::state_folder_entries::call_for;
use crate::state_support::{Served, capture_file, serve_corpus_app, serve_evidence, state_rules};

const FILE_TEMPLATE: &str = "/api/contents/{prefix-variance}/{sibling-variance}";

fn send(
    served: &Served,
    method: &str,
    target: &str,
    (template, body): (Option<&str>, Option<Value>),
) -> (Value, bool) {
    let (tool, mut arguments) = call_for(served, method, target, template);
    if let Some(body) = body {
        arguments.insert("body".to_owned(), body);
    }
    served.call(&tool, arguments)
}

/// A value with every UTC clock text replaced by its format (its fraction digits), as the
/// comparer compares clocks.
fn clocks_as_formats(value: &Value) -> Value {
    match value {
        Value::String(text) => {
            let clock = text.len() >= 20
                && text.ends_with('Z')
                && text.as_bytes().get(10) == Some(&b'T')
                && text[..4].bytes().all(|byte| byte.is_ascii_digit());
            if clock {
                let digits = text
                    .split_once('.')
                    .map_or(0, |(_, fraction)| fraction.len() - 1);
                json!(format!("clock .{digits}Z"))
            } else {
                value.clone()
            }
        }
        Value::Array(items) => Value::Array(items.iter().map(clocks_as_formats).collect()),
        Value::Object(members) => Value::Object(
            members
                .iter()
                .map(|(name, member)| (name.clone(), clocks_as_formats(member)))
                .collect(),
        ),
        _ => value.clone(),
    }
}

/// The live application's answer body of a probe's step.
fn probe_answer(app: &str, probe: &str, step: usize) -> Value {
    let path = format!(
        "{}/corpus/apps/{app}/{probe}.har",
        env!("CARGO_MANIFEST_DIR")
    );
    let har: Value =
        serde_json::from_slice(&std::fs::read(&path).expect("the probe")).expect("a HAR");
    let text = har["log"]["entries"][step]["response"]["content"]["text"]
        .as_str()
        .expect("a body");
    serde_json::from_str(text).expect("JSON")
}

#[test]
fn jupyter_a_folder_after_a_served_delete_lists_its_rows_left_as_the_application_does() {
    let served = serve_corpus_app("jupyter_server");
    let target = "/api/contents/notes/ideas.txt";
    let (deleted, _) = send(&served, "DELETE", target, (Some(FILE_TEMPLATE), None));
    assert_eq!(deleted["status"], 204, "{deleted}");
    let (notes, is_error) = send(&served, "GET", "/api/contents/notes", (None, None));
    assert!(!is_error, "{notes}");
    assert_eq!(notes["status"], 200, "{notes}");
    // The stamps moved to the write's clock (the build's notes listed 09:10:00Z before).
    assert_ne!(notes["body"]["last_modified"], "2026-11-26T09:10:00Z");
    let live = probe_answer("jupyter_server", "probe-crud", 25);
    assert_eq!(
        clocks_as_formats(&notes["body"]),
        clocks_as_formats(&live),
        "{notes}"
    );
}

#[test]
fn jupyter_a_new_child_among_siblings_and_an_unlisted_folder_are_refused() {
    let served = serve_corpus_app("jupyter_server");
    let body = json!({"type": "file", "format": "text", "content": "a,b\n"});
    let (written, _) = send(
        &served,
        "PUT",
        "/api/contents/data/budget.csv",
        (Some(FILE_TEMPLATE), Some(body)),
    );
    assert_eq!(written["status"], 201, "{written}");
    let (data, is_error) = send(&served, "GET", "/api/contents/data", (None, None));
    assert!(is_error, "{data}");
    assert!(data.to_string().contains("folder-unlisted"), "{data}");
    let body = json!({"type": "file", "format": "text", "content": "x\n"});
    let (written, _) = send(
        &served,
        "PUT",
        "/api/contents/notes/x.md",
        (Some(FILE_TEMPLATE), Some(body)),
    );
    assert_eq!(written["status"], 201, "{written}");
    let (notes, is_error) = send(&served, "GET", "/api/contents/notes", (None, None));
    assert!(is_error, "{notes}");
    assert!(notes.to_string().contains("folder-child-place"), "{notes}");
}

fn etcd_get(served: &Served, target: &str) -> (Value, bool) {
    send(served, "GET", target, (None, None))
}

#[test]
fn etcd_a_listing_without_the_order_flag_answers_where_order_is_immaterial() {
    let served = serve_corpus_app("etcd");
    let (worker, is_error) = etcd_get(&served, "/v2/keys/services/worker");
    assert!(!is_error, "{worker}");
    let (sorted, _) = etcd_get(&served, "/v2/keys/services/worker?sorted=true");
    assert_eq!(worker["body"], sorted["body"], "{worker}");
    assert_eq!(
        worker["body"]["node"]["nodes"][0]["key"],
        "/services/worker/node-1"
    );
    // Two children: etcd's own order without the flag is not shown.
    let (queue, is_error) = etcd_get(&served, "/v2/keys/queue");
    assert!(is_error, "{queue}");
    assert!(queue.to_string().contains("listing-order"), "{queue}");
    let (deleted, _) = send(
        &served,
        "DELETE",
        "/v2/keys/queue/00000000000000000015?prevIndex=15",
        (None, None),
    );
    assert_eq!(deleted["status"], 200, "{deleted}");
    let (queue, is_error) = etcd_get(&served, "/v2/keys/queue");
    assert!(!is_error, "{queue}");
    let (sorted, _) = etcd_get(&served, "/v2/keys/queue?sorted=true");
    assert_eq!(queue["body"], sorted["body"], "{queue}");
    assert_eq!(
        queue["body"]["node"]["nodes"],
        json!([{"key": "/queue/00000000000000000016", "value": "rebuild-search-index", "modifiedIndex": 16, "createdIndex": 16}])
    );
}

/// Jupyter Server served with sibling transfer on (the fidelity run's setting), which offers the
/// rename of a folder below another (`PATCH /api/contents/{dir}/{name}`).
fn jupyter_with_transfer() -> Served {
    let build = rea_tests::fidelity::discover(&rea_tests::fidelity::default_roots())
        .into_iter()
        .find(|found| found.name == "jupyter_server")
        .expect("the corpus holds jupyter_server")
        .dir
        .join("build.har");
    let rules = Arc::new((*state_rules()).clone().with_sibling_transfer(true));
    serve_evidence(capture_file(&build), rules, FetchOptions::default())
}

#[test]
fn jupyter_a_folder_a_served_write_created_lists_the_children_writes_made() {
    let served = jupyter_with_transfer();
    let directory = Some(json!({"type": "directory"}));
    let (created, _) = send(&served, "POST", "/api/contents/reports", (None, directory));
    assert_eq!(created["status"], 201, "{created}");
    assert_eq!(created["body"]["content"], Value::Null, "{created}");
    let target = "/api/contents/reports/Untitled%20Folder";
    let rename = Some(json!({"path": "reports/2027"}));
    let (renamed, _) = send(&served, "PATCH", target, (Some(FILE_TEMPLATE), rename));
    assert_eq!(renamed["status"], 200, "{renamed}");
    let numeric = Some("/api/contents/{prefix-variance}/{numeric}");
    let (folder, is_error) = send(
        &served,
        "GET",
        "/api/contents/reports/2027",
        (numeric, None),
    );
    assert!(!is_error, "{folder}");
    // The live application's answer (probe-crud step 17), clocks compared by format.
    let live = probe_answer("jupyter_server", "probe-crud", 17);
    assert_eq!(
        clocks_as_formats(&folder["body"]),
        clocks_as_formats(&live),
        "{folder}"
    );
    // A file a served write created is no folder: it answers as its item view does.
    let file = Some(json!({"type": "file", "format": "text", "content": "x\n"}));
    let (_, _) = send(
        &served,
        "PUT",
        "/api/contents/notes/x.md",
        (Some(FILE_TEMPLATE), file),
    );
    let (read, is_error) = send(
        &served,
        "GET",
        "/api/contents/notes/x.md",
        (Some(FILE_TEMPLATE), None),
    );
    assert!(!is_error, "{read}");
    assert_eq!(read["body"]["content"], "x\n", "{read}");
}

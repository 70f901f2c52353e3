//! Folder-tree depths (opt-in with sibling transfer; `rea_manifest::depths`,
//! `rea_state::tree_depths`): a tree's write recorded at one depth is offered at the depths the
//! recording only read, as an inferred tool serving the classes the tree learned for its method.
//! etcd's build wrote keys two and three levels down (`PUT /v2/keys/config/search` with
//! `dir=true`, `POST /v2/keys/queue`, `DELETE /v2/keys/flags/beta-search`) and read the top
//! level (`GET /v2/keys/config`): a directory made at the top level (`PUT /v2/keys/releases`),
//! an in-order key appended to it, read back and deleted are served from the state, stamped by
//! the tree's store index. A top-level call of no learned class (`DELETE …?dir=true`, never
//! recorded) is refused, changing nothing. Only this recorded application shows it: Jupyter
//! Server composes no folder listing, so no tree is learned there.
//!
//! Listed depths (`rea_manifest::listed_depths`, `rea_state::tree_depths::attach_reads`): a
//! listing naming entries one level below every read of its tree offers the deepest read there.
//! jupyter_server's build listed `reports/2026` (naming `reports/2026/q4.md`) but read documents
//! two levels down only: the three-level read answers the listed entry (`content=0`) from the
//! state and refuses what no listing shows. etcd's listings name no entry below a read depth
//! (`/v2/keys/config/web/theme` is a leaf), so no read is offered there; no other corpus app
//! lists a tree deeper than it reads.

use rea_serve::ToolBackend;
use serde_json::{Value, json};

use crate::state_folder_entries::call_for;
use crate::state_support::{Served, serve_corpus_app_transfer};

fn etcd(transfer: bool) -> Served {
    serve_corpus_app_transfer("etcd", transfer)
}

fn send(served: &Served, method: &str, target: &str, body: Option<Value>) -> (String, Value, bool) {
    let (tool, mut arguments) = call_for(served, method, target, None);
    if let Some(body) = body {
        arguments.insert("body".to_owned(), body);
    }
    let (answer, is_error) = served.call(&tool, arguments);
    (tool, answer, is_error)
}

#[test]
fn etcd_top_level_writes_are_offered_only_with_the_transfer_and_inferred() {
    let plain = etcd(false);
    assert!(
        plain
            .manifest
            .tools
            .iter()
            .all(|tool| tool.inferred_from.is_none()),
        "the default pipeline infers nothing"
    );
    let served = etcd(true);
    let put = served
        .manifest
        .tools
        .iter()
        .find(|tool| tool.method == "PUT" && tool.path_template.matches('/').count() == 3)
        .expect("a top-level PUT is offered");
    assert!(put.record_ordinals.is_empty(), "{put:#?}");
    let source = put.inferred_from.as_deref().expect("inferred");
    assert!(served.replay.is_inferred(&put.name));
    let plan = served
        .state()
        .write_plans
        .iter()
        .find(|plan| plan.tool == put.name)
        .expect("a plan for the inferred PUT");
    assert!(plan.served, "{plan:#?}");
    assert_eq!(plan.inferred_from.as_deref(), Some(source));
    assert!(!plan.confirmed_by.is_empty(), "{plan:#?}");
}

#[test]
fn etcd_a_top_level_directory_is_made_appended_to_read_and_emptied() {
    let served = etcd(true);
    let (_, made, is_error) = send(
        &served,
        "PUT",
        "/v2/keys/releases",
        Some(json!({"dir": "true"})),
    );
    assert!(!is_error, "{made}");
    assert_eq!(made["status"], 201, "{made}");
    let folder = json!({"key": "/releases", "dir": true, "modifiedIndex": 17, "createdIndex": 17});
    assert_eq!(made["body"], json!({"action": "set", "node": folder}));
    let (_, appended, is_error) = send(
        &served,
        "POST",
        "/v2/keys/releases",
        Some(json!({"value": "2.4.1"})),
    );
    assert!(!is_error, "{appended}");
    let key = json!({"key": "/releases/00000000000000000018", "value": "2.4.1", "modifiedIndex": 18, "createdIndex": 18});
    assert_eq!(appended["body"], json!({"action": "create", "node": key}));
    let (_, listing, is_error) = send(&served, "GET", "/v2/keys/releases?sorted=true", None);
    assert!(!is_error, "{listing}");
    assert_eq!(listing["body"]["node"]["nodes"], json!([key]), "{listing}");
    // A dir=true delete was never recorded: refused, the folder and its key kept.
    let (_, refused, is_error) = send(&served, "DELETE", "/v2/keys/releases?dir=true", None);
    assert!(is_error, "{refused}");
    let (_, read, _) = send(
        &served,
        "GET",
        "/v2/keys/releases/00000000000000000018",
        None,
    );
    assert_eq!(read["body"]["node"], key, "{read}");
    let (_, deleted, is_error) = send(
        &served,
        "DELETE",
        "/v2/keys/releases/00000000000000000018",
        None,
    );
    assert!(!is_error, "{deleted}");
    assert_eq!(deleted["body"]["node"]["modifiedIndex"], 19, "{deleted}");
    // The store index the tree keeps went on from the served writes (the refusal took none).
    let (_, missing, _) = send(
        &served,
        "GET",
        "/v2/keys/releases/00000000000000000018",
        None,
    );
    assert_eq!(missing["status"], 404, "{missing}");
    assert_eq!(missing["body"]["index"], 19, "{missing}");
}

/// The entry reads a manifest infers (listed depths: the other inferred `GET`s are suffix routes
/// at another depth, `rea_manifest::suffix_depths`, whose templates end in a literal).
fn inferred_reads(served: &Served) -> Vec<&rea_manifest::ManifestTool> {
    served
        .manifest
        .tools
        .iter()
        .filter(|tool| tool.method == "GET" && tool.inferred_from.is_some())
        .filter(|tool| tool.path_template.ends_with('}'))
        .collect()
}

#[test]
fn jupyter_an_entry_listed_below_every_read_depth_reads_as_its_listing_shows_it() {
    assert!(
        inferred_reads(&serve_corpus_app_transfer("jupyter_server", false)).is_empty(),
        "the default pipeline infers nothing"
    );
    let served = serve_corpus_app_transfer("jupyter_server", true);
    let reads = inferred_reads(&served);
    assert_eq!(reads.len(), 1, "{reads:#?}");
    let read = reads[0];
    assert_eq!(
        read.path_template,
        "/api/contents/{prefix-variance}/{sibling-variance}/{folder-tree}"
    );
    assert_eq!(
        read.inferred_from.as_deref(),
        Some("get_api_contents_by_prefix_variance_and_sibling_variance"),
        "the two-level read citing the most records"
    );
    assert!(read.record_ordinals.is_empty() && served.replay.is_inferred(&read.name));
    assert!(
        served
            .backend
            .tools()
            .iter()
            .any(|tool| tool.name == read.name),
        "the state offers it"
    );
    let (tool, answer, is_error) = send(
        &served,
        "GET",
        "/api/contents/reports/2026/q4.md?content=0",
        None,
    );
    assert_eq!(tool, read.name);
    assert!(!is_error, "{answer}");
    assert_eq!(answer["status"], 200, "{answer}");
    assert_eq!(answer["body"]["path"], "reports/2026/q4.md", "{answer}");
    assert_eq!(answer["body"]["type"], "file", "{answer}");
    assert_eq!(answer["body"]["content"], Value::Null, "{answer}");
    // The content no read showed, and an entry no listing names: refused, never another
    // document's answer.
    for target in [
        "/api/contents/reports/2026/q4.md",
        "/api/contents/reports/2026/nope.md?content=0",
    ] {
        let (_, refused, is_error) = send(&served, "GET", target, None);
        assert!(is_error, "{target}: {refused}");
    }
}

#[test]
fn etcd_no_read_is_offered_below_a_depth_no_listing_names() {
    let served = etcd(true);
    assert!(inferred_reads(&served).is_empty());
    assert!(
        !served
            .manifest
            .tools
            .iter()
            .any(|tool| tool.method == "GET" && tool.path_template.matches('/').count() == 6),
        "no read below /v2/keys/{{a}}/{{b}}/{{c}}: the listings name no deeper key"
    );
}

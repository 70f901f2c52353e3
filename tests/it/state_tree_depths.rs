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

use std::sync::Arc;

use rea_backends::fetch::FetchOptions;
use serde_json::{Value, json};

use crate::state_folder_entries::call_for;
use crate::state_support::{Served, capture_file, serve_evidence, state_rules};

fn etcd(transfer: bool) -> Served {
    let build = rea_tests::fidelity::discover(&rea_tests::fidelity::default_roots())
        .into_iter()
        .find(|found| found.name == "etcd")
        .expect("the corpus holds etcd")
        .dir
        .join("build.har");
    let rules = Arc::new((*state_rules()).clone().with_sibling_transfer(transfer));
    serve_evidence(capture_file(&build), rules, FetchOptions::default())
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

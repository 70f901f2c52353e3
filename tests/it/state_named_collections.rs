//! Writes that make a new collection (see `rea_state::writes::named_collection`): a `PUT /{name}`
//! sending no body, after which the document listing the collections' names (`GET /_all_dbs`)
//! lists the name, is served as a document write adding the name its path gives. On the real
//! recording of a document store (pouchdb-server: `PUT /loans`, then `_all_dbs` listing it): the
//! plan is served and confirmed by that read, a served create lists the new name from the state
//! (and a name already listed is refused, changing nothing); the same recording without the read
//! after the create leaves it withheld.

use std::path::{Path, PathBuf};

use rea_state::writes::model::{Effect, WritePlan};
use serde_json::{Map, Value, json};

use crate::state_support::{
    Served, capture_file, corpus_dir, path_parameter, serve_corpus_app, serve_evidence, state_rules,
};

/// The plan of the `PUT` of a one-segment path.
fn create_plan(served: &Served) -> WritePlan {
    served
        .state()
        .write_plans
        .iter()
        .find(|plan| plan.method == "PUT" && plan.path_template.matches('/').count() == 1)
        .cloned()
        .expect("a PUT /{name} plan")
}

/// The names document's tool: the document view the plan writes.
fn names_tool(plan: &WritePlan) -> String {
    plan.target
        .as_ref()
        .and_then(|target| target.document.clone())
        .expect("a document target")
}

/// The arguments naming a path's one parameter.
fn named(served: &Served, tool: &str, name: &str) -> Map<String, Value> {
    let parameter = path_parameter(served, tool);
    let mut arguments = Map::new();
    arguments.insert(parameter, Value::String(name.to_owned()));
    arguments
}

#[test]
fn a_database_create_lists_the_new_name_from_the_state() {
    let served = serve_corpus_app("pouchdb-server");
    let plan = create_plan(&served);
    assert!(plan.served, "{:?}", plan.reason);
    assert_eq!(plan.effect, Effect::Document);
    let names = names_tool(&plan);
    // The read of the names document right after `PUT /loans` showed the name added last.
    assert_eq!(plan.record_ordinals, vec![64]);
    assert_eq!(plan.confirmed_by, vec![65]);
    let (before, _) = served.call(&names, Map::new());
    let listed = before["body"].as_array().cloned().expect("a names list");
    assert!(!listed.contains(&json!("reviews")), "{before}");
    let (created, is_error) = served.call(&plan.tool, named(&served, &plan.tool, "reviews"));
    assert!(!is_error, "{created}");
    assert_eq!(created["status"], 201, "{created}");
    assert_eq!(created["body"], json!({"ok": true}), "{created}");
    let (after, _) = served.call(&names, Map::new());
    assert_eq!(after["state"]["source"], "state", "{after}");
    let mut expected = listed.clone();
    expected.push(json!("reviews"));
    assert_eq!(after["body"], Value::Array(expected.clone()), "{after}");
    // A name already listed: refused, the list unchanged.
    let (again, is_error) = served.call(&plan.tool, named(&served, &plan.tool, "reviews"));
    assert!(is_error, "{again}");
    let (unchanged, _) = served.call(&names, Map::new());
    assert_eq!(unchanged["body"], Value::Array(expected), "{unchanged}");
}

/// pouchdb-server's build recording without its entries `left_out`, written into `folder`.
fn build_without(folder: &Path, left_out: &[usize]) -> PathBuf {
    let build = corpus_dir("pouchdb-server").join("build.har");
    let mut har: Value = serde_json::from_slice(&std::fs::read(build).unwrap()).unwrap();
    let entries = har["log"]["entries"].as_array_mut().expect("entries");
    let kept: Vec<Value> = entries
        .iter()
        .enumerate()
        .filter(|(index, _)| !left_out.contains(index))
        .map(|(_, entry)| entry.clone())
        .collect();
    *entries = kept;
    let written = folder.join("build.har");
    std::fs::write(&written, serde_json::to_vec(&har).unwrap()).unwrap();
    written
}

#[test]
fn a_database_create_no_read_confirms_stays_withheld() {
    // Entry 65 is the names document's read right after `PUT /loans` (entry 64).
    let folder = tempfile::tempdir().unwrap();
    let capture = capture_file(&build_without(folder.path(), &[65]));
    let served = serve_evidence(capture, state_rules(), Default::default());
    let plan = create_plan(&served);
    assert!(!plan.served, "{plan:?}");
    assert!(
        plan.fields
            .as_ref()
            .is_none_or(|fields| fields.adds_name.is_none()),
        "{plan:?}"
    );
}

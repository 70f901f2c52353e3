//! What a served write does not do, on real captures: it changes only the one entity (or
//! document) it writes, in the collection its plan ties it to, with only the changes its plan
//! models; no counters, relations or copies elsewhere, no reordering on update, no cascade on
//! delete; and an entity only a recorded (not served) create made is missing to it.

use crate::state_support;

use std::collections::BTreeMap;

use serde_json::{Value, json};
use state_support::{Served, serve};

/// Every entity the live state holds, `(type, collection, id)` → fields, and per `(type,
/// collection)` the ids in state order.
struct Snapshot {
    entities: BTreeMap<(String, String, String), Value>,
    orders: BTreeMap<(String, String), Vec<String>>,
    documents: Value,
}

fn snapshot(served: &Served) -> Snapshot {
    let document = served
        .backend
        .service()
        .document()
        .to_serde_value()
        .expect("the state document is JSON");
    let mut entities = BTreeMap::new();
    let mut orders: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for entity in document["rea_state"]["entities"]
        .as_array()
        .expect("entities")
    {
        let text = |member: &str| entity[member].as_str().expect(member).to_owned();
        let (kind, collection, id) = (text("type"), text("collection"), text("id"));
        orders
            .entry((kind.clone(), collection.clone()))
            .or_default()
            .push(id.clone());
        entities.insert((kind, collection, id), entity["fields"].clone());
    }
    Snapshot {
        entities,
        orders,
        documents: document["rea_state"]["documents"].clone(),
    }
}

/// The entities that differ between two snapshots (added, removed or changed).
fn changed(before: &Snapshot, after: &Snapshot) -> Vec<(String, String, String)> {
    let mut keys: Vec<&(String, String, String)> = before
        .entities
        .keys()
        .chain(after.entities.keys())
        .collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|key| before.entities.get(*key) != after.entities.get(*key))
        .cloned()
        .collect()
}

fn call(served: &Served, tool: &str, arguments: Value) -> (Value, bool) {
    let Value::Object(arguments) = arguments else {
        panic!("arguments are an object")
    };
    served.call(tool, arguments)
}

fn key(kind: &str, collection: &str, id: &str) -> (String, String, String) {
    (kind.to_owned(), collection.to_owned(), id.to_owned())
}

#[test]
fn a_json_server_create_writes_one_entity_into_its_tied_collection_and_nothing_else() {
    // contract: WRITE-005, WRITE-066, WRITE-067, WRITE-068, WRITE-069
    let served = serve("json-server/build.har");
    let plan = served
        .state()
        .write_plan("post_posts_comments_by_post_id")
        .cloned()
        .expect("a plan");
    assert!(plan.served, "{:?}", plan.reason);
    assert_eq!(
        plan.target
            .as_ref()
            .and_then(|target| target.collection.as_deref()),
        Some("/comments")
    );
    let before = snapshot(&served);
    let (created, error) = call(
        &served,
        "post_posts_comments_by_post_id",
        json!({"post_id": "2", "body": {"author": "x", "body": "y", "approved": true}}),
    );
    assert!(!error, "{created}");
    let id = created["body"]["id"].to_string();
    let after = snapshot(&served);
    // One entity added, in `/comments` (the exemplar's collection, whatever post the path names):
    // the post it names, its other comments, the users and the profile are as they were (no
    // comment counter, relation list or embedded copy is kept up to date).
    assert_eq!(
        changed(&before, &after),
        vec![key("/comments", "/comments", &id)]
    );
    assert_eq!(after.documents, before.documents);
    let (comments, _) = call(&served, "get_comments", json!({}));
    assert!(
        comments["body"]
            .as_array()
            .expect("a list")
            .iter()
            .any(|comment| comment["id"] == created["body"]["id"]),
        "{comments}"
    );
}

#[test]
fn a_json_server_update_changes_only_what_it_sent_and_keeps_the_order() {
    // contract: WRITE-018, WRITE-066, WRITE-070
    let served = serve("json-server/build.har");
    let before = snapshot(&served);
    let (listed_before, _) = call(&served, "get_posts", json!({}));
    let (patched, error) = call(
        &served,
        "patch_posts_by_id",
        json!({"id": "2", "body": {"title": "AAA first by title", "views": 100000}}),
    );
    assert!(!error, "{patched}");
    let after = snapshot(&served);
    let written = key("/posts", "/posts", "2");
    assert_eq!(changed(&before, &after), vec![written.clone()]);
    // The unsent members are as held: only the sent ones changed (json-server's plan has no
    // rule that changes an unsent member).
    let mut expected = before.entities[&written].clone();
    expected["title"] = json!("AAA first by title");
    expected["views"] = json!(100000);
    assert_eq!(after.entities[&written], expected);
    // Not moved: the state order and the list are as before, whatever the new title or views.
    assert_eq!(after.orders, before.orders);
    let (listed_after, _) = call(&served, "get_posts", json!({}));
    let ids = |listed: &Value| -> Vec<String> {
        listed["body"]
            .as_array()
            .expect("a list")
            .iter()
            .map(|post| post["id"].to_string())
            .collect()
    };
    assert_eq!(ids(&listed_after), ids(&listed_before));
}

#[test]
fn a_kinto_update_changes_the_sent_members_and_the_clock_its_rule_models() {
    // contract: WRITE-018, WRITE-066
    let served = serve("kinto/build.har");
    let patch = "patch_buckets_workspace_collections_records_by_collection_id_and_id";
    let plan = served.state().write_plan(patch).cloned().expect("a plan");
    let ruled: Vec<String> = plan
        .rules
        .iter()
        .flat_map(|rule| rule.explains.clone())
        .collect();
    assert_eq!(ruled, ["/last_modified"]);
    let before = snapshot(&served);
    // A task holding the members every recorded patch sent (`status`, `priority`), sent again
    // with their held values beside a new title.
    let (written, fields) = before
        .entities
        .iter()
        .find(|((kind, _, _), fields)| {
            kind.ends_with("/records")
                && fields.get("status").is_some()
                && fields.get("priority").is_some()
        })
        .map(|(key, fields)| (key.clone(), fields.clone()))
        .expect("a task");
    let collection = written.1.rsplit('/').nth(1).expect("a collection id");
    let (answer, error) = call(
        &served,
        patch,
        json!({"collection_id": collection, "id": written.2, "body": {"data": {
            "title": "Renamed", "status": fields["status"], "priority": fields["priority"]
        }}}),
    );
    assert!(!error, "{answer}");
    let after = snapshot(&served);
    assert_eq!(changed(&before, &after), vec![written.clone()]);
    // Exactly the sent member and the modelled clock differ.
    let now = &after.entities[&written];
    let differing: Vec<&String> = now
        .as_object()
        .expect("an object")
        .iter()
        .filter(|(member, value)| fields.get(member.as_str()) != Some(*value))
        .map(|(member, _)| member)
        .collect();
    assert_eq!(differing, ["last_modified", "title"]);
    assert_eq!(
        now.as_object().map(|object| object.len()),
        fields.as_object().map(|object| object.len())
    );
}

#[test]
fn a_served_delete_removes_one_entity_and_cascades_nowhere() {
    // contract: WRITE-066, WRITE-071
    // Kinto: the delete removes the one record; every other record and collection stays.
    let served = serve("kinto/build.har");
    let delete = "delete_buckets_workspace_collections_records_by_collection_id_and_id";
    let before = snapshot(&served);
    let written = before
        .entities
        .keys()
        .find(|(kind, _, _)| kind.ends_with("/records"))
        .cloned()
        .expect("a record");
    let collection = written.1.rsplit('/').nth(1).expect("a collection id");
    let (answer, error) = call(
        &served,
        delete,
        json!({"collection_id": collection, "id": written.2}),
    );
    assert!(!error, "{answer}");
    let after = snapshot(&served);
    assert_eq!(changed(&before, &after), vec![written.clone()]);
    assert!(!after.entities.contains_key(&written));
    // A delete whose capture shows it cascading (json-server's posts and comments) is served
    // with the cascade its reads showed: `state_writes_dependents.rs`.
}

#[test]
fn an_entity_only_a_recorded_create_made_is_missing_to_served_writes() {
    // contract: WRITE-078, WRITE-054, WRITE-055
    // json-server's capture created post 5 (record 26); the state is what the reads showed
    // before the first write, so a served update of post 5 answers the recorded 404.
    let served = serve("json-server/build.har");
    let before = snapshot(&served);
    assert!(!before.entities.contains_key(&key("/posts", "/posts", "5")));
    let (missing, error) = call(
        &served,
        "patch_posts_by_id",
        json!({"id": "5", "body": {"title": "x"}}),
    );
    assert!(!error, "{missing}");
    assert_eq!(missing["status"], 404);
    assert_eq!(missing["state"]["view"], "missing");
    assert!(changed(&before, &snapshot(&served)).is_empty());
    // MLflow: run 48a6… was made by a create the environment does not serve; the served delete
    // finds no such run, and MLflow's capture recorded no 400/404/410 to answer with.
    let served = serve("mlflow/build.har");
    let before = snapshot(&served);
    let (missing, error) = call(
        &served,
        "post_mlflow_runs_delete",
        json!({"body": {"run_id": "48a6aa810b594629982eaa007c519475"}}),
    );
    assert!(error, "{missing}");
    assert_eq!(missing["error"]["code"], "not_found", "{missing}");
    assert!(changed(&before, &snapshot(&served)).is_empty());
}

#[test]
fn an_mlflow_run_delete_keeps_the_run_marked_deleted() {
    // contract: WRITE-050, WRITE-051, WRITE-052, WRITE-025
    // MLflow marks a deleted run `lifecycle_stage: "deleted"` and still answers it by id; the
    // soft-delete rule learned that from the capture's read after its delete.
    let served = serve("mlflow/build.har");
    let plan = served
        .state()
        .write_plan("post_mlflow_runs_delete")
        .cloned()
        .expect("a plan");
    assert!(plan.served, "{:?}", plan.reason);
    assert!(
        plan.rules
            .iter()
            .any(|rule| rule.stage == "soft-delete" && rule.explains == ["/info/lifecycle_stage"])
    );
    let run = "59a2635679d94d578ae5b6794b6056b9";
    let (read_before, _) = call(&served, "get_mlflow_runs_get", json!({"run_id": run}));
    assert_eq!(
        read_before["body"]["run"]["info"]["lifecycle_stage"],
        "active"
    );
    let (deleted, error) = call(
        &served,
        "post_mlflow_runs_delete",
        json!({"body": {"run_id": run}}),
    );
    assert!(!error, "{deleted}");
    assert_eq!(deleted["status"], 200);
    assert_eq!(deleted["body"], json!({}));
    let (read, _) = call(&served, "get_mlflow_runs_get", json!({"run_id": run}));
    assert_eq!(read["status"], 200, "{read}");
    let mut expected = read_before["body"].clone();
    expected["run"]["info"]["lifecycle_stage"] = json!("deleted");
    assert_eq!(read["body"], expected);
    // Until a reset.
    served.backend.service().reset();
    let (restored, _) = call(&served, "get_mlflow_runs_get", json!({"run_id": run}));
    assert_eq!(restored["body"], read_before["body"]);
}

//! A one-object create's left-out members and sent identity, learned from the type's other
//! recorded creations (`writes::defaults`): datasette's build inserts one task sending every
//! column (call 26), a batch whose rows leave `status` and `due` out (call 29, stored `todo` and
//! `null`), and an upsert creating task 40 under the id it sent, leaving `priority`, `project`,
//! `assignee` and `due` out (call 49, stored `3` and `null`s). The served insert then accepts a
//! row naming its id and leaving those members out (the probe's step 3), and refuses a taken id
//! and a row leaving out `title` (no creation left it out), changing nothing. Only datasette
//! shows such creations in the corpus (directus's one-object creates already leave members out
//! themselves).

use serde_json::{Map, Value, json};

use crate::state_support::serve_corpus_app;

fn object(value: Value) -> Map<String, Value> {
    let Value::Object(map) = value else {
        panic!("an object")
    };
    map
}

const INSERT: &str = "post_tracker_insert_by_tracker_id";

#[test]
fn an_insert_keeps_its_sent_id_and_stores_the_recorded_defaults() {
    let served = serve_corpus_app("datasette");
    let plan = served
        .state()
        .write_plan(INSERT)
        .expect("the insert's plan");
    assert!(plan.served, "{:?}", plan.reason);
    let fields = plan.fields.as_ref().expect("fields");
    let defaults: Vec<(&str, String)> = fields
        .defaults
        .iter()
        .map(|(name, value)| (name.as_str(), value.to_canonical_string()))
        .collect();
    assert_eq!(
        defaults,
        [
            ("assignee", "null".to_owned()),
            ("due", "null".to_owned()),
            ("priority", "3".to_owned()),
            ("project", "null".to_owned()),
            ("status", "\"todo\"".to_owned()),
        ]
    );
    assert!(fields.identity_as_sent);
    let row = json!({"id": 50, "title": "Audit access logs", "project": "OPS"});
    let (created, is_error) = served.call(
        INSERT,
        object(json!({"tracker_id": "tasks", "body": {"row": row}})),
    );
    assert!(!is_error, "{created}");
    assert_eq!(created["state"]["view"], "create", "{created}");
    assert_eq!(
        created["body"]["rows"][0],
        json!({"id": 50, "title": "Audit access logs", "status": "todo", "priority": 3,
            "project": "OPS", "assignee": null, "due": null})
    );
    let (read, _) = served.call(
        "get_tracker_by_prefix_variance_and_numeric",
        object(json!({"tracker_id": "tasks", "id": "50"})),
    );
    assert_eq!(
        read["body"]["rows"][0]["title"], "Audit access logs",
        "{read}"
    );
    // Without an id the insert still takes the next one the sequence gives (past 50).
    let (next, is_error) = served.call(
        INSERT,
        object(json!({"tracker_id": "tasks", "body": {"row": {"title": "Next"}}})),
    );
    assert!(!is_error, "{next}");
    assert_eq!(next["body"]["rows"][0]["id"], 51, "{next}");
}

#[test]
fn an_insert_of_a_taken_id_or_without_title_is_refused_changing_nothing() {
    let served = serve_corpus_app("datasette");
    let (before, _) = served.call("get_tracker_tasks_json", Map::new());
    let (taken, is_error) = served.call(
        INSERT,
        object(json!({"tracker_id": "tasks", "body": {"row": {"id": 2, "title": "Duplicate"}}})),
    );
    assert!(is_error, "{taken}");
    assert!(taken.to_string().contains("already holds"), "{taken}");
    // `title` was sent by every creation: left out, it answers the build's recorded 400.
    let (untitled, _) = served.call(
        INSERT,
        object(json!({"tracker_id": "tasks", "body": {"row": {"id": 60}}})),
    );
    assert_eq!(untitled["status"], 400, "{untitled}");
    let (after, _) = served.call("get_tracker_tasks_json", Map::new());
    assert_eq!(
        before["body"], after["body"],
        "the refusals changed nothing"
    );
}

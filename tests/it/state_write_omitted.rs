//! A create's recorded refusal of a member left out, learned from the build and served: the build
//! sent a create lacking members every successful call sent and was refused with an answer naming
//! one of them; a served create leaving that member out answers that refusal, changing nothing,
//! and a whole create still creates. Served on datasette (`400 NOT NULL constraint failed:
//! tasks.title`, recorded before the first successful insert); learned on flexget (`422 'original_url'
//! is a required property` for an entry), whose entry create is withheld for other reasons (no
//! read confirmed it), so only datasette shows the refusal served.

use serde_json::{Map, Value, json};

use crate::state_support::serve_corpus_app;

fn object(value: Value) -> Map<String, Value> {
    let Value::Object(map) = value else {
        panic!("an object")
    };
    map
}

#[test]
fn an_insert_without_title_answers_the_recorded_not_null_400() {
    let served = serve_corpus_app("datasette");
    let tool = "post_tracker_insert_by_tracker_id";
    let plan = served.state().write_plan(tool).expect("the insert's plan");
    assert!(plan.served, "{:?}", plan.reason);
    let omitted: Vec<(&str, u64)> = plan
        .omitted
        .iter()
        .map(|omitted| (omitted.member.as_str(), omitted.ordinal))
        .collect();
    assert_eq!(omitted, [("title", 25)]);
    assert!(
        plan.conflicts.is_empty(),
        "a failure a left-out member explains is no conflict: {:?}",
        plan.conflicts
    );
    let (before, _) = served.call("get_tracker_tasks_json", Map::new());
    let (refused, is_error) = served.call(
        tool,
        object(json!({"tracker_id": "tasks", "body": {"row": {"status": "todo"}}})),
    );
    assert!(!is_error, "{refused}");
    assert_eq!(refused["state"]["view"], "omitted", "{refused}");
    assert_eq!(refused["status"], 400, "{refused}");
    assert_eq!(
        refused["body"]["error"], "NOT NULL constraint failed: tasks.title",
        "{refused}"
    );
    let (after, _) = served.call("get_tracker_tasks_json", Map::new());
    assert_eq!(before["body"], after["body"], "the refusal changed nothing");
    // A member the insert never stored is refused as before, not answered as a left-out title.
    let (unknown, is_error) = served.call(
        tool,
        object(json!({"tracker_id": "tasks", "body": {"row": {"estimate": 3}}})),
    );
    assert!(is_error, "{unknown}");
    let whole = json!({"row": {"title": "Plan the demo", "status": "todo", "priority": 2,
        "project": "WEB", "assignee": "ana", "due": "2027-02-01"}});
    let (created, is_error) =
        served.call(tool, object(json!({"tracker_id": "tasks", "body": whole})));
    assert!(!is_error, "{created}");
    assert_eq!(created["state"]["view"], "create", "{created}");
    assert_eq!(created["body"]["rows"][0]["title"], "Plan the demo");
}

#[test]
fn an_entry_without_original_url_learns_the_recorded_422() {
    let served = serve_corpus_app("flexget");
    let plan = served
        .state()
        .write_plan("post_entry_list_entries_by_entry_list_id")
        .expect("the entry create's plan");
    let omitted: Vec<(&str, u64)> = plan
        .omitted
        .iter()
        .map(|omitted| (omitted.member.as_str(), omitted.ordinal))
        .collect();
    assert_eq!(omitted, [("original_url", 31)]);
}

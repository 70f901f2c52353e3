//! A create's recorded refusal of a member left out, learned from the build and served: the build
//! sent a create lacking members every successful call sent and was refused with an answer naming
//! one of them; a served create leaving that member out answers that refusal, changing nothing,
//! and a whole create still creates. Served on datasette (`400 NOT NULL constraint failed:
//! tasks.title`, recorded before the first successful insert); learned on flexget (`422 'original_url'
//! is a required property` for an entry; its answer lists every required member, so a create
//! leaving out title instead answers it renamed, `'title' is a required property`: one app).

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
    // The refused call left out url too, unnamed; its answer lists title as required too.
    assert_eq!(plan.omitted[0].unnamed, ["url"]);
    assert_eq!(plan.omitted[0].named_too, ["title"]);
}

#[test]
fn an_entry_without_title_answers_the_422_renamed_to_title() {
    let served = serve_corpus_app("flexget");
    let tool = "post_entry_list_entries_by_entry_list_id";
    let list = || object(json!({"entry_list_id": "1"}));
    let (before, _) = served.call("get_entry_list_entries_by_entry_list_id", list());
    let (refused, is_error) = served.call(
        tool,
        object(json!({"entry_list_id": "1", "body": {"original_url": "http://example.test/x.torrent"}})),
    );
    assert!(!is_error, "{refused}");
    assert_eq!(refused["state"]["view"], "omitted", "{refused}");
    assert_eq!(refused["status"], 422, "{refused}");
    let error = &refused["body"]["validation_errors"][0];
    assert_eq!(
        error["message"], "'title' is a required property",
        "{refused}"
    );
    assert_eq!(
        error["validator_value"], "['title', 'original_url']",
        "a string naming every required member stays as recorded: {refused}"
    );
    let (after, _) = served.call("get_entry_list_entries_by_entry_list_id", list());
    assert_eq!(before["body"], after["body"], "the refusal changed nothing");
    // The learned member left out answers its own recording, unrenamed.
    let (own, is_error) = served.call(
        tool,
        object(json!({"entry_list_id": "1", "body": {"title": "Memento 2000 1080p"}})),
    );
    assert!(!is_error, "{own}");
    assert_eq!(
        own["body"]["validation_errors"][0]["message"], "'original_url' is a required property",
        "{own}"
    );
    // url, left out unnamed by the recorded refusal, is no member it names: refused as before.
    let (no_url, is_error) = served.call(
        tool,
        object(
            json!({"entry_list_id": "1", "body": {"title": "Memento 2000 1080p",
            "original_url": "http://example.test/memento.torrent"}}),
        ),
    );
    assert!(is_error, "{no_url}");
}

#[test]
fn a_refusal_naming_no_other_member_is_not_renamed() {
    let served = serve_corpus_app("datasette");
    let plan = served
        .state()
        .write_plan("post_tracker_insert_by_tracker_id")
        .expect("the insert's plan");
    assert!(
        plan.omitted
            .iter()
            .all(|omitted| omitted.named_too.is_empty()),
        "NOT NULL constraint failed: tasks.title names no other member: {:?}",
        plan.omitted
    );
}

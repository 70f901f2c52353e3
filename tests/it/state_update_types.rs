//! An update of one entity accepts each body member with the JSON types its type's creates sent
//! it with (`writes/update_required.rs`): FeathersJS's build replaced task 15 with `PUT` sending
//! `assigneeId` and `dueDate` as `null` only, while its creates sent a number and a date there;
//! a replace assigning the task to someone is served, not refused as mistyped.

use serde_json::{Map, Value, json};

use crate::state_writes_learning::served;

const FEATHERS: &str = "tests/corpus/apps/feathers/build.har";

fn arguments(value: Value) -> Map<String, Value> {
    value.as_object().cloned().expect("an object")
}

#[test]
fn an_update_takes_the_types_its_types_creates_sent() {
    let served = served(FEATHERS);
    let plan = served
        .state()
        .write_plan("put_tasks_by_id")
        .expect("a plan");
    let body = plan.body.as_ref().expect("a body");
    assert_eq!(body.members["assigneeId"].types, ["null", "number"]);
    assert_eq!(body.members["dueDate"].types, ["null", "string"]);
    let replace = json!({"id": "3", "body": {"title": "Draft the tide report", "status": "doing",
        "priority": 1, "estimate": 2, "projectId": 1, "assigneeId": 5, "dueDate": "2026-12-31"}});
    let (answer, error) = served.call("put_tasks_by_id", arguments(replace));
    assert!(!error, "{answer}");
    assert_eq!(answer["body"]["assigneeId"], json!(5), "{answer}");
    assert_eq!(answer["body"]["dueDate"], json!("2026-12-31"), "{answer}");
    // A type no create nor update sent stays refused.
    let mistyped = json!({"id": "3", "body": {"title": "Draft", "status": "doing", "priority": 1,
        "estimate": 2, "projectId": 1, "assigneeId": "five", "dueDate": null}});
    let (answer, error) = served.call("put_tasks_by_id", arguments(mistyped));
    assert!(error, "{answer}");
}

//! A create numbered by a counter that never gives a number twice (`rea-sequence` learning from
//! `ObservedCall::given_max`): FeathersJS's memory service gave the build's first task create 15
//! (one past the 14 seeded), and after that task was deleted gave the next create 16, not 15
//! again. The sequence is learned from both creates together, so `post_tasks` is served, and a
//! create answers one past the largest the collection held or the sequence gave.

use serde_json::{Map, Value, json};

use crate::state_writes_learning::served;

const FEATHERS: &str = "tests/corpus/apps/feathers/build.har";

fn arguments(value: Value) -> Map<String, Value> {
    value.as_object().cloned().expect("an object")
}

#[test]
fn a_create_after_the_latest_was_deleted_continues_the_counter() {
    let served = served(FEATHERS);
    let plan = served.state().write_plan("post_tasks").expect("a plan");
    assert!(plan.served, "post_tasks: {:?}", plan.reason);
    assert!(
        plan.rules.iter().any(|rule| rule.stage == "sequence"),
        "{:?}",
        plan.rules
    );
    let body = json!({"body": {"title": "Test the sprinklers", "projectId": 2}});
    let (created, error) = served.call("post_tasks", arguments(body.clone()));
    assert!(!error, "{created}");
    assert_eq!(created["body"]["id"], json!(15), "{created}");
    let (_, error) = served.call("delete_tasks_by_id", arguments(json!({"id": "15"})));
    assert!(!error);
    let (again, error) = served.call("post_tasks", arguments(body));
    assert!(!error, "{again}");
    assert_eq!(again["body"]["id"], json!(16), "{again}");
}

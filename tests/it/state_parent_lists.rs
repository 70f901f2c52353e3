//! A parent's list of children (`/projects/{id}/tasks`, `/people/{id}/tasks`; see
//! `rea_state::relations::ParentSegment`) requires of its members only the fields every child it
//! may list holds (`relations.rs`), and a written entity naming no parent needs no rendering
//! there (`writes/confirm.rs`): LoopBack omits a property never set, so a task without an
//! assignee or a due date is listed by its project and by the collection, never by a person, and
//! the creates and replaces leaving those out are served, then listed from the state.

use serde_json::{Map, Value, json};

use crate::state_writes_learning::served;

const LOOPBACK: &str = "tests/corpus/apps/loopback/build.har";

fn arguments(value: Value) -> Map<String, Value> {
    value.as_object().cloned().expect("an object")
}

#[test]
fn a_child_without_a_parents_field_is_written_and_listed_by_its_other_parent() {
    let served = served(LOOPBACK);
    for tool in ["post_tasks", "put_tasks_by_id"] {
        let plan = served.state().write_plan(tool).expect("a plan");
        assert!(plan.served, "{tool}: {:?}", plan.reason);
    }
    // A task with an assignee and no due date: a person's list shows it (no due date required).
    let create = json!({"body": {"title": "Oil the hinges", "projectId": 2, "assigneeId": 4}});
    let (answer, error) = served.call("post_tasks", arguments(create));
    assert!(!error, "{answer}");
    let id = answer["body"]["id"].clone();
    assert_eq!(id, json!(15), "the next id after the seed's: {answer}");
    let (listed, error) = served.call(
        "get_people_tasks_by_people_id",
        arguments(json!({"people_id": "4"})),
    );
    assert!(!error, "{listed}");
    let shown = listed["body"].as_array().expect("an array");
    assert!(shown.iter().any(|task| task["id"] == id), "{listed}");
    // Replaced without an assignee: its project lists it, no person does.
    let replace = json!({"id": id.to_string(), "body": {"title": "Oil the hinges", "status": "doing",
        "priority": 1, "estimate": 3, "projectId": 2}});
    let (answer, error) = served.call("put_tasks_by_id", arguments(replace));
    assert!(!error, "{answer}");
    let (listed, _) = served.call(
        "get_projects_tasks_by_project_id",
        arguments(json!({"project_id": "2"})),
    );
    let members = listed["body"].as_array();
    let task = (members.unwrap_or_else(|| panic!("{listed}")).iter())
        .find(|task| task["id"] == id)
        .cloned()
        .expect("listed by its project");
    assert_eq!(
        task,
        json!({"id": 15, "title": "Oil the hinges", "status": "doing",
        "priority": 1, "estimate": 3, "projectId": 2}),
        "{listed}"
    );
    let (listed, _) = served.call(
        "get_people_tasks_by_people_id",
        arguments(json!({"people_id": "4"})),
    );
    let shown = listed["body"].as_array().expect("an array");
    assert!(shown.iter().all(|task| task["id"] != id), "{listed}");
}

//! Relationship writes (issue 12, write learning), on a real recording: safrs's
//! `PATCH /api/tasks/{id}/{relationship}` with a resource identifier body is learned from
//! build.har's one call (entry 38, `assignee` with `{"type": "User", "id": "1"}`, read back by
//! entry 39 as `attributes.assignee_id` 1) as an update of the parent's member named around the
//! route's last segment (`/attributes/` + name + `_id`), and applies to another relationship
//! (`project`), answering the related resource as the recorded call did; an identifier no held
//! entity of the relationship's type matches, a relationship the parent holds no member for, or
//! a body holding anything beside the identifier's wrapping, is refused with nothing changed. The
//! second app, drf-jsonapi, writes its relationships through literal routes
//! (`/books/{id}/relationships/author`) setting a linkage object (`state_jsonapi_second_app`).

use serde_json::{Map, Value, json};

use crate::state_support::serve_corpus_app;

const TOOL: &str = "patch_tasks_by_task_id_and_id";

fn call_args(task: &str, relationship: &str, body: Value) -> Map<String, Value> {
    let mut arguments = Map::new();
    arguments.insert("task_id".into(), Value::String(task.into()));
    arguments.insert("id".into(), Value::String(relationship.into()));
    arguments.insert("body".into(), body);
    arguments
}

fn task_attributes(served: &crate::state_support::Served, task: &str) -> Value {
    let (answer, is_error) =
        crate::state_support::call_with_strings(served, "get_tasks_by_id", &[("id", task)]);
    assert!(!is_error, "{answer:#}");
    answer["body"]["data"]["attributes"].clone()
}

#[test]
fn the_relationship_route_is_learned_from_the_assignee_write_and_read_back() {
    let served = serve_corpus_app("safrs");
    let plan = crate::state_support::write_plan(&served, TOOL);
    assert!(plan.served, "{:?}", plan.reason);
    let model = plan.relationship.as_ref().expect("a relationship model");
    assert_eq!(model.identifier, "/data");
    assert_eq!(model.id_member, "id");
    assert_eq!(
        (model.prefix.as_str(), model.suffix.as_str()),
        ("/attributes/", "_id")
    );
    assert!(model.numeric);
    // The member holds the id itself, and the answer is the related resource (drf-jsonapi's
    // routes set a linkage object and answer the identifier: `state_jsonapi_second_app`).
    assert!(!model.linkage && !model.answers_identifier);
    assert_eq!(model.named.keys().collect::<Vec<_>>(), ["assignee"]);
}

#[test]
fn another_relationship_sets_its_member_and_answers_the_related_resource() {
    let served = serve_corpus_app("safrs");
    // Task 3 is in project 1 in the seed.
    let sent = json!({"data": {"type": "Project", "id": "2"}});
    let (answer, is_error) = served.call(TOOL, call_args("3", "project", sent));
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer["status"], 200, "{answer:#}");
    let body = &answer["body"];
    assert_eq!(body["data"]["type"], "Project");
    assert_eq!(body["data"]["id"], "2");
    assert_eq!(body["links"]["related"], "/api/projects/2/");
    let own = body["links"]["self"].as_str().expect("a self link");
    assert!(own.ends_with("/api/tasks/3/project"), "{own}");
    assert_eq!(task_attributes(&served, "3")["project_id"], 2);
}

#[test]
fn an_unknown_or_mistyped_identifier_an_unknown_relationship_and_a_body_beside_are_refused() {
    let served = serve_corpus_app("safrs");
    let before = task_attributes(&served, "3");
    for (relationship, sent) in [
        ("project", json!({"data": {"type": "Project", "id": "99"}})),
        ("assignee", json!({"data": {"type": "Project", "id": "1"}})),
        ("reviewer", json!({"data": {"type": "User", "id": "1"}})),
        (
            "project",
            json!({"data": {"type": "Project", "id": "2"}, "meta": {"note": "x"}}),
        ),
    ] {
        let (answer, is_error) = served.call(TOOL, call_args("3", relationship, sent));
        assert!(is_error, "{relationship}: {answer:#}");
    }
    assert_eq!(task_attributes(&served, "3"), before);
}

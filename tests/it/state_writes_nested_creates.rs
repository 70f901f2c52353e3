//! Nested child creations served: a create whose recorded calls nested new entities of another
//! type (see `state_writes_nested_children`) makes each child in the child type's collection
//! with the next id of its sequence, the members it was sent, the values the recorded children
//! showed for members they were not sent, and the new parent's id in its reference; the parent
//! holds the member as the children's ids (`[]` for a parent created with none), and the answer
//! shows the children as the recorded answer did. On directus: `POST /items/projects` with
//! `tasks` (recorded with `fields=*,tasks.*`, answered with the tasks as objects), and without
//! the field selection (answered with the project as held). Only directus among the recorded
//! applications creates nested children in one call.

use serde_json::{Value, json};

use crate::state_support::{Served, request_arguments, serve_corpus_app};

const CREATE: &str = "post_items_projects";

fn read(served: &Served, tool: &str, path: &[&str]) -> Value {
    let (answer, is_error) = served.call(tool, request_arguments(served, tool, (path, &[]), None));
    assert!(!is_error, "{answer}");
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    answer["body"]["data"].clone()
}

fn project(tasks: Value) -> Value {
    json!({"name": "Data lake", "code": "LAK", "budget": 9000, "start_date": "2027-03-01", "tasks": tasks})
}

#[test]
fn directus_a_project_create_makes_its_nested_tasks_with_the_task_sequence() {
    let served = serve_corpus_app("directus");
    let tasks = json!([{"title": "Pick a lake", "priority": 2}, {"title": "Fill it", "priority": 4, "assignee": "ana"}]);
    let (answer, is_error) = served.call(
        CREATE,
        request_arguments(
            &served,
            CREATE,
            (&["items", "projects"], &[("fields", "*,tasks.*")]),
            Some(project(tasks)),
        ),
    );
    assert!(!is_error, "{answer}");
    let created = &answer["body"]["data"];
    assert_eq!(created["id"], 5, "{answer}");
    assert_eq!(created["status"], "active", "{answer}");
    // The tasks carry the next ids of the task sequence, what they were sent, the values the
    // recorded children showed for what they were not sent, and the project's id.
    assert_eq!(
        created["tasks"],
        json!([
            {"id": 10, "sort": null, "title": "Pick a lake", "state": "todo", "priority": 2, "assignee": null, "due": null, "estimate_h": null, "tags": null, "project": 5},
            {"id": 11, "sort": null, "title": "Fill it", "state": "todo", "priority": 4, "assignee": "ana", "due": null, "estimate_h": null, "tags": null, "project": 5}
        ]),
        "{answer}"
    );
    // Held as ids by the project, and as entities of the task collection.
    assert_eq!(
        read(
            &served,
            "get_items_projects_by_id",
            &["items", "projects", "5"]
        )["tasks"],
        json!([10, 11])
    );
    let task = read(&served, "get_items_tasks_by_id", &["items", "tasks", "11"]);
    assert_eq!(task, created["tasks"][1], "{task}");
    // The next task create draws the id after them.
    let (answer, is_error) = served.call(
        "post_items_tasks",
        request_arguments(
            &served,
            "post_items_tasks",
            (&["items", "tasks"], &[]),
            Some(json!({"title": "After"})),
        ),
    );
    assert!(!is_error, "{answer}");
    assert_eq!(answer["body"]["data"]["id"], 12, "{answer}");
}

#[test]
fn directus_a_project_created_without_tasks_or_selection_holds_none() {
    let served = serve_corpus_app("directus");
    let mut body = project(json!([]));
    body.as_object_mut().expect("object").remove("tasks");
    let (answer, is_error) = served.call(
        CREATE,
        request_arguments(&served, CREATE, (&["items", "projects"], &[]), Some(body)),
    );
    assert!(!is_error, "{answer}");
    assert_eq!(answer["body"]["data"]["tasks"], json!([]), "{answer}");
    assert_eq!(
        read(
            &served,
            "get_items_projects_by_id",
            &["items", "projects", "5"]
        )["tasks"],
        json!([])
    );
}

#[test]
fn directus_a_nested_task_the_recorded_children_do_not_explain_is_refused_and_changes_nothing() {
    let served = serve_corpus_app("directus");
    for (tasks, says) in [
        // Every recorded child sent its title: it has no learned value.
        (json!([{"priority": 2}]), "title"),
        // A child naming its own id or project, or a member no recorded child showed.
        (json!([{"title": "x", "id": 99}]), "id"),
        (json!([{"title": "x", "project": 1}]), "project"),
        (json!([{"title": "x", "colour": "red"}]), "colour"),
        (json!(["x"]), "array of objects"),
    ] {
        let (answer, is_error) = served.call(
            CREATE,
            request_arguments(
                &served,
                CREATE,
                (&["items", "projects"], &[("fields", "*,tasks.*")]),
                Some(project(tasks.clone())),
            ),
        );
        assert!(is_error, "{tasks}: {answer}");
        assert!(answer.to_string().contains(says), "{tasks}: {answer}");
        let (missing, _) = served.call(
            "get_items_projects_by_id",
            request_arguments(
                &served,
                "get_items_projects_by_id",
                (&["items", "projects", "5"], &[]),
                None,
            ),
        );
        assert_ne!(missing["state"]["source"], "state", "{tasks}: {missing}");
    }
}

//! Inverse linkages over arrays of bare ids (issue 12, `inverse.rs`), on a real recording:
//! directus's projects hold `tasks: [1, 3, 7]` beside each task's `project: 1` (build.har entries
//! 6 and 7), so a served task create, move or delete relists the task in its projects' `tasks`
//! arrays, in id order as every recorded array was, read back by the projects list and by item
//! reads (as the build's read 44 showed project 1's `[1,3,7,10]` after the create of entry 25).
//! The object form (JSON:API `relationships.*.data`) is tested on drf-jsonapi and
//! flask-rest-jsonapi-next (`state_jsonapi_second_app`, `state_relationship_writes`).
//!
//! With the arrays following, the projects list's `filter[status][_neq]` (recorded only beside
//! `deep[tasks][_filter]…` and `fields`, which reshape the members) is no longer marked a variant
//! where the query grammar reads it (`derive/variant_relief.rs`): the list answers it from the
//! state after served writes, as the build's read 44 did after the archive of entry 42.

use serde_json::{Value, json};

use crate::state_support::{Served, request_arguments, serve_corpus_app};

fn call(served: &Served, tool: &str, path: &[&str], body: Option<Value>) -> Value {
    call_query(served, tool, (path, &[]), body)
}

fn call_query(
    served: &Served,
    tool: &str,
    request: (&[&str], &[(&str, &str)]),
    body: Option<Value>,
) -> Value {
    let (answer, is_error) = served.call(tool, request_arguments(served, tool, request, body));
    assert!(!is_error, "{tool}: {answer}");
    assert_eq!(answer["state"]["source"], "state", "{tool}: {answer}");
    answer
}

/// Each project's `tasks` as the projects list answers them, by project id.
fn listed_tasks(served: &Served) -> Vec<(i64, Value)> {
    let answer = call(served, "get_items_projects", &["items", "projects"], None);
    answer["body"]["data"]
        .as_array()
        .expect("the projects")
        .iter()
        .map(|project| {
            (
                project["id"].as_i64().expect("an id"),
                project["tasks"].clone(),
            )
        })
        .collect()
}

fn read_tasks(served: &Served, project: &str) -> Value {
    let path = ["items", "projects", project];
    call(served, "get_items_projects_by_id", &path, None)["body"]["data"]["tasks"].clone()
}

#[test]
fn directus_served_task_writes_relist_the_projects_bare_task_ids() {
    let served = serve_corpus_app("directus");
    let recorded = vec![
        (1, json!([1, 3, 7])),
        (2, json!([2, 5, 6])),
        (3, json!([4])),
        (4, json!([8])),
    ];
    assert_eq!(listed_tasks(&served), recorded);
    // A created task naming project 1 joins its array.
    let body = json!({"title": "Plan launch party", "project": 1});
    let created = call(&served, "post_items_tasks", &["items", "tasks"], Some(body));
    assert_eq!(created["body"]["data"]["id"], 10, "{created}");
    assert_eq!(listed_tasks(&served)[0], (1, json!([1, 3, 7, 10])));
    assert_eq!(read_tasks(&served, "1"), json!([1, 3, 7, 10]));
    // Task 3 moves to project 2: it leaves project 1 and joins project 2 in id order.
    let path = ["items", "tasks", "3"];
    call(
        &served,
        "patch_items_tasks_by_id",
        &path,
        Some(json!({"project": 2})),
    );
    let listed = listed_tasks(&served);
    assert_eq!(listed[0], (1, json!([1, 7, 10])));
    assert_eq!(listed[1], (2, json!([2, 3, 5, 6])));
    // A deleted task leaves its project; the others keep their arrays.
    call(
        &served,
        "delete_items_tasks_by_id",
        &["items", "tasks", "7"],
        None,
    );
    assert_eq!(read_tasks(&served, "1"), json!([1, 10]));
    let listed = listed_tasks(&served);
    assert_eq!(listed[0], (1, json!([1, 10])));
    assert_eq!(listed[2..], recorded[2..]);
}

#[test]
fn directus_the_projects_list_filtered_by_status_answers_from_the_state_after_writes() {
    let served = serve_corpus_app("directus");
    let body = json!({"title": "Plan launch party", "project": 1});
    call(&served, "post_items_tasks", &["items", "tasks"], Some(body));
    let archive = json!({"status": "archived"});
    let path = ["items", "projects", "3"];
    call(&served, "patch_items_projects_by_id", &path, Some(archive));
    let query = [("filter[status][_neq]", "archived")];
    let answer = call_query(
        &served,
        "get_items_projects",
        (&["items", "projects"], &query),
        None,
    );
    let shown: Vec<(Value, Value)> = answer["body"]["data"]
        .as_array()
        .expect("the projects")
        .iter()
        .map(|project| (project["id"].clone(), project["tasks"].clone()))
        .collect();
    assert_eq!(
        shown,
        [
            (json!(1), json!([1, 3, 7, 10])),
            (json!(2), json!([2, 5, 6]))
        ]
    );
    // The line that reshapes the tasks (`deep`, `fields`) keeps its marks.
    let view = crate::state_support::list_view(&served, "get_items_projects");
    let marks: Vec<&str> = view
        .projected_query_keys
        .keys()
        .map(String::as_str)
        .collect();
    assert!(
        marks.contains(&"deep[tasks][_filter][state][_neq]"),
        "{marks:?}"
    );
    assert!(!marks.contains(&"filter[status][_neq]"), "{marks:?}");
}

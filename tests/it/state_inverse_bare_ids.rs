//! Inverse linkages over arrays of bare ids (issue 12, `inverse.rs`), on a real recording:
//! directus's projects hold `tasks: [1, 3, 7]` beside each task's `project: 1` (build.har entries
//! 6 and 7), so a served task create, move or delete relists the task in its projects' `tasks`
//! arrays, in id order as every recorded array was, read back by the projects list and by item
//! reads (as the build's read 44 showed project 1's `[1,3,7,10]` after the create of entry 25).
//! The object form (JSON:API `relationships.*.data`) is tested on drf-jsonapi and
//! flask-rest-jsonapi-next (`state_jsonapi_second_app`, `state_relationship_writes`).

use serde_json::{Map, Value, json};

use crate::state_support::{Served, serve_corpus_app};

/// A tool's arguments naming its path, and the body.
fn arguments(
    served: &Served,
    tool: &str,
    path: &[&str],
    body: Option<Value>,
) -> Map<String, Value> {
    let definition = served.replay.tool(tool).expect("tool");
    let segments: Vec<String> = path.iter().map(|segment| (*segment).to_owned()).collect();
    let mut arguments = rea_state::writes::arguments_for(definition, &segments, &[]);
    if let Some(body) = body {
        arguments.insert("body".to_owned(), body);
    }
    arguments
}

fn call(served: &Served, tool: &str, path: &[&str], body: Option<Value>) -> Value {
    let (answer, is_error) = served.call(tool, arguments(served, tool, path, body));
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

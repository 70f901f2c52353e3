//! Writes selected by a query (`rea_state::writes::selected`, issue 12): FeathersJS's multi
//! `PATCH /tasks?projectId=4`, `PATCH /tasks?estimate[$gte]=8` and `DELETE
//! /tasks?status=done&projectId=2` (build entries 70, 73, 75, each answering the array of the
//! tasks it changed or removed) are learned as one merge (or delete) of every held task the
//! call's query selects, evaluated with the tasks list's learned grammar. The write tools take
//! the list's filters (`assigneeId`, `status[$in][]`, `status[$ne]`: never sent to a write), and
//! answer what the live application answered the probe's multi writes (probe-crud entries 20, 21
//! and 25), but for the `updatedAt` the served clock stamps. A query naming no filter is refused,
//! nothing changed.
//!
//! LoopBack 4's `PATCH /tasks?where[projectId]=4` and `PATCH /tasks?where[estimate][gte]=8` (build
//! entries 76, 79) spell the list's `filter[where][…]` names unnested and answer only how many
//! tasks they changed (`{"count": 3}`): the write reads its query through the list's nesting and
//! answers the number of tasks it selected, as the live application answered probe-crud entries
//! 22 to 26.

use serde_json::{Map, Value, json};

use crate::state_support::{
    Served, call_admitted, call_with_strings, live_answer, serve_corpus_app, with_body,
};

/// A body with every task's `updatedAt` left out (the served clock's, not the live one's).
fn unstamped(mut body: Value) -> Value {
    let tasks = match &mut body {
        Value::Array(tasks) => tasks,
        Value::Object(page) => match page.get_mut("data") {
            Some(Value::Array(tasks)) => tasks,
            _ => return body,
        },
        _ => return body,
    };
    for task in tasks {
        if let Value::Object(task) = task {
            task.remove("updatedAt");
        }
    }
    body
}

/// Calls a write tool with query arguments and a body, asserting the schema admits them.
fn write(served: &Served, tool: &str, query: &[(&str, Value)], body: Option<Value>) -> Value {
    let mut arguments = match body {
        Some(body) => with_body(served, tool, body),
        None => Map::new(),
    };
    for (name, value) in query {
        arguments.insert((*name).to_owned(), value.clone());
    }
    call_admitted(served, tool, arguments)
}

#[test]
fn a_multi_patch_and_delete_change_what_the_list_grammar_selects() {
    let served = serve_corpus_app("feathers");
    // Lena's tasks (4 and 9) get priority 3, as the live application answered them.
    let answer = write(
        &served,
        "patch_tasks",
        &[("assigneeId", json!("3"))],
        Some(json!({"priority": 3})),
    );
    let (status, live) = live_answer("feathers", "probe-crud", 20);
    assert_eq!(answer["status"], json!(status));
    assert_eq!(unstamped(answer["body"].clone()), unstamped(live));
    let (read, _) = call_with_strings(&served, "get_tasks", &[("assigneeId", "3")]);
    assert_eq!(
        unstamped(read["body"].clone()),
        unstamped(live_answer("feathers", "probe-crud", 21).1)
    );
    // A set filter the list learned, spelled as a list name, beside an equality.
    let answer = write(
        &served,
        "patch_tasks",
        &[("status[$in][]", json!(["todo"])), ("projectId", json!(3))],
        Some(json!({"status": "doing"})),
    );
    let ids: Vec<&Value> = answer["body"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|task| &task["id"])
        .collect();
    assert_eq!(ids, [&json!(8), &json!(14)], "{answer:#}");
    // Project 1's tasks not todo are removed, answered as they were.
    let answer = write(
        &served,
        "delete_tasks",
        &[("projectId", json!(1)), ("status[$ne]", json!("todo"))],
        None,
    );
    assert_eq!(answer["body"], live_answer("feathers", "probe-crud", 25).1);
    let (read, _) = call_with_strings(&served, "get_tasks", &[("projectId", "1")]);
    assert_eq!(
        unstamped(read["body"].clone()),
        unstamped(live_answer("feathers", "probe-crud", 26).1)
    );
}

#[test]
fn a_multi_write_naming_no_filter_is_refused_changing_nothing() {
    let served = serve_corpus_app("feathers");
    let tools = rea_serve::ToolBackend::tools(served.backend.as_ref());
    for tool in ["patch_tasks", "delete_tasks"] {
        let descriptor = tools.iter().find(|descriptor| descriptor.name == tool);
        let description = descriptor.map_or("", |descriptor| descriptor.description.as_str());
        assert!(
            description.contains("every entity its query selects"),
            "{tool}: {description}"
        );
    }
    let (before, _) = call_with_strings(&served, "get_tasks", &[("$limit", "50")]);
    for arguments in [with_body(&served, "patch_tasks", json!({"priority": 1})), {
        let mut arguments = with_body(&served, "patch_tasks", json!({"priority": 1}));
        arguments.insert("$sort[priority]".to_owned(), json!("1"));
        arguments
    }] {
        let (answer, is_error) = served.call("patch_tasks", arguments);
        assert!(is_error, "{answer:#}");
        assert!(answer.to_string().contains("not_modelled"), "{answer:#}");
    }
    let (after, _) = call_with_strings(&served, "get_tasks", &[("$limit", "50")]);
    assert_eq!(before["body"], after["body"]);
}

/// Each listed task's id and `member`.
fn shown(body: &Value, member: &str) -> Vec<(Value, Value)> {
    body.as_array()
        .expect("a list")
        .iter()
        .map(|task| (task["id"].clone(), task[member].clone()))
        .collect()
}

#[test]
fn a_loopback_patch_by_where_counts_what_the_nested_list_grammar_selects() {
    let served = serve_corpus_app("loopback");
    // Lena's tasks (4 and 9) get priority 3: `where[assigneeId]`, a filter the write never
    // recorded, read as the list's `filter[where][assigneeId]`.
    let answer = write(
        &served,
        "patch_tasks",
        &[("where[assigneeId]", json!(3))],
        Some(json!({"priority": 3})),
    );
    let (status, live) = live_answer("loopback", "probe-crud", 22);
    assert_eq!(answer["status"], json!(status));
    assert_eq!(answer["body"], live, "{answer:#}");
    // The reads after list what the live ones did (but for the writes the probe made before
    // this one, which this test does not: their ids and the written member).
    for (entry, query) in [
        (23, ("filter[where][assigneeId]", "3")),
        (24, ("filter[where][priority][gte]", "3")),
    ] {
        let (read, _) = call_with_strings(&served, "get_tasks", &[query]);
        let live = live_answer("loopback", "probe-crud", entry).1;
        assert_eq!(shown(&read["body"], "priority"), shown(&live, "priority"));
    }
    // A set filter spelled indexed beside an equality: project 3's todo tasks become doing.
    let answer = write(
        &served,
        "patch_tasks",
        &[
            ("where[status][inq][0]", json!("todo")),
            ("where[projectId]", json!(3)),
        ],
        Some(json!({"status": "doing"})),
    );
    assert_eq!(
        answer["body"],
        live_answer("loopback", "probe-crud", 25).1,
        "{answer:#}"
    );
    let (read, _) = call_with_strings(&served, "get_tasks", &[("filter[where][projectId]", "3")]);
    let live = live_answer("loopback", "probe-crud", 26).1;
    assert_eq!(shown(&read["body"], "status"), shown(&live, "status"));
    // A query naming nothing the list filters by changes nothing.
    let (answer, is_error) = served.call(
        "patch_tasks",
        with_body(&served, "patch_tasks", json!({"priority": 1})),
    );
    assert!(is_error, "{answer:#}");
    assert!(answer.to_string().contains("not_modelled"), "{answer:#}");
}

//! Ids below an item route on real recordings (`rea_manifest`'s `below_items.rs`, issue 12):
//! a route below an item (`/people/{…}/tasks`) whose id parameter names an id the item route's
//! parameter took takes the item's spellings.
//!
//! Fortune.js's build read a person's tasks for seeded people only (`/people/1/tasks`,
//! `/people/3/tasks`) while its people item route took seeded numbers and a generated token
//! (`/people/3`, `/people/xxA1wMnjxuGLyVs`, one `sibling-variance` parameter): the tasks route
//! takes a person the session created, and the state answers that person's tasks; its two
//! relationship updates recorded with one id spelling each (`/tasks/s2UkrBg-nlFk2kx/
//! relationships/project`, `/tasks/2/relationships/assignee`) are one tool. json-server's item
//! routes took numbers only (`/posts/{numeric}`), so the route below them keeps the format: a
//! word there routes to no tool (its item routes themselves take a word, `/users/abc`, as an id
//! they do not hold: `missing_ids.rs`, `tests/it/manifest_missing_ids.rs`, a rule of its own).

use rea_compare::route::match_tool;
use rea_manifest::ManifestTool;
use rea_manifest::segments::split_path;
use serde_json::{Value, json};

use crate::state_support::{Served, request_arguments, serve_corpus_app};

/// The tool a request line routes to, read as the comparer reads it.
fn routed<'m>(served: &'m Served, method: &str, path: &str) -> Option<&'m ManifestTool> {
    match_tool(&served.manifest.tools, method, path)
}

/// Calls the tool a request line routes to, from the state, with an optional body.
fn request(served: &Served, method: &str, path: &str, body: Option<Value>) -> Value {
    let tool = routed(served, method, path).unwrap_or_else(|| panic!("no tool for {path}"));
    let arguments = request_arguments(served, &tool.name, (&split_path(path), &[]), body);
    let (answer, is_error) = served.call(&tool.name, arguments);
    assert!(!is_error, "{method} {path}: {answer:#}");
    assert_eq!(answer["state"]["source"], "state", "{answer:#}");
    answer
}

/// The resource ids of a JSON:API answer's `data` list.
fn data_ids(answer: &Value) -> Vec<&str> {
    answer["body"]["data"]
        .as_array()
        .unwrap_or_else(|| panic!("a data list: {answer:#}"))
        .iter()
        .map(|resource| resource["id"].as_str().expect("an id"))
        .collect()
}

#[test]
fn fortune_routes_below_an_item_take_the_ids_the_item_takes() {
    let served = serve_corpus_app("fortune");
    let seeded = routed(&served, "GET", "/people/1/tasks").expect("the recorded route");
    assert_eq!(
        seeded.path_template,
        "/people/{sibling-variance}/{folder-tree}"
    );
    assert!(seeded.inferred_from.is_none(), "{seeded:#?}");
    let generated = routed(&served, "GET", "/people/oh2iN7V8oXwWzmn/tasks").expect("a tool");
    assert_eq!(generated.name, seeded.name);

    let project = routed(
        &served,
        "PATCH",
        "/tasks/s2UkrBg-nlFk2kx/relationships/project",
    )
    .expect("a tool");
    let assignee = routed(&served, "PATCH", "/tasks/2/relationships/assignee").expect("a tool");
    assert_eq!(project.name, assignee.name);
    assert_eq!(project.record_ordinals, vec![54, 59]);

    // A person the session creates, assigned a task, is read through the tasks route.
    let person = json!({"data": {"type": "people", "attributes": {
        "name": "Oskar Lind", "role": "manager", "email": "oskar@example.test"}}});
    let created = request(&served, "POST", "/people", Some(person));
    let id = created["body"]["data"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("a generated id: {created:#}"))
        .to_owned();
    assert!(
        !id.bytes().all(|byte| byte.is_ascii_digit()),
        "a generated token: {id}"
    );
    let linkage = json!({"data": {"type": "people", "id": id}});
    request(
        &served,
        "PATCH",
        "/tasks/9/relationships/assignee",
        Some(linkage),
    );
    let tasks = request(&served, "GET", &format!("/people/{id}/tasks"), None);
    assert_eq!(tasks["status"], 200, "{tasks:#}");
    assert_eq!(data_ids(&tasks), ["9"], "{tasks:#}");
}

#[test]
fn json_server_routes_below_a_numeric_item_keep_the_format() {
    let served = serve_corpus_app("json-server");
    let comments = routed(&served, "GET", "/posts/1/comments").expect("the recorded route");
    assert_eq!(comments.path_template, "/posts/{numeric}/comments");
    assert!(routed(&served, "GET", "/posts/abc/comments").is_none());
    let item = routed(&served, "GET", "/users/1").expect("the recorded route");
    assert_eq!(item.path_template, "/users/{numeric}");
}

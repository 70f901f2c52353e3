//! The list query grammar on a JSON:API recording (issue 12, reads): a bracket filter the build
//! used on some attributes extends to every attribute a resource nests (`filter[title]`) and to
//! the sibling lists (`filter[username]` on users); a filter whose comma list is a union is typed
//! a string or an integer (`filter[project_id]=1,3`); a page size the build never sent answers
//! from the state with the envelope member holding the size computed (`meta.limit`); the pages
//! read through the collection's trailing-slash spelling teach the plain list its offset and the
//! presence of its `next` link; a relationship route (`/api/projects/{id}/tasks`, a folder-tree
//! segment read only as `tasks`) answers the children of any parent by their foreign key nested
//! under `attributes`; a sparse fieldset (`fields[Task]=title,priority`) keeps the named
//! attributes of each task in lists and items, and of each project by `fields[Project]`, which
//! the state catalog offers the projects list; the users list, whose own lines never paged,
//! pages with the links, counters and default size the tasks list taught
//! (`derive/sibling_pages.rs`). One app: safrs.

use rea_state::model::QueryRole;
use serde_json::Value;

use crate::state_support::{call_with_strings, query_model, serve_corpus_app};

const TASKS: &str = "get_api_tasks";

fn ids(answer: &Value) -> Vec<String> {
    answer["body"]["data"]
        .as_array()
        .unwrap_or_else(|| panic!("a list in data: {answer:#}"))
        .iter()
        .map(|member| member["id"].as_str().expect("an id").to_owned())
        .collect()
}

#[test]
fn the_bracket_filter_extends_to_every_nested_attribute_and_sibling_list() {
    let served = serve_corpus_app("safrs");
    let tasks = query_model(&served, TASKS);
    assert_eq!(
        tasks.role("filter[title]"),
        Some(&QueryRole::filter("title", "in"))
    );
    let (answer, is_error) = call_with_strings(
        &served,
        TASKS,
        &[("filter[title]", "Rotate the TLS certificates")],
    );
    assert!(!is_error, "{answer:#}");
    assert_eq!(ids(&answer).len(), 1, "{answer:#}");
    let users = query_model(&served, "get_users");
    assert!(users.role("filter[username]").is_some());
    let (answer, is_error) =
        call_with_strings(&served, "get_users", &[("filter[username]", "carol")]);
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer["body"]["data"][0]["attributes"]["username"], "carol");
}

#[test]
fn a_union_filter_takes_a_comma_list_in_its_input_schema() {
    let served = serve_corpus_app("safrs");
    let tools = rea_serve::ToolBackend::tools(served.backend.as_ref());
    let tasks = tools
        .iter()
        .find(|tool| tool.name == TASKS)
        .expect("the tasks tool");
    let schema = &tasks.input_schema["properties"]["filter[project_id]"];
    assert_eq!(
        schema["anyOf"],
        serde_json::json!([{"type": "string"}, {"type": "integer"}]),
        "{schema:#}"
    );
    let (answer, is_error) = call_with_strings(&served, TASKS, &[("filter[project_id]", "1,3")]);
    assert!(!is_error, "{answer:#}");
    assert!(!ids(&answer).is_empty(), "{answer:#}");
}

#[test]
fn a_page_size_never_sent_computes_the_size_member() {
    let served = serve_corpus_app("safrs");
    let (answer, is_error) = call_with_strings(&served, TASKS, &[("page[limit]", "5")]);
    assert!(!is_error, "{answer:#}");
    assert_eq!(ids(&answer).len(), 5, "{answer:#}");
    assert_eq!(answer["body"]["meta"]["limit"], 5, "{answer:#}");
    // Without a size: the default the build's plain lists showed.
    let (answer, is_error) = call_with_strings(&served, TASKS, &[("sort", "title")]);
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer["body"]["meta"]["limit"], 250, "{answer:#}");
}

#[test]
fn the_trailing_slash_pages_teach_the_plain_list_its_offset_and_links() {
    let served = serve_corpus_app("safrs");
    let tasks = query_model(&served, TASKS);
    // Recorded only through `/api/tasks/` (the links' spelling), learned on `/api/tasks`.
    assert_eq!(tasks.role("page[offset]"), Some(&QueryRole::Offset));
    let (answer, is_error) = call_with_strings(
        &served,
        TASKS,
        &[("page[offset]", "4"), ("page[limit]", "2")],
    );
    assert!(!is_error, "{answer:#}");
    assert_eq!(ids(&answer).len(), 2, "{answer:#}");
    let links = &answer["body"]["links"];
    assert_eq!(
        links["self"], "/api/tasks/?page[offset]=4&page[limit]=2",
        "{links:#}"
    );
    assert_eq!(
        links["next"], "/api/tasks/?page[offset]=6&page[limit]=2",
        "{links:#}"
    );
    // `next` is left out where it would name the last page (entries 15, 17, 67 show it).
    let (answer, is_error) = call_with_strings(&served, TASKS, &[("page[limit]", "5")]);
    assert!(!is_error, "{answer:#}");
    assert!(answer["body"]["links"].get("next").is_none(), "{answer:#}");
    assert_eq!(
        answer["body"]["links"]["last"],
        "/api/tasks/?page[offset]=5&page[limit]=5"
    );
}

#[test]
fn a_relationship_route_answers_the_children_of_any_parent() {
    let served = serve_corpus_app("safrs");
    let call = |tool: &str, parent: (&str, &str), relation: &str| {
        let arguments: serde_json::Map<String, Value> = [
            (parent.0.to_owned(), Value::String(parent.1.to_owned())),
            ("id".to_owned(), Value::String(relation.to_owned())),
        ]
        .into_iter()
        .collect();
        served.call(tool, arguments)
    };
    // Recorded: project 2's tasks (entry 27). Asked: project 3's, by `project_id`.
    let (answer, is_error) = call(
        "get_projects_by_project_id_and_id",
        ("project_id", "3"),
        "tasks",
    );
    assert!(!is_error, "{answer:#}");
    assert_eq!(
        answer.pointer("/state/source").and_then(Value::as_str),
        Some("state"),
        "{answer:#}"
    );
    for task in answer["body"]["data"].as_array().expect("tasks") {
        assert_eq!(task["attributes"]["project_id"], 3, "{task:#}");
    }
    // Recorded: user 2's tasks (entry 28). Asked: user 1's, by `assignee_id`.
    let (answer, is_error) = call("get_users_by_user_id_and_id", ("user_id", "1"), "tasks");
    assert!(!is_error, "{answer:#}");
    assert_eq!(ids(&answer), ["4", "8"], "{answer:#}");
    // Another relation under the same template is no call of this list.
    let (answer, _) = call("get_users_by_user_id_and_id", ("user_id", "1"), "projects");
    assert_ne!(
        answer.pointer("/state/source").and_then(Value::as_str),
        Some("state"),
        "{answer:#}"
    );
}

#[test]
fn a_sparse_fieldset_keeps_the_named_attributes_of_lists_and_items() {
    let served = serve_corpus_app("safrs");
    // Recorded: fields[Task]=title,status (entry 13). Asked: title,priority.
    let (answer, is_error) =
        call_with_strings(&served, TASKS, &[("fields[Task]", "title,priority")]);
    assert!(!is_error, "{answer:#}");
    let tasks = answer["body"]["data"].as_array().expect("tasks");
    assert!(tasks.len() >= 9, "{answer:#}");
    for task in tasks {
        let attributes = task["attributes"].as_object().expect("attributes");
        let mut names: Vec<&str> = attributes.keys().map(String::as_str).collect();
        names.sort_unstable();
        assert_eq!(names, ["priority", "title"], "{task:#}");
        assert!(task.get("relationships").is_some(), "{task:#}");
    }
    assert_eq!(
        answer["body"]["links"]["self"],
        "/api/tasks/?fields[Task]=title,priority&page[offset]=0&page[limit]=250"
    );
    // On an item of the type.
    let arguments: serde_json::Map<String, Value> = [
        ("id".to_owned(), Value::String("1".to_owned())),
        (
            "fields[Task]".to_owned(),
            Value::String("status".to_owned()),
        ),
    ]
    .into_iter()
    .collect();
    let (answer, is_error) = served.call("get_tasks_by_id", arguments);
    assert!(!is_error, "{answer:#}");
    assert_eq!(
        answer["body"]["data"]["attributes"],
        serde_json::json!({"status": "done"}),
        "{answer:#}"
    );
    // The sibling list takes it by its own type's name, offered by the state catalog.
    let tools = rea_serve::ToolBackend::tools(served.backend.as_ref());
    let projects = tools
        .iter()
        .find(|tool| tool.name == "get_projects")
        .expect("the projects tool");
    assert!(
        projects.input_schema["properties"]
            .get("fields[Project]")
            .is_some(),
        "{:#?}",
        projects.input_schema
    );
    let (answer, is_error) =
        call_with_strings(&served, "get_projects", &[("fields[Project]", "code")]);
    assert!(!is_error, "{answer:#}");
    for project in answer["body"]["data"].as_array().expect("projects") {
        let attributes = project["attributes"].as_object().expect("attributes");
        assert_eq!(
            attributes.keys().map(String::as_str).collect::<Vec<_>>(),
            ["code"]
        );
    }
}

#[test]
fn the_users_list_pages_with_the_links_the_tasks_list_taught() {
    let served = serve_corpus_app("safrs");
    // The users list's lines (entries 0, 9, 12, 60) never named a page size.
    let (answer, is_error) = call_with_strings(
        &served,
        "get_users",
        &[("sort", "username"), ("page[limit]", "2")],
    );
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer["state"]["membership"], "query", "{answer:#}");
    assert_eq!(ids(&answer), ["1", "2"]);
    assert_eq!(
        answer["body"]["links"],
        serde_json::json!({
            "last": "/api/users/?sort=username&page[offset]=4&page[limit]=2",
            "next": "/api/users/?sort=username&page[offset]=2&page[limit]=2",
            "self": "/api/users/?sort=username&page[offset]=0&page[limit]=2"
        })
    );
    assert_eq!(
        answer["body"]["meta"],
        serde_json::json!({"count": 4, "limit": 2, "total": 4})
    );
}

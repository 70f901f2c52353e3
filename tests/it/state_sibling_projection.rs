//! Sibling transfer of a write answering some members of what it wrote (a projection): a create
//! confirmed on one collection, answering only members its rules generate, is offered on a
//! sibling collection held as a type of its own, with the sibling's members as its input, its id
//! drawn as the source's rule draws but over the sibling's ids, and a path its rules spell
//! respelled to the sibling's where the sibling's held entities show it so
//! (`rea_state::writes::sibling_projection`). On two recorded apps: Roundup (`POST
//! /rest/data/{class}` answering `{"data": {"id", "link"}}`, confirmed on issues, offered on users)
//! and parse-server (`POST /parse/classes/Task` answering `{"objectId", "createdAt"}`, offered on
//! the Project class).

use rea_serve::ToolBackend;
use serde_json::{Map, Value, json};

use crate::state_sibling_transfer::{arguments, call, served, with_transfer};
use crate::state_support::Served;

/// Asserts that an inferred create is listed as carried over from `source` and served so.
fn assert_inferred_create(served: &Served, tool: &str, source: &str) {
    let description = served
        .backend
        .tools()
        .iter()
        .find(|descriptor| descriptor.name == tool)
        .map(|descriptor| descriptor.description.clone())
        .unwrap_or_else(|| panic!("{tool} is listed"));
    assert!(
        description.contains(&format!(
            "inferred: carried over from the confirmed write \"{source}\""
        )),
        "{tool}: {description}"
    );
    let coverage = rea_state::coverage::summary(served.state());
    let served_writes = coverage["writes"]["served"].as_array().expect("served");
    assert!(
        served_writes.contains(&json!({"tool": tool, "effect": "create", "inferred_from": source})),
        "{coverage}"
    );
}

fn create(served: &Served, tool: &str, body: Value) -> Value {
    call(served, tool, arguments(served, tool, None, Some(body)))
}

/// An item read's answer, a tool error.
fn read_refusal(served: &Served, tool: &str, id: &str) -> Value {
    let Value::Object(arguments) = arguments(served, tool, Some(id), None) else {
        unreachable!("arguments are an object")
    };
    let (answer, error) = served.call(tool, arguments);
    assert!(error, "{tool}: {answer}");
    answer
}

#[test]
fn roundup_creates_a_user_answering_as_its_issue_create_with_the_users_id_and_path() {
    let served = served("roundup", with_transfer());
    assert_inferred_create(&served, "post_rt_rest_data_user", "post_rt_rest_data_issue");
    let dave = json!({"username": "dave", "realname": "Dave Doe", "address": "dave@example.test", "roles": "User", "password": "pw"});
    let created = create(&served, "post_rt_rest_data_user", dave);
    assert_eq!(created["status"], 201, "{created}");
    // Users 1 to 5 are held: the next id is drawn over them (issues run to 8), and the link
    // spells the users' path, as every held user's link does.
    assert_eq!(
        created["body"],
        json!({"data": {"id": "6", "link": "http://127.0.0.1:18841/rt/rest/data/user/6"}})
    );
    // Roundup fills members the create did not send (`organisation`, `phone`, …): the item view,
    // whose every recording carried them, refuses the entity rather than invent them.
    let refused = read_refusal(&served, "get_rt_rest_data_user_by_id", "6");
    assert_eq!(refused["error"]["code"], "incomplete_entity", "{refused}");
    // The user list, recorded once selecting fields, lists every held user in its order (the
    // state's), the created one last.
    let mut selection = Map::new();
    selection.insert("@fields".to_owned(), json!("username"));
    let listed = call(&served, "get_rt_rest_data_user", Value::Object(selection));
    let usernames: Vec<&str> = listed["body"]["data"]["collection"]
        .as_array()
        .expect("the users")
        .iter()
        .filter_map(|user| user["username"].as_str())
        .collect();
    assert_eq!(
        usernames,
        ["admin", "anonymous", "alice", "bob", "carol", "dave"],
        "{listed}"
    );
    let again = create(
        &served,
        "post_rt_rest_data_user",
        json!({"username": "erin"}),
    );
    assert_eq!(again["body"]["data"]["id"], "7", "{again}");
    // A member users never showed (the issue's `priority`) is refused, changing nothing.
    let Value::Object(arguments) = arguments(
        &served,
        "post_rt_rest_data_user",
        None,
        Some(json!({"username": "fay", "priority": "1"})),
    ) else {
        unreachable!("arguments are an object")
    };
    let (refused, error) = served.call("post_rt_rest_data_user", arguments);
    assert!(error, "{refused}");
    let next = create(
        &served,
        "post_rt_rest_data_user",
        json!({"username": "gil"}),
    );
    assert_eq!(next["body"]["data"]["id"], "8", "{next}");
}

#[test]
fn parse_server_creates_a_project_answering_as_its_task_create() {
    let served = served("parse-server", with_transfer());
    assert_inferred_create(
        &served,
        "post_parse_classes_project",
        "post_parse_classes_task",
    );
    let relation = json!({"__type": "Relation", "className": "Member"});
    let created = create(
        &served,
        "post_parse_classes_project",
        json!({"name": "Dawn", "code": "DWN", "budget": 500, "archived": false, "members": relation}),
    );
    assert_eq!(created["status"], 201, "{created}");
    let Some(Value::Object(answer)) = created.get("body") else {
        panic!("an object answer: {created}")
    };
    let members: Vec<&str> = answer.keys().map(String::as_str).collect();
    assert_eq!(members, ["createdAt", "objectId"], "{created}");
    let id = answer["objectId"].as_str().expect("a drawn id");
    assert!(
        id.len() == 10 && id.chars().all(|c| c.is_ascii_alphanumeric()),
        "{id}: drawn as the Task ids are"
    );
    let read = call(
        &served,
        "get_parse_classes_project_by_object_id",
        arguments(
            &served,
            "get_parse_classes_project_by_object_id",
            Some(id),
            None,
        ),
    );
    assert_eq!(read["state"]["source"], "state", "{read}");
    let shown: &Map<String, Value> = read["body"].as_object().expect("an object");
    assert_eq!(shown["name"], "Dawn");
    assert_eq!(shown["createdAt"], answer["createdAt"]);
    assert_eq!(
        shown["updatedAt"], answer["createdAt"],
        "the clock rule's stamps"
    );
    // A project sent without the relation every held project carries is refused by the item
    // view rather than shown with a member invented.
    let bare = create(
        &served,
        "post_parse_classes_project",
        json!({"name": "Ember"}),
    );
    let bare_id = bare["body"]["objectId"].as_str().expect("a drawn id");
    let refused = read_refusal(&served, "get_parse_classes_project_by_object_id", bare_id);
    assert_eq!(refused["error"]["code"], "incomplete_entity", "{refused}");
}

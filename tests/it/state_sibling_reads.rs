//! Reads learned on one collection offered on its siblings (issue 12, items 2 and 6) and JSON:API
//! sparse fieldsets as one rule (`sparse.rs`). A sparse fieldset keeps the named attributes; the
//! relationships it does not name lose their linkage and keep their links on Fortune.js
//! (`SparseFields::unlisted`), where drf-jsonapi leaves them out and safrs keeps them
//! (`state_jsonapi_second_app`, `state_jsonapi_queries`); the rule serves the list that recorded
//! it, its sibling list by the sibling's type name and the item read.

use serde_json::{Value, json};

use crate::state_support::{Served, call_with_strings, serve_corpus_app};

/// A successful call's answer, asserted answered from the state.
fn from_state(served: &Served, tool: &str, arguments: &[(&str, &str)]) -> Value {
    let (answer, is_error) = call_with_strings(served, tool, arguments);
    assert!(!is_error, "{tool}: {answer:#}");
    assert_eq!(answer["state"]["source"], "state", "{tool}: {answer:#}");
    answer
}

/// The sorted attribute names of a resource.
fn attribute_names(resource: &Value) -> Vec<String> {
    let mut names: Vec<String> = resource["attributes"]
        .as_object()
        .unwrap_or_else(|| panic!("attributes: {resource:#}"))
        .keys()
        .cloned()
        .collect();
    names.sort_unstable();
    names
}

/// Asserts that every relationship of a resource keeps its links and no linkage.
fn assert_links_only(resource: &Value) {
    let relationships = resource["relationships"]
        .as_object()
        .unwrap_or_else(|| panic!("relationships: {resource:#}"));
    assert!(!relationships.is_empty(), "{resource:#}");
    for relationship in relationships.values() {
        let members: Vec<&String> = relationship
            .as_object()
            .expect("an object")
            .keys()
            .collect();
        assert_eq!(members, ["links"], "{resource:#}");
    }
}

#[test]
fn a_sparse_fieldset_strips_the_linkage_of_the_relationships_it_does_not_name() {
    let served = serve_corpus_app("fortune");
    let rule = served
        .state()
        .sparse
        .clone()
        .expect("a sparse fieldset rule");
    assert_eq!(
        rule.unlisted
            .map(|unlisted| (unlisted.member, unlisted.stripped)),
        Some(("relationships".to_owned(), vec!["data".to_owned()]))
    );
    // Recorded: fields[tasks]=title,status (entry 22). Asked: title,priority.
    let answer = from_state(&served, "get_tasks", &[("fields[tasks]", "title,priority")]);
    let tasks = answer["body"]["data"].as_array().expect("tasks");
    assert_eq!(tasks.len(), 12, "{answer:#}");
    for task in tasks {
        assert_eq!(attribute_names(task), ["priority", "title"], "{task:#}");
        assert_links_only(task);
    }
    // The sibling list by its own type's name, and an item read.
    let answer = from_state(&served, "get_people", &[("fields[people]", "name")]);
    for person in answer["body"]["data"].as_array().expect("people") {
        assert_eq!(attribute_names(person), ["name"], "{person:#}");
        assert_links_only(person);
    }
    let answer = from_state(
        &served,
        "get_tasks_by_id",
        &[("id", "1"), ("fields[tasks]", "title,status")],
    );
    let task = &answer["body"]["data"];
    assert_eq!(
        task["attributes"],
        json!({"title": "Grease the wheel shaft", "status": "done"}),
        "{answer:#}"
    );
    assert_links_only(task);
    // Naming a relationship asks what no recording showed.
    let (answer, _) =
        call_with_strings(&served, "get_tasks", &[("fields[tasks]", "title,project")]);
    assert_ne!(answer["state"]["source"], "state", "{answer:#}");
}

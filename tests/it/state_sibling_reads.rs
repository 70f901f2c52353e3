//! Reads learned on one collection offered on its siblings (issue 12, items 2 and 6) and JSON:API
//! sparse fieldsets as one rule (`sparse.rs`).
//!
//! A sparse fieldset keeps the named attributes; the relationships it does not name lose their
//! linkage and keep their links on Fortune.js (`SparseFields::unlisted`), where drf-jsonapi leaves
//! them out and safrs keeps them (`state_jsonapi_second_app`, `state_jsonapi_queries`); the rule
//! serves the list that recorded it, its sibling list by the sibling's type name and the item read.
//!
//! A query pair an item read showed adding to each reference its entity's label (Roundup's
//! `@verbose=2`: a status's `name`, a user's `username`) is offered to the lists whose items hold
//! such references (`rea_state::expansion`), not as a sibling list's argument carried over: the
//! status and keyword lists read with it were never read without it.
//!
//! With the opt-in sibling transfer, a relationship route recorded below the projects' items
//! (`GET /projects/{id}/relationships/tasks`) is offered below the people's
//! (`rea_manifest::sibling_reads`) and answers the person's linkage the state holds, in the
//! envelope of the recorded route of the same linkage kind (`rea_state::sibling_reads`): on
//! flask-rest-jsonapi-next and Fortune.js, marked inferred in the catalog and the coverage.

use rea_serve::ToolBackend;
use serde_json::{Value, json};

use crate::state_support::{
    Served, call_with_strings, serve_corpus_app, serve_corpus_app_transfer,
};

/// The served catalog's description of a tool (`None`: not listed).
fn listed(served: &Served, tool: &str) -> Option<String> {
    (served.backend.tools().iter())
        .find(|descriptor| descriptor.name == tool)
        .map(|descriptor| descriptor.description.clone())
}

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

/// The inferred read below the people's items, its source and its answer for person 2's tasks.
fn people_relationship(app: &str) -> (Served, String, Value) {
    let served = serve_corpus_app_transfer(app, true);
    let inferred = (served.manifest.tools.iter())
        .find(|tool| {
            tool.method == "GET"
                && tool.inferred_from.is_some()
                && tool.path_template.starts_with("/people/")
        })
        .unwrap_or_else(|| panic!("{app}: an inferred read below the people"));
    let name = inferred.name.clone();
    let description = listed(&served, &name).unwrap_or_else(|| panic!("{app}: {name} listed"));
    assert!(
        description.contains("inferred: carried over from the recorded read"),
        "{description}"
    );
    let coverage = rea_state::coverage::summary(served.state());
    let reads = coverage["reads"]["inferred"]
        .as_array()
        .expect("inferred reads");
    assert!(
        reads.iter().any(|read| read["tool"] == name.as_str()),
        "{coverage:#}"
    );
    let parameters: Vec<&str> = (inferred.path_parameters.iter())
        .map(|parameter| parameter.name.as_str())
        .collect();
    let [person, between, relationship] = parameters[..] else {
        panic!("{app}: three parameters: {parameters:?}")
    };
    let arguments = [
        (person, "2"),
        (between, "relationships"),
        (relationship, "tasks"),
    ];
    let answer = from_state(&served, &name, &arguments);
    (served, name, answer)
}

/// The ids of a to-many linkage.
fn linked_ids(answer: &Value) -> Vec<String> {
    (answer["body"]["data"].as_array())
        .unwrap_or_else(|| panic!("a to-many linkage: {answer:#}"))
        .iter()
        .map(|identifier| match &identifier["id"] {
            Value::String(id) => id.clone(),
            other => other.to_string(),
        })
        .collect()
}

#[test]
fn a_relationship_route_is_offered_below_the_sibling_collections_items() {
    // flask-rest-jsonapi-next: entries 37 (a task's assignee) and 38 (a project's tasks).
    let (served, name, answer) = people_relationship("flask-rest-jsonapi-next");
    assert_eq!(linked_ids(&answer), ["4", "12"], "{answer:#}");
    assert_eq!(answer["body"]["data"][0], json!({"id": 4, "type": "task"}));
    // The projects' to-many envelope: its related link minted from the person's relationship.
    assert_eq!(
        answer["body"]["links"],
        json!({"related": "/people/2/tasks", "self": "/people/2/relationships/tasks"})
    );
    // A relationship the person does not hold, or a person the state lacks: not modelled.
    for arguments in [
        ["2", "relationships", "project"],
        ["99", "relationships", "tasks"],
    ] {
        let parameters: Vec<String> = (served.manifest.tool(&name).expect("the tool"))
            .path_parameters
            .iter()
            .map(|parameter| parameter.name.clone())
            .collect();
        let pairs: Vec<(&str, &str)> = parameters
            .iter()
            .map(String::as_str)
            .zip(arguments)
            .collect();
        let (answer, is_error) = call_with_strings(&served, &name, &pairs);
        assert!(is_error, "{arguments:?}: {answer:#}");
    }
    // Off by default: no such tool.
    let plain = serve_corpus_app_transfer("flask-rest-jsonapi-next", false);
    assert!(listed(&plain, &name).is_none());
}

#[test]
fn a_relationship_route_below_sibling_items_takes_the_siblings_id_rule() {
    // Fortune.js: entries 40 (a task's assignee) and 41 (a project's tasks); the people's ids
    // route by their own rule (generated ids too, as `GET /people/{id}` takes them).
    let (served, name, answer) = people_relationship("fortune");
    assert_eq!(linked_ids(&answer), ["5", "11"], "{answer:#}");
    assert_eq!(
        answer["body"]["links"],
        json!({"self": "/people/2/relationships/tasks", "related": "/people/2/tasks"})
    );
    let inferred = served.manifest.tool(&name).expect("the tool");
    assert_eq!(inferred.path_parameters[0].rule, "sibling-variance");
}

#[test]
fn a_reference_expansion_an_item_read_showed_answers_on_the_list() {
    let served = serve_corpus_app("roundup");
    let rule = served
        .state()
        .expansion
        .clone()
        .expect("a reference expansion");
    assert_eq!(
        (rule.parameter.as_str(), rule.value.as_str()),
        ("@verbose", "2")
    );
    assert_eq!(rule.members["/rt/rest/data/status"], ["name"]);
    assert_eq!(rule.members["/rt/rest/data/user"], ["username"]);
    assert!(rule.unknown.contains("/rt/rest/data/msg"), "{rule:?}");
    let issues = "get_rt_rest_data_issue";
    let answer = from_state(
        &served,
        issues,
        &[("@verbose", "2"), ("@fields", "title,status")],
    );
    let collection = answer["body"]["data"]["collection"]
        .as_array()
        .expect("a collection");
    assert!(!collection.is_empty(), "{answer:#}");
    for issue in collection {
        let status = issue["status"].as_object().expect("a status reference");
        let names: Vec<&String> = status.keys().collect();
        assert_eq!(names, ["id", "link", "name"], "{issue:#}");
    }
    let first = &collection[0];
    assert_eq!(first["status"]["name"], "in-progress", "{answer:#}");
    // Messages gained a member their read never showed: not modelled.
    let (answer, _) = call_with_strings(
        &served,
        issues,
        &[("@verbose", "2"), ("@fields", "title,messages")],
    );
    assert_ne!(answer["state"]["source"], "state", "{answer:#}");
}

//! List names (`status[$in][]=a&status[$in][]=b`, qs's array spelling; see
//! `rea_plugin_api::query_lists`): the recorded lines and the calls read a repeated list name as
//! one comma list under the name before its empty bracket pair, so a set filter (`$in`, `$nin`)
//! and a field selection (`$select[]`) are learned from the lines that spelled them so and answer
//! from the state for fields, values and sibling lists the build never sent; the catalog offers
//! the generalized set filters and the selection as list names taking an array. On FeathersJS
//! (the only corpus app spelling a value list so: directus's `groupBy[]` is an aggregate's
//! grouping, not a list the state reads).

use rea_plugin_api::contracts::capture::CaptureRecord;
use rea_serve::ToolBackend;
use serde_json::{Map, Value};

use crate::state_query_grammar::served_with_probes;
use crate::state_support::{Served, recorded_answer, request_line};

/// A probe's query pairs as arguments: a repeated name as the array of its values, in order.
pub(crate) fn list_arguments(probe: &CaptureRecord) -> Map<String, Value> {
    let mut arguments = Map::new();
    for (name, value) in probe
        .query
        .iter()
        .flat_map(|query| query.pairs.iter().flatten())
    {
        let value = Value::String(value.clone());
        match arguments.get_mut(name) {
            Some(Value::Array(values)) => values.push(value),
            Some(first) => *first = Value::Array(vec![first.clone(), value]),
            None => {
                arguments.insert(name.clone(), value);
            }
        }
    }
    arguments
}

/// Each probe line is answered from the state with the live body.
pub(crate) fn assert_state_answers(
    served: &Served,
    probes: &[CaptureRecord],
    tool: &str,
    lines: &[&str],
) {
    assert_item_answers(served, probes, (tool, None), lines);
}

/// [`assert_state_answers`], the call naming the item (`id`) when one is given.
pub(crate) fn assert_item_answers(
    served: &Served,
    probes: &[CaptureRecord],
    (tool, id): (&str, Option<&str>),
    lines: &[&str],
) {
    for line in lines {
        let probe = probes
            .iter()
            .find(|record| request_line(record, "") == *line)
            .unwrap_or_else(|| panic!("probes {line}"));
        let mut arguments = list_arguments(probe);
        if let Some(id) = id {
            arguments.insert("id".to_owned(), Value::String(id.to_owned()));
        }
        let (answer, is_error) = served.call(tool, arguments);
        assert!(!is_error, "{line}: {answer}");
        assert_eq!(
            answer.pointer("/state/source").and_then(Value::as_str),
            Some("state"),
            "{line} answers from the state: {answer}"
        );
        let (_, live) = recorded_answer(probe);
        assert_eq!(answer.get("body"), Some(&live), "{line}: the live answer");
    }
}

/// The served input schema of one of a tool's arguments.
pub(crate) fn argument_schema(served: &Served, tool: &str, argument: &str) -> Option<Value> {
    (served.backend.tools().iter())
        .find(|descriptor| descriptor.name == tool)
        .and_then(|descriptor| descriptor.input_schema["properties"].get(argument).cloned())
}

/// Whether a schema takes an array of strings.
pub(crate) fn takes_a_list(schema: &Value) -> bool {
    schema["anyOf"]
        .as_array()
        .is_some_and(|branches| branches.iter().any(|branch| branch["type"] == "array"))
}

#[test]
fn a_repeated_list_name_is_a_set_filters_list_on_any_field() {
    // Recorded: `status[$in][]=doing&status[$in][]=done`, `projectId[$nin][]=1&…=2`. Asked: one
    // value, `$in` on the ids, `$nin` on the status, and `$in` sorted and paged.
    let (served, probes) = served_with_probes("feathers");
    assert_state_answers(
        &served,
        &probes,
        "get_tasks",
        &[
            "GET /tasks?status[$in][]=todo",
            "GET /tasks?projectId[$in][]=3&projectId[$in][]=4",
            "GET /tasks?status[$nin][]=todo&status[$nin][]=doing",
            "GET /tasks?projectId[$in][]=1&projectId[$in][]=2&$sort[priority]=1&$limit=3&$skip=3",
        ],
    );
    // The generalized set filters are offered as list names taking an array; the order
    // comparisons keep their one value.
    for name in ["projectId[$in][]", "status[$nin][]", "status[$in][]"] {
        let schema = argument_schema(&served, "get_tasks", name)
            .unwrap_or_else(|| panic!("get_tasks takes {name}"));
        assert!(takes_a_list(&schema), "{name}: {schema}");
    }
    assert!(argument_schema(&served, "get_tasks", "projectId[$in]").is_none());
    let order = argument_schema(&served, "get_tasks", "assigneeId[$gt]").expect("a comparison");
    assert!(!takes_a_list(&order), "{order}");
    // The build's `title[$regex]` was refused (entry 49, `400 Invalid query parameter $regex`):
    // the slot takes the words its lines established (`$ne` on another field) and the order
    // comparisons, not every word of the vocabulary (`$like`, which Feathers refused live too).
    assert!(argument_schema(&served, "get_tasks", "priority[$ne]").is_some());
    for name in ["title[$like]", "title[$startswith]"] {
        assert!(
            argument_schema(&served, "get_tasks", name).is_none(),
            "{name}"
        );
    }
}

#[test]
fn a_selection_spelled_as_a_list_name_shows_the_named_fields_and_the_id() {
    // Recorded: `$select[]=title&$select[]=status` on tasks, `$select[]=name` on people,
    // `/tasks/5?$select[]=title`. Asked: other fields, a sibling list (projects), another item.
    let (served, probes) = served_with_probes("feathers");
    assert_state_answers(
        &served,
        &probes,
        "get_tasks",
        &[
            "GET /tasks?$select[]=title&$select[]=priority",
            "GET /tasks?status=todo&$sort[priority]=-1&$select[]=title",
        ],
    );
    assert_state_answers(
        &served,
        &probes,
        "get_projects",
        &["GET /projects?$select[]=code"],
    );
    assert_item_answers(
        &served,
        &probes,
        ("get_tasks_by_id", Some("1")),
        &["GET /tasks/1?$select[]=status"],
    );
    let offered = argument_schema(&served, "get_projects", "$select[]").expect("offered");
    assert!(takes_a_list(&offered), "{offered}");
    assert!(argument_schema(&served, "get_projects", "$select").is_none());
}

//! Field selections generalized (`rea_state::selection`): the selection parameter a build's reads
//! used (`_fields=title,status` on Kinto's records, `fields=id,code,status` on Directus's items)
//! is learned with the fields the application shows unasked, so a probe selecting other fields,
//! on a list or on one item, is answered from the state with the live fields. A selection the
//! rule does not explain (a star, a relation path no read made, a field no entity holds) is
//! never answered with another selection's recording.

use rea_plugin_api::contracts::capture::CaptureRecord;
use rea_state::model::ViewDetail;
use rea_state::selection::FieldSelection;
use serde_json::{Map, Value};

use crate::state_query_grammar::served_with_probes;
use crate::state_support::agreement::route;
use crate::state_support::{Served, assert_not_modelled, recorded_answer, view_detail};

const KINTO_RECORDS: &str = "get_buckets_workspace_collections_records_by_collection_id";
const DIRECTUS_TASK: &str = "get_items_tasks_by_id";

/// The selection rule a view of the served state carries.
fn selection_of(served: &Served, tool: &str) -> Option<FieldSelection> {
    match view_detail(served, tool) {
        ViewDetail::Item(item) => item.selection.clone(),
        ViewDetail::List(list) => list.selection.clone(),
        _ => None,
    }
}

fn probe<'a>(probes: &'a [CaptureRecord], line: &str) -> &'a CaptureRecord {
    probes
        .iter()
        .find(|record| crate::state_support::request_line(record, "") == line)
        .unwrap_or_else(|| panic!("the probes hold {line}"))
}

/// The probe answered through its tool from the state; the answer and the live body.
fn answer_probe(served: &Served, record: &CaptureRecord, tool: &str) -> (Value, Value) {
    let (routed, arguments) = route(served, record).expect("the probe has a tool");
    assert_eq!(routed, tool);
    let (answer, is_error) = served.call(tool, arguments);
    assert!(!is_error, "answered: {answer}");
    assert_eq!(
        answer.pointer("/state/source").and_then(Value::as_str),
        Some("state"),
        "answered from the state: {answer}"
    );
    (answer, recorded_answer(record).1)
}

/// The member names of each object at a pointer of a body, in order.
fn member_names(body: &Value, pointer: &str) -> Vec<Vec<String>> {
    let names = |object: &Value| -> Vec<String> {
        object
            .as_object()
            .map(|object| object.keys().cloned().collect())
            .unwrap_or_default()
    };
    match body.pointer(pointer) {
        Some(Value::Array(items)) => items.iter().map(names).collect(),
        Some(object) => vec![names(object)],
        None => Vec::new(),
    }
}

/// The name of a tool's one path parameter.
fn path_argument(served: &Served, tool: &str) -> String {
    let tool = served
        .manifest
        .tools
        .iter()
        .find(|known| known.name == tool)
        .expect("the tool");
    assert_eq!(tool.path_parameters.len(), 1, "{}", tool.name);
    tool.path_parameters[0].name.clone()
}

#[test]
fn a_list_selection_of_other_fields_shows_those_and_the_kept_ones() {
    let (kinto, probes) = served_with_probes("kinto");
    // Recorded: `_fields=title,status`, shown with `id` and `last_modified` besides.
    assert_eq!(
        selection_of(&kinto, KINTO_RECORDS),
        Some(FieldSelection {
            parameter: "_fields".to_owned(),
            kept: vec!["id".to_owned(), "last_modified".to_owned()],
        })
    );
    let record = probe(
        &probes,
        "GET /v1/buckets/workspace/collections/tasks/records?_fields=assignee%2Cdue",
    );
    let (answer, live) = answer_probe(&kinto, record, KINTO_RECORDS);
    let body = answer.get("body").expect("a body");
    // The live fields, member by member (a task without a due date shows none); the clock is
    // the build's, the rest the live values.
    assert_eq!(member_names(body, "/data"), member_names(&live, "/data"));
    for (shown, live) in body["data"]
        .as_array()
        .expect("a list")
        .iter()
        .zip(live["data"].as_array().expect("a list"))
    {
        for field in ["assignee", "due", "id"] {
            assert_eq!(shown.get(field), live.get(field), "{field}");
        }
    }
}

#[test]
fn an_item_selection_never_recorded_on_items_shows_the_fields_asked_for() {
    let (directus, probes) = served_with_probes("directus");
    // Recorded on lists only (`fields=id,code,status`, `fields=id,title,sort`): nothing kept.
    assert_eq!(
        selection_of(&directus, DIRECTUS_TASK),
        Some(FieldSelection {
            parameter: "fields".to_owned(),
            kept: Vec::new(),
        })
    );
    let record = probe(&probes, "GET /items/tasks/8?fields=title%2Cstate");
    let (answer, live) = answer_probe(&directus, record, DIRECTUS_TASK);
    assert_eq!(answer.get("body"), Some(&live));
}

#[test]
fn a_selection_the_rule_does_not_explain_is_refused() {
    let (kinto, _) = served_with_probes("kinto");
    let (directus, _) = served_with_probes("directus");
    let refused = |served: &Served, tool: &str, arguments: Map<String, Value>| {
        let (answer, is_error) = served.call(tool, arguments);
        assert_not_modelled(&answer, is_error);
    };
    for fields in ["colour", "title,colour", "*", "title,,status"] {
        let mut arguments = Map::new();
        arguments.insert(path_argument(&kinto, KINTO_RECORDS), Value::from("tasks"));
        arguments.insert("_fields".to_owned(), Value::from(fields));
        refused(&kinto, KINTO_RECORDS, arguments);
    }
    // On one item: a field no task holds, and a relation path no read made.
    for fields in ["title,colour", "*,tasks.*"] {
        let mut arguments = Map::new();
        arguments.insert(path_argument(&directus, DIRECTUS_TASK), Value::from("9"));
        arguments.insert("fields".to_owned(), Value::from(fields));
        refused(&directus, DIRECTUS_TASK, arguments);
    }
}

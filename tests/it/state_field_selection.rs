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
use crate::state_support::{
    Served, assert_not_modelled, probe_with_line, recorded_answer, serve_corpus_app, view_detail,
};

const KINTO_RECORDS: &str = "get_buckets_workspace_collections_records_by_collection_id";
const DIRECTUS_TASK: &str = "get_items_tasks_by_id";

/// The selection rule a view of the served state carries.
fn selection_of(served: &Served, tool: &str) -> Option<FieldSelection> {
    match view_detail(served, tool) {
        ViewDetail::Item(item) => item.selection.clone(),
        ViewDetail::List(list) => list.selection.as_deref().cloned(),
        _ => None,
    }
}

/// The probe answered through its tool from the state; the answer and the live body.
pub(crate) fn answer_probe(served: &Served, record: &CaptureRecord, tool: &str) -> (Value, Value) {
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
            listed: false,
            excludes: false,
        })
    );
    let record = probe_with_line(
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
            listed: false,
            excludes: false,
        })
    );
    let record = probe_with_line(&probes, "GET /items/tasks/8?fields=title%2Cstate");
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

const PARSE_TASKS: &str = "get_parse_classes_task";
const PARSE_MEMBERS: &str = "get_parse_classes_member";

#[test]
fn parse_keys_is_learned_and_offered_on_the_sibling_lists() {
    let (parse, probes) = served_with_probes("parse-server");
    let keys = FieldSelection {
        parameter: "keys".to_owned(),
        kept: vec![
            "objectId".to_owned(),
            "createdAt".to_owned(),
            "updatedAt".to_owned(),
        ],
        listed: false,
        excludes: false,
    };
    // Recorded on the Task list (`keys=title,status`): the identity and both clocks kept. The
    // expanded pointer of `include=project` (an item showing every field a task holds) selected
    // nothing, so it teaches no selection rule of its own.
    assert_eq!(selection_of(&parse, PARSE_TASKS), Some(keys.clone()));
    // The Member list never recorded `keys`: the one learned rule is offered there too, and its
    // catalog takes the argument.
    assert_eq!(selection_of(&parse, PARSE_MEMBERS), Some(keys));
    let schema = crate::state_support::input_schema(&parse, PARSE_MEMBERS);
    assert!(
        schema
            .get("properties")
            .and_then(|properties| properties.get("keys"))
            .is_some(),
        "the Member list takes keys: {schema:?}"
    );
    let record = probe_with_line(
        &probes,
        "GET /parse/classes/Task?where=%7B%22%24or%22%3A%5B%7B%22priority%22%3A3%7D%2C%7B%22status%22%3A%22doing%22%7D%5D%7D&keys=title&order=title",
    );
    let (answer, live) = answer_probe(&parse, record, PARSE_TASKS);
    assert_eq!(answer.get("body"), Some(&live));
    // The probe's routing knows only the recorded names, so the Member call is made by hand.
    let record = probe_with_line(
        &probes,
        "GET /parse/classes/Member?order=name&keys=name%2Crole",
    );
    let mut arguments = Map::new();
    arguments.insert("order".to_owned(), Value::from("name"));
    arguments.insert("keys".to_owned(), Value::from("name,role"));
    let (answer, is_error) = parse.call(PARSE_MEMBERS, arguments);
    assert!(!is_error, "{answer}");
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    let live = recorded_answer(record).1;
    assert_eq!(
        member_names(&answer["body"], "/results"),
        member_names(&live, "/results")
    );
    assert_eq!(answer.get("body"), Some(&live));
}

#[test]
fn parse_keys_naming_a_field_no_member_holds_is_refused() {
    let (parse, _) = served_with_probes("parse-server");
    for fields in ["name,colour", "*", "name,,role"] {
        let mut arguments = Map::new();
        arguments.insert("keys".to_owned(), Value::from(fields));
        let (answer, is_error) = parse.call(PARSE_MEMBERS, arguments);
        assert_not_modelled(&answer, is_error);
    }
}

#[test]
fn kinto_fields_is_offered_on_the_lists_that_never_recorded_it() {
    let (kinto, _) = served_with_probes("kinto");
    const COLLECTIONS: &str = "get_buckets_workspace_collections";
    // Recorded on the records list only; the collections list takes it too (Kinto selects
    // fields on every plural endpoint), keeping the identity and the clock.
    assert_eq!(
        selection_of(&kinto, COLLECTIONS),
        selection_of(&kinto, KINTO_RECORDS)
    );
    let mut arguments = Map::new();
    arguments.insert("_fields".to_owned(), Value::from("title"));
    let (answer, is_error) = kinto.call(COLLECTIONS, arguments);
    assert!(!is_error, "{answer}");
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    let shown = member_names(&answer["body"], "/data");
    assert!(!shown.is_empty(), "{answer}");
    for mut names in shown {
        names.sort();
        assert_eq!(names, ["id", "last_modified", "title"], "{answer}");
    }
}

const ROUNDUP_USERS: &str = "get_rt_rest_data_user";
const ROUNDUP_PRIORITIES: &str = "get_rt_rest_data_priority";

/// A served list call with one selection argument.
fn select(served: &Served, tool: &str, parameter: &str, fields: &str) -> (Value, bool) {
    let mut arguments = Map::new();
    arguments.insert(parameter.to_owned(), Value::from(fields));
    served.call(tool, arguments)
}

#[test]
fn a_selection_within_the_only_recorded_selection_is_narrowed_from_it() {
    let roundup = serve_corpus_app("roundup");
    // Each list was read once, with its selection (`username,realname`; `name,order`): the
    // call without a selection is not modelled, so a narrower selection is answered by the
    // recorded one's members narrowed to the fields asked for and the kept identity and link.
    for (tool, path, wider, field) in [
        (
            ROUNDUP_USERS,
            "/rt/rest/data/user",
            "username,realname",
            "username",
        ),
        (
            ROUNDUP_PRIORITIES,
            "/rt/rest/data/priority",
            "name,order",
            "name",
        ),
    ] {
        let record = roundup
            .records
            .iter()
            .find(|record| {
                record.path.as_deref() == Some(path)
                    && record.query.iter().any(|query| {
                        query
                            .pairs
                            .iter()
                            .flatten()
                            .any(|(_, value)| value == wider)
                    })
            })
            .expect("the recorded selection");
        let recorded = recorded_answer(record).1;
        let (answer, is_error) = select(&roundup, tool, "@fields", field);
        assert!(!is_error, "{answer}");
        assert_eq!(answer["state"]["source"], "state", "{answer}");
        let members = |body: &Value| body["data"]["collection"].as_array().cloned().unwrap();
        let narrowed: Vec<Value> = members(&recorded)
            .iter()
            .map(|member| {
                let keep = ["id", "link", field];
                let object = member.as_object().unwrap();
                Value::Object(
                    object
                        .iter()
                        .filter(|(name, _)| keep.contains(&name.as_str()))
                        .map(|(name, value)| (name.clone(), value.clone()))
                        .collect(),
                )
            })
            .collect();
        assert_eq!(members(&answer["body"]), narrowed, "{tool}");
        assert_eq!(
            answer["body"]["data"]["@total_size"],
            recorded["data"]["@total_size"]
        );
    }
    // A field no recorded selection showed (a user's address, held from one item read) is not
    // narrowed from anything: refused as before.
    let (answer, is_error) = select(&roundup, ROUNDUP_USERS, "@fields", "username,address");
    assert_not_modelled(&answer, is_error);
}

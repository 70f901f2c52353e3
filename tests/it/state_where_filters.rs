//! A list's filter sent as a JSON object in the `$` dialect (Parse Server's `where=`, read by the
//! `json-filter` grammar): the equality shorthand (`{"status": "done"}`), typed values (a
//! `Pointer` equal to the held pointer's object id, a `Date` compared and sorted by its `iso`),
//! the operators `$lt/$lte/$gt/$gte/$ne/$nin/$in`, `$regex` with `$options` and `$all`, a count
//! flag (`count=1`: the number matched beside the page; with `limit=0` nothing listed) and `order`
//! with `-` and comma lists, answered from the state of the build with the live body. `$regex`
//! and `$all` are also read in PouchDB's Mango bodies (`mango-selector`): both applications
//! answer them live. A filter the grammar cannot explain keeps its structured refusal.

use rea_plugin_api::contracts::capture::CaptureRecord;
use serde_json::{Map, Value};

use crate::state_body_queries::probe;
use crate::state_query_grammar::{probe_arguments, served_with_probes};
use crate::state_support::{Served, assert_not_modelled, recorded_answer, request_line};

const TASKS: &str = "get_parse_classes_task";
const MEMBERS: &str = "get_parse_classes_member";
const PROJECTS: &str = "get_parse_classes_project";

/// Each probe (by ordinal) is a request the build never made, answered from the state by
/// evaluating its query, with the live body.
fn assert_live(served: &Served, probes: &[CaptureRecord], tool: &str, ordinals: &[u64]) {
    let recorded: Vec<String> = served
        .records
        .iter()
        .map(|record| request_line(record, ""))
        .collect();
    for ordinal in ordinals {
        let record = probe(probes, *ordinal);
        let line = request_line(record, "");
        assert!(!recorded.contains(&line), "the build never sent {line}");
        let (answer, is_error) = served.call(tool, probe_arguments(record));
        assert!(!is_error, "{line} is answered: {answer}");
        assert_eq!(
            answer.pointer("/state/membership").and_then(Value::as_str),
            Some("query"),
            "{line} evaluates its query over the state: {answer}"
        );
        let (_, live) = recorded_answer(record);
        assert_eq!(
            answer.get("body"),
            Some(&live),
            "{line} lists what the live application listed"
        );
    }
}

fn where_call(filter: Value) -> Map<String, Value> {
    let mut arguments = Map::new();
    arguments.insert("where".to_owned(), Value::String(filter.to_string()));
    arguments
}

#[test]
fn equality_shorthand_and_operators_answer_from_the_state() {
    let (served, probes) = served_with_probes("parse-server");
    // Recorded: {"status": "open"}, $gte on priority, $in on status. Never: status done, $lt
    // on priority, $ne and $nin on status, $gte with $lte on estimate, $gt on estimate.
    assert_live(&served, &probes, TASKS, &[0, 1, 2, 3, 4, 7]);
    // Equality on sibling classes the build filtered otherwise (two equalities on Member, a
    // flag's other value on Project).
    assert_live(&served, &probes, MEMBERS, &[12]);
    assert_live(&served, &probes, PROJECTS, &[13]);
}

#[test]
fn typed_values_compare_by_what_they_name() {
    let (served, probes) = served_with_probes("parse-server");
    // A Pointer to another project than the build's (ordered by title), and a Date bound
    // compared with the held dates' iso and ordered by them.
    assert_live(&served, &probes, TASKS, &[9, 10]);
}

#[test]
fn regex_with_options_and_all_answer_on_two_applications() {
    let (served, probes) = served_with_probes("parse-server");
    // $regex made case-insensitive by $options i (the build sent $regex alone), $all with
    // another item than the build's.
    assert_live(&served, &probes, TASKS, &[5, 6]);
    // The same operators in PouchDB's Mango selectors: $regex with fields, $all on an array.
    crate::state_body_queries::assert_live_answers(
        "pouchdb-server",
        "post_find_by_segment_0",
        &[18, 21],
    );
}

#[test]
fn count_is_a_flag_and_order_sorts_by_signed_field_lists() {
    let (served, probes) = served_with_probes("parse-server");
    // count=1&limit=0 with another filter (the count alone), count=1 beside every match, a
    // page by title, the first page by a Date descending.
    assert_live(&served, &probes, TASKS, &[14, 15, 16, 17]);
    // order on Project by another field than the build's -budget.
    assert_live(&served, &probes, PROJECTS, &[19]);
    let counted = served.call(TASKS, probe_arguments(probe(&probes, 16))).0;
    assert_eq!(
        counted
            .pointer("/body/results")
            .and_then(Value::as_array)
            .map(Vec::len),
        Some(0),
        "limit=0 lists nothing: {counted}"
    );
    assert!(counted.pointer("/body/count").is_some_and(Value::is_u64));
}

#[test]
fn a_filter_the_grammar_cannot_explain_is_refused() {
    let (served, probes) = served_with_probes("parse-server");
    // $relatedTo reads a join table no answer shows.
    let (answer, is_error) = served.call(MEMBERS, probe_arguments(probe(&probes, 11)));
    assert_not_modelled(&answer, is_error);
    for filter in [
        serde_json::json!({"title": {"$regex": "^de", "$options": "m"}}),
        serde_json::json!({"$nor": [{"status": "open"}]}),
        serde_json::json!({"project": {"__type": "Pointer", "className": "Project"}}),
        serde_json::json!({"due": {"$lt": {"__type": "GeoPoint", "latitude": 1}}}),
        serde_json::json!({"title": {"$regex": "^(?=De)"}}),
        serde_json::json!({"tags": {"$all": []}}),
    ] {
        let (answer, is_error) = served.call(TASKS, where_call(filter.clone()));
        assert_not_modelled(&answer, is_error);
        assert!(is_error, "{filter}");
    }
}

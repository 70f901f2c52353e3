//! Key ranges (`key-range` query grammar): a read over an index ordered by its rows' `key`, asked
//! with JSON-encoded keys (`key`, `startkey`, `endkey`) and a direction (`descending`,
//! `inclusive_end`), as PouchDB's `_all_docs` and views are. The terms are learned from the
//! build's recorded ranges and applied to bounds, directions and exclusive ends never recorded,
//! with the envelope's `total_rows` computed as the collection's size. Only PouchDB in the corpus
//! speaks this language. What the state cannot know is refused: a compound key, a view the build
//! never listed whole (so other keys' rows were never seen, also on Datasette's and FlexGet's
//! lists). Rows asked with their documents (`include_docs=true`) are answered as a relation
//! (`state_relations`).

use rea_plugin_api::contracts::query::QueryRole;
use serde_json::Value;

use crate::state_query_grammar::served_with_probes;
use crate::state_support::{
    Served, assert_not_modelled, call_with_strings, list_view, probe_with_line, recorded_answer,
};

const ALL_DOCS: &str = "get_all_docs_by_segment_0";
const BY_YEAR: &str = "get_design_catalog_view_by_year_by_segment_0";

/// The call answers a structured refusal: no recording, no state answer.
fn assert_refused(served: &Served, tool: &str, arguments: &[(&str, &str)]) {
    let (answer, is_error) = call_with_strings(served, tool, arguments);
    assert_not_modelled(&answer, is_error);
}

#[test]
fn key_range_terms_and_the_collection_total_are_learned_from_the_recorded_ranges() {
    let (pouchdb, _) = served_with_probes("pouchdb-server");
    let model = list_view(&pouchdb, ALL_DOCS)
        .query
        .clone()
        .expect("a query model");
    // `startkey="author:"&endkey="author:\ufff0"` and `descending=true&limit=2` recorded.
    assert_eq!(
        model.parameters.get("range:gte"),
        Some(&QueryRole::filter("key", "gte"))
    );
    assert_eq!(
        model.parameters.get("range:lte"),
        Some(&QueryRole::filter("key", "lte"))
    );
    assert_eq!(model.parameters.get("descending"), Some(&QueryRole::Sort));
    assert!(!model.parameters.contains_key("startkey"));
    // `total_rows` showed the database's size beside a range that matched fewer.
    assert_eq!(model.collection_totals, vec!["/total_rows".to_owned()]);
    assert!(model.totals.is_empty());
}

#[test]
fn an_exclusive_end_never_recorded_is_read_from_the_state() {
    let (pouchdb, probes) = served_with_probes("pouchdb-server");
    let line = "GET /library/_all_docs?startkey=%22author%3A%22&endkey=%22author%3Alem%22&inclusive_end=false";
    let probe = probe_with_line(&probes, line);
    let (answer, is_error) = call_with_strings(
        &pouchdb,
        ALL_DOCS,
        &[
            ("segment_0", "library"),
            ("startkey", "\"author:\""),
            ("endkey", "\"author:lem\""),
            ("inclusive_end", "false"),
        ],
    );
    assert!(!is_error, "{answer}");
    assert_eq!(
        answer.pointer("/state/membership").and_then(Value::as_str),
        Some("query"),
        "{answer}"
    );
    let (_, live) = recorded_answer(probe);
    assert_eq!(answer.get("body"), Some(&live), "{line}");
    // A descending range from a start never recorded: the keys up to it, greatest first, and
    // the database's size beside them.
    let (answer, is_error) = call_with_strings(
        &pouchdb,
        ALL_DOCS,
        &[
            ("segment_0", "library"),
            ("descending", "true"),
            ("startkey", "\"author:herbert\""),
        ],
    );
    assert!(!is_error, "{answer}");
    let keys: Vec<&str> = answer
        .pointer("/body/rows")
        .and_then(Value::as_array)
        .expect("rows")
        .iter()
        .filter_map(|row| row.get("key").and_then(Value::as_str))
        .collect();
    assert_eq!(keys.first(), Some(&"author:herbert"), "{keys:?}");
    assert!(keys.windows(2).all(|pair| pair[0] > pair[1]), "{keys:?}");
    assert!(keys.iter().all(|key| *key <= "author:herbert"), "{keys:?}");
    assert_eq!(
        answer.pointer("/body/total_rows").and_then(Value::as_u64),
        Some(16)
    );
}

#[test]
fn what_the_state_cannot_know_of_a_key_range_is_refused() {
    let (pouchdb, _) = served_with_probes("pouchdb-server");
    // A compound key is not split: its parameter has no role.
    assert_refused(
        &pouchdb,
        ALL_DOCS,
        &[("segment_0", "library"), ("startkey", "[\"book:\",1]")],
    );
    // The by_year view was listed for the 1960s only: the rows of other years were never seen.
    assert_refused(
        &pouchdb,
        BY_YEAR,
        &[
            ("segment_0", "library"),
            ("startkey", "1970"),
            ("endkey", "1999"),
        ],
    );
}

#[test]
fn a_query_over_a_collection_never_listed_whole_is_refused() {
    // Datasette's task_tags were only read filtered by task (`task_id=…`), never whole.
    let (datasette, _) = served_with_probes("datasette");
    assert_refused(
        &datasette,
        "get_tracker_task_tags_json",
        &[("tag", "content")],
    );
}

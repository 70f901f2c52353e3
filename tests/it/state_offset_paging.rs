//! An offset asked beside the parameters that show rows with their documents, and the envelope
//! member echoing it: PouchDB's build paged `_all_docs` with `skip` only beside
//! `include_docs=true` (`include_docs=true&limit=3&skip=3`), a line whose rows show their
//! documents. Read without those documents and the pairs asking for them (those every such line
//! gives and no line showing bare rows names), it teaches `skip` the offset role; its `offset`
//! member, 0 in every line without a skip, is learned as the offset the page starts at and
//! computed per call. Only PouchDB in the corpus shows either (no other recorded list echoes
//! its offset in the envelope).

use rea_plugin_api::contracts::query::QueryRole;
use serde_json::Value;

use crate::state_query_grammar::served_with_probes;
use crate::state_support::{
    assert_not_modelled, call_with_strings, list_view, probe_with_line, recorded_answer,
};

const ALL_DOCS: &str = "get_all_docs_by_segment_0";

#[test]
fn an_offset_recorded_beside_row_documents_is_learned_with_the_member_echoing_it() {
    let (pouchdb, _) = served_with_probes("pouchdb-server");
    let view = list_view(&pouchdb, ALL_DOCS);
    let model = view.query.clone().expect("a query model");
    assert_eq!(model.parameters.get("skip"), Some(&QueryRole::Offset));
    let offsets: Vec<&str> = model
        .paged_members
        .iter()
        .filter(|member| member.offset)
        .map(|member| member.pointer.as_str())
        .collect();
    assert_eq!(offsets, ["/offset"]);
    // `include_docs` still asks for another representation: the rows with their documents.
    assert!(!model.parameters.contains_key("include_docs"));
    assert!(view.projected_query_keys.contains_key("include_docs"));
}

#[test]
fn a_page_at_an_offset_never_recorded_answers_the_live_rows_and_offset() {
    let (pouchdb, probes) = served_with_probes("pouchdb-server");
    let line = "GET /library/_all_docs?skip=6&limit=4";
    let probe = probe_with_line(&probes, line);
    let (answer, is_error) = call_with_strings(
        &pouchdb,
        ALL_DOCS,
        &[("segment_0", "library"), ("skip", "6"), ("limit", "4")],
    );
    assert!(!is_error, "{answer}");
    assert_eq!(
        answer.pointer("/state/membership").and_then(Value::as_str),
        Some("query"),
        "{answer}"
    );
    let (_, live) = recorded_answer(probe);
    assert_eq!(live.get("offset").and_then(Value::as_u64), Some(6));
    assert_eq!(answer.get("body"), Some(&live), "{line}");
    // Without a skip the page starts at 0, whatever line's envelope it is rendered into.
    let (answer, is_error) = call_with_strings(
        &pouchdb,
        ALL_DOCS,
        &[("segment_0", "library"), ("limit", "2")],
    );
    assert!(!is_error, "{answer}");
    assert_eq!(
        answer.pointer("/body/offset").and_then(Value::as_u64),
        Some(0)
    );
}

#[test]
fn an_offset_that_is_no_whole_number_is_refused() {
    let (pouchdb, _) = served_with_probes("pouchdb-server");
    let (answer, is_error) = call_with_strings(
        &pouchdb,
        ALL_DOCS,
        &[("segment_0", "library"), ("skip", "three"), ("limit", "4")],
    );
    assert_not_modelled(&answer, is_error);
}

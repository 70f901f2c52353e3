//! A list's page envelope (`rea_state::page_envelope`): a list answering a bare array to plain
//! reads and `{first, prev, next, last, pages, items, data}` to reads paging by page number
//! learns the envelope's page arithmetic from the build's paged reads, and answers pages, page
//! sizes and filtered and sorted pages the build never read from the state with the live body.
//! A page the recordings cannot tell (past the last one) stays refused, never another page's
//! recording. Only json-server (v1) shows a page-number envelope in the corpus.

use serde_json::{Map, Value};

use crate::state_query_grammar::{assert_live_answers, served_with_probes};

#[test]
fn pages_of_other_sizes_and_queries_answer_in_the_computed_envelope() {
    // Recorded: pages 1-3 of size 3, and page 1 of size 2 of status_ne=closed sorted by opened.
    assert_live_answers(
        "json-server-v1",
        "get_tickets",
        &[
            "GET /tickets?_page=2&_per_page=5",
            "GET /tickets?_page=4&_per_page=2",
            "GET /tickets?status=open&_sort=-priority&_page=1&_per_page=2",
        ],
    );
}

#[test]
fn a_page_past_the_last_is_refused_not_another_pages_recording() {
    let (served, _) = served_with_probes("json-server-v1");
    let mut arguments = Map::new();
    arguments.insert("_page".to_owned(), Value::String("9".to_owned()));
    arguments.insert("_per_page".to_owned(), Value::String("3".to_owned()));
    let (answer, is_error) = served.call("get_tickets", arguments);
    assert!(is_error, "a page past the last is refused: {answer}");
    let code = answer
        .pointer("/error/code")
        .or_else(|| answer.get("code"))
        .and_then(Value::as_str);
    assert_eq!(code, Some("not_modelled"), "{answer}");
}

//! Paging members shared across an application's lists (`rea_state::derive::shared_paging`):
//! a member one list learned as both the page's offset and its size (its lines asked for pages
//! as long as their offsets) takes the role its sibling lists learned, and a list whose lines
//! never left the first page is lent its siblings' offset member. On safrs' `/api/tasks/` (its
//! lines `page[offset]=4&page[limit]=4` and the like: `meta.limit` the size, as every other list
//! shows it), tastypie's loans (`offset=4&limit=4`: `meta.offset` the offset, as the books and
//! authors show it) and Feathers' people (`skip` the offset, as the tasks show it).

use serde_json::Value;

use crate::state_support::{Served, call_with_strings, live_answer, query_model, serve_corpus_app};

/// The roles (`offset`, `size`) the list's paged members play at a pointer.
fn roles(served: &Served, tool: &str, pointer: &str) -> Vec<&'static str> {
    let model = query_model(served, tool);
    let mut roles = Vec::new();
    for member in model.paged_members.iter().filter(|m| m.pointer == pointer) {
        if member.offset {
            roles.push("offset");
        }
        if member.size {
            roles.push("size");
        }
    }
    roles
}

/// The body a list tool answers these query arguments with, asserted answered.
fn listed(served: &Served, tool: &str, query: &[(&str, &str)]) -> Value {
    let (answer, is_error) = call_with_strings(served, tool, query);
    assert!(!is_error, "{tool} {query:?}: {answer:#}");
    assert_eq!(answer["status"], 200, "{tool} {query:?}: {answer:#}");
    answer["body"].clone()
}

#[test]
fn a_member_learned_in_both_roles_takes_the_role_its_siblings_show() {
    let safrs = serve_corpus_app("safrs");
    // Every recorded `/api/tasks/` line asked for pages as long as their offsets.
    assert_eq!(roles(&safrs, "get_api_tasks_2", "/meta/limit"), ["size"]);
    assert_eq!(roles(&safrs, "get_api_tasks", "/meta/limit"), ["size"]);
    // (Its other queries are not answered: the list was never read whole, so the role shows in
    // the model only; computed in both, the offset, set last, showed in `meta.limit`.)

    let tastypie = serve_corpus_app("tastypie");
    assert_eq!(roles(&tastypie, "get_loan", "/meta/offset"), ["offset"]);
    assert_eq!(roles(&tastypie, "get_book", "/meta/offset"), ["offset"]);
    // The live loans past their first page (probe-reads entry 41), and a page shorter than its
    // offset, whose `meta.limit` shows the size and `meta.offset` the offset.
    let (_, live) = live_answer("tastypie", "probe-reads", 41);
    let body = listed(&tastypie, "get_loan", &[("offset", "4")]);
    assert_eq!(body, live);
    let body = listed(&tastypie, "get_loan", &[("limit", "2"), ("offset", "4")]);
    assert_eq!(
        (&body["meta"]["limit"], &body["meta"]["offset"]),
        (&2.into(), &4.into())
    );
}

#[test]
fn a_list_that_never_paged_is_lent_its_siblings_offset_member() {
    let feathers = serve_corpus_app("feathers");
    assert_eq!(roles(&feathers, "get_tasks", "/skip"), ["offset"]);
    assert_eq!(roles(&feathers, "get_people", "/skip"), ["offset"]);
    // Probe-reads entry 41: the people's second page of two, sorted by name.
    let (_, live) = live_answer("feathers", "probe-reads", 41);
    let query = [("$sort[name]", "1"), ("$limit", "2"), ("$skip", "2")];
    let body = listed(&feathers, "get_people", &query);
    assert_eq!(body["skip"], 2);
    assert_eq!(body, live);
    // A list no sibling shows an offset for is lent none: safrs' lists hold `meta.limit` as the
    // page's size only.
    let safrs = serve_corpus_app("safrs");
    assert_eq!(roles(&safrs, "get_users", "/meta/limit"), ["size"]);
}

//! Links to pages beside a list, minted from the state with the envelope members that name a
//! page's position (`rea_state::page_cursor`): an object of relations beside the list, each
//! repeating the call's query with the page parameter first and set to the page it names,
//! present where that page exists (Roundup's `@links`: `self`, `next` while matches remain,
//! `prev` past the first page; spelled as decoded, as the recorded links spell them), learned
//! from the build's pages and answered for pages the build never read. The keyset links of
//! datasette (`next_url`) are the regression guard: its list learns no such object and keeps
//! minting its next-page link. safrs's top-level `links` is the second app: each link repeats
//! the call's query as sent with the offset and page size last (`page[offset]`, `page[limit]`,
//! named by the links alone where the calls never send them), under the collection path with a
//! trailing slash, a call naming no size linked with the default the build's links show (250),
//! `first` and `last` anchored pages. The links object: Roundup + safrs.
//!
//! Page-number links beside the query echo: flask-rest-jsonapi-next's `links` name
//! `page[number]` (a page position inside a page name's brackets) appended after the call's
//! query, `first` naming no page, `prev` naming page 1, `last` the page count's page, present
//! only where the recorded pages show them, and `self` echoing the call (alone for a call naming
//! no page size), the query repeated in the order the build's calls sent theirs
//! (`rea_state::query_order`). drf-jsonapi's offset links are the second app: its `last` is the
//! whole-page offset (`(count // limit) * limit` in its pagination), where flask's page-number
//! `last` is the page count's page (a page of 3 of 12 links page 4): the recorded pages of
//! neither matched a whole number of pages, so each takes its position's unit.

use rea_state::model::{CursorForm, PageAnchor, QueryRole};
use serde_json::Value;

use crate::state_query_grammar::assert_live_answers;
use crate::state_query_grammar::{probe_arguments, served_with_probes};
use crate::state_support::{call_with_strings, query_model, recorded_answer, serve_corpus_app};

const ISSUES: &str = "get_rt_rest_data_issue";

/// A link with its query's pairs after the first (the page) in sorted order: a tool call's
/// arguments object keeps no order, so the pairs it repeats come in the arguments' order.
fn unordered_links(body: &mut Value) {
    let Some(Value::Object(links)) = body.pointer_mut("/data/@links") else {
        return;
    };
    for entry in links.values_mut() {
        let Some(Value::String(link)) = entry.pointer_mut("/0/uri") else {
            continue;
        };
        let (prefix, query) = link.split_once('?').expect("a query");
        let mut pairs: Vec<&str> = query.split('&').collect();
        pairs[1..].sort_unstable();
        *link = format!("{prefix}?{}", pairs.join("&"));
    }
}

#[test]
fn page_links_beside_the_list_are_minted_for_pages_the_build_never_read() {
    // Recorded: pages 1 to 3 of 2 by title. Asked: other sizes, sorts and pages, one without a
    // page number (the first page, its links naming it).
    let (served, probes) = served_with_probes("roundup");
    for ordinal in [13, 14, 15] {
        let probe = probes
            .iter()
            .find(|record| record.ordinal == ordinal)
            .expect("the probe");
        let (mut answer, is_error) = served.call(ISSUES, probe_arguments(probe));
        assert!(!is_error, "{ordinal}: {answer:#}");
        assert_eq!(
            answer.pointer("/state/source").and_then(Value::as_str),
            Some("state"),
            "{answer:#}"
        );
        let (_, mut live) = recorded_answer(probe);
        assert!(live.pointer("/data/@links").is_some(), "{live:#}");
        unordered_links(&mut live);
        let body = answer.get_mut("body").expect("a body");
        unordered_links(body);
        assert_eq!(*body, live, "{ordinal}");
    }
    let served = serve_corpus_app("roundup");
    let model = query_model(&served, ISSUES);
    let links = model
        .cursor_members
        .iter()
        .find(|member| matches!(member.form, CursorForm::PageLinks { .. }))
        .expect("a links member");
    assert_eq!(links.pointer, "/data/@links");
    // A call naming no page size lists no links; one listing every match names no next page.
    let (answer, is_error) = call_with_strings(&served, ISSUES, &[("@fields", "title")]);
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer.pointer("/body/data/@links"), None, "{answer:#}");
    let (answer, is_error) = call_with_strings(
        &served,
        ISSUES,
        &[("@page_size", "10"), ("@fields", "title")],
    );
    assert!(!is_error, "{answer:#}");
    let relations: Vec<&str> = answer
        .pointer("/body/data/@links")
        .and_then(Value::as_object)
        .unwrap_or_else(|| panic!("links: {answer:#}"))
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(relations, vec!["self"], "{answer:#}");
}

#[test]
fn keyset_links_keep_their_form_beside_page_links() {
    let served = serve_corpus_app("datasette");
    let model = query_model(&served, "get_tracker_tasks_json");
    let forms: Vec<&CursorForm> = model
        .cursor_members
        .iter()
        .map(|member| &member.form)
        .collect();
    assert!(
        forms
            .iter()
            .any(|form| matches!(form, CursorForm::NextLink { .. })),
        "{forms:?}"
    );
    assert!(
        !forms
            .iter()
            .any(|form| matches!(form, CursorForm::PageLinks { .. })),
        "{forms:?}"
    );
    assert_live_answers(
        "datasette",
        "get_tracker_tasks_json",
        &["GET /tracker/tasks.json?_size=3&_next=3"],
    );
}

#[test]
fn page_links_after_the_query_with_a_default_size_are_minted_on_a_second_app() {
    // Recorded: filters, sorts and pages of 4, 2, 3 and 5 (`links` naming the offset and the
    // size last, 250 without a size). Asked: filters and sorts the build never sent.
    let (served, probes) = served_with_probes("safrs");
    for (ordinal, tool) in [
        (1, "get_api_tasks"),
        (9, "get_users"),
        (13, "get_api_tasks"),
        (14, "get_projects"),
    ] {
        let probe = probes
            .iter()
            .find(|record| record.ordinal == ordinal)
            .expect("the probe");
        let (answer, is_error) = served.call(tool, probe_arguments(probe));
        assert!(!is_error, "{ordinal}: {answer:#}");
        assert_eq!(
            answer.pointer("/state/source").and_then(Value::as_str),
            Some("state"),
            "{answer:#}"
        );
        let (_, live) = recorded_answer(probe);
        assert!(live.pointer("/links/self").is_some(), "{live:#}");
        assert_eq!(answer.get("body"), Some(&live), "{ordinal}");
    }
    let model = query_model(&served, "get_api_tasks");
    let links = model
        .cursor_members
        .iter()
        .find(|member| matches!(member.form, CursorForm::PageLinks { .. }))
        .expect("a links member");
    assert_eq!(links.pointer, "/links");
    let CursorForm::PageLinks {
        prefix,
        position_last,
        default_size,
        link_only,
        ..
    } = &links.form
    else {
        unreachable!()
    };
    assert_eq!(prefix, "/api/tasks/");
    assert!(*position_last);
    assert_eq!(*default_size, Some(250));
    // The offset is a learned role (the pages read through `/api/tasks/` are lines of this list
    // too), so the links name it as the roles do, not as the links alone.
    assert_eq!(*link_only, None);
    assert_eq!(model.role("page[offset]"), Some(&QueryRole::Offset));
}

/// Calls each probe (its ordinal, its tool) and asserts the state answers it with the live body.
fn assert_probes_answered(app: &str, probes_asked: &[(u64, &str)]) {
    let (served, probes) = served_with_probes(app);
    for (ordinal, tool) in probes_asked {
        let probe = probes
            .iter()
            .find(|record| record.ordinal == *ordinal)
            .expect("the probe");
        let (answer, is_error) = served.call(tool, probe_arguments(probe));
        assert!(!is_error, "{ordinal}: {answer:#}");
        assert_eq!(
            answer.pointer("/state/source").and_then(Value::as_str),
            Some("state"),
            "{answer:#}"
        );
        let (_, live) = recorded_answer(probe);
        assert!(live.pointer("/links/last").is_some(), "{live:#}");
        assert_eq!(answer.get("body"), Some(&live), "{ordinal}");
    }
}

#[test]
fn page_number_links_beside_the_echo_are_minted_for_pages_the_build_never_read() {
    // Recorded: pages of 5 by title and by id, pages of 2 of the todo tasks, a page of 3 with
    // includes. Asked: pages of 3 and 4 (12 matched: the last page whole), a filter with two
    // sorts, an include with a sort, and the people list, which lends the tasks' form.
    assert_probes_answered(
        "flask-rest-jsonapi-next",
        &[
            (30, "get_tasks"),
            (31, "get_tasks"),
            (33, "get_tasks"),
            (34, "get_tasks"),
            (36, "get_tasks"),
            (37, "get_people"),
            (40, "get_tasks"),
        ],
    );
    let served = serve_corpus_app("flask-rest-jsonapi-next");
    let model = query_model(&served, "get_tasks");
    assert_eq!(
        model.role("page[number]"),
        Some(&QueryRole::Page { base: 1 })
    );
    let links = model
        .cursor_members
        .iter()
        .find(|member| matches!(member.form, CursorForm::PageLinks { .. }))
        .expect("a links member");
    let CursorForm::PageLinks {
        relations,
        appended,
        first_unnamed,
        ..
    } = &links.form
    else {
        unreachable!()
    };
    assert!(*appended && *first_unnamed);
    let learned: Vec<(&str, Option<PageAnchor>, bool, bool)> = relations
        .iter()
        .map(|relation| {
            (
                relation.key.as_str(),
                relation.anchor,
                relation.names_first,
                relation.echo,
            )
        })
        .collect();
    assert_eq!(
        learned,
        [
            ("first", Some(PageAnchor::First), false, false),
            ("last", Some(PageAnchor::LastPage), false, false),
            ("next", None, false, false),
            ("prev", None, true, false),
            ("self", None, false, true),
        ]
    );
    // A call naming no page size lists the echo alone, the query in the recorded order
    // (`include` before `filter`) though its arguments arrive in name order.
    let (answer, is_error) = call_with_strings(
        &served,
        "get_tasks",
        &[("filter[status]", "doing"), ("include", "assignee")],
    );
    assert!(!is_error, "{answer:#}");
    assert_eq!(
        answer.pointer("/body/links"),
        Some(&serde_json::json!({
            "self": "http://127.0.0.1:18855/tasks?include=assignee&filter%5Bstatus%5D=doing"
        })),
        "{answer:#}"
    );
}

#[test]
fn offset_links_keep_the_whole_page_last_where_page_numbers_take_the_page_count() {
    // Recorded: offset pages of 4, 2, 3 and 5, none matching a whole number of pages. Asked:
    // pages of 3 of the available books by two sorts, of 3 with an include, and the members
    // list (lent the books' form).
    assert_probes_answered(
        "drf-jsonapi",
        &[
            (29, "get_books"),
            (30, "get_books"),
            (31, "get_members"),
            (34, "get_books"),
        ],
    );
    let served = serve_corpus_app("drf-jsonapi");
    let model = query_model(&served, "get_books");
    let anchors: Vec<(&str, Option<PageAnchor>)> = model
        .cursor_members
        .iter()
        .filter_map(|member| match &member.form {
            CursorForm::PageLinks { relations, .. } => Some(relations),
            _ => None,
        })
        .flatten()
        .map(|relation| (relation.key.as_str(), relation.anchor))
        .collect();
    assert_eq!(
        anchors,
        [
            ("first", Some(PageAnchor::First)),
            ("last", Some(PageAnchor::LastWhole)),
            ("next", None),
            ("prev", None),
        ]
    );
}

//! A create's refusal of a left-out member carried over from other creates of the same
//! application (`rea_state::writes::lent_omission`): the build recorded a refusal naming the
//! first required member a create of another collection left out, and a create the build never
//! saw refused answers that refusal with its own first left-out member (and its own request
//! path) named, as the live application did on the probes: Sails' project without `code` (from
//! the tasks' and people's `E_INVALID_NEW_RECORD`), tastypie's book without `author` (from the
//! loan without `book`), LoopBack 4's person without `name` (from the task without `title`).
//! A refusal naming its own collection (datasette's `tasks.title`) or not the first member left
//! out (FlexGet's `original_url`) lends nothing.

use serde_json::{Value, json};

use crate::state_support::{Served, call_admitted, live_answer, serve_corpus_app, with_body};

/// The create's answer to the body, checked against the tool's input schema first (which no
/// longer requires the members a lent refusal answers for).
fn create(served: &Served, tool: &str, body: Value) -> Value {
    call_admitted(served, tool, with_body(served, tool, body))
}

/// The plan's lender, when it borrowed a refusal.
fn lender(served: &Served, tool: &str) -> Option<String> {
    let plan = served.state().write_plan(tool).expect("the create's plan");
    plan.lent_omission
        .as_ref()
        .map(|lent| lent.inferred_from.clone())
}

/// Asserts the borrowed refusal answers the probe's body as the live application did, with its
/// status, changing nothing, and that a whole body still creates.
fn assert_lent(
    app: &str,
    (tool, list): (&str, &str),
    entry: usize,
    (left_out, whole): (Value, Value),
) {
    let served = serve_corpus_app(app);
    let (_, before_list) = served.call(list, Default::default());
    let (status, live) = live_answer(app, "probe-crud", entry);
    let refused = create(&served, tool, left_out);
    assert_eq!(refused["state"]["view"], "lent-omission", "{refused}");
    assert_eq!(refused["status"], status, "{app}: {refused}");
    assert_eq!(refused["body"], live, "{app}");
    let (_, after_list) = served.call(list, Default::default());
    assert_eq!(
        before_list, after_list,
        "{app}: the refusal changed nothing"
    );
    let created = create(&served, tool, whole);
    assert!(
        matches!(created["status"].as_u64(), Some(200 | 201)),
        "{app}: {created}"
    );
}

#[test]
fn sails_answers_a_project_without_code_as_the_task_and_person_refusals_say() {
    let served = serve_corpus_app("sails");
    assert_eq!(
        lender(&served, "post_project").as_deref(),
        Some("post_task")
    );
    // Probe-crud 46 sends only the name: `code` and `budget` are left out, and Sails names the
    // first (the build's task refusal left out `title` and `project` and named `title`).
    assert_lent(
        "sails",
        ("post_project", "get_project"),
        46,
        (
            json!({"name": "Nameless"}),
            json!({"name": "Harbour", "code": "HBR", "budget": 10}),
        ),
    );
}

#[test]
fn tastypie_answers_a_book_without_author_as_the_loan_refusal_says() {
    assert_lent(
        "tastypie",
        ("post_book", "get_book"),
        47,
        (
            json!({"title": "Orphan Pages", "year": 2020}),
            json!({"title": "Found Pages", "author": "/api/v1/author/1/", "year": 2021}),
        ),
    );
}

#[test]
fn loopback_answers_a_person_without_name_as_the_task_refusal_says() {
    assert_lent(
        "loopback",
        ("post_people", "get_people"),
        45,
        (
            json!({"role": "engineer"}),
            json!({"name": "Ines Alba", "role": "engineer", "email": "ines@example.test"}),
        ),
    );
}

#[test]
fn a_refusal_naming_its_collection_or_a_later_member_lends_nothing() {
    // FlexGet's entry refusal names `original_url`, the second member it left out (after `url`).
    let flexget = serve_corpus_app("flexget");
    for tool in ["post_entry_list", "post_series"] {
        assert_eq!(lender(&flexget, tool), None, "{tool}");
    }
    // Sails' refused creates keep their own refusals; they borrow nothing.
    let sails = serve_corpus_app("sails");
    assert_eq!(lender(&sails, "post_task"), None);
}

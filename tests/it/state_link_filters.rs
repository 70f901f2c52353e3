//! Link filters on a recorded application (see `rea_state::link_filters`): a list parameter
//! naming a member that holds ids of another held type, its value naming the linked entities by
//! id or by the text member the recorded values showed (`status=in-progress` by a status's
//! `name`, `assignedto=alice` by a user's `username`), several joined by `,` once a recorded
//! line answered their union (`status=1,3`), and a link member only a line after the writes
//! filtered (`priority=wish`) taking the operator of those tested. One app: Roundup (no other corpus application
//! filters a list by a linked entity's name under the member's own name).

use rea_state::link_filters::LinkField;
use rea_state::model::QueryRole;

use crate::state_support::{call_with_strings, collection_ids, query_model, serve_corpus_app};

const ISSUES: &str = "get_rt_rest_data_issue";

#[test]
fn link_filters_learn_the_linked_type_the_key_member_and_the_separator() {
    let served = serve_corpus_app("roundup");
    let model = query_model(&served, ISSUES);
    let link = |name: &str| match model.parameters.get(name) {
        Some(QueryRole::Filter { field, op }) => (LinkField::parse(field), op.clone()),
        other => panic!("{name}: {other:?}"),
    };
    let (status, op) = link("status");
    let status = status.expect("a link filter");
    assert!(status.target_type.ends_with("/status"), "{status:?}");
    assert_eq!((status.key.as_str(), op.as_str()), ("name", "in"));
    let (user, _) = link("assignedto");
    let user = user.expect("a link filter");
    assert!(user.target_type.ends_with("/user"), "{user:?}");
    assert_eq!(user.key, "username");
}

#[test]
fn a_link_filter_answers_other_names_and_unions_and_refuses_what_it_cannot_tell() {
    let served = serve_corpus_app("roundup");
    // Recorded: status=in-progress and status=1,3. Asked: another name, and a union of names.
    let (answer, is_error) = call_with_strings(
        &served,
        ISSUES,
        &[("status", "resolved"), ("@fields", "title,status")],
    );
    assert!(!is_error, "{answer:#}");
    assert_eq!(collection_ids(&answer), vec!["4"]);
    let (answer, is_error) = call_with_strings(
        &served,
        ISSUES,
        &[("status", "unread,deferred"), ("@fields", "title")],
    );
    assert!(!is_error, "{answer:#}");
    assert_eq!(collection_ids(&answer), vec!["2", "5"]);
    // Priority was filtered only after the build's writes (priority=wish): its link is learned
    // from that value and takes the operator the tested link filters chose.
    let (answer, is_error) = call_with_strings(
        &served,
        ISSUES,
        &[("priority", "critical,urgent"), ("@fields", "title")],
    );
    assert!(!is_error, "{answer:#}");
    assert_eq!(collection_ids(&answer), vec!["1", "4", "6"]);
    // A name no held status has: the recordings never showed what it answers.
    let (answer, is_error) = call_with_strings(
        &served,
        ISSUES,
        &[("status", "archived"), ("@fields", "title")],
    );
    assert!(is_error, "{answer:#}");
    // Issues the build never showed an assignee for: refused, not answered empty.
    let (answer, is_error) = call_with_strings(
        &served,
        ISSUES,
        &[("assignedto", "bob"), ("@fields", "title")],
    );
    assert!(is_error, "{answer:#}");
}

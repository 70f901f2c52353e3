//! Collected lists (the `collected` rule stage of `rea-plugin-reference`): a create stores an
//! array member it was not sent as the list of what one sent member stored. Roundup's
//! `build.har` creates issue 7 sending `assignedto: "carol"` and reads back `nosy: [carol's link
//! object]`, and issue 8 sending no assignee and reads back `nosy: []`; the issue create's plan
//! learns `/nosy` collected from `assignedto`, so it is served, and a served create sending an
//! assignee by id stores the nosy list holding that user's link object. One app: Roundup (no
//! other corpus app stores an unsent list of what a create sent).

use serde_json::json;

use crate::state_support::{
    call_with_strings, collection_ids, corpus_write_plans, plan_of, rule_of, serve_corpus_app,
    with_body,
};

const CREATE_ISSUE: &str = "post_rt_rest_data_issue";
const ISSUES: &str = "get_rt_rest_data_issue";
const ISSUE_TYPE: &str = "/rt/rest/data/issue";

#[test]
fn the_issue_create_learns_its_nosy_list_from_the_sent_assignee() {
    let plans = corpus_write_plans("roundup");
    let plan = plan_of(&plans, CREATE_ISSUE);
    assert_eq!(plan["served"], true, "{plan:#}");
    let rule = rule_of(plan, "collected");
    assert_eq!(
        rule["rule"]["fields"]["/nosy"]["member"],
        json!("assignedto"),
        "{rule:#}"
    );
}

#[test]
fn a_served_create_lists_the_sent_assignee_in_its_nosy_list() {
    let served = serve_corpus_app("roundup");
    let body = json!({"title": "Password reset mail never arrives", "priority": "1",
        "status": "2", "assignedto": "5", "keyword": ["3"]});
    let (answer, is_error) = served.call(CREATE_ISSUE, with_body(&served, CREATE_ISSUE, body));
    assert!(!is_error, "{answer:#}");
    assert_eq!(
        answer.pointer("/body/data/id"),
        Some(&json!("7")),
        "{answer:#}"
    );
    let body = json!({"title": "Nobody watches this", "priority": "wish"});
    let (answer, is_error) = served.call(CREATE_ISSUE, with_body(&served, CREATE_ISSUE, body));
    assert!(!is_error, "{answer:#}");
    let nosy = |id: &str| {
        let state = served.backend.service().read();
        let issue = state
            .entity(ISSUE_TYPE, ISSUE_TYPE, id)
            .cloned()
            .expect("the issue");
        issue
            .fields
            .get("nosy")
            .map(|value| value.to_canonical_vec())
    };
    assert_eq!(
        nosy("7"),
        Some(br#"[{"id":"5","link":"http://127.0.0.1:18841/rt/rest/data/user/5"}]"#.to_vec())
    );
    assert_eq!(nosy("8"), Some(b"[]".to_vec()));
    // The created issues are listed by what they were sent.
    let (answer, is_error) = call_with_strings(
        &served,
        ISSUES,
        &[("title", "password"), ("@fields", "title")],
    );
    assert!(!is_error, "{answer:#}");
    assert_eq!(collection_ids(&answer), vec!["7"]);
}

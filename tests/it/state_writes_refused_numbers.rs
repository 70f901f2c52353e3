//! A create numbered past a refused one, listed by a presentation-only query. Roundup's
//! `build.har` refuses a keyword create with 409 for a taken name (entry 50), which still took
//! number 4, then creates keyword 5 (entry 51), read back only in the keyword list at
//! `@verbose=2` (entry 53; its item read, entry 52, is a tool with no view). The sequence learns
//! that a 409 refusal consumed a number (`consumed_by`), the list line whose only parameter is
//! a sigil name playing no query role lists the whole collection (`derive::lists`), and the
//! create's entity after is the one that list showed (`writes::observe`), so the plan is
//! confirmed and served: a served create takes the next number, the list shows it, the same
//! name again answers the recorded 409, and the create after that refusal skips the number it
//! took (`ServedCall::refused_before`). One app: Roundup.

use serde_json::json;

use crate::state_support::{
    call_with_strings, collection_ids, corpus_write_plans, plan_of, rule_of, serve_corpus_app,
    with_body,
};

const CREATE_KEYWORD: &str = "post_rt_rest_data_keyword";
const KEYWORDS: &str = "get_rt_rest_data_keyword";

#[test]
fn the_keyword_create_learns_that_a_taken_name_consumed_a_number() {
    let plans = corpus_write_plans("roundup");
    let plan = plan_of(&plans, CREATE_KEYWORD);
    assert_eq!(plan["served"], true, "{plan:#}");
    let rule = rule_of(plan, "sequence");
    assert_eq!(
        rule["rule"]["fields"]["/id"]["consumed_by"],
        json!([409]),
        "{rule:#}"
    );
}

#[test]
fn a_served_keyword_create_is_listed_and_a_taken_name_refused() {
    let served = serve_corpus_app("roundup");
    let body = json!({"name": "performance"});
    let (answer, is_error) = served.call(
        CREATE_KEYWORD,
        with_body(&served, CREATE_KEYWORD, body.clone()),
    );
    assert!(!is_error, "{answer:#}");
    assert_eq!(
        answer.pointer("/body/data/id"),
        Some(&json!("4")),
        "{answer:#}"
    );
    let (answer, is_error) = call_with_strings(&served, KEYWORDS, &[("@verbose", "2")]);
    assert!(!is_error, "{answer:#}");
    assert_eq!(collection_ids(&answer), vec!["1", "2", "3", "4"]);
    assert_eq!(
        answer.pointer("/body/data/collection/3/name"),
        Some(&json!("performance")),
        "{answer:#}"
    );
    let (answer, _) = served.call(CREATE_KEYWORD, with_body(&served, CREATE_KEYWORD, body));
    assert_eq!(answer["status"], json!(409), "{answer:#}");
    // The refused create took number 5, as the application's did: the next one is 6.
    let body = json!({"name": "mobile"});
    let (answer, is_error) = served.call(CREATE_KEYWORD, with_body(&served, CREATE_KEYWORD, body));
    assert!(!is_error, "{answer:#}");
    assert_eq!(
        answer.pointer("/body/data/id"),
        Some(&json!("6")),
        "{answer:#}"
    );
}

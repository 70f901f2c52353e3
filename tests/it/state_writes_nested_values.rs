//! A create whose entity keeps a sent value inside a nested object (Roundup's items hold their
//! properties under `attributes`, a link as `{"id", "link"}`): the member is data the plan does
//! not place, not a constant. Roundup's `build.har` creates one message (call 30, author `"4"`,
//! read back as `/attributes/author/id` and the content as `/attributes/summary`); a message by
//! another author is served, not refused for differing from the one recorded value. One app:
//! Roundup (no other corpus create shows a sent value only nested).

use crate::state_support::{corpus_write_plans, plan_of, serve_corpus_app};
use rea_manifest::catalog::ArgumentTarget;
use serde_json::{Value, json};

const POST_MSG: &str = "post_rt_rest_data_msg";

#[test]
fn a_sent_value_the_created_entity_shows_nested_is_not_fixed() {
    let plans = corpus_write_plans("roundup");
    let plan = plan_of(&plans, POST_MSG);
    assert_eq!(plan["served"], true, "{plan:#}");
    let members = plan["body"]["members"].as_object().expect("members");
    for name in ["author", "content"] {
        let member = members
            .get(name)
            .unwrap_or_else(|| panic!("{name}: {plan:#}"));
        assert!(
            member.get("fixed").is_none_or(Value::is_null),
            "{name}: {member:#}"
        );
    }
}

#[test]
fn a_message_by_another_author_is_served() {
    let served = serve_corpus_app("roundup");
    let body = json!({"content": "Reopened after the 2.6 upgrade.", "author": "5"});
    let definition = served.replay.tool(POST_MSG).expect("tool");
    let name = definition
        .input_schema
        .arguments
        .iter()
        .find(|argument| matches!(argument.target, ArgumentTarget::Body))
        .expect("a body argument")
        .name
        .clone();
    let arguments = serde_json::Map::from_iter([(name, body)]);
    let (answer, is_error) = served.call(POST_MSG, arguments);
    assert!(!is_error, "{answer:#}");
    assert_eq!(
        answer.pointer("/body/data/id"),
        Some(&json!("9")),
        "{answer:#}"
    );
}

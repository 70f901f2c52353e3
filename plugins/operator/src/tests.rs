use super::*;
use rea_plugin_api::contracts::rule::Effect;
use rea_plugin_api::testing::{apply_request, learn_request, observed_call};
use serde_json::json;

/// A recorded update sending `sent`, the entity holding `before` and then `after`, with the
/// members that changed otherwise than sent left unexplained.
fn update(ordinal: u64, before: Value, sent: Value, after: Value) -> ObservedCall {
    let mut call = observed_call(ordinal)
        .before(before.clone())
        .sent(sent.clone());
    for (key, value) in after.as_object().unwrap() {
        if sent.get(key) != Some(value) && before.get(key) != Some(value) {
            call = call.unexplained(&format!("/{key}"), value.clone());
        }
    }
    call.after(after).into()
}

fn learned(calls: Vec<ObservedCall>) -> LearnOutcome<Operators> {
    let mut request = learn_request(Effect::Update);
    for call in calls {
        request = request.call(call);
    }
    MemberOperatorRule.learn(&request.build()).unwrap()
}

fn recorded() -> Operators {
    let outcome = learned(vec![
        update(
            1,
            json!({"estimate": 4}),
            json!({"estimate": 5}),
            json!({"estimate": 5}),
        ),
        update(
            2,
            json!({"estimate": 8}),
            json!({"estimate": {"__op": "Increment", "amount": 3}}),
            json!({"estimate": 11}),
        ),
        update(
            3,
            json!({"tags": ["infra", "ci"]}),
            json!({"tags": {"__op": "AddUnique", "objects": ["ci", "release"]}}),
            json!({"tags": ["infra", "release", "ci"]}),
        ),
        update(
            4,
            json!({"tags": ["cleanup", "docs"]}),
            json!({"tags": {"__op": "Remove", "objects": ["cleanup"]}}),
            json!({"tags": ["docs"]}),
        ),
    ]);
    match outcome {
        LearnOutcome::Learned { explains, rule, .. } => {
            assert_eq!(explains, vec!["/estimate".to_owned(), "/tags".to_owned()]);
            rule
        }
        other => panic!("expected a learned rule, got {other:?}"),
    }
}

#[test]
fn operators_are_learned_with_the_meaning_each_recorded_call_showed() {
    let rule = recorded();
    assert_eq!(rule.key, "__op");
    let meanings = |word: &str| rule.operators[word].meanings.clone();
    assert_eq!(meanings("Increment"), vec![Meaning::Add]);
    // The call's "ci" was held already and kept once, "release" added before it: a union in an
    // order the application chose, not an append.
    assert_eq!(meanings("AddUnique"), vec![Meaning::UnorderedUnion]);
    assert_eq!(meanings("Remove"), vec![Meaning::Remove]);
    assert_eq!(rule.operators["Increment"].argument, "amount");
}

fn applied(rule: &Operators, before: Value, body: Value) -> Result<ApplyOutcome, PluginError> {
    let request = apply_request(rule.clone())
        .entity_before(before)
        .body(body)
        .build();
    MemberOperatorRule.apply(&request)
}

#[test]
fn an_operator_applies_to_the_held_value_and_a_plain_value_is_stored_as_sent() {
    let rule = recorded();
    let outcome = applied(
        &rule,
        json!({"estimate": 1, "tags": ["a", "b"]}),
        json!({"estimate": {"__op": "Increment", "amount": -1}, "tags": {"__op": "AddUnique", "objects": ["b"]}}),
    )
    .unwrap();
    assert_eq!(outcome.set["/estimate"], json!(0));
    assert_eq!(outcome.set["/tags"], json!(["a", "b"]));
    let removed = applied(
        &rule,
        json!({"tags": ["a", "b", "a"]}),
        json!({"tags": {"__op": "Remove", "objects": ["a"]}}),
    )
    .unwrap();
    assert_eq!(removed.set["/tags"], json!(["b"]));
    let plain = applied(
        &rule,
        json!({"estimate": 1}),
        json!({"estimate": 7, "status": "done"}),
    )
    .unwrap();
    assert_eq!(plain.set["/estimate"], json!(7));
    assert!(!plain.set.contains_key("/status"));
}

#[test]
fn an_operator_never_shown_is_refused() {
    let rule = recorded();
    let before = json!({"estimate": 1, "tags": ["a"], "title": "x", "budget": 3});
    for body in [
        json!({"tags": {"__op": "Add", "objects": ["a"]}}),
        json!({"budget": {"__op": "Increment", "amount": 1}}),
        json!({"title": {"__op": "Increment", "amount": 1}}),
        json!({"estimate": {"__op": "Increment", "by": 1}}),
        // Where the application puts an added item is not shown.
        json!({"tags": {"__op": "AddUnique", "objects": ["b"]}}),
    ] {
        let error = applied(&rule, before.clone(), body.clone()).unwrap_err();
        assert_eq!(error.code.as_str(), "operator_not_shown", "{body}");
    }
}

#[test]
fn meanings_the_calls_cannot_tell_apart_apply_only_where_they_agree() {
    let outcome = learned(vec![update(
        1,
        json!({"tags": ["a"]}),
        json!({"tags": {"__op": "Push", "objects": ["b"]}}),
        json!({"tags": ["a", "b"]}),
    )]);
    let LearnOutcome::Learned { rule, .. } = outcome else {
        panic!("expected a learned rule");
    };
    assert_eq!(
        rule.operators["Push"].meanings,
        vec![Meaning::Union, Meaning::Append]
    );
    let body = json!({"tags": {"__op": "Push", "objects": ["c"]}});
    let agreed = applied(&rule, json!({"tags": ["a"]}), body).unwrap();
    assert_eq!(agreed.set["/tags"], json!(["a", "c"]));
    let body = json!({"tags": {"__op": "Push", "objects": ["a"]}});
    assert!(applied(&rule, json!({"tags": ["a"]}), body).is_err());
}

#[test]
fn a_member_changed_otherwise_than_any_operator_explains_is_left_unexplained() {
    let outcome = learned(vec![
        update(
            1,
            json!({"n": 1}),
            json!({"n": {"op": "inc", "by": 2}}),
            json!({"n": 3}),
        ),
        update(
            2,
            json!({"n": 1}),
            json!({"n": {"op": "inc", "by": 2}}),
            json!({"n": 5}),
        ),
    ]);
    assert!(
        matches!(outcome, LearnOutcome::NoExplanation { .. }),
        "{outcome:?}"
    );
    let sent_plainly = learned(vec![update(
        1,
        json!({"n": 1}),
        json!({"m": 2}),
        json!({"n": 2, "m": 2}),
    )]);
    assert!(matches!(sent_plainly, LearnOutcome::NoExplanation { .. }));
}

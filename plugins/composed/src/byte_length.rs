//! The `byte-length` rule: a number a write stores as the size of the text it was sent (Jupyter's
//! contents `size`, the bytes of the `content` a file `PUT` saves).
//!
//! **Learn** (creates and updates). A top-level member the host could not explain holding a
//! non-negative integer is the byte length (UTF-8) of a sent string member when, in every recorded
//! call that changed it, exactly one sent string member other than itself is that many bytes
//! long, and it is the same member in every call. One call is enough when it is unambiguous (a
//! single sent string of that length): a count equal to the bytes of one sent text is what a
//! document store stamps; a call where two sent strings share the length, or none has it, drops
//! the member.
//!
//! **Apply.** The member takes the byte length of the sent text; a call not sending it leaves the
//! member as the entity holds it (the text did not change). A create not sending it is refused:
//! the rule knows no text to measure. The sent text is measured as sent: an application storing
//! a decoded form (a base64 `content` whose size counts the decoded bytes) shows another length,
//! which only a recorded call of that form would teach.

use rea_plugin_api::contracts::rule::{
    ApplyOutcome, ApplyRequest, Effect, LearnOutcome, LearnRequest, NoOptions, ObservedCall,
};
use rea_plugin_api::rule_fields::{self, FieldRules, sent_members, top_field};
use rea_plugin_api::{PluginError, StateRule};
use serde_json::Value;

/// The stage name.
pub const BYTE_LENGTH_STAGE: &str = "byte-length";

/// The one sent string member (other than `field`) whose UTF-8 length is `after`.
fn measured_member(call: &ObservedCall, field: &str, after: &Value) -> Option<String> {
    let length = after.as_u64()?;
    let sent = sent_members(call.request_body.as_ref())?;
    let mut candidates = sent.iter().filter(|(name, value)| {
        name.as_str() != field
            && value
                .as_str()
                .is_some_and(|text| text.len() as u64 == length)
    });
    let (name, _) = candidates.next()?;
    candidates.next().is_none().then(|| name.clone())
}

/// The byte-length rule.
#[derive(Debug, Default, Clone, Copy)]
pub struct ByteLengthRule;

impl StateRule for ByteLengthRule {
    type Options = NoOptions;
    /// Per explained pointer, the sent member whose bytes it counts.
    type Rule = FieldRules<String>;

    fn learn(
        &self,
        request: &LearnRequest<NoOptions>,
    ) -> Result<LearnOutcome<Self::Rule>, PluginError> {
        if !matches!(request.effect, Effect::Create | Effect::Update) {
            return Ok(LearnOutcome::no_explanation(
                "a byte length is learned from creates and updates",
            ));
        }
        Ok(rule_fields::learned_by_agreement(
            &request.calls,
            |call, pointer, after| {
                top_field(pointer).and_then(|field| measured_member(call, &field, after))
            },
            "no unexplained number was the byte length of one sent string member",
        ))
    }

    fn apply(&self, request: &ApplyRequest<Self::Rule>) -> Result<ApplyOutcome, PluginError> {
        let sent = sent_members(request.call.body.as_ref());
        let mut outcome = ApplyOutcome::default();
        for (pointer, member) in &request.rule.fields {
            match sent.and_then(|sent| sent.get(member)) {
                Some(Value::String(text)) => {
                    outcome.set.insert(pointer.clone(), Value::from(text.len()));
                }
                Some(_) => {
                    return Err(PluginError::new(
                        "unmeasured_value",
                        format!("{member:?} is measured in bytes only when it is sent as a string"),
                    ));
                }
                None if request.call.entity_before.is_some() => {}
                None => {
                    return Err(PluginError::new(
                        "unmeasured_value",
                        format!("a create must send {member:?}, whose bytes the write stores"),
                    ));
                }
            }
        }
        Ok(outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::testing::{apply_request, learn_request, observed_call};
    use serde_json::json;

    fn learn(effect: Effect, calls: Vec<ObservedCall>) -> LearnOutcome<FieldRules<String>> {
        let request = calls
            .into_iter()
            .fold(learn_request(effect), |request, call| request.call(call));
        ByteLengthRule.learn(&request.build()).expect("learns")
    }

    fn saved(sent: Value, size: Value) -> ObservedCall {
        observed_call(1)
            .sent(sent)
            .unexplained("/size", size)
            .build()
    }

    #[test]
    fn learns_the_bytes_of_the_one_sent_text_of_that_length_from_one_call() {
        // "é" is two bytes: the length counted is UTF-8 bytes, not characters.
        let outcome = learn(
            Effect::Update,
            vec![saved(
                json!({"type": "file", "format": "text", "content": "# Café\n"}),
                json!(8),
            )],
        );
        let LearnOutcome::Learned { explains, rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(explains, ["/size"]);
        assert_eq!(rule.fields["/size"], "content");
        let applied = ByteLengthRule
            .apply(
                &apply_request(rule.clone())
                    .body(json!({"content": "ünïcode", "format": "text"}))
                    .build(),
            )
            .expect("applies");
        assert_eq!(applied.set["/size"], json!(9));
        // An update not sending the text keeps the size the entity holds.
        let kept = ByteLengthRule
            .apply(
                &apply_request(rule.clone())
                    .entity_before(json!({"content": "abc", "size": 3}))
                    .body(json!({"format": "text"}))
                    .build(),
            )
            .expect("applies");
        assert!(kept.set.is_empty(), "{kept:?}");
        // A create not sending it is refused.
        let error = ByteLengthRule
            .apply(&apply_request(rule).body(json!({"format": "text"})).build())
            .expect_err("refused");
        assert_eq!(error.code, "unmeasured_value");
    }

    #[test]
    fn an_ambiguous_or_disagreeing_length_explains_nothing() {
        // Two sent strings of four bytes: which one is measured is not shown.
        let outcome = learn(
            Effect::Create,
            vec![saved(json!({"type": "file", "content": "abcd"}), json!(4))],
        );
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
        // The second call's size is no sent text's length.
        let outcome = learn(
            Effect::Update,
            vec![
                saved(json!({"content": "abc"}), json!(3)),
                saved(json!({"content": "abcdef"}), json!(7)),
            ],
        );
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
        // A delete measures nothing.
        let outcome = learn(
            Effect::Delete,
            vec![saved(json!({"content": "abc"}), json!(3))],
        );
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
    }
}

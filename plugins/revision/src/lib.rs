//! The `revision` rule: an integer revision each update of an entity takes one past the value the
//! entity held (`revision`, `version`, `lock_version`, whatever the application names it).
//!
//! **Learn** (updates and actions). A top-level member the host could not explain is a revision
//! when, in every recorded call that changed it, the entity held an integer there (a JSON number,
//! or a string of digits) and the call left it one past that value, spelled alike, while the call
//! sent no other value for it. One such call is enough: an unsent integer that moved by exactly
//! one on an entity the state held is unambiguous, and a later call that moved it otherwise drops
//! the member (the rule then explains nothing about it).
//!
//! **Apply.** The member takes one past the value the entity holds. An entity holding no integer
//! there is refused: the rule knows no start value for it (a create's first revision is a
//! constant the host learns with the create).
//!
//! Unlike the example plugin `revision-counter` (examples/plugins), which tries the fields its
//! options name, this rule finds the member among what the rules before it left unexplained.

use rea_plugin_api::contracts::rule::{
    ApplyOutcome, ApplyRequest, Effect, LearnOutcome, LearnRequest, LearnScope, NoOptions,
    ObservedCall,
};
use rea_plugin_api::rule_fields::{self, FieldRules, sent_members, top_field};
use rea_plugin_api::{Plugin, PluginError, StageInfo, StateRule};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A revision spelled `N-` and lower-case hex digits: its counter and hex part, when the hex
/// part's length passes `length_ok` (the digest and counter-token forms).
pub(crate) fn counter_and_hex(
    value: &Value,
    length_ok: impl Fn(usize) -> bool,
) -> Option<(u64, &str)> {
    let (counter, hex) = value.as_str()?.split_once('-')?;
    let counter_ok = !counter.is_empty() && counter.bytes().all(|b| b.is_ascii_digit());
    let hex_ok =
        length_ok(hex.len()) && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    (counter_ok && hex_ok).then_some((counter.parse().ok()?, hex))
}

pub mod counter_token;
pub mod digest;
pub mod store;

/// The stage name.
pub const STAGE: &str = "revision";

/// How a revision is spelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Spelling {
    /// A JSON number.
    Number,
    /// A string of digits.
    Digits,
}

/// An integer value and its spelling.
fn integer(value: &Value) -> Option<(i64, Spelling)> {
    match value {
        Value::Number(number) => number.as_i64().map(|value| (value, Spelling::Number)),
        Value::String(text) if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => {
            Some((text.parse().ok()?, Spelling::Digits))
        }
        _ => None,
    }
}

fn spelled(value: i64, spelling: Spelling) -> Value {
    match spelling {
        Spelling::Number => Value::from(value),
        Spelling::Digits => Value::String(value.to_string()),
    }
}

/// What one call shows of `field`: the spelling of a value one past the held one, or `None`.
fn bumped(call: &ObservedCall, field: &str, after: &Value) -> Option<Spelling> {
    let held = call.entity_before.as_ref()?.get(field)?;
    let (held, held_spelling) = integer(held)?;
    let (after, spelling) = integer(after)?;
    let sent = sent_members(call.request_body.as_ref()).and_then(|members| members.get(field));
    let sent_other = sent.is_some_and(|sent| integer(sent).map(|(value, _)| value) != Some(held));
    (after == held + 1 && spelling == held_spelling && !sent_other).then_some(spelling)
}

/// The revision rule.
#[derive(Debug, Default, Clone, Copy)]
pub struct RevisionRule;

impl StateRule for RevisionRule {
    type Options = NoOptions;
    type Rule = FieldRules<Spelling>;

    /// The effects `learn` answers for (it explains nothing for others), joining only by
    /// explaining.
    fn learn_scope(&self) -> LearnScope {
        LearnScope::effects(Effect::UPDATES).explaining()
    }

    fn learn(
        &self,
        request: &LearnRequest<NoOptions>,
    ) -> Result<LearnOutcome<Self::Rule>, PluginError> {
        if !request.effect.updates() {
            return Ok(LearnOutcome::no_explanation(
                "revisions move on updates; a create's first revision is a constant",
            ));
        }
        Ok(rule_fields::learned_by_agreement(
            &request.calls,
            |call, pointer, after| top_field(pointer).and_then(|field| bumped(call, &field, after)),
            "no unexplained member moved one past the integer the entity held",
        ))
    }

    fn apply(&self, request: &ApplyRequest<Self::Rule>) -> Result<ApplyOutcome, PluginError> {
        let mut outcome = ApplyOutcome::default();
        for (pointer, spelling) in &request.rule.fields {
            let held = request
                .call
                .entity_before
                .as_ref()
                .and_then(|entity| entity.pointer(pointer))
                .and_then(integer);
            let Some((held, _)) = held else {
                return Err(PluginError::new(
                    "no_revision",
                    format!("the entity holds no integer revision at `{pointer}` to move on"),
                ));
            };
            let next = held.checked_add(1).ok_or_else(|| {
                PluginError::new("revision_overflow", "the next revision is too large")
            })?;
            outcome
                .set
                .insert(pointer.clone(), spelled(next, *spelling));
        }
        Ok(outcome)
    }
}

rea_plugin_api::plugin_root_module! {
    /// The root module of the revision rule.
    pub fn root_module() = Plugin::new("rea-revision", env!("CARGO_PKG_VERSION")).rule(
        StageInfo::new(STAGE, "Explains an integer revision each update takes one past the value the entity held"),
        RevisionRule,
    ).rule(
        StageInfo::new(digest::STAGE, "Explains a revision spelled as a counter one past the held one and the MD5 digest of the document the write saved"),
        digest::DigestRevisionRule,
    ).rule(
        StageInfo::new(counter_token::STAGE, "Explains a revision spelled as a counter one past the held one and a fresh token of hex digits"),
        counter_token::CounterTokenRule,
    ).rule(
        StageInfo::new(store::STAGE, "Explains members stamped with a store-wide counter of the answers that every write steps by one"),
        store::StoreCounterRule,
    );
}

rea_plugin_api::submit_builtin!(root_module);

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::contracts::rule::Effect;
    use rea_plugin_api::testing::{apply_request, learn_request, observed_call};
    use serde_json::json;

    fn update(before: Value, sent: Value, pointer: &str, after: Value) -> ObservedCall {
        observed_call(1)
            .before(before)
            .sent(sent)
            .unexplained(pointer, after)
            .build()
    }

    fn learn(effect: Effect, calls: Vec<ObservedCall>) -> LearnOutcome<FieldRules<Spelling>> {
        let request = learn_request(effect).calls(calls);
        RevisionRule.learn(&request.build()).expect("learns")
    }

    #[test]
    fn learns_a_member_moved_one_past_the_held_value() {
        let outcome = learn(
            Effect::Update,
            vec![
                update(
                    json!({"title": "a", "revision": 0}),
                    json!({"title": "a", "text": "x"}),
                    "/revision",
                    json!(1),
                ),
                update(
                    json!({"title": "b", "revision": 1}),
                    json!({"title": "b"}),
                    "/revision",
                    json!(2),
                ),
            ],
        );
        let LearnOutcome::Learned { explains, rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(explains, ["/revision"]);
        let applied = RevisionRule
            .apply(
                &apply_request(rule)
                    .entity_before(json!({"title": "c", "revision": 7}))
                    .build(),
            )
            .expect("applies");
        assert_eq!(applied.set["/revision"], json!(8));
    }

    #[test]
    fn digit_strings_stay_strings() {
        let outcome = learn(
            Effect::Update,
            vec![update(
                json!({"version": "4"}),
                json!({}),
                "/version",
                json!("5"),
            )],
        );
        let LearnOutcome::Learned { rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        let applied = RevisionRule
            .apply(
                &apply_request(rule)
                    .entity_before(json!({"version": "9"}))
                    .build(),
            )
            .expect("applies");
        assert_eq!(applied.set["/version"], json!("10"));
    }

    #[test]
    fn another_step_a_sent_value_or_a_create_is_no_revision() {
        // One call moving it by two drops the member, though another moved it by one.
        let outcome = learn(
            Effect::Update,
            vec![
                update(json!({"revision": 0}), json!({}), "/revision", json!(1)),
                update(json!({"revision": 1}), json!({}), "/revision", json!(3)),
            ],
        );
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
        // The call sent another value than the entity held.
        let outcome = learn(
            Effect::Update,
            vec![update(
                json!({"revision": 0}),
                json!({"revision": 5}),
                "/revision",
                json!(1),
            )],
        );
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
        // Nothing held before the call (a create).
        let outcome = learn(
            Effect::Create,
            vec![observed_call(1).unexplained("/revision", json!(1)).build()],
        );
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
    }

    #[test]
    fn an_entity_without_a_revision_is_refused() {
        let rule = FieldRules {
            fields: [("/revision".to_owned(), Spelling::Number)].into(),
        };
        let error = RevisionRule
            .apply(
                &apply_request(rule)
                    .entity_before(json!({"title": "a"}))
                    .build(),
            )
            .expect_err("refused");
        assert_eq!(error.code, "no_revision");
    }
}

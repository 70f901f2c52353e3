//! The `counter-token` rule: a revision spelled `N-<token>`, a counter one past the one the
//! entity held and a fresh random token of lower-case hex digits (a registry's package `_rev`,
//! `6-30687552719df095` → `7-b3efe0d46b2596fa`), which no digest of the document reproduces.
//!
//! **Learn** (updates). A top-level member the rules before it left unexplained (so after
//! `digest-revision`, which takes the revisions a digest explains) is such a revision when, in
//! every recorded call that changed it, the prior revision was `N-` and a token of lower-case
//! hex digits, and the call left `N+1-` and a token of the same length (one length in every
//! call, at least eight digits) that differs from the prior one. The prior revision is the one
//! the call sent, when every call sent one (the revision the client read: a write the state
//! does not model, such as a tag write moving the application's counter, leaves the held one
//! behind), else the one the entity held, when no call sent one.
//!
//! **Apply.** The member takes the prior counter plus one, `-`, and a token of the learned
//! length derived from the state Evidence id, the tool, the member and the write count (MD5,
//! deterministic: the same calls after a reset give the same revision). A call without such a
//! prior revision is refused (there is no counter to move on).

use md5::{Digest, Md5};
use rea_plugin_api::contracts::rule::{
    ApplyOutcome, ApplyRequest, Effect, LearnOutcome, LearnRequest, LearnScope, NoOptions,
    ObservedCall,
};
use rea_plugin_api::rule_fields::{self, FieldRules, sent_members, top_field};
use rea_plugin_api::{PluginError, StateRule};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The stage name.
pub const STAGE: &str = "counter-token";

/// The fewest hex digits a revision's token holds.
const SHORTEST: usize = 8;

/// A revision's counter and token, when `value` is `N-` and lower-case hex digits.
fn parts(value: &Value) -> Option<(u64, &str)> {
    crate::counter_and_hex(value, |length| length >= SHORTEST)
}

/// What a revision's counter continues from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Basis {
    /// The revision the entity held.
    Held,
    /// The revision the call sent (the one the client read, which may be past the held one when
    /// a write the state does not model moved it).
    Sent,
}

/// The learned detail of a member: what its counter continues from and its token's length.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CounterToken {
    /// What the counter continues from.
    pub basis: Basis,
    /// The token's number of hex digits.
    pub length: usize,
}

/// What one call shows of `field`: a revision one past the one the call sent (when it sent
/// one) or else the held one, with a fresh token of that revision's length.
fn stepped(call: &ObservedCall, field: &str, after: &Value) -> Option<CounterToken> {
    let sent = sent_members(call.request_body.as_ref()).and_then(|members| members.get(field));
    let (basis, prior) = match sent {
        Some(sent) => (Basis::Sent, sent),
        None => (Basis::Held, call.entity_before.as_ref()?.get(field)?),
    };
    let (prior_counter, prior_token) = parts(prior)?;
    let (counter, token) = parts(after)?;
    let fresh = token.len() == prior_token.len() && token != prior_token;
    (counter == prior_counter.checked_add(1)? && fresh).then_some(CounterToken {
        basis,
        length: token.len(),
    })
}

/// `length` hex digits derived from the served call's state, tool, member and write count.
fn token(state: &str, tool: &str, pointer: &str, writes: u64, length: usize) -> String {
    let mut out = String::with_capacity(length);
    let mut block = 0u64;
    while out.len() < length {
        let mut hasher = Md5::new();
        for part in [state, tool, pointer] {
            hasher.update(part.as_bytes());
            hasher.update([0]);
        }
        hasher.update(writes.to_be_bytes());
        hasher.update(block.to_be_bytes());
        out.push_str(&hex::encode(hasher.finalize()));
        block += 1;
    }
    out.truncate(length);
    out
}

/// The counter-token rule.
#[derive(Debug, Default, Clone, Copy)]
pub struct CounterTokenRule;

impl StateRule for CounterTokenRule {
    type Options = NoOptions;
    /// Per member: what its counter continues from and its token's length.
    type Rule = FieldRules<CounterToken>;

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
                "a counter-token revision moves on updates; a create's first one is a token",
            ));
        }
        Ok(rule_fields::learned_by_agreement(
            &request.calls,
            |call, pointer, after| {
                top_field(pointer).and_then(|field| stepped(call, &field, after))
            },
            "no unexplained member moved to the held counter plus one and a fresh hex token",
        ))
    }

    fn apply(&self, request: &ApplyRequest<Self::Rule>) -> Result<ApplyOutcome, PluginError> {
        let mut outcome = ApplyOutcome::default();
        let call = &request.call;
        for (pointer, learned) in &request.rule.fields {
            let prior = match learned.basis {
                Basis::Held => call.entity_before.as_ref().and_then(|e| e.pointer(pointer)),
                Basis::Sent => sent_members(call.body.as_ref())
                    .and_then(|members| members.get(&top_field(pointer)?)),
            };
            let Some((counter, _)) = prior.and_then(parts) else {
                return Err(PluginError::new(
                    "no_revision",
                    format!(
                        "no counter-token revision at `{pointer}` to move on ({:?})",
                        learned.basis
                    ),
                ));
            };
            let next = counter.checked_add(1).ok_or_else(|| {
                PluginError::new("revision_overflow", "the next revision is too large")
            })?;
            let token = token(
                call.generation_seed(),
                &request.tool.name,
                pointer,
                call.write_count,
                learned.length,
            );
            outcome
                .set
                .insert(pointer.clone(), Value::String(format!("{next}-{token}")));
        }
        Ok(outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::contracts::rule::Effect;
    use rea_plugin_api::testing::{apply_request, learn_request, observed_call};
    use serde_json::json;

    fn update(held: &str, sent: Value, after: &str) -> ObservedCall {
        observed_call(1)
            .before(json!({"name": "a", "_rev": held}))
            .sent(sent)
            .unexplained("/_rev", json!(after))
            .build()
    }

    fn learn(effect: Effect, calls: Vec<ObservedCall>) -> LearnOutcome<FieldRules<CounterToken>> {
        let request = learn_request(effect).calls(calls);
        CounterTokenRule.learn(&request.build()).expect("learns")
    }

    #[test]
    fn learns_the_counter_plus_one_and_a_fresh_token_across_digit_counts() {
        let outcome = learn(
            Effect::Update,
            vec![
                update(
                    "6-30687552719df095",
                    json!({"_rev": "6-30687552719df095"}),
                    "7-b3efe0d46b2596fa",
                ),
                // The state held 9 (a tag write it does not model moved the app's to 10):
                // the counter continues from the revision the call sent.
                update(
                    "9-4c9dfdb5b3672dd0",
                    json!({"_rev": "10-2cff535be84f9c36"}),
                    "11-ce08305ca52a898b",
                ),
            ],
        );
        let LearnOutcome::Learned { explains, rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(explains, ["/_rev"]);
        assert_eq!(
            rule.fields["/_rev"],
            CounterToken {
                basis: Basis::Sent,
                length: 16
            }
        );
        let served = |writes| {
            let request = apply_request(rule.clone())
                .entity_before(json!({"_rev": "98-0123456789abcdef"}))
                .body(json!({"name": "a", "_rev": "99-0123456789abcdef"}))
                .write_count(writes)
                .build();
            CounterTokenRule.apply(&request).expect("applies").set["/_rev"].clone()
        };
        let first = served(1);
        let text = first.as_str().expect("a string");
        let (counter, token) = text.split_once('-').expect("N-token");
        assert_eq!(counter, "100");
        assert_eq!(token.len(), 16);
        assert!(token.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_eq!(served(1), first, "deterministic");
        assert_ne!(served(2), first, "another write, another token");
    }

    #[test]
    fn other_steps_lengths_sent_values_and_creates_are_no_counter_token() {
        let none = |outcome: LearnOutcome<FieldRules<CounterToken>>| {
            assert!(
                matches!(outcome, LearnOutcome::NoExplanation { .. }),
                "{outcome:?}"
            );
        };
        // Moved by two.
        none(learn(
            Effect::Update,
            vec![update(
                "1-0123456789abcdef",
                json!({}),
                "3-fedcba9876543210",
            )],
        ));
        // The token kept.
        none(learn(
            Effect::Update,
            vec![update(
                "1-0123456789abcdef",
                json!({}),
                "2-0123456789abcdef",
            )],
        ));
        // One call continuing from the held revision, another from the sent one.
        none(learn(
            Effect::Update,
            vec![
                update("1-0123456789abcdef", json!({}), "2-fedcba9876543210"),
                update(
                    "1-0123456789abcdef",
                    json!({"_rev": "4-0123456789abcdef"}),
                    "5-fedcba9876543210",
                ),
            ],
        ));
        // Two lengths.
        none(learn(
            Effect::Update,
            vec![
                update("1-0123456789abcdef", json!({}), "2-fedcba9876543210"),
                update("4-01234567", json!({}), "5-fedcba98"),
            ],
        ));
        // The call sent another revision than the one held.
        none(learn(
            Effect::Update,
            vec![update(
                "1-0123456789abcdef",
                json!({"_rev": "7-0000000000000000"}),
                "2-fedcba9876543210",
            )],
        ));
        // Not hex.
        none(learn(
            Effect::Update,
            vec![update(
                "1-ghijklmnopqrstuv",
                json!({}),
                "2-vutsrqponmlkjihg",
            )],
        ));
        // A create.
        none(learn(
            Effect::Create,
            vec![
                observed_call(1)
                    .unexplained("/_rev", json!("1-0123456789abcdef"))
                    .build(),
            ],
        ));
    }

    #[test]
    fn an_entity_without_a_counter_token_revision_is_refused() {
        let rule = FieldRules {
            fields: [(
                "/_rev".to_owned(),
                CounterToken {
                    basis: Basis::Held,
                    length: 16,
                },
            )]
            .into(),
        };
        let error = CounterTokenRule
            .apply(
                &apply_request(rule)
                    .entity_before(json!({"_rev": "abc"}))
                    .build(),
            )
            .expect_err("refused");
        assert_eq!(error.code, "no_revision");
    }
}

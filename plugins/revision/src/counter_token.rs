//! The `counter-token` rule: a revision spelled `N-<token>`, a counter moved on from the one the
//! entity held and a fresh random token of lower-case hex digits (a registry's package `_rev`,
//! `6-30687552719df095` → `7-b3efe0d46b2596fa`), which no digest of the document reproduces.
//!
//! **Learn** (updates). A top-level member the rules before it left unexplained (so after
//! `digest-revision`, which takes the revisions a digest explains) is such a revision when, in
//! every recorded call that changed it, the prior revision was `N-` and a token of lower-case
//! hex digits, and the call left `N+k-` and a token of the same length (one length in every
//! call, at least eight digits) that differs from the prior one, `k` (the step, at least one)
//! the same in every call. The prior revision is the one the call sent, when every call sent one
//! (the revision the client read: a write the state does not model, such as a tag write moving
//! the application's counter, leaves the held one behind), else the one the entity held, when no
//! call sent one. A call on an entity holding no such member (an upsert making it) counts from 0
//! (Verdaccio's publish, three steps: a new package's first revision is `3-…`, another's moves
//! `6-…` to `9-…`), where another call shows the step from a held revision. A create's member is
//! such a first revision when every recorded create shows `k-` and a token (one `k`, one length):
//! one call is enough, the form being unambiguous.
//!
//! **Apply.** The member takes the prior counter plus the step, `-`, and a token of the learned
//! length derived from the state Evidence id, the tool, the member and the write count (MD5,
//! deterministic: the same calls after a reset give the same revision). A call without such a
//! prior revision is refused (there is no counter to move on), unless the rule learned that an
//! entity holding none starts from 0 and the entity holds no such member.

use md5::{Digest, Md5};
use rea_plugin_api::contracts::rule::{
    ApplyOutcome, ApplyRequest, Effect, LearnOutcome, LearnRequest, LearnScope, NoOptions,
    ObservedCall,
};
use std::collections::BTreeMap;

use rea_plugin_api::rule_fields::{self, Agreement, FieldRules, sent_members, top_field};
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

/// The learned detail of a member: what its counter continues from, by how much, and its
/// token's length.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CounterToken {
    /// What the counter continues from.
    pub basis: Basis,
    /// The token's number of hex digits.
    pub length: usize,
    /// How far a call moves the counter (1 unless learned otherwise).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub step: u64,
    /// Whether an entity holding no such member starts from 0 (a recorded call made one).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub from_zero: bool,
}

fn one() -> u64 {
    1
}

fn is_one(step: &u64) -> bool {
    *step == 1
}

/// What one call shows of `field`: a revision moved on from the one the call sent (when it sent
/// one) or else the held one, with a fresh token of that revision's length; or, where the entity
/// held no such member and the call sent none, a first revision counted from 0 (the second part:
/// whether the call moved on from a held or sent revision).
fn stepped(call: &ObservedCall, field: &str, after: &Value) -> Option<(CounterToken, bool)> {
    let sent = sent_members(call.request_body.as_ref()).and_then(|members| members.get(field));
    let held = call
        .entity_before
        .as_ref()
        .and_then(|entity| entity.get(field));
    let (counter, token) = parts(after)?;
    let (basis, prior) = match (sent, held) {
        (Some(sent), _) => (Basis::Sent, sent),
        (None, Some(held)) => (Basis::Held, held),
        (None, None) => {
            let first = CounterToken::new(Basis::Held, token.len(), counter);
            return (counter > 0).then_some((first, false));
        }
    };
    let (prior_counter, prior_token) = parts(prior)?;
    let fresh = token.len() == prior_token.len() && token != prior_token;
    let step = counter
        .checked_sub(prior_counter)
        .filter(|step| *step > 0)?;
    fresh.then_some((CounterToken::new(basis, token.len(), step), true))
}

impl CounterToken {
    /// A detail as one call shows it (`from_zero` is learned over the calls).
    fn new(basis: Basis, length: usize, step: u64) -> Self {
        CounterToken {
            basis,
            length,
            step,
            from_zero: false,
        }
    }
}

/// The members every call moved on alike (see [`stepped`]): of an update, where at least one
/// call moved on from a held or sent revision (`from_zero` where another counted from 0); of a
/// create, where every call counted from 0.
fn agreed_steps(calls: &[ObservedCall], creates: bool) -> LearnOutcome<FieldRules<CounterToken>> {
    let mut agreement = Agreement::default();
    // Per pointer: whether some call moved on from a prior revision, and some counted from 0.
    let mut shown: BTreeMap<String, (bool, bool)> = BTreeMap::new();
    for call in calls {
        for (pointer, after) in &call.unexplained {
            let found = top_field(pointer).and_then(|field| stepped(call, &field, after));
            if let Some((_, moved)) = found {
                let (some_moved, some_new) = shown.entry(pointer.clone()).or_default();
                *some_moved |= moved;
                *some_new |= !moved;
            }
            agreement.record(pointer, found.map(|(detail, _)| detail));
        }
    }
    let fields = agreement.agreed().filter_map(|(pointer, mut detail)| {
        let (some_moved, some_new) = shown.get(&pointer).copied().unwrap_or_default();
        detail.from_zero = some_new;
        let learned = if creates { !some_moved } else { some_moved };
        learned.then_some((pointer, detail))
    });
    rule_fields::learned(
        fields,
        "no unexplained member moved on from a held or sent counter by one step with a fresh hex token",
    )
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
        LearnScope::effects(Effect::UPDATES.into_iter().chain([Effect::Create])).explaining()
    }

    fn learn(
        &self,
        request: &LearnRequest<NoOptions>,
    ) -> Result<LearnOutcome<Self::Rule>, PluginError> {
        let creates = request.effect == Effect::Create;
        if !request.effect.updates() && !creates {
            return Ok(LearnOutcome::no_explanation(
                "a counter-token revision starts on creates and moves on updates",
            ));
        }
        Ok(agreed_steps(&request.calls, creates))
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
            let new_entity = learned.from_zero
                && learned.basis == Basis::Held
                && prior.is_none()
                && sent_members(call.body.as_ref())
                    .and_then(|members| members.get(&top_field(pointer)?))
                    .is_none();
            let Some((counter, _)) = prior.and_then(parts).or(new_entity.then_some((0, ""))) else {
                return Err(PluginError::new(
                    "no_revision",
                    format!(
                        "no counter-token revision at `{pointer}` to move on ({:?})",
                        learned.basis
                    ),
                ));
            };
            let next = counter.checked_add(learned.step).ok_or_else(|| {
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
        assert_eq!(rule.fields["/_rev"], CounterToken::new(Basis::Sent, 16, 1));
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
        // Moved by two in one call, by one in another.
        none(learn(
            Effect::Update,
            vec![
                update("1-0123456789abcdef", json!({}), "3-fedcba9876543210"),
                update("4-0123456789abcdef", json!({}), "5-fedcba9876543210"),
            ],
        ));
        // Moved back.
        none(learn(
            Effect::Update,
            vec![update(
                "3-0123456789abcdef",
                json!({}),
                "2-fedcba9876543210",
            )],
        ));
        // Only counted from 0: no call shows a counter moving on.
        none(learn(
            Effect::Update,
            vec![
                observed_call(1)
                    .before(json!({"name": "a"}))
                    .unexplained("/_rev", json!("3-0123456789abcdef"))
                    .build(),
            ],
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
        // Creates starting at two counters.
        none(learn(
            Effect::Create,
            vec![
                observed_call(1)
                    .unexplained("/_rev", json!("1-0123456789abcdef"))
                    .build(),
                observed_call(2)
                    .unexplained("/_rev", json!("2-0123456789abcdef"))
                    .build(),
            ],
        ));
    }

    #[test]
    fn a_step_learned_beside_a_first_revision_counts_a_new_entity_from_zero() {
        // Verdaccio's publish: date-helpers' `6-…` moved to `9-…`, a new package's is `3-…`.
        let made = observed_call(2)
            .sent(json!({"name": "icons"}))
            .unexplained("/_rev", json!("3-d643e30a24fa6785"))
            .build();
        let outcome = learn(
            Effect::Update,
            vec![
                update("6-7f722bf3bf1a4d08", json!({}), "9-4c9dfdb5b3672dd0"),
                made,
            ],
        );
        let LearnOutcome::Learned { rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        let learned = rule.fields["/_rev"];
        assert_eq!(
            (learned.basis, learned.step, learned.length),
            (Basis::Held, 3, 16)
        );
        assert!(learned.from_zero);
        let served = |before: Value| {
            let request = apply_request(rule.clone())
                .entity_before(before)
                .body(json!({"name": "a"}))
                .write_count(1)
                .build();
            CounterTokenRule
                .apply(&request)
                .map(|outcome| outcome.set["/_rev"].clone())
        };
        let counter = |value: Value| {
            value
                .as_str()
                .and_then(|text| text.split_once('-'))
                .map(|(n, _)| n.to_owned())
        };
        assert_eq!(
            counter(served(json!({"name": "a", "_rev": "9-4c9dfdb5b3672dd0"})).expect("moved"))
                .as_deref(),
            Some("12")
        );
        assert_eq!(
            counter(served(json!({"name": "a"})).expect("made")).as_deref(),
            Some("3")
        );
        // A member that is no such revision is still refused.
        assert!(served(json!({"name": "a", "_rev": "abc"})).is_err());
    }

    #[test]
    fn a_create_starts_at_the_counter_every_recorded_create_shows() {
        let made = |at| {
            observed_call(at)
                .unexplained("/_rev", json!("3-d643e30a24fa6785"))
                .build()
        };
        let outcome = learn(Effect::Create, vec![made(1), made(2)]);
        let LearnOutcome::Learned { rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        let learned = rule.fields["/_rev"];
        assert_eq!((learned.step, learned.from_zero), (3, true));
        let request = apply_request(rule).body(json!({"name": "b"})).build();
        let set = CounterTokenRule.apply(&request).expect("applies").set["/_rev"].clone();
        assert!(
            set.as_str().is_some_and(|text| text.starts_with("3-")),
            "{set}"
        );
    }

    #[test]
    fn an_entity_without_a_counter_token_revision_is_refused() {
        let rule = FieldRules {
            fields: [("/_rev".to_owned(), CounterToken::new(Basis::Held, 16, 1))].into(),
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

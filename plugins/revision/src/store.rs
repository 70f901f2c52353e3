//! The `store-counter` rule: entity members stamped with a store-wide counter, an integer of the
//! application's answers (a store revision in every answer's header, a database's update
//! sequence) that holds steady between writes and steps by one per write of any entity.
//!
//! **Learn** (creates, updates and actions). A top-level member the rules before this one left
//! unexplained is stamped with a store counter when, in every recorded call that changed it, the
//! call's answer held an integer at one and the same pointer outside the entity member (say
//! `/header/revision`) equal to the member's new value, spelled alike in every call, greater than
//! the value the entity held there and than every value the collection held or had been given
//! there (a store counter passes them all), and the answers' counter grew from call to call. A
//! member another answer pointer explains as well, in every call, is ambiguous and left alone.
//! Unlike the `revision` rule, the step is the store's, not the entity's: a put moving a key's
//! `mod_revision` from 4 to 9 is explained when the answer's header says 9.
//!
//! **Apply.** The members take one past the counter the host keeps for the learned answer
//! pointer ([`ServedCall::store_counters`]). A host keeping no such counter (one built before
//! store counters, or a store whose counter it has not learned) gets a refusal: the rule cannot
//! know where the store stands, and a guessed value would be a wrong write.
//!
//! [`ServedCall::store_counters`]: rea_plugin_api::contracts::rule::ServedCall::store_counters

use std::collections::{BTreeMap, BTreeSet};

use rea_plugin_api::contracts::rule::{
    ApplyOutcome, ApplyRequest, LearnOutcome, LearnRequest, NoOptions, ObservedCall,
};
use rea_plugin_api::rule_fields::top_field;
use rea_plugin_api::{PluginError, StateRule};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Spelling, integer, spelled};

/// The stage name.
pub const STAGE: &str = "store-counter";

/// The learned rule: where the answers carry the counter, and the members stamped with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreCounter {
    /// The answer pointer of the counter (`/header/revision`).
    pub counter: String,
    /// The stamped members (JSON pointer into the entity) and how each is spelled.
    pub fields: BTreeMap<String, Spelling>,
}

/// A member's finding in one call: the answer pointer holding its new value, and its spelling.
type Finding = (String, Spelling);

/// Every integer in an answer, by JSON pointer (objects and arrays walked).
fn integers(value: &Value, pointer: String, found: &mut Vec<(String, i64)>) {
    match value {
        Value::Object(members) => {
            for (name, member) in members {
                let segment = name.replace('~', "~0").replace('/', "~1");
                integers(member, format!("{pointer}/{segment}"), found);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                integers(item, format!("{pointer}/{index}"), found);
            }
        }
        other => {
            if let Some((number, _)) = integer(other) {
                found.push((pointer, number));
            }
        }
    }
}

/// Whether an answer pointer ends at a member named `field` (the entity's own member, or a copy
/// of the entity the answer nests: `/prev_kv/mod_revision`, `/data/id`), which no store counter is.
fn names_member(pointer: &str, field: &str) -> bool {
    pointer
        .rsplit('/')
        .next()
        .is_some_and(|last| rea_plugin_api::json::unescape_pointer_segment(last) == field)
}

/// What one call shows of the member at `pointer` moved to `after`: every answer pointer holding
/// the same integer the counter could be (empty: this call shows no store counter there).
fn findings(call: &ObservedCall, pointer: &str, after: &Value) -> BTreeSet<Finding> {
    let (Some(field), Some((value, spelling))) = (top_field(pointer), integer(after)) else {
        return BTreeSet::new();
    };
    let below = |held: Option<&Value>| held.and_then(integer).is_none_or(|(held, _)| held < value);
    let entity_held = call
        .entity_before
        .as_ref()
        .and_then(|entity| entity.get(&field));
    if !below(entity_held) || !below(call.held_max.get(&field)) {
        return BTreeSet::new();
    }
    let mut answer = Vec::new();
    if let Some(body) = &call.response_body {
        integers(body, String::new(), &mut answer);
    }
    answer
        .into_iter()
        .filter(|(at, number)| *number == value && !names_member(at, &field))
        .map(|(at, _)| (at, spelling))
        .collect()
}

/// Whether the answers' value at `counter` grows from call to call (capture order).
fn grows(calls: &[ObservedCall], counter: &str) -> bool {
    let values: Vec<i64> = calls
        .iter()
        .filter_map(|call| call.response_body.as_ref()?.pointer(counter))
        .filter_map(|value| integer(value).map(|(value, _)| value))
        .collect();
    values.windows(2).all(|pair| pair[0] < pair[1])
}

/// Per unexplained member, the findings every call that changed it agrees on.
fn agreed(calls: &[ObservedCall]) -> BTreeMap<String, BTreeSet<Finding>> {
    let mut agreed: BTreeMap<String, BTreeSet<Finding>> = BTreeMap::new();
    for call in calls {
        for (pointer, after) in &call.unexplained {
            let found = findings(call, pointer, after);
            agreed
                .entry(pointer.clone())
                .and_modify(|held| held.retain(|finding| found.contains(finding)))
                .or_insert(found);
        }
    }
    agreed
}

/// The store counter rule.
#[derive(Debug, Default, Clone, Copy)]
pub struct StoreCounterRule;

impl StateRule for StoreCounterRule {
    type Options = NoOptions;
    type Rule = StoreCounter;

    fn learn(
        &self,
        request: &LearnRequest<NoOptions>,
    ) -> Result<LearnOutcome<StoreCounter>, PluginError> {
        if !(request.effect.updates()
            || request.effect == rea_plugin_api::contracts::rule::Effect::Create)
        {
            return Ok(LearnOutcome::no_explanation(
                "a store counter stamps the entities creates and updates write",
            ));
        }
        let mut by_counter: BTreeMap<String, BTreeMap<String, Spelling>> = BTreeMap::new();
        for (pointer, found) in agreed(&request.calls) {
            let Ok([(counter, spelling)]) =
                <[Finding; 1]>::try_from(found.into_iter().collect::<Vec<_>>())
            else {
                continue;
            };
            by_counter
                .entry(counter)
                .or_default()
                .insert(pointer, spelling);
        }
        by_counter.retain(|counter, _| grows(&request.calls, counter));
        let mut counters = by_counter.into_iter();
        match (counters.next(), counters.next()) {
            (Some((counter, fields)), None) => Ok(LearnOutcome::learned(
                fields.keys().cloned().collect(),
                StoreCounter { counter, fields },
            )),
            (Some(_), Some(_)) => Ok(LearnOutcome::no_explanation(
                "the members follow more than one answer counter",
            )),
            _ => Ok(LearnOutcome::no_explanation(
                "no unexplained member took the value of a growing integer of the write's answer",
            )),
        }
    }

    fn apply(&self, request: &ApplyRequest<StoreCounter>) -> Result<ApplyOutcome, PluginError> {
        let rule = &request.rule;
        let held = request
            .call
            .store_counters
            .get(&rule.counter)
            .and_then(integer);
        let Some((held, _)) = held else {
            return Err(PluginError::new(
                "no_store_counter",
                format!("the state keeps no store counter at `{}`", rule.counter),
            ));
        };
        let next = held.checked_add(1).ok_or_else(|| {
            PluginError::new(
                "store_counter_overflow",
                "the next store counter is too large",
            )
        })?;
        let mut outcome = ApplyOutcome::default();
        for (pointer, spelling) in &rule.fields {
            outcome
                .set
                .insert(pointer.clone(), spelled(next, *spelling));
        }
        Ok(outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::contracts::rule::Effect;
    use rea_plugin_api::testing::{apply_request, expect_learned, expect_no_explanation};
    use rea_plugin_api::testing::{learn_request, observed_call};
    use serde_json::json;

    /// A put of a key-value pair as a store answers it: the header carries the store's revision.
    fn put(ordinal: u64, before: Option<Value>, revision: &str, held_max: &str) -> ObservedCall {
        let mut call = observed_call(ordinal)
            .sent(json!({"key": "k", "value": "v"}))
            .response(
                200,
                json!({"header": {"cluster_id": "1", "revision": revision, "raft_term": "2"},
                       "prev_kv": {"key": "k", "mod_revision": "1", "version": "1"}}),
            )
            .held_max("mod_revision", json!(held_max))
            .unexplained("/mod_revision", json!(revision));
        if let Some(before) = before {
            call = call.before(before);
        }
        call.build()
    }

    fn learn(effect: Effect, calls: Vec<ObservedCall>) -> LearnOutcome<StoreCounter> {
        let request = calls
            .into_iter()
            .fold(learn_request(effect), |request, call| request.call(call));
        StoreCounterRule.learn(&request.build()).expect("learns")
    }

    #[test]
    fn learns_members_stamped_with_the_answers_growing_counter() {
        let outcome = learn(
            Effect::Update,
            vec![
                put(1, None, "8", "7"),
                put(2, Some(json!({"key": "k", "mod_revision": "4"})), "9", "8"),
            ],
        );
        let (explains, rule) = expect_learned(outcome);
        assert_eq!(explains, ["/mod_revision"]);
        assert_eq!(rule.counter, "/header/revision");
        // The store stands at 11 (writes of other tools moved it): the put stamps 12.
        let applied = StoreCounterRule
            .apply(
                &apply_request(rule)
                    .entity_before(json!({"key": "k", "mod_revision": "9"}))
                    .store_counter("/header/revision", json!("11"))
                    .build(),
            )
            .expect("applies");
        assert_eq!(applied.set["/mod_revision"], json!("12"));
    }

    #[test]
    fn a_counter_that_does_not_grow_or_a_value_not_past_the_held_ones_is_no_store_counter() {
        // The answers' counter went back.
        let outcome = learn(
            Effect::Update,
            vec![put(1, None, "9", "7"), put(2, None, "8", "7")],
        );
        expect_no_explanation(outcome);
        // The collection already held a value as large.
        let outcome = learn(Effect::Update, vec![put(1, None, "8", "8")]);
        expect_no_explanation(outcome);
        // The entity held a value as large.
        let outcome = learn(
            Effect::Update,
            vec![put(1, Some(json!({"mod_revision": "8"})), "8", "7")],
        );
        expect_no_explanation(outcome);
        // A delete stamps nothing.
        let outcome = learn(Effect::Delete, vec![put(1, None, "8", "7")]);
        expect_no_explanation(outcome);
    }

    #[test]
    fn a_copy_of_the_entity_in_the_answer_or_two_counters_explain_nothing() {
        // The answer's only equal integer is the entity's own member nested in it.
        let call = observed_call(1)
            .response(201, json!({"data": {"id": 5}}))
            .unexplained("/id", json!(5))
            .build();
        expect_no_explanation(learn(Effect::Create, vec![call]));
        // Two answer integers equal the new value in every call: ambiguous.
        let call = observed_call(1)
            .response(200, json!({"seq": 8, "revision": 8}))
            .unexplained("/rev", json!(8))
            .build();
        expect_no_explanation(learn(Effect::Update, vec![call]));
    }

    #[test]
    fn a_state_keeping_no_counter_is_refused() {
        let rule = StoreCounter {
            counter: "/header/revision".to_owned(),
            fields: [("/mod_revision".to_owned(), Spelling::Digits)].into(),
        };
        let error = StoreCounterRule
            .apply(
                &apply_request(rule)
                    .entity_before(json!({"mod_revision": "3"}))
                    .build(),
            )
            .expect_err("refused");
        assert_eq!(error.code, "no_store_counter");
    }
}

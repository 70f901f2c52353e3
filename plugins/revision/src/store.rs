//! The `store-counter` rule: entity members stamped with a store-wide counter, an integer of the
//! application's answers (a store revision in every answer's header, a database's update
//! sequence) that holds steady between writes and steps by one per write of any entity.
//!
//! **Learn** (creates, updates and actions). A top-level member the rules before this one left
//! unexplained is stamped with a store counter when, in every recorded call that changed it, the
//! host kept a store counter ([`ObservedCall::store_counters`]: an envelope member of the
//! application's answers that the host found holding steady between writes and stepping by one
//! per write, shared by every entity, such as `/header/revision`) whose value before the call
//! was one below the member's new value, one and the same counter in every call, the value
//! spelled alike, and greater than the value the entity held there and than every value the
//! collection held or had been given there. A member two counters explain alike is ambiguous
//! and left alone. A host keeping no counter teaches nothing: an answer's integer equal to a
//! new value (a nested copy of the entity's own id) is no store counter. Unlike the `revision`
//! rule, the step is the store's, not the entity's: a put moving a key's `mod_revision` from 4
//! to 9 is explained when the store stood at 8 before it.
//!
//! **Apply.** The members take one past the counter the host keeps for the learned answer
//! pointer ([`ServedCall::store_counters`]). A host keeping no such counter (one built before
//! store counters, or a store whose counter it has not learned) gets a refusal: the rule cannot
//! know where the store stands, and a guessed value would be a wrong write.
//!
//! [`ServedCall::store_counters`]: rea_plugin_api::contracts::rule::ServedCall::store_counters
//! [`ObservedCall::store_counters`]: rea_plugin_api::contracts::rule::ObservedCall::store_counters

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

/// What one call shows of the member at `pointer` moved to `after`: every store counter the host
/// kept that stood one below the new value before the call (empty: none explains it here).
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
    call.store_counters
        .iter()
        .filter(|(_, before)| {
            integer(before).is_some_and(|(before, _)| before.checked_add(1) == Some(value))
        })
        .map(|(counter, _)| (counter.clone(), spelling))
        .collect()
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

    /// The effects `learn` answers for (it explains nothing for others), joining only by
    /// explaining.
    fn learn_scope(&self) -> rea_plugin_api::contracts::rule::LearnScope {
        rea_plugin_api::contracts::rule::LearnScope::effects([
            rea_plugin_api::contracts::rule::Effect::Create,
            rea_plugin_api::contracts::rule::Effect::Update,
            rea_plugin_api::contracts::rule::Effect::Action,
            rea_plugin_api::contracts::rule::Effect::BulkUpdate,
        ])
        .explaining()
    }

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
                "no unexplained member took one past a store counter the host keeps",
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

    /// A put of a key-value pair as a store answers it (the header carries the store's
    /// revision), the host keeping that revision at one below it before the call.
    fn put(ordinal: u64, before: Option<Value>, revision: &str, held_max: &str) -> ObservedCall {
        let stood = revision.parse::<i64>().expect("digits") - 1;
        let mut call = observed_call(ordinal)
            .sent(json!({"key": "k", "value": "v"}))
            .response(
                200,
                json!({"header": {"cluster_id": "1", "revision": revision, "raft_term": "2"},
                       "prev_kv": {"key": "k", "mod_revision": "1", "version": "1"}}),
            )
            .held_max("mod_revision", json!(held_max))
            .store_counter("/header/revision", json!(stood.to_string()))
            .unexplained("/mod_revision", json!(revision));
        if let Some(before) = before {
            call = call.before(before);
        }
        call.build()
    }

    fn learn(effect: Effect, calls: Vec<ObservedCall>) -> LearnOutcome<StoreCounter> {
        let request = learn_request(effect).calls(calls);
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
    fn a_value_not_one_past_the_counter_or_not_past_the_held_ones_is_no_store_counter() {
        // The store stood at 6 before a call stamping 8.
        let mut call = put(1, None, "8", "7");
        call.store_counters
            .insert("/header/revision".to_owned(), json!("6"));
        expect_no_explanation(learn(Effect::Update, vec![call]));
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
    fn without_a_counter_the_host_keeps_or_with_two_nothing_is_explained() {
        // A create answering a nested copy of its own id (an answer integer equal to the new
        // value), the host keeping no counter: no store counter.
        let call = observed_call(1)
            .response(201, json!({"movies_list_ids": [{"movie_id": 5}], "id": 5}))
            .unexplained("/id", json!(5))
            .build();
        expect_no_explanation(learn(Effect::Create, vec![call]));
        // Two counters stood one below the new value: ambiguous.
        let call = observed_call(1)
            .response(200, json!({"seq": 8, "revision": 8}))
            .store_counter("/seq", json!(7))
            .store_counter("/revision", json!(7))
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

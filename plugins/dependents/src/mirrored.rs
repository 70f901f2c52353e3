//! The `mirrored-keys` rule: an object member whose entries follow the keys of another object
//! member of the same entity, so that a write removing a key from the one removes that key's
//! entry from the other (a package document's `time` map, `{"1.0.0": "…", "modified": "…"}`,
//! losing `1.0.0` when a write sends `versions` without `1.0.0`).
//!
//! **Learn** (updates). Each unexplained removal of an entry `/M/k` (a `null` value) is offered
//! the top-level object members `V` (other than `M`) whose key `k` the entity held and the call
//! removed: it sent `V` as an object without `k`. `M` follows `V` when every recorded removal
//! of an entry of `M` offers `V` (one such member, not two), and no recorded call removed a key
//! of `V` that `M` held while keeping that entry of `M`.
//!
//! **Apply.** For each learned `M` following `V`: every key the entity holds in `V` that the
//! served body's `V` (an object) lacks is removed from `M`, where `M` holds it. A call not
//! sending `V` as an object removes nothing.

use std::collections::{BTreeMap, BTreeSet};

use rea_plugin_api::contracts::rule::{
    ApplyOutcome, ApplyRequest, Effect, LearnOutcome, LearnRequest, LearnScope, NoOptions,
    ObservedCall,
};
use rea_plugin_api::json::{escape_pointer_segment, unescape_pointer_segment};
use rea_plugin_api::rule_fields::sent_members;
use rea_plugin_api::{PluginError, StateRule};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The stage name.
pub const STAGE: &str = "mirrored-keys";

/// The learned rule: each following member → the member whose keys it follows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MirroredKeys {
    /// `M` → `V`.
    pub follows: BTreeMap<String, String>,
}

/// The member and key of a pointer two levels deep (`/time/1.0.0` → `time`, `1.0.0`).
fn member_and_key(pointer: &str) -> Option<(String, String)> {
    let (member, key) = pointer.strip_prefix('/')?.split_once('/')?;
    (!key.contains('/')).then(|| {
        (
            unescape_pointer_segment(member),
            unescape_pointer_segment(key),
        )
    })
}

/// The keys of the object `entity` holds in `member` that `body` sends `member` without.
fn removed_keys(entity: Option<&Value>, body: Option<&Value>, member: &str) -> Vec<String> {
    let held = entity.and_then(|entity| entity.get(member)?.as_object());
    let sent = sent_members(body).and_then(|members| members.get(member)?.as_object());
    match (held, sent) {
        (Some(held), Some(sent)) => held
            .keys()
            .filter(|key| !sent.contains_key(*key))
            .cloned()
            .collect(),
        _ => Vec::new(),
    }
}

/// The members whose key `key` the call removed, besides `member`.
fn offered(call: &ObservedCall, member: &str, key: &str) -> BTreeSet<String> {
    let Some(held) = call.entity_before.as_ref().and_then(Value::as_object) else {
        return BTreeSet::new();
    };
    held.iter()
        .filter(|(name, value)| name.as_str() != member && value.is_object())
        .filter(|(name, _)| {
            removed_keys(
                call.entity_before.as_ref(),
                call.request_body.as_ref(),
                name,
            )
            .iter()
            .any(|removed| removed == key)
        })
        .map(|(name, _)| name.clone())
        .collect()
}

/// Per member `M`, the members every recorded removal of an entry of `M` offers, and the
/// pointers those removals were.
fn candidates(calls: &[ObservedCall]) -> BTreeMap<String, (BTreeSet<String>, Vec<String>)> {
    let mut found: BTreeMap<String, (BTreeSet<String>, Vec<String>)> = BTreeMap::new();
    for call in calls {
        for (pointer, after) in &call.unexplained {
            let Some((member, key)) = member_and_key(pointer).filter(|_| after.is_null()) else {
                continue;
            };
            let offers = offered(call, &member, &key);
            match found.get_mut(&member) {
                Some((common, pointers)) => {
                    common.retain(|name| offers.contains(name));
                    pointers.push(pointer.clone());
                }
                None => {
                    found.insert(member, (offers, vec![pointer.clone()]));
                }
            }
        }
    }
    found
}

/// Whether some call removed a key of `followed` that `member` held and kept that entry.
fn contradicted(calls: &[ObservedCall], member: &str, followed: &str) -> bool {
    calls.iter().any(|call| {
        let held = call
            .entity_before
            .as_ref()
            .and_then(|entity| entity.get(member)?.as_object());
        removed_keys(
            call.entity_before.as_ref(),
            call.request_body.as_ref(),
            followed,
        )
        .iter()
        .filter(|key| held.is_some_and(|held| held.contains_key(key.as_str())))
        .any(|key| {
            let pointer = format!(
                "/{}/{}",
                escape_pointer_segment(member),
                escape_pointer_segment(key)
            );
            call.unexplained.get(&pointer) != Some(&Value::Null)
        })
    })
}

/// The mirrored-keys rule.
#[derive(Debug, Default, Clone, Copy)]
pub struct MirroredKeysRule;

impl StateRule for MirroredKeysRule {
    type Options = NoOptions;
    type Rule = MirroredKeys;

    /// The effects `learn` answers for (it explains nothing for others), joining only by
    /// explaining.
    fn learn_scope(&self) -> LearnScope {
        LearnScope::effects(Effect::UPDATES).explaining()
    }

    fn learn(
        &self,
        request: &LearnRequest<NoOptions>,
    ) -> Result<LearnOutcome<Self::Rule>, PluginError> {
        let none = "no removed entry followed the removal of its key from another member";
        if !request.effect.updates() {
            return Ok(LearnOutcome::no_explanation(none));
        }
        let mut follows = BTreeMap::new();
        let mut explains = Vec::new();
        for (member, (common, pointers)) in candidates(&request.calls) {
            let mut common = common.into_iter();
            let (Some(followed), None) = (common.next(), common.next()) else {
                continue;
            };
            if !contradicted(&request.calls, &member, &followed) {
                follows.insert(member, followed);
                explains.extend(pointers);
            }
        }
        if follows.is_empty() {
            return Ok(LearnOutcome::no_explanation(none));
        }
        explains.sort();
        explains.dedup();
        Ok(LearnOutcome::learned(explains, MirroredKeys { follows }))
    }

    fn apply(&self, request: &ApplyRequest<Self::Rule>) -> Result<ApplyOutcome, PluginError> {
        let mut outcome = ApplyOutcome::default();
        let call = &request.call;
        let empty = Map::new();
        for (member, followed) in &request.rule.follows {
            let held = call
                .entity_before
                .as_ref()
                .and_then(|entity| entity.get(member)?.as_object())
                .unwrap_or(&empty);
            for key in removed_keys(call.entity_before.as_ref(), call.body.as_ref(), followed) {
                if held.contains_key(&key) {
                    outcome.remove.push(format!(
                        "/{}/{}",
                        escape_pointer_segment(member),
                        escape_pointer_segment(&key)
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
    use rea_plugin_api::contracts::rule::Effect;
    use rea_plugin_api::testing::{apply_request, learn_request, observed_call};
    use serde_json::json;

    fn held() -> Value {
        json!({
            "versions": {"1.0.0": {"v": 1}, "1.1.0": {"v": 2}},
            "time": {"modified": "t0", "1.0.0": "t1", "1.1.0": "t2"},
            "tags": {"1.0.0": "x"}
        })
    }

    fn learn(calls: Vec<ObservedCall>) -> LearnOutcome<MirroredKeys> {
        let request = learn_request(Effect::Update).calls(calls);
        MirroredKeysRule.learn(&request.build()).expect("learns")
    }

    fn unpublish(time_removed: bool) -> ObservedCall {
        let call = observed_call(1).before(held()).sent(json!({
            "versions": {"1.1.0": {"v": 2}},
            "time": {"modified": "t0", "1.0.0": "t1", "1.1.0": "t2"},
            "tags": {"1.0.0": "x"}
        }));
        if time_removed {
            call.unexplained("/time/1.0.0", Value::Null).build()
        } else {
            call.build()
        }
    }

    #[test]
    fn an_entry_removed_with_its_key_of_another_member_follows_it() {
        let outcome = learn(vec![unpublish(true)]);
        let LearnOutcome::Learned { explains, rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(explains, ["/time/1.0.0"]);
        assert_eq!(rule.follows["time"], "versions");
        let applied = MirroredKeysRule
            .apply(
                &apply_request(rule.clone())
                    .entity_before(held())
                    .body(json!({"versions": {"1.0.0": {"v": 1}}, "time": {}}))
                    .build(),
            )
            .expect("applies");
        assert_eq!(applied.remove, ["/time/1.1.0"]);
        // A call not sending the followed member removes nothing.
        let applied = MirroredKeysRule
            .apply(
                &apply_request(rule)
                    .entity_before(held())
                    .body(json!({"name": "a"}))
                    .build(),
            )
            .expect("applies");
        assert!(applied.remove.is_empty());
    }

    #[test]
    fn a_kept_entry_or_an_unrelated_removal_teaches_nothing() {
        // The call removed versions' 1.0.0 but kept time's.
        let outcome = learn(vec![unpublish(true), unpublish(false)]);
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
        // An entry removed while no other member lost its key.
        let call = observed_call(1)
            .before(held())
            .sent(json!({"versions": {"1.0.0": {"v": 1}, "1.1.0": {"v": 2}}}))
            .unexplained("/time/1.0.0", Value::Null)
            .build();
        let outcome = learn(vec![call]);
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
    }
}

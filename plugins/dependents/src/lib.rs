//! The `dependents` rule: what a delete does to the entities of other types that refer to the
//! deleted entity (a relation held in a top-level member, `postId: 5`, `customerId: "c4"`, or in a
//! member nested in object members, named by its JSON pointer: `/attributes/assignee_id`).
//!
//! **Learn** (deletes only). The host offers, per recorded delete, each entity of another type it
//! held with a top-level member equal (as text) to the deleted entity's id, as the first read of it
//! by id after the delete showed it ([`ObservedDependent`]). A dependent read back absent
//! (`404`) says the delete removes the entities referring to it through that member (a cascade);
//! one read back with that member `null` (or the object holding it `null`: a JSON:API linkage's
//! `data` cleared whole) says the delete clears the relation; one whose array of members
//! (`/devices/*/deviceID`: some item names the deleted entity) lost items and kept the others in
//! order says the delete pulls it from such arrays. A dependent read back
//! with the member unchanged says the relation is not followed. One delete is enough when the
//! pattern is unambiguous: a removed dependent names exactly one member holding the id (two such
//! members cannot be told apart), and no recorded delete showed a dependent of that type and member
//! unaffected or treated otherwise. Nothing in the written entity is explained (`explains` is
//! empty); the learned rule names its `dependents`, which the host keeps in the plan.
//!
//! **Apply.** Answers the learned effects; the host applies each to every entity of that type it
//! holds whose member holds the deleted id (removed, or the member set to `null`), so lists and
//! reads by id of the dependents agree with the application after a served delete.

use std::collections::BTreeMap;

pub mod mirrored;

use rea_plugin_api::contracts::rule::{
    ApplyOutcome, ApplyRequest, DependentAction, DependentEffect, Effect, LearnOutcome,
    LearnRequest, LearnScope, NoOptions, ObservedDependent,
};
use rea_plugin_api::{Plugin, PluginError, StageInfo, StateRule};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The stage name.
pub const STAGE: &str = "dependents";

/// The learned rule: what a delete does to each dependent type and member.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dependents {
    /// The effects, by type and member.
    pub dependents: Vec<DependentEffect>,
}

/// The dependents rule.
#[derive(Debug, Default, Clone, Copy)]
pub struct DependentsRule;

/// What the recorded deletes showed for one dependent type and member.
#[derive(Debug, Default)]
struct Seen {
    removed: bool,
    cleared: bool,
    /// An array's items naming the deleted entity taken out, the others kept.
    pulled: bool,
    /// A dependent read back with the member as it was (or otherwise changed).
    kept: bool,
}

/// The member a field names: a JSON pointer when it starts with `/` (a member nested in object
/// members, `/attributes/assignee_id`), else a top-level member's name.
fn member_at<'a>(value: &'a Value, field: &str) -> Option<&'a Value> {
    if field.starts_with('/') {
        value.pointer(field)
    } else {
        value.get(field)
    }
}

/// Whether the object holding a nested member is shown `null`: the member went with the object
/// referring to the entity (a JSON:API linkage `/relationships/borrower/data` cleared whole,
/// its `id` with it).
fn holder_null(value: &Value, field: &str) -> bool {
    field.rsplit_once('/').is_some_and(|(holder, _)| {
        !holder.is_empty() && value.pointer(holder) == Some(&Value::Null)
    })
}

/// Whether a dependent's array (the pointer before a field's `*` segment) lost items and kept
/// the others in order: `Some(true)`; `Some(false)` when it is as it was; `None` otherwise.
fn pulled(before: &Value, after: &Value, field: &str) -> Option<bool> {
    let (array, _) = field.split_once("/*")?;
    let before = before.pointer(array)?.as_array()?;
    let after = after.pointer(array)?.as_array()?;
    if before == after {
        return Some(false);
    }
    let mut remaining = after.iter().peekable();
    for item in before {
        if remaining.peek() == Some(&item) {
            remaining.next();
        }
    }
    (remaining.next().is_none() && after.len() < before.len()).then_some(true)
}

/// Notes what one dependent shows, per member holding the deleted id.
fn note(seen: &mut BTreeMap<(String, String), Seen>, dependent: &ObservedDependent) {
    for field in &dependent.fields {
        let entry = seen
            .entry((dependent.entity_type.clone(), field.clone()))
            .or_default();
        match &dependent.after {
            // Which of several members carried the relation is not shown by a removal.
            None if dependent.fields.len() == 1 => entry.removed = true,
            None => {}
            Some(after) if field.contains("/*") => match pulled(&dependent.before, after, field) {
                Some(true) => entry.pulled = true,
                _ => entry.kept = true,
            },
            Some(after) => match member_at(after, field) {
                Some(Value::Null) => entry.cleared = true,
                None if holder_null(after, field) => entry.cleared = true,
                _ => entry.kept = true,
            },
        }
    }
}

impl StateRule for DependentsRule {
    type Options = NoOptions;
    type Rule = Dependents;

    /// The effects `learn` answers for; asked whatever is unexplained (it changes dependents).
    fn learn_scope(&self) -> LearnScope {
        LearnScope::effects(Effect::DELETES)
    }

    fn learn(
        &self,
        request: &LearnRequest<NoOptions>,
    ) -> Result<LearnOutcome<Dependents>, PluginError> {
        if !request.effect.deletes() {
            return Ok(LearnOutcome::no_explanation(
                "only a delete changes the entities that refer to it",
            ));
        }
        let mut seen: BTreeMap<(String, String), Seen> = BTreeMap::new();
        for dependent in request.calls.iter().flat_map(|call| &call.dependents) {
            note(&mut seen, dependent);
        }
        let dependents: Vec<DependentEffect> = seen
            .into_iter()
            .filter_map(|((entity_type, field), seen)| {
                let action = match (seen.removed, seen.cleared, seen.pulled, seen.kept) {
                    (true, false, false, false) => DependentAction::Remove,
                    (false, true, false, false) => DependentAction::Clear,
                    (false, false, true, false) => DependentAction::Pull,
                    _ => return None,
                };
                Some(DependentEffect {
                    entity_type,
                    field,
                    action,
                })
            })
            .collect();
        if dependents.is_empty() {
            return Ok(LearnOutcome::no_explanation(
                "no read after a recorded delete showed an entity referring to it removed or cleared",
            ));
        }
        Ok(LearnOutcome::learned(Vec::new(), Dependents { dependents }))
    }

    fn apply(&self, request: &ApplyRequest<Dependents>) -> Result<ApplyOutcome, PluginError> {
        Ok(ApplyOutcome {
            dependents: request.rule.dependents.clone(),
            ..ApplyOutcome::default()
        })
    }
}

rea_plugin_api::plugin_root_module! {
    /// The root module of the dependents rule.
    pub fn root_module() = Plugin::new("rea-dependents", env!("CARGO_PKG_VERSION")).rule(
        StageInfo::new(STAGE, "Explains what a delete does to the entities referring to it (removed or their relation cleared); serves it on every such entity"),
        DependentsRule,
    ).rule(
        StageInfo::new(mirrored::STAGE, "Explains entries of an object member removed with their key of another object member (a time map following versions)"),
        mirrored::MirroredKeysRule,
    );
}

rea_plugin_api::submit_builtin!(root_module);

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::contracts::rule::Effect;
    use rea_plugin_api::testing::{apply_request, learn_request, observed_call};
    use serde_json::json;

    fn learn(
        effect: Effect,
        calls: Vec<rea_plugin_api::testing::ObservedCallBuilder>,
    ) -> LearnOutcome<Dependents> {
        let request = learn_request(effect).calls(calls);
        DependentsRule.learn(&request.build()).expect("learns")
    }

    fn learned(outcome: LearnOutcome<Dependents>) -> Vec<DependentEffect> {
        match outcome {
            LearnOutcome::Learned { explains, rule, .. } => {
                assert!(explains.is_empty(), "explains nothing of the entity");
                rule.dependents
            }
            other => panic!("{other:?}"),
        }
    }

    fn effect(entity_type: &str, field: &str, action: DependentAction) -> DependentEffect {
        DependentEffect {
            entity_type: entity_type.to_owned(),
            field: field.to_owned(),
            action,
        }
    }

    #[test]
    fn one_delete_whose_dependent_read_back_absent_learns_a_cascade() {
        let call = observed_call(52).path_params(&["5"]).dependent(
            "/comments",
            &["postId"],
            json!({"id": 6, "postId": 5}),
            None,
        );
        let dependents = learned(learn(Effect::Delete, vec![call]));
        assert_eq!(
            dependents,
            [effect("/comments", "postId", DependentAction::Remove)]
        );
        let applied = DependentsRule
            .apply(
                &apply_request(Dependents {
                    dependents: dependents.clone(),
                })
                .build(),
            )
            .expect("applies");
        assert_eq!(applied.dependents, dependents);
        assert!(applied.set.is_empty() && !applied.keep);
    }

    #[test]
    fn a_dependent_read_back_with_the_member_null_learns_a_cleared_relation() {
        let call = observed_call(53).dependent(
            "/tickets",
            &["customerId"],
            json!({"id": "106", "customerId": "c4"}),
            Some(json!({"id": "106", "customerId": null})),
        );
        assert_eq!(
            learned(learn(Effect::Delete, vec![call])),
            [effect("/tickets", "customerId", DependentAction::Clear)]
        );
    }

    #[test]
    fn an_array_read_back_without_the_items_naming_the_entity_learns_a_pull() {
        let before = json!({"id": "docs", "devices": [{"deviceID": "A"}, {"deviceID": "B"}, {"deviceID": "C"}]});
        let field = "/devices/*/deviceID";
        let call = |after: serde_json::Value| {
            observed_call(56).dependent("/folders", &[field], before.clone(), Some(after))
        };
        let pulled = call(json!({"id": "docs", "devices": [{"deviceID": "A"}, {"deviceID": "C"}]}));
        assert_eq!(
            learned(learn(Effect::Delete, vec![pulled.clone()])),
            [effect("/folders", field, DependentAction::Pull)]
        );
        // The array as it was, or reordered, teaches no pull.
        let kept = call(before.clone());
        let reordered =
            call(json!({"id": "docs", "devices": [{"deviceID": "C"}, {"deviceID": "A"}]}));
        for other in [kept, reordered] {
            let outcome = learn(Effect::Delete, vec![pulled.clone(), other]);
            assert!(
                matches!(outcome, LearnOutcome::NoExplanation { .. }),
                "{outcome:?}"
            );
        }
    }

    #[test]
    fn a_nested_member_read_back_null_learns_a_cleared_relation_by_its_pointer() {
        // The task's `estimate` holds the deleted user's id by chance and is kept: only the
        // nested `assignee_id` the read shows cleared is followed.
        let call = observed_call(58).dependent(
            "/tasks",
            &["/attributes/assignee_id", "/attributes/estimate"],
            json!({"id": "6", "attributes": {"assignee_id": 5, "estimate": 5}}),
            Some(json!({"id": "6", "attributes": {"assignee_id": null, "estimate": 5}})),
        );
        assert_eq!(
            learned(learn(Effect::Delete, vec![call])),
            [effect(
                "/tasks",
                "/attributes/assignee_id",
                DependentAction::Clear
            )]
        );
    }

    #[test]
    fn a_linkage_read_back_null_learns_its_id_cleared_and_a_null_elsewhere_does_not() {
        // drf-jsonapi: the book's borrower linkage `{type, id}` shown `data: null`.
        let field = "/relationships/borrower/data/id";
        let before = json!({"id": "6", "relationships": {"borrower": {"data": {"type": "Member", "id": "4"}}}});
        let cleared = observed_call(70).dependent(
            "/books",
            &[field],
            before.clone(),
            Some(json!({"id": "6", "relationships": {"borrower": {"data": null}}})),
        );
        assert_eq!(
            learned(learn(Effect::Delete, vec![cleared])),
            [effect("/books", field, DependentAction::Clear)]
        );
        // The linkage gone with its relationship is not shown cleared.
        let gone = observed_call(70).dependent(
            "/books",
            &[field],
            before,
            Some(json!({"id": "6", "relationships": null})),
        );
        assert!(matches!(
            learn(Effect::Delete, vec![gone]),
            LearnOutcome::NoExplanation { .. }
        ));
    }

    #[test]
    fn a_removed_dependent_with_two_members_holding_the_id_is_ambiguous() {
        let call = observed_call(1).dependent(
            "/comments",
            &["postId", "likes"],
            json!({"id": 6, "postId": 5, "likes": 5}),
            None,
        );
        assert!(matches!(
            learn(Effect::Delete, vec![call]),
            LearnOutcome::NoExplanation { .. }
        ));
    }

    #[test]
    fn a_dependent_read_back_unchanged_in_another_delete_withholds_the_relation() {
        let removed = observed_call(1).dependent(
            "/comments",
            &["postId"],
            json!({"id": 6, "postId": 5}),
            None,
        );
        let kept = observed_call(4).dependent(
            "/comments",
            &["postId"],
            json!({"id": 7, "postId": 2}),
            Some(json!({"id": 7, "postId": 2})),
        );
        assert!(matches!(
            learn(Effect::Delete, vec![removed, kept]),
            LearnOutcome::NoExplanation { .. }
        ));
    }

    #[test]
    fn other_writes_and_deletes_without_dependents_learn_nothing() {
        let call = observed_call(1).dependent("/comments", &["postId"], json!({"postId": 5}), None);
        assert!(matches!(
            learn(Effect::Update, vec![call]),
            LearnOutcome::NoExplanation { .. }
        ));
        assert!(matches!(
            learn(Effect::Delete, vec![observed_call(1)]),
            LearnOutcome::NoExplanation { .. }
        ));
    }
}

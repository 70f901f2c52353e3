//! Numbering across a type's collections: a create's integer field that a rule numbers from the
//! largest value held (a stage asking for [`HeldIndexKind::LargestInteger`]: the `sequence`
//! stage's ids) continues from the largest the whole type holds, in every collection, when the
//! state shows one numbering shared by the type's collections: at least two of them hold the
//! field and no value is held in two (the entries of list 1 are 1 to 7, those of list 2 are 8
//! and 9, so a create in list 1 is numbered 10, not 8). Collections numbered apart each start
//! again (both would hold 1), so they never show this. Learned from the state the build observed
//! (`FieldModel::numbered_by_type`); served by answering the rule's largest held value over every
//! collection of the type the live state holds ([`type_largest`]).

use std::collections::{BTreeMap, BTreeSet};

use rea_plugin_api::contracts::rule::HeldIndexKind;
use rea_plugin_api::json::Json;

use super::Draft;
use super::model::Effect;
use crate::derive::entities::collection_key;
use crate::model::StateView;
use crate::rules::RuleSet;
use crate::store::LiveState;

/// Notes on a create's plan the top-level fields its largest-value rules number across the
/// type's collections.
pub(super) fn learn(draft: &mut Draft, state: &StateView, rules: &RuleSet) {
    if draft.plan.effect != Effect::Create {
        return;
    }
    let Some(entity_type) = draft.plan.entity_type().map(str::to_owned) else {
        return;
    };
    let numbered: Vec<String> = largest_value_fields(&draft.plan, rules)
        .into_iter()
        .filter(|field| {
            let held = state
                .entities
                .iter()
                .filter(|entity| entity.entity_type == entity_type)
                .map(|entity| (entity.collection.as_str(), &entity.fields));
            shared_numbering(held, field)
        })
        .collect();
    if let Some(fields) = draft.plan.fields.as_mut() {
        fields.numbered_by_type = numbered;
    }
}

/// The top-level fields explained by a rule whose stage asks for the largest integer held.
fn largest_value_fields(plan: &super::model::WritePlan, rules: &RuleSet) -> BTreeSet<String> {
    plan.rules
        .iter()
        .filter(|learned| {
            rules.step(&learned.stage).is_some_and(|step| {
                step.handle
                    .held_indexes()
                    .contains(&HeldIndexKind::LargestInteger)
            })
        })
        .flat_map(|learned| &learned.explains)
        .filter_map(|pointer| rea_plugin_api::rule_fields::top_field(pointer))
        .collect()
}

/// Whether, of the held entities (collection, fields) of one type, at least two collections hold
/// the field as integers and no value is held in two of them.
fn shared_numbering<'a>(held: impl Iterator<Item = (&'a str, &'a Json)>, field: &str) -> bool {
    let mut holder: BTreeMap<i128, &str> = BTreeMap::new();
    let mut collections: BTreeSet<&str> = BTreeSet::new();
    for (collection, fields) in held {
        let Some(value) = fields.get(field).and_then(super::apply::integer) else {
            continue;
        };
        let collection = collection_key(collection);
        collections.insert(collection);
        if *holder.entry(value).or_insert(collection) != collection {
            return false;
        }
    }
    collections.len() >= 2
}

/// The largest integer the type holds at a numbered field, in any of its collections (or a
/// sequence generated there); `None` for a field the plan does not number across the type.
pub(super) fn type_largest(
    plan: &super::model::WritePlan,
    state: &LiveState,
    entity_type: &str,
    field: &str,
) -> Option<i128> {
    let numbered = plan
        .fields
        .as_ref()
        .is_some_and(|fields| fields.numbered_by_type.iter().any(|name| name == field));
    if !numbered {
        return None;
    }
    let kinds = BTreeSet::from([HeldIndexKind::LargestInteger]);
    state
        .collections_of(entity_type)
        .into_iter()
        .filter_map(|collection| {
            let held = state
                .held_index(entity_type, collection, field, &kinds)
                .largest_integer();
            held.max(state.sequence(collection, field))
        })
        .max()
}

/// Keeps the held indexes of a numbered field for every collection of the type, so serving
/// lists no collection (see [`super::apply::keep_held_indexes`]).
pub(super) fn keep_indexes(
    plan: &super::model::WritePlan,
    state: &mut LiveState,
    entity_type: &str,
) {
    let Some(fields) = plan.fields.as_ref() else {
        return;
    };
    if fields.numbered_by_type.is_empty() {
        return;
    }
    let kinds = BTreeSet::from([HeldIndexKind::LargestInteger]);
    let collections: Vec<String> = state
        .collections_of(entity_type)
        .into_iter()
        .map(str::to_owned)
        .collect();
    for collection in &collections {
        for field in &fields.numbered_by_type {
            state.keep_held_index(entity_type, collection, field, &kinds);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collections_share_a_numbering_when_none_holds_another_ones_value() {
        let entity = |id: i64| Json::parse(format!(r#"{{"id": {id}}}"#).as_bytes()).unwrap();
        let shared = [
            ("/lists/1/entries/", entity(1)),
            ("/lists/1/entries/", entity(2)),
            ("/lists/2/entries/", entity(3)),
        ];
        let held = || {
            shared
                .iter()
                .map(|(collection, fields)| (*collection, fields))
        };
        assert!(shared_numbering(held(), "id"));
        // Each collection numbered apart: both hold 1.
        let apart = [
            ("/lists/1/entries/", entity(1)),
            ("/lists/1/entries/", entity(2)),
            ("/lists/2/entries/", entity(1)),
        ];
        let held = || {
            apart
                .iter()
                .map(|(collection, fields)| (*collection, fields))
        };
        assert!(!shared_numbering(held(), "id"));
        // One collection shows no numbering across collections.
        let alone = [
            ("/lists/1/entries/", entity(1)),
            ("/lists/1/entries/", entity(2)),
        ];
        let held = || {
            alone
                .iter()
                .map(|(collection, fields)| (*collection, fields))
        };
        assert!(!shared_numbering(held(), "id"));
    }
}

//! A delete's dependents carried over to its sibling collection (sibling transfer, opt-in): the
//! source delete learned that deleting a customer clears `customerId` on the tickets naming it;
//! the inferred delete of an agent clears the tickets' `agentId`.
//!
//! The member is found in the held entities, never by its name: each effect of the source's
//! `dependents` rule names a top-level member of the dependent type whose held values are ids of
//! the source type (every non-null one, at least one), and the sibling's effect takes the one
//! other member of that type whose held values are ids of the sibling type alike. Two such
//! members (a number that could be an id of either) or none: the rule stays behind, and so it
//! does when any of its effects cannot be carried (a member nested in objects, a dependent type
//! holding no entity).

use std::collections::{BTreeMap, BTreeSet};

use rea_plugin_api::contracts::rule::DependentEffect;
use rea_plugin_api::json::{Json, from_json};

use super::model::PlanRule;
use crate::model::StateView;
use crate::render::scalar_text;

/// The source plan's `dependents` rule rewritten for the sibling type, when every effect's
/// member has its one counterpart (see the module docs).
pub(super) fn sibling_dependents(
    rules: &[PlanRule],
    state: &StateView,
    source_type: &str,
    sibling_type: &str,
) -> Option<PlanRule> {
    let rule = rules
        .iter()
        .find(|rule| rule.rule.get("dependents").is_some())?;
    let effects: Vec<DependentEffect> = from_json(rule.rule.get("dependents")?).ok()?;
    let held = HeldValues::of(state);
    let (source_ids, sibling_ids) = (held.ids(source_type)?, held.ids(sibling_type)?);
    let carried = effects
        .into_iter()
        .map(|effect| {
            let members = held.members(&effect.entity_type)?;
            let identity = state
                .types
                .iter()
                .find(|kind| kind.collection_template == effect.entity_type)
                .map(|kind| kind.identity_field.as_str());
            let names = |ids: &BTreeSet<&str>| -> Vec<&str> {
                members
                    .iter()
                    .filter(|(name, values)| {
                        Some(**name) != identity
                            && !values.is_empty()
                            && values.iter().all(|value| ids.contains(value.as_str()))
                    })
                    .map(|(name, _)| *name)
                    .collect()
            };
            if effect.field.starts_with('/') || !names(source_ids).contains(&effect.field.as_str())
            {
                return None;
            }
            let candidates = names(sibling_ids);
            let [field] = candidates
                .iter()
                .filter(|name| **name != effect.field)
                .collect::<Vec<_>>()[..]
            else {
                return None;
            };
            Some(DependentEffect {
                field: (*field).to_owned(),
                ..effect
            })
        })
        .collect::<Option<Vec<_>>>()?;
    let mut object = rule.rule.as_object()?.clone();
    object.insert("dependents", Json::from_serialize(&carried).ok()?);
    Some(PlanRule {
        rule: Json::Object(object),
        ..rule.clone()
    })
}

/// The held entities' ids per type, and per type each top-level member's non-null scalar values
/// as text (a member also holding an object or an array is left out).
struct HeldValues<'s> {
    ids: BTreeMap<&'s str, BTreeSet<&'s str>>,
    members: BTreeMap<&'s str, BTreeMap<&'s str, BTreeSet<String>>>,
}

impl<'s> HeldValues<'s> {
    fn of(state: &'s StateView) -> Self {
        let mut ids: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        let mut members: BTreeMap<&str, BTreeMap<&str, BTreeSet<String>>> = BTreeMap::new();
        let mut compound: BTreeSet<(&str, &str)> = BTreeSet::new();
        for entity in &state.entities {
            let kind = entity.entity_type.as_str();
            ids.entry(kind).or_default().insert(entity.id.as_str());
            let Some(object) = entity.fields.as_object() else {
                continue;
            };
            let of_type = members.entry(kind).or_default();
            for (name, value) in object.iter() {
                let values = of_type.entry(name).or_default();
                match value {
                    Json::Null => {}
                    Json::Object(_) | Json::Array(_) => {
                        compound.insert((kind, name));
                    }
                    _ => {
                        if let Some(text) = scalar_text(value) {
                            values.insert(text);
                        }
                    }
                }
            }
        }
        for (kind, name) in compound {
            if let Some(of_type) = members.get_mut(kind) {
                of_type.remove(name);
            }
        }
        Self { ids, members }
    }

    fn ids(&self, kind: &str) -> Option<&BTreeSet<&'s str>> {
        self.ids.get(kind)
    }

    fn members(&self, kind: &str) -> Option<&BTreeMap<&'s str, BTreeSet<String>>> {
        self.members.get(kind)
    }
}

//! The members a replacing update requires (after pass 3): an update whose writes replace the
//! entity with the sent object (`FieldModel::replace`, the build's reads confirming a member left
//! out is removed) requires only the members its entity type's creates required. A member some
//! successful create of the type left out (the application stored an entity without it) is not
//! required by such an update either, though every recorded update sent it: the update stores
//! the sent object as a create does, and the build showed the application accepting one without
//! that member (json-server's `POST /posts {"title"}` beside its one `PUT /posts/5` sending every
//! member). A member no create left out stays required, as every recorded call sent it.

use std::collections::BTreeSet;

use super::Draft;
use super::model::{Effect, WritePlan};

/// The (entity type, member) pairs some successful create of the type left out: a create plan's
/// body members that are not required.
fn optional_in_creates(drafts: &[Draft]) -> BTreeSet<(String, String)> {
    drafts
        .iter()
        .map(|draft| &draft.plan)
        .filter(|plan| plan.effect == Effect::Create && !plan.bulk)
        .filter_map(|plan| Some((plan.entity_type()?, plan.body.as_ref()?)))
        .flat_map(|(entity_type, body)| {
            body.members
                .iter()
                .filter(|(_, member)| !member.required)
                .map(move |(name, _)| (entity_type.to_owned(), name.clone()))
        })
        .collect()
}

/// Whether a plan replaces its one entity with the sent object.
fn replaces(plan: &WritePlan) -> bool {
    plan.effect == Effect::Update
        && !plan.bulk
        && plan.fields.as_ref().is_some_and(|fields| fields.replace)
}

/// Relaxes the required members of every replacing update to those its type's creates required.
pub(super) fn learn(drafts: &mut [Draft]) {
    let optional = optional_in_creates(drafts);
    if optional.is_empty() {
        return;
    }
    for draft in drafts.iter_mut().filter(|draft| replaces(&draft.plan)) {
        let Some(entity_type) = draft.plan.entity_type().map(str::to_owned) else {
            continue;
        };
        let Some(body) = draft.plan.body.as_mut() else {
            continue;
        };
        for (name, member) in body.members.iter_mut() {
            if optional.contains(&(entity_type.clone(), name.clone())) {
                member.required = false;
            }
        }
    }
}

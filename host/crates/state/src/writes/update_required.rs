//! The members an update requires (after pass 3): an update of one entity requires only the
//! members its entity type's creates required. A member some successful create of the type left
//! out (the application stored an entity without it) is not required by an update, though every
//! recorded update sent it: an update replacing the entity with the sent object
//! (`FieldModel::replace`, the build's reads confirming a member left out is removed) stores it
//! as a create does (json-server's `POST /posts {"title"}` beside its one `PUT /posts/5` sending
//! every member), and an update merging the sent members keeps what a call leaves out
//! (dynamic-rest's one `PUT /api/tasks/12/` sending every member, Django REST framework requiring
//! of a `PUT` only what a create requires, beside creates leaving `due` and `assignee` out). A
//! member no create left out stays required, as every recorded call sent it; without a create of
//! the type nothing changes.
//!
//! Every update of one entity also accepts each member with the JSON types its type's creates
//! sent it with: it stores the sent members as a create does, so a member the recorded updates
//! sent only as `null` takes the number a create sent there (FeathersJS's `PUT /tasks/15` clearing
//! `assigneeId` beside `POST /tasks` sending `"assigneeId": 2`).

use std::collections::{BTreeMap, BTreeSet};

use super::Draft;
use super::model::Effect;

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

/// The JSON types the successful creates of each entity type sent each body member with.
fn types_in_creates(drafts: &[Draft]) -> BTreeMap<(String, String), Vec<String>> {
    let mut types: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    let creates = drafts
        .iter()
        .map(|draft| &draft.plan)
        .filter(|plan| plan.effect == Effect::Create && !plan.bulk)
        .filter_map(|plan| Some((plan.entity_type()?, plan.body.as_ref()?)));
    for (entity_type, body) in creates {
        for (name, member) in &body.members {
            let known = types
                .entry((entity_type.to_owned(), name.clone()))
                .or_default();
            for kind in &member.types {
                if !known.contains(kind) {
                    known.push(kind.clone());
                }
            }
        }
    }
    types
}

/// Relaxes the required members of every update of one entity to those its type's creates
/// required, and widens each member's types by those its type's creates sent it with.
pub(super) fn learn(drafts: &mut [Draft]) {
    let optional = optional_in_creates(drafts);
    let created_types = types_in_creates(drafts);
    for draft in drafts
        .iter_mut()
        .filter(|draft| draft.plan.effect == Effect::Update && !draft.plan.bulk)
    {
        let Some(entity_type) = draft.plan.entity_type().map(str::to_owned) else {
            continue;
        };
        let Some(body) = draft.plan.body.as_mut() else {
            continue;
        };
        for (name, member) in body.members.iter_mut() {
            let key = (entity_type.clone(), name.clone());
            if optional.contains(&key) {
                member.required = false;
            }
            for kind in created_types.get(&key).into_iter().flatten() {
                if !member.types.contains(kind) {
                    member.types.push(kind.clone());
                    member.types.sort();
                }
            }
        }
    }
}

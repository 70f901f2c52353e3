//! The collections a write's required members were shown on (after pass 3): one write tool over
//! sibling collections, its target's collection named by a path parameter (Kinto's
//! `/buckets/workspace/collections/{collection_id}/records`), learned its members from the calls
//! it recorded, all to the collections those calls named (`tasks`). A member every such call sent
//! is required of a call to one of those collections, or to one whose held entities each hold
//! every required member some held entity of the type stores (FlexGet's entry lists: every
//! list's entries hold `title` and `original_url`); which members another collection's entities need (Kinto's projects hold no
//! `title`, and a new collection holds nothing) no recording shows, so a call to it requires none,
//! each member it sends still accepted only with the recorded JSON types.

use std::borrow::Cow;
use std::collections::BTreeSet;

use rea_manifest::segments::split_path;
use rea_plugin_api::json::Object;

use super::Draft;
use super::apply::collection_at;
use super::model::BodyModel;
use crate::call::Call;
use crate::model::StateView;
use crate::observation::Timeline;

/// Sets, on each plan whose target's collection is named by a path parameter and that requires
/// a member, the collections its successful recorded calls named and those whose held entities
/// each hold every required member (see the module docs).
pub(super) fn learn(drafts: &mut [Draft], timeline: &Timeline, state: &StateView) {
    for draft in drafts.iter_mut() {
        let Some(segments) = varying_collection(&draft.plan) else {
            continue;
        };
        let entity_type = draft.plan.entity_type().map(str::to_owned);
        let Some(body) = draft.plan.body.as_mut() else {
            continue;
        };
        let required: Vec<&String> = (body.members.iter())
            .filter(|(_, member)| member.required)
            .map(|(name, _)| name)
            .collect();
        if required.is_empty() {
            continue;
        }
        let mut named: BTreeSet<String> = timeline
            .all(draft.tool)
            .filter(|call| call.is_success())
            .filter_map(|call| collection_at(&call.segments, segments))
            .collect();
        let held: Vec<(String, &Object)> = (state.entities.iter())
            .filter(|entity| Some(entity.entity_type.as_str()) == entity_type.as_deref())
            .filter_map(|entity| {
                let spelled = split_path(&entity.collection);
                Some((
                    collection_at(&spelled, segments)?,
                    entity.fields.as_object()?,
                ))
            })
            .collect();
        // The required members some held entity of the type stores (FlexGet's sent `url` is
        // stored by none).
        let stored: Vec<&String> = (required.iter().copied())
            .filter(|name| (held.iter()).any(|(_, fields)| fields.get(name.as_str()).is_some()))
            .collect();
        let mut lacking: BTreeSet<String> = BTreeSet::new();
        let mut holding: BTreeSet<String> = BTreeSet::new();
        for (collection, fields) in held {
            let holds = stored
                .iter()
                .all(|name| fields.get(name.as_str()).is_some());
            if holds { &mut holding } else { &mut lacking }.insert(collection);
        }
        named.extend(holding.difference(&lacking).cloned());
        body.required_in = named.into_iter().collect();
    }
}

/// How many leading segments name the target's collection, where one of them is a parameter of
/// the tool's path template.
fn varying_collection(plan: &super::model::WritePlan) -> Option<usize> {
    let count = plan.target.as_ref()?.collection_segments;
    let template = split_path(&plan.path_template);
    (count > 0
        && template
            .iter()
            .take(count)
            .any(|segment| segment.starts_with('{')))
    .then_some(count)
}

/// The body model a call is checked against: the model itself, or, for a call to a collection its
/// required members were not shown on, the model requiring none.
pub(super) fn for_call<'m>(
    model: &'m BodyModel,
    plan: &super::model::WritePlan,
    call: &Call,
) -> Cow<'m, BodyModel> {
    let called = || {
        collection_at(
            &call.segments(&plan.path_template),
            varying_collection(plan)?,
        )
    };
    let elsewhere = !model.required_in.is_empty()
        && called().is_some_and(|collection| !model.required_in.contains(&collection));
    if !elsewhere {
        return Cow::Borrowed(model);
    }
    let mut relaxed = model.clone();
    for member in relaxed.members.values_mut() {
        member.required = false;
    }
    Cow::Owned(relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_collection_is_its_leading_segments() {
        let path = split_path("/v1/buckets/workspace/collections/tasks/records/x");
        assert_eq!(
            collection_at(&path, 6).as_deref(),
            Some("/v1/buckets/workspace/collections/tasks/records")
        );
        assert_eq!(collection_at(&split_path("/v1/buckets"), 6), None);
    }
}

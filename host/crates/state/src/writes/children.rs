//! Nested child creations: a create body's member holding an array of objects that the recorded
//! answer shows back as new entities of another held type (a project created with its tasks,
//! each task answered with the id its own type generated and the new project's id in one of its
//! members).
//!
//! Learned per create plan from its recorded calls: a member counts when, in every call that
//! sent it, each sent object comes back in the answer's same member, at the same place, with
//! every member it sent unchanged, the identity of exactly one other type's entities (the child
//! type: the type whose stored fields hold every member the answered object shows) that it did
//! not send, and one member it did not send holding the parent's new id (the child's reference
//! to its parent). Every call sending the member must agree on the child type and reference.
//!
//! The plan names what it learned ([`NestedChildren`]); the replay and serving that apply such
//! children build on it.

use rea_plugin_api::json::{Json, Object};

use super::apply::sent_members;
use super::model::{Effect, NestedChildren, WritePlan};
use super::observe::Call;
use super::{Draft, Views};

/// Learns the plan's nested child members from its draft's calls.
pub(super) fn learn(draft: &mut Draft, calls: &[Call], views: &Views) {
    if draft.plan.effect != Effect::Create || draft.plan.bulk {
        return;
    }
    let Some(parent) = parent_type(&draft.plan) else {
        return;
    };
    let mut learned: Vec<NestedChildren> = Vec::new();
    let mut contradicted: Vec<String> = Vec::new();
    for call in draft.calls.iter().map(|index| &calls[*index]) {
        for found in call_children(&draft.plan, call, views, &parent) {
            match learned.iter().find(|known| known.member == found.member) {
                Some(known) if *known != found => contradicted.push(found.member.clone()),
                Some(_) => {}
                None => learned.push(found),
            }
        }
    }
    learned.retain(|found| !contradicted.contains(&found.member));
    learned.sort_by(|a, b| a.member.cmp(&b.member));
    draft.plan.children = learned;
}

/// The plan's written type and its identity's top-level member name.
fn parent_type(plan: &WritePlan) -> Option<(String, String)> {
    let target = plan.target.as_ref()?;
    let entity_type = target.entity_type.clone()?;
    let identity = top_level(target.identity_field.as_deref()?)?;
    Some((entity_type, identity))
}

/// A top-level member's name from an identity field (`id` or `/id`); `None` for a nested one.
fn top_level(identity: &str) -> Option<String> {
    let name = identity.strip_prefix('/').unwrap_or(identity);
    (!name.is_empty() && !name.contains('/'))
        .then(|| rea_plugin_api::json::unescape_pointer_segment(name))
}

/// The nested child members one recorded call shows.
fn call_children(
    plan: &WritePlan,
    call: &Call,
    views: &Views,
    (parent_type, parent_identity): &(String, String),
) -> Vec<NestedChildren> {
    let crate::observation::RequestBody::Json(body) = &call.request else {
        return Vec::new();
    };
    let Some(sent) = sent_members(plan, Some(body)) else {
        return Vec::new();
    };
    let Some(answered) = call
        .response
        .as_ref()
        .zip(call.response_pointer.as_deref())
        .and_then(|(response, pointer)| response.pointer(pointer))
        .and_then(Json::as_object)
    else {
        return Vec::new();
    };
    let Some(parent_id) = answered.get(parent_identity.as_str()) else {
        return Vec::new();
    };
    sent.iter()
        .filter_map(|(member, value)| {
            let items = object_items(value)?;
            let shown = object_items(answered.get(member)?)?;
            if items.len() != shown.len() {
                return None;
            }
            let children = items
                .iter()
                .zip(&shown)
                .map(|(item, shown)| child_of(item, shown, views, parent_type, parent_id))
                .collect::<Option<Vec<_>>>()?;
            let (first, rest) = children.split_first()?;
            if rest.iter().any(|child| child != first) {
                return None;
            }
            let (entity_type, reference) = first.clone();
            Some(NestedChildren {
                member: (*member).to_owned(),
                entity_type,
                reference,
            })
        })
        .collect()
}

/// A non-empty array of objects.
fn object_items(value: &Json) -> Option<Vec<&Object>> {
    let items = value.as_array()?;
    (!items.is_empty())
        .then(|| items.iter().map(Json::as_object).collect())
        .flatten()
}

/// The child type and reference member one sent object and its answered counterpart show.
fn child_of(
    sent: &Object,
    shown: &Object,
    views: &Views,
    parent_type: &str,
    parent_id: &Json,
) -> Option<(String, String)> {
    if sent
        .iter()
        .any(|(member, value)| shown.get(member) != Some(value))
    {
        return None;
    }
    let unsent = |member: &str| !sent.contains_key(member);
    let mut types = views.types.iter().filter_map(|(entity_type, info)| {
        let identity = top_level(&info.identity)?;
        (entity_type.as_str() != parent_type
            && unsent(&identity)
            && shown.get(&identity).is_some_and(is_id)
            && views
                .field_types
                .get(entity_type.as_str())
                .is_some_and(|fields| shown.keys().all(|member| fields.contains_key(member))))
        .then_some((entity_type, identity))
    });
    let (entity_type, identity) = types.next()?;
    if types.next().is_some() {
        return None;
    }
    // The reference: the one member besides the child's identity holding the parent's id.
    let mut references = shown
        .iter()
        .filter(|(member, value)| *member != identity && unsent(member) && *value == parent_id)
        .map(|(member, _)| member.to_owned());
    let reference = references.next()?;
    references
        .next()
        .is_none()
        .then(|| (entity_type.clone(), reference))
}

/// Whether a value can be a generated identity (an integer or a non-empty string).
fn is_id(value: &Json) -> bool {
    value
        .as_number()
        .is_some_and(|number| number.as_u64().is_some())
        || value.as_str().is_some_and(|text| !text.is_empty())
}

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
//! The plan names what it learned ([`NestedChildren`]): besides the child type, identity and
//! reference, the members an answered child shows (in order) and the value it shows for a
//! member it was not sent, where every recorded child left unsent showed one value.
//!
//! Applied with the create ([`prepare`], [`place`]): the parent holds the member as its
//! children's ids (an empty list when the call nests none, as a new parent has no children);
//! each child is created in the child type's one collection with the member values it was sent,
//! the learned values for the rest (a member without one must be sent), the parent's id in its
//! reference and the identity the child collection's sequence generates next (replaying, the
//! recorded answer's child, as other rule-explained values are taken from the recorded outcome).
//! The answer shows the children where the recorded answer showed them as objects.

use std::collections::{BTreeMap, BTreeSet};

use rea_plugin_api::contracts::rule::HeldIndexKind;
use rea_plugin_api::json::{Json, Object};

use super::apply::{Change, Refused, Values, sent_members};
use super::model::{Effect, NestedChildren, WritePlan};
use super::observe::Call;
use super::{Draft, Views};
use crate::model::Entity;
use crate::render::scalar_text;
use crate::store::{LiveState, Position};

/// Learns the plan's nested child members from its draft's calls.
pub(super) fn learn(draft: &mut Draft, calls: &[Call], views: &Views) {
    if draft.plan.effect != Effect::Create || draft.plan.bulk {
        return;
    }
    let Some(parent) = parent_type(&draft.plan) else {
        return;
    };
    let mut learned: Vec<(NestedChildren, Vec<(&Object, &Object)>)> = Vec::new();
    let mut contradicted: Vec<String> = Vec::new();
    for call in draft.calls.iter().map(|index| &calls[*index]) {
        for (found, pairs) in call_children(&draft.plan, call, views, &parent) {
            match learned
                .iter_mut()
                .find(|(known, _)| known.member == found.member)
            {
                Some((known, _)) if *known != found => contradicted.push(found.member.clone()),
                Some((_, known)) => known.extend(pairs),
                None => learned.push((found, pairs)),
            }
        }
    }
    learned.retain(|(found, _)| !contradicted.contains(&found.member));
    let mut children: Vec<NestedChildren> = learned
        .into_iter()
        .map(|(found, pairs)| shaped(found, &pairs))
        .collect();
    children.sort_by(|a, b| a.member.cmp(&b.member));
    // A parent is made with no children too: the nested member is never required.
    if let Some(body) = draft.plan.body.as_mut() {
        for nested in &children {
            if let Some(member) = body.members.get_mut(&nested.member) {
                member.required = false;
            }
        }
    }
    draft.plan.children = children;
}

/// The learned children with the members an answered child shows and the values it shows for
/// members it was not sent (dropped where two unsent children showed different ones).
fn shaped(mut found: NestedChildren, pairs: &[(&Object, &Object)]) -> NestedChildren {
    let mut defaults: BTreeMap<String, Json> = BTreeMap::new();
    let mut varied: BTreeSet<String> = BTreeSet::new();
    for (sent, shown) in pairs {
        for (member, value) in shown.iter() {
            let generated = *member == found.identity || *member == found.reference;
            if generated || sent.contains_key(member) || varied.contains(member) {
                continue;
            }
            match defaults.get(member) {
                Some(known) if known != value => {
                    defaults.remove(member);
                    varied.insert(member.to_owned());
                }
                Some(_) => {}
                None => {
                    defaults.insert(member.to_owned(), value.clone());
                }
            }
        }
    }
    found.members = pairs
        .first()
        .map(|(_, shown)| shown.keys().map(str::to_owned).collect())
        .unwrap_or_default();
    found.defaults = defaults;
    found
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

/// The nested child members one recorded call shows, each with its (sent, answered) objects.
fn call_children<'c>(
    plan: &WritePlan,
    call: &'c Call,
    views: &Views,
    (parent_type, parent_identity): &(String, String),
) -> Vec<(NestedChildren, Vec<(&'c Object, &'c Object)>)> {
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
            let (entity_type, identity, reference) = first.clone();
            let found = NestedChildren {
                member: (*member).to_owned(),
                entity_type,
                reference,
                identity,
                members: Vec::new(),
                defaults: BTreeMap::new(),
            };
            Some((found, items.into_iter().zip(shown).collect()))
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

/// The child type, its identity and its reference member one sent object and its answered
/// counterpart show.
fn child_of(
    sent: &Object,
    shown: &Object,
    views: &Views,
    parent_type: &str,
    parent_id: &Json,
) -> Option<(String, String, String)> {
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
        .then(|| (entity_type.clone(), identity, reference))
}

/// Whether a value can be a generated identity (an integer or a non-empty string).
fn is_id(value: &Json) -> bool {
    value
        .as_number()
        .is_some_and(|number| number.as_u64().is_some())
        || value.as_str().is_some_and(|text| !text.is_empty())
}

/// A child a create makes, before its parent's id is known.
#[derive(Debug)]
pub(super) struct PendingChild {
    entity_type: String,
    collection: String,
    identity: String,
    reference: String,
    id: Json,
    fields: Object,
}

/// The children a create's call nests (in the members it sent), its parent's member set to
/// their ids (an empty list when it nests none); refused when a child cannot be made as the recorded ones were.
pub(super) fn prepare(
    plan: &WritePlan,
    state: &LiveState,
    values: &Values<'_>,
    (sent, fields): (Option<&Object>, &mut Json),
) -> Result<Vec<PendingChild>, Refused> {
    let mut pending = Vec::new();
    for nested in &plan.children {
        let Some(parent) = fields.as_object_mut() else {
            return Err(refused(
                "invalid_arguments",
                "the body must be a JSON object",
            ));
        };
        let items = match sent.and_then(|sent| sent.get(&nested.member)) {
            None => Vec::new(),
            Some(value) => object_items(value)
                .or_else(|| {
                    value
                        .as_array()
                        .filter(|items| items.is_empty())
                        .map(|_| Vec::new())
                })
                .ok_or_else(|| {
                    refused(
                        "invalid_arguments",
                        format!("{} must be an array of objects", nested.member),
                    )
                })?
                .into_iter()
                .cloned()
                .collect(),
        };
        let collection = child_collection(state, nested)?;
        let shown = observed_children(values, &nested.member);
        let mut next = next_id(state, nested, &collection);
        let mut ids = Vec::with_capacity(items.len());
        for (index, item) in items.iter().enumerate() {
            let child = match &shown {
                Some(shown) => observed_child(shown, index, nested)?,
                None => {
                    next += 1;
                    served_child(item, nested, next)?
                }
            };
            ids.push(child.0.clone());
            pending.push(PendingChild {
                entity_type: nested.entity_type.clone(),
                collection: collection.clone(),
                identity: nested.identity.clone(),
                reference: nested.reference.clone(),
                id: child.0,
                fields: child.1,
            });
        }
        parent.insert(&nested.member, Json::Array(ids));
    }
    Ok(pending)
}

/// The one collection holding the child type's entities.
fn child_collection(state: &LiveState, nested: &NestedChildren) -> Result<String, Refused> {
    match state.collections_of(&nested.entity_type).as_slice() {
        [collection] => Ok((*collection).to_owned()),
        _ => Err(refused(
            "not_modelled",
            format!(
                "the state holds the {} children of this write in no one collection",
                nested.member
            ),
        )),
    }
}

/// Replaying: the children the recorded answer shows in the member.
fn observed_children<'v>(values: &'v Values<'_>, member: &str) -> Option<&'v [Json]> {
    match values {
        Values::Observed { response, .. } => response
            .and_then(|response| response.get(member))
            .and_then(Json::as_array)
            .map(Vec::as_slice)
            .or(Some(&[])),
        Values::Served { .. } => None,
    }
}

/// Replaying: the recorded answer's child at `index`, and its identity.
fn observed_child(
    shown: &[Json],
    index: usize,
    nested: &NestedChildren,
) -> Result<(Json, Object), Refused> {
    shown
        .get(index)
        .and_then(Json::as_object)
        .and_then(|child| Some((child.get(&nested.identity)?.clone(), child.clone())))
        .ok_or_else(|| {
            refused(
                "not_found",
                "the recorded answer does not show this nested child",
            )
        })
}

/// The largest integer identity the child collection's sequence generated or holds (its held
/// index when one is kept, else a pass over the collection).
fn next_id(state: &LiveState, nested: &NestedChildren, collection: &str) -> i128 {
    let kinds = BTreeSet::from([HeldIndexKind::LargestInteger]);
    let held = state
        .held_index(&nested.entity_type, collection, &nested.identity, &kinds)
        .largest_integer();
    held.max(state.sequence(collection, &nested.identity))
        .unwrap_or(0)
}

/// Serving: a child object with the members it was sent, the learned values for the rest and
/// the generated identity; its reference is set once the parent's id is known.
fn served_child(
    item: &Object,
    nested: &NestedChildren,
    id: i128,
) -> Result<(Json, Object), Refused> {
    let generated = |member: &str| member == nested.identity || member == nested.reference;
    if let Some((member, _)) = item.iter().find(|(member, _)| {
        generated(member) || !nested.members.iter().any(|known| known == member)
    }) {
        return Err(refused(
            "not_modelled",
            format!(
                "a nested {} child may not send {member}: the recorded children never did",
                nested.member
            ),
        ));
    }
    let id = Json::Number(
        rea_plugin_api::json::Number::from_lexeme(&id.to_string())
            .ok_or_else(|| refused("internal_error", "the generated identity is not a number"))?,
    );
    let mut child = Object::with_capacity(nested.members.len());
    for member in &nested.members {
        let value = if *member == nested.identity {
            id.clone()
        } else if *member == nested.reference {
            Json::Null
        } else if let Some(value) = item.get(member).or_else(|| nested.defaults.get(member)) {
            value.clone()
        } else {
            return Err(refused(
                "invalid_arguments",
                format!(
                    "each nested {} child must send {member}: every recorded child sent it",
                    nested.member
                ),
            ));
        };
        child.insert(member, value);
    }
    Ok((id, child))
}

/// Places the pending children in the change, each referencing its parent's id.
pub(super) fn place(pending: Vec<PendingChild>, parent_id: &Json, change: &mut Change) {
    for child in pending {
        let mut fields = child.fields;
        fields.insert(&child.reference, parent_id.clone());
        let id = scalar_text(&child.id).unwrap_or_default();
        if let Some(value) = integer_of(&child.id) {
            change
                .sequences
                .push((child.collection.clone(), child.identity.clone(), value));
        }
        change.positions.push(Some(Position::Last));
        change.generated.push(BTreeMap::new());
        change.entities.push((
            None,
            Some(Entity {
                entity_type: child.entity_type,
                collection: child.collection,
                id,
                fields: Json::Object(fields),
                view_fields: BTreeMap::new(),
                record_ordinals: Vec::new(),
            }),
        ));
    }
}

/// An integer identity.
fn integer_of(value: &Json) -> Option<i128> {
    value
        .as_number()
        .and_then(|number| number.as_i64())
        .map(i128::from)
}

/// The answer's parent object with each nested member shown as its children's objects, where
/// the recorded answer showed that member's children as objects.
pub(super) fn shown_children(
    plan: &WritePlan,
    recorded: Option<&Json>,
    change: &Change,
    fields: &mut Json,
) {
    for nested in &plan.children {
        let expanded = recorded
            .and_then(|recorded| recorded.get(&nested.member))
            .and_then(Json::as_array)
            .is_some_and(|items| items.iter().any(|item| item.as_object().is_some()));
        if !expanded || change.plain {
            continue;
        }
        let children: Vec<Json> = change
            .entities
            .iter()
            .skip(1)
            .filter_map(|(_, after)| after.as_ref())
            .filter(|entity| entity.entity_type == nested.entity_type)
            .map(|entity| entity.fields.clone())
            .collect();
        if let Some(parent) = fields.as_object_mut() {
            parent.insert(&nested.member, Json::Array(children));
        }
    }
}

fn refused(code: &'static str, message: impl Into<String>) -> Refused {
    Refused {
        code,
        message: message.into(),
    }
}

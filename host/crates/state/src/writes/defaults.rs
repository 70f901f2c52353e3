//! Members a create may leave out, and an identity it may send (after pass 3, before the
//! confirmation): a one-object create learned from calls that each sent every member takes them
//! all as required, yet the type's other recorded creations (the rows of a batch sent to the
//! same tool, the rows an upsert created) may show a member left out and the value the
//! application stored for it (`{"title": "Book the venue", …}` without `status` created with
//! `"status": "todo"`; the one-object creates of another create tool of the type, Rails' nested
//! `POST /projects/{id}/tasks {"title"}` beside `POST /tasks`). Where every such creation that
//! left a member out stored one value, the member is optional and a served create leaving it out
//! stores that value (`FieldModel::defaults`). Where such a creation sent the type's identity and the entity was
//! created under it (an upsert creating row `40`), a create may send the identity too: it is
//! kept as sent rather than generated (`FieldModel::identity_as_sent`), and a held identity is
//! refused as any taken one is.
//!
//! Learned only from creations observed whole (no entity before, the entity after shown), in the
//! collection the plan's own calls wrote, matched to the row their body sent by position.
//!
//! The entities the state held before the build's writes tell it too ([`learn_held_nulls`]): a
//! member every recorded call sent and its entity stored as sent is not required where every
//! entity of the collection the state held holds it and one of them holds `null` there (a person
//! without an email beside the one create sending `email`): the application keeps entities
//! without a value for it, so a create may leave it out, and the entity it makes holds `null`
//! there (a default, as above). One level down too: a member every call sent inside an object
//! member stored as sent (a JSON:API resource's `attributes`), which every held entity's object
//! holds and one holds `null`, is set `null` where a create leaves it out
//! (`FieldModel::nested_constants`, set where absent).

use std::collections::BTreeMap;

use rea_plugin_api::json::{Json, Object};

use super::Draft;
use super::apply::sent_members;
use super::model::{Effect, MemberModel};
use super::observe::{After, Call, batch_items};
use crate::derive::entities::collection_key;
use crate::model::StateView;
use crate::observation::RequestBody;

/// One creation the type's recorded writes show: the row sent and the entity it left.
struct Creation<'c> {
    sent: &'c Object,
    created: &'c Object,
    /// The members its tool fills from the call's path (never left out).
    from_path: Vec<String>,
}

impl Creation<'_> {
    /// Whether the creation left the member out: neither sent nor filled from the path.
    fn left_out(&self, name: &str) -> bool {
        !self.sent.contains_key(name) && !self.from_path.iter().any(|member| member == name)
    }
}

/// Learns each served-so-far one-object create's defaults and sent identity from the other
/// drafts' (and its own batch calls') creations of its type.
pub(super) fn learn(drafts: &mut [Draft], calls: &[Call]) {
    for index in 0..drafts.len() {
        let Some((entity_type, collection)) = learnable(&drafts[index], calls) else {
            continue;
        };
        let creations = creations(drafts, calls, &entity_type, &collection);
        if !creations.is_empty() {
            apply(&mut drafts[index], &creations);
        }
    }
}

/// Learns a one-object create's members the state's held entities show optional (see the module
/// docs): each becomes optional, stored `null` when a call leaves it out.
pub(super) fn learn_held_nulls(draft: &mut Draft, calls: &[Call], state: &StateView) {
    let Some((entity_type, collection)) = learnable(draft, calls) else {
        return;
    };
    let held: Vec<&Object> = state
        .entities
        .iter()
        .filter(|entity| {
            entity.entity_type == entity_type
                && collection_key(&entity.collection) == collection_key(&collection)
        })
        .filter_map(|entity| entity.fields.as_object())
        .collect();
    let stored = stored_as_sent(draft, calls);
    let plan = &mut draft.plan;
    let identity = plan
        .target
        .as_ref()
        .and_then(|target| target.identity_field.clone());
    let (Some(body), Some(fields)) = (plan.body.as_mut(), plan.fields.as_mut()) else {
        return;
    };
    for (name, member) in body.members.iter_mut() {
        let optional = member.required
            && member.fixed.is_none()
            && identity.as_deref() != Some(name.as_str())
            && stored.contains(name)
            && shown_null(&held, name);
        if optional {
            member.required = false;
            fields.defaults.insert(name.clone(), Json::Null);
        }
    }
    for (name, nested) in nested_sent(draft, calls, &stored) {
        let inner: Vec<&Object> = held
            .iter()
            .filter_map(|entity| entity.get(&name)?.as_object())
            .collect();
        if inner.len() != held.len() {
            continue;
        }
        let Some(fields) = draft.plan.fields.as_mut() else {
            return;
        };
        for key in nested.iter().filter(|key| shown_null(&inner, key)) {
            let pointer = format!(
                "/{}/{}",
                rea_plugin_api::json::escape_pointer_segment(&name),
                rea_plugin_api::json::escape_pointer_segment(key)
            );
            fields.nested_constants.insert(pointer, Json::Null);
        }
    }
}

/// The object members every observed call of a create sent and stored as sent, each with the
/// members every call sent inside it (a JSON:API resource's `attributes`): a member a held
/// entity shows `null` there may be left out, the entity holding `null` (as [`learn_held_nulls`]
/// one level down).
fn nested_sent(draft: &Draft, calls: &[Call], stored: &[String]) -> Vec<(String, Vec<String>)> {
    let mut nested: Vec<(String, Vec<String>)> = Vec::new();
    for name in stored {
        let mut keys: Option<Vec<String>> = None;
        for call in draft.calls.iter().map(|call| &calls[*call]) {
            let RequestBody::Json(body) = &call.request else {
                continue;
            };
            let Some(sent) = sent_members(&draft.plan, Some(body)) else {
                continue;
            };
            let Some(Json::Object(inner)) = sent.get(name) else {
                keys = Some(Vec::new());
                break;
            };
            let here: Vec<String> = inner.keys().map(str::to_owned).collect();
            keys = Some(match keys {
                None => here,
                Some(before) => before
                    .into_iter()
                    .filter(|key| here.contains(key))
                    .collect(),
            });
        }
        if let Some(keys) = keys.filter(|keys| !keys.is_empty()) {
            nested.push((name.clone(), keys));
        }
    }
    nested
}

/// The members every observed call of a create sent and its created entity stored as sent
/// (none when no call shows the entity it created).
fn stored_as_sent(draft: &Draft, calls: &[Call]) -> Vec<String> {
    let mut stored: Option<Vec<String>> = None;
    for call in draft.calls.iter().map(|call| &calls[*call]) {
        let (None, After::Present(Json::Object(created)), RequestBody::Json(body)) =
            (&call.before, &call.after, &call.request)
        else {
            continue;
        };
        let Some(sent) = sent_members(&draft.plan, Some(body)) else {
            continue;
        };
        let here: Vec<String> = sent
            .iter()
            .filter(|(name, value)| created.get(name) == Some(*value))
            .map(|(name, _)| name.to_owned())
            .collect();
        stored = Some(match stored {
            None => here,
            Some(before) => before
                .into_iter()
                .filter(|name| here.contains(name))
                .collect(),
        });
    }
    stored.unwrap_or_default()
}

/// Whether every held entity holds the member and one of them holds `null` there.
fn shown_null(held: &[&Object], name: &str) -> bool {
    !held.is_empty()
        && held.iter().all(|entity| entity.contains_key(name))
        && held
            .iter()
            .any(|entity| entity.get(name) == Some(&Json::Null))
}

/// The type and collection of a one-object create still learning (not withheld), whose own
/// calls wrote one collection.
fn learnable(draft: &Draft, calls: &[Call]) -> Option<(String, String)> {
    let plan = &draft.plan;
    if plan.effect != Effect::Create || plan.bulk || plan.reason.is_some() {
        return None;
    }
    let body = plan.body.as_ref()?;
    if body.bulk_ids.is_some() || body.none || plan.fields.is_none() {
        return None;
    }
    let entity_type = plan.target.as_ref()?.entity_type.clone()?;
    let mut collections = draft
        .calls
        .iter()
        .filter_map(|call| calls[*call].key.as_ref())
        .map(|(_, collection, _)| collection.clone());
    let collection = collections.next()?;
    collections
        .all(|other| other == collection)
        .then_some((entity_type, collection))
}

/// The creations the type's recorded calls made in `collection`: the batch rows, each matched to
/// the row its body sent at the same position, and the one-object creates of the type's other
/// create tools ([`single_creation`]).
fn creations<'c>(
    drafts: &[Draft],
    calls: &'c [Call],
    entity_type: &str,
    collection: &str,
) -> Vec<Creation<'c>> {
    let mut found = Vec::new();
    for call in calls {
        let same_type = drafts
            .get(call.draft)
            .and_then(|draft| draft.plan.target.as_ref())
            .and_then(|target| target.entity_type.as_deref())
            == Some(entity_type);
        let RequestBody::Json(body) = &call.request else {
            continue;
        };
        if same_type && let Some(creation) = single_creation(&drafts[call.draft], call, collection)
        {
            found.push(creation);
            continue;
        }
        let Some(rows) = batch_items(body).filter(|rows| rows.len() == call.bulk.len()) else {
            continue;
        };
        if !same_type
            || call
                .key
                .as_ref()
                .is_some_and(|(_, written, _)| written != collection)
        {
            continue;
        }
        for (row, target) in rows.iter().zip(&call.bulk) {
            if let (Json::Object(sent), None, After::Present(Json::Object(created))) =
                (row, &target.before, &target.after)
            {
                found.push(Creation {
                    sent,
                    created,
                    from_path: Vec::new(),
                });
            }
        }
    }
    found
}

/// A one-object create of a create tool of the type that made its entity in `collection`,
/// observed whole (no entity before, the entity after shown): another route creating the same
/// entities (Rails' nested `POST /projects/{id}/tasks {"title"}` storing the `status` and
/// `priority` defaults `POST /tasks` never left out).
fn single_creation<'c>(draft: &Draft, call: &'c Call, collection: &str) -> Option<Creation<'c>> {
    let plan = &draft.plan;
    if plan.effect != Effect::Create || plan.bulk || !call.bulk.is_empty() {
        return None;
    }
    let (_, written, _) = call.key.as_ref()?;
    let (RequestBody::Json(body), None, After::Present(Json::Object(created))) =
        (&call.request, &call.before, &call.after)
    else {
        return None;
    };
    if written != collection {
        return None;
    }
    let sent = sent_members(plan, Some(body))?;
    let from_path = (plan.fields.iter())
        .flat_map(|fields| fields.path_fields.keys().cloned())
        .collect();
    Some(Creation {
        sent,
        created,
        from_path,
    })
}

/// The plan's required members the creations left out with one stored value become optional
/// defaults; its identity, when a creation sent it and was created under it, is accepted.
fn apply(draft: &mut Draft, creations: &[Creation<'_>]) {
    let plan = &mut draft.plan;
    let identity = plan
        .target
        .as_ref()
        .and_then(|target| target.identity_field.clone())
        .unwrap_or_else(|| "id".to_owned());
    let (Some(body), Some(fields)) = (plan.body.as_mut(), plan.fields.as_mut()) else {
        return;
    };
    let mut defaults: BTreeMap<String, Option<Json>> = BTreeMap::new();
    for (name, member) in &body.members {
        if !member.required || fields.defaults.contains_key(name) {
            continue;
        }
        for creation in creations.iter().filter(|c| c.left_out(name)) {
            let stored = creation.created.get(name).cloned();
            let agreed = defaults.entry(name.clone()).or_insert(stored.clone());
            if *agreed != stored {
                *agreed = None;
            }
        }
    }
    for (name, value) in defaults {
        if let (Some(value), Some(member)) = (value, body.members.get_mut(&name)) {
            member.required = false;
            fields.defaults.insert(name, value);
        }
    }
    let sent_identities: Vec<&Json> = creations
        .iter()
        .filter_map(|c| {
            c.sent
                .get(&identity)
                .filter(|&id| c.created.get(&identity) == Some(id))
        })
        .collect();
    if !sent_identities.is_empty() && !body.members.contains_key(&identity) {
        let mut types: Vec<String> = sent_identities
            .iter()
            .map(|id| id.type_name().to_owned())
            .collect();
        types.sort();
        types.dedup();
        body.members.insert(
            identity,
            MemberModel {
                types,
                required: false,
                fixed: None,
            },
        );
        fields.identity_as_sent = true;
    }
}

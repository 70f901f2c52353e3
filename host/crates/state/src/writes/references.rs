//! Sent references: a write sends a member as the id of an entity of another held type, or as
//! one text member of it (`"status": "in-progress"`, a status's `name`; `"assignedto": "3"`; an
//! array of them), and the entity read after the write holds it as that entity's link object
//! (`{"id": "5", "link": "…/status/5"}`, each member besides the id the linked entity's own).
//!
//! A member the entity does not store at all may be stored under another name: `assignee_id: 2`
//! read back as `assignee: {"id": 2, "name": "Kofi"}` (a write-only id beside a read-only nested
//! record), when exactly one member the call did not send holds the named entity's link object;
//! the plan keeps that name, and the re-spelled body sends the link object there instead.
//!
//! Learned from the build's write → read pairs (pass 2's observed calls): a member every call
//! that sent it shows read back as the link objects of the entities its values name, the linked
//! type pinned by the objects being parts of its held entities; the plan keeps the member, the
//! linked type, the link object's members and the text members the calls named entities by.
//! The observed calls' bodies are re-spelled with the link objects (so the write stored what it
//! was sent), and a served call's body is re-spelled the same way from the live state before its
//! plan applies; a value naming no held entity of the linked type is refused, since the build
//! never showed what such a write does.

use std::sync::Arc;

use rea_plugin_api::json::{Json, Object};
use serde::{Deserialize, Serialize};

use super::Draft;
use super::apply::{Refused, WriteInput};
use super::observe::{After, Call};
use crate::model::{Entity, StateView};
use crate::observation::RequestBody;
use crate::render::scalar_text;
use crate::store::LiveState;

/// A member a plan's calls send as ids or key names of another type's entities.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SentReference {
    /// The sent (and, unless `stored_as` names another, stored) member.
    pub member: String,
    /// The member the entity stores the link object in, when not the sent one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stored_as: Option<String>,
    /// The linked entities' type.
    pub target_type: String,
    /// The link object's members, each the linked entity's own (`id`, `link`).
    pub shown: Vec<String>,
    /// The linked entities' text members the recorded calls named them by (besides the id).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keys: Vec<String>,
}

/// Learns each draft's sent references from its observed calls, re-spells those calls' bodies
/// with the link objects, and gives every draft writing a type the references the other drafts
/// of the type learned for members its own calls never contradicted (a `PUT` of an issue takes
/// the assignee a create sent by name).
pub(crate) fn learn(drafts: &mut [Draft], observed: &mut [Call], state: &StateView) {
    let mut by_type: Vec<(String, SentReference)> = Vec::new();
    let mut refusals: Vec<Vec<String>> = Vec::new();
    for draft in drafts.iter_mut() {
        let refused = learn_draft(draft, observed, state);
        if let Some(entity_type) = written_type(draft, observed) {
            for reference in &draft.plan.references {
                if !by_type
                    .iter()
                    .any(|(known, other)| *known == entity_type && other.member == reference.member)
                {
                    by_type.push((entity_type.clone(), reference.clone()));
                }
            }
        }
        refusals.push(refused);
    }
    for (draft, refused) in drafts.iter_mut().zip(refusals) {
        let Some(entity_type) = written_type(draft, observed) else {
            continue;
        };
        for (of_type, reference) in &by_type {
            let held = draft
                .plan
                .references
                .iter()
                .any(|own| own.member == reference.member);
            if *of_type == entity_type && !held && !refused.contains(&reference.member) {
                draft.plan.references.push(reference.clone());
                // A renamed member is stored nowhere under its sent name: the calls sending it
                // (`null` too) are re-spelled as the member the entity stores.
                if reference.stored_as.is_some() {
                    respell_calls(draft, observed, std::slice::from_ref(reference));
                }
            }
        }
    }
}

/// The entity type a draft's observed calls wrote.
fn written_type(draft: &Draft, observed: &[Call]) -> Option<String> {
    draft
        .calls
        .iter()
        .find_map(|index| observed[*index].key.as_ref().map(|key| key.0.clone()))
}

/// Learns one draft's sent references (see [`learn`]); the members its calls contradicted.
fn learn_draft(draft: &mut Draft, observed: &mut [Call], state: &StateView) -> Vec<String> {
    let (learned, refused) = shown_references(draft, observed, state);
    if !learned.is_empty() {
        respell_calls(draft, observed, &learned);
        draft.plan.references = learned;
    }
    refused
}

/// The references a draft's calls show (see [`shown_reference`]), and the members some call
/// stored as link objects its sent values do not name.
fn shown_references(
    draft: &Draft,
    observed: &[Call],
    state: &StateView,
) -> (Vec<SentReference>, Vec<String>) {
    let mut learned: Vec<SentReference> = Vec::new();
    let mut refused: Vec<String> = Vec::new();
    for index in &draft.calls {
        let call = &observed[*index];
        let (RequestBody::Json(Json::Object(sent)), After::Present(after)) =
            (&call.request, &call.after)
        else {
            continue;
        };
        for (member, value) in sent.iter() {
            if refused.iter().any(|known| known == member) {
                continue;
            }
            let Some(stored) = after.get(member) else {
                if let Some(found) = renamed_reference(&state.entities, member, value, sent, after)
                {
                    merge(&mut learned, found);
                }
                continue;
            };
            match shown_reference(&state.entities, member, value, stored) {
                Some(found) => merge(&mut learned, found),
                None if unheld_link(&state.entities, value, stored) => {}
                None if stored != value && holds_links(stored) => refused.push(member.to_owned()),
                None => {}
            }
        }
    }
    learned.retain(|reference| !refused.contains(&reference.member));
    (learned, refused)
}

/// Each call's body with the references it sent spelled as the link objects the entity after it
/// holds, the recorded body kept beside it.
fn respell_calls(draft: &Draft, observed: &mut [Call], learned: &[SentReference]) {
    for index in &draft.calls {
        let call = &mut observed[*index];
        let recorded = call.request.clone();
        let (RequestBody::Json(Json::Object(sent)), After::Present(after)) =
            (&mut call.request, &call.after)
        else {
            continue;
        };
        for reference in learned {
            let stored_in = reference.stored_as.as_ref().unwrap_or(&reference.member);
            let Some(stored) = after.get(stored_in) else {
                continue;
            };
            if reference.stored_as.is_some() {
                if sent.remove(&reference.member).is_some() {
                    sent.insert(stored_in.as_str(), stored.clone());
                }
            } else if let Some(slot) = sent.get_mut(&reference.member) {
                *slot = stored.clone();
            }
        }
        call.recorded_request.get_or_insert(recorded);
    }
}

/// The reference a sent member stored nowhere under its own name shows (see the module doc):
/// exactly one member of the entity after the call, not sent, holds the link object of the held
/// entity its value names.
fn renamed_reference(
    entities: &[Arc<Entity>],
    member: &str,
    value: &Json,
    sent: &Object,
    after: &Json,
) -> Option<SentReference> {
    if matches!(value, Json::Null | Json::Object(_)) {
        return None;
    }
    let mut found = after
        .as_object()?
        .iter()
        .filter(|(name, stored)| !sent.contains_key(name) && holds_links(stored))
        .filter_map(|(name, stored)| {
            let reference = shown_reference(entities, member, value, stored)?;
            Some(SentReference {
                stored_as: Some(name.to_owned()),
                ..reference
            })
        });
    let reference = found.next()?;
    found.next().is_none().then_some(reference)
}

/// Adds a call's finding, widening the keys of one already learned for the member.
fn merge(learned: &mut Vec<SentReference>, found: SentReference) {
    match learned
        .iter_mut()
        .find(|known| known.member == found.member)
    {
        Some(known)
            if known.target_type == found.target_type
                && known.shown == found.shown
                && known.stored_as == found.stored_as =>
        {
            for key in found.keys {
                if !known.keys.contains(&key) {
                    known.keys.push(key);
                }
            }
        }
        Some(_) => {}
        None => learned.push(found),
    }
}

/// Whether a stored value is a link object holding the sent scalar as a member, of an entity
/// the state holds otherwise or not at all (changed or deleted later in the build: a task sent
/// `"project": 5` shows project 5 as it was before a later `PATCH /project/5`): such a call
/// shows nothing for or against a reference, which the other calls decide.
fn unheld_link(entities: &[Arc<Entity>], sent: &Json, stored: &Json) -> bool {
    let (Some(text), Json::Object(object)) = (scalar_text(sent), stored) else {
        return false;
    };
    object.len() >= 2
        && object
            .iter()
            .any(|(_, value)| scalar_text(value).as_deref() == Some(text.as_str()))
        && !entities
            .iter()
            .any(|entity| entity.id == text && is_part_of(object, entity))
}

/// Whether a stored value is a link object or an array of them (objects holding an `id`-like
/// member and other members).
fn holds_links(stored: &Json) -> bool {
    match stored {
        Json::Object(object) => object.len() >= 2,
        Json::Array(items) => !items.is_empty() && items.iter().all(holds_links),
        _ => false,
    }
}

/// The reference a sent value and its stored form show: each sent scalar names a held entity of
/// one other type by id or by a text member, and the stored value is those entities' link
/// objects, in order.
fn shown_reference(
    entities: &[Arc<Entity>],
    member: &str,
    sent: &Json,
    stored: &Json,
) -> Option<SentReference> {
    let pairs: Vec<(&Json, &Object)> = match (sent, stored) {
        (Json::Array(values), Json::Array(objects)) if values.len() == objects.len() => values
            .iter()
            .zip(objects)
            .map(|(value, object)| Some((value, object.as_object()?)))
            .collect::<Option<_>>()?,
        (value, Json::Object(object)) if !matches!(value, Json::Object(_)) => vec![(value, object)],
        _ => return None,
    };
    let shown: Vec<String> = pairs.first()?.1.keys().map(str::to_owned).collect();
    let mut target: Option<String> = None;
    let mut keys: Vec<String> = Vec::new();
    for (value, object) in &pairs {
        let text = scalar_text(value)?;
        let entity = linked_entity(entities, object, target.as_deref())?;
        target.get_or_insert_with(|| entity.entity_type.clone());
        if object.keys().map(str::to_owned).collect::<Vec<_>>() != shown {
            return None;
        }
        if entity.id == text {
            continue;
        }
        let key = text_member(&entity.fields, &text)?;
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    Some(SentReference {
        member: member.to_owned(),
        stored_as: None,
        target_type: target?,
        shown,
        keys,
    })
}

/// The held entity a link object is a part of (its id the entity's, every other member the
/// entity's own), of `of_type` when given; `None` when none is, or entities of two types are.
fn linked_entity<'a>(
    entities: &'a [Arc<Entity>],
    object: &Object,
    of_type: Option<&str>,
) -> Option<&'a Entity> {
    let mut found = entities.iter().filter(|entity| {
        of_type.is_none_or(|wanted| entity.entity_type == wanted)
            && object
                .iter()
                .any(|(_, value)| scalar_text(value).as_deref() == Some(entity.id.as_str()))
            && is_part_of(object, entity)
    });
    let entity: &Entity = found.next()?;
    found
        .all(|other| other.entity_type == entity.entity_type)
        .then_some(entity)
}

/// Whether every member of a link object is the entity's own.
fn is_part_of(object: &Object, entity: &Entity) -> bool {
    object.len() >= 2
        && object
            .iter()
            .all(|(key, value)| entity.fields.get(key) == Some(value))
}

/// The text member of an entity holding `text`, the first in its order.
fn text_member(fields: &Json, text: &str) -> Option<String> {
    fields
        .as_object()?
        .iter()
        .find(|(_, value)| value.as_str() == Some(text))
        .map(|(key, _)| key.to_owned())
}

/// The link object of the held entity of `reference`'s type a sent scalar names (by id, or by
/// one of the text members the build's calls named such entities by).
fn link_of(reference: &SentReference, state: &LiveState, value: &Json) -> Result<Json, Refused> {
    let text = scalar_text(value).ok_or_else(|| unnamed(reference, value))?;
    let mut candidates = state
        .entities()
        .filter(|entity| entity.entity_type == reference.target_type);
    let entity = candidates
        .find(|entity| {
            entity.id == text
                || reference
                    .keys
                    .iter()
                    .any(|key| entity.fields.get(key).and_then(Json::as_str) == Some(&text))
        })
        .ok_or_else(|| unnamed(reference, value))?;
    let mut object = Object::with_capacity(reference.shown.len());
    for key in &reference.shown {
        let member = entity
            .fields
            .get(key)
            .ok_or_else(|| unnamed(reference, value))?;
        object.insert(key.as_str(), member.clone());
    }
    Ok(Json::Object(object))
}

fn unnamed(reference: &SentReference, value: &Json) -> Refused {
    Refused {
        code: "invalid_arguments",
        message: format!(
            "{}: {} names no entity of {} the state holds",
            reference.member,
            String::from_utf8_lossy(&value.to_canonical_vec()),
            reference.target_type
        ),
    }
}

/// A served call's input with its sent references re-spelled as the link objects of the live
/// entities they name; the input as it is when its plan learned none or its body sends none.
pub(crate) fn respelled(
    references: &[SentReference],
    state: &LiveState,
    input: &WriteInput,
) -> Result<Option<WriteInput>, Refused> {
    let Some(Json::Object(sent)) = input.body.as_ref() else {
        return Ok(None);
    };
    if !references
        .iter()
        .any(|reference| sent.contains_key(&reference.member))
    {
        return Ok(None);
    }
    let mut body = sent.clone();
    for reference in references {
        let Some(slot) = body.get_mut(&reference.member) else {
            continue;
        };
        let link = match &*slot {
            Json::Array(values) => Json::Array(
                values
                    .iter()
                    .map(|value| link_of(reference, state, value))
                    .collect::<Result<_, _>>()?,
            ),
            // A null clears the reference (the calls stored a sent null as null).
            Json::Null => Json::Null,
            value => link_of(reference, state, value)?,
        };
        match &reference.stored_as {
            Some(stored_as) => {
                body.remove(&reference.member);
                body.insert(stored_as.as_str(), link);
            }
            None => *slot = link,
        }
    }
    Ok(Some(WriteInput {
        segments: input.segments.clone(),
        body: Some(Json::Object(body)),
        listed: input.listed.clone(),
        query: input.query.clone(),
    }))
}

/// A write answer's object member naming the members the call changed (`{"data": {"id", "type",
/// "link", "attribute": {"priority": "2", "status": "5"}}}`): each member the call sent, as the
/// entity stores it, a link object (or an array of them) spelled by its one member the answers
/// showed (the linked entity's id). Learned when every recorded call of a plan with sent
/// references answered exactly its sent members there; rendered from the applied change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangedMembers {
    /// The answer object's member holding the changed members.
    pub member: String,
    /// The link objects' member an answer spells a reference by.
    pub link_member: String,
}

impl ChangedMembers {
    /// The answer with the changed members of `sent` (body order) spelled from the written
    /// entity; `None` when the entity holds one of them in no spelling the answers showed.
    pub(crate) fn render(
        &self,
        mut answer: Json,
        pointer: &str,
        sent: &[String],
        written: &Entity,
    ) -> Option<Json> {
        let mut changed = Object::with_capacity(sent.len());
        for key in sent {
            let stored = written.fields.get(key)?;
            changed.insert(key.as_str(), self.spelled(stored)?);
        }
        let object = crate::render::pointer_mut(&mut answer, pointer)?.as_object_mut()?;
        object.insert(self.member.as_str(), Json::Object(changed));
        Some(answer)
    }

    /// A stored value as an answer names it (see [`link_spelled`]).
    fn spelled(&self, stored: &Json) -> Option<Json> {
        link_spelled(stored, &self.link_member)
    }
}

/// A stored value as an answer naming links by one member of their link objects spells it: a
/// link object by that member, an array item by item, another value as stored; `None` when a
/// link object lacks the member.
pub(crate) fn link_spelled(stored: &Json, member: &str) -> Option<Json> {
    match stored {
        Json::Object(link) => link.get(member).cloned(),
        Json::Array(items) => Some(Json::Array(
            items
                .iter()
                .map(|item| link_spelled(item, member))
                .collect::<Option<_>>()?,
        )),
        value => Some(value.clone()),
    }
}

/// The changed-members answer every call of a plan with sent references gave (see
/// [`ChangedMembers`]): `(answer, sent, stored)` per call, the answer's object at the plan's
/// response pointer, the members it sent (re-spelled) and the entity after it.
pub(crate) fn changed_members(calls: &[(&Object, &Object, &Object)]) -> Option<ChangedMembers> {
    let (answer, sent, _) = calls.first()?;
    let link_member = sent.iter().find_map(|(key, value)| {
        let Json::Object(link) = value else {
            return None;
        };
        let shown = answer
            .iter()
            .find_map(|(_, member)| member.as_object()?.get(key))?;
        link.iter()
            .find(|(_, item)| *item == shown)
            .map(|(name, _)| name.to_owned())
    })?;
    let member = answer
        .iter()
        .find(|(_, value)| {
            value.as_object().is_some_and(|object| {
                object.len() == sent.len() && sent.keys().all(|key| object.contains_key(key))
            })
        })
        .map(|(name, _)| name.to_owned())?;
    let model = ChangedMembers {
        member,
        link_member,
    };
    let agrees = calls.iter().all(|(answer, sent, stored)| {
        let names: Vec<String> = sent.keys().map(str::to_owned).collect();
        let entity = Entity {
            entity_type: String::new(),
            collection: String::new(),
            id: String::new(),
            fields: Json::Object((*stored).clone()),
            view_fields: Default::default(),
            record_ordinals: Vec::new(),
        };
        model
            .render(Json::Object((*answer).clone()), "", &names, &entity)
            .is_some_and(|rendered| rendered == Json::Object((*answer).clone()))
    });
    agrees.then_some(model)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::entity;

    use crate::test_support::parsed_json as parsed;

    fn held() -> Vec<Arc<Entity>> {
        [
            entity(
                "/status",
                "3",
                r#"{"id": "3", "link": "/status/3", "name": "chatting"}"#,
            ),
            entity(
                "/status",
                "5",
                r#"{"id": "5", "link": "/status/5", "name": "done"}"#,
            ),
            entity(
                "/user",
                "3",
                r#"{"id": "3", "link": "/user/3", "username": "alice"}"#,
            ),
        ]
        .into_iter()
        .map(Arc::new)
        .collect()
    }

    #[test]
    fn a_link_object_of_an_entity_held_otherwise_or_not_at_all_shows_nothing() {
        let held = held();
        // Status 5 as it was before a later change, and status 9 never held: no evidence.
        let before = parsed(r#"{"id": "5", "link": "/status/5", "name": "open"}"#);
        assert!(unheld_link(&held, &parsed(r#""5""#), &before));
        let gone = parsed(r#"{"id": "9", "link": "/status/9"}"#);
        assert!(unheld_link(&held, &parsed("9"), &gone));
        // The link object of the held entity, or one not holding the sent value, does.
        let current = parsed(r#"{"id": "5", "link": "/status/5"}"#);
        assert!(!unheld_link(&held, &parsed(r#""5""#), &current));
        assert!(!unheld_link(&held, &parsed(r#""4""#), &before));
        assert!(!unheld_link(&held, &Json::Null, &before));
    }

    #[test]
    fn an_answer_naming_the_changed_members_by_id_is_learned_and_rendered() {
        let answer =
            parsed(r#"{"id": "7", "type": "t", "attribute": {"status": "5", "title": "a"}}"#);
        let sent = parsed(r#"{"status": {"id": "5", "link": "/status/5"}, "title": "a"}"#);
        let stored = parsed(
            r#"{"id": "7", "status": {"id": "5", "link": "/status/5"}, "title": "a", "n": 1}"#,
        );
        let object = |json: &Json| json.as_object().expect("object").clone();
        let (answer, sent, stored) = (object(&answer), object(&sent), object(&stored));
        let model = changed_members(&[(&answer, &sent, &stored)]).expect("learned");
        assert_eq!(model.member, "attribute");
        assert_eq!(model.link_member, "id");
        let written = entity(
            "/t",
            "2",
            r#"{"id": "2", "status": [{"id": "3", "link": "/s/3"}]}"#,
        );
        let rendered = model
            .render(
                parsed(r#"{"data": {"id": "2", "attribute": {}}}"#),
                "/data",
                &["status".to_owned()],
                &written,
            )
            .expect("rendered");
        assert_eq!(
            rendered,
            parsed(r#"{"data": {"id": "2", "attribute": {"status": ["3"]}}}"#)
        );
        // An answer naming another member than those sent teaches nothing.
        let other = object(&parsed(
            r#"{"id": "7", "attribute": {"status": "5", "nosy": []}}"#,
        ));
        assert_eq!(changed_members(&[(&other, &sent, &stored)]), None);
    }

    #[test]
    fn a_sent_key_name_read_back_as_a_link_object_is_a_reference() {
        let entities = held();
        let stored = parsed(r#"{"id": "5", "link": "/status/5"}"#);
        let found = shown_reference(&entities, "status", &parsed(r#""done""#), &stored)
            .expect("a reference");
        assert_eq!(found.target_type, "/status");
        assert_eq!(found.shown, vec!["id".to_owned(), "link".to_owned()]);
        assert_eq!(found.keys, vec!["name".to_owned()]);
        // By id: no key member needed; the link object pins the type (user 3 is no part of it).
        let stored = parsed(r#"[{"id": "3", "link": "/status/3"}]"#);
        let found = shown_reference(&entities, "status", &parsed(r#"["3"]"#), &stored)
            .expect("a reference");
        assert_eq!(found.target_type, "/status");
        assert!(found.keys.is_empty());
    }

    #[test]
    fn a_stored_object_no_held_entity_holds_is_no_reference() {
        let entities = held();
        let stored = parsed(r#"{"id": "5", "link": "/elsewhere/5"}"#);
        assert_eq!(
            shown_reference(&entities, "status", &parsed(r#""done""#), &stored),
            None
        );
        let stored = parsed(r#"{"id": "5", "link": "/status/5"}"#);
        assert_eq!(
            shown_reference(&entities, "status", &parsed(r#""chatting""#), &stored),
            None
        );
    }

    #[test]
    fn a_served_body_names_held_entities_by_id_or_key_and_nothing_else() {
        let state = LiveState::new(
            held().into_iter().map(Arc::unwrap_or_clone).collect(),
            Vec::new(),
        );
        let references = [SentReference {
            member: "status".into(),
            stored_as: None,
            target_type: "/status".into(),
            shown: vec!["id".into(), "link".into()],
            keys: vec!["name".into()],
        }];
        let input = |body: &str| WriteInput {
            segments: Vec::new(),
            body: Some(parsed(body)),
            listed: None,
            query: Vec::new(),
        };
        let by_name = respelled(
            &references,
            &state,
            &input(r#"{"status": "chatting", "t": 1}"#),
        )
        .expect("respelled")
        .expect("a body");
        assert_eq!(
            by_name.body,
            Some(parsed(
                r#"{"status": {"id": "3", "link": "/status/3"}, "t": 1}"#
            ))
        );
        let by_id = respelled_body(&references, &state, r#"{"status": ["5"]}"#);
        assert_eq!(
            by_id,
            parsed(r#"{"status": [{"id": "5", "link": "/status/5"}]}"#)
        );
        let refused = respelled(&references, &state, &input(r#"{"status": "nosuch"}"#));
        assert!(refused.is_err());
        let untouched = respelled(&references, &state, &input(r#"{"title": "x"}"#));
        assert!(matches!(untouched, Ok(None)));
    }

    #[test]
    fn an_id_stored_under_another_name_is_a_reference_there() {
        let entities = vec![Arc::new(entity(
            "/people",
            "2",
            r#"{"id": 2, "name": "Kofi", "role": "engineer"}"#,
        ))];
        let sent = parsed(r#"{"title": "a", "assignee_id": 2}"#);
        let sent = sent.as_object().expect("object");
        let after = parsed(r#"{"id": 9, "title": "a", "assignee": {"id": 2, "name": "Kofi"}}"#);
        let found = renamed_reference(&entities, "assignee_id", &parsed("2"), sent, &after)
            .expect("a reference");
        assert_eq!(found.stored_as.as_deref(), Some("assignee"));
        assert_eq!(found.target_type, "/people");
        assert_eq!(found.shown, vec!["id".to_owned(), "name".to_owned()]);
        // A null shows nothing; an object no held entity holds is no reference.
        assert_eq!(
            renamed_reference(&entities, "assignee_id", &Json::Null, sent, &after),
            None
        );
        let other = parsed(r#"{"id": 9, "assignee": {"id": 3, "name": "Lena"}}"#);
        assert_eq!(
            renamed_reference(&entities, "assignee_id", &parsed("3"), sent, &other),
            None
        );
        // Served: the id (or null) is sent as the member the entity stores.
        let state = LiveState::new(
            entities.into_iter().map(Arc::unwrap_or_clone).collect(),
            Vec::new(),
        );
        let references = [found];
        assert_eq!(
            respelled_body(&references, &state, r#"{"assignee_id": 2, "t": 1}"#),
            parsed(r#"{"t": 1, "assignee": {"id": 2, "name": "Kofi"}}"#)
        );
        assert_eq!(
            respelled_body(&references, &state, r#"{"assignee_id": null}"#),
            parsed(r#"{"assignee": null}"#)
        );
    }

    fn respelled_body(references: &[SentReference], state: &LiveState, body: &str) -> Json {
        let input = WriteInput {
            segments: Vec::new(),
            body: Some(parsed(body)),
            listed: None,
            query: Vec::new(),
        };
        respelled(references, state, &input)
            .expect("respelled")
            .and_then(|input| input.body)
            .expect("a body")
    }
}

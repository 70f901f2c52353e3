//! What a projection answer (see [`super::model::ResponseKind::Projection`]) shows of its written
//! entity beyond members as the entity stores them: an envelope member holding the entity's
//! members in turn (`{"id": 13, "result": {"title": …, "status": …}}`, the identity beside them),
//! and the entity's link objects spelled by one of their members (`"project": 1` where the entity
//! holds `"project": {"id": 1, "code": "WEB"}`, an array of link objects as an array of ids).
//!
//! Learned from every recorded call of a plan, its answer beside the entity after it: an answer
//! member the entity does not hold, holding an object that in turn shows only the entity's members,
//! is an envelope; a scalar where the entity holds a link object is that object's member of the
//! same value, the same member for every link of every call. A served call renders each member
//! from the written entity: an envelope member by member, a link by that member.
//!
//! An answer of one envelope holding every member of the entity but the identity (which the
//! root may show beside it) shows the entity whole: a served call's envelope holds every member
//! of its own entity, so a sibling collection's write answers its own entity's members
//! (`super::siblings`).

use std::collections::BTreeSet;

use rea_plugin_api::json::{Json, Object, escape_pointer_segment};
use serde::{Deserialize, Serialize};

/// How a projection answer shows its entity beyond members as stored.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectedAnswer {
    /// The answer's members (pointers below the projection) holding more of the entity's
    /// members.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub envelopes: Vec<String>,
    /// The link objects' member the answer spells a link by (`id`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_member: Option<String>,
    /// When its one envelope holds every member of the entity but the identity, the root nothing
    /// else: the identity's name (see the module docs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub whole_but: Option<String>,
}

impl ProjectedAnswer {
    /// Whether it shows nothing beyond members as stored.
    pub fn is_plain(&self) -> bool {
        self.envelopes.is_empty() && self.link_member.is_none() && self.whole_but.is_none()
    }
}

/// What one answer shows of one entity, as it is walked.
#[derive(Default)]
struct Walk {
    envelopes: BTreeSet<String>,
    link_member: Option<String>,
    shown: usize,
}

/// How many of the entity's members an answer object shows (at any envelope depth, see the
/// module docs), with how it shows them; `None` when a member shows anything else, or two links
/// are spelled by different members.
pub(super) fn shown_members(answer: &Object, entity: &Object) -> Option<(usize, ProjectedAnswer)> {
    let mut walk = Walk::default();
    walk.object(answer, entity, "")?;
    Some((
        walk.shown,
        ProjectedAnswer {
            envelopes: walk.envelopes.into_iter().collect(),
            link_member: walk.link_member,
            whole_but: None,
        },
    ))
}

impl Walk {
    fn object(&mut self, answer: &Object, entity: &Object, at: &str) -> Option<()> {
        for (key, value) in answer.iter() {
            let here = format!("{at}/{}", escape_pointer_segment(key));
            match entity.get(key) {
                Some(stored) if stored == value => self.shown += 1,
                Some(stored) => self.link(stored, value)?,
                None => {
                    let before = self.shown;
                    self.object(value.as_object()?, entity, &here)?;
                    if self.shown == before {
                        return None;
                    }
                    self.envelopes.insert(here);
                }
            }
        }
        Some(())
    }

    /// A stored link object (or array of them) an answer spells by one of its members.
    fn link(&mut self, stored: &Json, shown: &Json) -> Option<()> {
        match (stored, shown) {
            (Json::Object(link), value) if !matches!(value, Json::Object(_) | Json::Array(_)) => {
                let member = link
                    .iter()
                    .find(|(name, item)| {
                        *item == value && self.link_member.as_deref().is_none_or(|m| m == *name)
                    })
                    .map(|(name, _)| name.to_owned())?;
                self.link_member = Some(member);
                self.shown += 1;
                Some(())
            }
            (Json::Array(links), Json::Array(values)) if links.len() == values.len() => {
                let before = self.shown;
                for (link, value) in links.iter().zip(values) {
                    if link != value {
                        self.link(link, value)?;
                    }
                }
                self.shown = before + 1;
                Some(())
            }
            _ => None,
        }
    }
}

/// Whether an answer of one envelope shows the entity whole but for its identity (see the module
/// docs): the root holds the envelope and at most the identity, the envelope every other member
/// of the entity.
fn shows_whole(answer: &Object, entity: &Object, envelopes: &[String], identity: &str) -> bool {
    let [envelope] = envelopes else {
        return false;
    };
    let Some(Json::Object(inner)) = Json::Object(answer.clone()).pointer(envelope).cloned() else {
        return false;
    };
    let root_only = answer.iter().all(|(key, _)| {
        key == identity || format!("/{}", escape_pointer_segment(key)) == *envelope
    });
    root_only
        && envelope.matches('/').count() == 1
        && !inner.contains_key(identity)
        && entity
            .iter()
            .all(|(key, _)| key == identity || inner.contains_key(key))
}

/// The projection every recorded call's answer shows the same way (see [`shown_members`]):
/// `(answer object, entity after)` per call, the entity's identity member. `None` when one shows
/// a member otherwise, or the calls spell links by different members.
pub(super) fn learn(calls: &[(&Object, &Object)], identity: &str) -> Option<ProjectedAnswer> {
    let mut learned = ProjectedAnswer::default();
    let mut envelopes = BTreeSet::new();
    let mut whole = !calls.is_empty();
    for (answer, entity) in calls {
        let (_, shown) = shown_members(answer, entity)?;
        whole &= shows_whole(answer, entity, &shown.envelopes, identity);
        envelopes.extend(shown.envelopes);
        match (&learned.link_member, shown.link_member) {
            (Some(known), Some(other)) if *known != other => return None,
            (None, Some(other)) => learned.link_member = Some(other),
            _ => {}
        }
    }
    learned.envelopes = envelopes.into_iter().collect();
    learned.whole_but = (whole && learned.envelopes.len() == 1).then(|| identity.to_owned());
    Some(learned)
}

/// The value an answer shows for a stored value: a link object (or array of them) by the link
/// member when the recorded answer showed a scalar (or array of scalars) there, else as stored.
fn spelled(stored: &Json, recorded: &Json, link_member: Option<&str>) -> Json {
    let Some(member) = link_member else {
        return stored.clone();
    };
    let by_member = super::references::link_spelled;
    match (stored, recorded) {
        (Json::Object(_), value) if !matches!(value, Json::Object(_)) => {
            by_member(stored, member).unwrap_or_else(|| stored.clone())
        }
        (Json::Array(links), Json::Array(_) | Json::Null) => Json::Array(
            links
                .iter()
                .map(|link| by_member(link, member).unwrap_or(Json::Null))
                .collect(),
        ),
        _ => stored.clone(),
    }
}

/// A recorded answer object rendered from the written entity (its members by name, `generated`
/// first: the values the write generated, by pointer), each envelope member in turn, links by
/// the link member; a member the entity does not hold stays as recorded.
pub(super) fn render(
    recorded: &Object,
    at: &str,
    projected: &ProjectedAnswer,
    generated: &dyn Fn(&str) -> Option<Json>,
    entity: &Json,
) -> Object {
    let mut object = Object::with_capacity(recorded.len());
    for (key, value) in recorded.iter() {
        let here = format!("{at}/{}", escape_pointer_segment(key));
        let rendered = match (value, generated(key), entity.get(key)) {
            (_, Some(generated), _) => generated,
            (_, None, Some(stored)) => spelled(stored, value, projected.link_member.as_deref()),
            (Json::Object(_), None, None)
                if projected.whole_but.is_some() && projected.envelopes.contains(&here) =>
            {
                Json::Object(whole_envelope(projected, entity))
            }
            (Json::Object(inner), None, None) if projected.envelopes.contains(&here) => {
                Json::Object(render(inner, &here, projected, generated, entity))
            }
            _ => value.clone(),
        };
        object.insert(key, rendered);
    }
    object
}

/// A whole envelope (see [`ProjectedAnswer::whole_but`]): every member of the entity but its
/// identity, in the entity's order, links spelled as recorded ones were.
fn whole_envelope(projected: &ProjectedAnswer, entity: &Json) -> Object {
    let Json::Object(members) = entity else {
        return Object::default();
    };
    let mut object = Object::with_capacity(members.len());
    for (key, value) in members.iter() {
        if projected.whole_but.as_deref() != Some(key) {
            let recorded_link = if matches!(value, Json::Array(_)) {
                Json::Array(Vec::new())
            } else {
                Json::Null
            };
            object.insert(
                key,
                spelled(value, &recorded_link, projected.link_member.as_deref()),
            );
        }
    }
    object
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::parsed_json as json;

    fn object(text: &str) -> Object {
        json(text).as_object().expect("object").clone()
    }

    #[test]
    fn an_envelope_of_the_entitys_members_and_links_by_id_is_a_projection() {
        let entity = object(
            r#"{"id": 13, "title": "t", "project": {"id": 1, "code": "WEB"}, "tags": [{"id": 4}], "assignee": null}"#,
        );
        let answer = object(
            r#"{"id": 13, "result": {"title": "t", "project": 1, "tags": [4], "assignee": null}}"#,
        );
        let (shown, projected) = shown_members(&answer, &entity).expect("projection");
        assert_eq!(shown, 5);
        assert_eq!(projected.envelopes, vec!["/result".to_owned()]);
        assert_eq!(projected.link_member.as_deref(), Some("id"));
        // A member the entity does not hold, or a link spelled by a value it does not hold: no.
        assert!(
            shown_members(&object(r#"{"result": {"title": "t", "ok": 1}}"#), &entity).is_none()
        );
        assert!(shown_members(&object(r#"{"project": 2}"#), &entity).is_none());
        assert!(shown_members(&object(r#"{"meta": {}}"#), &entity).is_none());
    }

    #[test]
    fn links_spelled_by_two_members_are_no_projection() {
        let entity = object(r#"{"a": {"id": 1, "code": "X"}, "b": {"id": 2, "code": "Y"}}"#);
        assert!(shown_members(&object(r#"{"a": 1, "b": "Y"}"#), &entity).is_none());
        let first = object(r#"{"a": 1}"#);
        let second = object(r#"{"b": "Y"}"#);
        assert!(learn(&[(&first, &entity), (&second, &entity)], "id").is_none());
        assert_eq!(
            learn(&[(&first, &entity)], "id").and_then(|learned| learned.link_member),
            Some("id".to_owned())
        );
    }

    #[test]
    fn a_served_answer_shows_its_own_entity_in_the_recorded_layout() {
        let recorded = object(
            r#"{"id": 13, "result": {"title": "t", "project": 1, "assignee": 2}, "note": "x"}"#,
        );
        let projected = ProjectedAnswer {
            envelopes: vec!["/result".to_owned()],
            link_member: Some("id".to_owned()),
            whole_but: None,
        };
        let entity = json(
            r#"{"id": 14, "title": "u", "project": {"id": 5, "code": "DOC"}, "assignee": null}"#,
        );
        let generated = |key: &str| (key == "id").then(|| json("14"));
        let rendered = render(&recorded, "", &projected, &generated, &entity);
        assert_eq!(
            Json::Object(rendered),
            json(
                r#"{"id": 14, "result": {"title": "u", "project": 5, "assignee": null}, "note": "x"}"#
            )
        );
    }

    #[test]
    fn an_envelope_of_every_member_but_the_identity_renders_any_entity_whole() {
        let task = object(r#"{"id": 13, "title": "t", "project": {"id": 1, "code": "WEB"}}"#);
        let created = object(r#"{"id": 13, "result": {"title": "t", "project": 1}}"#);
        let updated = object(r#"{"result": {"title": "t", "project": 1}}"#);
        let learned = learn(&[(&created, &task), (&updated, &task)], "id").expect("learned");
        assert_eq!(learned.whole_but.as_deref(), Some("id"));
        // An answer leaving a member out, or showing another beside the envelope: not whole.
        let partial = object(r#"{"result": {"title": "t"}}"#);
        assert_eq!(
            learn(&[(&partial, &task)], "id")
                .expect("learned")
                .whole_but,
            None
        );
        let beside = object(r#"{"ok": "t", "result": {"title": "t", "project": 1}}"#);
        assert!(learn(&[(&beside, &task)], "id").is_none());
        // A sibling's entity answers its own members, the recorded ones it lacks left out.
        let project = json(r#"{"id": 5, "code": "LAB", "budget": 95}"#);
        let rendered = render(&updated, "", &learned, &|_: &str| None, &project);
        assert_eq!(
            Json::Object(rendered),
            json(r#"{"result": {"code": "LAB", "budget": 95}}"#)
        );
    }
}

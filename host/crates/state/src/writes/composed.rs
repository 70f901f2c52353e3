//! Documents a create composes: a keyed document view (one document per id of its type, a
//! study's detail at `/studies/{id}` beside the study list's entities, see
//! [`crate::derive::documents`]) holds documents only for the ids the build read before its
//! first write, so a created entity's document is unknown. When every recorded call of a served
//! create was read back by that view at the id it created, with no other write between, and each
//! read-back document's top-level members follow from the created entity the same way, the plan
//! keeps that composition: each member either the entity's member (the same name, else the one
//! member holding the same non-empty value: `name` from `study_name`) or a constant (the value
//! every read-back showed: an empty list, a default note). A served create then holds the
//! composed document for the id it made, and the view answers it.
//!
//! Learned from one call when it is unambiguous; a non-empty value two entity members hold, a
//! read-back missing, or a constant holding a clock (a value the call generated) learns nothing.
//! Only creates compose: a copy (an update answering another entity) may carry what the
//! original's document held, which no composition shows.

use rea_manifest::Manifest;
use rea_manifest::segments::split_path;
use rea_plugin_api::json::{Json, Object};
use serde::{Deserialize, Serialize};

use super::model::{Effect, WritePlan};
use crate::model::{Document, Entity, StateView, ViewDetail};
use crate::observation::{Observation, Timeline};

/// Where one member of a composed document comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ComposedMember {
    /// The created entity's top-level member of that name.
    Entity(String),
    /// The same value for every created entity.
    Constant(Json),
}

/// The document a create composes for the entity it made (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComposedDocument {
    /// The keyed document view (tool) the document belongs to.
    pub view: String,
    /// The document's top-level members, in the read-back's order.
    pub members: Vec<(String, ComposedMember)>,
}

impl ComposedDocument {
    /// The document composed for a created entity, at its item path; `None` when the entity
    /// lacks a member the composition takes.
    pub fn document(&self, entity: &Entity) -> Option<Document> {
        let fields = entity.fields.as_object()?;
        let mut value = Object::with_capacity(self.members.len());
        for (name, member) in &self.members {
            let taken = match member {
                ComposedMember::Entity(source) => fields.get(source)?.clone(),
                ComposedMember::Constant(constant) => constant.clone(),
            };
            value.insert(name.clone(), taken);
        }
        Some(Document {
            view: self.view.clone(),
            path: format!("{}/{}", entity.collection.trim_end_matches('/'), entity.id),
            value: Json::Object(value),
            record_ordinal: None,
        })
    }
}

/// Learns the composition of each served create whose type has a keyed document view (see the
/// module docs).
pub(super) fn learn(
    manifest: &Manifest,
    timeline: &Timeline,
    state: &StateView,
    plans: &mut [&mut WritePlan],
) {
    for plan in plans.iter_mut() {
        if !plan.served || plan.bulk || plan.effect != Effect::Create {
            continue;
        }
        plan.composed = learn_one(manifest, timeline, state, plan);
    }
}

/// The composition of one create plan, if its calls show one.
fn learn_one(
    manifest: &Manifest,
    timeline: &Timeline,
    state: &StateView,
    plan: &WritePlan,
) -> Option<ComposedDocument> {
    let target = plan.target.as_ref()?;
    let collection = target.entity_type.as_deref()?;
    let identity = target.identity_field.as_deref()?;
    let pointer = plan.response.as_ref()?.pointer.as_deref()?;
    let view = keyed_view(state, collection)?;
    let view_index = manifest.tools.iter().position(|tool| tool.name == view)?;
    let writes: Vec<usize> = (0..manifest.tools.len())
        .filter(|index| timeline.is_write(manifest, *index))
        .collect();
    let mut learned: Option<Vec<(String, ComposedMember)>> = None;
    for ordinal in &plan.record_ordinals {
        let call = timeline.get(*ordinal)?;
        let entity = call.success_body()?.pointer(pointer)?.as_object()?;
        let id = crate::render::scalar_text(entity.get(identity)?)?;
        let path = format!("{}/{id}", collection.trim_end_matches('/'));
        let read = read_back(timeline, (view_index, &writes), call, &path)?;
        let members = sources(entity, read.success_body()?.as_object()?)?;
        if learned.as_ref().is_some_and(|known| *known != members) {
            return None;
        }
        learned = Some(members);
    }
    Some(ComposedDocument {
        view,
        members: learned?,
    })
}

/// The keyed document view whose template is the collection's item path (its last segment a
/// whole parameter).
fn keyed_view(state: &StateView, collection: &str) -> Option<String> {
    let collection = split_path(collection);
    state.views.iter().find_map(|view| {
        let ViewDetail::Document(document) = &view.detail else {
            return None;
        };
        let template = split_path(&view.path_template);
        let (last, parent) = template.split_last()?;
        let whole = last.starts_with('{') && last.ends_with('}') && last.len() > 2;
        (document.is_keyed() && whole && parent == collection.as_slice()).then(|| view.tool.clone())
    })
}

/// The view's first successful read of `path` after the call, when no successful write lies
/// between them.
fn read_back<'a>(
    timeline: &'a Timeline,
    (view, writes): (usize, &[usize]),
    call: &Observation,
    path: &str,
) -> Option<&'a Observation> {
    let read = timeline
        .all(view)
        .find(|read| read.position > call.position && read.path == path)?;
    let between = writes.iter().any(|tool| {
        timeline.all(*tool).any(|write| {
            write.is_success() && write.position > call.position && write.position < read.position
        })
    });
    (read.is_success() && !between).then_some(read)
}

/// Where each member of a read-back document comes from, given the created entity; `None` when
/// a member is ambiguous (two entity members hold its non-empty value) or a constant holds a
/// clock.
pub(crate) fn sources(entity: &Object, read: &Object) -> Option<Vec<(String, ComposedMember)>> {
    read.iter()
        .map(|(name, value)| {
            if entity.get(name) == Some(value) {
                return Some((name.to_owned(), ComposedMember::Entity(name.to_owned())));
            }
            let mut holding = entity.iter().filter(|(_, held)| *held == value);
            if !is_empty(value)
                && let Some((source, _)) = holding.next()
            {
                return holding
                    .next()
                    .is_none()
                    .then(|| (name.to_owned(), ComposedMember::Entity(source.to_owned())));
            }
            (!holds_clock(value))
                .then(|| (name.to_owned(), ComposedMember::Constant(value.clone())))
        })
        .collect()
}

/// A value too plain to show where it came from: null, false, zero, an empty text, list or
/// object.
fn is_empty(value: &Json) -> bool {
    match value {
        Json::Null => true,
        Json::Bool(flag) => !flag,
        Json::String(text) => text.is_empty(),
        Json::Array(items) => items.is_empty(),
        Json::Object(members) => members.is_empty(),
        Json::Number(_) => super::apply::integer(value) == Some(0),
    }
}

/// Whether a value holds a text spelled as a clock (a value its call stamped).
fn holds_clock(value: &Json) -> bool {
    match value {
        Json::String(text) => crate::clock::format_of(text).is_some(),
        Json::Array(items) => items.iter().any(holds_clock),
        Json::Object(members) => members.iter().any(|(_, member)| holds_clock(member)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::parsed_json;

    fn object(text: &str) -> Object {
        parsed_json(text).as_object().cloned().expect("an object")
    }

    #[test]
    fn a_read_back_composes_from_the_entity_and_constants() {
        let entity = object(
            r#"{"study_id":4,"study_name":"ad-ctr","directions":["max"],"user_attrs":[],"is_preferential":false}"#,
        );
        let read = object(
            r#"{"name":"ad-ctr","directions":["max"],"user_attrs":[],"trials":[],"note":{"version":0,"body":""},"is_preferential":false,"has_values":false}"#,
        );
        let members = sources(&entity, &read).expect("a composition");
        let names: Vec<(&str, String)> = members
            .iter()
            .map(|(name, member)| {
                let source = match member {
                    ComposedMember::Entity(source) => format!("entity {source}"),
                    ComposedMember::Constant(value) => format!("constant {value:?}"),
                };
                (name.as_str(), source)
            })
            .collect();
        assert_eq!(names[0], ("name", "entity study_name".to_owned()));
        assert_eq!(names[1], ("directions", "entity directions".to_owned()));
        assert_eq!(names[2], ("user_attrs", "entity user_attrs".to_owned()));
        // An empty list another member holds too is a constant, not that member.
        assert!(
            matches!(&members[3].1, ComposedMember::Constant(Json::Array(items)) if items.is_empty())
        );
        assert!(matches!(
            &members[4].1,
            ComposedMember::Constant(Json::Object(_))
        ));
        assert_eq!(
            members[5].1,
            ComposedMember::Entity("is_preferential".into())
        );
        assert_eq!(members[6].1, ComposedMember::Constant(Json::Bool(false)));
        let created = Entity {
            entity_type: "/api/studies".into(),
            collection: "/api/studies".into(),
            id: "7".into(),
            fields: parsed_json(
                r#"{"study_id":7,"study_name":"x","directions":["min"],"user_attrs":[],"is_preferential":true}"#,
            ),
            view_fields: Default::default(),
            record_ordinals: Vec::new(),
        };
        let composed = ComposedDocument {
            view: "get_study".into(),
            members,
        };
        let document = composed.document(&created).expect("a document");
        assert_eq!(document.path, "/api/studies/7");
        assert_eq!(
            document.value,
            parsed_json(
                r#"{"name":"x","directions":["min"],"user_attrs":[],"trials":[],"note":{"version":0,"body":""},"is_preferential":true,"has_values":false}"#
            )
        );
    }

    #[test]
    fn an_ambiguous_value_or_a_stamped_clock_composes_nothing() {
        let entity = object(r#"{"id":4,"name":"a","title":"a"}"#);
        assert_eq!(sources(&entity, &object(r#"{"label":"a"}"#)), None);
        let entity = object(r#"{"id":4,"name":"a"}"#);
        assert_eq!(
            sources(
                &entity,
                &object(r#"{"created":"2026-12-01T14:36:25.772114Z"}"#)
            ),
            None
        );
        assert_eq!(
            sources(&entity, &object(r#"{"label":"a"}"#)),
            Some(vec![(
                "label".into(),
                ComposedMember::Entity("name".into())
            )])
        );
    }
}

//! Seeded entities completed from later answers (not a pass): a body query's answers seed a type
//! of their own from the calls in their observation window (`body_queries::seed`), and an entity
//! those calls listed only projected (etcd's `keys_only` range: the key and its revisions, no
//! value) lacks the members a call keeping them needs, so such a call is not modelled. A later
//! successful answer of the same tool listing the entity (an object of its list member holding
//! the identity member with the entity's id) with every member the entity holds equal and more
//! besides shows those members as they were before the writes, when no write recorded between the
//! seeding calls and that answer spells the id (a string of its JSON request body, or a segment
//! of its path; a body that is not JSON is judged by its path): the entity takes that object.
//! One whose shared members differ (a revision stepped) is not taken, nor one a write naming the
//! entity may have changed. Failing such an answer, the first write naming the entity after the
//! seeding calls is taken when it removed the entity: its answer holds an object naming the
//! entity that widens it as above (etcd's `deleterange` with `prev_kv` answering the pair it
//! deleted), and a later call of the seeding tool whose body names the entity alone, no write
//! naming it in between, lists nothing for it. What a write removed is the entity as it was.

use rea_plugin_api::json::Json;

use super::entities::Entities;
use crate::observation::{Observation, RequestBody, Timeline};
use crate::render::scalar_text;

/// What a seeded type's completion needs: the seeding tool, its list member and the type.
pub(super) struct Seeded<'s> {
    pub tool: usize,
    pub list_member: &'s str,
    pub type_template: &'s str,
    pub identity: &'s str,
}

/// Completes each entity of the seeded type listed only projected from the first later answer
/// of the seeding tool that shows it whole (see the module docs); `writes` says which tools
/// write.
pub(super) fn complete(
    timeline: &Timeline,
    seeded: &Seeded<'_>,
    writes: &dyn Fn(usize) -> bool,
    entities: &mut Entities,
) {
    let Some(seeded_until) = timeline
        .checked(seeded.tool)
        .map(|call| call.position)
        .max()
    else {
        return;
    };
    let later: Vec<&Observation> = timeline
        .all(seeded.tool)
        .filter(|call| call.position > seeded_until && call.is_success())
        .collect();
    let candidates: Vec<usize> = (0..entities.list.len())
        .filter(|index| entities.list[*index].entity_type == seeded.type_template)
        .collect();
    for index in candidates {
        let id = entities.list[index].id.clone();
        let fields = entities.list[index].fields.clone();
        let shown = later
            .iter()
            .find_map(|call| {
                let object = listed_object(call, seeded, &id)?;
                let unchanged =
                    !written_between(timeline, writes, (seeded_until, call.position), &id);
                (unchanged && widens(&fields, object)).then_some((*call, object))
            })
            .or_else(|| {
                let removal = Removal {
                    timeline,
                    writes,
                    later: &later,
                };
                removal.shown(seeded, seeded_until, (&id, &fields))
            });
        if let Some((call, object)) = shown {
            let collection = entities.list[index].collection.clone();
            entities.observe(
                seeded.type_template,
                &collection,
                &id,
                object,
                (call.ordinal, call.position),
                true,
            );
        }
    }
}

/// The writes and later calls a removal's answer is judged by.
struct Removal<'t> {
    timeline: &'t Timeline,
    writes: &'t dyn Fn(usize) -> bool,
    later: &'t [&'t Observation],
}

impl<'t> Removal<'t> {
    /// The first write naming the entity after `after`, with the object its answer shows the
    /// entity as, when that write removed it (see the module docs).
    fn shown(
        &self,
        seeded: &Seeded<'_>,
        after: usize,
        (id, fields): (&str, &Json),
    ) -> Option<(&'t Observation, &'t Json)> {
        let mut ordered: Vec<&Observation> = self
            .timeline
            .by_ordinal
            .values()
            .filter(|call| call.position > after && (self.writes)(call.tool) && spells(call, id))
            .collect();
        ordered.sort_by_key(|call| call.position);
        let write = *ordered.first()?;
        let object = naming_object(write.success_body()?, seeded.identity, id)
            .filter(|object| widens(fields, object))?;
        let absent = self.later.iter().any(|call| {
            call.position > write.position
                && names_alone(call, seeded.identity, id)
                && listed_object(call, seeded, id).is_none()
                && !written_between(
                    self.timeline,
                    self.writes,
                    (write.position, call.position),
                    id,
                )
        });
        absent.then_some((write, object))
    }
}

/// An object anywhere in a JSON value holding the identity member with the id.
fn naming_object<'j>(value: &'j Json, identity: &str, id: &str) -> Option<&'j Json> {
    match value {
        Json::Object(object) => {
            if value.get(identity).and_then(scalar_text).as_deref() == Some(id) {
                return Some(value);
            }
            object
                .iter()
                .find_map(|(_, member)| naming_object(member, identity, id))
        }
        Json::Array(items) => items
            .iter()
            .find_map(|item| naming_object(item, identity, id)),
        _ => None,
    }
}

/// Whether a call's JSON body names the entity by its identity member and names no other
/// string member of its own (a range end, a prefix).
fn names_alone(call: &Observation, identity: &str, id: &str) -> bool {
    let RequestBody::Json(body) = &call.request else {
        return false;
    };
    body.get(identity).and_then(scalar_text).as_deref() == Some(id)
        && body.as_object().is_some_and(|object| {
            object
                .iter()
                .all(|(name, value)| name == identity || value.as_str().is_none())
        })
}

/// The object of a call's list member naming the entity by its identity.
fn listed_object<'c>(call: &'c Observation, seeded: &Seeded<'_>, id: &str) -> Option<&'c Json> {
    call.body
        .as_ref()?
        .get(seeded.list_member)?
        .as_array()?
        .iter()
        .find(|object| object.get(seeded.identity).and_then(scalar_text).as_deref() == Some(id))
}

/// Whether `object` holds every member of `fields` with the same value, and more.
fn widens(fields: &Json, object: &Json) -> bool {
    let (Some(held), Some(shown)) = (fields.as_object(), object.as_object()) else {
        return false;
    };
    shown.len() > held.len()
        && held
            .iter()
            .all(|(name, value)| shown.get(name) == Some(value))
}

/// Whether a write recorded strictly between two positions spells the id.
fn written_between(
    timeline: &Timeline,
    writes: &dyn Fn(usize) -> bool,
    (after, before): (usize, usize),
    id: &str,
) -> bool {
    timeline.by_ordinal.values().any(|call| {
        call.position > after && call.position < before && writes(call.tool) && spells(call, id)
    })
}

/// Whether a call's path or JSON request body spells the id.
fn spells(call: &Observation, id: &str) -> bool {
    let in_path = call
        .segments
        .iter()
        .any(|segment| crate::observation::decoded(segment) == id);
    in_path || matches!(&call.request, RequestBody::Json(body) if holds_string(body, id))
}

fn holds_string(value: &Json, text: &str) -> bool {
    match value {
        Json::String(found) => found == text,
        Json::Array(items) => items.iter().any(|item| holds_string(item, text)),
        Json::Object(object) => object.iter().any(|(_, member)| holds_string(member, text)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::parsed_json as json;

    #[test]
    fn an_object_widens_only_with_every_held_member_equal() {
        let held = json(r#"{"key": "k", "mod_revision": "6"}"#);
        assert!(widens(
            &held,
            &json(r#"{"key": "k", "mod_revision": "6", "value": "v"}"#)
        ));
        assert!(
            !widens(
                &held,
                &json(r#"{"key": "k", "mod_revision": "9", "value": "v"}"#)
            ),
            "a stepped revision: changed since"
        );
        assert!(!widens(&held, &held), "nothing more");
        assert!(!widens(&held, &json(r#"{"key": "k", "value": "v"}"#)));
    }

    #[test]
    fn a_body_spells_an_id_anywhere_as_a_whole_string() {
        let body = json(r#"{"compare": [{"key": "a2V5"}], "success": []}"#);
        assert!(holds_string(&body, "a2V5"));
        assert!(!holds_string(&body, "a2V"));
        assert!(!holds_string(&json(r#"{"key": "b3RoZXI="}"#), "a2V5"));
    }
}

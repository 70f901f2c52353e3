//! Reads naming a created entity: a read whose answer holds an identifier (a small object of
//! scalars, `{"type": "task", "id": "13"}`) of an entity a write created before it shows the
//! state after that write, whatever the windows say of the type it reads.
//!
//! The windows ([`super::windows`]) end a read at the first write related to what its view
//! shows; a parent's read (`GET /projects/3`) is not related to a child's create or move
//! (`POST /tasks`, `PATCH /tasks/13/relationships/project`), yet its relationship array lists the
//! created child. Such a read's window ends at the create: an identifier no read before the write
//! showed, every member of which equals the created object's member of that name (its identity
//! among them), cannot be seen before the entity exists. flask-rest-jsonapi-next's project 3,
//! first read after its task 13 was created and moved there, is then seeded from the pre-write
//! list read instead.

use std::collections::BTreeMap;

use rea_manifest::Manifest;
use rea_plugin_api::json::{Json, Object};

use crate::model::{EntityType, RelatedWrite, WriteScope};
use crate::observation::{Observation, Timeline};
use crate::render::scalar_text;

/// How deep an answer is searched for identifiers.
const DEPTH: usize = 8;

/// Ends the window of each read whose answer names an entity a write created before it (see the
/// module docs) at that write.
pub(crate) fn close_windows(
    manifest: &Manifest,
    timeline: &Timeline,
    (related, types): (&[RelatedWrite], &[EntityType]),
    ends: &mut BTreeMap<u64, usize>,
) {
    let reads: Vec<(&Observation, Vec<&Object>)> = timeline
        .by_ordinal
        .values()
        .filter(|observation| !timeline.is_write(manifest, observation.tool))
        .filter_map(|observation| {
            let mut found = Vec::new();
            identifiers(observation.success_body()?, 0, &mut found);
            (!found.is_empty()).then_some((observation, found))
        })
        .collect();
    if reads.is_empty() {
        return;
    }
    for (write, created, identity) in created_objects(timeline, related, types) {
        let names = |read: &(&Observation, Vec<&Object>)| {
            read.1
                .iter()
                .any(|identifier| named_by(identifier, created, identity))
        };
        let before = reads.iter().filter(|read| read.0.position < write.position);
        if before.clone().any(names) {
            continue;
        }
        for read in reads.iter().filter(|read| read.0.position > write.position) {
            let end = ends.entry(read.0.ordinal).or_insert(usize::MAX);
            if *end > write.position && names(read) {
                tracing::debug!(
                    read = read.0.ordinal,
                    write = write.ordinal,
                    "a read names an entity created before it; its window ends at the create"
                );
                *end = write.position;
            }
        }
    }
}

/// The successful writes of a whole collection (creates), each with the object its answer shows
/// (the root, or one envelope member down) holding its type's identity field.
fn created_objects<'a>(
    timeline: &'a Timeline,
    related: &[RelatedWrite],
    types: &'a [EntityType],
) -> Vec<(&'a Observation, &'a Object, &'a str)> {
    let mut created = Vec::new();
    for write in related {
        let WriteScope::Type {
            entity_type,
            entity: None,
            ..
        } = &write.scope
        else {
            continue;
        };
        let Some(known) = types
            .iter()
            .find(|known| known.collection_template == *entity_type)
            .filter(|known| !known.identity_field.contains('/'))
        else {
            continue;
        };
        let identity = known.identity_field.as_str();
        let Some(observation) = timeline.get(write.ordinal) else {
            continue;
        };
        if let Some(object) = observation
            .success_body()
            .and_then(|body| holding(body, identity))
        {
            created.push((observation, object, identity));
        }
    }
    created
}

/// The object holding a scalar `identity` member: the body, or one of its members.
fn holding<'a>(body: &'a Json, identity: &str) -> Option<&'a Object> {
    let object = body.as_object()?;
    let holds = |object: &Object| object.get(identity).and_then(scalar_text).is_some();
    if holds(object) {
        return Some(object);
    }
    object
        .iter()
        .filter_map(|(_, member)| member.as_object())
        .find(|member| holds(member))
}

/// The objects of two or more members, all scalars, in an answer.
fn identifiers<'a>(value: &'a Json, depth: usize, found: &mut Vec<&'a Object>) {
    if depth > DEPTH {
        return;
    }
    match value {
        Json::Object(object) => {
            if object.len() >= 2 && object.iter().all(|(_, v)| scalar_text(v).is_some()) {
                found.push(object);
                return;
            }
            for (_, member) in object.iter() {
                identifiers(member, depth + 1, found);
            }
        }
        Json::Array(items) => {
            for item in items {
                identifiers(item, depth + 1, found);
            }
        }
        _ => {}
    }
}

/// Whether an identifier names the created object: it holds the identity member, and every
/// member equals, as text, the created object's member of that name.
fn named_by(identifier: &Object, created: &Object, identity: &str) -> bool {
    identifier.get(identity).is_some()
        && identifier.iter().all(|(key, value)| {
            scalar_text(value).is_some_and(|text| {
                created.get(key).and_then(scalar_text).as_deref() == Some(text.as_str())
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::parsed_json as json;

    #[test]
    fn an_identifier_of_the_created_object_names_it_and_others_do_not() {
        let answer = json(
            r#"{"data": {"type": "task", "id": "13", "attributes": {"title": "Inspect"}}, "links": {"self": "/tasks/13"}}"#,
        );
        let created = holding(&answer, "id").expect("the created object");
        assert_eq!(created.get("type"), Some(&json(r#""task""#)));
        let read = json(
            r#"{"data": {"id": "3", "relationships": {"tasks": {"data": [{"id": "7", "type": "task"}, {"id": "13", "type": "task"}]}}}}"#,
        );
        let mut found = Vec::new();
        identifiers(&read, 0, &mut found);
        let named: Vec<bool> = found
            .iter()
            .map(|identifier| named_by(identifier, created, "id"))
            .collect();
        assert_eq!(named, [false, true]);
        // An object without the identity member, or of another type, names nothing.
        let other =
            json(r#"[{"type": "task", "title": "Inspect"}, {"type": "project", "id": "13"}]"#);
        let mut found = Vec::new();
        identifiers(&other, 0, &mut found);
        assert_eq!(found.len(), 2);
        assert!(
            found
                .iter()
                .all(|identifier| !named_by(identifier, created, "id"))
        );
        // A body holding no object with the identity member creates nothing to look for.
        assert!(holding(&json(r#"{"meta": {"message": "ok"}}"#), "id").is_none());
    }
}

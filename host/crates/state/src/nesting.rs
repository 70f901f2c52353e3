//! Nested item entities: an item answer whose entity object is an envelope holding the identity,
//! members composed from the identity (a `link` spelling the item's own path), members constant
//! per class or minted per answer, and ONE object member holding the entity's properties
//! (`{"id": "7", "type": "issue", "link": "…/issue/7", "attributes": {…}, "@etag": "…"}`).
//!
//! Which member holds the properties is learned from the capture, never named: the one object
//! member of every plain answer whose keys hold every key the collection's other recordings name
//! beside the identity (the keys its creates sent, the members its list answers show) that the
//! envelope itself lacks. The state holds such an entity flat, as the identity, the composed
//! members and the properties ([`Nesting::flatten`]), the way lists of the same collection show
//! it, and renders an item answer back into the envelope the build recorded ([`Nesting::nest`]).

use rea_plugin_api::contracts::capture::CompactString;
use std::collections::BTreeSet;

use rea_plugin_api::json::{Json, Object};
use serde::{Deserialize, Serialize};

use crate::observation::{Observation, RequestBody, Timeline};

/// How an item view's entity object nests its properties.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Nesting {
    /// The member holding the properties.
    pub properties: String,
    /// The members beside it composed from the identity, held with the entity.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lifted: Vec<String>,
}

impl Nesting {
    /// The entity an envelope object shows, flat: its identity, the composed members, then the
    /// properties; `None` when the object is not of this form or a property repeats one of them.
    pub fn flatten(&self, identity: &str, object: &Json) -> Option<Json> {
        let envelope = object.as_object()?;
        let properties = envelope.get(&self.properties)?.as_object()?;
        let mut flat = Object::with_capacity(properties.len() + 1 + self.lifted.len());
        flat.insert(identity, envelope.get(identity)?.clone());
        for member in &self.lifted {
            if let Some(value) = envelope.get(member) {
                flat.insert(member, value.clone());
            }
        }
        for (key, value) in properties.iter() {
            if flat.contains_key(key) {
                return None;
            }
            flat.insert(key, value.clone());
        }
        Some(Json::Object(flat))
    }

    /// The envelope object `shell` (recorded for another entity, its names already renamed) with
    /// the flat `entity` put back: the identity and composed members from the entity, the
    /// properties member holding the rest of it, the other members as recorded.
    pub fn nest(&self, identity: &str, shell: &Json, entity: &Json) -> Json {
        let (Some(envelope), Some(fields)) = (shell.as_object(), entity.as_object()) else {
            return entity.clone();
        };
        let beside = |key: &str| key == identity || self.lifted.iter().any(|member| member == key);
        let properties: Object = fields
            .iter()
            .filter(|(key, _)| !beside(key))
            .map(|(key, value)| (key.to_owned(), value.clone()))
            .collect();
        let mut nested = Object::with_capacity(envelope.len());
        for (key, recorded) in envelope.iter() {
            if key == self.properties {
                nested.insert(key, Json::Object(properties.clone()));
            } else if beside(key) {
                if let Some(value) = fields.get(key) {
                    nested.insert(key, value.clone());
                }
            } else {
                nested.insert(key, recorded.clone());
            }
        }
        Json::Object(nested)
    }

    /// The members beside the properties the entity does not hold (constant per class, or each
    /// answer's own), as pointers below `pointer`, that differ across `objects`.
    pub fn minted(&self, identity: &str, pointer: &str, objects: &[&Json]) -> Vec<String> {
        let mut minted = Vec::new();
        let Some(first) = objects.first().and_then(|object| object.as_object()) else {
            return minted;
        };
        for key in first.keys() {
            if key == identity || key == self.properties || self.lifted.iter().any(|m| m == key) {
                continue;
            }
            let value = first.get(key);
            if objects.iter().any(|object| object.get(key) != value) {
                let segment = rea_plugin_api::json::escape_pointer_segment(key);
                minted.push(format!("{pointer}/{segment}"));
            }
        }
        minted
    }
}

/// The keys a collection's creates sent and its list answers show (see [`named_keys`]).
pub(crate) type NamedKeys = (BTreeSet<String>, BTreeSet<String>);

/// The nesting of an item tool's entity objects (at `pointer` in `basis`, the plain successful
/// reads, naming their entity by `identity`), learned from the keys the recordings of its
/// collection name (`named`, see [`named_keys`]): `None` when no one object member holds them.
pub(crate) fn learn(
    named: &NamedKeys,
    pointer: &str,
    identity: &str,
    basis: &[&Observation],
) -> Option<Nesting> {
    let objects: Vec<&Object> = basis
        .iter()
        .map(|line| line.body.as_ref()?.pointer(pointer)?.as_object())
        .collect::<Option<_>>()?;
    let outer: BTreeSet<&str> = objects.iter().flat_map(|object| object.keys()).collect();
    let inner = |keys: &BTreeSet<String>| -> BTreeSet<String> {
        keys.iter()
            .filter(|key| *key != identity && !outer.contains(key.as_str()))
            .cloned()
            .collect()
    };
    let (sent, listed) = named;
    let listed = inner(listed);
    // Only a list showing the entities flat asks for the flat entity.
    if listed.is_empty() {
        return None;
    }
    let named: BTreeSet<String> = inner(sent).into_iter().chain(listed).collect();
    let holding: Vec<&str> = outer
        .iter()
        .copied()
        .filter(|key| *key != identity && holds_all(&objects, key, &named))
        .collect();
    let [properties] = holding.as_slice() else {
        return None;
    };
    let lifted = composed_members(&objects, identity, properties);
    Some(Nesting {
        properties: (*properties).to_owned(),
        lifted,
    })
}

/// Whether `key` is an object member of every object, whose keys together hold every `named` key.
fn holds_all(objects: &[&Object], key: &str, named: &BTreeSet<String>) -> bool {
    let mut keys = BTreeSet::new();
    for object in objects {
        let Some(inner) = object.get(key).and_then(Json::as_object) else {
            return false;
        };
        keys.extend(inner.keys());
    }
    named.iter().all(|name| keys.contains(name.as_str()))
}

/// The members beside the properties that spell the identity as a path segment in every object
/// (`"link": "…/issue/7"` of issue 7).
fn composed_members(objects: &[&Object], identity: &str, properties: &str) -> Vec<String> {
    let Some(first) = objects.first() else {
        return Vec::new();
    };
    first
        .keys()
        .filter(|key| *key != identity && *key != properties)
        .filter(|key| {
            objects.iter().all(|object| {
                let id = crate::render::identity_text(&Json::Object((*object).clone()), identity);
                let text = object.get(key).and_then(Json::as_str);
                matches!((id, text), (Some(id), Some(text)) if spells_segment(text, &id))
            })
        })
        .map(str::to_owned)
        .collect()
}

/// Whether `text` holds `id` as one whole path segment.
fn spells_segment(text: &str, id: &str) -> bool {
    !id.is_empty() && text.contains('/') && text.split(['/', '?', '#']).any(|part| part == id)
}

/// The keys the successful recordings of a collection (its path, or the same with a trailing
/// slash) name: the members of the objects its creates sent, and those of the objects its list
/// answers show (an array of objects at the root, or one or two members down).
pub(crate) fn named_keys(timeline: &Timeline, collection: &[CompactString]) -> NamedKeys {
    let (mut sent, mut listed) = (BTreeSet::new(), BTreeSet::new());
    for observation in timeline.by_ordinal.values() {
        // The collection's path, also spelled with a trailing slash (an empty last segment).
        let of_collection = observation.segments == collection
            || observation
                .segments
                .split_last()
                .is_some_and(|(last, rest)| last.is_empty() && rest == collection);
        if !observation.is_success() || !of_collection {
            continue;
        }
        if observation.method.eq_ignore_ascii_case("POST") {
            if let RequestBody::Json(Json::Object(body)) = &observation.request {
                sent.extend(body.keys().map(str::to_owned));
            }
        } else if observation.method.eq_ignore_ascii_case("GET")
            && let Some(body) = &observation.body
        {
            listed_keys(body, 0, &mut listed);
        }
    }
    (sent, listed)
}

/// The keys of the objects of the arrays of objects in `value`, down to two members deep.
fn listed_keys(value: &Json, depth: usize, named: &mut BTreeSet<String>) {
    match value {
        Json::Array(items) => {
            for item in items {
                if let Json::Object(object) = item {
                    named.extend(object.keys().map(str::to_owned));
                }
            }
        }
        Json::Object(object) if depth < 2 => {
            for (_, member) in object.iter() {
                listed_keys(member, depth + 1, named);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::parsed_json as parsed;

    fn nesting() -> Nesting {
        Nesting {
            properties: "attributes".to_owned(),
            lifted: vec!["link".to_owned()],
        }
    }

    #[test]
    fn an_envelope_object_flattens_to_identity_composed_members_and_properties() {
        let object = parsed(
            r#"{"id": "7", "type": "issue", "link": "/issue/7",
                "attributes": {"title": "a", "status": {"id": "1"}}, "@etag": "x"}"#,
        );
        let flat = nesting().flatten("id", &object).expect("flat");
        assert_eq!(
            flat,
            parsed(r#"{"id": "7", "link": "/issue/7", "title": "a", "status": {"id": "1"}}"#)
        );
        let shell = parsed(
            r#"{"id": "1", "type": "issue", "link": "/issue/1", "attributes": {}, "@etag": "y"}"#,
        );
        assert_eq!(
            nesting().nest("id", &shell, &flat),
            parsed(
                r#"{"id": "7", "type": "issue", "link": "/issue/7",
                    "attributes": {"title": "a", "status": {"id": "1"}}, "@etag": "y"}"#
            )
        );
    }

    #[test]
    fn a_property_repeating_a_member_beside_it_does_not_flatten() {
        let object = parsed(r#"{"id": "7", "link": "/issue/7", "attributes": {"id": "8"}}"#);
        assert_eq!(nesting().flatten("id", &object), None);
    }

    #[test]
    fn members_beside_the_properties_that_differ_are_minted() {
        let one = parsed(r#"{"id": "1", "type": "t", "link": "/t/1", "attributes": {}, "e": "a"}"#);
        let two = parsed(r#"{"id": "2", "type": "t", "link": "/t/2", "attributes": {}, "e": "b"}"#);
        assert_eq!(
            nesting().minted("id", "/data", &[&one, &two]),
            vec!["/data/e".to_owned()]
        );
    }

    #[test]
    fn composed_members_spell_the_identity_as_a_path_segment() {
        let one = parsed(r#"{"id": "1", "type": "t", "link": "/t/1", "e": "\"11\""}"#);
        let objects = vec![one.as_object().expect("object")];
        assert_eq!(
            composed_members(&objects, "id", "attributes"),
            vec!["link".to_owned()]
        );
    }
}

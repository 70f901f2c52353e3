//! Keyed linkage of compound documents ([`crate::compound`]): a relationship whose plain form
//! shows no linkage (`data: null`, `data: []`) and whose compound answers fill it, computed from a
//! key property. To one: a property of the resource holds the related resource's id
//! (`attributes.project_id` → `{id, type: "Project"}`); to many: a property of the related
//! resources holds the resource's id (the tasks whose `attributes.project_id` is the project's),
//! in state order. Members the filled relationship shows beside the linkage (`meta`) are kept as
//! shown, their numbers equal to the linkage's length counted anew.
//!
//! Learned from one teaching read per relationship: each identifier resolved to the held entity
//! it names, the id member is the one holding that entity's id, the other members constant, and
//! the key property the one (at most one object down, relationships left out) whose text is the
//! id for every shown resource (`null` where the linkage is).

use serde::{Deserialize, Serialize};

use rea_plugin_api::json::{Json, Number, Object};

use crate::compound::{Read, names_resource};
use crate::model::Entity;

/// Where the key property sits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeyPlace {
    /// A property of the resource holds the related resource's id (to one).
    Own(String),
    /// A property of each related resource holds the resource's id (to many).
    Referrers(String),
}

/// A relationship whose linkage is computed (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyedLinkage {
    /// The relationship's name.
    pub relationship: String,
    /// The members the owning resources show with these values (`type: "Task"`), an object.
    pub owner: Json,
    /// The identifier's members in their shown order, the id member's value empty (an object).
    pub identifier: Json,
    /// The identifier member holding the id (`id`).
    pub id_member: String,
    /// The key property.
    pub key: KeyPlace,
    /// Members the filled relationship shows beside the linkage (`meta`), an object.
    pub added: Json,
    /// Pointers into `added` whose number is the linkage's length.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub counted: Vec<String>,
}

/// A scalar's text (a string's own, a number's lexeme).
fn text(value: &Json) -> Option<String> {
    match value {
        Json::String(text) => Some(text.to_string()),
        Json::Number(number) => Some(number.as_str().to_owned()),
        _ => None,
    }
}

/// The pointers of an object's scalars and nulls, at most one object down, `skip` left out.
fn scalar_pointers<'a>(object: &'a Object, skip: &str) -> Vec<(String, &'a Json)> {
    let mut found = Vec::new();
    for (key, value) in object.iter().filter(|(key, _)| *key != skip) {
        match value {
            Json::Object(inner) => found.extend(
                inner
                    .iter()
                    .filter(|(_, value)| !matches!(value, Json::Object(_) | Json::Array(_)))
                    .map(|(name, value)| (format!("/{key}/{name}"), value)),
            ),
            Json::Array(_) => {}
            scalar => found.push((format!("/{key}"), scalar)),
        }
    }
    found
}

/// The held entity a resource or identifier names: every text member it shows at the top equal.
fn held_for<'a>(shown: &Object, held: &[&'a Entity]) -> Option<&'a Entity> {
    let texts: Object = shown
        .iter()
        .filter(|(_, value)| value.as_str().is_some())
        .map(|(key, value)| (key.to_owned(), value.clone()))
        .collect();
    (!texts.is_empty()).then_some(())?;
    held.iter()
        .copied()
        .find(|entity| (entity.fields.as_object()).is_some_and(|f| names_resource(&texts, f)))
}

/// The keyed relationships one read teaches (none where the held entities hold the linkage
/// shown); `None` when a relationship's linkage is neither held nor keyed.
pub(crate) fn learn(
    read: &Read<'_>,
    entity_type: &str,
    held: &[&Entity],
) -> Option<Vec<KeyedLinkage>> {
    let own: Vec<&Entity> = held
        .iter()
        .copied()
        .filter(|entity| entity.entity_type == entity_type)
        .collect();
    let mut keyed = Vec::new();
    for name in read.names {
        let mut pairs = Vec::new();
        for resource in read.shown {
            let shown = read.relationship(resource, name)?;
            let entity = held_for(resource, &own)?;
            let fields = entity.fields.as_object()?;
            let kept = read.relationship(fields, name)?;
            pairs.push((*resource, shown, kept));
        }
        if pairs
            .iter()
            .all(|(_, shown, kept)| shown.get(read.linkage()) == kept.get(read.linkage()))
        {
            continue;
        }
        keyed.push(learn_one(read, name, &pairs, held)?);
    }
    Some(keyed)
}

/// A shown resource, its shown relationship and the held entity's.
type Pair<'a> = (&'a Object, &'a Object, &'a Object);

/// The keyed linkage of one relationship (see the module docs).
fn learn_one(
    read: &Read<'_>,
    name: &str,
    pairs: &[Pair<'_>],
    held: &[&Entity],
) -> Option<KeyedLinkage> {
    let mut links: Vec<Links<'_>> = Vec::new();
    for (resource, shown, _) in pairs {
        let (related, to_many) = match shown.get(read.linkage())? {
            Json::Null => (Vec::new(), false),
            Json::Object(identifier) => (vec![identifier], false),
            Json::Array(items) => (
                items.iter().map(Json::as_object).collect::<Option<_>>()?,
                true,
            ),
            _ => return None,
        };
        let resolved = related
            .into_iter()
            .map(|identifier| Some((identifier, held_for(identifier, held)?)))
            .collect::<Option<Vec<_>>>()?;
        links.push((resource, resolved, to_many));
    }
    let to_many = links.iter().any(|(_, _, many)| *many);
    let (first_identifier, first_entity) = links.iter().find_map(|(_, r, _)| r.first())?;
    let id_member = first_identifier
        .iter()
        .find(|(_, value)| value.as_str() == Some(first_entity.id.as_str()))
        .map(|(key, _)| key.to_owned())?;
    let mut identifier = (*first_identifier).clone();
    identifier.insert(id_member.as_str(), Json::from(String::new()));
    let owner: Object = pairs[0]
        .0
        .iter()
        .filter(|(key, _)| first_identifier.contains_key(key) && *key != id_member)
        .map(|(key, value)| (key.to_owned(), value.clone()))
        .collect();
    let constant = |id: &Object| {
        id.iter()
            .all(|(key, value)| key == id_member || identifier.get(key) == Some(value))
    };
    if !links
        .iter()
        .all(|(_, r, _)| r.iter().all(|(id, _)| constant(id)))
    {
        return None;
    }
    let key = if to_many {
        KeyPlace::Referrers(referrer_key(read, &links, &id_member)?)
    } else {
        KeyPlace::Own(own_key(read, &links, &id_member)?)
    };
    let (added, counted) = added_members(read, pairs)?;
    Some(KeyedLinkage {
        relationship: name.to_owned(),
        owner: Json::Object(owner),
        identifier: Json::Object(identifier),
        id_member,
        key,
        added: Json::Object(added),
        counted,
    })
}

/// A resource and the identifiers it links, each with the entity it names, and whether the
/// linkage is an array.
type Links<'a> = (&'a Object, Vec<(&'a Object, &'a Entity)>, bool);

/// The resource's property holding the related id (`null` where nothing is linked).
fn own_key(read: &Read<'_>, links: &[Links<'_>], id_member: &str) -> Option<String> {
    let (first, _, _) = links.first()?;
    scalar_pointers(first, read.relationships())
        .into_iter()
        .map(|(pointer, _)| pointer)
        .find(|pointer| {
            links.iter().all(|(resource, related, _)| {
                let value = Json::Object((*resource).clone());
                let value = value.pointer(pointer);
                match related.first() {
                    None => value.is_none_or(Json::is_null),
                    Some((identifier, _)) => {
                        let id = identifier.get(id_member).and_then(Json::as_str);
                        id.is_some() && value.and_then(text).as_deref() == id
                    }
                }
            })
        })
}

/// The related resources' property holding the resource's id.
fn referrer_key(read: &Read<'_>, links: &[Links<'_>], id_member: &str) -> Option<String> {
    let (_, related, _) = links.iter().find(|(_, related, _)| !related.is_empty())?;
    let (_, entity) = related.first()?;
    scalar_pointers(entity.fields.as_object()?, read.relationships())
        .into_iter()
        .map(|(pointer, _)| pointer)
        .find(|pointer| {
            links.iter().all(|(resource, related, _)| {
                let own = resource.get(id_member).and_then(text);
                related.iter().all(|(_, entity)| {
                    own.is_some() && entity.fields.pointer(pointer).and_then(text) == own
                })
            })
        })
}

/// The members every filled relationship shows beside the held ones, with the pointers whose
/// number is the linkage's length; `None` when two resources show them otherwise.
fn added_members(read: &Read<'_>, pairs: &[Pair<'_>]) -> Option<(Object, Vec<String>)> {
    let mut learned: Option<(Object, Vec<String>)> = None;
    for (_, shown, kept) in pairs {
        let count = match shown.get(read.linkage()) {
            Some(Json::Array(items)) => Some(items.len()),
            _ => None,
        };
        let added: Object = shown
            .iter()
            .filter(|(key, _)| !kept.contains_key(key))
            .map(|(key, value)| (key.to_owned(), value.clone()))
            .collect();
        let mut counted = Vec::new();
        if let Some(count) = count {
            counted_pointers(&Json::Object(added.clone()), "", count, &mut counted);
        }
        let mut template = Json::Object(added);
        set_counts(&mut template, &counted, 0);
        let Json::Object(template) = template else {
            return None;
        };
        if learned
            .as_ref()
            .is_some_and(|known| *known != (template.clone(), counted.clone()))
        {
            return None;
        }
        learned = Some((template, counted));
    }
    learned
}

/// The pointers below `value` whose number is `count`.
fn counted_pointers(value: &Json, at: &str, count: usize, found: &mut Vec<String>) {
    match value {
        Json::Object(object) => {
            for (key, inner) in object.iter() {
                counted_pointers(inner, &format!("{at}/{key}"), count, found);
            }
        }
        Json::Number(number) if number.as_u64() == Some(count as u64) => found.push(at.to_owned()),
        _ => {}
    }
}

/// Sets the number at each pointer to `count`.
fn set_counts(value: &mut Json, pointers: &[String], count: usize) {
    for pointer in pointers {
        if let (Some(slot), Some(number)) = (
            crate::render::pointer_mut(value, pointer),
            Number::from_lexeme(&count.to_string()),
        ) {
            *slot = Json::Number(number);
        }
    }
}

impl KeyedLinkage {
    /// Whether this computes the linkage of `resource`'s relationship `name`.
    pub(crate) fn links(&self, resource: &Object, name: &str) -> bool {
        self.relationship == name
            && (self.owner.as_object()).is_some_and(|owner| names_resource(owner, resource))
    }

    /// The linkage of a resource, and the members shown beside it (see the module docs).
    pub(crate) fn linkage_for(
        &self,
        resource: &Object,
        held: &[&Entity],
    ) -> Option<(Json, Object)> {
        let identifier = |id: String| {
            let mut identifier = self.identifier.clone();
            if let Json::Object(object) = &mut identifier {
                object.insert(self.id_member.as_str(), Json::String(id.into()));
            }
            identifier
        };
        let (linkage, count) = match &self.key {
            KeyPlace::Own(pointer) => {
                let shown = Json::Object(resource.clone());
                match shown.pointer(pointer) {
                    None | Some(Json::Null) => (Json::Null, 0),
                    Some(value) => (identifier(text(value)?), 1),
                }
            }
            KeyPlace::Referrers(pointer) => {
                let own = resource.get(&self.id_member).and_then(text)?;
                let constants = self.constants();
                let related: Vec<Json> = held
                    .iter()
                    .filter_map(|entity| {
                        let fields = entity.fields.as_object()?;
                        (names_resource(&constants, fields)
                            && entity.fields.pointer(pointer).and_then(text).as_ref() == Some(&own))
                        .then(|| identifier(entity.id.clone()))
                    })
                    .collect();
                let count = related.len();
                (Json::Array(related), count)
            }
        };
        let mut added = self.added.clone();
        set_counts(&mut added, &self.counted, count);
        let Json::Object(added) = added else {
            return None;
        };
        Some((linkage, added))
    }

    /// The identifier's constant members.
    fn constants(&self) -> Object {
        let empty = Object::new();
        let identifier = self.identifier.as_object().unwrap_or(&empty);
        identifier
            .iter()
            .filter(|(key, _)| *key != self.id_member)
            .map(|(key, value)| (key.to_owned(), value.clone()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compound::CompoundDocuments;
    use crate::test_support::entity;

    use crate::test_support::parsed_json as json;

    fn task(id: &str, project: &str, data: &str) -> String {
        format!(
            r#"{{"id": "{id}", "type": "Task", "attributes": {{"project_id": {project}}}, "relationships": {{"project": {{"data": {data}}}}}}}"#
        )
    }

    fn project(id: &str, data: &str) -> String {
        format!(
            r#"{{"id": "{id}", "type": "Project", "attributes": {{"code": "P{id}"}}, "relationships": {{"tasks": {{"data": {data}}}}}}}"#
        )
    }

    fn held() -> Vec<Entity> {
        vec![
            entity("/tasks", "1", &task("1", "1", "null")),
            entity("/tasks", "2", &task("2", "2", "null")),
            entity("/tasks", "3", &task("3", "1", "null")),
            entity("/projects", "1", &project("1", "[]")),
            entity("/projects", "2", &project("2", "[]")),
        ]
    }

    /// The rule a compound answer teaches, learned as `learn` does it.
    fn learned(body: &str, pointer: &str, name: &str, entity_type: &str) -> CompoundDocuments {
        let held = held();
        let held: Vec<&Entity> = held.iter().collect();
        let body = json(body);
        crate::compound::learn_from_body(("include", name), &body, pointer, (entity_type, &held))
            .expect("a rule")
    }

    #[test]
    fn a_to_one_linkage_is_keyed_by_the_resources_own_property() {
        let p1 = r#"{"id": "1", "type": "Project"}"#;
        let body = format!(
            r#"{{"data": [{}, {}], "included": [{}]}}"#,
            task("1", "1", p1),
            task("3", "1", p1),
            project("1", "[]")
        );
        let rule = learned(&body, "/data", "project", "/tasks");
        let [keyed] = rule.keyed.as_slice() else {
            panic!("one keyed linkage: {:?}", rule.keyed);
        };
        assert_eq!(
            keyed.key,
            KeyPlace::Own("/attributes/project_id".to_owned())
        );
        assert_eq!(keyed.id_member, "id");
        let held = held();
        let held: Vec<&Entity> = held.iter().collect();
        let shown = json(&task("2", "2", "null"));
        let (linkage, added) = keyed
            .linkage_for(shown.as_object().expect("object"), &held)
            .expect("a linkage");
        assert_eq!(linkage, json(r#"{"id": "2", "type": "Project"}"#));
        assert!(added.is_empty());
        let unlinked = json(&task("4", "null", "null"));
        let (linkage, _) = keyed
            .linkage_for(unlinked.as_object().expect("object"), &held)
            .expect("a linkage");
        assert_eq!(linkage, Json::Null);
    }

    #[test]
    fn a_to_many_linkage_lists_the_referrers_and_counts_them() {
        let data = r#"[{"id": "1", "type": "Task"}, {"id": "3", "type": "Task"}]"#;
        let shown = project("1", data).replace(
            r#""data": ["#,
            r#""meta": {"count": 2, "limit": 250}, "data": ["#,
        );
        let body = format!(
            r#"{{"data": {shown}, "included": [{}, {}]}}"#,
            task("1", "1", "null"),
            task("3", "1", "null")
        );
        let rule = learned(&body, "/data", "tasks", "/projects");
        let [keyed] = rule.keyed.as_slice() else {
            panic!("one keyed linkage: {:?}", rule.keyed);
        };
        assert_eq!(
            keyed.key,
            KeyPlace::Referrers("/attributes/project_id".to_owned())
        );
        assert_eq!(keyed.counted, ["/meta/count"]);
        let held = held();
        let held: Vec<&Entity> = held.iter().collect();
        let other = json(&project("2", "[]"));
        let (linkage, added) = keyed
            .linkage_for(other.as_object().expect("object"), &held)
            .expect("a linkage");
        assert_eq!(linkage, json(r#"[{"id": "2", "type": "Task"}]"#));
        assert_eq!(
            Json::Object(added),
            json(r#"{"meta": {"count": 1, "limit": 250}}"#)
        );
    }
}

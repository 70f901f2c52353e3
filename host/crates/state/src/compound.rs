//! Compound documents: a query parameter naming relationships (`include=author,borrower`) whose
//! answer is the plain answer plus one top-level member (`included`) holding the related
//! resources the shown resources' relationship linkage names (`relationships.<rel>.data`: an
//! identifier object, `null`, or an array of identifiers).
//!
//! Learned from the successful list and item reads naming such a parameter in their observation
//! windows (a read after a write related to what it shows, a project's compound read after its
//! create, shows another state than the one held: it neither teaches nor contradicts the rule):
//! every name in its value is a member of one object member of each shown resource
//! (`relationships`), each holding the linkage in one member (`data`), and the top-level member
//! holds exactly the resources those identifiers name (the shown resources left out), each
//! matching its identifier's members. Where the held entity already holds the linkage shown, it
//! is read from the entity; where the held entity shows none (an application that fills the
//! linkage of included relationships only), the linkage is learned as keyed
//! ([`crate::compound_keys`]): a property of the resource or of the related resources holding
//! the other's id. One rule per state; a call of any list or item
//! view naming relationships its entities hold is answered as the call without the parameter,
//! the linkage filled and the related resources the state holds added in first-seen order over
//! the shown resources (by relationship in the order named), each as its own entity holds it, or
//! sorted by type and id where every recorded read including two or more resources listed them
//! so and one listed them otherwise than first seen ([`CompoundDocuments::sorted`]:
//! Flask-Restless lists the people a list's tasks name before their projects, each by id).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use rea_manifest::Manifest;
use rea_plugin_api::json::{Json, Object, escape_pointer_segment};

use crate::compound_keys::KeyedLinkage;
use crate::model::{Entity, ReadView, ViewDetail};
use crate::observation::Timeline;

/// A learned compound-document rule (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompoundDocuments {
    /// The parameter naming the relationships (`include`).
    pub parameter: String,
    /// The top-level member holding the related resources (`included`).
    pub included: String,
    /// The object member of each resource holding its relationships (`relationships`).
    pub relationships: String,
    /// The member of a relationship holding its linkage (`data`).
    pub linkage: String,
    /// The relationships whose linkage is computed from a key property, not held.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keyed: Vec<KeyedLinkage>,
    /// Per list or item tool, the relationships its entities hold (what the catalog offers).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub offered: BTreeMap<String, Vec<String>>,
    /// Whether the included resources are listed by their type, then their id (see the module
    /// docs), not in first-seen order.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sorted: bool,
}

/// How the included resources of the recorded reads were ordered: whether every read listing
/// two or more did so in first-seen order, and whether every such read did so sorted.
#[derive(Debug, Clone, Copy)]
struct IncludedOrder {
    first_seen: bool,
    sorted: bool,
}

/// The member names one read shows (before keyed linkage is learned).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Shape {
    parameter: String,
    included: String,
    relationships: String,
    linkage: String,
}

/// Whether the held to-many linkage of a relationship (by name) may no longer be what the
/// application shows (see [`CompoundDocuments::apply`]).
pub type StaleLinkage<'a> = &'a dyn Fn(&str) -> bool;

/// The resources a body shows at a pointer: one object, or an array of them.
fn shown_at<'a>(body: &'a Json, pointer: &str) -> Option<Vec<&'a Object>> {
    match body.pointer(pointer)? {
        Json::Array(items) => items.iter().map(Json::as_object).collect(),
        Json::Object(object) => Some(vec![object]),
        _ => None,
    }
}

/// The relationship names a parameter value lists (comma-separated, none empty).
pub fn named(value: &str) -> Option<Vec<String>> {
    let names: Vec<String> = value.split(',').map(str::to_owned).collect();
    names.iter().all(|name| !name.is_empty()).then_some(names)
}

/// The identifiers a linkage value holds (`null`: none); `None` when it is no linkage.
fn identifiers(linkage: &Json) -> Option<Vec<&Object>> {
    match linkage {
        Json::Null => Some(Vec::new()),
        Json::Object(object) if is_identifier(object) => Some(vec![object]),
        Json::Array(items) => items
            .iter()
            .map(|item| item.as_object().filter(|object| is_identifier(object)))
            .collect(),
        _ => None,
    }
}

/// Whether an object has the form of a resource identifier: a few string members.
fn is_identifier(object: &Object) -> bool {
    (2..=3).contains(&object.len()) && object.iter().all(|(_, value)| value.as_str().is_some())
}

/// Whether a resource is the one an identifier names: it shows each identifier member.
pub fn names_resource(identifier: &Object, resource: &Object) -> bool {
    identifier
        .iter()
        .all(|(key, value)| resource.get(key) == Some(value))
}

/// Learns the rule from the list and item reads of every view in their observation windows (see
/// the module docs); `None` when no read teaches one, two reads teach different member names, or
/// a read shows a linkage neither held nor keyed.
pub fn learn(
    manifest: &Manifest,
    timeline: &Timeline,
    entities: &[Entity],
    views: &[ReadView],
) -> Option<CompoundDocuments> {
    let held: Vec<&Entity> = entities.iter().collect();
    let mut shape: Option<Shape> = None;
    let mut keyed: Vec<KeyedLinkage> = Vec::new();
    let mut order = IncludedOrder {
        first_seen: true,
        sorted: true,
    };
    for view in views {
        let Some((entity_type, pointer)) = view_place(view) else {
            continue;
        };
        let Some(index) = crate::derive::tool_index(manifest, &view.tool) else {
            continue;
        };
        for observation in timeline.checked(index) {
            let Some(body) = observation.success_body() else {
                continue;
            };
            for pair in observation.pairs() {
                let (taught, learned) = match lesson(pair, body, pointer, (entity_type, &held)) {
                    Lesson::Nothing => continue,
                    Lesson::Contradicts => return None,
                    Lesson::Taught(taught, learned) => (taught, learned),
                };
                if shape.as_ref().is_some_and(|known| *known != taught) {
                    return None;
                }
                for learned in learned {
                    if !keyed.contains(&learned) {
                        keyed.push(learned);
                    }
                }
                if let Some((first_seen, sorted)) = included_order(&taught, &pair.1, body, pointer)
                {
                    order.first_seen &= first_seen;
                    order.sorted &= sorted;
                }
                shape = Some(taught);
            }
        }
    }
    let shape = shape?;
    let offered = offered(&shape.relationships, (manifest, timeline), views);
    let sorted = order.sorted && !order.first_seen;
    Some(CompoundDocuments {
        sorted,
        ..rule_of(shape, keyed, offered)
    })
}

/// How one read listed its included resources, when it listed two or more: whether in the order
/// its shown resources first link them (by relationship in the order named), and whether sorted
/// by type and id ([`by_type_and_id`]).
fn included_order(shape: &Shape, value: &str, body: &Json, pointer: &str) -> Option<(bool, bool)> {
    let names = named(value)?;
    let shown = shown_at(body, pointer)?;
    let listed: Vec<&Object> = (body.get(&shape.included)?.as_array()?.iter())
        .map(Json::as_object)
        .collect::<Option<_>>()?;
    if listed.len() < 2 {
        return None;
    }
    let mut first_seen: Vec<&Object> = Vec::new();
    for identifier in linked_identifiers(shape, &names, &shown)? {
        if !first_seen.contains(&identifier) {
            first_seen.push(identifier);
        }
    }
    let in_first_seen_order = first_seen.len() == listed.len()
        && (first_seen.iter().zip(&listed))
            .all(|(identifier, entry)| names_resource(identifier, entry));
    let sorted = listed
        .windows(2)
        .all(|pair| by_type_and_id(pair[0], pair[1]) != std::cmp::Ordering::Greater);
    Some((in_first_seen_order, sorted))
}

/// How two resources compare by their `type`, then their `id` (numbers as numbers).
fn by_type_and_id(a: &Object, b: &Object) -> std::cmp::Ordering {
    let text = |resource: &Object, member: &str| {
        resource
            .get(member)
            .and_then(crate::render::scalar_text)
            .unwrap_or_default()
    };
    text(a, "type")
        .cmp(&text(b, "type"))
        .then_with(|| crate::query::compare_text(&text(a, "id"), &text(b, "id")))
}

/// The rule of a shape and its keyed linkage.
fn rule_of(
    shape: Shape,
    keyed: Vec<KeyedLinkage>,
    offered: BTreeMap<String, Vec<String>>,
) -> CompoundDocuments {
    CompoundDocuments {
        parameter: shape.parameter,
        included: shape.included,
        relationships: shape.relationships,
        linkage: shape.linkage,
        keyed,
        offered,
        sorted: false,
    }
}

/// What one read's pair teaches.
enum Lesson {
    /// The pair names no relationships the body shows included.
    Nothing,
    /// The member names, and the relationships whose linkage is keyed.
    Taught(Shape, Vec<KeyedLinkage>),
    /// A relationship's linkage is neither held nor keyed.
    Contradicts,
}

/// The lesson of one read's pair: the resources at `pointer` of `body`, of `entity_type` among
/// the `held` entities.
fn lesson(
    (name, value): &(String, String),
    body: &Json,
    pointer: &str,
    (entity_type, held): (&str, &[&Entity]),
) -> Lesson {
    let (Some((taught, names)), Some(shown)) = (
        taught_by(name, value, body, pointer),
        shown_at(body, pointer),
    ) else {
        return Lesson::Nothing;
    };
    let read = Read {
        shape: &taught,
        names: &names,
        shown: &shown,
    };
    match crate::compound_keys::learn(&read, entity_type, held) {
        Some(keyed) => Lesson::Taught(taught, keyed),
        None => Lesson::Contradicts,
    }
}

/// The rule one body teaches alone (nothing offered): what a unit test learns from.
#[cfg(test)]
pub(crate) fn learn_from_body(
    (name, value): (&str, &str),
    body: &Json,
    pointer: &str,
    (entity_type, held): (&str, &[&Entity]),
) -> Option<CompoundDocuments> {
    let pair = (name.to_owned(), value.to_owned());
    match lesson(&pair, body, pointer, (entity_type, held)) {
        Lesson::Taught(shape, keyed) => Some(rule_of(shape, keyed, BTreeMap::new())),
        _ => None,
    }
}

/// One teaching read: its member names, the relationships it named and the resources it shows.
pub(crate) struct Read<'a> {
    shape: &'a Shape,
    pub(crate) names: &'a [String],
    pub(crate) shown: &'a [&'a Object],
}

impl Read<'_> {
    /// The relationship object a shown resource holds under `name`.
    pub(crate) fn relationship<'b>(&self, resource: &'b Object, name: &str) -> Option<&'b Object> {
        resource
            .get(&self.shape.relationships)?
            .as_object()?
            .get(name)?
            .as_object()
    }

    /// The linkage member's name.
    pub(crate) fn linkage(&self) -> &str {
        &self.shape.linkage
    }

    /// The relationships member's name.
    pub(crate) fn relationships(&self) -> &str {
        &self.shape.relationships
    }
}

/// A list or item view's entity type and where its resources sit.
fn view_place(view: &ReadView) -> Option<(&str, &str)> {
    match &view.detail {
        ViewDetail::List(list) => Some((&list.entity_type, &list.list_pointer)),
        ViewDetail::Item(item) => Some((&item.entity_type, &item.entity_pointer)),
        _ => None,
    }
}

/// The shape one read's pair teaches, with the names it lists (`None` when the pair names no
/// relationships or the body does not fit).
fn taught_by(name: &str, value: &str, body: &Json, pointer: &str) -> Option<(Shape, Vec<String>)> {
    let names = named(value)?;
    let shown = shown_at(body, pointer)?;
    let first = *shown.first()?;
    let relationships = first
        .iter()
        .find(|(_, member)| {
            member
                .as_object()
                .is_some_and(|object| names.iter().all(|name| object.contains_key(name)))
        })
        .map(|(key, _)| key.to_owned())?;
    let root = body.as_object()?;
    let top = pointer.strip_prefix('/')?.split('/').next()?;
    let relationship = first.get(&relationships)?.as_object()?.get(&names[0])?;
    for (linkage, _) in relationship.as_object()?.iter() {
        for (included, member) in root.iter().filter(|(key, _)| *key != top) {
            let Some(resources) = member.as_array() else {
                continue;
            };
            let shape = Shape {
                parameter: name.to_owned(),
                included: included.to_owned(),
                relationships: relationships.clone(),
                linkage: linkage.to_owned(),
            };
            if names_exactly(&shape, &names, &shown, resources) {
                return Some((shape, names));
            }
        }
    }
    None
}

/// The identifiers the shown resources link under `names`, resource by resource and by
/// relationship in the order named, the shown resources themselves left out; `None` when a
/// resource holds no linkage for a name.
fn linked_identifiers<'b>(
    shape: &Shape,
    names: &[String],
    shown: &[&'b Object],
) -> Option<Vec<&'b Object>> {
    let mut linked: Vec<&Object> = Vec::new();
    for resource in shown {
        for name in names {
            let linkage = resource
                .get(&shape.relationships)
                .and_then(|member| member.get(name))
                .and_then(|relationship| relationship.get(&shape.linkage))?;
            linked.extend(identifiers(linkage)?);
        }
    }
    linked.retain(|identifier| !shown.iter().any(|own| names_resource(identifier, own)));
    Some(linked)
}

/// Whether the identifiers the shown resources link under `names` (less the shown resources
/// themselves) name exactly the resources listed, one each.
fn names_exactly(shape: &Shape, names: &[String], shown: &[&Object], listed: &[Json]) -> bool {
    let Some(listed) = listed
        .iter()
        .map(Json::as_object)
        .collect::<Option<Vec<&Object>>>()
    else {
        return false;
    };
    let Some(linked) = linked_identifiers(shape, names, shown) else {
        return false;
    };
    !linked.is_empty()
        && linked
            .iter()
            .all(|identifier| listed.iter().any(|entry| names_resource(identifier, entry)))
        && listed.iter().all(|entry| {
            linked
                .iter()
                .any(|identifier| names_resource(identifier, entry))
        })
}

/// The relationships each list or item view's recorded answers show its resources holding (see
/// [`CompoundDocuments::offered`]): a view whose reads show resources without them (a list of
/// identifiers) is offered none, and so is a view whose body is the resource (no top level beside
/// it to hold the included member).
fn offered(
    relationships: &str,
    (manifest, timeline): (&Manifest, &Timeline),
    views: &[ReadView],
) -> BTreeMap<String, Vec<String>> {
    let mut offered = BTreeMap::new();
    for view in views {
        let (Some((_, pointer)), Some(index)) = (
            view_place(view).filter(|(_, pointer)| !pointer.is_empty()),
            crate::derive::tool_index(manifest, &view.tool),
        ) else {
            continue;
        };
        let names = timeline
            .all(index)
            .filter(|read| read.is_success())
            .find_map(|read| shown_at(read.body.as_ref()?, pointer)?.first().copied())
            .and_then(|resource| resource.get(relationships)?.as_object())
            .map(|object| object.keys().map(str::to_owned).collect::<Vec<_>>());
        if let Some(names) = names.filter(|names| !names.is_empty()) {
            offered.insert(view.tool.clone(), names);
        }
    }
    offered
}

impl CompoundDocuments {
    /// The relationships a call's pair asks `tool` for, when it is this rule's parameter naming
    /// only relationships the tool's entities hold.
    pub fn asked(&self, tool: &str, name: &str, value: &str) -> Option<Vec<String>> {
        (name == self.parameter).then_some(())?;
        let offered = self.offered.get(tool)?;
        let names = named(value)?;
        names
            .iter()
            .all(|name| offered.contains(name))
            .then_some(names)
    }

    /// Fills, in the answer `body`, each resource at `pointer` with the linkage of the `names`
    /// relationships and adds the related resources `held` holds under the included member;
    /// `None` when a resource lacks a relationship, an identifier names no held resource, or
    /// nothing is related and the plain answer has no included member to show it empty. A held
    /// to-many linkage `stale` names refuses too: after a served write, the writes of the related
    /// resources change no linkage their parent holds unless an inverse linkage keeps it
    /// ([`crate::inverse`]).
    pub fn apply(
        &self,
        body: &mut Json,
        pointer: &str,
        names: &[String],
        (held, stale): (&[&Entity], StaleLinkage<'_>),
    ) -> Option<()> {
        let shown = crate::render::pointer_mut(body, pointer)?;
        let resources: Vec<&mut Object> = match shown {
            Json::Array(items) => items
                .iter_mut()
                .map(Json::as_object_mut)
                .collect::<Option<_>>()?,
            Json::Object(object) => vec![object],
            _ => return None,
        };
        let mut linked: Vec<Object> = Vec::new();
        let mut own: Vec<Object> = Vec::new();
        for resource in resources {
            own.push(resource.clone());
            for name in names {
                let linkage = self.linkage_of(resource, name, held)?;
                if matches!(linkage, Json::Array(_))
                    && !self.is_keyed(resource, name)
                    && stale(name)
                {
                    return None;
                }
                linked.extend(identifiers(&linkage)?.into_iter().cloned());
            }
        }
        let mut included: Vec<Json> = Vec::new();
        let mut seen: Vec<Object> = Vec::new();
        for identifier in linked {
            if seen.contains(&identifier) || own.iter().any(|o| names_resource(&identifier, o)) {
                continue;
            }
            let entity = held.iter().find(|entity| {
                (entity.fields.as_object())
                    .is_some_and(|fields| names_resource(&identifier, fields))
            })?;
            included.push(entity.fields.clone());
            seen.push(identifier);
        }
        if self.sorted {
            included.sort_by(|a, b| match (a.as_object(), b.as_object()) {
                (Some(a), Some(b)) => by_type_and_id(a, b),
                _ => std::cmp::Ordering::Equal,
            });
        }
        let root = body.as_object_mut()?;
        if included.is_empty() && !root.contains_key(&self.included) {
            return None;
        }
        root.insert(self.included.as_str(), Json::Array(included));
        Some(())
    }

    /// Whether the linkage of a resource's relationship `name` is computed ([`KeyedLinkage`]).
    fn is_keyed(&self, resource: &Object, name: &str) -> bool {
        self.keyed.iter().any(|keyed| keyed.links(resource, name))
    }

    /// The linkage of a resource's relationship `name` (held, or computed when keyed); `None`
    /// when the resource has no such relationship.
    pub fn linkage(&self, resource: &Object, name: &str, held: &[&Entity]) -> Option<Json> {
        self.linkage_of(&mut resource.clone(), name, held)
    }

    /// The pointer of the member holding a relationship's linkage in a resource
    /// (`/relationships/tasks/data`).
    pub fn linkage_member(&self, name: &str) -> String {
        [&self.relationships, name, &self.linkage]
            .iter()
            .map(|segment| format!("/{}", escape_pointer_segment(segment)))
            .collect()
    }

    /// The linkage of one relationship of a shown resource: computed and written into it when
    /// keyed, else as it holds it.
    fn linkage_of(&self, resource: &mut Object, name: &str, held: &[&Entity]) -> Option<Json> {
        let keyed = self.keyed.iter().find(|keyed| keyed.links(resource, name));
        let computed = match keyed {
            Some(keyed) => Some(keyed.linkage_for(resource, held)?),
            None => None,
        };
        let relationship = resource
            .get_mut(&self.relationships)?
            .as_object_mut()?
            .get_mut(name)?
            .as_object_mut()?;
        let Some((linkage, added)) = computed else {
            return relationship.get(&self.linkage).cloned();
        };
        relationship.insert(self.linkage.as_str(), linkage.clone());
        for (key, value) in added.iter() {
            relationship.insert(key, value.clone());
        }
        Some(linkage)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::entity;
    use crate::test_support::parsed_json as json;

    /// A JSON:API resource of `kind` (`tasks`, `projects`) linking `links` under `name`.
    fn resource(kind: &str, id: u64, name: &str, links: serde_json::Value) -> serde_json::Value {
        let attributes = serde_json::json!({"title": format!("{kind} {id}")});
        let relationships = serde_json::json!({name: {"data": links}});
        serde_json::json!({"type": kind, "id": id.to_string(), "attributes": attributes,
            "relationships": relationships})
    }

    /// A task resource linking its project.
    fn task(id: u64, project: u64) -> serde_json::Value {
        let linked = serde_json::json!({"type": "projects", "id": project.to_string()});
        resource("tasks", id, "project", linked)
    }

    /// A project resource linking its tasks.
    fn project(id: u64, tasks: &[u64]) -> serde_json::Value {
        let linked: Vec<serde_json::Value> = (tasks.iter())
            .map(|id| serde_json::json!({"type": "tasks", "id": id.to_string()}))
            .collect();
        resource("projects", id, "tasks", serde_json::Value::from(linked))
    }

    /// The parameter of the compound rule the state derived from these records learns, if any.
    fn learned_parameter(
        records: Vec<rea_plugin_api::contracts::capture::CaptureRecord>,
    ) -> Option<String> {
        crate::derive::tests::derive(records)
            .state
            .compound
            .map(|rule| rule.parameter)
    }

    #[test]
    fn an_include_read_after_a_write_it_shows_neither_teaches_nor_contradicts_the_rule() {
        use serde_json::json;
        let at = |ordinal, method, target, body| {
            let status = if method == "POST" { 201 } else { 200 };
            crate::derive::tests::record(ordinal, method, target, status, body)
        };
        let mut records = vec![
            at(0, "GET", "/api/tasks", json!({"data": [task(1, 1)]})),
            at(
                1,
                "GET",
                "/api/projects",
                json!({"data": [project(1, &[1])]}),
            ),
            at(
                2,
                "GET",
                "/api/projects/1",
                json!({"data": project(1, &[1])}),
            ),
            at(
                3,
                "GET",
                "/api/tasks?include=project",
                json!({"data": [task(1, 1)], "included": [project(1, &[1])]}),
            ),
        ];
        assert_eq!(
            learned_parameter(records.clone()).as_deref(),
            Some("include")
        );
        // Project 2 and its task 2, created by the writes before the read, are no held
        // entities: the read shows the state after them, not the one held.
        records.extend([
            at(4, "POST", "/api/projects", json!({"data": project(2, &[])})),
            at(5, "POST", "/api/tasks", json!({"data": task(2, 2)})),
            at(
                6,
                "GET",
                "/api/projects/2?include=tasks",
                json!({"data": project(2, &[2]), "included": [task(2, 2)]}),
            ),
        ]);
        assert_eq!(learned_parameter(records).as_deref(), Some("include"));
    }

    fn book(id: &str, author: &str, borrower: &str) -> String {
        format!(
            r#"{{"type": "Book", "id": "{id}", "relationships": {{"author": {{"links": {{"self": "/b/{id}/a"}}, "data": {author}}}, "borrower": {{"data": {borrower}}}}}}}"#
        )
    }

    fn rule() -> CompoundDocuments {
        CompoundDocuments {
            offered: BTreeMap::from([(
                "get_books".to_owned(),
                vec!["author".to_owned(), "borrower".to_owned()],
            )]),
            ..crate::test_support::json_api_compound()
        }
    }

    #[test]
    fn a_read_naming_relationships_teaches_the_members_holding_them() {
        let a1 = r#"{"type": "Author", "id": "1"}"#;
        let body = json(&format!(
            r#"{{"data": [{}, {}], "included": [{{"type": "Author", "id": "1", "name": "Le Guin"}}]}}"#,
            book("1", a1, "null"),
            book("2", a1, "null")
        ));
        let (shape, names) = taught_by("include", "author", &body, "/data").expect("a shape");
        assert_eq!(names, ["author"]);
        assert_eq!(
            shape,
            Shape {
                parameter: "include".to_owned(),
                included: "included".to_owned(),
                relationships: "relationships".to_owned(),
                linkage: "data".to_owned(),
            }
        );
        // An included member listing a resource nothing links teaches nothing.
        let extra = json(&format!(
            r#"{{"data": [{}], "included": [{{"type": "Author", "id": "1"}}, {{"type": "Author", "id": "9"}}]}}"#,
            book("1", a1, "null")
        ));
        assert_eq!(taught_by("include", "author", &extra, "/data"), None);
        // A name no resource holds as a relationship teaches nothing.
        assert_eq!(taught_by("include", "editor", &body, "/data"), None);
    }

    #[test]
    fn included_resources_listed_by_type_and_id_teach_and_answer_that_order() {
        let (a1, a2) = (
            r#"{"type": "Author", "id": "1"}"#,
            r#"{"type": "Author", "id": "2"}"#,
        );
        let m10 = r#"{"type": "Member", "id": "10"}"#;
        let shape = taught_by("include", "author", &json(r#"{"data": []}"#), "/data");
        assert_eq!(shape, None);
        let shape = Shape {
            parameter: "include".to_owned(),
            included: "included".to_owned(),
            relationships: "relationships".to_owned(),
            linkage: "data".to_owned(),
        };
        let read = |included: &str| {
            json(&format!(
                r#"{{"data": [{}, {}], "included": {included}}}"#,
                book("1", a2, m10),
                book("2", a1, "null")
            ))
        };
        let order =
            |included: &str| included_order(&shape, "borrower,author", &read(included), "/data");
        // First seen (book 1's borrower, its author, book 2's author) and sorted: neither, both.
        let first_seen = format!("[{m10}, {a2}, {a1}]");
        assert_eq!(order(&first_seen), Some((true, false)));
        let sorted = format!("[{a1}, {a2}, {m10}]");
        assert_eq!(order(&sorted), Some((false, true)));
        // One included resource shows no order.
        let one = json(&format!(
            r#"{{"data": [{}], "included": [{a1}]}}"#,
            book("2", a1, "null")
        ));
        assert_eq!(included_order(&shape, "author", &one, "/data"), None);
        // A rule listing by type and id answers so.
        let held = [
            entity("/authors", "1", a1),
            entity("/authors", "2", a2),
            entity("/members", "10", m10),
        ];
        let held: Vec<&Entity> = held.iter().collect();
        let rule = CompoundDocuments {
            sorted: true,
            ..rule()
        };
        let mut body = json(&format!(
            r#"{{"data": [{}, {}]}}"#,
            book("1", a2, m10),
            book("2", a1, "null")
        ));
        let names = ["borrower".to_owned(), "author".to_owned()];
        assert_eq!(
            rule.apply(&mut body, "/data", &names, (&held, &|_| false)),
            Some(())
        );
        assert_eq!(body.get("included"), Some(&json(&sorted)));
    }

    #[test]
    fn the_included_resources_are_the_held_ones_first_seen_once_each() {
        let a1 = r#"{"type": "Author", "id": "1"}"#;
        let m2 = r#"{"type": "Member", "id": "2"}"#;
        let held = [
            entity(
                "/authors",
                "1",
                r#"{"type": "Author", "id": "1", "name": "Le Guin"}"#,
            ),
            entity(
                "/members",
                "2",
                r#"{"type": "Member", "id": "2", "name": "Maya"}"#,
            ),
        ];
        let held: Vec<&Entity> = held.iter().collect();
        let rule = rule();
        assert_eq!(
            rule.asked("get_books", "include", "borrower,author")
                .map(|n| n.len()),
            Some(2)
        );
        assert_eq!(rule.asked("get_books", "include", "editor"), None);
        assert_eq!(rule.asked("get_members", "include", "author"), None);
        let mut body = json(&format!(
            r#"{{"data": [{}, {}]}}"#,
            book("1", a1, m2),
            book("2", a1, "null")
        ));
        let names = ["borrower".to_owned(), "author".to_owned()];
        assert_eq!(
            rule.apply(&mut body, "/data", &names, (&held, &|_| false)),
            Some(())
        );
        let included = body
            .get("included")
            .and_then(Json::as_array)
            .expect("included");
        let ids: Vec<Option<&str>> = included.iter().map(|r| r.get("type")?.as_str()).collect();
        assert_eq!(ids, [Some("Member"), Some("Author")]);
        assert_eq!(included[1], held[0].fields);
        // A linked resource the state does not hold refuses the answer.
        let mut body = json(&format!(
            r#"{{"data": {}}}"#,
            book("3", r#"{"type": "Author", "id": "7"}"#, "null")
        ));
        assert_eq!(
            rule.apply(&mut body, "/data", &names, (&held, &|_| false)),
            None
        );
        // A held to-many linkage after a served write: the related resources' writes do not
        // change it, unless an inverse linkage keeps it.
        let mut body = json(
            r#"{"data": {"type": "Author", "id": "1", "relationships": {"books": {"data": [{"type": "Member", "id": "2"}]}}}}"#,
        );
        let books = ["books".to_owned()];
        assert_eq!(
            rule.apply(&mut body.clone(), "/data", &books, (&held, &|_| false)),
            Some(())
        );
        // One an inverse linkage keeps follows those writes: it is not stale.
        assert_eq!(
            rule.apply(
                &mut body.clone(),
                "/data",
                &books,
                (&held, &|name| name != "books")
            ),
            Some(())
        );
        assert_eq!(
            rule.apply(&mut body, "/data", &books, (&held, &|_| true)),
            None
        );
        // Nothing linked, and no included member in the plain answer to show it empty.
        let mut body = json(&format!(r#"{{"data": {}}}"#, book("3", "null", "null")));
        assert_eq!(
            rule.apply(&mut body, "/data", &names, (&held, &|_| false)),
            None
        );
    }
}

//! Relation paths (`project.code`, `tasks.title`): the related entities a member of an entity
//! names, learned for the paths a query reaches through that member: a field selection naming a
//! related entity's fields (`fields=id,project.name`, `fields=code,tasks.title`,
//! `fields=*,tasks.*`; see [`crate::selection::Selected`]) and a filter on a related entity's
//! field (`filter[project][status][_eq]`, evaluated over the joined entity; see
//! [`crate::query::JOINED`]).
//!
//! A member joins a type when a successful read of the entity's item or list view showed it as
//! related entities: exactly as held (a learned [`Relation`], whatever query asked for it), or,
//! in a read naming a field-selection parameter, each as a part of a held entity (the members
//! the selection named, each as that entity holds it), named by the id the member holds (a
//! many-to-one: `project: 2` shown as `{"name": "Mobile app"}`) or by ids its array holds (a
//! one-to-many: `tasks: [1, 3, 7]` shown as `[{"id": 1, "title": …}]`). The related entities of
//! an array are those holding the entity's identity in one field, in state order, where exactly
//! the held ids do; else the held ids in their order. A member two reads joined to different
//! types joins none.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use rea_manifest::Manifest;
use rea_plugin_api::json::{Json, Object};

use crate::derive::entities::collection_key;
use crate::model::{Entity, EntityType, ReadView, ViewDetail};
use crate::observation::Timeline;
use crate::query::{field_value, relation_linkage};
use crate::relations::{Link, Relation};
use crate::render::scalar_text;

/// The learned joins of one entity type, by member (`None`: two reads disagreed).
type TypeJoins = BTreeMap<String, Option<Relation>>;

/// Teaches each item and list view the joins of its entity type (see the module docs), from
/// the relations the views learned and the reads of every view of the type.
pub fn generalize(
    manifest: &Manifest,
    timeline: &Timeline,
    (types, entities): (&[EntityType], &[Entity]),
    views: &mut [ReadView],
) {
    let by_id = ids(entities);
    let mut learned: BTreeMap<String, TypeJoins> = BTreeMap::new();
    for view in views.iter() {
        let (entity_type, relations) = match &view.detail {
            ViewDetail::Item(item) => (&item.entity_type, &item.relations),
            ViewDetail::List(list) => (&list.entity_type, &list.relations),
            _ => continue,
        };
        let joins = learned.entry(entity_type.clone()).or_default();
        for relation in relations.iter().filter(|relation| !relation.enclosing) {
            add(joins, bare(relation.clone()));
        }
        let Some(index) = crate::derive::tool_index(manifest, &view.tool) else {
            continue;
        };
        let Some(identity) = types
            .iter()
            .find(|known| known.collection_template == *entity_type)
            .map(|known| known.identity_field.as_str())
        else {
            continue;
        };
        for observation in timeline.all(index) {
            if !observation.is_success() {
                continue;
            }
            let shown = shown_objects(view, observation.body.as_ref());
            for join in sideloaded_joins(
                (observation.body.as_ref(), &shown, observation.pairs()),
                (entity_type, identity),
                entities,
                &by_id,
            ) {
                add(joins, join);
            }
            let selects = observation
                .pairs()
                .iter()
                .any(|(name, _)| crate::query::is_projection(name.as_str()));
            if !selects {
                continue;
            }
            for shown in shown {
                let Some(held) = held_entity(entities, entity_type, identity, shown) else {
                    continue;
                };
                for join in shown_joins((held, identity), shown, entities, &by_id) {
                    add(joins, join);
                }
            }
        }
    }
    for (entity_type, joins) in learned.iter_mut() {
        for join in linkage_joins(entity_type, types, entities, &by_id) {
            add(joins, join);
        }
    }
    for view in views.iter_mut() {
        let (entity_type, joins) = match &mut view.detail {
            ViewDetail::Item(item) => (&item.entity_type, &mut item.joins),
            ViewDetail::List(list) => (&list.entity_type, &mut list.joins),
            _ => continue,
        };
        *joins = learned
            .get(entity_type)
            .map(|known| known.values().flatten().cloned().collect())
            .unwrap_or_default();
    }
}

/// The joins a type's relation objects teach (see [`crate::query::relation_linkage`]): each
/// field whose every linkage, over the type's entities, is a part of held entities of one kind
/// (`author` of a book, `{"type": "Author", "id": "2"}`: the author holding that `type` and `id`).
fn linkage_joins(
    entity_type: &str,
    types: &[EntityType],
    entities: &[Entity],
    by_id: &HashMap<&str, Vec<usize>>,
) -> Vec<Relation> {
    let Some(identity) = types
        .iter()
        .find(|known| known.collection_template == entity_type)
        .map(|known| known.identity_field.as_str())
    else {
        return Vec::new();
    };
    let mut kinds: BTreeMap<&str, BTreeSet<(&str, &str)>> = BTreeMap::new();
    for entity in entities
        .iter()
        .filter(|entity| entity.entity_type == entity_type)
    {
        let Some(object) = entity.fields.as_object() else {
            continue;
        };
        for (field, identifier) in linkages(object) {
            let found = linked_kinds(identifier, entities, by_id);
            kinds
                .entry(field)
                .and_modify(|known| known.retain(|kind| found.contains(kind)))
                .or_insert(found);
        }
    }
    kinds
        .into_iter()
        .filter_map(|(field, kinds)| {
            let [(target, collection)] = kinds.into_iter().collect::<Vec<_>>()[..] else {
                return None;
            };
            Some(Relation {
                query: Vec::new(),
                member: field.to_owned(),
                entity_type: target.to_owned(),
                collection: collection.to_owned(),
                identity: identity.to_owned(),
                enclosing: false,
                beside: None,
                link: Link::Parent {
                    field: field.to_owned(),
                    key: None,
                },
            })
        })
        .collect()
}

/// The fields an object holds as to-one relation objects nested in one of its object members,
/// each with the resource identifier its linkage holds (a `null` linkage links none).
pub fn linkages(object: &Object) -> Vec<(&str, &Object)> {
    object
        .iter()
        .filter_map(|(_, member)| member.as_object())
        .flat_map(|members| members.iter())
        .filter_map(|(field, value)| match relation_linkage(value)? {
            Json::Object(identifier) => Some((field, identifier)),
            _ => None,
        })
        .collect()
}

/// The (type, collection key) of the held entities a resource identifier is a part of.
fn linked_kinds<'a>(
    identifier: &Object,
    entities: &'a [Entity],
    by_id: &HashMap<&str, Vec<usize>>,
) -> BTreeSet<(&'a str, &'a str)> {
    let Some(id) = identifier.get("id").and_then(scalar_text) else {
        return BTreeSet::new();
    };
    by_id
        .get(id.as_str())
        .into_iter()
        .flatten()
        .map(|index| &entities[*index])
        .filter(|entity| part_of(identifier, entity))
        .map(|entity| {
            (
                entity.entity_type.as_str(),
                collection_key(&entity.collection),
            )
        })
        .collect()
}

/// Sets over each object the held entity each of its relation objects links (see
/// [`linkages`]), under the joined member of its field ([`crate::query::joined_member`]), where
/// the linkage is a part of exactly one held entity: what a filter or sort through the field
/// (`filter[author.name]`, `sort=author.name`) reads while query roles are learned, before the
/// joins are.
pub fn with_linked_entities<'a>(
    objects: impl Iterator<Item = &'a mut Object>,
    entities: &[Entity],
) {
    let by_id = ids(entities);
    for object in objects {
        let linked: Vec<(String, Json)> = linkages(object)
            .into_iter()
            .filter_map(|(field, identifier)| {
                let id = identifier.get("id").and_then(scalar_text)?;
                let mut parts = by_id
                    .get(id.as_str())?
                    .iter()
                    .map(|index| &entities[*index])
                    .filter(|entity| part_of(identifier, entity));
                let entity = parts.next()?;
                parts
                    .next()
                    .is_none()
                    .then(|| (crate::query::joined_member(field), entity.fields.clone()))
            })
            .collect();
        for (member, fields) in linked {
            object.insert(member, fields);
        }
    }
}

/// A relation as a join: asked for by no query of its own.
fn bare(relation: Relation) -> Relation {
    Relation {
        query: Vec::new(),
        ..relation
    }
}

/// Adds a join of a member; one disagreeing with a known one makes the member join none.
fn add(joins: &mut TypeJoins, join: Relation) {
    match joins.get(&join.member) {
        None => {
            joins.insert(join.member.clone(), Some(join));
        }
        Some(Some(known)) if *known != join => {
            joins.insert(join.member.clone(), None);
        }
        Some(_) => {}
    }
}

/// The entities' indexes by id.
fn ids(entities: &[Entity]) -> HashMap<&str, Vec<usize>> {
    let mut by_id: HashMap<&str, Vec<usize>> = HashMap::new();
    for (index, entity) in entities.iter().enumerate() {
        by_id.entry(entity.id.as_str()).or_default().push(index);
    }
    by_id
}

/// The objects a read of a view shows: its entity, or each member it lists.
fn shown_objects<'a>(view: &ReadView, body: Option<&'a Json>) -> Vec<&'a Object> {
    let (pointer, is_list) = match &view.detail {
        ViewDetail::Item(item) => (&item.entity_pointer, false),
        ViewDetail::List(list) => (&list.list_pointer, true),
        _ => return Vec::new(),
    };
    match body.and_then(|body| body.pointer(pointer)) {
        Some(Json::Object(object)) if !is_list => vec![object],
        Some(Json::Array(items)) if is_list => items.iter().filter_map(Json::as_object).collect(),
        _ => Vec::new(),
    }
}

/// The joins the records a read sideloads beside the objects it shows teach (dynamic-rest's
/// `include[]=project.` answering `{"projects": […], "tasks": […]}`): each scalar member of the
/// shown objects whose values, over them all, are exactly the identities of the objects of one
/// other top-level array of the body and that the call's query names (a value or name holding
/// it as a word: `include[]=project.`), joined as [`shown_joins`] would join each object showing
/// the record its member names in place of the id (the record a part of a held entity of one
/// kind). The shown objects' own identity joins nothing.
fn sideloaded_joins(
    (body, shown, pairs): (Option<&Json>, &[&Object], &[(String, String)]),
    (entity_type, identity): (&str, &str),
    entities: &[Entity],
    by_id: &HashMap<&str, Vec<usize>>,
) -> Vec<Relation> {
    let (Some(Json::Object(body)), false) = (body, shown.is_empty()) else {
        return Vec::new();
    };
    let beside: Vec<BTreeMap<String, &Object>> = body
        .iter()
        .filter_map(|(_, value)| value.as_array())
        .filter(|items| {
            !items
                .iter()
                .any(|item| shown.iter().any(|one| is_same(item, one)))
        })
        .filter_map(|items| records_by_id(items, identity))
        .collect();
    let mut joins = Vec::new();
    let asked = |member: &str| {
        pairs.iter().any(|(name, value)| {
            [name, value]
                .iter()
                .flat_map(|text| text.split(|c: char| !c.is_alphanumeric() && c != '_'))
                .any(|word| word == member)
        })
    };
    for member in scalar_members(shown, identity)
        .into_iter()
        .filter(|m| asked(m))
    {
        let named: BTreeSet<String> = shown
            .iter()
            .filter_map(|object| object.get(member).and_then(scalar_text))
            .collect();
        let Some(records) = beside
            .iter()
            .find(|records| records.keys().eq(named.iter()))
        else {
            continue;
        };
        for object in shown {
            let Some(held) = held_entity(entities, entity_type, identity, object) else {
                continue;
            };
            let Some(record) = object.get(member).and_then(scalar_text) else {
                continue;
            };
            let mut part = Object::new();
            part.insert(member.to_owned(), Json::Object(records[&record].clone()));
            joins.extend(shown_joins((held, identity), &part, entities, by_id));
        }
    }
    joins
}

/// Whether an array item is one of the shown objects.
fn is_same(item: &Json, shown: &Object) -> bool {
    matches!(item, Json::Object(object) if std::ptr::eq(object, shown))
}

/// The objects of an array by the text of their identity member (`None` when one is no object,
/// lacks it, or two share it, or the array is empty).
fn records_by_id<'a>(items: &'a [Json], identity: &str) -> Option<BTreeMap<String, &'a Object>> {
    let mut records = BTreeMap::new();
    for item in items {
        let object = item.as_object()?;
        let id = object.get(identity).and_then(scalar_text)?;
        if records.insert(id, object).is_some() {
            return None;
        }
    }
    (!records.is_empty()).then_some(records)
}

/// The members other than the identity that some shown object holds a non-empty scalar in.
fn scalar_members<'a>(shown: &[&'a Object], identity: &str) -> BTreeSet<&'a str> {
    shown
        .iter()
        .flat_map(|object| object.iter())
        .filter(|(key, value)| {
            *key != identity && scalar_text(value).is_some_and(|t| !t.is_empty())
        })
        .map(|(key, _)| key)
        .collect()
}

/// The held entity of a type a shown object names by its identity.
fn held_entity<'a>(
    entities: &'a [Entity],
    entity_type: &str,
    identity: &str,
    shown: &Object,
) -> Option<&'a Entity> {
    if identity.starts_with('/') {
        return None;
    }
    let id = shown.get(identity).and_then(scalar_text)?;
    entities
        .iter()
        .find(|entity| entity.entity_type == entity_type && entity.id == id)
}

/// Whether a shown object is a part of a held entity: every member it shows held as shown.
fn part_of(shown: &Object, entity: &Entity) -> bool {
    let Some(fields) = entity.fields.as_object() else {
        return false;
    };
    !shown.is_empty()
        && shown
            .iter()
            .all(|(key, value)| fields.get(key) == Some(value))
}

/// The (type, collection) of the held entities with one of the ids of which a shown object is
/// a part.
fn kinds_of<'a>(
    shown: &Object,
    held_ids: &[String],
    entities: &'a [Entity],
    by_id: &HashMap<&str, Vec<usize>>,
) -> BTreeSet<(&'a str, &'a str)> {
    held_ids
        .iter()
        .flat_map(|id| by_id.get(id.as_str()).into_iter().flatten())
        .map(|index| &entities[*index])
        .filter(|entity| part_of(shown, entity))
        .map(|entity| {
            (
                entity.entity_type.as_str(),
                collection_key(&entity.collection),
            )
        })
        .collect()
}

/// The joins one shown object teaches: each member the held entity holds as an id (or ids)
/// that the object shows as parts of held entities of one kind.
fn shown_joins(
    (held, identity): (&Entity, &str),
    shown: &Object,
    entities: &[Entity],
    by_id: &HashMap<&str, Vec<usize>>,
) -> Vec<Relation> {
    let Some(fields) = held.fields.as_object() else {
        return Vec::new();
    };
    let mut joins = Vec::new();
    for (member, value) in shown.iter() {
        let held_value = fields.get(member);
        let (parts, held_ids): (Vec<&Object>, Vec<String>) = match (value, held_value) {
            (Json::Object(part), Some(id)) => match scalar_text(id) {
                Some(id) if !id.is_empty() => (vec![part], vec![id]),
                _ => continue,
            },
            (Json::Array(items), Some(Json::Array(ids))) if !items.is_empty() => {
                let parts: Option<Vec<&Object>> = items.iter().map(Json::as_object).collect();
                let ids: Option<Vec<String>> = ids.iter().map(scalar_text).collect();
                match (parts, ids) {
                    (Some(parts), Some(ids)) => (parts, ids),
                    _ => continue,
                }
            }
            _ => continue,
        };
        let mut kinds: Option<BTreeSet<(&str, &str)>> = None;
        for part in &parts {
            let found = kinds_of(part, &held_ids, entities, by_id);
            kinds = Some(match kinds {
                None => found,
                Some(known) => known.intersection(&found).copied().collect(),
            });
        }
        let Some(kinds) = kinds else {
            continue;
        };
        let [(entity_type, collection)] = kinds.into_iter().collect::<Vec<_>>()[..] else {
            continue;
        };
        let link = if matches!(value, Json::Object(_)) {
            Link::Parent {
                field: member.to_owned(),
                key: None,
            }
        } else {
            children_link((entity_type, collection), (&held.id, &held_ids), entities)
                .unwrap_or(Link::Ids)
        };
        joins.push(Relation {
            query: Vec::new(),
            member: member.to_owned(),
            entity_type: entity_type.to_owned(),
            collection: collection.to_owned(),
            identity: identity.to_owned(),
            enclosing: false,
            beside: None,
            link,
        });
    }
    joins
}

/// The field of the related kind's entities holding the entity's id, where the entities holding
/// it there are exactly the held ids, in order.
fn children_link(
    (entity_type, collection): (&str, &str),
    (id, held_ids): (&str, &[String]),
    entities: &[Entity],
) -> Option<Link> {
    let kind: Vec<&Entity> = entities
        .iter()
        .filter(|entity| {
            entity.entity_type == entity_type && collection_key(&entity.collection) == collection
        })
        .collect();
    let first = kind
        .iter()
        .find(|entity| held_ids.first() == Some(&entity.id))?;
    let text_of = |entity: &Entity, field: &str| {
        entity
            .fields
            .as_object()
            .and_then(|object| field_value(object, field))
            .and_then(scalar_text)
    };
    first.fields.as_object()?.keys().find_map(|field| {
        let holding: Vec<&String> = kind
            .iter()
            .filter(|entity| text_of(entity, field).as_deref() == Some(id))
            .map(|entity| &entity.id)
            .collect();
        (holding.len() == held_ids.len() && holding.iter().zip(held_ids).all(|(a, b)| *a == b))
            .then(|| Link::Children {
                field: field.to_owned(),
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::entity;
    use rea_plugin_api::json::parse;

    fn object(text: &str) -> Object {
        match parse(text.as_bytes()).expect("json") {
            Json::Object(object) => object,
            _ => unreachable!(),
        }
    }

    #[test]
    fn records_sideloaded_beside_the_shown_objects_join_the_member_the_call_named() {
        let entities = vec![
            entity("/projects", "2", r#"{"id": 2, "code": "MOB"}"#),
            entity("/projects", "1", r#"{"id": 1, "code": "WEB"}"#),
            entity("/tasks", "2", r#"{"id": 2, "priority": 2, "project": 2}"#),
        ];
        let by_id = ids(&entities);
        let body = parse(
            br#"{"projects": [{"id": 2, "code": "MOB"}],
            "task": {"id": 2, "priority": 2, "project": 2}}"#,
        )
        .expect("json");
        let Some(Json::Object(task)) = body.get("task") else {
            unreachable!()
        };
        let shown = [task];
        let asked = [("include".to_owned(), "project.".to_owned())];
        let joins = sideloaded_joins(
            (Some(&body), &shown, &asked),
            ("/tasks", "id"),
            &entities,
            &by_id,
        );
        // `priority` names project 2 too, but the call asked for `project` only.
        assert_eq!(joins.len(), 1, "{joins:?}");
        assert_eq!(joins[0].member, "project");
        assert_eq!(joins[0].entity_type, "/projects");
        assert!(matches!(&joins[0].link, Link::Parent { field, key: None } if field == "project"));
        // Records other than exactly those the shown objects name join nothing.
        let more = parse(
            br#"{"projects": [{"id": 2, "code": "MOB"}, {"id": 1, "code": "WEB"}],
            "task": {"id": 2, "priority": 2, "project": 2}}"#,
        )
        .expect("json");
        assert!(
            sideloaded_joins(
                (Some(&more), &shown, &asked),
                ("/tasks", "id"),
                &entities,
                &by_id
            )
            .is_empty()
        );
        // A call naming no member joins nothing.
        assert!(
            sideloaded_joins(
                (Some(&body), &shown, &[]),
                ("/tasks", "id"),
                &entities,
                &by_id
            )
            .is_empty()
        );
    }

    fn state() -> Vec<Entity> {
        vec![
            entity(
                "/projects",
                "1",
                r#"{"id": 1, "code": "WEB", "tasks": [1, 3]}"#,
            ),
            entity(
                "/projects",
                "2",
                r#"{"id": 2, "code": "MOB", "tasks": [2]}"#,
            ),
            entity("/tasks", "1", r#"{"id": 1, "title": "a", "project": 1}"#),
            entity("/tasks", "2", r#"{"id": 2, "title": "b", "project": 2}"#),
            entity("/tasks", "3", r#"{"id": 3, "title": "c", "project": 1}"#),
        ]
    }

    #[test]
    fn a_part_of_a_held_entity_joins_its_member() {
        let entities = state();
        let by_id = ids(&entities);
        let shown = object(r#"{"id": 2, "project": {"code": "MOB"}}"#);
        let joins = shown_joins((&entities[3], "id"), &shown, &entities, &by_id);
        assert_eq!(joins.len(), 1);
        assert_eq!(joins[0].entity_type, "/projects");
        assert_eq!(
            joins[0].link,
            Link::Parent {
                field: "project".into(),
                key: None,
            }
        );
        // One-to-many: the tasks holding the project's id, exactly its held ids.
        let shown = object(r#"{"id": 1, "tasks": [{"title": "a"}, {"id": 3}]}"#);
        let joins = shown_joins((&entities[0], "id"), &shown, &entities, &by_id);
        assert_eq!(joins[0].entity_type, "/tasks");
        assert_eq!(
            joins[0].link,
            Link::Children {
                field: "project".into()
            }
        );
        // A part no held entity of the ids holds teaches nothing.
        let shown = object(r#"{"id": 2, "project": {"code": "WEB"}}"#);
        assert!(shown_joins((&entities[3], "id"), &shown, &entities, &by_id).is_empty());
    }

    #[test]
    fn a_linkage_joins_the_one_held_entity_holding_its_type_and_id() {
        let book = |id: &str, author: &str| {
            entity(
                "/books",
                id,
                &format!(
                    r#"{{"type": "Book", "id": "{id}", "relationships": {{"author":
                        {{"links": {{"self": "/l"}}, "data": {{"type": "Author", "id": "{author}"}}}}}}}}"#
                ),
            )
        };
        let entities = vec![
            entity(
                "/authors",
                "1",
                r#"{"type": "Author", "id": "1", "name": "Le Guin"}"#,
            ),
            entity(
                "/authors",
                "2",
                r#"{"type": "Author", "id": "2", "name": "Lem"}"#,
            ),
            book("1", "2"),
            book("2", "1"),
        ];
        let types = [EntityType::new("/books".into(), "id".into(), None)];
        let joins = linkage_joins("/books", &types, &entities, &ids(&entities));
        assert_eq!(joins.len(), 1);
        assert_eq!(joins[0].member, "author");
        assert_eq!(joins[0].entity_type, "/authors");
        // Book 1 (type `Book`, id 1) is no part of the linkage `{Author, 1}`: one author joined.
        let mut objects: Vec<Object> = entities[2..]
            .iter()
            .map(|entity| entity.fields.as_object().expect("object").clone())
            .collect();
        with_linked_entities(objects.iter_mut(), &entities);
        let joined = crate::query::joined_member("author");
        assert_eq!(objects[0].get(&joined), Some(&entities[1].fields));
        assert_eq!(
            field_value(&objects[1], "author.name")
                .and_then(scalar_text)
                .as_deref(),
            Some("Le Guin")
        );
        // A linkage naming no held entity joins none.
        let unknown = vec![entities[0].clone(), book("3", "9")];
        assert!(linkage_joins("/books", &types, &unknown, &ids(&unknown)).is_empty());
    }
}

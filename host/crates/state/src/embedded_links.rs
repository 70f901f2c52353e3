//! Link objects an item view shows filled from the entity they name: an item answer embedding
//! a related record as a few of its members (`"project": {"id": 2, "code": "API", "name":
//! "Public API"}`) where the state holds, for entities it never read by id, only the members a
//! list showed (`{"id": 2, "code": "API"}`).
//!
//! Learned per item view, from its checked plain reads: a top-level member every read showing it
//! as an object showed with one set of members (the view's link projection), each object a part
//! of exactly one held entity of one type (every member it shows that entity's own), found by
//! that type's identity member, which the object holds (the link's key). The view keeps the link
//! only where the state needs it and agrees with it: some held entity of the view's type holds
//! the member as an object lacking a projected member its linked entity holds, and every held
//! object naming a held entity of that type is a part of it (so before any write, filling
//! changes nothing the recordings showed but the members the state lacked).
//!
//! Served, the item answer's object in that member takes each projected member from the live
//! entity its key names (the one of that type, in any of its collections, holding that id):
//! a served write of the linked entity shows in the item views of the entities linking it. A
//! member the linked entity does not hold keeps what the entity held (absent if it held none);
//! an object naming no held entity, or several, is left as held.

use std::collections::{BTreeMap, HashMap};

use rea_plugin_api::json::{Json, Object};
use serde::{Deserialize, Serialize};

use crate::model::{Entity, EntityType, ItemView, ReadView, ViewDetail};
use crate::observation::Timeline;
use crate::render::scalar_text;
use crate::store::LiveState;

/// A member an item view shows as a link object of another held entity (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmbeddedLink {
    /// The entity's member holding the link object (`project`).
    pub member: String,
    /// The linked entity's type.
    #[serde(rename = "type")]
    pub entity_type: String,
    /// The link object's member naming the linked entity: its type's identity field (`id`).
    pub key: String,
    /// The members the view shows of the link object, in the recorded order.
    pub shown: Vec<String>,
}

/// The held entities by type and id (a type holding one id in two collections lists both).
type HeldIndex<'a> = HashMap<(&'a str, &'a str), Vec<&'a Entity>>;

/// Teaches each item view the link objects it shows filled (see the module docs).
pub(crate) fn generalize(
    timeline: &Timeline,
    (types, entities): (&[EntityType], &[Entity]),
    views: &mut [ReadView],
) {
    let mut held: HeldIndex = HashMap::new();
    for entity in entities {
        held.entry((entity.entity_type.as_str(), entity.id.as_str()))
            .or_default()
            .push(entity);
    }
    for view in views.iter_mut() {
        let ViewDetail::Item(item) = &mut view.detail else {
            continue;
        };
        if item.nesting.is_some() {
            continue;
        }
        item.embedded_links = item_links(item, timeline, types, (entities, &held));
    }
}

/// The links one item view's checked plain reads show, which the held entities need and agree
/// with.
fn item_links(
    item: &ItemView,
    timeline: &Timeline,
    types: &[EntityType],
    (entities, held): (&[Entity], &HeldIndex),
) -> Vec<EmbeddedLink> {
    let shown = shown_objects(item, timeline);
    let mut links = Vec::new();
    for (member, objects) in shown {
        let Some(shown) = one_projection(&objects) else {
            continue;
        };
        let Some((entity_type, key)) = linked_type(&objects, types, held) else {
            continue;
        };
        let link = EmbeddedLink {
            member,
            entity_type,
            key,
            shown,
        };
        if needed_and_agreeing(&link, &item.entity_type, entities, held) {
            links.push(link);
        }
    }
    links
}

/// Per top-level member, the objects the view's checked plain reads showed there (reads making
/// a field selection left out).
fn shown_objects<'a>(item: &ItemView, timeline: &'a Timeline) -> BTreeMap<String, Vec<&'a Object>> {
    let mut shown: BTreeMap<String, Vec<&Object>> = BTreeMap::new();
    for ordinal in &item.checked_ordinals {
        if item.projected_record_ordinals.contains(ordinal) {
            continue;
        }
        let Some(Json::Object(entity)) = timeline
            .by_ordinal
            .get(ordinal)
            .and_then(|observation| observation.success_body())
            .and_then(|body| body.pointer(&item.entity_pointer))
        else {
            continue;
        };
        for (member, value) in entity.iter() {
            if let Json::Object(object) = value {
                shown.entry(member.to_owned()).or_default().push(object);
            }
        }
    }
    shown
}

/// The members every object shows, in the first one's order, when they all show the same ones.
fn one_projection(objects: &[&Object]) -> Option<Vec<String>> {
    let first: Vec<String> = objects.first()?.keys().map(str::to_owned).collect();
    let same = |object: &&Object| {
        object.len() == first.len() && first.iter().all(|key| object.contains_key(key))
    };
    (!first.is_empty() && objects.iter().all(same)).then_some(first)
}

/// The one (type, identity field) every object is a part of a held entity of, named by that
/// field's value.
fn linked_type(
    objects: &[&Object],
    types: &[EntityType],
    held: &HeldIndex,
) -> Option<(String, String)> {
    let mut found = types.iter().filter(|known| {
        let key = known.identity_field.as_str();
        is_plain_member(key)
            && objects.iter().all(|object| {
                linked_entity(object, (&known.collection_template, key), held)
                    .is_some_and(|entity| is_part_of(object, entity))
            })
    });
    let known = found.next()?;
    found.next().is_none().then(|| {
        (
            known.collection_template.clone(),
            known.identity_field.clone(),
        )
    })
}

/// Whether an identity field is one member by name (not a pointer or a fused identity).
fn is_plain_member(field: &str) -> bool {
    !field.is_empty() && !field.starts_with('/') && !field.contains('{')
}

/// The one held entity of a type whose id the object's key member holds.
fn linked_entity<'a>(
    object: &Object,
    (entity_type, key): (&str, &str),
    held: &HeldIndex<'a>,
) -> Option<&'a Entity> {
    let id = object.get(key).and_then(scalar_text)?;
    match held.get(&(entity_type, id.as_str()))?.as_slice() {
        [entity] => Some(entity),
        _ => None,
    }
}

/// Whether every member of an object is the entity's own, with the same value.
fn is_part_of(object: &Object, entity: &Entity) -> bool {
    !object.is_empty()
        && object
            .iter()
            .all(|(key, value)| entity.fields.get(key) == Some(value))
}

/// Whether some held entity of the view's type holds the link lacking a shown member its linked
/// entity holds, and every held link object naming a held entity is a part of it.
fn needed_and_agreeing(
    link: &EmbeddedLink,
    entity_type: &str,
    entities: &[Entity],
    held: &HeldIndex,
) -> bool {
    let mut needed = false;
    for entity in entities
        .iter()
        .filter(|entity| entity.entity_type == entity_type)
    {
        let Some(Json::Object(object)) = entity.fields.get(&link.member) else {
            continue;
        };
        let Some(linked) = linked_entity(object, (&link.entity_type, &link.key), held) else {
            continue;
        };
        if !is_part_of(object, linked) {
            return false;
        }
        needed |= link
            .shown
            .iter()
            .any(|member| !object.contains_key(member) && linked.fields.get(member).is_some());
    }
    needed
}

/// Sets each learned link object of a rendered entity from the live entity it names (see the
/// module docs).
pub(crate) fn fill(links: &[EmbeddedLink], live: &LiveState, rendered: &mut Json) {
    let Json::Object(fields) = rendered else {
        return;
    };
    for link in links {
        let Some(Json::Object(object)) = fields.get(&link.member) else {
            continue;
        };
        let Some(linked) = live_linked(link, object, live) else {
            continue;
        };
        let filled = filled_object(link, object, linked);
        fields.insert(link.member.as_str(), filled);
    }
}

/// The one live entity of the link's type holding the id the object's key names.
fn live_linked<'a>(
    link: &EmbeddedLink,
    object: &Object,
    live: &'a LiveState,
) -> Option<&'a Entity> {
    let id = object.get(&link.key).and_then(scalar_text)?;
    let mut found = live
        .collections_of(&link.entity_type)
        .into_iter()
        .filter_map(|collection| live.entity(&link.entity_type, collection, &id));
    let entity = found.next()?;
    found.next().is_none().then_some(entity)
}

/// The link object with each shown member the linked entity's (else the held one's), in the
/// shown order, then the held members the view did not show.
fn filled_object(link: &EmbeddedLink, object: &Object, linked: &Entity) -> Json {
    let mut filled = Object::with_capacity(link.shown.len());
    for member in &link.shown {
        if let Some(value) = linked.fields.get(member).or_else(|| object.get(member)) {
            filled.insert(member.as_str(), value.clone());
        }
    }
    for (member, value) in object.iter() {
        if !filled.contains_key(member) {
            filled.insert(member, value.clone());
        }
    }
    Json::Object(filled)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{entity, parsed_object};

    fn projects_and_tasks() -> Vec<Entity> {
        vec![
            entity(
                "/projects",
                "1",
                r#"{"id": 1, "code": "WEB", "name": "Web"}"#,
            ),
            entity(
                "/projects",
                "2",
                r#"{"id": 2, "code": "API", "name": "Api"}"#,
            ),
            entity(
                "/tasks",
                "1",
                r#"{"id": 1, "project": {"id": 1, "code": "WEB", "name": "Web"}}"#,
            ),
            entity(
                "/tasks",
                "2",
                r#"{"id": 2, "project": {"id": 2, "code": "API"}}"#,
            ),
            entity("/tasks", "3", r#"{"id": 3, "project": null}"#),
        ]
    }

    fn index(entities: &[Entity]) -> HeldIndex<'_> {
        let mut held: HeldIndex = HashMap::new();
        for entity in entities {
            held.entry((entity.entity_type.as_str(), entity.id.as_str()))
                .or_default()
                .push(entity);
        }
        held
    }

    fn types() -> Vec<EntityType> {
        ["/projects", "/tasks"]
            .into_iter()
            .map(|template| EntityType::new(template.into(), "id".into(), None))
            .collect()
    }

    fn project_link() -> EmbeddedLink {
        EmbeddedLink {
            member: "project".into(),
            entity_type: "/projects".into(),
            key: "id".into(),
            shown: vec!["id".into(), "code".into(), "name".into()],
        }
    }

    #[test]
    fn a_shown_object_links_the_one_type_it_is_a_part_of() {
        let entities = projects_and_tasks();
        let held = index(&entities);
        let shown = parsed_object(r#"{"id": 1, "code": "WEB", "name": "Web"}"#);
        assert_eq!(
            linked_type(&[&shown], &types(), &held),
            Some(("/projects".into(), "id".into()))
        );
        // A member the linked entity holds otherwise is no part of it: no link.
        let renamed = parsed_object(r#"{"id": 1, "code": "WEB", "name": "Website"}"#);
        assert_eq!(linked_type(&[&shown, &renamed], &types(), &held), None);
        // Objects showing different members are no one projection.
        let fewer = parsed_object(r#"{"id": 2, "code": "API"}"#);
        assert_eq!(one_projection(&[&shown, &fewer]), None);
        assert_eq!(
            one_projection(&[&shown]),
            Some(vec!["id".into(), "code".into(), "name".into()])
        );
    }

    #[test]
    fn a_link_is_kept_only_where_the_state_lacks_a_member_and_agrees() {
        let entities = projects_and_tasks();
        let held = index(&entities);
        assert!(needed_and_agreeing(
            &project_link(),
            "/tasks",
            &entities,
            &held
        ));
        // Every task holding the whole projection: nothing is needed.
        let mut whole = entities.clone();
        whole[3] = entity(
            "/tasks",
            "2",
            r#"{"id": 2, "project": {"id": 2, "code": "API", "name": "Api"}}"#,
        );
        assert!(!needed_and_agreeing(
            &project_link(),
            "/tasks",
            &whole,
            &index(&whole)
        ));
        // A held link object disagreeing with the project it names: the objects are no views of
        // the projects, nothing is filled.
        let mut stale = entities.clone();
        stale[2] = entity(
            "/tasks",
            "1",
            r#"{"id": 1, "project": {"id": 1, "code": "OLD", "name": "Web"}}"#,
        );
        assert!(!needed_and_agreeing(
            &project_link(),
            "/tasks",
            &stale,
            &index(&stale)
        ));
    }

    #[test]
    fn a_filled_link_takes_the_live_entitys_members_and_invents_none() {
        let mut entities = projects_and_tasks();
        // A served write renamed project 2; project 1 holds no `name`.
        entities[1] = entity(
            "/projects",
            "2",
            r#"{"id": 2, "code": "API", "name": "Renamed"}"#,
        );
        entities[0] = entity("/projects", "1", r#"{"id": 1, "code": "WEB"}"#);
        let live = LiveState::new(entities, Vec::new());
        let link = project_link();
        let mut task = crate::test_support::parsed_json(
            r#"{"id": 2, "project": {"id": 2, "code": "API"}, "other": {"id": 1}}"#,
        );
        fill(std::slice::from_ref(&link), &live, &mut task);
        assert_eq!(
            task,
            crate::test_support::parsed_json(
                r#"{"id": 2, "project": {"id": 2, "code": "API", "name": "Renamed"}, "other": {"id": 1}}"#
            )
        );
        let mut task =
            crate::test_support::parsed_json(r#"{"id": 5, "project": {"id": 1, "code": "WEB"}}"#);
        let before = task.clone();
        fill(std::slice::from_ref(&link), &live, &mut task);
        assert_eq!(
            task, before,
            "a member the linked entity lacks stays absent"
        );
        // A link naming no held entity, or `null`, is left as held.
        let mut task =
            crate::test_support::parsed_json(r#"{"id": 6, "project": {"id": 9, "code": "X"}}"#);
        let before = task.clone();
        fill(std::slice::from_ref(&link), &live, &mut task);
        assert_eq!(task, before);
    }
}

//! Items under a parent read as another type's entities: a route naming a parent and an id
//! (`/projects/{id}/tasks/{id}`) whose every recorded answer showed, as held, an entity another
//! type holds by the same id (task 2 read at `/projects/1/tasks/2` as `/tasks/2` shows it), that
//! entity's one member holding the parent the path names (`projectId` 1). A call of the route
//! then reads that type's entity by the id it names, where its member holds the parent the call
//! names: `/projects/3/tasks/7` answers task 7 of project 3 (and a write to `/tasks/7` shows
//! there), not only the entities the route's own recordings held. An entity whose member names
//! another parent is no item of the route (the state answers it missing).

use rea_manifest::segments::{percent_decode, split_path};
use rea_plugin_api::contracts::capture::CompactString;
use serde::{Deserialize, Serialize};

use crate::model::{Entity, ItemKey, ReadView, ViewDetail};
use crate::query::field_value;
use crate::render::scalar_text;
use crate::store::LiveState;

/// Where an item route under a parent reads its entities (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ItemParent {
    /// The type holding them.
    #[serde(rename = "type")]
    pub entity_type: String,
    /// Their collection.
    pub collection: String,
    /// The path segment naming the parent.
    pub segment: usize,
    /// Their member holding the parent's value.
    pub field: String,
}

impl ItemParent {
    /// The entity a call names: held by one of `names` in the parent's type and collection,
    /// its member holding the parent the call's path (`collection`, its segments before the id)
    /// names.
    pub fn entity<'a>(
        &self,
        live: &'a LiveState,
        collection: &[CompactString],
        names: &[String],
    ) -> Option<&'a Entity> {
        let value = percent_decode(collection.get(self.segment)?)?;
        names
            .iter()
            .find_map(|name| live.entity(&self.entity_type, &self.collection, name))
            .filter(|entity| {
                (entity.fields.as_object())
                    .and_then(|object| field_value(object, &self.field))
                    .and_then(scalar_text)
                    .as_deref()
                    == Some(value.as_ref())
            })
    }
}

/// Teaches each item view keyed by its path whose entities another type holds alike where it
/// reads them (see the module docs).
pub fn generalize(entities: &[Entity], views: &mut [ReadView]) {
    for view in views.iter_mut() {
        let ViewDetail::Item(item) = &mut view.detail else {
            continue;
        };
        if matches!(item.key, ItemKey::Path) {
            item.parent = learned(&view.path_template, &item.entity_type, entities);
        }
    }
}

/// The parent of a route with one parameter segment before its id, where every entity of its
/// type is held alike by one other type and collection, its one member holding the parent the
/// entity's own collection path names.
fn learned(template: &str, entity_type: &str, entities: &[Entity]) -> Option<ItemParent> {
    let parameters = crate::relations::parameter_segments(template);
    let [segment, _id] = parameters.as_slice() else {
        return None;
    };
    let own: Vec<&Entity> = (entities.iter())
        .filter(|entity| entity.entity_type == entity_type)
        .collect();
    let mut found: Option<(&str, &str)> = None;
    let mut fields: Option<Vec<String>> = None;
    for entity in &own {
        let path = split_path(&entity.collection);
        let value = percent_decode(path.get(*segment)?)?.into_owned();
        let twin = entities.iter().find(|other| {
            other.entity_type != entity_type
                && other.id == entity.id
                && other.fields == entity.fields
        })?;
        let place = (twin.entity_type.as_str(), twin.collection.as_str());
        if found.is_some_and(|known| known != place) {
            return None;
        }
        found = Some(place);
        let naming: Vec<String> = (twin.fields.as_object()?.iter())
            .filter(|(_, held)| scalar_text(held).as_deref() == Some(value.as_str()))
            .map(|(key, _)| key.to_owned())
            .collect();
        fields = Some(match fields {
            None => naming,
            Some(known) => known
                .into_iter()
                .filter(|field| naming.contains(field))
                .collect(),
        });
    }
    let (entity_type, collection) = found?;
    let [field] = fields?.try_into().ok()?;
    Some(ItemParent {
        entity_type: entity_type.to_owned(),
        collection: collection.to_owned(),
        segment: *segment,
        field,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::entity;

    const ROUTE: &str = "/projects/{numeric}/tasks/{numeric}";
    const NESTED: &str = "/projects/{numeric}/tasks";

    fn held(nested: Entity) -> Vec<Entity> {
        vec![
            entity("/tasks", "2", r#"{"id": 2, "projectId": 1, "priority": 2}"#),
            entity("/tasks", "7", r#"{"id": 7, "projectId": 3, "priority": 1}"#),
            nested,
        ]
    }

    fn nested(fields: &str) -> Entity {
        let mut nested = entity(NESTED, "2", fields);
        nested.collection = "/projects/1/tasks".into();
        nested
    }

    #[test]
    fn a_nested_route_reads_the_twin_type_by_the_member_naming_its_parent() {
        let entities = held(nested(r#"{"id": 2, "projectId": 1, "priority": 2}"#));
        let parent = learned(ROUTE, NESTED, &entities).expect("learned");
        assert_eq!(
            parent,
            ItemParent {
                entity_type: "/tasks".to_owned(),
                collection: "/tasks".to_owned(),
                segment: 1,
                field: "projectId".to_owned(),
            }
        );
    }

    #[test]
    fn an_entity_held_otherwise_or_a_member_named_twice_teaches_no_parent() {
        // The route's entity differs from the task held by its id.
        let entities = held(nested(r#"{"id": 2, "projectId": 1, "priority": 3}"#));
        assert_eq!(learned(ROUTE, NESTED, &entities), None);
        // Two members hold the parent's value: which one names it, no read tells.
        let mut entities = held(nested(r#"{"id": 2, "projectId": 1, "rank": 1}"#));
        entities[0] = entity("/tasks", "2", r#"{"id": 2, "projectId": 1, "rank": 1}"#);
        assert_eq!(learned(ROUTE, NESTED, &entities), None);
        // A route with no parent segment before its id.
        assert_eq!(learned("/tasks/{numeric}", NESTED, &entities), None);
    }
}

//! The entities, types and documents under construction, with the lookups extraction needs.

use std::collections::{BTreeMap, HashMap};

use rea_plugin_api::json::Json;

use crate::model::{Document, Entity, EntityType};

/// A collection path as a lookup key: a single trailing slash names the same collection, repeated
/// separators inside stay distinct (`/api//books` is not `/api/books`).
pub fn collection_key(collection: &str) -> &str {
    if collection.len() > 1 {
        collection.strip_suffix('/').unwrap_or(collection)
    } else {
        collection
    }
}

/// A path's segments as an item path names its entity: one trailing empty segment (the path's
/// trailing slash, `/api/series/3/`) dropped, so the identity is the last segment left.
pub fn item_segments<T: AsRef<str>>(segments: &[T]) -> &[T] {
    match segments.split_last() {
        Some((last, rest)) if last.as_ref().is_empty() && !rest.is_empty() => rest,
        _ => segments,
    }
}

/// The entities holding one id, as indexes into [`Entities::list`] in order of discovery: nearly
/// always one, held without a list of its own.
#[derive(Debug)]
enum Holders {
    One(usize),
    Many(Vec<usize>),
}

impl Holders {
    fn as_slice(&self) -> &[usize] {
        match self {
            Holders::One(index) => std::slice::from_ref(index),
            Holders::Many(indexes) => indexes,
        }
    }

    fn push(&mut self, index: usize) {
        match self {
            Holders::One(first) => *self = Holders::Many(vec![*first, index]),
            Holders::Many(indexes) => indexes.push(index),
        }
    }
}

/// Entities and types under construction.
#[derive(Debug, Default)]
pub struct Entities {
    /// The types, in order of discovery.
    pub types: Vec<EntityType>,
    /// The entities, in order of discovery.
    pub list: Vec<Entity>,
    /// Per entity, the record position it was first seen at.
    first_seen: Vec<usize>,
    /// Per id, the entities holding it (of any type and collection): one copy of each id, where
    /// lookups by type, collection and id kept three per entity (issue 17).
    by_id: HashMap<String, Holders>,
    /// State order (indexes into `list`), once settled.
    order: Vec<usize>,
    /// Per (type, collection key), its entities in state order, once settled.
    collections: BTreeMap<(String, String), Vec<usize>>,
    /// The documents.
    pub documents: Vec<Document>,
    /// The types no view renders after all (see [`Entities::retire_type`]).
    retired: Vec<String>,
}

impl Entities {
    /// The type with that collection template.
    pub fn entity_type(&self, template: &str) -> Option<&EntityType> {
        self.types
            .iter()
            .find(|entity_type| entity_type.collection_template == template)
    }

    /// Adds a type.
    pub fn add_type(&mut self, entity_type: EntityType) {
        self.types.push(entity_type);
    }

    /// The entity `(type, collection, id)`.
    pub fn find(&self, entity_type: &str, collection: &str, id: &str) -> Option<usize> {
        let key = collection_key(collection);
        self.holders(entity_type, id).find(|index| {
            let entity = &self.list[*index];
            collection_key(&entity.collection) == key
        })
    }

    /// The one entity of a type with that id, in any collection.
    pub fn find_unique(&self, entity_type: &str, id: &str) -> Option<usize> {
        let mut holders = self.holders(entity_type, id);
        match (holders.next(), holders.next()) {
            (Some(only), None) => Some(only),
            _ => None,
        }
    }

    /// The entities of a type holding an id, in order of discovery.
    fn holders<'a>(&'a self, entity_type: &'a str, id: &str) -> impl Iterator<Item = usize> + 'a {
        self.by_id
            .get(id)
            .map_or(&[][..], Holders::as_slice)
            .iter()
            .copied()
            .filter(move |index| self.list[*index].entity_type == entity_type)
    }

    /// Records an observed entity from the record `(ordinal, position)`. `replace` (item reads,
    /// in record order) sets the fields; a list seeds fields only for an entity not yet held.
    pub fn observe(
        &mut self,
        entity_type: &str,
        collection: &str,
        id: &str,
        fields: &Json,
        (ordinal, position): (u64, usize),
        replace: bool,
    ) -> usize {
        match self.find(entity_type, collection, id) {
            Some(index) => {
                let entity = &mut self.list[index];
                if replace {
                    entity.fields = fields.clone();
                }
                if !entity.record_ordinals.contains(&ordinal) {
                    entity.record_ordinals.push(ordinal);
                    entity.record_ordinals.sort_unstable();
                }
                index
            }
            None => {
                let index = self.list.len();
                self.list.push(Entity {
                    entity_type: entity_type.to_owned(),
                    collection: collection.to_owned(),
                    id: id.to_owned(),
                    fields: fields.clone(),
                    view_fields: BTreeMap::new(),
                    record_ordinals: vec![ordinal],
                });
                self.first_seen.push(position);
                match self.by_id.get_mut(id) {
                    Some(holders) => holders.push(index),
                    None => {
                        self.by_id.insert(id.to_owned(), Holders::One(index));
                    }
                }
                index
            }
        }
    }

    /// Adds a record citation to an entity.
    pub fn cite(&mut self, index: usize, ordinal: u64) {
        let entity = &mut self.list[index];
        if !entity.record_ordinals.contains(&ordinal) {
            entity.record_ordinals.push(ordinal);
            entity.record_ordinals.sort_unstable();
        }
    }

    /// Settles state order: per collection, the entities the first whole list of it showed, in its
    /// order, then the others in order of discovery; collections in order of discovery. `orders`
    /// are `(type, collection)` keys with the ids a whole line listed, earliest line first.
    pub fn settle_order(&mut self, orders: &[(String, String, Vec<String>)]) {
        let mut rank: HashMap<usize, usize> = HashMap::new();
        let mut ranked_collections: Vec<(String, String)> = Vec::new();
        for (entity_type, collection, ids) in orders {
            let key = (entity_type.clone(), collection_key(collection).to_owned());
            if ranked_collections.contains(&key) {
                continue;
            }
            ranked_collections.push(key);
            for (position, id) in ids.iter().enumerate() {
                if let Some(index) = self.find(entity_type, collection, id) {
                    rank.entry(index).or_insert(position);
                }
            }
        }
        let mut collection_rank: HashMap<(String, String), usize> = HashMap::new();
        for entity in &self.list {
            let key = (
                entity.entity_type.clone(),
                collection_key(&entity.collection).to_owned(),
            );
            let next = collection_rank.len();
            collection_rank.entry(key).or_insert(next);
        }
        let mut order: Vec<usize> = (0..self.list.len()).collect();
        order.sort_by_key(|index| {
            let entity = &self.list[*index];
            let key = (
                entity.entity_type.clone(),
                collection_key(&entity.collection).to_owned(),
            );
            (
                collection_rank[&key],
                rank.get(index)
                    .map_or((1, self.first_seen[*index]), |rank| (0, *rank)),
                *index,
            )
        });
        self.collections.clear();
        for index in &order {
            let entity = &self.list[*index];
            self.collections
                .entry((
                    entity.entity_type.clone(),
                    collection_key(&entity.collection).to_owned(),
                ))
                .or_default()
                .push(*index);
        }
        self.order = order;
    }

    /// A collection's entities in state order (after [`Entities::settle_order`]).
    pub fn collection(&self, entity_type: &str, collection: &str) -> &[usize] {
        self.collections
            .get(&(
                entity_type.to_owned(),
                collection_key(collection).to_owned(),
            ))
            .map_or(&[], Vec::as_slice)
    }

    /// Retires a type no view renders after all: it and its entities are left out of
    /// [`Entities::finish`].
    pub fn retire_type(&mut self, template: &str) {
        if !self.retired.iter().any(|retired| retired == template) {
            self.retired.push(template.to_owned());
        }
    }

    /// Types, entities in state order, and documents; retired types and their entities left out.
    pub fn finish(self) -> (Vec<EntityType>, Vec<Entity>, Vec<Document>) {
        let Entities {
            mut types,
            list,
            order,
            documents,
            retired,
            ..
        } = self;
        types.retain(|known| !retired.contains(&known.collection_template));
        let mut slots: Vec<Option<Entity>> = list.into_iter().map(Some).collect();
        // At most one entity per position of the order: collected through the filter, the list
        // grew by doubling and kept up to twice its room for the derivation's life (issue 17).
        let mut entities = Vec::with_capacity(order.len());
        entities.extend(
            order
                .into_iter()
                .filter_map(|index| slots[index].take())
                .filter(|entity| !retired.contains(&entity.entity_type)),
        );
        drop(slots);
        entities.shrink_to_fit();
        (types, entities, documents)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seeded() -> Entities {
        let mut entities = Entities::default();
        let fields = Json::parse(br#"{"id": 1}"#).expect("json");
        let seen = [
            ("/api/books", "/api/books", "1"),
            ("/api/books", "/api/shelves/2/books", "1"),
            ("/api/authors", "/api/authors/", "1"),
            ("/api/books", "/api/books", "2"),
        ];
        for (ordinal, (entity_type, collection, id)) in seen.into_iter().enumerate() {
            let at = (ordinal as u64, ordinal);
            entities.observe(entity_type, collection, id, &fields, at, false);
        }
        entities
    }

    #[test]
    fn an_entity_is_found_by_type_collection_and_id_a_trailing_slash_aside() {
        let entities = seeded();
        assert_eq!(entities.find("/api/books", "/api/books/", "1"), Some(0));
        assert_eq!(
            entities.find("/api/books", "/api/shelves/2/books", "1"),
            Some(1)
        );
        assert_eq!(entities.find("/api/authors", "/api/authors", "1"), Some(2));
        assert_eq!(entities.find("/api/books", "/api/books", "2"), Some(3));
        assert_eq!(entities.find("/api/authors", "/api/books", "1"), None);
        assert_eq!(entities.find("/api/books", "/api/books", "3"), None);
    }

    #[test]
    fn an_id_is_unique_to_a_type_only_when_one_collection_holds_it() {
        let entities = seeded();
        assert_eq!(
            entities.find_unique("/api/books", "1"),
            None,
            "two collections"
        );
        assert_eq!(entities.find_unique("/api/authors", "1"), Some(2));
        assert_eq!(entities.find_unique("/api/books", "2"), Some(3));
        assert_eq!(entities.find_unique("/api/books", "9"), None);
    }

    #[test]
    fn observing_a_held_entity_again_cites_the_record_and_keeps_one_entity() {
        let mut entities = seeded();
        let fields = Json::parse(br#"{"id": 1, "title": "t"}"#).expect("json");
        let index = entities.observe("/api/books", "/api/books/", "1", &fields, (9, 9), true);
        assert_eq!(index, 0);
        assert_eq!(entities.list.len(), 4);
        assert_eq!(entities.list[0].record_ordinals, vec![0, 9]);
        assert_eq!(entities.list[0].fields, fields);
    }
}

//! The live state: the entities and documents an environment holds now, with the lookups serving
//! needs, and its `rea-state/v1` document (what `data/get` reports and `data/add` loads).
//!
//! ```json
//! {"rea_state": {"version": 1, "state_evidence_id": "ev_…", "types": […],
//!   "entities": [{"type": "/api/users", "collection": "/api/users", "id": "2",
//!                 "fields": {"id": 2, "login": "probe"}, "view_fields": {…}, "record_ordinals": [5]}],
//!   "documents": [{"view": "get_profile", "path": "/profile", "value": {…}, "record_ordinal": 3}]}}
//! ```
//!
//! `state_evidence_id` and `types` sit inside the document (decision on an ambiguity of the
//! reference): they are members a loaded document may omit, and when present must match the
//! served state. The order of `entities` is the state order lists use.

use std::collections::{BTreeMap, HashMap};

use rea_plugin_api::json::{Json, Object};

use crate::derive::entities::collection_key;
use crate::model::{Document, Entity, EntityType};

/// The format name of a state document.
pub const STATE_FORMAT: &str = "rea-state/v1";

/// The largest state document `data/add` loads and `data/get` may write: 32 MiB.
pub const MAX_STATE_BYTES: usize = 32 * 1024 * 1024;

/// Entities and documents, indexed.
#[derive(Debug, Clone, Default)]
pub struct LiveState {
    entities: Vec<Entity>,
    index: HashMap<(String, String, String), usize>,
    collections: BTreeMap<String, BTreeMap<String, Vec<usize>>>,
    documents: BTreeMap<String, Document>,
}

impl LiveState {
    /// A state holding these entities (in state order) and documents.
    pub fn new(entities: Vec<Entity>, documents: Vec<Document>) -> Self {
        let mut state = Self {
            entities,
            documents: documents
                .into_iter()
                .map(|document| (document.view.clone(), document))
                .collect(),
            ..Self::default()
        };
        state.reindex();
        state
    }

    fn reindex(&mut self) {
        self.index.clear();
        self.collections.clear();
        for (position, entity) in self.entities.iter().enumerate() {
            let key = collection_key(&entity.collection).to_owned();
            self.index.insert(
                (entity.entity_type.clone(), key.clone(), entity.id.clone()),
                position,
            );
            self.collections
                .entry(entity.entity_type.clone())
                .or_default()
                .entry(key)
                .or_default()
                .push(position);
        }
    }

    /// The entities, in state order.
    pub fn entities(&self) -> &[Entity] {
        &self.entities
    }

    /// The documents, by view.
    pub fn documents(&self) -> impl Iterator<Item = &Document> {
        self.documents.values()
    }

    /// The document of a view.
    pub fn document(&self, view: &str) -> Option<&Document> {
        self.documents.get(view)
    }

    /// The entity `(type, collection, id)` (a single trailing slash of the collection ignored).
    pub fn entity(&self, entity_type: &str, collection: &str, id: &str) -> Option<&Entity> {
        self.index
            .get(&(
                entity_type.to_owned(),
                collection_key(collection).to_owned(),
                id.to_owned(),
            ))
            .map(|position| &self.entities[*position])
    }

    /// A collection's entities, in state order.
    pub fn collection(&self, entity_type: &str, collection: &str) -> Vec<&Entity> {
        self.collections
            .get(entity_type)
            .and_then(|collections| collections.get(collection_key(collection)))
            .map(|positions| {
                positions
                    .iter()
                    .map(|position| &self.entities[*position])
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The collections of a type (keys as held), sorted.
    pub fn collections_of(&self, entity_type: &str) -> Vec<&str> {
        self.collections
            .get(entity_type)
            .map(|collections| collections.keys().map(String::as_str).collect())
            .unwrap_or_default()
    }

    /// Replaces an entity held at `(type, collection, id)`, or appends it to the state (served
    /// writes build on this).
    pub fn put_entity(&mut self, entity: Entity) {
        let key = (
            entity.entity_type.clone(),
            collection_key(&entity.collection).to_owned(),
            entity.id.clone(),
        );
        match self.index.get(&key) {
            Some(position) => self.entities[*position] = entity,
            None => {
                self.entities.push(entity);
                self.reindex();
            }
        }
    }

    /// Removes an entity; returns it.
    pub fn remove_entity(
        &mut self,
        entity_type: &str,
        collection: &str,
        id: &str,
    ) -> Option<Entity> {
        let position = *self.index.get(&(
            entity_type.to_owned(),
            collection_key(collection).to_owned(),
            id.to_owned(),
        ))?;
        let removed = self.entities.remove(position);
        self.reindex();
        Some(removed)
    }

    /// Sets a document's value.
    pub fn put_document(&mut self, document: Document) {
        self.documents.insert(document.view.clone(), document);
    }

    /// The `rea-state/v1` document of this state.
    pub fn to_document(&self, state_evidence_id: &str, types: &[EntityType]) -> Json {
        let mut inner = Object::with_capacity(5);
        inner.insert("version", 1u64);
        inner.insert("state_evidence_id", state_evidence_id);
        inner.insert(
            "types",
            Json::from_serialize(types).unwrap_or(Json::Array(Vec::new())),
        );
        inner.insert(
            "entities",
            Json::Array(self.entities.iter().map(entity_json).collect()),
        );
        inner.insert(
            "documents",
            Json::Array(self.documents.values().map(document_json).collect()),
        );
        let mut outer = Object::with_capacity(1);
        outer.insert("rea_state", inner);
        Json::Object(outer)
    }
}

fn entity_json(entity: &Entity) -> Json {
    let mut object = Object::with_capacity(6);
    object.insert("type", entity.entity_type.as_str());
    object.insert("collection", entity.collection.as_str());
    object.insert("id", entity.id.as_str());
    object.insert("fields", entity.fields.clone());
    if !entity.view_fields.is_empty() {
        object.insert(
            "view_fields",
            Json::Object(
                entity
                    .view_fields
                    .iter()
                    .map(|(view, value)| (view.clone(), value.clone()))
                    .collect(),
            ),
        );
    }
    object.insert(
        "record_ordinals",
        Json::Array(
            entity
                .record_ordinals
                .iter()
                .map(|ordinal| Json::from(*ordinal))
                .collect(),
        ),
    );
    Json::Object(object)
}

fn document_json(document: &Document) -> Json {
    let mut object = Object::with_capacity(4);
    object.insert("view", document.view.as_str());
    object.insert("path", document.path.as_str());
    object.insert("value", document.value.clone());
    if let Some(ordinal) = document.record_ordinal {
        object.insert("record_ordinal", ordinal);
    }
    Json::Object(object)
}

/// JSON equality where numbers compare by value (a state read back may spell `1.50` as `1.5`).
pub fn same_value(left: &Json, right: &Json) -> bool {
    match (left, right) {
        (Json::Number(a), Json::Number(b)) => {
            a == b
                || match (a.lossless_f64(), b.lossless_f64()) {
                    (Some(x), Some(y)) => x == y,
                    _ => false,
                }
        }
        (Json::Array(a), Json::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_value(x, y))
        }
        (Json::Object(a), Json::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(key, value)| b.get(key).is_some_and(|other| same_value(value, other)))
        }
        _ => left == right,
    }
}

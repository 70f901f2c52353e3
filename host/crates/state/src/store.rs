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
//!
//! # Layout
//!
//! Entities live in stable slots. State order is a rank per entity (a `u64`, spaced out when the
//! state is built), kept in one ordered map for the whole state and one per collection, so a
//! served write inserts, moves or removes one entity in `O(log n)` (a sorted placement also walks
//! its collection) instead of rebuilding an index. Ranks are renumbered only when two neighbours
//! leave no room between them.
//!
//! Besides the entities, the live state counts what served writes generated since the last reset
//! or load (the write count the clock advances by, the largest sequence values, and the
//! additional collection history with its 1 MiB budget, and what the writes changed: the type and
//! collection of each entity written, each document written, so a read answering from a
//! recording knows whether the recording may still show the state), and keeps the entities a
//! soft delete marked deleted. A new live state (reset, load) starts all of them again.
//!
//! It also keeps the held indexes served writes' rules ask about ([`crate::held`]), updated as
//! entities are placed, replaced and removed.

use rea_plugin_api::contracts::capture::CompactString;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use rea_plugin_api::contracts::rule::HeldIndexKind;
use rea_plugin_api::json::{Json, Object};

use crate::counters::{StoreCounter, next};
use crate::derive::entities::collection_key;
use crate::held::{FieldIndex, HeldIndexes, Referrers, SharedValues, SortedMembers};
use crate::model::{Document, Entity, EntityType, WriteScope};
use crate::tree_writes::{TreeEffect, TreeEntries};

/// The format name of a state document.
pub const STATE_FORMAT: &str = "rea-state/v1";

/// The largest state document `data/add` loads and `data/get` may write: 32 MiB.
pub const MAX_STATE_BYTES: usize = 32 * 1024 * 1024;

/// The additional collection history served creates may add since a reset or load: 1 MiB of
/// accounting, 1/32 of [`MAX_STATE_BYTES`].
pub const MAX_HISTORY_SCORE: usize = MAX_STATE_BYTES / 32;

/// The fixed allowance the history score charges per collection and per sequence key.
pub const HISTORY_RECORD_ALLOWANCE: usize = 64;

/// The spacing of ranks when a state is built or renumbered.
const RANK_STEP: u64 = 1 << 24;

/// An entity's key: its type, its collection (as a lookup key) and its id.
pub type EntityKey = (String, String, String);

/// Where an entity goes in its collection.
#[derive(Debug, Clone, PartialEq)]
pub enum Position {
    /// First in its collection.
    First,
    /// Last in its collection.
    Last,
    /// Where a sort by a top-level field puts it.
    Sorted {
        /// The field.
        field: String,
        /// Whether the order is descending.
        descending: bool,
    },
}

/// Entities and documents, indexed, with what served writes generated.
#[derive(Debug, Clone, Default)]
pub struct LiveState {
    slots: Vec<Option<Slot>>,
    free: Vec<usize>,
    index: HashMap<EntityKey, usize>,
    order: BTreeMap<u64, usize>,
    collections: Collections,
    /// Per type, its collection keys (sorted).
    type_collections: BTreeMap<String, BTreeSet<String>>,
    /// The documents by view and path (a keyed document view holds one per id).
    documents: BTreeMap<(String, String), Document>,
    deleted: HashMap<EntityKey, Entity>,
    /// Collection keys the Evidence or the loaded state holds (never forgotten).
    known_collections: HashSet<(String, String)>,
    /// Collections served creates introduced since the reset or load.
    history_collections: HashSet<(String, String)>,
    /// The entities served creates made since the reset or load, by collection key and id: no
    /// recording listed what lies under them, so what does is what the writes since made.
    created: HashSet<(String, String)>,
    history_score: usize,
    /// Served writes since the reset or load.
    writes: u64,
    /// The largest integer each sequence generated or was given, per (collection key, field).
    sequences: HashMap<(String, String), i128>,
    /// The canonical bytes of every held entity as `data/get` writes it, summed.
    entity_bytes: usize,
    /// The canonical bytes of every document as `data/get` writes it, summed.
    document_bytes: usize,
    /// What writes since the reset or load changed: each type's collection, or document.
    written: BTreeSet<WriteScope>,
    /// The collections writes since the reset or load added an entity to or changed one in (a
    /// recorded list's membership no longer holds there: the entity may now belong to it).
    grown: BTreeSet<WriteScope>,
    /// What served writes' rules ask about the collections they write, kept as entities change.
    held: HeldIndexes,
    /// The entities holding each value of the fields deletes' dependent effects look up.
    referrers: Referrers,
    /// Per collection, its members in the order of the fields sorted placements sort by:
    /// (field, descending) → index.
    sorted: SortedIndexes,
    /// The store counters kept (see [`crate::counters`]), each with its value now.
    counters: Vec<(StoreCounter, Json)>,
    /// Whether the rows of the build's folder listings describe this state (the derived state
    /// and its resets; not a loaded one), and the keys written since (see
    /// [`LiveState::listed_row_open`]).
    listed_rows: ListedRows,
    /// The folder trees served writes changed, by prefix (see [`crate::tree_writes`]).
    trees: BTreeMap<String, TreeEntries>,
    /// Per write tool, the statuses of its served calls refused since its previous served
    /// success (what a rule's `ServedCall::refused_before` reads).
    refused: BTreeMap<String, Vec<u16>>,
    /// The inverse linkages the entities showed before the first change (see
    /// [`crate::inverse`]), learned then.
    inverse: Option<Arc<Vec<crate::inverse::InverseLink>>>,
    /// The inverse linkages' arrays whose joining children go last (see
    /// [`crate::inverse::AppendedList`]).
    appended: Arc<Vec<crate::inverse::AppendedList>>,
}

/// The rows of the build's folder listings this state may still hold only as rows.
#[derive(Debug, Clone, Default)]
struct ListedRows {
    /// The rows describe this state.
    speak: bool,
    /// The keys a write created, changed or removed since the reset: their rows no longer speak.
    written: HashSet<EntityKey>,
}

/// Per collection (type, collection key), its members by rank.
type Collections = HashMap<(String, String), BTreeMap<u64, usize>>;

/// Per collection (type, collection key), its sorted indexes by (field, descending).
type SortedIndexes = HashMap<(String, String), BTreeMap<(String, bool), SortedMembers>>;

/// Updates a collection's sorted indexes for its member of `rank` (holding `fields`), placed
/// (`added`) or about to be removed: its neighbours in collection order are read from
/// `collections` (which holds it then).
fn sorted_change(
    sorted: &mut SortedIndexes,
    (collections, slots): (&Collections, &[Option<Slot>]),
    collection: &(String, String),
    (rank, fields): (u64, &Json),
    added: bool,
) {
    let (Some(indexes), Some(members)) = (sorted.get_mut(collection), collections.get(collection))
    else {
        return;
    };
    let previous = members.range(..rank).next_back();
    let next = members.range(rank + 1..).next();
    for ((field, _), index) in indexes.iter_mut() {
        let member = |(rank, slot): (&u64, &usize)| {
            let value = slots[*slot]
                .as_ref()
                .and_then(|slot| slot.entity.fields.get(field));
            (*rank, value)
        };
        let neighbours = (previous.map(member), next.map(member));
        index.change(neighbours, (rank, fields.get(field)), added);
    }
}

#[derive(Debug, Clone)]
struct Slot {
    /// Shared with the copies of the state (`data/reset`'s initial state and the live one): a
    /// state is cloned without copying its entities, and a write replaces a slot's entity.
    entity: Arc<Entity>,
    rank: u64,
    /// The entity's canonical bytes as `data/get` writes it.
    bytes: usize,
}

/// How many bytes `data/get` writes for an entity.
pub fn entity_report_bytes(entity: &Entity) -> usize {
    entity_json(entity).to_canonical_vec().len()
}

/// How many bytes `data/get` writes for a document.
pub fn document_report_bytes(document: &Document) -> usize {
    document_json(document).to_canonical_vec().len()
}

/// How many bytes `data/get` writes for the live state of these entities and documents
/// (`LiveState::new(entities, documents)` under this state Evidence id and types), counted one
/// entity and document at a time: neither the live state nor its document is built.
pub fn initial_report_bytes(
    state_evidence_id: &str,
    types: &[EntityType],
    entities: &[Arc<Entity>],
    documents: &[Document],
) -> usize {
    let empty = LiveState::default()
        .to_document(state_evidence_id, types)
        .to_canonical_vec()
        .len();
    // Documents are held by view and path, a later one replacing an earlier one.
    let by_view: BTreeMap<(&str, &str), &Document> = documents
        .iter()
        .map(|document| ((document.view.as_str(), document.path.as_str()), document))
        .collect();
    report_bytes_of(
        empty,
        (
            entities.len(),
            entities
                .iter()
                .map(|entity| entity_report_bytes(entity))
                .sum(),
        ),
        (
            by_view.len(),
            by_view
                .values()
                .map(|document| document_report_bytes(document))
                .sum(),
        ),
    )
}

/// The bytes of a `data/get` document: the empty document's, plus each list's members (count,
/// bytes) and the commas between them.
fn report_bytes_of(empty: usize, entities: (usize, usize), documents: (usize, usize)) -> usize {
    let listed = |(count, bytes): (usize, usize)| bytes + count.saturating_sub(1);
    empty + listed(entities) + listed(documents)
}

pub(crate) fn key_of(entity: &Entity) -> EntityKey {
    (
        entity.entity_type.clone(),
        collection_key(&entity.collection).to_owned(),
        entity.id.clone(),
    )
}

impl LiveState {
    /// A state holding these entities (in state order) and documents.
    pub fn new(entities: Vec<Entity>, documents: Vec<Document>) -> Self {
        Self::from_shared(entities.into_iter().map(Arc::new).collect(), documents)
    }

    /// A state holding these shared entities (in state order: a derived state's, held once by the
    /// state and its live copies) and documents.
    pub fn from_shared(entities: Vec<Arc<Entity>>, documents: Vec<Document>) -> Self {
        let mut state = Self {
            document_bytes: documents.iter().map(document_report_bytes).sum(),
            documents: documents
                .into_iter()
                .map(|document| ((document.view.clone(), document.path.clone()), document))
                .collect(),
            ..Self::default()
        };
        for (position, entity) in entities.into_iter().enumerate() {
            let rank = (position as u64 + 1) * RANK_STEP;
            state.known_collections.insert((
                entity.entity_type.clone(),
                collection_key(&entity.collection).to_owned(),
            ));
            state.place_shared(entity, rank);
        }
        state
    }

    fn place(&mut self, entity: Entity, rank: u64) -> usize {
        self.place_shared(Arc::new(entity), rank)
    }

    fn place_shared(&mut self, entity: Arc<Entity>, rank: u64) -> usize {
        let key = key_of(&entity);
        let collection = (key.0.clone(), key.1.clone());
        let bytes = entity_report_bytes(&entity);
        self.entity_bytes += bytes;
        self.held.change(&collection, &entity.fields, true);
        self.referrers.change(&key, &entity.fields, true);
        let slot = Slot {
            entity,
            rank,
            bytes,
        };
        let index = match self.free.pop() {
            Some(index) => {
                self.slots[index] = Some(slot);
                index
            }
            None => {
                self.slots.push(Some(slot));
                self.slots.len() - 1
            }
        };
        self.index.insert(key, index);
        self.order.insert(rank, index);
        self.type_collections
            .entry(collection.0.clone())
            .or_default()
            .insert(collection.1.clone());
        self.collections
            .entry(collection.clone())
            .or_default()
            .insert(rank, index);
        if let Some(slot) = self.slots[index].as_ref() {
            let member = (rank, &slot.entity.fields);
            let held = (&self.collections, self.slots.as_slice());
            sorted_change(&mut self.sorted, held, &collection, member, true);
        }
        index
    }

    fn unplace(&mut self, index: usize) -> Option<Entity> {
        let slot = self.slots.get_mut(index)?.take()?;
        self.entity_bytes -= slot.bytes;
        let key = key_of(&slot.entity);
        self.index.remove(&key);
        self.order.remove(&slot.rank);
        self.referrers.change(&key, &slot.entity.fields, false);
        let collection = (key.0, key.1);
        self.held.change(&collection, &slot.entity.fields, false);
        let member = (slot.rank, &slot.entity.fields);
        let held = (&self.collections, self.slots.as_slice());
        sorted_change(&mut self.sorted, held, &collection, member, false);
        if let Some(members) = self.collections.get_mut(&collection) {
            members.remove(&slot.rank);
            if members.is_empty() {
                self.collections.remove(&collection);
                if let Some(keys) = self.type_collections.get_mut(&collection.0) {
                    keys.remove(&collection.1);
                }
            }
        }
        self.free.push(index);
        Some(Arc::unwrap_or_clone(slot.entity))
    }

    /// Replaces the entity held in a slot, keeping its place.
    fn replace_in_slot(&mut self, index: usize, entity: Entity) {
        let bytes = entity_report_bytes(&entity);
        if let Some(slot) = self.slots[index].as_ref()
            && !self.sorted.is_empty()
        {
            let collection = (
                slot.entity.entity_type.clone(),
                collection_key(&slot.entity.collection).to_owned(),
            );
            let held = (&self.collections, self.slots.as_slice());
            let (before, after) = (
                (slot.rank, &slot.entity.fields),
                (slot.rank, &entity.fields),
            );
            sorted_change(&mut self.sorted, held, &collection, before, false);
            sorted_change(&mut self.sorted, held, &collection, after, true);
        }
        if let Some(slot) = self.slots[index].as_mut() {
            let collection = (
                slot.entity.entity_type.clone(),
                collection_key(&slot.entity.collection).to_owned(),
            );
            self.held
                .replace(&collection, &slot.entity.fields, &entity.fields);
            let key = key_of(&slot.entity);
            self.referrers.change(&key, &slot.entity.fields, false);
            self.referrers.change(&key, &entity.fields, true);
            self.entity_bytes = self.entity_bytes - slot.bytes + bytes;
            slot.entity = Arc::new(entity);
            slot.bytes = bytes;
        }
    }

    /// How many bytes `data/get` writes for this state, given the bytes it writes for an empty
    /// state of the same served state (its header: version, evidence id, types). Kept as the
    /// state changes, so a write can be refused before it grows the state past what `data/add`
    /// loads.
    pub fn report_bytes(&self, empty_report_bytes: usize) -> usize {
        report_bytes_of(
            empty_report_bytes,
            (self.len(), self.entity_bytes),
            (self.documents.len(), self.document_bytes),
        )
    }

    /// The documents' count.
    pub fn document_count(&self) -> usize {
        self.documents.len()
    }

    fn slot(&self, index: usize) -> &Slot {
        self.slots[index]
            .as_ref()
            .unwrap_or_else(|| unreachable!("indexed slots are occupied"))
    }

    /// The entities, in state order.
    pub fn entities(&self) -> impl Iterator<Item = &Entity> {
        self.order.values().map(|index| &*self.slot(*index).entity)
    }

    /// How many entities the state holds.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether the state holds no entity.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// The documents, by view and path.
    pub fn documents(&self) -> impl Iterator<Item = &Document> {
        self.documents.values()
    }

    /// The document of a view at a path (a view read on one line holds one, at that line's
    /// path).
    pub fn document(&self, view: &str, path: &str) -> Option<&Document> {
        self.documents.get(&(view.to_owned(), path.to_owned()))
    }

    /// The document of a view a write's path reaches: the one whose path's segments begin the
    /// write's segments (its own path, or a member of it named by literal segments after it),
    /// each as written or percent-decoded.
    pub fn document_under(&self, view: &str, segments: &[CompactString]) -> Option<&Document> {
        let decoded = |text: &str| {
            rea_manifest::segments::percent_decode(text)
                .map_or_else(|| text.to_owned(), std::borrow::Cow::into_owned)
        };
        let same = |held: &str, given: &str| held == given || decoded(held) == decoded(given);
        let given: Vec<&str> = segments
            .iter()
            .map(CompactString::as_str)
            .filter(|segment| !segment.is_empty())
            .collect();
        let held_segments = |document: &Document| -> Vec<String> {
            rea_manifest::segments::split_path(&document.path)
                .into_iter()
                .filter(|segment| !segment.is_empty())
                .map(str::to_owned)
                .collect()
        };
        self.documents
            .range((view.to_owned(), String::new())..)
            .take_while(|((held_view, _), _)| held_view == view)
            .map(|(_, document)| document)
            .filter(|document| {
                let held = held_segments(document);
                held.len() <= given.len()
                    && held
                        .iter()
                        .zip(&given)
                        .all(|(held, given)| same(held, given))
            })
            .max_by_key(|document| held_segments(document).len())
    }

    /// The entity `(type, collection, id)` (a single trailing slash of the collection ignored).
    pub fn entity(&self, entity_type: &str, collection: &str, id: &str) -> Option<&Entity> {
        self.index
            .get(&(
                entity_type.to_owned(),
                collection_key(collection).to_owned(),
                id.to_owned(),
            ))
            .map(|index| &*self.slot(*index).entity)
    }

    /// An entity a soft delete kept, marked deleted.
    pub fn deleted_entity(&self, entity_type: &str, collection: &str, id: &str) -> Option<&Entity> {
        self.deleted.get(&(
            entity_type.to_owned(),
            collection_key(collection).to_owned(),
            id.to_owned(),
        ))
    }

    /// A collection's entities, in state order.
    pub fn collection(&self, entity_type: &str, collection: &str) -> Vec<&Entity> {
        self.collections
            .get(&(
                entity_type.to_owned(),
                collection_key(collection).to_owned(),
            ))
            .map(|members| {
                members
                    .values()
                    .map(|index| &*self.slot(*index).entity)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Whether a collection holds an entity (what [`LiveState::collection`] tells by being
    /// non-empty, without listing it).
    pub fn holds_collection(&self, entity_type: &str, collection: &str) -> bool {
        self.collections
            .get(&(
                entity_type.to_owned(),
                collection_key(collection).to_owned(),
            ))
            .is_some_and(|members| !members.is_empty())
    }

    /// An entity's position in its collection's order.
    pub fn position(&self, entity_type: &str, collection: &str, id: &str) -> Option<usize> {
        let key = (
            entity_type.to_owned(),
            collection_key(collection).to_owned(),
            id.to_owned(),
        );
        let rank = self.slot(*self.index.get(&key)?).rank;
        let members = self.collections.get(&(key.0, key.1))?;
        Some(members.range(..rank).count())
    }

    /// The collections of a type (keys as held), sorted.
    pub fn collections_of(&self, entity_type: &str) -> Vec<&str> {
        self.type_collections
            .get(entity_type)
            .map(|collections| collections.iter().map(String::as_str).collect())
            .unwrap_or_default()
    }

    /// Lets the rows of the build's folder listings speak for this state: it is the derived state,
    /// which holds a document such a row lists (and no item read showed) only as that row.
    pub fn hold_listed_rows(&mut self) {
        self.listed_rows.speak = true;
    }

    /// Whether a listing row naming `key` still speaks for this state: the state holds the rows
    /// of the build's listings, no entity of that key, and no write since the reset wrote it.
    pub fn listed_row_open(&self, key: &EntityKey) -> bool {
        self.listed_rows.speak
            && !self.index.contains_key(key)
            && !self.deleted.contains_key(key)
            && !self.listed_rows.written.contains(key)
    }

    /// Whether a write since the reset created, changed or removed an entity of any type named
    /// `id` in the collection whose decoded path is `collection`.
    pub fn row_written(&self, collection: &str, id: &str) -> bool {
        self.listed_rows.written.iter().any(|(_, held, held_id)| {
            held_id == id
                && rea_manifest::segments::percent_decode(collection_key(held))
                    .is_some_and(|held| held == collection)
        })
    }

    /// Notes that a write created, changed or removed the entity of `key` (its listing row, if
    /// any, no longer speaks for the state).
    pub fn note_written_key(&mut self, key: &EntityKey) {
        if self.listed_rows.speak {
            self.listed_rows.written.insert(key.clone());
        }
    }

    /// Removes a document the state held only as a row of its folder's listing: its collection
    /// is written, and the row no longer speaks.
    pub fn remove_listed_row(&mut self, entity: &Entity) {
        self.mark_written(&entity.entity_type, &entity.collection);
        self.note_written_key(&key_of(entity));
    }

    fn mark_written(&mut self, entity_type: &str, collection: &str) {
        let scope = WriteScope::Type {
            entity_type: entity_type.to_owned(),
            collection: Some(collection_key(collection).to_owned()),
            entity: None,
        };
        self.written.insert(scope);
    }

    fn mark_grown(&mut self, entity_type: &str, collection: &str) {
        self.grown.insert(WriteScope::Type {
            entity_type: entity_type.to_owned(),
            collection: Some(collection_key(collection).to_owned()),
            entity: None,
        });
    }

    /// Whether a write since the reset or load added or changed an entity a read showing
    /// `shown` may list (deletes and moves aside).
    pub fn grown_since_reset(&self, shown: &WriteScope) -> bool {
        self.grown
            .iter()
            .any(|grown| crate::derive::windows::relates(grown, shown))
    }

    /// Whether a write since the reset or load changed something a read showing `shown` shows.
    pub fn written_since_reset(&self, shown: &WriteScope) -> bool {
        self.written
            .iter()
            .any(|written| crate::derive::windows::relates(written, shown))
    }

    /// Whether a write since the reset or load changed a collection at or below `path` (a
    /// folder's own children, or its descendants', whose stamps its listing shows), or anything
    /// the state does not place.
    pub fn written_below(&self, path: &str) -> bool {
        let path = collection_key(path);
        self.written.iter().any(|written| match written {
            WriteScope::Type {
                collection: Some(collection),
                ..
            } => collection
                .strip_prefix(path)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/') || path == "/"),
            WriteScope::Type {
                collection: None, ..
            }
            | WriteScope::All => true,
            WriteScope::Document { .. } => false,
        })
    }

    /// Replaces an entity held at `(type, collection, id)` in place, or adds it last in its
    /// collection.
    pub fn put_entity(&mut self, entity: Entity) {
        self.mark_written(&entity.entity_type, &entity.collection);
        self.mark_grown(&entity.entity_type, &entity.collection);
        let key = key_of(&entity);
        match self.index.get(&key) {
            Some(index) => {
                let index = *index;
                self.replace_in_slot(index, entity);
            }
            None => self.insert_entity(entity, &Position::Last),
        }
    }

    /// Adds an entity at a position of its collection (replacing one with the same key).
    pub fn insert_entity(&mut self, entity: Entity, position: &Position) {
        self.learn_inverse();
        self.mark_written(&entity.entity_type, &entity.collection);
        self.mark_grown(&entity.entity_type, &entity.collection);
        let key = key_of(&entity);
        let before = self
            .index
            .get(&key)
            .copied()
            .and_then(|index| self.unplace(index));
        self.deleted.remove(&key);
        let rank = self.rank_for(&entity, position, None);
        self.follow_inverse(before.as_ref(), Some(&entity));
        self.place(entity, rank);
    }

    /// Puts the joining children of these inverse linkages' arrays last (see
    /// [`crate::inverse::AppendedList`]).
    pub fn append_to(&mut self, lists: &[crate::inverse::AppendedList]) {
        self.appended = Arc::new(lists.to_vec());
    }

    /// Learns the inverse linkages before the first change (see [`crate::inverse`]).
    fn learn_inverse(&mut self) {
        if self.inverse.is_none() {
            let entities: Vec<&Entity> = self.entities().collect();
            let mut links = crate::inverse::learn(entities.into_iter());
            for link in &mut links {
                link.sorted &= !self.appended.iter().any(|appended| {
                    appended.parent_type == link.parent_type && appended.list == link.list
                });
            }
            self.inverse = Some(Arc::new(links));
        }
    }

    /// Whether an inverse linkage keeps the identifier array at `list` of the entities of
    /// `parent_type` as their children change (see [`crate::inverse`]).
    pub fn inverse_keeps(&self, parent_type: &str, list: &str) -> bool {
        self.inverse.as_ref().is_some_and(|links| {
            (links.iter()).any(|link| link.parent_type == parent_type && link.list == list)
        })
    }

    /// Moves a child changed `before` → `after` between the arrays of the parents its linkage
    /// names (see [`crate::inverse`]).
    fn follow_inverse(&mut self, before: Option<&Entity>, after: Option<&Entity>) {
        let Some(links) = self.inverse.clone().filter(|links| !links.is_empty()) else {
            return;
        };
        let held = |entity_type: &str| -> Vec<&Entity> {
            self.collections_of(entity_type)
                .into_iter()
                .flat_map(|collection| self.collection(entity_type, collection))
                .collect()
        };
        let parents = crate::inverse::moved_parents(&links, held, (before, after));
        for parent in parents {
            if let Some(index) = self.index.get(&key_of(&parent)).copied() {
                self.mark_written(&parent.entity_type, &parent.collection);
                self.replace_in_slot(index, parent);
            }
        }
    }

    /// Notes an entity a served create made (see [`LiveState::created_here`]).
    pub fn note_created(&mut self, entity: &Entity) {
        self.created.insert((
            collection_key(&entity.collection).to_owned(),
            entity.id.clone(),
        ));
    }

    /// Whether the entity of `collection` named `id` is held and was made by a served create
    /// since the reset or load (not one the Evidence or a loaded state held).
    pub fn created_here(&self, collection: &str, id: &str) -> bool {
        let key = (collection_key(collection).to_owned(), id.to_owned());
        self.created.contains(&key)
            && self.type_collections.iter().any(|(entity_type, held)| {
                held.contains(&key.0)
                    && self
                        .index
                        .contains_key(&(entity_type.clone(), key.0.clone(), key.1.clone()))
            })
    }

    /// Replaces an entity's fields and moves it to a position of its collection; `false` when the
    /// state holds no such entity.
    pub fn update_entity(&mut self, entity: Entity, position: Option<&Position>) -> bool {
        self.learn_inverse();
        let key = key_of(&entity);
        let Some(index) = self.index.get(&key).copied() else {
            return false;
        };
        let before = Arc::clone(&self.slot(index).entity);
        self.follow_inverse(Some(&before), Some(&entity));
        self.mark_written(&entity.entity_type, &entity.collection);
        match position {
            None => self.replace_in_slot(index, entity),
            Some(position) => {
                let rank = self.slot(index).rank;
                self.unplace(index);
                let rank = self.rank_for(&entity, position, Some(rank));
                self.place(entity, rank);
            }
        }
        true
    }

    /// A rank placing `entity` at `position` of its collection (`current`: the rank it had).
    fn rank_for(&mut self, entity: &Entity, position: &Position, current: Option<u64>) -> u64 {
        loop {
            let collection = (
                entity.entity_type.clone(),
                collection_key(&entity.collection).to_owned(),
            );
            let members = self.collections.get(&collection);
            let first = members.and_then(|members| members.keys().next().copied());
            let last = members.and_then(|members| members.keys().next_back().copied());
            // The rank the entity goes before (None: after everything of the collection).
            let before: Option<u64> = match position {
                Position::First => first,
                Position::Last => None,
                Position::Sorted { field, descending } => {
                    self.sorted_before(&collection, entity.fields.get(field), field, *descending)
                }
            };
            let (low, high) = match before {
                Some(next) => {
                    let previous = self.order.range(..next).next_back().map(|(rank, _)| *rank);
                    (previous.unwrap_or(0), next)
                }
                None => {
                    match last {
                        None => {
                            // A new collection: after the whole state, or where it was.
                            if let Some(rank) = current
                                && !self.order.contains_key(&rank)
                            {
                                return rank;
                            }
                            let end = self.order.keys().next_back().copied().unwrap_or(0);
                            (end, end.saturating_add(2 * RANK_STEP))
                        }
                        Some(last) => {
                            let next = self.order.range(last + 1..).next().map(|(rank, _)| *rank);
                            (last, next.unwrap_or(last.saturating_add(2 * RANK_STEP)))
                        }
                    }
                }
            };
            if high > low + 1 {
                return low + (high - low) / 2;
            }
            self.renumber();
        }
    }

    /// The rank of the first member of a collection a sorted placement of `value` goes before
    /// (`None`: after every member): from the kept sorted index while the collection is sorted
    /// by the field, else by a scan of the collection.
    fn sorted_before(
        &self,
        collection: &(String, String),
        value: Option<&Json>,
        field: &str,
        descending: bool,
    ) -> Option<u64> {
        let indexed = self
            .sorted
            .get(collection)
            .and_then(|indexes| indexes.get(&(field.to_owned(), descending)))
            .and_then(|index| index.place(value));
        if let Some(before) = indexed {
            return before;
        }
        self.collections
            .get(collection)?
            .iter()
            .find_map(|(rank, index)| {
                let other = self.slot(*index).entity.fields.get(field);
                let ordering = compare_values(value, other);
                let goes_before = if descending {
                    ordering == std::cmp::Ordering::Greater
                } else {
                    ordering == std::cmp::Ordering::Less
                };
                goes_before.then_some(*rank)
            })
    }

    /// Keeps, from now on, a collection's members in the order of a top-level field (see
    /// [`SortedMembers`]), built from its members when it is not kept yet.
    pub fn keep_sorted(
        &mut self,
        entity_type: &str,
        collection: &str,
        field: &str,
        descending: bool,
    ) {
        let key = (
            entity_type.to_owned(),
            collection_key(collection).to_owned(),
        );
        let index_key = (field.to_owned(), descending);
        if self
            .sorted
            .get(&key)
            .is_some_and(|indexes| indexes.contains_key(&index_key))
        {
            return;
        }
        let members = self.collections.get(&key).into_iter().flatten();
        let index = SortedMembers::build(
            descending,
            members.filter_map(|(rank, index)| {
                let slot = self.slots[*index].as_ref()?;
                Some((*rank, slot.entity.fields.get(field)))
            }),
        );
        self.sorted.entry(key).or_default().insert(index_key, index);
    }

    fn renumber(&mut self) {
        // The sorted indexes name members by rank: the next sorted placement builds them again.
        self.sorted.clear();
        let order: Vec<usize> = self.order.values().copied().collect();
        self.order.clear();
        for members in self.collections.values_mut() {
            members.clear();
        }
        for (position, index) in order.into_iter().enumerate() {
            let rank = (position as u64 + 1) * RANK_STEP;
            let Some(slot) = self.slots[index].as_mut() else {
                continue;
            };
            slot.rank = rank;
            let collection = (
                slot.entity.entity_type.clone(),
                collection_key(&slot.entity.collection).to_owned(),
            );
            self.order.insert(rank, index);
            self.collections
                .entry(collection)
                .or_default()
                .insert(rank, index);
        }
    }

    /// Puts a collection's held entities in the order of `ids` (ids it does not hold are
    /// skipped; held entities `ids` does not name keep their places after them).
    pub fn reorder_collection(&mut self, entity_type: &str, collection: &str, ids: &[String]) {
        self.mark_written(entity_type, collection);
        for id in ids.iter().rev() {
            let Some(entity) = self.entity(entity_type, collection, id).cloned() else {
                continue;
            };
            self.update_entity(entity, Some(&Position::First));
        }
    }

    /// Removes an entity; returns it.
    pub fn remove_entity(
        &mut self,
        entity_type: &str,
        collection: &str,
        id: &str,
    ) -> Option<Entity> {
        self.learn_inverse();
        let index = *self.index.get(&(
            entity_type.to_owned(),
            collection_key(collection).to_owned(),
            id.to_owned(),
        ))?;
        self.mark_written(entity_type, collection);
        let removed = self.unplace(index);
        self.follow_inverse(removed.as_ref(), None);
        removed
    }

    /// Keeps an entity a soft delete removed, marked deleted (read by id, never listed).
    pub fn keep_deleted(&mut self, entity: Entity) {
        self.mark_written(&entity.entity_type, &entity.collection);
        self.deleted.insert(key_of(&entity), entity);
    }

    /// Sets a document's value.
    pub fn put_document(&mut self, document: Document) {
        self.written.insert(WriteScope::Document {
            document: document.view.clone(),
        });
        self.document_bytes += document_report_bytes(&document);
        let key = (document.view.clone(), document.path.clone());
        if let Some(old) = self.documents.insert(key, document) {
            self.document_bytes -= document_report_bytes(&old);
        }
    }

    /// Keeps the held index of `kinds` for a collection's top-level field from now on, built
    /// from its members when it is not kept yet (or lacks one of the kinds).
    pub fn keep_held_index(
        &mut self,
        entity_type: &str,
        collection: &str,
        field: &str,
        kinds: &BTreeSet<HeldIndexKind>,
    ) {
        let key = (
            entity_type.to_owned(),
            collection_key(collection).to_owned(),
        );
        let kept = self.held.field(&key, field);
        if kept.is_some_and(|index| index.answers(kinds)) {
            return;
        }
        let mut all = kinds.clone();
        all.extend(kept.map(|index| index.kinds().clone()).unwrap_or_default());
        let index = self.build_held_index(entity_type, collection, field, &all);
        self.held.keep(key, field.to_owned(), index);
    }

    /// The held index of `kinds` for a collection's top-level field: the one kept, else one
    /// built from its members (a pass over the collection).
    pub fn held_index(
        &self,
        entity_type: &str,
        collection: &str,
        field: &str,
        kinds: &BTreeSet<HeldIndexKind>,
    ) -> Arc<FieldIndex> {
        let key = (
            entity_type.to_owned(),
            collection_key(collection).to_owned(),
        );
        match self.held.field(&key, field) {
            Some(index) if index.answers(kinds) => Arc::clone(index),
            _ => Arc::new(self.build_held_index(entity_type, collection, field, kinds)),
        }
    }

    /// Whether the shared values of a collection's top-level field are kept (see
    /// [`LiveState::keep_shared_index`]).
    pub fn keeps_shared_index(&self, entity_type: &str, collection: &str, field: &str) -> bool {
        let key = (
            entity_type.to_owned(),
            collection_key(collection).to_owned(),
        );
        self.held.shared(&key, field).is_some()
    }

    /// Keeps the shared values of a collection's field (top-level, or a JSON pointer: see
    /// `writes::dependents::member_at`) from now on (see
    /// [`LiveState::shared_value`]), built from its members when they are not kept yet.
    pub fn keep_shared_index(&mut self, entity_type: &str, collection: &str, field: &str) {
        let key = (
            entity_type.to_owned(),
            collection_key(collection).to_owned(),
        );
        if self.held.shared(&key, field).is_some() {
            return;
        }
        let members = self.collection(entity_type, collection);
        let values = SharedValues::build(
            members
                .iter()
                .map(|entity| crate::writes::dependents::member_at(&entity.fields, field)),
        );
        self.held.keep_shared(key, field.to_owned(), values);
    }

    /// Whether an entity of a collection holds `value` at a top-level field: from the kept shared
    /// values (see [`LiveState::keep_shared_index`]) when they are kept and tell, else from its
    /// members (a pass over the collection, also when a value of the same canonical text but
    /// another spelling is held).
    pub fn holds_value(
        &self,
        entity_type: &str,
        collection: &str,
        field: &str,
        value: &Json,
    ) -> bool {
        let key = (
            entity_type.to_owned(),
            collection_key(collection).to_owned(),
        );
        if let Some(values) = self.held.shared(&key, field) {
            match values.held_like(value) {
                None => return false,
                Some(held) if held == value => return true,
                Some(_) => {}
            }
        }
        self.collection(entity_type, collection)
            .iter()
            .any(|entity| {
                crate::writes::dependents::member_at(&entity.fields, field) == Some(value)
            })
    }

    /// The value every entity of a collection holds at a top-level field, when it holds
    /// entities and they all hold one value: from the kept shared values, else from its members.
    pub fn shared_value(&self, entity_type: &str, collection: &str, field: &str) -> Option<Json> {
        let key = (
            entity_type.to_owned(),
            collection_key(collection).to_owned(),
        );
        if let Some(values) = self.held.shared(&key, field) {
            return values.shared().cloned();
        }
        let held = self.collection(entity_type, collection);
        held.first()
            .and_then(|first| first.fields.get(field))
            .filter(|value| {
                held.iter()
                    .all(|entity| entity.fields.get(field) == Some(*value))
            })
            .cloned()
    }

    fn build_held_index(
        &self,
        entity_type: &str,
        collection: &str,
        field: &str,
        kinds: &BTreeSet<HeldIndexKind>,
    ) -> FieldIndex {
        let members = self.collection(entity_type, collection);
        FieldIndex::build(kinds, members.iter().map(|entity| entity.fields.get(field)))
    }

    /// Keeps, from now on, which entities of a type hold each value (as text) at a top-level
    /// field, built from every held entity of the type when it is not kept yet.
    pub fn keep_referrers(&mut self, entity_type: &str, field: &str) {
        if self.referrers.kept(entity_type, field) {
            return;
        }
        let members = self
            .type_collections
            .get(entity_type)
            .into_iter()
            .flatten()
            .filter_map(|collection| {
                self.collections
                    .get(&(entity_type.to_owned(), collection.clone()))
            })
            .flat_map(|members| members.values())
            .filter_map(|index| self.slots[*index].as_ref())
            .map(|slot| {
                let entity = &slot.entity;
                (
                    collection_key(&entity.collection),
                    entity.id.as_str(),
                    &entity.fields,
                )
            });
        self.referrers.keep(entity_type, field, members);
    }

    /// The held entities holding one of `texts` at any of these (type, top-level field) pairs,
    /// in state order, each once; `None` when [`LiveState::keep_referrers`] does not keep one of
    /// them.
    pub fn referring<'a>(
        &self,
        fields: impl IntoIterator<Item = (&'a str, &'a str)>,
        texts: &[String],
    ) -> Option<Vec<&Entity>> {
        let mut held: BTreeMap<u64, &Entity> = BTreeMap::new();
        let pairs = fields
            .into_iter()
            .flat_map(|field| texts.iter().map(move |text| (field, text)));
        for ((entity_type, field), text) in pairs {
            for (collection, id) in self.referrers.referring(entity_type, field, text)? {
                let key = (entity_type.to_owned(), collection.clone(), id.clone());
                if let Some(index) = self.index.get(&key) {
                    let slot = self.slot(*index);
                    held.insert(slot.rank, &*slot.entity);
                }
            }
        }
        Some(held.into_values().collect())
    }

    /// Served writes since the reset or load.
    pub fn writes(&self) -> u64 {
        self.writes
    }

    /// A folder tree's entries as served writes left them (`None`: no served write changed it).
    pub fn tree(&self, prefix: &str) -> Option<&TreeEntries> {
        self.trees.get(prefix)
    }

    /// Applies a served write's effect to a folder tree (first taking its entries from
    /// `initial`): the tree's pseudo-document is written, and one write is counted.
    pub fn write_tree(
        &mut self,
        prefix: &str,
        initial: impl FnOnce() -> TreeEntries,
        effect: &TreeEffect,
    ) {
        self.trees
            .entry(prefix.to_owned())
            .or_insert_with(initial)
            .apply(effect);
        self.written.insert(WriteScope::Document {
            document: prefix.to_owned(),
        });
        self.writes += 1;
    }

    /// Notes a served call of `tool` refused with `status`.
    pub fn note_refusal(&mut self, tool: &str, status: u16) {
        self.refused
            .entry(tool.to_owned())
            .or_default()
            .push(status);
    }

    /// The statuses of `tool`'s served calls refused since its previous served success.
    pub fn refused_since(&self, tool: &str) -> &[u16] {
        self.refused.get(tool).map_or(&[], Vec::as_slice)
    }

    /// Forgets `tool`'s refusals: a served call of it succeeded.
    pub fn clear_refusals(&mut self, tool: &str) {
        self.refused.remove(tool);
    }

    /// Counts one served write.
    pub fn count_write(&mut self) {
        self.writes += 1;
    }

    /// Keeps the store counters a derived state shows, each at its seed.
    pub fn seed_counters(&mut self, counters: &[StoreCounter]) {
        self.counters = counters
            .iter()
            .map(|counter| (counter.clone(), counter.seed.clone()))
            .collect();
    }

    /// Keeps the store counters another state keeps, at their values there (a loaded state
    /// keeps the served state's).
    pub fn keep_counters_of(&mut self, other: &LiveState) {
        self.counters = other.counters.clone();
    }

    /// The store counters kept, by answer pointer, at their values now.
    pub fn counter_values(&self) -> impl Iterator<Item = (&str, &Json)> {
        self.counters
            .iter()
            .map(|(counter, value)| (counter.pointer.as_str(), value))
    }

    /// The counters a write of `tool` steps, each with its value after the write.
    pub fn stepped_counters(&self, tool: &str) -> Vec<(String, Json)> {
        self.counters
            .iter()
            .filter(|(counter, _)| counter.tools.iter().any(|stepping| stepping == tool))
            .filter_map(|(counter, value)| Some((counter.pointer.clone(), next(value)?)))
            .collect()
    }

    /// Sets a kept counter's value (a write committed, or a recorded answer the confirmation
    /// follows); a pointer kept as no counter is ignored.
    pub fn set_counter(&mut self, pointer: &str, value: &Json) {
        if let Some((_, held)) = self
            .counters
            .iter_mut()
            .find(|(counter, _)| counter.pointer == pointer)
        {
            *held = value.clone();
        }
    }

    /// Sets every kept counter an answer holds to its value there.
    pub fn follow_counters(&mut self, answer: &Json) {
        let values = self
            .counters
            .iter_mut()
            .map(|(counter, held)| (counter.pointer.as_str(), held));
        crate::counters::follow(values, answer);
    }

    /// The largest integer a sequence generated or was given in a collection.
    pub fn sequence(&self, collection: &str, field: &str) -> Option<i128> {
        self.sequences
            .get(&(collection_key(collection).to_owned(), field.to_owned()))
            .copied()
    }

    /// Records a value a sequence generated or was given.
    pub fn record_sequence(&mut self, collection: &str, field: &str, value: i128) {
        let slot = self
            .sequences
            .entry((collection_key(collection).to_owned(), field.to_owned()))
            .or_insert(value);
        *slot = (*slot).max(value);
    }

    /// The additional history a create in `collection` would charge (its spelling when the
    /// collection is new, and each sequence key it may keep), or `None` when it charges nothing.
    pub fn history_charge(
        &self,
        entity_type: &str,
        collection: &str,
        sequence_fields: &[String],
    ) -> usize {
        let key = (
            entity_type.to_owned(),
            collection_key(collection).to_owned(),
        );
        if self.known_collections.contains(&key) || self.history_collections.contains(&key) {
            return 0;
        }
        let mut charge = key.1.len() + HISTORY_RECORD_ALLOWANCE;
        for field in sequence_fields {
            charge += key.1.len() + field.len() + HISTORY_RECORD_ALLOWANCE;
        }
        charge
    }

    /// The additional history score since the reset or load.
    pub fn history_score(&self) -> usize {
        self.history_score
    }

    /// Charges a create's history (see [`LiveState::history_charge`]).
    pub fn charge_history(&mut self, entity_type: &str, collection: &str, charge: usize) {
        if charge == 0 {
            return;
        }
        self.history_collections.insert((
            entity_type.to_owned(),
            collection_key(collection).to_owned(),
        ));
        self.history_score += charge;
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
            Json::Array(self.entities().map(entity_json).collect()),
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

/// Orders two JSON values as a sort by a field does: absent first, then numbers by value,
/// strings by code point, booleans (`false` first); values of different kinds by kind.
pub fn compare_values(left: Option<&Json>, right: Option<&Json>) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    fn kind(value: Option<&Json>) -> u8 {
        match value {
            None | Some(Json::Null) => 0,
            Some(Json::Bool(_)) => 1,
            Some(Json::Number(_)) => 2,
            Some(Json::String(_)) => 3,
            Some(Json::Array(_)) => 4,
            Some(Json::Object(_)) => 5,
        }
    }
    match (left, right) {
        (Some(Json::Number(a)), Some(Json::Number(b))) => {
            match (a.lossless_f64(), b.lossless_f64()) {
                (Some(x), Some(y)) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
                _ => a.as_str().cmp(b.as_str()),
            }
        }
        (Some(Json::String(a)), Some(Json::String(b))) => a.cmp(b),
        (Some(Json::Bool(a)), Some(Json::Bool(b))) => a.cmp(b),
        _ => kind(left).cmp(&kind(right)),
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

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::json::parse;

    fn entity(collection: &str, id: &str, fields: &str) -> Entity {
        Entity {
            entity_type: "/t".into(),
            collection: collection.into(),
            id: id.into(),
            fields: parse(fields.as_bytes()).expect("json"),
            view_fields: BTreeMap::new(),
            record_ordinals: Vec::new(),
        }
    }

    fn ids(state: &LiveState, collection: &str) -> Vec<String> {
        state
            .collection("/t", collection)
            .iter()
            .map(|entity| entity.id.clone())
            .collect()
    }

    #[test]
    fn a_collection_is_held_while_it_holds_an_entity() {
        let mut state = LiveState::new(vec![entity("/t/", "1", r#"{"id":1}"#)], Vec::new());
        assert!(state.holds_collection("/t", "/t"));
        assert!(!state.holds_collection("/t", "/u"));
        state.remove_entity("/t", "/t", "1");
        assert!(!state.holds_collection("/t", "/t/"));
        assert!(state.collection("/t", "/t").is_empty());
    }

    #[test]
    fn an_entity_is_created_here_while_held_after_a_served_create_noted_it() {
        let mut state = LiveState::new(vec![entity("/t/", "1", r#"{"id":1}"#)], Vec::new());
        let made = entity("/t/", "2", r#"{"id":2}"#);
        state.note_created(&made);
        state.insert_entity(made, &Position::Last);
        assert!(
            state.created_here("/t", "2"),
            "a trailing slash names the same collection"
        );
        assert!(!state.created_here("/t", "1"), "held by the Evidence");
        state.remove_entity("/t", "/t/", "2");
        assert!(!state.created_here("/t", "2"), "no longer held");
    }

    #[test]
    fn a_clone_shares_its_entities_and_writes_leave_the_other_copy_unchanged() {
        let initial = LiveState::new(
            vec![
                entity("/t", "1", r#"{"id":1,"n":5}"#),
                entity("/t", "2", r#"{"id":2,"n":3}"#),
            ],
            Vec::new(),
        );
        let mut live = initial.clone();
        let held =
            |state: &LiveState, id: &str| state.entity("/t", "/t", id).map(|e| e as *const Entity);
        // Cloning copies no entity (data/reset and the live state share the initial ones).
        assert_eq!(held(&initial, "1"), held(&live, "1"));
        assert!(live.update_entity(entity("/t", "1", r#"{"id":1,"n":6}"#), None));
        let removed = live.remove_entity("/t", "/t", "2").expect("held");
        assert_eq!(removed.fields, parse(br#"{"id":2,"n":3}"#).expect("json"));
        live.insert_entity(entity("/t", "3", r#"{"id":3}"#), &Position::Last);
        assert_eq!(ids(&live, "/t"), ["1", "3"]);
        assert_eq!(
            live.entity("/t", "/t", "1").map(|e| &e.fields),
            Some(&parse(br#"{"id":1,"n":6}"#).expect("json"))
        );
        // The initial copy is as it was.
        assert_eq!(ids(&initial, "/t"), ["1", "2"]);
        assert_eq!(
            initial.entity("/t", "/t", "1").map(|e| &e.fields),
            Some(&parse(br#"{"id":1,"n":5}"#).expect("json"))
        );
        assert_eq!(
            initial.entity("/t", "/t", "2").map(|e| &e.fields),
            Some(&parse(br#"{"id":2,"n":3}"#).expect("json"))
        );
    }

    #[test]
    fn writes_insert_move_and_remove_in_place() {
        // contract: WRITE-004, WRITE-025
        let mut state = LiveState::new(
            vec![
                entity("/t", "1", r#"{"id":1,"n":5}"#),
                entity("/t", "2", r#"{"id":2,"n":3}"#),
                entity("/u", "9", r#"{"id":9}"#),
            ],
            Vec::new(),
        );
        state.insert_entity(entity("/t", "3", r#"{"id":3,"n":4}"#), &Position::First);
        assert_eq!(ids(&state, "/t"), ["3", "1", "2"]);
        state.insert_entity(entity("/t", "4", r#"{"id":4,"n":9}"#), &Position::Last);
        assert_eq!(ids(&state, "/t"), ["3", "1", "2", "4"]);
        // The global order keeps collections where they were.
        let all: Vec<&str> = state.entities().map(|entity| entity.id.as_str()).collect();
        assert_eq!(all, ["3", "1", "2", "4", "9"]);
        let sorted = Position::Sorted {
            field: "n".into(),
            descending: true,
        };
        state.update_entity(entity("/t", "2", r#"{"id":2,"n":10}"#), Some(&sorted));
        assert_eq!(ids(&state, "/t")[0], "2");
        assert_eq!(state.position("/t", "/t", "2"), Some(0));
        assert!(state.remove_entity("/t", "/t/", "1").is_some());
        assert_eq!(ids(&state, "/t"), ["2", "3", "4"]);
        assert!(state.entity("/t", "/t", "1").is_none());
        // Many inserts at the front force renumbering without losing the order.
        for id in 100..200 {
            state.insert_entity(
                entity("/t", &id.to_string(), r#"{"id":0}"#),
                &Position::First,
            );
        }
        let order = ids(&state, "/t");
        assert_eq!(order[0], "199");
        assert_eq!(order[99], "100");
        assert_eq!(&order[100..], ["2", "3", "4"]);
        assert_eq!(state.len(), 104);
    }

    /// Applies the same sorted placements to a state keeping the sorted index and to one
    /// scanning, checking after each that both hold the collection in one order.
    fn place_both_ways(held: &[&str], descending: bool, writes: &[(&str, &str)]) {
        let start: Vec<Entity> = held
            .iter()
            .enumerate()
            .map(|(id, fields)| entity("/t", &id.to_string(), fields))
            .collect();
        let mut indexed = LiveState::new(start.clone(), Vec::new());
        let mut scanned = LiveState::new(start, Vec::new());
        indexed.keep_sorted("/t", "/t", "n", descending);
        let sorted = Position::Sorted {
            field: "n".into(),
            descending,
        };
        for (id, fields) in writes {
            for state in [&mut indexed, &mut scanned] {
                match *fields {
                    "-" => drop(state.remove_entity("/t", "/t", id)),
                    _ if state.entity("/t", "/t", id).is_some() => {
                        state.update_entity(entity("/t", id, fields), Some(&sorted));
                    }
                    _ => state.insert_entity(entity("/t", id, fields), &sorted),
                }
            }
            assert_eq!(
                ids(&indexed, "/t"),
                ids(&scanned, "/t"),
                "after {id} {fields}"
            );
        }
    }

    #[test]
    fn a_kept_sorted_index_places_as_the_scan_does() {
        let writes = [
            ("a", r#"{"n":4}"#),
            ("b", r#"{"n":4}"#),
            ("c", r#"{"n":-1}"#),
            ("d", r#"{}"#),
            ("e", r#"{"n":null}"#),
            ("f", r#"{"n":"text"}"#),
            ("g", r#"{"n":true}"#),
            ("h", r#"{"n":2.5}"#),
            ("1", r#"{"n":9}"#),
            ("a", r#"{"n":0}"#),
            ("c", "-"),
            ("i", r#"{"n":[1]}"#),
            ("j", r#"{"n":3}"#),
            ("i", "-"),
            ("k", r#"{"n":-0.0}"#),
            ("l", r#"{"n":0}"#),
        ];
        for descending in [false, true] {
            // Sorted from the start, and not (the index stands aside until it is).
            let ascending = [r#"{"n":1}"#, r#"{"n":3}"#, r#"{"n":5}"#, r#"{"n":7}"#];
            let mut held = ascending.to_vec();
            if descending {
                held.reverse();
            }
            place_both_ways(&held, descending, &writes);
            let unsorted = [r#"{"n":5}"#, r#"{"n":1}"#, r#"{"n":7}"#, r#"{"n":3}"#];
            place_both_ways(&unsorted, descending, &writes);
            let unsorted_until_removed = [("2", "-"), ("0", "-")];
            let writes: Vec<(&str, &str)> = unsorted_until_removed
                .iter()
                .chain(&writes)
                .copied()
                .collect();
            place_both_ways(&unsorted, descending, &writes);
        }
    }

    #[test]
    fn a_listing_row_speaks_until_its_key_is_held_or_written_and_never_for_a_loaded_state() {
        let key = |id: &str| ("/t".to_owned(), "/t".to_owned(), id.to_owned());
        let loaded = LiveState::new(vec![entity("/t", "held", "{}")], Vec::new());
        assert!(!loaded.listed_row_open(&key("row")));
        let mut state = loaded.clone();
        state.hold_listed_rows();
        assert!(state.listed_row_open(&key("row")));
        assert!(!state.listed_row_open(&key("held")), "an entity is held");
        state.remove_listed_row(&entity("/t", "row", "{}"));
        assert!(!state.listed_row_open(&key("row")), "removed once");
        assert!(state.written_below("/t"), "its collection is written");
        state.note_written_key(&key("other"));
        assert!(!state.listed_row_open(&key("other")), "a write created it");
        assert!(state.listed_row_open(&key("third")));
    }

    #[test]
    fn written_below_names_the_folders_at_and_above_a_written_collection() {
        let mut state = LiveState::new(vec![entity("/api/contents", "notes", "{}")], Vec::new());
        assert!(!state.written_below("/api/contents/notes"));
        state.put_entity(entity("/api/contents/notes/2026", "plan.md", "{}"));
        for folder in [
            "/api/contents/notes/2026",
            "/api/contents/notes",
            "/api/contents",
            "/",
        ] {
            assert!(state.written_below(folder), "{folder}");
        }
        // A sibling sharing the prefix's text, a file beside, and a folder below are not above.
        for other in [
            "/api/contents/note",
            "/api/contents/notes/2026/plan.md",
            "/api/contents/reports",
        ] {
            assert!(!state.written_below(other), "{other}");
        }
        // A trailing slash names the same folder.
        assert!(state.written_below("/api/contents/notes/"));
    }

    #[test]
    fn history_counts_new_collections_once() {
        // contract: DATA-029, DATA-030, DATA-031, DATA-033
        let mut state = LiveState::new(vec![entity("/t", "1", r#"{"id":1}"#)], Vec::new());
        assert_eq!(state.history_charge("/t", "/t", &["id".into()]), 0);
        let charge = state.history_charge("/t", "/t2", &["id".into()]);
        assert_eq!(charge, 3 + 64 + 3 + 2 + 64);
        state.charge_history("/t", "/t2", charge);
        assert_eq!(state.history_charge("/t", "/t2", &[]), 0);
        assert_eq!(state.history_score(), charge);
        // A known collection stays known after its entities go, so introducing it again charges
        // nothing (DATA-038 allows a charge; rea keeps every Evidence or loaded spelling until
        // the next reset or load).
        // contract: DATA-034, DATA-038
        state.remove_entity("/t", "/t", "1");
        assert_eq!(state.history_charge("/t", "/t", &[]), 0);
    }

    #[test]
    fn report_bytes_are_what_data_get_writes_after_every_change() {
        let types: Vec<EntityType> = Vec::new();
        let empty = LiveState::default()
            .to_document("ev_x", &types)
            .to_canonical_vec()
            .len();
        let written =
            |state: &LiveState| state.to_document("ev_x", &types).to_canonical_vec().len();
        let mut state = LiveState::new(
            vec![
                entity("/t", "1", r#"{"id":1}"#),
                entity("/t", "2", r#"{"id":2,"s":"ab"}"#),
            ],
            Vec::new(),
        );
        assert_eq!(state.report_bytes(empty), written(&state));
        state.insert_entity(
            entity("/t", "3", r#"{"id":3,"big":"xxxxxxxx"}"#),
            &Position::First,
        );
        assert_eq!(state.report_bytes(empty), written(&state));
        state.update_entity(entity("/t", "3", r#"{"id":3}"#), None);
        assert_eq!(state.report_bytes(empty), written(&state));
        state.put_entity(entity("/t", "1", r#"{"id":1,"n":"longer"}"#));
        assert_eq!(state.report_bytes(empty), written(&state));
        state.remove_entity("/t", "/t", "2");
        assert_eq!(state.report_bytes(empty), written(&state));
        let document = |value: &str| Document {
            view: "get_profile".into(),
            path: "/profile".into(),
            value: parse(value.as_bytes()).expect("json"),
            record_ordinal: Some(3),
        };
        state.put_document(document(r#"{"a":1}"#));
        assert_eq!(state.report_bytes(empty), written(&state));
        state.put_document(document(r#"{"a":"replaced"}"#));
        assert_eq!(state.report_bytes(empty), written(&state));
        for id in ["1", "3"] {
            state.remove_entity("/t", "/t", id);
        }
        assert_eq!(state.report_bytes(empty), written(&state));
    }

    #[test]
    fn initial_report_bytes_are_what_data_get_writes_for_the_initial_state() {
        let types: Vec<EntityType> = Vec::new();
        let entities = [
            entity("/t", "1", r#"{"id":1}"#),
            entity("/t", "2", r#"{"id":2,"s":"ab"}"#),
            entity("/u", "1", r#"{"id":1,"n":[1,2]}"#),
        ]
        .map(Arc::new);
        let document = |view: &str, value: &str| Document {
            view: view.into(),
            path: "/profile".into(),
            value: parse(value.as_bytes()).expect("json"),
            record_ordinal: Some(3),
        };
        for documents in [
            Vec::new(),
            vec![document("get_profile", r#"{"a":1}"#)],
            vec![
                document("get_profile", r#"{"a":1}"#),
                document("get_about", r#"{"b":"x"}"#),
                document("get_profile", r#"{"a":"replaced"}"#),
            ],
        ] {
            for entities in [&entities[..], &[]] {
                let written = LiveState::from_shared(entities.to_vec(), documents.clone())
                    .to_document("ev_x", &types)
                    .to_canonical_vec()
                    .len();
                assert_eq!(
                    initial_report_bytes("ev_x", &types, entities, &documents),
                    written
                );
            }
        }
    }
}

//! The held indexes: what a served write's rules ask about the collection it writes (the largest
//! integer held at a field, whether a value is held there, the strings held there), kept per
//! type, collection and field while the live state changes, so applying a rule never lists the
//! collection.
//!
//! A rule stage declares the kinds it asks about
//! ([`rea_plugin_api::contracts::rule::HeldIndexKind`]); the first served write of a plan builds
//! the indexes of those kinds for the top-level fields its rules explain, in the collection it
//! writes (one pass over the collection), and from then on every change of the live state
//! (create, update, delete, a dependent's change) updates them in place. A new live state
//! (`data/reset`, `data/add`) starts without indexes, which its first served write builds again.
//!
//! The host keeps two more kinds for itself: the distinct values of a field a create copies when
//! every held member shares one ([`SharedValues`], a plan's collection constants), and per type
//! and field the entities holding each value ([`Referrers`]: the entities a delete's learned
//! dependent effects change, found without walking the state), and per collection and field the
//! members in the field's order ([`SortedMembers`]: where a sorted placement puts a written
//! entity, found without scanning the collection while it is sorted).
//!
//! A rule's questions cross the ABI as a [`HeldAnswers`] object owning shared references to the
//! indexes (a stage called on its worker thread may outlive the write that asked, when it is
//! abandoned past its deadline); a change to an index still shared is made on a copy, and the
//! stage drops its reference before it answers, so the copy is never made in the normal course.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use rea_plugin_api::abi::{HeldIndex, HeldIndex_TO, HeldIndexBox};
use rea_plugin_api::abi_stable::sabi_trait::TD_Opaque;
use rea_plugin_api::abi_stable::std_types::{ROption, RStr, RString, RVec};
use rea_plugin_api::contracts::rule::{HeldIndexKind, held_integer, held_text};
use rea_plugin_api::json::Json;
use serde_json::Value;

use crate::render::scalar_text;

/// A collection's key in the indexes: its type and collection key.
pub type CollectionKey = (String, String);

/// What one top-level field of a collection holds, for the kinds asked of it: each value counted,
/// so a change that removes one of two equal values keeps it held.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FieldIndex {
    kinds: BTreeSet<HeldIndexKind>,
    integers: BTreeMap<i128, usize>,
    texts: HashMap<String, usize>,
    folded: HashMap<String, usize>,
    strings: BTreeMap<String, usize>,
}

/// A map of counted keys (a `HashMap` or a `BTreeMap`): a key counted out as often as in goes.
trait Counts<K> {
    fn change(&mut self, key: K, added: bool);
}

impl<K: Eq + std::hash::Hash> Counts<K> for HashMap<K, usize> {
    fn change(&mut self, key: K, added: bool) {
        if added {
            *self.entry(key).or_insert(0) += 1;
        } else if let Some(held) = self.get_mut(&key) {
            *held -= 1;
            if *held == 0 {
                self.remove(&key);
            }
        }
    }
}

impl<K: Ord> Counts<K> for BTreeMap<K, usize> {
    fn change(&mut self, key: K, added: bool) {
        if added {
            *self.entry(key).or_insert(0) += 1;
        } else if let Some(held) = self.get_mut(&key) {
            *held -= 1;
            if *held == 0 {
                self.remove(&key);
            }
        }
    }
}

impl FieldIndex {
    /// An index of `kinds` over the values a collection's members hold at the field.
    pub fn build<'a>(
        kinds: &BTreeSet<HeldIndexKind>,
        values: impl Iterator<Item = Option<&'a Json>>,
    ) -> Self {
        let mut index = Self {
            kinds: kinds.clone(),
            ..Self::default()
        };
        for value in values {
            index.change(value, true);
        }
        index
    }

    /// The kinds the index answers.
    pub fn kinds(&self) -> &BTreeSet<HeldIndexKind> {
        &self.kinds
    }

    /// Whether the index answers every one of `kinds`.
    pub fn answers(&self, kinds: &BTreeSet<HeldIndexKind>) -> bool {
        kinds.is_subset(&self.kinds)
    }

    /// Counts a member's value at the field in (`added`) or out.
    fn change(&mut self, value: Option<&Json>, added: bool) {
        let Some(value) = value else {
            return;
        };
        let value = value.to_serde_value().unwrap_or(Value::Null);
        for kind in &self.kinds {
            match kind {
                HeldIndexKind::LargestInteger => {
                    if let Some(integer) = held_integer(&value) {
                        self.integers.change(integer, added);
                    }
                }
                HeldIndexKind::Texts => {
                    if let Some(text) = held_text(&value) {
                        self.texts.change(text, added);
                    }
                }
                HeldIndexKind::FoldedTexts => {
                    if let Some(text) = value.as_str() {
                        self.folded.change(text.to_ascii_lowercase(), added);
                    }
                }
                HeldIndexKind::Strings => {
                    if let Some(text) = value.as_str() {
                        self.strings.change(text.to_owned(), added);
                    }
                }
                HeldIndexKind::Values => {}
            }
        }
    }

    /// The largest integer held.
    pub fn largest_integer(&self) -> Option<i128> {
        self.integers.keys().next_back().copied()
    }

    /// Whether a value spelled `text` is held.
    pub fn holds_text(&self, text: &str) -> bool {
        self.texts.contains_key(text)
    }

    /// Whether a string equal to `text` (ASCII case ignored) is held.
    pub fn holds_folded_text(&self, text: &str) -> bool {
        self.folded.contains_key(&text.to_ascii_lowercase())
    }

    /// The distinct strings held, sorted.
    pub fn strings(&self) -> impl Iterator<Item = &str> {
        self.strings.keys().map(String::as_str)
    }
}

/// The distinct values a collection's members hold at a top-level field (told apart by their
/// canonical text, which is JSON equality), and how many members lack it: whether every member
/// shares one value, which a create copies (a plan's collection constant).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SharedValues {
    values: HashMap<Vec<u8>, (Json, usize)>,
    absent: usize,
}

impl SharedValues {
    /// The values the members hold at the field.
    pub fn build<'a>(values: impl Iterator<Item = Option<&'a Json>>) -> Self {
        let mut shared = Self::default();
        for value in values {
            shared.change(value, true);
        }
        shared
    }

    fn change(&mut self, value: Option<&Json>, added: bool) {
        let Some(value) = value else {
            if added {
                self.absent += 1;
            } else {
                self.absent = self.absent.saturating_sub(1);
            }
            return;
        };
        let key = value.to_canonical_vec();
        if added {
            self.values
                .entry(key)
                .or_insert_with(|| (value.clone(), 0))
                .1 += 1;
        } else if let Some((_, held)) = self.values.get_mut(&key) {
            *held -= 1;
            if *held == 0 {
                self.values.remove(&key);
            }
        }
    }

    /// A held value of `value`'s canonical text (JSON equality up to spelling), when one is held:
    /// no such value means no member holds `value`.
    pub fn held_like(&self, value: &Json) -> Option<&Json> {
        self.values
            .get(&value.to_canonical_vec())
            .map(|(held, _)| held)
    }

    /// The value every member holds, when there are members and they all hold one value.
    pub fn shared(&self) -> Option<&Json> {
        match (self.absent, self.values.len()) {
            (0, 1) => self.values.values().next().map(|(value, _)| value),
            _ => None,
        }
    }
}

/// The held indexes of a live state: per collection, per top-level field, what rules ask
/// ([`FieldIndex`]) and what creates copy ([`SharedValues`]).
#[derive(Debug, Clone, Default)]
pub struct HeldIndexes {
    collections: HashMap<CollectionKey, BTreeMap<String, Arc<FieldIndex>>>,
    shared: HashMap<CollectionKey, BTreeMap<String, SharedValues>>,
}

impl HeldIndexes {
    /// The index of a collection's field, when one is kept.
    pub fn field(&self, collection: &CollectionKey, field: &str) -> Option<&Arc<FieldIndex>> {
        self.collections.get(collection)?.get(field)
    }

    /// Keeps `index` for a collection's field from now on.
    pub fn keep(&mut self, collection: CollectionKey, field: String, index: FieldIndex) {
        self.collections
            .entry(collection)
            .or_default()
            .insert(field, Arc::new(index));
    }

    /// The shared values of a collection's field, when they are kept.
    pub fn shared(&self, collection: &CollectionKey, field: &str) -> Option<&SharedValues> {
        self.shared.get(collection)?.get(field)
    }

    /// Keeps `values` for a collection's field from now on.
    pub fn keep_shared(&mut self, collection: CollectionKey, field: String, values: SharedValues) {
        self.shared
            .entry(collection)
            .or_default()
            .insert(field, values);
    }

    /// Counts a member's fields in (`added`) or out of its collection's indexes.
    pub fn change(&mut self, collection: &CollectionKey, fields: &Json, added: bool) {
        if let Some(indexes) = self.collections.get_mut(collection) {
            for (field, index) in indexes.iter_mut() {
                Arc::make_mut(index).change(fields.get(field), added);
            }
        }
        if let Some(shared) = self.shared.get_mut(collection) {
            for (field, values) in shared.iter_mut() {
                values.change(crate::writes::dependents::member_at(fields, field), added);
            }
        }
    }

    /// A member's fields changed from `before` to `after`: the fields whose value changed are
    /// counted again.
    pub fn replace(&mut self, collection: &CollectionKey, before: &Json, after: &Json) {
        let changed = |field: &str| {
            let (old, new) = (before.get(field), after.get(field));
            (old != new).then_some((old, new))
        };
        if let Some(indexes) = self.collections.get_mut(collection) {
            for (field, index) in indexes.iter_mut() {
                if let Some((old, new)) = changed(field) {
                    let index = Arc::make_mut(index);
                    index.change(old, false);
                    index.change(new, true);
                }
            }
        }
        if let Some(shared) = self.shared.get_mut(collection) {
            for (field, values) in shared.iter_mut() {
                if let Some((old, new)) = changed(field) {
                    values.change(old, false);
                    values.change(new, true);
                }
            }
        }
    }
}

/// Per entity type and top-level field, the held entities whose field holds each scalar value
/// (as text): what a delete's dependent effects look up instead of walking the state. Kept from
/// the first served delete with effects on the field, then updated as entities change.
#[derive(Debug, Clone, Default)]
pub struct Referrers {
    /// Type → field → value text → the entities holding it.
    types: HashMap<String, BTreeMap<String, ValueHolders>>,
}

/// Per value (as text), the entities holding it: (collection key, id).
type ValueHolders = HashMap<String, BTreeSet<(String, String)>>;

impl Referrers {
    /// Whether the field of a type is indexed.
    pub fn kept(&self, entity_type: &str, field: &str) -> bool {
        self.types
            .get(entity_type)
            .is_some_and(|fields| fields.contains_key(field))
    }

    /// Indexes the field of a type from now on, from its held `members`: (collection key, id,
    /// fields).
    pub fn keep<'a>(
        &mut self,
        entity_type: &str,
        field: &str,
        members: impl Iterator<Item = (&'a str, &'a str, &'a Json)>,
    ) {
        let mut values = ValueHolders::new();
        for (collection, id, fields) in members {
            if let Some(text) =
                crate::writes::dependents::member_at(fields, field).and_then(scalar_text)
            {
                values
                    .entry(text)
                    .or_default()
                    .insert((collection.to_owned(), id.to_owned()));
            }
        }
        self.types
            .entry(entity_type.to_owned())
            .or_default()
            .insert(field.to_owned(), values);
    }

    /// Counts an entity (type, collection key, id) with `fields` in (`added`) or out.
    pub fn change(&mut self, key: &(String, String, String), fields: &Json, added: bool) {
        if self.types.is_empty() {
            return;
        }
        let Some(indexed) = self.types.get_mut(&key.0) else {
            return;
        };
        for (field, values) in indexed.iter_mut() {
            let Some(text) =
                crate::writes::dependents::member_at(fields, field).and_then(scalar_text)
            else {
                continue;
            };
            let member = (key.1.clone(), key.2.clone());
            if added {
                values.entry(text).or_default().insert(member);
            } else if let Some(holding) = values.get_mut(&text) {
                holding.remove(&member);
                if holding.is_empty() {
                    values.remove(&text);
                }
            }
        }
    }

    /// The entities (collection key, id) of a type whose field holds `text`; `None` when the
    /// field is not indexed.
    pub fn referring(
        &self,
        entity_type: &str,
        field: &str,
        text: &str,
    ) -> Option<impl Iterator<Item = &(String, String)>> {
        let values = self.types.get(entity_type)?.get(field)?;
        Some(values.get(text).into_iter().flatten())
    }
}

/// A field's value as [`SortedMembers`] orders it: what `store::compare_values` orders totally
/// (absent or null, booleans, numbers exact as `f64`, strings, in that order).
#[derive(Debug, Clone)]
enum SortKey {
    Null,
    Bool(bool),
    Number(f64),
    Text(String),
}

impl SortKey {
    /// The key of a value; `None` for one the index cannot order (an array, an object, a
    /// number no `f64` holds exactly).
    fn of(value: Option<&Json>) -> Option<Self> {
        match value {
            None | Some(Json::Null) => Some(Self::Null),
            Some(Json::Bool(flag)) => Some(Self::Bool(*flag)),
            // `+ 0.0` makes `-0.0` the `0.0` it compares equal to.
            Some(Json::Number(number)) => number.lossless_f64().map(|x| Self::Number(x + 0.0)),
            Some(Json::String(text)) => Some(Self::Text(text.to_string())),
            Some(Json::Array(_) | Json::Object(_)) => None,
        }
    }

    fn rank(&self) -> u8 {
        match self {
            Self::Null => 0,
            Self::Bool(_) => 1,
            Self::Number(_) => 2,
            Self::Text(_) => 3,
        }
    }
}

impl Ord for SortKey {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        match (self, other) {
            (Self::Bool(a), Self::Bool(b)) => a.cmp(b),
            (Self::Number(a), Self::Number(b)) => a.total_cmp(b),
            (Self::Text(a), Self::Text(b)) => a.cmp(b),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

impl PartialOrd for SortKey {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for SortKey {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for SortKey {}

/// A collection's members ordered by a top-level field, ascending or descending, with how many
/// adjacent members of the collection's own order are out of that order. While the collection
/// is sorted by it (no adjacent pair out of order, every value orderable), where a sorted
/// placement puts an entity is a lookup here instead of a scan of the collection.
#[derive(Debug, Clone, Default)]
pub struct SortedMembers {
    descending: bool,
    /// (the value's key, directed, and the member's rank).
    members: BTreeSet<(Directed, u64)>,
    /// Adjacent pairs of the collection out of the field's order.
    inversions: usize,
    /// Members whose value the index cannot order.
    unorderable: usize,
}

/// A key in a [`SortedMembers`]' direction (reversed when descending).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Directed(SortKey, bool);

impl Ord for Directed {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        let ordering = self.0.cmp(&other.0);
        if self.1 { ordering.reverse() } else { ordering }
    }
}

impl PartialOrd for Directed {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// A member's rank and its value at the indexed field.
pub type Member<'a> = (u64, Option<&'a Json>);

impl SortedMembers {
    /// The index of a collection's members, given in collection order.
    pub fn build<'a>(descending: bool, members: impl Iterator<Item = Member<'a>>) -> Self {
        let mut index = Self {
            descending,
            ..Self::default()
        };
        let mut previous: Option<Option<&Json>> = None;
        for (rank, value) in members {
            index.count(value, rank, true);
            if let Some(previous) = previous {
                index.inversions += usize::from(index.inverted(previous, value));
            }
            previous = Some(value);
        }
        index
    }

    fn directed(&self, value: Option<&Json>) -> Option<Directed> {
        SortKey::of(value).map(|key| Directed(key, self.descending))
    }

    /// Whether `first` before `second` is out of the field's order (never for an unorderable
    /// value: those make the index unusable by themselves).
    fn inverted(&self, first: Option<&Json>, second: Option<&Json>) -> bool {
        match (self.directed(first), self.directed(second)) {
            (Some(first), Some(second)) => first > second,
            _ => false,
        }
    }

    fn count(&mut self, value: Option<&Json>, rank: u64, added: bool) {
        match self.directed(value) {
            Some(key) if added => {
                self.members.insert((key, rank));
            }
            Some(key) => {
                self.members.remove(&(key, rank));
            }
            None if added => self.unorderable += 1,
            None => self.unorderable -= 1,
        }
    }

    /// A member placed (`added`) between `previous` and `next` (its neighbours in collection
    /// order, when it has them), or removed from there.
    pub fn change(
        &mut self,
        (previous, next): (Option<Member<'_>>, Option<Member<'_>>),
        (rank, value): Member<'_>,
        added: bool,
    ) {
        self.count(value, rank, added);
        let mut with = 0;
        if let Some((_, previous)) = previous {
            with += usize::from(self.inverted(previous, value));
        }
        if let Some((_, next)) = next {
            with += usize::from(self.inverted(value, next));
        }
        let without = match (previous, next) {
            (Some((_, previous)), Some((_, next))) => usize::from(self.inverted(previous, next)),
            _ => 0,
        };
        if added {
            self.inversions = self.inversions + with - without;
        } else {
            self.inversions = self.inversions + without - with;
        }
    }

    /// Where a sorted placement puts an entity holding `value`: `Some(Some(rank))` before the
    /// member of that rank, `Some(None)` after every member; `None` when the collection is not
    /// sorted by the field (or holds a value the index cannot order), so only a scan can say.
    pub fn place(&self, value: Option<&Json>) -> Option<Option<u64>> {
        if self.inversions > 0 || self.unorderable > 0 {
            return None;
        }
        let key = self.directed(value)?;
        let after = (
            std::ops::Bound::Excluded((key, u64::MAX)),
            std::ops::Bound::Unbounded,
        );
        Some(self.members.range(after).next().map(|(_, rank)| *rank))
    }
}

/// The answers a served call's rule gets about the collection it writes: per pointer it
/// explains, the index of its top-level field and the largest value a sequence generated there.
#[derive(Debug, Default)]
pub struct HeldAnswers {
    fields: BTreeMap<String, (Arc<FieldIndex>, Option<i128>)>,
}

impl HeldAnswers {
    /// Answers about `pointer` from `index`, `sequence` being the largest value a sequence
    /// generated at its field.
    pub fn answer(&mut self, pointer: String, index: Arc<FieldIndex>, sequence: Option<i128>) {
        self.fields.insert(pointer, (index, sequence));
    }

    /// The answers as they cross the ABI.
    pub fn into_box(self) -> HeldIndexBox {
        HeldIndex_TO::from_value(self, TD_Opaque)
    }
}

impl HeldIndex for HeldAnswers {
    fn largest_integer(&self, pointer: RStr<'_>) -> ROption<RString> {
        let Some((index, sequence)) = self.fields.get(pointer.as_str()) else {
            return ROption::RNone;
        };
        index
            .largest_integer()
            .max(*sequence)
            .map(|largest| RString::from(largest.to_string()))
            .into()
    }

    fn holds_text(&self, pointer: RStr<'_>, text: RStr<'_>, ignore_case: bool) -> bool {
        let Some((index, sequence)) = self.fields.get(pointer.as_str()) else {
            return false;
        };
        if ignore_case {
            index.holds_folded_text(text.as_str())
        } else {
            index.holds_text(text.as_str())
                || sequence.is_some_and(|sequence| sequence.to_string() == text.as_str())
        }
    }

    fn strings(&self, pointer: RStr<'_>) -> RVec<RString> {
        self.fields
            .get(pointer.as_str())
            .map(|(index, _)| index.strings().map(RString::from).collect())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Entity;
    use crate::store::LiveState;
    use rea_plugin_api::contracts::rule::{Held, ServedCall};
    use serde_json::json;

    const ALL: [HeldIndexKind; 4] = [
        HeldIndexKind::LargestInteger,
        HeldIndexKind::Texts,
        HeldIndexKind::FoldedTexts,
        HeldIndexKind::Strings,
    ];

    fn kinds() -> BTreeSet<HeldIndexKind> {
        ALL.into_iter().collect()
    }

    fn item(id: &str, fields: Value) -> Entity {
        Entity {
            entity_type: "/items".into(),
            collection: "/items".into(),
            id: id.into(),
            fields: Json::from_serde_value(&fields),
            view_fields: BTreeMap::new(),
            record_ordinals: Vec::new(),
        }
    }

    /// A state of three items whose `id` and `key` fields are indexed.
    fn indexed_state() -> LiveState {
        let mut state = LiveState::new(
            vec![
                item("1", json!({"id": 1, "key": "AB-1"})),
                item("2", json!({"id": 2, "key": "ab-2"})),
                item("7", json!({"id": 7, "key": "1234567890"})),
            ],
            Vec::new(),
        );
        for field in ["id", "key"] {
            state.keep_held_index("/items", "/items", field, &kinds());
        }
        state
    }

    /// The kept index of a field, and one built from the members now: they must agree.
    fn kept_and_rebuilt(state: &LiveState, field: &str) -> (Arc<FieldIndex>, FieldIndex) {
        let kept = state.held_index("/items", "/items", field, &kinds());
        let members = state.collection("/items", "/items");
        let rebuilt = FieldIndex::build(&kinds(), members.iter().map(|e| e.fields.get(field)));
        (kept, rebuilt)
    }

    fn assert_kept(state: &LiveState) {
        for field in ["id", "key"] {
            let (kept, rebuilt) = kept_and_rebuilt(state, field);
            assert_eq!(*kept, rebuilt, "{field}");
        }
    }

    #[test]
    fn a_deleted_maximum_gives_way_to_the_next_largest_and_duplicates_are_counted() {
        let mut state = indexed_state();
        let largest = |state: &LiveState| {
            state
                .held_index("/items", "/items", "id", &kinds())
                .largest_integer()
        };
        assert_eq!(largest(&state), Some(7));
        state.insert_entity(item("9", json!({"id": 9})), &crate::store::Position::Last);
        assert_eq!(largest(&state), Some(9));
        state.remove_entity("/items", "/items", "9");
        assert_eq!(largest(&state), Some(7));
        // Two members holding 7: removing one keeps it held.
        state.insert_entity(item("x", json!({"id": "7"})), &crate::store::Position::Last);
        state.remove_entity("/items", "/items", "7");
        assert_eq!(largest(&state), Some(7));
        state.remove_entity("/items", "/items", "x");
        assert_eq!(largest(&state), Some(2));
        assert_kept(&state);
    }

    #[test]
    fn an_update_changing_a_unique_value_frees_the_old_one() {
        let mut state = indexed_state();
        let index = |state: &LiveState| state.held_index("/items", "/items", "key", &kinds());
        assert!(index(&state).holds_text("ab-2"));
        assert!(index(&state).holds_folded_text("AB-2"));
        assert!(!index(&state).holds_text("AB-2"));
        state.update_entity(item("2", json!({"id": 2, "key": "cd-3"})), None);
        assert!(!index(&state).holds_text("ab-2"));
        assert!(!index(&state).holds_folded_text("AB-2"));
        assert!(index(&state).holds_text("cd-3"));
        // A put replacing the member, and an update moving the entity, count it again too.
        state.put_entity(item("2", json!({"id": 2, "key": "ef-4"})));
        state.update_entity(
            item("1", json!({"id": 1, "key": "gh-5"})),
            Some(&crate::store::Position::First),
        );
        let strings: Vec<String> = index(&state).strings().map(str::to_owned).collect();
        assert_eq!(strings, ["1234567890", "ef-4", "gh-5"]);
        assert_kept(&state);
    }

    #[test]
    fn a_new_live_state_keeps_no_index_and_answers_from_its_members() {
        let mut state = indexed_state();
        state.insert_entity(item("8", json!({"id": 8})), &crate::store::Position::Last);
        let kept = state.held_index("/items", "/items", "id", &kinds());
        // What `data/reset` does: a new live state of the derived entities.
        let reset = LiveState::new(
            vec![item("1", json!({"id": 1})), item("2", json!({"id": 2}))],
            Vec::new(),
        );
        let answered = reset.held_index("/items", "/items", "id", &kinds());
        assert_eq!(kept.largest_integer(), Some(8));
        assert_eq!(answered.largest_integer(), Some(2));
        // The index handed out before a change keeps answering what it answered (a stage
        // abandoned past its deadline may still hold it); the state's own moves on.
        state.remove_entity("/items", "/items", "8");
        assert_eq!(kept.largest_integer(), Some(8));
        assert_kept(&state);
    }

    #[test]
    fn a_shared_value_holds_while_every_member_holds_it() {
        let mut state = LiveState::new(
            vec![
                item("1", json!({"id": 1, "owner": {"a": 1, "b": 2}})),
                item("2", json!({"id": 2, "owner": {"b": 2, "a": 1}})),
            ],
            Vec::new(),
        );
        state.keep_shared_index("/items", "/items", "owner");
        let shared = |state: &LiveState| {
            state
                .shared_value("/items", "/items", "owner")
                .map(|value| value.to_canonical_string())
        };
        // Members in another order are the same JSON value.
        assert_eq!(shared(&state).as_deref(), Some(r#"{"a":1,"b":2}"#));
        state.insert_entity(item("3", json!({"id": 3})), &crate::store::Position::Last);
        assert_eq!(shared(&state), None);
        state.update_entity(item("3", json!({"id": 3, "owner": 7})), None);
        assert_eq!(shared(&state), None);
        state.remove_entity("/items", "/items", "3");
        assert_eq!(shared(&state).as_deref(), Some(r#"{"a":1,"b":2}"#));
        for id in ["1", "2"] {
            state.remove_entity("/items", "/items", id);
        }
        assert_eq!(shared(&state), None);
        // A state keeping none answers from its members alike.
        let unkept = LiveState::new(
            vec![
                item("1", json!({"id": 1, "owner": 7})),
                item("2", json!({"id": 2, "owner": 7})),
            ],
            Vec::new(),
        );
        assert_eq!(
            unkept
                .shared_value("/items", "/items", "owner")
                .map(|value| value.to_canonical_string())
                .as_deref(),
            Some("7")
        );
    }

    #[test]
    fn a_held_value_is_told_by_the_kept_shared_values_as_by_the_members() {
        let members = || {
            vec![
                item(
                    "1",
                    json!({"id": 1, "title": "taken", "owner": {"a": 1, "b": 2}}),
                ),
                item("2", json!({"id": 2, "title": "also", "rank": 1.0})),
            ]
        };
        let mut kept = LiveState::new(members(), Vec::new());
        for field in ["title", "owner", "rank"] {
            kept.keep_shared_index("/items", "/items", field);
        }
        let mut unkept = LiveState::new(members(), Vec::new());
        let probes = [
            ("title", json!("taken")),
            ("title", json!("free")),
            ("title", json!(1)),
            ("owner", json!({"b": 2, "a": 1})),
            ("owner", json!({"a": 1})),
            ("rank", json!(1.0)),
            ("rank", json!(1)),
            ("absent", json!("taken")),
        ];
        let agree = |kept: &LiveState, unkept: &LiveState| {
            probes
                .iter()
                .map(|(field, value)| {
                    let value = Json::from_serde_value(value);
                    let held = kept.holds_value("/items", "/items", field, &value);
                    assert_eq!(
                        held,
                        unkept.holds_value("/items", "/items", field, &value),
                        "{field}: {value:?}"
                    );
                    held
                })
                .collect::<Vec<bool>>()
        };
        assert_eq!(
            agree(&kept, &unkept),
            [true, false, false, true, false, true, false, false]
        );
        for state in [&mut kept, &mut unkept] {
            state.update_entity(item("1", json!({"id": 1, "title": "free"})), None);
            state.remove_entity("/items", "/items", "2");
        }
        assert_eq!(
            agree(&kept, &unkept),
            [false, true, false, false, false, false, false, false]
        );
    }

    #[test]
    fn the_answers_are_those_the_listed_values_gave() {
        // What the host listed before held indexes (every value, then the sequence's largest)
        // and what the index answers must agree for every question.
        let values = [
            json!(41),
            json!("0042"),
            json!("Key-A"),
            json!(1_795_950_607_203_114_u64),
            json!("1795950612000001"),
            json!(2.5),
            json!(null),
            json!({"nested": 1}),
        ];
        let members: Vec<Json> = values.iter().map(Json::from_serde_value).collect();
        let index = FieldIndex::build(&kinds(), members.iter().map(Some));
        let mut answers = HeldAnswers::default();
        answers.answer("/id".into(), Arc::new(index), Some(50));
        let indexed = ServedCall {
            held: Held::from_index(answers.into_box()),
            ..ServedCall::default()
        };
        let mut listed_values = values.to_vec();
        listed_values.push(json!(50));
        let listed = ServedCall {
            held_values: [("/id".to_owned(), listed_values)].into(),
            ..ServedCall::default()
        };
        for call in [&indexed, &listed] {
            assert_eq!(call.largest_integer("/id"), Some(1_795_950_612_000_001));
            assert_eq!(call.largest_integer("/other"), None);
            assert_eq!(
                call.held_strings("/id"),
                ["0042", "1795950612000001", "Key-A"]
            );
        }
        let texts = [
            "41",
            "0042",
            "42",
            "key-a",
            "Key-A",
            "1795950607203114",
            "1795950612000001",
            "2.5",
            "50",
            "null",
        ];
        for text in texts {
            for pointer in ["/id", "/other"] {
                assert_eq!(
                    indexed.holds_text(pointer, text),
                    listed.holds_text(pointer, text),
                    "{pointer} {text}"
                );
                assert_eq!(
                    indexed.holds_folded_text(pointer, text),
                    listed.holds_folded_text(pointer, text),
                    "{pointer} {text} ignoring case"
                );
            }
        }
        assert!(indexed.holds_text("/id", "50"));
        // Below every held integer, the sequence's largest is the answer.
        let mut answers = HeldAnswers::default();
        let small = FieldIndex::build(&kinds(), members[..2].iter().map(Some));
        answers.answer("/id".into(), Arc::new(small), Some(50));
        let call = ServedCall {
            held: Held::from_index(answers.into_box()),
            ..ServedCall::default()
        };
        assert_eq!(call.largest_integer("/id"), Some(50));
        assert!(indexed.holds_folded_text("/id", "KEY-A"));
        assert!(!indexed.holds_folded_text("/id", "41"));
    }
}

//! Inverse linkages: a parent's array of identifiers listing exactly the children whose to-one
//! linkage names it (a JSON:API author's `relationships.books.data` listing the books whose
//! `relationships.author.data` is `{"type": "Author", "id": …}`), with a count beside it
//! (`relationships.books.meta.count`, `relationships.tasks.meta.results.returned`), learned from
//! the held entities when every parent and every child agree, and kept as children change: a
//! child whose linkage moves, appears or goes
//! leaves its old parent's array and joins its new parent's (in id order when every learned
//! array listed its children in id order and no read after a write showed one out of it,
//! [`appended`]; else last), the count following the array.
//!
//! An identifier names an entity when each of its members is a scalar equal, as text, to the
//! entity's member of that name (`type`, `id`); a linkage is an object holding only such members.
//! The arrays may list bare ids instead, each child's linkage then a scalar equal to its parent's
//! id (a directus project's `tasks: [1, 3, 7]` beside each task's `project: 1`).

use std::collections::{BTreeMap, HashMap};

use rea_plugin_api::json::{Json, Object, escape_pointer_segment};
use serde::{Deserialize, Serialize};

use crate::model::Entity;
use crate::render::scalar_text;

/// One learned inverse linkage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct InverseLink {
    /// The children's type and the pointer of their linkage object (`/relationships/author/data`).
    pub child_type: String,
    pub linkage: String,
    /// The parents' type and the pointer of their identifier array (`/relationships/books/data`).
    pub parent_type: String,
    pub list: String,
    /// The pointer of the count of that array, when the parents show one.
    pub count: Option<String>,
    /// How the array spells each child.
    pub entry: EntryForm,
    /// Every parent listed its children in ascending id order.
    pub sorted: bool,
}

/// How a parent's array spells a child, and so how a child's linkage names its parent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum EntryForm {
    /// An identifier object holding these members (`{"type": "Book", "id": "1"}`), the linkage an
    /// object naming the parent the same way.
    Identifier(Vec<String>),
    /// The child's id itself, a JSON number when `numeric` (`[1, 3, 7]`), the linkage a scalar
    /// equal to the parent's id.
    Bare { numeric: bool },
    /// The child's record itself, over these members, its identity member `id_key` and every
    /// nested record the child holds spelled by that record's `id_key` member (a Sails
    /// project's `tasks: [{"id": 1, "title": …, "project": 1}]` beside each task's populated
    /// `project: {"id": 1, "name": …}`), the linkage an object or a bare id naming the parent.
    Embedded { keys: Vec<String>, id_key: String },
}

/// A parents' array a read after a write showed out of id order, though every seeded array
/// listed its children in id order: the application puts a joining child last, so the link
/// learned there is not sorted (see [`appended`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppendedList {
    /// The parents' type.
    pub parent_type: String,
    /// The pointer of their identifier array.
    pub list: String,
}

/// The links the held entities agree on, listed in id order there, whose array some object of
/// the shown bodies (the answers of reads after a write, at any depth) holds naming held children
/// out of id order (see [`AppendedList`]).
pub(crate) fn appended<'a>(
    entities: impl Iterator<Item = &'a Entity> + Clone,
    shown: &[&Json],
) -> Vec<AppendedList> {
    let mut by_id: HashMap<&str, Vec<&Entity>> = HashMap::new();
    for entity in entities.clone() {
        by_id.entry(entity.id.as_str()).or_default().push(entity);
    }
    learn(entities)
        .into_iter()
        .filter(|link| link.sorted)
        .filter(|link| {
            let unsorted = |items: &[Json]| {
                let ids: Vec<&str> = items
                    .iter()
                    .filter(|item| link.spelled(item))
                    .filter_map(|item| link.entity_named(item, &by_id))
                    .filter(|child| child.entity_type == link.child_type)
                    .map(|child| child.id.as_str())
                    .collect();
                ids.len() == items.len()
                    && !ids
                        .windows(2)
                        .all(|pair| id_order(pair[0]) < id_order(pair[1]))
            };
            shown
                .iter()
                .any(|body| holds_array(body, &link.list, &unsorted))
        })
        .map(|link| AppendedList {
            parent_type: link.parent_type,
            list: link.list,
        })
        .collect()
}

/// The [`appended`] lists the successful reads after the first write show.
pub(crate) fn appended_after_writes(
    timeline: &crate::observation::Timeline,
    entities: &[std::sync::Arc<Entity>],
) -> Vec<AppendedList> {
    let shown: Vec<&Json> = timeline
        .ordered
        .iter()
        .filter_map(|ordinal| timeline.get(*ordinal))
        .filter(|read| {
            read.position >= timeline.cutoff
                && matches!(read.method.as_str(), "GET" | "HEAD")
                && read.is_success()
        })
        .filter_map(|read| read.body.as_ref())
        .collect();
    if shown.is_empty() {
        return Vec::new();
    }
    appended(entities.iter().map(|entity| &**entity), &shown)
}

/// Whether an object of `value` (itself, or one at any depth) holds an array at `list` that
/// `test` accepts.
fn holds_array(value: &Json, list: &str, test: &dyn Fn(&[Json]) -> bool) -> bool {
    match value {
        Json::Object(object) => {
            value
                .pointer(list)
                .and_then(Json::as_array)
                .is_some_and(|items| test(items))
                || object
                    .iter()
                    .any(|(_, member)| holds_array(member, list, test))
        }
        Json::Array(items) => items.iter().any(|item| holds_array(item, list, test)),
        _ => false,
    }
}

/// The text of a number or a string (a bare id; never a boolean).
fn bare_id(value: &Json) -> Option<String> {
    match value {
        Json::Number(_) | Json::String(_) => scalar_text(value),
        _ => None,
    }
}

/// Whether every member of `identifier` is a scalar equal, as text, to the same member of
/// `fields`.
fn names(identifier: &Object, fields: &Json) -> bool {
    !identifier.is_empty()
        && identifier.iter().all(|(key, value)| {
            scalar_text(value).is_some_and(|text| {
                fields.get(key).and_then(scalar_text).as_deref() == Some(text.as_str())
            })
        })
}

/// The arrays of objects of scalars, or of bare ids, in `fields` (depth at most three), by
/// pointer.
fn identifier_arrays<'a>(
    value: &'a Json,
    at: String,
    depth: usize,
    found: &mut Vec<(String, &'a [Json])>,
) {
    match value {
        Json::Object(object) if depth < 4 => {
            for (key, member) in object.iter() {
                let pointer = format!("{at}/{}", escape_pointer_segment(key));
                identifier_arrays(member, pointer, depth + 1, found);
            }
        }
        Json::Array(items)
            if !at.is_empty()
                && (items.iter().all(|item| matches!(item, Json::Object(_)))
                    || items.iter().all(|item| bare_id(item).is_some())) =>
        {
            found.push((at, items.as_slice()));
        }
        _ => {}
    }
}

/// The pointers of the objects in `fields` naming `parent` (depth at most three).
fn linkages(value: &Json, at: String, depth: usize, parent: &Json, found: &mut Vec<String>) {
    let Json::Object(object) = value else {
        return;
    };
    if !at.is_empty() && names(object, parent) {
        found.push(at);
        return;
    }
    if depth < 4 {
        for (key, member) in object.iter() {
            let pointer = format!("{at}/{}", escape_pointer_segment(key));
            linkages(member, pointer, depth + 1, parent, found);
        }
    }
}

/// The pointers of the bare ids in `fields` equal to `id` (depth at most three, outside arrays).
fn bare_linkages(value: &Json, at: String, depth: usize, id: &str, found: &mut Vec<String>) {
    match value {
        Json::Object(object) if depth < 4 => {
            for (key, member) in object.iter() {
                let pointer = format!("{at}/{}", escape_pointer_segment(key));
                bare_linkages(member, pointer, depth + 1, id, found);
            }
        }
        _ if !at.is_empty() && bare_id(value).as_deref() == Some(id) => found.push(at),
        _ => {}
    }
}

/// The one entity of `by_id` an identifier names, looked up by each of its scalar members.
fn named_in<'a>(identifier: &Object, by_id: &HashMap<&str, Vec<&'a Entity>>) -> Option<&'a Entity> {
    let mut named = identifier
        .iter()
        .filter_map(|(_, value)| scalar_text(value))
        .filter_map(|text| by_id.get(text.as_str()))
        .flatten()
        .filter(|entity| names(identifier, &entity.fields));
    let first = named.next()?;
    named
        .all(|other| std::ptr::eq(*other, *first))
        .then_some(*first)
}

/// The numeric text of an id, for ordering.
fn id_order(id: &str) -> (bool, i128, String) {
    match id.parse::<i128>() {
        Ok(number) => (false, number, String::new()),
        Err(_) => (true, 0, id.to_owned()),
    }
}

/// A candidate link: (parent type, list pointer, child type, linkage pointer).
type Candidate = (String, String, String, String);

/// Learns the inverse linkages the held entities agree on (see the module docs).
pub(crate) fn learn<'a>(entities: impl Iterator<Item = &'a Entity> + Clone) -> Vec<InverseLink> {
    let mut by_id: HashMap<&str, Vec<&Entity>> = HashMap::new();
    for entity in entities.clone() {
        by_id.entry(entity.id.as_str()).or_default().push(entity);
    }
    let mut candidates: BTreeMap<Candidate, EntryForm> = BTreeMap::new();
    for parent in entities.clone() {
        candidates_of(parent, &by_id, &mut candidates);
    }
    candidates
        .into_iter()
        .filter_map(|((parent_type, list, child_type, linkage), entry)| {
            let link = InverseLink {
                child_type,
                linkage,
                parent_type,
                list,
                count: None,
                entry,
                sorted: true,
            };
            link.verified(entities.clone())
        })
        .collect()
}

/// The candidate links one parent's arrays suggest, each from the child its first entry names.
fn candidates_of(
    parent: &Entity,
    by_id: &HashMap<&str, Vec<&Entity>>,
    candidates: &mut BTreeMap<Candidate, EntryForm>,
) {
    let mut arrays = Vec::new();
    identifier_arrays(&parent.fields, String::new(), 0, &mut arrays);
    for (list, items) in arrays {
        let Some(first) = items.first() else {
            continue;
        };
        for (child, linkage, entry) in listed_children(first, parent, by_id) {
            let key = (
                parent.entity_type.clone(),
                list.clone(),
                child.entity_type.clone(),
                linkage,
            );
            candidates.entry(key).or_insert(entry);
        }
    }
}

/// The children an array's entry may name, each with the pointer of a member of it naming
/// `parent` and the entry's form: the one entity an identifier names, or every other entity of
/// a bare id.
fn listed_children<'a>(
    first: &Json,
    parent: &Entity,
    by_id: &HashMap<&str, Vec<&'a Entity>>,
) -> Vec<(&'a Entity, String, EntryForm)> {
    let mut listed = Vec::new();
    if let Json::Object(entry) = first {
        let Some(child) = named_in(entry, by_id) else {
            return embedded_children(entry, parent, by_id);
        };
        let mut found = Vec::new();
        linkages(&child.fields, String::new(), 0, &parent.fields, &mut found);
        let form = EntryForm::Identifier(entry.keys().map(str::to_owned).collect());
        listed.extend(found.into_iter().map(|at| (child, at, form.clone())));
    } else if let Some(text) = bare_id(first) {
        let form = EntryForm::Bare {
            numeric: matches!(first, Json::Number(_)),
        };
        let others = by_id.get(text.as_str()).into_iter().flatten();
        for child in others.filter(|child| !std::ptr::eq(**child, parent)) {
            let mut found = Vec::new();
            bare_linkages(&child.fields, String::new(), 0, &parent.id, &mut found);
            listed.extend(found.into_iter().map(|at| (*child, at, form.clone())));
        }
    }
    listed
}

/// The children an embedded record may be (see [`EntryForm::Embedded`]): every other entity
/// whose member of some key equals the record's scalar member of that key, each with the
/// pointer of a member of it naming `parent` (an object naming it, or its bare id).
fn embedded_children<'a>(
    entry: &Object,
    parent: &Entity,
    by_id: &HashMap<&str, Vec<&'a Entity>>,
) -> Vec<(&'a Entity, String, EntryForm)> {
    let mut listed = Vec::new();
    let keys: Vec<String> = entry.keys().map(str::to_owned).collect();
    for (key, value) in entry.iter() {
        let Some(text) = bare_id(value) else {
            continue;
        };
        let others = by_id.get(text.as_str()).into_iter().flatten();
        for child in others.filter(|child| !std::ptr::eq(**child, parent)) {
            if child.fields.get(key).and_then(bare_id).as_deref() != Some(text.as_str()) {
                continue;
            }
            let mut found = Vec::new();
            linkages(&child.fields, String::new(), 0, &parent.fields, &mut found);
            let mut bare = Vec::new();
            bare_linkages(&child.fields, String::new(), 0, &parent.id, &mut bare);
            // An id inside a record naming the parent is that record's, not a linkage.
            bare.retain(|at| {
                !found
                    .iter()
                    .any(|record| at.starts_with(&format!("{record}/")))
            });
            found.extend(bare);
            let form = EntryForm::Embedded {
                keys: keys.clone(),
                id_key: key.to_owned(),
            };
            listed.extend(found.into_iter().map(|at| (*child, at, form.clone())));
        }
    }
    listed
}

impl InverseLink {
    /// This link when every parent lists exactly the children naming it (at least two in all),
    /// with its count pointer and order learned; `None` otherwise.
    fn verified<'a>(mut self, entities: impl Iterator<Item = &'a Entity> + Clone) -> Option<Self> {
        let of_type = |entity_type: &str| -> HashMap<&'a str, Vec<&'a Entity>> {
            let mut by_id: HashMap<&str, Vec<&Entity>> = HashMap::new();
            for entity in entities.clone().filter(|e| e.entity_type == entity_type) {
                by_id.entry(entity.id.as_str()).or_default().push(entity);
            }
            by_id
        };
        let (parents, children) = (of_type(&self.parent_type), of_type(&self.child_type));
        // Per parent id, the children whose linkage names it; every linkage an object naming a
        // held parent, or null.
        let mut naming: HashMap<&str, Vec<&str>> = HashMap::new();
        for child in children.values().flatten() {
            match child.fields.pointer(&self.linkage)? {
                Json::Null => {}
                link => {
                    let parent = self.entity_named(link, &parents)?;
                    naming
                        .entry(parent.id.as_str())
                        .or_default()
                        .push(&child.id);
                }
            }
        }
        let mut lengths = Vec::new();
        for parent in parents.values().flatten() {
            let items = parent.fields.pointer(&self.list)?.as_array()?;
            let mut shown = Vec::new();
            for item in items.iter().filter(|item| self.spelled(item)) {
                let child = self.entity_named(item, &children)?;
                if matches!(self.entry, EntryForm::Embedded { .. })
                    && self.entry_of(child).as_ref() != Some(item)
                {
                    return None;
                }
                shown.push(child.id.as_str());
            }
            if shown.len() != items.len() {
                return None;
            }
            self.sorted &= shown
                .windows(2)
                .all(|pair| id_order(pair[0]) < id_order(pair[1]));
            let mut listed = naming.remove(parent.id.as_str()).unwrap_or_default();
            listed.sort_unstable();
            let length = shown.len();
            shown.sort_unstable();
            if listed != shown {
                return None;
            }
            lengths.push((parent, length));
        }
        if lengths.iter().map(|(_, length)| length).sum::<usize>() < 2 {
            return None;
        }
        lengths.sort_by_key(|(parent, _)| parent.id.as_str());
        self.count = count_pointer(&self.list, &lengths);
        Some(self)
    }

    /// The one entity of `by_id` a linkage or an array entry names (an identifier object, or a
    /// bare id).
    fn entity_named<'e>(
        &self,
        named: &Json,
        by_id: &HashMap<&str, Vec<&'e Entity>>,
    ) -> Option<&'e Entity> {
        match &self.entry {
            EntryForm::Identifier(_) => named_in(named.as_object()?, by_id),
            EntryForm::Bare { .. } => match by_id.get(bare_id(named)?.as_str())?.as_slice() {
                [one] => Some(*one),
                _ => None,
            },
            EntryForm::Embedded { id_key, .. } => {
                let id = match named {
                    Json::Object(record) => record.get(id_key).and_then(bare_id)?,
                    _ => bare_id(named)?,
                };
                match by_id.get(id.as_str())?.as_slice() {
                    [one] => Some(*one),
                    _ => None,
                }
            }
        }
    }

    /// Whether an array entry has the learned form (a bare id of the learned JSON type).
    fn spelled(&self, item: &Json) -> bool {
        match &self.entry {
            EntryForm::Identifier(_) | EntryForm::Embedded { .. } => {
                matches!(item, Json::Object(_))
            }
            EntryForm::Bare { numeric } => {
                bare_id(item).is_some() && matches!(item, Json::Number(_)) == *numeric
            }
        }
    }

    /// The linkage a child holds (`None`: null, absent, or not of the learned form).
    fn parent_named<'e>(&self, child: &'e Entity) -> Option<&'e Json> {
        let named = child.fields.pointer(&self.linkage)?;
        match &self.entry {
            EntryForm::Identifier(_) => matches!(named, Json::Object(_)),
            EntryForm::Bare { .. } => bare_id(named).is_some(),
            EntryForm::Embedded { .. } => {
                matches!(named, Json::Object(_)) || bare_id(named).is_some()
            }
        }
        .then_some(named)
    }

    /// Whether a linkage names `parent`.
    fn names_parent(&self, named: &Json, parent: &Entity) -> bool {
        match &self.entry {
            EntryForm::Identifier(_) => named
                .as_object()
                .is_some_and(|named| names(named, &parent.fields)),
            EntryForm::Bare { .. } => bare_id(named).as_deref() == Some(parent.id.as_str()),
            EntryForm::Embedded { id_key, .. } => match named {
                Json::Object(record) => {
                    record.get(id_key).and_then(bare_id).as_deref() == Some(parent.id.as_str())
                        || names(record, &parent.fields)
                }
                _ => bare_id(named).as_deref() == Some(parent.id.as_str()),
            },
        }
    }

    /// The entry of a child as the parents' arrays spell it.
    fn entry_of(&self, child: &Entity) -> Option<Json> {
        match &self.entry {
            EntryForm::Identifier(keys) => {
                let mut entry = Object::new();
                for key in keys {
                    entry.insert(key, child.fields.get(key)?.clone());
                }
                Some(Json::Object(entry))
            }
            EntryForm::Bare { numeric: true } => Json::parse(child.id.as_bytes())
                .ok()
                .filter(|id| matches!(id, Json::Number(_))),
            EntryForm::Bare { numeric: false } => Some(Json::String(child.id.clone().into())),
            EntryForm::Embedded { keys, id_key } => {
                let mut entry = Object::new();
                for key in keys {
                    let value = match child.fields.get(key)? {
                        Json::Object(record) => match record.get(id_key) {
                            Some(id) if bare_id(id).is_some() => id.clone(),
                            _ => Json::Object(record.clone()),
                        },
                        value => value.clone(),
                    };
                    entry.insert(key, value);
                }
                Some(Json::Object(entry))
            }
        }
    }

    /// The id an array entry shows: the bare id, or the member of an identifier `key` names
    /// (the one holding the child's id).
    fn shown_id(&self, item: &Json, key: Option<&String>) -> Option<String> {
        match &self.entry {
            EntryForm::Identifier(_) => item.get(key?).and_then(scalar_text),
            EntryForm::Bare { .. } => bare_id(item),
            EntryForm::Embedded { id_key, .. } => item.get(id_key).and_then(scalar_text),
        }
    }
}

/// The pointer of a number beside the array (inside the object holding it, down to three
/// levels: `meta.count`, `meta.results.returned`) equal to its length in every parent, the
/// lengths not all equal.
fn count_pointer(list: &str, lengths: &[(&&Entity, usize)]) -> Option<String> {
    let (holder, _) = list.rsplit_once('/')?;
    let (first, _) = lengths.first()?;
    let mut numbers = Vec::new();
    number_leaves(
        first.fields.pointer(holder)?,
        holder.to_owned(),
        0,
        &mut numbers,
    );
    let distinct = lengths.iter().any(|(_, len)| *len != lengths[0].1);
    numbers.into_iter().find(|pointer| {
        distinct
            && lengths.iter().all(|(parent, len)| {
                parent.fields.pointer(pointer).and_then(scalar_text) == Some(len.to_string())
            })
    })
}

fn number_leaves(value: &Json, at: String, depth: usize, found: &mut Vec<String>) {
    match value {
        Json::Number(_) => found.push(at),
        Json::Object(object) if depth < 3 => {
            for (key, member) in object.iter() {
                number_leaves(
                    member,
                    format!("{at}/{}", escape_pointer_segment(key)),
                    depth + 1,
                    found,
                );
            }
        }
        _ => {}
    }
}

/// How a child's change edits one parent's array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Relist {
    /// The child leaves the array.
    Leave,
    /// The child joins the array (in id order when it is sorted, else last).
    Join,
    /// The child's embedded record is replaced where it stands (its parent unchanged).
    Refresh,
}

/// The parents a child's change moves it between, each as it is after the change: the child
/// (`before` → `after`; `None` where it did not or no longer exists) leaves the array of the
/// parent its old linkage named and joins that of the parent its new linkage names; an array
/// embedding the child's record is refreshed when the child stays with its parent.
pub(crate) fn moved_parents<'a>(
    links: &[InverseLink],
    held: impl Fn(&str) -> Vec<&'a Entity>,
    (before, after): (Option<&Entity>, Option<&Entity>),
) -> Vec<Entity> {
    let Some(child) = after.or(before) else {
        return Vec::new();
    };
    let mut changed: Vec<Entity> = Vec::new();
    for link in links
        .iter()
        .filter(|link| link.child_type == child.entity_type)
    {
        let old = before.and_then(|before| link.parent_named(before));
        let new = after.and_then(|after| link.parent_named(after));
        let Some(entry) = link.entry_of(child) else {
            continue;
        };
        let mut edit = |named: &Json, relist: Relist| {
            let found = changed.iter().position(|parent| {
                parent.entity_type == link.parent_type && link.names_parent(named, parent)
            });
            let mut parent = match found {
                Some(index) => changed.remove(index),
                None => match held(&link.parent_type)
                    .into_iter()
                    .find(|parent| link.names_parent(named, parent))
                {
                    Some(parent) => parent.clone(),
                    None => return,
                },
            };
            link.relist(&mut parent, (&entry, &child.id), relist);
            changed.push(parent);
        };
        match link.stays(old, new, &held) {
            Some(true) => edit(new.unwrap_or(&Json::Null), Relist::Refresh),
            Some(false) => {}
            None => {
                if let Some(old) = old {
                    edit(old, Relist::Leave);
                }
                if let Some(new) = new {
                    edit(new, Relist::Join);
                }
            }
        }
    }
    changed
}

impl InverseLink {
    /// Whether the child stays with its parent: `Some(true)` when an embedding array is to be
    /// refreshed, `Some(false)` when nothing changes, `None` when it moves.
    fn stays<'a>(
        &self,
        old: Option<&Json>,
        new: Option<&Json>,
        held: &impl Fn(&str) -> Vec<&'a Entity>,
    ) -> Option<bool> {
        let embedded = matches!(self.entry, EntryForm::Embedded { .. });
        let (Some(old), Some(new)) = (old, new) else {
            return (old == new).then_some(false);
        };
        let same = old == new
            || (embedded
                && held(&self.parent_type).into_iter().any(|parent| {
                    self.names_parent(old, parent) && self.names_parent(new, parent)
                }));
        same.then_some(embedded)
    }

    /// A parent's array with the child's entry taken out, then (when joining) put in: before
    /// the first entry of a greater id (the bare id, or the entry's member holding the child's
    /// id) when the arrays are sorted, else last; or (when refreshing) put back where it stood.
    fn relist(&self, parent: &mut Entity, (entry, id): (&Json, &str), relist: Relist) {
        let Some(Json::Array(items)) = pointer_mut(&mut parent.fields, &self.list) else {
            return;
        };
        let id_key = match &self.entry {
            EntryForm::Identifier(keys) => keys
                .iter()
                .find(|key| entry.get(key).and_then(scalar_text).as_deref() == Some(id)),
            EntryForm::Embedded { id_key, .. } => Some(id_key),
            EntryForm::Bare { .. } => None,
        };
        let is_child = |item: &Json| match &self.entry {
            EntryForm::Embedded { .. } => self.shown_id(item, id_key).as_deref() == Some(id),
            _ => item == entry,
        };
        let stood = items.iter().position(is_child);
        items.retain(|item| !is_child(item));
        let at = match relist {
            Relist::Leave => None,
            Relist::Refresh => stood,
            Relist::Join if self.sorted && self.shown_id(entry, id_key).is_some() => Some(
                items
                    .iter()
                    .position(|item| {
                        self.shown_id(item, id_key)
                            .is_some_and(|other| id_order(&other) > id_order(id))
                    })
                    .unwrap_or(items.len()),
            ),
            Relist::Join => Some(items.len()),
        };
        if let Some(at) = at {
            items.insert(at.min(items.len()), entry.clone());
        }
        let length = items.len();
        if let Some(count) = &self.count
            && let Some(value) = pointer_mut(&mut parent.fields, count)
        {
            *value = Json::parse(length.to_string().as_bytes()).unwrap_or(Json::Null);
        }
    }
}

/// The member at a JSON pointer, mutable.
fn pointer_mut<'a>(value: &'a mut Json, pointer: &str) -> Option<&'a mut Json> {
    let mut current = value;
    for part in pointer.split('/').skip(1) {
        let key = rea_plugin_api::json::unescape_pointer_segment(part);
        current = match current {
            Json::Object(object) => object.get_mut(&key)?,
            _ => return None,
        };
    }
    Some(current)
}

/// The held entities of one type, as `moved_parents` asks for them (the tests' holder).
#[cfg(test)]
fn of_type<'a>(held: &'a [Entity], entity_type: &str) -> Vec<&'a Entity> {
    held.iter()
        .filter(|entity| entity.entity_type == entity_type)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::entity;

    fn author(id: &str, books: &[&str]) -> Entity {
        let data: Vec<String> = books
            .iter()
            .map(|book| format!(r#"{{"type": "Book", "id": "{book}"}}"#))
            .collect();
        entity(
            "/authors",
            id,
            &format!(
                r#"{{"type": "Author", "id": "{id}", "relationships": {{"books": {{"meta": {{"count": {}}}, "data": [{}]}}}}}}"#,
                books.len(),
                data.join(", ")
            ),
        )
    }

    fn book(id: &str, author: &str) -> Entity {
        entity(
            "/books",
            id,
            &format!(
                r#"{{"type": "Book", "id": "{id}", "relationships": {{"author": {{"data": {{"type": "Author", "id": "{author}"}}}}}}}}"#
            ),
        )
    }

    fn held() -> Vec<Entity> {
        vec![
            author("1", &["1", "2"]),
            author("2", &["3"]),
            book("1", "1"),
            book("2", "1"),
            book("3", "2"),
        ]
    }

    #[test]
    fn an_array_shown_out_of_id_order_after_a_write_puts_joining_children_last() {
        let entities = held();
        let json = |text: &str| Json::parse(text.as_bytes()).expect("JSON");
        // Book 1 moved to author 2 and listed after book 3: the application appends.
        let moved = json(&format!(
            r#"{{"data": [{}]}}"#,
            author("2", &["3", "1"]).fields.to_canonical_string()
        ));
        assert_eq!(
            appended(entities.iter(), &[&moved]),
            [AppendedList {
                parent_type: "/authors".to_owned(),
                list: "/relationships/books/data".to_owned(),
            }]
        );
        // Arrays in id order, or naming a child not held, show nothing.
        let sorted = author("2", &["1", "3"]).fields;
        let unknown = author("2", &["9", "3"]).fields;
        assert!(appended(entities.iter(), &[&sorted, &unknown]).is_empty());
    }

    #[test]
    fn a_parent_array_listing_the_children_whose_linkage_names_it_is_learned_with_its_count() {
        let held = held();
        let links = learn(held.iter());
        assert_eq!(
            links,
            [InverseLink {
                child_type: "/books".into(),
                linkage: "/relationships/author/data".into(),
                parent_type: "/authors".into(),
                list: "/relationships/books/data".into(),
                count: Some("/relationships/books/meta/count".into()),
                entry: EntryForm::Identifier(vec!["type".into(), "id".into()]),
                sorted: true,
            }]
        );
    }

    #[test]
    fn a_count_three_levels_down_beside_a_constant_is_learned() {
        // pyramid-jsonapi's `meta.results.returned` beside the page's `limit`.
        let author = |id: &str, books: &[&str]| {
            let data: Vec<String> = (books.iter())
                .map(|book| format!(r#"{{"type": "Book", "id": "{book}"}}"#))
                .collect();
            let meta = format!(
                r#"{{"results": {{"limit": 10, "returned": {}}}}}"#,
                books.len()
            );
            let books = format!(r#"{{"meta": {meta}, "data": [{}]}}"#, data.join(", "));
            let fields = format!(
                r#"{{"type": "Author", "id": "{id}", "relationships": {{"books": {books}}}}}"#
            );
            entity("/authors", id, &fields)
        };
        let mut held = held();
        held[0] = author("1", &["1", "2"]);
        held[1] = author("2", &["3"]);
        let links = learn(held.iter());
        let counts: Vec<Option<&str>> = links.iter().map(|link| link.count.as_deref()).collect();
        assert_eq!(counts, [Some("/relationships/books/meta/results/returned")]);
    }

    #[test]
    fn an_array_disagreeing_with_the_linkages_is_no_inverse() {
        let mut held = held();
        held[1] = author("2", &[]);
        assert!(learn(held.iter()).is_empty());
    }

    #[test]
    fn a_moved_child_leaves_its_old_parent_and_joins_the_new_one_in_id_order() {
        let held = held();
        let links = learn(held.iter());
        let parents = |entity_type: &str| of_type(&held, entity_type);
        let moved = moved_parents(&links, parents, (Some(&held[2]), Some(&book("1", "2"))));
        let shown: Vec<(&str, String)> = moved
            .iter()
            .map(|parent| {
                let books = parent
                    .fields
                    .pointer("/relationships/books")
                    .expect("books");
                (parent.id.as_str(), books.to_canonical_string())
            })
            .collect();
        assert_eq!(
            shown,
            [
                (
                    "1",
                    r#"{"data":[{"id":"2","type":"Book"}],"meta":{"count":1}}"#.to_owned()
                ),
                (
                    "2",
                    r#"{"data":[{"id":"1","type":"Book"},{"id":"3","type":"Book"}],"meta":{"count":2}}"#
                        .to_owned()
                ),
            ]
        );
        // A deleted child leaves its parent; a child naming no held parent changes none.
        let gone = moved_parents(&links, parents, (Some(&held[4]), None));
        assert_eq!(gone.len(), 1);
        assert_eq!(
            gone[0].fields.pointer("/relationships/books/meta/count"),
            Some(&Json::parse(b"0").expect("json"))
        );
        assert!(moved_parents(&links, parents, (None, Some(&book("9", "7")))).is_empty());
    }

    fn project(id: &str, tasks: &[u32]) -> Entity {
        let tasks: Vec<String> = tasks.iter().map(u32::to_string).collect();
        entity(
            "/projects",
            id,
            &format!(r#"{{"id": {id}, "tasks": [{}]}}"#, tasks.join(", ")),
        )
    }

    fn task(id: &str, project: &str) -> Entity {
        // `sort` equals the id, so it names project 1 from task 1 too: only `project` agrees.
        entity(
            "/tasks",
            id,
            &format!(r#"{{"id": {id}, "sort": {id}, "project": {project}}}"#),
        )
    }

    fn bare_held() -> Vec<Entity> {
        vec![
            project("1", &[1, 3]),
            project("2", &[2]),
            task("1", "1"),
            task("2", "2"),
            task("3", "1"),
            task("4", "null"),
        ]
    }

    fn tasks_of(parents: &[Entity]) -> Vec<(&str, String)> {
        parents
            .iter()
            .map(|parent| {
                let tasks = parent.fields.pointer("/tasks").expect("tasks");
                (parent.id.as_str(), tasks.to_canonical_string())
            })
            .collect()
    }

    #[test]
    fn an_array_of_bare_ids_listing_the_children_whose_scalar_names_it_is_learned() {
        let held = bare_held();
        assert_eq!(
            learn(held.iter()),
            [InverseLink {
                child_type: "/tasks".into(),
                linkage: "/project".into(),
                parent_type: "/projects".into(),
                list: "/tasks".into(),
                count: None,
                entry: EntryForm::Bare { numeric: true },
                sorted: true,
            }]
        );
        // A parent whose array misses one of its children: no link.
        let mut disagreeing = bare_held();
        disagreeing[0] = project("1", &[1]);
        assert!(learn(disagreeing.iter()).is_empty());
    }

    #[test]
    fn a_created_moved_or_deleted_child_relists_its_bare_id_in_id_order() {
        let held = bare_held();
        let links = learn(held.iter());
        let parents = |entity_type: &str| of_type(&held, entity_type);
        let created = moved_parents(&links, parents, (None, Some(&task("9", "1"))));
        assert_eq!(tasks_of(&created), [("1", "[1,3,9]".to_owned())]);
        let moved = moved_parents(&links, parents, (Some(&held[2]), Some(&task("1", "2"))));
        assert_eq!(
            tasks_of(&moved),
            [("1", "[3]".to_owned()), ("2", "[1,2]".to_owned())]
        );
        let deleted = moved_parents(&links, parents, (Some(&held[4]), None));
        assert_eq!(tasks_of(&deleted), [("1", "[1]".to_owned())]);
        // A child given a parent from none joins it; one naming no held parent changes none.
        let adopted = moved_parents(&links, parents, (Some(&held[5]), Some(&task("4", "2"))));
        assert_eq!(tasks_of(&adopted), [("2", "[2,4]".to_owned())]);
        assert!(moved_parents(&links, parents, (None, Some(&task("8", "7")))).is_empty());
    }
}

#[cfg(test)]
mod embedded_tests {
    use super::*;
    use crate::test_support::entity;

    /// A task as its own reads show it: its project and assignee populated.
    fn task(id: u32, title: &str, project: Option<u32>) -> Entity {
        let project = match project {
            Some(project) => format!(r#"{{"id": {project}, "name": "P{project}"}}"#),
            None => "null".to_owned(),
        };
        entity(
            "/task",
            &id.to_string(),
            &format!(
                r#"{{"id": {id}, "title": "{title}", "project": {project}, "assignee": {{"id": 1, "name": "Ines"}}}}"#
            ),
        )
    }

    /// A task as a project's `tasks` embeds it: its associations as ids.
    fn embedded(task: &Entity) -> String {
        let project = task
            .fields
            .pointer("/project/id")
            .cloned()
            .unwrap_or(Json::Null);
        format!(
            r#"{{"id": {}, "title": {}, "project": {}, "assignee": 1}}"#,
            task.id,
            task.fields
                .get("title")
                .expect("title")
                .to_canonical_string(),
            project.to_canonical_string()
        )
    }

    fn project(id: u32, tasks: &[&Entity]) -> Entity {
        let tasks: Vec<String> = tasks.iter().map(|task| embedded(task)).collect();
        entity(
            "/project",
            &id.to_string(),
            &format!(
                r#"{{"tasks": [{}], "id": {id}, "name": "P{id}"}}"#,
                tasks.join(", ")
            ),
        )
    }

    fn held() -> Vec<Entity> {
        let tasks = [
            task(1, "Survey", Some(1)),
            task(2, "Order", Some(1)),
            task(3, "Paint", Some(2)),
            task(4, "Loose", None),
        ];
        let mut held = vec![
            project(1, &[&tasks[0], &tasks[1]]),
            project(2, &[&tasks[2]]),
        ];
        held.extend(tasks);
        held
    }

    fn titles(parents: &[Entity]) -> Vec<(&str, Vec<String>)> {
        parents
            .iter()
            .map(|parent| {
                let tasks = parent.fields.pointer("/tasks").and_then(Json::as_array);
                let shown = tasks.into_iter().flatten().map(|task| {
                    let title = task.get("title").and_then(scalar_text).unwrap_or_default();
                    let project = task.get("project").map(Json::to_canonical_string);
                    format!("{title}@{}", project.unwrap_or_default())
                });
                (parent.id.as_str(), shown.collect())
            })
            .collect()
    }

    #[test]
    fn an_array_embedding_the_children_records_is_learned() {
        let held = held();
        let links = learn(held.iter());
        assert_eq!(
            links,
            [InverseLink {
                child_type: "/task".into(),
                linkage: "/project".into(),
                parent_type: "/project".into(),
                list: "/tasks".into(),
                count: None,
                entry: EntryForm::Embedded {
                    keys: ["id", "title", "project", "assignee"]
                        .map(String::from)
                        .to_vec(),
                    id_key: "id".into(),
                },
                sorted: true,
            }]
        );
        // An embedded copy that disagrees with its child's record: no link.
        let mut stale = held.clone();
        stale[1] = project(2, &[&task(3, "Old title", Some(2))]);
        assert!(learn(stale.iter()).is_empty());
    }

    #[test]
    fn an_embedded_child_is_added_moved_refreshed_and_removed() {
        let held = held();
        let links = learn(held.iter());
        let parents = |entity_type: &str| of_type(&held, entity_type);
        let made = task(9, "Fresh", Some(1));
        let created = moved_parents(&links, parents, (None, Some(&made)));
        assert_eq!(
            titles(&created),
            [(
                "1",
                vec!["Survey@1".into(), "Order@1".into(), "Fresh@1".into()]
            )]
        );
        let moved = moved_parents(
            &links,
            parents,
            (Some(&held[2]), Some(&task(1, "Survey", Some(2)))),
        );
        assert_eq!(
            titles(&moved),
            [
                ("1", vec!["Order@1".to_owned()]),
                ("2", vec!["Survey@2".to_owned(), "Paint@2".to_owned()])
            ]
        );
        // A retitled child stays where it stood; its bare linkage names the same parent.
        let mut renamed = task(1, "Resurvey", Some(1));
        *pointer_mut(&mut renamed.fields, "/project").expect("project") =
            Json::parse(b"1").expect("json");
        let refreshed = moved_parents(&links, parents, (Some(&held[2]), Some(&renamed)));
        assert_eq!(
            titles(&refreshed),
            [("1", vec!["Resurvey@1".into(), "Order@1".into()])]
        );
        let deleted = moved_parents(&links, parents, (Some(&held[4]), None));
        assert_eq!(titles(&deleted), [("2", Vec::<String>::new())]);
        assert!(
            moved_parents(
                &links,
                parents,
                (Some(&held[5]), Some(&task(4, "Still", None)))
            )
            .is_empty()
        );
    }
}

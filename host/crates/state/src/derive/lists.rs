//! List views: `GET`s answering an array of objects that are entities.
//!
//! A list's members belong to one type: an item type whose identity every member carries and
//! whose entities they are (the one held in the line's collection, else the only one of that id,
//! else a new one when the line's path fits the type's collection template), or, when no item
//! type fits, a type the list names itself (its path template, and an identity field every member
//! carries with values unique within each line). Lines are the latest checked reads per request
//! line. A line shows the whole collection (`membership: "all"`) when it only pages its list from
//! the beginning and lists every entity of its collection in state order; otherwise it lists the
//! recorded members still held.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use rea_manifest::Manifest;
use rea_manifest::segments::{fused_value, split_path, template_affixes};
use rea_plugin_api::json::{Json, Object, escape_pointer_segment};

use super::entities::{Entities, collection_key};
use super::items::{differing_envelope_members, identity_preference};
use super::list_place::{agreed_place, place_in};
use super::{latest_lines, marked_deleted, projected_keys, recorded};
use crate::model::{
    EntityType, ListLine, ListView, MemberRef, Membership, QueryModel, ViewDetail, ViewShape,
};
use crate::observation::{Observation, Timeline};
use crate::query::only_pages;
use crate::render::{
    counts, project_fields, project_to, render_entity, scalar_text, selects_fields,
};

/// A list tool, before verification.
#[derive(Debug, Clone)]
pub struct ListPlan {
    /// The manifest tool.
    pub tool: usize,
    /// The tool's name.
    pub name: String,
    /// The member type.
    pub entity_type: String,
    /// Where the array sits.
    pub list_pointer: String,
    /// The lines (latest checked reads per request line), in record order.
    pub lines: Vec<u64>,
    /// Per line ordinal, the members' entity indexes.
    pub members: BTreeMap<u64, Vec<usize>>,
    /// The row members holding another held type's document (see
    /// [`ListPlan::seed_row_documents`]).
    pub row_documents: BTreeSet<String>,
}

/// Joins to each list plan the lines of the plan reading the same collection spelled with a
/// trailing slash (`/api/tasks/` beside `/api/tasks`, the same method, member type and list
/// place): its answers list the same entities, so the plain spelling's view learns its queries
/// and links from both (a page read through the links' spelling included). The slash plan keeps
/// its lines too.
pub fn join_slash_spellings(manifest: &Manifest, plans: &mut [ListPlan]) {
    let spelled: Vec<(String, String)> = plans
        .iter()
        .map(|plan| {
            let tool = &manifest.tools[plan.tool];
            (tool.method.to_ascii_uppercase(), tool.path_template.clone())
        })
        .collect();
    for (into, from) in slash_joins(&spelled, plans) {
        let (lines, members) = (plans[from].lines.clone(), plans[from].members.clone());
        let plan = &mut plans[into];
        for line in lines {
            if !plan.lines.contains(&line) {
                plan.lines.push(line);
            }
        }
        plan.lines.sort_unstable();
        for (ordinal, listed) in members {
            plan.members.entry(ordinal).or_insert(listed);
        }
    }
}

/// The pairs (plain plan, slash plan) [`join_slash_spellings`] joins, given each plan's method
/// and path template.
fn slash_joins(spelled: &[(String, String)], plans: &[ListPlan]) -> Vec<(usize, usize)> {
    let mut joins = Vec::new();
    for (into, plain) in plans.iter().enumerate() {
        let (method, template) = &spelled[into];
        let slashed = format!("{template}/");
        for (from, other) in plans.iter().enumerate() {
            let (other_method, other_template) = &spelled[from];
            if from != into
                && other_method == method
                && *other_template == slashed
                && other.entity_type == plain.entity_type
                && other.list_pointer == plain.list_pointer
            {
                joins.push((into, from));
            }
        }
    }
    joins
}

/// Where a body's list is: the root array of objects, or the one array of objects an envelope
/// carries, or, in an envelope carrying none, the one such array of the one envelope member
/// holding one (`{"data": {"collection": […], "total": 6}}`: two levels deep).
pub fn list_pointer(body: &Json) -> Option<String> {
    match body {
        Json::Array(items) if all_objects(items) => Some(String::new()),
        Json::Object(object) => match object_arrays(object).as_slice() {
            [only] => Some(format!("/{}", escape_pointer_segment(only))),
            [] => nested_list_pointer(object),
            _ => None,
        },
        _ => None,
    }
}

/// Whether every item of an array is an object.
fn all_objects(items: &[Json]) -> bool {
    items.iter().all(|item| matches!(item, Json::Object(_)))
}

/// The members of an object holding arrays of objects.
fn object_arrays(object: &Object) -> Vec<&str> {
    object
        .iter()
        .filter(|(_, value)| value.as_array().is_some_and(|items| all_objects(items)))
        .map(|(key, _)| key)
        .collect()
}

/// The one array of objects of the one member of an envelope holding one, one level down, when
/// that member holds nothing else but numbers and objects (counters and links: a list's
/// envelope, not an entity such as a folder with its children beside its own name).
fn nested_list_pointer(object: &Object) -> Option<String> {
    let nested: Vec<(&str, &str)> = object
        .iter()
        .filter_map(|(key, value)| {
            let inner = value.as_object()?;
            let envelope = inner
                .iter()
                .map(|(_, member)| member)
                .all(|member| matches!(member, Json::Number(_) | Json::Object(_) | Json::Array(_)));
            match object_arrays(inner).as_slice() {
                [only] if envelope => Some((key, *only)),
                _ => None,
            }
        })
        .collect();
    match nested.as_slice() {
        [(outer, inner)] => Some(format!(
            "/{}/{}",
            escape_pointer_segment(outer),
            escape_pointer_segment(inner)
        )),
        _ => None,
    }
}

fn members_of<'a>(observation: &'a Observation, pointer: &str) -> &'a [Json] {
    observation
        .body
        .as_ref()
        .and_then(|body| body.pointer(pointer))
        .and_then(Json::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The collection a list read's path lists under a type's collection template: the path less a
/// representation suffix on its last segment when that fits (`/tiddlers.json` lists `/tiddlers`,
/// `/db/tasks.json` lists `/db/tasks` of `/db/{table}`: a dot and two to four ASCII letters), else
/// the path itself when it fits the template segment by segment. `None`: another collection's
/// list.
pub fn listed_collection(path: &str, template: &str) -> Option<String> {
    let stripped = collection_key(path)
        .rsplit_once('.')
        .filter(|(stripped, suffix)| {
            (2..=4).contains(&suffix.len())
                && suffix.bytes().all(|byte| byte.is_ascii_alphabetic())
                && !stripped.ends_with('/')
                && fits_template(stripped, template)
        })
        .map(|(stripped, _)| stripped.to_owned());
    stripped
        .or_else(|| fits_template(path, template).then(|| path.to_owned()))
        .or_else(|| {
            // The collection spelled with a trailing slash (`/api/tasks/` beside `/api/tasks`):
            // the list's members are the collection's entities, so the same collection.
            let key = collection_key(path);
            (key != path && fits_template(key, template)).then(|| key.to_owned())
        })
}

/// Whether a path fits a template segment by segment (`{…}` fits any one segment).
pub fn fits_template(path: &str, template: &str) -> bool {
    let path = split_path(path);
    let template = split_path(template);
    path.len() == template.len()
        && path
            .iter()
            .zip(&template)
            .all(|(segment, pattern)| match template_affixes(pattern) {
                // A parameter fits any segment; a fused one, one with its prefix and suffix.
                Some((prefix, suffix)) => fused_value(prefix, suffix, segment).is_some(),
                None => segment == pattern,
            })
}

enum Resolution {
    Held(usize),
    Seed { collection: String, id: String },
}

/// Resolves one line's members to entities of a type; `None` when some member is not one.
/// `same_template`: the list reads the type's own collection template, so its members are the
/// type's entities whatever they show; otherwise a held member must show mostly the entity's
/// values (a post's comments with ids 1 and 2 are not posts 1 and 2).
fn resolve_line(
    entities: &Entities,
    entity_type: &EntityType,
    line: &Observation,
    pointer: &str,
    same_template: bool,
) -> Option<Vec<Resolution>> {
    let mut row = Vec::new();
    let mut seen = BTreeSet::new();
    for member in members_of(line, pointer) {
        if marked_deleted(member) {
            return None;
        }
        let id = crate::render::identity_text(member, &entity_type.identity_field)?;
        if !seen.insert(id.clone()) {
            return None;
        }
        let template = &entity_type.collection_template;
        let held = entities
            .find(template, &line.path, &id)
            .or_else(|| entities.find_unique(template, &id));
        let resolution = if let Some(index) = held {
            if !same_template && !mostly_agrees(member, &entities.list[index].fields) {
                return None;
            }
            Resolution::Held(index)
        } else if let Some(collection) = listed_collection(&line.path, template) {
            Resolution::Seed { collection, id }
        } else {
            return None;
        };
        row.push(resolution);
    }
    Some(row)
}

/// Resolves every line; the type fits when every plain line (no query) resolves and some line
/// does. Lines that do not resolve (a projection dropping the identity) stay unresolved: they
/// fail verification.
fn resolve_members(
    entities: &Entities,
    entity_type: &EntityType,
    lines: &[&Observation],
    pointer: &str,
    same_template: bool,
) -> Option<Vec<Option<Vec<Resolution>>>> {
    let resolved: Vec<Option<Vec<Resolution>>> = lines
        .iter()
        .map(|line| resolve_line(entities, entity_type, line, pointer, same_template))
        .collect();
    let plain_fit = lines
        .iter()
        .zip(&resolved)
        .all(|(line, row)| line.query.is_some() || row.is_some());
    (plain_fit && resolved.iter().any(Option::is_some)).then_some(resolved)
}

/// Whether at least half of a member's members hold the entity's value for them, an empty value
/// (`""`, `null`, `[]`, `{}`) agreeing counting for nothing: a folder's share of a device
/// (`{deviceID, introducedBy: "", encryptionPassword: ""}`) is not that device.
fn mostly_agrees(member: &Json, fields: &Json) -> bool {
    let (Some(member), Some(fields)) = (member.as_object(), fields.as_object()) else {
        return false;
    };

    let agreeing = member
        .iter()
        .filter(|(key, value)| fields.get(key) == Some(*value))
        .filter(|(_, value)| !is_empty_value(value))
        .count();
    agreeing * 2 >= member.len()
}

/// Whether a value says nothing of the entity holding it: `null`, an empty text, array or object
/// (a member every kind of object may show so).
fn is_empty_value(value: &Json) -> bool {
    match value {
        Json::Null => true,
        Json::String(text) => text.is_empty(),
        Json::Array(items) => items.is_empty(),
        Json::Object(object) => object.is_empty(),
        _ => false,
    }
}

/// An identity field every member carries, with scalar values unique within each line.
fn list_identity(lines: &[&Observation], pointer: &str) -> Option<String> {
    let mut common: Option<Vec<String>> = None;
    for line in lines {
        for member in members_of(line, pointer) {
            let object = member.as_object()?;
            let keys: Vec<String> = object
                .iter()
                .filter(|(_, value)| matches!(value, Json::String(_) | Json::Number(_)))
                .map(|(key, _)| key.to_owned())
                .collect();
            common = Some(match common {
                None => keys,
                Some(previous) => previous
                    .into_iter()
                    .filter(|key| keys.contains(key))
                    .collect(),
            });
        }
    }
    let mut candidates: Vec<String> = common?
        .into_iter()
        .filter(|key| {
            lines.iter().all(|line| {
                let values: Vec<Option<String>> = members_of(line, pointer)
                    .iter()
                    .map(|member| member.get(key).and_then(scalar_text))
                    .collect();
                let unique: BTreeSet<&Option<String>> = values.iter().collect();
                unique.len() == values.len()
            })
        })
        .collect();
    candidates.sort_by_key(|key| identity_preference(key));
    candidates.into_iter().next()
}

/// `Ok` for a list tool; `Err(None)` when it is not one; `Err(Some(reason))` when it is one the
/// state cannot hold.
pub fn plan(
    manifest: &Manifest,
    timeline: &Timeline,
    index: usize,
    entities: &mut Entities,
) -> Result<ListPlan, Option<&'static str>> {
    let tool = &manifest.tools[index];
    let lines = latest_lines(timeline, index);
    if lines.is_empty() {
        return Err(None);
    }
    let pointer = common_list_pointer(timeline, index)?;
    let lines: Vec<&Observation> = lines
        .into_iter()
        .filter(|line| holds_list_at(line, &pointer))
        .collect();
    if shaped_as_held_entity(entities, &lines, &pointer) {
        return Err(None);
    }
    let (entity_type, resolved) = match held_member_type(entities, tool, &lines, &pointer) {
        Some(found) => found,
        None => own_member_type(entities, tool, &lines, &pointer)?,
    };
    let template = entity_type.collection_template.clone();
    let mut members = BTreeMap::new();
    for (line, row) in lines.iter().zip(resolved) {
        let Some(row) = row else {
            continue;
        };
        let objects = members_of(line, &pointer);
        let mut indexes = Vec::with_capacity(row.len());
        for (resolution, object) in row.into_iter().zip(objects) {
            let index = match resolution {
                Resolution::Held(index) => index,
                Resolution::Seed { collection, id } => entities.observe(
                    &template,
                    &collection,
                    &id,
                    object,
                    (line.ordinal, line.position),
                    false,
                ),
            };
            indexes.push(index);
        }
        merge_selected_fields(entities, &indexes, line, &pointer);
        members.insert(line.ordinal, indexes);
    }
    Ok(ListPlan {
        tool: index,
        name: tool.name.clone(),
        entity_type: template,
        list_pointer: pointer,
        lines: lines.iter().map(|line| line.ordinal).collect(),
        members,
        row_documents: BTreeSet::new(),
    })
}

/// Whether the lines' bodies are objects shaped as the entities of one held type rather than
/// envelopes of a list: each holds the array at `pointer` in a top-level member, every one of
/// its members (three or more, the array's among them) is a member some entity of that type
/// holds, and the array's objects are not shaped so (Syncthing's `/rest/config/defaults/folder`,
/// a folder's settings with its device shares beside them, is a document shaped as a folder, not
/// a list; a folder tree's listing, whose entries are of its own type, stays a list).
fn shaped_as_held_entity(entities: &Entities, lines: &[&Observation], pointer: &str) -> bool {
    let top_level = pointer.len() > 1 && !pointer[1..].contains('/');
    let bodies: Vec<&Object> = lines
        .iter()
        .filter_map(|line| line.body.as_ref()?.as_object())
        .collect();
    if !top_level || bodies.is_empty() || bodies.len() != lines.len() {
        return false;
    }
    let held = crate::selection::held_fields(&entities.list);
    let shaped = |object: &Object, fields: &BTreeSet<&str>| {
        object.len() >= 3 && object.iter().all(|(key, _)| fields.contains(key))
    };
    held.values().any(|fields| {
        bodies.iter().all(|body| {
            let items = body.get(&pointer[1..]).and_then(Json::as_array);
            let item_shaped = items
                .into_iter()
                .flatten()
                .filter_map(Json::as_object)
                .any(|item| shaped(item, fields));
            shaped(body, fields) && !item_shaped
        })
    })
}

/// The fields a line asking for some fields by name (`fields=title,status`) showed and its
/// members' entities lack, added to them: a list whose plain reads show a few fields (an id and
/// a link) shows the others only when asked, so what a selection showed is the entity's (a
/// field the entity holds keeps its value).
fn merge_selected_fields(
    entities: &mut Entities,
    indexes: &[usize],
    line: &Observation,
    pointer: &str,
) {
    let pairs = line.pairs();
    let named: BTreeSet<String> = pairs
        .iter()
        .filter(|(name, _)| crate::query::is_projection(name))
        .filter_map(|(_, value)| crate::selection::plain_fields(value))
        .flatten()
        .collect();
    if named.is_empty() {
        return;
    }
    for (index, member) in indexes.iter().zip(members_of(line, pointer)) {
        let (Some(shown), Json::Object(fields)) =
            (member.as_object(), &mut entities.list[*index].fields)
        else {
            continue;
        };
        for (key, value) in shown.iter() {
            if named.contains(key) && !fields.contains_key(key) {
                fields.insert(key, value.clone());
            }
        }
    }
}

/// Where the checked successful reads of a tool hold their list: the same place in all, or, when
/// a query parameter moves the list into another envelope (a page request answering `{"data":
/// […]}` where plain reads answer the array), the place every read without a query holds it.
/// Lines holding it elsewhere are left to their recordings.
fn common_list_pointer(timeline: &Timeline, index: usize) -> Result<String, Option<&'static str>> {
    let successes = || {
        timeline
            .checked(index)
            .filter(|observation| observation.is_success())
    };
    let bodies: Vec<&Json> = successes()
        .filter_map(|observation| observation.body.as_ref())
        .collect();
    let agreed = agreed_place(&bodies);
    let mut every: BTreeSet<String> = BTreeSet::new();
    let mut plain: BTreeSet<String> = BTreeSet::new();
    for observation in successes() {
        let found = observation
            .body
            .as_ref()
            .and_then(|body| place_in(body, agreed.as_deref()))
            .ok_or(None)?;
        if observation.query.is_none() {
            plain.insert(found.clone());
        }
        every.insert(found);
    }
    let chosen = if every.len() == 1 { &every } else { &plain };
    match chosen.iter().collect::<Vec<_>>().as_slice() {
        [pointer] => Ok((*pointer).clone()),
        _ => Err(None),
    }
}

/// Whether a line holds its list at the pointer.
fn holds_list_at(line: &Observation, pointer: &str) -> bool {
    line.body
        .as_ref()
        .and_then(|body| place_in(body, Some(pointer)))
        .as_deref()
        == Some(pointer)
}

/// Each line's members resolved to entities of a type (`None`: a line that does not resolve).
type Resolved = Vec<Option<Vec<Resolution>>>;

/// The first held type (the one whose collection template is the tool's path first) whose
/// entities the lines list: one they list something of, or the tool's own.
fn held_member_type(
    entities: &Entities,
    tool: &rea_manifest::ManifestTool,
    lines: &[&Observation],
    pointer: &str,
) -> Option<(EntityType, Resolved)> {
    let mut candidates: Vec<EntityType> = entities.types.clone();
    candidates.sort_by_key(|entity_type| entity_type.collection_template != tool.path_template);
    for candidate in candidates {
        let same_template = candidate.collection_template == tool.path_template;
        if same_template && let Some(mirrored) = mirrored_type(entities, tool, lines, pointer) {
            return Some(mirrored);
        }
        if let Some(resolved) = resolve_members(entities, &candidate, lines, pointer, same_template)
        {
            let lists_something = resolved.iter().flatten().any(|row| !row.is_empty());
            if lists_something || same_template {
                return Some((candidate, resolved));
            }
        }
    }
    None
}

/// Another held type whose entities a list below a parent (`/projects/{id}/tasks`, a template
/// with a parameter before its last segment) lists exactly, each member the entity as held,
/// though an item route below it made a type of its own (`/projects/{id}/tasks/{id}` answering
/// the task itself): the members are that type's entities, listed under their parent, not a
/// collection of their own. Every plain line lists something, and all of it held so.
fn mirrored_type(
    entities: &Entities,
    tool: &rea_manifest::ManifestTool,
    lines: &[&Observation],
    pointer: &str,
) -> Option<(EntityType, Resolved)> {
    let segments = split_path(&tool.path_template);
    let (_, parents) = segments.split_last()?;
    if !parents
        .iter()
        .any(|segment| template_affixes(segment).is_some())
    {
        return None;
    }
    let plain: Vec<&Observation> = lines
        .iter()
        .copied()
        .filter(|line| line.query.is_none())
        .collect();
    if plain.is_empty() {
        return None;
    }
    entities
        .types
        .iter()
        .filter(|candidate| candidate.collection_template != tool.path_template)
        .find_map(|candidate| {
            let exact = plain.iter().all(|line| {
                let members = members_of(line, pointer);
                let row = resolve_line(entities, candidate, line, pointer, false);
                !members.is_empty()
                    && row.is_some_and(|row| {
                        row.iter().zip(members).all(|(resolution, member)| {
                            matches!(resolution, Resolution::Held(index) if entities.list[*index].fields == *member)
                        })
                    })
            });
            let resolved = exact.then(|| resolve_members(entities, candidate, lines, pointer, false))??;
            Some((candidate.clone(), resolved))
        })
}

/// A type the list names itself (its path template, and an identity field every member carries
/// with values unique within each line), added to the entities.
fn own_member_type(
    entities: &mut Entities,
    tool: &rea_manifest::ManifestTool,
    lines: &[&Observation],
    pointer: &str,
) -> Result<(EntityType, Resolved), Option<&'static str>> {
    if entities.entity_type(&tool.path_template).is_some() {
        return Err(Some("list-differs"));
    }
    let plain: Vec<&Observation> = lines
        .iter()
        .copied()
        .filter(|line| line.query.is_none())
        .collect();
    let basis = if plain.is_empty() { lines } else { &plain[..] };
    let identity_field = list_identity(basis, pointer).ok_or(Some("no-view"))?;
    let entity_type = EntityType {
        collection_template: tool.path_template.clone(),
        identity_field,
        item_view: None,
        deleted_flag: None,
        unmodelled_after_writes: false,
        folder_listings_after_writes: false,
        folder_stamps: Default::default(),
    };
    let resolved =
        resolve_members(entities, &entity_type, lines, pointer, true).ok_or(Some("no-view"))?;
    entities.add_type(entity_type.clone());
    Ok((entity_type, resolved))
}

/// Whether a line only pages its list from the beginning (no query, or page sizes and zero
/// positions only).
pub(super) fn pages_only(observation: &Observation) -> bool {
    observation
        .pairs()
        .iter()
        .all(|(name, value)| only_pages(name, value))
}

/// The page size a paging line asked for.
fn page_size(observation: &Observation) -> Option<u64> {
    observation
        .pairs()
        .iter()
        .find(|(name, _)| crate::query::spelled_in(&crate::query::PAGE_SIZE_NAMES, name.as_str()))
        .and_then(|(_, value)| value.parse().ok())
}

/// The longest whole-segment prefix of a path that fits a collection template.
pub fn enclosing_fit(path: &str, template: &str) -> Option<String> {
    let segments = split_path(path);
    (1..segments.len())
        .rev()
        .map(|length| format!("/{}", segments[..length].join("/")))
        .find(|prefix| fits_template(prefix, template))
}

/// The members of a row holding the document of another held type with the row's identity
/// value (see [`ListPlan::seed_row_documents`]): each with that type and the collection of it the
/// line's path lies under.
fn row_documents<'a>(
    row: &'a Json,
    id: &str,
    path: &str,
    others: &'a [EntityType],
) -> Vec<(&'a str, &'a Json, &'a EntityType, String)> {
    let mut found = Vec::new();
    let nested = row
        .as_object()
        .into_iter()
        .flat_map(|object| object.iter())
        .filter(|(_, value)| matches!(value, Json::Object(_)));
    for (name, document) in nested {
        for held in others {
            let shows = crate::render::identity_text(document, &held.identity_field)
                .is_some_and(|nested_id| nested_id == id);
            if let Some(collection) = shows
                .then(|| enclosing_fit(path, &held.collection_template))
                .flatten()
            {
                found.push((name, document, held, collection));
            }
        }
    }
    found
}

impl ListPlan {
    /// Row documents: a row of the list holding, one level down, an object that carries the
    /// identity of another held type with the row's own identity value (`{"id": "a", "doc":
    /// {"_id": "a", …}}`: a listing that includes each document) seeds that entity, in the
    /// collection of that type the line's path lies under (fields only for an entity not yet
    /// held, as a list does). The row itself is held without that member: the document is
    /// another entity, shown beside the row when the read asks for it (a relation, see
    /// [`crate::relations`]); the member's name is kept in [`ListPlan::row_documents`].
    pub fn seed_row_documents(&mut self, timeline: &Timeline, entities: &mut Entities) {
        let Some(row_type) = entities.entity_type(&self.entity_type).cloned() else {
            return;
        };
        let others: Vec<EntityType> = entities
            .types
            .iter()
            .filter(|held| held.collection_template != self.entity_type)
            .cloned()
            .collect();
        for line in self
            .lines
            .iter()
            .filter_map(|ordinal| timeline.get(*ordinal))
        {
            let listed = self
                .members
                .get(&line.ordinal)
                .map_or(&[][..], Vec::as_slice);
            for (position, row) in members_of(line, &self.list_pointer).iter().enumerate() {
                let Some(id) = crate::render::identity_text(row, &row_type.identity_field) else {
                    continue;
                };
                for (name, document, held, collection) in
                    row_documents(row, &id, &line.path, &others)
                {
                    entities.observe(
                        &held.collection_template,
                        &collection,
                        &id,
                        document,
                        (line.ordinal, line.position),
                        false,
                    );
                    if let Some(fields) = listed
                        .get(position)
                        .and_then(|index| entities.list[*index].fields.as_object_mut())
                    {
                        fields.remove(name);
                    }
                    self.row_documents.insert(name.to_owned());
                }
            }
        }
    }

    /// The whole lines' orders, which settle state order: `(type, collection, ids)` for each line
    /// that only pages its list (or selects fields) and lists entities of its own collection
    /// only.
    pub fn whole_orders(
        &self,
        timeline: &Timeline,
        entities: &Entities,
    ) -> Vec<(String, String, Vec<String>)> {
        self.lines
            .iter()
            .filter_map(|ordinal| timeline.get(*ordinal))
            // A field selection chooses which members each entity shows, not which entities or
            // their order (Roundup's `@fields=username,realname`).
            .filter(|line| pages_only(line) || pages_only_but_selection(line))
            .filter_map(|line| {
                let listed = listed_collection(&line.path, &self.entity_type)?;
                let key = collection_key(&listed);
                let ids: Option<Vec<String>> = self
                    .members
                    .get(&line.ordinal)?
                    .iter()
                    .map(|index| {
                        let entity = &entities.list[*index];
                        (collection_key(&entity.collection) == key).then(|| entity.id.clone())
                    })
                    .collect();
                Some((self.entity_type.clone(), listed.clone(), ids?))
            })
            .collect()
    }
}

/// Whether a member name reads like a count.
fn counter_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    [
        "total", "count", "size", "length", "rows", "records", "hits", "num", "results", "returned",
    ]
    .iter()
    .any(|word| lower.contains(word))
}

/// Pointers (top level, or down to two levels in objects: `/meta/pagination/count`) of an
/// envelope's scalar members, with their names.
pub(crate) fn scalar_pointers(body: &Json, list_pointer: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    if let Some(object) = body.as_object() {
        collect_scalar_pointers(object, "", list_pointer, 3, &mut found);
    }
    found
}

/// The scalar members of an envelope object at `at`, `depth` levels deep at most.
fn collect_scalar_pointers(
    object: &Object,
    at: &str,
    list_pointer: &str,
    depth: usize,
    found: &mut Vec<(String, String)>,
) {
    for (key, value) in object.iter() {
        let pointer = format!("{at}/{}", escape_pointer_segment(key));
        if pointer == list_pointer {
            continue;
        }
        match value {
            Json::Object(inner) if depth > 1 => {
                collect_scalar_pointers(inner, &pointer, list_pointer, depth - 1, found);
            }
            Json::Number(_) | Json::String(_) => found.push((pointer, key.to_owned())),
            _ => {}
        }
    }
}

/// A list view's lines in the order verification reads them: the plain lines, then those with
/// a query (the first of them standing for a plain line when there is none, unless it asks for
/// some fields only: it would teach the fields it leaves out as hidden), then those asking for
/// some fields only.
struct OrderedLines<'a> {
    /// The lines in record order.
    lines: Vec<&'a Observation>,
    /// The lines in verification order.
    ordered: Vec<&'a Observation>,
    /// How many of the ordered lines count as plain.
    plain: usize,
}

impl<'a> OrderedLines<'a> {
    fn of(timeline: &'a Timeline, plan: &ListPlan) -> Self {
        let lines: Vec<&Observation> = plan
            .lines
            .iter()
            .filter_map(|ordinal| timeline.get(*ordinal))
            .collect();
        let mut ordered: Vec<&Observation> = lines
            .iter()
            .copied()
            .filter(|line| line.query.is_none())
            .collect();
        let plain_count = ordered.len();
        ordered.extend(
            lines
                .iter()
                .copied()
                .filter(|line| line.query.is_some() && !selects_fields(line.pairs())),
        );
        let plain_count = if plain_count == 0 {
            usize::from(!ordered.is_empty())
        } else {
            plain_count
        };
        ordered.extend(
            lines
                .iter()
                .copied()
                .filter(|line| line.query.is_some() && selects_fields(line.pairs())),
        );
        let plain = plain_count.min(ordered.len());
        Self {
            lines,
            ordered,
            plain,
        }
    }

    /// The lines that count as plain.
    fn plain(&self) -> &[&'a Observation] {
        &self.ordered[..self.plain]
    }
}

/// Marks whether the tool's answers echo calls as sent, shown by any of them (an inclusion's
/// too): see [`crate::query_order::mark_echoed`].
fn mark_echoed(model: &mut crate::model::QueryModel, timeline: &Timeline, plan: &ListPlan) {
    let answered: Vec<&Observation> = (timeline.all(plan.tool))
        .filter(|observation| observation.is_success())
        .collect();
    crate::query_order::mark_echoed(model, &answered);
}

/// Verifies a list view against its checked lines and learns its query model: the shape its
/// plain lines show, the counters every line carries, each line matched against the entities
/// (view values learned where a member shows more than the entity), each passing line's
/// membership, and the query model.
pub fn verify(
    timeline: &Timeline,
    plan: ListPlan,
    entities: &mut Entities,
    rules: &crate::rules::RuleSet,
) -> ViewDetail {
    let view = plan.name.clone();
    let lines = OrderedLines::of(timeline, &plan);
    let shape = match learned_shape(timeline, &plan, &lines, entities) {
        Ok(shape) => shape,
        Err(reason) => return recorded(reason),
    };
    let (counters, identity_lists, computed) = computed_members(&lines.lines, &plan, entities);
    let mut matched = match_lines(&lines.ordered, &plan, &shape, entities);
    if matched.passing.is_empty() || matched.failing.iter().any(|line| line.query.is_none()) {
        return recorded("list-differs");
    }
    let undocumented = document_free_lines(&matched, &plan, &shape, entities);
    let mut checked = matched.passing.clone();
    checked.extend(undocumented.iter());
    let Some(projected_query_keys) = projected_keys(&checked, &matched.failing) else {
        return recorded("list-differs");
    };
    matched.install(&plan, &view, entities);
    let built = match list_lines(&lines.lines, &matched, &plan, &view, &shape, entities) {
        Ok(built) => built,
        Err(reason) => return recorded(reason),
    };
    let required = built
        .required
        .map(|required| relax_required(required, timeline, &plan));
    // The lines that test no role (after a write, or failing), whose values still name links.
    let others: Vec<&Observation> = timeline
        .all(plan.tool)
        .filter(|observation| !timeline.is_checked(observation) && observation.is_success())
        .chain(matched.failing.iter().copied())
        .collect();
    let mut query = learned_query(
        (&plan, &view),
        (&matched, &undocumented),
        &computed,
        entities,
        (rules, &built.lines, &others),
    );
    if let Some(model) = &mut query {
        mark_echoed(model, timeline, &plan);
    }
    let page_envelope = query
        .as_ref()
        .and_then(|model| page_envelope(timeline, &plan, model, entities, (rules, &built.lines)))
        .map(Box::new);
    let per_response_members = per_response_members(
        &plan.list_pointer,
        &matched.passing,
        &computed,
        query.as_ref(),
    );
    ViewDetail::List(ListView {
        entity_type: plan.entity_type,
        list_pointer: plan.list_pointer,
        lines: built.lines,
        counters,
        identity_lists,
        query,
        per_response_members,
        projected_query_keys,
        projected_record_ordinals: matched.projections.keys().copied().collect(),
        restated_query: Vec::new(),
        selection: None,
        exclusion: None,
        relations: Vec::new(),
        joins: Vec::new(),
        parent: None,
        page_envelope,
        shape: ViewShape {
            required_fields: required.unwrap_or_default().into_iter().collect(),
            ..shape
        },
    })
}

/// The query model the passing lines teach, lines asking for some fields only included (their
/// selection left out: what they list is what the query without it lists); failing that, the
/// one the other lines teach.
fn learned_query(
    (plan, view): (&ListPlan, &str),
    (matched, undocumented): (&MatchedLines<'_>, &[Observation]),
    counters: &[String],
    entities: &Entities,
    (rules, whole_lines, others): (&crate::rules::RuleSet, &[ListLine], &[&Observation]),
) -> Option<crate::model::QueryModel> {
    let all: Vec<&Observation> = matched
        .passing
        .iter()
        .copied()
        .chain(undocumented.iter())
        .collect();
    let learn = |lines: &[&Observation]| {
        super::list_query::learn_query(
            plan,
            view,
            lines,
            counters,
            entities,
            (rules, whole_lines, others),
        )
    };
    if !matched.projections.is_empty()
        && let Some(model) = learn(&all)
    {
        return Some(model);
    }
    let selecting: Vec<&Observation> = all
        .into_iter()
        .filter(|line| !matched.projections.contains_key(&line.ordinal))
        .collect();
    learn(&selecting)
}

/// The shape a list view's plain lines show (hidden and lifted fields, spellings, sorted
/// arrays); `Err` when a later read lists one of those arrays unsorted, which contradicts the
/// ordering: the view stays recorded (so its reads confirm no served write).
fn learned_shape(
    timeline: &Timeline,
    plan: &ListPlan,
    lines: &OrderedLines<'_>,
    entities: &Entities,
) -> Result<ViewShape, &'static str> {
    let hidden = hidden_fields(plan, lines.plain(), entities);
    let mut shape = ViewShape {
        lifted_fields: lifted_fields(plan, lines.plain(), entities, &hidden),
        hidden_fields: hidden,
        ..ViewShape::default()
    };
    learn_spellings(plan, lines.plain(), entities, &mut shape);
    if !shape.sorted_arrays.is_empty()
        && timeline.all(plan.tool).any(|observation| {
            !timeline.is_checked(observation)
                && observation.is_success()
                && lists_unsorted(members_of(observation, &plan.list_pointer), &shape)
        })
    {
        return Err("list-differs");
    }
    Ok(shape)
}

/// The page envelope the tool's checked reads holding their list elsewhere than the plan's
/// place (all at one other place) show, when they do.
fn page_envelope(
    timeline: &Timeline,
    plan: &ListPlan,
    model: &crate::model::QueryModel,
    entities: &Entities,
    (rules, whole_lines): (&crate::rules::RuleSet, &[ListLine]),
) -> Option<crate::page_envelope::PageEnvelope> {
    let paged: Vec<(&Observation, String)> = timeline
        .checked(plan.tool)
        .filter(|observation| observation.is_success())
        .filter_map(|observation| {
            let pointer = observation
                .body
                .as_ref()
                .and_then(|body| place_in(body, Some(&plan.list_pointer)))?;
            (pointer != plan.list_pointer).then_some((observation, pointer))
        })
        .collect();
    let (_, pointer) = paged.first()?;
    if paged.iter().any(|(_, other)| other != pointer) {
        return None;
    }
    let reads: Vec<&Observation> = paged.iter().map(|(observation, _)| *observation).collect();
    super::list_query::learn_page_envelope(
        (plan, &plan.name),
        (pointer, &reads),
        model,
        entities,
        (rules, whole_lines),
    )
}

/// Hidden fields: what the plain lines leave out of the fields they show.
fn hidden_fields(plan: &ListPlan, plain: &[&Observation], entities: &Entities) -> Vec<String> {
    let mut hidden: BTreeSet<String> = BTreeSet::new();
    for line in plain {
        let Some(listed) = plan.members.get(&line.ordinal) else {
            continue;
        };
        for (index, member) in listed.iter().zip(members_of(line, &plan.list_pointer)) {
            if let (Some(fields), Some(shown)) =
                (entities.list[*index].fields.as_object(), member.as_object())
            {
                for key in fields.keys() {
                    if !shown.contains_key(key) {
                        hidden.insert(key.to_owned());
                    }
                }
            }
        }
    }
    hidden.into_iter().collect()
}

/// Each listed member of the plain lines as the entity stores it and as the line showed it (both
/// objects).
fn stored_and_shown<'a>(
    plan: &'a ListPlan,
    plain: &'a [&'a Observation],
    entities: &'a Entities,
) -> impl Iterator<Item = (&'a Object, &'a Object)> {
    plain.iter().flat_map(move |line| {
        let listed = plan
            .members
            .get(&line.ordinal)
            .map_or(&[][..], Vec::as_slice);
        listed
            .iter()
            .zip(members_of(line, &plan.list_pointer))
            .filter_map(|(index, member)| {
                Some((
                    entities.list[*index].fields.as_object()?,
                    member.as_object()?,
                ))
            })
    })
}

/// Lifted fields: hidden object fields whose members every plain line shows at the top level of
/// the entities holding them (with the same values, where the entity has no field of that name),
/// and at least one member shows some.
fn lifted_fields(
    plan: &ListPlan,
    plain: &[&Observation],
    entities: &Entities,
    hidden: &[String],
) -> Vec<String> {
    // field → (every member agrees, some member showed a member of it)
    let mut found: BTreeMap<&str, (bool, bool)> = BTreeMap::new();
    for (stored, shown) in stored_and_shown(plan, plain, entities) {
        for field in hidden {
            let entry = found.entry(field.as_str()).or_insert((true, false));
            match stored.get(field) {
                None => {}
                Some(Json::Object(nested)) => {
                    entry.0 &= nested.iter().all(|(name, value)| {
                        !stored.contains_key(name) && shown.get(name) == Some(value)
                    });
                    entry.1 |= !nested.is_empty();
                }
                Some(_) => entry.0 = false,
            }
        }
    }
    found
        .into_iter()
        .filter(|(_, (agrees, shown))| *agrees && *shown)
        .map(|(field, _)| field.to_owned())
        .collect()
}

/// The envelope members the state computes from the members a list answer lists: the counters
/// every line carries, the identity lists ([`crate::identity_lists`]), and both together (no
/// role's, never minted per response).
fn computed_members(
    lines: &[&Observation],
    plan: &ListPlan,
    entities: &Entities,
) -> (Vec<String>, Vec<String>, Vec<String>) {
    let counters = common_counters(lines, &plan.list_pointer);
    let identity_lists = entities
        .entity_type(&plan.entity_type)
        .map(|entity_type| {
            crate::identity_lists::learned(lines, &plan.list_pointer, &entity_type.identity_field)
        })
        .unwrap_or_default();
    let computed = counters.iter().chain(&identity_lists).cloned().collect();
    (counters, identity_lists, computed)
}

/// Counters: envelope members counting what every line lists.
fn common_counters(lines: &[&Observation], list_pointer: &str) -> Vec<String> {
    let mut counters: Option<Vec<String>> = None;
    for line in lines {
        let listed = members_of(line, list_pointer).len();
        let body = line.body.clone().unwrap_or_default();
        let here: Vec<String> = scalar_pointers(&body, list_pointer)
            .into_iter()
            .filter(|(pointer, name)| {
                counter_name(name)
                    && body
                        .pointer(pointer)
                        .is_some_and(|value| counts(value, listed))
            })
            .map(|(pointer, _)| pointer)
            .collect();
        counters = Some(match counters {
            None => here,
            Some(previous) => previous
                .into_iter()
                .filter(|pointer| here.contains(pointer))
                .collect(),
        });
    }
    counters.unwrap_or_default()
}

/// The lines matched against the entities: which pass, the view values learned from them, and
/// the fields each line asking for some fields only showed.
struct MatchedLines<'a> {
    /// Per entity index, what the view shows beyond the entity.
    overlays: HashMap<usize, Object>,
    passing: Vec<&'a Observation>,
    failing: Vec<&'a Observation>,
    /// Per line asking for some fields only, the fields its members showed.
    projections: BTreeMap<u64, Vec<String>>,
}

impl MatchedLines<'_> {
    /// Installs the view values learned and cites the passing lines on the entities they list.
    fn install(&mut self, plan: &ListPlan, view: &str, entities: &mut Entities) {
        for (index, overlay) in self.overlays.drain() {
            if !overlay.is_empty() {
                entities.list[index]
                    .view_fields
                    .insert(view.to_owned(), Json::Object(overlay));
            }
        }
        for line in &self.passing {
            for index in &plan.members[&line.ordinal] {
                entities.cite(*index, line.ordinal);
            }
        }
    }
}

/// View values, line by line: a line passes when every member renders as recorded.
fn match_lines<'a>(
    ordered: &[&'a Observation],
    plan: &ListPlan,
    shape: &ViewShape,
    entities: &Entities,
) -> MatchedLines<'a> {
    let mut matched = MatchedLines {
        overlays: HashMap::new(),
        passing: Vec::new(),
        failing: Vec::new(),
        projections: BTreeMap::new(),
    };
    for line in ordered {
        let Some(listed) = plan.members.get(&line.ordinal) else {
            matched.failing.push(line);
            continue;
        };
        // A line asking for some fields only whose members show those fields.
        if selects_fields(line.pairs())
            && let Some(fields) =
                projected_line(shape, entities, &matched.overlays, listed, line, plan)
        {
            matched.projections.insert(line.ordinal, fields);
            matched.passing.push(line);
            continue;
        }
        match line_overlays(line, listed, plan, shape, entities, &matched.overlays) {
            Some(tentative) => {
                matched.overlays.extend(tentative);
                matched.passing.push(line);
            }
            None => matched.failing.push(line),
        }
    }
    matched
}

/// The view values one line teaches (what each member shows beyond its entity's projected
/// fields), or `None` when a member lacks a field, disagrees with what an earlier line taught,
/// or shows its row document (a related entity the read asked for).
fn line_overlays(
    line: &Observation,
    listed: &[usize],
    plan: &ListPlan,
    shape: &ViewShape,
    entities: &Entities,
    overlays: &HashMap<usize, Object>,
) -> Option<HashMap<usize, Object>> {
    let mut tentative: HashMap<usize, Object> = HashMap::new();
    for (index, member) in listed.iter().zip(members_of(line, &plan.list_pointer)) {
        let shown = member.as_object()?;
        let base = project_fields(
            shape,
            entities.list[*index]
                .fields
                .as_object()
                .unwrap_or(&Object::new()),
        );
        if base.keys().any(|key| !shown.contains_key(key)) {
            return None;
        }
        let overlay: Object = shown
            .iter()
            .filter(|(key, value)| base.get(key) != Some(*value))
            .map(|(key, value)| (key.to_owned(), value.clone()))
            .collect();
        // A row shown with its document is the row and a related entity, not a view value.
        if overlay.keys().any(|key| plan.row_documents.contains(key)) {
            return None;
        }
        match overlays.get(index).or(tentative.get(index)) {
            Some(existing) if *existing != overlay => return None,
            Some(_) => {}
            None => {
                tentative.insert(*index, overlay);
            }
        }
    }
    Some(tentative)
}

/// The passing lines as the view's lines, and the members every member of them carried.
struct BuiltLines {
    lines: Vec<ListLine>,
    required: Option<BTreeSet<String>>,
}

/// Membership, and the check that every line renders whole as recorded (in record order); a
/// line rendering over the reply limit keeps the view recorded (`rendered-oversize`).
fn list_lines(
    lines: &[&Observation],
    matched: &MatchedLines<'_>,
    plan: &ListPlan,
    view: &str,
    shape: &ViewShape,
    entities: &Entities,
) -> Result<BuiltLines, &'static str> {
    let mut built = BuiltLines {
        lines: Vec::new(),
        required: None,
    };
    let passed: BTreeSet<u64> = matched.passing.iter().map(|line| line.ordinal).collect();
    for line in lines {
        if !passed.contains(&line.ordinal) {
            if let Some(bare) = bare_row_line(line, matched, plan, shape, entities) {
                built.lines.push(list_line(
                    &bare,
                    None,
                    (plan, lines),
                    view,
                    shape,
                    entities,
                )?);
            }
            continue;
        }
        let projection = matched.projections.get(&line.ordinal).cloned();
        if projection.is_none() {
            for member in members_of(line, &plan.list_pointer) {
                if let Some(object) = member.as_object() {
                    let keys: BTreeSet<String> = object.keys().map(str::to_owned).collect();
                    built.required = Some(match built.required.take() {
                        None => keys,
                        Some(previous) => previous.intersection(&keys).cloned().collect(),
                    });
                }
            }
        }
        built.lines.push(list_line(
            line,
            projection,
            (plan, lines),
            view,
            shape,
            entities,
        )?);
    }
    Ok(built)
}

/// A failing line that showed its rows with their documents (see
/// [`ListPlan::seed_row_documents`]), asked only by parameters no passing line names: the read
/// without them, its rows without their documents, which lists what the bare read lists (the
/// rows of a database read only with their documents, `include_docs=true`). `None` when a
/// member differs from its entity otherwise.
fn bare_row_line(
    line: &Observation,
    matched: &MatchedLines<'_>,
    plan: &ListPlan,
    shape: &ViewShape,
    entities: &Entities,
) -> Option<Observation> {
    if plan.row_documents.is_empty() || line.pairs().is_empty() {
        return None;
    }
    let listed = plan.members.get(&line.ordinal)?;
    let named_elsewhere = |name: &str| {
        matched
            .passing
            .iter()
            .any(|passing| passing.pairs().iter().any(|(named, _)| named == name))
    };
    if line.pairs().iter().any(|(name, _)| named_elsewhere(name)) {
        return None;
    }
    let mut bare = line.clone();
    bare.query = None;
    without_row_documents(&mut bare, plan)?;
    let overlays = line_overlays(&bare, listed, plan, shape, entities, &matched.overlays)?;
    overlays
        .values()
        .all(|overlay| overlay.is_empty())
        .then_some(bare)
}

/// The failing lines that showed their rows with their documents (see
/// [`ListPlan::seed_row_documents`]), read without the pairs asking for the documents and
/// without them: those pairs are the ones every such line gives and no passing line names
/// (`include_docs=true`). A line keeping other pairs (`limit=3&skip=3` beside
/// `include_docs=true`) whose every row is then its entity as held teaches query roles as a
/// passing line does; a line keeping none is the bare read [`bare_row_line`] lists.
fn document_free_lines(
    matched: &MatchedLines<'_>,
    plan: &ListPlan,
    shape: &ViewShape,
    entities: &Entities,
) -> Vec<Observation> {
    if plan.row_documents.is_empty() {
        return Vec::new();
    }
    let shows_documents = |line: &Observation| {
        members_of(line, &plan.list_pointer).iter().any(|row| {
            row.as_object()
                .is_some_and(|row| plan.row_documents.iter().any(|name| row.contains_key(name)))
        })
    };
    let named: BTreeSet<&str> = matched
        .passing
        .iter()
        .flat_map(|line| line.pairs().iter().map(|(name, _)| name.as_str()))
        .collect();
    let documented: Vec<&Observation> = matched
        .failing
        .iter()
        .copied()
        .filter(|line| shows_documents(line))
        .collect();
    let Some(asking) = documented
        .iter()
        .map(|line| {
            line.pairs()
                .iter()
                .filter(|(name, _)| !named.contains(name.as_str()))
                .cloned()
                .collect::<BTreeSet<(String, String)>>()
        })
        .reduce(|common, pairs| common.intersection(&pairs).cloned().collect())
    else {
        return Vec::new();
    };
    if asking.is_empty() {
        return Vec::new();
    }
    documented
        .into_iter()
        .filter_map(|line| {
            let rest: Vec<(String, String)> = line
                .pairs()
                .iter()
                .filter(|pair| !asking.contains(*pair))
                .cloned()
                .collect();
            if rest.is_empty() {
                return None;
            }
            let mut bare = line.clone();
            bare.query = Some(rest);
            without_row_documents(&mut bare, plan)?;
            let listed = plan.members.get(&line.ordinal)?;
            let overlays = line_overlays(&bare, listed, plan, shape, entities, &matched.overlays)?;
            overlays
                .values()
                .all(|overlay| overlay.is_empty())
                .then_some(bare)
        })
        .collect()
}

/// Removes the row documents from each row of a line's list; `None` when a row is no object.
fn without_row_documents(line: &mut Observation, plan: &ListPlan) -> Option<()> {
    let rows = line
        .body
        .as_mut()
        .and_then(|body| crate::render::pointer_mut(body, &plan.list_pointer))?;
    let Json::Array(rows) = rows else {
        return None;
    };
    for row in rows.iter_mut() {
        let object = row.as_object_mut()?;
        for name in &plan.row_documents {
            object.remove(name);
        }
    }
    Some(())
}

/// One passing line: all of its collection in state order when it pages the whole collection
/// and lists exactly what the state holds there, else its recorded members (`lines`: the
/// plan's, which may show the line to be a default page).
fn list_line(
    line: &Observation,
    projection: Option<Vec<String>>,
    (plan, lines): (&ListPlan, &[&Observation]),
    view: &str,
    shape: &ViewShape,
    entities: &Entities,
) -> Result<ListLine, &'static str> {
    let listed = &plan.members[&line.ordinal];
    let whole = pages_only(line);
    let listed_collection = listed_collection(&line.path, &plan.entity_type);
    let collection = listed_collection.as_deref().map_or(&[][..], |collection| {
        entities.collection(&plan.entity_type, collection)
    });
    // Held entities the whole read left out, when it lists every other one in the state's order.
    let excluded: Vec<usize> = collection
        .iter()
        .copied()
        .filter(|index| !listed.contains(index))
        .collect();
    let kept: Vec<usize> = collection
        .iter()
        .copied()
        .filter(|index| !excluded.contains(index))
        .collect();
    let all = (whole
        || (projection.is_some() && pages_only_but_selection(line))
        || pages_only_but_presentation(line, entities, listed))
        && listed_collection.is_some()
        && kept == *listed
        // Only a read asking for nothing but the list shows what the list leaves out (a page
        // leaves out the entities after it, a default page too).
        && (excluded.is_empty()
            || (!listed.is_empty()
                && line.pairs().is_empty()
                && super::default_page::shown_size(line, plan, entities, lines).is_none()));
    let member_ref = |index: &usize| MemberRef {
        collection: entities.list[*index].collection.clone(),
        id: entities.list[*index].id.clone(),
    };
    if rendered_size(
        line,
        (plan, view, shape),
        entities,
        (listed, projection.as_deref()),
    ) > rea_manifest::REPLY_BODY_LIMIT
    {
        return Err("rendered-oversize");
    }
    Ok(ListLine {
        record_ordinal: line.ordinal,
        path: line.path.to_string(),
        query: line.query.clone(),
        membership: if all {
            Membership::All
        } else {
            Membership::Recorded
        },
        members: if all {
            Vec::new()
        } else {
            listed.iter().map(member_ref).collect()
        },
        excluded: if all {
            excluded.iter().map(member_ref).collect()
        } else {
            Vec::new()
        },
        page_size: if all { page_size(line) } else { None },
        whole,
        projection,
    })
}

/// The size of a line's answer rendered from the state: its recorded envelope holding the
/// listed entities, each rendered by the view's shape (and projected to the selected fields).
fn rendered_size(
    line: &Observation,
    (plan, view, shape): (&ListPlan, &str, &ViewShape),
    entities: &Entities,
    (listed, projection): (&[usize], Option<&[String]>),
) -> usize {
    let rendered: Vec<Json> = listed
        .iter()
        .map(|index| {
            let rendered = render_entity(shape, view, &entities.list[*index]);
            match projection {
                Some(fields) => project_to(&rendered, fields),
                None => rendered,
            }
        })
        .collect();
    crate::render::with_value_at(
        line.body.clone().unwrap_or_default(),
        &plan.list_pointer,
        Json::Array(rendered),
    )
    .to_canonical_vec()
    .len()
}

/// Members of reads after the observation window that leave a field out show the application
/// may leave it out: that field is not required.
fn relax_required(
    mut required: BTreeSet<String>,
    timeline: &Timeline,
    plan: &ListPlan,
) -> BTreeSet<String> {
    for observation in timeline.all(plan.tool) {
        if timeline.is_checked(observation) || !observation.is_success() {
            continue;
        }
        for member in members_of(observation, &plan.list_pointer) {
            if let Some(object) = member.as_object()
                && !marked_deleted(member)
            {
                required.retain(|key| object.contains_key(key));
            }
        }
    }
    required
}

/// The envelope members that differ between the passing lines' answers (answered as each line
/// recorded them), except counters and the query's totals.
fn per_response_members(
    list_pointer: &str,
    passing: &[&Observation],
    counters: &[String],
    query: Option<&QueryModel>,
) -> Vec<String> {
    let mut members = differing_envelope_members(list_pointer, passing);
    members.retain(|pointer| {
        !counters
            .iter()
            .any(|counter| counter.starts_with(pointer.as_str()))
    });
    if let Some(model) = query {
        members.retain(|pointer| {
            !model
                .totals
                .iter()
                .any(|total| total.starts_with(pointer.as_str()))
        });
    }
    members
}

/// Whether some member lists a `sorted_arrays` string array out of order.
fn lists_unsorted(members: &[Json], shape: &ViewShape) -> bool {
    members.iter().any(|member| {
        shape.sorted_arrays.iter().any(|field| {
            let Some(Json::Array(items)) = member.get(field) else {
                return false;
            };
            items.windows(2).any(
                |pair| matches!((pair[0].as_str(), pair[1].as_str()), (Some(a), Some(b)) if a > b),
            )
        })
    })
}

/// Whether a line only pages its list from the beginning, field selections aside.
fn pages_only_but_selection(observation: &Observation) -> bool {
    observation
        .pairs()
        .iter()
        .all(|(name, value)| only_pages(name, value) || crate::query::is_projection(name.as_str()))
}

/// Whether a line asks for nothing but pages, selections and names spelled with a sigil that
/// play no query role over its listed entities (`@verbose=2`: no reserved name, and no member
/// they hold, so it filters, sorts and pages nothing): such a name chooses how members are
/// shown, not which, and a line listing every held entity with it lists the whole collection.
fn pages_only_but_presentation(line: &Observation, entities: &Entities, listed: &[usize]) -> bool {
    let has_field = |field: &str| {
        listed
            .iter()
            .any(|index| entities.list[*index].fields.get(field).is_some())
    };
    let presentation = |name: &str| {
        rea_plugin_api::query_fields::unsigiled(name) != name
            && rea_plugin_api::query_fields::candidate_roles(name, &has_field).is_empty()
    };
    let pairs = line.pairs();
    pairs.iter().any(|(name, _)| presentation(name))
        && pairs.iter().all(|(name, value)| {
            only_pages(name, value)
                || crate::query::is_projection(name.as_str())
                || presentation(name)
        })
}

/// The fields a line asking for some fields only showed (in the recorded order), when every
/// member shows the same fewer fields of its entity, with the values the entity renders.
fn projected_line(
    shape: &ViewShape,
    entities: &Entities,
    overlays: &HashMap<usize, Object>,
    listed: &[usize],
    line: &Observation,
    plan: &ListPlan,
) -> Option<Vec<String>> {
    let members = members_of(line, &plan.list_pointer);
    let fields: Vec<String> = members
        .first()?
        .as_object()?
        .keys()
        .map(str::to_owned)
        .collect();
    let mut fewer = false;
    for (index, member) in listed.iter().zip(members) {
        let shown = member.as_object()?;
        if shown.len() != fields.len() || fields.iter().any(|field| !shown.contains_key(field)) {
            return None;
        }
        let stored = entities.list[*index]
            .fields
            .as_object()
            .cloned()
            .unwrap_or_default();
        let mut rendered = project_fields(&unhidden(shape, &fields), &stored);
        if let Some(overlay) = overlays.get(index) {
            for (key, value) in overlay.iter() {
                rendered.insert(key, value.clone());
            }
        }
        fewer |= project_fields(shape, &stored).len() > fields.len() || stored.len() > fields.len();
        if project_to(&Json::Object(rendered), &fields) != *member {
            return None;
        }
    }
    fewer.then_some(fields)
}

/// A view's shape with the fields a selection names shown, hidden or not: a list whose plain
/// reads leave a field out shows it when asked for it.
pub(crate) fn unhidden(shape: &ViewShape, selected: &[String]) -> ViewShape {
    let mut shape = shape.clone();
    shape
        .hidden_fields
        .retain(|hidden| !selected.contains(hidden));
    shape
}

/// Learns how the plain lines spell fields otherwise than the stored values, when they always
/// do it the same way: a clock format (`clock_formats`), objects shown with fewer keys
/// (`nested_fields`), string arrays listed sorted (`sorted_arrays`), stored records shown as one
/// of their scalars (`linked_ids`). A field is learned only when every member showing it fits
/// the rule and at least one needed it.
fn learn_spellings(
    plan: &ListPlan,
    plain: &[&Observation],
    entities: &Entities,
    shape: &mut ViewShape,
) {
    let mut fields: BTreeMap<String, Spellings> = BTreeMap::new();
    for (stored, shown) in stored_and_shown(plan, plain, entities) {
        for (key, shown_value) in shown.iter() {
            if let Some(stored_value) = stored.get(key) {
                fields
                    .entry(key.to_owned())
                    .or_default()
                    .note(stored_value, shown_value);
            }
        }
    }
    for (key, spellings) in fields {
        if let (Some(Some(format)), true) = (&spellings.clock, spellings.needed.0) {
            shape.clock_formats.insert(key.clone(), format.clone());
        } else if let (Some(Some(keys)), true) = (&spellings.nested, spellings.needed.1) {
            shape.nested_fields.insert(key.clone(), keys.clone());
        } else if spellings.sorted == Some(true) && spellings.needed.2 {
            shape.sorted_arrays.push(key);
        } else if let Some(id_key) = spellings.linked_key() {
            shape.linked_ids.insert(key, id_key);
        }
    }
}

/// How a list shows one field of its members against what the entities store: the clock format
/// every member respells it in, the nested keys every member shows of it, whether every member
/// lists it (a string array) sorted, the keys of a stored record every member shows the value
/// of in its place; and whether each spelling is needed (some member differs).
#[derive(Default)]
struct Spellings {
    clock: Option<Option<String>>,
    nested: Option<Option<Vec<String>>>,
    sorted: Option<bool>,
    linked: Option<Option<BTreeSet<String>>>,
    needed: (bool, bool, bool, bool),
}

impl Spellings {
    /// Notes one member's stored and shown value.
    fn note(&mut self, stored_value: &Json, shown_value: &Json) {
        // Clocks: the shown spelling is the stored instant respelled.
        let clock = shown_value
            .as_str()
            .and_then(crate::clock::format_of)
            .filter(|format| {
                crate::clock::respell(stored_value, format).as_ref() == Some(shown_value)
            });
        self.clock = Some(match (&self.clock, clock) {
            (None, Some(format)) => Some(format),
            (Some(Some(previous)), Some(format)) if *previous == format => Some(format),
            _ => None,
        });
        self.needed.0 |= shown_value != stored_value;
        // Nested objects shown with a subset of their keys, always the same keys.
        let nested = match (stored_value, shown_value) {
            (Json::Object(inner), Json::Object(shown_inner))
                if shown_inner
                    .iter()
                    .all(|(name, value)| inner.get(name) == Some(value)) =>
            {
                let mut keys: Vec<String> = shown_inner.keys().map(str::to_owned).collect();
                keys.sort();
                Some(keys)
            }
            _ => None,
        };
        self.nested = Some(match (&self.nested, nested) {
            (None, Some(keys)) => Some(keys),
            (Some(Some(previous)), Some(keys)) if *previous == keys => Some(keys),
            _ => None,
        });
        self.needed.1 |= matches!((stored_value, shown_value), (Json::Object(a), Json::Object(b)) if a.len() > b.len());
        // String arrays listed sorted.
        let sorted = match (stored_value, shown_value) {
            (Json::Array(items), Json::Array(shown_items))
                if items.iter().all(|item| matches!(item, Json::String(_))) =>
            {
                let mut expected = items.clone();
                expected.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
                expected == *shown_items
            }
            _ => false,
        };
        self.sorted = Some(self.sorted.unwrap_or(true) && sorted);
        self.needed.2 |= sorted && stored_value != shown_value;
        self.note_linked(stored_value, shown_value);
    }

    /// Notes a stored record shown as one of its scalars: the keys holding the shown value narrow
    /// the candidates; equal values (a `null` link, an id stored bare) fit without narrowing, and
    /// any other difference (the record shown whole or otherwise) rules the spelling out.
    fn note_linked(&mut self, stored_value: &Json, shown_value: &Json) {
        let keys: BTreeSet<String> = match (stored_value, shown_value) {
            (Json::Object(_), _) if stored_value == shown_value => {
                self.linked = Some(None);
                return;
            }
            (Json::Object(record), Json::String(_) | Json::Number(_)) => record
                .iter()
                .filter(|(_, value)| *value == shown_value)
                .map(|(name, _)| name.to_owned())
                .collect(),
            _ if stored_value == shown_value => return,
            _ => BTreeSet::new(),
        };
        self.needed.3 = true;
        self.linked = Some(match self.linked.take() {
            None => Some(keys),
            Some(Some(previous)) => Some(previous.intersection(&keys).cloned().collect()),
            Some(None) => None,
        });
    }

    /// The one key of the stored records every member showing the field showed the value of,
    /// when some member needed it.
    fn linked_key(&self) -> Option<String> {
        match (&self.linked, self.needed.3) {
            (Some(Some(keys)), true) if keys.len() == 1 => keys.first().cloned(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{
        ListPlan, Spellings, list_pointer, listed_collection, row_documents, scalar_pointers,
        slash_joins, unhidden,
    };
    use crate::model::{EntityType, ViewShape};
    use rea_plugin_api::json::parse;

    #[test]
    fn envelope_scalars_are_found_down_to_two_levels_in_objects() {
        let body = parse(
            br#"{"data": [{"id": 1}], "links": {"next": null, "first": "/b/"},
                 "meta": {"pagination": {"count": 10, "deeper": {"no": 1}}}, "total": 3}"#,
        )
        .expect("json");
        let found: Vec<String> = scalar_pointers(&body, "/data")
            .into_iter()
            .map(|(pointer, _)| pointer)
            .collect();
        assert_eq!(found, ["/links/first", "/meta/pagination/count", "/total"]);
    }

    #[test]
    fn a_trailing_slash_spelling_lists_the_same_collection_and_joins_its_plan() {
        assert_eq!(
            listed_collection("/api/tasks/", "/api/tasks").as_deref(),
            Some("/api/tasks")
        );
        assert_eq!(listed_collection("/api/tasks/", "/api/users"), None);
        let plan = |tool: usize, entity_type: &str| ListPlan {
            tool,
            name: format!("tool{tool}"),
            entity_type: entity_type.to_owned(),
            list_pointer: "/data".to_owned(),
            lines: vec![tool as u64],
            members: Default::default(),
            row_documents: Default::default(),
        };
        let get = |template: &str| ("GET".to_owned(), template.to_owned());
        let plans = [
            plan(0, "/api/tasks"),
            plan(1, "/api/tasks"),
            plan(2, "/api/users"),
            plan(3, "/api/tasks"),
        ];
        let spelled = [
            get("/api/tasks"),
            get("/api/tasks/"),
            get("/api/users/"),
            ("POST".to_owned(), "/api/tasks/".to_owned()),
        ];
        // Only the GET of the same type's collection with a trailing slash joins.
        assert_eq!(slash_joins(&spelled, &plans), vec![(0, 1)]);
    }

    #[test]
    fn a_list_two_levels_deep_sits_in_an_envelope_of_counters_and_links() {
        let body =
            parse(br#"{"data": {"collection": [{"id": "1"}], "total": 1, "links": {"self": []}}}"#)
                .expect("json");
        assert_eq!(list_pointer(&body).as_deref(), Some("/data/collection"));
        // A folder holding its children beside its own name is an entity, not an envelope.
        let folder =
            parse(br#"{"node": {"key": "/dir", "nodes": [{"key": "/dir/a"}]}}"#).expect("json");
        assert_eq!(list_pointer(&folder), None);
        let top = parse(br#"{"data": [{"id": "1"}], "meta": {"items": [{}]}}"#).expect("json");
        assert_eq!(list_pointer(&top).as_deref(), Some("/data"));
    }

    #[test]
    fn a_record_every_member_shows_as_one_of_its_scalars_is_a_linked_id() {
        let value = |text: &str| parse(text.as_bytes()).expect("json");
        let mut spellings = Spellings::default();
        spellings.note(&value(r#"{"id": 1, "rank": 1}"#), &value("1"));
        spellings.note(&value("null"), &value("null"));
        // Only `id` holds the shown value in both records.
        spellings.note(&value(r#"{"id": 4, "rank": 2}"#), &value("4"));
        assert_eq!(spellings.linked_key(), Some("id".to_owned()));
        // One member showing the record whole rules the spelling out.
        spellings.note(
            &value(r#"{"id": 3, "rank": 1}"#),
            &value(r#"{"id": 3, "rank": 1}"#),
        );
        assert_eq!(spellings.linked_key(), None);
        // Links that are all null need no spelling; two candidate keys are ambiguous.
        let mut nulls = Spellings::default();
        nulls.note(&value("null"), &value("null"));
        assert_eq!(nulls.linked_key(), None);
        let mut ambiguous = Spellings::default();
        ambiguous.note(&value(r#"{"id": 1, "rank": 1}"#), &value("1"));
        assert_eq!(ambiguous.linked_key(), None);
    }

    #[test]
    fn a_selection_shows_the_fields_it_names_that_plain_reads_hide() {
        let shape = ViewShape {
            hidden_fields: vec!["title".into(), "status".into()],
            ..ViewShape::default()
        };
        assert_eq!(
            unhidden(&shape, &["title".into()]).hidden_fields,
            vec!["status".to_owned()]
        );
    }

    #[test]
    fn a_row_document_carries_the_rows_identity_in_another_held_type() {
        let others = [EntityType::new("/{db}".into(), "_id".into(), None)];
        let row = parse(
            br#"{"id": "k", "key": "k", "value": {"rev": "1-x"}, "doc": {"_id": "k"},
                "other": {"_id": "j"}}"#,
        )
        .expect("json");
        let found = row_documents(&row, "k", "/a/_all_docs", &others);
        let names: Vec<(&str, &str)> = found
            .iter()
            .map(|(name, _, _, collection)| (*name, collection.as_str()))
            .collect();
        // `value` holds no identity, `other` another row's document.
        assert_eq!(names, [("doc", "/a")]);
        // A path no collection of the type encloses seeds nothing.
        assert!(row_documents(&row, "k", "/_all_docs", &others).is_empty());
    }

    #[test]
    fn a_representation_suffix_is_not_part_of_the_collection_listed() {
        let listed = |path, template| listed_collection(path, template);
        assert_eq!(
            listed(
                "/recipes/default/tiddlers.json",
                "/recipes/default/tiddlers"
            ),
            Some("/recipes/default/tiddlers".into())
        );
        // A parameter segment would also take the suffixed name: the suffix still goes.
        assert_eq!(
            listed("/db/tasks.json", "/db/{table}"),
            Some("/db/tasks".into())
        );
        assert_eq!(listed("/db/tasks", "/db/{table}"), Some("/db/tasks".into()));
        // Not a representation suffix (digits, too long), or another collection.
        assert_eq!(listed("/db/v1.2", "/db/{table}"), Some("/db/v1.2".into()));
        assert_eq!(
            listed("/db/tasks.backup", "/db/{table}"),
            Some("/db/tasks.backup".into())
        );
        assert_eq!(listed("/other/tasks.json", "/db/{table}"), None);
    }

    #[test]
    fn a_body_shaped_as_a_held_entity_with_an_array_of_other_objects_is_no_list() {
        use crate::derive::tests::{derive, record};
        use crate::model::ViewDetail;
        use serde_json::json;
        let folder = |id: &str| json!({"id": id, "label": id, "paused": false, "devices": [{"deviceID": "A"}]});
        let tree = json!({"name": "", "path": "", "type": "directory",
            "content": [{"name": "a", "path": "a", "type": "file", "content": null}]});
        let fixture = derive(vec![
            record(
                0,
                "GET",
                "/folders",
                200,
                json!([folder("docs"), folder("music")]),
            ),
            record(1, "GET", "/defaults/folder", 200, folder("")),
            record(2, "GET", "/contents", 200, tree),
        ]);
        assert!(matches!(
            fixture.view("get_defaults_folder"),
            ViewDetail::Document(_)
        ));
        // A listing whose entries are of its own type stays a list.
        assert!(matches!(fixture.view("get_contents"), ViewDetail::List(_)));
    }
}

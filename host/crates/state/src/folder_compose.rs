//! Folder listings composed after served writes: a folder entity whose held member lists its
//! children by path (`notes` holding `content: [{"name": "todo.md", "path": "notes/todo.md",
//! …}]`), read after a served write below it, answers its listing composed from the live state
//! rather than the listing the build read before its writes (which would be stale).
//!
//! **Composing.** The folder's rows, as the state holds them, keep their order (the tree's child
//! order): a row whose child a served write changed shows the live entity as the folder lists it
//! (each member of the rows' shape; the members every row of the type's listings shows `null`
//! while the entity read alone holds a value, `content` and `format`, stay `null`); a row whose
//! child a served write removed or moved away is left out; a row no write touched stays as the
//! listing showed it.
//! A live entity in the folder no row names is a *new child*: its place among the others is the
//! application's own order (a file system's), which no recording teaches when it has siblings,
//! so such a listing is refused (`folder-child-place`); a new child alone in its folder has one
//! place. A folder whose children the build never listed (its member `null`) is refused
//! (`folder-unlisted`), unless a served write created it, when its every child is a write's. The
//! folder's *stamps* are the members its first reads after the build's writes showed changed
//! from clock to clock (`last_modified`, `created`, learned per type in [`learn_stamps`]): they
//! show the latest served write's clock, spelled in the format those reads show (clocks are
//! compared by format; the instant is the served clock's).
//!
//! **Created folders.** An entity a served write created (written since the reset, no entity at
//! its path in the derived state, no array it holds filled) that is shaped as a type's listed
//! folders (their members, and of the members they all hold with one value other than a clock,
//! `"type": "directory"`, each that value or `null`) is a folder whatever the view its path's
//! tool has (a recorded view, another type's item view): its read answers its children, the
//! entities served writes made in it, and the listed folders' common values where it holds
//! `null` (`"format": "json"`), in the listed type's item envelope.
//!
//! Learned on Jupyter Server's contents (its `notes`, `reports` folders); etcd's v2 keys tree
//! composes its listings after writes in [`crate::tree_reads`].

use rea_plugin_api::contracts::capture::CompactString;
use std::collections::{BTreeMap, BTreeSet};

use rea_plugin_api::json::{Json, Object};

use crate::answer::{KeptRecord, StateAnswer, StateSource, state_answer};
use crate::call::Call;
use crate::clock;
use crate::derive::entities::collection_key;
use crate::model::{Entity, EntityType, ReadView, StateView, ViewDetail};
use crate::observation::{Timeline, decoded};
use crate::recorded::{NotModelled, RecordingUnusable};
use crate::service::StateService;
use crate::store::LiveState;

/// Why a folder read after writes is not composed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotComposed {
    /// The build never listed the folder's children.
    Unlisted,
    /// A new child has siblings: its place in the listing is not shown.
    ChildPlace,
    /// The held folder lists no children by path, or is not held.
    NotAFolder,
}

impl NotComposed {
    /// The refusal's reason.
    pub fn reason(self) -> &'static str {
        match self {
            Self::Unlisted => "folder-unlisted",
            Self::ChildPlace => "folder-child-place",
            Self::NotAFolder => "folder-after-write",
        }
    }
}

/// The percent-decoded form of a path or segment.
fn plain(text: &str) -> String {
    rea_manifest::segments::percent_decode(text)
        .map_or_else(|| text.to_owned(), std::borrow::Cow::into_owned)
}

/// The path an entity names (`/api/contents/notes`), decoded.
pub fn entity_path(entity: &Entity) -> String {
    format!(
        "{}/{}",
        plain(collection_key(&entity.collection)),
        entity.id
    )
}

/// Whether `text` names a child of the folder `id` (`notes/todo.md` in `notes`).
fn names_child(text: &str, id: &str) -> bool {
    let mut parts = text.trim_end_matches('/').rsplit('/');
    parts.next().is_some_and(|last| !last.is_empty()) && parts.next() == Some(id)
}

/// The member of a folder entity holding its children: an array of objects one of whose text
/// members names a child of the folder.
fn children_member(entity: &Entity) -> Option<String> {
    let Json::Object(fields) = &entity.fields else {
        return None;
    };
    fields.iter().find_map(|(name, value)| {
        let Json::Array(rows) = value else {
            return None;
        };
        let lists = rows.iter().any(|row| {
            row.as_object().is_some_and(|row| {
                row.iter()
                    .any(|(_, v)| v.as_str().is_some_and(|t| names_child(t, &entity.id)))
            })
        });
        lists.then(|| name.to_owned())
    })
}

/// What the derived state teaches about one folder type's listings.
struct FolderType<'s> {
    /// The member holding children.
    children: String,
    /// The listed folders of the type, as derived.
    listed: Vec<&'s Entity>,
    /// The rows' members, in the first row's order.
    shape: Vec<String>,
    /// The members every row shows `null` while an entity read alone holds a value.
    nulled: BTreeSet<String>,
}

fn rows_of<'e>(entity: &'e Entity, children: &str) -> &'e [Json] {
    match entity.fields.get(children) {
        Some(Json::Array(rows)) => rows,
        _ => &[],
    }
}

impl<'s> FolderType<'s> {
    /// The listed folders of `entity_type` in the derived state, and what their rows show.
    fn learn(state: &'s StateView, entity_type: &str) -> Option<Self> {
        let folders: Vec<(&Entity, String)> = state
            .entities
            .iter()
            .filter(|entity| entity.entity_type == entity_type)
            .filter_map(|entity| Some((&**entity, children_member(entity)?)))
            .collect();
        let children = folders.first()?.1.clone();
        let listed: Vec<&Entity> = folders
            .into_iter()
            .filter(|(_, member)| *member == children)
            .map(|(entity, _)| entity)
            .collect();
        let rows: Vec<&Object> = listed
            .iter()
            .flat_map(|folder| rows_of(folder, &children))
            .filter_map(Json::as_object)
            .collect();
        let shape: Vec<String> = rows.first()?.keys().map(str::to_owned).collect();
        let by_path: BTreeMap<String, &Entity> = state
            .entities
            .iter()
            .map(|entity| (entity_path(entity), &**entity))
            .collect();
        let nulled = shape
            .iter()
            .filter(|name| {
                let all_null = rows
                    .iter()
                    .all(|row| matches!(row.get(name), Some(Json::Null)));
                let held = listed.iter().any(|folder| {
                    rows_of(folder, &children).iter().any(|row| {
                        row_child_path(folder, row)
                            .and_then(|path| by_path.get(&path))
                            .and_then(|child| child.fields.get(name))
                            .is_some_and(|value| !matches!(value, Json::Null))
                    })
                });
                all_null && held
            })
            .cloned()
            .collect();
        Some(Self {
            children,
            listed,
            shape,
            nulled,
        })
    }

    /// The folder type a held folder is shaped as: its own type's, else the first type's whose
    /// listed folders hold exactly its members (a folder a served write created in a collection
    /// of files).
    fn of_folder(state: &'s StateView, folder: &Entity) -> Option<Self> {
        let names = |entity: &Entity| -> Option<BTreeSet<String>> {
            Some(
                entity
                    .fields
                    .as_object()?
                    .keys()
                    .map(str::to_owned)
                    .collect(),
            )
        };
        let own = names(folder)?;
        std::iter::once(folder.entity_type.as_str())
            .chain(
                state
                    .types
                    .iter()
                    .map(|known| known.collection_template.as_str()),
            )
            .filter_map(|entity_type| Self::learn(state, entity_type))
            .find(|known| {
                known
                    .listed
                    .iter()
                    .any(|listed| names(listed) == Some(own.clone()))
                    && known.holds_alike(folder)
            })
    }

    /// Whether a held entity holds, of the members every listed folder holds with one value
    /// other than a clock (`"type": "directory"`), each with that value or `null`, and one at least with it: a file
    /// shaped as a folder (`"type": "file"`) is none.
    fn holds_alike(&self, entity: &Entity) -> bool {
        let mut alike = 0;
        for (name, value) in entity.fields.as_object().into_iter().flat_map(Object::iter) {
            let mut shown = self.listed.iter().map(|listed| listed.fields.get(name));
            let Some(Some(first)) = shown.next() else {
                continue;
            };
            let clock = first
                .as_str()
                .is_some_and(|text| clock::format_of(text).is_some());
            if matches!(first, Json::Null) || clock || shown.any(|other| other != Some(first)) {
                continue;
            }
            match value {
                Json::Null => {}
                _ if value == first => alike += 1,
                _ => return false,
            }
        }
        alike > 0
    }

    /// A live child entity as the folder lists it.
    fn entry_of(&self, child: &Entity) -> Json {
        let mut entry = Object::new();
        for name in &self.shape {
            let value = if self.nulled.contains(name) {
                Json::Null
            } else {
                child.fields.get(name).cloned().unwrap_or(Json::Null)
            };
            entry.insert(name.clone(), value);
        }
        Json::Object(entry)
    }
}

/// The path a row names below its folder (`/api/contents/notes/todo.md`): the folder's path and
/// the last part of the row's text naming a child.
fn row_child_path(folder: &Entity, row: &Json) -> Option<String> {
    Some(format!(
        "{}/{}",
        entity_path(folder),
        row_name(folder, row)?
    ))
}

/// The child name a row gives (`todo.md` of `notes/todo.md`).
fn row_name(folder: &Entity, row: &Json) -> Option<String> {
    let Json::Object(row) = row else { return None };
    row.iter().find_map(|(_, value)| {
        let text = value.as_str()?;
        names_child(text, &folder.id).then(|| {
            text.trim_end_matches('/')
                .rsplit('/')
                .next()
                .unwrap_or_default()
                .to_owned()
        })
    })
}

/// The live entities whose collection is the folder's path, by id.
fn live_children<'l>(live: &'l LiveState, folder_path: &str) -> BTreeMap<String, &'l Entity> {
    live.entities()
        .filter(|entity| plain(collection_key(&entity.collection)) == folder_path)
        .map(|entity| (entity.id.clone(), entity))
        .collect()
}

/// The listing of a live folder after served writes (see the module docs): its children, or why
/// they are not composed. `created`: a served write created the folder (its every child is a
/// write's).
fn compose(
    live: &LiveState,
    (folder, created): (&Entity, bool),
    known: &FolderType<'_>,
) -> Result<Vec<Json>, NotComposed> {
    let path = entity_path(folder);
    let derived = known
        .listed
        .iter()
        .find(|listed| listed.entity_type == folder.entity_type && entity_path(listed) == path);
    let rows: &[Json] = match derived {
        Some(listed) => rows_of(listed, &known.children),
        None if created => &[],
        None => return Err(NotComposed::Unlisted),
    };
    let mut children = live_children(live, &path);
    let mut listing = Vec::new();
    for row in rows {
        let name = row_name(folder, row).ok_or(NotComposed::NotAFolder)?;
        let written = live.row_written(&path, &name);
        match children.remove(&name) {
            Some(child) if written => listing.push(known.entry_of(child)),
            None if written => {}
            _ => listing.push(row.clone()),
        }
    }
    match (children.len(), listing.is_empty()) {
        (0, _) => {}
        (1, true) => listing.extend(children.values().map(|child| known.entry_of(child))),
        _ => return Err(NotComposed::ChildPlace),
    }
    Ok(listing)
}

/// The folder as its read after writes shows it: `folder` with its composed children, the
/// members every listed folder of its type holds alike where it holds `null` (a created folder's
/// `format`), and, when `clock` is given, its stamps at that clock (see the module docs).
fn composed_folder(
    known: &FolderType<'_>,
    folder: &Entity,
    children: Vec<Json>,
    stamps: Option<(&BTreeMap<String, String>, &str)>,
) -> Option<Json> {
    let mut fields = folder.fields.as_object()?.clone();
    for (name, value) in fields.iter_mut() {
        if !matches!(value, Json::Null) || *name == known.children {
            continue;
        }
        let mut shown = known.listed.iter().filter_map(|f| f.fields.get(name));
        let first = shown.next()?.clone();
        if shown.all(|other| *other == first) {
            *value = first;
        }
    }
    fields.insert(known.children.clone(), Json::Array(children));
    let Some((stamps, clock)) = stamps else {
        return Some(Json::Object(fields));
    };
    for (member, format) in stamps {
        let stamp = clock::respell(&Json::String(clock.into()), format)?;
        if !fields.contains_key(member) {
            return None;
        }
        fields.insert(member.clone(), stamp);
    }
    Some(Json::Object(fields))
}

impl StateService {
    /// A folder's read after a served write below it, its listing composed from the live state
    /// (see the module docs): the answer, or the refusal's reason.
    pub(crate) fn answer_composed_folder(
        &self,
        view: &ReadView,
        call: &Call,
    ) -> Result<StateAnswer, &'static str> {
        let not_a_folder = NotComposed::NotAFolder.reason();
        let ViewDetail::Item(item) = &view.detail else {
            return Err(not_a_folder);
        };
        if !call.pairs().is_empty() {
            return Err(not_a_folder);
        }
        let segments = call.segments(&view.path_template);
        let live = self.read();
        let folder = held_at(&live, &[item.entity_type.as_str()], &segments).ok_or(not_a_folder)?;
        self.composed_answer(&live, (folder, false), &segments)
    }

    /// A read naming a folder a served write created (held now, written since the reset, no
    /// entity at its path in the derived state, no array it holds filled), answered composed
    /// whatever view the read's tool has: `None` when the call names no such folder or sends a
    /// query.
    pub(crate) fn answer_created_folder(&self, template: &str, call: &Call) -> Option<StateAnswer> {
        if !call.pairs().is_empty() {
            return None;
        }
        let segments = call.segments(template);
        let live = self.read();
        if !live.written_since_reset(&crate::model::WriteScope::All) {
            return None;
        }
        let types: Vec<&str> = self
            .derived()
            .types
            .iter()
            .map(|known| known.collection_template.as_str())
            .collect();
        let folder = held_at(&live, &types, &segments)?;
        let path = entity_path(folder);
        let created = live.row_written(&plain(collection_key(&folder.collection)), &folder.id)
            && !self
                .derived()
                .entities
                .iter()
                .any(|held| entity_path(held) == path)
            && folder
                .fields
                .as_object()?
                .iter()
                .all(|(_, v)| !matches!(v, Json::Array(items) if !items.is_empty()));
        if !created {
            return None;
        }
        FolderType::of_folder(self.derived(), folder)?;
        Some(
            self.composed_answer(&live, (folder, true), &segments)
                .unwrap_or_else(not_modelled),
        )
    }

    /// A live folder's composed answer, rendered into its folder type's item envelope.
    fn composed_answer(
        &self,
        live: &LiveState,
        (folder, created): (&Entity, bool),
        segments: &[CompactString],
    ) -> Result<StateAnswer, &'static str> {
        let not_a_folder = NotComposed::NotAFolder.reason();
        let derived = self.derived();
        let known = FolderType::of_folder(derived, folder).ok_or(not_a_folder)?;
        let children = compose(live, (folder, created), &known).map_err(NotComposed::reason)?;
        let listed_type = known
            .listed
            .first()
            .map(|listed| listed.entity_type.as_str());
        let shape_type = listed_type
            .and_then(|template| derived.entity_type(template))
            .ok_or(not_a_folder)?;
        let clock = derived
            .write_clock
            .as_deref()
            .and_then(|start| crate::instant::served_clock(start, live.writes().saturating_sub(1)));
        let stamps = live
            .written_below(&entity_path(folder))
            .then(|| Some((&shape_type.folder_stamps, clock.as_deref()?)))
            .flatten();
        let body = composed_folder(&known, folder, children, stamps).ok_or(not_a_folder)?;
        let (base, pointer) = self.folder_envelope(shape_type).ok_or(not_a_folder)?;
        let body =
            crate::render::with_value_at(base.json().cloned().ok_or(not_a_folder)?, pointer, body);
        Ok(state_answer(
            base,
            body,
            self.replay().evidence_id(),
            false,
            StateSource::state(format!("/{}", segments.join("/")), None),
        ))
    }

    /// The record and pointer a folder type's item view renders its folders into.
    fn folder_envelope(&self, known: &EntityType) -> Option<(&KeptRecord, &str)> {
        let tool = known.item_view.as_deref()?;
        let view = self.derived().view(tool)?;
        let ViewDetail::Item(item) = &view.detail else {
            return None;
        };
        Some((
            self.kept(item.envelope_ordinal)?,
            item.entity_pointer.as_str(),
        ))
    }
}

/// The live entity of one of `types` a path names (its last segment the id, as sent or decoded).
fn held_at<'l>(
    live: &'l LiveState,
    types: &[&str],
    segments: &[CompactString],
) -> Option<&'l Entity> {
    let (id, parents) = crate::derive::entities::item_segments(segments).split_last()?;
    let collection = format!("/{}", parents.join("/"));
    types.iter().find_map(|entity_type| {
        live.entity(entity_type, &collection, id)
            .or_else(|| live.entity(entity_type, &collection, &plain(id)))
    })
}

fn not_modelled(reason: &str) -> StateAnswer {
    NotModelled {
        reason: reason.to_owned(),
        recording: RecordingUnusable::NotRecorded,
    }
    .into()
}

/// Per folder type whose listings the build's writes changed, the stamp members and their
/// format: the members the first successful read of a held folder after the capture's first
/// write shows changed from one clock to another, when every such read agrees on the format.
pub fn learn_stamps(timeline: &Timeline, state: &mut StateView) {
    let Some(first_write) = timeline.first_write else {
        return;
    };
    let mut learned: BTreeMap<String, BTreeMap<String, Option<String>>> = BTreeMap::new();
    for known in state
        .types
        .iter()
        .filter(|t| t.folder_listings_after_writes)
    {
        let folders: BTreeMap<String, &Entity> = state
            .entities
            .iter()
            .filter(|entity| entity.entity_type == known.collection_template)
            .filter(|entity| children_member(entity).is_some())
            .map(|entity| (entity_path(entity), &**entity))
            .collect();
        let stamps = learned
            .entry(known.collection_template.clone())
            .or_default();
        let mut seen = BTreeSet::new();
        for read in timeline.by_ordinal.values() {
            if read.ordinal < first_write || !read.is_success() || read.query.is_some() {
                continue;
            }
            let path: Vec<String> = read.segments.iter().map(|s| decoded(s)).collect();
            let path = format!("/{}", path.join("/"));
            let (Some(folder), Some(Json::Object(shown))) = (folders.get(&path), &read.body) else {
                continue;
            };
            if !read.method.eq_ignore_ascii_case("GET") || !seen.insert(path) {
                continue;
            }
            changed_clocks(folder, shown, stamps);
        }
    }
    for known in &mut state.types {
        if let Some(stamps) = learned.remove(&known.collection_template) {
            known.folder_stamps = stamps
                .into_iter()
                .filter_map(|(member, format)| Some((member, format?)))
                .collect();
        }
    }
}

/// Notes the members a read shows changed from one clock to another (a format two reads spell
/// differently is none).
fn changed_clocks(folder: &Entity, shown: &Object, stamps: &mut BTreeMap<String, Option<String>>) {
    for (member, value) in shown.iter() {
        let before = folder.fields.get(member);
        let (Some(Json::String(before)), Json::String(after)) = (before, value) else {
            continue;
        };
        let (Some(_), Some(format)) = (clock::format_of(before), clock::format_of(after)) else {
            continue;
        };
        if before == after {
            continue;
        }
        stamps
            .entry(member.to_owned())
            .and_modify(|held| {
                if held.as_deref() != Some(format.as_str()) {
                    *held = None;
                }
            })
            .or_insert(Some(format));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::parsed_json as parse;

    fn folder(fields: &str) -> Entity {
        Entity {
            entity_type: "/files".into(),
            collection: "/files".into(),
            id: "notes".into(),
            fields: parse(fields),
            view_fields: BTreeMap::new(),
            record_ordinals: Vec::new(),
        }
    }

    #[test]
    fn a_folder_lists_its_children_by_path_and_rows_name_them() {
        let notes = folder(
            r#"{"name": "notes", "content": [{"name": "a.md", "path": "notes/a.md", "content": null}]}"#,
        );
        assert_eq!(children_member(&notes).as_deref(), Some("content"));
        let row = parse(r#"{"name": "a.md", "path": "notes/a.md"}"#);
        assert_eq!(row_name(&notes, &row).as_deref(), Some("a.md"));
        assert_eq!(entity_path(&notes), "/files/notes");
        assert!(!names_child("other/a.md", "notes"));
        let file = folder(r#"{"name": "a.md", "content": "text"}"#);
        assert_eq!(children_member(&file), None, "a text is no listing");
    }

    #[test]
    fn a_created_entity_is_a_folder_when_it_holds_the_listed_folders_common_values() {
        let listed = [
            folder(
                r#"{"name": "notes", "type": "directory", "content": [], "at": "2026-11-26T09:10:00Z"}"#,
            ),
            folder(
                r#"{"name": "reports", "type": "directory", "content": [], "at": "2026-11-26T09:10:00Z"}"#,
            ),
        ];
        let known = FolderType {
            children: "content".into(),
            listed: listed.iter().collect(),
            shape: Vec::new(),
            nulled: BTreeSet::new(),
        };
        let created = folder(
            r#"{"name": "2027", "type": "directory", "content": null, "at": "2026-12-05T10:00:00Z"}"#,
        );
        assert!(known.holds_alike(&created), "a clock is no common value");
        let file = folder(r#"{"name": "x.md", "type": "file", "content": "x", "at": null}"#);
        assert!(!known.holds_alike(&file));
        let bare = folder(r#"{"name": "y", "type": null}"#);
        assert!(!known.holds_alike(&bare), "no common value held");
    }

    #[test]
    fn stamps_are_the_members_changed_from_clock_to_clock_in_one_format() {
        let notes = folder(
            r#"{"name": "notes", "modified": "2026-11-26T09:10:00Z", "size": 1, "created": "2026-11-26T09:10:00Z"}"#,
        );
        let mut stamps = BTreeMap::new();
        let first = parse(
            r#"{"name": "notes", "modified": "2026-12-01T14:35:43.340912Z", "size": 2, "created": "2026-11-26T09:10:00Z"}"#,
        );
        changed_clocks(&notes, first.as_object().expect("object"), &mut stamps);
        assert_eq!(
            stamps,
            BTreeMap::from([("modified".to_owned(), Some("T.6Z".to_owned()))])
        );
        let second = parse(r#"{"modified": "2026-12-01T14:35:43.3Z"}"#);
        changed_clocks(&notes, second.as_object().expect("object"), &mut stamps);
        assert_eq!(
            stamps,
            BTreeMap::from([("modified".to_owned(), None)]),
            "two formats: no stamp"
        );
    }
}

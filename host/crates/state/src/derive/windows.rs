//! Observation windows: which reads the state learns from.
//!
//! The state holds what reads observed before the first **related** write. A successful write
//! relates to what its plan writes ([`WriteScope`]): the entities of its type in the collection
//! its path (or, for a create tied to another collection, its observed entity) names; a document
//! view's document; or everything, when the state does not model its effect (no state target, an
//! unlinked call, a plan withheld as `side-effect`, a write that did not answer `2xx` without
//! failing), but such a write before every read (a session's log-in) relates to none: every
//! read observed the state it left; a write to a path an item view reads also relates to the
//! entity that path names (a `PUT /{name}` publishing a version writes the package document `GET /{name}` reads: that one
//! entity). A member write (one key of a map an entity holds), and a write of one item its path
//! names (an update, a create by `PUT`, a delete), relate to the one entity its path names. A read shows the entities of its item or list view's type (an item or member read: the
//! entity its path names, in the collection it names; a list read: the collection its path names
//! when the path fits the type's template, else every collection of the type), its document
//! view's document, or, for a read no such view explains, everything. Its window ends at the first
//! write related to what it shows: a write of one entity relates to a read of that entity or of
//! its whole collection, a write of a collection to every read of it.
//!
//! Extraction runs in passes ([`crate::derive::derive_state`]): the first with every window ending
//! at the first write of any kind (what the plans of that pass relate to is what decides the
//! next windows), then again with the windows the previous pass's views and plans give, until a
//! pass's views and plans give windows checking the reads it checked (usually the first or the
//! second pass). When no pass does within [`MAX_PASSES`], the conservative first pass stands
//! (every write relates to everything), so the result never depends on a guess.

use rea_plugin_api::contracts::capture::CompactString;
use std::collections::{BTreeMap, HashMap};

use rea_manifest::Manifest;
use rea_manifest::segments::{fused_value, split_path, template_affixes};
use rea_plugin_api::json::Json;

use crate::derive::entities::{collection_key, item_segments};
use crate::derive::lists::listed_collection;
use crate::model::{EntityType, ReadView, RelatedWrite, ViewDetail, WriteScope};
use crate::observation::{Observation, Timeline, decoded};

/// Whether a write relating to everything (its effect not modelled: a session's log-in) came
/// before every read: the state every read observed is the one it left, so it relates to none.
fn before_every_read(timeline: &Timeline, write: &RelatedWrite, position: usize) -> bool {
    position < timeline.first_read && matches!(write.scope, WriteScope::All)
}

/// The most extraction passes run before the first pass's windows are kept.
pub const MAX_PASSES: usize = 4;

/// What a read shows, by its tool's view.
pub fn read_scope(view: Option<&ReadView>, observation: &Observation) -> WriteScope {
    let Some(view) = view else {
        return WriteScope::All;
    };
    match &view.detail {
        ViewDetail::Item(item) => match item_segments(&observation.segments).split_last() {
            Some((last, collection)) => WriteScope::Type {
                entity_type: item.entity_type.clone(),
                collection: Some(collection_key(&format!("/{}", collection.join("/"))).to_owned()),
                entity: item
                    .key
                    .is_path()
                    .then(|| {
                        let template = split_path(&view.path_template);
                        let at = item_segments(&template).len().checked_sub(1)?;
                        Some(template_id(template.get(at)?, last))
                    })
                    .flatten(),
            },
            None => WriteScope::All,
        },
        ViewDetail::List(list) => WriteScope::Type {
            entity_type: list.entity_type.clone(),
            collection: listed_collection(&observation.path, &list.entity_type)
                .map(|listed| collection_key(&listed).to_owned()),
            entity: None,
        },
        // A view holding one document per id shows what the id names, which any write may
        // change (a create reusing an id, a delete, an action on it): every write relates.
        ViewDetail::Document(document) if document.is_keyed() => WriteScope::All,
        ViewDetail::Document(_) => WriteScope::Document {
            document: view.tool.clone(),
        },
        ViewDetail::Member(member) => match member.scope() {
            WriteScope::Type {
                entity_type,
                collection,
                ..
            } => WriteScope::Type {
                entity_type,
                collection,
                entity: split_path(&view.path_template)
                    .get(member.entity_segment)
                    .zip(observation.segments.get(member.entity_segment))
                    .map(|(pattern, segment)| template_id(pattern, segment)),
            },
            other => other,
        },
        ViewDetail::Count(count) => count.scope(&observation.segments),
        ViewDetail::IdMap(map) => map.scope(&observation.segments),
        ViewDetail::BodyQuery(_) | ViewDetail::Recorded { .. } => WriteScope::All,
    }
}

/// The identity a path segment names through its template segment (a fused parameter's value),
/// decoded, as a write's path names it ([`crate::writes::apply`]'s `path_value`).
fn template_id(pattern: &str, segment: &str) -> String {
    decoded(rea_manifest::segments::template_value(pattern, segment))
}

/// Whether a write of scope `write` relates to a read showing `read` (what [`window_ends`]
/// decides for every read at once).
pub fn relates(write: &WriteScope, read: &WriteScope) -> bool {
    match (write, read) {
        (WriteScope::All, _) | (_, WriteScope::All) => true,
        (
            WriteScope::Type {
                entity_type: written,
                collection: written_collection,
                entity: written_entity,
            },
            WriteScope::Type {
                entity_type: shown,
                collection: shown_collection,
                entity: shown_entity,
            },
        ) => {
            written == shown
                && match (written_collection, shown_collection) {
                    (Some(written), Some(shown)) => {
                        written == shown
                            && match (written_entity, shown_entity) {
                                (Some(written), Some(shown)) => written == shown,
                                _ => true,
                            }
                    }
                    _ => true,
                }
        }
        (WriteScope::Document { document: written }, WriteScope::Document { document: shown }) => {
            written == shown
        }
        _ => false,
    }
}

/// The earliest position of the writes of each kind of scope.
#[derive(Debug, Default)]
struct Firsts {
    all: Option<usize>,
    /// Per type: the first write of any of its collections.
    type_any: HashMap<String, usize>,
    /// Per type: the first write of every collection of it.
    type_wide: HashMap<String, usize>,
    /// Per (type, collection key): writes of the whole collection.
    collection: HashMap<(String, String), usize>,
    /// Per (type, collection key): writes of one entity of it (any).
    entity_any: HashMap<(String, String), usize>,
    /// Per (type, collection key, entity): writes of that one entity.
    entity: HashMap<(String, String, String), usize>,
    document: HashMap<String, usize>,
}

fn earliest(slot: &mut Option<usize>, position: usize) {
    *slot = Some(slot.map_or(position, |held| held.min(position)));
}

impl Firsts {
    /// The earliest position a write of each scope (every type, a type, a collection, a
    /// document) was made at; a write to a path an item view reads also writes that entity.
    fn of(timeline: &Timeline, views: &[ReadView], related: &[RelatedWrite]) -> Self {
        let mut firsts = Firsts::default();
        for write in related {
            let Some(position) = timeline.get(write.ordinal).map(|write| write.position) else {
                continue;
            };
            if before_every_read(timeline, write, position) {
                continue;
            }
            match &write.scope {
                WriteScope::All => earliest(&mut firsts.all, position),
                WriteScope::Type {
                    entity_type,
                    collection,
                    entity,
                } => firsts.note_type(
                    entity_type,
                    collection.as_deref(),
                    entity.as_deref(),
                    position,
                ),
                WriteScope::Document { document } => {
                    earliest_in(&mut firsts.document, document.clone(), position);
                }
            }
            // A write to a path an item view reads also writes that entity (a `PUT /{name}` that
            // publishes into a package's versions changes the package document itself).
            for (entity_type, collection, entity) in named_items(views, timeline.get(write.ordinal))
            {
                firsts.note_type(&entity_type, Some(&collection), entity.as_deref(), position);
            }
        }
        firsts
    }

    /// Notes a write of a type's entities: of every collection, of one, or of one entity of one.
    fn note_type(
        &mut self,
        entity_type: &str,
        collection: Option<&str>,
        entity: Option<&str>,
        position: usize,
    ) {
        earliest_in(&mut self.type_any, entity_type.to_owned(), position);
        let Some(collection) = collection else {
            return earliest_in(&mut self.type_wide, entity_type.to_owned(), position);
        };
        let key = (entity_type.to_owned(), collection.to_owned());
        match entity {
            Some(entity) => {
                earliest_in(
                    &mut self.entity,
                    (key.0.clone(), key.1.clone(), entity.to_owned()),
                    position,
                );
                earliest_in(&mut self.entity_any, key, position);
            }
            None => earliest_in(&mut self.collection, key, position),
        }
    }

    /// The earliest write a read showing the entities of a type's collection (or one of them)
    /// relates to, beyond writes of everything.
    fn of_collection(
        &self,
        entity_type: &str,
        collection: &str,
        entity: Option<&str>,
    ) -> Option<usize> {
        let key = (entity_type.to_owned(), collection.to_owned());
        let one = match entity {
            Some(entity) => self
                .entity
                .get(&(key.0.clone(), key.1.clone(), entity.to_owned())),
            None => self.entity_any.get(&key),
        };
        [
            self.type_wide.get(entity_type),
            self.collection.get(&key),
            one,
        ]
        .into_iter()
        .flatten()
        .min()
        .copied()
    }
}

fn earliest_in<K: std::hash::Hash + Eq>(map: &mut HashMap<K, usize>, key: K, position: usize) {
    let entry = map.entry(key).or_insert(position);
    *entry = (*entry).min(position);
}

/// Per read observation, the position its window ends at, given the views that say what each
/// read shows and the writes with what they relate to.
pub fn window_ends(
    manifest: &Manifest,
    timeline: &Timeline,
    views: &[ReadView],
    related: &[RelatedWrite],
    types: &[EntityType],
) -> BTreeMap<u64, usize> {
    let firsts = Firsts::of(timeline, views, related);
    let first_any = related
        .iter()
        .filter_map(|write| Some((write, timeline.get(write.ordinal)?.position)))
        .filter(|(write, position)| !before_every_read(timeline, write, *position))
        .map(|(_, position)| position)
        .min();
    let by_tool: HashMap<&str, &ReadView> = views
        .iter()
        .map(|view| (view.tool.as_str(), view))
        .collect();
    let own_path = own_path_ends(manifest, timeline);
    let mut ends = BTreeMap::new();
    for observation in timeline.by_ordinal.values() {
        if timeline.is_write(manifest, observation.tool) {
            continue;
        }
        let tool = &manifest.tools[observation.tool];
        let scope = read_scope(by_tool.get(tool.name.as_str()).copied(), observation);
        // A document its own path writes ends at the first write of its path; writes of
        // everything (other paths the state does not model) are not taken to change it.
        let owned = own_path.get(&observation.ordinal);
        let mut end = match owned {
            Some(own) => Some(*own),
            None => firsts.all,
        };
        let mut consider = |position: Option<&usize>| {
            if let Some(position) = position {
                earliest(&mut end, *position);
            }
        };
        match &scope {
            WriteScope::All if owned.is_some() => {}
            WriteScope::All => consider(first_any.as_ref()),
            WriteScope::Type {
                entity_type,
                collection: None,
                ..
            } => consider(firsts.type_any.get(entity_type)),
            WriteScope::Type {
                entity_type,
                collection: Some(collection),
                entity,
            } => consider(
                firsts
                    .of_collection(entity_type, collection, entity.as_deref())
                    .as_ref(),
            ),
            WriteScope::Document { document } => consider(firsts.document.get(document)),
        }
        // A type (or document) the writes change in ways no write tool models (an index or a
        // feed of the written documents, a folder's listing of its children) shows, after any
        // write, what the seed did not hold.
        if unmodelled_scope(&scope, types, &by_tool) {
            consider(first_any.as_ref());
        }
        ends.insert(observation.ordinal, end.unwrap_or(usize::MAX));
    }
    ends
}

/// The `(type, collection key, entity)` of each entity an item view (keyed by its path) reads at
/// a write's path.
fn named_items(
    views: &[ReadView],
    write: Option<&Observation>,
) -> Vec<(String, String, Option<String>)> {
    let Some(write) = write else {
        return Vec::new();
    };
    views
        .iter()
        .filter(|view| match &view.detail {
            ViewDetail::Item(item) => item.key.is_path(),
            _ => false,
        })
        .filter(|view| path_fits(&view.path_template, &write.segments))
        .filter_map(|view| match read_scope(Some(view), write) {
            WriteScope::Type {
                entity_type,
                collection: Some(collection),
                entity,
            } => Some((entity_type, collection, entity)),
            _ => None,
        })
        .collect()
}

/// Whether recorded path segments fit a path template: literal segments equal, parameters
/// (with a fused parameter's prefix and suffix) holding a value.
pub(crate) fn path_fits(template: &str, segments: &[CompactString]) -> bool {
    let written = split_path(template);
    written.len() == segments.len()
        && written
            .iter()
            .zip(segments)
            .all(|(pattern, segment)| match template_affixes(pattern) {
                Some((prefix, suffix)) => {
                    fused_value(prefix, suffix, segment).is_some_and(|value| !value.is_empty())
                }
                None => pattern == segment,
            })
}

/// Whether two sets of window ends check the same reads (extraction then learns the same).
pub fn same_checks(
    timeline: &Timeline,
    left: &BTreeMap<u64, usize>,
    right: &BTreeMap<u64, usize>,
) -> bool {
    timeline.by_ordinal.values().all(|observation| {
        let checked = |ends: &BTreeMap<u64, usize>| {
            observation.position
                < ends
                    .get(&observation.ordinal)
                    .copied()
                    .unwrap_or(observation.window_end)
        };
        checked(left) == checked(right)
    })
}

/// Every write from the first on relating to everything: the conservative windows.
pub fn all_related(manifest: &Manifest, timeline: &Timeline) -> Vec<RelatedWrite> {
    timeline
        .ordered
        .iter()
        .filter_map(|ordinal| timeline.get(*ordinal))
        .filter(|observation| observation.position >= timeline.cutoff)
        .filter(|observation| closes_windows(manifest, timeline, observation))
        .map(|observation| RelatedWrite {
            ordinal: observation.ordinal,
            tool: manifest.tools[observation.tool].name.clone(),
            scope: WriteScope::All,
        })
        .collect()
}

/// Per read of a document its own path writes, the position its window ends at: the first write
/// of its path, of a path below it or of a path above it.
///
/// A `GET` of a literal path (no parameter) answering a JSON object, where a write tool of the
/// manifest `PATCH`es, `PUT`s or `POST`s that same path, reads a document the application changes
/// through that path (a settings section such as `/settings/editor`): its answer is taken to be
/// what the seed held until a write of its path (or of a path above or below it), though writes
/// of other paths the state does not model came before (a session create, a job started). A
/// document no write tool of its own path changes (a status, a count) may be derived from
/// anything, so its window still ends at the first write of any kind.
pub fn own_path_ends(manifest: &Manifest, timeline: &Timeline) -> HashMap<u64, usize> {
    let mut ends = HashMap::new();
    for tool in 0..manifest.tools.len() {
        if !owned_document_tool(manifest, timeline, tool) {
            continue;
        }
        // The path is literal: every read of the tool names it, so its end is found once.
        let path: Vec<CompactString> = split_path(&manifest.tools[tool].path_template)
            .into_iter()
            .map(CompactString::from)
            .collect();
        let end = timeline
            .by_ordinal
            .values()
            .filter(|write| closes_windows(manifest, timeline, write))
            .filter(|write| nested_paths(&write.segments, &path))
            .map(|write| write.position)
            .min()
            .unwrap_or(usize::MAX);
        for ordinal in &timeline.by_tool[tool] {
            if let Some(read) = timeline.get(*ordinal)
                && matches!(read.body, Some(Json::Object(_)))
            {
                ends.insert(read.ordinal, end);
            }
        }
    }
    ends
}

/// Whether a read tool's literal path is also the path of a `PATCH`, `PUT` or `POST` tool.
fn owned_document_tool(manifest: &Manifest, timeline: &Timeline, index: usize) -> bool {
    let tool = &manifest.tools[index];
    if !tool.method.eq_ignore_ascii_case("GET") || tool.path_template.contains('{') {
        return false;
    }
    let path = split_path(&tool.path_template);
    manifest.tools.iter().enumerate().any(|(other, write)| {
        ["PATCH", "PUT", "POST"]
            .iter()
            .any(|method| write.method.eq_ignore_ascii_case(method))
            && split_path(&write.path_template) == path
            && timeline.by_tool[other]
                .iter()
                .filter_map(|ordinal| timeline.get(*ordinal))
                .any(|call| closes_windows(manifest, timeline, call))
    })
}

/// Whether one path's segments are a prefix of the other's (the same path included).
fn nested_paths(left: &[CompactString], right: &[CompactString]) -> bool {
    let shorter = left.len().min(right.len());
    left[..shorter] == right[..shorter]
}

/// Whether an observation is a write that may have changed the application: a write tool's
/// record that did not answer `4xx`/`5xx`.
pub fn closes_windows(manifest: &Manifest, timeline: &Timeline, observation: &Observation) -> bool {
    timeline.is_write(manifest, observation.tool) && !(400..600).contains(&observation.status)
}

/// Whether a read's scope is a type or document view recorded writes changed though no write
/// tool writes it.
fn unmodelled_scope(
    scope: &WriteScope,
    types: &[EntityType],
    by_tool: &HashMap<&str, &ReadView>,
) -> bool {
    match scope {
        WriteScope::Type { entity_type, .. } => types.iter().any(|known| {
            known.collection_template == *entity_type
                && (known.unmodelled_after_writes || known.folder_listings_after_writes)
        }),
        WriteScope::Document { document } => by_tool.get(document.as_str()).is_some_and(|view| {
            matches!(&view.detail, ViewDetail::Document(held) if held.unmodelled_after_writes)
        }),
        WriteScope::All => false,
    }
}

#[cfg(test)]
mod tests {
    use super::{Firsts, path_fits, relates};
    use crate::model::WriteScope;

    fn of(collection: &str, entity: Option<&str>) -> WriteScope {
        WriteScope::Type {
            entity_type: "/".to_owned(),
            collection: Some(collection.to_owned()),
            entity: entity.map(str::to_owned),
        }
    }

    #[test]
    fn a_write_of_one_entity_relates_to_reads_of_it_or_its_collection_only() {
        let tagged = of("/", Some("date-helpers"));
        // A read of that entity, or of the whole collection, shows the write.
        assert!(relates(&tagged, &of("/", Some("date-helpers"))));
        assert!(relates(&tagged, &of("/", None)));
        // A read of another entity of the collection, or of another collection, does not.
        assert!(!relates(&tagged, &of("/", Some("left-pad-ng"))));
        assert!(!relates(&tagged, &of("/other", Some("date-helpers"))));
        // A write of the whole collection relates to a read of any entity of it.
        assert!(relates(&of("/", None), &of("/", Some("left-pad-ng"))));
        assert!(relates(&WriteScope::All, &of("/", Some("left-pad-ng"))));
    }

    #[test]
    fn a_read_window_ends_at_the_first_write_of_its_entity_or_collection() {
        let mut firsts = Firsts::default();
        firsts.note_type("/", Some("/"), Some("date-helpers"), 4);
        firsts.note_type("/", Some("/"), Some("@corp/ui-kit"), 6);
        assert_eq!(
            firsts.of_collection("/", "/", Some("date-helpers")),
            Some(4)
        );
        assert_eq!(
            firsts.of_collection("/", "/", Some("@corp/ui-kit")),
            Some(6)
        );
        assert_eq!(firsts.of_collection("/", "/", Some("left-pad-ng")), None);
        // A read of the whole collection shows the first write of any entity of it.
        assert_eq!(firsts.of_collection("/", "/", None), Some(4));
        // A write of the collection ends every entity's window.
        firsts.note_type("/", Some("/"), None, 9);
        assert_eq!(firsts.of_collection("/", "/", Some("left-pad-ng")), Some(9));
        // As does a write of every collection of the type.
        firsts.note_type("/", None, None, 2);
        assert_eq!(firsts.of_collection("/", "/", Some("left-pad-ng")), Some(2));
        assert_eq!(firsts.type_any.get("/"), Some(&2));
    }

    fn segments(path: &str) -> Vec<rea_plugin_api::contracts::capture::CompactString> {
        path.trim_start_matches('/')
            .split('/')
            .map(Into::into)
            .collect()
    }

    #[test]
    fn a_write_path_fits_the_item_templates_that_read_it() {
        assert!(path_fits("/{sibling-variance}", &segments("/date-helpers")));
        assert!(path_fits("/api/posts/{numeric}", &segments("/api/posts/7")));
        assert!(path_fits("/t/{numeric}.json", &segments("/t/7.json")));
        // Another length, another literal, or a fused segment without its suffix does not.
        assert!(!path_fits(
            "/{sibling-variance}",
            &segments("/library/book:dune")
        ));
        assert!(!path_fits(
            "/api/posts/{numeric}",
            &segments("/api/users/7")
        ));
        assert!(!path_fits("/t/{numeric}.json", &segments("/t/7")));
        assert!(!path_fits("/t/{numeric}.json", &segments("/t/.json")));
    }
}

//! Folder entries: the documents of a folder tree answered from the folder listings that show
//! them, so a key or document the recording never read directly (`/v2/keys/config/web/theme`,
//! shown by the build's recursive listing of `/v2/keys/config`), or read only with its content
//! (`/api/contents/notes/ideas.txt?content=0`, which shows a file as its folder lists it), reads
//! as the application answers.
//!
//! **Listings.** Before the first write (the state the capture started from), every successful
//! JSON `GET`'s objects held in an array, up to eight levels down, are entries; an entry's member
//! holding a string names it by path (`{"key": "/config/web/theme", …}`, `{"path": "data", …}`).
//! Where several listings show one path, the entry with the most members wins (a recursive
//! listing's folder holds its `nodes`, a flat one does not), then the later one.
//!
//! **Learning, per read group.** A read tool answering from its recordings is one group (all its
//! reads); an item view (whose plain reads the state answers) is one group per query its reads
//! sent, and a call must send exactly that query. Each successful read of the group before the
//! first write whose answer holds, at the root or one member down, an object naming the read's
//! own path by one member (the request path ends with that text) is a pair with the entry of that
//! text: the same members and values agree, the same members and other values disagree, other
//! members say nothing (a flat listing shows less). Where a member some read names its path by
//! holds a `/` (`path: "notes/todo.md"`), only such members name entries (not `name`, which
//! names a top-level entry as well). The group's entries are learned when at least one pair
//! agrees, none disagrees, and the agreeing reads share where the object sits, the member naming
//! it, the path before it and the rest of the answer.
//!
//! **Answering.** A call whose path is that prefix and the text of a listed entry, whose entry has
//! the members of an agreeing read, and whose query pairs each an agreeing read sent (exactly the
//! group's, for an item view), answers the first agreeing read's answer with the entry in place.
//! Anything else, and any call after a served write changed what the view shows (any served
//! write, for an item view's query: a write in a folder changes its listing too), answers as
//! before (the view's answer, the recording of that very request, or a `not_modelled` refusal).

use std::collections::{BTreeMap, BTreeSet};

use rea_manifest::Manifest;
use rea_plugin_api::json::{Json, Object, escape_pointer_segment};
use serde::{Deserialize, Serialize};

use crate::model::{ReadView, ViewDetail};
use crate::observation::{Observation, Timeline, decoded};

/// How far below an answer's root a listing's entries are looked for.
const MAX_ENTRY_DEPTH: usize = 8;

/// The entries of one read tool's folder tree, and how its answers hold them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FolderEntries {
    /// The read tool.
    pub tool: String,
    /// The request path before an entry's path (`/v2/keys`).
    pub prefix: String,
    /// Where the entry sits in an answer (`""`: the answer is the entry; `/node`: one down).
    pub pointer: String,
    /// The entry's member naming its path (`key`, `path`).
    pub member: String,
    /// The record whose answer the entries are rendered into.
    pub base_ordinal: u64,
    /// The query pairs the agreeing reads sent.
    pub query: BTreeSet<(String, String)>,
    /// A call must send exactly `query` (entries learned for an item view's query), not any of
    /// its pairs.
    #[serde(default)]
    pub exact_query: bool,
    /// The member names of the entries the agreeing reads showed.
    pub shapes: BTreeSet<Vec<String>>,
    /// The listed entries by the text naming them.
    pub entries: BTreeMap<String, Json>,
}

/// What one agreeing read shows of the tool's entries.
#[derive(PartialEq)]
struct Pair {
    prefix: String,
    pointer: String,
    member: String,
    envelope: Json,
}

/// The entries the listings before the first write show, by the text naming them and the member
/// holding it (see the module docs).
type Listed = BTreeMap<(String, String), (usize, u64, Json)>;

/// The folder entries of every read tool answering from its recordings, and of every item view
/// per query it was read with (see the module docs).
pub fn derive(manifest: &Manifest, timeline: &Timeline, views: &[ReadView]) -> Vec<FolderEntries> {
    let before_writes = |observation: &&Observation| before_writes(timeline, observation);
    let tools = read_tools(manifest, timeline, views);
    // The texts the reads name themselves by first: most captures have none, and then no
    // listing entry is kept.
    let named: BTreeSet<(String, String)> = tools
        .iter()
        .flat_map(|(_, group)| group.reads.iter().flat_map(|read| self_names(read)))
        .collect();
    if named.is_empty() {
        return Vec::new();
    }
    // The members some read names its path by with a `/`: they name entries by path, where
    // another member naming a top-level entry as well (`name`) names it by its last segment.
    let path_members: BTreeSet<&str> = named
        .iter()
        .filter(|(text, _)| text.trim_start_matches('/').contains('/'))
        .map(|(_, member)| member.as_str())
        .collect();
    // Listings are reads of a path (`GET`): a query `POST`'s answer lists what its body asked.
    let listings = || {
        timeline
            .by_ordinal
            .values()
            .filter(before_writes)
            .filter(|observation| {
                manifest.tools[observation.tool]
                    .method
                    .eq_ignore_ascii_case("GET")
            })
    };
    let listed = listed_entries(listings(), |key| named.contains(key));
    let mut learned: Vec<FolderEntries> = tools
        .iter()
        .filter_map(|(tool, group)| learn(tool, group, &listed, &path_members))
        .collect();
    if learned.is_empty() {
        return learned;
    }
    let members: BTreeSet<String> = learned
        .iter()
        .map(|entries| entries.member.clone())
        .collect();
    let listed = listed_entries(listings(), |(_, member)| members.contains(member));
    for entries in &mut learned {
        entries.entries = listed
            .iter()
            .filter(|((_, member), _)| *member == entries.member)
            .map(|((text, _), (_, _, entry))| (text.clone(), entry.clone()))
            .collect();
    }
    learned
}

/// The reads one set of folder entries is learned from: every read of a tool answering from its
/// recordings, or an item view's reads sending one query.
struct ReadGroup<'o> {
    reads: Vec<&'o Observation>,
    /// Calls must send exactly the group's query (an item view's group).
    exact_query: bool,
}

/// The read groups of every `GET` tool answering from its recordings or from an item view, each
/// read successful and before the first write.
fn read_tools<'o>(
    manifest: &'o Manifest,
    timeline: &'o Timeline,
    views: &[ReadView],
) -> Vec<(&'o str, ReadGroup<'o>)> {
    let mut groups = Vec::new();
    for (index, tool) in manifest.tools.iter().enumerate() {
        if !tool.method.eq_ignore_ascii_case("GET") {
            continue;
        }
        let detail = views.iter().find(|view| view.tool == tool.name);
        let reads = || {
            timeline
                .all(index)
                .filter(|observation| before_writes(timeline, observation))
        };
        match detail.map(|view| &view.detail) {
            Some(ViewDetail::Recorded { .. }) => {
                let reads = reads().collect();
                groups.push((
                    tool.name.as_str(),
                    ReadGroup {
                        reads,
                        exact_query: false,
                    },
                ));
            }
            // An item view answers its plain reads from the state; a query it is read with may
            // show the document as its folder lists it.
            Some(ViewDetail::Item(_)) => {
                let mut by_query: BTreeMap<BTreeSet<(String, String)>, Vec<&Observation>> =
                    BTreeMap::new();
                for read in reads().filter(|read| !read.pairs().is_empty()) {
                    let query = read.pairs().iter().cloned().collect();
                    by_query.entry(query).or_default().push(read);
                }
                for reads in by_query.into_values() {
                    groups.push((
                        tool.name.as_str(),
                        ReadGroup {
                            reads,
                            exact_query: true,
                        },
                    ));
                }
            }
            _ => {}
        }
    }
    groups
}

/// Whether an observation is a successful answer made before the first write (the state the
/// capture started from).
fn before_writes(timeline: &Timeline, observation: &Observation) -> bool {
    observation.is_success()
        && timeline
            .first_write
            .is_none_or(|first| observation.ordinal < first)
}

/// The `(text, member)` pairs a read's answer names the read's own path by.
fn self_names(read: &Observation) -> Vec<(String, String)> {
    let Some(body) = &read.body else {
        return Vec::new();
    };
    let path = decoded_path(read);
    held_objects(body)
        .into_iter()
        .flat_map(|(_, object)| object.iter())
        .filter_map(|(member, text)| match text {
            Json::String(text) if prefix_before(&path, text).is_some() => {
                Some((text.to_string(), member.to_owned()))
            }
            _ => None,
        })
        .collect()
}

/// The entries the given answers list whose `(text, member)` the filter keeps.
fn listed_entries<'o>(
    observations: impl Iterator<Item = &'o Observation>,
    keep: impl Fn(&(String, String)) -> bool,
) -> Listed {
    let mut listed = Listed::new();
    for observation in observations {
        if let Some(body) = &observation.body {
            collect_entries(body, false, 0, observation.ordinal, &keep, &mut listed);
        }
    }
    listed
}

fn collect_entries(
    value: &Json,
    in_array: bool,
    depth: usize,
    ordinal: u64,
    keep: &dyn Fn(&(String, String)) -> bool,
    listed: &mut Listed,
) {
    match value {
        Json::Object(object) => {
            if in_array {
                for (member, text) in object.iter() {
                    let Json::String(text) = text else { continue };
                    let key = (text.to_string(), member.to_owned());
                    if !keep(&key) {
                        continue;
                    }
                    let better = listed
                        .get(&key)
                        .is_none_or(|(members, _, _)| object.len() >= *members);
                    if better {
                        listed.insert(key, (object.len(), ordinal, value.clone()));
                    }
                }
            }
            if depth < MAX_ENTRY_DEPTH {
                for (_, child) in object.iter() {
                    collect_entries(child, false, depth + 1, ordinal, keep, listed);
                }
            }
        }
        Json::Array(items) if depth < MAX_ENTRY_DEPTH => {
            for item in items {
                collect_entries(item, true, depth + 1, ordinal, keep, listed);
            }
        }
        _ => {}
    }
}

/// The objects an answer may hold its entry in: the root, or one member down.
fn held_objects(body: &Json) -> Vec<(String, &Object)> {
    let Json::Object(root) = body else {
        return Vec::new();
    };
    let mut held = vec![(String::new(), root)];
    for (name, child) in root.iter() {
        if let Json::Object(child) = child {
            held.push((format!("/{}", escape_pointer_segment(name)), child));
        }
    }
    held
}

fn member_names(object: &Object) -> Vec<String> {
    let mut names: Vec<String> = object.keys().map(str::to_owned).collect();
    names.sort();
    names
}

/// The request path before an entry's text, when the path ends with it.
fn prefix_before(path: &str, text: &str) -> Option<String> {
    let text = if text.starts_with('/') {
        text.to_owned()
    } else {
        format!("/{text}")
    };
    let prefix = path.strip_suffix(&text)?;
    Some(prefix.to_owned())
}

fn decoded_path(observation: &Observation) -> String {
    let segments: Vec<String> = observation
        .segments
        .iter()
        .map(|segment| decoded(segment))
        .collect();
    format!("/{}", segments.join("/"))
}

/// An object of a read's answer naming the read's own path by one member.
struct Candidate<'r> {
    pointer: String,
    member: String,
    text: String,
    object: &'r Object,
    prefix: String,
}

/// The objects a read's answer names its own path by, at the root or one member down: only
/// those naming it by a path member when one does (see [`derive`]).
fn candidates<'r>(read: &'r Observation, path_members: &BTreeSet<&str>) -> Vec<Candidate<'r>> {
    let Some(body) = &read.body else {
        return Vec::new();
    };
    let path = decoded_path(read);
    let mut found = Vec::new();
    for (pointer, object) in held_objects(body) {
        for (member, text) in object.iter() {
            let Json::String(text) = text else { continue };
            let Some(prefix) = prefix_before(&path, text) else {
                continue;
            };
            found.push(Candidate {
                pointer: pointer.clone(),
                member: member.to_owned(),
                text: text.to_string(),
                object,
                prefix,
            });
        }
    }
    if found
        .iter()
        .any(|found| path_members.contains(found.member.as_str()))
    {
        found.retain(|found| path_members.contains(found.member.as_str()));
    }
    found
}

/// The group's entries, when its reads agree with the listings (see the module docs).
fn learn(
    tool: &str,
    group: &ReadGroup<'_>,
    listed: &Listed,
    path_members: &BTreeSet<&str>,
) -> Option<FolderEntries> {
    let mut agreeing: Vec<(Pair, &Observation, Vec<String>)> = Vec::new();
    for read in &group.reads {
        for candidate in candidates(read, path_members) {
            let key = (candidate.text.clone(), candidate.member.clone());
            let Some((_, _, Json::Object(entry_object))) = listed.get(&key) else {
                continue;
            };
            let shape = member_names(candidate.object);
            if member_names(entry_object) != shape {
                continue;
            }
            if entry_object != candidate.object {
                return None;
            }
            let pair = Pair {
                envelope: envelope_of(read.body.as_ref()?, &candidate.pointer),
                prefix: candidate.prefix,
                pointer: candidate.pointer,
                member: candidate.member,
            };
            agreeing.push((pair, read, shape));
        }
    }
    let (first, base, _) = agreeing.first()?;
    if agreeing.iter().any(|(pair, _, _)| pair != first) {
        return None;
    }
    Some(FolderEntries {
        tool: tool.to_owned(),
        prefix: first.prefix.clone(),
        pointer: first.pointer.clone(),
        member: first.member.clone(),
        base_ordinal: base.ordinal,
        query: agreeing
            .iter()
            .flat_map(|(_, read, _)| read.pairs().iter().cloned())
            .collect(),
        exact_query: group.exact_query,
        shapes: agreeing.iter().map(|(_, _, shape)| shape.clone()).collect(),
        entries: BTreeMap::new(),
    })
}

/// The answer around the entry at `pointer` (`null` when the answer is the entry).
fn envelope_of(body: &Json, pointer: &str) -> Json {
    let mut envelope = body.clone();
    match envelope.as_object_mut().filter(|_| !pointer.is_empty()) {
        Some(holder) => {
            holder.remove(pointer.trim_start_matches('/'));
            envelope
        }
        None => Json::Null,
    }
}

impl FolderEntries {
    /// The entry the listings show for a decoded path, whatever a call asks of it.
    pub fn listed(&self, path: &str) -> Option<&Json> {
        let rest = path.strip_prefix(&self.prefix)?;
        self.entries
            .get(rest)
            .or_else(|| self.entries.get(rest.trim_start_matches('/')))
    }

    /// The entry a call names: its decoded path and query pairs (see the module docs).
    pub fn entry_for(&self, path: &str, pairs: &[(String, String)]) -> Option<&Json> {
        let rest = path.strip_prefix(&self.prefix)?;
        let entry = self
            .entries
            .get(rest)
            .or_else(|| self.entries.get(rest.trim_start_matches('/')))?;
        self.accepts(pairs, entry).then_some(entry)
    }

    /// Whether a call sending `pairs` answers `entry` (an entry of this tree, as listed or as a
    /// served write left it: see [`crate::tree_reads`]).
    pub fn accepts(&self, pairs: &[(String, String)], entry: &Json) -> bool {
        if !pairs.iter().all(|pair| self.query.contains(pair)) {
            return false;
        }
        if self.exact_query && pairs.iter().cloned().collect::<BTreeSet<_>>() != self.query {
            return false;
        }
        entry
            .as_object()
            .is_some_and(|object| self.shapes.contains(&member_names(object)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::parsed_json as parse;

    fn listed_of(bodies: &[&str]) -> Listed {
        let mut listed = Listed::new();
        for (ordinal, body) in bodies.iter().enumerate() {
            collect_entries(
                &parse(body),
                false,
                0,
                ordinal as u64,
                &|_| true,
                &mut listed,
            );
        }
        listed
    }

    #[test]
    fn listings_keep_the_fullest_entry_of_a_path() {
        let listed = listed_of(&[
            r#"{"node": {"key": "/a", "nodes": [{"key": "/a/b", "dir": true}]}}"#,
            r#"{"node": {"key": "/a", "nodes": [{"key": "/a/b", "dir": true, "nodes": [{"key": "/a/b/c", "value": "1"}]}]}}"#,
            r#"{"node": {"key": "/a", "nodes": [{"key": "/a/b", "dir": false}]}}"#,
        ]);
        let (members, ordinal, _) = &listed[&("/a/b".to_owned(), "key".to_owned())];
        assert_eq!(
            (*members, *ordinal),
            (3, 1),
            "the recursive listing's folder"
        );
        assert!(listed.contains_key(&("/a/b/c".to_owned(), "key".to_owned())));
        assert!(
            !listed.contains_key(&("/a".to_owned(), "key".to_owned())),
            "an object outside an array is no entry"
        );
    }

    #[test]
    fn entries_answer_paths_and_queries_the_agreeing_reads_show() {
        let listed = listed_of(&[
            r#"{"node": {"nodes": [{"key": "/a/b", "value": "1"}, {"key": "/a/c", "value": "2"}, {"key": "/a/d", "dir": true}]}}"#,
        ]);
        let entries = FolderEntries {
            tool: "t".into(),
            prefix: "/keys".into(),
            pointer: "/node".into(),
            member: "key".into(),
            base_ordinal: 0,
            query: [("sorted".to_owned(), "true".to_owned())].into(),
            exact_query: false,
            shapes: [vec!["key".to_owned(), "value".to_owned()]].into(),
            entries: listed
                .iter()
                .map(|((text, _), (_, _, entry))| (text.clone(), entry.clone()))
                .collect(),
        };
        assert_eq!(
            entries.entry_for("/keys/a/c", &[]),
            Some(&parse(r#"{"key": "/a/c", "value": "2"}"#))
        );
        assert!(
            entries.entry_for("/keys/a/d", &[]).is_none(),
            "another shape"
        );
        assert!(entries.entry_for("/keys/a/e", &[]).is_none(), "not listed");
        assert!(entries.entry_for("/other/a/b", &[]).is_none());
        let quorum = [("quorum".to_owned(), "true".to_owned())];
        assert!(
            entries.entry_for("/keys/a/b", &quorum).is_none(),
            "a query no read sent"
        );
    }

    fn read(ordinal: u64, path: &str, query: &[(&str, &str)], body: &str) -> Observation {
        let segments = path
            .trim_start_matches('/')
            .split('/')
            .map(Into::into)
            .collect();
        Observation {
            segments,
            ..crate::test_support::read_observation(ordinal, path, query, body)
        }
    }

    #[test]
    fn candidates_prefer_the_member_naming_entries_by_path() {
        let file = read(
            0,
            "/docs/notes/a.md",
            &[],
            r#"{"name": "a.md", "path": "notes/a.md", "size": 3}"#,
        );
        let paths: BTreeSet<&str> = ["path"].into();
        let found: Vec<(String, String)> = candidates(&file, &paths)
            .into_iter()
            .map(|candidate| (candidate.member, candidate.prefix))
            .collect();
        assert_eq!(found, vec![("path".to_owned(), "/docs".to_owned())]);
        // Without a path member, every member naming the read's path is a candidate.
        let found = candidates(&file, &BTreeSet::new());
        assert_eq!(found.len(), 2);
        let top = read(1, "/docs/a", &[], r#"{"name": "a", "path": "a"}"#);
        let found: Vec<String> = candidates(&top, &paths)
            .into_iter()
            .map(|candidate| candidate.member)
            .collect();
        assert_eq!(
            found,
            vec!["path".to_owned()],
            "a top-level entry, named twice"
        );
    }

    #[test]
    fn item_view_groups_learn_the_query_that_shows_listing_entries() {
        let listed = listed_of(&[
            r#"{"path": "", "content": [{"path": "a", "content": null, "size": 1}, {"path": "b", "content": null, "size": 2}]}"#,
        ]);
        let paths: BTreeSet<&str> = ["path"].into();
        let flat = read(
            1,
            "/docs/a",
            &[("content", "0")],
            r#"{"path": "a", "content": null, "size": 1}"#,
        );
        let group = ReadGroup {
            reads: vec![&flat],
            exact_query: true,
        };
        let mut learned = learn("t", &group, &listed, &paths).expect("content=0 agrees");
        assert_eq!(
            (learned.prefix.as_str(), learned.pointer.as_str()),
            ("/docs", "")
        );
        learned.entries = listed
            .iter()
            .map(|((text, _), (_, _, entry))| (text.clone(), entry.clone()))
            .collect();
        let content_0 = [("content".to_owned(), "0".to_owned())];
        assert_eq!(
            learned.entry_for("/docs/b", &content_0),
            Some(&parse(r#"{"path": "b", "content": null, "size": 2}"#))
        );
        assert!(
            learned.entry_for("/docs/b", &[]).is_none(),
            "the plain read"
        );
        let more = [content_0[0].clone(), ("hash".to_owned(), "1".to_owned())];
        assert!(
            learned.entry_for("/docs/b", &more).is_none(),
            "another query"
        );
        // A read showing the content the listing leaves null disagrees: nothing is learned.
        let full = read(
            2,
            "/docs/a",
            &[],
            r#"{"path": "a", "content": "x", "size": 1}"#,
        );
        let group = ReadGroup {
            reads: vec![&full],
            exact_query: true,
        };
        assert!(learn("t", &group, &listed, &paths).is_none());
    }

    #[test]
    fn prefixes_are_the_path_before_the_entry_text() {
        assert_eq!(
            prefix_before("/v2/keys/a/b", "/a/b").as_deref(),
            Some("/v2/keys")
        );
        assert_eq!(
            prefix_before("/api/contents/notes/x.md", "notes/x.md").as_deref(),
            Some("/api/contents")
        );
        assert_eq!(prefix_before("/v2/keys/a/bb", "/a/b"), None);
    }
}

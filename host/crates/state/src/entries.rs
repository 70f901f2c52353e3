//! Folder entries: the documents of a folder tree answered from the folder listings that show
//! them, so a key or document the recording never read directly (`/v2/keys/config/web/theme`,
//! shown by the build's recursive listing of `/v2/keys/config`) reads as the application answers.
//!
//! **Listings.** Before the first write (the state the capture started from), every successful
//! JSON read's objects held in an array, up to eight levels down, are entries; an entry's member
//! holding a string with a `/` names it by path (`{"key": "/config/web/theme", …}`). Where
//! several listings show one path, the entry with the most members wins (a recursive listing's
//! folder holds its `nodes`, a flat one does not), then the later one.
//!
//! **Learning, per read tool answering from its recordings.** Each successful read of the tool
//! before the first write whose answer holds, at the root or one member down, an object naming
//! the read's own path by one member (the request path ends with that text) is a pair with the
//! entry of that text: the same members and values agree, the same members and other values
//! disagree, other members say nothing (a flat listing shows less). The tool's entries are
//! learned when at least one pair agrees, none disagrees, and the agreeing reads share where
//! the object sits, the member naming it, the path before it and the rest of the answer.
//!
//! **Answering.** A call whose path is that prefix and the text of a listed entry, whose entry has
//! the members of an agreeing read, and whose query pairs each an agreeing read sent, answers the
//! first agreeing read's answer with the entry in place. Anything else, and any call after a
//! served write changed what the view shows, answers as before (the recording of that very
//! request, or a `not_modelled` refusal).

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

/// The folder entries of every read tool answering from its recordings (see the module docs).
pub fn derive(manifest: &Manifest, timeline: &Timeline, views: &[ReadView]) -> Vec<FolderEntries> {
    let before_writes = |observation: &&Observation| {
        observation.is_success()
            && timeline
                .first_write
                .is_none_or(|first| observation.ordinal < first)
    };
    let tools: Vec<(&str, Vec<&Observation>)> = manifest
        .tools
        .iter()
        .enumerate()
        .filter(|(_, tool)| {
            tool.method.eq_ignore_ascii_case("GET")
                && views.iter().any(|view| {
                    view.tool == tool.name && matches!(view.detail, ViewDetail::Recorded { .. })
                })
        })
        .map(|(index, tool)| {
            let reads = timeline.all(index).filter(before_writes).collect();
            (tool.name.as_str(), reads)
        })
        .collect();
    // The texts the reads name themselves by first: most captures have none, and then no
    // listing entry is kept.
    let named: BTreeSet<(String, String)> = tools
        .iter()
        .flat_map(|(_, reads)| reads.iter().flat_map(|read| self_names(read)))
        .collect();
    if named.is_empty() {
        return Vec::new();
    }
    let listings = || timeline.by_ordinal.values().filter(before_writes);
    let listed = listed_entries(listings(), |key| named.contains(key));
    let mut learned: Vec<FolderEntries> = tools
        .iter()
        .filter_map(|(tool, reads)| learn(tool, reads, &listed))
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
                Some((text.clone(), member.to_owned()))
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
                    if !text.contains('/') {
                        continue;
                    }
                    let key = (text.clone(), member.to_owned());
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

/// The tool's entries, when its reads agree with the listings (see the module docs).
fn learn(tool: &str, reads: &[&Observation], listed: &Listed) -> Option<FolderEntries> {
    let mut agreeing: Vec<(Pair, &Observation, Vec<String>)> = Vec::new();
    for read in reads {
        let Some(body) = &read.body else { continue };
        let path = decoded_path(read);
        for (pointer, object) in held_objects(body) {
            for (member, text) in object.iter() {
                let Json::String(text) = text else { continue };
                let Some(prefix) = prefix_before(&path, text) else {
                    continue;
                };
                let Some((_, _, entry)) = listed.get(&(text.clone(), member.to_owned())) else {
                    continue;
                };
                let Json::Object(entry_object) = entry else {
                    continue;
                };
                let shape = member_names(object);
                if member_names(entry_object) != shape {
                    continue;
                }
                if entry_object != object {
                    return None;
                }
                let mut envelope = body.clone();
                if let Some(holder) = envelope.as_object_mut().filter(|_| !pointer.is_empty()) {
                    holder.remove(pointer.trim_start_matches('/'));
                } else {
                    envelope = Json::Null;
                }
                let pair = Pair {
                    prefix,
                    pointer: pointer.clone(),
                    member: member.to_owned(),
                    envelope,
                };
                agreeing.push((pair, read, shape));
            }
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
        shapes: agreeing.iter().map(|(_, _, shape)| shape.clone()).collect(),
        entries: BTreeMap::new(),
    })
}

impl FolderEntries {
    /// The entry a call names: its decoded path and query pairs (see the module docs).
    pub fn entry_for(&self, path: &str, pairs: &[(String, String)]) -> Option<&Json> {
        if !pairs.iter().all(|pair| self.query.contains(pair)) {
            return None;
        }
        let rest = path.strip_prefix(&self.prefix)?;
        let entry = self
            .entries
            .get(rest)
            .or_else(|| self.entries.get(rest.trim_start_matches('/')))?;
        let Json::Object(object) = entry else {
            return None;
        };
        self.shapes.contains(&member_names(object)).then_some(entry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Json {
        rea_plugin_api::json::parse(text.as_bytes()).expect("json")
    }

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

//! Folder listings composed from the folder entries: a folder asked with a query the build's
//! listings were read with (`/v2/keys/?recursive=true&sorted=true`, learned on the config and
//! services folders) answers its children as the listings show them, at the depth that query
//! shows, from the entries the listings before the first write hold (see [`crate::entries`]).
//!
//! **Learning, per folder tree** (the prefix, pointer and naming member of learned folder
//! entries). The *children member* is the one member of listed entries holding an array of
//! entries named below the entry's own text (`nodes`). A folder is *listed* when some read before
//! the first write shows its children: an object at any depth naming it and holding the children
//! member, or the object at the pointer of a read of the tree's root (the prefix itself, which
//! names nothing). A folder's listing composed *flat* holds each child's entry without its
//! children member; composed *deep*, each listed child folder holds its own deep listing (an
//! unlisted child shaped as a listed folder is unknown, and the listing is not composed). Each
//! successful read before the first write of a path of the tree whose object at the pointer holds
//! the children member is compared with the compositions: its query is learned at the depth that
//! reproduces it (children and their order) when every read with that query agrees at that depth,
//! one read tells the depths apart, and every such read shares the rest of the answer.
//!
//! **Answering.** A read of a listed folder whose query is exactly a learned one answers that
//! read's answer with the folder's entry (the root: the root read's object) holding the composed
//! children. Anything else, and any call after a served write changed what the view shows,
//! answers as before.

use std::collections::{BTreeMap, BTreeSet};

use rea_plugin_api::json::{Json, Object};
use serde::{Deserialize, Serialize};

use crate::entries::FolderEntries;
use crate::observation::{Observation, Timeline, decoded};
use crate::unlisted::UnlistedAnswer;

/// How far below an answer's root listed folders are looked for.
const MAX_LISTING_DEPTH: usize = 16;

/// A query a folder tree's listings were read with, and the depth it shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListingQuery {
    /// The query pairs a call must send, exactly.
    pub query: BTreeSet<(String, String)>,
    /// Whether each child folder shows its own children (else only its entry).
    pub deep: bool,
    /// A pair of the query that orders the children (`sorted=true`): every listing read with it
    /// shows every folder's children in the order of their naming text. A call without it is
    /// this query in the application's own order, which no read shows: answered only where no
    /// composed folder holds two children or more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_flag: Option<(String, String)>,
}

/// The listings of one folder tree, composed from its entries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FolderListing {
    /// The request path before an entry's path (`/v2/keys`).
    pub prefix: String,
    /// Where the folder sits in an answer (`/node`).
    pub pointer: String,
    /// The entry's member naming its path (`key`).
    pub member: String,
    /// The member holding a folder's children (`nodes`).
    pub children: String,
    /// The record whose answer a composed folder is rendered into.
    pub base_ordinal: u64,
    /// The root's object (a read of the prefix itself), when one was read.
    pub root: Option<Json>,
    /// The learned queries.
    pub queries: Vec<ListingQuery>,
    /// The folders whose children the listings show (`""`: the root).
    pub listed: BTreeSet<String>,
    /// The entries by the text naming them.
    pub entries: BTreeMap<String, Json>,
    /// The answer for a path no listing shows in a listed folder (see [`crate::unlisted`]); left
    /// out when none was learned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing: Option<UnlistedAnswer>,
}

/// The parent folder of an entry's text (`""`: the root).
fn parent_of(text: &str) -> &str {
    text.rsplit_once('/').map_or("", |(parent, _)| parent)
}

fn member_names(object: &Object) -> BTreeSet<&str> {
    object.keys().collect()
}

/// The successful reads before the first write whose decoded path lies under `prefix`, with the
/// text their path names (`""`: the prefix itself).
fn tree_reads<'t>(
    timeline: &'t Timeline,
    prefix: &str,
) -> impl Iterator<Item = (&'t Observation, String)> {
    let prefix = prefix.to_owned();
    timeline.by_ordinal.values().filter_map(move |read| {
        let before = timeline
            .first_write
            .is_none_or(|first| read.ordinal < first);
        if !before || !read.is_success() || !read.method.eq_ignore_ascii_case("GET") {
            return None;
        }
        let segments: Vec<String> = read.segments.iter().map(|s| decoded(s)).collect();
        let path = format!("/{}", segments.join("/"));
        let rest = path.strip_prefix(&prefix)?;
        match rest {
            "" | "/" => Some((read, String::new())),
            _ if rest.starts_with('/') => Some((read, rest.to_owned())),
            _ => None,
        }
    })
}

impl FolderListing {
    /// The learned query a call's pairs name: exactly, or with its order flag left out (`true`:
    /// then the listing's order is the application's own).
    fn query_for(&self, sent: &BTreeSet<(String, String)>) -> Option<(&ListingQuery, bool)> {
        if let Some(query) = self.queries.iter().find(|query| query.query == *sent) {
            return Some((query, false));
        }
        self.queries.iter().find_map(|query| {
            let flag = query.order_flag.as_ref()?;
            let mut with_flag = sent.clone();
            with_flag.insert(flag.clone());
            (query.query == with_flag && !sent.contains(flag)).then_some((query, true))
        })
    }

    /// Whether a call names a listed folder with a learned query less its order flag whose
    /// composition holds two children or more: their order, the application's own, is not shown.
    pub fn order_unknown(&self, rest: &str, pairs: &[(String, String)]) -> bool {
        let sent: BTreeSet<(String, String)> = pairs.iter().cloned().collect();
        let Some((query, true)) = self.query_for(&sent) else {
            return false;
        };
        self.listed_text(rest)
            .and_then(|folder| self.compose(&folder, query.deep))
            .is_some_and(|children| !at_most_one_child(&children, &self.children))
    }

    /// The entry of a text, as listed (`/a` or `a`).
    fn entry(&self, text: &str) -> Option<&Object> {
        self.entries
            .get(text)
            .or_else(|| self.entries.get(text.trim_start_matches('/')))
            .and_then(Json::as_object)
    }

    /// The text an entry is listed under for a path's rest (`/a` or `a`).
    fn listed_text(&self, rest: &str) -> Option<String> {
        if rest.is_empty() || rest == "/" {
            return Some(String::new());
        }
        [rest, rest.trim_start_matches('/')]
            .into_iter()
            .find(|text| self.entries.contains_key(*text))
            .map(str::to_owned)
    }

    /// The shapes of listed folders' entries (their children member left out).
    pub(crate) fn folder_shapes(&self) -> BTreeSet<BTreeSet<&str>> {
        self.listed
            .iter()
            .filter_map(|text| self.entry(text))
            .map(|entry| {
                let mut names = member_names(entry);
                names.remove(self.children.as_str());
                names
            })
            .collect()
    }

    /// A listed folder's children, composed flat or deep (see the module docs); `None` when the
    /// folder or a child folder a deep listing needs is not listed.
    pub fn compose(&self, folder: &str, deep: bool) -> Option<Vec<Json>> {
        if !self.listed.contains(folder) {
            return None;
        }
        let shapes = self.folder_shapes();
        let mut children = Vec::new();
        for (text, entry) in &self.entries {
            if parent_of(text.trim_start_matches('/')) != folder.trim_start_matches('/') {
                continue;
            }
            let Json::Object(entry) = entry else { continue };
            let mut child = entry.clone();
            child.remove(&self.children);
            if deep && self.listed.contains(text) {
                child.insert(
                    self.children.clone(),
                    Json::Array(self.compose(text, true)?),
                );
            } else if deep && shapes.contains(&member_names(&child)) {
                return None;
            }
            children.push(Json::Object(child));
        }
        Some(children)
    }

    /// The folder a call names, composed for its query, in the learned answer (see the module
    /// docs): `None` when no learned query or listed folder explains it.
    pub fn answer(&self, rest: &str, pairs: &[(String, String)], base: &Json) -> Option<Json> {
        let sent: BTreeSet<(String, String)> = pairs.iter().cloned().collect();
        let (query, unordered) = self.query_for(&sent)?;
        let folder = self.listed_text(rest)?;
        let mut node = if folder.is_empty() {
            self.root.clone()?
        } else {
            Json::Object(self.entry(&folder)?.clone())
        };
        let children = self.compose(&folder, query.deep)?;
        if unordered && !at_most_one_child(&children, &self.children) {
            return None;
        }
        node.as_object_mut()?
            .insert(self.children.clone(), Json::Array(children));
        Some(crate::render::with_value_at(
            base.clone(),
            &self.pointer,
            node,
        ))
    }
}

/// Whether no folder of a composed listing holds two children or more (their order is then
/// immaterial).
fn at_most_one_child(children: &[Json], member: &str) -> bool {
    children.len() <= 1
        && children.iter().all(|child| match child.get(member) {
            Some(Json::Array(nested)) => at_most_one_child(nested, member),
            _ => true,
        })
}

/// Whether every folder of a recorded listing lists its children in the order of their naming
/// text.
fn sorted_by_name(children: &[Json], member: &str, naming: &str) -> bool {
    let names: Vec<Option<&str>> = children
        .iter()
        .map(|child| child.get(naming).and_then(Json::as_str))
        .collect();
    names.iter().all(Option::is_some)
        && names.windows(2).all(|pair| pair[0] <= pair[1])
        && children.iter().all(|child| match child.get(member) {
            Some(Json::Array(nested)) => sorted_by_name(nested, member, naming),
            _ => true,
        })
}

/// The children member of a tree's entries: the one member holding an array of entries named
/// below the entry's text.
fn children_member(entries: &BTreeMap<String, Json>, member: &str) -> Option<String> {
    let mut found: BTreeSet<&str> = BTreeSet::new();
    for (text, entry) in entries {
        let Json::Object(entry) = entry else { continue };
        for (name, value) in entry.iter() {
            let Json::Array(items) = value else { continue };
            let below = !items.is_empty()
                && items.iter().all(|item| {
                    item.get(member)
                        .and_then(Json::as_str)
                        .is_some_and(|child| parent_of(child) == text.as_str())
                });
            if below {
                found.insert(name);
            }
        }
    }
    (found.len() == 1).then(|| found.into_iter().next().map(str::to_owned))?
}

/// The folders an answer shows the children of: objects naming a text by `member` and holding
/// the children member, at any depth.
fn collect_listed(
    value: &Json,
    member: &str,
    children: &str,
    depth: usize,
    listed: &mut BTreeSet<String>,
) {
    match value {
        Json::Object(object) => {
            if let (Some(Json::String(text)), Some(Json::Array(_))) =
                (object.get(member), object.get(children))
            {
                listed.insert(text.to_string());
            }
            if depth < MAX_LISTING_DEPTH {
                for (_, child) in object.iter() {
                    collect_listed(child, member, children, depth + 1, listed);
                }
            }
        }
        Json::Array(items) if depth < MAX_LISTING_DEPTH => {
            for item in items {
                collect_listed(item, member, children, depth + 1, listed);
            }
        }
        _ => {}
    }
}

/// The pair of a query whose every listing read shows every folder's children sorted by their
/// naming text, when exactly one pair of the query sends `true`.
fn order_flag(query: &BTreeSet<(String, String)>, reads: &[&Shown]) -> Option<(String, String)> {
    let mut flags = query.iter().filter(|(_, value)| value == "true");
    let flag = flags.next()?;
    let sorted = reads.iter().all(|read| read.sorted);
    (flags.next().is_none() && sorted).then(|| flag.clone())
}

/// What one listing read showed: its query, the depths whose composition reproduce it, whether
/// they differ, and the rest of its answer.
struct Shown {
    query: BTreeSet<(String, String)>,
    flat: bool,
    deep: bool,
    differ: bool,
    envelope: Json,
    ordinal: u64,
    /// Every folder's children in the order of their naming text.
    sorted: bool,
}

/// The listings of every folder tree the folder entries learned (see the module docs).
pub fn derive(timeline: &Timeline, folder_entries: &[FolderEntries]) -> Vec<FolderListing> {
    let mut trees: BTreeMap<(String, String, String), &FolderEntries> = BTreeMap::new();
    for entries in folder_entries {
        let key = (
            entries.prefix.clone(),
            entries.pointer.clone(),
            entries.member.clone(),
        );
        trees.entry(key).or_insert(entries);
    }
    trees
        .into_values()
        .filter_map(|entries| learn(timeline, entries))
        .collect()
}

/// One tree's listing, when its reads teach a query (see the module docs).
fn learn(timeline: &Timeline, entries: &FolderEntries) -> Option<FolderListing> {
    let children = children_member(&entries.entries, &entries.member)?;
    let mut listing = FolderListing {
        prefix: entries.prefix.clone(),
        pointer: entries.pointer.clone(),
        member: entries.member.clone(),
        children,
        base_ordinal: 0,
        root: None,
        queries: Vec::new(),
        listed: BTreeSet::new(),
        entries: entries.entries.clone(),
        missing: crate::unlisted::learn(timeline, &entries.prefix, &entries.member),
    };
    for (read, text) in tree_reads(timeline, &listing.prefix) {
        let Some(body) = &read.body else { continue };
        collect_listed(
            body,
            &listing.member,
            &listing.children,
            0,
            &mut listing.listed,
        );
        let held = body.pointer(&listing.pointer).and_then(Json::as_object);
        if text.is_empty() && held.is_some_and(|node| node.get(&listing.children).is_some()) {
            listing.listed.insert(String::new());
            listing.root = listing
                .root
                .take()
                .or_else(|| held.cloned().map(Json::Object));
        }
    }
    let shown: Vec<Shown> = tree_reads(timeline, &listing.prefix)
        .filter_map(|(read, text)| shown_by(&listing, read, &text))
        .collect();
    let first = shown.first()?;
    if shown.iter().any(|read| read.envelope != first.envelope) {
        return None;
    }
    listing.base_ordinal = first.ordinal;
    let mut by_query: BTreeMap<&BTreeSet<(String, String)>, Vec<&Shown>> = BTreeMap::new();
    for read in &shown {
        by_query.entry(&read.query).or_default().push(read);
    }
    for (query, reads) in by_query {
        if !reads.iter().any(|read| read.differ) {
            continue;
        }
        for deep in [false, true] {
            if reads
                .iter()
                .all(|read| if deep { read.deep } else { read.flat })
            {
                listing.queries.push(ListingQuery {
                    query: query.clone(),
                    deep,
                    order_flag: order_flag(query, &reads),
                });
            }
        }
    }
    (!listing.queries.is_empty()).then_some(listing)
}

impl FolderListing {
    /// The missing answer for a call's path after the prefix, rendered into `base` (the learned
    /// missing answer's record): `None` unless the path is no listed entry, its parent folder is
    /// listed, and the query is the one the missing answers were read with (see
    /// [`crate::unlisted`]).
    pub fn answer_unlisted(
        &self,
        rest: &str,
        pairs: &[(String, String)],
        base: &Json,
    ) -> Option<Json> {
        let counter = self
            .entries
            .values()
            .filter_map(Json::as_object)
            .flat_map(|entry| entry.iter())
            .filter_map(|(_, value)| match value {
                Json::Number(number) => number.as_u64(),
                _ => None,
            })
            .max();
        self.answer_unlisted_at(rest, pairs, base, counter)
    }

    /// [`FolderListing::answer_unlisted`] with the tree's counter given (a served write's tree
    /// keeps it: see [`crate::tree_writes`]).
    pub fn answer_unlisted_at(
        &self,
        rest: &str,
        pairs: &[(String, String)],
        base: &Json,
        counter: Option<u64>,
    ) -> Option<Json> {
        let missing = self.missing.as_ref()?;
        let sent: BTreeSet<(String, String)> = pairs.iter().cloned().collect();
        if sent != missing.query || rest.trim_start_matches('/').is_empty() {
            return None;
        }
        if self.listed_text(rest).is_some() {
            return None;
        }
        let parent = parent_of(rest.trim_end_matches('/'));
        let listed = [parent, parent.trim_start_matches('/')]
            .iter()
            .any(|folder| self.listed.contains(*folder));
        if !listed {
            return None;
        }
        missing.render(base, rest, counter)
    }
}

/// What a read of the tree shows of a listed folder (see [`Shown`]).
fn shown_by(listing: &FolderListing, read: &Observation, text: &str) -> Option<Shown> {
    let body = read.body.as_ref()?;
    let node = body.pointer(&listing.pointer)?.as_object()?;
    let Json::Array(recorded) = node.get(&listing.children)? else {
        return None;
    };
    let folder = if text.is_empty() {
        String::new()
    } else {
        listing.listed_text(text)?
    };
    let flat = listing.compose(&folder, false);
    let deep = listing.compose(&folder, true);
    let envelope = crate::render::with_value_at(body.clone(), &listing.pointer, Json::Null);
    Some(Shown {
        query: read.pairs().iter().cloned().collect(),
        flat: flat.as_ref() == Some(recorded),
        deep: deep.as_ref() == Some(recorded),
        differ: flat != deep,
        envelope,
        ordinal: read.ordinal,
        sorted: sorted_by_name(recorded, &listing.children, &listing.member),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::parsed_json as parse;

    /// A tree: `/a` (a folder holding `/a/b` and the folder `/a/c`, which holds `/a/c/d`) and
    /// `/e`, as a recursive listing of `/a` and a flat root listing show them.
    fn tree(listed: &[&str]) -> FolderListing {
        let entries: BTreeMap<String, Json> = [
            ("/a", r#"{"key": "/a", "dir": true, "nodes": [{"key": "/a/b", "value": "1"}, {"key": "/a/c", "dir": true, "nodes": [{"key": "/a/c/d", "value": "2"}]}]}"#),
            ("/a/b", r#"{"key": "/a/b", "value": "1"}"#),
            ("/a/c", r#"{"key": "/a/c", "dir": true, "nodes": [{"key": "/a/c/d", "value": "2"}]}"#),
            ("/a/c/d", r#"{"key": "/a/c/d", "value": "2"}"#),
            ("/e", r#"{"key": "/e", "value": "3"}"#),
        ]
        .into_iter()
        .map(|(text, entry)| (text.to_owned(), parse(entry)))
        .collect();
        FolderListing {
            prefix: "/keys".into(),
            pointer: "/node".into(),
            member: "key".into(),
            children: children_member(&entries, "key").expect("nodes"),
            base_ordinal: 0,
            root: Some(parse(r#"{"dir": true, "nodes": []}"#)),
            queries: vec![
                ListingQuery {
                    query: [("recursive".to_owned(), "true".to_owned())].into(),
                    deep: true,
                    order_flag: None,
                },
                ListingQuery {
                    query: [("sorted".to_owned(), "true".to_owned())].into(),
                    deep: false,
                    order_flag: Some(("sorted".to_owned(), "true".to_owned())),
                },
            ],
            listed: listed.iter().map(|text| (*text).to_owned()).collect(),
            entries,
            missing: None,
        }
    }

    #[test]
    fn the_children_member_holds_entries_named_below_the_entry() {
        let listing = tree(&[]);
        assert_eq!(listing.children, "nodes");
        assert_eq!(parent_of("/a/c/d"), "/a/c");
        assert_eq!(parent_of("/a"), "");
        assert_eq!(parent_of("notes"), "");
    }

    #[test]
    fn folders_compose_flat_or_deep_from_listed_entries() {
        let listing = tree(&["", "/a", "/a/c"]);
        let flat = listing.compose("/a", false).expect("listed");
        assert_eq!(
            Json::Array(flat),
            parse(r#"[{"key": "/a/b", "value": "1"}, {"key": "/a/c", "dir": true}]"#)
        );
        let deep = listing.compose("", true).expect("every folder listed");
        assert_eq!(
            Json::Array(deep),
            parse(
                r#"[{"key": "/a", "dir": true, "nodes": [{"key": "/a/b", "value": "1"}, {"key": "/a/c", "dir": true, "nodes": [{"key": "/a/c/d", "value": "2"}]}]}, {"key": "/e", "value": "3"}]"#
            )
        );
        assert!(
            listing.compose("/e", false).is_none(),
            "not a listed folder"
        );
        // A child folder no listing shows the children of: its deep listing is unknown.
        let unlisted = tree(&["", "/a"]);
        assert!(unlisted.compose("/a", false).is_some());
        assert!(unlisted.compose("/a", true).is_none());
    }

    #[test]
    fn calls_answer_only_learned_queries_on_listed_folders() {
        let listing = tree(&["", "/a", "/a/c"]);
        let base = parse(r#"{"action": "get", "node": {"key": "/x"}}"#);
        let recursive = [("recursive".to_owned(), "true".to_owned())];
        let root = listing.answer("/", &recursive, &base).expect("the root");
        let at = |value: &Json, pointer: &str| value.pointer(pointer).cloned();
        assert_eq!(at(&root, "/node/dir"), Some(parse("true")));
        assert_eq!(
            at(&root, "/node/nodes/0/nodes/1/nodes/0/key"),
            Some(parse(r#""/a/c/d""#))
        );
        assert_eq!(at(&root, "/action"), Some(parse(r#""get""#)));
        let sorted = [("sorted".to_owned(), "true".to_owned())];
        let flat = listing.answer("/a", &sorted, &base).expect("a flat folder");
        assert_eq!(at(&flat, "/node/key"), Some(parse(r#""/a""#)));
        assert_eq!(
            at(&flat, "/node/nodes/1"),
            Some(parse(r#"{"key": "/a/c", "dir": true}"#))
        );
        let other = [("quorum".to_owned(), "true".to_owned())];
        assert!(
            listing.answer("/a", &other, &base).is_none(),
            "a query no listing read sent"
        );
        assert!(listing.answer("/z", &sorted, &base).is_none(), "no entry");
    }

    #[test]
    fn a_call_without_the_order_flag_answers_only_folders_whose_order_is_immaterial() {
        let listing = tree(&["", "/a", "/a/c"]);
        let base = parse(r#"{"action": "get", "node": {"key": "/x"}}"#);
        // `/a/c` holds one child: its order is no question.
        let one = listing.answer("/a/c", &[], &base).expect("one child");
        assert_eq!(
            one.pointer("/node/nodes"),
            Some(&parse(r#"[{"key": "/a/c/d", "value": "2"}]"#))
        );
        // `/a` holds two: their order without the flag is the application's own, not shown.
        assert!(listing.answer("/a", &[], &base).is_none());
        assert!(
            listing
                .answer("/a", &[("sorted".into(), "true".into())], &base)
                .is_some()
        );
        // A query whose flag is not learned is no order flag.
        assert!(
            listing
                .answer("/a/c", &[("quorum".into(), "true".into())], &base)
                .is_none()
        );
    }

    #[test]
    fn a_flag_is_an_order_flag_when_its_reads_list_children_sorted() {
        let query: BTreeSet<(String, String)> = [("sorted".to_owned(), "true".to_owned())].into();
        let shown = |children: &str| Shown {
            query: query.clone(),
            flat: true,
            deep: false,
            differ: true,
            envelope: Json::Null,
            ordinal: 0,
            sorted: sorted_by_name(
                parse(children).as_array().expect("children"),
                "nodes",
                "key",
            ),
        };
        let sorted = shown(r#"[{"key": "/a"}, {"key": "/b", "nodes": [{"key": "/b/c"}]}]"#);
        let unsorted = shown(r#"[{"key": "/b"}, {"key": "/a"}]"#);
        assert_eq!(
            order_flag(&query, &[&sorted]),
            Some(("sorted".to_owned(), "true".to_owned()))
        );
        assert_eq!(order_flag(&query, &[&sorted, &unsorted]), None);
        let two: BTreeSet<(String, String)> = [
            ("recursive".to_owned(), "true".to_owned()),
            ("sorted".to_owned(), "true".to_owned()),
        ]
        .into();
        assert_eq!(
            order_flag(&two, &[&sorted]),
            None,
            "which pair orders is not shown"
        );
    }
}

//! Folder-tree writes: the writes of a folder tree whose listings the state composes (see
//! [`crate::listings`]), each setting, appending or removing one entry named by the call's path
//! (etcd's v2 keys: `PUT /v2/keys/flags/maintenance` with the form body `value=off`, `POST
//! /v2/keys/queue` appending an in-order key, `DELETE /v2/keys/flags/dark-mode?prevValue=off`),
//! answered with the written node stamped by the tree's store counter.
//!
//! **Learning, per folder listing.** The tree's successful writes (a write tool's calls whose
//! decoded path lies below the listing's prefix), in record order, each answer holding at the
//! listing's pointer an object naming an entry by the listing's member: the *counter* is a number
//! member of those written nodes that is one past the previous write's in every one of them, so
//! the tree's counter before the first write is the first one's less one (etcd's
//! `modifiedIndex`, the store index). A call is replayed from the entries the listings before the
//! first write show, as the writes before it left them: the node it names is the call's own path
//! (set, remove), or a child of it named by the counter zero-padded (append); the entry before it,
//! if any, is the *previous* entry. Its *class* is the method, the query (a parameter whose value
//! spells a member of the previous entry is a compare on that member, `prevValue`/`prevIndex`;
//! any other is an exact value), the body members sent (a form body, or a JSON object of
//! strings), whether the entry existed and whether it appends; what the class learns is the
//! recorded status and answer, and per node member its role: the path, the counter, a member sent,
//! a member of the previous entry kept, or a constant; and the answer member holding the previous
//! entry (`prevNode`). A class is kept when rendering it reproduces every recorded call of it
//! exactly. Then the reads of the tree after the first write are answered from the replayed
//! entries (see [`crate::tree_reads`]): every such read answered must agree with its recording,
//! and at least one must (confirmation); else the tree learns no writes.
//!
//! **Serving** ([`crate::tree_reads`]): a call of a learned class is applied to the live entries
//! (a removal removes the entry and everything below it) and the counter steps by one; a call of
//! no learned class (a compare that fails, a create of an existing key, a query never sent) is
//! refused, changing nothing, since its answer is not shown by the capture.

use std::collections::{BTreeMap, BTreeSet};

use rea_manifest::Manifest;
use rea_plugin_api::contracts::capture::CaptureRecord;
use rea_plugin_api::json::{Json, Object};
use serde::{Deserialize, Serialize};

use crate::listings::FolderListing;
use crate::observation::{Observation, Timeline, is_write_tool};

/// The learned writes of one folder tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TreeWrites {
    /// The request path before an entry's path (`/v2/keys`), as the tree's listing has it.
    pub prefix: String,
    /// The tree's counter before the first write.
    pub seed: i64,
    /// The write tools, with their learned classes.
    pub tools: Vec<TreeTool>,
    /// The reads after the first write the replayed entries answered as recorded.
    pub confirmed_by: Vec<u64>,
}

/// One write tool of a tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TreeTool {
    /// The tool.
    pub tool: String,
    /// Its method.
    pub method: String,
    /// Its learned classes.
    pub classes: Vec<TreeClass>,
}

/// A query parameter of a class.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QueryRole {
    /// The value sent, always this.
    Exact(String),
    /// A compare: the value must spell this member of the previous entry.
    Compares(String),
}

/// Where a written node's member comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeRole {
    /// The written entry's text.
    Named,
    /// The counter after the write.
    Counter,
    /// The body member sent, as a string.
    Sent(String),
    /// The previous entry's member.
    Kept(String),
    /// This value.
    Constant(Json),
}

/// One kind of call of a write tool, and its answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TreeClass {
    /// The query parameters sent, by name.
    pub query: BTreeMap<String, QueryRole>,
    /// The body members sent.
    pub body: BTreeSet<String>,
    /// The member names of the entry before the write, its children member left out (`None`:
    /// it did not exist): a call on an entry of another shape (a folder, not a key) is of
    /// another class.
    pub previous_shape: Option<BTreeSet<String>>,
    /// The width of an appended child's zero-padded name (`None`: the path names the entry).
    pub appends: Option<usize>,
    /// Whether the entry (and everything below it) is removed.
    pub removes: bool,
    /// The recorded answer rendered.
    pub base_ordinal: u64,
    /// The written node's members, in the recorded order.
    pub node: Vec<(String, NodeRole)>,
    /// The answer pointer holding the previous entry (`/prevNode`).
    pub previous: Option<String>,
}

/// A call as the classes see it.
pub struct TreeCall<'a> {
    /// The method.
    pub method: &'a str,
    /// The decoded path after the prefix.
    pub rest: &'a str,
    /// The query pairs.
    pub pairs: &'a [(String, String)],
    /// The body members sent.
    pub body: &'a BTreeMap<String, String>,
}

/// A class's effect on the entries.
#[derive(Debug, Clone, PartialEq)]
pub struct TreeEffect {
    /// The entry's text.
    pub text: String,
    /// The entry after (`None`: removed with everything below it).
    pub after: Option<Json>,
    /// The answer.
    pub answer: Json,
    /// The answer's recorded base.
    pub base_ordinal: u64,
}

/// The entries of a tree as writes left them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TreeEntries {
    /// Entries by text.
    pub entries: BTreeMap<String, Json>,
    /// The counter now.
    pub counter: i64,
    /// The texts writes set or removed.
    pub written: BTreeSet<String>,
}

impl TreeEntries {
    /// The entries a listing shows before the first write, the counter at `seed`.
    pub fn start(listing: &FolderListing, seed: i64) -> Self {
        Self {
            entries: listing.entries.clone(),
            counter: seed,
            written: BTreeSet::new(),
        }
    }

    /// Whether a write set or removed an entry strictly below `text`.
    pub fn written_below(&self, text: &str) -> bool {
        let below = format!("{}/", text.trim_end_matches('/'));
        let bare = below.trim_start_matches('/').to_owned();
        self.written.iter().any(|written| {
            written.starts_with(&below) || written.trim_start_matches('/').starts_with(&bare)
        })
    }

    /// The text an entry is listed under for a path's rest (`/a` or `a`).
    pub fn text_of(&self, rest: &str) -> Option<String> {
        [rest, rest.trim_start_matches('/')]
            .into_iter()
            .find(|text| self.entries.contains_key(*text))
            .map(str::to_owned)
    }

    /// The spelling a new entry's text takes (a leading `/` when the listed ones have one).
    pub fn new_text(&self, rest: &str) -> String {
        let slashed = self.entries.keys().any(|text| text.starts_with('/'));
        let bare = rest.trim_start_matches('/');
        if slashed {
            format!("/{bare}")
        } else {
            bare.to_owned()
        }
    }

    /// Applies an effect.
    pub fn apply(&mut self, effect: &TreeEffect) {
        self.written.insert(effect.text.clone());
        match &effect.after {
            Some(entry) => {
                self.entries.insert(effect.text.clone(), entry.clone());
            }
            None => {
                let below = format!("{}/", effect.text);
                self.entries
                    .retain(|text, _| *text != effect.text && !text.starts_with(&below));
            }
        }
        self.counter += 1;
    }
}

/// The members a recorded request body sent: a form body's pairs, or a JSON object's string
/// members (`None`: another body).
pub fn body_members(text: &[u8]) -> Option<BTreeMap<String, String>> {
    let text = std::str::from_utf8(text).ok()?.trim();
    if text.is_empty() {
        return Some(BTreeMap::new());
    }
    if let Ok(Json::Object(members)) = rea_plugin_api::json::parse(text.as_bytes()) {
        return members
            .iter()
            .map(|(name, value)| Some((name.to_owned(), value.as_str()?.to_owned())))
            .collect();
    }
    if text.starts_with(['{', '[', '"']) {
        return None;
    }
    Some(
        rea_plugin_api::contracts::capture::url::decode_query(text)
            .into_iter()
            .collect(),
    )
}

/// A scalar's spelling in a query (strings and numbers only).
fn spelled(value: &Json) -> Option<String> {
    match value {
        Json::String(text) => Some(text.to_string()),
        Json::Number(number) => number.as_i64().map(|value| value.to_string()),
        _ => None,
    }
}

fn integer(value: &Json) -> Option<i64> {
    value.as_number().and_then(|number| number.as_i64())
}

/// An entry's member names.
fn shape_of(entry: &Object) -> BTreeSet<String> {
    entry.keys().map(str::to_owned).collect()
}

/// An entry without its children member (as a write's answer shows the previous entry).
fn without_children(entry: &Json, children: &str) -> Json {
    let mut entry = entry.clone();
    if let Some(object) = entry.as_object_mut() {
        object.remove(children);
    }
    entry
}

/// The tree's successful writes in record order, each with its path's rest, body and node.
pub(crate) struct Written<'t> {
    pub(crate) observation: &'t Observation,
    tool: String,
    rest: String,
    body: BTreeMap<String, String>,
    node: &'t Object,
}

pub(crate) fn tree_writes<'t>(
    manifest: &Manifest,
    timeline: &'t Timeline,
    records: &BTreeMap<u64, &CaptureRecord>,
    listing: &FolderListing,
) -> Option<Vec<Written<'t>>> {
    let mut written = Vec::new();
    for ordinal in &timeline.ordered {
        let observation = &timeline.by_ordinal[ordinal];
        let tool = manifest.tools.get(observation.tool)?;
        if !is_write_tool(tool) || !observation.is_success() {
            continue;
        }
        let Some(rest) = crate::unlisted::rest_of(observation, &listing.prefix) else {
            continue;
        };
        let bytes = records
            .get(ordinal)?
            .request
            .body
            .bytes()
            .unwrap_or_default();
        let node = observation
            .body
            .as_ref()?
            .pointer(&listing.pointer)?
            .as_object()?;
        written.push(Written {
            observation,
            tool: tool.name.clone(),
            rest,
            body: body_members(&bytes)?,
            node,
        });
    }
    (!written.is_empty()).then_some(written)
}

/// The tree's counter before the first write: a node member one past the previous write's in
/// every write (see the module docs).
fn seed(written: &[Written<'_>]) -> Option<i64> {
    let first = written.first()?.node;
    first.iter().find_map(|(name, value)| {
        let start = integer(value)?;
        let steps = written
            .iter()
            .zip(0_i64..)
            .all(|(write, step)| write.node.get(name).and_then(integer) == Some(start + step));
        steps.then(|| start - 1)
    })
}

/// Learns the writes of one folder tree (see the module docs).
pub fn learn(
    manifest: &Manifest,
    timeline: &Timeline,
    records: &BTreeMap<u64, &CaptureRecord>,
    listing: &FolderListing,
) -> Option<TreeWrites> {
    let written = tree_writes(manifest, timeline, records, listing)?;
    let seed = seed(&written)?;
    let mut entries = TreeEntries::start(listing, seed);
    let mut tools: BTreeMap<String, Vec<TreeClass>> = BTreeMap::new();
    let mut methods: BTreeMap<String, String> = BTreeMap::new();
    let mut contradicted: BTreeSet<(String, usize)> = BTreeSet::new();
    for write in &written {
        let call = TreeCall {
            method: &write.observation.method,
            rest: &write.rest,
            pairs: write.observation.pairs(),
            body: &write.body,
        };
        let answer = write.observation.body.as_ref()?;
        let class = learn_class(listing, &entries, &call, write)?;
        methods.insert(write.tool.clone(), write.observation.method.to_string());
        let classes = tools.entry(write.tool.clone()).or_default();
        let index = match classes.iter().position(|known| known.same_kind(&class)) {
            Some(index) => index,
            None => {
                classes.push(class);
                classes.len() - 1
            }
        };
        let effect = classes[index].render(listing, &entries, &call, answer);
        if effect.as_ref().map(|effect| &effect.answer) != Some(answer) {
            contradicted.insert((write.tool.clone(), index));
        }
        entries.apply(&follow(listing, &entries, write)?);
    }
    let tools = tools
        .into_iter()
        .map(|(tool, classes)| {
            let classes = classes
                .into_iter()
                .enumerate()
                .filter(|(index, _)| !contradicted.contains(&(tool.clone(), *index)))
                .map(|(_, class)| class)
                .collect();
            TreeTool {
                method: methods.get(&tool).cloned().unwrap_or_default(),
                tool,
                classes,
            }
        })
        .collect();
    let mut tools: Vec<TreeTool> = tools;
    swap_compares(&mut tools, timeline, listing);
    Some(TreeWrites {
        prefix: listing.prefix.clone(),
        seed,
        tools,
        confirmed_by: Vec::new(),
    })
}

/// A class's one query parameter, when it is a compare: its name and the member it compares.
fn one_compare(class: &TreeClass) -> Option<(&str, &str)> {
    match class.query.iter().collect::<Vec<_>>().as_slice() {
        [(name, QueryRole::Compares(member))] => Some((name.as_str(), member.as_str())),
        _ => None,
    }
}

/// A class's recorded answer without the written node and the previous entry.
fn answer_beside_nodes(
    class: &TreeClass,
    timeline: &Timeline,
    listing: &FolderListing,
) -> Option<Json> {
    let mut answer = timeline.by_ordinal.get(&class.base_ordinal)?.body.clone()?;
    for pointer in std::iter::once(&listing.pointer).chain(class.previous.as_ref()) {
        answer = crate::render::with_value_at(answer, pointer, Json::Null);
    }
    Some(answer)
}

/// Whether two classes differ only in the compare they make: the same call otherwise, the same
/// written node, the same answer beside it.
fn compare_alike(
    (one, other): (&TreeClass, &TreeClass),
    timeline: &Timeline,
    listing: &FolderListing,
) -> bool {
    one.body == other.body
        && one.previous_shape == other.previous_shape
        && one.appends == other.appends
        && one.removes == other.removes
        && one.node == other.node
        && one.previous == other.previous
        && answer_beside_nodes(one, timeline, listing).is_some()
        && answer_beside_nodes(one, timeline, listing)
            == answer_beside_nodes(other, timeline, listing)
}

/// Compares the tree makes alike: where the kept classes of one method show two compares (on
/// different parameters) that differ in nothing else, what a compare does does not depend on
/// which member it compares; a kept class of any method making one of them is then also learned
/// with each other one in its place (etcd's `DELETE …?prevValue=off`, a compare-and-delete,
/// from a recorded `prevIndex` delete and the `PUT`s comparing by `prevValue` and `prevIndex`
/// alike). A tool already holding a class with that compare keeps its own.
fn swap_compares(tools: &mut [TreeTool], timeline: &Timeline, listing: &FolderListing) {
    let mut alike: BTreeSet<(String, String)> = BTreeSet::new();
    for (index, tool) in tools.iter().enumerate() {
        let classes = tools[index..]
            .iter()
            .filter(|other| other.method.eq_ignore_ascii_case(&tool.method))
            .flat_map(|other| other.classes.iter());
        for other in classes {
            for one in &tool.classes {
                let (Some(first), Some(second)) = (one_compare(one), one_compare(other)) else {
                    continue;
                };
                if first.0 != second.0 && compare_alike((one, other), timeline, listing) {
                    for (name, member) in [first, second] {
                        alike.insert((name.to_owned(), member.to_owned()));
                    }
                }
            }
        }
    }
    for tool in tools.iter_mut() {
        let mut added = Vec::new();
        for class in &tool.classes {
            let Some((name, member)) = one_compare(class) else {
                continue;
            };
            if !alike.contains(&(name.to_owned(), member.to_owned())) {
                continue;
            }
            for (swapped, compared) in &alike {
                let query: BTreeMap<String, QueryRole> =
                    [(swapped.clone(), QueryRole::Compares(compared.clone()))].into();
                let held = tool.classes.iter().chain(&added).any(|known: &TreeClass| {
                    known.query == query && known.removes == class.removes
                });
                if !held {
                    added.push(TreeClass {
                        query,
                        ..class.clone()
                    });
                }
            }
        }
        tool.classes.extend(added);
    }
}

/// What a recorded write did to the entries, as its answer shows.
pub(crate) fn follow(
    listing: &FolderListing,
    entries: &TreeEntries,
    write: &Written<'_>,
) -> Option<TreeEffect> {
    let text = write.node.get(&listing.member)?.as_str()?.to_owned();
    let removes = write.observation.method.eq_ignore_ascii_case("DELETE");
    let text = entries.text_of(&text).unwrap_or(text);
    Some(TreeEffect {
        after: (!removes).then(|| Json::Object(write.node.clone())),
        text,
        answer: Json::Null,
        base_ordinal: write.observation.ordinal,
    })
}

/// The role of each query parameter a call sent: a compare on the member of the previous entry
/// its value spells, else an exact value.
fn query_roles(
    pairs: &[(String, String)],
    previous: Option<&Object>,
) -> BTreeMap<String, QueryRole> {
    pairs
        .iter()
        .map(|(name, value)| {
            let compared = previous.and_then(|entry| {
                entry
                    .iter()
                    .find(|(_, held)| spelled(held).as_deref() == Some(value.as_str()))
                    .map(|(member, _)| member.to_owned())
            });
            let role =
                compared.map_or_else(|| QueryRole::Exact(value.clone()), QueryRole::Compares);
            (name.clone(), role)
        })
        .collect()
}

/// The role of each member of a written node (see the module docs).
fn node_roles(
    (listing, next): (&FolderListing, i64),
    node: &Object,
    body: &BTreeMap<String, String>,
    previous: Option<&Object>,
) -> Vec<(String, NodeRole)> {
    node.iter()
        .map(|(name, value)| {
            let sent = body.get(name).map(|sent| Json::String(sent.clone().into()));
            let role = if name == listing.member {
                NodeRole::Named
            } else if integer(value) == Some(next) {
                NodeRole::Counter
            } else if sent.as_ref() == Some(value) {
                NodeRole::Sent(name.to_owned())
            } else if previous.and_then(|entry| entry.get(name)) == Some(value) {
                NodeRole::Kept(name.to_owned())
            } else {
                NodeRole::Constant(value.clone())
            };
            (name.to_owned(), role)
        })
        .collect()
}

/// The class one recorded call shows (see the module docs).
fn learn_class(
    listing: &FolderListing,
    entries: &TreeEntries,
    call: &TreeCall<'_>,
    write: &Written<'_>,
) -> Option<TreeClass> {
    let named = write.node.get(&listing.member)?.as_str()?;
    let next = entries.counter + 1;
    let appends = if named.trim_start_matches('/') == call.rest.trim_start_matches('/') {
        None
    } else {
        let (parent, name) = named.rsplit_once('/')?;
        let numbered = name.bytes().all(|b| b.is_ascii_digit()) && name.parse::<i64>() == Ok(next);
        (parent.trim_start_matches('/') == call.rest.trim_start_matches('/') && numbered)
            .then_some(name.len())?;
        Some(name.len())
    };
    let previous_entry = entries
        .text_of(named)
        .and_then(|text| entries.entries.get(&text))
        .map(|entry| without_children(entry, &listing.children));
    let previous_object = previous_entry.as_ref().and_then(Json::as_object);
    let query = query_roles(call.pairs, previous_object);
    let node = node_roles((listing, next), write.node, call.body, previous_object);
    let pointer_member = listing
        .pointer
        .trim_start_matches('/')
        .split('/')
        .next()
        .unwrap_or("");
    let previous = previous_entry.as_ref().and_then(|entry| {
        write
            .observation
            .body
            .as_ref()?
            .as_object()?
            .iter()
            .find(|(name, value)| *name != pointer_member && *value == entry)
            .map(|(name, _)| format!("/{}", rea_plugin_api::json::escape_pointer_segment(name)))
    });
    Some(TreeClass {
        query,
        body: call.body.keys().cloned().collect(),
        previous_shape: previous_object.map(shape_of),
        appends,
        removes: call.method.eq_ignore_ascii_case("DELETE"),
        base_ordinal: write.observation.ordinal,
        node,
        previous,
    })
}

impl TreeClass {
    /// Whether two classes are the same kind of call.
    fn same_kind(&self, other: &TreeClass) -> bool {
        self.query == other.query
            && self.body == other.body
            && self.previous_shape == other.previous_shape
            && self.appends.is_some() == other.appends.is_some()
            && self.removes == other.removes
    }

    /// Whether the folder a new entry goes in is held (the root, or an entry): the folder the
    /// call names for an append, else the parent of its path.
    fn parent_held(&self, entries: &TreeEntries, call: &TreeCall<'_>) -> bool {
        let rest = call.rest.trim_end_matches('/');
        let folder = match self.appends {
            Some(_) => rest,
            None => rest.rsplit_once('/').map_or("", |(parent, _)| parent),
        };
        folder.trim_start_matches('/').is_empty() || entries.text_of(folder).is_some()
    }

    /// Whether a call is of this class, on the entries as they are: the query's names and
    /// exact values, its compares holding, the body's members, the entry's existence.
    fn fits(&self, entries: &TreeEntries, call: &TreeCall<'_>, previous: Option<&Json>) -> bool {
        let names: BTreeSet<&str> = call.pairs.iter().map(|(name, _)| name.as_str()).collect();
        let known: BTreeSet<&str> = self.query.keys().map(String::as_str).collect();
        let body: BTreeSet<&str> = call.body.keys().map(String::as_str).collect();
        let sent: BTreeSet<&str> = self.body.iter().map(String::as_str).collect();
        names == known
            && body == sent
            && previous.and_then(Json::as_object).map(shape_of) == self.previous_shape
            && (previous.is_some() || self.parent_held(entries, call))
            && call
                .pairs
                .iter()
                .all(|(name, value)| match &self.query[name] {
                    QueryRole::Exact(exact) => exact == value,
                    QueryRole::Compares(member) => previous
                        .and_then(|entry| entry.get(member))
                        .and_then(spelled)
                        .is_some_and(|held| held == *value),
                })
            && entries.counter < i64::MAX
    }

    /// The effect and answer of a call of this class on the entries (`None`: the call is not of
    /// this class).
    pub fn render(
        &self,
        listing: &FolderListing,
        entries: &TreeEntries,
        call: &TreeCall<'_>,
        base: &Json,
    ) -> Option<TreeEffect> {
        let next = entries.counter.checked_add(1)?;
        let text = match self.appends {
            Some(width) => entries.new_text(&format!(
                "{}/{next:0width$}",
                call.rest.trim_end_matches('/')
            )),
            None => entries
                .text_of(call.rest)
                .unwrap_or_else(|| entries.new_text(call.rest)),
        };
        let previous = entries
            .entries
            .get(&text)
            .map(|entry| without_children(entry, &listing.children));
        if !self.fits(entries, call, previous.as_ref()) {
            return None;
        }
        let mut node = Object::with_capacity(self.node.len());
        for (name, role) in &self.node {
            let value = match role {
                NodeRole::Named => Json::String(text.clone().into()),
                NodeRole::Counter => Json::from(next),
                NodeRole::Sent(member) => Json::from(call.body.get(member)?.clone()),
                NodeRole::Kept(member) => previous.as_ref()?.get(member)?.clone(),
                NodeRole::Constant(value) => value.clone(),
            };
            node.insert(name.clone(), value);
        }
        let node = Json::Object(node);
        let mut answer = crate::render::with_value_at(base.clone(), &listing.pointer, node.clone());
        if let Some(pointer) = &self.previous {
            answer = crate::render::with_value_at(answer, pointer, previous.clone()?);
        }
        Some(TreeEffect {
            after: (!self.removes).then_some(node),
            text,
            answer,
            base_ordinal: self.base_ordinal,
        })
    }
}

impl TreeWrites {
    /// A tool's learned classes.
    pub fn tool(&self, tool: &str) -> Option<&TreeTool> {
        self.tools.iter().find(|known| known.tool == tool)
    }

    /// The classes a call of a tool may be of: its own, then those of the tree's other tools of
    /// its method (the route form makes one tool per depth; what a write does does not depend
    /// on how deep its entry lies).
    pub fn classes_for<'a>(
        &'a self,
        tool: &str,
        method: &'a str,
    ) -> impl Iterator<Item = &'a TreeClass> + 'a {
        let own = self
            .tool(tool)
            .into_iter()
            .flat_map(|known| known.classes.iter());
        let tool = tool.to_owned();
        let others = self
            .tools
            .iter()
            .filter(move |known| known.tool != tool && known.method.eq_ignore_ascii_case(method))
            .flat_map(|known| known.classes.iter());
        own.chain(others)
    }

    /// The record ordinals the answers quote.
    pub fn base_ordinals(&self) -> impl Iterator<Item = u64> + '_ {
        self.tools
            .iter()
            .flat_map(|tool| tool.classes.iter().map(|class| class.base_ordinal))
    }
}

/// Learns the writes of every folder tree the listings compose; the reads after the first write
/// must confirm them (see [`crate::tree_reads::confirm`]).
pub fn derive(
    manifest: &Manifest,
    timeline: &Timeline,
    records: &[CaptureRecord],
    listings: &[FolderListing],
    folder_entries: &[crate::entries::FolderEntries],
) -> Vec<TreeWrites> {
    let by_ordinal: BTreeMap<u64, &CaptureRecord> = records
        .iter()
        .map(|record| (record.ordinal, record))
        .collect();
    listings
        .iter()
        .filter_map(|listing| {
            let mut writes = learn(manifest, timeline, &by_ordinal, listing)?;
            writes.confirmed_by = crate::tree_reads::confirm(
                manifest,
                timeline,
                &by_ordinal,
                listing,
                folder_entries,
                &writes,
            )?;
            (!writes.confirmed_by.is_empty()).then_some(writes)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::parsed_json as parse;

    fn listing() -> FolderListing {
        let entries: BTreeMap<String, Json> = [
            (
                "/f",
                r#"{"key":"/f","dir":true,"modifiedIndex":2,"createdIndex":2}"#,
            ),
            (
                "/f/a",
                r#"{"key":"/f/a","value":"on","modifiedIndex":2,"createdIndex":2}"#,
            ),
            (
                "/f/b",
                r#"{"key":"/f/b","value":"off","modifiedIndex":3,"createdIndex":3}"#,
            ),
        ]
        .into_iter()
        .map(|(text, entry)| (text.to_owned(), parse(entry)))
        .collect();
        FolderListing {
            prefix: "/keys".to_owned(),
            pointer: "/node".to_owned(),
            member: "key".to_owned(),
            children: "nodes".to_owned(),
            base_ordinal: 0,
            root: None,
            queries: Vec::new(),
            listed: ["".to_owned(), "/f".to_owned()].into_iter().collect(),
            entries,
            missing: None,
        }
    }

    /// A compare-and-swap class: `prevValue` compares `value`, the created index is kept.
    fn swap() -> TreeClass {
        TreeClass {
            query: [(
                "prevValue".to_owned(),
                QueryRole::Compares("value".to_owned()),
            )]
            .into_iter()
            .collect(),
            body: ["value".to_owned()].into_iter().collect(),
            previous_shape: Some(
                ["createdIndex", "key", "modifiedIndex", "value"]
                    .into_iter()
                    .map(str::to_owned)
                    .collect(),
            ),
            appends: None,
            removes: false,
            base_ordinal: 7,
            node: vec![
                ("key".to_owned(), NodeRole::Named),
                ("value".to_owned(), NodeRole::Sent("value".to_owned())),
                ("modifiedIndex".to_owned(), NodeRole::Counter),
                (
                    "createdIndex".to_owned(),
                    NodeRole::Kept("createdIndex".to_owned()),
                ),
            ],
            previous: Some("/prevNode".to_owned()),
        }
    }

    fn body(value: &str) -> BTreeMap<String, String> {
        [("value".to_owned(), value.to_owned())]
            .into_iter()
            .collect()
    }

    #[test]
    fn bodies_are_read_as_form_pairs_or_objects_of_strings() {
        let form = body_members(b"value=export%3A2026+11&dir=true").expect("a form");
        assert_eq!(form["value"], "export:2026 11");
        assert_eq!(form["dir"], "true");
        assert_eq!(
            body_members(br#"{"value":"x"}"#).expect("an object")["value"],
            "x"
        );
        assert_eq!(body_members(b"").expect("no body"), BTreeMap::new());
        // An object member that is no string, or a JSON array: not a body of members.
        assert_eq!(body_members(br#"{"value":1}"#), None);
        assert_eq!(body_members(b"[1]"), None);
    }

    #[test]
    fn a_class_renders_a_fitting_call_and_refuses_a_failed_compare() {
        let listing = listing();
        let entries = TreeEntries::start(&listing, 3);
        let base = parse(r#"{"action":"compareAndSwap","node":{},"prevNode":{}}"#);
        let pairs = [("prevValue".to_owned(), "on".to_owned())];
        let sent = body("off");
        let call = TreeCall {
            method: "PUT",
            rest: "/f/a",
            pairs: &pairs,
            body: &sent,
        };
        let effect = swap()
            .render(&listing, &entries, &call, &base)
            .expect("fits");
        assert_eq!(
            effect.answer,
            parse(
                r#"{"action":"compareAndSwap","node":{"key":"/f/a","value":"off","modifiedIndex":4,"createdIndex":2},"prevNode":{"key":"/f/a","value":"on","modifiedIndex":2,"createdIndex":2}}"#
            )
        );
        let mut after = entries.clone();
        after.apply(&effect);
        assert_eq!(after.counter, 4);
        assert_eq!(after.entries["/f/a"].get("value"), Some(&Json::from("off")));
        // The compare fails (the key holds "on"), a key the tree lacks, a folder: none fits.
        let failed = [("prevValue".to_owned(), "off".to_owned())];
        for (rest, pairs) in [("/f/a", &failed), ("/f/c", &pairs), ("/f", &pairs)] {
            let call = TreeCall {
                method: "PUT",
                rest,
                pairs,
                body: &sent,
            };
            assert_eq!(
                swap().render(&listing, &entries, &call, &base),
                None,
                "{rest}"
            );
        }
    }

    #[test]
    fn a_removal_takes_everything_below_and_an_append_needs_its_folder() {
        let listing = listing();
        let mut entries = TreeEntries::start(&listing, 3);
        entries.apply(&TreeEffect {
            text: "/f".to_owned(),
            after: None,
            answer: Json::Null,
            base_ordinal: 0,
        });
        assert!(entries.entries.is_empty(), "{:?}", entries.entries);
        assert!(entries.written_below(""));
        let append = TreeClass {
            query: BTreeMap::new(),
            previous_shape: None,
            appends: Some(4),
            previous: None,
            node: vec![("key".to_owned(), NodeRole::Named)],
            ..swap()
        };
        let sent = body("job");
        let call = TreeCall {
            method: "POST",
            rest: "/f",
            pairs: &[],
            body: &sent,
        };
        assert_eq!(append.render(&listing, &entries, &call, &Json::Null), None);
        let held = TreeEntries::start(&listing, 3);
        let effect = append
            .render(&listing, &held, &call, &parse(r#"{"node":{}}"#))
            .expect("the folder is held");
        assert_eq!(effect.text, "/f/0004");
    }
}

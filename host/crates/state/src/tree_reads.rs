//! Folder trees after served writes: the reads and writes of a folder tree whose writes were
//! learned (see [`crate::tree_writes`]), answered from the tree's entries as the served writes
//! left them.
//!
//! **Reads.** Once a served write changed a tree, a read of a path below its prefix answers, in
//! this order: a listed folder (still held, or created by a served write: all its children are
//! the tree's writes) asked with a learned listing query, its children composed from the written
//! entries (see [`crate::listings`]); an entry the read tool's folder
//! entries accept (see [`crate::entries`]), unless it holds its children and a write changed one
//! below it; a path no entry names, in a held folder whose children are listed, the tree's missing
//! answer holding the tree's counter now (see [`crate::unlisted`]). Anything else is not modelled
//! (never the recording, which shows the tree before the writes; `listing-order` when a listing
//! asked without its order flag shows two children or more). The same answers confirm the
//! learned writes: every read of the tree after the capture's first write that they answer must
//! agree with its recording ([`confirm`]).
//!
//! **Writes.** A call of a tree's write tool is rendered by the first learned class it fits, and
//! its effect applied to the live tree; a call no class fits is refused as not modelled, changing
//! nothing.

use std::collections::{BTreeMap, BTreeSet};

use rea_manifest::Manifest;
use rea_plugin_api::contracts::capture::CaptureRecord;
use rea_plugin_api::json::Json;
use serde_json::{Map, Value};

use crate::answer::{StateAnswer, StateSource, state_answer};
use crate::call::Call;
use crate::entries::FolderEntries;
use crate::listings::FolderListing;
use crate::recorded::{NotModelled, RecordingUnusable};
use crate::service::StateService;
use crate::tree_writes::{TreeCall, TreeEntries, TreeWrites, body_members, follow, tree_writes};

/// A listing as a tree's entries are now: the written entries, the listed folders still held.
fn effective(listing: &FolderListing, tree: &TreeEntries) -> FolderListing {
    let created = created_folders(listing, tree);
    let mut listing = listing.clone();
    listing.entries = tree.entries.clone();
    listing.listed.retain(|text| {
        text.is_empty()
            || tree.entries.contains_key(text)
            || tree.entries.contains_key(text.trim_start_matches('/'))
    });
    listing.listed.extend(created);
    listing
}

/// The folders served writes created (held now, absent before the first write, shaped as a
/// listed folder is): every child they hold came from a write the tree keeps, so their
/// listings are known whole.
fn created_folders(listing: &FolderListing, tree: &TreeEntries) -> Vec<String> {
    let shapes = listing.folder_shapes();
    tree.written
        .iter()
        .filter(|text| !listing.entries.contains_key(*text))
        .filter(|text| {
            tree.entries
                .get(*text)
                .and_then(Json::as_object)
                .is_some_and(|entry| {
                    let names: BTreeSet<&str> = entry.keys().collect();
                    shapes.contains(&names)
                })
        })
        .cloned()
        .collect()
}

/// A tree read's answer and the record it is rendered into (see the module docs).
fn tree_answer(
    (listing, folder_entries): (&FolderListing, &[FolderEntries]),
    tree: &TreeEntries,
    (tool, rest, pairs): (&str, &str, &[(String, String)]),
    base: impl Fn(u64) -> Option<Json>,
) -> Option<(u64, Json)> {
    let now = effective(listing, tree);
    if let Some(body) = now.answer(rest, pairs, &base(listing.base_ordinal)?) {
        return Some((listing.base_ordinal, body));
    }
    if let Some(text) = tree.text_of(rest) {
        let entry = &tree.entries[&text];
        let stale = entry
            .as_object()
            .is_some_and(|object| object.contains_key(&listing.children))
            && tree.written_below(&text);
        if stale {
            return None;
        }
        let entries = folder_entries.iter().find(|entries| {
            entries.tool == tool
                && entries.prefix == listing.prefix
                && entries.accepts(pairs, entry)
        })?;
        let body = crate::render::with_value_at(
            base(entries.base_ordinal)?,
            &entries.pointer,
            entry.clone(),
        );
        return Some((entries.base_ordinal, body));
    }
    let missing = listing.missing.as_ref()?;
    let counter = u64::try_from(tree.counter).ok();
    let body = now.answer_unlisted_at(rest, pairs, &base(missing.base_ordinal)?, counter)?;
    Some((missing.base_ordinal, body))
}

/// The reads of a tree after the capture's first write that its replayed writes answer, each
/// agreeing with its recording (`None`: one disagrees; see the module docs).
pub fn confirm(
    manifest: &Manifest,
    timeline: &crate::observation::Timeline,
    records: &BTreeMap<u64, &CaptureRecord>,
    listing: &FolderListing,
    folder_entries: &[FolderEntries],
    writes: &TreeWrites,
) -> Option<Vec<u64>> {
    let written = tree_writes(manifest, timeline, records, listing)?;
    let by_ordinal: BTreeMap<u64, _> = written
        .iter()
        .map(|write| (write.observation.ordinal, write))
        .collect();
    let mut tree = TreeEntries::start(listing, writes.seed);
    let mut confirmed = Vec::new();
    let base = |ordinal: u64| timeline.by_ordinal.get(&ordinal)?.body.clone();
    for ordinal in timeline.ordered.iter().skip(timeline.cutoff) {
        if let Some(write) = by_ordinal.get(ordinal) {
            tree.apply(&follow(listing, &tree, write)?);
            continue;
        }
        let read = &timeline.by_ordinal[ordinal];
        if !read.method.eq_ignore_ascii_case("GET") {
            continue;
        }
        let Some(rest) = crate::unlisted::rest_of(read, &listing.prefix) else {
            continue;
        };
        let tool = &manifest.tools.get(read.tool)?.name;
        let Some((based, body)) = tree_answer(
            (listing, folder_entries),
            &tree,
            (tool, &rest, read.pairs()),
            base,
        ) else {
            continue;
        };
        let status = timeline.by_ordinal.get(&based)?.status;
        if read.body.as_ref() != Some(&body) || read.status != status {
            return None;
        }
        confirmed.push(*ordinal);
    }
    Some(confirmed)
}

/// The members a served call's body argument sends: a form text, or an object of strings.
fn served_body(body: Option<&Value>) -> Option<BTreeMap<String, String>> {
    match body {
        None | Some(Value::Null) => Some(BTreeMap::new()),
        Some(Value::String(text)) => body_members(text.as_bytes()),
        Some(Value::Object(members)) => members
            .iter()
            .map(|(name, value)| Some((name.clone(), value.as_str()?.to_owned())))
            .collect(),
        Some(_) => None,
    }
}

fn not_modelled(reason: &str) -> StateAnswer {
    NotModelled {
        reason: reason.to_owned(),
        recording: RecordingUnusable::NotRecorded,
    }
    .into()
}

impl StateService {
    /// The learned tree a tool writes, with its listing.
    fn tree_of_tool(&self, tool: &str) -> Option<(&TreeWrites, &FolderListing)> {
        let writes = self
            .derived()
            .tree_writes
            .iter()
            .find(|writes| writes.tool(tool).is_some())?;
        let listing = self
            .derived()
            .folder_listings
            .iter()
            .find(|listing| listing.prefix == writes.prefix)?;
        Some((writes, listing))
    }

    /// A call of a tree's write tool, served (see the module docs); `None`: no tree learned
    /// the tool.
    pub(crate) fn answer_tree_write(
        &self,
        tool: &str,
        arguments: &Map<String, Value>,
    ) -> Option<StateAnswer> {
        let (writes, listing) = self.tree_of_tool(tool)?;
        let definition = self.replay().tool(tool)?;
        let call = Call::resolve(definition, arguments);
        let path = format!("/{}", call.segments(&definition.path_template).join("/"));
        let Some(rest) = path.strip_prefix(&writes.prefix) else {
            return Some(not_modelled("tree-path"));
        };
        let Some(body) = served_body(call.body.as_ref()) else {
            return Some(not_modelled("tree-body"));
        };
        let pairs = call.pairs();
        let tree_call = TreeCall {
            method: &definition.method,
            rest,
            pairs: &pairs,
            body: &body,
        };
        let mut live = self.write();
        let started;
        let tree = match live.tree(&writes.prefix) {
            Some(tree) => tree,
            None => {
                started = TreeEntries::start(listing, writes.seed);
                &started
            }
        };
        let rendered = writes
            .classes_for(tool, &definition.method)
            .find_map(|class| {
                let base = self.kept(class.base_ordinal)?;
                let effect = class.render(listing, tree, &tree_call, base.json()?)?;
                Some((base, effect))
            });
        let Some((base, effect)) = rendered else {
            let missing = tree_call
                .method
                .eq_ignore_ascii_case("DELETE")
                .then(|| self.missing_delete(listing, tree, rest))
                .flatten();
            return Some(missing.unwrap_or_else(|| not_modelled("tree-write-unrecorded")));
        };
        let source = StateSource::Write {
            source: "state",
            view: match (&effect.after, tree.entries.contains_key(&effect.text)) {
                (None, _) => "delete",
                (Some(_), true) => "update",
                (Some(_), false) => "create",
            },
            collection: Some(writes.prefix.clone()),
            id: Some(effect.text.clone()),
            ids: None,
        };
        let answer = state_answer(
            base,
            effect.answer.clone(),
            self.replay_evidence_id(),
            false,
            source,
        );
        live.write_tree(
            &writes.prefix,
            || TreeEntries::start(listing, writes.seed),
            &effect,
        );
        Some(answer)
    }

    /// A delete of a path no entry names, in a held folder whose children are listed: the
    /// tree's missing answer, holding its counter now, as the application answers a delete of
    /// nothing whatever it sends with it; the state does not change.
    fn missing_delete(
        &self,
        listing: &FolderListing,
        tree: &TreeEntries,
        rest: &str,
    ) -> Option<StateAnswer> {
        let missing = listing.missing.as_ref()?;
        let pairs: Vec<(String, String)> = missing.query.iter().cloned().collect();
        let base = self.kept(missing.base_ordinal)?;
        let counter = u64::try_from(tree.counter).ok();
        let body =
            effective(listing, tree).answer_unlisted_at(rest, &pairs, base.json()?, counter)?;
        Some(state_answer(
            base,
            body,
            self.replay_evidence_id(),
            false,
            StateSource::state("missing", None),
        ))
    }

    /// A read of a tree a served write changed (see the module docs); `None`: the call's path
    /// is below no such tree.
    pub(crate) fn answer_tree_read(
        &self,
        tool: &str,
        template: &str,
        call: &Call,
    ) -> Option<StateAnswer> {
        let path = format!("/{}", call.segments(template).join("/"));
        let live = self.read();
        let (listing, tree, rest) = self.derived().tree_writes.iter().find_map(|writes| {
            let rest = path.strip_prefix(&writes.prefix)?;
            let tree = live.tree(&writes.prefix)?;
            let listing = self
                .derived()
                .folder_listings
                .iter()
                .find(|listing| listing.prefix == writes.prefix)?;
            Some((listing, tree, rest.to_owned()))
        })?;
        let pairs = call.pairs();
        let answered = tree_answer(
            (listing, &self.derived().folder_entries),
            tree,
            (tool, &rest, &pairs),
            |ordinal| self.kept(ordinal)?.json().cloned(),
        );
        Some(match answered {
            Some((ordinal, body)) => match self.kept(ordinal) {
                Some(base) => state_answer(
                    base,
                    body,
                    self.replay_evidence_id(),
                    false,
                    StateSource::state(path, None),
                ),
                None => not_modelled("tree-after-write"),
            },
            None if effective(listing, tree).order_unknown(&rest, &pairs) => {
                not_modelled("listing-order")
            }
            None => not_modelled("tree-after-write"),
        })
    }
}

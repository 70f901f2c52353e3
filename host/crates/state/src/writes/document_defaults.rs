//! Defaults read from a document (issue 12): a create storing, for a member it did not send, the
//! value a document the state holds showed under the same name at the time (Syncthing's device
//! create takes `compression` and `autoAcceptFolders` from `/rest/config/defaults/device`, which a
//! served `PATCH` of that document changes between two creates).
//!
//! Learned before the constants ([`learn`]): the document (a document view's path) whose latest
//! read before each create call held, under the same name, the value the call stored for the
//! most top-level members it did not send (the first in order where several explain as many),
//! when it explains three or more, or one the calls stored with different values (no constant
//! explains it). Applied when a create does not send the member: the member of the
//! live document, as served writes left it ([`apply`]); nothing when the state holds no such
//! document or it lacks the member.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use rea_manifest::Manifest;
use rea_plugin_api::contracts::capture::CaptureRecord;
use rea_plugin_api::json::{Json, Object, unescape_pointer_segment};
use serde::{Deserialize, Serialize};

use super::explain::{Observed, Residual, nested_pointer};
use crate::model::{StateView, ViewDetail};
use crate::observation::Timeline;
use crate::store::LiveState;

/// A document the state holds: its view (tool) and its path.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct DocumentRef {
    /// The document view (tool).
    pub view: String,
    /// The document's path.
    pub path: String,
}

/// The recorded reads of the state's documents, and each record's position (the bodies stay in
/// the records, parsed only for a create that leaves members unexplained).
#[derive(Debug, Default)]
pub(crate) struct DocumentReads {
    /// Each successful read of a document view holding a body: the document, its position and
    /// its record's ordinal.
    reads: Vec<(DocumentRef, usize, u64)>,
    /// Each record's position, by ordinal.
    positions: HashMap<u64, usize>,
}

impl DocumentReads {
    /// The reads of the state's document views in the timeline.
    pub(crate) fn new(manifest: &Manifest, timeline: &Timeline, state: &StateView) -> Self {
        let mut reads = Vec::new();
        for view in &state.views {
            let ViewDetail::Document(_) = &view.detail else {
                continue;
            };
            let Some(index) = crate::derive::tool_index(manifest, &view.tool) else {
                continue;
            };
            for read in timeline.all(index).filter(|read| read.is_success()) {
                if matches!(read.body, Some(Json::Object(_))) {
                    let document = DocumentRef {
                        view: view.tool.clone(),
                        path: read.path.to_string(),
                    };
                    reads.push((document, read.position, read.ordinal));
                }
            }
        }
        let positions = (timeline.by_ordinal.iter())
            .map(|(ordinal, observation)| (*ordinal, observation.position))
            .collect();
        Self { reads, positions }
    }

    /// The record of each document's latest read before `position`.
    fn before(&self, position: usize) -> BTreeMap<&DocumentRef, u64> {
        let mut latest: BTreeMap<&DocumentRef, (usize, u64)> = BTreeMap::new();
        for (document, at, ordinal) in &self.reads {
            if *at < position && latest.get(document).is_none_or(|(known, _)| *known < *at) {
                latest.insert(document, (*at, *ordinal));
            }
        }
        (latest.into_iter())
            .map(|(document, (_, ordinal))| (document, ordinal))
            .collect()
    }
}

/// The object a record's response body holds, parsed.
fn recorded_object(records: &[CaptureRecord], ordinal: u64) -> Option<Object> {
    // The records are in ordinal order; a search that misses looks through them.
    let record = match records.binary_search_by_key(&ordinal, |record| record.ordinal) {
        Ok(index) => &records[index],
        Err(_) => records.iter().find(|record| record.ordinal == ordinal)?,
    };
    match rea_plugin_api::json::parse(&record.response.body.bytes()?).ok()? {
        Json::Object(object) => Some(object),
        _ => None,
    }
}

/// The members the residuals of create calls leave that one document explains (see the module
/// docs), taken out of the residuals.
pub(super) fn learn(
    residuals: &mut [Residual],
    observed: &[Observed<'_>],
    (reads, records): (&DocumentReads, &[CaptureRecord]),
) -> BTreeMap<String, DocumentRef> {
    let pointers: BTreeSet<&String> = (residuals.iter())
        .flat_map(|residual| residual.keys())
        .filter(|pointer| !nested_pointer(pointer))
        .collect();
    if pointers.is_empty() {
        return BTreeMap::new();
    }
    let mut parsed: HashMap<u64, Option<Object>> = HashMap::new();
    let latest: Vec<Option<BTreeMap<&DocumentRef, u64>>> = observed
        .iter()
        .map(|seen| Some(reads.before(*reads.positions.get(&seen.call.ordinal)?)))
        .collect();
    for ordinal in latest.iter().flatten().flat_map(|shown| shown.values()) {
        parsed
            .entry(*ordinal)
            .or_insert_with(|| recorded_object(records, *ordinal));
    }
    let shown: Vec<Option<BTreeMap<&DocumentRef, &Object>>> = (latest.iter())
        .map(|latest| {
            let latest = latest.as_ref()?;
            let objects = latest.iter().filter_map(|(document, ordinal)| {
                Some((*document, parsed.get(ordinal)?.as_ref()?))
            });
            Some(objects.collect())
        })
        .collect();
    let documents: BTreeSet<&DocumentRef> = shown
        .iter()
        .flatten()
        .flat_map(|shown| shown.keys().copied())
        .collect();
    let explained = |document: &DocumentRef, pointer: &str| {
        let member = unescape_pointer_segment(&pointer[1..]);
        (residuals.iter().zip(observed).zip(&shown)).all(|((residual, seen), shown)| match residual
            .get(pointer)
        {
            None => seen.sent.get(&member).is_some(),
            Some(value) => {
                let held = shown.as_ref().and_then(|shown| shown.get(document));
                held.and_then(|object| object.get(&member)) == Some(value)
            }
        })
    };
    let best = documents
        .into_iter()
        .map(|document| {
            let members: Vec<String> = (pointers.iter())
                .filter(|pointer| explained(document, pointer))
                .map(|pointer| (*pointer).clone())
                .collect();
            (document, members)
        })
        .fold(
            None,
            |best: Option<(&DocumentRef, Vec<String>)>, (document, members)| match &best {
                Some((_, known)) if known.len() >= members.len() => best,
                _ => Some((document, members)),
            },
        );
    let Some((document, members)) = best else {
        return BTreeMap::new();
    };
    if !(members.len() >= MIN_MEMBERS || members.iter().any(|pointer| varies(residuals, pointer))) {
        return BTreeMap::new();
    }
    let mut learned = BTreeMap::new();
    for pointer in members {
        for residual in residuals.iter_mut() {
            residual.remove(&pointer);
        }
        learned.insert(unescape_pointer_segment(&pointer[1..]), document.clone());
    }
    learned
}

/// How many members one document must explain where none of them varies between the calls
/// (else the calls' one value explains them as well: a constant).
const MIN_MEMBERS: usize = 3;

/// Whether the calls storing a member stored it with different values.
fn varies(residuals: &[Residual], pointer: &str) -> bool {
    let mut values = residuals
        .iter()
        .filter_map(|residual| residual.get(pointer));
    let first = values.next();
    values.any(|value| Some(value) != first)
}

/// Sets each member a create did not send from the live document it is learned from.
pub(crate) fn apply(
    object: &mut Object,
    defaults: &BTreeMap<String, DocumentRef>,
    state: &LiveState,
) {
    for (member, document) in defaults {
        if object.contains_key(member) {
            continue;
        }
        let value = (state.document(&document.view, &document.path))
            .and_then(|held| held.value.as_object())
            .and_then(|held| held.get(member));
        if let Some(value) = value {
            object.insert(member, value.clone());
        }
    }
}

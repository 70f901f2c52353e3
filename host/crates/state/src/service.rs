//! The served state: one live state, shared by every MCP session and the data plane, with the
//! recordings its answers are based on and the rule stages served writes apply.
//!
//! How a tool call is answered from it: [`crate::answering`] (a served write,
//! [`crate::writes::serve`]; any other tool, [`crate::read`]); the data plane's operations on it:
//! [`crate::plane`].

use std::borrow::Cow;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use rea_manifest::Environment;
use rea_plugin_api::contracts::capture::CaptureRecord;
use rea_plugin_api::json::Json;

use crate::answer::{KeptRecord, KeptRecords};
use crate::model::{StateView, ViewDetail};
use crate::recorded::RecordedLines;
use crate::rules::RuleSet;
use crate::store::LiveState;

/// The state an environment serves: the derived state, the live state, the recordings, and the
/// rule stages served writes apply.
#[derive(Debug)]
pub struct StateService {
    state_evidence_id: String,
    derived: StateView,
    /// The derived state indexed, as `data/reset` restores it: built the first time it is asked
    /// for (a reset, a `data/add`), not at startup beside the live state's own indexes.
    initial: OnceLock<LiveState>,
    live: RwLock<LiveState>,
    /// How many times the live state was taken for writing (changed only under its write lock):
    /// what a write prepared on a read view checks before it commits.
    taken: AtomicU64,
    /// Held shared by every served write and alone by a batch of writes, so no other caller's
    /// write lands between a batch's sub-requests (a refused sub-request restores the state held
    /// before the batch, which would undo it).
    write_gate: RwLock<()>,
    replay: Environment,
    records: KeptRecords,
    recorded_lines: RecordedLines,
    rules: Arc<RuleSet>,
    /// The bytes `data/get` writes for an empty state of this served state (its header).
    empty_report_bytes: usize,
}

impl StateService {
    /// The service of a derived state, its Evidence id, the replay environment of the same
    /// manifest, and the capture records (only those the views cite are kept). Records given
    /// owned are dropped once the kept ones and the recorded lines are read from them, before the
    /// live state is built, so they are not held beside it.
    pub fn new<'a>(
        derived: StateView,
        state_evidence_id: String,
        replay: Environment,
        records: impl Into<Cow<'a, [CaptureRecord]>>,
        rules: Arc<RuleSet>,
    ) -> Self {
        let records = records.into();
        let recorded_lines = RecordedLines::new(&derived, &replay, &records);
        let records = kept_records(&derived, records);
        let live = initial_state(&derived);
        let empty_report_bytes = LiveState::default()
            .to_document(&state_evidence_id, &derived.types)
            .to_canonical_vec()
            .len();
        Self {
            empty_report_bytes,
            state_evidence_id,
            live: RwLock::new(live),
            taken: AtomicU64::new(0),
            write_gate: RwLock::new(()),
            initial: OnceLock::new(),
            derived,
            replay,
            records,
            recorded_lines,
            rules,
        }
    }

    /// The recorded requests of the read tools (which recording may answer a call).
    pub(crate) fn recorded_lines(&self) -> &RecordedLines {
        &self.recorded_lines
    }

    /// The rule stages served writes apply.
    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    /// The state Evidence id.
    pub fn state_evidence_id(&self) -> &str {
        &self.state_evidence_id
    }

    /// What served writes' generated values derive from: the state's draw seed (empty for a
    /// state derived without one, where the rules draw from the state Evidence id instead:
    /// [`rea_plugin_api::contracts::rule::ServedCall::generation_seed`]).
    pub fn draw_seed(&self) -> &str {
        &self.derived.draw_seed
    }

    /// The derived state.
    pub fn derived(&self) -> &StateView {
        &self.derived
    }

    /// The derived state, the rest of the service dropped.
    pub fn into_derived(self) -> StateView {
        self.derived
    }

    /// The derived state, indexed (what `data/reset` restores).
    pub fn initial(&self) -> &LiveState {
        self.initial.get_or_init(|| initial_state(&self.derived))
    }

    /// The replay environment answering recordings.
    pub fn replay(&self) -> &Environment {
        &self.replay
    }

    /// Reads the live state.
    pub fn read(&self) -> RwLockReadGuard<'_, LiveState> {
        self.live.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// Writes the live state.
    pub fn write(&self) -> RwLockWriteGuard<'_, LiveState> {
        let live = self.live.write().unwrap_or_else(PoisonError::into_inner);
        self.taken.fetch_add(1, Ordering::Relaxed);
        live
    }

    /// Reads the live state, with the number of times it was taken for writing so far (what
    /// [`StateService::write_unless_taken`] checks).
    pub fn read_counted(&self) -> (RwLockReadGuard<'_, LiveState>, u64) {
        let live = self.read();
        let taken = self.taken.load(Ordering::Relaxed);
        (live, taken)
    }

    /// Writes the live state when nothing took it for writing since it was read counting
    /// `taken` ([`StateService::read_counted`]): then it is the state that read saw.
    pub fn write_unless_taken(&self, taken: u64) -> Option<RwLockWriteGuard<'_, LiveState>> {
        let live = self.live.write().unwrap_or_else(PoisonError::into_inner);
        if self.taken.load(Ordering::Relaxed) != taken {
            return None;
        }
        self.taken.fetch_add(1, Ordering::Relaxed);
        Some(live)
    }

    /// Taken by one served write for as long as it is served: any number at once, none while a
    /// batch holds [`StateService::batch_writes`].
    pub fn one_write(&self) -> RwLockReadGuard<'_, ()> {
        self.write_gate
            .read()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Taken by a batch of writes for as long as its sub-requests are applied: no other served
    /// write runs meanwhile.
    pub fn batch_writes(&self) -> RwLockWriteGuard<'_, ()> {
        self.write_gate
            .write()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Restores the derived state.
    pub fn reset(&self) {
        *self.write() = self.initial().clone();
    }

    /// Replaces the whole live state.
    pub fn replace(&self, state: LiveState) {
        *self.write() = state;
    }

    /// How many bytes `data/get` writes for a live state of this service.
    pub fn report_bytes(&self, state: &LiveState) -> usize {
        state.report_bytes(self.empty_report_bytes)
    }

    /// The live state's `rea-state/v1` document.
    pub fn document(&self) -> Json {
        self.read()
            .to_document(&self.state_evidence_id, &self.derived.types)
    }

    pub(crate) fn kept(&self, ordinal: u64) -> Option<&KeptRecord> {
        self.records.get(&ordinal)
    }

    /// The state Evidence id and the replay's evidence id, for write answers.
    pub(crate) fn replay_evidence_id(&self) -> &str {
        self.replay.evidence_id()
    }
}

/// The derived state indexed, its entities shared with it, not copied.
fn initial_state(derived: &StateView) -> LiveState {
    let mut initial = LiveState::from_shared(derived.entities.clone(), derived.documents.clone());
    initial.append_to(&derived.appended_lists);
    initial.seed_counters(&derived.store_counters);
    initial.hold_listed_rows();
    initial
}

/// The records a state's answers quote ([`answered_ordinals`]), kept; the given records are
/// dropped here.
fn kept_records(state: &StateView, records: Cow<'_, [CaptureRecord]>) -> KeptRecords {
    let wanted = answered_ordinals(state);
    records
        .iter()
        .filter(|record| wanted.contains(&record.ordinal))
        .filter_map(|record| KeptRecord::new(record).map(|kept| (record.ordinal, kept)))
        .collect()
}

/// The records a served write's answers quote: its responses, missing answer, batch, guarded,
/// relationship and upsert answers, conflicts and refusals.
fn served_write_ordinals(
    plan: &crate::writes::model::WritePlan,
    wanted: &mut std::collections::BTreeSet<u64>,
) {
    wanted.extend(plan.response.as_ref().map(|response| response.ordinal));
    wanted.extend(
        plan.response
            .iter()
            .flat_map(|response| &response.by_options)
            .map(|answer| answer.response.ordinal),
    );
    wanted.extend(plan.missing_ordinal);
    wanted.extend(plan.batch.as_ref().map(|batch| batch.answer_ordinal));
    wanted.extend(plan.guarded.as_ref().map(|guarded| guarded.answer_ordinal));
    wanted.extend(plan.relationship.as_ref().map(|model| model.answer_ordinal));
    wanted.extend(plan.to_many.as_ref().map(|model| model.answer_ordinal));
    wanted.extend(plan.conflicts.iter().map(|conflict| conflict.ordinal));
    wanted.extend(plan.omitted.iter().map(|omitted| omitted.ordinal));
    wanted.extend(plan.omitted_sets.iter().map(|set| set.ordinal));
    wanted.extend(plan.keyed_refusals.iter().map(|keyed| keyed.ordinal));
    wanted.extend(plan.lent_omission.as_ref().map(|lent| lent.ordinal));
    wanted.extend(plan.referenced.iter().map(|referenced| referenced.ordinal));
    wanted.extend(plan.constant_refusals.iter().map(|refusal| refusal.ordinal));
    wanted.extend(plan.type_refusals.iter().map(|refusal| refusal.ordinal));
    wanted.extend(
        plan.upsert
            .as_ref()
            .and_then(|upsert| upsert.response.as_ref())
            .map(|response| response.ordinal),
    );
}

/// The ordinals of the records a state's answers quote: the responses, missing answers,
/// conflicts and omitted-member refusals of its served writes, the conflicts of its withheld ones, the envelopes and missing answers of its item views, the lines
/// of its lists and their page envelopes, its documents, the bases of its folder entries, the
/// envelopes of its related routes.
pub fn answered_ordinals(state: &StateView) -> std::collections::BTreeSet<u64> {
    let mut wanted = std::collections::BTreeSet::new();
    for plan in state.served_writes() {
        served_write_ordinals(plan, &mut wanted);
    }
    // A withheld write answers its learned conflicts too (`writes::serve::withheld_conflict`).
    for plan in state.write_plans.iter().filter(|plan| !plan.served) {
        wanted.extend(plan.conflicts.iter().map(|conflict| conflict.ordinal));
    }
    wanted.extend(
        state
            .related_routes
            .iter()
            .map(|route| route.envelope_ordinal),
    );
    wanted.extend(state.query_refusals.iter().map(|refusal| refusal.ordinal));
    wanted.extend(
        state
            .linkage_routes
            .iter()
            .map(|route| route.envelope_ordinal),
    );
    for view in &state.views {
        view_ordinals(&view.detail, &mut wanted);
    }
    wanted.extend(
        state
            .absent_answers
            .iter()
            .map(|absent| absent.missing_ordinal),
    );
    wanted.extend(state.created_reads.iter().map(|read| match &read.answer {
        crate::created::CreatedAnswer::Item {
            missing_ordinal, ..
        } => *missing_ordinal,
        crate::created::CreatedAnswer::List { base_ordinal, .. } => *base_ordinal,
    }));
    wanted.extend(
        state
            .sliced_members
            .iter()
            .flat_map(|sliced| sliced.bases.iter().map(|base| base.ordinal)),
    );

    wanted.extend(folder_ordinals(state));
    wanted
}

/// The records a read view's answers quote: an item's envelope and error answers, a list's
/// lines, page envelope and past-the-end refusal, a document's lines, and so on.
fn view_ordinals(detail: &ViewDetail, wanted: &mut std::collections::BTreeSet<u64>) {
    match detail {
        ViewDetail::Item(item) => {
            wanted.insert(item.envelope_ordinal);
            wanted.extend(item.missing_ordinal);
            wanted.extend(item.malformed_ordinal);
        }
        ViewDetail::List(list) => {
            wanted.extend(list.lines.iter().map(|line| line.record_ordinal));
            // A page past the last answers the build's refusal of one.
            wanted.extend(list.query.as_ref().and_then(|model| model.past_end_refusal));
            wanted.extend(
                list.page_envelope
                    .as_ref()
                    .map(|envelope| envelope.record_ordinal),
            );
        }
        ViewDetail::Document(document) => {
            wanted.extend(document.lines().map(|(_, ordinal)| ordinal));
        }
        ViewDetail::BodyQuery(query) => {
            wanted.insert(query.record_ordinal);
        }
        ViewDetail::Member(member) => {
            wanted.insert(member.envelope_ordinal);
            wanted.extend(member.missing_ordinal);
            wanted.extend(member.missing_entity_ordinal);
        }
        ViewDetail::Count(count) => {
            wanted.insert(count.envelope_ordinal);
        }
        ViewDetail::IdMap(map) => {
            wanted.insert(map.envelope_ordinal);
        }
        ViewDetail::Recorded { .. } => {}
    }
}

/// The records a folder tree's answers quote: its entries' and listings' bases, its missing
/// answer, its served writes' recorded answers.
fn folder_ordinals(state: &StateView) -> impl Iterator<Item = u64> + '_ {
    let entries = state
        .folder_entries
        .iter()
        .map(|entries| entries.base_ordinal);
    let listings = state.folder_listings.iter().flat_map(|listing| {
        std::iter::once(listing.base_ordinal)
            .chain(listing.missing.as_ref().map(|missing| missing.base_ordinal))
    });
    let trees = state
        .tree_writes
        .iter()
        .flat_map(crate::tree_writes::TreeWrites::base_ordinals);
    entries.chain(listings).chain(trees)
}

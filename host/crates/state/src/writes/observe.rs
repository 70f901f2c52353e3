//! Pass 2: every successful write call in record order, against a simulated state that adopts
//! what each call was observed to do.
//!
//! Each read after the first write belongs to the window of the latest call of its scope (the
//! type its item, list, body-query or count view reads, or its document view), and to the window
//! of the latest unlinked create until the next write of any tool; a delete of an item of a held
//! type closes every other scope's window (it may clear what other types' entities held of it); a
//! later write naming a call's entity (its id a path segment or a string of its body: a child's
//! create naming its parent) ends that call's window for it. A call's entity after is the first
//! read of the written entity by id in its window (absent when it answers as the item view's
//! missing entity: `404`/`410`, or another client error after a delete of its path; a body query
//! whose body names the entity alone by the identity's name reads it too: absent when it lists
//! nothing), else the entity its answer showed (unless the answer shows it in another shape than
//! the entity before, or a held entity of its collection, and a list read in the window shows it
//! in that shape: then as listed), else (an update or delete) the entity as the first
//! list read in the window listed it, filtered or not, when it holds the held entity's members at
//! every depth (a filter selects; a sparse fieldset projects and is not the entity), else (a
//! delete) absent when a count view's read of the whole collection counts one less than the
//! entities held with it; the simulated state then takes that value, and the first whole list
//! read in the window gives the collection's order, so the next call's entity before is what the
//! application held.
//! Nothing here depends on the rules: it gathers what they learn from.

use rea_plugin_api::contracts::capture::CompactString;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use rea_manifest::Manifest;
use rea_plugin_api::contracts::query::QueryRole;
use rea_plugin_api::contracts::rule::{ObservedDependent, ObservedRead, ReadKind};
use rea_plugin_api::json::Json;

use super::target::TargetKind;
use super::{Draft, Scope, Views};
use crate::derive::entities::collection_key;
use crate::derive::lists::listed_collection;
use crate::derive::marked_deleted;
use crate::model::{Entity, StateView};
use crate::observation::{Observation, RequestBody, Timeline, decoded};
use crate::query::{is_sort_parameter, only_pages};
use crate::render::scalar_text;
use crate::store::{LiveState, Position, compare_values};

/// What a call was observed to leave.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum After {
    /// Nothing showed it.
    Unobserved,
    /// The entity is absent.
    Absent,
    /// The entity, as a read (or the answer) showed it.
    Present(Json),
    /// The document's value.
    Document(Json),
}

/// One successful write call, observed.
#[derive(Debug, Clone)]
pub(crate) struct Call {
    /// The draft (plan) it belongs to.
    pub draft: usize,
    /// The record.
    pub ordinal: u64,
    /// The path's segments as recorded.
    pub segments: Vec<CompactString>,
    /// The query pairs.
    pub query: Option<Vec<(String, String)>>,
    /// The request body (its sent references re-spelled as the link objects stored, see
    /// [`super::references`]).
    pub request: RequestBody,
    /// The request body as recorded, when [`super::references`] re-spelled it.
    pub recorded_request: Option<RequestBody>,
    /// The answer as JSON.
    pub response: Option<Json>,
    /// The status.
    pub status: u16,
    /// The start instant.
    pub started: Option<String>,
    /// The duration.
    pub duration_ms: Option<f64>,
    /// The written entity: type, collection (as the path spells it), id.
    pub key: Option<(String, String, String)>,
    /// The entity before (updates and deletes).
    pub before: Option<Entity>,
    /// Whether an earlier write of the same entity left it unobserved (no read showed what that
    /// write did before this call), so `before` is the state from before that write, not what
    /// the application held: this call shows the two writes' effects together and teaches
    /// nothing about its own.
    pub stale_before: bool,
    /// A call that was stale but whose answer showed one member of its entity after it (see
    /// [`scope_to_answered_member`]): that member; `before` is the entity after everywhere else.
    pub answered_member: Option<String>,
    /// A call learned in its answered member whose entity an earlier unobserved call of the
    /// same entity changed elsewhere (see [`super::together`]): that call's ordinal, which the
    /// reads confirming this call confirm too.
    pub together_with: Option<u64>,
    /// The document before (document writes).
    pub document_before: Option<Json>,
    /// Its position in its collection before.
    pub before_position: Option<usize>,
    /// What the call left.
    pub after: After,
    /// Where the answer showed the entity (pointer), when it did.
    pub response_pointer: Option<String>,
    /// The reads after it that show the entity or its collection.
    pub reads: Vec<ObservedRead>,
    /// Per top-level field, the largest integer the collection held before a create.
    pub held_max: BTreeMap<String, Json>,
    /// Per top-level field, the largest integer the collection ever held before a create, when
    /// more than `held_max` (see `ObservedCall::given_max`).
    pub given_max: BTreeMap<String, Json>,
    /// The store counters the state keeps (answer pointer → value), as the recorded answers
    /// before the call left them (see [`crate::counters`]).
    pub counters_before: BTreeMap<String, Json>,
    /// Per top-level field, the value every entity the collection held before a create shares.
    pub shared: BTreeMap<String, Json>,
    /// The fields of [`Call::shared`] the type's other collections held with other values (a
    /// value the collection shares by chance, offered to the rules before it is taken as a
    /// collection constant).
    pub shared_by_chance: BTreeSet<String>,
    /// When some field is shared by chance: the entities of the type held before the create,
    /// their scalar top-level members (what a rule explaining such a field learns from).
    pub held_entities: Vec<Json>,
    /// The read ordinals of its window.
    pub window: Vec<u64>,
    /// A bulk call: each entity its body names, in body order, as observed.
    pub bulk: Vec<BulkTarget>,
    /// A delete of one entity: the entities of other types that held its id, as reads after it
    /// showed them (see [`super::dependents`]).
    pub dependents: Vec<ObservedDependent>,
    /// A create into a collection the simulation never held an entity of (one an unmodelled
    /// write made, `/-/create` of a table): what the collection held before it is unknown.
    pub unknown_collection: bool,
    /// An update observed copying its entity under a new identity (see
    /// [`Simulation::observe_copy`]): the copy's id; `after` is the copy.
    pub copy: Option<String>,
    /// A copy's collection when the write moved it out of the original's (see
    /// [`super::apply::moved_collection`]).
    pub moved_to: Option<String>,
    /// The statuses of the same tool's refused calls since its previous successful call (or
    /// the capture's start), in record order: what a sequence may have consumed.
    pub refused_before: Vec<u16>,
}

/// One entity a bulk call named, observed as a single call's entity is.
#[derive(Debug, Clone)]
pub(crate) struct BulkTarget {
    /// Its id.
    pub id: String,
    /// The entity before.
    pub before: Option<Entity>,
    /// What the call left.
    pub after: After,
    /// The reads after the call that show it or its collection.
    pub reads: Vec<ObservedRead>,
    /// Its position in its collection before.
    pub before_position: Option<usize>,
}

/// An integer value (a number, or a string of digits).
pub(crate) fn integer(value: &Json) -> Option<i128> {
    match value {
        Json::Number(number) => number.as_i64().map(i128::from),
        Json::String(text) if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => {
            text.parse().ok()
        }
        _ => None,
    }
}

/// The list array of a read.
pub(crate) fn members<'a>(observation: &'a Observation, pointer: &str) -> &'a [Json] {
    observation
        .body
        .as_ref()
        .and_then(|body| body.pointer(pointer))
        .and_then(Json::as_array)
        .map_or(&[], Vec::as_slice)
}

/// Where a write's answer shows an entity carrying the identity field (with the given id, when
/// known): the item view's pointer, the root, or one envelope member down.
pub(crate) fn find_entity<'a>(
    response: &'a Json,
    identity: &str,
    id: Option<&str>,
    preferred: &str,
) -> Option<(String, &'a Json)> {
    let fits = |object: &Json| {
        crate::render::identity_text(object, identity)
            .is_some_and(|found| id.is_none_or(|id| id == found))
    };
    let mut candidates: Vec<String> = vec![preferred.to_owned(), String::new()];
    // A list of one object (`[{"id": 15}]`: a create answering its generated id in a list).
    if let Json::Array(items) = response
        && matches!(items.as_slice(), [Json::Object(_)])
    {
        candidates.push("/0".to_owned());
    }
    // An envelope's object member, or the one item of its array member (`{"rows": [{…}]}`).
    if let Json::Object(object) = response {
        for (key, value) in object.iter() {
            let key = rea_plugin_api::json::escape_pointer_segment(key);
            match value {
                Json::Object(_) => candidates.push(format!("/{key}")),
                Json::Array(items) if matches!(items.as_slice(), [Json::Object(_)]) => {
                    candidates.push(format!("/{key}/0"));
                }
                _ => {}
            }
        }
    }
    candidates.into_iter().find_map(|pointer| {
        let value = response.pointer(&pointer)?;
        fits(value).then_some((pointer, value))
    })
}

/// Per collection and field, the values the simulated collection holds (how many entities hold
/// each), kept up to date as the simulation changes them and built the first time a field of a
/// collection is asked for: the largest integer a sequence continues from, and the value every
/// entity shares.
#[derive(Debug, Default)]
struct Tallies {
    values: HashMap<(String, String), HashMap<String, (usize, Json)>>,
    integers: HashMap<(String, String), BTreeMap<i128, usize>>,
    /// The largest integer each collection's field held since it was first tallied.
    peaks: HashMap<(String, String), i128>,
    tracked: HashMap<String, Vec<String>>,
    sizes: HashMap<String, usize>,
}

impl Tallies {
    fn ensure(&mut self, sim: &LiveState, entity_type: &str, collection: &str, field: &str) {
        let key = (collection_key(collection).to_owned(), field.to_owned());
        if self.values.contains_key(&key) {
            return;
        }
        let mut counts: HashMap<String, (usize, Json)> = HashMap::new();
        let mut integers: BTreeMap<i128, usize> = BTreeMap::new();
        let held = sim.collection(entity_type, collection);
        for entity in &held {
            if let Some(value) = entity.fields.get(field) {
                counts
                    .entry(value.to_canonical_string())
                    .or_insert_with(|| (0, value.clone()))
                    .0 += 1;
                if let Some(number) = integer(value) {
                    *integers.entry(number).or_default() += 1;
                }
            }
        }
        self.sizes.insert(key.0.clone(), held.len());
        if let Some(largest) = integers.keys().next_back() {
            self.peaks.insert(key.clone(), *largest);
        }
        self.values.insert(key.clone(), counts);
        self.integers.insert(key.clone(), integers);
        self.tracked
            .entry(key.0)
            .or_default()
            .push(field.to_owned());
    }

    fn largest(
        &mut self,
        sim: &LiveState,
        entity_type: &str,
        collection: &str,
        field: &str,
    ) -> Option<i128> {
        self.ensure(sim, entity_type, collection, field);
        let key = (collection_key(collection).to_owned(), field.to_owned());
        self.integers[&key].keys().next_back().copied()
    }

    /// The largest integer the field held since the collection was first tallied, when more
    /// than it holds now (a deleted entity held it).
    fn given(
        &mut self,
        sim: &LiveState,
        entity_type: &str,
        collection: &str,
        field: &str,
    ) -> Option<i128> {
        let largest = self.largest(sim, entity_type, collection, field);
        let key = (collection_key(collection).to_owned(), field.to_owned());
        self.peaks
            .get(&key)
            .copied()
            .filter(|peak| largest.is_none_or(|largest| *peak > largest))
    }

    fn shared(
        &mut self,
        sim: &LiveState,
        entity_type: &str,
        collection: &str,
        field: &str,
    ) -> Option<Json> {
        self.ensure(sim, entity_type, collection, field);
        let key = (collection_key(collection).to_owned(), field.to_owned());
        let size = self.sizes.get(&key.0).copied().unwrap_or(0);
        let counts = &self.values[&key];
        match counts.values().next() {
            Some((count, value)) if size > 0 && counts.len() == 1 && *count == size => {
                Some(value.clone())
            }
            _ => None,
        }
    }

    fn change(&mut self, collection: &str, fields: &Json, added: bool) {
        let collection = collection_key(collection).to_owned();
        let Some(tracked) = self.tracked.get(&collection) else {
            return;
        };
        if let Some(size) = self.sizes.get_mut(&collection) {
            if added {
                *size += 1;
            } else {
                *size = size.saturating_sub(1);
            }
        }
        for field in tracked {
            let Some(value) = fields.get(field) else {
                continue;
            };
            let key = (collection.clone(), field.clone());
            if let (Some(number), Some(integers)) = (integer(value), self.integers.get_mut(&key)) {
                if added {
                    *integers.entry(number).or_default() += 1;
                    let peak = self.peaks.entry(key.clone()).or_insert(number);
                    *peak = (*peak).max(number);
                } else if let Some(count) = integers.get_mut(&number) {
                    *count -= 1;
                    if *count == 0 {
                        integers.remove(&number);
                    }
                }
            }
            let Some(counts) = self.values.get_mut(&key) else {
                continue;
            };
            let text = value.to_canonical_string();
            if added {
                counts.entry(text).or_insert_with(|| (0, value.clone())).0 += 1;
            } else if let Some(entry) = counts.get_mut(&text) {
                entry.0 -= 1;
                if entry.0 == 0 {
                    counts.remove(&text);
                }
            }
        }
    }
}

/// Top-level fields every member carries whose values the members' order follows.
fn sorted_by(objects: &[&Json]) -> Vec<String> {
    if objects.len() < 2 {
        return Vec::new();
    }
    let Some(first) = objects[0].as_object() else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (field, value) in first.iter() {
        if !matches!(value, Json::Number(_) | Json::String(_) | Json::Bool(_)) {
            continue;
        }
        if !objects.iter().all(|object| object.get(field).is_some()) {
            continue;
        }
        let pairs = objects
            .windows(2)
            .map(|pair| compare_values(pair[0].get(field), pair[1].get(field)));
        let (mut ascending, mut descending, mut strict) = (true, true, false);
        for ordering in pairs {
            ascending &= ordering != std::cmp::Ordering::Greater;
            descending &= ordering != std::cmp::Ordering::Less;
            strict |= ordering != std::cmp::Ordering::Equal;
        }
        // A field every member holds alike orders nothing.
        if !strict {
            continue;
        }
        if ascending {
            found.push(field.to_owned());
        }
        if descending {
            found.push(format!("-{field}"));
        }
    }
    found
}

/// Pass 2 (see the module docs): the observed calls, each assigned to its draft.
pub(crate) fn observe(
    manifest: &Manifest,
    (timeline, rules): (&Timeline, &crate::rules::RuleSet),
    state: &StateView,
    views: &Views,
    drafts: &mut [Draft],
) -> Vec<Call> {
    let mut calls = windowed_calls(manifest, timeline, views, drafts);
    counters_before(timeline, &state.store_counters, &mut calls);
    let mut sim = LiveState::from_shared(state.entities.clone(), state.documents.clone());
    sim.append_to(&state.appended_lists);
    let mut simulation = Simulation {
        timeline,
        views,
        sim,
        tallies: Tallies::default(),
        unobserved: HashSet::new(),
        unlinked_targets: HashMap::new(),
    };
    let mut next_read = 0;
    for call in &mut calls {
        next_read = simulation.hold_shown(manifest, next_read, call.ordinal);
        let draft = &drafts[call.draft];
        if simulation.observe_call(draft, call).is_some() {
            mark_unobserved(call, &mut simulation.unobserved);
        }
        if let Some((parent, segment)) = written_parent(views, draft, call)
            && !follow_parent_linkage(&mut simulation, call, &parent, segment)
        {
            simulation.unobserved.insert(parent);
        }
        if draft.plan.effect == super::model::Effect::Delete && !draft.plan.bulk {
            call.dependents = super::dependents::observed(
                (manifest, rules),
                timeline,
                views,
                &simulation.sim,
                call,
            );
        }
    }
    super::together::attribute_separable(&mut calls);
    calls
}

/// Each call's store counters as the recorded answers before it left them: the seed, then each
/// successful answer holding one.
fn counters_before(
    timeline: &Timeline,
    counters: &[crate::counters::StoreCounter],
    calls: &mut [Call],
) {
    if counters.is_empty() {
        return;
    }
    let mut values: BTreeMap<String, Json> = counters
        .iter()
        .map(|counter| (counter.pointer.clone(), counter.seed.clone()))
        .collect();
    let mut calls = calls.iter_mut().peekable();
    for ordinal in &timeline.ordered {
        while let Some(call) = calls.next_if(|call| call.ordinal == *ordinal) {
            call.counters_before = values.clone();
        }
        let Some(body) = timeline
            .get(*ordinal)
            .filter(|observation| observation.is_success())
            .and_then(|observation| observation.body.as_ref())
        else {
            continue;
        };
        crate::counters::follow(
            values
                .iter_mut()
                .map(|(pointer, value)| (pointer.as_str(), value)),
            body,
        );
    }
}

/// The successful write calls in record order, each with its draft and the window of reads that
/// follow it (a failed call is noted on its draft): a read belongs to the window of the latest
/// call of its scope (the type its item or list view reads, or its document view), and to the
/// window of the latest unlinked create until the next write of any tool; a delete of an item of
/// a held type closes every window but its own scope's.
fn windowed_calls(
    manifest: &Manifest,
    timeline: &Timeline,
    views: &Views,
    drafts: &mut [Draft],
) -> Vec<Call> {
    let draft_of: HashMap<usize, usize> = drafts
        .iter()
        .enumerate()
        .map(|(index, draft)| (draft.tool, index))
        .collect();
    let mut calls: Vec<Call> = Vec::new();
    let mut latest: HashMap<String, usize> = HashMap::new();
    let mut unlinked: Option<usize> = None;
    let mut refused: HashMap<usize, Vec<u16>> = HashMap::new();
    for ordinal in &timeline.ordered {
        let Some(observation) = timeline.get(*ordinal) else {
            continue;
        };
        let write = timeline.is_write(manifest, observation.tool);
        // A failed write changed nothing: it is noted on its draft wherever it lies, also
        // before the first write (a create refused for what it left out, then one that worked).
        if write && !observation.is_success() {
            unlinked = None;
            if let Some(draft) = draft_of.get(&observation.tool) {
                drafts[*draft].failed.push(observation.ordinal);
                refused.entry(*draft).or_default().push(observation.status);
            }
            continue;
        }
        // Reads in their observation window seeded the state: they show no write.
        if observation.position < timeline.cutoff || timeline.is_checked(observation) {
            continue;
        }
        if write {
            unlinked = None;
            let Some(draft) = draft_of.get(&observation.tool).copied() else {
                continue;
            };
            let index = calls.len();
            let mut call = Call::new(draft, observation);
            call.refused_before = refused.remove(&draft).unwrap_or_default();
            calls.push(call);
            drafts[draft].calls.push(index);
            if let Some(call) = open_window(&drafts[draft], index, &mut latest) {
                unlinked = Some(call);
            }
            continue;
        }
        let scope = match views.scopes.get(&observation.tool) {
            Some(Scope::Item(item)) => Some(format!("type {}", item.entity_type)),
            Some(Scope::List(entity_type, _)) => Some(format!("type {entity_type}")),
            Some(Scope::Document(view)) => Some(format!("document {view}")),
            None => views
                .body_reads
                .get(&observation.tool)
                .map(|body| &body.entity_type)
                .or_else(|| {
                    views
                        .count_reads
                        .get(&observation.tool)
                        .map(|(entity_type, _)| entity_type)
                })
                .map(|entity_type| format!("type {entity_type}")),
        };
        if let Some(call) = scope.and_then(|scope| latest.get(&scope)) {
            calls[*call].window.push(observation.ordinal);
        }
        if let Some(call) = unlinked
            && !calls[call].window.contains(&observation.ordinal)
        {
            calls[call].window.push(observation.ordinal);
        }
    }
    calls
}

/// Opens the window of a write call (the `index`th) of a draft: the latest call of its scope
/// from now on; `Some(index)` for an unlinked or linked write, whose window takes every read
/// until the next write. A delete of an item of a held type may clear what other types'
/// entities hold of it (their dependents), so it closes every other scope's window: the reads
/// after it show no earlier write of another type.
fn open_window(draft: &Draft, index: usize, latest: &mut HashMap<String, usize>) -> Option<usize> {
    if draft.plan.effect == super::model::Effect::Delete
        && matches!(draft.classified.kind, TargetKind::Item { .. })
    {
        latest.clear();
    }
    match &draft.classified.kind {
        TargetKind::Item { entity_type, .. }
        | TargetKind::Collection { entity_type, .. }
        | TargetKind::Member { entity_type, .. } => {
            latest.insert(format!("type {entity_type}"), index);
        }
        TargetKind::Document { view } => {
            latest.insert(format!("document {view}"), index);
        }
        TargetKind::Unlinked | TargetKind::Linked { .. } => return Some(index),
        TargetKind::Rpc { .. } | TargetKind::None => {}
    }
    None
}

impl Call {
    /// A successful write call of a draft, not observed yet.
    fn new(draft: usize, observation: &Observation) -> Self {
        Self {
            draft,
            ordinal: observation.ordinal,
            segments: observation.segments.clone(),
            query: observation.query.clone(),
            request: observation.request.clone(),
            response: observation.body.clone(),
            status: observation.status,
            started: observation.started.as_deref().map(str::to_owned),
            duration_ms: observation.duration_ms,
            key: None,
            before: None,
            stale_before: false,
            answered_member: None,
            together_with: None,
            recorded_request: None,
            document_before: None,
            before_position: None,
            after: After::Unobserved,
            response_pointer: None,
            reads: Vec::new(),
            held_max: BTreeMap::new(),
            given_max: BTreeMap::new(),
            counters_before: BTreeMap::new(),
            shared: BTreeMap::new(),
            shared_by_chance: BTreeSet::new(),
            held_entities: Vec::new(),
            window: Vec::new(),
            bulk: Vec::new(),
            dependents: Vec::new(),
            unknown_collection: false,
            copy: None,
            moved_to: None,
            refused_before: Vec::new(),
        }
    }
}

/// An entity key: type, collection key, id.
type EntityKey = (String, String, String);

/// The calls in order against a simulated state that adopts what each was observed to do.
struct Simulation<'a> {
    timeline: &'a Timeline,
    views: &'a Views,
    sim: LiveState,
    tallies: Tallies,
    /// The entities a write left unobserved since.
    unobserved: HashSet<EntityKey>,
    /// Per draft of unlinked creates, the type and collection a read by id showed one of its
    /// calls creating in (see [`Simulation::observe_unlinked`]).
    unlinked_targets: HashMap<usize, (String, String)>,
}

/// The document a read after a document write shows: its body, or, for a read giving a
/// parameter that slices a member array ([`crate::sliced`]), its body with the items it leaves
/// out before that index restored from the document before the write (the read shows the rest).
fn unsliced(views: &Views, read: &Observation, before: Option<&Json>) -> Option<Json> {
    let body = read.body.clone()?;
    let slicing = views.sliced.get(&read.tool).and_then(|sliced| {
        sliced.iter().find_map(|(parameter, member)| {
            Some((crate::sliced::start_of(read.pairs(), parameter)?, member))
        })
    });
    let Some((start, member)) = slicing else {
        return Some(body);
    };
    let held = before?.get(member)?.as_array()?;
    let mut body = body;
    let Some(Json::Array(shown)) = body.as_object_mut()?.get_mut(member) else {
        return None;
    };
    let mut items: Vec<Json> = held.iter().take(start).cloned().collect();
    items.append(shown);
    *shown = items;
    Some(body)
}

impl Simulation<'_> {
    /// Holds the entities the plain item reads before a call (from the record `from` of the
    /// timeline's order, after the seeding reads) show and the simulation does not hold: an
    /// entity an unmodelled write made, or none of the seeding reads showed, is known from then
    /// on as the read showed it (one read is unambiguous: it shows the whole entity), so a later
    /// write of it is observed against it. An entity a write left unobserved is not taken from
    /// a read of it. Returns where the next call's reads start.
    fn hold_shown(&mut self, manifest: &Manifest, from: usize, call: u64) -> usize {
        let (timeline, views) = (self.timeline, self.views);
        let mut index = from;
        while let Some(ordinal) = timeline.ordered.get(index) {
            if *ordinal == call {
                return index + 1;
            }
            index += 1;
            let Some(read) = timeline.get(*ordinal) else {
                continue;
            };
            if read.position < timeline.cutoff
                || !read.is_success()
                || timeline.is_write(manifest, read.tool)
            {
                continue;
            }
            let Some(Scope::Item(item)) = views.scopes.get(&read.tool) else {
                continue;
            };
            let Some(info) = views.types.get(&item.entity_type) else {
                continue;
            };
            let Some((collection, id)) = item.named(&info.identity, read, true) else {
                continue;
            };
            let key = (
                item.entity_type.clone(),
                collection_key(&collection).to_owned(),
                id.clone(),
            );
            let shown = read
                .body
                .as_ref()
                .and_then(|body| item.shown(body))
                .filter(|object| !marked_deleted(object));
            if self.unobserved.contains(&key) || self.sim.entity(&key.0, &collection, &id).is_some()
            {
                continue;
            }
            let Some(object) = shown else {
                continue;
            };
            self.tallies.change(&collection, &object, true);
            self.sim.insert_entity(
                Entity {
                    entity_type: key.0,
                    collection,
                    id,
                    fields: object,
                    view_fields: Default::default(),
                    record_ordinals: Vec::new(),
                },
                &Position::Last,
            );
        }
        index
    }

    /// Observes one call by what its path names; `None` when it names nothing the state models
    /// (the call then leaves nothing unobserved).
    fn observe_call(&mut self, draft: &Draft, call: &mut Call) -> Option<()> {
        let bulk = draft.plan.bulk;
        match &draft.classified.kind {
            TargetKind::Document { view } => self.observe_document(view, call),
            TargetKind::Item {
                entity_type,
                segments,
            } if !bulk => {
                self.observe_item(entity_type, *segments, draft, call)?;
            }
            TargetKind::Collection {
                entity_type,
                segments,
            } if !bulk => self.observe_create(entity_type, *segments, call)?,
            TargetKind::Unlinked => self.observe_unlinked(call)?,
            TargetKind::Collection {
                entity_type,
                segments,
            } => self.observe_bulk((entity_type, *segments), &draft.plan.path_template, call)?,
            TargetKind::Linked { action_at, .. } => {
                self.observe_linked(*action_at, &draft.plan.path_template, call)?;
            }
            TargetKind::Member { .. } => {
                let seen = (self.timeline, self.views);
                super::member::observe(draft, call, &mut self.sim, seen);
            }
            _ => {}
        }
        Some(())
    }

    /// A document write: the document before, and after as the first read of it in the window
    /// showed it.
    fn observe_document(&mut self, view: &str, call: &mut Call) {
        let (timeline, views) = (self.timeline, self.views);
        let held = self.sim.document_under(view, &call.segments).cloned();
        let document_path = held.as_ref().map(|document| document.path.clone());
        call.document_before = held.as_ref().map(|document| document.value.clone());
        call.after = call
            .window
            .iter()
            .filter_map(|ordinal| timeline.get(*ordinal))
            .find(|read| {
                matches!(views.scopes.get(&read.tool), Some(Scope::Document(name)) if name == view)
                    && read.is_success()
                    && Some(read.path.as_str()) == document_path.as_deref()
            })
            .and_then(|read| unsliced(views, read, call.document_before.as_ref()))
            .map_or(After::Unobserved, After::Document);
        if let (After::Document(value), Some(mut document)) = (&call.after, held) {
            document.value = value.clone();
            self.sim.put_document(document);
        }
    }

    /// A write of an item path: the entity its path (or key member) names.
    fn observe_item(
        &mut self,
        entity_type: &str,
        segments: usize,
        draft: &Draft,
        call: &mut Call,
    ) -> Option<()> {
        let info = self.views.types.get(entity_type)?;
        let (Some(identity_segment), true) =
            (call.segments.get(segments), call.segments.len() > segments)
        else {
            return None;
        };
        let collection = format!("/{}", call.segments[..segments].join("/"));
        // The identity: the path segment after the collection, or the body member an RPC-style
        // write names the entity in.
        let id = match &draft.classified.key_member {
            Some(member) => match &call.request {
                RequestBody::Json(body) => body.get(member).and_then(scalar_text)?,
                _ => return None,
            },
            None => {
                let template = rea_manifest::segments::split_path(&draft.plan.path_template);
                let pattern = template.get(segments).copied().unwrap_or_default();
                decoded(rea_manifest::segments::template_value(
                    pattern,
                    identity_segment,
                ))
            }
        };
        call.key = Some((entity_type.to_owned(), collection.clone(), id.clone()));
        call.before = self.sim.entity(entity_type, &collection, &id).cloned();
        let largest = self
            .tallies
            .largest(&self.sim, entity_type, &collection, &info.identity);
        self.observe_after(info, call);
        if draft.plan.effect == super::model::Effect::Update {
            self.observe_copy(info, call, largest);
        }
        Some(())
    }

    /// An update of a held entity that left it gone (the list after it no longer lists it) while
    /// its answer shows another entity of the type, under an identity the simulation does not
    /// hold: the write copied the entity under a new identity and removed the original (a
    /// rename making a new record). The call's `after` is the copy as its answer shows it, held
    /// from then on; `held_max` holds the largest identity
    /// the collection held before the call, the original included (what a generated identity
    /// follows).
    fn observe_copy(&mut self, info: &super::TypeInfo, call: &mut Call, largest: Option<i128>) {
        let (Some(before), After::Absent, Some(response)) =
            (&call.before, &call.after, &call.response)
        else {
            return;
        };
        let Some((entity_type, collection, id)) = call.key.clone() else {
            return;
        };
        let preferred = info
            .item
            .as_ref()
            .map_or("", |item| item.entity_pointer.as_str());
        let Some((pointer, object)) = find_entity(response, &info.identity, None, preferred) else {
            return;
        };
        let Some(copy) = crate::render::identity_text(object, &info.identity) else {
            return;
        };
        let shown = kept_where_left_null(object, &before.fields);
        let Ok(moved) = super::apply::moved_collection(before, &shown, &copy) else {
            return;
        };
        if (copy == id && moved == collection)
            || marked_deleted(object)
            || self.sim.entity(&entity_type, &moved, &copy).is_some()
        {
            return;
        }
        if let Some(largest) = largest {
            call.held_max.insert(
                info.identity.clone(),
                Json::Number(rea_plugin_api::json::Number::from(largest as i64)),
            );
        }
        self.tallies.change(&collection, &shown, true);
        self.sim.insert_entity(
            Entity {
                entity_type,
                collection: moved.clone(),
                id: copy.clone(),
                fields: shown.clone(),
                view_fields: Default::default(),
                record_ordinals: Vec::new(),
            },
            &Position::Last,
        );
        call.response_pointer = Some(pointer);
        call.after = After::Present(shown);
        call.copy = Some(copy);
        call.moved_to = (moved != before.collection).then_some(moved);
    }

    /// A create in a collection: the entity its answer shows, else the first read by id in its
    /// window of an entity the state does not hold.
    fn observe_create(
        &mut self,
        entity_type: &str,
        segments: usize,
        call: &mut Call,
    ) -> Option<()> {
        let collection = format!(
            "/{}",
            call.segments[..segments.min(call.segments.len())].join("/")
        );
        if batch_sent(call, &self.sim, entity_type, &collection).is_some() {
            return self.observe_batch_create(entity_type, &collection, call);
        }
        let info = self.views.types.get(entity_type)?;
        let preferred = info
            .item
            .as_ref()
            .map_or("", |item| item.entity_pointer.as_str());
        let from_response = call.response.as_ref().and_then(|response| {
            let (pointer, object) = find_entity(response, &info.identity, None, preferred)?;
            Some((
                pointer,
                crate::render::identity_text(object, &info.identity)?,
            ))
        });
        let id = match from_response {
            Some((pointer, id)) => {
                call.response_pointer = Some(pointer);
                id
            }
            None => first_new_read(
                self.timeline,
                self.views,
                info,
                call,
                &self.sim,
                &collection,
            )?,
        };
        call.unknown_collection = !self.sim.holds_collection(entity_type, &collection)
            && !self
                .sim
                .collections_of(entity_type)
                .iter()
                .any(|held| collection_key(held) == collection_key(&collection));
        call.key = Some((entity_type.to_owned(), collection, id));
        self.observe_after(info, call);
        Some(())
    }

    /// A create sending an array of objects to a collection (a batch): each entity its objects
    /// name (see [`batch_targets`]), observed as one write's (the entity its reads by id show,
    /// else as the answer lists it: a create, or an update of an entity the simulation holds),
    /// so the simulation holds them. Nothing when an object names no entity.
    fn observe_batch_create(
        &mut self,
        entity_type: &str,
        collection: &str,
        call: &mut Call,
    ) -> Option<()> {
        let info = self.views.types.get(entity_type)?;
        let sent = batch_sent(call, &self.sim, entity_type, collection)?;
        let named = batch_targets(sent, call.response.as_ref(), &info.identity)?;
        let collection = collection.to_owned();
        let mut targets = Vec::with_capacity(named.len());
        for (id, listed) in named {
            let target =
                self.observe_one_of(info, call, (entity_type, &collection), id, Some(listed));
            targets.push(target);
        }
        call.bulk = targets;
        Some(())
    }

    /// An unlinked create: the first read by id in the window whose entity the answer shows (a
    /// batch: one of the entities its answer lists, one per object sent).
    fn observe_unlinked(&mut self, call: &mut Call) -> Option<()> {
        let (timeline, views) = (self.timeline, self.views);
        let response = call.response.clone()?;
        let sim = &self.sim;
        let batch = call.window.iter().find_map(|ordinal| {
            let read = timeline.get(*ordinal)?;
            let Some(Scope::Item(item)) = views.scopes.get(&read.tool) else {
                return None;
            };
            let info = views.types.get(&item.entity_type)?;
            let (collection, id) = item.named(&info.identity, read, false)?;
            let sent = batch_sent(call, sim, &item.entity_type, &collection)?;
            let named = batch_targets(sent, Some(&response), &info.identity)?;
            named
                .iter()
                .any(|(named, _)| *named == id)
                .then(|| (item.entity_type.clone(), collection, id))
        });
        if let Some((entity_type, collection, id)) = batch {
            self.observe_batch_create(&entity_type, &collection, call)?;
            call.key = Some((entity_type, collection, id));
            return Some(());
        }
        let read_back = call.window.iter().find_map(|ordinal| {
            let read = timeline.get(*ordinal)?;
            let Some(Scope::Item(item)) = views.scopes.get(&read.tool) else {
                return None;
            };
            let info = views.types.get(&item.entity_type)?;
            let (collection, id) = item.named(&info.identity, read, false)?;
            let (pointer, _) =
                find_entity(&response, &info.identity, Some(&id), &item.entity_pointer)?;
            Some((item.entity_type.clone(), collection, id, pointer))
        });
        let (entity_type, collection, id, pointer) = match read_back {
            Some(found) => found,
            None => self.answered_new(call.draft, &response)?,
        };
        self.unlinked_targets
            .entry(call.draft)
            .or_insert_with(|| (entity_type.clone(), collection.clone()));
        let info = self.views.types.get(&entity_type)?;
        call.response_pointer = Some(pointer);
        call.key = Some((entity_type, collection, id));
        self.observe_after(info, call);
        Some(())
    }

    /// One entity a bulk or batch call names (`id` in `place`, the type and collection), observed
    /// as a call of its own: with `listed` (what the answer lists of it) as its answer when given,
    /// else the call's own.
    fn observe_one_of(
        &mut self,
        info: &super::TypeInfo,
        call: &Call,
        place: (&str, &str),
        id: String,
        listed: Option<Option<Json>>,
    ) -> BulkTarget {
        let (entity_type, collection) = place;
        let mut one = call.clone();
        one.key = Some((entity_type.to_owned(), collection.to_owned(), id.clone()));
        one.before = self.sim.entity(entity_type, collection, &id).cloned();
        if let Some(listed) = listed {
            one.response = listed;
        }
        one.response_pointer = None;
        self.observe_after(info, &mut one);
        BulkTarget {
            id,
            before: one.before,
            after: one.after,
            reads: one.reads,
            before_position: one.before_position,
        }
    }

    /// A bulk call: each entity its body names, observed in turn.
    fn observe_bulk(
        &mut self,
        (entity_type, segments): (&str, usize),
        template: &str,
        call: &mut Call,
    ) -> Option<()> {
        let info = self.views.types.get(entity_type)?;
        let collection = format!(
            "/{}",
            call.segments[..segments.min(call.segments.len())].join("/")
        );
        let ids = match &call.request {
            RequestBody::Json(body) => {
                bulk_layout(body).and_then(|layout| layout_ids(&layout, body, &info.identity))
            }
            _ => None,
        };
        // A call naming no ids but a query: the entities its answer lists as written (see
        // [`super::selected`]), each observed with its listed object as its answer, or, when
        // its answer only counts them, those its query selects over the state at the call.
        let named: Vec<(String, Option<Option<Json>>)> = match ids {
            Some(ids) => ids.into_iter().map(|id| (id, None)).collect(),
            None if call.query.as_ref().is_some_and(|query| !query.is_empty()) => {
                match super::selected::answered(call.response.as_ref(), &info.identity) {
                    Some(listed) => listed
                        .into_iter()
                        .map(|(id, item)| (id, Some(Some(item))))
                        .collect(),
                    None => {
                        let place = (entity_type, collection.as_str());
                        super::selected::counted(self.views, template, &self.sim, place, call)?
                            .into_iter()
                            .map(|id| (id, Some(None)))
                            .collect()
                    }
                }
            }
            None => return None,
        };
        let mut targets = Vec::with_capacity(named.len());
        for (id, listed) in named {
            targets.push(self.observe_one_of(info, call, (entity_type, &collection), id, listed));
        }
        call.bulk = targets;
        Some(())
    }

    /// A write of a literal path: the first read by id in the window naming the entity the last
    /// segment names (an action route's, the segment `action_at` of `template`).
    fn observe_linked(
        &mut self,
        action_at: Option<usize>,
        template: &str,
        call: &mut Call,
    ) -> Option<()> {
        let (timeline, views) = (self.timeline, self.views);
        let literal = match action_at {
            Some(at) => super::target::segment_value(template, &call.segments, at)?,
            None => crate::derive::entities::item_segments(&call.segments)
                .last()
                .map(|segment| decoded(segment))?,
        };
        let (entity_type, collection, id) = call.window.iter().find_map(|ordinal| {
            let read = timeline.get(*ordinal)?;
            let Some(Scope::Item(item)) = views.scopes.get(&read.tool) else {
                return None;
            };
            let info = views.types.get(&item.entity_type)?;
            let (collection, id) = item.named(&info.identity, read, false)?;
            (id == literal).then(|| (item.entity_type.clone(), collection, id))
        })?;
        let info = views.types.get(&entity_type)?;
        call.before = self.sim.entity(&entity_type, &collection, &id).cloned();
        call.key = Some((entity_type, collection, id));
        self.observe_after(info, call);
        Some(())
    }

    /// An unlinked create no read by id showed, whose draft's earlier call a read showed
    /// creating in a collection (`POST /projects/5/tasks` after `POST /projects/1/tasks` was read
    /// back as `/tasks/18`): the entity of that type its answer shows with an identity that
    /// collection does not hold, as (type, collection, id, pointer).
    fn answered_new(
        &self,
        draft: usize,
        response: &Json,
    ) -> Option<(String, String, String, String)> {
        let (entity_type, collection) = self.unlinked_targets.get(&draft)?;
        let info = self.views.types.get(entity_type)?;
        let preferred = info
            .item
            .as_ref()
            .map_or("", |item| item.entity_pointer.as_str());
        let (pointer, object) = find_entity(response, &info.identity, None, preferred)?;
        let id = crate::render::identity_text(object, &info.identity)?;
        self.sim
            .entity(entity_type, collection, &id)
            .is_none()
            .then(|| (entity_type.clone(), collection.clone(), id, pointer))
    }

    fn observe_after(&mut self, info: &super::TypeInfo, call: &mut Call) {
        observe_after(
            self.timeline,
            self.views,
            info,
            call,
            &mut self.sim,
            &mut self.tallies,
        );
    }
}

/// The parent of a successful write the state holds no entity of, below an item path of a held
/// type (`PATCH /api/task/13/relationships/project`, a member of the parent its path names), with
/// the index of the segment naming it: the write changed the parent as no read of it showed, so
/// unless a read of the relationship shows the change ([`follow_parent_linkage`]) the parent is
/// unobserved and the next write of it shows the two writes' effects together, teaching nothing
/// of its own (see [`mark_unobserved`]).
fn written_parent(views: &Views, draft: &Draft, call: &Call) -> Option<(EntityKey, usize)> {
    if call.key.is_some() || draft.plan.bulk || !(200..300).contains(&call.status) {
        return None;
    }
    let (parent_type, segment) = super::relationship::parent_of(
        &draft.plan.path_template,
        views,
        &std::collections::BTreeMap::new(),
    )?;
    let id = call.segments.get(segment)?;
    let collection = format!("/{}", call.segments.get(..segment)?.join("/"));
    let key = (
        parent_type,
        collection_key(&collection).to_owned(),
        crate::observation::decoded(id),
    );
    Some((key, segment))
}

/// Where the first read after a relationship write shows its parent (see
/// [`super::relationship::parent_after`]): the simulated parent takes what it shows, and is
/// observed.
fn follow_parent_linkage(
    simulation: &mut Simulation,
    call: &Call,
    key: &EntityKey,
    segment: usize,
) -> bool {
    let (entity_type, collection, id) = key;
    let Some(observation) = simulation.timeline.get(call.ordinal) else {
        return false;
    };
    let RequestBody::Json(body) = &observation.request else {
        return false;
    };
    let Some((place, sent)) = super::relationship::identifier_place(body) else {
        return false;
    };
    let Some(parent) = simulation.sim.entity(entity_type, collection, id) else {
        return false;
    };
    let shown = super::relationship::parent_after(
        (simulation.timeline, simulation.views),
        (observation, segment),
        (key, &parent.fields),
        (&place, sent),
    );
    let Some(fields) = shown else {
        return false;
    };
    let mut followed = parent.clone();
    followed.fields = fields;
    simulation.sim.update_entity(followed, None)
}

/// After a call is observed: whether a write of its entity since the last observation left the
/// entity unobserved (the call's `before` is stale), and whether this call leaves it unobserved
/// in turn (an observed after makes it known again).
fn mark_unobserved(call: &mut Call, unobserved: &mut HashSet<EntityKey>) {
    if !call.bulk.is_empty() {
        return;
    }
    let Some((entity_type, collection, id)) = &call.key else {
        return;
    };
    let key = (
        entity_type.clone(),
        collection_key(collection).to_owned(),
        id.clone(),
    );
    call.stale_before = call.before.is_some() && unobserved.contains(&key);
    if call.stale_before {
        scope_to_answered_member(call);
    }
    if call.after == After::Unobserved {
        unobserved.insert(key);
    } else {
        unobserved.remove(&key);
    }
}

/// A call whose entity an earlier unobserved write changed, but whose own answer shows one
/// object member of its entity as the read after it shows that member (`{"run_info": …}`
/// equal to the run's `info`), observed that member: what the call did is learned there only.
/// Its `before` takes the entity after everywhere else (what lies outside the member is the
/// earlier write's, which no answer of this call shows) and it is no longer stale. Nothing
/// changes when no member, or more than one, matches.
fn scope_to_answered_member(call: &mut Call) {
    let (Some(before), After::Present(after)) = (call.before.as_mut(), &call.after) else {
        return;
    };
    let Some(member) = call
        .response
        .as_ref()
        .and_then(|response| answered_member(response, after))
        .map(|(_, member)| member)
    else {
        return;
    };
    let Some(held) = before.fields.get(&member).cloned() else {
        return;
    };
    let mut scoped = after.clone();
    if let Json::Object(object) = &mut scoped {
        object.insert(&member, held);
    }
    before.fields = scoped;
    call.stale_before = false;
    call.answered_member = Some(member);
}

/// Where an answer shows one object member of the written entity whole: the answer's one
/// top-level member whose value is an object equal to exactly one object member of `entity`
/// (answer pointer, entity member name); `None` when the answer is the entity itself or no
/// single member matches.
pub(crate) fn answered_member(response: &Json, entity: &Json) -> Option<(String, String)> {
    let (Json::Object(answer), Json::Object(entity)) = (response, entity) else {
        return None;
    };
    let mut shown = answer.iter();
    let (Some((key, shown)), None) = (shown.next(), shown.next()) else {
        return None;
    };
    if shown.as_object().is_none_or(|members| members.is_empty()) {
        return None;
    }
    let mut holders = entity.iter().filter(|(_, held)| *held == shown);
    let (member, _) = holders.next()?;
    holders.next().is_none().then(|| {
        (
            format!("/{}", rea_plugin_api::json::escape_pointer_segment(key)),
            member.to_owned(),
        )
    })
}

/// Whether a call sent an array of objects (a batch create's body).
pub(crate) fn batch_call(call: &Call) -> bool {
    let array = matches!(&call.request, RequestBody::Json(body @ Json::Array(_))
        if batch_items(body).is_some());
    array || !call.bulk.is_empty()
}

/// The objects a call sends as a batch into a collection (see [`batch_items`]): an array body,
/// or an array member of an object body whose objects carry only fields the collection's held
/// entities carry (rows of the collection, not a list nested in one entity).
fn batch_sent<'a>(
    call: &'a Call,
    sim: &LiveState,
    entity_type: &str,
    collection: &str,
) -> Option<&'a Vec<Json>> {
    let RequestBody::Json(body) = &call.request else {
        return None;
    };
    let items = batch_items(body)?;
    if matches!(body, Json::Array(_)) {
        return Some(items);
    }
    let held = sim.collection(entity_type, collection);
    let fields: HashSet<&str> = held
        .iter()
        .filter_map(|entity| entity.fields.as_object())
        .flat_map(|object| object.iter().map(|(name, _)| name))
        .collect();
    let rows = items.iter().all(|item| {
        item.as_object()
            .is_some_and(|object| object.iter().all(|(name, _)| fields.contains(name)))
    });
    (!fields.is_empty() && rows).then_some(items)
}

/// The objects a batch body sends: a non-empty array of objects, the body itself or the one
/// member of an object body holding one, beside which the body sends only scalar options
/// (`{"rows": [{…}, {…}], "return": true}`).
pub(crate) fn batch_items(body: &Json) -> Option<&Vec<Json>> {
    let objects = |items: &Vec<Json>| {
        !items.is_empty() && items.iter().all(|item| matches!(item, Json::Object(_)))
    };
    match body {
        Json::Array(items) => objects(items).then_some(items),
        Json::Object(object) => {
            let mut nested = object
                .iter()
                .filter(|(_, value)| matches!(value, Json::Array(_) | Json::Object(_)));
            let (_, Json::Array(items)) = nested.next()? else {
                return None;
            };
            (nested.next().is_none() && objects(items)).then_some(items)
        }
        _ => None,
    }
}

/// The array an answer lists one item per object in: the answer itself, or its one member
/// holding an array.
fn answer_listing(response: &Json) -> Option<&Vec<Json>> {
    match response {
        Json::Array(items) => Some(items),
        Json::Object(object) => {
            let mut arrays = object.iter().filter_map(|(_, value)| value.as_array());
            let array = arrays.next()?;
            arrays.next().is_none().then_some(array)
        }
        _ => None,
    }
}

/// Each object a batch sends, with the id it names and the item the answer lists for it (when
/// the answer lists one object per object sent): the object's identity member, else the listed
/// item's at its index, by the identity or by the one member every listed item of an object
/// that sent its identity showed it in (`{"ok": true, "id": …}`). The item listed for an object
/// is the one carrying its id, else the one at its index. `None` when an object names no id.
pub(crate) fn batch_targets(
    sent: &[Json],
    response: Option<&Json>,
    identity: &str,
) -> Option<Vec<(String, Option<Json>)>> {
    let id_of = |object: &Json, member: &str| crate::render::identity_text(object, member);
    let listing = response.and_then(answer_listing).filter(|items| {
        items.len() == sent.len() && items.iter().all(|item| item.as_object().is_some())
    });
    let naming = listing.and_then(|items| naming_member(sent, items, identity));
    let mut named = Vec::with_capacity(sent.len());
    for (index, object) in sent.iter().enumerate() {
        let at = listing.map(|items| &items[index]);
        let id = id_of(object, identity)
            .or_else(|| at.and_then(|item| id_of(item, identity)))
            .or_else(|| at?.get(naming.as_deref()?).and_then(scalar_text))?;
        let listed = listing.and_then(|items| {
            items
                .iter()
                .find(|item| id_of(item, identity).as_deref() == Some(id.as_str()))
                .or(at)
                .cloned()
        });
        named.push((id, listed));
    }
    Some(named)
}

/// The member every listed item shows the id its object sent in, where the items do not carry
/// the identity itself (`id` for `_id`); `None` unless some object sent one.
fn naming_member(sent: &[Json], items: &[Json], identity: &str) -> Option<String> {
    let pairs: Vec<(String, &Json)> = sent
        .iter()
        .zip(items)
        .filter_map(|(object, item)| {
            let id = crate::render::identity_text(object, identity)?;
            Some((id, item))
        })
        .collect();
    let (first_id, first_item) = pairs.first()?;
    first_item.as_object()?.iter().find_map(|(name, value)| {
        (name != identity
            && scalar_text(value).as_deref() == Some(first_id.as_str())
            && pairs
                .iter()
                .all(|(id, item)| item.get(name).and_then(scalar_text).as_deref() == Some(id)))
        .then(|| name.to_owned())
    })
}

/// The first read by id in a create's window of an entity the state does not hold.
fn first_new_read(
    timeline: &Timeline,
    views: &Views,
    info: &super::TypeInfo,
    call: &Call,
    sim: &LiveState,
    collection: &str,
) -> Option<String> {
    let item = info.item.as_ref()?;
    let Some(Scope::Item(scope)) = views.scopes.get(&item.tool) else {
        return None;
    };
    call.window
        .iter()
        .find_map(|ordinal| {
            let read = timeline.get(*ordinal)?;
            if read.tool != item.tool || !read.is_success() {
                return None;
            }
            let (read_collection, id) = scope.named(&info.identity, read, false)?;
            if collection_key(&read_collection) != collection_key(collection) {
                return None;
            }
            sim.entity(&info.template, collection, &id)
                .is_none()
                .then_some(id)
        })
        .filter(|_| views.types.contains_key(&info.template))
}

/// What the reads in a call's window show of its entity.
#[derive(Debug, Default)]
struct ReadsAfter {
    /// The entity after, as the first read of it by id showed it.
    after: Option<After>,
    /// The reads showing the entity or its collection.
    reads: Vec<ObservedRead>,
    /// The order the first whole, unsorted list read gave the collection.
    first_order: Option<Vec<String>>,
    /// Whether the first read of the whole collection (no query at all) did not list the entity.
    unlisted: Option<bool>,
    /// The entity as the first unfiltered list read listing it showed it (see
    /// [`whole_members_list`]).
    listed: Option<Json>,
    /// The entity as the first list read listing it showed it, filtered or not.
    any_listed: Option<Json>,
    /// The number the first count read of the whole collection (no query) showed.
    counted: Option<u64>,
}

impl ReadsAfter {
    /// An item read of the entity: absent when it answers what the item view takes for a
    /// missing entity (a `404`/`410`, or another client error after a delete of its path).
    fn item_read(&mut self, timeline: &Timeline, read: &Observation, item: &super::ItemScope) {
        let shown = if read.is_success() {
            read.body.as_ref().and_then(|body| item.shown(body))
        } else {
            None
        };
        if self.after.is_none() {
            if read.is_success() {
                self.after = shown.clone().map(After::Present);
            } else if crate::derive::items::shows_missing(timeline, read) {
                self.after = Some(After::Absent);
            }
        }
        self.reads.push(ObservedRead {
            entity: shown
                .as_ref()
                .map(|value| value.to_serde_value().unwrap_or_default()),
            kind: ReadKind::Item,
            record_ordinal: read.ordinal,
            status: read.status,
            ..ObservedRead::default()
        });
    }

    /// A read of a body-query view whose body names the entity alone, by the member named as
    /// the type's identity (`{"key": …}`, as an RPC-style write names it): an item read, the
    /// entity present when its answer lists it and absent when the answer lists nothing. A body
    /// naming anything else (a range, a filter, a selection) shows a listing, not the entity.
    fn body_read(&mut self, read: &Observation, body: &super::BodyScope, identity: &str, id: &str) {
        if !read.is_success() || !names_alone(&read.request, identity, id) {
            return;
        }
        let listed = members(read, &body.list_pointer);
        let shown = match listed {
            [] => None,
            [object]
                if crate::render::identity_text(object, identity)
                    .is_some_and(|found| found == id) =>
            {
                Some(object)
            }
            _ => return,
        };
        if self.after.is_none() {
            self.after = Some(shown.cloned().map_or(After::Absent, After::Present));
        }
        self.reads.push(ObservedRead {
            entity: shown.map(|value| value.to_serde_value().unwrap_or_default()),
            kind: ReadKind::Item,
            record_ordinal: read.ordinal,
            status: read.status,
            ..ObservedRead::default()
        });
    }

    /// A list read of the entity's collection.
    fn list_read(&mut self, read: &Observation, list: &super::ListInfo, identity: &str, id: &str) {
        let objects: Vec<&Json> = members(read, &list.list_pointer).iter().collect();
        let order: Vec<String> = objects
            .iter()
            .filter_map(|object| crate::render::identity_text(object, identity))
            .collect();
        let query_sorted = read.pairs().iter().any(|(name, _)| is_sort_parameter(name));
        // The read lists its collection (the caller checked); the whole of it when it asks for
        // no more than pages from the start.
        let whole = read
            .pairs()
            .iter()
            .all(|(name, value)| only_pages(name, value));
        let position = order.iter().position(|listed| *listed == id);
        if whole && !query_sorted && self.first_order.is_none() {
            self.first_order = Some(order.clone());
        }
        // The first read of the whole collection (no query at all, or only an order: a sorted
        // whole list lists every entity too) not listing a held entity shows it gone.
        let every = read
            .pairs()
            .iter()
            .all(|(name, value)| is_sort_parameter(name) || only_pages(name, value));
        let plain = read.pairs().iter().all(|(name, _)| is_sort_parameter(name));
        if plain && every && self.unlisted.is_none() {
            self.unlisted = Some(position.is_none());
        }
        let listed = position.and_then(|position| objects.get(position));
        if self.any_listed.is_none() {
            self.any_listed = listed.map(|object| (*object).clone());
        }
        if self.listed.is_none() && whole_members_list(read.pairs(), &objects) {
            self.listed = listed.map(|object| (*object).clone());
        }
        let shown = listed.map(|object| object.to_serde_value().unwrap_or_default());
        self.reads.push(ObservedRead {
            entity: shown,
            kind: ReadKind::List,
            sorted_by: if whole && !query_sorted {
                sorted_by(&objects)
            } else {
                Vec::new()
            },
            list_order: Some(order),
            position,
            query_sorted,
            record_ordinal: read.ordinal,
            status: read.status,
            whole,
        });
    }
}

/// Whether a request body is an object of one member, named as the identity's last segment,
/// holding the id.
fn names_alone(request: &RequestBody, identity: &str, id: &str) -> bool {
    named_alone(request, identity).is_some_and(|sent| sent == id)
}

/// The id a request body names alone: an object of one member, named as the identity's last
/// segment, holding a scalar.
pub(super) fn named_alone(request: &RequestBody, identity: &str) -> Option<String> {
    let RequestBody::Json(Json::Object(sent)) = request else {
        return None;
    };
    let name = rea_plugin_api::json::unescape_pointer_segment(
        identity.rsplit('/').next().unwrap_or(identity),
    );
    if sent.len() != 1 {
        return None;
    }
    sent.get(&name).and_then(scalar_text)
}

/// The entity as the first plain read of it by id after a call showed it, when one did before
/// any later write that names the entity (its id a path segment, or a string of its body): a
/// write naming another entity of the type closes the call's window to the type's reads, yet
/// cannot have changed this one.
pub(super) fn first_shown(timeline: &Timeline, views: &Views, call: &Call) -> Option<Json> {
    first_shown_after(timeline, views, call.ordinal, call.key.as_ref()?)
}

/// [`first_shown`] for the call at `at` writing the entity `key` (type, collection, id).
pub(super) fn first_shown_after(
    timeline: &Timeline,
    views: &Views,
    at: u64,
    key: &(String, String, String),
) -> Option<Json> {
    let names = |write: &Observation| names_entity((&write.segments, &write.request), &key.2);
    first_shown_until(timeline, views, (at, key), &names)
}

/// [`first_shown_after`] with the writes that close the window chosen by `closes`.
pub(super) fn first_shown_until(
    timeline: &Timeline,
    views: &Views,
    (at, (entity_type, collection, id)): (u64, &(String, String, String)),
    closes: &dyn Fn(&Observation) -> bool,
) -> Option<Json> {
    let info = views.types.get(entity_type)?;
    let start = timeline.ordered.iter().position(|ordinal| *ordinal == at)?;
    for ordinal in &timeline.ordered[start + 1..] {
        let read = timeline.get(*ordinal)?;
        if !matches!(read.method.as_str(), "GET" | "HEAD") {
            if closes(read) {
                return None;
            }
            continue;
        }
        let Some(Scope::Item(item)) = views.scopes.get(&read.tool) else {
            continue;
        };
        if item.entity_type != *entity_type {
            continue;
        }
        let Some((read_collection, read_id)) = item.named(&info.identity, read, true) else {
            continue;
        };
        if collection_key(&read_collection) == collection_key(collection) && read_id == *id {
            return read
                .body
                .as_ref()
                .filter(|_| read.is_success())
                .and_then(|body| item.shown(body));
        }
    }
    None
}

/// Whether a request names an entity: its id is one of the path's segments (decoded), or a
/// string its JSON body holds (as a value or a key).
pub(super) fn names_entity((segments, body): (&[CompactString], &RequestBody), id: &str) -> bool {
    let quoted = Json::String(id.into()).to_canonical_string();
    segments.iter().any(|segment| decoded(segment) == id)
        || matches!(body, RequestBody::Json(body)
            if body.to_canonical_string().contains(&quoted))
}

/// The reads in a call's window that show its entity (by id) or its collection.
fn reads_after(
    timeline: &Timeline,
    views: &Views,
    info: &super::TypeInfo,
    call: &Call,
) -> ReadsAfter {
    let mut seen = ReadsAfter::default();
    let Some((entity_type, collection, id)) = &call.key else {
        return seen;
    };
    let closed = closing_write(timeline, call, id);
    for ordinal in &call.window {
        let Some(read) = timeline.get(*ordinal) else {
            continue;
        };
        if closed.is_some_and(|at| read.position > at) {
            continue;
        }
        match views.scopes.get(&read.tool) {
            Some(Scope::Item(item)) if item.entity_type == *entity_type => {
                let Some((read_collection, read_id)) = item.named(&info.identity, read, true)
                else {
                    continue;
                };
                if collection_key(&read_collection) == collection_key(collection) && read_id == *id
                {
                    seen.item_read(timeline, read, item);
                }
            }
            Some(Scope::List(read_type, list))
                if read_type == entity_type
                    && read.is_success()
                    && listed_collection(&read.path, entity_type).is_some_and(|listed| {
                        collection_key(&listed) == collection_key(collection)
                    }) =>
            {
                seen.list_read(read, list, &info.identity, id);
            }
            _ => {}
        }
        if let Some(body) = views.body_reads.get(&read.tool)
            && body.entity_type == *entity_type
        {
            seen.body_read(read, body, &info.identity, id);
        }
        if let Some((counted_type, member)) = views.count_reads.get(&read.tool)
            && counted_type == entity_type
            && seen.counted.is_none()
        {
            seen.counted = whole_count(read, member, collection);
        }
    }
    seen
}

/// The number a successful count read of the whole `collection` (its path's parent, no query)
/// shows in `member`.
fn whole_count(read: &Observation, member: &str, collection: &str) -> Option<u64> {
    let counts = crate::count_views::parent_path(&read.segments)
        .is_some_and(|parent| collection_key(&parent) == collection_key(collection));
    if !read.is_success() || !read.pairs().is_empty() || !counts {
        return None;
    }
    read.body.as_ref()?.get(member)?.as_number()?.as_u64()
}

/// The position of the first successful write of another call after `call`, within its window,
/// that names its entity (`id` a path segment or a string of its body): a read after it may show
/// that write's effect on the entity too (a child's create naming its parent, whose list of
/// children then grows), so it no longer shows the call's alone.
fn closing_write(timeline: &Timeline, call: &Call, id: &str) -> Option<usize> {
    let start = timeline.get(call.ordinal)?.position;
    let last = call
        .window
        .iter()
        .filter_map(|ordinal| timeline.get(*ordinal))
        .map(|read| read.position)
        .max()?;
    timeline
        .ordered
        .get(start + 1..last)?
        .iter()
        .filter_map(|ordinal| timeline.get(*ordinal))
        .find(|write| {
            !matches!(write.method.as_str(), "GET" | "HEAD")
                && !timeline.reading_posts.contains(&write.tool)
                && write.is_success()
                && names_entity((&write.segments, &write.request), id)
        })
        .map(|write| write.position)
}

/// Whether a list read shows each member it lists whole: it asks for nothing but pages, names
/// spelled with a sigil that play no query role over what it lists (`@verbose=2`, see
/// `derive::lists`), and filters of a field its members hold (`project=5`, which keep or drop a
/// member but never project it).
fn whole_members_list(pairs: &[(String, String)], objects: &[&Json]) -> bool {
    let has_field = |field: &str| objects.iter().any(|object| object.get(field).is_some());
    pairs.iter().all(|(name, value)| {
        let roles = rea_plugin_api::query_fields::candidate_roles(name, &has_field);
        only_pages(name, value)
            || (rea_plugin_api::query_fields::unsigiled(name) != name && roles.is_empty())
            || matches!(roles.first(), Some(QueryRole::Filter { field, .. }) if field == name)
    })
}

/// A create's entity as the response showed it, or, when an unfiltered list read after it
/// (or one filtered by its members' fields) showed every member the response did with the same
/// values and more, as that list did (a create answering its id and link alone, or its id alone
/// in a list of one object, whose created entity no item read showed).
fn fuller_listed(after: After, listed: Option<&Json>) -> After {
    match (&after, listed) {
        (After::Present(Json::Object(shown)), Some(Json::Object(object)))
            if object.len() >= shown.len()
                && shown
                    .iter()
                    .all(|(member, value)| object.get(member) == Some(value)) =>
        {
            After::Present(Json::Object(object.clone()))
        }
        _ => after,
    }
}

/// The entity as a list read after the call showed it, where the answer showed it in another
/// shape than the reads give the type (`reference`: the entity before, else a held entity of its
/// collection) and the list in that shape: dynamic-rest's write answers name a deferred to-many
/// member's ids (`"tasks": []`) where its reads show `links`. Else the answer's.
fn in_read_shape(after: After, reference: Option<&Json>, listed: Option<&Json>) -> After {
    match (&after, reference, listed) {
        (After::Present(answered), Some(reference), Some(listed))
            if !same_shape(reference, answered) && same_shape(reference, listed) =>
        {
            After::Present(listed.clone())
        }
        _ => after,
    }
}

/// The entity of an answer naming its identity beside an object of the entity's other members
/// where the item view reads the entity (`{"id": 5, "result": {"code": "DOC", …}}`, the item
/// view's entity at `/result`): that object with the identity first. `None` when the answer
/// showed the entity elsewhere than its root, or the item view's object holds the identity.
fn beside_identity(response: &Json, found: &str, preferred: &str, identity: &str) -> Option<Json> {
    if !found.is_empty() || preferred.is_empty() || identity.starts_with('/') {
        return None;
    }
    let Json::Object(members) = response.pointer(preferred)? else {
        return None;
    };
    if members.contains_key(identity) {
        return None;
    }
    let mut entity = rea_plugin_api::json::Object::with_capacity(members.len() + 1);
    entity.insert(identity, response.get(identity)?.clone());
    for (key, value) in members.iter() {
        entity.insert(key, value.clone());
    }
    Some(Json::Object(entity))
}

/// The entity after a call, the reads that show it, and the simulation's adoption of it.
fn observe_after(
    timeline: &Timeline,
    views: &Views,
    info: &super::TypeInfo,
    call: &mut Call,
    sim: &mut LiveState,
    tallies: &mut Tallies,
) {
    let Some((entity_type, collection, id)) = call.key.clone() else {
        return;
    };
    let mut seen = reads_after(timeline, views, info, call);
    let preferred = info
        .item
        .as_ref()
        .map_or("", |item| item.entity_pointer.as_str());
    let mut after = seen.after.unwrap_or(After::Unobserved);
    if after == After::Unobserved
        && let Some(response) = &call.response
        && let Some((pointer, object)) = find_entity(response, &info.identity, Some(&id), preferred)
    {
        let beside = beside_identity(response, &pointer, preferred, &info.identity);
        if call.response_pointer.is_none() {
            call.response_pointer = Some(pointer);
        }
        if !marked_deleted(object) {
            after = After::Present(beside.unwrap_or_else(|| object.clone()));
            if call.before.is_none() {
                after = fuller_listed(after, seen.listed.as_ref());
            }
            let reference = (call.before.as_ref().map(|before| &before.fields)).or_else(|| {
                (sim.collection(&entity_type, &collection).first()).map(|held| &held.fields)
            });
            after = in_read_shape(after, reference, seen.any_listed.as_ref());
        }
    }
    if after == After::Unobserved
        && let Some(before) = &call.before
        && let Some(listed) = seen.any_listed.take()
        && same_shape(&before.fields, &listed)
    {
        after = After::Present(listed);
    }
    if after == After::Unobserved && call.before.is_some() && seen.unlisted == Some(true) {
        after = After::Absent;
    }
    // A count of the whole collection one less than the entities held with this one shows it
    // gone (PiccoloCRUD's `/count/` after a delete no list or item read follows).
    if after == After::Unobserved
        && call.before.is_some()
        && seen.counted.is_some_and(|counted| {
            counted + 1 == sim.collection(&entity_type, &collection).len() as u64
        })
    {
        after = After::Absent;
    }
    if call.response_pointer.is_none()
        && let Some(response) = &call.response
        && let Some((pointer, _)) = find_entity(response, &info.identity, Some(&id), preferred)
    {
        call.response_pointer = Some(pointer);
    }
    let written = (entity_type.as_str(), collection.as_str(), id.as_str());
    if call.before.is_none() {
        note_held(call, &after, sim, tallies, written);
    }
    // Where the entity was before, when a whole list after shows where it went (what the
    // placement learns from; walking the collection only then keeps this linear).
    if call.before.is_some() && seen.reads.iter().any(|read| read.whole) {
        call.before_position = sim.position(&entity_type, &collection, &id);
    }
    call.reads = seen.reads;
    adopt(call, &after, sim, tallies, written);
    if let Some(order) = seen.first_order {
        sim.reorder_collection(&entity_type, &collection, &order);
    }
    call.after = after;
}

/// Whether two objects hold the same members, and each object member the same members in turn:
/// an entity a list shows whole (its filter selecting, not projecting), as the held entity is, is
/// the entity after an update no read by id showed.
fn same_shape(held: &Json, shown: &Json) -> bool {
    let (Json::Object(held), Json::Object(shown)) = (held, shown) else {
        return held.as_object().is_none();
    };
    held.len() == shown.len()
        && held.iter().all(|(key, value)| {
            shown.get(key).is_some_and(|other| match other {
                Json::Object(_) => value.as_object().is_none() || same_shape(value, other),
                _ => true,
            })
        })
}

/// What a create's collection held: the largest integer of each integer field, and the values
/// every held entity shares.
fn note_held(
    call: &mut Call,
    after: &After,
    sim: &LiveState,
    tallies: &mut Tallies,
    (entity_type, collection, _): (&str, &str, &str),
) {
    let After::Present(Json::Object(object)) = after else {
        return;
    };
    for (field, value) in object.iter() {
        if let Some(shared) = tallies.shared(sim, entity_type, collection, field) {
            if held_otherwise(sim, entity_type, collection, field, &shared) {
                call.shared_by_chance.insert(field.to_owned());
            }
            call.shared.insert(field.to_owned(), shared);
        }
        if integer(value).is_none() {
            continue;
        }
        if let Some(largest) = tallies.largest(sim, entity_type, collection, field) {
            call.held_max.insert(
                field.to_owned(),
                Json::Number(rea_plugin_api::json::Number::from(largest as i64)),
            );
        }
        if let Some(given) = tallies.given(sim, entity_type, collection, field) {
            call.given_max.insert(
                field.to_owned(),
                Json::Number(rea_plugin_api::json::Number::from(given as i64)),
            );
        }
    }
    if !call.shared_by_chance.is_empty() {
        call.held_entities = held_scalars(sim, entity_type);
    }
}

/// Whether another collection of the type holds the field with another value than the one the
/// written collection shares.
fn held_otherwise(
    sim: &LiveState,
    entity_type: &str,
    collection: &str,
    field: &str,
    shared: &Json,
) -> bool {
    let written = collection_key(collection);
    sim.collections_of(entity_type)
        .into_iter()
        .filter(|other| *other != written)
        .flat_map(|other| sim.collection(entity_type, other))
        .any(|entity| entity.fields.get(field).is_some_and(|held| held != shared))
}

/// The entities of a type the simulation holds, their scalar top-level members.
fn held_scalars(sim: &LiveState, entity_type: &str) -> Vec<Json> {
    sim.collections_of(entity_type)
        .into_iter()
        .flat_map(|collection| sim.collection(entity_type, collection))
        .filter_map(|entity| entity.fields.as_object())
        .map(|fields| {
            let mut scalars = rea_plugin_api::json::Object::new();
            for (name, value) in fields.iter() {
                if !matches!(value, Json::Object(_) | Json::Array(_)) {
                    scalars.insert(name.to_owned(), value.clone());
                }
            }
            Json::Object(scalars)
        })
        .collect()
}

/// The simulation adopts what a call left its entity (an entity read back marked deleted is
/// gone from the collection).
fn adopt(
    call: &Call,
    after: &After,
    sim: &mut LiveState,
    tallies: &mut Tallies,
    (entity_type, collection, id): (&str, &str, &str),
) {
    match after {
        After::Present(object) if marked_deleted(object) => {
            if let Some(before) = sim.remove_entity(entity_type, collection, id) {
                tallies.change(collection, &before.fields, false);
            }
        }
        After::Present(object) => {
            if let Some(before) = &call.before {
                tallies.change(collection, &before.fields, false);
            }
            tallies.change(collection, object, true);
            let entity = Entity {
                entity_type: entity_type.to_owned(),
                collection: call
                    .before
                    .as_ref()
                    .map_or_else(|| collection.to_owned(), |before| before.collection.clone()),
                id: id.to_owned(),
                fields: object.clone(),
                view_fields: call
                    .before
                    .as_ref()
                    .map(|before| before.view_fields.clone())
                    .unwrap_or_default(),
                record_ordinals: Vec::new(),
            };
            if call.before.is_some() {
                sim.update_entity(entity, None);
            } else {
                sim.insert_entity(entity, &Position::Last);
            }
        }
        After::Absent => {
            if let Some(before) = sim.remove_entity(entity_type, collection, id) {
                tallies.change(collection, &before.fields, false);
            }
        }
        After::Unobserved | After::Document(_) => {}
    }
}

/// Where a bulk body names its entities: the root array, or the one array member.
pub(crate) fn bulk_layout(body: &Json) -> Option<super::model::BulkIds> {
    let objects = |items: &Vec<Json>| items.iter().all(|item| matches!(item, Json::Object(_)));
    let pointer_of = |key: &str| format!("/{}", rea_plugin_api::json::escape_pointer_segment(key));
    match body {
        Json::Array(items) => Some(super::model::BulkIds {
            pointer: String::new(),
            objects: !items.is_empty() && objects(items),
            selected: None,
            data: None,
        }),
        Json::Object(object) => {
            let arrays: Vec<(&str, &Vec<Json>)> = object
                .iter()
                .filter_map(|(key, value)| value.as_array().map(|items| (key, items)))
                .collect();
            match arrays.as_slice() {
                [(key, items)] => Some(super::model::BulkIds {
                    pointer: pointer_of(key),
                    objects: !items.is_empty() && objects(items),
                    selected: None,
                    data: data_member(object, key, items),
                }),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The one member beside an array of bare ids (`array`, at `key`) holding a non-empty object:
/// what the body sends each entity it names (see [`super::model::BulkIds::data`]).
fn data_member(object: &rea_plugin_api::json::Object, key: &str, array: &[Json]) -> Option<String> {
    if array
        .iter()
        .any(|item| matches!(item, Json::Object(_) | Json::Array(_)))
    {
        return None;
    }
    let mut beside = object.iter().filter(|(name, _)| *name != key);
    let (name, value) = beside.next()?;
    let holds = value.as_object().is_some_and(|members| !members.is_empty());
    (holds && beside.next().is_none()).then(|| name.to_owned())
}

/// The ids a bulk body names, in body order (`None` when an entry names none).
pub(crate) fn layout_ids(
    layout: &super::model::BulkIds,
    body: &Json,
    identity: &str,
) -> Option<Vec<String>> {
    body.pointer(&layout.pointer)?
        .as_array()?
        .iter()
        .map(|item| {
            if layout.objects {
                crate::render::identity_text(item, identity)
            } else {
                scalar_text(item)
            }
        })
        .collect()
}

/// The copy a rename's answer shows, with each member the answer leaves `null` that the original
/// held with a value kept as held: a rename's answer is the item's summary (no body), and the
/// copy is the same record under its new identity, so a member the answer blanks is not one the
/// write cleared.
fn kept_where_left_null(shown: &Json, held: &Json) -> Json {
    let mut copy = shown.clone();
    let (Some(fields), Some(held)) = (copy.as_object_mut(), held.as_object()) else {
        return copy;
    };
    for (key, value) in held.iter() {
        if !value.is_null() && fields.get(key).is_some_and(Json::is_null) {
            fields.insert(key.to_owned(), value.clone());
        }
    }
    copy
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(text: &str) -> RequestBody {
        RequestBody::Json(rea_plugin_api::json::parse(text.as_bytes()).expect("JSON"))
    }

    #[test]
    fn a_list_shows_an_entity_whole_when_it_holds_the_held_members_at_every_depth() {
        let of = |text: &str| rea_plugin_api::json::parse(text.as_bytes()).expect("JSON");
        let held = of(
            r#"{"id": "10", "attributes": {"title": "t", "status": "todo"},
                "relationships": {"assignee": {"data": null, "links": {"self": "/x"}}}}"#,
        );
        // A linkage set from null is a value changed, not a shape.
        let listed = of(
            r#"{"id": "10", "attributes": {"title": "t", "status": "doing"},
                "relationships": {"assignee": {"data": {"type": "people", "id": "5"},
                "links": {"self": "/x"}}}}"#,
        );
        assert!(same_shape(&held, &listed));
        // A sparse fieldset drops members: a projection, not the entity.
        let sparse = of(r#"{"id": "10", "attributes": {"title": "t"},
                "relationships": {"assignee": {"data": null, "links": {"self": "/x"}}}}"#);
        assert!(!same_shape(&held, &sparse));
        let fewer = of(r#"{"id": "10", "attributes": {"title": "t", "status": "todo"}}"#);
        assert!(!same_shape(&held, &fewer));
    }

    #[test]
    fn a_copy_keeps_what_its_answer_leaves_null() {
        let of = |text: &str| rea_plugin_api::json::parse(text.as_bytes()).expect("JSON");
        let held = of(r#"{"name": "a.md", "content": "x", "format": "text", "hash": null}"#);
        let shown = of(r#"{"name": "b.md", "content": null, "format": null, "hash": null}"#);
        assert_eq!(
            kept_where_left_null(&shown, &held),
            of(r#"{"name": "b.md", "content": "x", "format": "text", "hash": null}"#)
        );
    }

    #[test]
    fn a_write_names_an_entity_by_a_path_segment_or_a_body_string() {
        let path = |text: &str| -> Vec<CompactString> {
            text.split('/').map(CompactString::from).collect()
        };
        let none = RequestBody::Missing;
        // A segment, decoded, or a string anywhere in the body.
        assert!(names_entity(
            (&path("date-helpers/-rev/9-a"), &none),
            "date-helpers"
        ));
        assert!(names_entity(
            (&path("@corp%2fui-kit/-rev/6-b"), &none),
            "@corp/ui-kit"
        ));
        let sent = body(r#"{"name": "left-pad-ng", "deps": {"x": ["date-helpers"]}}"#);
        assert!(names_entity(
            (&path("other/-rev/1-c"), &sent),
            "date-helpers"
        ));
        // Another package's write, or a part of a string naming it, is none.
        assert!(!names_entity((&path("left-pad-ng/-rev/6-d"), &sent), "pad"));
        // A key naming it names it too (the safe side: a write that might have changed the entity
        // ends the search for what the member write did).
        let keyed = body(r#"{"date-helpers": 1}"#);
        assert!(names_entity((&path("x"), &keyed), "date-helpers"));
        let noted = body(r#"{"note": "date-helpers!"}"#);
        assert!(!names_entity((&path("x"), &noted), "date-helpers"));
    }

    #[test]
    fn a_body_names_its_entity_alone_by_the_identitys_name() {
        // The identity's last segment is the member's name; the body holds nothing else.
        assert!(names_alone(&body(r#"{"key": "YQ=="}"#), "key", "YQ=="));
        assert!(names_alone(
            &body(r#"{"run_id": "r1"}"#),
            "/info/run_id",
            "r1"
        ));
        assert!(names_alone(&body(r#"{"id": 7}"#), "id", "7"));
        // Another entity, a range or a selection beside the key, another member, no object.
        assert!(!names_alone(&body(r#"{"key": "Yg=="}"#), "key", "YQ=="));
        assert!(!names_alone(
            &body(r#"{"key": "YQ==", "range_end": "Yg=="}"#),
            "key",
            "YQ=="
        ));
        assert!(!names_alone(&body(r#"{"name": "YQ=="}"#), "key", "YQ=="));
        assert!(!names_alone(&body(r#"["YQ=="]"#), "key", "YQ=="));
        assert!(!names_alone(&RequestBody::Missing, "key", "YQ=="));
    }
}

#[cfg(test)]
mod batch_tests {
    use super::{batch_items, batch_targets};
    use rea_plugin_api::json::Json;
    use serde_json::json;

    fn of(value: serde_json::Value) -> Json {
        Json::from_serde_value(&value)
    }

    #[test]
    fn a_batch_is_an_array_of_objects_alone_or_beside_scalar_options() {
        let rows = of(json!({"rows": [{"title": "a"}, {"title": "b"}], "return": true}));
        assert_eq!(batch_items(&rows).map(Vec::len), Some(2));
        assert_eq!(batch_items(&of(json!([{"a": 1}]))).map(Vec::len), Some(1));
        // One row in an envelope, two arrays, an object beside the array, or an array of
        // scalars is no batch.
        for body in [
            json!({"row": {"title": "a"}}),
            json!({"rows": [{"a": 1}], "more": [{"b": 2}]}),
            json!({"rows": [{"a": 1}], "alter": {"b": 2}}),
            json!({"ids": [1, 2]}),
            json!({"rows": []}),
        ] {
            assert!(batch_items(&of(body.clone())).is_none(), "{body}");
        }
    }

    #[test]
    fn each_row_names_its_entity_by_the_identity_or_the_answer() {
        // Rows sending their identity name it; the others take the id the answer lists at
        // their index, under the member the keyed rows' items show it in (`id` for `_id`).
        let sent = [
            of(json!({"name": "Eli"})),
            of(json!({"_id": "member:3", "name": "Chen"})),
        ];
        let answer = of(json!([
            {"ok": true, "id": "4387", "rev": "1-a"},
            {"ok": true, "id": "member:3", "rev": "2-b"}
        ]));
        let named = batch_targets(&sent, Some(&answer), "_id").expect("named");
        let ids: Vec<&str> = named.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(ids, vec!["4387", "member:3"]);
        assert_eq!(
            named[0].1.as_ref().and_then(|item| item.get("rev")),
            Some(&of(json!("1-a")))
        );
        // An answer listing the written rows by identity pairs them by id, not by index.
        let sent = [of(json!({"code": "WEB"})), of(json!({"code": "DOC"}))];
        let answer = of(json!({"ok": true, "rows": [{"code": "DOC"}, {"code": "WEB"}]}));
        let named = batch_targets(&sent, Some(&answer), "code").expect("named");
        assert_eq!(named[0].1, Some(of(json!({"code": "WEB"}))));
        // A row naming no entity, with nothing listed for it, names none.
        let sent = [of(json!({"title": "No id"}))];
        assert!(batch_targets(&sent, Some(&of(json!({"ok": true}))), "id").is_none());
    }
}

#[cfg(test)]
mod listed_tests {
    use super::{After, find_entity, fuller_listed, in_read_shape, whole_members_list};
    use rea_plugin_api::json::Json;
    use serde_json::json;

    fn of(value: serde_json::Value) -> Json {
        Json::from_serde_value(&value)
    }

    #[test]
    fn a_list_showing_more_of_a_created_entity_than_its_answer_is_its_entity_after() {
        let answered = || After::Present(of(json!({"id": "5", "link": "/keyword/5"})));
        let listed = of(json!({"id": "5", "link": "/keyword/5", "name": "security"}));
        assert_eq!(
            fuller_listed(answered(), Some(&listed)),
            After::Present(listed.clone())
        );
        // No list, a list disagreeing with the answer, or one showing no more: the answer.
        assert_eq!(fuller_listed(answered(), None), answered());
        let other = of(json!({"id": "5", "link": "/keyword/6", "name": "security"}));
        assert_eq!(fuller_listed(answered(), Some(&other)), answered());
        let same = of(json!({"id": "5", "link": "/keyword/5"}));
        assert_eq!(fuller_listed(answered(), Some(&same)), answered());
    }

    #[test]
    fn an_answer_in_another_shape_than_the_reads_gives_way_to_a_list_in_theirs() {
        // dynamic-rest: a person's PATCH answers `tasks: []` where reads show `links`.
        let before = of(json!({"id": 6, "role": "engineer", "links": {"tasks": "tasks/"}}));
        let answered = || After::Present(of(json!({"id": 6, "role": "designer", "tasks": []})));
        let listed = of(json!({"id": 6, "role": "designer", "links": {"tasks": "tasks/"}}));
        assert_eq!(
            in_read_shape(answered(), Some(&before), Some(&listed)),
            After::Present(listed.clone())
        );
        // An answer in the reads' shape, no list, or a list in another shape: the answer.
        let whole = || After::Present(listed.clone());
        let other = of(json!({"id": 6, "role": "designer"}));
        assert_eq!(in_read_shape(whole(), Some(&before), Some(&other)), whole());
        assert_eq!(in_read_shape(answered(), Some(&before), None), answered());
        assert_eq!(
            in_read_shape(answered(), Some(&before), Some(&other)),
            answered()
        );
        assert_eq!(in_read_shape(answered(), None, Some(&listed)), answered());
    }

    #[test]
    fn a_list_of_one_object_shows_the_created_identity() {
        let answer = of(json!([{"id": 15}]));
        let (pointer, shown) = find_entity(&answer, "id", Some("15"), "").expect("found");
        assert_eq!((pointer.as_str(), shown), ("/0", &of(json!({"id": 15}))));
        // Two objects are a batch's answer, not one entity's.
        let two = of(json!([{"id": 15}, {"id": 16}]));
        assert_eq!(find_entity(&two, "id", None, ""), None);
    }

    #[test]
    fn a_list_filtered_by_its_members_fields_shows_them_whole() {
        let task = of(json!({"id": 15, "project": 5, "title": "Measure"}));
        let objects = [&task];
        let pairs = |list: &[(&str, &str)]| -> Vec<(String, String)> {
            list.iter()
                .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
                .collect()
        };
        assert!(whole_members_list(&pairs(&[]), &objects));
        assert!(whole_members_list(&pairs(&[("project", "5")]), &objects));
        assert!(whole_members_list(
            &pairs(&[("project", "5"), ("title", "Measure")]),
            &objects
        ));
        // A plain name no member holds may project them (`fields=id`): not whole.
        assert!(!whole_members_list(&pairs(&[("fields", "id")]), &objects));
        assert!(!whole_members_list(
            &pairs(&[("project", "5"), ("fields", "id")]),
            &objects
        ));
    }
}

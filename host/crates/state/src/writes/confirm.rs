//! Pass 4: the replay that confirms write plans.
//!
//! From the state the reads observed, every successful write call after the first write is
//! applied in record order: with its plan ([`super::apply`], the function serving uses, taking
//! the values rules explain from the recorded outcome) when the plan is still a candidate, else by
//! adopting what the call was observed to leave. Every read after the first write whose tool has
//! a state view is answered through the state's own read path ([`StateService::answer`], with
//! the pipeline's query grammars, so a query a grammar splits into filter terms is evaluated as
//! served) and, when that answer comes from the state, compared with the recording (status and
//! body):
//!
//! * agreement confirms the last write of each entity the read shows (an item read by id; a list
//!   read confirms the writes of the entities it lists, and a whole list also the deletes of
//!   entities it no longer lists);
//! * disagreement about an entity whose last write no read has confirmed yet contradicts that
//!   write's plan (`contradicted_by` is the read); disagreement about an entity a read already
//!   confirmed, or one no served write touched, is a side effect of the latest write (of no plan
//!   when the latest write is one the replay cannot follow: adopted with no entity or document it
//!   changed, such as an RPC the state has no target for, its change may be that write's);
//! * a write the state has no target for, whose path extends a held item's path (a sub-resource
//!   of the item: an attachment under its document), changes that item in ways the state does not
//!   model: a disagreement about the item after it is charged to no write (the sub-resource write
//!   itself stays withheld); one reaching no held item is still the latest write, so a
//!   disagreement after it that no entity explains (a listing of databases after `PUT /{db}`)
//!   is charged to no write rather than to an earlier one as a side effect;
//! * a disagreement only about entities of types no write tool writes (an index or a feed of
//!   the written documents, a parent's counts) is charged to no write: those types are returned,
//!   and their views answer not modelled after a served write;
//! * after a disagreement the simulated state takes what the read showed, so one mistake is
//!   blamed once;
//! * a list read the application refused for its query (a client error other than `404`/`410`)
//!   shows nothing of the entities and is charged to no write.
//!
//! A served plan's recorded answers must also come out of the replay as recorded (else
//! `body-unusable`), and every view of its type must render what it writes (else
//! `incomplete-entities`).

use rea_plugin_api::contracts::capture::CompactString;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use rea_manifest::catalog::ArgumentTarget;
use rea_manifest::segments::{split_path, template_value};
use rea_manifest::{Environment, Manifest, ToolDefinition};
use rea_plugin_api::contracts::capture::CaptureRecord;
use rea_plugin_api::json::Json;
use serde_json::{Map, Value};

use super::apply::{Values, WriteInput, commit, prepare, render_response};
use super::observe::{After, Call, members};
use super::{Draft, Scope, Views};
use crate::answer::{StateAnswer, StateSource};
use crate::derive::entities::collection_key;
use crate::model::{Entity, StateView, ViewDetail};
use crate::observation::{Observation, RequestBody, Timeline, decoded};
use crate::render::{missing_required, render_entity};
use crate::rules::RuleSet;
use crate::service::StateService;
use crate::store::{LiveState, Position};

mod counted;

/// An entity key for confirmation: type, collection key, id.
type Key = (String, String, String);

/// A write replayed: its plan (`None`: adopted as observed), the entity, and which reads
/// confirmed it (by id, or in a list).
#[derive(Debug)]
struct Event {
    draft: Option<usize>,
    key: Key,
    delete: bool,
    by_id: bool,
    listed: bool,
    /// The earlier write of the same entity a read confirms together with this one (see
    /// [`super::together`]): no read showed it alone.
    together: Option<usize>,
    /// Whether the write created the entity (the state held none before it).
    created: bool,
}

/// What kind of read confirms or disagrees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shown {
    ById,
    Listed,
}

impl Event {
    fn confirmed(&self, shown: Shown) -> bool {
        match shown {
            Shown::ById => self.by_id,
            Shown::Listed => self.listed,
        }
    }
}

#[derive(Debug, Default, Clone)]
struct Verdict {
    failure: Option<&'static str>,
    contradicted_by: Option<u64>,
    side_effect: bool,
    confirmed_by: Vec<u64>,
    incomplete: bool,
}

/// The arguments that name a recorded request of a tool: its path segments at the parameters'
/// indexes, and its query values (an array for a repeated name).
pub fn arguments_for(
    definition: &ToolDefinition,
    segments: &[CompactString],
    pairs: &[(String, String)],
) -> Map<String, Value> {
    let mut arguments = Map::new();
    for argument in &definition.input_schema.arguments {
        match &argument.target {
            ArgumentTarget::Path {
                segment_index,
                prefix,
                suffix,
                ..
            } => {
                if let Some(segment) = segments.get(*segment_index) {
                    // A fused parameter's argument is its value without the prefix and suffix.
                    let value = rea_manifest::segments::fused_value(prefix, suffix, segment)
                        .unwrap_or(segment);
                    arguments.insert(argument.name.clone(), Value::String(value.to_owned()));
                }
            }
            ArgumentTarget::Query { name } => {
                let values: Vec<&String> = pairs
                    .iter()
                    .filter(|(pair_name, _)| pair_name == name)
                    .map(|(_, value)| value)
                    .collect();
                let typed = |value: &String| argument.schema.kind.recorded_value(value);
                match values.as_slice() {
                    [] => {}
                    [one] => {
                        arguments.insert(argument.name.clone(), typed(one));
                    }
                    many => {
                        arguments.insert(
                            argument.name.clone(),
                            Value::Array(many.iter().map(|value| typed(value)).collect()),
                        );
                    }
                }
            }
            ArgumentTarget::Body => {}
        }
    }
    arguments
}

struct Replay<'a> {
    views: &'a Views,
    state: &'a StateView,
    events: Vec<Event>,
    last: HashMap<Key, usize>,
    /// Per collection, per entity id, the writes no list read showed yet.
    pending: HashMap<(String, String), HashMap<String, Vec<usize>>>,
    verdicts: Vec<Verdict>,
    /// The entity types some write tool writes.
    written_types: std::collections::HashSet<String>,
    /// The document views some write tool writes.
    written_documents: std::collections::HashSet<String>,
    /// Writes so far that name nothing the state holds (no collection or document: a database
    /// or a table created), by record ordinal.
    untargeted: Vec<u64>,
    /// Per document view, the latest read of it checked so far.
    document_checked: HashMap<String, u64>,
    /// The entity types a read showed changed though no write tool writes them.
    unmodelled: std::collections::BTreeSet<String>,
    /// The path templates of the item views naming their entity by path, with the type and
    /// the identity segment's pattern, sorted.
    item_paths: Vec<(String, String, String)>,
    /// How many events preceded the latest write the replay could not follow (adopted with no
    /// entity, document or item it changed: an RPC the state has no target for, a create no
    /// read showed): a change a read shows after it may be that write's.
    blind_after: Option<usize>,
    /// How many events preceded the end of the latest write adopted as observed: what it did
    /// besides its own entity (a parent's create making the children it nests) is not followed.
    adopted_after: Option<usize>,
    /// The held folders (items listing their children by path) a served write wrote a child
    /// of: how their listings change is not modelled.
    folders: std::collections::HashSet<Key>,
    /// The types of the folders a read showed changed by a served write of a child.
    folder_types: std::collections::BTreeSet<String>,
    /// Per draft, whether it writes one entity its path names and nothing else: one member of
    /// a held entity (see [`super::member`]), or an update or delete of one item.
    member_writes: Vec<bool>,
    /// Per draft, whether it deletes one item its path names and learned no effect on the
    /// entities referring to it: it changes no other entity.
    lone_deletes: Vec<bool>,
}

/// Whether a draft writes one entity its path names: one member of a held entity (see
/// [`super::member`]), or an update or delete of one item its path names (no batch, bulk or
/// body member naming the entity). Such a write cannot have made another entity appear.
fn writes_one_named_entity(draft: &Draft) -> bool {
    let member = draft
        .plan
        .target
        .as_ref()
        .is_some_and(|target| target.member.is_some());
    let item = matches!(
        draft.classified.kind,
        super::target::TargetKind::Item { .. }
    ) && draft.classified.key_member.is_none()
        && !draft.as_bulk
        && !draft.plan.bulk
        && matches!(
            draft.plan.effect,
            super::model::Effect::Update | super::model::Effect::Delete
        );
    member || item
}

/// What the confirming replay found the state does not model after a served write.
#[derive(Debug, Default)]
pub(crate) struct Unmodelled {
    /// Types whose entities writes changed though no write tool writes them.
    pub types: std::collections::BTreeSet<String>,
    /// Types of folders whose listings (entries, stamps) a served write of a child changed.
    pub folders: std::collections::BTreeSet<String>,
}

impl<'a> Replay<'a> {
    /// A replay of the open drafts' writes over the state, with nothing replayed yet.
    fn new(manifest: &Manifest, state: &'a StateView, views: &'a Views, drafts: &[Draft]) -> Self {
        Self {
            views,
            state,
            events: Vec::new(),
            last: HashMap::new(),
            pending: HashMap::new(),
            verdicts: vec![Verdict::default(); drafts.len()],
            written_types: drafts
                .iter()
                .filter_map(|draft| draft.plan.target.as_ref()?.entity_type.clone())
                .collect(),
            written_documents: drafts
                .iter()
                .filter_map(|draft| draft.plan.target.as_ref()?.document.clone())
                .collect(),
            unmodelled: Default::default(),
            item_paths: item_paths(manifest, views),
            untargeted: Vec::new(),
            document_checked: HashMap::new(),
            blind_after: None,
            adopted_after: None,
            folders: Default::default(),
            folder_types: Default::default(),
            member_writes: drafts.iter().map(writes_one_named_entity).collect(),
            lone_deletes: drafts
                .iter()
                .map(|draft| {
                    draft.plan.effect == super::model::Effect::Delete
                        && writes_one_named_entity(draft)
                        && !draft.plan.has_dependents()
                })
                .collect(),
        }
    }
}

impl Replay<'_> {
    fn record_event(&mut self, draft: Option<usize>, key: Key, delete: bool) {
        let index = self.events.len();
        self.events.push(Event {
            draft,
            key: key.clone(),
            delete,
            by_id: false,
            listed: false,
            together: None,
            created: false,
        });
        self.pending
            .entry((key.0.clone(), key.1.clone()))
            .or_default()
            .entry(key.2.clone())
            .or_default()
            .push(index);
        self.last.insert(key, index);
    }

    fn confirm_event(&mut self, index: usize, read: u64, shown: Shown) {
        let event = &mut self.events[index];
        if event.confirmed(shown) {
            return;
        }
        match shown {
            Shown::ById => event.by_id = true,
            Shown::Listed => event.listed = true,
        }
        if let Some(draft) = event.draft {
            let confirmed = &mut self.verdicts[draft].confirmed_by;
            if !confirmed.contains(&read) {
                confirmed.push(read);
            }
        }
        // The read shows the earlier write no read showed alone too.
        if let Some(earlier) = self.events[index].together {
            self.confirm_event(earlier, read, shown);
        }
    }

    /// Links the latest event of `key` to the event of the earlier write of the entity recorded
    /// before it (`previous`), which reads confirm together with it (see [`super::together`]).
    fn link_together(&mut self, key: &Key, previous: Option<usize>) {
        if let (Some(latest), Some(previous)) = (self.last.get(key).copied(), previous)
            && latest != previous
        {
            self.events[latest].together = Some(previous);
        }
    }

    /// The write a disagreement blames among a pair confirmed together: the earlier one, when no
    /// read confirmed it yet and a plan replayed it (the later one's change is its answered
    /// member, which its own answer showed as the read does).
    fn blamed_of_pair(&self, event: usize, shown: Shown) -> usize {
        match self.events[event].together {
            Some(earlier)
                if !self.events[earlier].confirmed(shown)
                    && self.events[earlier].draft.is_some() =>
            {
                earlier
            }
            _ => event,
        }
    }

    /// Blames a disagreement about `keys` (entities the read showed otherwise): the last
    /// unconfirmed write of one of them contradicts its plan; else the latest write is a side
    /// effect.
    fn blame(
        &mut self,
        keys: &[Key],
        collection: Option<&(String, String)>,
        read: u64,
        shown: Shown,
    ) {
        tracing::debug!(read, keys = ?keys, "a read after a write disagrees with the replayed state");
        // A folder a served write wrote a child of lists its children and stamps as the state
        // does not model: the difference is charged to no write, and a read of the folder (or
        // of a folder above it) answers not modelled after a served write wrote below it
        // (never its stale listing).
        if !keys.is_empty() && keys.iter().all(|key| self.folders.contains(key)) {
            self.folder_types
                .extend(keys.iter().map(|key| key.0.clone()));
            return;
        }
        let (unconfirmed, touched_unmodelled) = self.unconfirmed_writes(keys, collection, shown);
        if let Some(event) = unconfirmed.into_iter().max() {
            // The latest unconfirmed write about these entities.
            let event = self.blamed_of_pair(event, shown);
            if let Some(draft) = self.events[event].draft {
                let verdict = &mut self.verdicts[draft];
                verdict.contradicted_by.get_or_insert(read);
            }
            match shown {
                Shown::ById => self.events[event].by_id = true,
                Shown::Listed => self.events[event].listed = true,
            }
            return;
        }
        if touched_unmodelled {
            return;
        }
        self.charge_unexplained(keys, read);
    }

    /// The unconfirmed writes a disagreement about `keys` may blame (the last write of each key
    /// the read did not confirm, else the collection's pending ones), and whether a key's last
    /// write is one the state does not model (or models wrongly).
    fn unconfirmed_writes(
        &self,
        keys: &[Key],
        collection: Option<&(String, String)>,
        shown: Shown,
    ) -> (Vec<usize>, bool) {
        // A write adopted after an entity's last write may have changed it besides its own
        // entity (a delete clearing what other entities held of it): that write is not blamed.
        let mut unconfirmed: Vec<usize> = keys
            .iter()
            .filter_map(|key| self.last.get(key).copied())
            .filter(|event| !self.events[*event].confirmed(shown))
            .filter(|event| self.adopted_after.is_none_or(|adopted| adopted <= *event))
            .collect();
        let touched_unmodelled = keys.iter().any(|key| {
            self.last.get(key).is_some_and(|event| {
                self.events[*event].draft.is_none_or(|draft| {
                    let verdict = &self.verdicts[draft];
                    verdict.failure.is_some() || verdict.contradicted_by.is_some()
                })
            })
        });
        // An entity a write the state does not model (or models wrongly, its plan already
        // contradicted) changed explains the difference: the collection's other writes are not
        // blamed for it.
        if unconfirmed.is_empty()
            && !touched_unmodelled
            && let Some(collection) = collection
        {
            unconfirmed = self
                .pending
                .get(collection)
                .map(|events| {
                    events
                        .values()
                        .flatten()
                        .copied()
                        .filter(|event| !self.events[*event].confirmed(shown))
                        // A write adopted after it may have made the difference.
                        .filter(|event| self.adopted_after.is_none_or(|adopted| adopted <= *event))
                        // A delete of another item changing nothing else cannot have.
                        .filter(|event| !self.deletes_alone(*event, keys))
                        .collect()
                })
                .unwrap_or_default();
        }
        (unconfirmed, touched_unmodelled)
    }

    /// Whether an event deletes one item that is none of `keys` and changes no other entity (see
    /// `lone_deletes`): a disagreement about `keys` is none of its doing.
    fn deletes_alone(&self, event: usize, keys: &[Key]) -> bool {
        let event = &self.events[event];
        event.delete
            && !keys.contains(&event.key)
            && event.draft.is_some_and(|draft| self.lone_deletes[draft])
    }

    /// A disagreement no unconfirmed write of its entities explains: entities of unwritten types
    /// or documents answer not modelled after a served write; else the latest write of another
    /// entity is a side effect.
    fn charge_unexplained(&mut self, keys: &[Key], read: u64) {
        // Entities of types no write tool writes (an index or a feed of the written documents,
        // a parent's counts): the state does not model how writes change them, so their views
        // answer not modelled after a served write instead of charging the write.
        let held_type = |key: &Key| {
            self.state
                .types
                .iter()
                .any(|known| known.collection_template == key.0)
        };
        if !keys.is_empty()
            && keys
                .iter()
                .all(|key| held_type(key) && !self.written_types.contains(&key.0))
        {
            self.unmodelled.extend(keys.iter().map(|key| key.0.clone()));
            return;
        }
        if self.unwritten_documents(keys, read) {
            return;
        }
        // The latest write is charged; when that is a write the replay could not follow, the
        // change may be its own, and no plan is charged.
        let latest = self
            .events
            .iter()
            .enumerate()
            .rev()
            .find(|(_, event)| !keys.contains(&event.key));
        if let Some((index, event)) = latest
            && self.blind_after.is_none_or(|blind| blind <= index)
            && let Some(draft) = event.draft
            && !(self.member_writes[draft] && self.first_shown(keys))
        {
            self.verdicts[draft].side_effect = true;
        }
    }

    /// Whether every key is an entity the replay never held: no write named it and the state the
    /// reads observed did not hold it (its reads came after the observation windows closed). A
    /// write of one member of another entity, or an update or delete of another entity its path
    /// names, cannot have made it, so such a read charges no such write.
    fn first_shown(&self, keys: &[Key]) -> bool {
        !keys.is_empty()
            && keys.iter().all(|key| {
                !self.last.contains_key(key)
                    && !self
                        .state
                        .entities
                        .iter()
                        .any(|entity| key_of(entity) == *key)
            })
    }

    /// Whether every key is a document no write tool writes (a database's overview of its
    /// tables and counts), whose difference then charges no write: a write naming nothing the
    /// state holds since its last read (a database created) explains it; else its view answers
    /// not modelled after a served write (named by its view).
    fn unwritten_documents(&mut self, keys: &[Key], read: u64) -> bool {
        let unwritten = |key: &Key| {
            key.0 == DOCUMENT_TYPE && !key.1.is_empty() && !self.written_documents.contains(&key.1)
        };
        if keys.is_empty() || !keys.iter().all(unwritten) {
            return false;
        }
        let explained = keys.iter().all(|key| {
            let since = self.document_checked.get(&key.1).copied().unwrap_or(0);
            self.untargeted
                .iter()
                .any(|write| *write > since && *write < read)
        });
        if !explained {
            self.unmodelled.extend(keys.iter().map(|key| key.1.clone()));
        }
        true
    }

    fn check_incomplete(&mut self, draft: usize, entity: &Entity) {
        for view in &self.state.views {
            let (shape, entity_type) = match &view.detail {
                ViewDetail::Item(item) => (&item.shape, &item.entity_type),
                // A parent's list never lists an entity naming no parent.
                ViewDetail::List(list) if names_no_parent(list, entity) => continue,
                ViewDetail::List(list) => (&list.shape, &list.entity_type),
                _ => continue,
            };
            if *entity_type != entity.entity_type {
                continue;
            }
            let rendered = render_entity(shape, &view.tool, entity);
            if missing_required(shape, &rendered).is_some() {
                self.verdicts[draft].incomplete = true;
            }
        }
    }
}

/// Whether a list lists the children of a parent (see [`crate::relations::ParentSegment`]) and
/// the entity holds no value in the field naming the parent.
fn names_no_parent(list: &crate::model::ListView, entity: &Entity) -> bool {
    list.parent.as_ref().is_some_and(|parent| {
        entity
            .fields
            .as_object()
            .is_none_or(|object| matches!(object.get(&parent.field), None | Some(Json::Null)))
    })
}

fn json_of(value: &Value) -> Json {
    Json::from_serde_value(value)
}

/// The key of an entity for confirmation.
fn key_of(entity: &Entity) -> Key {
    (
        entity.entity_type.clone(),
        collection_key(&entity.collection).to_owned(),
        entity.id.clone(),
    )
}

/// The key of a document for confirmation.
/// The type part of a document's key (its view names it).
const DOCUMENT_TYPE: &str = "document";

fn document_key(view: &str, path: &str) -> Key {
    (DOCUMENT_TYPE.to_owned(), view.to_owned(), path.to_owned())
}

/// Pass 4 (see the module docs).
#[allow(clippy::too_many_arguments)]
pub(crate) fn confirm(
    manifest: &Manifest,
    timeline: &Timeline,
    state: &StateView,
    views: &Views,
    drafts: &mut [Draft],
    calls: &[Call],
    rules: &RuleSet,
    records: &[CaptureRecord],
) -> Unmodelled {
    if drafts.iter().all(|draft| !draft.open()) {
        return Default::default();
    }
    let Ok(replay_environment) = Environment::new(
        manifest,
        &manifest.parent_evidence_id,
        records.iter().cloned(),
    ) else {
        return Default::default();
    };
    // The replay reads with the pipeline's query grammars (a read whose query a grammar splits,
    // `budget=60&budget__operator=gte`, is evaluated as served) and applies writes with the rules
    // passed to each call, never through the service.
    let reading = RuleSet::empty().with_query_grammars(rules.query_grammars().to_vec());
    let service = StateService::new(
        state.clone(),
        String::new(),
        replay_environment,
        records,
        Arc::new(reading),
    );
    let by_ordinal: HashMap<u64, &CaptureRecord> = records
        .iter()
        .map(|record| (record.ordinal, record))
        .collect();
    let call_of: HashMap<u64, usize> = calls
        .iter()
        .enumerate()
        .map(|(index, call)| (call.ordinal, index))
        .collect();
    let mut replay = Replay::new(manifest, state, views, drafts);
    for ordinal in &timeline.ordered {
        let Some(observation) = timeline.get(*ordinal) else {
            continue;
        };
        // Reads in their observation window seeded the state: they show no write.
        if observation.position < timeline.cutoff || timeline.is_checked(observation) {
            continue;
        }
        if timeline.is_write(manifest, observation.tool) {
            let call = call_of.get(ordinal).map(|index| &calls[*index]);
            if call.is_none() && replay_relationship(&mut replay, &service, drafts, observation) {
                continue;
            }
            if untargeted(drafts, observation.tool) {
                replay.untargeted.push(*ordinal);
            }
            replay_write_observed(&mut replay, &service, drafts, (observation, call), rules);
            continue;
        }
        if let Some(record) = by_ordinal.get(ordinal) {
            let checking = (&service, manifest, views, rules);
            check_recorded_read(&mut replay, checking, observation, record);
        }
    }
    settle_verdicts(drafts, &replay.verdicts, state);
    Unmodelled {
        types: replay.unmodelled,
        folders: replay.folder_types,
    }
}

/// Checks a read after a write by its view: a body query, a member view, or an item, list or
/// document view (a read of no view checks nothing).
fn check_recorded_read(
    replay: &mut Replay<'_>,
    (service, manifest, views, rules): (&StateService, &Manifest, &Views, &RuleSet),
    observation: &Observation,
    record: &CaptureRecord,
) {
    if let Some(body) = views.body_reads.get(&observation.tool) {
        let read = BodyRead {
            observation,
            record,
            scope: body,
        };
        check_body_read(replay, service, manifest, &read, rules);
    } else if let Some(member) = views.member_reads.get(&observation.tool) {
        check_member_read(replay, service, manifest, (observation, record), member);
    } else if let Some((entity_type, _)) = views.count_reads.get(&observation.tool) {
        check_count_read(
            replay,
            service,
            manifest,
            (observation, record),
            entity_type,
        );
    } else if let Some(scope) = views.scopes.get(&observation.tool).cloned() {
        check_read(replay, service, manifest, observation, record, &scope);
    }
}

/// A count view's read of a whole collection (no query; see [`crate::count_views`]): answered
/// through the state's read path, agreeing with the recording confirms the deletes of the
/// collection's entities no read has confirmed yet, as a whole list no longer listing them
/// would (the number counts every entity the collection holds). It confirms nothing else (a
/// count shows no entity's values) and blames nothing.
fn check_count_read(
    replay: &mut Replay<'_>,
    service: &StateService,
    manifest: &Manifest,
    (observation, record): (&Observation, &CaptureRecord),
    entity_type: &str,
) {
    let Some(parent) = crate::count_views::parent_path(&observation.segments) else {
        return;
    };
    if !observation.pairs().is_empty() {
        return;
    }
    let tool = &manifest.tools[observation.tool];
    let Some(answer) = state_answer(service, &tool.name, observation) else {
        return;
    };
    if !agrees_with(&answer, record, &[]) {
        return;
    }
    let group = (entity_type.to_owned(), collection_key(&parent).to_owned());
    let Some(pending) = replay.pending.get_mut(&group) else {
        return;
    };
    let mut confirmed: Vec<usize> = Vec::new();
    for events in pending.values_mut() {
        confirmed.extend(take_deletes(events, &replay.events));
    }
    pending.retain(|_, events| !events.is_empty());
    for event in confirmed {
        replay.confirm_event(event, observation.ordinal, Shown::Listed);
    }
}

/// Takes the delete events out of an entity's pending events (in their order), leaving the others.
fn take_deletes(events: &mut Vec<usize>, all: &[Event]) -> Vec<usize> {
    let (deletes, others): (Vec<usize>, Vec<usize>) =
        events.iter().partition(|event| all[**event].delete);
    *events = others;
    deletes
}

/// Replays a successful call of a relationship write that pass 2 observed no call of (no
/// target): its parent's member set as the learned model sets it; whether it applied.
fn replay_relationship(
    replay: &mut Replay<'_>,
    service: &StateService,
    drafts: &[Draft],
    observation: &Observation,
) -> bool {
    let Some(model) = drafts
        .iter()
        .find(|draft| draft.tool == observation.tool)
        .and_then(|draft| draft.plan.relationship.as_ref())
        .filter(|_| observation.is_success())
    else {
        return false;
    };
    let applied = super::relationship::replay(
        &mut service.write(),
        model,
        (&observation.segments, &observation.request),
    );
    let Some((entity_type, collection, id)) = applied else {
        return false;
    };
    let key = (entity_type, collection_key(&collection).to_owned(), id);
    replay.record_event(None, key, false);
    replay.adopted_after = Some(replay.events.len());
    true
}

/// Replays a write's call (when it has one), then sets the store counters where its recorded
/// answer shows them (a write the replay cannot follow stepped them too).
fn replay_write_observed(
    replay: &mut Replay<'_>,
    service: &StateService,
    drafts: &[Draft],
    (observation, call): (&Observation, Option<&Call>),
    rules: &RuleSet,
) {
    if let Some(call) = call {
        replay_write(replay, service, drafts, call, rules);
    }
    if let Some(body) = observation.success_body() {
        service.write().follow_counters(body);
    }
}

/// Each open plan's verdict: the first reason that withholds it, else served.
fn settle_verdicts(drafts: &mut [Draft], verdicts: &[Verdict], state: &StateView) {
    for (draft, verdict) in drafts.iter_mut().zip(verdicts) {
        if !draft.open() {
            continue;
        }
        draft.plan.confirmed_by = verdict.confirmed_by.clone();
        draft.plan.confirmed_by.sort_unstable();
        if let Some(reason) = verdict.failure {
            draft.plan.withhold(reason);
        } else if let Some(read) = verdict.contradicted_by {
            draft.plan.contradicted_by = Some(read);
            draft.plan.withhold("contradicted");
        } else if verdict.side_effect {
            draft.plan.withhold("side-effect");
        } else if verdict.confirmed_by.is_empty() {
            draft.plan.withhold("unconfirmed");
        } else if verdict.incomplete {
            draft.plan.withhold("incomplete-entities");
        } else if draft.plan.needs_clock() && state.write_clock.is_none() {
            draft.plan.withhold("unknown-clock");
        }
    }
}

/// Replays one write call: with its plan while the plan is a candidate, else (or when the plan
/// cannot apply) by adopting what the call was observed to leave.
fn replay_write(
    replay: &mut Replay<'_>,
    service: &StateService,
    drafts: &[Draft],
    call: &Call,
    rules: &RuleSet,
) {
    let draft = &drafts[call.draft];
    // A batch create (an array sent to a create learned from one-object calls) is adopted as
    // observed: the plan serves one object.
    let batch = draft.plan.effect == super::model::Effect::Create
        && !draft.plan.bulk
        && (super::observe::batch_call(call) || call.unknown_collection);
    if draft.open() && !batch && replay.verdicts[call.draft].failure.is_none() {
        match replay_planned(replay, service, draft, call, rules) {
            // A call whose recorded answer the plan does not reproduce did more than the plan
            // follows (a create nesting children its answer shows): like an adopted write, what
            // it did besides its entity is not followed.
            Ok(()) if replay.verdicts[call.draft].failure.is_some() => {
                replay.adopted_after = Some(replay.events.len());
                return;
            }
            Ok(()) => return,
            // An update or delete of an entity the state never held cannot be replayed with the
            // plan: it shows nothing against it, and is adopted as observed.
            Err("no-observation") if unheld(draft, call) => {}
            // A call sending a member the plan does not accept is one the served tool refuses:
            // it shows nothing against what the plan applies, and is adopted as observed.
            Err(UNACCEPTED) => {}
            Err(failure) => replay.verdicts[call.draft].failure = Some(failure),
        }
    }
    adopt_observed(replay, service, draft, call);
}

/// Whether a write tool's plan names nothing the state holds: no target, or one naming
/// neither a collection nor a document (a table or a database created).
fn untargeted(drafts: &[Draft], tool: usize) -> bool {
    drafts
        .iter()
        .find(|draft| draft.tool == tool)
        .is_some_and(|draft| {
            draft
                .plan
                .target
                .as_ref()
                .is_none_or(|target| target.collection.is_none() && target.document.is_none())
        })
}

/// Whether a call updated or deleted an entity the state did not hold before it.
fn unheld(draft: &Draft, call: &Call) -> bool {
    matches!(
        draft.plan.effect,
        super::model::Effect::Update | super::model::Effect::Delete
    ) && call.key.is_some()
        && call.before.is_none()
}

/// Where a replayed call's rule-explained values come from: its recorded outcome.
fn observed_values(call: &Call) -> Values<'_> {
    Values::Observed {
        after: match &call.after {
            After::Present(value) | After::Document(value) => Some(value),
            _ => None,
        },
        response: call
            .response
            .as_ref()
            .zip(call.response_pointer.as_ref())
            .and_then(|(response, pointer)| response.pointer(pointer)),
        clock: call.started.clone(),
        entities: call
            .bulk
            .iter()
            .map(|target| {
                (
                    target.id.clone(),
                    match &target.after {
                        After::Present(value) => Some(value),
                        _ => None,
                    },
                )
            })
            .collect(),
    }
}

/// A call learned from the one member its answer showed (see `Call::answered_member`): the
/// earlier write no read observed left the rest of its entity as the read after this call shows
/// it, so the replayed entity takes that rest before the plan applies (it is that write's, not
/// this call's).
fn adopt_outside_answered_member(service: &StateService, call: &Call) {
    let (Some(member), Some(before), Some((entity_type, collection, id))) =
        (&call.answered_member, &call.before, &call.key)
    else {
        return;
    };
    let mut live = service.write();
    let Some(held) = live
        .entity(entity_type, collection, id)
        .and_then(|entity| entity.fields.get(member))
        .cloned()
    else {
        return;
    };
    let mut fields = before.fields.clone();
    if let Json::Object(object) = &mut fields {
        object.insert(member, held);
    }
    adopt_entity(
        &mut live,
        entity_type,
        collection,
        id,
        &After::Present(fields),
    );
}

/// Why a replayed call is not applied with its plan: its body sends a member the plan's body
/// does not accept (see [`sends_unaccepted`]).
const UNACCEPTED: &str = "unaccepted-member";

/// Whether a call's body sends, inside the plan's envelope, a member the plan's body model does
/// not accept (one whose effect the plan did not learn: a served call sending it is refused).
fn sends_unaccepted(plan: &super::model::WritePlan, input: &WriteInput) -> bool {
    let (Some(model), Some(body)) = (&plan.body, &input.body) else {
        return false;
    };
    if model.bulk_ids.is_some()
        || model.none
        || plan
            .target
            .as_ref()
            .is_some_and(|target| target.member.is_some())
    {
        return false;
    }
    body.pointer(&model.envelope)
        .and_then(Json::as_object)
        .is_some_and(|members| {
            members.iter().any(|(name, _)| {
                !model.members.contains_key(name) && !model.options.contains_key(name)
            })
        })
}

/// The events of the entities a replayed call's change wrote (each checked complete when it
/// stays), linked to the earlier write of the entity when the call is confirmed together with
/// it (see [`super::together`]).
fn record_entity_events(replay: &mut Replay<'_>, call: &Call, change: &super::apply::Change) {
    for (before, after) in &change.entities {
        let Some(entity) = after.as_ref().or(before.as_ref()) else {
            continue;
        };
        if let Some(after) = after
            && !change.keep_deleted
        {
            replay.check_incomplete(call.draft, after);
        }
        let deleted = after.is_none() || change.keep_deleted;
        let key = key_of(entity);
        let previous = replay.last.get(&key).copied();
        replay.record_event(Some(call.draft), key.clone(), deleted);
        if let Some(event) = replay.events.last_mut() {
            event.created = before.is_none() && !deleted;
        }
        if call.together_with.is_some() {
            replay.link_together(&key, previous);
        }
    }
}

/// Replays a call with its plan, as serving applies it: the change is committed and its writes
/// recorded; a recorded answer the plan does not reproduce is `body-unusable`. The error is why
/// the plan cannot apply (the call is then adopted as observed).
fn replay_planned(
    replay: &mut Replay<'_>,
    service: &StateService,
    draft: &Draft,
    call: &Call,
    rules: &RuleSet,
) -> Result<(), &'static str> {
    let input = WriteInput {
        listed: None,
        query: call.query.clone().unwrap_or_default(),
        segments: call.segments.clone(),
        body: match call.recorded_request.as_ref().unwrap_or(&call.request) {
            RequestBody::Json(body) => Some(body.clone()),
            _ => None,
        },
    };
    if sends_unaccepted(&draft.plan, &input) {
        return Err(UNACCEPTED);
    }
    // A call confirmed together with the earlier write of its entity replays on what that
    // write's replay left (its plan's change, or what it was observed to leave).
    if call.together_with.is_none() {
        adopt_outside_answered_member(service, call);
    }
    let values = observed_values(call);
    let mut live = service.write();
    let change = match prepare(&draft.plan, rules, &live, &input, &values) {
        Ok(change) if !change.missing => change,
        Ok(_) => return Err("no-observation"),
        Err(refused) if refused.code == "not_found" => return Err("no-observation"),
        Err(_) => return Err("unexplained-change"),
    };
    // The recorded answer must come out as recorded (an upsert's creating call answers as the
    // creating calls did).
    let Some(optioned) = draft.plan.answering_options(input.body.as_ref()) else {
        return Err("body-unusable");
    };
    let created = (optioned.effect == super::model::Effect::Update && change.view == "create")
        .then(|| optioned.upsert_plan())
        .flatten();
    let answering = created.as_ref().unwrap_or(&optioned);
    if let Some(recorded) = &call.response
        && let Some(rendered) = render_response(answering, Some(recorded), &change)
        && rendered != *recorded
    {
        replay.verdicts[call.draft].failure = Some("body-unusable");
    }
    record_entity_events(replay, call, &change);
    if let Some(document) = &change.document {
        replay.record_event(
            Some(call.draft),
            document_key(&document.view, &document.path),
            false,
        );
    }
    for (before, after) in &change.dependents {
        replay.record_event(Some(call.draft), key_of(before), after.is_none());
    }
    commit(&mut live, &change);
    // The folders listing the written entity change too (a child's entry, their stamps).
    let held = |entity_type: &str, collection: &str, id: &str| {
        live.entity(entity_type, collection, id).is_some()
    };
    for key in sub_resource_of(&replay.item_paths, &call.segments, held) {
        if folder_lists_children(&live, &key) {
            replay.folders.insert(key);
        }
    }
    Ok(())
}

/// Whether a held entity is a folder: one of its members is an array of entries naming their
/// path below it (`{"path": "notes/todo.md"}` in `notes`, `{"key": "/config/web/theme"}` in
/// `web`).
fn folder_lists_children(live: &LiveState, key: &Key) -> bool {
    let (entity_type, collection, id) = key;
    let Some(entity) = live.entity(entity_type, collection, id) else {
        return false;
    };
    let Json::Object(fields) = &entity.fields else {
        return false;
    };
    let names_child = |text: &str| {
        let mut parts = text.trim_end_matches('/').rsplit('/');
        parts.next().is_some_and(|last| !last.is_empty()) && parts.next() == Some(id.as_str())
    };
    fields.iter().any(|(_, member)| match member {
        Json::Array(entries) => entries.iter().any(|entry| match entry {
            Json::Object(entry) => entry
                .iter()
                .any(|(_, value)| matches!(value, Json::String(text) if names_child(text))),
            _ => false,
        }),
        _ => false,
    })
}

/// Adopts what a call was observed to leave: each entity a bulk call named, the entity a call
/// wrote, or the document.
fn adopt_observed(replay: &mut Replay<'_>, service: &StateService, draft: &Draft, call: &Call) {
    let events = replay.events.len();
    adopt_observed_call(replay, service, draft, call);
    if replay.events.len() == events {
        replay.blind_after = Some(events);
    }
    replay.adopted_after = Some(replay.events.len());
}

/// Adopts one call (see [`adopt_observed`]), recording an event per entity or document it
/// changed.
fn adopt_observed_call(
    replay: &mut Replay<'_>,
    service: &StateService,
    draft: &Draft,
    call: &Call,
) {
    let mut live = service.write();
    let bulk_type = draft
        .plan
        .target
        .as_ref()
        .and_then(|target| target.entity_type.clone());
    // A relationship write learned from its reads sets its parent's member as it serves.
    let related = draft.plan.relationship.as_ref().and_then(|model| {
        let request = call.recorded_request.as_ref().unwrap_or(&call.request);
        super::relationship::replay(&mut live, model, (&call.segments, request))
    });
    // A to-many relationship write sets each named entity's linkage as it serves.
    let linked = draft.plan.to_many.as_ref().and_then(|model| {
        let request = call.recorded_request.as_ref().unwrap_or(&call.request);
        super::to_many::replay(&mut live, model, (&call.segments, request))
    });
    let links =
        draft.plan.links.as_ref().and_then(|model| {
            super::collection_links::replay(&mut live, (model, replay.views), call)
        });
    if let Some(keys) = links {
        for key in keys {
            let key = (key.0, collection_key(&key.1).to_owned(), key.2);
            replay.record_event(None, key, false);
        }
    } else if let Some(key) = related {
        let key = (key.0, collection_key(&key.1).to_owned(), key.2);
        replay.record_event(None, key, false);
    } else if let Some(keys) = linked {
        for key in keys {
            let key = (key.0, collection_key(&key.1).to_owned(), key.2);
            replay.record_event(None, key, false);
        }
    } else if let (true, Some(entity_type)) = (!call.bulk.is_empty(), bulk_type) {
        adopt_bulk(replay, &mut live, draft, call, &entity_type);
    } else if let Some((entity_type, collection, id)) = &call.key {
        let key = (
            entity_type.clone(),
            collection_key(collection).to_owned(),
            id.clone(),
        );
        let deleted = adopt_entity(&mut live, entity_type, collection, id, &call.after);
        replay.record_event(None, key, deleted);
    } else if let After::Document(value) = &call.after
        && let super::target::TargetKind::Document { view } = &draft.classified.kind
        && let Some(held) = live.document_under(view, &call.segments).cloned()
    {
        let mut document = held;
        document.value = value.clone();
        let key = document_key(view, &document.path);
        live.put_document(document);
        replay.record_event(None, key, false);
    } else if call.key.is_none() {
        // A write the state has no target for, below a held item's path (an attachment `PUT`
        // under its document), changes that item in ways the state does not model: the
        // change a later read shows is its own, not another write's.
        let held = |entity_type: &str, collection: &str, id: &str| {
            live.entity(entity_type, collection, id).is_some()
        };
        let items = sub_resource_of(&replay.item_paths, &call.segments, held);
        if items.is_empty() {
            // Elsewhere (a database created by `PUT /{db}`) it is still the latest write: a
            // disagreement after it that no entity explains is its own, never charged to an
            // earlier write as a side effect.
            replay.record_event(None, untargeted_key(call), false);
        }
        for key in items {
            replay.record_event(None, key, false);
        }
    }
}

/// The key an untargeted write's event is recorded under: no type holds it, so no read names it.
fn untargeted_key(call: &Call) -> Key {
    (
        "untargeted-write".to_owned(),
        call.segments.join("/"),
        call.ordinal.to_string(),
    )
}

/// The item views naming their entity by path: `(path template, type, identity pattern)`.
fn item_paths(manifest: &Manifest, views: &Views) -> Vec<(String, String, String)> {
    let mut paths: Vec<(String, String, String)> = views
        .scopes
        .iter()
        .filter_map(|(tool, scope)| match scope {
            Scope::Item(item) if item.key.is_path() => Some((
                manifest.tools.get(*tool)?.path_template.clone(),
                item.entity_type.clone(),
                item.id_pattern.clone(),
            )),
            _ => None,
        })
        .collect();
    paths.sort();
    paths.dedup();
    paths
}

/// The held entities whose item path a write's path extends (the write reaches a sub-resource
/// of each): `item_paths` as [`item_paths`] gives them, `held` says whether the state holds an
/// entity `(type, collection, id)`.
fn sub_resource_of(
    item_paths: &[(String, String, String)],
    segments: &[CompactString],
    held: impl Fn(&str, &str, &str) -> bool,
) -> Vec<Key> {
    let mut keys = Vec::new();
    for (template, entity_type, id_pattern) in item_paths {
        // The item's own segments (a trailing slash, `/books/{id}/`, names no segment).
        let template_segments = split_path(template);
        let item = crate::derive::entities::item_segments(&template_segments);
        let length = item.len();
        if length == 0 || segments.len() <= length {
            continue;
        }
        let named = &segments[..length];
        if !crate::derive::windows::path_fits(&format!("/{}", item.join("/")), named) {
            continue;
        }
        let Some((last, rest)) = named.split_last() else {
            continue;
        };
        let collection = format!("/{}", rest.join("/"));
        let id = decoded(template_value(id_pattern, last));
        if held(entity_type, &collection, &id) {
            let key = (
                entity_type.clone(),
                collection_key(&collection).to_owned(),
                id,
            );
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
    }
    keys
}

/// Adopts what a bulk call left each entity it named.
fn adopt_bulk(
    replay: &mut Replay<'_>,
    live: &mut LiveState,
    draft: &Draft,
    call: &Call,
    entity_type: &str,
) {
    let segments = draft
        .plan
        .target
        .as_ref()
        .map_or(0, |target| target.collection_segments);
    // A batch its calls linked names its collection in its key; a bulk path, by its segments.
    let collection = match &call.key {
        Some((_, collection, _)) => collection.clone(),
        None => format!(
            "/{}",
            call.segments[..segments.min(call.segments.len())].join("/")
        ),
    };
    for target in &call.bulk {
        let key = (
            entity_type.to_owned(),
            collection_key(&collection).to_owned(),
            target.id.clone(),
        );
        match &target.after {
            After::Present(_) => {
                adopt_entity(live, entity_type, &collection, &target.id, &target.after);
                replay.record_event(None, key, false);
            }
            After::Absent => {
                live.remove_entity(entity_type, &collection, &target.id);
                replay.record_event(None, key, true);
            }
            _ => replay.record_event(None, key, false),
        }
    }
}

/// Adopts what a call left its entity; whether it deleted it.
fn adopt_entity(
    live: &mut LiveState,
    entity_type: &str,
    collection: &str,
    id: &str,
    after: &After,
) -> bool {
    match after {
        After::Present(value) => {
            let held = live.entity(entity_type, collection, id).cloned();
            let entity = Entity {
                entity_type: entity_type.to_owned(),
                collection: held
                    .as_ref()
                    .map_or_else(|| collection.to_owned(), |held| held.collection.clone()),
                id: id.to_owned(),
                fields: value.clone(),
                view_fields: held.map(|held| held.view_fields).unwrap_or_default(),
                record_ordinals: Vec::new(),
            };
            if live.entity(entity_type, collection, id).is_some() {
                live.update_entity(entity, None);
            } else {
                live.insert_entity(entity, &Position::Last);
            }
            false
        }
        After::Absent => {
            live.remove_entity(entity_type, collection, id);
            true
        }
        _ => false,
    }
}

/// A read after the first write, answered through the state's own read path and compared with
/// its recording (status and body).
struct Checked<'a> {
    /// The read.
    observation: &'a Observation,
    /// Its tool.
    tool: &'a str,
    /// The state's answer.
    answer: StateAnswer,
    /// Whether it agrees with the recording.
    agrees: bool,
    /// The recording.
    record: &'a CaptureRecord,
    /// The members each answer mints, set aside when comparing.
    minted: &'a [String],
}

fn check_read(
    replay: &mut Replay<'_>,
    service: &StateService,
    manifest: &Manifest,
    observation: &Observation,
    record: &CaptureRecord,
    scope: &Scope,
) {
    let tool = &manifest.tools[observation.tool];
    let Some(answer) = state_answer(service, &tool.name, observation) else {
        return;
    };
    let minted = match scope {
        Scope::Item(item) => item.minted.as_slice(),
        Scope::List(_, list) => list.minted.as_slice(),
        Scope::Document(_) => &[],
    };
    let agrees = agrees_with(&answer, record, minted);
    let checked = Checked {
        observation,
        tool: &tool.name,
        answer,
        agrees,
        record,
        minted,
    };
    match scope {
        Scope::Item(item) => check_item_read(replay, service, &checked, item),
        Scope::List(entity_type, list) => {
            check_list_read(replay, service, &checked, entity_type, list);
        }
        Scope::Document(view) => check_document_read(replay, service, &checked, view),
    }
}

/// The state's answer to a recorded read, through its own read path; `None` when it is answered
/// from a recording or refused as a read the state does not model (then it checks nothing).
fn state_answer(
    service: &StateService,
    tool: &str,
    observation: &Observation,
) -> Option<StateAnswer> {
    let definition = service.replay().tool(tool)?;
    let arguments = arguments_for(definition, &observation.segments, observation.pairs());
    let answer = service.answer_with(tool, (&arguments, None), false);
    (!answer.is_not_modelled() && (answer.is_error() || answer.is_from_state())).then_some(answer)
}

/// Whether the state's answer is the recorded one (its status and body, the members each answer
/// mints set aside).
fn agrees_with(answer: &StateAnswer, record: &CaptureRecord, minted: &[String]) -> bool {
    let (recorded_status, recorded_body) = recorded_answer(record);
    !answer.is_error()
        && answer.status() == recorded_status
        && answer
            .body_value()
            .is_some_and(|body| same_answer(body, recorded_body, minted))
}

/// A member view's read (see [`super::member`]): answered through the state's read path,
/// agreeing with the recording confirms the last write of the entity it names, disagreeing
/// blames it. A read answered from a recording checks nothing.
fn check_member_read(
    replay: &mut Replay<'_>,
    service: &StateService,
    manifest: &Manifest,
    (observation, record): (&Observation, &CaptureRecord),
    member: &super::member::MemberScope,
) {
    let tool = &manifest.tools[observation.tool];
    let Some(answer) = state_answer(service, &tool.name, observation) else {
        return;
    };
    let Some(spelled) = observation.segments.get(member.entity_segment) else {
        return;
    };
    let held = |id: &str| {
        service
            .read()
            .entity(&member.entity_type, &member.collection, id)
            .is_some()
    };
    let decoded_id = decoded(spelled);
    let id = if held(&decoded_id) || !held(spelled) {
        decoded_id
    } else {
        spelled.to_string()
    };
    let agrees = agrees_with(&answer, record, &[]);
    let key: Key = (member.entity_type.clone(), member.collection.clone(), id);
    checked_by_id(replay, &key, agrees, observation.ordinal);
}

/// A body-query read whose body names one entity alone (`{"key": …}`, as an RPC-style write
/// names it) reads that entity: agreeing with the recording confirms its last write, disagreeing
/// blames it (the state then takes the entity as the read listed it, or gone when it listed
/// none). A body naming anything else (a range, a filter) is not checked.
fn check_body_read(
    replay: &mut Replay<'_>,
    service: &StateService,
    manifest: &Manifest,
    read: &BodyRead<'_>,
    rules: &RuleSet,
) {
    let BodyRead {
        observation, scope, ..
    } = *read;
    let entity_type = &scope.entity_type;
    let Some(identity) = replay
        .views
        .types
        .get(entity_type)
        .map(|info| &info.identity)
    else {
        return;
    };
    let Some(id) = super::observe::named_alone(&observation.request, identity) else {
        return;
    };
    let collection = {
        let live = service.read();
        crate::derive::body_queries::enclosing_collection(
            live.collections_of(entity_type),
            &observation.path,
        )
        .map(str::to_owned)
    };
    let Some(collection) = collection.filter(|_| observation.is_success()) else {
        return;
    };
    let Some(agrees) = body_read_agrees(service, manifest, read, rules) else {
        return;
    };
    let key: Key = (
        entity_type.clone(),
        collection_key(&collection).to_owned(),
        id,
    );
    if !checked_by_id(replay, &key, agrees, observation.ordinal) {
        let listed = match members(observation, &scope.list_pointer) {
            [] => None,
            [object] => Some(object.clone()),
            _ => return,
        };
        resync_listed(&mut service.write(), &key, &collection, listed);
    }
}

/// Whether the state answers a body read as recorded, its body sent as the tool's body argument
/// and read by the pipeline's grammars (`None`: the state does not answer it).
fn body_read_agrees(
    service: &StateService,
    manifest: &Manifest,
    read: &BodyRead<'_>,
    rules: &RuleSet,
) -> Option<bool> {
    let (observation, record) = (read.observation, read.record);
    let RequestBody::Json(body) = &observation.request else {
        return None;
    };
    let tool = &manifest.tools[observation.tool];
    let definition = service.replay().tool(&tool.name)?;
    let Some(ViewDetail::BodyQuery(view)) =
        service.derived().view(&tool.name).map(|view| &view.detail)
    else {
        return None;
    };
    let mut arguments = arguments_for(definition, &observation.segments, observation.pairs());
    let argument = definition
        .input_schema
        .arguments
        .iter()
        .find(|argument| argument.target == ArgumentTarget::Body)?;
    arguments.insert(argument.name.clone(), body.to_serde_value().ok()?);
    let call = crate::call::Call::resolve(definition, &arguments);
    let answer = service
        .answer_body_query_with(rules, &tool.path_template, view, &call, false)
        .ok()?;
    let (recorded_status, recorded_body) = recorded_answer(record);
    Some(
        answer.status() == recorded_status
            && answer
                .body_value()
                .is_some_and(|body| same_answer(body, recorded_body, &[])),
    )
}

/// A record's answer as the state's answers are compared with it: its status and body.
fn recorded_answer(record: &CaptureRecord) -> (Option<u16>, Value) {
    let status = (record.response.status != 0).then_some(record.response.status);
    let body =
        rea_manifest::body::interpret(&record.response.body, record.response.media_type.as_deref())
            .body
            .to_value();
    (status, body)
}

/// A body-query read the replay checks: its observation, its record and the view's scope.
#[derive(Clone, Copy)]
struct BodyRead<'a> {
    observation: &'a Observation,
    record: &'a CaptureRecord,
    scope: &'a super::BodyScope,
}

/// Resync after a body read: the entity as it listed it, or gone.
fn resync_listed(live: &mut LiveState, key: &Key, collection: &str, listed: Option<Json>) {
    let (entity_type, id) = (&key.0, &key.2);
    let Some(object) = listed else {
        live.remove_entity(entity_type, collection, id);
        return;
    };
    match live.entity(entity_type, collection, id).cloned() {
        Some(mut held) => {
            held.fields = object;
            live.update_entity(held, None);
        }
        None => live.insert_entity(
            Entity {
                entity_type: entity_type.clone(),
                collection: collection.to_owned(),
                id: id.clone(),
                fields: object,
                view_fields: BTreeMap::new(),
                record_ordinals: Vec::new(),
            },
            &Position::Last,
        ),
    }
}

/// Whether the state's answer is the recorded one, the envelope members each answer minted
/// (which the view's verification set aside: a row page's measured `query_ms`) aside.
fn same_answer(mut answered: Value, mut recorded: Value, minted: &[String]) -> bool {
    for pointer in minted {
        // The member's object (the root, or one an envelope nests: `/data/@etag`), then the
        // member.
        let Some((parent, last)) = pointer.rsplit_once('/') else {
            continue;
        };
        let member = rea_plugin_api::json::unescape_pointer_segment(last);
        for body in [&mut answered, &mut recorded] {
            if let Some(object) = body.pointer_mut(parent).and_then(Value::as_object_mut) {
                object.remove(&member);
            }
        }
    }
    answered == recorded
}

/// An item read confirms the last write of the entity it shows, or disagrees about it (the
/// state then takes the entity as the read showed it).
fn check_item_read(
    replay: &mut Replay<'_>,
    service: &StateService,
    checked: &Checked<'_>,
    item: &super::ItemScope,
) {
    let observation = checked.observation;
    let entity_type = &item.entity_type;
    let Some(identity) = replay
        .views
        .types
        .get(entity_type)
        .map(|info| info.identity.clone())
    else {
        return;
    };
    let Some((collection, id)) = item.named(&identity, observation, false) else {
        return;
    };
    let key: Key = (
        entity_type.clone(),
        collection_key(&collection).to_owned(),
        id,
    );
    if !checked_by_id(replay, &key, checked.agrees, observation.ordinal) {
        resync_item(&mut service.write(), item, &key, observation);
    }
}

/// A read showing one entity (or document): agreeing confirms its last write, disagreeing blames
/// it. Whether it agreed.
fn checked_by_id(replay: &mut Replay<'_>, key: &Key, agrees: bool, read: u64) -> bool {
    if agrees {
        if let Some(event) = replay.last.get(key).copied() {
            replay.confirm_event(event, read, Shown::ById);
        }
    } else {
        replay.blame(std::slice::from_ref(key), None, read, Shown::ById);
    }
    agrees
}

/// Whether a read's recording is a client error other than a missing path (`404`, `410`).
fn refused_query(observation: &Observation) -> bool {
    (400..500).contains(&observation.status) && !matches!(observation.status, 404 | 410)
}

/// Resync: the entity as the read showed it (gone when the read found none).
fn resync_item(
    live: &mut LiveState,
    item: &super::ItemScope,
    key: &Key,
    observation: &Observation,
) {
    let (entity_type, collection, id) = (&item.entity_type, &key.1, &key.2);
    if !observation.is_success() {
        if matches!(observation.status, 404 | 410) {
            live.remove_entity(entity_type, collection, id);
        }
        return;
    }
    let shown = observation
        .body
        .as_ref()
        .and_then(|body| item.shown(body))
        .filter(|object| !crate::derive::marked_deleted(object));
    resync_listed(live, key, collection, shown);
}

/// A list read of one collection: the entities it lists, and where each lives.
struct ListedRead<'a> {
    service: &'a StateService,
    entity_type: &'a str,
    /// The list's own collection key.
    collection: String,
    /// Whether the list's path is its type's collection (else a list of another path, such as
    /// `/posts/5/comments`, whose members live in the collections the state holds them in).
    fits: bool,
    /// The ids it recorded, in order.
    recorded_ids: Vec<String>,
}

impl ListedRead<'_> {
    /// The collection a listed entity lives in: the list's own, or, for a list of another path
    /// (`/posts/5/comments`, `/recipes/default/tiddlers.json`), the one the state holds it in.
    fn member_collection(&self, id: &str) -> String {
        if self.fits {
            return self.collection.clone();
        }
        let live = self.service.read();
        live.collections_of(self.entity_type)
            .into_iter()
            .find(|held| live.entity(self.entity_type, held, id).is_some())
            .map_or_else(
                || self.collection.clone(),
                |held| collection_key(held).to_owned(),
            )
    }
}

/// A list read confirms the writes of the entities it lists (a whole list also the deletes of
/// entities it no longer lists), or disagrees about the entities it shows otherwise (a whole list
/// then resyncs the collection).
fn check_list_read(
    replay: &mut Replay<'_>,
    service: &StateService,
    checked: &Checked<'_>,
    entity_type: &str,
    list: &super::ListInfo,
) {
    let observation = checked.observation;
    let identity = replay
        .views
        .types
        .get(entity_type)
        .map(|info| info.identity.clone())
        .unwrap_or_default();
    let listed_collection = crate::derive::lists::listed_collection(&observation.path, entity_type);
    let listed = ListedRead {
        service,
        entity_type,
        fits: listed_collection.is_some(),
        collection: collection_key(listed_collection.as_deref().unwrap_or(&observation.path))
            .to_owned(),
        recorded_ids: members(observation, &list.list_pointer)
            .iter()
            .filter_map(|member| crate::render::identity_text(member, &identity))
            .collect(),
    };
    let whole = matches!(
        checked.answer.source(),
        Some(StateSource::State {
            membership: Some("all"),
            ..
        })
    );
    if checked.agrees {
        confirm_listed(replay, &listed, whole, observation.ordinal);
        counted::confirm_counted_creates(replay, service, checked, &listed);
        return;
    }
    // A list read the application refused for its query (a 400, not a missing path) shows
    // nothing of the entities: the state answering it otherwise is the query's refusal, not a
    // write's effect (dynamic-rest's `filter{priority}=high` after the writes).
    if refused_query(observation) {
        return;
    }
    // A whole list of another path than its entities' collection (`/projects/4/tasks` of
    // tasks held in `/tasks`) lists what the state holds elsewhere by a membership it does not
    // model: like a query's, its extra entities shown as held are no write's effect.
    let other_path = whole && !listed.fits;
    if (!whole || other_path) && membership_only(replay, service, checked, &listed, list, &identity)
    {
        // The query's own semantics (which entities pass it), not a write's effect.
        tracing::debug!(
            read = observation.ordinal,
            "a list read differs in membership only"
        );
        return;
    }
    let differing = differing_members(checked, &listed, list, &identity);
    let group = (entity_type.to_owned(), listed.collection.clone());
    replay.blame(&differing, Some(&group), observation.ordinal, Shown::Listed);
    if whole {
        // What it disagrees about is the listed entities' writes; the deletes of entities it
        // no longer lists show their effect all the same.
        confirm_unlisted_deletes(replay, &listed, &differing, observation.ordinal);
        // Resync: the collection as the read listed it.
        let mut live = service.write();
        let held: Vec<String> = live
            .collection(entity_type, &listed.collection)
            .iter()
            .map(|entity| entity.id.clone())
            .collect();
        for id in held {
            if !listed.recorded_ids.contains(&id) {
                live.remove_entity(entity_type, &listed.collection, &id);
            }
        }
        live.reorder_collection(entity_type, &listed.collection, &listed.recorded_ids);
    }
}

/// The writes of the entities an agreeing list read lists; a whole list also confirms deletes.
fn confirm_listed(replay: &mut Replay<'_>, listed: &ListedRead<'_>, whole: bool, read: u64) {
    let group = (listed.entity_type.to_owned(), listed.collection.clone());
    let mut pending = replay.pending.remove(&group).unwrap_or_default();
    let mut confirmed: Vec<usize> = Vec::new();
    for id in &listed.recorded_ids {
        if let Some(events) = pending.remove(id) {
            confirmed.extend(events);
        } else if !listed.fits {
            let elsewhere = (listed.entity_type.to_owned(), listed.member_collection(id));
            if let Some(events) = replay
                .pending
                .get_mut(&elsewhere)
                .and_then(|pending| pending.remove(id))
            {
                confirmed.extend(events);
            }
        }
    }
    if whole {
        pending.retain(|_, events| {
            let (deletes, others): (Vec<usize>, Vec<usize>) = events
                .iter()
                .partition(|event| replay.events[**event].delete);
            confirmed.extend(deletes);
            *events = others;
            !events.is_empty()
        });
    }
    for event in confirmed {
        replay.confirm_event(event, read, Shown::Listed);
    }
    replay.pending.insert(group, pending);
}

/// A disagreeing whole list still confirms the deletes of the entities it no longer lists
/// (the answer, replayed, lists none of them either): the difference is about entities it shows,
/// blamed on their writes. A deleted entity the disagreement names confirms nothing.
fn confirm_unlisted_deletes(
    replay: &mut Replay<'_>,
    listed: &ListedRead<'_>,
    differing: &[Key],
    read: u64,
) {
    let group = (listed.entity_type.to_owned(), listed.collection.clone());
    let Some(pending) = replay.pending.get_mut(&group) else {
        return;
    };
    let named = |id: &str| {
        listed.recorded_ids.iter().any(|listed| listed == id)
            || differing.iter().any(|key| key.0 == group.0 && key.2 == id)
    };
    let mut confirmed: Vec<usize> = Vec::new();
    for (id, events) in pending.iter_mut() {
        if named(id) {
            continue;
        }
        confirmed.extend(take_deletes(events, &replay.events));
    }
    pending.retain(|_, events| !events.is_empty());
    for event in confirmed {
        replay.confirm_event(event, read, Shown::Listed);
    }
}

/// Which entities a disagreeing list answer shows otherwise than the recording: those at a
/// position where the answer and the recording differ.
fn differing_members(
    checked: &Checked<'_>,
    listed: &ListedRead<'_>,
    list: &super::ListInfo,
    identity: &str,
) -> Vec<Key> {
    let answered = answered_members(checked, list).unwrap_or_default();
    let recorded_members = members(checked.observation, &list.list_pointer);
    let mut differing: Vec<Key> = Vec::new();
    let length = answered.len().max(recorded_members.len());
    for position in 0..length {
        let left = answered.get(position);
        let right = recorded_members.get(position);
        if left == right {
            continue;
        }
        for member in [left, right].into_iter().flatten() {
            if let Some(id) = crate::render::identity_text(member, identity) {
                let key = (
                    listed.entity_type.to_owned(),
                    listed.member_collection(&id),
                    id,
                );
                if !differing.contains(&key) {
                    differing.push(key);
                }
            }
        }
    }
    differing
}

/// The members the state's answer to a list read lists.
fn answered_members(checked: &Checked<'_>, list: &super::ListInfo) -> Option<Vec<Json>> {
    checked
        .answer
        .body_value()
        .as_ref()
        .map(json_of)
        .and_then(|body| body.pointer(&list.list_pointer).cloned())
        .and_then(|list| list.as_array().cloned())
}

/// Whether a list read of a query disagrees with the state's answer only about which entities
/// pass the query: it lists every entity the state's answer lists, in the same order among
/// them and rendered alike, and lists besides only entities the state holds exactly as the read
/// shows them (rendered by the list's view). Every entity's content then agrees with the
/// application, so no write is to blame: the query's evaluation differs (such as an equality
/// filter the application passes for an entity lacking the member).
fn membership_only(
    replay: &Replay<'_>,
    service: &StateService,
    checked: &Checked<'_>,
    listed: &ListedRead<'_>,
    list: &super::ListInfo,
    identity: &str,
) -> bool {
    let Some(shape) = replay
        .state
        .views
        .iter()
        .find_map(|view| match &view.detail {
            ViewDetail::List(list_view) if view.tool == checked.tool => Some(&list_view.shape),
            _ => None,
        })
    else {
        return false;
    };
    let Some(answered) = answered_members(checked, list) else {
        return false;
    };
    let recorded = members(checked.observation, &list.list_pointer);
    if answered.len() >= recorded.len() {
        return false;
    }
    let id_of = |member: &Json| crate::render::identity_text(member, identity);
    let mut shared = answered.iter().peekable();
    for member in recorded.iter() {
        if shared.peek().is_some_and(|next| *next == member) {
            shared.next();
            continue;
        }
        let Some(id) = id_of(member) else {
            return false;
        };
        if answered
            .iter()
            .any(|other| id_of(other).as_ref() == Some(&id))
        {
            return false;
        }
        let collection = listed.member_collection(&id);
        let live = service.read();
        let held = live.entity(listed.entity_type, &collection, &id);
        if held.is_none_or(|entity| render_entity(shape, checked.tool, entity) != *member) {
            return false;
        }
    }
    shared.peek().is_none()
}

/// A document read confirms the document's last write, or disagrees (the state then takes the
/// document as the read showed it).
fn check_document_read(
    replay: &mut Replay<'_>,
    service: &StateService,
    checked: &Checked<'_>,
    view: &str,
) {
    let observation = checked.observation;
    let path = service
        .read()
        .document_under(view, &observation.segments)
        .map_or_else(|| observation.path.to_string(), |held| held.path.clone());
    let key = document_key(view, &path);
    let agrees = checked_by_id(replay, &key, checked.agrees, observation.ordinal);
    replay
        .document_checked
        .insert(view.to_owned(), observation.ordinal);
    if agrees {
        return;
    }
    if let Some(body) = &observation.body {
        let mut live = service.write();
        if let Some(held) = live.document(view, &path).cloned() {
            let mut document = held;
            document.value = body.clone();
            live.put_document(document);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::json::parse;

    #[test]
    fn only_a_query_the_application_refused_is_a_refused_query() {
        let mut read = crate::test_support::read_observation(0, "/api/tasks/", &[], "[\"\"]");
        for (status, refused) in [
            (400, true),
            (422, true),
            (404, false),
            (410, false),
            (200, false),
            (500, false),
        ] {
            read.status = status;
            assert_eq!(refused_query(&read), refused, "{status}");
        }
    }

    fn segments(path: &str) -> Vec<CompactString> {
        path.trim_start_matches('/')
            .split('/')
            .map(CompactString::from)
            .collect()
    }

    fn item_paths() -> Vec<(String, String, String)> {
        vec![(
            "/db/{docid}".to_owned(),
            "/db".to_owned(),
            "{docid}".to_owned(),
        )]
    }

    #[test]
    fn a_path_below_a_held_item_names_that_item() {
        let held = |entity_type: &str, collection: &str, id: &str| {
            (entity_type, collection, id) == ("/db", "/db", "book 1")
        };
        let keys = sub_resource_of(&item_paths(), &segments("/db/book%201/cover.png"), held);
        assert_eq!(
            keys,
            vec![("/db".to_owned(), "/db".to_owned(), "book 1".to_owned())]
        );
    }

    #[test]
    fn an_item_path_with_a_trailing_slash_names_the_item_a_path_below_it_reaches() {
        let held = |_: &str, collection: &str, id: &str| (collection, id) == ("/books", "1");
        let paths = vec![(
            "/books/{numeric}/".to_owned(),
            "/books".to_owned(),
            "{numeric}".to_owned(),
        )];
        let keys = sub_resource_of(&paths, &segments("/books/1/relationships/borrower"), held);
        assert_eq!(
            keys,
            vec![("/books".to_owned(), "/books".to_owned(), "1".to_owned())]
        );
    }

    #[test]
    fn the_item_itself_an_unheld_item_and_another_collection_name_none() {
        let held_all = |_: &str, _: &str, _: &str| true;
        let held_none = |_: &str, _: &str, _: &str| false;
        let paths = item_paths();
        assert!(sub_resource_of(&paths, &segments("/db/book1"), held_all).is_empty());
        assert!(sub_resource_of(&paths, &segments("/db/book1/cover"), held_none).is_empty());
        assert!(sub_resource_of(&paths, &segments("/other/book1/cover"), held_all).is_empty());
    }

    #[test]
    fn minted_envelope_members_are_set_aside_and_nothing_else() {
        let recorded = serde_json::json!({"ok": true, "rows": [{"id": 1}], "query_ms": 14.5});
        let answered = serde_json::json!({"ok": true, "rows": [{"id": 1}], "query_ms": 17.3});
        let minted = ["/query_ms".to_owned()];
        assert!(same_answer(answered.clone(), recorded.clone(), &minted));
        assert!(!same_answer(answered.clone(), recorded.clone(), &[]));
        let other_row = serde_json::json!({"ok": true, "rows": [{"id": 2}], "query_ms": 14.5});
        assert!(!same_answer(other_row, recorded, &minted));
    }

    #[test]
    fn a_minted_member_an_envelope_nests_is_set_aside() {
        let recorded = serde_json::json!({"data": {"id": "7", "@etag": "\"a\"", "type": "t"}});
        let answered = serde_json::json!({"data": {"id": "7", "@etag": "\"b\"", "type": "t"}});
        let minted = ["/data/@etag".to_owned()];
        assert!(same_answer(answered.clone(), recorded.clone(), &minted));
        let other = serde_json::json!({"data": {"id": "7", "@etag": "\"a\"", "type": "u"}});
        assert!(!same_answer(other, recorded, &minted));
    }

    fn held(id: &str, fields: &str) -> (LiveState, Key) {
        let entity = Entity {
            entity_type: "/api/contents".into(),
            collection: "/api/contents".into(),
            id: id.into(),
            fields: parse(fields.as_bytes()).expect("json"),
            view_fields: BTreeMap::new(),
            record_ordinals: Vec::new(),
        };
        let key = key_of(&entity);
        (LiveState::new(vec![entity], Vec::new()), key)
    }

    #[test]
    fn a_folder_lists_entries_naming_their_path_below_it() {
        // Jupyter's folder model: `content` holds entries named by `path`.
        let (live, key) = held(
            "notes",
            r#"{"path":"notes","content":[{"name":"todo.md","path":"notes/todo.md"}]}"#,
        );
        assert!(folder_lists_children(&live, &key));
        // etcd's directory node: `nodes` holds entries named by `key`.
        let (live, key) = held(
            "web",
            r#"{"key":"/config/web","nodes":[{"key":"/config/web/theme","value":"dark"}]}"#,
        );
        assert!(folder_lists_children(&live, &key));
    }

    #[test]
    fn an_item_whose_arrays_name_nothing_below_it_is_no_folder() {
        for fields in [
            // A file: its content is text.
            r#"{"path":"notes/todo.md","content":"To do"}"#,
            // An empty folder shows no child.
            r#"{"path":"notes","content":[]}"#,
            // Entries naming paths elsewhere (a sibling folder's, the folder itself).
            r#"{"content":[{"path":"reports/q3.md"},{"path":"notes"}]}"#,
            // Scalars in the array.
            r#"{"tags":["notes/x"]}"#,
        ] {
            let (live, key) = held("notes", fields);
            assert!(!folder_lists_children(&live, &key), "{fields}");
        }
        // An entity the state does not hold.
        let (live, _) = held("notes", "{}");
        let other = (
            "/api/contents".into(),
            "/api/contents".into(),
            "data".into(),
        );
        assert!(!folder_lists_children(&live, &other));
    }
}

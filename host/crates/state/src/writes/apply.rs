//! Applying a write plan to a live state: the one function the confirmation replay and serving
//! share, so what the capture confirmed is what a served call does.
//!
//! [`prepare`] computes the change without touching the state (every refusal happens there: an
//! entity the state does not hold, a rule that cannot apply, a bulk id the state lacks, a created
//! id already held); [`commit`] installs it. Values rules explain come from the rules' `apply`
//! when serving, and from the recorded outcome when replaying (after the rules learned that
//! every recorded value fits them), so the replay checks the plan's composition, its placement
//! and its answer, not values an application generated at random.
//!
//! A served call's rule calls can be made apart from the change ([`RuleCalls`]): noted on a
//! read view of the state, made with no lock held, and their answers handed to the `prepare`
//! that runs under the write lock (see [`crate::writes::serve`]).

use rea_plugin_api::contracts::capture::CompactString;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;

use rea_plugin_api::contracts::rule::{
    ApplyOutcome, ApplyRequest, DependentEffect, Held, HeldIndexKind, Placement, ServedCall,
    ToolRef,
};
use rea_plugin_api::json::{Json, Object};
use serde_json::Value;

use super::model::{Effect, FieldModel, PlanRule, ResponseKind, ResponseModel, WritePlan};
use crate::derive::entities::collection_key;
use crate::held::HeldAnswers;
use crate::model::{Document, Entity};
use crate::observation::decoded;
use crate::render::{pointer_mut, scalar_text, with_value_at};
use crate::rules::{Pending, RuleSet, RuleStep};
use crate::store::{LiveState, Position, compare_values};

/// A write call's inputs: the path segments as given, the body as sent, the query pairs.
#[derive(Debug, Clone, Default)]
pub struct WriteInput {
    /// The path's segments.
    pub segments: Vec<CompactString>,
    /// The body.
    pub body: Option<Json>,
    /// The entity the state holds only as a row of its folder's listing at the call's path (see
    /// `listed.rs`): an update or delete of the path reaches it as the entity before.
    pub listed: Option<Entity>,
    /// The query pairs a write selecting its entities by its query sent (see
    /// [`super::selected`]); empty for any other write.
    pub query: Vec<(String, String)>,
}

/// Where rule-explained values come from.
#[derive(Debug, Clone)]
pub enum Values<'a> {
    /// Replaying a recorded call: its recorded outcome (the entity after, and the answer's entity
    /// object) supplies them; `clock` is the record's start.
    Observed {
        /// The entity as recorded after the call.
        after: Option<&'a Json>,
        /// The answer's entity object.
        response: Option<&'a Json>,
        /// The record's start instant.
        clock: Option<String>,
        /// For a bulk call, each entity it named (by id) as recorded after the call.
        entities: Vec<(String, Option<&'a Json>)>,
    },
    /// Serving a call.
    Served {
        /// The served clock of this write.
        clock: Option<String>,
        /// The state Evidence id.
        state_evidence_id: &'a str,
        /// What generated values derive from ([`crate::StateService::draw_seed`]).
        draw_seed: &'a str,
        /// How its rule calls are made.
        calls: &'a RuleCalls,
    },
}

/// How a served call's rule calls are made.
#[derive(Debug, Default)]
pub enum RuleCalls {
    /// Made when `prepare` reaches them (each started on its stage's lane and waited for).
    #[default]
    Now,
    /// Only noted, each answered with no change: the calls a write makes, found without making
    /// them (on a read view of the state).
    Noted(RefCell<Vec<NotedCall>>),
    /// Answered before, in the order `prepare` makes them; a call that is not the one answered
    /// next (or one past them) is made now.
    Answered(RefCell<VecDeque<(ApplyRequest, Result<ApplyOutcome, String>)>>),
}

/// A rule call noted: its stage, its request and the held-index answers it gets.
#[derive(Debug)]
pub struct NotedCall {
    step: Arc<dyn RuleStep>,
    request: ApplyRequest,
    held: Option<HeldAnswers>,
}

impl RuleCalls {
    /// Calls to note.
    pub fn noting() -> Self {
        Self::Noted(RefCell::default())
    }

    /// The calls noted, started together (on the stages' shared lane: one hand-off) and each
    /// waited for; no lock is held meanwhile. `None` when none was noted.
    pub fn answer(self) -> Option<Self> {
        let Self::Noted(noted) = self else {
            return None;
        };
        let noted = noted.into_inner();
        if noted.is_empty() {
            return None;
        }
        let started: Vec<(ApplyRequest, Pending<ApplyOutcome>)> = noted
            .into_iter()
            .map(|call| {
                let held = call.held.map(HeldAnswers::into_box);
                let pending = call.step.start_apply(call.request.clone(), held);
                (call.request, pending)
            })
            .collect();
        // After a failed call the others are not waited for (a hung stage costs one deadline):
        // `prepare` stops at the first failure.
        let mut failed = false;
        let answered = started
            .into_iter()
            .map(|(request, pending)| {
                let answer = if failed {
                    Err("an earlier rule of the write failed".to_owned())
                } else {
                    pending.wait()
                };
                failed |= answer.is_err();
                (request, answer)
            })
            .collect();
        Some(Self::Answered(RefCell::new(answered)))
    }

    /// A rule's call: made now, noted (answered with no change), or its answer obtained before.
    fn start(
        &self,
        step: &Arc<dyn RuleStep>,
        request: ApplyRequest,
        held: Option<HeldAnswers>,
    ) -> Pending<ApplyOutcome> {
        match self {
            Self::Now => step.start_apply(request, held.map(HeldAnswers::into_box)),
            Self::Noted(noted) => {
                noted.borrow_mut().push(NotedCall {
                    step: Arc::clone(step),
                    request,
                    held,
                });
                Pending::ready(Ok(no_change()))
            }
            Self::Answered(answered) => {
                let mut answered = answered.borrow_mut();
                if answered.front().is_some_and(|(asked, _)| *asked == request)
                    && let Some((_, answer)) = answered.pop_front()
                {
                    return Pending::ready(answer);
                }
                step.start_apply(request, held.map(HeldAnswers::into_box))
            }
        }
    }
}

/// A rule's answer that changes nothing.
fn no_change() -> ApplyOutcome {
    ApplyOutcome {
        keep: false,
        dependents: Vec::new(),
        placement: None,
        remove: Vec::new(),
        schema_version: rea_plugin_api::contracts::SCHEMA_VERSION,
        set: BTreeMap::new(),
    }
}

impl<'a> Values<'a> {
    fn clock(&self) -> Option<String> {
        match self {
            Values::Observed { clock, .. } | Values::Served { clock, .. } => clock.clone(),
        }
    }

    /// How a served call's rule calls are made (`None` replaying: when `prepare` reaches them).
    fn calls(&self) -> Option<&'a RuleCalls> {
        match self {
            Values::Served { calls, .. } => Some(*calls),
            Values::Observed { .. } => None,
        }
    }

    /// The values of the bulk call's entry `index` (naming `id`, when it names one): replaying,
    /// its own recorded outcome (the entity it named, else the one observed for that entry).
    fn of_entity(&self, index: usize, id: Option<&str>) -> Values<'a> {
        match self {
            Values::Observed {
                clock, entities, ..
            } => Values::Observed {
                after: match id {
                    Some(id) => entities.iter().find(|(named, _)| named == id),
                    None => entities.get(index),
                }
                .and_then(|(_, after)| *after),
                response: None,
                clock: clock.clone(),
                entities: Vec::new(),
            },
            served => served.clone(),
        }
    }
}

/// A prepared change.
#[derive(Debug, Clone)]
pub struct Change {
    /// `create`, `update`, `delete` or `document-write`.
    pub view: &'static str,
    /// The entities written, before and after (`None`: absent), in body order for bulk writes.
    pub entities: Vec<(Option<Entity>, Option<Entity>)>,
    /// The entities of other types a delete changes with it, before and after (`None`: removed).
    pub dependents: Vec<(Entity, Option<Entity>)>,
    /// The (type, field) pairs a delete's dependent effects look the deleted id up in: kept
    /// indexed from the commit on ([`LiveState::keep_referrers`]).
    pub referrers: Vec<(String, String)>,
    /// Where each written entity goes (`None`: where it was).
    pub positions: Vec<Option<Position>>,
    /// Values the rules set for each entity that the entity does not keep (a delete's clock).
    pub generated: Vec<BTreeMap<String, Json>>,
    /// A soft delete keeps its entities, marked deleted.
    pub keep_deleted: bool,
    /// The document written.
    pub document: Option<Document>,
    /// The update or delete named an entity the state does not hold.
    pub missing: bool,
    /// Sequence values to record: (collection, field, value).
    pub sequences: Vec<(String, String, i128)>,
    /// History the create charges: (type, collection, charge).
    pub history: Option<(String, String, usize)>,
    /// The store counters the write steps, each with its value after it (see
    /// [`crate::counters`]): its answer carries them.
    pub counters: Vec<(String, Json)>,
    /// The call left out the field selection its recorded calls sent: its answer shows the
    /// entity as held (nested children as their ids).
    pub plain: bool,
    /// The top-level members an update sent that its entity stores otherwise (see
    /// [`ResponseModel::shows_computed`]), in body order.
    pub computed: Vec<String>,
    /// The top-level members the call sent, in body order (what an answer naming the changed
    /// members names, see [`super::references::ChangedMembers`]).
    pub sent: Vec<String>,
    /// The names the call sent in the body objects its answer lists (answer pointer → names,
    /// see [`super::sent_names`]).
    pub sent_names: Vec<(String, Json)>,
    /// The call's path, which answer members echoing it spell (see [`crate::path_echo`]).
    pub path: String,
}

/// Why a change cannot be made (a tool error when serving).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// A code (`invalid_arguments`, `not_found`, `rule_failed`, `resource_constraint`, …).
    pub code: &'static str,
    /// One sentence.
    pub message: String,
}

fn refused(code: &'static str, message: impl Into<String>) -> Refused {
    Refused {
        code,
        message: message.into(),
    }
}

/// The members a call sent, unwrapped from the plan's envelope.
pub fn sent_members<'a>(plan: &WritePlan, body: Option<&'a Json>) -> Option<&'a Object> {
    let envelope = plan.body.as_ref().map_or("", |body| body.envelope.as_str());
    body?.pointer(envelope)?.as_object()
}

/// The collection a path's leading `count` segments spell (`/api/tasks`); `None` for a shorter
/// path.
pub fn collection_at<S: AsRef<str>>(segments: &[S], count: usize) -> Option<String> {
    let leading = segments.get(..count)?;
    let parts: Vec<&str> = leading.iter().map(AsRef::as_ref).collect();
    Some(format!("/{}", parts.join("/")))
}

/// The collection a call writes (as the path spells it) and, for item paths, the identity (the
/// path segment after the collection, or the body member an RPC-style write names it in).
pub fn call_target(plan: &WritePlan, input: &WriteInput) -> Option<(String, Option<String>)> {
    let segments = &input.segments;
    let target = plan.target.as_ref()?;
    if let Some(tied) = &target.collection {
        // A create tied to its exemplar's collection; an item write of a path no type holds
        // names the one entity its literal names, or the one its last segment does.
        let id = match plan.effect {
            Effect::Create | Effect::Document => None,
            _ if plan.bulk => None,
            _ => target.entity_id.clone().or_else(|| {
                let last = crate::derive::entities::item_segments(segments).len();
                let at = target.entity_segment.unwrap_or(last.checked_sub(1)?);
                path_value(plan, segments, at)
            }),
        };
        return Some((tied.clone(), id));
    }
    let count = target.collection_segments;
    let collection = collection_at(segments, count)?;
    let id = match (plan.effect, plan.bulk) {
        (Effect::Create, _) | (_, true) | (Effect::Document, _) => None,
        _ => match &target.key_member {
            Some(member) => Some(scalar_text(input.body.as_ref()?.get(member)?)?),
            None => path_value(plan, segments, count),
        },
    };
    Some((collection, id))
}

pub(super) fn set_pointer(object: &mut Json, pointer: &str, value: Json) {
    let Some(rest) = pointer.strip_prefix('/') else {
        return;
    };
    let parts: Vec<String> = rest
        .split('/')
        .map(rea_plugin_api::json::unescape_pointer_segment)
        .collect();
    let mut current = object;
    for (index, part) in parts.iter().enumerate() {
        let last = index + 1 == parts.len();
        let Json::Object(members) = current else {
            return;
        };
        if last {
            members.insert(part.clone(), value);
            return;
        }
        if members
            .get(part)
            .is_none_or(|inner| !matches!(inner, Json::Object(_)))
        {
            members.insert(part.clone(), Json::Object(Object::new()));
        }
        current = match members.get_mut(part) {
            Some(inner) => inner,
            None => return,
        };
    }
}

fn remove_pointer(object: &mut Json, pointer: &str) {
    let Some((parent, last)) = pointer.rsplit_once('/') else {
        return;
    };
    let last = rea_plugin_api::json::unescape_pointer_segment(last);
    if let Some(Json::Object(members)) = pointer_mut(object, parent) {
        members.remove(&last);
    }
}

fn to_value(json: &Json) -> Value {
    json.to_serde_value().unwrap_or(Value::Null)
}

fn from_value(value: &Value) -> Json {
    Json::from_serde_value(value)
}

/// Whether a sent member is a rule's: a rule explains its pointer, so the rule decides what the
/// entity holds there (a `reference` reads it and stores the objects it names elsewhere; a
/// `held-clock` stamps it anew), and it is not stored as sent.
fn ruled(plan: &WritePlan, member: &str) -> bool {
    let pointer = format!("/{}", rea_plugin_api::json::escape_pointer_segment(member));
    plan.rules
        .iter()
        .any(|rule| rule.explains.contains(&pointer))
}

/// Whether a learned rule names the sent member at `pointer` among those it stores re-spelled
/// (its rule's `respells`: a base64 text the application stores re-encoded on wrapped lines), so
/// the value it sets there replaces the one sent.
fn respells(learned: &PlanRule, pointer: &str) -> bool {
    learned
        .rule
        .get("respells")
        .and_then(Json::as_array)
        .is_some_and(|pointers| pointers.iter().any(|named| named.as_str() == Some(pointer)))
}

/// The top-level field a pointer names.
fn top_field(pointer: &str) -> Option<String> {
    let first = pointer.strip_prefix('/')?.split('/').next()?;
    Some(rea_plugin_api::json::unescape_pointer_segment(first))
}

/// What the plan's rules set for one entity: pointer → value (`None`: removed), the placement,
/// and whether a delete keeps the entity.
struct Applied {
    set: BTreeMap<String, Option<Json>>,
    placement: Option<Placement>,
    keep: bool,
    dependents: Vec<DependentEffect>,
}

/// One call being applied: its plan, the rule stages, the state it applies to, its inputs, where
/// rule-explained values come from, and its path parameters' values.
#[derive(Clone, Copy)]
struct Applying<'a, 'v> {
    plan: &'a WritePlan,
    rules: &'a RuleSet,
    state: &'a LiveState,
    input: &'a WriteInput,
    values: &'a Values<'v>,
    params: &'a [String],
}

impl<'a, 'v> Applying<'a, 'v> {
    /// The call `(state, input, values)` applying `plan` with `rules`; `params` are its path
    /// parameters' values ([`path_params`]).
    fn new(
        plan: &'a WritePlan,
        rules: &'a RuleSet,
        (state, input, values): (&'a LiveState, &'a WriteInput, &'a Values<'v>),
        params: &'a [String],
    ) -> Self {
        Applying {
            plan,
            rules,
            state,
            input,
            values,
            params,
        }
    }
}

/// What a call writes: the type, its identity field, the collection (as the path spells it) and,
/// for an item write, the entity.
struct Target {
    entity_type: String,
    identity: String,
    collection: String,
    id: Option<String>,
}

impl Target {
    fn of(plan: &WritePlan, input: &WriteInput) -> Result<Self, Refused> {
        let target = plan
            .target
            .as_ref()
            .ok_or_else(|| refused("internal_error", "the plan has no target"))?;
        let entity_type = target
            .entity_type
            .clone()
            .ok_or_else(|| refused("internal_error", "the plan names no type"))?;
        let identity = target
            .identity_field
            .clone()
            .unwrap_or_else(|| "id".to_owned());
        let (collection, id) = call_target(plan, input)
            .ok_or_else(|| refused("invalid_arguments", "the call's path names no collection"))?;
        Ok(Self {
            entity_type,
            identity,
            collection,
            id,
        })
    }
}

impl Applying<'_, '_> {
    /// Each of the plan's rules applied to the call, in pipeline order (a rule reading what the
    /// others set, `"earlier": true`, after them).
    fn apply_rules(&self, collection: &str, before: Option<&Json>) -> Result<Applied, Refused> {
        let mut applied = Applied {
            set: BTreeMap::new(),
            placement: None,
            keep: false,
            dependents: Vec::new(),
        };
        let keyed = self.keyed(before);
        // A rule reading what the others set (`"earlier": true`) is called once they answered.
        let (first, last): (Vec<&PlanRule>, Vec<&PlanRule>) = self
            .plan
            .rules
            .iter()
            .partition(|learned| !reads_earlier(learned));
        self.apply_phase(&first, (collection, before), &keyed, &mut applied)?;
        if !last.is_empty() {
            self.apply_phase(&last, (collection, before), &keyed, &mut applied)?;
        }
        expand_keyed(&mut applied, &keyed);
        Ok(applied)
    }

    /// One phase of the plan's rules applied to the call, their answers merged into `applied`
    /// in pipeline order. Every rule's call is started before the first answer is waited for:
    /// the stages share a worker, which gets them in one hand-off.
    fn apply_phase(
        &self,
        rules: &[&PlanRule],
        (collection, before): (&str, Option<&Json>),
        keyed: &super::merged::Keyed,
        applied: &mut Applied,
    ) -> Result<(), Refused> {
        let started = rules
            .iter()
            .map(|learned| {
                let pending = self.start_rule(learned, collection, before, &applied.set)?;
                Ok((*learned, pending))
            })
            .collect::<Result<Vec<_>, Refused>>()?;
        for (learned, pending) in started {
            let outcome = match (pending.wait(), self.values) {
                (Ok(outcome), _) => outcome,
                // A replay takes what the rule explains from the recorded outcome, so a rule
                // that cannot compute it (an order the application chose) fails no replay.
                (
                    Err(_),
                    Values::Observed {
                        after, response, ..
                    },
                ) => {
                    recorded_values(learned, (*after, *response), keyed, applied);
                    continue;
                }
                (Err(error), Values::Served { .. }) => {
                    return Err(refused(
                        "rule_failed",
                        format!(
                            "the rule `{}` cannot apply to this call: {error}",
                            learned.stage
                        ),
                    ));
                }
            };
            // A rule sets only what it explains (what the host kept of its explanation) and the
            // sent members it names as stored re-spelled; a delete's soft-delete flag is among
            // them.
            let owns = |pointer: &String| {
                learned.explains.is_empty()
                    || learned.explains.contains(pointer)
                    || respells(learned, pointer)
            };
            for (pointer, value) in outcome.set.iter().filter(|(pointer, _)| owns(pointer)) {
                applied.set.insert(pointer.clone(), Some(from_value(value)));
            }
            for pointer in outcome.remove.iter().filter(|pointer| owns(pointer)) {
                applied.set.insert(pointer.clone(), None);
            }
            if outcome.placement.is_some() {
                applied.placement = outcome.placement;
            }
            applied.keep |= outcome.keep;
            applied.dependents.extend(outcome.dependents);
            if let Values::Observed {
                after, response, ..
            } = self.values
            {
                recorded_values(learned, (*after, *response), keyed, applied);
            }
        }
        Ok(())
    }

    /// The keys the call's merged members add (see [`super::merged::Keyed`]).
    fn keyed(&self, before: Option<&Json>) -> super::merged::Keyed {
        let Some(fields) = self.plan.fields.as_ref().filter(|f| !f.merged.is_empty()) else {
            return super::merged::Keyed::new();
        };
        let sent = sent_members(self.plan, self.input.body.as_ref());
        super::merged::added_keys(&fields.merged, sent, before)
    }

    /// What a served call's rule gets about the collection, as it declared it asks: answers
    /// from the held indexes, or (a stage built before them) every held value; with the state's
    /// seeds. An observed call's rule gets none of it.
    fn collection_inputs(
        &self,
        step: &crate::rules::ConfiguredRule,
        learned: &PlanRule,
        collection: &str,
    ) -> CollectionInputs {
        let Values::Served {
            state_evidence_id,
            draw_seed,
            ..
        } = self.values
        else {
            return (BTreeMap::new(), None, Default::default());
        };
        let plan = self.plan;
        let kinds = step.handle.held_indexes();
        let (values, held) = if kinds.contains(&HeldIndexKind::Values) {
            (held_values(plan, learned, self.state, collection), None)
        } else if kinds.is_empty() {
            (BTreeMap::new(), None)
        } else {
            let answers = held_answers(plan, learned, kinds, self.state, collection);
            (BTreeMap::new(), Some(answers))
        };
        let seeds = ((*state_evidence_id).to_owned(), (*draw_seed).to_owned());
        (values, held, seeds)
    }

    /// One learned rule's `apply` on the call, started.
    fn start_rule(
        &self,
        learned: &PlanRule,
        collection: &str,
        before: Option<&Json>,
        earlier: &BTreeMap<String, Option<Json>>,
    ) -> Result<Pending<ApplyOutcome>, Refused> {
        let plan = self.plan;
        let Some(step) = self.rules.step(&learned.stage) else {
            return Err(refused(
                "rule_failed",
                format!(
                    "the rule stage `{}` this write's plan learned is not loaded",
                    learned.stage
                ),
            ));
        };
        let (held_values, held, (state_evidence_id, draw_seed)) =
            self.collection_inputs(step, learned, collection);
        let request = ApplyRequest {
            call: ServedCall {
                body: self.input.body.as_ref().map(to_value),
                clock: self.values.clock(),
                entity_before: before.map(to_value),
                earlier: if reads_earlier(learned) {
                    earlier
                        .iter()
                        .filter_map(|(pointer, value)| {
                            Some((pointer.clone(), to_value(value.as_ref()?)))
                        })
                        .collect()
                } else {
                    BTreeMap::new()
                },
                held_values,
                held: Held::default(),
                path_params: self.params.to_vec(),
                state_evidence_id,
                draw_seed,
                store_counters: self
                    .state
                    .counter_values()
                    .filter_map(|(pointer, value)| {
                        Some((pointer.to_owned(), value.to_serde_value().ok()?))
                    })
                    .collect(),
                write_count: self.state.writes(),
                refused_before: match self.values {
                    Values::Served { .. } => self.state.refused_since(&plan.tool).to_vec(),
                    Values::Observed { .. } => Vec::new(),
                },
            },
            rule: to_value(&learned.rule),
            schema_version: rea_plugin_api::contracts::SCHEMA_VERSION,
            tool: ToolRef {
                method: plan.method.clone(),
                name: plan.tool.clone(),
                path_template: plan.path_template.clone(),
            },
        };
        let now = RuleCalls::Now;
        let calls = self.values.calls().unwrap_or(&now);
        Ok(calls.start(&step.handle, request, held))
    }
}

/// What [`Applying::collection_inputs`] gives a rule: every held value, the held-index answers,
/// and the state's evidence id and draw seed.
type CollectionInputs = (
    BTreeMap<String, Vec<Value>>,
    Option<HeldAnswers>,
    (String, String),
);

/// Whether a learned rule reads what the plan's other rules set for the call (its rule names
/// `"earlier": true`): it is called after them, given their values in `ServedCall::earlier`.
fn reads_earlier(learned: &PlanRule) -> bool {
    matches!(learned.rule.get("earlier"), Some(Json::Bool(true)))
}

/// Replay: what the application generated where a rule explains, as recorded (the entity after,
/// else the answer's entity object; absent from a recorded entity after: removed).
fn recorded_values(
    learned: &PlanRule,
    (after, response): (Option<&Json>, Option<&Json>),
    keyed: &super::merged::Keyed,
    applied: &mut Applied,
) {
    let concrete = learned.explains.iter().flat_map(|pointer| {
        super::merged::expand_pointer(pointer, keyed).unwrap_or_else(|| vec![pointer.clone()])
    });
    for pointer in concrete {
        let pointer = &pointer;
        let recorded = after
            .and_then(|after| after.pointer(pointer))
            .or_else(|| response.and_then(|response| response.pointer(pointer)));
        match recorded {
            Some(value) => {
                applied.set.insert(pointer.clone(), Some(value.clone()));
            }
            None if after.is_some() => {
                applied.set.insert(pointer.clone(), None);
            }
            None => {}
        }
    }
}

/// What the rules set at a keyed pointer (`/time/{versions}`, see [`super::merged::Keyed`]) set
/// at each key the call's merged members added, where no recorded value (a replay's) is set.
fn expand_keyed(applied: &mut Applied, keyed: &super::merged::Keyed) {
    if keyed.is_empty() {
        return;
    }
    let (markers, concrete): (BTreeMap<_, _>, BTreeMap<_, _>) = std::mem::take(&mut applied.set)
        .into_iter()
        .partition(|(pointer, _)| super::merged::expand_pointer(pointer, keyed).is_some());
    applied.set = concrete;
    for (pointer, value) in markers {
        for pointer in super::merged::expand_pointer(&pointer, keyed).unwrap_or_default() {
            applied.set.entry(pointer).or_insert_with(|| value.clone());
        }
    }
}

/// The answers a rule stage of held-index `kinds` gets about the collection a served call
/// writes, for each top-level field it explains: the kept index (or one built now, when the
/// call was not prepared by [`keep_held_indexes`]) and the largest value a sequence generated
/// there.
fn held_answers(
    plan: &WritePlan,
    learned: &PlanRule,
    kinds: &[HeldIndexKind],
    state: &LiveState,
    collection: &str,
) -> HeldAnswers {
    let mut answers = HeldAnswers::default();
    let Some(entity_type) = written_type(plan) else {
        return answers;
    };
    let kinds = indexed(kinds);
    for (pointer, field) in explained_fields(learned) {
        let index = state.held_index(entity_type, collection, &field, &kinds);
        let largest = super::numbered::type_largest(plan, state, entity_type, &field)
            .or_else(|| state.sequence(collection, &field));
        answers.answer(pointer.clone(), index, largest);
    }
    answers
}

/// The type a plan writes.
fn written_type(plan: &WritePlan) -> Option<&str> {
    plan.target.as_ref()?.entity_type.as_deref()
}

/// The pointers a learned rule explains, each with its top-level field.
fn explained_fields(learned: &PlanRule) -> impl Iterator<Item = (&String, String)> {
    learned
        .explains
        .iter()
        .filter_map(|pointer| Some((pointer, top_field(pointer)?)))
}

/// The kinds the live state keeps indexes of (every kind but the values list).
fn indexed(kinds: &[HeldIndexKind]) -> BTreeSet<HeldIndexKind> {
    kinds
        .iter()
        .copied()
        .filter(|kind| *kind != HeldIndexKind::Values)
        .collect()
}

/// Keeps, in the live state, the held indexes a served call's rules ask about for the collection
/// it writes, and the shared values of a create's collection constants and of the members its
/// conflicts check (for the plan, and the create an upsert makes): built by the first call, kept up to date by every change after it,
/// so applying the plan lists no collection.
pub fn keep_held_indexes(
    plan: &WritePlan,
    rules: &RuleSet,
    state: &mut LiveState,
    input: &WriteInput,
) {
    let upsert = plan.upsert_plan();
    for plan in std::iter::once(plan).chain(upsert.as_ref()) {
        let Ok(target) = Target::of(plan, input) else {
            continue;
        };
        if plan.effect == Effect::Create {
            let constants = plan
                .fields
                .iter()
                .flat_map(|model| &model.collection_constants);
            let conflicts = plan.conflicts.iter().map(|conflict| &conflict.member);
            for field in constants.chain(conflicts) {
                state.keep_shared_index(&target.entity_type, &target.collection, field);
            }
        }
        for learned in &plan.rules {
            let Some(step) = rules.step(&learned.stage) else {
                continue;
            };
            let kinds = indexed(step.handle.held_indexes());
            if kinds.is_empty() {
                continue;
            }
            for (_, field) in explained_fields(learned) {
                state.keep_held_index(&target.entity_type, &target.collection, &field, &kinds);
            }
        }
        super::numbered::keep_indexes(plan, state, &target.entity_type);
    }
}

/// The values a collection holds for the top-level fields a rule explains, with the largest
/// value a sequence generated there (what a sequence continues from and generated ids skip):
/// what a rule stage built before held indexes gets, a list as long as the collection.
fn held_values(
    plan: &WritePlan,
    learned: &PlanRule,
    state: &LiveState,
    collection: &str,
) -> BTreeMap<String, Vec<Value>> {
    let mut held = BTreeMap::new();
    let Some(entity_type) = written_type(plan) else {
        return held;
    };
    let members = state.collection(entity_type, collection);
    for (pointer, field) in explained_fields(learned) {
        let mut values: Vec<Value> = members
            .iter()
            .filter_map(|entity| entity.fields.get(&field))
            .map(to_value)
            .collect();
        let largest = super::numbered::type_largest(plan, state, entity_type, &field)
            .or_else(|| state.sequence(collection, &field));
        if let Some(largest) = largest {
            values.push(Value::from(largest as i64));
        }
        held.insert(pointer.clone(), values);
    }
    held
}

fn placement_position(placement: Option<&Placement>) -> Option<Position> {
    match placement? {
        Placement::First => Some(Position::First),
        Placement::Last => Some(Position::Last),
        Placement::Keep => None,
        Placement::Sorted { field, descending } => Some(Position::Sorted {
            field: field.clone(),
            descending: *descending,
        }),
    }
}

/// A held value as an integer: a JSON integer, or a string of decimal digits.
pub(super) fn integer(value: &Json) -> Option<i128> {
    match value {
        Json::Number(number) => number.as_i64().map(i128::from),
        Json::String(text) if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => {
            text.parse().ok()
        }
        _ => None,
    }
}

/// Orders an entity's members as the plan's exemplar did; members it did not show keep their
/// order after them.
fn ordered(plan: &WritePlan, fields: Object) -> Object {
    let Some(model) = &plan.fields else {
        return fields;
    };
    if model.order.is_empty() {
        return fields;
    }
    let mut members: Vec<(String, Json)> = fields.into_iter().collect();
    let rank = |key: &str| {
        model
            .order
            .iter()
            .position(|known| known == key)
            .unwrap_or(usize::MAX)
    };
    members.sort_by_key(|(key, _)| rank(key));
    members.into_iter().collect()
}

fn path_params(plan: &WritePlan, segments: &[CompactString]) -> Vec<String> {
    rea_manifest::segments::split_path(&plan.path_template)
        .iter()
        .zip(segments)
        .filter(|(pattern, _)| rea_manifest::segments::template_affixes(pattern).is_some())
        .map(|(pattern, segment)| decoded(rea_manifest::segments::template_value(pattern, segment)))
        .collect()
}

/// The decoded value a call's path holds at a segment: a fused parameter's value without the
/// prefix and suffix the plan's template spells around it, the segment itself elsewhere.
pub(super) fn path_value(
    plan: &WritePlan,
    segments: &[CompactString],
    index: usize,
) -> Option<String> {
    let segment = segments.get(index)?;
    let template = rea_manifest::segments::split_path(&plan.path_template);
    let value = template.get(index).map_or(segment.as_str(), |pattern| {
        rea_manifest::segments::template_value(pattern, segment)
    });
    Some(decoded(value))
}

/// Whether the plan fixes a sent member (sent with one value, never stored).
fn is_fixed(plan: &WritePlan, member: &str) -> bool {
    plan.body
        .as_ref()
        .and_then(|body| body.members.get(member))
        .is_some_and(|member| member.fixed.is_some())
}

impl Change {
    /// No change yet, of a plan's effect.
    pub(crate) fn of(effect: Effect) -> Self {
        Self {
            view: match effect {
                Effect::Create => "create",
                Effect::Update => "update",
                Effect::Delete => "delete",
                Effect::Document => "document-write",
            },
            entities: Vec::new(),
            dependents: Vec::new(),
            referrers: Vec::new(),
            positions: Vec::new(),
            generated: Vec::new(),
            keep_deleted: false,
            document: None,
            missing: false,
            sequences: Vec::new(),
            history: None,
            counters: Vec::new(),
            plain: false,
            computed: Vec::new(),
            sent: Vec::new(),
            sent_names: Vec::new(),
            path: String::new(),
        }
    }
}

/// Computes a call's change, without touching the state.
pub fn prepare(
    plan: &WritePlan,
    rules: &RuleSet,
    state: &LiveState,
    input: &WriteInput,
    values: &Values<'_>,
) -> Result<Change, Refused> {
    let respelled = super::references::respelled(&plan.references, state, input)?;
    let input = respelled.as_ref().unwrap_or(input);
    let mut change = prepare_effect(plan, rules, state, input, values)?;
    change.counters = state.stepped_counters(&plan.tool);
    change.computed = computed_members(plan, input, &change);
    change.sent = sent_members(plan, input.body.as_ref())
        .map(|sent| sent.keys().map(str::to_owned).collect())
        .unwrap_or_default();
    if let Some(response) = &plan.response {
        change.sent_names = super::sent_names::listed(&response.sent_names, input.body.as_ref());
    }
    change.path = format!("/{}", input.segments.join("/"));
    Ok(change)
}

/// The top-level members a one-entity update sent that the entity stores otherwise: values a
/// rule computed from what was sent (an operator applied to the held value), in body order.
fn computed_members(plan: &WritePlan, input: &WriteInput, change: &Change) -> Vec<String> {
    let (Some(sent), [(Some(_), Some(after))]) = (
        sent_members(plan, input.body.as_ref()),
        change.entities.as_slice(),
    ) else {
        return Vec::new();
    };
    sent.iter()
        .filter(|(key, value)| after.fields.get(key).is_some_and(|stored| stored != *value))
        .map(|(key, _)| key.to_owned())
        .collect()
}

/// What a member write's rules set on its entity besides the member (a revision the write
/// steps), applied to the entity `before` it in `collection`: pointer → value (`None`:
/// removed), in pipeline order.
pub(super) fn member_rule_effects(
    plan: &WritePlan,
    rules: &RuleSet,
    (state, input, values): (&LiveState, &WriteInput, &Values<'_>),
    collection: &str,
    before: &Json,
) -> Result<BTreeMap<String, Option<Json>>, Refused> {
    let params = path_params(plan, &input.segments);
    let applying = Applying::new(plan, rules, (state, input, values), &params);
    Ok(applying.apply_rules(collection, Some(before))?.set)
}

/// Sets (`Some`) or removes (`None`) each pointer's value in an entity's fields.
pub(super) fn set_effects(fields: &mut Json, effects: &BTreeMap<String, Option<Json>>) {
    for (pointer, value) in effects {
        match value {
            Some(value) => set_pointer(fields, pointer, value.clone()),
            None => remove_pointer(fields, pointer),
        }
    }
}

/// [`prepare`] but for the store counters the write steps.
fn prepare_effect(
    plan: &WritePlan,
    rules: &RuleSet,
    state: &LiveState,
    input: &WriteInput,
    values: &Values<'_>,
) -> Result<Change, Refused> {
    if plan
        .target
        .as_ref()
        .is_some_and(|target| target.member.is_some())
    {
        return super::member::prepare(plan, rules, (state, input, values));
    }
    let mut change = Change::of(plan.effect);
    if plan.effect == Effect::Document {
        change.document = Some(document_written(plan, state, input)?);
        return Ok(change);
    }
    let target = Target::of(plan, input)?;
    let params = path_params(plan, &input.segments);
    let applying = Applying::new(plan, rules, (state, input, values), &params);
    if plan.bulk {
        applying.prepare_bulk(&target, &mut change)?;
        return Ok(change);
    }
    match plan.effect {
        Effect::Create => {
            applying.prepare_create(target, &mut change)?;
            // The document the create composes for its entity (see `super::composed`).
            change.document = plan.composed.as_ref().and_then(|composed| {
                let (_, created) = change.entities.first()?;
                composed.document(created.as_ref()?)
            });
        }
        Effect::Update | Effect::Delete => return applying.prepare_update(target, change),
        Effect::Document => {}
    }
    Ok(change)
}

/// A document write: the held document with the members sent (or only them, for a `PUT` that
/// replaces), at the object where its writes land (the root, or an envelope member).
fn document_written(
    plan: &WritePlan,
    state: &LiveState,
    input: &WriteInput,
) -> Result<Document, Refused> {
    let target = plan.target.as_ref();
    let Some(view) = target.and_then(|target| target.document.as_deref()) else {
        return Err(refused("internal_error", "the plan names no document"));
    };
    if let Some(placement) = plan.fields.as_ref().and_then(|fields| fields.adds_name) {
        return name_added(state, view, input, placement);
    }
    let Some(held) = state.document_under(view, &input.segments) else {
        return Err(refused(
            "not_found",
            "the state holds no value for this document",
        ));
    };
    let sent = sent_members(plan, input.body.as_ref())
        .cloned()
        .unwrap_or_default();
    let replace = plan.fields.as_ref().is_some_and(|fields| fields.replace);
    let pointer = plan
        .fields
        .as_ref()
        .map_or("", |fields| fields.document_pointer.as_str());
    let mut value = held.value.clone();
    for pointer in landing_pointers(plan, &held.value, &input.segments, pointer)? {
        let Some(written) = crate::render::pointer_mut(&mut value, &pointer) else {
            return Err(refused(
                "not_found",
                "the held document has no object where this write's members land",
            ));
        };
        if replace {
            *written = Json::Object(Object::new());
        }
        if let Json::Object(object) = written {
            write_document_members(plan.fields.as_ref(), object, &sent);
        }
    }
    Ok(Document {
        view: held.view.clone(),
        path: held.path.clone(),
        value,
        record_ordinal: None,
    })
}

/// A names document with the name the call's path gives added (see
/// [`super::named_collection`]); a name it already lists is refused `conflict`.
fn name_added(
    state: &LiveState,
    view: &str,
    input: &WriteInput,
    placement: super::named_collection::NamePlacement,
) -> Result<Document, Refused> {
    let Some(held) = state.documents().find(|document| document.view == view) else {
        return Err(refused(
            "not_found",
            "the state holds no value for this document",
        ));
    };
    let name = input
        .segments
        .last()
        .map(|segment| crate::observation::decoded(segment))
        .unwrap_or_default();
    let Some(value) = super::named_collection::with_name(&held.value, &name, placement) else {
        return Err(refused(
            "conflict",
            format!(
                "the state already lists {}",
                Json::String(name.into()).to_canonical_string()
            ),
        ));
    };
    Ok(Document {
        view: held.view.clone(),
        path: held.path.clone(),
        value,
        record_ordinal: None,
    })
}

/// Where a document write's members land: the plan's pointer, or, for a write landing in the
/// elements its path's id names (`document_element`), that pointer inside each of them (none
/// held: refused `not_found`).
fn landing_pointers(
    plan: &WritePlan,
    held: &Json,
    segments: &[CompactString],
    pointer: &str,
) -> Result<Vec<String>, Refused> {
    let Some(key) = plan
        .fields
        .as_ref()
        .and_then(|fields| fields.document_element.as_deref())
    else {
        return Ok(vec![pointer.to_owned()]);
    };
    let id = segments
        .iter()
        .rev()
        .nth(1)
        .map(|id| crate::observation::decoded(id))
        .unwrap_or_default();
    let elements = super::explain::element_pointers(held, key, &id);
    if elements.is_empty() {
        return Err(refused(
            "not_found",
            format!("the document holds no element whose {key} is {id}"),
        ));
    }
    Ok(elements
        .into_iter()
        .map(|element| format!("{element}{pointer}"))
        .collect())
}

/// Sets a document write's sent members into the object where they land: a member its calls
/// showed merged entry by entry (`FieldModel::merged`), a `null` its calls showed removing the
/// member (`FieldModel::null_removes`) removed, any other member as sent.
fn write_document_members(fields: Option<&FieldModel>, object: &mut Object, sent: &Object) {
    for (key, member) in sent.iter() {
        let merged = fields.and_then(|fields| fields.merged.get(key));
        if let (Some(gained), Json::Object(entries)) = (merged, member) {
            let value = super::merged::merge_into(object.get(key), entries, gained);
            object.insert(key, value);
        } else if member.is_null() && fields.is_some_and(|fields| fields.null_removes) {
            object.remove(key);
        } else {
            object.insert(key, member.clone());
        }
    }
}

impl Applying<'_, '_> {
    /// A bulk write: each entity the body names, updated (or deleted) in body order; every one
    /// must be held, but for a keyed batch (a bulk update with an `upsert`), whose rows naming
    /// an entity the state lacks, or naming none, create it as the plan's creating rows did.
    fn prepare_bulk(&self, target: &Target, change: &mut Change) -> Result<(), Refused> {
        let (plan, state) = (self.plan, self.state);
        let (entity_type, collection) = (&target.entity_type, &target.collection);
        let created = plan.upsert_plan().map(|mut created| {
            created.bulk = false;
            if let Some(body) = created.body.as_mut() {
                body.bulk_ids = None;
                body.envelope = String::new();
            }
            created
        });
        let rows = self.bulk_rows(target, created.is_some())?;
        let missing: Vec<Option<&String>> = rows
            .iter()
            .filter(|(id, _)| {
                id.as_ref()
                    .is_none_or(|id| state.entity(entity_type, collection, id).is_none())
            })
            .map(|(id, _)| id.as_ref())
            .collect();
        let created_rules = created.as_ref().map(|created| created.rules.as_slice());
        let replaying = matches!(self.values, Values::Observed { .. });
        check_keyed(&rows, &missing, created_rules, collection, replaying)?;
        for (index, (id, row)) in rows.into_iter().enumerate() {
            let own = self.values.of_entity(index, id.as_deref());
            let held = id
                .as_ref()
                .and_then(|id| state.entity(entity_type, collection, id));
            let Some(before) = held.cloned() else {
                let created = created
                    .as_ref()
                    .unwrap_or_else(|| unreachable!("checked above"));
                let row = WriteInput {
                    segments: self.input.segments.clone(),
                    body: Some(row),
                    listed: None,
                    query: Vec::new(),
                };
                let entity = Applying {
                    plan: created,
                    input: &row,
                    values: &own,
                    ..*self
                };
                entity.prepare_create(Target::of(created, &row)?, change)?;
                continue;
            };
            // A keyed batch's row is learned whole; another bulk write's, without its identity.
            let id = id.unwrap_or_else(|| unreachable!("a held entity is named"));
            let body = match created {
                Some(_) => Some(row),
                None => bulk_member_body(plan, self.input.body.as_ref(), &target.identity, &id),
            };
            let single = WriteInput {
                segments: self.input.segments.clone(),
                body,
                listed: None,
                query: Vec::new(),
            };
            let entity = Applying {
                input: &single,
                values: &own,
                ..*self
            };
            let (after, generated, placement, ..) = entity.update_fields(collection, &before)?;
            change
                .positions
                .push(placement_position(placement.as_ref()));
            change.generated.push(generated);
            if plan.effect == Effect::Delete {
                change.entities.push((Some(before), None));
            } else {
                change.entities.push((Some(before), Some(after)));
            }
        }
        Ok(())
    }

    /// The rows a bulk call writes: those its query selects (see [`super::selected`]), else the
    /// entries of its body's id array (`keyed`: a keyed batch's, which may name none).
    fn bulk_rows(
        &self,
        target: &Target,
        keyed: bool,
    ) -> Result<Vec<(Option<String>, Json)>, Refused> {
        let selected = self
            .plan
            .body
            .as_ref()
            .and_then(|body| body.bulk_ids.as_ref()?.selected.as_deref());
        match selected {
            Some(selected) => super::selected::rows(
                selected,
                self.state,
                (&target.entity_type, &target.collection),
                &self.input.query,
            ),
            None => bulk_ids(self.plan, self.input.body.as_ref(), &target.identity, keyed),
        }
    }

    /// A create: the entity from what was sent, the path, the collection's shared values and the
    /// plan's constants, then the rules; refused when it has no identity or the state already
    /// holds it, or past the history budget.
    fn prepare_create(&self, target: Target, change: &mut Change) -> Result<(), Refused> {
        let Target {
            entity_type,
            identity,
            collection,
            ..
        } = target;
        self.check_parent()?;
        let mut fields = self.created_fields(&entity_type, &collection);
        let applied = self.apply_rules(&collection, None)?;
        let kept_identity = self.kept_identity(&identity);
        for (pointer, value) in &applied.set {
            if kept_identity.as_ref() == Some(pointer) {
                continue;
            }
            match value {
                Some(value) => set_pointer(&mut fields, pointer, value.clone()),
                None => remove_pointer(&mut fields, pointer),
            }
        }
        let sent = sent_members(self.plan, self.input.body.as_ref());
        let children =
            super::children::prepare(self.plan, self.state, self.values, (sent, &mut fields))?;
        let fields = match fields {
            Json::Object(object) => Json::Object(ordered(self.plan, object)),
            other => other,
        };
        let id = self.new_identity(&fields, &identity, &entity_type, &collection)?;
        let parent_id =
            crate::render::identity_value(&fields, &identity).map(std::borrow::Cow::into_owned);
        change.sequences = sequences_of(self.plan, &fields, &collection);
        change.history = self.history_charge(&entity_type, &collection, &change.sequences)?;
        let entity = Entity {
            entity_type,
            collection,
            id,
            fields,
            view_fields: BTreeMap::new(),
            record_ordinals: Vec::new(),
        };
        change
            .positions
            .push(placement_position(applied.placement.as_ref()).or(Some(Position::Last)));
        change.generated.push(BTreeMap::new());
        change.entities.push((None, Some(entity)));
        if let Some(parent_id) = parent_id {
            super::children::place(children, &parent_id, change);
        }
        Ok(())
    }

    /// The pointer of the identity a call sent, when the plan keeps it as sent: no rule's to
    /// generate (see `writes::defaults`).
    fn kept_identity(&self, identity: &str) -> Option<String> {
        let keeps = self.plan.fields.as_ref()?.identity_as_sent;
        let sent = sent_members(self.plan, self.input.body.as_ref())?;
        (keeps && sent.contains_key(identity)).then(|| {
            format!(
                "/{}",
                rea_plugin_api::json::escape_pointer_segment(identity)
            )
        })
    }

    /// A created entity's fields before the rules: the members sent (not fixed, not a rule's, but
    /// an identity the plan keeps as sent), the defaults of members left out, the path values,
    /// the value every held entity of the collection shares (else the plan's constant), and the
    /// plan's constants.
    fn created_fields(&self, entity_type: &str, collection: &str) -> Json {
        let plan = self.plan;
        let model = plan.fields.clone().unwrap_or_default();
        let sent = sent_members(plan, self.input.body.as_ref())
            .cloned()
            .unwrap_or_default();
        let identity = plan
            .target
            .as_ref()
            .and_then(|target| target.identity_field.as_deref())
            .unwrap_or("id");
        let mut object = Object::new();
        let mut placed = Vec::new();
        for (key, value) in sent.iter() {
            let kept = model.identity_as_sent && key == identity;
            let unstored = model.unstored.iter().any(|member| member == key);
            if !kept && (is_fixed(plan, key) || ruled(plan, key) || unstored) {
                continue;
            }
            if let Some(pointer) = model.sent_as.get(key) {
                placed.push((pointer, value.clone()));
                continue;
            }
            object.insert(key, created_value(&model, key, value));
        }
        for (key, value) in &model.defaults {
            if !object.contains_key(key) {
                object.insert(key, value.clone());
            }
        }
        super::document_defaults::apply(&mut object, &model.document_defaults, self.state);
        for (field, path) in &model.path_fields {
            let Some(text) = path_value(plan, &self.input.segments, path.segment) else {
                continue;
            };
            let value = if path.number {
                rea_plugin_api::json::Number::from_lexeme(&text)
                    .map(Json::Number)
                    .unwrap_or(Json::String(text.into()))
            } else {
                Json::String(text.into())
            };
            object.insert(field.clone(), value);
        }
        for field in &model.collection_constants {
            if object.contains_key(field) {
                continue;
            }
            let shared = self.state.shared_value(entity_type, collection, field);
            if let Some(value) = shared.or_else(|| model.constants.get(field).cloned()) {
                object.insert(field.clone(), value);
            }
        }
        for (key, value) in model.constants.iter() {
            if !object.contains_key(key) {
                object.insert(key, value.clone());
            }
        }
        let mut fields = Json::Object(object);
        for (pointer, value) in placed {
            set_pointer(&mut fields, pointer, value);
        }
        for (pointer, value) in &model.nested_constants {
            if fields.pointer(pointer).is_none() {
                set_pointer(&mut fields, pointer, value.clone());
            }
        }
        self.spell_below_parent(&model, &mut fields);
        fields
    }

    /// A create below a parent: refused (`not_found`) when the state holds no parent the path
    /// names (see `writes::parent_create`).
    fn check_parent(&self) -> Result<(), Refused> {
        let Some(below) = self
            .plan
            .fields
            .as_ref()
            .and_then(|fields| fields.below_parent.as_ref())
        else {
            return Ok(());
        };
        let segments = &self.input.segments;
        let parent = segments
            .get(below.parent_at)
            .map(|segment| decoded(segment));
        let collection = format!(
            "/{}",
            segments[..below.parent_at.min(segments.len())].join("/")
        );
        match parent {
            Some(parent)
                if self
                    .state
                    .entity(&below.parent_type, &collection, &parent)
                    .is_some() =>
            {
                Ok(())
            }
            _ => Err(refused(
                "not_found",
                "the state holds no parent the path names for this create",
            )),
        }
    }

    /// A create below a parent: each member spelling the entity's parent path, `/`, and its
    /// identity (see `writes::parent_create`).
    fn spell_below_parent(&self, model: &FieldModel, fields: &mut Json) {
        let Some(below) = &model.below_parent else {
            return;
        };
        let Some(identity) = self
            .plan
            .target
            .as_ref()
            .and_then(|target| target.identity_field.as_deref())
        else {
            return;
        };
        let Some(id) = crate::render::identity_text(fields, identity) else {
            return;
        };
        let collection_segments = self
            .plan
            .target
            .as_ref()
            .map_or(0, |target| target.collection_segments);
        let segments = &self.input.segments[..collection_segments.min(self.input.segments.len())];
        let parent = super::parent_create::parent_path(segments, below.parent_at);
        for member in &below.members {
            let spelled = Json::from(format!("{parent}/{id}"));
            set_pointer(fields, &super::explain::pointer_of(member), spelled);
        }
    }

    /// A created entity's identity; refused when it has none or the state already holds it.
    fn new_identity(
        &self,
        fields: &Json,
        identity: &str,
        entity_type: &str,
        collection: &str,
    ) -> Result<String, Refused> {
        let Some(id) = crate::render::identity_text(fields, identity) else {
            return Err(refused(
                "invalid_arguments",
                format!(
                    "the created entity has no identity {}",
                    Json::String(identity.into()).to_canonical_string()
                ),
            ));
        };
        if self.state.entity(entity_type, collection, &id).is_some() {
            return Err(refused(
                "conflict",
                format!(
                    "the state already holds {} in {collection}",
                    Json::String(id.into()).to_canonical_string()
                ),
            ));
        }
        Ok(id)
    }

    /// The collection history a create charges, refused past the budget served creates keep.
    fn history_charge(
        &self,
        entity_type: &str,
        collection: &str,
        sequences: &[(String, String, i128)],
    ) -> Result<Option<(String, String, usize)>, Refused> {
        let sequence_fields: Vec<String> = sequences
            .iter()
            .map(|(_, field, _)| field.clone())
            .collect();
        let charge = self
            .state
            .history_charge(entity_type, collection, &sequence_fields);
        if charge == 0 {
            return Ok(None);
        }
        if self.state.history_score() + charge > crate::store::MAX_HISTORY_SCORE {
            return Err(refused(
                "resource_constraint",
                format!(
                    "this create would take the collection history served creates keep past its {}-byte budget; reset the state (data/reset) or write to fewer distinct collections",
                    crate::store::MAX_HISTORY_SCORE
                ),
            ));
        }
        Ok(Some((
            entity_type.to_owned(),
            collection.to_owned(),
            charge,
        )))
    }

    /// The entity the state holds only as a listing row at the call's path, if it is the one
    /// the call names.
    fn listed_row(&self, entity_type: &str, collection: &str, id: &str) -> Option<Entity> {
        self.input.listed.clone().filter(|row| {
            row.entity_type == entity_type
                && row.id == id
                && collection_key(&row.collection) == collection_key(collection)
        })
    }

    /// An update or delete of the entity the call names; an entity the state does not hold is
    /// created by an upsert, else the change is `missing`.
    fn prepare_update(&self, target: Target, mut change: Change) -> Result<Change, Refused> {
        let plan = self.plan;
        let id = target
            .id
            .ok_or_else(|| refused("invalid_arguments", "the call names no entity"))?;
        let Some(before) = self
            .state
            .entity(&target.entity_type, &target.collection, &id)
            .cloned()
            .or_else(|| self.listed_row(&target.entity_type, &target.collection, &id))
        else {
            // An upsert creates the entity its path names.
            if let Some(create) = plan.upsert_plan()
                && plan.effect == Effect::Update
            {
                return self.prepare_upsert(&create, id);
            }
            change.missing = true;
            return Ok(change);
        };
        let (after, generated, placement, keep, dependents) =
            self.update_fields(&target.collection, &before)?;
        let soft = plan
            .fields
            .as_ref()
            .is_some_and(|fields| fields.soft_delete.is_some());
        if plan.effect == Effect::Delete {
            if soft || keep {
                change.keep_deleted = true;
                let mut kept = before.clone();
                kept.fields = after.fields;
                change.entities.push((Some(before), Some(kept)));
            } else {
                change.dependents = super::dependents::changed(self.state, &before, &dependents);
                change.referrers = super::dependents::looked_up(&dependents);
                change.entities.push((Some(before), None));
            }
            change.positions.push(None);
        } else if plan.copies {
            self.copied(before, after, &mut change)?;
        } else {
            change
                .positions
                .push(placement_position(placement.as_ref()));
            change.entities.push((Some(before), Some(after)));
        }
        change.generated.push(generated);
        Ok(change)
    }

    /// An update copying its entity under a new identity (see [`WritePlan::copies`]): the copy
    /// (first, what the answer shows) is created last in the collection under the identity its
    /// rules generated, and the original removed; refused when the rules generated none or one
    /// the collection holds.
    fn copied(
        &self,
        before: Entity,
        mut after: Entity,
        change: &mut Change,
    ) -> Result<(), Refused> {
        let identity = self
            .plan
            .target
            .as_ref()
            .and_then(|target| target.identity_field.as_deref())
            .unwrap_or_default();
        let copy = crate::render::identity_text(&after.fields, identity)
            .ok_or_else(|| refused("not_modelled", "the copy was given no new identity"))?;
        let collection = moved_collection(&before, &after.fields, &copy)?;
        if copy == before.id && collection == before.collection {
            return Err(refused(
                "not_modelled",
                "the copy was given no new identity",
            ));
        }
        if self
            .state
            .entity(&before.entity_type, &collection, &copy)
            .is_some()
        {
            return Err(refused(
                "not_modelled",
                "the copy's new identity is held by another entity",
            ));
        }
        after.id = copy;
        after.collection = collection;
        change.positions.push(Some(Position::Last));
        change.entities.push((None, Some(after)));
        change.positions.push(None);
        change.entities.push((Some(before), None));
        Ok(())
    }

    /// An upsert's call creating the entity its path names (as the creating calls did); refused
    /// when the entity created would have another identity.
    fn prepare_upsert(&self, create: &WritePlan, id: String) -> Result<Change, Refused> {
        let created = prepare(create, self.rules, self.state, self.input, self.values)?;
        let named = created
            .entities
            .first()
            .and_then(|(_, after)| after.as_ref())
            .map(|entity| entity.id.as_str());
        if named != Some(id.as_str()) {
            return Err(refused(
                "invalid_arguments",
                format!(
                    "the entity this call creates would be named {} where its path names {}",
                    Json::String(named.unwrap_or_default().into()).to_canonical_string(),
                    Json::String(id.into()).to_canonical_string()
                ),
            ));
        }
        Ok(created)
    }

    /// The fields an update (or a delete's rules) gives an entity.
    fn update_fields(&self, collection: &str, before: &Entity) -> Result<Updated, Refused> {
        let plan = self.plan;
        let soft = plan
            .fields
            .as_ref()
            .is_some_and(|fields| fields.soft_delete.is_some());
        let mut fields = before.fields.clone();
        if plan.effect != Effect::Delete {
            self.store_sent(&mut fields);
        }
        let applied = self.apply_rules(collection, Some(&before.fields))?;
        let mut generated = BTreeMap::new();
        for (pointer, value) in &applied.set {
            match value {
                Some(value) => {
                    if plan.effect == Effect::Delete && !soft && !applied.keep {
                        generated.insert(pointer.clone(), value.clone());
                    } else {
                        set_pointer(&mut fields, pointer, value.clone());
                    }
                }
                None => remove_pointer(&mut fields, pointer),
            }
        }
        let fields = match fields {
            Json::Object(object) if plan.effect != Effect::Delete => {
                Json::Object(ordered(plan, object))
            }
            other => other,
        };
        let mut after = before.clone();
        after.fields = fields;
        after.record_ordinals = Vec::new();
        Ok((
            after,
            generated,
            applied.placement,
            applied.keep,
            applied.dependents,
        ))
    }

    /// An update's sent members stored into the entity: unsent members a `PUT` replaces (or the
    /// plan saw removed) go, each sent member is stored (under the field it sets, or removed when
    /// sent `null` to a merge patch), except fixed ones, a key member and a rule's.
    fn store_sent(&self, fields: &mut Json) {
        let plan = self.plan;
        let model = plan.fields.clone().unwrap_or_default();
        let sent = sent_members(plan, self.input.body.as_ref())
            .cloned()
            .unwrap_or_default();
        let Json::Object(object) = fields else {
            return;
        };
        if model.replace {
            self.replace_unsent(object, &sent, &model.kept);
        } else {
            for key in &model.removed {
                if !sent.contains_key(key) {
                    object.remove(key);
                }
            }
        }
        // The members the application stamps on every update (see
        // `explain::Explanation::stamped_constants`).
        if plan.effect == Effect::Update {
            for (key, value) in &model.constants {
                if !sent.contains_key(key) {
                    object.insert(key, value.clone());
                }
            }
        }
        let key_member = plan
            .target
            .as_ref()
            .and_then(|target| target.key_member.as_deref());
        let mut placed = Vec::new();
        for (key, value) in sent.iter() {
            if is_fixed(plan, key)
                || Some(key) == key_member
                || ruled(plan, key)
                || model.unstored.iter().any(|member| member == key)
            {
                continue;
            }
            if let (Some(gained), Json::Object(entries)) = (model.merged.get(key), value) {
                let merged = super::merged::merge_into(object.get(key), entries, gained);
                object.insert(key, merged);
            } else if let Some(defaults) = model.item_defaults.get(key) {
                object.insert(key, super::item_defaults::stored(defaults, value));
            } else if let Some(pointer) = model.sent_as.get(key) {
                placed.push((pointer.clone(), value.clone()));
            } else if value.is_null() && model.null_removes {
                object.remove(key);
            } else {
                object.insert(key, value.clone());
            }
        }
        for (pointer, value) in placed {
            set_pointer(fields, &pointer, value);
        }
    }

    /// A `PUT` that replaces keeps only the identity, what was sent, what the plan saw kept, and
    /// what a rule explains.
    fn replace_unsent(&self, object: &mut Object, sent: &Object, kept: &[String]) {
        let identity = self
            .plan
            .target
            .as_ref()
            .and_then(|target| target.identity_field.clone())
            .unwrap_or_default();
        let explained: Vec<&String> = self
            .plan
            .rules
            .iter()
            .flat_map(|rule| &rule.explains)
            .collect();
        let keys: Vec<String> = object.keys().map(str::to_owned).collect();
        for key in keys {
            let keep = key == crate::render::identity_member(&identity)
                || sent.contains_key(&key)
                || kept.contains(&key)
                || explained
                    .iter()
                    .any(|pointer| top_field(pointer).as_deref() == Some(key.as_str()));
            if !keep {
                object.remove(&key);
            }
        }
    }
}

/// The sequence values a created entity records: (collection, field, value) for each top-level
/// field a rule explains that holds an integer.
fn sequences_of(plan: &WritePlan, fields: &Json, collection: &str) -> Vec<(String, String, i128)> {
    let mut sequences = Vec::new();
    for learned in &plan.rules {
        for pointer in &learned.explains {
            if let Some(field) = top_field(pointer)
                && let Some(value) = fields.get(&field).and_then(integer)
            {
                sequences.push((collection.to_owned(), field, value));
            }
        }
    }
    sequences
}

/// An updated entity, the values a delete's rules generated for its answer, the placement, and
/// whether a rule keeps a deleted entity (a soft delete).
/// An updated entity, the values rules generated, its placement, whether a delete keeps it, and
/// what a delete does to the entities referring to it.
type Updated = (
    Entity,
    BTreeMap<String, Json>,
    Option<Placement>,
    bool,
    Vec<DependentEffect>,
);

/// The entries of a bulk body's array, in body order, each with the id it names; a keyed
/// batch's row may name none (`keyed`: a row its create names), another bulk write's must.
fn bulk_ids(
    plan: &WritePlan,
    body: Option<&Json>,
    identity: &str,
    keyed: bool,
) -> Result<Vec<(Option<String>, Json)>, Refused> {
    let Some(layout) = plan.body.as_ref().and_then(|body| body.bulk_ids.as_ref()) else {
        return Err(refused("internal_error", "the bulk plan names no id array"));
    };
    let array = body
        .and_then(|body| body.pointer(&layout.pointer))
        .and_then(Json::as_array)
        .ok_or_else(|| {
            refused(
                "invalid_arguments",
                "the body does not name the entities in the array the recorded calls did",
            )
        })?;
    array
        .iter()
        .map(|item| {
            let value = if layout.objects {
                crate::render::identity_value(item, identity)
            } else {
                Some(std::borrow::Cow::Borrowed(item))
            };
            match value.as_deref().and_then(scalar_text) {
                Some(id) => Ok((Some(id), item.clone())),
                None if keyed && layout.objects && value.is_none() => Ok((None, item.clone())),
                None => Err(refused(
                    "invalid_arguments",
                    "an entry of the body's array names no entity",
                )),
            }
        })
        .collect()
}

/// Whether a bulk call may write the entities it names: each held, or, for a keyed batch (the
/// rules its creates apply), named once, with at most one created where its create generates
/// values (two creates of one served call would draw the same; replaying, the recorded values
/// are taken).
fn check_keyed(
    rows: &[(Option<String>, Json)],
    missing: &[Option<&String>],
    created_rules: Option<&[super::model::PlanRule]>,
    collection: &str,
    replaying: bool,
) -> Result<(), Refused> {
    let Some(created_rules) = created_rules else {
        return match missing.first() {
            Some(id) => Err(refused(
                "not_found",
                format!(
                    "the body names an entity the state does not hold ({} of {collection})",
                    Json::from(id.cloned().unwrap_or_default()).to_canonical_string()
                ),
            )),
            None => Ok(()),
        };
    };
    let named: Vec<&String> = rows.iter().filter_map(|(id, _)| id.as_ref()).collect();
    let distinct: std::collections::BTreeSet<&String> = named.iter().copied().collect();
    if distinct.len() != named.len() {
        return Err(refused(
            "invalid_arguments",
            "the body names one entity twice, which the recorded calls never did",
        ));
    }
    if missing.len() > 1 && !created_rules.is_empty() && !replaying {
        return Err(refused(
            "not_modelled",
            "the body creates several entities whose generated values the state draws one call at a time",
        ));
    }
    Ok(())
}

/// The members a bulk body sets on one entity (see [`super::model::BulkIds::entity_members`]).
fn bulk_member_body(
    plan: &WritePlan,
    body: Option<&Json>,
    identity: &str,
    id: &str,
) -> Option<Json> {
    let layout = plan.body.as_ref()?.bulk_ids.as_ref()?;
    let body = body?;
    if !layout.objects && !matches!(body, Json::Object(_)) {
        return None;
    }
    layout.entity_members(body, identity, id).map(Json::Object)
}

/// Installs a prepared change and counts the write.
pub fn commit(state: &mut LiveState, change: &Change) {
    if let Some(document) = &change.document {
        state.put_document(document.clone());
    }
    if let Some((entity_type, collection, charge)) = &change.history {
        state.charge_history(entity_type, collection, *charge);
    }
    for (collection, field, value) in &change.sequences {
        state.record_sequence(collection, field, *value);
    }
    for ((before, after), position) in change.entities.iter().zip(&change.positions) {
        for written in [before, after].into_iter().flatten() {
            state.note_written_key(&crate::store::key_of(written));
        }
        if let (Some(written), Some(Position::Sorted { field, descending })) = (after, position) {
            state.keep_sorted(
                &written.entity_type,
                &written.collection,
                field,
                *descending,
            );
        }
        match (before, after) {
            (Some(before), Some(kept)) if change.keep_deleted => {
                state.remove_entity(&before.entity_type, &before.collection, &before.id);
                state.keep_deleted(kept.clone());
            }
            (Some(before), None) => {
                if state
                    .remove_entity(&before.entity_type, &before.collection, &before.id)
                    .is_none()
                {
                    // A document held only as a row of its folder's listing.
                    state.remove_listed_row(before);
                }
            }
            (None, Some(created)) => {
                state.note_created(created);
                state.insert_entity(
                    created.clone(),
                    position.as_ref().unwrap_or(&Position::Last),
                );
            }
            (Some(_), Some(updated)) => {
                if !state.update_entity(updated.clone(), position.as_ref()) {
                    // A document held only as a row of its folder's listing, overwritten.
                    state.insert_entity(
                        updated.clone(),
                        position.as_ref().unwrap_or(&Position::Last),
                    );
                }
            }
            (None, None) => {}
        }
    }
    for (before, after) in &change.dependents {
        match after {
            Some(after) => {
                state.update_entity(after.clone(), None);
            }
            None => {
                state.remove_entity(&before.entity_type, &before.collection, &before.id);
            }
        }
    }
    for (entity_type, field) in &change.referrers {
        state.keep_referrers(entity_type, field);
    }
    if !change.missing {
        state.count_write();
        for (pointer, value) in &change.counters {
            state.set_counter(pointer, value);
        }
    }
}

/// The body a served write answers: the recorded answer's JSON with the written entity (or its
/// identity, or the members a projection showed) rendered in. `None` for a body that is not JSON
/// (answered as recorded).
pub fn render_response(plan: &WritePlan, recorded: Option<&Json>, change: &Change) -> Option<Json> {
    let rendered = render_written(plan, recorded, change)?;
    let rendered = match plan
        .response
        .as_ref()
        .and_then(|model| model.changed.as_ref())
    {
        Some(changed) => {
            let pointer = plan.response.as_ref()?.pointer.as_deref().unwrap_or("");
            let (before, after) = change.entities.first().cloned().unwrap_or((None, None));
            let written = after.as_ref().or(before.as_ref())?;
            changed.render(rendered, pointer, &change.sent, written)?
        }
        None => rendered,
    };
    let mut rendered = super::sent_names::render(rendered, &change.sent_names);
    if let Some(response) = &plan.response {
        crate::path_echo::mint(&mut rendered, &response.path_echoes, &change.path);
    }
    let counters = change
        .counters
        .iter()
        .map(|(pointer, value)| (pointer.as_str(), value));
    Some(crate::counters::stamp(rendered, counters))
}

/// A recorded answer object showing the members a served call's rules computed (see
/// [`ResponseModel::shows_computed`]) with their stored values, first, as the recorded answers
/// showed them, then its other members.
fn with_computed(recorded: Json, computed: &[String], entity: &Entity) -> Option<Json> {
    let Json::Object(recorded) = recorded else {
        return None;
    };
    let mut body = Object::with_capacity(recorded.len() + computed.len());
    for key in computed {
        body.insert(key, entity.fields.get(key)?.clone());
    }
    for (key, value) in recorded.iter() {
        if !body.contains_key(key) {
            body.insert(key, value.clone());
        }
    }
    Some(Json::Object(body))
}

/// [`render_response`] but for the store counters the write stepped.
fn render_written(plan: &WritePlan, recorded: Option<&Json>, change: &Change) -> Option<Json> {
    let response = plan.response.as_ref()?;
    let recorded = recorded?;
    let pointer = response.pointer.as_deref().unwrap_or("");
    let (before, after) = change.entities.first().cloned().unwrap_or((None, None));
    let written = after.as_ref().or(before.as_ref());
    let generated = change.generated.first().cloned().unwrap_or_default();
    match response.kind {
        ResponseKind::Recorded if !response.renamed.is_empty() || response.shows_computed => {
            render_recorded_members(response, recorded, change, written?)
        }
        ResponseKind::None | ResponseKind::Recorded => Some(recorded.clone()),
        ResponseKind::Count => {
            let count =
                rea_plugin_api::json::Number::from_lexeme(&change.entities.len().to_string())?;
            Some(with_value_at(
                recorded.clone(),
                pointer,
                Json::Number(count),
            ))
        }
        ResponseKind::Rows => {
            let identity = plan.target.as_ref()?.identity_field.as_deref()?;
            let written: Vec<&Entity> = change
                .entities
                .iter()
                .filter_map(|(before, after)| after.as_ref().or(before.as_ref()))
                .collect();
            let items = super::rows::render_rows(response.rows.as_ref()?, identity, &written)?;
            Some(with_value_at(recorded.clone(), pointer, items))
        }
        ResponseKind::Entity if plan.effect == Effect::Document => {
            let document = change.document.as_ref()?;
            Some(with_value_at(
                recorded.clone(),
                pointer,
                document.value.clone(),
            ))
        }
        ResponseKind::Entity if response.member.is_some() => {
            let member = response.member.as_deref()?;
            let shown = written?.fields.get(member)?.clone();
            Some(with_value_at(recorded.clone(), pointer, shown))
        }
        ResponseKind::Entity => {
            let entity = written?;
            let mut fields = entity.fields.clone();
            super::children::shown_children(plan, recorded.pointer(pointer), change, &mut fields);
            if let Some(object) = fields.as_object_mut() {
                for member in &response.nulled_members {
                    if let Some(value) = object.get_mut(member) {
                        *value = Json::Null;
                    }
                }
            }
            let answer = with_value_at(recorded.clone(), pointer, fields);
            Some(super::echoed::render(answer, pointer, &response.echoed))
        }
        ResponseKind::Identity => {
            let entity = written?;
            let identity = plan.target.as_ref()?.identity_field.as_deref()?;
            let value = crate::render::identity_value(&entity.fields, identity)?.into_owned();
            Some(with_value_at(recorded.clone(), pointer, value))
        }
        ResponseKind::Projection => {
            let projected = response.projected.clone().unwrap_or_default();
            render_projection(recorded, pointer, &generated, written?, &projected)
        }
    }
}

/// The recorded answer with the members the write renamed or computed taken from the written
/// entity.
fn render_recorded_members(
    response: &ResponseModel,
    recorded: &Json,
    change: &Change,
    entity: &Entity,
) -> Option<Json> {
    let mut body = recorded.clone();
    for (key, member) in &response.renamed {
        let value = entity.fields.get(member)?.clone();
        body = with_value_at(
            body,
            &format!("/{}", rea_plugin_api::json::escape_pointer_segment(key)),
            value,
        );
    }
    if response.shows_computed {
        body = with_computed(body, &change.computed, entity)?;
    }
    Some(body)
}

/// The recorded answer's object at `pointer`, each member taken from the values the write
/// generated, else from the written entity (envelopes and links as `projected` says), else as
/// recorded.
fn render_projection(
    recorded: &Json,
    pointer: &str,
    generated: &BTreeMap<String, Json>,
    entity: &Entity,
    projected: &super::projected::ProjectedAnswer,
) -> Option<Json> {
    let shown = recorded.pointer(pointer)?.as_object()?;
    let generated = |key: &str| {
        generated
            .get(&format!(
                "/{}",
                rea_plugin_api::json::escape_pointer_segment(key)
            ))
            .cloned()
    };
    let object = super::projected::render(shown, "", projected, &generated, &entity.fields);
    Some(with_value_at(
        recorded.clone(),
        pointer,
        Json::Object(object),
    ))
}

/// The first member every recorded answer carried (at the answer's entity) that a rendered
/// answer lacks.
pub fn missing_member(plan: &WritePlan, rendered: &Json) -> Option<String> {
    let response = plan.response.as_ref()?;
    let shown = rendered.pointer(response.pointer.as_deref().unwrap_or(""))?;
    response
        .required_members
        .iter()
        .find(|member| shown.get(member).is_none())
        .cloned()
}

/// Compares two values for a sort (re-exported for the learners).
pub fn order_of(left: Option<&Json>, right: Option<&Json>) -> std::cmp::Ordering {
    compare_values(left, right)
}

/// The collection key of a collection (re-exported for the learners).
pub fn key(collection: &str) -> &str {
    collection_key(collection)
}

/// The collection a copy lands in. A held member spelling the entity's own path below some root
/// (its key: `notes/untitled.md` for `/api/contents/notes/untitled.md`, the longest such) that the
/// write changed
/// moves the copy under the root to the folders the new value names (`archive/old-notes.md` →
/// `/api/contents/archive`); otherwise the copy stays in the original's collection. Refused when
/// the new value's last part is not the copy's identity, or a folder it names is not spelled as
/// a path segment is (a character a request would percent-encode).
pub(super) fn moved_collection(
    before: &Entity,
    after: &Json,
    copy: &str,
) -> Result<String, Refused> {
    let own: Vec<String> = before
        .collection
        .split('/')
        .filter(|segment| !segment.is_empty())
        .map(|segment| {
            rea_manifest::segments::percent_decode(segment)
                .map_or_else(|| segment.to_owned(), |decoded| decoded.into_owned())
        })
        .chain(std::iter::once(before.id.clone()))
        .collect();
    let (Some(held), Some(now)) = (before.fields.as_object(), after.as_object()) else {
        return Ok(before.collection.clone());
    };
    // The member spelling the most of the path (a full path over a bare name).
    let key = held.iter().filter_map(|(member, value)| {
        let held = value.as_str()?;
        let parts: Vec<&str> = held.split('/').collect();
        let root = own.len().checked_sub(parts.len())?;
        let spells_own = own[root..]
            .iter()
            .zip(&parts)
            .all(|(own, part)| own == part);
        let moved = now.get(member)?.as_str().filter(|moved| *moved != held)?;
        spells_own.then_some((root, moved))
    });
    let key = key.min_by_key(|(root, _)| *root);
    let Some((root, moved)) = key else {
        return Ok(before.collection.clone());
    };
    let parts: Vec<&str> = moved.split('/').collect();
    let Some((last, folders)) = parts.split_last() else {
        return Ok(before.collection.clone());
    };
    if *last != copy || folders.iter().any(|folder| !plain_segment(folder)) {
        return Err(refused(
            "not_modelled",
            "the copy's new key names a place the state cannot spell",
        ));
    }
    let kept = own[..root].iter().map(String::as_str);
    Ok(kept
        .chain(folders.iter().copied())
        .fold(String::new(), |path, segment| format!("{path}/{segment}")))
}

/// Whether a folder name is a path segment as a request spells it (no character it would
/// percent-encode, not empty).
fn plain_segment(segment: &str) -> bool {
    !segment.is_empty()
        && segment
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-._~".contains(c))
}

#[cfg(test)]
mod keyed_tests {
    use super::{check_keyed, respells};
    use crate::writes::model::PlanRule;
    use rea_plugin_api::json::Json;

    #[test]
    fn a_keyed_batch_creates_what_the_state_lacks_once_each() {
        let rows = |ids: &[&str]| -> Vec<(Option<String>, Json)> {
            ids.iter()
                .map(|id| (Some((*id).to_owned()), Json::Null))
                .collect()
        };
        let ids = rows(&["2", "40"]);
        let forty = "40".to_owned();
        let missing = vec![Some(&forty)];
        // A plain bulk update refuses an entity the state lacks; a keyed batch creates it.
        let refused = check_keyed(&ids, &missing, None, "/t", false).expect_err("refused");
        assert_eq!(refused.code, "not_found");
        assert!(check_keyed(&ids, &missing, Some(&[]), "/t", false).is_ok());
        // One entity named twice, or two creates drawing generated values, are refused.
        let twice = rows(&["2", "2"]);
        let refused = check_keyed(&twice, &[], Some(&[]), "/t", false).expect_err("refused");
        assert_eq!(refused.code, "invalid_arguments");
        let generated = [PlanRule {
            stage: "uuid".into(),
            plugin: "rea-uuid".into(),
            explains: vec!["/_id".into()],
            needs_clock: false,
            rule: Json::Null,
        }];
        let two = "2".to_owned();
        let both = vec![Some(&two), Some(&forty)];
        let refused = check_keyed(&ids, &both, Some(&generated), "/t", false).expect_err("refused");
        assert_eq!(refused.code, "not_modelled");
        assert!(check_keyed(&ids, &missing, Some(&generated), "/t", false).is_ok());
        // Replaying, the recorded values are taken: several creates are replayed; a row naming
        // no entity (its create generates the identity) counts as one created.
        assert!(check_keyed(&ids, &both, Some(&generated), "/t", true).is_ok());
        let unnamed = vec![(None, Json::Null), (Some("2".to_owned()), Json::Null)];
        assert!(check_keyed(&unnamed, &[None], Some(&generated), "/t", false).is_ok());
        let refused = check_keyed(&unnamed, &[None, None], Some(&generated), "/t", false)
            .expect_err("refused");
        assert_eq!(refused.code, "not_modelled");
    }

    #[test]
    fn a_rule_sets_a_sent_member_only_when_it_names_it_respelled() {
        let rule = |text: &str| PlanRule {
            stage: "byte-length".into(),
            plugin: "rea-composed".into(),
            explains: vec!["/size".into()],
            needs_clock: false,
            rule: rea_plugin_api::json::parse(text.as_bytes()).expect("json"),
        };
        let named = rule(r#"{"fields": {}, "respells": ["/content"]}"#);
        assert!(respells(&named, "/content"));
        assert!(!respells(&named, "/format"));
        assert!(!respells(&rule(r#"{"fields": {}}"#), "/content"));
        assert!(!respells(&rule(r#"{"respells": "/content"}"#), "/content"));
    }
}

#[cfg(test)]
mod moved_tests {
    use super::moved_collection;
    use crate::model::Entity;
    use rea_plugin_api::json::Json;
    use serde_json::json;

    fn file(collection: &str, id: &str, fields: serde_json::Value) -> Entity {
        Entity {
            entity_type: "/files/{folder}".into(),
            collection: collection.into(),
            id: id.into(),
            fields: Json::from_serde_value(&fields),
            view_fields: Default::default(),
            record_ordinals: Vec::new(),
        }
    }

    #[test]
    fn a_changed_path_key_moves_the_copy_to_the_folder_it_names() {
        let before = file(
            "/files/notes",
            "a.md",
            json!({"name": "a.md", "path": "notes/a.md"}),
        );
        let after =
            |path: &str, name: &str| Json::from_serde_value(&json!({"name": name, "path": path}));
        // Another folder (the full path wins over the bare name).
        let moved = moved_collection(&before, &after("archive/b.md", "b.md"), "b.md");
        assert_eq!(moved.expect("moved"), "/files/archive");
        // The same folder, or to the root of the paths.
        let kept = moved_collection(&before, &after("notes/b.md", "b.md"), "b.md");
        assert_eq!(kept.expect("kept"), "/files/notes");
        let root = moved_collection(&before, &after("b.md", "b.md"), "b.md");
        assert_eq!(root.expect("root"), "/files");
        // A last part that is not the copy's identity, or a folder a request would encode.
        assert!(moved_collection(&before, &after("archive/c.md", "b.md"), "b.md").is_err());
        assert!(moved_collection(&before, &after("my notes/b.md", "b.md"), "b.md").is_err());
    }

    #[test]
    fn a_copy_with_no_path_key_stays_in_its_collection() {
        // Optuna-like: a numeric identity no member spells as a path.
        let before = file("/studies", "3", json!({"study_id": 3, "name": "old"}));
        let after = Json::from_serde_value(&json!({"study_id": 4, "name": "new"}));
        assert_eq!(
            moved_collection(&before, &after, "4").expect("kept"),
            "/studies"
        );
    }
}

/// A sent member's value as a create stores it: an array's items with the members they gain
/// (see `writes::item_defaults`), a merged member's entries with theirs (see `writes::merged`),
/// any other value as sent.
fn created_value(model: &FieldModel, key: &str, value: &Json) -> Json {
    if let Some(defaults) = model.item_defaults.get(key) {
        return super::item_defaults::stored(defaults, value);
    }
    match (model.merged.get(key), value) {
        (Some(gained), Json::Object(entries)) => super::merged::merge_into(None, entries, gained),
        _ => value.clone(),
    }
}

//! Serving a write tool: the call checked against what its plan accepts, applied to the live
//! state, and answered in the plan's recorded answer.
//!
//! A create leaving out a member whose omission the build showed refused answers that recorded
//! refusal first ([`super::omitted`], then a set of members left out together,
//! [`super::omitted_set`]). Refused (a tool error naming the accepted members; the
//! state unchanged): repeated query
//! values, query parameters other than the exemplar's, a body that is not an object (or a body
//! for a write that takes none), a body outside the exemplar's envelope, an unaccepted member, a
//! member of another JSON type than recorded, a fixed member with another value, a missing
//! required member; then whatever applying refuses (a bulk id the state does not hold, a rule
//! that cannot apply, a created id already held, the history budget), and an answer that would
//! lack a member every recorded answer carried. An update or delete of an entity the state does
//! not hold answers the recorded `400`/`404`/`410` (`state.view: "missing"`), or is a tool
//! error when none was recorded; a delete of such an entity answers so whatever query or body it
//! sends (the refusals above are for writes that would change something).
//!
//! Values the write generates are deterministic: the served clock is the state's `write_clock`
//! plus one second per write served since the last reset or load, and the rules derive
//! generated ids from the state Evidence id, the tool, the field and that write count.
//!
//! A write's rule calls are made with no lock held: the write is prepared once on a read view
//! of the live state, only noting the calls its rules make; the calls are made (in one hand-off
//! to the stages' worker, with their deadline); then, under the write lock, the write is
//! prepared again with their answers and committed, if no write took the state meanwhile (what
//! the rules read is then what they were asked about). Otherwise it starts again; after
//! [`OPTIMISTIC_TRIES`] it is prepared under the write lock with the calls made there. So
//! concurrent writes serialize in their commit order, each on the state the one before left,
//! and a slow or hung stage holds up only the write calling it, never the readers and other
//! writers.

use rea_plugin_api::contracts::capture::CompactString;
use rea_plugin_api::json::{Json, Object};
use serde_json::{Map, Value};

use std::sync::RwLockWriteGuard;

use super::apply::{
    Change, Refused, RuleCalls, Values, WriteInput, commit, keep_held_indexes, missing_member,
    prepare, render_response,
};
use super::model::{ResponseKind, WritePlan};
use crate::answer::{StateAnswer, StateSource, state_answer, tool_error};
use crate::call::Call;
use crate::service::StateService;
use crate::store::LiveState;

/// How many times a write is prepared on a read view before it is prepared under the write lock.
pub const OPTIMISTIC_TRIES: usize = 3;

/// The accepted members of a plan, as a refusal names them.
pub fn accepted_members(plan: &WritePlan) -> String {
    let Some(body) = &plan.body else {
        return "none".to_owned();
    };
    if body.none {
        return "none (this write takes no body)".to_owned();
    }
    if body.members.is_empty() {
        return "none".to_owned();
    }
    body.members
        .iter()
        .map(|(name, member)| {
            let mut text = format!(
                "{} ({}",
                Json::String(name.clone().into()).to_canonical_string(),
                member.types.join(" or ")
            );
            if member.required {
                text.push_str(", required");
            }
            if let Some(fixed) = &member.fixed {
                text.push_str(&format!(", only {}", fixed.to_canonical_string()));
            }
            text.push(')');
            text
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn refuse(plan: &WritePlan, problem: &str) -> StateAnswer {
    let envelope = plan
        .body
        .as_ref()
        .map(|body| body.envelope.as_str())
        .filter(|envelope| !envelope.is_empty());
    let wrapped = envelope.map_or_else(String::new, |envelope| {
        format!(" inside the body at {envelope}")
    });
    tool_error(
        "invalid_arguments",
        format!(
            "{problem}; this write accepts the members {}{wrapped}",
            accepted_members(plan)
        ),
    )
}

/// Checks a call against the plan: the body as sent, or the refusal.
fn check(plan: &WritePlan, call: &Call) -> Result<Option<Json>, StateAnswer> {
    let Some(model) = &plan.body else {
        return Err(refuse(plan, "this write's body is not modelled"));
    };
    let model = &*super::required_in::for_call(model, plan, call);
    check_query(plan, model, call)?;
    let body = call.body.as_ref().map(Json::from_serde_value);
    if let Some(member) = plan
        .target
        .as_ref()
        .and_then(|target| target.member.as_ref())
    {
        return match super::member::check_body(member, body.as_ref()) {
            Ok(()) => Ok(body),
            Err(problem) => Err(refuse(plan, &problem)),
        };
    }
    if model.none {
        if body.is_some() {
            return Err(refuse(plan, "this write takes no body"));
        }
        return Ok(None);
    }
    if let Some(layout) = &model.bulk_ids {
        if layout.selected.is_some() {
            return check_selecting(plan, model, body);
        }
        return check_bulk(plan, model, layout, body).map(Some);
    }
    let body = body.unwrap_or_else(|| {
        // No body: the members are sent inside the envelope, empty.
        let mut empty = Json::Object(Object::new());
        if !model.envelope.is_empty() {
            empty = wrap(&model.envelope, empty);
        }
        empty
    });
    if !matches!(body, Json::Object(_)) {
        return Err(refuse(plan, "the body must be a JSON object"));
    }
    let Some(members) = body.pointer(&model.envelope).and_then(Json::as_object) else {
        return Err(refuse(
            plan,
            &format!(
                "the body must be wrapped as the recorded calls wrapped it (its members at {})",
                model.envelope
            ),
        ));
    };
    if !model.envelope.is_empty()
        && wrap(&model.envelope, Json::Object(members.clone())) != without_options(model, &body)
    {
        return Err(refuse(
            plan,
            "the body must hold only the envelope the recorded calls sent (and the options they sent beside it)",
        ));
    }
    check_members(plan, model, members)?;
    Ok(Some(body))
}

/// The query selection of a write selecting its entities by its query (see
/// [`super::selected`]); `None` for another write.
fn selected_by(plan: &WritePlan) -> Option<&super::model::SelectedBy> {
    plan.body.as_ref()?.bulk_ids.as_ref()?.selected.as_deref()
}

/// A selecting write's body: an object whose members are checked as one entity's (its query
/// is checked where it selects).
fn check_selecting(
    plan: &WritePlan,
    model: &super::model::BodyModel,
    body: Option<Json>,
) -> Result<Option<Json>, StateAnswer> {
    let Some(Json::Object(members)) = &body else {
        return Err(refuse(plan, "the body must be a JSON object"));
    };
    check_members(plan, model, members)?;
    Ok(body)
}

/// The call's query must be the exemplar's, each parameter once (a selecting write's is read
/// where it selects).
fn check_query(
    plan: &WritePlan,
    model: &super::model::BodyModel,
    call: &Call,
) -> Result<(), StateAnswer> {
    if selected_by(plan).is_some() {
        return Ok(());
    }
    if call.repeated() {
        return Err(refuse(
            plan,
            "a query parameter has repeated values, which the state does not model",
        ));
    }
    let mut sent_query = call.pairs();
    let mut expected = model.query.clone();
    sent_query.sort();
    expected.sort();
    if sent_query == expected || omits_selection(plan, call) {
        return Ok(());
    }
    let named = if model.query.is_empty() {
        "no query parameters".to_owned()
    } else {
        format!(
            "exactly the query {}",
            model
                .query
                .iter()
                .map(|(name, value)| format!("{name}={value}"))
                .collect::<Vec<_>>()
                .join("&")
        )
    };
    Err(refuse(
        plan,
        &format!(
            "the recorded calls of this write sent {named}, which may change what the body does"
        ),
    ))
}

/// Whether the call sent the recorded calls' query but for the field selection, where they
/// answered the whole written entity (so the selection chose every member): it does what they
/// did and answers the entity as held.
fn omits_selection(plan: &WritePlan, call: &Call) -> bool {
    let (Some(model), Some(response)) = (&plan.body, &plan.response) else {
        return false;
    };
    if response.kind != ResponseKind::Entity || plan.effect != super::model::Effect::Create {
        return false;
    }
    // Names that only select members (`exclude` and `include` may change what else is shown).
    let selection =
        |name: &str| crate::query::is_projection(name) && !matches!(name, "exclude" | "include");
    let mut expected: Vec<(String, String)> = model
        .query
        .iter()
        .filter(|(name, _)| !selection(name))
        .cloned()
        .collect();
    if expected.len() == model.query.len() {
        return false;
    }
    let mut sent_query = call.pairs();
    sent_query.sort();
    expected.sort();
    sent_query == expected
}

/// A bulk body must name the entities in the array the recorded calls did; what it sends each
/// entity (the members beside the array, or each entry's object) is checked as one call's.
fn check_bulk(
    plan: &WritePlan,
    model: &super::model::BodyModel,
    layout: &super::model::BulkIds,
    body: Option<Json>,
) -> Result<Json, StateAnswer> {
    let Some(body) = body else {
        return Err(refuse(plan, "the body must name the entities to write"));
    };
    let Some(items) = body.pointer(&layout.pointer).and_then(Json::as_array) else {
        return Err(refuse(
            plan,
            &format!(
                "the body must name the entities in an array at {:?}, as the recorded calls did",
                layout.pointer
            ),
        ));
    };
    // Each entity's members: those beside the id array, or its object in the array (beside
    // which the body holds only the options the recorded calls sent there).
    if layout.objects
        && let Json::Object(beside) =
            without_options(model, &Json::Object(layout.members_beside(&body)))
        && let Some((name, _)) = beside.iter().next()
    {
        return Err(refuse(
            plan,
            &format!(
                "the body sends {} beside the array at {:?}, which the recorded calls never sent there",
                Json::String(name.into()).to_canonical_string(),
                layout.pointer
            ),
        ));
    }
    let entries: Vec<Object> = if layout.objects {
        let identity = plan
            .target
            .as_ref()
            .and_then(|target| target.identity_field.as_deref())
            .unwrap_or("");
        let mut entries = Vec::with_capacity(items.len());
        for item in items {
            let Json::Object(members) = item else {
                return Err(refuse(
                    plan,
                    "each entry of the body's array must be an object naming its entity",
                ));
            };
            let mut members = members.clone();
            // A keyed batch's rows are learned whole (the identity among their members).
            if plan.upsert.is_none() {
                members.remove(identity);
            }
            entries.push(members);
        }
        entries
    } else {
        vec![layout.members_beside(&body)]
    };
    for members in &entries {
        check_members(plan, model, members)?;
    }
    Ok(body)
}

/// Checks the members a call sends one entity: each accepted, of a recorded JSON type, a fixed
/// member with its value; every required member sent.
fn check_members(
    plan: &WritePlan,
    model: &super::model::BodyModel,
    members: &Object,
) -> Result<(), StateAnswer> {
    for (name, value) in members.iter() {
        let quoted = Json::String(name.into()).to_canonical_string();
        let Some(member) = model.members.get(name) else {
            if model.open {
                continue;
            }
            return Err(refuse(
                plan,
                &format!("the member {quoted} was never shown stored by this write"),
            ));
        };
        if !member.types.iter().any(|kind| kind == value.type_name()) {
            return Err(refuse(
                plan,
                &format!(
                    "the member {quoted} is a {}, but the recorded calls sent a {}",
                    value.type_name(),
                    member.types.join(" or ")
                ),
            ));
        }
        if let Some(fixed) = &member.fixed
            && fixed != value
        {
            return Err(refuse(
                plan,
                &format!(
                    "the member {quoted} is accepted only with its recorded value {}",
                    fixed.to_canonical_string()
                ),
            ));
        }
    }
    for (name, member) in &model.members {
        if member.required && !members.contains_key(name) {
            return Err(refuse(
                plan,
                &format!(
                    "the member {} is required: every recorded call sent it",
                    Json::String(name.clone().into()).to_canonical_string()
                ),
            ));
        }
    }
    Ok(())
}

/// A value wrapped in an envelope pointer (`/data`, `/posts/0`).
/// The body without the options the recorded calls sent beside its envelope, each of a type they
/// sent it with.
fn without_options(model: &super::model::BodyModel, body: &Json) -> Json {
    let Json::Object(object) = body else {
        return body.clone();
    };
    let mut rest = object.clone();
    for (name, option) in &model.options {
        if rest
            .get(name)
            .is_some_and(|value| option.types.iter().any(|kind| kind == value.type_name()))
        {
            rest.remove(name);
        }
    }
    Json::Object(rest)
}

fn wrap(envelope: &str, value: Json) -> Json {
    let mut parts: Vec<&str> = envelope.trim_start_matches('/').split('/').collect();
    parts.retain(|part| !part.is_empty());
    let mut current = value;
    for part in parts.iter().rev() {
        let name = rea_plugin_api::json::unescape_pointer_segment(part);
        current = if name == "0" {
            Json::Array(vec![current])
        } else {
            let mut object = Object::with_capacity(1);
            object.insert(name, current);
            Json::Object(object)
        };
    }
    current
}

/// The recorded refusal of a taken value a withheld write's plan learned (see
/// [`super::conflict`]), for a call sending, where its recorded calls sent their members, a value
/// the live collection holds in that member; `None` otherwise (the withheld write answers as
/// withheld). The body model is not asked: a withheld plan's model knows only the values its few
/// calls sent, and the refusal depends on the taken value alone.
pub fn withheld_conflict(
    service: &StateService,
    plan: &WritePlan,
    arguments: &Map<String, Value>,
) -> Option<StateAnswer> {
    if plan.conflicts.is_empty() {
        return None;
    }
    let definition = service.replay().tool(&plan.tool)?;
    let call = Call::resolve(definition, arguments);
    let input = WriteInput {
        segments: call.segments(&plan.path_template),
        body: call.body.as_ref().map(Json::from_serde_value),
        listed: None,
        query: Vec::new(),
    };
    super::conflict::answer(service, plan, &input)
}

/// Serves one call of a served write tool: alone when it is a batch, beside other single
/// writes otherwise (`StateService::batch_writes`).
pub fn write_call(
    service: &StateService,
    plan: &WritePlan,
    arguments: &Map<String, Value>,
) -> StateAnswer {
    if plan.batch.is_some() || plan.guarded.is_some() {
        let _alone = service.batch_writes();
        return gated_write_call(service, plan, arguments);
    }
    let _beside = service.one_write();
    gated_write_call(service, plan, arguments)
}

/// Serves one call of a served write tool, its caller holding the write gate (a batch's
/// sub-requests run under the batch's).
pub(super) fn gated_write_call(
    service: &StateService,
    plan: &WritePlan,
    arguments: &Map<String, Value>,
) -> StateAnswer {
    let Some(definition) = service.replay().tool(&plan.tool) else {
        return tool_error("unknown_tool", format!("no tool named {}", plan.tool));
    };
    // (The server checked the arguments against the tool's input schema before this runs.)
    let call = Call::resolve(definition, arguments);
    if let Some(answer) = served_by_model(service, plan, &call) {
        return answer;
    }
    if let Some(refused) = super::omitted::answer(service, plan, &call) {
        return refused;
    }
    if let Some(refused) = super::omitted_set::answer(service, plan, &call) {
        return refused;
    }
    if let Some(refused) = super::keyed_refusal::answer(service, plan, &call) {
        return refused;
    }
    if let Some(refused) = super::lent_omission::answer(service, plan, &call) {
        return refused;
    }
    if let Some(refused) = super::type_refusal::answer(service, plan, &call) {
        return refused;
    }
    if let Some(refused) = super::encoded_members::answer(service, plan, &call) {
        return refused;
    }
    let body = match check(plan, &call) {
        Ok(body) => body,
        Err(refusal) => return missing_delete(service, plan, &call).unwrap_or(refusal),
    };
    let input = WriteInput {
        segments: call.segments(&plan.path_template),
        body,
        listed: None,
        query: match selected_by(plan) {
            Some(_) => super::selected::served_query(definition, arguments),
            None => Vec::new(),
        },
    };
    if let Some(refused) = recorded_refusal(service, plan, &input) {
        return refused;
    }
    let (mut live, outcome) = prepared(service, plan, &input);
    let mut change = match outcome {
        Ok(change) => change,
        Err(refused) => return tool_error(refused.code, refused.message),
    };
    change.plain = omits_selection(plan, &call);
    if change.missing {
        return missing_answer(service, plan, &input.segments, &call.pairs());
    }
    let Some(answering) = plan.answering_options(input.body.as_ref()) else {
        return refuse(
            plan,
            "the recorded calls never sent these options beside the envelope, so their answer is not known",
        );
    };
    let answer = written_answer(service, &answering, &change, &input.segments);
    if answer.is_error() {
        return answer;
    }
    let grown = service.report_bytes(&live) as i128 + report_growth(&live, &change);
    if grown > crate::store::MAX_STATE_BYTES as i128 {
        return tool_error(
            "resource_constraint",
            format!(
                "this write would grow the state past the {}-byte limit data/get may report and data/add loads; reset the state (data/reset) or delete entities first",
                crate::store::MAX_STATE_BYTES
            ),
        );
    }
    commit(&mut live, &change);
    live.clear_refusals(&plan.tool);
    answer
}

/// A call of a write its own model serves (a batch, a guarded batch, a relationship or
/// collection link write, a range delete's call sending a range), answered by that model;
/// `None` for any other plan.
fn served_by_model(service: &StateService, plan: &WritePlan, call: &Call) -> Option<StateAnswer> {
    if let Some(batch) = &plan.batch {
        return Some(super::batch::serve(service, batch, call));
    }
    if let Some(guarded) = &plan.guarded {
        return Some(super::guarded::serve(service, guarded, call));
    }
    if let Some(relationship) = &plan.relationship {
        return Some(super::relationship::serve(
            service,
            plan,
            relationship,
            call,
        ));
    }
    if let Some(to_many) = &plan.to_many {
        return Some(super::to_many::serve(service, plan, to_many, call));
    }
    if let Some(ranged) = &plan.ranged
        && super::ranged::selects_range(ranged, call.body.as_ref())
    {
        return Some(super::ranged::serve(service, plan, ranged, call));
    }
    let links = plan.links.as_ref()?;
    Some(super::collection_links::serve(service, plan, links, call))
}

/// The recorded refusal a call gets for a constant refusal, a taken value or a referenced
/// entity, noted as a refusal of the tool (what a sequence learned consumes a number reads).
fn recorded_refusal(
    service: &StateService,
    plan: &WritePlan,
    input: &WriteInput,
) -> Option<StateAnswer> {
    let refused = super::constant_refusal::answer(service, plan, input)
        .or_else(|| super::conflict::answer(service, plan, input))
        .or_else(|| super::referenced::answer(service, plan, input))?;
    if let Some(status) = refused.status() {
        service.write().note_refusal(&plan.tool, status);
    }
    Some(refused)
}

/// A call's change, prepared with its rules' answers, and the write lock to commit it under
/// (see the module's doc).
pub(super) fn prepared<'s>(
    service: &'s StateService,
    plan: &WritePlan,
    input: &WriteInput,
) -> (RwLockWriteGuard<'s, LiveState>, Result<Change, Refused>) {
    let calls_rules = !plan.rules.is_empty()
        || plan
            .upsert
            .as_ref()
            .is_some_and(|upsert| !upsert.rules.is_empty());
    let tries = if calls_rules { OPTIMISTIC_TRIES } else { 0 };
    for _ in 0..tries {
        let (noted, taken) = {
            let (live, taken) = service.read_counted();
            let noted = RuleCalls::noting();
            // What the write refuses is refused again under the write lock.
            let _ = prepare_with(service, plan, &live, input, &noted);
            (noted, taken)
        };
        let answered = noted.answer().unwrap_or_default();
        if let Some(mut live) = service.write_unless_taken(taken) {
            keep_held_indexes(plan, service.rules(), &mut live, input);
            let change = prepare_with(service, plan, &live, input, &answered);
            return (live, change);
        }
    }
    let mut live = service.write();
    keep_held_indexes(plan, service.rules(), &mut live, input);
    let change = prepare_with(service, plan, &live, input, &RuleCalls::Now);
    (live, change)
}

/// [`prepare`] of a served call on `live`, its rule calls made as `calls` says.
pub(super) fn prepare_with(
    service: &StateService,
    plan: &WritePlan,
    live: &LiveState,
    input: &WriteInput,
    calls: &RuleCalls,
) -> Result<Change, Refused> {
    let clock = service
        .derived()
        .write_clock
        .as_deref()
        .and_then(|start| crate::instant::served_clock(start, live.writes()));
    let values = Values::Served {
        clock,
        state_evidence_id: service.state_evidence_id(),
        draw_seed: service.draw_seed(),
        calls,
    };
    let listed = super::listed::listed_row(service, plan, input, live).map(|row| WriteInput {
        listed: Some(row),
        ..input.clone()
    });
    prepare(
        plan,
        service.rules(),
        live,
        listed.as_ref().unwrap_or(input),
        &values,
    )
}

/// The answer for an update or delete of an entity the state does not hold: the recorded
/// A delete whose query or body the plan refuses, of an entity the state does not hold: the
/// missing entity's answer, as the application answers a delete of nothing whatever it sends
/// with it (`None`: the plan is no delete, or the state holds the entity).
fn missing_delete(service: &StateService, plan: &WritePlan, call: &Call) -> Option<StateAnswer> {
    if plan.effect != super::model::Effect::Delete || plan.bulk {
        return None;
    }
    let input = WriteInput {
        segments: call.segments(&plan.path_template),
        body: None,
        listed: None,
        query: Vec::new(),
    };
    let missing = {
        let (_live, outcome) = prepared(service, plan, &input);
        matches!(outcome, Ok(change) if change.missing)
    };
    missing.then(|| missing_answer(service, plan, &input.segments, &call.pairs()))
}

/// `400`/`404`/`410` naming the call's entity (see [`crate::missing`]), else a tool error.
fn missing_answer(
    service: &StateService,
    plan: &WritePlan,
    segments: &[CompactString],
    pairs: &[(String, String)],
) -> StateAnswer {
    match plan
        .missing_ordinal
        .and_then(|ordinal| service.kept(ordinal))
    {
        Some(missing) => crate::missing::missing_answer(
            missing,
            (segments, pairs),
            service.replay_evidence_id(),
            false,
        ),
        None => tool_error(
            "not_found",
            "the state holds no such entity, and the capture recorded no 400, 404 or 410 answer to give",
        ),
    }
}

/// What the state says a served write wrote: the view, the collection (or document path), the
/// entity (the first, for a bulk write) and a bulk write's entities in body order.
fn write_source(plan: &WritePlan, change: &Change) -> StateSource {
    let written: Vec<String> = change
        .entities
        .iter()
        .filter_map(|(before, after)| after.as_ref().or(before.as_ref()))
        .map(|entity| entity.id.clone())
        .collect();
    StateSource::Write {
        source: "state",
        view: change.view,
        collection: change
            .entities
            .first()
            .and_then(|(before, after)| after.as_ref().or(before.as_ref()))
            .map(|entity| entity.collection.clone())
            .or_else(|| {
                change
                    .document
                    .as_ref()
                    .map(|document| document.path.clone())
            }),
        id: written.first().cloned(),
        ids: plan.bulk.then(|| written.clone()),
    }
}

/// A served write's answer, in its recorded answer (an upsert's call that created its entity
/// answers as the creating calls did); an error when the answer cannot be rendered or lacks a
/// member every recorded answer carried. An answer served as recorded names the call's path
/// values where it spelled the recorded request's in a string
/// ([`crate::missing::recorded_write_answer`]).
fn written_answer(
    service: &StateService,
    plan: &WritePlan,
    change: &Change,
    segments: &[CompactString],
) -> StateAnswer {
    let created = (plan.effect == super::model::Effect::Update && change.view == "create")
        .then(|| plan.upsert_plan())
        .flatten();
    let plan = created.as_ref().unwrap_or(plan);
    let Some(response) = &plan.response else {
        return tool_error("internal_error", "the write plan has no recorded answer");
    };
    let Some(base) = service.kept(response.ordinal) else {
        return tool_error(
            "internal_error",
            "the write's recorded answer is not retained",
        );
    };
    let source = write_source(plan, change);
    match response.kind {
        ResponseKind::None | ResponseKind::Recorded
            if response.renamed.is_empty()
                && change.counters.is_empty()
                && (change.computed.is_empty() || !response.shows_computed) =>
        {
            crate::missing::recorded_write_answer(
                base,
                segments,
                service.replay_evidence_id(),
                source,
            )
        }
        ResponseKind::Entity
        | ResponseKind::Projection
        | ResponseKind::Identity
        | ResponseKind::Recorded
        | ResponseKind::Rows
        | ResponseKind::Count
        | ResponseKind::None => {
            let Some(body) = render_response(plan, base.json(), change) else {
                return tool_error(
                    "internal_error",
                    "the write's answer cannot be rendered from its recorded answer",
                );
            };
            if let Some(member) = missing_member(plan, &body) {
                return tool_error(
                    "incomplete_entity",
                    format!(
                        "the written entity lacks the member {} every recorded answer of this write carried; send it",
                        Json::String(member.into()).to_canonical_string()
                    ),
                );
            }
            state_answer(base, body, service.replay_evidence_id(), false, source)
        }
    }
}

/// How many bytes a change adds to what `data/get` writes (negative when it shrinks the state).
fn report_growth(live: &crate::store::LiveState, change: &super::apply::Change) -> i128 {
    use crate::store::{document_report_bytes, entity_report_bytes};
    let size = |entity: &Option<crate::model::Entity>| -> (i128, i128) {
        match entity {
            Some(entity) => (entity_report_bytes(entity) as i128, 1),
            None => (0, 0),
        }
    };
    let mut bytes = 0i128;
    let mut count = 0i128;
    for (before, after) in &change.entities {
        let (before_bytes, before_count) = size(before);
        let (after_bytes, after_count) = if change.keep_deleted {
            (0, 0)
        } else {
            size(after)
        };
        bytes += after_bytes - before_bytes;
        count += after_count - before_count;
    }
    if let Some(document) = &change.document {
        let old = live.document(&document.view, &document.path);
        bytes += document_report_bytes(document) as i128
            - old.map_or(0, |old| document_report_bytes(old) as i128);
        if old.is_none() && live.document_count() > 0 {
            bytes += 1;
        }
    }
    // One comma per entity added beside others (or removed from among them).
    let held = live.len() as i128;
    let commas = |entities: i128| (entities - 1).max(0);
    bytes + commas(held + count) - commas(held)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::writes::model::{BodyModel, MemberModel};

    #[test]
    fn options_beside_an_envelope_are_taken_only_as_recorded() {
        let model = BodyModel {
            envelope: "/update".into(),
            options: [(
                "return".to_owned(),
                MemberModel {
                    types: vec!["boolean".into()],
                    required: false,
                    fixed: None,
                },
            )]
            .into(),
            ..BodyModel::default()
        };
        let json = |text: &str| Json::parse(text.as_bytes()).expect("JSON");
        let members = json(r#"{"status": "done"}"#);
        let wrapped = wrap(&model.envelope, members);
        for (text, taken) in [
            (r#"{"update": {"status": "done"}}"#, true),
            (r#"{"update": {"status": "done"}, "return": false}"#, true),
            (r#"{"update": {"status": "done"}, "return": "yes"}"#, false),
            (r#"{"update": {"status": "done"}, "alter": true}"#, false),
        ] {
            let left = without_options(&model, &json(text));
            assert_eq!(left == wrapped, taken, "{text}");
        }
    }
}

//! Pass 3: a plan's body, field model, rules and answer, from its observed calls.
//!
//! Per plan, in order: the target the calls settle (an unlinked or literal write takes the type
//! its calls showed), the body (the envelope the calls share, each member's JSON types, whether
//! every call sent it), the observed calls (those showing the written entity before and after),
//! what explains their changes ([`super::explain`]: the calls themselves, then the rule stages in
//! pipeline order; anything left makes the plan `unexplained-change`), the members a call may
//! send besides those recorded, and the answer (the exemplar's, and the recorded `400`/`404`/`410`
//! a missing entity answers). A bulk plan learns each entity its calls named as one call; a `PUT`
//! that created the entity its path names learns those calls apart, as a create (its `upsert`).

use std::collections::{BTreeMap, BTreeSet};

use rea_plugin_api::contracts::capture::CaptureRecord;
use rea_plugin_api::json::{Json, Object};

use super::explain::{Explanation, Observed, learn_request, pointer_of, template_segments};
use super::model::{
    BodyModel, BulkIds, Effect, FieldModel, MemberModel, OptionedAnswer, ResponseKind,
    ResponseModel, UpsertModel, WritePlan, WriteTarget,
};
use super::observe::{After, Call, bulk_layout};
use super::shapes::drop_unshown_shapes;
use super::target::{Classified, TargetKind};
use super::{Draft, ItemInfo, TypeInfo, Views};
use crate::observation::RequestBody;
use crate::render::scalar_text;
use crate::rules::RuleSet;

/// The envelope the calls' bodies share (see [`BodyModel::envelope`]).
fn envelope(bodies: &[&Json], preferred: &str, entity_keys: &BTreeSet<String>) -> String {
    if bodies.is_empty() {
        return String::new();
    }
    if !preferred.is_empty()
        && bodies
            .iter()
            .all(|body| matches!(body.pointer(preferred), Some(Json::Object(_))))
    {
        return preferred.to_owned();
    }
    // One member holding the object (or a one-element array of it), not a field of the entity;
    // beside an object, scalar options that are no field of the entity either.
    let single = |body: &Json| -> Option<String> {
        let object = body.as_object()?;
        if object.keys().any(|key| entity_keys.contains(key)) {
            return None;
        }
        let mut holders = object
            .iter()
            .filter(|(_, value)| matches!(value, Json::Object(_) | Json::Array(_)));
        let (key, value) = holders.next()?;
        if holders.next().is_some() {
            return None;
        }
        match value {
            Json::Object(_) => Some(pointer_of(key)),
            Json::Array(items)
                if object.len() == 1 && items.len() == 1 && matches!(items[0], Json::Object(_)) =>
            {
                Some(format!("{}/0", pointer_of(key)))
            }
            _ => None,
        }
    };
    let first = single(bodies[0]);
    match first {
        Some(pointer)
            if bodies
                .iter()
                .all(|body| single(body).as_ref() == Some(&pointer)) =>
        {
            pointer
        }
        _ => String::new(),
    }
}

/// Learns a draft's plan from its calls (pass 3). A `PUT` of an item path whose calls created
/// the entity when the state did not hold it (an upsert) learns its two halves apart: the
/// updates as an update, the creating calls as a create (see [`UpsertModel`]).
pub(crate) fn learn(
    draft: &mut Draft,
    calls: &mut [Call],
    views: &Views,
    rules: &RuleSet,
    records: &[CaptureRecord],
) {
    // A create tool whose calls send one object or an array of them (a batch) is learned from
    // the one-object calls: a served call sends one object, and the confirmation adopts what
    // each batch call was observed to leave.
    let mut batches = batch_create_calls(draft, calls);
    if !batches.is_empty() && batches.len() < draft.calls.len() {
        draft.calls.retain(|call| !batches.contains(call));
    } else {
        batches.clear();
    }
    // Likewise a create into a collection whose earlier content is unknown (an unmodelled write
    // made it) beside creates into held collections: the confirmation adopts it. Where every
    // call is such a create, they are the plan's calls, learned and replayed.
    if draft
        .calls
        .iter()
        .any(|call| !calls[*call].unknown_collection)
    {
        draft.calls.retain(|call| !calls[*call].unknown_collection);
    } else {
        for call in &draft.calls {
            calls[*call].unknown_collection = false;
        }
    }
    if super::keyed::keyed_batch(draft, calls) {
        return super::keyed::learn_keyed(draft, calls, views, rules, records);
    }
    let creating = upsert_creating_calls(draft, calls);
    if creating.is_empty() {
        learn_one(draft, calls, views, rules, records);
        adopt_batch_options(draft, calls, &batches);
    } else {
        learn_upsert(draft, calls, views, rules, records, creating);
    }
}

/// The calls of a create (not bulk) that sent an array of objects.
fn batch_create_calls(draft: &Draft, calls: &[Call]) -> Vec<usize> {
    if draft.plan.effect != Effect::Create || draft.plan.bulk {
        return Vec::new();
    }
    draft
        .calls
        .iter()
        .copied()
        .filter(|call| super::observe::batch_call(&calls[*call]))
        .collect()
}

/// The options the dropped batch calls sent beside their array, taken by the one-object body
/// the plan learned (see [`super::batch_options`]).
fn adopt_batch_options(draft: &mut Draft, calls: &[Call], batches: &[usize]) {
    let bodies: Vec<&Json> = batches
        .iter()
        .filter_map(|call| match &calls[*call].request {
            RequestBody::Json(body) => Some(body),
            _ => None,
        })
        .collect();
    if let Some(body) = draft.plan.body.as_mut() {
        super::batch_options::adopt(body, &bodies);
    }
}

/// The calls of an upsert (a `PUT` of an item path) that created their entity; none when the
/// tool is no upsert.
fn upsert_creating_calls(draft: &Draft, calls: &[Call]) -> Vec<usize> {
    let by_path = draft.plan.action.is_none()
        && draft.plan.method.eq_ignore_ascii_case("PUT")
        && draft.classified.key_member.is_none();
    let by_body = draft.classified.key_member.is_some();
    let upsert = draft.plan.effect == Effect::Update
        && !draft.plan.bulk
        && (by_path || by_body)
        && matches!(draft.classified.kind, TargetKind::Item { .. });
    if !upsert {
        return Vec::new();
    }
    draft
        .calls
        .iter()
        .copied()
        .filter(|call| {
            let call = &calls[*call];
            call.before.is_none() && call.key.is_some() && matches!(call.after, After::Present(_))
        })
        .collect()
}

/// Learns an upsert's updates as the plan and its creating calls as its `upsert`.
fn learn_upsert(
    draft: &mut Draft,
    calls: &mut [Call],
    views: &Views,
    rules: &RuleSet,
    records: &[CaptureRecord],
    creating: Vec<usize>,
) {
    let all = draft.calls.clone();
    let mut half = Draft {
        tool: draft.tool,
        classified: Classified {
            effect: Effect::Create,
            action: None,
            bulk: false,
            kind: draft.classified.kind.clone(),
            key_member: None,
        },
        plan: WritePlan {
            effect: Effect::Create,
            ..draft.plan.clone()
        },
        calls: creating.clone(),
        failed: Vec::new(),
        as_bulk: false,
        stamped: draft.stamped.clone(),
    };
    learn_one(&mut half, calls, views, rules, records);
    // An upsert naming its entity by a body member (an RPC-style put) learns its update from
    // every call, as it did before the creates were told apart: its answer need not show the
    // entity, and the creating calls show what the update's rules do to the members sent.
    if draft.classified.key_member.is_none() {
        draft.calls = all
            .iter()
            .copied()
            .filter(|call| !creating.contains(call))
            .collect();
    }
    if draft.calls.is_empty() {
        // Only creating calls: what an update of a held entity does is unknown.
        draft.plan.target = half.plan.target.clone();
        draft.plan.body = half.plan.body.clone();
        draft.plan.response = half.plan.response.clone();
        draft.plan.exemplar_ordinal = half.plan.exemplar_ordinal;
        draft.plan.withhold("no-observation");
    } else {
        learn_one(draft, calls, views, rules, records);
    }
    draft.calls = all;
    note_calls(draft, calls);
    if let Some(reason) = &half.plan.reason {
        draft.plan.withhold(reason);
    }
    unstore_differing_fixed(&mut draft.plan, &mut half.plan);
    if let (Some(body), Some(created)) = (draft.plan.body.as_mut(), half.plan.body.as_ref()) {
        merge_upsert_body(body, created);
    }
    draft.plan.upsert = Some(UpsertModel {
        record_ordinals: half.plan.record_ordinals,
        fields: half.plan.fields,
        rules: half.plan.rules,
        response: half.plan.response,
    });
}

/// A member the creating half of an upsert fixed (sent with one value, never stored) that the
/// updating half sent otherwise is unstored in the creates (see [`super::merged`]); where the
/// updates fixed it at another value, it was sent with several values and stored by no call, so
/// it is unstored in both.
fn unstore_differing_fixed(update: &mut WritePlan, create: &mut WritePlan) {
    let (Some(updated), Some(created)) = (update.body.as_ref(), create.body.as_ref()) else {
        return;
    };
    let mut in_creates = Vec::new();
    let mut in_both = Vec::new();
    for (name, member) in &created.members {
        let (Some(value), Some(other)) = (&member.fixed, updated.members.get(name)) else {
            continue;
        };
        match &other.fixed {
            Some(fixed) if fixed == value => {}
            Some(_) => in_both.push(name.clone()),
            None => in_creates.push(name.clone()),
        }
    }
    if let Some(fields) = update.fields.as_mut() {
        fields.unstored.extend(in_both.iter().cloned());
    }
    if let Some(fields) = create.fields.as_mut() {
        fields
            .unstored
            .extend(in_creates.into_iter().chain(in_both));
    }
}

/// The body accepts what either half's calls sent; a member only some calls sent is optional.
pub(super) fn merge_upsert_body(body: &mut BodyModel, created: &BodyModel) {
    for (name, member) in body.members.iter_mut() {
        match created.members.get(name) {
            Some(other) => {
                member.required &= other.required;
                for kind in &other.types {
                    if !member.types.contains(kind) {
                        member.types.push(kind.clone());
                    }
                }
                member.types.sort();
                if member.fixed != other.fixed {
                    member.fixed = None;
                }
            }
            None => member.required = false,
        }
    }
    for (name, member) in &created.members {
        body.members
            .entry(name.clone())
            .or_insert_with(|| MemberModel {
                required: false,
                ..member.clone()
            });
    }
}

/// A bulk plan by the layout its calls share: an id array every body holds (`layout`), else
/// the query every call selects by (see [`super::selected`]); neither withholds it `body-unusable`.
fn learn_bulk_layout(
    draft: &mut Draft,
    calls: &mut [Call],
    (views, rules, records): (&Views, &RuleSet, &[CaptureRecord]),
    layout: Option<BulkIds>,
    query: Vec<(String, String)>,
) {
    match layout {
        Some(layout) => learn_bulk(draft, calls, views, rules, records, layout, query),
        None => match super::selected::layout(draft, calls, views) {
            Some(layout) => super::selected::learn(draft, calls, (views, rules, records), layout),
            None => draft.plan.withhold("body-unusable"),
        },
    }
}

/// The calls and the exemplar a plan names, whatever is decided (a withheld write names its
/// exemplar).
pub(super) fn note_calls(draft: &mut Draft, calls: &[Call]) {
    draft.plan.record_ordinals = draft
        .calls
        .iter()
        .map(|call| calls[*call].ordinal)
        .collect();
    draft.plan.exemplar_ordinal = draft.plan.record_ordinals.first().copied();
}

/// Learns one plan from its draft's calls, step by step (see the module docs); the first step
/// that cannot go on withholds the plan with its reason.
pub(super) fn learn_one(
    draft: &mut Draft,
    calls: &mut [Call],
    views: &Views,
    rules: &RuleSet,
    records: &[CaptureRecord],
) {
    note_calls(draft, calls);
    if let Err(reason) = settle_target(draft, calls, views) {
        draft.plan.withhold(reason);
        return;
    }
    let written = Written::of(&draft.plan, views);
    let bodies = match request_bodies(draft, calls) {
        Ok(bodies) => bodies,
        Err(reason) => return draft.plan.withhold(reason),
    };
    let query = calls[draft.calls[0]].query.clone().unwrap_or_default();
    if draft.plan.bulk {
        let layout = common_bulk_layout(&bodies);
        return learn_bulk_layout(draft, calls, (views, rules, records), layout, query);
    }
    let calls: &[Call] = calls;
    let (mut body, sent) = match learn_body(draft, calls, &bodies, query, &written.preferred) {
        Ok(learned) => learned,
        Err(reason) => return draft.plan.withhold(reason),
    };
    let observed = match observed_calls(draft, calls) {
        Ok(observed) => observed,
        Err(reason) => return draft.plan.withhold(reason),
    };
    let observed: Vec<Observed<'_>> = observed
        .iter()
        .map(|&index| Observed {
            call: &calls[draft.calls[index]],
            sent: &sent[index],
        })
        .collect();
    draft.plan.copies = match copies_on_every_call(&observed) {
        Ok(copies) => copies,
        Err(reason) => return draft.plan.withhold(reason),
    };
    let mut explanation = explain(draft, calls, &observed, (&written, views, records), rules);
    let fields = explanation.field_model(&draft.plan, &observed);
    fix_members(&mut body, &explanation.fixed);
    if draft.plan.effect == Effect::Update {
        let key = draft.classified.key_member.as_deref();
        drop_unobserved_members(&mut body, &observed, &fields, key);
    }
    partial_put(&mut body, draft, &fields);
    super::merge_once::unrequire(&mut body, draft, calls, &fields, &written.identity);
    draft.plan.fields = Some(fields);
    accept_stored_members(&mut body, draft, views, &written);
    refuse_unshown_shapes(&mut body, draft, views, &written, (&sent, &observed));
    draft.plan.body = Some(body);
    if let Err(reason) = learn_answer(draft, calls, records, &written) {
        return draft.plan.withhold(reason);
    }
    learn_changed_members(draft, &observed);
    if let Some(response) = draft.plan.response.as_mut()
        && response.kind == ResponseKind::Recorded
    {
        response.shows_computed = shows_computed(&observed);
    }
    if explanation.unexplained() {
        tracing::debug!(
            tool = draft.plan.tool.as_str(),
            unexplained = ?explanation
                .residuals
                .iter()
                .map(|residual| residual.keys().cloned().collect::<Vec<_>>())
                .collect::<Vec<_>>(),
            "the rules left changes of the observed calls unexplained"
        );
        draft.plan.withhold("unexplained-change");
    }
}

/// Whether the update copies its entity under a new identity: it must do so on every observed
/// call or on none (else `unexplained-change`).
fn copies_on_every_call(observed: &[Observed<'_>]) -> Result<bool, &'static str> {
    let copies = observed
        .iter()
        .filter(|seen| seen.call.copy.is_some())
        .count();
    if copies > 0 && copies < observed.len() {
        return Err("unexplained-change");
    }
    Ok(copies > 0)
}

/// Whether every observed call's answer shows, beside the members all the answers share, exactly
/// the members the call sent that the entity stores otherwise, with their stored values, and some
/// call sent such a member (see `ResponseModel::shows_computed`).
fn shows_computed(observed: &[Observed<'_>]) -> bool {
    let mut shared: Option<BTreeSet<&str>> = None;
    let mut any = false;
    for seen in observed {
        let (Some(Json::Object(answer)), After::Present(Json::Object(after))) =
            (&seen.call.response, &seen.call.after)
        else {
            return false;
        };
        let computed: BTreeSet<&str> = seen
            .sent
            .iter()
            .filter(|(key, value)| after.get(key).is_some_and(|stored| stored != *value))
            .map(|(key, _)| key)
            .collect();
        if computed.iter().any(|key| answer.get(key) != after.get(key)) {
            return false;
        }
        any |= !computed.is_empty();
        let rest: BTreeSet<&str> = answer
            .keys()
            .filter(|key| !computed.contains(key))
            .collect();
        match &shared {
            None => shared = Some(rest),
            Some(shared) if *shared != rest => return false,
            Some(_) => {}
        }
    }
    any
}

/// What explains the observed calls' changes: the calls themselves, then the rule stages, then
/// (creates) constants and the documents' defaults.
fn explain(
    draft: &mut Draft,
    calls: &[Call],
    observed: &[Observed<'_>],
    (written, views, records): (&Written<'_>, &Views, &[CaptureRecord]),
    rules: &RuleSet,
) -> Explanation {
    let template = template_segments(&draft.plan.path_template);
    let mut explanation = Explanation::of_calls(draft.plan.effect, observed, &template);
    let all_calls: Vec<&Call> = draft.calls.iter().map(|call| &calls[*call]).collect();
    let request = learn_request(
        &draft.plan,
        draft.as_bulk,
        &all_calls,
        observed,
        &written.identity,
        &template,
    );
    explanation.run_rules(&mut draft.plan, rules, request);
    explanation.settle_unstored(draft.plan.effect, observed);
    if draft.plan.effect == Effect::Create {
        explanation.model.document_defaults = super::document_defaults::learn(
            &mut explanation.residuals,
            observed,
            (&views.document_reads, records),
        );
        explanation.settle_offered_constants();
        explanation.create_constants(observed);
    }
    if draft.plan.effect == Effect::Update {
        explanation.stamped_constants(observed, &draft.stamped);
    }
    explanation
}

/// The written type as the state's views know it.
struct Written<'a> {
    /// The entity type (collection template).
    entity_type: Option<String>,
    /// The type's views.
    info: Option<&'a TypeInfo>,
    /// Its identity field (empty when unknown).
    identity: String,
    /// Where its item view's answers hold the entity (the body envelope preferred).
    preferred: String,
}

impl<'a> Written<'a> {
    fn of(plan: &WritePlan, views: &'a Views) -> Self {
        let entity_type = plan
            .target
            .as_ref()
            .and_then(|target| target.entity_type.clone());
        let info = entity_type.as_ref().and_then(|name| views.types.get(name));
        Self {
            identity: info.map(|info| info.identity.clone()).unwrap_or_default(),
            preferred: info
                .and_then(|info| info.item.as_ref())
                .map_or(String::new(), |item| item.entity_pointer.clone()),
            entity_type,
            info,
        }
    }

    fn item(&self) -> Option<&'a ItemInfo> {
        self.info.and_then(|info| info.item.as_ref())
    }
}

/// Settles what the plan writes: a target its path names, or, for an unlinked create or a
/// literal path's write, the type (and collection, or entity) its calls showed.
fn settle_target(draft: &mut Draft, calls: &mut [Call], views: &Views) -> Result<(), &'static str> {
    if matches!(
        draft.classified.kind,
        TargetKind::None | TargetKind::Rpc { .. }
    ) {
        return Err("no-state-target");
    }
    let linked_by_calls = matches!(
        draft.classified.kind,
        TargetKind::Unlinked | TargetKind::Linked { .. }
    );
    if draft.calls.is_empty() {
        return Err(if linked_by_calls {
            "no-state-target"
        } else {
            "no-call"
        });
    }
    if linked_by_calls {
        link_to_calls(draft, calls, views)?;
    }
    Ok(())
}

/// An unlinked create takes the type its calls showed, tied to its exemplar's collection; a
/// literal path's write, the one entity its calls showed. Calls into another collection (or
/// naming another entity) are not the plan's.
fn link_to_calls(draft: &mut Draft, calls: &mut [Call], views: &Views) -> Result<(), &'static str> {
    let (literal, entity_segment) = match draft.classified.kind {
        TargetKind::Linked { literal, action_at } => (literal, action_at),
        _ => (false, None),
    };
    let Some((entity_type, collection, id)) =
        draft.calls.iter().find_map(|call| calls[*call].key.clone())
    else {
        return Err("no-state-target");
    };
    let Some(info) = views.types.get(&entity_type) else {
        return Err("no-state-target");
    };
    draft.plan.target = Some(WriteTarget {
        entity_type: Some(entity_type.clone()),
        identity_field: Some(info.identity.clone()),
        collection: Some(collection.clone()),
        collection_segments: 0,
        document: None,
        item_view: info.item.as_ref().map(|item| item.name.clone()),
        key_member: None,
        entity_id: literal.then(|| id.clone()),
        entity_segment,
        member: None,
    });
    let own = crate::derive::entities::collection_key(&collection);
    for call in &draft.calls {
        if let Some((other_type, other, other_id)) = &calls[*call].key
            && (*other_type != entity_type
                || crate::derive::entities::collection_key(other) != own
                || (literal && *other_id != id))
        {
            calls[*call].key = None;
            calls[*call].before = None;
        }
    }
    if matches!(draft.classified.kind, TargetKind::Linked { .. })
        && draft.calls.iter().any(|call| calls[*call].key.is_none())
    {
        return Err("no-observation");
    }
    Ok(())
}

/// Each call's request body as JSON (`None`: it sent none); a body that cannot be read makes the
/// plan `body-unusable`.
pub(super) fn request_bodies<'a>(
    draft: &Draft,
    calls: &'a [Call],
) -> Result<Vec<Option<&'a Json>>, &'static str> {
    draft
        .calls
        .iter()
        .map(|call| match &calls[*call].request {
            RequestBody::Json(body) => Ok(Some(body)),
            RequestBody::Missing => Ok(None),
            RequestBody::Unusable => Err("body-unusable"),
        })
        .collect()
}

/// The id layout every bulk call's body shares, if they share one.
pub(super) fn common_bulk_layout(bodies: &[Option<&Json>]) -> Option<BulkIds> {
    let layouts: Vec<Option<BulkIds>> = bodies
        .iter()
        .map(|body| body.and_then(bulk_layout))
        .collect();
    let first = layouts.first().cloned().flatten()?;
    layouts
        .iter()
        .all(|other| other.as_ref() == Some(&first))
        .then_some(first)
}

/// The body model (the envelope, each member's JSON types, whether every call sent it) and the
/// members each call sent, without the member naming an RPC-style write's entity.
fn learn_body(
    draft: &Draft,
    calls: &[Call],
    bodies: &[Option<&Json>],
    query: Vec<(String, String)>,
    preferred: &str,
) -> Result<(BodyModel, Vec<Object>), &'static str> {
    let mut body = BodyModel {
        query,
        ..BodyModel::default()
    };
    let all_missing = bodies.iter().all(Option::is_none);
    if draft.plan.effect == Effect::Delete || (all_missing && draft.plan.action.is_some()) {
        body.none = all_missing;
    } else if bodies
        .iter()
        .any(|body| !matches!(body, Some(Json::Object(_))))
    {
        return Err("body-unusable");
    }
    let entity_keys: BTreeSet<String> = draft
        .calls
        .iter()
        .filter_map(|call| match &calls[*call].after {
            // A document's members are its fields: a sent object member the document holds
            // (`editor` of a settings section) is a member written, not an envelope.
            After::Present(Json::Object(object)) | After::Document(Json::Object(object)) => {
                Some(object.keys().map(str::to_owned).collect::<Vec<_>>())
            }
            _ => None,
        })
        .flatten()
        .collect();
    let present: Vec<&Json> = bodies.iter().flatten().copied().collect();
    body.envelope = envelope(&present, preferred, &entity_keys);
    let sent: Vec<Object> = bodies
        .iter()
        .map(|raw| {
            raw.and_then(|raw| raw.pointer(&body.envelope))
                .and_then(Json::as_object)
                .cloned()
                .unwrap_or_default()
        })
        .collect();
    body.members =
        member_models(&recorded_members(draft, calls, &body.envelope).unwrap_or(sent.clone()));
    body.options = envelope_options(&present, &body.envelope);
    body.open = open_document(draft, calls, &body);
    // A `PATCH` update or document write changes what it sends and keeps the rest (HTTP's
    // partial modification): each member is optional, whatever the recorded calls happened to
    // send together.
    if matches!(draft.plan.effect, Effect::Update | Effect::Document)
        && draft.plan.method.eq_ignore_ascii_case("PATCH")
    {
        for member in body.members.values_mut() {
            member.required = false;
        }
    }
    // The member an RPC-style write names its entity in says which entity, not what it stores.
    let sent = match &draft.classified.key_member {
        Some(key) => sent
            .into_iter()
            .map(|mut members| {
                members.remove(key);
                members
            })
            .collect(),
        None => sent,
    };
    Ok((body, sent))
}

/// The answer naming the members each call changed (see [`super::references::ChangedMembers`]),
/// for a plan with sent references whose every observed call answered it.
fn learn_changed_members(draft: &mut Draft, observed: &[Observed<'_>]) {
    if draft.plan.references.is_empty() || draft.plan.effect != Effect::Update {
        return;
    }
    let Some(response) = draft.plan.response.as_mut() else {
        return;
    };
    let pointer = response.pointer.clone().unwrap_or_default();
    let calls: Option<Vec<(&Object, &Object, &Object)>> = observed
        .iter()
        .map(|seen| {
            let answer = seen
                .call
                .response
                .as_ref()?
                .pointer(&pointer)?
                .as_object()?;
            let After::Present(Json::Object(after)) = &seen.call.after else {
                return None;
            };
            Some((answer, seen.sent, after))
        })
        .collect();
    response.changed = calls.and_then(|calls| super::references::changed_members(&calls));
}

/// A `PUT` update of sent references (see [`super::references`]) whose every call kept each
/// member it did not send (nothing replaced or removed) modifies in part, as a `PATCH` does: no
/// member is required, whatever the recorded calls happened to send together.
fn partial_put(body: &mut BodyModel, draft: &Draft, fields: &FieldModel) {
    if draft.plan.effect == Effect::Update
        && draft.plan.method.eq_ignore_ascii_case("PUT")
        && !draft.plan.references.is_empty()
        && !fields.replace
        && fields.removed.is_empty()
        && !fields.kept.is_empty()
    {
        for member in body.members.values_mut() {
            member.required = false;
        }
    }
}

/// The members each call sent as recorded, when [`super::references`] re-spelled some call's
/// body (its sent references stored as link objects): what a served call sends is the recorded
/// spelling, ids and key names.
fn recorded_members(draft: &Draft, calls: &[Call], envelope: &str) -> Option<Vec<Object>> {
    let calls: Vec<&Call> = draft.calls.iter().map(|call| &calls[*call]).collect();
    if calls.iter().all(|call| call.recorded_request.is_none()) {
        return None;
    }
    let members = calls
        .iter()
        .map(
            |call| match call.recorded_request.as_ref().unwrap_or(&call.request) {
                RequestBody::Json(raw) => raw
                    .pointer(envelope)
                    .and_then(Json::as_object)
                    .cloned()
                    .unwrap_or_default(),
                _ => Object::new(),
            },
        )
        .collect();
    Some(members)
}

/// Whether a document write accepts members its calls did not send (see [`BodyModel::open`]):
/// its body is the members (no envelope) and the document before its first recorded call was an
/// empty object.
fn open_document(draft: &Draft, calls: &[Call], body: &BodyModel) -> bool {
    draft.plan.effect == Effect::Document
        && body.envelope.is_empty()
        && draft
            .calls
            .iter()
            .map(|call| &calls[*call])
            .min_by_key(|call| call.ordinal)
            .and_then(|call| call.document_before.as_ref())
            .and_then(Json::as_object)
            .is_some_and(Object::is_empty)
}

/// The scalar members the bodies sent beside a top-level envelope (`/update`: `return`), each
/// with its recorded JSON types, none required.
pub(super) fn envelope_options(
    bodies: &[&Json],
    envelope: &str,
) -> std::collections::BTreeMap<String, MemberModel> {
    let Some(name) = envelope
        .strip_prefix('/')
        .filter(|rest| !rest.is_empty() && !rest.contains('/'))
        .map(rea_plugin_api::json::unescape_pointer_segment)
    else {
        return Default::default();
    };
    let beside: Vec<Object> = bodies
        .iter()
        .filter_map(|body| body.as_object())
        .map(|object| {
            let mut rest = object.clone();
            rest.remove(&name);
            rest
        })
        .collect();
    let mut options = member_models(&beside);
    for option in options.values_mut() {
        option.required = false;
    }
    options
}

/// Each member the calls sent: its JSON types, and whether every call sent it.
fn member_models(sent: &[Object]) -> std::collections::BTreeMap<String, MemberModel> {
    let mut members: std::collections::BTreeMap<String, MemberModel> = Default::default();
    for sent_members in sent {
        for (key, value) in sent_members.iter() {
            let model = members.entry(key.to_owned()).or_insert(MemberModel {
                types: Vec::new(),
                required: true,
                fixed: None,
            });
            let kind = value.type_name().to_owned();
            if !model.types.contains(&kind) {
                model.types.push(kind);
            }
        }
    }
    for (name, model) in members.iter_mut() {
        model.required = sent.iter().all(|members| members.contains_key(name));
        model.types.sort();
    }
    members
}

/// The calls that show what the write did (indexes into the draft's calls): a create read back,
/// an update or delete of an entity held before. A call on an entity the state did not hold
/// teaches nothing and is left out (confirmation adopts what it was observed to leave); no call
/// showing what the write did is `no-observation`. One observed call is enough when it alone
/// explains the write (the plan's `record_ordinals` name the calls it models).
fn observed_calls(draft: &Draft, calls: &[Call]) -> Result<Vec<usize>, &'static str> {
    let effect = draft.plan.effect;
    let observed: Vec<usize> = draft
        .calls
        .iter()
        .enumerate()
        .filter(|(_, call)| {
            let call = &calls[**call];
            match effect {
                Effect::Create => call.key.is_some() && matches!(call.after, After::Present(_)),
                // A call whose entity an earlier unobserved write changed shows both writes'
                // effects together: it teaches nothing about its own (but a delete, which
                // removes the entity whatever the earlier write left, see `stale_delete`).
                Effect::Delete if call.stale_before => stale_delete(call),
                _ if call.stale_before => false,
                Effect::Update => call.before.is_some() && matches!(call.after, After::Present(_)),
                // A delete whose own entity no read showed gone still shows what it did when
                // its answer, or a read of the entities referring to it, shows it.
                Effect::Delete => {
                    call.before.is_some()
                        && (call.after != After::Unobserved
                            || call.response.is_some()
                            || !call.dependents.is_empty())
                }
                Effect::Document => matches!(call.after, After::Document(_)),
            }
        })
        .map(|(index, _)| index)
        .collect();
    if observed.is_empty() {
        return Err("no-observation");
    }
    Ok(observed)
}

/// Whether a delete of an entity an earlier unobserved write changed still shows what it did:
/// a read after it showed the entity gone, and its answer shows nothing of the entity but what
/// the state held before the unobserved write (its identity: `{"type", "id"}`), so nothing the
/// unobserved write may have left.
fn stale_delete(call: &Call) -> bool {
    let (Some(before), After::Absent) = (&call.before, &call.after) else {
        return false;
    };
    let Some(pointer) = &call.response_pointer else {
        return true;
    };
    let shown = (call.response.as_ref())
        .and_then(|answer| answer.pointer(pointer))
        .and_then(Json::as_object);
    shown.is_some_and(|shown| {
        (shown.iter()).all(|(member, value)| before.fields.get(member) == Some(value))
    })
}

/// An update's members that only calls nothing observed sent, which no observed entity holds
/// under their own name nor the plan places elsewhere (`sent_as`): where such a member goes is
/// unknown (`run_name` may rename more than a field), so the body no longer accepts it and a
/// call sending it is refused rather than applied by guess.
fn drop_unobserved_members(
    body: &mut BodyModel,
    observed: &[Observed<'_>],
    fields: &FieldModel,
    key_member: Option<&str>,
) {
    body.members.retain(|name, _| {
        Some(name.as_str()) == key_member ||
        observed.iter().any(|seen| {
            seen.sent.contains_key(name)
                || matches!(&seen.call.after, After::Present(Json::Object(after)) if after.contains_key(name))
        }) || fields.sent_as.contains_key(name)
    });
}

/// Fixed members: sent with one value, never stored.
fn fix_members(body: &mut BodyModel, fixed: &std::collections::BTreeMap<String, Option<Json>>) {
    for (name, value) in fixed {
        if let (Some(value), Some(member)) = (value, body.members.get_mut(name)) {
            member.fixed = Some(value.clone());
        }
    }
}

/// Besides what the recorded calls sent, a create or update accepts the other members the
/// capture showed its type's entities storing (a document write: its document's members), with
/// the JSON types they were stored with; not the identity an item path names, nor members a rule
/// generates.
fn accept_stored_members(
    body: &mut BodyModel,
    draft: &Draft,
    views: &Views,
    written: &Written<'_>,
) {
    let plan = &draft.plan;
    let stored = match (plan.effect, &plan.target) {
        (Effect::Document, Some(target)) => {
            let pointer = plan
                .fields
                .as_ref()
                .map_or("", |fields| fields.document_pointer.as_str());
            target
                .document
                .as_ref()
                .and_then(|view| views.document_types.get(view))
                .and_then(|by_pointer| by_pointer.get(pointer))
        }
        (Effect::Create | Effect::Update, _)
            if plan.action.is_none() && draft.classified.key_member.is_none() =>
        {
            written
                .entity_type
                .as_ref()
                .and_then(|name| views.field_types.get(name))
        }
        _ => None,
    };
    let Some(stored) = stored else {
        return;
    };
    let generated = rule_members(plan);
    for (field, types) in stored {
        // A reference stored under another name is sent under its own, as an id (or null).
        if let Some(reference) = plan
            .references
            .iter()
            .find(|reference| reference.stored_as.as_ref() == Some(field))
        {
            let mut kinds = vec!["number".to_owned(), "string".to_owned()];
            if types.iter().any(|kind| kind == "null") {
                kinds.insert(0, "null".to_owned());
            }
            body.members
                .entry(reference.member.clone())
                .or_insert(MemberModel {
                    types: kinds,
                    required: false,
                    fixed: None,
                });
            continue;
        }
        if body.members.contains_key(field)
            || generated.contains(field)
            || (plan.effect == Effect::Update && *field == written.identity)
        {
            continue;
        }
        // A sent reference is sent as the id or key name of the entity its link object names.
        let reference = plan
            .references
            .iter()
            .any(|reference| reference.member == *field);
        body.members.insert(
            field.clone(),
            MemberModel {
                types: types
                    .iter()
                    .map(|kind| match kind.as_str() {
                        "object" if reference => "string".to_owned(),
                        _ => kind.clone(),
                    })
                    .collect(),
                required: false,
                fixed: None,
            },
        );
    }
}

/// Removes the members some call sent as an object of a shape nothing showed stored (see
/// [`super::shapes`]), given every call's members and the observed calls.
fn refuse_unshown_shapes(
    body: &mut BodyModel,
    draft: &Draft,
    views: &Views,
    written: &Written<'_>,
    (sent, observed): (&[Object], &[Observed<'_>]),
) {
    let stored = written
        .entity_type
        .as_ref()
        .and_then(|name| views.field_shapes.get(name));
    let mut explained = rule_members(&draft.plan);
    // A member holding a leaf a rule explains is no unshown shape.
    explained.extend(rule_owners(&draft.plan));
    if let Some(fields) = &draft.plan.fields {
        explained.extend(fields.merged.keys().cloned());
        explained.extend(fields.item_defaults.keys().cloned());
        explained.extend(fields.unstored.iter().cloned());
    }
    drop_unshown_shapes(body, sent, observed, stored, &explained);
}

/// The members the plan's rules explain (their pointers' names).
fn rule_members(plan: &WritePlan) -> BTreeSet<String> {
    rule_pointers(plan)
        .map(|pointer| {
            pointer
                .trim_start_matches('/')
                .replace("~1", "/")
                .replace("~0", "~")
        })
        .collect()
}

/// The pointers the plan's rules explain.
fn rule_pointers(plan: &WritePlan) -> impl Iterator<Item = &String> {
    plan.rules.iter().flat_map(|rule| rule.explains.iter())
}

/// The top-level members holding a leaf the plan's rules explain: a sent map whose stamped or
/// dropped entries a rule accounts for is stored in the shape the rules leave.
fn rule_owners(plan: &WritePlan) -> impl Iterator<Item = String> {
    rule_pointers(plan)
        .filter(|pointer| pointer.trim_start_matches('/').contains('/'))
        .filter_map(|pointer| rea_plugin_api::rule_fields::owning_field(pointer))
}

/// The plan's answer: the exemplar's recorded answer and how it shows the written entity, and
/// (updates and deletes) the recorded `400`/`404`/`410` a missing entity answers.
fn learn_answer(
    draft: &mut Draft,
    calls: &[Call],
    records: &[CaptureRecord],
    written: &Written<'_>,
) -> Result<(), &'static str> {
    draft.plan.response = Some(learn_response(draft, calls, records, written.item())?);
    if matches!(draft.plan.effect, Effect::Update | Effect::Delete) {
        draft.plan.missing_ordinal = missing_ordinal(draft, records, written.item());
    }
    Ok(())
}

/// The exemplar's answer as the plan renders it.
fn learn_response(
    draft: &Draft,
    calls: &[Call],
    records: &[CaptureRecord],
    item: Option<&ItemInfo>,
) -> Result<ResponseModel, &'static str> {
    let mut model = response_of(draft, calls, records, item, draft.calls[0])?;
    model.by_options = answers_by_options(draft, calls, records, item)?;
    Ok(model)
}

/// The answers of the recorded calls by the options they sent beside their envelope (see
/// `ResponseModel::by_options`): one per set of options sent, learned from the first call that
/// sent it; none when every set answered alike (the same kind, at the same place).
fn answers_by_options(
    draft: &Draft,
    calls: &[Call],
    records: &[CaptureRecord],
    item: Option<&ItemInfo>,
) -> Result<Vec<OptionedAnswer>, &'static str> {
    let Some(body) = draft
        .plan
        .body
        .as_ref()
        .filter(|body| !body.options.is_empty())
    else {
        return Ok(Vec::new());
    };
    let mut firsts: Vec<(BTreeMap<String, Json>, usize)> = Vec::new();
    for &call in &draft.calls {
        let sent = match &calls[call].request {
            RequestBody::Json(json) => body.sent_options(Some(json)),
            _ => BTreeMap::new(),
        };
        if firsts.iter().all(|(options, _)| *options != sent) {
            firsts.push((sent, call));
        }
    }
    let answers = firsts
        .into_iter()
        .map(|(options, call)| {
            let response = response_of(draft, calls, records, item, call)?;
            Ok(OptionedAnswer { options, response })
        })
        .collect::<Result<Vec<_>, &'static str>>()?;
    let alike = answers.windows(2).all(|pair| {
        (pair[0].response.kind, &pair[0].response.pointer)
            == (pair[1].response.kind, &pair[1].response.pointer)
    });
    Ok(if alike { Vec::new() } else { answers })
}

/// A member write's answer (see [`super::member`]): its exemplar's, as any plan's.
pub(super) fn member_response(
    draft: &Draft,
    calls: &[Call],
    records: &[CaptureRecord],
) -> Result<ResponseModel, &'static str> {
    learn_response(draft, calls, records, None)
}

/// The answer model the recorded call `exemplar` (an index into `calls`) gives.
fn response_of(
    draft: &Draft,
    calls: &[Call],
    records: &[CaptureRecord],
    item: Option<&ItemInfo>,
    exemplar: usize,
) -> Result<ResponseModel, &'static str> {
    let exemplar = &calls[exemplar];
    let Some(record) = records
        .iter()
        .find(|record| record.ordinal == exemplar.ordinal)
    else {
        return Err("body-unusable");
    };
    let Some((mut kind, pointer, member)) = answer_kind(draft, calls, exemplar) else {
        return Err("body-unusable");
    };
    if kind == ResponseKind::None
        && record
            .response
            .body
            .bytes()
            .is_some_and(|bytes| !bytes.is_empty())
    {
        kind = ResponseKind::Recorded;
    }
    // A whole document's answer is the document as written: no member is required of it.
    let whole_document = draft.plan.effect == Effect::Document
        && pointer.as_deref().unwrap_or("").is_empty()
        && draft
            .plan
            .fields
            .as_ref()
            .is_none_or(|fields| fields.document_pointer.is_empty());
    let required_members = if member.is_some() || whole_document {
        Vec::new()
    } else if matches!(kind, ResponseKind::Entity | ResponseKind::Projection) {
        required_members(draft, calls, kind, pointer.as_deref().unwrap_or(""), item)
    } else {
        Vec::new()
    };
    let shows_member = member.is_some();
    let nulled_members =
        if kind == ResponseKind::Entity && draft.plan.effect != Effect::Document && !shows_member {
            nulled_members(draft, calls, pointer.as_deref().unwrap_or(""))
        } else {
            Vec::new()
        };
    let echoed = echoed_members(draft, calls, (kind, shows_member), pointer.as_deref());
    let (sent_names, path_echoes) = call_echoes(draft, calls, pointer.as_deref());
    let projected = (kind == ResponseKind::Projection)
        .then(|| projected_answer(draft, calls, pointer.as_deref().unwrap_or("")))
        .flatten();
    let renamed = if kind == ResponseKind::Recorded
        && matches!(draft.plan.effect, Effect::Create | Effect::Update)
    {
        renamed_members(draft, calls, exemplar)
    } else {
        Default::default()
    };
    Ok(ResponseModel {
        ordinal: record.ordinal,
        status: record.response.status,
        media_type: record.response.media_type.as_deref().map(str::to_owned),
        kind,
        pointer,
        required_members,
        nulled_members,
        renamed,
        shows_computed: false,
        by_options: Vec::new(),
        rows: None,
        member: member.map(|(_, member)| member),
        changed: None,
        echoed,
        sent_names,
        path_echoes,
        projected,
    })
}

/// What every recorded call's answer repeats of its own call: the names it sent (see
/// [`super::sent_names`]) and its path (see [`path_echoes`]).
fn call_echoes(
    draft: &Draft,
    calls: &[Call],
    pointer: Option<&str>,
) -> (
    std::collections::BTreeMap<String, String>,
    Vec<crate::path_echo::PathEcho>,
) {
    let shown: Vec<&Call> = draft.calls.iter().map(|index| &calls[*index]).collect();
    let sent_names = super::sent_names::learn(&shown, pointer.unwrap_or(""));
    (sent_names, path_echoes(&shown))
}

/// The answer members every recorded call's answer spelled its own path in (see
/// [`crate::path_echo`]).
fn path_echoes(calls: &[&Call]) -> Vec<crate::path_echo::PathEcho> {
    let paths: Vec<String> = calls
        .iter()
        .map(|call| format!("/{}", call.segments.join("/")))
        .collect();
    let lines: Option<Vec<(&Json, &str)>> = (calls.iter().zip(&paths))
        .map(|(call, path)| Some((call.response.as_ref()?, path.as_str())))
        .collect();
    lines.map_or_else(Vec::new, |lines| crate::path_echo::echoing(&lines))
}

/// How every recorded call's projection answer shows its entity beyond members as stored (see
/// [`super::projected`]); `None` when they show nothing more, or disagree.
fn projected_answer(
    draft: &Draft,
    calls: &[Call],
    pointer: &str,
) -> Option<super::projected::ProjectedAnswer> {
    let shown: Vec<(&Object, &Object)> = draft
        .calls
        .iter()
        .filter_map(|&index| {
            let call = &calls[index];
            let After::Present(Json::Object(after)) = &call.after else {
                return None;
            };
            Some((
                call.response.as_ref()?.pointer(pointer)?.as_object()?,
                after,
            ))
        })
        .collect();
    let identity = draft.plan.target.as_ref()?.identity_field.as_deref()?;
    super::projected::learn(&shown, identity).filter(|learned| !learned.is_plain())
}

/// An answer's kind, where it shows the entity, and the member of the entity it shows (a pointer
/// into the answer, the member).
type AnswerKind = (ResponseKind, Option<String>, Option<(String, String)>);

/// What the exemplar's answer is and where it shows the entity (see [`response_kind`]), with the
/// member of the entity an update's answer shows (see [`answered_member`]), and a delete's
/// projection showing the removed entity whole (see [`super::removed_whole`]) as the entity.
fn answer_kind(draft: &Draft, calls: &[Call], exemplar: &Call) -> Option<AnswerKind> {
    let (mut kind, mut pointer) = response_kind(exemplar, draft.plan.effect)?;
    let member = (kind == ResponseKind::Recorded && draft.plan.effect == Effect::Update)
        .then(|| answered_member(draft, calls, exemplar))
        .flatten();
    if let Some((at, _)) = &member {
        kind = ResponseKind::Entity;
        pointer = Some(at.clone());
    }
    let kind = super::removed_whole::delete_kind(draft, calls, kind, pointer.as_deref());
    Some((kind, pointer, member))
}

/// An entity answer's places outside the entity echoing one of its members (see
/// [`super::echoed`]); none for other answers, or one showing a member of the entity.
fn echoed_members(
    draft: &Draft,
    calls: &[Call],
    (kind, shows_member): (ResponseKind, bool),
    pointer: Option<&str>,
) -> std::collections::BTreeMap<String, String> {
    if kind != ResponseKind::Entity || shows_member {
        return Default::default();
    }
    let shown: Vec<&Call> = draft.calls.iter().map(|index| &calls[*index]).collect();
    super::echoed::learn(&shown, pointer.unwrap_or(""))
}

/// An update whose exemplar answers one object member of the entity after it (see
/// [`super::observe::answered_member`]), where every recorded call whose entity after is known
/// answers that member at the same place: (answer pointer, member).
fn answered_member(draft: &Draft, calls: &[Call], exemplar: &Call) -> Option<(String, String)> {
    let shown = |call: &Call| match (&call.response, &call.after) {
        (Some(response), After::Present(after)) => super::observe::answered_member(response, after),
        _ => None,
    };
    let found = shown(exemplar)?;
    draft
        .calls
        .iter()
        .map(|index| &calls[*index])
        .filter(|call| matches!(call.after, After::Present(_)))
        .all(|call| shown(call).as_ref() == Some(&found))
        .then_some(found)
}

/// The top-level members of a recorded answer that name a text member of the written entity
/// under another name, the same in every recorded call's answer (see
/// `ResponseModel::renamed`): each answer member whose exemplar text one entity member alone
/// holds, kept when every call whose entity after is known shows the same equality.
fn renamed_members(
    draft: &Draft,
    calls: &[Call],
    exemplar: &Call,
) -> std::collections::BTreeMap<String, String> {
    let shown = |call: &Call| match (&call.response, &call.after) {
        (Some(Json::Object(answer)), After::Present(Json::Object(after))) => {
            Some((answer.clone(), after.clone()))
        }
        _ => None,
    };
    let Some((answer, after)) = shown(exemplar) else {
        return Default::default();
    };
    let mut renamed = std::collections::BTreeMap::new();
    for (key, value) in answer.iter() {
        let Json::String(text) = value else { continue };
        if let Some(member) = sole_text_holder(&after, text)
            && member != key
        {
            renamed.insert(key.to_owned(), member.to_owned());
        }
    }
    renamed.retain(|key, member| {
        draft.calls.iter().filter_map(|index| shown(&calls[*index])).all(|(answer, after)| {
            matches!((answer.get(key), after.get(member)), (Some(shown), Some(held)) if shown == held)
        })
    });
    renamed
}

/// The one member of `object` holding the text `text`, when exactly one does.
pub(super) fn sole_text_holder<'o>(object: &'o Object, text: &str) -> Option<&'o str> {
    let mut holders = object
        .iter()
        .filter(|(_, held)| matches!(held, Json::String(held) if held == text))
        .map(|(member, _)| member);
    let holder = holders.next()?;
    holders.next().is_none().then_some(holder)
}

/// The members every recorded answer showing the written entity left `null` where the entity
/// after the call held a value (at least one call shows both; a call answering one of them with
/// a value drops it).
fn nulled_members(draft: &Draft, calls: &[Call], pointer: &str) -> Vec<String> {
    let mut common: Option<BTreeSet<String>> = None;
    for call in &draft.calls {
        let call = &calls[*call];
        let shown = call
            .response
            .as_ref()
            .and_then(|response| response.pointer(pointer))
            .and_then(Json::as_object);
        let (Some(shown), After::Present(Json::Object(after))) = (shown, &call.after) else {
            continue;
        };
        let nulled: BTreeSet<String> = shown
            .iter()
            .filter(|(key, value)| {
                **value == Json::Null && after.get(key).is_some_and(|held| *held != Json::Null)
            })
            .map(|(key, _)| key.to_owned())
            .collect();
        common = Some(match common {
            None => nulled,
            Some(previous) => previous.intersection(&nulled).cloned().collect(),
        });
    }
    common.unwrap_or_default().into_iter().collect()
}

/// The members every answer showing the entity carried; for an entity answer, only those the
/// item view requires (a member a read showed the application leaving out is not required of an
/// answer either).
fn required_members(
    draft: &Draft,
    calls: &[Call],
    kind: ResponseKind,
    pointer: &str,
    item: Option<&ItemInfo>,
) -> Vec<String> {
    let mut common: Option<BTreeSet<String>> = None;
    for call in &draft.calls {
        let shown = calls[*call]
            .response
            .as_ref()
            .and_then(|response| response.pointer(pointer))
            .and_then(Json::as_object);
        if let Some(shown) = shown {
            let keys: BTreeSet<String> = shown.keys().map(str::to_owned).collect();
            common = Some(match common {
                None => keys,
                Some(previous) => previous.intersection(&keys).cloned().collect(),
            });
        }
    }
    let item_required = item.map(|item| &item.required_fields);
    common
        .unwrap_or_default()
        .into_iter()
        .filter(|member| {
            kind != ResponseKind::Entity
                || item_required.is_none_or(|required| required.contains(member))
        })
        .collect()
}

/// A missing entity answers the recorded 400/404/410 of the tool, else of the item view.
fn missing_ordinal(
    draft: &Draft,
    records: &[CaptureRecord],
    item: Option<&ItemInfo>,
) -> Option<u64> {
    let failed: BTreeSet<u64> = draft.failed.iter().copied().collect();
    let tool_missing = records
        .iter()
        .filter(|record| failed.contains(&record.ordinal))
        .filter(|record| matches!(record.response.status, 400 | 404 | 410))
        .map(|record| record.ordinal)
        .max_by_key(|ordinal| draft.failed.iter().position(|failed| failed == ordinal));
    tool_missing.or_else(|| item.and_then(|item| item.missing_ordinal))
}

/// A bulk write's plan: each entity its calls named is learned as one call of an update or
/// delete of that entity (what it was sent: the members beside the id array, or its object in
/// the array), and the plan keeps the calls' id layout.
pub(super) fn learn_bulk(
    draft: &mut Draft,
    calls: &mut [Call],
    views: &Views,
    rules: &RuleSet,
    records: &[CaptureRecord],
    layout: BulkIds,
    query: Vec<(String, String)>,
) {
    let mut one_by_one = one_call_per_entity(draft, calls, &layout);
    if one_by_one.is_empty() {
        draft.plan.body = Some(BodyModel {
            bulk_ids: Some(layout),
            query,
            ..BodyModel::default()
        });
        draft.plan.withhold("no-observation");
        return;
    }
    let mut single = Draft {
        tool: draft.tool,
        classified: Classified {
            bulk: false,
            ..draft.classified.clone()
        },
        plan: WritePlan {
            bulk: false,
            ..draft.plan.clone()
        },
        calls: (0..one_by_one.len()).collect(),
        failed: draft.failed.clone(),
        as_bulk: true,
        stamped: draft.stamped.clone(),
    };
    learn_one(&mut single, &mut one_by_one, views, rules, records);
    let mut plan = single.plan;
    plan.bulk = true;
    plan.record_ordinals = draft
        .calls
        .iter()
        .map(|call| calls[*call].ordinal)
        .collect();
    plan.exemplar_ordinal = plan.record_ordinals.first().copied();
    plan.body = Some(match plan.body {
        Some(learned) => BodyModel {
            bulk_ids: Some(layout),
            envelope: String::new(),
            query,
            none: false,
            members: learned.members,
            options: Default::default(),
            open: false,
            required_in: Vec::new(),
        },
        None => BodyModel {
            bulk_ids: Some(layout),
            query,
            ..BodyModel::default()
        },
    });
    draft.plan = plan;
}

/// Each entity a bulk plan's calls named, as one call of its own.
fn one_call_per_entity(draft: &Draft, calls: &[Call], layout: &BulkIds) -> Vec<Call> {
    let identity = draft
        .plan
        .target
        .as_ref()
        .and_then(|target| target.identity_field.clone())
        .unwrap_or_default();
    let mut one_by_one: Vec<Call> = Vec::new();
    let nothing = Json::Object(Object::new());
    for call in &draft.calls {
        let call = &calls[*call];
        let sent = match &call.request {
            RequestBody::Json(sent) => sent,
            // A call selecting by its query may send no body (a delete): it sends each nothing.
            RequestBody::Missing if layout.selected.is_some() => &nothing,
            _ => continue,
        };
        for target in &call.bulk {
            let mut one = call.clone();
            one.key = call
                .key
                .clone()
                .or_else(|| bulk_entity_key(&draft.plan, call, &target.id));
            one.before = target.before.clone();
            one.after = target.after.clone();
            one.reads = target.reads.clone();
            one.before_position = target.before_position;
            one.request = RequestBody::Json(Json::Object(
                layout
                    .entity_members(sent, &identity, &target.id)
                    .unwrap_or_default(),
            ));
            one.bulk = Vec::new();
            one_by_one.push(one);
        }
    }
    one_by_one
}

/// The entity a bulk call names by `id`: the plan's type, in the collection the call's path
/// names.
pub(super) fn bulk_entity_key(
    plan: &WritePlan,
    call: &Call,
    id: &str,
) -> Option<(String, String, String)> {
    let target = plan.target.as_ref()?;
    let entity_type = target.entity_type.clone()?;
    let segments = target.collection_segments;
    let collection = format!(
        "/{}",
        call.segments[..segments.min(call.segments.len())].join("/")
    );
    Some((entity_type, collection, id.to_owned()))
}

/// Whether an answer is an object showing two or more members of the written entity (the row
/// after the update less its identity, as PiccoloCRUD's `PATCH` answers it; in an envelope
/// member, links by their ids, see [`super::projected`]): a projection of the entity, which a
/// served call renders from its own entity.
fn shows_members_of(response: &Json, written: Option<&Json>) -> bool {
    let (Json::Object(shown), Some(Json::Object(written))) = (response, written) else {
        return false;
    };
    super::projected::shown_members(shown, written).is_some_and(|(count, _)| count >= 2)
}

/// What the exemplar's answer is (see [`ResponseKind`]).
fn response_kind(call: &Call, effect: Effect) -> Option<(ResponseKind, Option<String>)> {
    let Some(response) = &call.response else {
        return Some((ResponseKind::None, None));
    };
    if effect == Effect::Document {
        // An answer showing the document as it is after the write renders the document.
        return Some(match &call.after {
            After::Document(after) if after == response => {
                (ResponseKind::Entity, Some(String::new()))
            }
            _ => (ResponseKind::Recorded, None),
        });
    }
    let written = match (&call.after, &call.before) {
        (After::Present(after), _) => Some(after.clone()),
        (_, Some(before)) => Some(before.fields.clone()),
        _ => None,
    };
    let id = call.key.as_ref().map(|(_, _, id)| id.as_str());
    if let Some(pointer) = &call.response_pointer
        && let Some(Json::Object(shown)) = response.pointer(pointer)
    {
        let full = written
            .as_ref()
            .and_then(Json::as_object)
            .is_some_and(|written| {
                written.len() == shown.len() && shown.keys().all(|key| written.contains_key(key))
            });
        if full && effect != Effect::Delete {
            return Some((ResponseKind::Entity, Some(pointer.clone())));
        }
        return Some((ResponseKind::Projection, Some(pointer.clone())));
    }
    if effect != Effect::Delete && shows_members_of(response, written.as_ref()) {
        return Some((ResponseKind::Projection, Some(String::new())));
    }
    // An answer naming only the identity: a scalar at the root or one member down.
    if let Some(id) = id {
        if scalar_text(response).as_deref() == Some(id) {
            return Some((ResponseKind::Identity, Some(String::new())));
        }
        if let Json::Object(object) = response {
            let found = object
                .iter()
                .find(|(_, value)| scalar_text(value).as_deref() == Some(id));
            if let Some((key, _)) = found
                && object.len() == 1
            {
                return Some((ResponseKind::Identity, Some(pointer_of(key))));
            }
        }
    }
    Some((ResponseKind::Recorded, None))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::parsed_json as json;

    #[test]
    fn an_answer_of_the_entitys_members_less_its_identity_is_a_projection() {
        let after = json(r#"{"id": 15, "title": "t", "status": "done", "priority": 3}"#);
        let answer = json(r#"{"title": "t", "status": "done", "priority": 3}"#);
        assert!(shows_members_of(&answer, Some(&after)));
        // A value the entity does not hold, a member it lacks, one member, or no entity: no.
        let other = json(r#"{"title": "t", "status": "open"}"#);
        assert!(!shows_members_of(&other, Some(&after)));
        let extra = json(r#"{"title": "t", "ok": true}"#);
        assert!(!shows_members_of(&extra, Some(&after)));
        assert!(!shows_members_of(&json(r#"{"title": "t"}"#), Some(&after)));
        assert!(!shows_members_of(&answer, None));
    }

    #[test]
    fn an_envelope_may_carry_scalar_options_beside_it() {
        let keys: BTreeSet<String> = ["id", "status", "priority"].map(str::to_owned).into();
        let with = json(r#"{"update": {"status": "doing"}, "return": true}"#);
        let without = json(r#"{"update": {"status": "cancelled"}}"#);
        let bodies = [&with, &without];
        assert_eq!(envelope(&bodies, "", &keys), "/update");
        let options = envelope_options(&bodies, "/update");
        let names: Vec<&String> = options.keys().collect();
        assert_eq!(names, vec!["return"]);
        assert_eq!(options["return"].types, vec!["boolean".to_owned()]);
        assert!(!options["return"].required);
        // A field of the entity beside the object, two objects, or an option beside a
        // one-element array: no envelope.
        for text in [
            r#"{"update": {"status": "doing"}, "priority": 1}"#,
            r#"{"data": {"status": "doing"}, "permissions": {"read": []}}"#,
            r#"{"rows": [{"status": "doing"}], "return": true}"#,
        ] {
            let body = json(text);
            assert_eq!(envelope(&[&body], "", &keys), "", "{text}");
        }
    }
}

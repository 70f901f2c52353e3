//! Pass 2: a plan's body, field model, rules and answer, from its observed calls.
//!
//! Per call, the host explains what follows from the call itself: members stored as sent, unsent
//! members an update kept or a `PUT` removed, members holding a path value, and (creates) members
//! every held entity of the collection shares. What is left is offered to the rule stages in
//! pipeline order, each seeing what the ones before it left; a create's members left after that
//! which every create stored with one value are constants. Anything still left makes the plan
//! `unexplained-change`.

use std::collections::{BTreeMap, BTreeSet};

use rea_plugin_api::contracts::capture::CaptureRecord;
use rea_plugin_api::contracts::rule::{
    ClockAnchor, LearnOutcome, LearnRequest, ObservedCall, ToolRef,
};
use rea_plugin_api::json::{Json, Object, escape_pointer_segment};

use super::model::{
    BodyModel, BulkIds, Effect, FieldModel, MemberModel, PathField, PlanRule, ResponseKind,
    ResponseModel, UpsertModel, WritePlan, WriteTarget,
};
use super::observe::{After, Call, bulk_layout};
use super::target::TargetKind;
use super::{Draft, Views};
use crate::derive::{DELETED_FLAGS, marked_deleted};
use crate::observation::{RequestBody, decoded};
use crate::render::scalar_text;
use crate::rules::RuleSet;

fn pointer_of(field: &str) -> String {
    format!("/{}", escape_pointer_segment(field))
}

/// What changed from `before` to `after` under `pointer`: inside two objects, each member that
/// changed, by its own pointer (`null` for a member removed), so a rule sees the one nested
/// member a write changed (`/info/lifecycle_stage` of an MLflow run) rather than the whole
/// object; otherwise the value after, when it differs.
fn changed_leaves(
    pointer: String,
    before: Option<&Json>,
    after: &Json,
    residual: &mut BTreeMap<String, Json>,
) {
    match (before, after) {
        (Some(before), after) if before == after => {}
        (Some(Json::Object(before)), Json::Object(after)) => {
            for (key, value) in after.iter() {
                changed_leaves(
                    format!("{pointer}/{}", escape_pointer_segment(key)),
                    before.get(key),
                    value,
                    residual,
                );
            }
            for (key, _) in before.iter() {
                if !after.contains_key(key) {
                    residual.insert(
                        format!("{pointer}/{}", escape_pointer_segment(key)),
                        Json::Null,
                    );
                }
            }
        }
        _ => {
            residual.insert(pointer, after.clone());
        }
    }
}

fn to_value(json: &Json) -> serde_json::Value {
    json.to_serde_value().unwrap_or_default()
}

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
    // One member holding the object (or a one-element array of it), not a field of the entity.
    let single = |body: &Json| -> Option<String> {
        let object = body.as_object()?;
        if object.len() != 1 {
            return None;
        }
        let (key, value) = object.iter().next()?;
        if entity_keys.contains(key) {
            return None;
        }
        match value {
            Json::Object(_) => Some(pointer_of(key)),
            Json::Array(items) if items.len() == 1 && matches!(items[0], Json::Object(_)) => {
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

/// Learns a draft's plan from its calls (pass 2). A `PUT` of an item path whose calls created
/// the entity when the state did not hold it (an upsert) learns its two halves apart: the
/// updates as an update, the creating calls as a create (see [`UpsertModel`]).
pub(crate) fn learn(
    draft: &mut Draft,
    calls: &mut [Call],
    views: &Views,
    rules: &RuleSet,
    records: &[CaptureRecord],
) {
    let upsert = draft.plan.effect == Effect::Update
        && !draft.plan.bulk
        && draft.plan.action.is_none()
        && draft.plan.method.eq_ignore_ascii_case("PUT")
        && draft.classified.key_member.is_none()
        && matches!(draft.classified.kind, TargetKind::Item { .. });
    let creating: Vec<usize> = draft
        .calls
        .iter()
        .copied()
        .filter(|call| {
            let call = &calls[*call];
            call.before.is_none() && call.key.is_some() && matches!(call.after, After::Present(_))
        })
        .collect();
    if !upsert || creating.is_empty() {
        learn_one(draft, calls, views, rules, records);
        return;
    }
    let all = draft.calls.clone();
    let mut half = Draft {
        tool: draft.tool,
        classified: super::target::Classified {
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
    };
    learn_one(&mut half, calls, views, rules, records);
    draft.calls = all
        .iter()
        .copied()
        .filter(|call| !creating.contains(call))
        .collect();
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
    draft.plan.record_ordinals = draft
        .calls
        .iter()
        .map(|call| calls[*call].ordinal)
        .collect();
    draft.plan.exemplar_ordinal = draft.plan.record_ordinals.first().copied();
    if let Some(reason) = &half.plan.reason {
        draft.plan.withhold(reason);
    }
    // The body accepts what either half's calls sent; a member only some calls sent is optional.
    if let (Some(body), Some(created)) = (draft.plan.body.as_mut(), half.plan.body.as_ref()) {
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
    draft.plan.upsert = Some(UpsertModel {
        record_ordinals: half.plan.record_ordinals,
        fields: half.plan.fields,
        rules: half.plan.rules,
        response: half.plan.response,
    });
}

/// Learns one plan from its draft's calls.
fn learn_one(
    draft: &mut Draft,
    calls: &mut [Call],
    views: &Views,
    rules: &RuleSet,
    records: &[CaptureRecord],
) {
    // The calls and the exemplar, whatever is decided (a withheld write names its exemplar).
    draft.plan.record_ordinals = draft
        .calls
        .iter()
        .map(|call| calls[*call].ordinal)
        .collect();
    draft.plan.exemplar_ordinal = draft.plan.record_ordinals.first().copied();
    if matches!(
        draft.classified.kind,
        TargetKind::None | TargetKind::Rpc { .. }
    ) {
        draft.plan.withhold("no-state-target");
        return;
    }
    let linked_by_calls = matches!(
        draft.classified.kind,
        TargetKind::Unlinked | TargetKind::Linked { .. }
    );
    let literal = matches!(draft.classified.kind, TargetKind::Linked { literal: true });
    if draft.calls.is_empty() {
        if linked_by_calls {
            draft.plan.withhold("no-state-target");
        } else {
            draft.plan.withhold("no-call");
        }
        return;
    }
    // An unlinked create takes the type its calls showed, tied to its exemplar's collection; a
    // literal path's write, the one entity its calls showed.
    if linked_by_calls {
        let Some((entity_type, collection, id)) =
            draft.calls.iter().find_map(|call| calls[*call].key.clone())
        else {
            draft.plan.withhold("no-state-target");
            return;
        };
        let Some(info) = views.types.get(&entity_type) else {
            draft.plan.withhold("no-state-target");
            return;
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
        });
        // Calls into another collection (or naming another entity) are not this plan's.
        for call in &draft.calls {
            if let Some((other_type, other, other_id)) = &calls[*call].key
                && (*other_type != entity_type
                    || crate::derive::entities::collection_key(other)
                        != crate::derive::entities::collection_key(&collection)
                    || (literal && *other_id != id))
            {
                calls[*call].key = None;
                calls[*call].before = None;
            }
        }
        if matches!(draft.classified.kind, TargetKind::Linked { .. })
            && draft.calls.iter().any(|call| calls[*call].key.is_none())
        {
            draft.plan.withhold("no-observation");
            return;
        }
    }
    let effect = draft.plan.effect;
    let exemplar = &calls[draft.calls[0]];
    // The body.
    let entity_type = draft
        .plan
        .target
        .as_ref()
        .and_then(|target| target.entity_type.clone());
    let info = entity_type.as_ref().and_then(|name| views.types.get(name));
    let identity = info.map(|info| info.identity.clone()).unwrap_or_default();
    let preferred = info
        .and_then(|info| info.item.as_ref())
        .map_or(String::new(), |item| item.entity_pointer.clone());
    let mut bodies: Vec<Option<&Json>> = Vec::new();
    for call in &draft.calls {
        match &calls[*call].request {
            RequestBody::Json(body) => bodies.push(Some(body)),
            RequestBody::Missing => bodies.push(None),
            RequestBody::Unusable => {
                draft.plan.withhold("body-unusable");
                return;
            }
        }
    }
    let mut body = BodyModel {
        query: exemplar.query.clone().unwrap_or_default(),
        ..BodyModel::default()
    };
    if draft.plan.bulk {
        let layout = bodies
            .iter()
            .map(|body| body.and_then(bulk_layout))
            .collect::<Vec<_>>();
        let layout = match layout.first().cloned().flatten() {
            Some(first) if layout.iter().all(|other| other.as_ref() == Some(&first)) => first,
            _ => {
                draft.plan.withhold("body-unusable");
                return;
            }
        };
        learn_bulk(draft, calls, views, rules, records, layout, body);
        return;
    }
    let all_missing = bodies.iter().all(Option::is_none);
    if effect == Effect::Delete || (all_missing && draft.plan.action.is_some()) {
        body.none = all_missing;
    } else if bodies
        .iter()
        .any(|body| !matches!(body, Some(Json::Object(_))))
    {
        draft.plan.withhold("body-unusable");
        return;
    }
    let entity_keys: BTreeSet<String> = draft
        .calls
        .iter()
        .filter_map(|call| match &calls[*call].after {
            After::Present(Json::Object(object)) => {
                Some(object.keys().map(str::to_owned).collect::<Vec<_>>())
            }
            _ => None,
        })
        .flatten()
        .collect();
    let present: Vec<&Json> = bodies.iter().flatten().copied().collect();
    body.envelope = envelope(&present, &preferred, &entity_keys);
    let sent: Vec<Object> = bodies
        .iter()
        .map(|raw| {
            raw.and_then(|raw| raw.pointer(&body.envelope))
                .and_then(Json::as_object)
                .cloned()
                .unwrap_or_default()
        })
        .collect();
    for members in &sent {
        for (key, value) in members.iter() {
            let model = body.members.entry(key.to_owned()).or_insert(MemberModel {
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
    for (name, model) in body.members.iter_mut() {
        model.required = sent.iter().all(|members| members.contains_key(name));
        model.types.sort();
    }
    // The member an RPC-style write names its entity in says which entity, not what it stores.
    let key_member = draft.classified.key_member.clone();
    let sent: Vec<Object> = sent
        .into_iter()
        .map(|mut members| {
            if let Some(key) = &key_member {
                members.remove(key);
            }
            members
        })
        .collect();

    // The observed calls, analysed.
    let observed: Vec<usize> = draft
        .calls
        .iter()
        .enumerate()
        .filter(|(_, call)| {
            let call = &calls[**call];
            match effect {
                Effect::Create => call.key.is_some() && matches!(call.after, After::Present(_)),
                // A call whose entity an earlier unobserved write changed shows both writes'
                // effects together: it teaches nothing about its own.
                _ if call.stale_before => false,
                Effect::Update => call.before.is_some() && matches!(call.after, After::Present(_)),
                Effect::Delete => {
                    call.before.is_some() && call.after != After::Unobserved
                        || call.before.is_some() && call.response.is_some()
                }
                Effect::Document => matches!(call.after, After::Document(_)),
            }
        })
        .map(|(index, _)| index)
        .collect();
    if effect != Effect::Create
        && effect != Effect::Document
        && draft.calls.iter().any(|call| calls[*call].before.is_none())
    {
        draft.plan.withhold("no-observation");
        return;
    }
    if observed.is_empty() {
        draft.plan.withhold("no-observation");
        return;
    }
    let template_params: Vec<(usize, bool)> =
        rea_manifest::segments::split_path(&draft.plan.path_template)
            .iter()
            .enumerate()
            .map(|(index, segment)| (index, segment.starts_with('{')))
            .collect();

    let mut model = FieldModel::default();
    let mut fixed: BTreeMap<String, Option<Json>> = BTreeMap::new();
    let mut residuals: Vec<BTreeMap<String, Json>> = Vec::new();
    let mut candidates: Vec<BTreeMap<String, Json>> = Vec::new(); // create: unsent values
    let mut path_candidates: BTreeMap<String, Option<PathField>> = BTreeMap::new();
    let mut shared_candidates: BTreeMap<String, bool> = BTreeMap::new();
    let mut kept: BTreeSet<String> = BTreeSet::new();
    let mut removed: BTreeSet<String> = BTreeSet::new();
    for &index in &observed {
        let call = &calls[draft.calls[index]];
        let members = &sent[index];
        let mut residual = BTreeMap::new();
        let mut unsent = BTreeMap::new();
        match (&call.after, effect) {
            (After::Document(after), Effect::Document) => {
                let before = call_document_before(call);
                let Some(after) = after.as_object() else {
                    residual.insert(String::new(), after.clone());
                    residuals.push(residual);
                    candidates.push(unsent);
                    continue;
                };
                for (key, value) in members.iter() {
                    match after.get(key) {
                        Some(stored) if stored == value => {}
                        Some(stored) => {
                            residual.insert(pointer_of(key), stored.clone());
                        }
                        None => {
                            fixed.entry(key.to_owned()).or_insert(Some(value.clone()));
                        }
                    }
                }
                if let Some(Json::Object(before)) = &before {
                    for (key, value) in before.iter() {
                        if members.contains_key(key) {
                            continue;
                        }
                        match after.get(key) {
                            Some(now) if now == value => {
                                kept.insert(key.to_owned());
                            }
                            None => {
                                removed.insert(key.to_owned());
                            }
                            Some(now) => {
                                residual.insert(pointer_of(key), now.clone());
                            }
                        }
                    }
                }
            }
            (After::Present(after), Effect::Create) => {
                let Some(after) = after.as_object() else {
                    // An entity that is not an object cannot be modelled.
                    residual.insert(String::new(), after.clone());
                    residuals.push(residual);
                    candidates.push(unsent);
                    continue;
                };
                for (key, value) in members.iter() {
                    match after.get(key) {
                        Some(stored) if stored == value => {}
                        Some(stored) => {
                            residual.insert(pointer_of(key), stored.clone());
                        }
                        None => {
                            let entry = fixed.entry(key.to_owned()).or_insert(Some(value.clone()));
                            if entry.as_ref() != Some(value) {
                                *entry = None;
                            }
                        }
                    }
                }
                for (key, value) in after.iter() {
                    if members.contains_key(key) {
                        continue;
                    }
                    // A path value?
                    let text = scalar_text(value);
                    let segment = template_params.iter().find_map(|(position, is_param)| {
                        (*is_param
                            && call.segments.get(*position).map(|segment| decoded(segment)) == text)
                            .then_some(*position)
                    });
                    let path = segment.map(|segment| PathField {
                        segment,
                        number: matches!(value, Json::Number(_)),
                    });
                    let entry = path_candidates
                        .entry(key.to_owned())
                        .or_insert_with(|| path.clone());
                    if *entry != path {
                        *entry = None;
                    }
                    let shared = call.shared.get(key) == Some(value);
                    let entry = shared_candidates.entry(key.to_owned()).or_insert(shared);
                    *entry &= shared;
                    unsent.insert(key.to_owned(), value.clone());
                }
            }
            (After::Present(after), Effect::Update) => {
                let before = call.before.as_ref().map(|before| &before.fields);
                let (Some(after), Some(Json::Object(before))) = (after.as_object(), before) else {
                    residual.insert(String::new(), after.clone());
                    residuals.push(residual);
                    candidates.push(unsent);
                    continue;
                };
                for (key, value) in members.iter() {
                    match after.get(key) {
                        Some(stored) if stored == value => {}
                        Some(stored) => {
                            residual.insert(pointer_of(key), stored.clone());
                        }
                        None if value.is_null() => model.null_removes = true,
                        None => {
                            let entry = fixed.entry(key.to_owned()).or_insert(Some(value.clone()));
                            if entry.as_ref() != Some(value) {
                                *entry = None;
                            }
                        }
                    }
                }
                for (key, value) in before.iter() {
                    if members.contains_key(key) {
                        continue;
                    }
                    match after.get(key) {
                        Some(now) if now == value => {
                            kept.insert(key.to_owned());
                        }
                        None => {
                            removed.insert(key.to_owned());
                        }
                        Some(now) => {
                            residual.insert(pointer_of(key), now.clone());
                        }
                    }
                }
                for (key, value) in after.iter() {
                    if !members.contains_key(key) && !before.contains_key(key) {
                        residual.insert(pointer_of(key), value.clone());
                    }
                }
            }
            (after, Effect::Delete) => {
                let before = call.before.as_ref().map(|before| &before.fields);
                match (after, before) {
                    (After::Present(after), Some(Json::Object(before))) => {
                        if let Some(after) = after.as_object() {
                            for (key, value) in after.iter() {
                                changed_leaves(
                                    pointer_of(key),
                                    before.get(key),
                                    value,
                                    &mut residual,
                                );
                            }
                        }
                    }
                    (_, Some(Json::Object(before))) => {
                        // The answer's projection of the deleted entity.
                        if let (Some(response), Some(pointer)) =
                            (&call.response, &call.response_pointer)
                            && let Some(Json::Object(shown)) = response.pointer(pointer)
                        {
                            for (key, value) in shown.iter() {
                                if let Some(held) = before.get(key)
                                    && held != value
                                {
                                    residual.insert(pointer_of(key), value.clone());
                                }
                            }
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        residuals.push(residual);
        candidates.push(unsent);
    }
    // Updates: a member sent under another name than the field it sets (`new_name` setting
    // `name`): a member the entity does not store under its own name whose value one changed,
    // unsent field took in every observed call that sent it.
    if effect == Effect::Update {
        let mut mapped: BTreeMap<String, Option<String>> = BTreeMap::new();
        for (position, &index) in observed.iter().enumerate() {
            let call = &calls[draft.calls[index]];
            let After::Present(Json::Object(after)) = &call.after else {
                continue;
            };
            for (member, value) in sent[index].iter() {
                if after.contains_key(member) || value.is_null() {
                    mapped.insert(member.to_owned(), None);
                    continue;
                }
                let fields: Vec<String> = residuals[position]
                    .iter()
                    .filter(|(pointer, changed)| {
                        let Some(field) = pointer.strip_prefix('/') else {
                            return false;
                        };
                        *changed == value
                            && !field.contains('/')
                            && !sent[index]
                                .contains_key(&field.replace("~1", "/").replace("~0", "~"))
                    })
                    .map(|(pointer, _)| pointer.clone())
                    .collect();
                let entry =
                    mapped
                        .entry(member.to_owned())
                        .or_insert_with(|| match fields.as_slice() {
                            [only] => Some(only.clone()),
                            _ => None,
                        });
                if fields.len() != 1 || entry.as_ref() != fields.first() {
                    *entry = None;
                }
            }
        }
        for (member, pointer) in mapped {
            let Some(pointer) = pointer else {
                continue;
            };
            for (position, &index) in observed.iter().enumerate() {
                if sent[index].contains_key(&member) {
                    residuals[position].remove(&pointer);
                }
            }
            fixed.remove(&member);
            model.sent_as.insert(member, pointer);
        }
    }
    // Creates: path values and values every held entity shares are the host's; the rest goes to
    // the rules.
    if effect == Effect::Create {
        for (index, unsent) in candidates.iter().enumerate() {
            for (key, value) in unsent {
                if path_candidates.get(key).cloned().flatten().is_some() {
                    continue;
                }
                if shared_candidates.get(key) == Some(&true) {
                    continue;
                }
                residuals[index].insert(pointer_of(key), value.clone());
            }
        }
        for (key, path) in &path_candidates {
            if let Some(path) = path {
                model.path_fields.insert(key.clone(), path.clone());
            }
        }
        for (key, shared) in &shared_candidates {
            if *shared && !model.path_fields.contains_key(key) {
                model.collection_constants.push(key.clone());
                if let Some(value) = candidates.iter().find_map(|unsent| unsent.get(key)) {
                    model.constants.insert(key.clone(), value.clone());
                }
            }
        }
    }

    // A member the calls sent with several values that no stored field shows is unexplained;
    // a rule that reads it (a `reference` naming other entities by it) may explain it.
    for (name, value) in &fixed {
        if value.is_none()
            && let Some(residual) = residuals.first_mut()
        {
            residual.insert(pointer_of(name), Json::Null);
        }
    }
    // The rules, in pipeline order.
    let clock_anchors: Vec<ClockAnchor> = draft
        .calls
        .iter()
        .filter_map(|call| {
            let call = &calls[*call];
            Some(ClockAnchor {
                record_ordinal: call.ordinal,
                instant: call.started.clone()?,
                duration_ms: call.duration_ms.map(|duration| duration.ceil() as u64),
            })
        })
        .collect();
    let tool = ToolRef {
        method: draft.plan.method.clone(),
        name: draft.plan.tool.clone(),
        path_template: draft.plan.path_template.clone(),
    };
    let effect_name = match (
        effect,
        draft.plan.action.is_some(),
        draft.plan.bulk || draft.as_bulk,
    ) {
        (Effect::Update, true, _) => "action",
        (Effect::Update, _, true) => "bulk-update",
        (Effect::Delete, _, true) => "bulk-delete",
        (effect, _, _) => effect.name(),
    };
    // The observations, built once; each step sees what the steps before it left unexplained.
    let mut request = LearnRequest {
        calls: observed
            .iter()
            .map(|index| {
                let call = &calls[draft.calls[*index]];
                ObservedCall {
                    duration_ms: call.duration_ms.map(|duration| duration.ceil() as u64),
                    entity_after: match &call.after {
                        After::Present(value) | After::Document(value) => Some(to_value(value)),
                        _ => None,
                    },
                    entity_before: call
                        .before
                        .as_ref()
                        .map(|before| to_value(&before.fields))
                        .or_else(|| call_document_before(call).map(|value| to_value(&value))),
                    held_max: call
                        .held_max
                        .iter()
                        .map(|(field, value)| (field.clone(), to_value(value)))
                        .collect(),
                    path_params: template_params
                        .iter()
                        .filter(|(_, is_param)| *is_param)
                        .filter_map(|(position, _)| {
                            call.segments.get(*position).map(|segment| decoded(segment))
                        })
                        .collect(),
                    reads_after: call.reads.clone(),
                    record_ordinal: call.ordinal,
                    request_body: match &call.request {
                        RequestBody::Json(body) => Some(to_value(body)),
                        _ => None,
                    },
                    response_body: call.response.as_ref().map(to_value),
                    response_status: call.status,
                    started: call.started.clone(),
                    position_before: call.before_position,
                    unexplained: BTreeMap::new(),
                }
            })
            .collect(),
        clock_anchors,
        effect: effect_name.to_owned(),
        identity_field: (!identity.is_empty()).then(|| identity.clone()),
        options: BTreeMap::new(),
        schema_version: rea_plugin_api::contracts::SCHEMA_VERSION,
        tool,
    };
    for step in rules.steps() {
        for (call, residual) in request.calls.iter_mut().zip(&residuals) {
            call.unexplained = residual
                .iter()
                .map(|(pointer, value)| (pointer.clone(), to_value(value)))
                .collect();
        }
        request.options = step.options.clone();
        let outcome = match step.handle.learn(&request) {
            Ok(outcome) => outcome,
            Err(error) => {
                tracing::warn!(
                    stage = step.stage.as_str(),
                    tool = draft.plan.tool.as_str(),
                    error = error.as_str(),
                    "a rule stage failed to learn; it explains nothing for this tool"
                );
                continue;
            }
        };
        let LearnOutcome::Learned {
            explains,
            needs_clock,
            rule,
            ..
        } = outcome
        else {
            continue;
        };
        let offered: BTreeSet<&String> = residuals
            .iter()
            .flat_map(|residual| residual.keys())
            .collect();
        let explains: Vec<String> = explains
            .into_iter()
            .filter(|pointer| offered.contains(pointer))
            .collect();
        if explains.is_empty()
            && !matches!(rule, serde_json::Value::Object(ref object) if object.contains_key("placement"))
        {
            continue;
        }
        for residual in &mut residuals {
            for pointer in &explains {
                residual.remove(pointer);
            }
        }
        draft.plan.rules.push(PlanRule {
            stage: step.stage.clone(),
            plugin: step.plugin.clone(),
            explains,
            needs_clock,
            rule: Json::from_serde_value(&rule),
        });
    }
    // Creates: what every create stored with one value is a constant.
    if effect == Effect::Create {
        let mut values: BTreeMap<String, Option<Json>> = BTreeMap::new();
        for residual in &residuals {
            for (pointer, value) in residual {
                let entry = values.entry(pointer.clone()).or_insert(Some(value.clone()));
                if entry.as_ref() != Some(value) {
                    *entry = None;
                }
            }
        }
        for (pointer, value) in values {
            let Some(value) = value else {
                continue;
            };
            let field = pointer[1..].replace("~1", "/").replace("~0", "~");
            // A member that only some creates stored is not a constant of every create.
            if residuals
                .iter()
                .all(|residual| residual.contains_key(&pointer))
            {
                model.constants.insert(field, value);
                for residual in &mut residuals {
                    residual.remove(&pointer);
                }
            }
        }
    }
    // Fixed members: sent with one value, never stored.
    for (name, value) in fixed {
        if let (Some(value), Some(member)) = (value, body.members.get_mut(&name)) {
            member.fixed = Some(value);
        }
    }
    // Updates: unsent members kept or removed; a PUT replaces.
    model.kept = kept.difference(&removed).cloned().collect();
    model.removed = removed.into_iter().collect();
    let method = draft.plan.method.to_ascii_uppercase();
    model.replace = method == "PUT" && (!model.removed.is_empty() || effect == Effect::Document);
    // The exemplar entity's member order.
    if let Some(After::Present(Json::Object(object))) = observed
        .first()
        .map(|index| &calls[draft.calls[*index]].after)
    {
        model.order = object.keys().map(str::to_owned).collect();
    }
    // A delete whose entity reads back marked deleted keeps it.
    if effect == Effect::Delete {
        let soft = observed
            .iter()
            .find_map(|index| match &calls[draft.calls[*index]].after {
                After::Present(object) if marked_deleted(object) => DELETED_FLAGS
                    .iter()
                    .find(|flag| object.get(flag).and_then(Json::as_bool) == Some(true))
                    .map(|flag| (*flag).to_owned()),
                _ => None,
            });
        model.soft_delete = soft;
    }
    // Besides what the recorded calls sent, a create or update accepts the other members the
    // capture showed its type's entities storing (a document write: its document's members),
    // with the JSON types they were stored with; not the identity an item path names, nor
    // members a rule generates.
    let stored = match (effect, &draft.plan.target) {
        (Effect::Document, Some(target)) => target
            .document
            .as_ref()
            .and_then(|view| views.document_types.get(view)),
        (Effect::Create | Effect::Update, _)
            if draft.plan.action.is_none() && key_member.is_none() =>
        {
            entity_type
                .as_ref()
                .and_then(|name| views.field_types.get(name))
        }
        _ => None,
    };
    if let Some(stored) = stored {
        let generated: BTreeSet<String> = draft
            .plan
            .rules
            .iter()
            .flat_map(|rule| rule.explains.iter())
            .map(|pointer| {
                pointer
                    .trim_start_matches('/')
                    .replace("~1", "/")
                    .replace("~0", "~")
            })
            .collect();
        for (field, types) in stored {
            if body.members.contains_key(field)
                || generated.contains(field)
                || (effect == Effect::Update && *field == identity)
            {
                continue;
            }
            body.members.insert(
                field.clone(),
                MemberModel {
                    types: types.iter().cloned().collect(),
                    required: false,
                    fixed: None,
                },
            );
        }
    }
    draft.plan.fields = Some(model);
    draft.plan.body = Some(body);
    // The answer.
    let Some(record) = records
        .iter()
        .find(|record| Some(record.ordinal) == draft.plan.exemplar_ordinal)
    else {
        draft.plan.withhold("body-unusable");
        return;
    };
    let exemplar = &calls[draft.calls[0]];
    let Some((mut kind, pointer)) = response_kind(exemplar, effect) else {
        draft.plan.withhold("body-unusable");
        return;
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
    let required_members = if matches!(kind, ResponseKind::Entity | ResponseKind::Projection) {
        let mut common: Option<BTreeSet<String>> = None;
        for call in &draft.calls {
            let shown = calls[*call]
                .response
                .as_ref()
                .and_then(|response| response.pointer(pointer.as_deref().unwrap_or("")))
                .and_then(Json::as_object);
            if let Some(shown) = shown {
                let keys: BTreeSet<String> = shown.keys().map(str::to_owned).collect();
                common = Some(match common {
                    None => keys,
                    Some(previous) => previous.intersection(&keys).cloned().collect(),
                });
            }
        }
        // A member a read showed the application leaving out (not among the item view's required
        // fields) is not required of an answer either.
        let item_required = info
            .and_then(|info| info.item.as_ref())
            .map(|item| &item.required_fields);
        common
            .unwrap_or_default()
            .into_iter()
            .filter(|member| {
                kind != ResponseKind::Entity
                    || item_required.is_none_or(|required| required.contains(member))
            })
            .collect()
    } else {
        Vec::new()
    };
    draft.plan.response = Some(ResponseModel {
        ordinal: record.ordinal,
        status: record.response.status,
        media_type: record.response.media_type.clone(),
        kind,
        pointer,
        required_members,
    });
    // A missing entity answers the recorded 400/404/410 of the tool, else of the item view.
    if matches!(effect, Effect::Update | Effect::Delete) {
        let failed: BTreeSet<u64> = draft.failed.iter().copied().collect();
        let tool_missing = records
            .iter()
            .filter(|record| failed.contains(&record.ordinal))
            .filter(|record| matches!(record.response.status, 400 | 404 | 410))
            .map(|record| record.ordinal)
            .max_by_key(|ordinal| draft.failed.iter().position(|failed| failed == ordinal));
        draft.plan.missing_ordinal = tool_missing.or_else(|| {
            info.and_then(|info| info.item.as_ref())
                .and_then(|item| item.missing_ordinal)
        });
    }
    if residuals.iter().any(|residual| !residual.is_empty()) {
        tracing::debug!(
            tool = draft.plan.tool.as_str(),
            unexplained = ?residuals
                .iter()
                .map(|residual| residual.keys().cloned().collect::<Vec<_>>())
                .collect::<Vec<_>>(),
            "the rules left changes of the observed calls unexplained"
        );
        draft.plan.withhold("unexplained-change");
    }
}

/// A bulk write's plan: each entity its calls named is learned as one call of an update or
/// delete of that entity (what it was sent: the members beside the id array, or its object in
/// the array), and the plan keeps the calls' id layout.
fn learn_bulk(
    draft: &mut Draft,
    calls: &mut [Call],
    views: &Views,
    rules: &RuleSet,
    records: &[CaptureRecord],
    layout: BulkIds,
    body: BodyModel,
) {
    let identity = draft
        .plan
        .target
        .as_ref()
        .and_then(|target| target.identity_field.clone())
        .unwrap_or_default();
    let mut one_by_one: Vec<Call> = Vec::new();
    for call in &draft.calls {
        let call = &calls[*call];
        let RequestBody::Json(sent) = &call.request else {
            continue;
        };
        for target in &call.bulk {
            let mut one = call.clone();
            one.key = call.key.clone().or_else(|| {
                draft
                    .plan
                    .target
                    .as_ref()
                    .and_then(|plan_target| plan_target.entity_type.clone())
                    .map(|entity_type| {
                        let segments = draft
                            .plan
                            .target
                            .as_ref()
                            .map_or(0, |plan_target| plan_target.collection_segments);
                        let collection = format!(
                            "/{}",
                            call.segments[..segments.min(call.segments.len())].join("/")
                        );
                        (entity_type, collection, target.id.clone())
                    })
            });
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
    let mut single = Draft {
        tool: draft.tool,
        classified: super::target::Classified {
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
    };
    if one_by_one.is_empty() {
        draft.plan.body = Some(BodyModel {
            bulk_ids: Some(layout),
            ..body
        });
        draft.plan.withhold("no-observation");
        return;
    }
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
            query: body.query,
            none: false,
            members: learned.members,
        },
        None => BodyModel {
            bulk_ids: Some(layout),
            ..body
        },
    });
    draft.plan = plan;
}

fn call_document_before(call: &Call) -> Option<Json> {
    call.document_before.clone()
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

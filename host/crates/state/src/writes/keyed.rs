//! Keyed batches (pass 3): a create whose calls send rows of the collection (a batch, see
//! [`super::observe::batch_items`]) some of which name, by the type's identity, an entity the
//! state held is an upsert by key: a row naming a held entity updates it, any other row creates
//! one (`/-/upsert` rows keyed by their primary key, `_bulk_docs` documents naming their `_id`).
//! It is learned as a bulk update of the rows that named held entities, each row one call as a
//! bulk plan learns them, whose `upsert` is the create the other rows made, as a `PUT` upsert
//! learns its creating calls. One recorded call showing both kinds of row is enough: which rows
//! updated and which created is what the state held before the call, not a guess.

use rea_plugin_api::contracts::capture::CaptureRecord;
use rea_plugin_api::json::{Json, Object};

use super::learn::{
    common_bulk_layout, envelope_options, learn_one, merge_upsert_body, note_calls, request_bodies,
};
use super::model::{
    BodyModel, Effect, OptionedAnswer, ResponseKind, ResponseModel, UpsertModel, WritePlan,
};
use super::observe::Call;
use super::target::Classified;
use super::{Draft, Views};
use crate::observation::RequestBody;
use crate::rules::RuleSet;

/// Whether a draft is a keyed batch: a create every call of which sent rows observed one by one,
/// some naming an entity the state held, into a collection its path names.
pub(super) fn keyed_batch(draft: &Draft, calls: &[Call]) -> bool {
    draft.plan.effect == Effect::Create
        && !draft.plan.bulk
        && draft.plan.target.is_some()
        && !draft.calls.is_empty()
        && draft.calls.iter().all(|call| !calls[*call].bulk.is_empty())
        && draft.calls.iter().any(|call| {
            calls[*call]
                .bulk
                .iter()
                .any(|target| target.before.is_some())
        })
}

/// Learns a keyed batch (see the module docs). Withheld as `body-unusable` when the calls do not
/// share one array of row objects, or when an answer lists one item per row in a way no rows
/// model fits (see [`super::rows`]).
pub(super) fn learn_keyed(
    draft: &mut Draft,
    calls: &mut [Call],
    views: &Views,
    rules: &RuleSet,
    records: &[CaptureRecord],
) {
    note_calls(draft, calls);
    let bodies = match request_bodies(draft, calls) {
        Ok(bodies) => bodies,
        Err(reason) => return draft.plan.withhold(reason),
    };
    let Some(layout) = common_bulk_layout(&bodies).filter(|layout| layout.objects) else {
        return draft.plan.withhold("body-unusable");
    };
    let present: Vec<&Json> = bodies.iter().flatten().copied().collect();
    let mut body = BodyModel {
        bulk_ids: Some(layout.clone()),
        query: calls[draft.calls[0]].query.clone().unwrap_or_default(),
        options: envelope_options(&present, &layout.pointer),
        ..BodyModel::default()
    };
    let listing = draft.calls.iter().any(|call| lists_rows(&calls[*call]));
    let (updating, creating) = rows_as_calls(draft, calls, &layout);
    let mut ones: Vec<Call> = updating;
    let updates = ones.len();
    ones.extend(creating);
    let mut single = one_by_one(draft, Effect::Update, (0..updates).collect());
    learn_one(&mut single, &mut ones, views, rules, records);
    let mut plan = single.plan;
    plan.bulk = true;
    plan.record_ordinals = draft.plan.record_ordinals.clone();
    plan.exemplar_ordinal = draft.plan.exemplar_ordinal;
    body.members = plan
        .body
        .take()
        .map(|learned| learned.members)
        .unwrap_or_default();
    if updates < ones.len() {
        let mut half = one_by_one(draft, Effect::Create, (updates..ones.len()).collect());
        learn_one(&mut half, &mut ones, views, rules, records);
        adopt_creating_half(&mut plan, &mut body, half.plan);
    }
    if listing {
        // The answer lists the rows written: rendered as the recorded answers list them, else
        // withheld (never another call's rows).
        match rows_answer(draft, calls, records, &body, &plan) {
            Some(response) => {
                if let Some(upsert) = plan.upsert.as_mut() {
                    upsert.response = None;
                }
                plan.response = Some(response);
            }
            None => plan.withhold("body-unusable"),
        }
    }
    plan.body = Some(body);
    draft.plan = plan;
    draft.classified.effect = Effect::Update;
    draft.classified.bulk = true;
}

/// A draft learning rows one by one (`calls` index the rows as calls) with `effect`: the updates
/// of held entities as a bulk plan's rows (the rules see `bulk-update`), the creates as creates.
fn one_by_one(draft: &Draft, effect: Effect, calls: Vec<usize>) -> Draft {
    Draft {
        tool: draft.tool,
        classified: Classified {
            effect,
            bulk: false,
            ..draft.classified.clone()
        },
        plan: WritePlan {
            effect,
            ..draft.plan.clone()
        },
        calls,
        // The failed calls (their recorded refusals) are the bulk plan's, not its creates'.
        failed: match effect {
            Effect::Update => draft.failed.clone(),
            _ => Vec::new(),
        },
        as_bulk: effect == Effect::Update,
        stamped: draft.stamped.clone(),
    }
}

/// The rows that created entities become the plan's `upsert` (their body accepted beside the
/// updating rows'; their reason the plan's).
fn adopt_creating_half(plan: &mut WritePlan, body: &mut BodyModel, created: WritePlan) {
    if let Some(members) = created.body.as_ref() {
        merge_upsert_body(body, members);
    }
    if let Some(reason) = &created.reason {
        plan.withhold(reason);
    }
    plan.upsert = Some(UpsertModel {
        record_ordinals: created.record_ordinals,
        fields: created.fields,
        rules: created.rules,
        response: created.response,
    });
}

/// The answer of a keyed batch whose calls' answers list the rows written (see [`super::rows`]):
/// one model every call's answer fits, given whatever options (`"return": true`) those calls
/// sent beside the rows, and only them (a call sending other options has no known answer).
/// `None` when a call's answer lists no rows or no model fits them all.
fn rows_answer(
    draft: &Draft,
    calls: &[Call],
    records: &[CaptureRecord],
    body: &BodyModel,
    plan: &WritePlan,
) -> Option<ResponseModel> {
    let identity = plan.target.as_ref()?.identity_field.as_deref()?;
    let listed: Vec<&Call> = draft.calls.iter().map(|call| &calls[*call]).collect();
    let (pointer, rows) = super::rows::learn_rows(&listed, identity)?;
    let first = listed.first()?;
    let record = records
        .iter()
        .find(|record| record.ordinal == first.ordinal)?;
    let response = ResponseModel::recorded_at(record, ResponseKind::Rows, pointer, Some(rows));
    let mut by_options: Vec<OptionedAnswer> = Vec::new();
    for call in &listed {
        let options = match &call.request {
            RequestBody::Json(sent) => body.sent_options(Some(sent)),
            _ => Default::default(),
        };
        if !body.options.is_empty() && by_options.iter().all(|known| known.options != options) {
            by_options.push(OptionedAnswer {
                options,
                response: response.clone(),
            });
        }
    }
    Some(ResponseModel {
        by_options,
        ..response
    })
}

/// Whether a call's answer lists one item per row it sent (`{"rows": […]}` of the rows written,
/// `[{"ok": true, "id": …}, …]`).
fn lists_rows(call: &Call) -> bool {
    let listing = match &call.response {
        Some(Json::Array(items)) => Some(items),
        Some(Json::Object(object)) => object.iter().find_map(|(_, value)| value.as_array()),
        _ => None,
    };
    listing.is_some_and(|items| items.len() == call.bulk.len())
}

/// Each row of the calls as one call of its own, the row whole: the rows that named a held
/// entity, then the rows that created one.
fn rows_as_calls(
    draft: &Draft,
    calls: &[Call],
    layout: &super::model::BulkIds,
) -> (Vec<Call>, Vec<Call>) {
    let (mut updating, mut creating) = (Vec::new(), Vec::new());
    for call in &draft.calls {
        let call = &calls[*call];
        let RequestBody::Json(sent) = &call.request else {
            continue;
        };
        let rows = sent.pointer(&layout.pointer).and_then(Json::as_array);
        for (index, target) in call.bulk.iter().enumerate() {
            let mut one = call.clone();
            one.key = super::learn::bulk_entity_key(&draft.plan, call, &target.id);
            one.before = target.before.clone();
            one.after = target.after.clone();
            one.reads = target.reads.clone();
            one.before_position = target.before_position;
            one.bulk = Vec::new();
            // The row whole, its identity where it sent it (a digest of the saved document
            // covers it there).
            let row = rows.and_then(|rows| rows.get(index)).cloned();
            one.request = RequestBody::Json(row.unwrap_or(Json::Object(Object::new())));
            if target.before.is_some() {
                updating.push(one);
            } else {
                creating.push(one);
            }
        }
    }
    (updating, creating)
}

//! Writes selected by a query: an update or delete of a type's collection path (`PATCH
//! /tasks?projectId=4`, `DELETE /tasks?status=done&projectId=2`) whose body names no ids, every
//! recorded call sending a query its collection's list tool reads as filters. Its entities are
//! those the query selects over the held entities, evaluated with that list's learned query
//! model (the grammar its reads established, so a served call may name any filter the list
//! takes), in the list's order; the body is what it sends each of them, learned and applied as
//! a bulk write's ([`super::learn`]'s `learn_bulk`).
//!
//! Observed from the recording: the entities a call's answer lists (the changed or removed
//! records, an array at the answer's root or in its one array member) are the ones it wrote, each
//! observed as a bulk call's entity; the confirmation replays the query over the simulated
//! state, so a selection the learned grammar does not reproduce is contradicted by the reads
//! after. The answer (the array of the written entities, as [`super::rows`] learns it, or the
//! recorded answer without rows) follows the recording.
//!
//! A served call naming no query, a parameter the list reads as anything but a filter or a
//! search (a sort, a page), or one the grammar cannot evaluate, is refused `not_modelled`,
//! nothing changed: the state never guesses which entities a query selects.

use rea_plugin_api::contracts::capture::CaptureRecord;
use rea_plugin_api::json::{Json, escape_pointer_segment};
use rea_plugin_api::query_fields::{nested_in, unnested};
use rea_plugin_api::query_lists::fold_list_names;
use serde_json::{Map, Value};

use super::apply::Refused;
use super::model::{BulkIds, Effect, ResponseKind, ResponseModel, SelectedBy};
use super::observe::Call;
use super::{Draft, Scope, Views};
use crate::model::QueryRole;
use crate::observation::RequestBody;
use crate::store::LiveState;

/// The layout of a bulk plan whose calls select by their query (see the module docs): every
/// call sent a query and no body but an object, and the list tool reading the write's path
/// template for its type reads every recorded parameter as a filter or a search.
pub(super) fn layout(draft: &Draft, calls: &[Call], views: &Views) -> Option<BulkIds> {
    let target = draft.plan.target.as_ref()?;
    let entity_type = target.entity_type.as_deref()?;
    let (list_tool, model) = list_model(views, entity_type, &draft.plan.path_template)?;
    let queries: Vec<Vec<(String, String)>> = draft
        .calls
        .iter()
        .map(|call| fold_list_names(calls[*call].query.as_deref().unwrap_or_default()))
        .collect();
    let nesting = nesting(
        model,
        queries.iter().flatten().map(|(name, _)| name.as_str()),
    )?;
    let selects = draft.calls.iter().zip(queries).all(|(call, pairs)| {
        let sends_object = matches!(
            &calls[*call].request,
            RequestBody::Missing | RequestBody::Json(Json::Object(_))
        );
        let pairs = list_spelled(model, nesting.as_deref(), pairs);
        sends_object && !pairs.is_empty() && selecting(model, &pairs).is_ok()
    });
    selects.then(|| BulkIds {
        pointer: String::new(),
        objects: false,
        selected: Some(Box::new(SelectedBy {
            list_tool: list_tool.to_owned(),
            model: model.clone(),
            nesting,
        })),
        data: None,
    })
}

/// The list tool of `entity_type` read through `template` (the write's path), with its query
/// model; the first by tool index when several.
fn list_model<'v>(
    views: &'v Views,
    entity_type: &str,
    template: &str,
) -> Option<(&'v str, &'v crate::model::QueryModel)> {
    let mut lists: Vec<(&usize, &Scope)> = views.scopes.iter().collect();
    lists.sort_by_key(|(tool, _)| **tool);
    lists.into_iter().find_map(|(_, scope)| match scope {
        Scope::List(list_type, list)
            if list_type == entity_type && list.path_template == template =>
        {
            Some((list.tool.as_str(), list.query.as_ref()?))
        }
        _ => None,
    })
}

/// Whether every pair is one the model reads as a filter or a search, each named once; the
/// refusal names the first that is not.
pub(crate) fn selecting(
    model: &crate::model::QueryModel,
    pairs: &[(String, String)],
) -> Result<(), Refused> {
    for (index, (name, _)) in pairs.iter().enumerate() {
        if pairs[..index].iter().any(|(earlier, _)| earlier == name) {
            return Err(not_modelled(format!(
                "the query names {name} twice, which no recorded write did"
            )));
        }
        match model.role(name) {
            Some(QueryRole::Filter { .. } | QueryRole::Search) => {}
            _ => {
                return Err(not_modelled(format!(
                    "the query parameter {name} is no filter the list of this collection reads, so which entities it selects is not modelled"
                )));
            }
        }
    }
    Ok(())
}

fn not_modelled(message: String) -> Refused {
    Refused {
        code: "not_modelled",
        message,
    }
}

/// The entities a recorded call's answer lists as written: the identity of each object of the
/// answer's array (the answer itself, or its one member holding an array), with the object;
/// `None` when the answer lists none that way or an item names no entity.
pub(super) fn answered(response: Option<&Json>, identity: &str) -> Option<Vec<(String, Json)>> {
    let items = match response? {
        Json::Array(items) => items,
        Json::Object(object) => {
            let mut arrays = object.iter().filter_map(|(_, value)| value.as_array());
            let items = arrays.next()?;
            if arrays.next().is_some() {
                return None;
            }
            items
        }
        _ => return None,
    };
    items
        .iter()
        .map(|item| {
            let id = crate::render::identity_text(item, identity)?;
            Some((id, item.clone()))
        })
        .collect()
}

/// The rows a selecting call writes: the held entities of `collection` the query selects, in
/// the list's order (a sort the query cannot name), each with no row body of its own.
pub(super) fn rows(
    selected: &SelectedBy,
    state: &LiveState,
    place: (&str, &str),
    query: &[(String, String)],
) -> Result<Vec<(Option<String>, Json)>, Refused> {
    let pairs = list_spelled(
        &selected.model,
        selected.nesting.as_deref(),
        fold_list_names(query),
    );
    if pairs.is_empty() {
        return Err(not_modelled(
            "this write selects its entities by a query, and the call names none (every recorded call did)"
                .to_owned(),
        ));
    }
    let ids = selected_ids(&selected.model, state, place, &pairs)?;
    Ok(ids.into_iter().map(|id| (Some(id), Json::Null)).collect())
}

/// The identities of the held entities of `collection` the (list-spelled) query selects, in
/// the list's order.
fn selected_ids(
    model: &crate::model::QueryModel,
    state: &LiveState,
    (entity_type, collection): (&str, &str),
    pairs: &[(String, String)],
) -> Result<Vec<String>, Refused> {
    selecting(model, pairs)?;
    let held = state.collection(entity_type, collection);
    let objects: Vec<&rea_plugin_api::json::Object> = held
        .iter()
        .filter_map(|entity| entity.fields.as_object())
        .collect();
    if objects.len() != held.len() {
        return Err(not_modelled(
            "an entity of this collection is no object a query reads".to_owned(),
        ));
    }
    let Some((matched, _)) = crate::query::order_matches(model, pairs, &objects) else {
        return Err(not_modelled(
            "the list's learned query grammar cannot evaluate this query".to_owned(),
        ));
    };
    Ok(matched
        .into_iter()
        .map(|index| held[index].id.clone())
        .collect())
}

/// The wrapper the list nests the query names it gives no role in (`filter`, when the list
/// reads `where[projectId]` as `filter[where][projectId]`, see
/// [`rea_plugin_api::query_fields::unnested`]): `Some(None)` when it reads every name as sent,
/// `None` when a name no wrapper (or more than one) gives a role, or two names need two wrappers.
pub(crate) fn nesting<'n>(
    model: &crate::model::QueryModel,
    names: impl Iterator<Item = &'n str>,
) -> Option<Option<String>> {
    let wrappers: std::collections::BTreeSet<&str> = model
        .parameters
        .keys()
        .filter(|name| unnested(name).is_some())
        .filter_map(|name| name.split_once('[').map(|(base, _)| base))
        .collect();
    let mut found: Option<&str> = None;
    for name in names {
        if model.role(name).is_some() {
            continue;
        }
        let mut reading = wrappers.iter().filter(|base| {
            let candidate = nested_in(base, name);
            unnested(&candidate).as_deref() == Some(name) && model.role(&candidate).is_some()
        });
        let (Some(base), None) = (reading.next(), reading.next()) else {
            return None;
        };
        if found.is_some_and(|known| known != *base) {
            return None;
        }
        found = Some(base);
    }
    Some(found.map(str::to_owned))
}

/// The pairs as the list reads them: a name the model gives no role nested in the write's
/// `nesting` wrapper (see [`nesting`]); any other name as sent.
pub(crate) fn list_spelled(
    model: &crate::model::QueryModel,
    nesting: Option<&str>,
    pairs: Vec<(String, String)>,
) -> Vec<(String, String)> {
    let Some(base) = nesting else {
        return pairs;
    };
    pairs
        .into_iter()
        .map(|(name, value)| match model.role(&name) {
            Some(_) => (name, value),
            None => (nested_in(base, &name), value),
        })
        .collect()
}

/// The entities a recorded call wrote when its answer only counts them (`{"count": 3}`, see
/// [`count_answer`]): those the list of `entity_type` read through `template` selects by the
/// call's query over the state at the call, when they are as many as the answer says; `None`
/// otherwise (the call is then unobserved).
pub(super) fn counted(
    views: &Views,
    template: &str,
    state: &LiveState,
    place: (&str, &str),
    call: &Call,
) -> Option<Vec<String>> {
    let (_, model) = list_model(views, place.0, template)?;
    let (_, count) = count_answer(call.response.as_ref()?)?;
    let pairs = fold_list_names(call.query.as_deref()?);
    let nesting = nesting(model, pairs.iter().map(|(name, _)| name.as_str()))?;
    let pairs = list_spelled(model, nesting.as_deref(), pairs);
    if pairs.is_empty() {
        return None;
    }
    let ids = selected_ids(model, state, place, &pairs).ok()?;
    (ids.len() as u64 == count).then_some(ids)
}

/// An answer that only counts: an object whose one member holds a non-negative integer, as
/// that member and the number.
pub(crate) fn count_answer(response: &Json) -> Option<(&str, u64)> {
    let object = response.as_object()?;
    let mut members = object.iter();
    let (name, value) = members.next()?;
    if members.next().is_some() {
        return None;
    }
    match value {
        Json::Number(number) => Some((name, u64::try_from(number.as_i64()?).ok()?)),
        _ => None,
    }
}

/// A served call's query pairs: each argument the write tool's recorded schema targets at the
/// query under its recorded name, and each argument it does not know (one the state catalog
/// offered from the list's grammar, see [`crate::catalog`]) under its own; list names' values
/// folded as the recorded lines' are.
pub(super) fn served_query(
    definition: &rea_manifest::ToolDefinition,
    arguments: &Map<String, Value>,
) -> Vec<(String, String)> {
    use rea_manifest::catalog::ArgumentTarget;
    let mut pairs = Vec::new();
    for (name, value) in arguments {
        let query_name = match definition.input_schema.argument(name) {
            Some(argument) => match &argument.target {
                ArgumentTarget::Query { name } => name.clone(),
                _ => continue,
            },
            None => name.clone(),
        };
        for text in rea_manifest::replay::query_texts(value).unwrap_or_default() {
            pairs.push((query_name.clone(), text));
        }
    }
    fold_list_names(&pairs)
}

/// Learns a selecting plan as a bulk write of the entities its calls' answers listed, taking
/// no body where no call sent one, answering the rows it wrote where every recorded answer
/// listed them (see [`rows_answer`]).
pub(super) fn learn(
    draft: &mut Draft,
    calls: &mut [Call],
    (views, rules, records): (&Views, &crate::rules::RuleSet, &[CaptureRecord]),
    layout: BulkIds,
) {
    let bodiless = draft
        .calls
        .iter()
        .all(|call| matches!(calls[*call].request, RequestBody::Missing));
    super::learn::learn_bulk(draft, calls, views, rules, records, layout, Vec::new());
    if let Some(body) = draft.plan.body.as_mut() {
        body.none = bodiless;
    }
    if let Some(response) =
        rows_answer(draft, calls, records).or_else(|| count_model(draft, calls, records))
    {
        draft.plan.response = Some(response);
    }
}

/// The answer of a selecting plan whose recorded answers only count the entities written
/// (`{"count": 3}`), each naming the number its call was observed to write under one member;
/// `None` when one does not.
fn count_model(draft: &Draft, calls: &[Call], records: &[CaptureRecord]) -> Option<ResponseModel> {
    let mut member = None;
    for call in draft.calls.iter().map(|call| &calls[*call]) {
        let (name, count) = count_answer(call.response.as_ref()?)?;
        if call.bulk.len() as u64 != count || member.is_some_and(|known| known != name) {
            return None;
        }
        member = Some(name);
    }
    let pointer = format!("/{}", escape_pointer_segment(member?));
    let first = &calls[*draft.calls.first()?];
    let record = records
        .iter()
        .find(|record| record.ordinal == first.ordinal)?;
    Some(ResponseModel::recorded_at(
        record,
        ResponseKind::Count,
        pointer,
        None,
    ))
}

/// The answer of a selecting plan whose recorded answers list the entities written (an update's
/// as after it, a delete's as before it; see [`super::rows`]); `None` when one does not.
fn rows_answer(draft: &Draft, calls: &[Call], records: &[CaptureRecord]) -> Option<ResponseModel> {
    let identity = draft.plan.target.as_ref()?.identity_field.as_deref()?;
    let listed: Vec<&Call> = draft.calls.iter().map(|call| &calls[*call]).collect();
    let removed = draft.plan.effect == Effect::Delete;
    let (pointer, rows) = super::rows::learn_shown_rows(&listed, identity, removed)?;
    let first = listed.first()?;
    let record = records
        .iter()
        .find(|record| record.ordinal == first.ordinal)?;
    Some(ResponseModel::recorded_at(
        record,
        ResponseKind::Rows,
        pointer,
        Some(rows),
    ))
}

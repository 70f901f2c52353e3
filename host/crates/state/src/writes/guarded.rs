//! Guarded batches: a write tool whose every successful recorded call sent, in one body member,
//! a list of sub-requests each wrapped in one member naming a sibling write tool by its verb
//! (`{"success": [{"request_put": {"key": …, "value": …}}]}` beside `/v3/kv/put`), and answered,
//! in one list member of the same length, each sub-request's answer wrapped in a member naming
//! the same verb and showing a part of that tool's answer (`{"responses": [{"response_put":
//! {"header": {"revision": …}}}]}`). Optionally a second list member holds guards: objects
//! naming an entity by the sub-requests' key member, one member whose value names (ignoring
//! ASCII case) another member the guard holds, the value that member of the entity must hold
//! (`{"key": …, "target": "VALUE", "result": "EQUAL", "value": …}`), and members every
//! recorded guard sent alike. Other list members (the alternative branch, `failure`) are taken
//! and never applied.
//!
//! Learned (after the four passes, for a write withheld as `no-state-target`) where the wrapped
//! sub-requests name served, literal sibling write tools and the wrapped answers show only
//! members of those tools' recorded answers; the roles are read from the recorded calls and
//! must agree across them. Nothing here names a member: the roles are found by shape.
//!
//! Served only when every guard holds against the held entity (the recorded calls show only
//! guards that held, so what a failed guard does is not known: refused, nothing changed): each
//! sub-request applied as the one call of the tool it names would be
//! ([`super::serve::gated_write_call`]), in order, under the batch's write gate; a refused one
//! restores the state held before. The answer is the recorded one with the wrapped answers
//! composed from the served ones (each recorded member taken from the served answer) and the
//! store counters stamped.

use rea_plugin_api::contracts::capture::CompactString;
use std::collections::BTreeMap;

use rea_manifest::Manifest;
use rea_manifest::segments::split_path;
use rea_plugin_api::json::{Json, Object};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::apply::WriteInput;
use super::batch;
use super::model::WritePlan;
use crate::answer::{StateAnswer, tool_error};
use crate::call::Call;
use crate::observation::{RequestBody, Timeline};
use crate::service::StateService;

/// How a guarded batch's body names its sub-requests and guards, and how its answer wraps the
/// sub-requests' answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GuardedModel {
    /// The body member holding the list of sub-requests applied.
    pub requests: String,
    /// The answer member holding their wrapped answers, in order.
    pub answers: String,
    /// Per sub-request wrapper member, the write tool it names and the answer's wrapper member.
    pub wrappers: BTreeMap<String, Wrapper>,
    /// The guards, when the recorded calls sent any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guards: Option<GuardModel>,
    /// Other list members a body may hold, never applied.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alternatives: Vec<String>,
    /// The recorded call whose answer the served answer is composed on.
    pub answer_ordinal: u64,
}

/// One sub-request wrapper: the tool it names, its answer's wrapper and the members (pointers)
/// the recorded wrapped answers showed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wrapper {
    /// The write tool.
    pub tool: String,
    /// The answer's wrapper member.
    pub answer: String,
    /// The pointers of the wrapped answer's scalar members.
    pub shown: Vec<String>,
}

/// The guards of a guarded batch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GuardModel {
    /// The body member holding the list of guards.
    pub member: String,
    /// The guard member naming the entity (the sub-requests' key member).
    pub key: String,
    /// The guard member naming which member is compared.
    pub selector: String,
    /// Members every recorded guard sent with one value.
    pub fixed: BTreeMap<String, Json>,
}

/// Serves, as guarded batches, the writes withheld as `no-state-target` whose recorded calls
/// show them (see the module docs).
pub(crate) fn learn(manifest: &Manifest, timeline: &Timeline, plans: &mut [WritePlan]) {
    for (index, tool) in batch::untargeted(manifest, plans) {
        if plans[index].batch.is_some() || plans[index].served {
            continue;
        }
        if let Some(model) = guarded_model(timeline, tool, plans, &plans[index].path_template) {
            let plan = &mut plans[index];
            plan.guarded = Some(model);
            batch::mark_served(plan);
        }
    }
}

/// The model every successful call of a tool agrees on; `None` when a call shows none.
fn guarded_model(
    timeline: &Timeline,
    tool: usize,
    plans: &[WritePlan],
    template: &str,
) -> Option<GuardedModel> {
    let mut found: Option<GuardedModel> = None;
    let mut calls = timeline
        .all(tool)
        .filter(|call| call.is_success())
        .peekable();
    calls.peek()?;
    for call in calls {
        let RequestBody::Json(Json::Object(body)) = &call.request else {
            return None;
        };
        let answer = call.body.as_ref()?.as_object()?;
        let next = call_model(timeline, plans, template, (body, answer), call.ordinal)?;
        found = Some(match found {
            None => next,
            Some(known) => agree(known, next)?,
        });
    }
    found
}

/// One call's reading: the one applied list whose answer list mirrors it, the guards, the
/// other lists.
fn call_model(
    timeline: &Timeline,
    plans: &[WritePlan],
    template: &str,
    (body, answer): (&Object, &Object),
    ordinal: u64,
) -> Option<GuardedModel> {
    let mut applied = body.iter().filter_map(|(name, value)| {
        let items = value.as_array().filter(|items| !items.is_empty())?;
        answer.iter().find_map(|(answers, listed)| {
            let listed = listed.as_array()?;
            let wrappers = mirrored(timeline, plans, template, items, listed)?;
            Some((name.to_owned(), answers.to_owned(), wrappers))
        })
    });
    let (requests, answers, wrappers) = applied.next()?;
    if applied.next().is_some() {
        return None;
    }
    let key = key_member(plans, &wrappers)?;
    let mut guards = None;
    let mut alternatives = Vec::new();
    for (name, value) in body.iter().filter(|(name, _)| *name != requests) {
        let items = value.as_array()?;
        match guard_model(name, &key, items) {
            Some(model) if guards.is_none() => guards = Some(model),
            _ if items.iter().all(|item| one_member(item).is_some()) => {
                alternatives.push(name.to_owned());
            }
            _ => return None,
        }
    }
    Some(GuardedModel {
        requests,
        answers,
        wrappers,
        guards,
        alternatives,
        answer_ordinal: ordinal,
    })
}

/// The wrappers of a list of sub-requests whose answers `listed` mirrors: each item one member
/// naming a served sibling tool by its verb, each answer one member naming the same verb and
/// showing only members of that tool's recorded answer.
fn mirrored(
    timeline: &Timeline,
    plans: &[WritePlan],
    template: &str,
    items: &[Json],
    listed: &[Json],
) -> Option<BTreeMap<String, Wrapper>> {
    if items.len() != listed.len() {
        return None;
    }
    let mut wrappers = BTreeMap::new();
    for (item, answered) in items.iter().zip(listed) {
        let (wrapper, _) = one_member(item).filter(|(_, sent)| sent.as_object().is_some())?;
        let (answer, wrapped) = one_member(answered)?;
        let plan = sibling_plan(plans, template, wrapper)?;
        let verb = split_path(&plan.path_template)
            .last()
            .map(|verb| compact(verb))?;
        if answer == wrapper || !compact(answer).ends_with(&verb) {
            return None;
        }
        let recorded = plan
            .response
            .as_ref()
            .and_then(|response| timeline.get(response.ordinal))
            .and_then(|call| call.body.as_ref())?;
        let shown = scalar_pointers(wrapped, "");
        if shown.is_empty() || shown.iter().any(|at| recorded.pointer(at).is_none()) {
            return None;
        }
        let next = Wrapper {
            tool: plan.tool.clone(),
            answer: answer.to_owned(),
            shown,
        };
        if wrappers
            .insert(wrapper.to_owned(), next.clone())
            .is_some_and(|known| known != next)
        {
            return None;
        }
    }
    Some(wrappers)
}

/// The served plan of a literal write route beside `template` (the same parent) whose last
/// segment ends the wrapper's name (`request_put` and `/v3/kv/put`), compared without case,
/// `_` or `-`.
fn sibling_plan<'p>(
    plans: &'p [WritePlan],
    template: &str,
    wrapper: &str,
) -> Option<&'p WritePlan> {
    let own = split_path(template);
    let (_, parent) = own.split_last()?;
    let wrapper = compact(wrapper);
    let mut named = plans.iter().filter(|plan| {
        let segments = split_path(&plan.path_template);
        plan.served
            && plan.batch.is_none()
            && plan.guarded.is_none()
            && plan.path_template != template
            && !plan.path_template.contains('{')
            && segments.split_last().is_some_and(|(verb, rest)| {
                rest == parent
                    && wrapper.len() > compact(verb).len()
                    && wrapper.ends_with(&compact(verb))
            })
    });
    let plan = named.next()?;
    named.next().is_none().then_some(plan)
}

/// The key member every sub-request's tool names its entity by (one for all).
fn key_member(plans: &[WritePlan], wrappers: &BTreeMap<String, Wrapper>) -> Option<String> {
    let mut keys = wrappers.values().map(|wrapper| {
        plans
            .iter()
            .find(|plan| plan.tool == wrapper.tool)
            .and_then(|plan| plan.target.as_ref())
            .and_then(|target| target.key_member.clone())
    });
    let first = keys.next()??;
    keys.all(|key| key.as_deref() == Some(first.as_str()))
        .then_some(first)
}

/// A list of guards: objects each naming an entity by `key` (a string), one member (the same in
/// each) whose string value names, ignoring ASCII case, another member the guard holds, and
/// other members alike in every guard.
fn guard_model(member: &str, key: &str, items: &[Json]) -> Option<GuardModel> {
    let mut model: Option<GuardModel> = None;
    for item in items {
        let guard = item.as_object()?;
        guard.get(key)?.as_str()?;
        let selector = guard.iter().find_map(|(name, value)| {
            let named = compared(guard, value)?;
            (name != key && named != key && named != name).then(|| name.to_owned())
        })?;
        let named = compared(guard, guard.get(&selector)?)?;
        let fixed: BTreeMap<String, Json> = guard
            .iter()
            .filter(|(name, _)| ![key, selector.as_str(), named.as_str()].contains(name))
            .map(|(name, value)| (name.to_owned(), value.clone()))
            .collect();
        let next = GuardModel {
            member: member.to_owned(),
            key: key.to_owned(),
            selector,
            fixed,
        };
        if model.as_ref().is_some_and(|known| *known != next) {
            return None;
        }
        model = Some(next);
    }
    model
}

/// The member of `guard` a selector's value names, ignoring ASCII case.
fn compared(guard: &Object, selector: &Json) -> Option<String> {
    let text = selector.as_str()?;
    guard
        .keys()
        .find(|name| name.eq_ignore_ascii_case(text))
        .map(str::to_owned)
}

/// Two calls' readings merged: the same roles, wrappers joined where they agree.
fn agree(known: GuardedModel, next: GuardedModel) -> Option<GuardedModel> {
    let same = known.requests == next.requests
        && known.answers == next.answers
        && known.guards == next.guards
        && known.alternatives == next.alternatives;
    if !same {
        return None;
    }
    let mut wrappers = known.wrappers;
    for (name, wrapper) in next.wrappers {
        if wrappers
            .insert(name, wrapper.clone())
            .is_some_and(|held| held != wrapper)
        {
            return None;
        }
    }
    Some(GuardedModel { wrappers, ..known })
}

/// An object's one member.
fn one_member(item: &Json) -> Option<(&str, &Json)> {
    match item.as_object()?.iter().collect::<Vec<_>>()[..] {
        [(name, value)] => Some((name, value)),
        _ => None,
    }
}

/// A name compared without ASCII case, `_` or `-`.
fn compact(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '_' | '-'))
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// The pointers of a JSON value's scalar members (objects only; an array is one member).
fn scalar_pointers(value: &Json, at: &str) -> Vec<String> {
    match value {
        Json::Object(members) => members
            .iter()
            .flat_map(|(name, member)| {
                let pointer = format!(
                    "{at}/{}",
                    rea_plugin_api::json::escape_pointer_segment(name)
                );
                scalar_pointers(member, &pointer)
            })
            .collect(),
        _ if at.is_empty() => Vec::new(),
        _ => vec![at.to_owned()],
    }
}

/// What a guarded batch's body takes, for its tool's input schema.
pub fn described(model: &GuardedModel) -> String {
    let quoted = |name: &str| Json::String(name.into()).to_canonical_string();
    let wrappers: Vec<String> = model.wrappers.keys().map(|name| quoted(name)).collect();
    let mut text = format!(
        "Request body, applied to the environment state: a list of sub-requests in {}, each an object with one member ({}) holding that write's body",
        quoted(&model.requests),
        wrappers.join(", ")
    );
    if let Some(guards) = &model.guards {
        text.push_str(&format!(
            ", applied only when every guard in {} holds (each naming its entity in {} and the compared member in {})",
            quoted(&guards.member),
            quoted(&guards.key),
            quoted(&guards.selector)
        ));
    }
    for alternative in &model.alternatives {
        text.push_str(&format!(
            "; {} is taken and not applied",
            quoted(alternative)
        ));
    }
    text
}

/// A sub-request resolved: the served write plan it names, that tool's arguments, and the
/// wrapper its answer takes.
type SubCall<'s> = (&'s WritePlan, Map<String, Value>, &'s Wrapper);

/// Serves one call of a guarded batch tool (see the module docs).
pub(super) fn serve(service: &StateService, model: &GuardedModel, call: &Call) -> StateAnswer {
    let subs = match checked_body(model, call.body.as_ref())
        .and_then(|body| sub_calls(service, model, body).map(|subs| (body, subs)))
        .and_then(|(body, subs)| check_guards(service, model, body, &subs).map(|()| subs))
    {
        Ok(subs) => subs,
        Err(answer) => return answer,
    };
    let before = service.read().clone();
    let mut answers = Vec::with_capacity(subs.len());
    for (position, (sub_plan, sub_arguments, wrapper)) in subs.iter().enumerate() {
        let answer = super::serve::gated_write_call(service, sub_plan, sub_arguments);
        let Some(served) = super::batch::answer_body(&answer) else {
            service.replace(before);
            return refused_sub(position, &answer);
        };
        let mut wrapped = Object::new();
        wrapped.insert(wrapper.answer.clone(), shown(&served, &wrapper.shown));
        answers.push(Json::Object(wrapped));
    }
    let recorded = service.kept(model.answer_ordinal);
    let Some((base, Json::Object(mut body))) =
        recorded.and_then(|base| Some((base, base.json()?.clone())))
    else {
        service.replace(before);
        return tool_error(
            "internal_error",
            "the batch's recorded answer is not retained",
        );
    };
    body.insert(model.answers.clone(), Json::Array(answers));
    let body = {
        let live = service.read();
        crate::counters::stamp(Json::Object(body), live.counter_values())
    };
    batch::batch_answer(service, base, body)
}

/// The call's body: an object holding the list of sub-requests and only the members the
/// recorded calls sent beside it.
fn checked_body<'b>(
    model: &GuardedModel,
    body: Option<&'b Value>,
) -> Result<&'b Map<String, Value>, StateAnswer> {
    let refuse = |problem: String| tool_error("invalid_arguments", problem);
    let body = body
        .and_then(Value::as_object)
        .ok_or_else(|| refuse("the body must be a JSON object".to_owned()))?;
    let guards = model.guards.as_ref().map(|guards| guards.member.as_str());
    if let Some(other) = body.keys().find(|name| {
        **name != model.requests
            && Some(name.as_str()) != guards
            && !model.alternatives.contains(name)
    }) {
        return Err(refuse(format!(
            "the body member {other:?} is not one the recorded calls sent"
        )));
    }
    match body.get(&model.requests).and_then(Value::as_array) {
        Some(items) if !items.is_empty() => Ok(body),
        _ => Err(refuse(format!(
            "the body must hold the list of sub-requests in {:?}",
            model.requests
        ))),
    }
}

/// The served write plan, arguments and answer wrapper of each sub-request.
fn sub_calls<'s>(
    service: &'s StateService,
    model: &'s GuardedModel,
    body: &Map<String, Value>,
) -> Result<Vec<SubCall<'s>>, StateAnswer> {
    let items = body
        .get(&model.requests)
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    items
        .iter()
        .enumerate()
        .map(|(position, item)| {
            sub_call(service, model, item).ok_or_else(|| {
                tool_error(
                    "invalid_arguments",
                    format!(
                        "sub-request {position} must be one of {} wrapping an object; nothing was changed",
                        model.wrappers.keys().map(|name| format!("{name:?}")).collect::<Vec<_>>().join(", ")
                    ),
                )
            })
        })
        .collect()
}

/// One sub-request's served plan, arguments and wrapper.
fn sub_call<'s>(
    service: &'s StateService,
    model: &'s GuardedModel,
    item: &Value,
) -> Option<SubCall<'s>> {
    let [(name, sent)] = item.as_object()?.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    let wrapper = model.wrappers.get(name)?;
    let plan = service
        .derived()
        .write_plan(&wrapper.tool)
        .filter(|plan| plan.served && plan.batch.is_none() && plan.guarded.is_none())?;
    let definition = service.replay().tool(&wrapper.tool)?;
    // A sibling write that takes no body cannot carry the sub-request.
    definition
        .input_schema
        .arguments
        .iter()
        .find(|argument| matches!(argument.target, rea_manifest::catalog::ArgumentTarget::Body))?;
    let arguments = batch::sub_arguments(definition, &plan.path_template, Some(sent));
    Some((plan, arguments, wrapper))
}

/// Every guard holds against the entity it names, as the sub-requests' tool holds it; a guard
/// naming no held entity, or one that fails, refuses the batch (the recorded calls show only
/// guards that held).
fn check_guards(
    service: &StateService,
    model: &GuardedModel,
    body: &Map<String, Value>,
    subs: &[SubCall<'_>],
) -> Result<(), StateAnswer> {
    let (Some(guards), Some((plan, _, _))) = (&model.guards, subs.first()) else {
        return Ok(());
    };
    let items = body
        .get(&guards.member)
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let live = service.read();
    for (position, item) in items.iter().enumerate() {
        let item = Json::from_serde_value(item);
        if let Err(problem) = holds(&live, plan, guards, &item) {
            return Err(tool_error(
                "not_modelled",
                format!(
                    "guard {position} {problem}: the recorded calls show only guards that held, so what this call does is not known; nothing was changed"
                ),
            ));
        }
    }
    Ok(())
}

/// Whether one guard holds against the held entity: its fixed members as recorded, and the
/// member its selector names equal to the entity's.
fn holds(
    live: &crate::store::LiveState,
    plan: &WritePlan,
    guards: &GuardModel,
    item: &Json,
) -> Result<(), String> {
    let guard = item.as_object().ok_or("is not an object")?;
    if let Some((name, _)) = guards
        .fixed
        .iter()
        .find(|(name, value)| guard.get(name.as_str()) != Some(*value))
    {
        return Err(format!("sends {name:?} otherwise than the recorded guards"));
    }
    let selector = guard
        .get(&guards.selector)
        .ok_or("names no compared member")?;
    let named = compared(guard, selector).ok_or("names no member it holds")?;
    let mut key = Object::new();
    key.insert(
        &guards.key,
        guard.get(&guards.key).cloned().ok_or("names no entity")?,
    );
    let input = WriteInput {
        segments: split_path(&plan.path_template)
            .into_iter()
            .map(CompactString::from)
            .collect(),
        body: Some(Json::Object(key)),
        listed: None,
        query: Vec::new(),
    };
    let entity_type = plan
        .target
        .as_ref()
        .and_then(|target| target.entity_type.as_deref())
        .ok_or("names no type")?;
    let (collection, id) = super::apply::call_target(plan, &input).ok_or("names no entity")?;
    let entity = id
        .and_then(|id| live.entity(entity_type, &collection, &id))
        .ok_or("names an entity the state does not hold")?;
    if entity.fields.get(&named) == guard.get(&named) {
        Ok(())
    } else {
        Err(format!("does not hold: the entity's {named:?} differs"))
    }
}

/// The members of a served answer the recorded wrapped answer showed (an object keeps the
/// members on the way to one).
fn shown(answer: &Json, pointers: &[String]) -> Json {
    pruned(answer, pointers, "").unwrap_or_else(|| Json::Object(Object::new()))
}

/// `value` at `at` less the members no pointer of `pointers` reaches.
fn pruned(value: &Json, pointers: &[String], at: &str) -> Option<Json> {
    if pointers.iter().any(|pointer| pointer == at) {
        return Some(value.clone());
    }
    let Json::Object(members) = value else {
        return None;
    };
    let mut kept = Object::new();
    for (name, member) in members.iter() {
        let pointer = format!(
            "{at}/{}",
            rea_plugin_api::json::escape_pointer_segment(name)
        );
        if let Some(member) = pruned(member, pointers, &pointer) {
            kept.insert(name, member);
        }
    }
    (!kept.is_empty()).then_some(Json::Object(kept))
}

/// The refusal of a batch whose sub-request was refused: that refusal, naming the position.
fn refused_sub(position: usize, answer: &StateAnswer) -> StateAnswer {
    let message = match answer {
        StateAnswer::Error(error) => error.message.clone(),
        _ => "it is not a write this environment serves".to_owned(),
    };
    tool_error(
        "invalid_arguments",
        format!("sub-request {position}: {message}; the batch changed nothing"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::parsed_json as json;

    fn items(text: &str) -> Vec<Json> {
        json(text).as_array().expect("a list").clone()
    }

    #[test]
    fn a_guard_list_names_its_entity_its_selector_and_its_fixed_members() {
        let guards = items(
            r#"[{"key": "a", "target": "VALUE", "result": "EQUAL", "value": "x"},
                {"key": "b", "target": "VALUE", "result": "EQUAL", "value": "y"}]"#,
        );
        let model = guard_model("compare", "key", &guards).expect("guards");
        assert_eq!(
            (model.key.as_str(), model.selector.as_str()),
            ("key", "target")
        );
        assert_eq!(model.fixed.len(), 1);
        assert_eq!(model.fixed.get("result"), Some(&Json::from("EQUAL")));
        // Guards disagreeing on a fixed member, lacking the key, or with no selector: none.
        let mixed = items(
            r#"[{"key": "a", "target": "VALUE", "result": "EQUAL", "value": "x"},
                {"key": "b", "target": "VALUE", "result": "LESS", "value": "y"}]"#,
        );
        assert!(guard_model("compare", "key", &mixed).is_none());
        assert!(
            guard_model(
                "compare",
                "key",
                &items(r#"[{"target": "VALUE", "value": "x"}]"#)
            )
            .is_none()
        );
        assert!(guard_model("compare", "key", &items(r#"[{"key": "a", "value": "x"}]"#)).is_none());
        // A branch of wrapped sub-requests is no guard list.
        assert!(
            guard_model(
                "failure",
                "key",
                &items(r#"[{"request_range": {"key": "a"}}]"#)
            )
            .is_none()
        );
    }

    #[test]
    fn a_selector_names_a_member_ignoring_case() {
        let guard = json(r#"{"key": "a", "target": "VERSION", "version": "1"}"#);
        let guard = guard.as_object().expect("object");
        assert_eq!(
            compared(guard, &Json::from("VERSION")).as_deref(),
            Some("version")
        );
        assert_eq!(compared(guard, &Json::from("MOD")), None);
    }

    #[test]
    fn a_wrapper_names_a_verb_without_case_or_separators() {
        assert_eq!(compact("request_delete_range"), "requestdeleterange");
        assert!(compact("request_put").ends_with(&compact("put")));
        assert!(compact("Response-Put").ends_with("put"));
    }

    #[test]
    fn a_wrapped_answer_keeps_only_the_members_the_recording_showed() {
        let served =
            json(r#"{"header": {"cluster_id": "1", "revision": "9"}, "prev_kv": {"key": "a"}}"#);
        let recorded = scalar_pointers(&json(r#"{"header": {"revision": "10"}}"#), "");
        assert_eq!(recorded, ["/header/revision"]);
        assert_eq!(
            shown(&served, &recorded),
            json(r#"{"header": {"revision": "9"}}"#)
        );
        assert_eq!(shown(&json("{}"), &recorded), json("{}"));
    }

    #[test]
    fn two_readings_agree_on_their_roles_and_join_their_wrappers() {
        let wrapper = |tool: &str| Wrapper {
            tool: tool.into(),
            answer: format!("response_{tool}"),
            shown: vec!["/header/revision".into()],
        };
        let model = |name: &str, tool: &str| GuardedModel {
            requests: "success".into(),
            answers: "responses".into(),
            wrappers: [(name.to_owned(), wrapper(tool))].into(),
            guards: None,
            alternatives: vec!["failure".into()],
            answer_ordinal: 4,
        };
        let joined = agree(
            model("request_put", "put"),
            model("request_delete", "delete"),
        )
        .expect("agree");
        assert_eq!(joined.wrappers.len(), 2);
        assert!(agree(model("request_put", "put"), model("request_put", "other")).is_none());
        let other = GuardedModel {
            requests: "ops".into(),
            ..model("request_put", "put")
        };
        assert!(agree(model("request_put", "put"), other).is_none());
        assert!(described(&joined).contains("\"request_delete\", \"request_put\""));
    }
}

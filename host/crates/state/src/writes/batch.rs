//! Batch writes: a write tool whose every successful recorded call sent, in one body member, a
//! list of sub-requests, each naming a method, a path and (optionally) a body
//! (`{"requests": [{"method": "POST", "path": "/classes/Task", "body": {…}}, …]}`), and
//! answered a list of the same length, each element wrapping the answer of its sub-request in
//! one member (`[{"success": {"objectId": …}}, …]`).
//!
//! Learned (after the four passes, for a write withheld as `no-state-target`) where every
//! recorded sub-request names, by its method and path, a write tool whose plan is served, and
//! every wrapped answer holds the members that tool's recorded answer holds. The roles (which
//! member holds the method, the path, the body) and the wrapping member are read from the
//! recorded calls and must agree across them.
//!
//! Served by applying each sub-request as the one call of the write tool it names would be
//! ([`super::serve::gated_write_call`]), in order, and answering the list of their answers, each
//! wrapped as recorded. A sub-request no served write tool takes refuses the whole batch before
//! anything is applied; one whose write is refused restores the state as it was before the
//! batch and refuses the batch naming the sub-request. The batch holds the service's write gate
//! alone ([`crate::service::StateService::batch_writes`]) while it runs, so no other caller's
//! write lands between its sub-requests and a restore undoes only the batch's own writes; each
//! sub-request still takes the state's write lock on its own, as its tool's call would (a read
//! meanwhile may see the sub-requests applied so far).

use rea_manifest::Manifest;
use rea_manifest::ToolDefinition;
use rea_manifest::catalog::ArgumentTarget;
use rea_manifest::segments::split_path;
use rea_plugin_api::contracts::capture::CompactString;
use rea_plugin_api::json::{Json, Object};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::model::WritePlan;
use crate::answer::{KeptRecord, StateAnswer, StateSource, state_answer, tool_error};
use crate::call::Call;
use crate::derive::lists::fits_template;
use crate::observation::{RequestBody, Timeline};
use crate::service::StateService;

/// The methods a sub-request may name.
const WRITE_METHODS: [&str; 4] = ["POST", "PUT", "PATCH", "DELETE"];

/// How a batch tool's body names its sub-requests and how its answer wraps theirs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchModel {
    /// The body member holding the list of sub-requests.
    pub requests: String,
    /// A sub-request's member naming its method.
    pub method: String,
    /// A sub-request's member naming its path.
    pub path: String,
    /// A sub-request's member holding its body.
    pub body: String,
    /// The member each element of the answer wraps its sub-request's answer in.
    pub wrapper: String,
    /// The recorded batch call whose status and media type the answer takes.
    pub answer_ordinal: u64,
}

/// A sub-request resolved: the served write plan it names and that tool's arguments.
type SubCall<'s> = (&'s WritePlan, Map<String, Value>);

/// One recorded sub-request's members by role, and the write tool it names.
struct SubRequest<'a> {
    roles: (String, String, Option<String>),
    tool: &'a str,
}

/// Serves, as batches, the writes withheld as `no-state-target` whose recorded calls show
/// batches of served writes (see the module docs).
pub(crate) fn learn(manifest: &Manifest, timeline: &Timeline, plans: &mut [WritePlan]) {
    for (index, tool) in untargeted(manifest, plans) {
        if let Some(model) = batch_model(manifest, timeline, tool, plans) {
            let plan = &mut plans[index];
            plan.batch = Some(model);
            mark_served(plan);
        }
    }
}

/// The plans withheld as `no-state-target`, each with its tool's position in the manifest: the
/// plans the batch learners (this module's and `guarded`'s) may serve.
pub(super) fn untargeted(manifest: &Manifest, plans: &[WritePlan]) -> Vec<(usize, usize)> {
    plans
        .iter()
        .enumerate()
        .filter(|(_, plan)| !plan.served && plan.reason.as_deref() == Some("no-state-target"))
        .filter_map(|(index, plan)| {
            let tool = manifest
                .tools
                .iter()
                .position(|tool| tool.name == plan.tool)?;
            Some((index, tool))
        })
        .collect()
}

/// Marks a plan served by the model a batch learner found for it: no reason or hint is left.
pub(super) fn mark_served(plan: &mut WritePlan) {
    plan.served = true;
    plan.reason = None;
    plan.hint = None;
}

/// The batch model every successful call of a tool agrees on; `None` when a call shows no
/// batch of served writes.
fn batch_model(
    manifest: &Manifest,
    timeline: &Timeline,
    tool: usize,
    plans: &[WritePlan],
) -> Option<BatchModel> {
    let mut found: Option<BatchModel> = None;
    for call in timeline.all(tool).filter(|call| call.is_success()) {
        let RequestBody::Json(Json::Object(body)) = &call.request else {
            return None;
        };
        let [(requests, Json::Array(items))] = body.iter().collect::<Vec<_>>()[..] else {
            return None;
        };
        let Json::Array(answers) = call.body.as_ref()? else {
            return None;
        };
        if items.is_empty() || items.len() != answers.len() {
            return None;
        }
        let mut model: Option<BatchModel> = None;
        for (item, answer) in items.iter().zip(answers) {
            let sub = sub_request(manifest, item.as_object()?)?;
            let (wrapper, wrapped) = wrapped_answer(answer)?;
            if !answers_as(plans, sub.tool, timeline, wrapped) {
                return None;
            }
            let (method, path, body) = sub.roles;
            let next = BatchModel {
                requests: requests.to_owned(),
                method,
                path,
                body: body
                    .or_else(|| model.as_ref().map(|known| known.body.clone()))
                    .unwrap_or_default(),
                wrapper,
                answer_ordinal: found
                    .as_ref()
                    .map_or(call.ordinal, |known| known.answer_ordinal),
            };
            model = Some(agree(model, next)?);
        }
        found = Some(agree(found, model?)?);
    }
    found.filter(|model| !model.body.is_empty())
}

/// Two readings of the roles merged: equal but for a body member one of them did not show.
fn agree(known: Option<BatchModel>, next: BatchModel) -> Option<BatchModel> {
    let Some(known) = known else {
        return Some(next);
    };
    let body = match (known.body.as_str(), next.body.as_str()) {
        ("", other) | (other, "") => other.to_owned(),
        (a, b) if a == b => a.to_owned(),
        _ => return None,
    };
    let same = known.requests == next.requests
        && known.method == next.method
        && known.path == next.path
        && known.wrapper == next.wrapper;
    same.then_some(BatchModel { body, ..known })
}

/// A recorded sub-request's roles: the member holding a write method, the member holding a
/// path a write tool of that method takes, and the member holding an object body (if any); no
/// other member.
fn sub_request<'m>(manifest: &'m Manifest, item: &Object) -> Option<SubRequest<'m>> {
    let (mut method, mut path, mut body) = (None, None, None);
    for (name, value) in item.iter() {
        match value {
            Json::String(text) if WRITE_METHODS.contains(&text.as_str()) && method.is_none() => {
                method = Some((name.to_owned(), text.clone()));
            }
            Json::String(text) if text.starts_with('/') && path.is_none() => {
                path = Some((name.to_owned(), text.clone()));
            }
            Json::Object(_) if body.is_none() => body = Some(name.to_owned()),
            _ => return None,
        }
    }
    let ((method_member, method), (path_member, path)) = (method?, path?);
    let tool = named_tool(
        manifest
            .tools
            .iter()
            .map(|tool| (&tool.method, &tool.path_template, tool.name.as_str())),
        &method,
        &path,
    )?;
    Some(SubRequest {
        roles: (method_member, path_member, body),
        tool,
    })
}

/// The tool a method and path name: of that method, its template fitting the path, the one
/// with the most literal segments.
fn named_tool<'a>(
    tools: impl Iterator<Item = (&'a String, &'a String, &'a str)>,
    method: &str,
    path: &str,
) -> Option<&'a str> {
    if path.contains('?') {
        return None;
    }
    tools
        .filter(|(tool_method, template, _)| {
            tool_method.eq_ignore_ascii_case(method) && fits_template(path, template)
        })
        .max_by_key(|(_, template, _)| {
            split_path(template)
                .iter()
                .filter(|segment| !segment.contains('{'))
                .count()
        })
        .map(|(_, _, name)| name)
}

/// An answer element's one member and the answer it wraps.
fn wrapped_answer(answer: &Json) -> Option<(String, &Json)> {
    match answer.as_object()?.iter().collect::<Vec<_>>()[..] {
        [(wrapper, wrapped)] => Some((wrapper.to_owned(), wrapped)),
        _ => None,
    }
}

/// Whether a wrapped answer holds the members the served plan of a tool answers with (its
/// recorded answer's members).
fn answers_as(plans: &[WritePlan], tool: &str, timeline: &Timeline, wrapped: &Json) -> bool {
    let Some(plan) = plans
        .iter()
        .find(|plan| plan.tool == tool && plan.served && plan.batch.is_none())
    else {
        return false;
    };
    let recorded = plan
        .response
        .as_ref()
        .and_then(|response| timeline.get(response.ordinal))
        .and_then(|answer| answer.body.as_ref());
    let keys = |json: &Json| -> Option<Vec<String>> {
        let mut keys: Vec<String> = json.as_object()?.keys().map(str::to_owned).collect();
        keys.sort();
        Some(keys)
    };
    match recorded {
        Some(recorded) => keys(recorded).is_some() && keys(recorded) == keys(wrapped),
        None => false,
    }
}

/// Serves one call of a batch tool (see the module docs).
pub(super) fn serve(service: &StateService, model: &BatchModel, call: &Call) -> StateAnswer {
    let subs = match sub_calls(service, model, call.body.as_ref()) {
        Ok(subs) => subs,
        Err(problem) => return tool_error("invalid_arguments", problem),
    };
    let before = service.read().clone();
    let mut answers = Vec::with_capacity(subs.len());
    for (position, (sub_plan, sub_arguments)) in subs.iter().enumerate() {
        let answer = super::serve::gated_write_call(service, sub_plan, sub_arguments);
        let Some(body) = answer_body(&answer) else {
            service.replace(before);
            return refused_sub(position, &answer);
        };
        let mut wrapped = Object::new();
        wrapped.insert(model.wrapper.clone(), body);
        answers.push(Json::Object(wrapped));
    }
    let Some(base) = service.kept(model.answer_ordinal) else {
        service.replace(before);
        return tool_error(
            "internal_error",
            "the batch's recorded answer is not retained",
        );
    };
    batch_answer(service, base, Json::Array(answers))
}

/// A served batch's answer: `body` over its recorded answer `base`, from the state's batch view
/// (this module's batches and `guarded`'s).
pub(super) fn batch_answer(service: &StateService, base: &KeptRecord, body: Json) -> StateAnswer {
    let source = StateSource::Write {
        source: "state",
        view: "batch",
        collection: None,
        id: None,
        ids: None,
    };
    state_answer(base, body, service.replay_evidence_id(), false, source)
}

/// The served write plan and arguments of each sub-request of a batch body, or why the body is
/// refused.
fn sub_calls<'s>(
    service: &'s StateService,
    model: &BatchModel,
    body: Option<&Value>,
) -> Result<Vec<SubCall<'s>>, String> {
    let items = body
        .and_then(|body| body.get(&model.requests))
        .and_then(Value::as_array)
        .ok_or_else(|| {
            format!(
                "the body must hold the list of sub-requests in {:?}",
                model.requests
            )
        })?;
    if items.is_empty() {
        return Err("the batch holds no sub-request".to_owned());
    }
    items
        .iter()
        .enumerate()
        .map(|(position, item)| {
            sub_call(service, model, item).map_err(|problem| {
                format!("sub-request {position}: {problem}; nothing was changed")
            })
        })
        .collect()
}

/// One sub-request's served write plan and the arguments of its tool.
fn sub_call<'s>(
    service: &'s StateService,
    model: &BatchModel,
    item: &Value,
) -> Result<SubCall<'s>, String> {
    let item = item.as_object().ok_or("it is not an object")?;
    if let Some(other) = item
        .keys()
        .find(|name| ![&model.method, &model.path, &model.body].contains(name))
    {
        return Err(format!(
            "the member {other:?} is not one a sub-request takes"
        ));
    }
    let text = |member: &str| item.get(member).and_then(Value::as_str);
    let (Some(method), Some(path)) = (text(&model.method), text(&model.path)) else {
        return Err(format!(
            "it must name its method in {:?} and its path in {:?}",
            model.method, model.path
        ));
    };
    let tools = service.replay().tools();
    let name = named_tool(
        tools
            .iter()
            .map(|tool| (&tool.method, &tool.path_template, tool.name.as_str())),
        &method.to_ascii_uppercase(),
        path,
    )
    .ok_or_else(|| format!("no write tool takes {method} {path}"))?;
    let plan = service
        .derived()
        .write_plan(name)
        .filter(|plan| plan.served && plan.batch.is_none())
        .ok_or_else(|| {
            format!("{method} {path} names {name}, a write this environment does not serve")
        })?;
    let definition = service
        .replay()
        .tool(name)
        .ok_or_else(|| format!("no tool named {name}"))?;
    Ok((plan, sub_arguments(definition, path, item.get(&model.body))))
}

/// The arguments of a tool for a path and body.
pub(super) fn sub_arguments(
    definition: &ToolDefinition,
    path: &str,
    body: Option<&Value>,
) -> Map<String, Value> {
    let segments: Vec<CompactString> = split_path(path)
        .into_iter()
        .map(CompactString::from)
        .collect();
    let mut arguments = super::confirm::arguments_for(definition, &segments, &[]);
    if let (Some(body), Some(argument)) = (
        body,
        definition
            .input_schema
            .arguments
            .iter()
            .find(|argument| matches!(argument.target, ArgumentTarget::Body)),
    ) {
        arguments.insert(argument.name.clone(), body.clone());
    }
    arguments
}

/// A sub-request's answer body; `None` for an error.
pub(super) fn answer_body(answer: &StateAnswer) -> Option<Json> {
    match answer {
        StateAnswer::Rendered(rendered) => Some(rendered.body.clone()),
        StateAnswer::Recorded(recorded) => {
            Some(Json::from_serde_value(&recorded.answer.body.to_value()))
        }
        StateAnswer::Error(_) | StateAnswer::NotModelled(_) => None,
    }
}

/// The refusal of a batch whose sub-request was refused: that refusal, naming the position.
fn refused_sub(position: usize, answer: &StateAnswer) -> StateAnswer {
    match answer {
        StateAnswer::Error(error) => tool_error(
            &error.code,
            format!(
                "sub-request {position}: {}; the batch changed nothing",
                error.message
            ),
        ),
        _ => tool_error(
            "invalid_arguments",
            format!(
                "sub-request {position} is not a write this environment serves; the batch changed nothing"
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sub_request_names_the_most_literal_tool_of_its_method() {
        let tools = [
            ("POST", "/classes/{name}", "post_any"),
            ("POST", "/classes/Task", "post_task"),
            ("PUT", "/classes/Task/{id}", "put_task"),
        ];
        let owned: Vec<(String, String, &str)> = tools
            .iter()
            .map(|(method, template, name)| ((*method).to_owned(), (*template).to_owned(), *name))
            .collect();
        let named = |method: &str, path: &str| {
            named_tool(owned.iter().map(|(m, t, n)| (m, t, *n)), method, path)
        };
        assert_eq!(named("POST", "/classes/Task"), Some("post_task"));
        assert_eq!(named("POST", "/classes/Member"), Some("post_any"));
        assert_eq!(named("PUT", "/classes/Task/t1"), Some("put_task"));
        assert_eq!(named("DELETE", "/classes/Task/t1"), None);
        assert_eq!(named("PUT", "/classes/Task/t1?x=1"), None);
    }

    #[test]
    fn roles_agree_across_sub_requests_or_teach_nothing() {
        let model = |body: &str, wrapper: &str| BatchModel {
            requests: "requests".into(),
            method: "method".into(),
            path: "path".into(),
            body: body.into(),
            wrapper: wrapper.into(),
            answer_ordinal: 3,
        };
        let merged = agree(Some(model("", "success")), model("body", "success")).expect("agree");
        assert_eq!(merged.body, "body");
        assert_eq!(
            agree(Some(model("body", "success")), model("data", "success")),
            None
        );
        assert_eq!(
            agree(Some(model("body", "success")), model("body", "ok")),
            None
        );
    }
}

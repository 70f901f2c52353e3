//! A create's refusal of a left-out member carried over from another create of the state: the
//! application refused creates of other collections for leaving out a required member, each
//! answer naming the member (as [`super::omitted`] learns it: `Missing value for required
//! attribute `title``, `The 'book' field has no data`, `must have required property 'title'`),
//! and a create the build never saw refused answers that failure with its own member named.
//!
//! Lent only where the recordings show the answer is the framework's text, not the collection's:
//! - every lender's answer is one text once its named member and its request path are set
//!   aside (Sails' tasks and people alike), and no string of it names the lender's collection
//!   otherwise (a path segment, or that segment less a plural `s`: `NOT NULL constraint failed:
//!   tasks.title` names its table and lends nothing);
//! - every lender named the first of the required members it left out, in the order its
//!   successful creates sent them (FlexGet's entry refusal names the second and lends nothing);
//!   a lender that left out one member only says nothing of which one a call leaving out several
//!   hears, so then only a call leaving out one is answered.
//!
//! The borrower (a create of the same body envelope, never refused, learning no refusal of its
//! own) answers a call that sends only members it accepts and leaves out required members with
//! the lender's recorded failure, the lender's member renamed to the first one the call leaves
//! out (in the order the borrower's first recorded create sent them, of the lender's member's
//! JSON types) and the lender's request path to the call's own. The plan says it is inferred.

use rea_plugin_api::json::{Json, Object};

use super::Draft;
use super::apply::sent_members;
use super::keyed_refusal::refused_before;
use super::model::{Effect, LentOmission, OmittedModel, WritePlan};
use super::omitted::{accepted_members, holds_word, rename_member, replace_bounded};
use crate::answer::{StateAnswer, StateSource};
use crate::call::Call;
use crate::observation::{RequestBody, Timeline};
use crate::service::StateService;

/// What a lender's recorded refusal says, read from its draft.
struct Lender {
    omission: LentOmission,
    /// The answer with the named member and the request path set aside.
    template: Json,
}

/// Lends the state's omitted-member refusals to the creates the build never saw refused, where
/// the recordings show the refusal is the framework's text (see the module docs).
pub(super) fn lend(drafts: &mut [Draft], timeline: &Timeline) {
    let mut lenders = Vec::new();
    for draft in drafts.iter().filter(|draft| creates(&draft.plan)) {
        for omitted in &draft.plan.omitted {
            let Some(lender) = lender(draft, omitted, timeline) else {
                return;
            };
            lenders.push(lender);
        }
    }
    let Some(first) = lenders.first() else {
        return;
    };
    if lenders.iter().any(|other| other.template != first.template) {
        return;
    }
    let first_of_many = lenders.iter().any(|lender| lender.omission.first_of_many);
    let envelope = envelope_of(drafts, &first.omission.inferred_from);
    for draft in drafts.iter_mut() {
        let borrows = creates(&draft.plan)
            && draft.plan.omitted.is_empty()
            && draft.plan.keyed_refusals.is_empty()
            && draft.plan.body.as_ref().map(|body| &body.envelope) == envelope.as_ref()
            && !refused_before(draft, timeline);
        let order = borrows.then(|| creation_order(draft, timeline)).flatten();
        if let Some(order) = order.filter(|order| !order.is_empty()) {
            draft.plan.lent_omission = Some(LentOmission {
                order,
                first_of_many,
                ..first.omission.clone()
            });
        }
    }
}

/// Whether the plan is a create of one entity.
fn creates(plan: &WritePlan) -> bool {
    plan.effect == Effect::Create && !plan.bulk
}

/// The body envelope of the create tool named so.
fn envelope_of(drafts: &[Draft], tool: &str) -> Option<String> {
    let draft = drafts.iter().find(|draft| draft.plan.tool == tool)?;
    Some(draft.plan.body.as_ref()?.envelope.clone())
}

/// The lender one learned omitted-member refusal makes; `None` when it shows the refusal is
/// not the framework's text (it names another member than the first left out, or its
/// collection).
fn lender(draft: &Draft, omitted: &OmittedModel, timeline: &Timeline) -> Option<Lender> {
    let failed = timeline.get(omitted.ordinal)?;
    let RequestBody::Json(body) = &failed.request else {
        return None;
    };
    let sent = sent_members(&draft.plan, Some(body))?;
    let order = creation_order(draft, timeline)?;
    let left_out: Vec<&String> = order
        .iter()
        .filter(|member| !sent.contains_key(member.as_str()))
        .collect();
    if left_out.first() != Some(&&omitted.member) {
        return None;
    }
    let mut template = failed.body.clone()?;
    rename_member(&mut template, &omitted.member, "\u{1}", &[]);
    replace_path(&mut template, &failed.path, "\u{2}");
    if names_collection(&template, &failed.path) {
        return None;
    }
    let types = draft.plan.body.as_ref()?.members.get(&omitted.member)?;
    let omission = LentOmission {
        ordinal: omitted.ordinal,
        member: omitted.member.clone(),
        types: types.types.clone(),
        path: failed.path.to_string(),
        order: Vec::new(),
        first_of_many: left_out.len() > 1,
        inferred_from: draft.plan.tool.clone(),
    };
    Some(Lender { omission, template })
}

/// The plan's required members in the order its first successful recorded call sent them.
fn creation_order(draft: &Draft, timeline: &Timeline) -> Option<Vec<String>> {
    let body = timeline.all(draft.tool).find_map(|observation| {
        let RequestBody::Json(body) = &observation.request else {
            return None;
        };
        observation.is_success().then_some(body)
    })?;
    let sent: &Object = sent_members(&draft.plan, Some(body))?;
    let members = &draft.plan.body.as_ref()?.members;
    Some(
        sent.iter()
            .map(|(name, _)| name)
            .filter(|name| members.get(*name).is_some_and(|member| member.required))
            .map(str::to_owned)
            .collect(),
    )
}

/// Whether a string of the answer names a literal segment of the path as a whole word, or
/// that segment less a plural ending (`tasks`, `task`).
fn names_collection(answer: &Json, path: &str) -> bool {
    rea_manifest::segments::split_path(path)
        .into_iter()
        .filter(|segment| segment.chars().any(char::is_alphabetic))
        .any(|segment| {
            let singular = segment.strip_suffix('s').unwrap_or(segment);
            holds_text(answer, segment) || holds_text(answer, singular)
        })
}

/// Whether a string of the answer holds the word whole, in any case.
fn holds_text(answer: &Json, word: &str) -> bool {
    match answer {
        Json::String(text) => holds_word(&text.to_lowercase(), &word.to_lowercase()),
        Json::Array(items) => items.iter().any(|item| holds_text(item, word)),
        Json::Object(members) => members.iter().any(|(_, value)| holds_text(value, word)),
        _ => false,
    }
}

/// Replaces the request path where a string holds it whole (not followed by more of a path).
fn replace_path(answer: &mut Json, from: &str, to: &str) {
    let is_path = |c: char| c.is_alphanumeric() || matches!(c, '/' | '_' | '-' | '.');
    match answer {
        Json::String(text) => *text = replace_bounded(text, from, to, is_path).into(),
        Json::Array(items) => items
            .iter_mut()
            .for_each(|item| replace_path(item, from, to)),
        Json::Object(members) => members
            .iter_mut()
            .for_each(|(_, value)| replace_path(value, from, to)),
        _ => {}
    }
}

/// The lent refusal a served create answers when its body leaves out required members; `None`:
/// the call is checked as any other.
pub(super) fn answer(service: &StateService, plan: &WritePlan, call: &Call) -> Option<StateAnswer> {
    let lent = plan.lent_omission.as_ref()?;
    let body = call.body.as_ref().map(Json::from_serde_value)?;
    let sent = accepted_members(plan, &body)?;
    let left_out: Vec<&String> = lent
        .order
        .iter()
        .filter(|member| !sent.contains_key(member.as_str()))
        .collect();
    let member = match left_out.as_slice() {
        [] => return None,
        [member] => member,
        [member, ..] if lent.first_of_many => member,
        _ => return None,
    };
    let types = &plan.body.as_ref()?.members.get(member.as_str())?.types;
    if *types != lent.types {
        return None;
    }
    let base = service.kept(lent.ordinal)?;
    let mut answer = base.json()?.clone();
    if !rename_member(&mut answer, &lent.member, member, &[]) {
        return None;
    }
    let path = format!("/{}", call.segments(&plan.path_template).join("/"));
    replace_path(&mut answer, &lent.path, &path);
    Some(crate::answer::state_answer(
        base,
        answer,
        service.replay_evidence_id(),
        false,
        StateSource::state("lent-omission", None),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Json {
        Json::parse(text.as_bytes()).unwrap()
    }

    #[test]
    fn an_answer_naming_its_collection_is_not_the_framework_text() {
        let table = parse(r#"{"error": "NOT NULL constraint failed: tasks.title"}"#);
        assert!(names_collection(&table, "/tracker/tasks/-/insert"));
        let hook = parse(r#"{"message": "A task needs a title"}"#);
        assert!(names_collection(&hook, "/tasks"), "the singular names it");
        let framework = parse(r#"{"error": "The 'book' field has no data."}"#);
        assert!(!names_collection(&framework, "/api/v1/loan/"));
    }

    #[test]
    fn the_request_path_is_replaced_only_where_a_string_holds_it_whole() {
        let mut answer = parse(r#"{"message": "(`POST /task`) and /tasks and /task/7"}"#);
        replace_path(&mut answer, "/task", "/project");
        assert_eq!(
            answer.to_canonical_string(),
            r#"{"message":"(`POST /project`) and /tasks and /task/7"}"#
        );
    }
}

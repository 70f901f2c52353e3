//! A create's recorded refusal of a value other than its collection's constant (after pass 3):
//! the application refused a create (`400`, `409`, `422`) that sent, in one top-level member of
//! the body's envelope, a text other than the one every successful create of the tool sent there
//! and every held entity of the type holds (a JSON:API `type`), its answer spelling both
//! (`Invalid type member: Project != Task`). Learned where exactly one member shows this; shared
//! with the type-constant members of the other create tools (each with its own constant: every
//! successful call sent it, every held entity of its type holds it); served by answering that
//! failure for a create sending another text there, the recorded sent text renamed to the sent
//! one and the recorded constant to the tool's (`Task != User` for a user create sending `Task`).

use rea_plugin_api::json::{Json, Object};

use super::Draft;
use super::apply::{WriteInput, sent_members};
use super::conflict::spells;
use super::model::{ConstantRefusal, Effect, WritePlan};
use super::observe::Call;
use crate::answer::StateAnswer;
use crate::model::StateView;
use crate::observation::{RequestBody, Timeline};
use crate::service::StateService;

/// The one text every successful call of a create draft sent at `member`, when every held entity
/// of its type holds it there too.
fn constant_of(draft: &Draft, calls: &[Call], state: &StateView, member: &str) -> Option<String> {
    let entity_type = draft.plan.entity_type()?;
    let mut sent = draft
        .calls
        .iter()
        .map(|index| match &calls[*index].request {
            RequestBody::Json(body) => sent_members(&draft.plan, Some(body))?
                .get(member)
                .and_then(Json::as_str)
                .map(str::to_owned),
            _ => None,
        });
    let constant = sent.next()??;
    if !sent.all(|other| other.as_deref() == Some(constant.as_str())) {
        return None;
    }
    let mut held = state
        .entities
        .iter()
        .filter(|entity| entity.entity_type == entity_type)
        .peekable();
    held.peek()?;
    held.all(|entity| entity.fields.get(member).and_then(Json::as_str) == Some(&constant))
        .then_some(constant)
}

/// The members of a failed call's body where it sent a text other than the draft's constant,
/// both spelled in its answer: (member, sent, constant).
fn refused_members(
    draft: &Draft,
    calls: &[Call],
    state: &StateView,
    (sent, answer): (&Object, &Json),
) -> Vec<(String, String, String)> {
    sent.iter()
        .filter_map(|(member, value)| {
            let value = value.as_str()?;
            let constant = constant_of(draft, calls, state, member)?;
            (constant != value && spells(answer, value) && spells(answer, &constant))
                .then(|| (member.to_owned(), value.to_owned(), constant))
        })
        .collect()
}

/// Learns each create plan's refusal of a value other than its constant, then shares it with
/// the other create plans whose calls show a constant at the same member.
pub(super) fn learn(drafts: &mut [Draft], calls: &[Call], state: &StateView, timeline: &Timeline) {
    let mut learned: Option<ConstantRefusal> = None;
    for draft in drafts.iter() {
        if draft.plan.effect != Effect::Create || draft.plan.bulk || learned.is_some() {
            continue;
        }
        for ordinal in &draft.failed {
            let Some(failed) = timeline.get(*ordinal) else {
                continue;
            };
            let (RequestBody::Json(body), Some(answer)) = (&failed.request, &failed.body) else {
                continue;
            };
            if !matches!(failed.status, 400 | 409 | 422) {
                continue;
            }
            let Some(sent) = sent_members(&draft.plan, Some(body)) else {
                continue;
            };
            if let [(member, sent, constant)] =
                refused_members(draft, calls, state, (sent, answer)).as_slice()
            {
                learned = Some(ConstantRefusal {
                    member: member.clone(),
                    ordinal: *ordinal,
                    recorded_sent: sent.clone(),
                    recorded_constant: constant.clone(),
                    constant: constant.clone(),
                });
                break;
            }
        }
    }
    let Some(refusal) = learned else {
        return;
    };
    for draft in drafts.iter_mut() {
        if draft.plan.effect != Effect::Create || draft.plan.bulk {
            continue;
        }
        if let Some(constant) = constant_of(draft, calls, state, &refusal.member) {
            draft.plan.constant_refusals = vec![ConstantRefusal {
                constant,
                ..refusal.clone()
            }];
        }
    }
}

/// The recorded refusal a served create answers when it sends, at the learned member, a text
/// other than its constant; `None`: no refusal (or a rename the recorded texts cannot spell:
/// the sent and constant texts swapping the recorded ones).
pub(super) fn answer(
    service: &StateService,
    plan: &WritePlan,
    input: &WriteInput,
) -> Option<StateAnswer> {
    let refusal = plan.constant_refusals.first()?;
    let sent = sent_members(plan, input.body.as_ref())?
        .get(&refusal.member)?
        .as_str()?;
    if sent == refusal.constant {
        return None;
    }
    let constant = (refusal.recorded_constant.clone(), refusal.constant.clone());
    let value = (refusal.recorded_sent.clone(), sent.to_owned());
    // Each rename must not make a text the other one renames again.
    let renamed = match (value.1 == constant.0, constant.1 == value.0) {
        (true, true) => return None,
        (true, false) => vec![constant, value],
        _ => vec![value, constant],
    };
    let renamed: Vec<(String, String)> = renamed
        .into_iter()
        .filter(|(from, to)| from != to)
        .collect();
    super::conflict::recorded_refusal(service, refusal.ordinal, &renamed)
}

#[cfg(test)]
mod tests {
    use super::super::conflict::spells;
    use rea_plugin_api::json::Json;

    #[test]
    fn an_answer_spells_a_text_in_its_strings_only() {
        let answer = Json::parse(
            br#"{"errors": [{"title": "Invalid type member: Project != Task", "Task": 1}]}"#,
        )
        .expect("json");
        assert!(spells(&answer, "Project"));
        assert!(spells(&answer, "Task"));
        assert!(!spells(&answer, "User"));
    }
}

//! A create's recorded refusal of an omitted member: the application refused a create (`400`,
//! `409`, `422`) whose body lacked members every successful call sent, and its answer names one
//! of them as a whole word (`NOT NULL constraint failed: tasks.title`, `'original_url' is a
//! required property`). Learned where exactly one required member the failed call left out is
//! named in a string of the failure's answer (never in a key: `"status": 400` names no member);
//! served by answering that failure unchanged, changing nothing, for a create whose body holds
//! the plan's envelope, sends only members the plan accepts, and leaves that member out (checked
//! before the refusal of a missing required member, which would otherwise answer such a call).

use rea_plugin_api::json::{Json, Object};

use super::Draft;
use super::apply::sent_members;
use super::model::{Effect, OmittedModel, WritePlan};
use crate::answer::{StateAnswer, StateSource};
use crate::call::Call;
use crate::observation::{RequestBody, Timeline};
use crate::service::StateService;

/// Learns the plan's omitted-member refusals from its draft's failed calls.
pub(super) fn learn(draft: &mut Draft, timeline: &Timeline) {
    if draft.plan.effect != Effect::Create || draft.plan.bulk {
        return;
    }
    let mut omitted: Vec<OmittedModel> = Vec::new();
    for ordinal in &draft.failed {
        let Some(failed) = timeline.get(*ordinal) else {
            continue;
        };
        if !matches!(failed.status, 400 | 409 | 422) {
            continue;
        }
        let (RequestBody::Json(body), Some(answer)) = (&failed.request, &failed.body) else {
            continue;
        };
        let Some(sent) = sent_members(&draft.plan, Some(body)) else {
            continue;
        };
        let named: Vec<&String> = required_members(&draft.plan)
            .filter(|member| !sent.contains_key(member.as_str()))
            .filter(|member| names_word(answer, member))
            .collect();
        if let [member] = named.as_slice()
            && !omitted.iter().any(|known| &known.member == *member)
        {
            omitted.push(OmittedModel {
                member: (*member).clone(),
                ordinal: *ordinal,
            });
        }
    }
    draft.plan.omitted = omitted;
}

/// The members every successful call of the plan sent.
fn required_members(plan: &WritePlan) -> impl Iterator<Item = &String> {
    plan.body
        .iter()
        .flat_map(|body| body.members.iter())
        .filter(|(_, member)| member.required)
        .map(|(name, _)| name)
}

/// Whether a string of the answer (not a key) holds the name as a whole word: the characters
/// beside it are neither letters, digits nor `_`.
fn names_word(answer: &Json, name: &str) -> bool {
    match answer {
        Json::String(text) => holds_word(text, name),
        Json::Array(items) => items.iter().any(|item| names_word(item, name)),
        Json::Object(members) => members.iter().any(|(_, value)| names_word(value, name)),
        _ => false,
    }
}

fn holds_word(text: &str, word: &str) -> bool {
    if word.is_empty() {
        return false;
    }
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
}

/// The recorded refusal a served create answers when its body leaves out a member the plan
/// learned an omitted-member refusal of; `None`: the call is checked as any other.
pub(super) fn answer(service: &StateService, plan: &WritePlan, call: &Call) -> Option<StateAnswer> {
    if plan.omitted.is_empty() {
        return None;
    }
    let model = plan.body.as_ref()?;
    let body = call.body.as_ref().map(Json::from_serde_value)?;
    let sent: &Object = sent_members(plan, Some(&body))?;
    if sent
        .iter()
        .any(|(name, _)| !model.members.contains_key(name))
    {
        return None;
    }
    let omitted = plan
        .omitted
        .iter()
        .find(|omitted| !sent.contains_key(omitted.member.as_str()))?;
    let base = service.kept(omitted.ordinal)?;
    Some(crate::missing::renamed_answer(
        base,
        &[],
        service.replay_evidence_id(),
        false,
        StateSource::state("omitted", None),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_is_named_only_as_a_whole_word_of_a_string() {
        let answer = Json::Object(Object::from_iter([
            (
                "error".to_owned(),
                Json::String("NOT NULL constraint failed: tasks.title".to_owned()),
            ),
            ("status".to_owned(), Json::String("400".to_owned())),
        ]));
        assert!(names_word(&answer, "title"));
        assert!(!names_word(&answer, "task"), "part of a word");
        assert!(!names_word(&answer, "status"), "a key names no member");
        assert!(holds_word(
            "'original_url' is a required property",
            "original_url"
        ));
        assert!(!holds_word("'original_url' is a required property", "url"));
    }
}

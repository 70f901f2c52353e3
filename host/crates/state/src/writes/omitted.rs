//! A create's recorded refusal of an omitted member: the application refused a create (`400`,
//! `409`, `422`) whose body lacked members every successful call sent, and its answer names one
//! of them as a whole word (`NOT NULL constraint failed: tasks.title`, `'original_url' is a
//! required property`). Learned where exactly one required member the failed call left out is
//! named in a string of the failure's answer (never in a key: `"status": 400` names no member);
//! served by answering that failure unchanged, changing nothing, for a create whose body holds
//! the plan's envelope, sends only members the plan accepts, and leaves that member out (checked
//! before the refusal of a missing required member, which would otherwise answer such a call).
//! A create leaving out another required member alone (none but those the refused call also left
//! out without its answer naming them), one the refusal's answer names too (a list of the
//! required members), answers that refusal with the member it left out named instead, where a
//! string names the learned one and no other required member ([`renamed_refusal`]; one app:
//! FlexGet's entry create; datasette's `NOT NULL` refusal names no other member).

use std::collections::BTreeSet;

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
    for (ordinal, sent, answer) in refused_bodies(&draft.failed, &draft.plan, timeline) {
        let (named, unnamed): (Vec<&String>, Vec<&String>) = required_members(&draft.plan)
            .filter(|member| !sent.contains_key(member.as_str()))
            .partition(|member| names_word(answer, member));
        if let [member] = named.as_slice()
            && !omitted.iter().any(|known| &known.member == *member)
        {
            let named_too = required_members(&draft.plan)
                .filter(|other| sent.contains_key(other.as_str()))
                .filter(|other| names_word(answer, other))
                .cloned()
                .collect();
            omitted.push(OmittedModel {
                member: (*member).clone(),
                ordinal,
                unnamed: unnamed.into_iter().cloned().collect(),
                named_too,
            });
        }
    }
    draft.plan.omitted = omitted;
}

/// The failed calls of a create a refusal of a left-out member may explain: refused `400`,
/// `409` or `422` with a JSON answer, their body one the plan reads members of; each with its
/// ordinal, the members it sent and the answer.
pub(super) fn refused_bodies<'a>(
    failed: &'a [u64],
    plan: &'a WritePlan,
    timeline: &'a Timeline,
) -> impl Iterator<Item = (u64, &'a Object, &'a Json)> + 'a {
    refused_calls(failed, plan, timeline)
        .filter_map(|(ordinal, sent, answer)| Some((ordinal, sent, answer?)))
}

/// The failed calls of [`refused_bodies`], whatever their answer: its JSON (`None`: a text, or
/// none).
pub(super) fn refused_calls<'a>(
    failed: &'a [u64],
    plan: &'a WritePlan,
    timeline: &'a Timeline,
) -> impl Iterator<Item = (u64, &'a Object, Option<&'a Json>)> + 'a {
    failed.iter().filter_map(move |ordinal| {
        let failed = timeline.get(*ordinal)?;
        if !matches!(failed.status, 400 | 409 | 422) {
            return None;
        }
        let RequestBody::Json(body) = &failed.request else {
            return None;
        };
        Some((
            *ordinal,
            sent_members(plan, Some(body))?,
            failed.body.as_ref(),
        ))
    })
}

/// The members every successful call of the plan sent.
pub(super) fn required_members(plan: &WritePlan) -> impl Iterator<Item = &String> {
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

pub(super) fn holds_word(text: &str, word: &str) -> bool {
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

/// The members a served call's body sends, when the plan's body model accepts every one of them
/// (a refusal of a left-out member answers only a body otherwise fit); `None` otherwise.
pub(super) fn accepted_members<'a>(plan: &WritePlan, body: &'a Json) -> Option<&'a Object> {
    let model = plan.body.as_ref()?;
    let sent: &Object = sent_members(plan, Some(body))?;
    sent.iter()
        .all(|(name, _)| model.members.contains_key(name))
        .then_some(sent)
}

/// The recorded refusal a served create answers when its body leaves out a member the plan
/// learned an omitted-member refusal of; `None`: the call is checked as any other.
pub(super) fn answer(service: &StateService, plan: &WritePlan, call: &Call) -> Option<StateAnswer> {
    if plan.omitted.is_empty() {
        return None;
    }
    let body = call.body.as_ref().map(Json::from_serde_value)?;
    let sent = accepted_members(plan, &body)?;
    let Some(omitted) = plan
        .omitted
        .iter()
        .find(|omitted| !sent.contains_key(omitted.member.as_str()))
    else {
        return renamed_refusal(service, plan, sent);
    };
    let base = service.kept(omitted.ordinal)?;
    Some(crate::missing::renamed_answer(
        base,
        &[],
        service.replay_evidence_id(),
        false,
        StateSource::state("omitted", None),
    ))
}

/// The required members a call may leave out and still reach the plan, which answers a
/// learned refusal (see [`renamed_refusal`]) or refuses the omission itself: every required
/// member of a plan that learned an omitted-member refusal (the members a refused call left out
/// unnamed may be left out beside another) or a refusal of a set of them
/// ([`super::omitted_set`]), a keyed one ([`super::keyed_refusal`]) or one lent
/// by another create ([`super::lent_omission`]), none otherwise. The catalog does not require
/// them.
pub(crate) fn answered_omissions(plan: &WritePlan) -> BTreeSet<String> {
    if plan.omitted.is_empty()
        && plan.omitted_sets.is_empty()
        && plan.keyed_refusals.is_empty()
        && plan.lent_omission.is_none()
    {
        return BTreeSet::new();
    }
    required_members(plan).cloned().collect()
}

/// A create sending every member a learned refusal names but leaving out one other required
/// member the refusal's answer names too (`validator_value: "['title', 'original_url']"`), the
/// only one it leaves out but those the refused call also left out unnamed: the application
/// says it requires them alike, so it answers that refusal with the member left out named
/// instead, in each string naming the learned member and no other required one (`'original_url'
/// is a required property` becomes `'title' is a required property`; the list of every required
/// member stays as recorded). A refusal naming no other member (`NOT NULL constraint failed:
/// tasks.title`) says nothing of the others and answers only its own member's omission.
fn renamed_refusal(service: &StateService, plan: &WritePlan, sent: &Object) -> Option<StateAnswer> {
    let required: Vec<&String> = required_members(plan).collect();
    plan.omitted.iter().find_map(|omitted| {
        let left_out: Vec<&String> = required
            .iter()
            .copied()
            .filter(|member| !sent.contains_key(member.as_str()))
            .filter(|member| !omitted.unnamed.contains(member))
            .collect();
        let [member] = left_out.as_slice() else {
            return None;
        };
        if !omitted.named_too.contains(member) {
            return None;
        }
        let base = service.kept(omitted.ordinal)?;
        let mut body = base.json()?.clone();
        let others: Vec<&String> = required
            .iter()
            .copied()
            .filter(|other| **other != omitted.member)
            .collect();
        if !rename_member(&mut body, &omitted.member, member, &others) {
            return None;
        }
        Some(crate::answer::state_answer(
            base,
            body,
            service.replay_evidence_id(),
            false,
            StateSource::state("omitted", None),
        ))
    })
}

/// Renames the member `from` to `to` (whole words) in each string of the answer naming it and
/// none of `others`; whether one was renamed.
pub(super) fn rename_member(answer: &mut Json, from: &str, to: &str, others: &[&String]) -> bool {
    match answer {
        Json::String(text) => {
            if !holds_word(text, from) || others.iter().any(|other| holds_word(text, other)) {
                return false;
            }
            *text = replace_words(text, from, to).into();
            true
        }
        Json::Array(items) => items.iter_mut().fold(false, |renamed, item| {
            rename_member(item, from, to, others) | renamed
        }),
        Json::Object(members) => members.iter_mut().fold(false, |renamed, (_, value)| {
            rename_member(value, from, to, others) | renamed
        }),
        _ => false,
    }
}

/// `text` with each whole-word occurrence of `from` (as [`holds_word`] reads one) replaced.
fn replace_words(text: &str, from: &str, to: &str) -> String {
    replace_bounded(text, from, to, |c| c.is_alphanumeric() || c == '_')
}

/// `text` with each occurrence of `from` that no character `within` continues on either side
/// replaced.
pub(super) fn replace_bounded(
    text: &str,
    from: &str,
    to: &str,
    within: impl Fn(char) -> bool,
) -> String {
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for (at, _) in text.match_indices(from) {
        let before = text[..at].chars().next_back();
        let after = text[at + from.len()..].chars().next();
        if at >= copied && !before.is_some_and(&within) && !after.is_some_and(&within) {
            out.push_str(&text[copied..at]);
            out.push_str(to);
            copied = at + from.len();
        }
    }
    out.push_str(&text[copied..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_is_named_only_as_a_whole_word_of_a_string() {
        let answer = Json::Object(Object::from_iter([
            (
                "error".to_owned(),
                Json::String("NOT NULL constraint failed: tasks.title".into()),
            ),
            ("status".to_owned(), Json::String("400".into())),
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

    #[test]
    fn a_refusal_is_renamed_only_where_a_string_names_the_one_member() {
        let mut answer = Json::parse(
            br#"{"validation_errors": [{"message": "'original_url' is a required property",
                "validator_value": "['title', 'original_url']"}], "message": "validation error"}"#,
        )
        .unwrap();
        let title = "title".to_owned();
        assert!(rename_member(
            &mut answer,
            "original_url",
            "title",
            &[&title]
        ));
        assert_eq!(
            answer.to_canonical_string(),
            r#"{"message":"validation error","validation_errors":[{"message":"'title' is a required property","validator_value":"['title', 'original_url']"}]}"#
        );
        let mut unnamed = Json::String("validation error".into());
        assert!(!rename_member(
            &mut unnamed,
            "original_url",
            "title",
            &[&title]
        ));
        assert_eq!(replace_words("a_url url urls", "url", "x"), "a_url x urls");
    }
}

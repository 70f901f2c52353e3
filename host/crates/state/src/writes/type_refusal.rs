//! A write's recorded refusal of a member sent with a value of another JSON type (after pass 3):
//! the application refused a create or update (`400`, `422`) that sent exactly one top-level
//! member of the envelope with a scalar of another type than every successful call of the tool
//! sent there (one scalar type: `string`, `number` or `boolean`), its answer spelling the member
//! and both types' names in one spelling of the JSON type names (`schema mismatch for
//! Task.priority; expected Number but got String`: capitalised). Learned where exactly one
//! member shows this; shared with the other create and update tools of the entity type (the
//! application checks the type's members whichever write sends them).
//!
//! Served before the body is checked: a call sending a member the tool's calls sent with one
//! scalar type, with a scalar of another type, answers that failure with the recorded member
//! and type names renamed, all at once, to the sent member, its expected type and the sent
//! type in the learned spelling (`done: 1` answers `… for Task.done; expected Boolean but got
//! Number`), and changes nothing. The catalog admits any scalar at such a member and requires
//! none of the body's members (the state still refuses a call leaving out one every recorded call
//! sent), as the write's description says.

use std::collections::BTreeMap;

use rea_plugin_api::json::Json;

use super::Draft;
use super::apply::sent_members;
use super::model::{Effect, TypeRefusal, TypeSpelling, WritePlan};
use crate::answer::{StateAnswer, StateSource};
use crate::call::Call;
use crate::observation::{RequestBody, Timeline};
use crate::service::StateService;

/// The JSON types a type refusal compares.
const SCALARS: [&str; 3] = ["string", "number", "boolean"];

impl TypeSpelling {
    /// A JSON type's name in this spelling.
    pub fn spell(self, name: &str) -> String {
        match self {
            TypeSpelling::Lower => name.to_owned(),
            TypeSpelling::Upper => name.to_uppercase(),
            TypeSpelling::Capitalised => {
                let mut chars = name.chars();
                chars.next().map_or_else(String::new, |first| {
                    first.to_uppercase().chain(chars).collect()
                })
            }
        }
    }
}

/// The one scalar type the plan's calls sent a member with, when they sent it with no other
/// scalar type; `None` for a member the plan does not model.
fn expected_type<'p>(plan: &'p WritePlan, member: &str) -> Option<&'p str> {
    let types = &plan.body.as_ref()?.members.get(member)?.types;
    let mut scalars = types
        .iter()
        .map(String::as_str)
        .filter(|kind| SCALARS.contains(kind));
    let one = scalars.next()?;
    scalars.next().is_none().then_some(one)
}

/// The members a body sends with a scalar of another type than the plan's one scalar type
/// there: (member, expected type, sent type).
fn mistyped<'b>(
    plan: &WritePlan,
    sent: &'b rea_plugin_api::json::Object,
) -> Vec<(&'b str, String, &'static str)> {
    sent.iter()
        .filter_map(|(member, value)| {
            let kind = value.type_name();
            let expected = expected_type(plan, member)?;
            (SCALARS.contains(&kind) && kind != expected)
                .then(|| (member, expected.to_owned(), kind))
        })
        .collect()
}

/// The whole words of an answer's strings (not its keys).
fn words(answer: &Json, found: &mut Vec<String>) {
    match answer {
        Json::String(text) => found.extend(
            text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|word| !word.is_empty())
                .map(str::to_owned),
        ),
        Json::Array(items) => items.iter().for_each(|item| words(item, found)),
        Json::Object(members) => members.iter().for_each(|(_, value)| words(value, found)),
        _ => {}
    }
}

/// The spelling in which an answer's words name both types, when exactly one does.
fn spelling_of(answer: &Json, expected: &str, sent: &str) -> Option<TypeSpelling> {
    let mut found = Vec::new();
    words(answer, &mut found);
    let spells = |spelling: TypeSpelling| {
        [expected, sent]
            .iter()
            .all(|name| found.contains(&spelling.spell(name)))
    };
    let mut spellings = [
        TypeSpelling::Capitalised,
        TypeSpelling::Lower,
        TypeSpelling::Upper,
    ]
    .into_iter()
    .filter(|spelling| spells(*spelling));
    let one = spellings.next()?;
    spellings.next().is_none().then_some(one)
}

/// The type refusal one failed call of a draft shows, if any.
fn refusal_of(draft: &Draft, timeline: &Timeline, ordinal: u64) -> Option<TypeRefusal> {
    let failed = timeline.get(ordinal)?;
    let (RequestBody::Json(body), Some(answer)) = (&failed.request, &failed.body) else {
        return None;
    };
    if !matches!(failed.status, 400 | 422) {
        return None;
    }
    let sent = sent_members(&draft.plan, Some(body))?;
    let mistyped = mistyped(&draft.plan, sent);
    let [(member, expected, kind)] = mistyped.as_slice() else {
        return None;
    };
    let mut found = Vec::new();
    words(answer, &mut found);
    if !found.iter().any(|word| word == member) {
        return None;
    }
    Some(TypeRefusal {
        ordinal,
        member: (*member).to_owned(),
        expected: expected.clone(),
        sent: (*kind).to_owned(),
        spelling: spelling_of(answer, expected, kind)?,
    })
}

/// Whether a plan writes the members of one entity in its body: a create or an update, not a
/// bulk or member write.
fn writes_members(plan: &WritePlan) -> bool {
    matches!(plan.effect, Effect::Create | Effect::Update)
        && !plan.bulk
        && plan
            .target
            .as_ref()
            .is_none_or(|target| target.member.is_none())
}

/// Learns a type refusal from the drafts' failed calls, then shares it with every create and
/// update draft of the same entity type.
pub(super) fn learn(drafts: &mut [Draft], timeline: &Timeline) {
    let learned = drafts
        .iter()
        .filter(|draft| writes_members(&draft.plan))
        .find_map(|draft| {
            let refusal = draft
                .failed
                .iter()
                .find_map(|ordinal| refusal_of(draft, timeline, *ordinal))?;
            Some((draft.plan.entity_type()?.to_owned(), refusal))
        });
    let Some((entity_type, refusal)) = learned else {
        return;
    };
    for draft in drafts.iter_mut() {
        if writes_members(&draft.plan) && draft.plan.entity_type() == Some(entity_type.as_str()) {
            draft.plan.type_refusals = vec![refusal.clone()];
        }
    }
}

/// Every whole word of the strings renamed as `renamed` says, all at once (a word renamed is
/// not renamed again).
fn rename_words(value: &mut Json, renamed: &BTreeMap<String, String>) {
    match value {
        Json::String(text) => {
            let mut out = String::with_capacity(text.len());
            let mut word = String::new();
            for c in text.chars() {
                if c.is_alphanumeric() || c == '_' {
                    word.push(c);
                    continue;
                }
                out.push_str(renamed.get(&word).unwrap_or(&word));
                word.clear();
                out.push(c);
            }
            out.push_str(renamed.get(&word).unwrap_or(&word));
            *text = out.into();
        }
        Json::Array(items) => items
            .iter_mut()
            .for_each(|item| rename_words(item, renamed)),
        Json::Object(members) => members
            .iter_mut()
            .for_each(|(_, item)| rename_words(item, renamed)),
        _ => {}
    }
}

/// The recorded refusal a call answers when its body sends a member with a scalar of another
/// type than the plan's calls sent there; `None` otherwise.
pub(super) fn answer(service: &StateService, plan: &WritePlan, call: &Call) -> Option<StateAnswer> {
    let refusal = plan.type_refusals.first()?;
    let body = call.body.as_ref().map(Json::from_serde_value)?;
    let sent = sent_members(plan, Some(&body))?;
    let (member, expected, kind) = mistyped(plan, sent).into_iter().next()?;
    let spell = |name: &str| refusal.spelling.spell(name);
    let renamed = BTreeMap::from([
        (refusal.member.clone(), member.to_owned()),
        (spell(&refusal.expected), spell(&expected)),
        (spell(&refusal.sent), spell(kind)),
    ]);
    let base = service.kept(refusal.ordinal)?;
    let mut answer = base.json()?.clone();
    rename_words(&mut answer, &renamed);
    let refused = crate::answer::state_answer(
        base,
        answer,
        service.replay_evidence_id(),
        false,
        StateSource::state("type-refused", None),
    );
    if let Some(status) = refused.status() {
        service.write().note_refusal(&plan.tool, status);
    }
    Some(refused)
}

/// Whether a plan answers a learned type refusal: then its catalog body admits any scalar at a
/// member of one scalar type and requires no member.
pub(crate) fn answers_types(plan: &WritePlan) -> bool {
    !plan.type_refusals.is_empty()
}

/// The JSON types the catalog admits at a member of a plan answering a type refusal: its
/// recorded ones, and every scalar when it has one scalar type.
pub(crate) fn admitted_types(plan: &WritePlan, member: &str, recorded: &[String]) -> Vec<String> {
    let mut types = recorded.to_vec();
    if answers_types(plan) && expected_type(plan, member).is_some() {
        for scalar in SCALARS {
            if !types.iter().any(|kind| kind == scalar) {
                types.push(scalar.to_owned());
            }
        }
    }
    types
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_are_spelled_as_learned() {
        assert_eq!(TypeSpelling::Capitalised.spell("number"), "Number");
        assert_eq!(TypeSpelling::Lower.spell("boolean"), "boolean");
        assert_eq!(TypeSpelling::Upper.spell("string"), "STRING");
    }

    #[test]
    fn an_answer_naming_both_types_in_one_spelling_teaches_it() {
        let answer = Json::parse(
            br#"{"code": 111, "error": "schema mismatch for Task.priority; expected Number but got String"}"#,
        )
        .expect("json");
        assert_eq!(
            spelling_of(&answer, "number", "string"),
            Some(TypeSpelling::Capitalised)
        );
        // A type the answer does not name teaches nothing.
        assert_eq!(spelling_of(&answer, "boolean", "string"), None);
    }

    #[test]
    fn words_are_renamed_all_at_once() {
        let mut answer = Json::parse(
            br#"{"error": "schema mismatch for Task.priority; expected Number but got String", "priority": "x"}"#,
        )
        .expect("json");
        let renamed = BTreeMap::from([
            ("priority".to_owned(), "done".to_owned()),
            ("Number".to_owned(), "Boolean".to_owned()),
            ("String".to_owned(), "Number".to_owned()),
        ]);
        rename_words(&mut answer, &renamed);
        assert_eq!(
            answer.to_canonical_string(),
            r#"{"error":"schema mismatch for Task.done; expected Boolean but got Number","priority":"x"}"#
        );
    }
}

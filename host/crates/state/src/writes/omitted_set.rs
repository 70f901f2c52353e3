//! A create's recorded refusal of a set of left-out members: the application refused a create
//! (`400`, `409`, `422`) whose body left out required members, its answer (JSON, or plain text)
//! naming each of them as a whole word (`A task needs a title.`; pydantic's `2 validation errors
//! for TaskIn` naming `title` and `project`). A required member is a top-level member of the
//! body's envelope every successful call sent, or a member one level inside such an object
//! member that every successful call's object held (a JSON:API `attributes.title`). Learned on
//! the failures [`super::omitted`] and [`super::keyed_refusal`] left, where the named members are
//! some of those the failed call left out (the others it left out unnamed were not what it
//! refused). Served before the refusal of a missing required member: a create whose body holds
//! the plan's envelope, sends only accepted members of their recorded types (a fixed member with
//! its value), and leaves out every named member answers that failure, changing nothing. Where
//! the answer spells the failed call's sent members ([`InputSpelling`]: `input_value={'priority':
//! 3}`), the served answer spells the call's own instead, only when every value it sends is of a
//! kind the recorded spelling showed; otherwise the call is checked as any other (the state
//! refuses the missing member). Two apps: Fortune.js's task create without a title,
//! PiccoloCRUD's task create without `title` and `project`.

use rea_plugin_api::contracts::capture::CaptureRecord;
use rea_plugin_api::json::{Json, Object};

use super::Draft;
use super::apply::sent_members;
use super::model::{Effect, InputSpelling, OmittedSet, WritePlan};
use super::observe::Call as ObservedCall;
use super::omitted::{holds_word, refused_calls};
use crate::answer::{StateAnswer, StateSource};
use crate::call::Call;
use crate::observation::{RequestBody, Timeline};
use crate::service::StateService;

/// The longest recorded answer text read for the members it names.
const MAX_ANSWER_TEXT: usize = 16 * 1024;

/// Learns the plan's refusals of left-out member sets from its draft's failed calls not already
/// explained by another refusal.
pub(super) fn learn(
    draft: &mut Draft,
    calls: &[ObservedCall],
    timeline: &Timeline,
    records: &[CaptureRecord],
) {
    if draft.plan.effect != Effect::Create || draft.plan.bulk {
        return;
    }
    let required = required_paths(draft, calls);
    if required.is_empty() {
        return;
    }
    let explained: Vec<u64> = draft.plan.omission_refusals().collect();
    let mut learned: Vec<OmittedSet> = Vec::new();
    for (ordinal, sent, answer) in refused_calls(&draft.failed, &draft.plan, timeline) {
        if explained.contains(&ordinal) {
            continue;
        }
        let Some(texts) = answer_texts(answer, ordinal, records) else {
            continue;
        };
        let members: Vec<String> = required
            .iter()
            .filter(|path| !holds_path(sent, path))
            .filter(|path| texts.iter().any(|text| holds_word(text, last_name(path))))
            .cloned()
            .collect();
        if members.is_empty() || learned.iter().any(|known| known.members == members) {
            continue;
        }
        let spelling = InputSpelling::of(sent, &texts);
        learned.push(OmittedSet {
            ordinal,
            members,
            spelling,
        });
    }
    draft.plan.omitted_sets = learned;
}

/// The required members of a create draft, as paths (`title`, `attributes/title`): the plan's
/// required top-level members, and the members every successful call's object held inside a
/// required object member.
fn required_paths(draft: &Draft, calls: &[ObservedCall]) -> Vec<String> {
    let Some(body) = &draft.plan.body else {
        return Vec::new();
    };
    let sent: Vec<&Object> = draft
        .calls
        .iter()
        .filter_map(|index| {
            let call = calls.get(*index)?;
            let request = call.recorded_request.as_ref().unwrap_or(&call.request);
            match request {
                RequestBody::Json(json) => sent_members(&draft.plan, Some(json)),
                _ => None,
            }
        })
        .collect();
    if sent.len() != draft.calls.len() {
        return Vec::new();
    }
    let mut paths = Vec::new();
    for (name, member) in body.members.iter().filter(|(_, member)| member.required) {
        paths.push(name.clone());
        if member.types.iter().all(|kind| kind == "object") {
            paths.extend(
                nested_always_sent(&sent, name)
                    .into_iter()
                    .map(|inner| format!("{name}/{inner}")),
            );
        }
    }
    paths
}

/// The members every sent object at `name` held (none when some call sent no object there).
fn nested_always_sent(sent: &[&Object], name: &str) -> Vec<String> {
    let mut objects = sent.iter().map(|members| members.get(name)?.as_object());
    let Some(Some(first)) = objects.next() else {
        return Vec::new();
    };
    let mut always: Vec<String> = first.keys().map(str::to_owned).collect();
    for object in objects {
        let Some(object) = object else {
            return Vec::new();
        };
        always.retain(|inner| object.contains_key(inner));
    }
    always
}

/// Whether the sent members hold the member at the path (`name` or `name/inner`).
fn holds_path(sent: &Object, path: &str) -> bool {
    match path.split_once('/') {
        None => sent.contains_key(path),
        Some((outer, inner)) => sent
            .get(outer)
            .and_then(Json::as_object)
            .is_some_and(|object| object.contains_key(inner)),
    }
}

/// The member name a path ends with.
fn last_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The texts of a failed call's answer: each string of its JSON answer, or its whole text when
/// the answer is not JSON (read from its record, bounded).
fn answer_texts(
    answer: Option<&Json>,
    ordinal: u64,
    records: &[CaptureRecord],
) -> Option<Vec<String>> {
    if let Some(answer) = answer {
        let mut texts = Vec::new();
        strings_of(answer, &mut texts);
        return Some(texts);
    }
    let record = records.iter().find(|record| record.ordinal == ordinal)?;
    let bytes = record.response.body.bytes()?;
    if bytes.len() > MAX_ANSWER_TEXT {
        return None;
    }
    Some(vec![String::from_utf8(bytes.into_owned()).ok()?])
}

/// Every string value (not key) of a JSON value.
fn strings_of(value: &Json, texts: &mut Vec<String>) {
    match value {
        Json::String(text) => texts.push(text.to_string()),
        Json::Array(items) => items.iter().for_each(|item| strings_of(item, texts)),
        Json::Object(members) => members.iter().for_each(|(_, item)| strings_of(item, texts)),
        _ => {}
    }
}

/// The recorded refusal a served create answers when its body leaves out every member of a
/// learned set; `None`: the call is checked as any other.
pub(super) fn answer(service: &StateService, plan: &WritePlan, call: &Call) -> Option<StateAnswer> {
    if plan.omitted_sets.is_empty() {
        return None;
    }
    let body = call.body.as_ref().map(Json::from_serde_value)?;
    let sent = fitting_members(plan, &body)?;
    let set = plan
        .omitted_sets
        .iter()
        .find(|set| set.members.iter().all(|path| !holds_path(sent, path)))?;
    let base = service.kept(set.ordinal)?;
    let renamed = match &set.spelling {
        None => Vec::new(),
        Some(spelling) => vec![(spelling.recorded.clone(), spelling.spell(sent)?)],
    };
    Some(crate::missing::renamed_answer(
        base,
        &renamed,
        service.replay_evidence_id(),
        false,
        StateSource::state("omitted-set", None),
    ))
}

/// The members a served call's body sends in the plan's envelope, when each is accepted, of a
/// recorded JSON type, and a fixed one sent with its value; `None` otherwise.
fn fitting_members<'a>(plan: &WritePlan, body: &'a Json) -> Option<&'a Object> {
    let model = plan.body.as_ref()?;
    let sent = super::omitted::accepted_members(plan, body)?;
    sent.iter()
        .all(|(name, value)| {
            model.members.get(name).is_some_and(|member| {
                member.types.iter().any(|kind| kind == value.type_name())
                    && member.fixed.as_ref().is_none_or(|fixed| fixed == value)
            })
        })
        .then_some(sent)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::parsed_object as object;

    #[test]
    fn a_nested_member_is_held_only_inside_its_object() {
        let sent = object(r#"{"type": "tasks", "attributes": {"estimate": 2}}"#);
        assert!(holds_path(&sent, "type"));
        assert!(holds_path(&sent, "attributes/estimate"));
        assert!(!holds_path(&sent, "attributes/title"));
        assert!(!holds_path(&sent, "relationships/project"));
        assert_eq!(last_name("attributes/title"), "title");
    }

    #[test]
    fn nested_members_are_required_where_every_object_held_them() {
        let first = object(r#"{"attributes": {"title": "a", "priority": 2}}"#);
        let second = object(r#"{"attributes": {"title": "b"}}"#);
        assert_eq!(
            nested_always_sent(&[&first, &second], "attributes"),
            ["title"]
        );
        let scalar = object(r#"{"attributes": 3}"#);
        assert!(nested_always_sent(&[&first, &scalar], "attributes").is_empty());
    }

    #[test]
    fn an_answer_is_read_as_its_strings_or_its_text() {
        let answer = Json::parse(
            br#"{"errors": [{"title": "BadRequestError", "detail": "A task needs a title."}]}"#,
        )
        .unwrap();
        let texts = answer_texts(Some(&answer), 0, &[]).unwrap();
        assert!(texts.iter().any(|text| holds_word(text, "title")));
        assert!(
            !texts.iter().any(|text| holds_word(text, "errors")),
            "a key names no member"
        );
    }
}

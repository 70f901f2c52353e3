//! A create's recorded refusal of a taken value: the application refused a create (`400`, `409`,
//! `422`) that sent, in one top-level member or one string nested in a sent object (named by its
//! JSON pointer, `/attributes/code`), the value an entity of the call's collection already held
//! there (a name or title taken twice); a member a successful call of the tool sent a value at
//! that its collection held then (every project's `type: "Project"`) is no such cause. Learned, from a failure no
//! member the call left out explains ([`super::omitted`]), where exactly one string member of the
//! failed call's body equals that field of an entity the collection held then (the
//! state's entities, and those the tool's own successful calls before it created), or, of
//! several such members, exactly one is spelled in a string of the failure's answer; served by
//! answering that failure, each occurrence of the recorded value in its body renamed to the sent
//! one (as a missing answer renames, [`crate::missing`]), for a create sending a value the live
//! collection holds in that field, changing nothing. Whether the live collection holds the sent
//! value is asked of the shared values the served writes keep for each conflict's member
//! ([`super::apply::keep_held_indexes`]), so a served create does not scan its collection. A copy
//! under a new identity makes a new record too: it shares its type's create conflicts, and learns
//! its own refusals as a create does (a rename onto a taken path). A withheld write answers its
//! conflicts too ([`super::serve::withheld_conflict`]): the refusal changes nothing and depends
//! on the taken value alone, so it needs none of what the write itself would do.

use rea_plugin_api::contracts::capture::CompactString;
use std::collections::{HashMap, HashSet};

use rea_manifest::segments::split_path;
use rea_plugin_api::json::{Json, escape_pointer_segment};

use super::Draft;
use super::apply::{WriteInput, call_target, sent_members};
use super::dependents::{member_at, object_member_at};
use super::model::{ConflictModel, Effect, WritePlan};
use super::observe::{After, Call};
use crate::answer::{StateAnswer, StateSource};
use crate::derive::entities::collection_key;
use crate::model::StateView;
use crate::observation::{RequestBody, Timeline};
use crate::service::StateService;

/// Learns the plan's conflicts from its draft's failed calls.
pub(super) fn learn(draft: &mut Draft, calls: &[Call], state: &StateView, timeline: &Timeline) {
    // A copy makes a new record: its own refusals of a taken value are conflicts as a create's.
    if (draft.plan.effect != Effect::Create && !draft.plan.copies) || draft.plan.bulk {
        return;
    }
    let Some(entity_type) = draft.plan.entity_type().map(str::to_owned) else {
        return;
    };
    let mut conflicts: Vec<ConflictModel> = Vec::new();
    let mut known = HashMap::new();
    for ordinal in &draft.failed {
        // A failure its answer explains by a member the call left out is no conflict.
        if draft
            .plan
            .omission_refusals()
            .any(|refused| refused == *ordinal)
        {
            continue;
        }
        let Some(failed) = timeline.get(*ordinal) else {
            continue;
        };
        let RequestBody::Json(body) = &failed.request else {
            continue;
        };
        if !matches!(failed.status, 400 | 409 | 422) {
            continue;
        }
        let input = WriteInput {
            segments: split_path(&failed.path)
                .into_iter()
                .map(CompactString::from)
                .collect(),
            body: Some(body.clone()),
            listed: None,
            query: Vec::new(),
        };
        let Some((collection, _)) = call_target(&draft.plan, &input) else {
            continue;
        };
        let held = held_before(draft, calls, state, &entity_type, &collection, *ordinal);
        let Some(sent) = sent_members(&draft.plan, Some(body)) else {
            continue;
        };
        let texts = sent_texts(sent);
        let taken: Vec<(&str, &str)> = texts
            .iter()
            .map(|(member, text)| (member.as_str(), *text))
            .filter(|(member, text)| {
                held.iter()
                    .any(|fields| member_at(fields, member).and_then(Json::as_str) == Some(text))
            })
            .filter(|(member, _)| !sent_taken_by_success(draft, calls, state, (member, &mut known)))
            .collect();
        let taken = named_by_answer(taken, failed.body.as_ref());
        if let [(member, text)] = taken.as_slice()
            && !conflicts.iter().any(|known| known.member == *member)
        {
            conflicts.push(ConflictModel {
                member: (*member).to_owned(),
                ordinal: *ordinal,
                taken: (*text).to_owned(),
            });
        }
    }
    draft.plan.conflicts = conflicts;
}

/// The non-empty texts a call sent: its top-level string members by name, and the strings nested
/// in its object members by JSON pointer (`/attributes/code`, see
/// [`super::dependents::member_at`]).
fn sent_texts(sent: &rea_plugin_api::json::Object) -> Vec<(String, &str)> {
    fn nested<'v>(value: &'v Json, at: String, found: &mut Vec<(String, &'v str)>) {
        match value {
            Json::Object(object) => {
                for (name, inner) in object.iter() {
                    nested(
                        inner,
                        format!("{at}/{}", escape_pointer_segment(name)),
                        found,
                    );
                }
            }
            Json::String(text) if !text.is_empty() => found.push((at, text)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    for (member, value) in sent.iter() {
        match value {
            Json::String(text) if !text.is_empty() && !member.starts_with('/') => {
                found.push((member.to_owned(), &text[..]));
            }
            Json::Object(_) => nested(
                value,
                format!("/{}", escape_pointer_segment(member)),
                &mut found,
            ),
            _ => {}
        }
    }
    found
}

/// Whether a successful call of the draft sent, at `member`, a value its collection already held
/// there (every entity's `type: "Project"`): a value held before is no refusal's cause there.
/// Asked once per member (`known`), each answer one pass over the calls: the values the state's
/// entities and the earlier creates held are looked up by their canonical text, which is equal
/// exactly when the values are (keys sorted, numbers as their lexemes).
fn sent_taken_by_success(
    draft: &Draft,
    calls: &[Call],
    state: &StateView,
    (member, known): (&str, &mut HashMap<String, bool>),
) -> bool {
    if let Some(taken) = known.get(member) {
        return *taken;
    }
    let sent: Vec<(&Call, &str, &str, Json)> = draft
        .calls
        .iter()
        .map(|index| &calls[*index])
        .filter_map(|call| {
            let (RequestBody::Json(body), Some((entity_type, collection, _))) =
                (&call.request, &call.key)
            else {
                return None;
            };
            let sent = sent_members(&draft.plan, Some(body))
                .and_then(|sent| object_member_at(sent, member).cloned())?;
            Some((call, entity_type.as_str(), collection_key(collection), sent))
        })
        .collect();
    let created = first_creations(draft, calls, member);
    let mut seeded: HashMap<(&str, &str), HashSet<String>> = HashMap::new();
    let taken = sent.iter().any(|(call, entity_type, own, value)| {
        let text = value.to_canonical_string();
        created
            .get(own)
            .and_then(|firsts| firsts.get(&text))
            .is_some_and(|first| *first < call.ordinal)
            || seeded
                .entry((*entity_type, *own))
                .or_insert_with(|| seeded_values(state, (entity_type, own), member))
                .contains(&text)
    });
    known.insert(member.to_owned(), taken);
    taken
}

/// The canonical texts of the values the state's entities of a type hold at `member` in one
/// collection (keyed as [`collection_key`] keys it).
fn seeded_values(
    state: &StateView,
    (entity_type, own): (&str, &str),
    member: &str,
) -> HashSet<String> {
    state
        .entities
        .iter()
        .filter(|entity| {
            entity.entity_type == entity_type && collection_key(&entity.collection) == own
        })
        .filter_map(|entity| member_at(&entity.fields, member))
        .map(Json::to_canonical_string)
        .collect()
}

/// Per collection (keyed as [`collection_key`] keys it), for each canonical text of a value a
/// call of the draft left its entity holding at `member`, the first such call's ordinal: what
/// [`held_before`] holds there for a later call.
fn first_creations<'c>(
    draft: &Draft,
    calls: &'c [Call],
    member: &str,
) -> HashMap<&'c str, HashMap<String, u64>> {
    let mut first: HashMap<&str, HashMap<String, u64>> = HashMap::new();
    for call in draft.calls.iter().map(|index| &calls[*index]) {
        let (Some((_, collection, _)), After::Present(fields)) = (&call.key, &call.after) else {
            continue;
        };
        let Some(value) = member_at(fields, member) else {
            continue;
        };
        let ordinal = first
            .entry(collection_key(collection))
            .or_default()
            .entry(value.to_canonical_string())
            .or_insert(call.ordinal);
        *ordinal = (*ordinal).min(call.ordinal);
    }
    first
}

/// Of several members sending a taken value, those whose value the failure's answer spells in
/// one of its strings (`entry with title 'Tenet 2020 720p' already exists` names the title, not
/// the `original_url` the call sent an entity's too); one member, or none named, is kept as is.
fn named_by_answer<'a>(
    taken: Vec<(&'a str, &'a str)>,
    answer: Option<&Json>,
) -> Vec<(&'a str, &'a str)> {
    let Some(answer) = answer.filter(|_| taken.len() > 1) else {
        return taken;
    };
    let named: Vec<(&str, &str)> = taken
        .iter()
        .copied()
        .filter(|(_, text)| spells(answer, text))
        .collect();
    if named.is_empty() { taken } else { named }
}

/// Whether a string of the answer (not a key) holds the text.
pub(super) fn spells(answer: &Json, text: &str) -> bool {
    match answer {
        Json::String(held) => held.contains(text),
        Json::Array(items) => items.iter().any(|item| spells(item, text)),
        Json::Object(members) => members.iter().any(|(_, value)| spells(value, text)),
        _ => false,
    }
}

/// A copy makes a new record of its type (see [`WritePlan::copies`]): the taken values a create
/// of that type was refused for are refused for the copy too (the same recorded failure,
/// renamed to the sent value), so a copy never stores a value the type's creates showed taken.
/// So are they for an update of one entity of the type, setting a member to a value another
/// entity holds (Rails' uniqueness validation and a SQL unique constraint refuse an update as
/// they refuse a create: rails-ransack's and nestjs-crud's project `PATCH` of a taken code).
pub(super) fn share_with_copies(drafts: &mut [Draft]) {
    let learned: Vec<(String, Vec<ConflictModel>)> = drafts
        .iter()
        .filter(|draft| draft.plan.effect == Effect::Create && !draft.plan.conflicts.is_empty())
        .filter_map(|draft| {
            Some((
                draft.plan.entity_type()?.to_owned(),
                draft.plan.conflicts.clone(),
            ))
        })
        .collect();
    let shares = |plan: &WritePlan| plan.copies || plan.effect == Effect::Update && !plan.bulk;
    for draft in drafts.iter_mut().filter(|draft| shares(&draft.plan)) {
        let Some(entity_type) = draft.plan.entity_type().map(str::to_owned) else {
            continue;
        };
        for (created, conflicts) in &learned {
            if *created != entity_type {
                continue;
            }
            for conflict in conflicts {
                if !draft
                    .plan
                    .conflicts
                    .iter()
                    .any(|known| known.member == conflict.member)
                {
                    draft.plan.conflicts.push(conflict.clone());
                }
            }
        }
    }
}

/// The entities' fields a collection held before a record: the state's, and those the draft's
/// successful calls before it were observed to create there.
fn held_before<'a>(
    draft: &Draft,
    calls: &'a [Call],
    state: &'a StateView,
    entity_type: &str,
    collection: &str,
    ordinal: u64,
) -> Vec<&'a Json> {
    let own = collection_key(collection);
    let seeded = state
        .entities
        .iter()
        .filter(|entity| {
            entity.entity_type == entity_type && collection_key(&entity.collection) == own
        })
        .map(|entity| &entity.fields);
    let created = draft
        .calls
        .iter()
        .map(|call| &calls[*call])
        .filter(|call| call.ordinal < ordinal)
        .filter(|call| {
            call.key
                .as_ref()
                .is_some_and(|(_, held, _)| collection_key(held) == own)
        })
        .filter_map(|call| match &call.after {
            After::Present(fields) => Some(fields),
            _ => None,
        });
    seeded.chain(created).collect()
}

/// The recorded refusal a served create (or update) answers when it sends a value its collection
/// holds in a member the plan learned a conflict of (an update: another entity than its own);
/// `None`: no conflict (an update of an entity the state does not hold answers as missing).
pub(super) fn answer(
    service: &StateService,
    plan: &WritePlan,
    input: &WriteInput,
) -> Option<StateAnswer> {
    if plan.conflicts.is_empty() {
        return None;
    }
    let entity_type = plan.entity_type()?;
    let sent = sent_members(plan, input.body.as_ref())?;
    let (collection, id) = call_target(plan, input)?;
    keep_conflict_values(service, plan, entity_type, &collection);
    let live = service.read();
    // An update's own entity: a value it holds already is no other entity's.
    let updated = match (plan.effect, &id) {
        (Effect::Update, Some(id)) if !plan.copies => {
            Some(live.entity(entity_type, &collection, id)?)
        }
        _ => None,
    };
    let conflict = plan.conflicts.iter().find(|conflict| {
        object_member_at(sent, &conflict.member).is_some_and(|value| {
            updated.is_none_or(|entity| member_at(&entity.fields, &conflict.member) != Some(value))
                && live.holds_value(entity_type, &collection, &conflict.member, value)
        })
    })?;
    let value = object_member_at(sent, &conflict.member)?
        .as_str()?
        .to_owned();
    let renamed: Vec<(String, String)> = (value != conflict.taken)
        .then(|| (conflict.taken.clone(), value))
        .into_iter()
        .collect();
    recorded_refusal(service, conflict.ordinal, &renamed)
}

/// The recorded refusal at `ordinal`, each `(from, to)` text of it renamed, answered from the
/// state as a conflict; `None` when the record is not kept.
pub(super) fn recorded_refusal(
    service: &StateService,
    ordinal: u64,
    renamed: &[(String, String)],
) -> Option<StateAnswer> {
    let base = service.kept(ordinal)?;
    Some(crate::missing::renamed_answer(
        base,
        renamed,
        service.replay_evidence_id(),
        false,
        StateSource::state("conflict", None),
    ))
}

/// Keeps, in the live state, the shared values of the members the plan's conflicts check, when
/// it does not keep them yet (a live state no served create wrote since `data/reset` or
/// `data/add`): a refused create changes nothing, so without them every refused create after a
/// reset would scan the collection.
fn keep_conflict_values(
    service: &StateService,
    plan: &WritePlan,
    entity_type: &str,
    collection: &str,
) {
    let kept = {
        let live = service.read();
        plan.conflicts
            .iter()
            .all(|conflict| live.keeps_shared_index(entity_type, collection, &conflict.member))
    };
    if !kept {
        let mut live = service.write();
        for conflict in &plan.conflicts {
            live.keep_shared_index(entity_type, collection, &conflict.member);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::sent_texts;
    use rea_plugin_api::json::Json;

    #[test]
    fn the_texts_a_call_sent_include_those_nested_in_its_object_members() {
        let sent = Json::parse(
            br#"{"type": "Project", "attributes": {"code": "WEB", "n": 2, "name": ""}}"#,
        )
        .expect("json");
        let texts = sent_texts(sent.as_object().expect("object"));
        assert_eq!(
            texts,
            [
                ("type".to_owned(), "Project"),
                ("/attributes/code".to_owned(), "WEB")
            ]
        );
    }
}

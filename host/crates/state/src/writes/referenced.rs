//! A delete's recorded refusal of an entity another type's entity names (after pass 3): the
//! application refused a delete (`400`, `409`, `422`, `424 Failed Dependency`) while an entity of
//! another type held the deleted entity's id in a member (a task's `project_id` naming the
//! project: a foreign key without a cascade), and deleted the same tool's other targets when no such entity held theirs.
//! Learned where exactly one (type, member) pair held the refused target's id before the failure
//! (the state's entities as the recorded writes before it were observed to leave them, a
//! successful `DELETE` no read followed leaving its entity gone; a member
//! nested in object members named by its JSON pointer, see [`super::dependents::member_at`]) and
//! held no successful delete's target before that call; served by answering that failure
//! unchanged, changing nothing, for a delete of a held entity the live state's entities of that
//! type name in that member.

use rea_plugin_api::contracts::capture::CompactString;
use std::collections::HashMap;

use rea_manifest::segments::split_path;
use rea_plugin_api::json::Json;

use super::apply::{WriteInput, call_target};
use super::dependents::{member_at, members_holding};
use super::model::{Effect, ReferencedModel, WritePlan};
use super::observe::{After, Call};
use super::{Draft, Views};
use crate::answer::StateAnswer;
use crate::model::StateView;
use crate::observation::Timeline;
use crate::render::scalar_text;
use crate::service::StateService;

/// The entities (type, collection, id) → fields as the recorded writes before `ordinal` left
/// them: the state's, then each observed call's entity after, in record order.
pub(super) fn held_before(state: &StateView, calls: &[Call], ordinal: u64) -> HashMap<Key, Json> {
    held_through(state, calls, ordinal, None)
}

/// [`held_before`], and, given the timeline, without the entity of each successful `DELETE`
/// no read showed gone (a delete the application answered as done removed its entity: a task
/// deleted just before its project, whose delete then succeeds).
fn held_through(
    state: &StateView,
    calls: &[Call],
    ordinal: u64,
    deletes: Option<&Timeline>,
) -> HashMap<Key, Json> {
    let mut held: HashMap<Key, Json> = state
        .entities
        .iter()
        .map(|entity| {
            let key = (
                entity.entity_type.clone(),
                entity.collection.clone(),
                entity.id.clone(),
            );
            (key, entity.fields.clone())
        })
        .collect();
    let mut before: Vec<&Call> = calls.iter().filter(|call| call.ordinal < ordinal).collect();
    before.sort_by_key(|call| call.ordinal);
    for call in before {
        let Some(key) = call.key.clone() else {
            continue;
        };
        match &call.after {
            After::Present(fields) => {
                held.insert(key, fields.clone());
            }
            After::Absent => {
                held.remove(&key);
            }
            After::Unobserved
                if deletes
                    .and_then(|timeline| timeline.get(call.ordinal))
                    .is_some_and(|write| write.method == "DELETE" && write.is_success()) =>
            {
                held.remove(&key);
            }
            _ => {}
        }
    }
    held
}

/// An entity key: type, collection, id.
pub(super) type Key = (String, String, String);

/// The (type, member) pairs of the entities of types other than `deleted_type` holding `id`.
fn referring(
    held: &HashMap<Key, Json>,
    views: &Views,
    deleted_type: &str,
    id: &str,
) -> Vec<(String, String)> {
    let mut pairs: Vec<(String, String)> = held
        .iter()
        .filter(|((entity_type, _, _), _)| entity_type != deleted_type)
        .flat_map(|((entity_type, _, _), fields)| {
            let identity = views
                .types
                .get(entity_type)
                .map_or("id", |info| info.identity.as_str());
            members_holding(fields, identity, id)
                .into_iter()
                .map(|member| (entity_type.clone(), member))
        })
        .collect();
    pairs.sort();
    pairs.dedup();
    pairs
}

/// The id a delete call's path names.
fn target_of(plan: &WritePlan, path: &str) -> Option<String> {
    let input = WriteInput {
        segments: split_path(path)
            .into_iter()
            .map(CompactString::from)
            .collect(),
        body: None,
        listed: None,
        query: Vec::new(),
    };
    call_target(plan, &input)?.1
}

/// Learns a delete plan's refusals of a named entity from its draft's failed calls.
pub(super) fn learn(
    draft: &mut Draft,
    (calls, views): (&[Call], &Views),
    state: &StateView,
    timeline: &Timeline,
) {
    if draft.plan.effect != Effect::Delete || draft.plan.bulk {
        return;
    }
    let Some(deleted_type) = draft.plan.entity_type().map(str::to_owned) else {
        return;
    };
    let succeeded: Vec<(u64, String)> = draft
        .calls
        .iter()
        .filter_map(|index| {
            let call = &calls[*index];
            Some((call.ordinal, call.key.as_ref()?.2.clone()))
        })
        .collect();
    let mut learned = Vec::new();
    for ordinal in &draft.failed {
        let Some(failed) = timeline.get(*ordinal) else {
            continue;
        };
        if !matches!(failed.status, 400 | 409 | 422 | 424) {
            continue;
        }
        let Some(id) = target_of(&draft.plan, &failed.path) else {
            continue;
        };
        let held = held_through(state, calls, *ordinal, Some(timeline));
        let mut pairs = referring(&held, views, &deleted_type, &id);
        pairs.retain(|pair| {
            succeeded.iter().all(|(at, target)| {
                !referring(
                    &held_through(state, calls, *at, Some(timeline)),
                    views,
                    &deleted_type,
                    target,
                )
                .contains(pair)
            })
        });
        if let [(entity_type, member)] = pairs.as_slice() {
            learned.push(ReferencedModel {
                entity_type: entity_type.clone(),
                member: member.clone(),
                ordinal: *ordinal,
            });
            break;
        }
    }
    draft.plan.referenced = learned;
}

/// The recorded refusal a served delete answers when the live state's entities of a learned
/// type name its held target in the learned member; `None`: no refusal.
pub(super) fn answer(
    service: &StateService,
    plan: &WritePlan,
    input: &WriteInput,
) -> Option<StateAnswer> {
    let refusal = plan.referenced.first()?;
    let entity_type = plan.entity_type()?;
    let (collection, id) = call_target(plan, input)?;
    let id = id?;
    let live = service.read();
    live.entity(entity_type, &collection, &id)?;
    let named = live.entities().any(|entity| {
        entity.entity_type == refusal.entity_type
            && member_at(&entity.fields, &refusal.member)
                .and_then(scalar_text)
                .is_some_and(|text| text == id)
    });
    if !named {
        return None;
    }
    super::conflict::recorded_refusal(service, refusal.ordinal, &[])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pairs_naming_an_id_leave_out_the_deleted_type_and_each_identity() {
        let mut held: HashMap<Key, Json> = HashMap::new();
        let fields = |text: &str| Json::parse(text.as_bytes()).expect("json");
        held.insert(
            ("/tasks".into(), "/tasks".into(), "4".into()),
            fields(r#"{"id": "4", "attributes": {"project_id": 4, "priority": 1}}"#),
        );
        held.insert(
            ("/tasks".into(), "/tasks".into(), "5".into()),
            fields(r#"{"id": "5", "attributes": {"project_id": 2, "priority": 4}}"#),
        );
        held.insert(
            ("/projects".into(), "/projects".into(), "4".into()),
            fields(r#"{"id": "4", "code": "4"}"#),
        );
        let views = Views::default();
        assert_eq!(
            referring(&held, &views, "/projects", "4"),
            [
                ("/tasks".to_owned(), "/attributes/priority".to_owned()),
                ("/tasks".to_owned(), "/attributes/project_id".to_owned())
            ]
        );
    }
}

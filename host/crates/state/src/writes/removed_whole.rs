//! A delete answering the removed entity as held (pass 3, the answer): some applications answer
//! a delete with the record they removed (FeathersJS, json-server v1, Sails). A delete's answer
//! object is otherwise a projection: the members its recorded answer showed, each taken from the
//! served entity ([`super::model::ResponseKind::Projection`]), so a served delete of an entity
//! holding a member the recorded one lacked (an `email` a `PUT` had dropped before the build's
//! delete) answers without it. Where every recorded call whose entity before is known answered,
//! at the answer's place, exactly that entity (the same members with the same values), and at
//! least one did, the answer is the removed entity whole, as the item view showed it just before
//! the delete ([`super::model::ResponseKind::Entity`]); a tombstone (`{"id": …, "deleted":
//! true}`) or an answer expanding a relation the entity holds as an id stays a projection.

use rea_plugin_api::json::Json;

use super::Draft;
use super::model::{Effect, ResponseKind};
use super::observe::Call;

/// A delete's answer kind: [`ResponseKind::Entity`] for a projection whose recorded calls show
/// the removed entity whole (see [`answers_removed_whole`]), else `kind` as it is (and any other
/// plan's).
pub(super) fn delete_kind(
    draft: &Draft,
    calls: &[Call],
    kind: ResponseKind,
    pointer: Option<&str>,
) -> ResponseKind {
    let whole = kind == ResponseKind::Projection
        && draft.plan.effect == Effect::Delete
        && answers_removed_whole(draft, calls, pointer.unwrap_or(""));
    if whole { ResponseKind::Entity } else { kind }
}

/// Whether the draft's recorded calls show the removed entity whole at `pointer` of their
/// answers: every call whose entity before is known and not stale answered exactly it there, and
/// at least one such call was recorded.
fn answers_removed_whole(draft: &Draft, calls: &[Call], pointer: &str) -> bool {
    removed_whole(
        draft
            .calls
            .iter()
            .map(|index| shown_and_held(&calls[*index], pointer)),
    )
}

/// One call's answer object at `pointer` and its entity's fields as held before it (`None`: the
/// call's entity before is unknown, stale or scoped to one member, or its answer shows no object
/// there).
fn shown_and_held<'c>(call: &'c Call, pointer: &str) -> Option<(&'c Json, &'c Json)> {
    if call.stale_before || call.answered_member.is_some() {
        return None;
    }
    let held = &call.before.as_ref()?.fields;
    let shown = call.response.as_ref()?.pointer(pointer)?;
    (matches!(shown, Json::Object(_)) && matches!(held, Json::Object(_))).then_some((shown, held))
}

/// Whether every known (answer, held entity) pair is equal (the same members with the same
/// values, in any order), and at least one is known.
fn removed_whole<'c>(pairs: impl Iterator<Item = Option<(&'c Json, &'c Json)>>) -> bool {
    let mut agreeing = 0usize;
    for (shown, held) in pairs.flatten() {
        if shown != held {
            return false;
        }
        agreeing += 1;
    }
    agreeing > 0
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::parsed_json as json;

    /// Whether the calls answering `answers` of entities held as `held` (`None`: unknown) answer
    /// the removed entity whole.
    fn whole(calls: &[(Option<&str>, &str)]) -> bool {
        let parsed: Vec<(Option<Json>, Json)> = calls
            .iter()
            .map(|(held, answer)| (held.map(json), json(answer)))
            .collect();
        removed_whole(
            parsed
                .iter()
                .map(|(held, answer)| held.as_ref().map(|held| (answer, held))),
        )
    }

    #[test]
    fn a_delete_answering_its_entity_as_held_answers_it_whole() {
        let held = r#"{"id": 6, "name": "Noor", "role": "manager"}"#;
        let answer = r#"{"name": "Noor", "role": "manager", "id": 6}"#;
        assert!(whole(&[(Some(held), answer)]));
        // A call whose entity before is unknown neither agrees nor disagrees.
        assert!(whole(&[(None, r#"{"id": 9}"#), (Some(held), answer)]));
        assert!(!whole(&[(None, answer)]));
        assert!(!whole(&[]));
    }

    #[test]
    fn a_tombstone_an_expanded_relation_or_a_lacking_member_stays_a_projection() {
        let held = r#"{"id": 6, "name": "Noor", "project": 3}"#;
        let tombstone = r#"{"id": 6, "deleted": true}"#;
        assert!(!whole(&[(Some(held), tombstone)]));
        let expanded = r#"{"id": 6, "name": "Noor", "project": {"id": 3, "name": "Ferry"}}"#;
        assert!(!whole(&[(Some(held), expanded)]));
        assert!(!whole(&[(Some(held), r#"{"id": 6, "name": "Noor"}"#)]));
        // One disagreeing call outweighs an agreeing one.
        assert!(!whole(&[(Some(held), held), (Some(held), tombstone)]));
    }
}

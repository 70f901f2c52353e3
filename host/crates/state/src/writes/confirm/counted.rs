//! A create a list read counts without listing it.
//!
//! A list page (a filter's first page, a whole list's) may leave the entity a create made off the
//! page and still show it: its counter (`meta.total_count`, `count`) counts it, or a link to a
//! next page appears for it. Such a read confirms the create's plan when the state's answer to it,
//! with the create applied, agrees with the recording, and the same answer without the created
//! entity does not: the read shows what the create added, as the state's read path renders it
//! (the counterpart of a count falling by one for a delete, `check_count_read`). The entity's
//! values are not shown, so the create's event is not marked shown: a later read showing the
//! entity otherwise still contradicts the plan. Only the latest such entity of each plan is tried,
//! so an agreeing read costs one more answer per plan with a created entity no list read listed.

use super::{Checked, ListedRead, Replay, agrees_with, state_answer};
use crate::service::StateService;

/// Confirms, after an agreeing list read, the plans whose latest created entity of the list's
/// collection the read does not list but shows all the same (see the module's comment).
pub(super) fn confirm_counted_creates(
    replay: &mut Replay<'_>,
    service: &StateService,
    checked: &Checked<'_>,
    listed: &ListedRead<'_>,
) {
    let read = checked.observation.ordinal;
    for (draft, id) in unlisted_creates(replay, service, listed, read) {
        if shown_by_count(service, checked, listed, &id) {
            tracing::debug!(read, draft, id, "a list read counts a created entity");
            let confirmed = &mut replay.verdicts[draft].confirmed_by;
            if !confirmed.contains(&read) {
                confirmed.push(read);
            }
        }
    }
}

/// Per plan the read does not confirm yet, the latest entity it created in the list's collection
/// that the read does not list and the state still holds.
fn unlisted_creates(
    replay: &Replay<'_>,
    service: &StateService,
    listed: &ListedRead<'_>,
    read: u64,
) -> Vec<(usize, String)> {
    let group = (listed.entity_type.to_owned(), listed.collection.clone());
    let Some(pending) = replay.pending.get(&group) else {
        return Vec::new();
    };
    let live = service.read();
    let mut latest: std::collections::BTreeMap<usize, (usize, String)> = Default::default();
    for (id, events) in pending {
        if listed.recorded_ids.contains(id)
            || live
                .entity(listed.entity_type, &listed.collection, id)
                .is_none()
        {
            continue;
        }
        for index in events {
            let event = &replay.events[*index];
            let Some(draft) = event.draft.filter(|draft| {
                event.created && !replay.verdicts[*draft].confirmed_by.contains(&read)
            }) else {
                continue;
            };
            let newer = latest.get(&draft).is_none_or(|(seen, _)| *seen < *index);
            if newer {
                latest.insert(draft, (*index, id.clone()));
            }
        }
    }
    latest
        .into_iter()
        .map(|(draft, (_, id))| (draft, id))
        .collect()
}

/// Whether the read's state answer, which agrees with the recording, stops agreeing once the
/// entity is taken out of the state: the read shows it. The live state is restored after.
fn shown_by_count(
    service: &StateService,
    checked: &Checked<'_>,
    listed: &ListedRead<'_>,
    id: &str,
) -> bool {
    let mut without = service.read().clone();
    if without
        .remove_entity(listed.entity_type, &listed.collection, id)
        .is_none()
    {
        return false;
    }
    let held = std::mem::replace(&mut *service.write(), without);
    let answer = state_answer(service, checked.tool, checked.observation);
    *service.write() = held;
    answer.is_some_and(|answer| !agrees_with(&answer, checked.record, checked.minted))
}

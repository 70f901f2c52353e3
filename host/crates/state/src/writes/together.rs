//! Writes confirmed together (pass 2, after every call is observed): a read after two writes of
//! one entity, with no read between them, shows both writes' effects at once. When the later
//! write's own answer showed the one member of the entity it changed (see
//! [`super::observe`]'s `answered_member`: MLflow's `runs/update` answering `{"run_info": …}`
//! after an unobserved `runs/log-batch` of the same run), the two effects are separable: the
//! later write is learned in that member, and everything else the read shows changed is the
//! earlier write's (which is taken to have left that member as it was: what it did there, the
//! later write overwrote unseen). The earlier call's entity after is then what the later call's
//! scoped `before` holds (the read after both, with the member as it was before either), and the
//! read confirms the two calls together ([`super::confirm`]).
//!
//! Nothing is attributed when the later call's answer showed no member (its effect may lie
//! anywhere: an `{}` answer), when the earlier call was observed already, or when the calls are
//! bulk calls (their entities are observed one by one).

use super::observe::{After, Call};
use crate::derive::entities::collection_key;

/// Gives each call an earlier unobserved write left stale, and that its answered member scoped,
/// the earlier call's entity after; notes the pair (`Call::together_with`) so the read after
/// both confirms them together.
pub(super) fn attribute_separable(calls: &mut [Call]) {
    for later in 0..calls.len() {
        let Some(earlier) = separable_partner(calls, later) else {
            continue;
        };
        let Some(after) = calls[later]
            .before
            .as_ref()
            .map(|before| before.fields.clone())
        else {
            continue;
        };
        calls[earlier].after = After::Present(after);
        calls[later].together_with = Some(calls[earlier].ordinal);
    }
}

/// The earlier call of a call learned in its answered member: the latest call before it of the
/// same entity, when that call left the entity unobserved.
fn separable_partner(calls: &[Call], later: usize) -> Option<usize> {
    let call = &calls[later];
    call.answered_member.as_ref()?;
    if !call.bulk.is_empty() {
        return None;
    }
    let key = entity_key(call)?;
    let earlier = (0..later).rev().find(|index| {
        let between = &calls[*index];
        entity_key(between).as_ref() == Some(&key) || names_in_bulk(between, &key)
    })?;
    let partner = &calls[earlier];
    (partner.bulk.is_empty() && partner.after == After::Unobserved && partner.before.is_some())
        .then_some(earlier)
}

/// Whether a bulk call names an entity of the id among the ones it writes (it may sit between
/// the two calls, and the pair is then not taken as separable).
fn names_in_bulk(call: &Call, key: &(String, String, String)) -> bool {
    call.bulk.iter().any(|target| target.id == key.2)
}

/// A call's entity: type, collection key, id.
fn entity_key(call: &Call) -> Option<(String, String, String)> {
    let (entity_type, collection, id) = call.key.as_ref()?;
    Some((
        entity_type.clone(),
        collection_key(collection).to_owned(),
        id.clone(),
    ))
}

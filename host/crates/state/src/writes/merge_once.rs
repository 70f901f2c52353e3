//! The members an update called once that merges requires (pass 3): none. A `PUT` of an item
//! path whose one recorded call kept every member it did not send (nothing replaced or removed),
//! among them a member a recorded write of its type sent (a field a client sets, not the identity
//! or a stamp the application keeps), modifies in part: that one call's members say what it
//! changed, not what the application requires of every call, so no member is required (as a
//! `PATCH`'s). With several calls (an upsert's creating calls among them), a member every one of
//! them sent stays required (the learned rule of [`super::learn`]); a `PUT` of sent references
//! is partial whatever its calls (`learn.rs`'s `partial_put`). One app shows it:
//! Flask-AppBuilder's person update, recorded once sending `role`, its probe sending `email`
//! alone.

use super::Draft;
use super::apply::sent_members;
use super::model::{BodyModel, Effect, FieldModel};
use super::observe::Call;
use crate::observation::RequestBody;

/// Makes every member of a merging update called once optional (see the module docs).
pub(super) fn unrequire(
    body: &mut BodyModel,
    draft: &Draft,
    calls: &[Call],
    fields: &FieldModel,
    identity: &str,
) {
    if !merges_once(draft, calls, fields) {
        return;
    }
    let Some(entity_type) = draft.plan.entity_type() else {
        return;
    };
    let client_kept = fields
        .kept
        .iter()
        .filter(|member| member.as_str() != identity)
        .any(|member| sent_by_a_write(draft, calls, entity_type, member));
    if client_kept {
        for member in body.members.values_mut() {
            member.required = false;
        }
    }
}

/// Whether the draft is a `PUT` of one entity by its path, whose tool was called once (an upsert's
/// update beside the calls creating an entity is not), that kept members it did not send and
/// replaced or removed none.
fn merges_once(draft: &Draft, calls: &[Call], fields: &FieldModel) -> bool {
    let plan = &draft.plan;
    let [only] = draft.calls.as_slice() else {
        return false;
    };
    let own = calls[*only].draft;
    plan.effect == Effect::Update
        && plan.method.eq_ignore_ascii_case("PUT")
        && !plan.bulk
        && plan.action.is_none()
        && draft.classified.key_member.is_none()
        && calls.iter().filter(|call| call.draft == own).count() == 1
        && !fields.replace
        && fields.removed.is_empty()
        && !fields.kept.is_empty()
}

/// Whether a recorded write of the entity type sent the member (at the plan's body envelope).
fn sent_by_a_write(draft: &Draft, calls: &[Call], entity_type: &str, member: &str) -> bool {
    calls
        .iter()
        .filter(|call| {
            call.key
                .as_ref()
                .is_some_and(|(written, _, _)| written == entity_type)
        })
        .any(|call| {
            let RequestBody::Json(body) = &call.request else {
                return false;
            };
            sent_members(&draft.plan, Some(body)).is_some_and(|sent| sent.contains_key(member))
        })
}

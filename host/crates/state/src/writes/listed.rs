//! A served update or delete of a document the state holds only as a row of its folder's
//! listing: a file the build's listing of its folder showed (`notes/ideas.txt` in the `notes`
//! listing's `content`) but no read of its own, so the state holds no entity for it. The
//! application deletes or overwrites it like any other file; the state takes the row as the
//! entity before the write (`WriteInput::listed`), so a delete removes it and answers the plan's
//! recorded answer, and an overwrite updates it (the members the write does not set kept as the
//! row shows them, its creation stamp say) instead of creating a new file or answering the
//! missing entity's answer. Its collection is written either way, so the folder's listing and
//! the row's entry answer not modelled from then on, never the stale row.
//!
//! A row speaks only for the derived state (and its resets), never a loaded one, and only for a
//! key no write since the reset created, changed or removed ([`LiveState::listed_row_open`]),
//! and it must name the entity the call names by the type's identity member.

use std::collections::BTreeMap;

use rea_plugin_api::json::Json;

use super::apply::{WriteInput, call_target};
use super::model::{Effect, WritePlan};
use crate::derive::entities::collection_key;
use crate::model::Entity;
use crate::render::scalar_text;
use crate::service::StateService;
use crate::store::LiveState;

/// The entity a listing row shows for the path an update or delete names, when that row still
/// speaks (see the module docs).
pub(super) fn listed_row(
    service: &StateService,
    plan: &WritePlan,
    input: &WriteInput,
    live: &LiveState,
) -> Option<Entity> {
    if plan.bulk || !matches!(plan.effect, Effect::Update | Effect::Delete) {
        return None;
    }
    let target = plan.target.as_ref()?;
    let entity_type = target.entity_type.clone()?;
    let identity = target.identity_field.as_deref().unwrap_or("id");
    let (collection, Some(id)) = call_target(plan, input)? else {
        return None;
    };
    let key = (
        entity_type.clone(),
        collection_key(&collection).to_owned(),
        id.clone(),
    );
    if !live.listed_row_open(&key) {
        return None;
    }
    let path = format!("/{}", input.segments.join("/"));
    let row = service
        .derived()
        .folder_entries
        .iter()
        .find_map(|entries| entries.listed(&path))?;
    let named = matches!(row, Json::Object(_))
        && row.get(identity).and_then(scalar_text).as_deref() == Some(id.as_str());
    named.then(|| Entity {
        entity_type,
        collection,
        id,
        fields: row.clone(),
        view_fields: BTreeMap::new(),
        record_ordinals: Vec::new(),
    })
}

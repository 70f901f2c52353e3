//! Pass 1 for action routes: an untyped `POST` whose path names an entity in a parameter segment
//! followed by verb segments (`/{table}/{pk}/-/update`, `/{id}/tell`) acts on that entity when
//! its calls show it: after each successful call, a read of a type's item view (before the next
//! write) names the entity the path names, and the call's answer shows no other entity of that
//! type (a `POST` creating a child, `/posts/{id}/comments`, answers the child it made). Otherwise
//! the route stays a `POST` its calls must link as a create.

use rea_manifest::Manifest;

use super::observe::find_entity;
use super::target::{self, Classified, TargetKind};
use super::{Scope, Views};
use crate::observation::{Observation, Timeline};
use crate::render::scalar_text;

/// The classification of a write tool, an untyped `POST` of an action route resolved by its
/// calls (see the module docs); anything else as classified.
pub(crate) fn resolve(
    manifest: &Manifest,
    timeline: &Timeline,
    views: &Views,
    index: usize,
    classified: Classified,
) -> Classified {
    let template = &manifest.tools[index].path_template;
    if classified.kind != TargetKind::Unlinked {
        return classified;
    }
    let Some(action) = target::action_route(template) else {
        return classified;
    };
    let TargetKind::Linked {
        action_at: Some(at),
        ..
    } = action.kind
    else {
        return classified;
    };
    let mut calls = timeline
        .all(index)
        .filter(|call| call.is_success())
        .peekable();
    if calls.peek().is_none() {
        return classified;
    }
    let acts = calls.all(|call| {
        let Some(value) = target::segment_value(template, &call.segments, at) else {
            return false;
        };
        acts_on(manifest, timeline, views, call, &value)
    });
    if acts { action } else { classified }
}

/// Whether a read after a call (before the next write) names the entity `value` names, and the
/// call's answer shows no other entity of that read's type.
fn acts_on(
    manifest: &Manifest,
    timeline: &Timeline,
    views: &Views,
    call: &Observation,
    value: &str,
) -> bool {
    let after = timeline.ordered.iter().skip(call.position + 1);
    let reads = after
        .filter_map(|ordinal| timeline.get(*ordinal))
        .take_while(|observation| !timeline.is_write(manifest, observation.tool));
    for read in reads {
        let Some(Scope::Item(item)) = views.scopes.get(&read.tool) else {
            continue;
        };
        let Some(info) = views.types.get(&item.entity_type) else {
            continue;
        };
        let Some((_, id)) = item.named(&info.identity, read, false) else {
            continue;
        };
        if id != value {
            continue;
        }
        let other = call.body.as_ref().and_then(|answer| {
            let (_, shown) = find_entity(answer, &info.identity, None, &item.entity_pointer)?;
            crate::render::identity_value(shown, &info.identity).and_then(scalar_text)
        });
        return other.is_none_or(|shown| shown == value);
    }
    false
}

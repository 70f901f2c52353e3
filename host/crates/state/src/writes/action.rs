//! Pass 1 for action routes: an untyped `POST` a route-form stage recognises as an action route
//! (`[manifest] route_forms`, asked through `actions`: the built-in `listed-id` names the
//! parameter segment followed by verb segments, `/{table}/{pk}/-/update`, `/{id}/tell`) acts on
//! the entity that segment names when its calls show it: after each successful call, a read of a
//! type's item view (before the next write) names the entity the path names, and the call's
//! answer shows no other entity of that type (a `POST` creating a child, `/posts/{id}/comments`,
//! answers the child it made). Otherwise the route stays a `POST` its calls must link as a
//! create. Which routes are action routes, and what their verbs do, varies by application, so a
//! stage says it; that the calls confirm it is the host's.

use rea_manifest::Manifest;
use rea_manifest::segments::split_path;
use rea_plugin_api::contracts::SCHEMA_VERSION;
use rea_plugin_api::contracts::route::{ActionEffect, ActionRoute, ActionRouteRequest, WriteRoute};

use super::model::Effect;
use super::observe::find_entity;
use super::target::{self, Classified, TargetKind};
use super::{Scope, Views};
use crate::observation::{Observation, Timeline};
use crate::render::scalar_text;
use crate::rules::RuleSet;

/// The route-form stages' action routes of the write tools `writes` (tool index and
/// classification), one each in order: asked only of the untyped `POST`s (`Unlinked`), as the
/// classification an action route gives (an update, or a delete, of the entity a segment names).
pub(crate) fn propose(
    manifest: &Manifest,
    writes: &[(usize, Classified)],
    rules: &RuleSet,
) -> Vec<Option<Classified>> {
    let asked: Vec<usize> = writes
        .iter()
        .enumerate()
        .filter(|(_, (_, classified))| classified.kind == TargetKind::Unlinked)
        .map(|(at, _)| at)
        .collect();
    let routes = asked
        .iter()
        .map(|at| write_route(manifest, writes[*at].0))
        .collect();
    let request = ActionRouteRequest {
        routes,
        schema_version: SCHEMA_VERSION,
    };
    let mut proposed: Vec<Option<Classified>> = vec![None; writes.len()];
    for (at, action) in asked.into_iter().zip(rules.propose_action_routes(&request)) {
        proposed[at] = action.as_ref().map(classified);
    }
    proposed
}

/// A write tool's route as a route form is asked about it.
fn write_route(manifest: &Manifest, index: usize) -> WriteRoute {
    let tool = &manifest.tools[index];
    let segments: Vec<String> = split_path(&tool.path_template)
        .into_iter()
        .map(str::to_owned)
        .collect();
    let parameters = segments
        .iter()
        .map(|segment| rea_manifest::segments::template_affixes(segment).is_some())
        .collect();
    WriteRoute {
        method: tool.method.clone(),
        segments,
        parameters,
    }
}

/// The classification a proposed action route gives: an update of the entity its segment names
/// (an action named by the stage, or a plain update), or a delete of it, linked by the reads
/// after its calls.
fn classified(action: &ActionRoute) -> Classified {
    let delete = action.effect == ActionEffect::Delete;
    Classified {
        effect: if delete {
            Effect::Delete
        } else {
            Effect::Update
        },
        action: action.action.clone().filter(|_| !delete),
        bulk: false,
        kind: TargetKind::Linked {
            literal: false,
            action_at: Some(action.segment),
        },
        key_member: None,
    }
}

/// The classification of a write tool: a proposed action route when its calls show it acts on
/// the entity its path names (see the module docs); anything else as classified.
pub(crate) fn resolve(
    manifest: &Manifest,
    timeline: &Timeline,
    views: &Views,
    index: usize,
    (classified, proposed): (Classified, Option<Classified>),
) -> Classified {
    let template = &manifest.tools[index].path_template;
    let Some(action) = proposed else {
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

/// A `PUT` or `DELETE` of an item path plus a literal and a parameter segment (`/{name}/-rev/{rev}`)
/// whose every successful call names, in that last segment, the value a top-level member of the
/// entity held as the latest read of it before the call showed (its revision, `_rev`): an update
/// or delete of the entity the item segment names, as an action route would be, and confirmed
/// as one ([`resolve`]). The revision is a token the call names; the capture shows no call naming
/// a stale one, so what that answers is not known and it is not checked.
pub(crate) fn revision_route(
    manifest: &Manifest,
    timeline: &Timeline,
    views: &Views,
    index: usize,
    classified: &Classified,
) -> Option<Classified> {
    let unplaced = TargetKind::Linked {
        literal: false,
        action_at: None,
    };
    let tool = &manifest.tools[index];
    let written = split_path(&tool.path_template);
    let is_parameter = |at: usize| {
        written
            .get(at)
            .is_some_and(|segment| rea_manifest::segments::template_affixes(segment).is_some())
    };
    let at = written.len().checked_sub(3)?;
    if classified.kind != unplaced || !is_parameter(at) || is_parameter(at + 1) {
        return None;
    }
    let mut calls = timeline
        .all(index)
        .filter(|call| call.is_success())
        .peekable();
    calls.peek()?;
    let named = |call: &Observation, segment| {
        target::segment_value(&tool.path_template, &call.segments, segment)
    };
    calls
        .all(|call| {
            let (Some(id), Some(revision)) = (named(call, at), named(call, at + 2)) else {
                return false;
            };
            held_before(timeline, views, call, &id)
                .is_some_and(|entity| holds_scalar(entity, &revision))
        })
        .then(|| Classified {
            kind: TargetKind::Linked {
                literal: false,
                action_at: Some(at),
            },
            ..classified.clone()
        })
}

/// The entity `id` as the latest successful item read before `call` showed it.
fn held_before<'a>(
    timeline: &'a Timeline,
    views: &Views,
    call: &Observation,
    id: &str,
) -> Option<&'a rea_plugin_api::json::Json> {
    timeline.ordered[..call.position]
        .iter()
        .rev()
        .filter_map(|ordinal| timeline.get(*ordinal))
        .filter(|read| read.is_success())
        .find_map(|read| {
            let Some(Scope::Item(item)) = views.scopes.get(&read.tool) else {
                return None;
            };
            let info = views.types.get(&item.entity_type)?;
            let (_, named) = item.named(&info.identity, read, false)?;
            (named == id)
                .then(|| read.body.as_ref()?.pointer(&item.entity_pointer))
                .flatten()
        })
}

/// Whether a top-level member of an entity holds `value` as a scalar.
fn holds_scalar(entity: &rea_plugin_api::json::Json, value: &str) -> bool {
    entity.as_object().is_some_and(|members| {
        members
            .iter()
            .any(|(_, member)| scalar_text(member).as_deref() == Some(value))
    })
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
            crate::render::identity_text(shown, &info.identity)
        });
        return other.is_none_or(|shown| shown == value);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proposed_action_route_is_an_update_or_delete_of_the_segment_it_names() {
        let action = |effect, action: Option<&str>| ActionRoute {
            route: 0,
            segment: 2,
            effect,
            action: action.map(str::to_owned),
        };
        let update = classified(&action(ActionEffect::Update, None));
        assert_eq!((update.effect, update.action), (Effect::Update, None));
        assert_eq!(
            update.kind,
            TargetKind::Linked {
                literal: false,
                action_at: Some(2)
            }
        );
        let tell = classified(&action(ActionEffect::Update, Some("tell")));
        assert_eq!(tell.action.as_deref(), Some("tell"));
        let delete = classified(&action(ActionEffect::Delete, Some("delete")));
        assert_eq!((delete.effect, delete.action), (Effect::Delete, None));
        assert!(!delete.bulk && delete.key_member.is_none());
    }
}

//! Creates below a parent (not a pass): a create tool whose route is a served create's route with
//! one more parameter segment naming the parent the entity is created in (`POST
//! /api/items/{parent}` beside `POST /api/items`), withheld for its own calls, takes the served
//! create's plan for the calls that plan accepts, placing the entity in the collection its path
//! names. What the entity is does not depend on where it is created, but its own path does: a
//! member the served plan stores as a constant equal to the created identity, which every held
//! entity of the parent route's type spells as its parent's path, `/`, and its identity
//! (`{"name": "todo.md", "path": "notes/todo.md"}` in `notes`), is spelled so
//! (`FieldModel::below_parent`); a call naming a parent the state does not hold is refused
//! (`not_found`), as the source's type holds no such entity. The plan is served inferred from its source (`inferred_from`),
//! confirmed by the reads that confirmed the source, and cites no recorded call of its own.

use rea_manifest::segments::split_path;

use super::model::{BelowParent, Effect, WritePlan};
use crate::model::{Entity, StateView};
use crate::observation::decoded;

/// Replaces each withheld create plan below a served create's route by that plan, when the
/// parent's path spells a member of every held entity of its type (see the module docs).
pub(crate) fn borrow(state: &StateView, plans: &mut [WritePlan]) {
    let sources: Vec<WritePlan> = plans
        .iter()
        .filter(|plan| plan.effect == Effect::Create && plan.served && !plan.bulk)
        .cloned()
        .collect();
    for plan in plans.iter_mut() {
        if plan.effect != Effect::Create || plan.served || plan.bulk {
            continue;
        }
        let borrowed = sources
            .iter()
            .find_map(|source| borrowed_plan(state, source, plan));
        if let Some(borrowed) = borrowed {
            *plan = borrowed;
        }
    }
}

/// The source's plan as the create below it serves it, when the routes, types and spelled
/// members fit.
fn borrowed_plan(state: &StateView, source: &WritePlan, below: &WritePlan) -> Option<WritePlan> {
    let own = split_path(&source.path_template);
    let theirs = split_path(&below.path_template);
    let (last, parent_route) = theirs.split_last()?;
    if source.method != below.method || parent_route != own.as_slice() || !last.starts_with('{') {
        return None;
    }
    let (from, to) = (source.target.as_ref()?, below.target.as_ref()?);
    let parent_at = from.collection_segments;
    if to.collection_segments != parent_at + 1
        || to.identity_field.is_none()
        || to.identity_field != from.identity_field
    {
        return None;
    }
    let identity = to.identity_field.as_deref()?;
    let entity_type = to.entity_type.as_deref()?;
    let constants = &source.fields.as_ref()?.constants;
    let created = constants.get(identity)?.as_str()?;
    let held: Vec<&Entity> = state
        .entities
        .iter()
        .map(|entity| &**entity)
        .filter(|entity| entity.entity_type == entity_type)
        .collect();
    let spelled: Vec<String> = constants
        .iter()
        .filter(|(member, value)| *member != identity && value.as_str() == Some(created))
        .filter(|(member, _)| spells_parent_path(&held, member, parent_at))
        .map(|(member, _)| member.to_owned())
        .collect();
    if spelled.is_empty() {
        return None;
    }
    let mut plan = source.clone();
    plan.tool = below.tool.clone();
    plan.path_template = below.path_template.clone();
    plan.target = below.target.clone();
    plan.record_ordinals = Vec::new();
    // The composed document is at the source's collection's item path (see `super::composed`).
    plan.composed = None;
    plan.inferred_from = Some(source.tool.clone());
    let parent_type = from.entity_type.clone()?;
    let fields = plan.fields.get_or_insert_with(Default::default);
    fields.below_parent = Some(BelowParent {
        parent_at,
        parent_type,
        members: spelled,
    });
    Some(plan)
}

/// Whether every held entity spells `member` as its parent's path (its collection's segments
/// from `parent_at`, decoded), `/`, and its identity; and at least one is held.
fn spells_parent_path(held: &[&Entity], member: &str, parent_at: usize) -> bool {
    !held.is_empty()
        && held.iter().all(|entity| {
            let parent = parent_path(&split_path(&entity.collection), parent_at);
            let expected = format!("{parent}/{}", entity.id);
            !parent.is_empty()
                && entity.fields.get(member).and_then(|v| v.as_str()) == Some(&expected)
        })
}

/// A parent's path: the segments from `parent_at` on, decoded, joined by `/`.
pub(super) fn parent_path<S: AsRef<str>>(segments: &[S], parent_at: usize) -> String {
    segments
        .iter()
        .skip(parent_at)
        .map(|segment| decoded(segment.as_ref()))
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::json::Json;

    fn entity(collection: &str, id: &str, fields: &str) -> Entity {
        Entity {
            entity_type: "/items/{parent}".to_owned(),
            collection: collection.to_owned(),
            id: id.to_owned(),
            fields: Json::parse(fields.as_bytes()).expect("JSON"),
            view_fields: Default::default(),
            record_ordinals: Vec::new(),
        }
    }

    #[test]
    fn a_parent_path_is_the_collections_segments_from_the_parent_on_decoded() {
        assert_eq!(parent_path(&["api", "items", "notes"], 2), "notes");
        assert_eq!(parent_path(&["api", "items", "my%20notes"], 2), "my notes");
        assert_eq!(parent_path(&["api", "items", "a", "b"], 2), "a/b");
        assert_eq!(parent_path(&["api", "items"], 2), "");
    }

    #[test]
    fn a_member_spells_the_parent_path_when_every_held_entity_does() {
        let todo = entity(
            "/api/items/notes",
            "todo.md",
            r#"{"path": "notes/todo.md"}"#,
        );
        let q4 = entity(
            "/api/items/reports",
            "q4",
            r#"{"path": "reports/q4", "n": "q4"}"#,
        );
        assert!(spells_parent_path(&[&todo, &q4], "path", 2));
        // A member one entity spells otherwise, or lacks; no entity held; the bare identity.
        let other = entity("/api/items/notes", "x.md", r#"{"path": "elsewhere/x.md"}"#);
        assert!(!spells_parent_path(&[&todo, &other], "path", 2));
        assert!(!spells_parent_path(&[&todo, &q4], "n", 2));
        assert!(!spells_parent_path(&[], "path", 2));
        let root = entity("/api/items", "top", r#"{"path": "top"}"#);
        assert!(!spells_parent_path(&[&root], "path", 2));
    }
}

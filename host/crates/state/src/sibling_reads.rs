//! Sibling reads (opt-in with sibling transfer): an inferred read below a sibling collection's
//! items (`rea_manifest::sibling_reads`: `GET /people/{id}/relationships/tasks` beside the
//! recorded `GET /projects/{id}/relationships/tasks`) takes the relationship linkage routes
//! ([`crate::linkage_routes`]) of the recorded reads its template is a sibling of (equal but for
//! one collection literal: the tasks' and the projects' routes for the people's), so a call
//! answers the linkage the live state holds for the sibling's entity, in the recorded envelope of
//! a route whose recorded linkage is of the same kind (a to-many array, or a to-one identifier,
//! see [`LinkageRoute::same_kind`]) with the members it mints per call. The
//! routes are lent only where the sibling's shape agrees: some held entity of the sibling's
//! collection holds a linkage the compound documents' rule reads (`relationships.<name>.data`, or
//! a keyed one), of the relationship the read's last segment names where it is a literal (the
//! projects hold no `project`: `/projects/{id}/relationships/project` is lent nothing). Its view is a recorded view citing nothing (reason `sibling-read`): a call the
//! route cannot answer (a relationship the entity does not hold, an entity the state lacks) is
//! refused as not modelled, never another path's recording. A read no route is lent to keeps no
//! view, so the state catalog does not offer it.

use rea_manifest::Manifest;
use rea_manifest::segments::split_path;

use crate::compound::CompoundDocuments;
use crate::linkage_routes::LinkageRoute;
use crate::model::{Entity, ReadView, StateView, ViewDetail};

/// The reason of an inferred sibling read's view: it answers what its lent route answers.
pub const SIBLING_READ: &str = "sibling-read";

/// Lends each inferred sibling read its source's linkage route where the sibling's entities hold
/// linkage, with a recorded view (see the module docs).
pub(crate) fn attach(manifest: &Manifest, state: &mut StateView) {
    let Some(rule) = state.compound.clone() else {
        return;
    };
    for tool in &manifest.tools {
        if tool.inferred_from.is_none() || !tool.method.eq_ignore_ascii_case("GET") {
            continue;
        }
        let lent: Vec<LinkageRoute> = state
            .linkage_routes
            .iter()
            .filter(|route| route.inferred_from.is_none())
            .filter(|route| {
                manifest.tool(&route.tool).is_some_and(|source| {
                    sibling_templates(&source.path_template, &tool.path_template)
                        .is_some_and(|at| at < route.collection_segments)
                })
            })
            .map(|route| LinkageRoute {
                tool: tool.name.clone(),
                inferred_from: Some(route.tool.clone()),
                ..route.clone()
            })
            .collect();
        let Some(first) = lent.first() else {
            continue;
        };
        let segments = split_path(&tool.path_template);
        let Some(collection) = segments.get(..first.collection_segments) else {
            continue;
        };
        let held: Vec<&Entity> = state.entities.iter().map(|entity| &**entity).collect();
        // The relationship a literal last segment names (`…/relationships/project`).
        let named = segments
            .last()
            .filter(|segment| rea_manifest::segments::template_affixes(segment).is_none());
        if !holds_linkage(
            &rule,
            (&collection.join("/"), named.map(|name| &**name)),
            &held,
        ) {
            continue;
        }
        state.linkage_routes.extend(lent);
        state.views.retain(|view| view.tool != tool.name);
        state.views.push(ReadView {
            tool: tool.name.clone(),
            method: tool.method.clone(),
            path_template: tool.path_template.clone(),
            detail: ViewDetail::Recorded {
                reason: SIBLING_READ.to_owned(),
            },
        });
    }
}

/// The one literal segment two templates differ at, when they are otherwise equal (parameters at
/// the same places, whatever their rules).
fn sibling_templates(source: &str, inferred: &str) -> Option<usize> {
    let (left, right) = (split_path(source), split_path(inferred));
    let parameter = |segment: &str| segment.starts_with('{') && segment.ends_with('}');
    if left.len() != right.len() {
        return None;
    }
    let mut differing = None;
    for (index, (a, b)) in left.iter().zip(&right).enumerate() {
        match (parameter(a), parameter(b)) {
            (true, true) => {}
            (false, false) if a == b => {}
            (false, false) if differing.is_none() => differing = Some(index),
            _ => return None,
        }
    }
    differing
}

/// Whether some held entity of the collection holds a relationship whose linkage the rule reads
/// (the one `named`, where the route names one).
fn holds_linkage(
    rule: &CompoundDocuments,
    (collection, named): (&str, Option<&str>),
    held: &[&Entity],
) -> bool {
    held.iter()
        .filter(|entity| entity.collection.trim_matches('/') == collection)
        .any(|entity| {
            let Some(fields) = entity.fields.as_object() else {
                return false;
            };
            let Some(relationships) = fields.get(&rule.relationships).and_then(|v| v.as_object())
            else {
                return false;
            };
            relationships
                .iter()
                .filter(|(name, _)| named.is_none_or(|named| named == *name))
                .any(|(name, _)| rule.linkage(fields, name, held).is_some())
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::entity;

    fn rule() -> CompoundDocuments {
        crate::test_support::json_api_compound()
    }

    #[test]
    fn sibling_templates_differ_at_one_literal() {
        let at = |a: &str, b: &str| sibling_templates(a, b);
        assert_eq!(
            at("/projects/{numeric}/{t}/{t}", "/people/{token}/{t}/{t}"),
            Some(0)
        );
        assert_eq!(at("/a/projects/{n}", "/a/people/{n}"), Some(1));
        assert_eq!(at("/projects/{n}", "/projects/{n}"), None, "the same route");
        assert_eq!(at("/projects/{n}/x", "/people/{n}/y"), None, "two literals");
        assert_eq!(at("/projects/{n}", "/people/{n}/x"), None);
        assert_eq!(at("/projects/{n}", "/people/n"), None);
    }

    #[test]
    fn only_a_collection_whose_entities_hold_linkage_takes_the_route() {
        let held = [
            entity(
                "/people",
                "3",
                r#"{"id": "3", "relationships": {"tasks": {"data": [{"type": "tasks", "id": "5"}]}}}"#,
            ),
            entity(
                "/tags",
                "1",
                r#"{"id": "1", "relationships": {"posts": {"links": {"related": "/tags/1/posts"}}}}"#,
            ),
            entity("/notes", "1", r#"{"id": "1", "text": "a"}"#),
        ];
        let held: Vec<&Entity> = held.iter().collect();
        let holds = |collection, named| holds_linkage(&rule(), (collection, named), &held);
        assert!(holds("people", None));
        assert!(!holds("tags", None), "links, no linkage");
        assert!(!holds("notes", None));
        assert!(!holds("projects", None), "none held");
        // A route naming its relationship takes only a collection holding that one.
        assert!(holds("people", Some("tasks")));
        assert!(
            !holds("people", Some("project")),
            "the people hold no project"
        );
    }
}

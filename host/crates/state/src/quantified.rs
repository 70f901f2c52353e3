//! Filters quantified over a one-to-many relation (`filter[tasks][_some][assignee][_eq]=chen`
//! on the projects list: the projects some task of which is assigned to `chen`): a filter on a
//! dotted field through a member the list joins to many related entities (a learned
//! [`crate::relations::Link::Children`] or [`crate::relations::Link::Ids`] join, see
//! [`crate::joins`]) holds when one of those entities holds it on the rest of the path, none
//! when the member names none.
//!
//! A call's query objects carry the related entities under the member's joined name (see
//! [`crate::query::JOINED`]) only for the members the call's filters reach through, each as
//! the live state holds them ([`join_many`]); evaluation reads them through
//! [`related_items`]. The grammar offers such a filter only where the application's recorded
//! filters reach through relations (see `crate::derive::query_grammar::many_joined_fields`).

use std::collections::BTreeSet;

use rea_plugin_api::json::{Json, Object};

use crate::model::{ListView, QueryModel, QueryRole};
use crate::query::joined_member;
use crate::relations::Link;
use crate::store::LiveState;

/// Sets over each query object the related entities of every one-to-many join of the list
/// that a filter of the call reaches through (`tasks` for a filter on `tasks.assignee`), as
/// the live state holds them; a join whose related entities are not all held sets nothing
/// (the filter then holds for no object).
pub fn join_many(
    live: &LiveState,
    list: &ListView,
    model: &QueryModel,
    pairs: &[(String, String)],
    objects: &mut [Object],
) {
    let reached: BTreeSet<&str> = pairs
        .iter()
        .filter_map(|(name, _)| match model.role(name) {
            Some(QueryRole::Filter { field, .. }) => {
                field.split_once('.').map(|(member, _)| member)
            }
            _ => None,
        })
        .collect();
    if reached.is_empty() {
        return;
    }
    let joins = list.joins.iter().filter(|join| {
        matches!(join.link, Link::Children { .. } | Link::Ids)
            && !join.enclosing
            && reached.contains(join.member.as_str())
    });
    for join in joins {
        for object in objects.iter_mut() {
            if matches!(object.get(&join.member), Some(Json::Object(_))) {
                continue;
            }
            if let Some(related @ Json::Array(_)) = join.value_for(object, &join.collection, live) {
                object.insert(joined_member(&join.member), related);
            }
        }
    }
}

/// The related entities a dotted field reaches through a member joined to many (see
/// [`join_many`]), with the rest of the field each is read by; `None` where the object holds
/// no such join for the field's first member (the field is then read as it is).
pub fn related_items<'a>(object: &'a Object, field: &'a str) -> Option<(Vec<&'a Object>, &'a str)> {
    let (member, rest) = field.split_once('.')?;
    if matches!(object.get(member), Some(Json::Object(_))) {
        return None;
    }
    let Json::Array(items) = object.get(&joined_member(member))? else {
        return None;
    };
    Some((items.iter().filter_map(Json::as_object).collect(), rest))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::parsed_json;

    fn object(text: &str) -> Object {
        parsed_json(text).as_object().cloned().expect("an object")
    }

    #[test]
    fn a_field_through_a_joined_array_reads_each_related_entity() {
        let mut project = object(r#"{"id": 3, "tasks": [4, 8]}"#);
        project.insert(
            joined_member("tasks"),
            parsed_json(r#"[{"id": 4, "assignee": "chen"}, {"id": 8, "assignee": null}]"#),
        );
        let (items, rest) = related_items(&project, "tasks.assignee").expect("joined");
        assert_eq!(rest, "assignee");
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].get("assignee"), Some(&parsed_json(r#""chen""#)));
        // A member with no joined array, or a field of the object itself, is read as it is.
        assert!(related_items(&project, "owner.name").is_none());
        assert!(related_items(&project, "id").is_none());
    }

    #[test]
    fn a_quantified_filter_keeps_the_objects_one_related_entity_of_which_holds_it() {
        let project = |id: u32, assignees: &str| {
            let mut project = object(&format!(r#"{{"id": {id}}}"#));
            project.insert(joined_member("tasks"), parsed_json(assignees));
            project
        };
        let projects = [
            project(1, r#"[{"assignee": "ana"}, {"assignee": null}]"#),
            project(3, r#"[{"assignee": "chen"}]"#),
            project(4, r#"[{"assignee": "bo"}, {"assignee": "chen"}]"#),
            project(5, "[]"),
        ];
        let model = QueryModel::of_roles(&[(
            "filter[tasks][_some][assignee][_eq]",
            QueryRole::filter("tasks.assignee", "eq"),
        )]);
        let selected = |value: &str| {
            let arguments = [(
                "filter[tasks][_some][assignee][_eq]".to_owned(),
                value.to_owned(),
            )];
            let candidates: Vec<&Object> = projects.iter().collect();
            crate::query::evaluate(&model, &arguments, &candidates)
                .expect("evaluated")
                .members
        };
        assert_eq!(selected("chen"), [1, 2]);
        assert_eq!(selected("ana"), [0]);
        // A project with no task holds no quantified filter.
        assert!(selected("nobody").is_empty());
    }

    #[test]
    fn a_member_holding_an_object_is_no_quantified_join() {
        let mut task = object(r#"{"id": 1, "project": {"id": 2, "code": "MOB"}}"#);
        task.insert(joined_member("project"), parsed_json(r#"[{"code": "X"}]"#));
        assert!(related_items(&task, "project.code").is_none());
    }
}

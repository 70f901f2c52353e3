//! Item routes reached with the other trailing-slash spelling (issue 12): where the recording
//! shows a collection answered in both spellings with answers of one shape (safrs's `GET
//! /api/tasks` and, through its `links.next`, `GET /api/tasks/`), the application does not tell a
//! path there from the path with a trailing slash, so each recorded item route of that collection
//! (`/api/tasks/{numeric}`, any method) is `trailing_slash_optional`: the comparer routes
//! `/api/tasks/4/` to it, and it answers as the item tool (a call names the tool and its
//! arguments, never a spelling). An item route recorded in both spellings is two tools already
//! and is left alone.
//!
//! One recorded application shows it: safrs. Every other corpus application spells its routes
//! one way (Django REST framework, django-tastypie, PiccoloCRUD, drf-jsonapi and FlexGet with the
//! slash, the rest without), so nothing is marked there (`tests/it/manifest_slash_spellings.rs`).

use std::collections::BTreeSet;

use crate::manifest::{BodyShape, ManifestTool};

/// A template's other spelling: the trailing slash removed, or one added.
fn other_spelling(template: &str) -> String {
    match template.strip_suffix('/') {
        Some(bare) if !bare.is_empty() => bare.to_owned(),
        _ => format!("{template}/"),
    }
}

/// The top-level member names and kinds of a body shape.
fn shape_names(shape: Option<&BodyShape>) -> Option<(&[String], Vec<&String>, Vec<&String>)> {
    let shape = shape?;
    Some((
        &shape.kinds,
        shape.members.keys().collect(),
        shape.item_members.keys().collect(),
    ))
}

/// The collections (templates without the trailing slash) a recorded tool answered in both
/// spellings with answers of one shape.
fn collections_in_both_spellings(tools: &[ManifestTool]) -> BTreeSet<&str> {
    let recorded: Vec<&ManifestTool> = tools
        .iter()
        .filter(|tool| tool.inferred_from.is_none())
        .collect();
    let mut collections = BTreeSet::new();
    for slashed in &recorded {
        let Some(bare) = slashed.path_template.strip_suffix('/') else {
            continue;
        };
        let other = recorded.iter().find(|tool| {
            tool.method == slashed.method
                && tool.path_template == bare
                && !bare.ends_with('}')
                && !bare.is_empty()
        });
        let same_shape = other.is_some_and(|other| {
            let shape = shape_names(slashed.response_body.as_ref());
            shape.is_some() && shape == shape_names(other.response_body.as_ref())
        });
        if same_shape {
            collections.insert(bare);
        }
    }
    collections
}

/// The collection template an item template sits in: the template without its trailing slash
/// and its last segment, when that segment is a whole-segment parameter.
fn item_collection(tool: &ManifestTool) -> Option<&str> {
    let bare = tool
        .path_template
        .strip_suffix('/')
        .unwrap_or(&tool.path_template);
    let (collection, last) = bare.rsplit_once('/')?;
    let whole_parameter = last.starts_with('{') && last.ends_with('}') && !last[1..].contains('{');
    whole_parameter.then_some(collection)
}

/// Marks `trailing_slash_optional` on the recorded item routes of the collections the recording
/// answered in both spellings (see the module docs).
pub(crate) fn mark_trailing_slash_optional(tools: &mut [ManifestTool]) {
    let collections = collections_in_both_spellings(tools);
    if collections.is_empty() {
        return;
    }
    let spelled: BTreeSet<(String, String)> = tools
        .iter()
        .map(|tool| (tool.method.clone(), tool.path_template.clone()))
        .collect();
    let marked: Vec<usize> = tools
        .iter()
        .enumerate()
        .filter(|(_, tool)| tool.inferred_from.is_none())
        .filter(|(_, tool)| {
            item_collection(tool).is_some_and(|collection| collections.contains(collection))
        })
        .filter(|(_, tool)| {
            let other = (tool.method.clone(), other_spelling(&tool.path_template));
            !spelled.contains(&other)
        })
        .map(|(index, _)| index)
        .collect();
    for index in marked {
        tools[index].trailing_slash_optional = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::templated_tool;

    fn tool(method: &str, template: &str, members: &[&str]) -> ManifestTool {
        let mut tool = templated_tool(method, template, template, "q", &[0]);
        tool.response_body = Some(BodyShape {
            kinds: vec!["json-object".into()],
            members: members
                .iter()
                .map(|member| ((*member).to_owned(), vec!["array".to_owned()]))
                .collect(),
            ..BodyShape::default()
        });
        tool
    }

    fn marked(tools: &mut [ManifestTool]) -> Vec<String> {
        mark_trailing_slash_optional(tools);
        tools
            .iter()
            .filter(|tool| tool.trailing_slash_optional)
            .map(|tool| format!("{} {}", tool.method, tool.path_template))
            .collect()
    }

    #[test]
    fn items_of_a_collection_answered_in_both_spellings_take_the_other_spelling() {
        let mut tools = vec![
            tool("GET", "/api/tasks", &["data", "links"]),
            tool("GET", "/api/tasks/", &["data", "links"]),
            tool("GET", "/api/tasks/{numeric}", &["data"]),
            tool("PATCH", "/api/tasks/{numeric}", &["data"]),
            tool("GET", "/api/tasks/{numeric}/{folder-tree}", &["data"]),
            tool("GET", "/api/users/{numeric}", &["data"]),
        ];
        assert_eq!(
            marked(&mut tools),
            ["GET /api/tasks/{numeric}", "PATCH /api/tasks/{numeric}"]
        );
    }

    #[test]
    fn one_spelling_other_shapes_and_items_in_both_spellings_are_left_alone() {
        let mut one_spelling = vec![
            tool("GET", "/api/tasks/", &["results"]),
            tool("GET", "/api/tasks/{numeric}/", &["id"]),
        ];
        assert!(marked(&mut one_spelling).is_empty());
        let mut other_shapes = vec![
            tool("GET", "/api/tasks", &["data"]),
            tool("GET", "/api/tasks/", &["results"]),
            tool("GET", "/api/tasks/{numeric}", &["id"]),
        ];
        assert!(marked(&mut other_shapes).is_empty());
        let mut both_items = vec![
            tool("GET", "/api/tasks", &["data"]),
            tool("GET", "/api/tasks/", &["data"]),
            tool("GET", "/api/tasks/{numeric}", &["id"]),
            tool("GET", "/api/tasks/{numeric}/", &["id"]),
        ];
        assert!(marked(&mut both_items).is_empty());
        assert_eq!(other_spelling("/a/{numeric}/"), "/a/{numeric}");
        assert_eq!(other_spelling("/a/{numeric}"), "/a/{numeric}/");
    }
}

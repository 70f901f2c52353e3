//! Sibling transfer (opt-in, `[manifest] sibling_transfer = true`): a write tool recorded on one
//! collection is offered on a sibling collection of the same route family that the recording only
//! read, as an *inferred* tool citing no record (`ManifestTool::inferred_from` names its source).
//!
//! A write tool's collection segment is its last literal segment, followed by at most one
//! parameter (`POST /posts`, `PATCH /posts/{numeric}`). The source collection must be read
//! through the write's own template (`GET /posts`, `GET /posts/{numeric}`); a sibling is a read
//! template equal to it everywhere but that literal segment (`GET /comments/{numeric}`), whose
//! answers have the same body kinds (both objects, or both arrays). The inferred tool takes the
//! sibling read's template (its parameter rules), the source's method and request body shape,
//! and is offered only where no tool of that method fits the sibling's template. Whether the
//! state serves it (the source write confirmed, the sibling type holding entities of the same
//! identity) is the state engine's decision; replay never answers it (it has no recording).
//!
//! Documents ([`inferred_document_tools`]): an item update recorded on a collection (`PUT
//! /posts/{numeric}`, answered as an object) is offered on a document read (`GET /profile`: an
//! object, its template ending in a literal) that the recording wrote with another method only
//! (`PATCH /profile`), under the document read's template. Whether the update's mode (a replace
//! or a merge) carries over is again the state engine's decision: both modes must be confirmed.

use std::collections::BTreeSet;

use crate::manifest::ManifestTool;
use crate::naming::snake_case;
use crate::segments::split_path;

/// The inferred tools a manifest's tools offer on sibling collections, in source order.
pub fn inferred_tools(tools: &[ManifestTool]) -> Vec<ManifestTool> {
    let mut names: BTreeSet<String> = tools.iter().map(|tool| tool.name.clone()).collect();
    let mut offered: Vec<ManifestTool> = Vec::new();
    for source in tools.iter().filter(|tool| is_write(&tool.method)) {
        let Some(position) = collection_segment(source) else {
            continue;
        };
        let Some(own_read) = tools
            .iter()
            .find(|tool| is_get(tool) && same_route(tool, source, None))
        else {
            continue;
        };
        for sibling in tools.iter().filter(|tool| is_get(tool)) {
            if !same_route(sibling, source, Some(position))
                || !same_kinds(own_read, sibling)
                || tools
                    .iter()
                    .chain(&offered)
                    .any(|tool| tool.method == source.method && same_route(tool, sibling, None))
            {
                continue;
            }
            let name = unique_name(&inferred_name(source, sibling, position), &names);
            names.insert(name.clone());
            offered.push(inferred_on(source, sibling, name));
        }
    }
    let documents = inferred_document_tools(tools, &offered, &mut names);
    offered.extend(documents);
    offered
}

/// The item updates offered on document reads written by another method only (see the module
/// docs), in source order.
fn inferred_document_tools(
    tools: &[ManifestTool],
    offered: &[ManifestTool],
    names: &mut BTreeSet<String>,
) -> Vec<ManifestTool> {
    let mut documents: Vec<ManifestTool> = Vec::new();
    for source in tools.iter().filter(|tool| is_item_update(tool)) {
        let Some(own_read) = tools
            .iter()
            .find(|tool| is_get(tool) && same_route(tool, source, None))
        else {
            continue;
        };
        for document in tools.iter().filter(|tool| is_document_read(tool, tools)) {
            let taken = tools
                .iter()
                .chain(offered)
                .chain(&documents)
                .any(|tool| tool.method == source.method && same_route(tool, document, None));
            if taken || !same_kinds(own_read, document) {
                continue;
            }
            let method = source.method.to_ascii_lowercase();
            let rest = document.name.strip_prefix("get_").unwrap_or(&document.name);
            let name = unique_name(&format!("{method}_{rest}"), names);
            names.insert(name.clone());
            documents.push(inferred_on(source, document, name));
        }
    }
    documents
}

/// The inferred tool: the read's template and parameters, the source's method and body shape
/// (no query parameters: [`crate::depths`] adds the source's).
pub(crate) fn inferred_on(
    source: &ManifestTool,
    read: &ManifestTool,
    name: String,
) -> ManifestTool {
    ManifestTool {
        method: source.method.clone(),
        name,
        path_parameters: read.path_parameters.clone(),
        path_template: read.path_template.clone(),
        query_parameters: Vec::new(),
        record_ordinals: Vec::new(),
        request_body: source.request_body.clone(),
        request_media_types: source.request_media_types.clone(),
        response_body: None,
        response_media_types: source.response_media_types.clone(),
        statuses: Vec::new(),
        inferred_from: Some(source.name.clone()),
        trailing_slash_optional: false,
    }
}

/// Whether a recorded write updates an item: `PUT` or `PATCH` on a template ending in a whole
/// parameter.
fn is_item_update(tool: &ManifestTool) -> bool {
    let length = split_path(&tool.path_template).len();
    ["PUT", "PATCH"]
        .iter()
        .any(|method| tool.method.eq_ignore_ascii_case(method))
        && tool.inferred_from.is_none()
        && length > 0
        && is_parameter(tool, length - 1)
        && collection_segment(tool).is_some()
}

/// Whether a recorded read is a document's: an object, its template ending in a literal, the
/// recording writing its path with some update method.
fn is_document_read(read: &ManifestTool, tools: &[ManifestTool]) -> bool {
    let segments = split_path(&read.path_template);
    is_get(read)
        && segments
            .last()
            .is_some_and(|last| !last.is_empty() && !is_parameter(read, segments.len() - 1))
        && tools.iter().any(|tool| {
            ["PUT", "PATCH"]
                .iter()
                .any(|method| tool.method.eq_ignore_ascii_case(method))
                && tool.inferred_from.is_none()
                && same_route(tool, read, None)
        })
}

fn is_write(method: &str) -> bool {
    !["GET", "HEAD", "OPTIONS"]
        .iter()
        .any(|safe| method.eq_ignore_ascii_case(safe))
}

fn is_get(tool: &ManifestTool) -> bool {
    tool.method.eq_ignore_ascii_case("GET") && tool.inferred_from.is_none()
}

fn is_parameter(tool: &ManifestTool, index: usize) -> bool {
    tool.path_parameters
        .iter()
        .any(|parameter| parameter.segment_index == index && !parameter.is_fused())
}

/// The index of a write's collection segment: its last literal segment, followed by at most one
/// (whole-segment) parameter. A trailing slash (`/api/lists/`, `/api/lists/{numeric}/`) ends the
/// path and names no segment.
fn collection_segment(tool: &ManifestTool) -> Option<usize> {
    let segments = split_path(&tool.path_template);
    if tool
        .path_parameters
        .iter()
        .any(|parameter| parameter.is_fused())
    {
        return None;
    }
    let length = match segments.split_last() {
        Some((last, rest)) if last.is_empty() && !rest.is_empty() => rest.len(),
        _ => segments.len(),
    };
    let last_literal = (0..length)
        .rev()
        .find(|index| !is_parameter(tool, *index))?;
    (length - last_literal <= 2).then_some(last_literal)
}

/// Whether two templates have the same segments, parameters at the same places (whatever their
/// rules) and equal literals, except at `differing` where both are literals that differ.
pub(crate) fn same_route(a: &ManifestTool, b: &ManifestTool, differing: Option<usize>) -> bool {
    let (left, right) = (split_path(&a.path_template), split_path(&b.path_template));
    left.len() == right.len()
        && (0..left.len()).all(
            |index| match (is_parameter(a, index), is_parameter(b, index)) {
                (true, true) => differing != Some(index),
                (false, false) if differing == Some(index) => left[index] != right[index],
                (false, false) => left[index] == right[index],
                _ => false,
            },
        )
}

/// Whether two reads answered the same JSON body kinds (object or array), the entity shape a
/// transfer needs.
pub(crate) fn same_kinds(a: &ManifestTool, b: &ManifestTool) -> bool {
    let kinds = |tool: &ManifestTool| -> BTreeSet<String> {
        tool.response_body
            .iter()
            .flat_map(|body| body.kinds.iter())
            .filter(|kind| kind.starts_with("json-"))
            .cloned()
            .collect()
    };
    let (left, right) = (kinds(a), kinds(b));
    !left.is_empty()
        && left == right
        && (left.contains("json-object") || left.contains("json-array"))
}

/// The sibling read's name under the source's method (`get_comments_by_comment_id` →
/// `patch_comments_by_comment_id`: the sibling's parameters, which the inferred tool takes), when
/// both names start with their method; else the source's name with its collection's word
/// replaced by the sibling's (`patch_posts_by_id` → `patch_comments_by_id`), else the sibling's
/// word appended.
fn inferred_name(source: &ManifestTool, sibling: &ManifestTool, position: usize) -> String {
    let method = source.method.to_ascii_lowercase();
    if let (Some(rest), true) = (
        sibling.name.strip_prefix("get_"),
        source.name.starts_with(&format!("{method}_")),
    ) {
        return format!("{method}_{rest}");
    }
    let own = snake_case(split_path(&source.path_template)[position]);
    let other = snake_case(split_path(&sibling.path_template)[position]);
    let words: Vec<&str> = source.name.split('_').collect();
    let own_words: Vec<&str> = own.split('_').collect();
    if let Some(start) = words
        .windows(own_words.len().max(1))
        .position(|window| window == own_words.as_slice())
    {
        let mut renamed: Vec<&str> = words[..start].to_vec();
        renamed.push(&other);
        renamed.extend_from_slice(&words[start + own_words.len()..]);
        return renamed.join("_");
    }
    format!("{}_{other}", source.name)
}

/// `name`, or `name_inferred_N` with the first counter no tool of `taken` holds.
pub(crate) fn unique_name(name: &str, taken: &BTreeSet<String>) -> String {
    if !taken.contains(name) {
        return name.to_owned();
    }
    (2..)
        .map(|counter| format!("{name}_inferred_{counter}"))
        .find(|candidate| !taken.contains(candidate))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::{BodyShape, PathParameter};

    fn tool(method: &str, template: &str, kind: &str) -> ManifestTool {
        let path_parameters = split_path(template)
            .iter()
            .enumerate()
            .filter(|(_, segment)| segment.starts_with('{'))
            .map(|(index, segment)| PathParameter {
                any_segment: false,
                name: "id".to_owned(),
                observed_values: vec!["1".into()],
                prefix: String::new(),
                rule: segment.trim_matches(|c| c == '{' || c == '}').to_owned(),
                segment_index: index,
                suffix: String::new(),
            })
            .collect();
        let segments = split_path(template)
            .iter()
            .map(|segment| {
                if segment.starts_with('{') {
                    "by_id".to_owned()
                } else {
                    snake_case(segment)
                }
            })
            .collect::<Vec<_>>()
            .join("_");
        ManifestTool {
            method: method.to_owned(),
            name: format!("{}_{segments}", method.to_ascii_lowercase()),
            path_parameters,
            path_template: template.to_owned(),
            query_parameters: Vec::new(),
            record_ordinals: vec![0],
            request_body: None,
            request_media_types: Vec::new(),
            response_body: (!kind.is_empty()).then(|| BodyShape {
                kinds: vec![kind.to_owned()],
                ..BodyShape::default()
            }),
            response_media_types: Vec::new(),
            statuses: vec![200],
            inferred_from: None,
            trailing_slash_optional: false,
        }
    }

    fn offered(tools: &[ManifestTool]) -> Vec<(String, String, String, String)> {
        inferred_tools(tools)
            .into_iter()
            .map(|tool| {
                (
                    tool.method,
                    tool.path_template,
                    tool.name,
                    tool.inferred_from.unwrap_or_default(),
                )
            })
            .collect()
    }

    #[test]
    fn a_write_is_offered_on_each_sibling_read_through_the_same_route_family() {
        let tools = [
            ("GET", "/posts", "json-array"),
            ("GET", "/comments", "json-array"),
            ("GET", "/posts/{numeric}", "json-object"),
            ("GET", "/comments/{hex}", "json-object"),
            ("GET", "/profile", "json-object"),
            ("POST", "/posts", ""),
            ("PATCH", "/posts/{numeric}", ""),
            ("PATCH", "/profile", ""),
        ]
        .map(|(method, template, kind)| tool(method, template, kind));
        assert_eq!(
            offered(&tools),
            vec![
                (
                    "POST".to_owned(),
                    "/comments".to_owned(),
                    "post_comments".to_owned(),
                    "post_posts".to_owned()
                ),
                (
                    "PATCH".to_owned(),
                    "/comments/{hex}".to_owned(),
                    "patch_comments_by_id".to_owned(),
                    "patch_posts_by_id".to_owned()
                ),
            ],
            "the sibling read's own parameter rule is kept; /profile (an object) is no sibling of the /posts list"
        );
    }

    #[test]
    fn an_inferred_tool_is_named_after_the_sibling_read_whose_parameters_it_takes() {
        let named = |tool: ManifestTool, name: &str| ManifestTool {
            name: name.to_owned(),
            ..tool
        };
        let tools = [
            named(
                tool("GET", "/books/{numeric}", "json-object"),
                "get_books_by_book_id",
            ),
            named(
                tool("GET", "/members/{numeric}", "json-object"),
                "get_members_by_member_id",
            ),
            named(
                tool("PATCH", "/books/{numeric}", ""),
                "patch_books_by_book_id",
            ),
        ];
        let inferred = inferred_tools(&tools);
        assert_eq!(inferred.len(), 1);
        assert_eq!(inferred[0].name, "patch_members_by_member_id");
        // A source named otherwise renames its collection's word.
        let tools = [
            tools[0].clone(),
            tools[1].clone(),
            named(
                tool("PATCH", "/books/{numeric}", ""),
                "update_books_by_book_id",
            ),
        ];
        assert_eq!(inferred_tools(&tools)[0].name, "update_members_by_book_id");
    }

    #[test]
    fn nothing_is_offered_where_a_tool_exists_or_shapes_differ() {
        // Users answer arrays, tags have their own delete, orphans are never read.
        let tools: Vec<ManifestTool> = ["/posts", "/users", "/tags"]
            .iter()
            .map(|collection| {
                let kind = if *collection == "/users" {
                    "json-array"
                } else {
                    "json-object"
                };
                tool("GET", &format!("{collection}/{{numeric}}"), kind)
            })
            .chain(
                ["/posts", "/tags", "/orphans"]
                    .iter()
                    .map(|collection| tool("DELETE", &format!("{collection}/{{numeric}}"), "")),
            )
            .collect();
        assert!(offered(&tools).is_empty());
    }

    #[test]
    fn a_trailing_slash_names_no_collection_segment() {
        // flexget's routes end in a slash: the list create is offered on the sibling list.
        let tools = [
            ("GET", "/api/entry_list/", "json-array"),
            ("GET", "/api/movie_list/", "json-array"),
            ("GET", "/api/entry_list/{numeric}/", "json-object"),
            ("POST", "/api/entry_list/", ""),
            ("DELETE", "/api/entry_list/{numeric}/", ""),
        ]
        .map(|(method, template, kind)| tool(method, template, kind));
        assert_eq!(
            offered(&tools),
            vec![(
                "POST".to_owned(),
                "/api/movie_list/".to_owned(),
                "post_api_movie_list_".to_owned(),
                "post_api_entry_list_".to_owned()
            )],
            "the delete has no sibling item read to go to"
        );
    }

    #[test]
    fn an_item_update_is_offered_on_a_document_written_by_another_method() {
        let family = |document: &[(&str, &str, &str)]| -> Vec<ManifestTool> {
            [
                ("GET", "/posts", "json-array"),
                ("GET", "/posts/{numeric}", "json-object"),
                ("PUT", "/posts/{numeric}", ""),
                ("DELETE", "/posts/{numeric}", ""),
            ]
            .iter()
            .chain(document)
            .map(|(method, template, kind)| tool(method, template, kind))
            .collect()
        };
        let profile = family(&[
            ("GET", "/profile", "json-object"),
            ("PATCH", "/profile", ""),
        ]);
        assert_eq!(
            offered(&profile),
            vec![(
                "PUT".to_owned(),
                "/profile".to_owned(),
                "put_profile".to_owned(),
                "put_posts_by_id".to_owned()
            )],
            "the update, not the delete"
        );
        let both = family(&[
            ("GET", "/settings", "json-object"),
            ("PATCH", "/settings", ""),
            ("PUT", "/settings", ""),
        ]);
        assert!(offered(&both).is_empty(), "the document's own PUT");
        let unwritten = family(&[("GET", "/profile", "json-object")]);
        assert!(offered(&unwritten).is_empty(), "no document write");
        let array = family(&[("GET", "/profile", "json-array"), ("PATCH", "/profile", "")]);
        assert!(
            offered(&array)
                .iter()
                .all(|(_, template, _, _)| template != "/profile"),
            "an array is no item's shape"
        );
    }

    #[test]
    fn names_stay_unique() {
        let taken: BTreeSet<String> = ["post_comments".to_owned()].into();
        assert_eq!(
            unique_name("post_comments", &taken),
            "post_comments_inferred_2"
        );
        assert_eq!(unique_name("post_users", &taken), "post_users");
    }
}

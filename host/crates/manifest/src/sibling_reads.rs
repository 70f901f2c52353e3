//! Sibling reads (opt-in with sibling transfer, `[manifest] sibling_transfer = true`): a read
//! recorded below an item of one collection (`GET /projects/{numeric}/relationships/tasks`) is
//! offered below the items of a sibling collection the recording read only as items (`GET
//! /people/{numeric}`), as an inferred read citing no record (`ManifestTool::inferred_from` names
//! its source).
//!
//! The source's *item prefix* is a literal segment (the collection) and the whole-segment
//! parameter after it, with at least one segment below; the source collection's own item read
//! (`GET /projects/{…}`, exactly the prefix) must be recorded. A sibling is a recorded item read
//! equal to that prefix everywhere but the collection's literal (`GET /people/{…}`), answering the
//! same body kinds and one entity shape (the top-level members one item read's answers showed
//! all among the other's: Jupyter Server's contents and sessions are two kinds of resource). The inferred read takes the sibling's prefix (its id parameter's rule, so the
//! sibling's own ids route) and the source's segments below it, and is offered only where no read
//! fits that template. Whether the state answers it (the source's route learned from the
//! recording, the sibling's entities holding what it reads) is the state engine's decision
//! (`rea_state::sibling_reads`); replay never answers it (it has no recording).

use std::collections::BTreeSet;

use crate::manifest::{ManifestTool, PathParameter};
use crate::naming::{singular, snake_case};
use crate::segments::split_path;
use crate::siblings::{same_kinds, same_route, unique_name};

/// The inferred reads the manifest's recorded reads offer below sibling collections' items, in
/// source order.
pub fn inferred_sibling_reads(tools: &[ManifestTool]) -> Vec<ManifestTool> {
    let mut names: BTreeSet<String> = tools.iter().map(|tool| tool.name.clone()).collect();
    let mut offered: Vec<ManifestTool> = Vec::new();
    for source in tools.iter().filter(|tool| is_recorded_get(tool)) {
        for position in item_prefixes(source) {
            let Some(own) = tools.iter().find(|tool| {
                is_recorded_get(tool) && is_prefix_read(tool, source, position, false)
            }) else {
                continue;
            };
            for sibling in tools.iter().filter(|tool| {
                is_recorded_get(tool)
                    && is_prefix_read(tool, source, position, true)
                    && same_kinds(own, tool)
                    && nested_members(own, tool)
            }) {
                let read = below(source, sibling, position);
                let taken = tools
                    .iter()
                    .chain(&offered)
                    .any(|tool| is_get(tool) && same_route(tool, &read, None));
                if taken {
                    continue;
                }
                let name = unique_name(&read.name, &names);
                names.insert(name.clone());
                offered.push(ManifestTool { name, ..read });
            }
        }
    }
    offered
}

/// Whether two item reads answer one entity shape: the top-level members one's answers showed are
/// all among the other's (`{data, jsonapi, links}` beside `{data, included, jsonapi, links}`),
/// not two kinds of resource (`{content, format, …}` beside `{id, kernel, notebook, …}`).
fn nested_members(a: &ManifestTool, b: &ManifestTool) -> bool {
    fn members(tool: &ManifestTool) -> BTreeSet<&str> {
        (tool.response_body.iter())
            .flat_map(|body| body.members.keys())
            .map(String::as_str)
            .collect()
    }
    let (left, right) = (members(a), members(b));
    !left.is_empty() && !right.is_empty() && (left.is_subset(&right) || right.is_subset(&left))
}

fn is_get(tool: &ManifestTool) -> bool {
    tool.method.eq_ignore_ascii_case("GET")
}

fn is_recorded_get(tool: &ManifestTool) -> bool {
    is_get(tool) && tool.inferred_from.is_none()
}

/// The whole-segment parameter at `index`, when there is one.
fn parameter_at(tool: &ManifestTool, index: usize) -> Option<&PathParameter> {
    tool.path_parameters
        .iter()
        .find(|parameter| parameter.segment_index == index && !parameter.is_fused())
}

/// The collection positions of a read's item prefixes: a literal segment followed by a
/// whole-segment parameter, with at least one segment below it.
fn item_prefixes(tool: &ManifestTool) -> Vec<usize> {
    let segments = split_path(&tool.path_template);
    if tool.path_parameters.iter().any(PathParameter::is_fused) {
        return Vec::new();
    }
    (0..segments.len().saturating_sub(2))
        .filter(|index| {
            !segments[*index].is_empty()
                && parameter_at(tool, *index).is_none()
                && parameter_at(tool, index + 1).is_some()
        })
        .collect()
}

/// Whether `read`'s template is the item prefix of `source` at `position` (`differing`: with
/// another collection literal there).
fn is_prefix_read(
    read: &ManifestTool,
    source: &ManifestTool,
    position: usize,
    differing: bool,
) -> bool {
    let segments = split_path(&source.path_template);
    let prefix = ManifestTool {
        path_template: format!("/{}", segments[..position + 2].join("/")),
        path_parameters: (source.path_parameters.iter())
            .filter(|parameter| parameter.segment_index <= position + 1)
            .cloned()
            .collect(),
        ..source.clone()
    };
    same_route(read, &prefix, differing.then_some(position))
}

/// The source read below the sibling's item prefix: the sibling's collection and id parameter
/// (renamed after the sibling's collection where the source's was named after its own), the
/// source's segments and parameters below, named after the source with the collection's word
/// replaced.
fn below(source: &ManifestTool, sibling: &ManifestTool, position: usize) -> ManifestTool {
    let segments = split_path(&source.path_template);
    let sibling_segments = split_path(&sibling.path_template);
    let (own, other) = (
        snake_case(segments[position]),
        snake_case(sibling_segments[position]),
    );
    let mut id = parameter_at(sibling, position + 1)
        .cloned()
        .unwrap_or_else(|| unreachable!("a sibling's item prefix ends in its id parameter"));
    let source_id = parameter_at(source, position + 1).map(|parameter| parameter.name.as_str());
    id.name = match source_id {
        Some(name) if name == format!("{}_id", singular(&own)) => {
            format!("{}_id", singular(&other))
        }
        Some(name) => name.to_owned(),
        None => id.name,
    };
    let mut path_parameters: Vec<PathParameter> = (source.path_parameters.iter())
        .filter(|parameter| parameter.segment_index != position + 1)
        .cloned()
        .collect();
    path_parameters.push(id);
    path_parameters.sort_by_key(|parameter| parameter.segment_index);
    let mut template: Vec<&str> = sibling_segments[..position + 2].to_vec();
    template.extend_from_slice(&segments[position + 2..]);
    ManifestTool {
        name: renamed(&source.name, &own, &other),
        path_parameters,
        path_template: format!("/{}", template.join("/")),
        query_parameters: Vec::new(),
        record_ordinals: Vec::new(),
        inferred_from: Some(source.name.clone()),
        trailing_slash_optional: false,
        ..source.clone()
    }
}

/// A name with the words of one collection replaced by another's (`get_projects_by_project_id` →
/// `get_people_by_people_id`), singular forms too; the other's words appended when it names
/// neither.
fn renamed(name: &str, own: &str, other: &str) -> String {
    let words: Vec<&str> = name.split('_').collect();
    let (own_single, other_single) = (singular(own), singular(other));
    let mut replaced = false;
    let mut out: Vec<String> = Vec::new();
    let mut index = 0;
    while index < words.len() {
        let rest = &words[index..];
        let matched = [(own, other), (own_single.as_str(), other_single.as_str())]
            .into_iter()
            .find_map(|(from, to)| {
                let from: Vec<&str> = from.split('_').collect();
                rest.starts_with(&from).then_some((from.len(), to))
            });
        match matched {
            Some((length, to)) => {
                out.push(to.to_owned());
                index += length;
                replaced = true;
            }
            None => {
                out.push(words[index].to_owned());
                index += 1;
            }
        }
    }
    if !replaced {
        out.push(other.to_owned());
    }
    out.join("_")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::BodyShape;
    use crate::testing::path_parameters;

    fn tool(method: &str, template: &str, kind: &str) -> ManifestTool {
        ManifestTool {
            method: method.to_owned(),
            name: format!("{}_{}", method.to_ascii_lowercase(), snake_case(template)),
            path_parameters: path_parameters(template, "1"),
            path_template: template.to_owned(),
            query_parameters: Vec::new(),
            record_ordinals: vec![0],
            request_body: None,
            request_media_types: Vec::new(),
            response_body: (!kind.is_empty()).then(|| BodyShape {
                kinds: vec![kind.to_owned()],
                members: [("data".to_owned(), vec!["object".to_owned()])].into(),
                ..BodyShape::default()
            }),
            response_media_types: Vec::new(),
            statuses: vec![200],
            inferred_from: None,
            trailing_slash_optional: false,
        }
    }

    fn offered(tools: &[ManifestTool]) -> Vec<(String, String)> {
        inferred_sibling_reads(tools)
            .into_iter()
            .map(|tool| (tool.path_template, tool.inferred_from.unwrap_or_default()))
            .collect()
    }

    #[test]
    fn a_read_below_an_item_is_offered_below_the_sibling_collections_items() {
        let tools = [
            ("GET", "/projects/{numeric}", "json-object"),
            ("GET", "/people/{token}", "json-object"),
            ("GET", "/tags/{numeric}", "json-array"),
            ("GET", "/projects/{numeric}/{tree}/{tree}", "json-object"),
            ("GET", "/tasks/{numeric}/{tree}/{tree}", "json-object"),
            ("PATCH", "/people/{token}/{tree}/{tree}", ""),
        ]
        .map(|(method, template, kind)| tool(method, template, kind));
        let inferred = inferred_sibling_reads(&tools);
        assert_eq!(
            offered(&tools),
            [(
                "/people/{token}/{tree}/{tree}".to_owned(),
                "get_projects_numeric_tree_tree".to_owned()
            )],
            "the sibling's own id rule; tags answer arrays, tasks have no item read, a PATCH is no read"
        );
        assert_eq!(inferred[0].name, "get_people_numeric_tree_tree");
        assert_eq!(inferred[0].path_parameters[0].rule, "token");
        assert!(inferred[0].record_ordinals.is_empty());
        // A read already fitting the template keeps the sibling out.
        let mut taken = tools.to_vec();
        taken.push(tool(
            "GET",
            "/people/{numeric}/{tree}/{tree}",
            "json-object",
        ));
        assert!(offered(&taken).is_empty());
        // Without the source collection's own item read, nothing.
        assert!(offered(&tools[1..]).is_empty());
        // Another kind of resource (other members) is no sibling.
        let mut other = tools.to_vec();
        if let Some(body) = other[1].response_body.as_mut() {
            body.members = [("kernel".to_owned(), vec!["object".to_owned()])].into();
        }
        assert!(offered(&other).is_empty());
    }

    #[test]
    fn names_follow_the_sibling_collection() {
        assert_eq!(
            renamed("get_projects_by_project_id_and_id", "projects", "people"),
            "get_people_by_people_id_and_id"
        );
        assert_eq!(
            renamed(
                "get_entry_list_by_entry_list_id",
                "entry_list",
                "movie_list"
            ),
            "get_movie_list_by_movie_list_id"
        );
        assert_eq!(
            renamed("get_by_id", "projects", "people"),
            "get_by_id_people"
        );
    }
}

//! Folder-tree depths (opt-in with sibling transfer, `[manifest] sibling_transfer = true`): the
//! route form `folder-tree` makes one tool per depth of a folder tree, so a write recorded at one
//! depth (`PUT /v2/keys/{key_id}/{id}`) has no tool at a depth the recording only read (`GET
//! /v2/keys/{id}`). A write tool of a *query family* (the routes a route form learned read one
//! tree with one query language) is offered at every depth a read tool of the family reaches
//! whose last segment is a whole-segment parameter (an entry, never the tree's root) and where no
//! tool of its method fits that template, as an inferred tool citing no record
//! (`ManifestTool::inferred_from` names its source, the family's first write tool of that method).
//! It takes the read's template (its parameter rules), the source's query names (recorded on
//! none of its records: `records` 0), request body shape and media types. Whether the state
//! serves it (the tree's writes learned and confirmed) is the state engine's decision; replay
//! never answers it (it has no recording).

use std::collections::BTreeSet;

use crate::manifest::{ManifestTool, QueryParameter};
use crate::segments::split_path;
use crate::siblings::unique_name;

/// The inferred tools the write tools of each query family offer at the family's other depths,
/// in the order of the reads that reach them. `families[i]` is the query family of `tools[i]`
/// (the manifest's recorded tools; a tool past the end belongs to none).
pub fn inferred_depth_tools(
    tools: &[ManifestTool],
    families: &[Option<usize>],
) -> Vec<ManifestTool> {
    let family_of = |index: usize| families.get(index).copied().flatten();
    let mut names: BTreeSet<String> = tools.iter().map(|tool| tool.name.clone()).collect();
    let mut offered: Vec<ManifestTool> = Vec::new();
    for (read_index, read) in tools.iter().enumerate() {
        let Some(family) = family_of(read_index) else {
            continue;
        };
        if !is_entry_read(read) {
            continue;
        }
        let sources = tools.iter().enumerate().filter(|(index, tool)| {
            family_of(*index) == Some(family) && is_write(tool) && tool.inferred_from.is_none()
        });
        let mut methods: BTreeSet<String> = BTreeSet::new();
        for (_, source) in sources {
            let method = source.method.to_ascii_uppercase();
            if !methods.insert(method)
                || tools
                    .iter()
                    .chain(&offered)
                    .any(|tool| tool.method == source.method && same_depth(tool, read))
            {
                continue;
            }
            let name = unique_name(&depth_name(source, read), &names);
            names.insert(name.clone());
            offered.push(depth_tool(source, read, name));
        }
    }
    offered
}

/// The source write offered at the read's template, taking the source's query names.
fn depth_tool(source: &ManifestTool, read: &ManifestTool, name: String) -> ManifestTool {
    ManifestTool {
        query_parameters: unrecorded_names(&source.query_parameters),
        ..crate::siblings::inferred_on(source, read, name)
    }
}

/// The query names of a tool offered beyond its recordings: each name as the source takes it,
/// recorded by no call of the new tool.
pub(crate) fn unrecorded_names(parameters: &[QueryParameter]) -> Vec<QueryParameter> {
    parameters
        .iter()
        .map(|parameter| QueryParameter {
            name: parameter.name.clone(),
            records: 0,
            repeated: parameter.repeated,
        })
        .collect()
}

fn is_write(tool: &ManifestTool) -> bool {
    !["GET", "HEAD", "OPTIONS"]
        .iter()
        .any(|safe| tool.method.eq_ignore_ascii_case(safe))
}

/// A recorded `GET` whose last segment is a whole-segment parameter: it reads an entry.
fn is_entry_read(tool: &ManifestTool) -> bool {
    let segments = split_path(&tool.path_template);
    tool.method.eq_ignore_ascii_case("GET")
        && tool.inferred_from.is_none()
        && segments.len().checked_sub(1).is_some_and(|last| {
            tool.path_parameters
                .iter()
                .any(|parameter| parameter.segment_index == last && !parameter.is_fused())
        })
}

/// Whether a tool's template fits the read's paths: as many segments, its literals the read's
/// literals, a parameter wherever the read has one.
fn same_depth(tool: &ManifestTool, read: &ManifestTool) -> bool {
    let (left, right) = (
        split_path(&tool.path_template),
        split_path(&read.path_template),
    );
    let parameter = |of: &ManifestTool, index: usize| {
        of.path_parameters
            .iter()
            .any(|parameter| parameter.segment_index == index)
    };
    left.len() == right.len()
        && (0..left.len()).all(
            |index| match (parameter(tool, index), parameter(read, index)) {
                (true, _) => true,
                (false, false) => left[index] == right[index],
                (false, true) => false,
            },
        )
}

/// The read's name with its method's word replaced by the source's (`get_keys_by_id` →
/// `put_keys_by_id`).
fn depth_name(source: &ManifestTool, read: &ManifestTool) -> String {
    let method = source.method.to_ascii_lowercase();
    match read.name.split_once('_') {
        Some((_, rest)) => format!("{method}_{rest}"),
        None => format!("{method}_{}", read.name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::templated_tool;

    fn tool(method: &str, name: &str, template: &str) -> ManifestTool {
        templated_tool(method, name, template, "prevValue", &[1])
    }

    #[test]
    fn a_write_of_a_tree_is_offered_at_the_depths_only_read() {
        let tools = vec![
            tool("GET", "get_keys", "/keys/"),
            tool("GET", "get_keys_by_id", "/keys/{folder-tree}"),
            tool(
                "GET",
                "get_keys_by_a_and_b",
                "/keys/{folder-tree}/{folder-tree}",
            ),
            tool(
                "PUT",
                "put_keys_by_a_and_b",
                "/keys/{folder-tree}/{folder-tree}",
            ),
            tool("POST", "post_keys_by_id", "/keys/{folder-tree}"),
            tool("DELETE", "delete_other", "/other/{folder-tree}"),
        ];
        let families = [Some(0), Some(0), Some(0), Some(0), Some(0), None];
        let offered = inferred_depth_tools(&tools, &families);
        let lines = crate::testing::inferred_lines(&offered);
        // The root (no entry) gets none; POST is recorded at depth one, PUT at depth two; the
        // delete of another family transfers nowhere.
        assert_eq!(
            lines,
            vec![
                (
                    "PUT",
                    "put_keys_by_id",
                    "/keys/{folder-tree}",
                    Some("put_keys_by_a_and_b")
                ),
                (
                    "POST",
                    "post_keys_by_a_and_b",
                    "/keys/{folder-tree}/{folder-tree}",
                    Some("post_keys_by_id")
                ),
            ]
        );
        assert!(offered.iter().all(|tool| tool.record_ordinals.is_empty()
            && tool.query_parameters.iter().all(|query| query.records == 0)));
        // No family: nothing offered.
        assert!(inferred_depth_tools(&tools, &[]).is_empty());
    }
}

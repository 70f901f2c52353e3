//! Listed depths of a folder tree (opt-in with sibling transfer, `[manifest] sibling_transfer =
//! true`): the route form `folder-tree` makes one tool per *recorded* depth, so an entry a
//! listing names one level below the deepest read (`reports/2026/q4.md`, named by the build's
//! listing of `/api/contents/reports/2026`, where only `notes/todo.md` was read as a document) has
//! no tool. A folder read of a *query family* (the routes a route form learned read one tree with
//! one query language) whose 2xx JSON answer names, inside an array, a path spelling the read's
//! own decoded path from the tree's root (its segments from the read's first parameter on) and one
//! more part (`reports/2026/q4.md` in the listing of `/api/contents/reports/2026`, read through
//! `/api/contents/{…}/{…}`) shows the tree holds entries at the next depth; a link relative to the
//! origin (`/tasks/4` in a list of `/people/1/tasks`) spells no path of the tree. Where no read of the family reaches that depth, the
//! family's entry read at the folder's depth (a `GET` whose last segment is a whole-segment
//! parameter; the one citing the most records) is offered there, its template followed by one
//! more whole-segment parameter (rule `folder-tree`), as an inferred read citing no record
//! (`ManifestTool::inferred_from` names its source). It takes the source's query names (recorded
//! on none of its records: `records` 0). A depth no listing names gets no tool: a key's leaf
//! (`/v2/keys/config/web/theme`) is no folder. Whether the state answers it (the source's folder
//! entries, `rea_state::tree_depths`) is the state engine's decision; replay never answers it.

use std::collections::{BTreeMap, BTreeSet};

use rea_plugin_api::contracts::capture::CaptureRecord;
use rea_plugin_api::json::Json;

use crate::manifest::{ManifestTool, PathParameter};
use crate::segments::{segment_value, split_path};
use crate::siblings::unique_name;

/// The rule of the parameter an inferred read adds.
const ENTRY_RULE: &str = "folder-tree";

/// The inferred reads one level below each family's deepest folder reads whose listings name
/// entries there (see the module docs), in family order. `families[i]` is the query family of
/// `tools[i]`; `records` are the capture's records the tools cite.
pub fn inferred_listed_reads(
    tools: &[ManifestTool],
    families: &[Option<usize>],
    records: &[CaptureRecord],
) -> Vec<ManifestTool> {
    let by_ordinal: BTreeMap<u64, &CaptureRecord> = records
        .iter()
        .map(|record| (record.ordinal, record))
        .collect();
    let family_of = |index: usize| families.get(index).copied().flatten();
    let mut listed: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    for (index, tool) in tools.iter().enumerate() {
        let Some(family) = family_of(index) else {
            continue;
        };
        if !tool.method.eq_ignore_ascii_case("GET") || tool.inferred_from.is_some() {
            continue;
        }
        let cited = tool
            .record_ordinals
            .iter()
            .filter_map(|ordinal| by_ordinal.get(ordinal).copied());
        let root = tool
            .path_parameters
            .iter()
            .map(|parameter| parameter.segment_index)
            .min()
            .unwrap_or_else(|| template_length(tool));
        listed
            .entry(family)
            .or_default()
            .extend(cited.filter_map(|record| listed_depth(record, root)));
    }
    let mut names: BTreeSet<String> = tools.iter().map(|tool| tool.name.clone()).collect();
    let mut offered = Vec::new();
    for (family, depths) in listed {
        let reads: Vec<&ManifestTool> = tools
            .iter()
            .enumerate()
            .filter(|(index, tool)| family_of(*index) == Some(family) && is_entry_read(tool))
            .map(|(_, tool)| tool)
            .collect();
        for depth in depths {
            if reads.iter().any(|read| template_length(read) == depth) {
                continue;
            }
            let Some(source) = reads
                .iter()
                .filter(|read| template_length(read) + 1 == depth)
                .max_by_key(|read| read.record_ordinals.len())
            else {
                continue;
            };
            let read = listed_read(source, &names);
            names.insert(read.name.clone());
            offered.push(read);
        }
    }
    offered
}

/// The segment count of the entries a record's answer lists one level below its own path: its
/// decoded path's segment count plus one, when a string inside an array of its 2xx JSON answer
/// spells that path's segments from `root` on and one more (see the module docs).
fn listed_depth(record: &CaptureRecord, root: usize) -> Option<usize> {
    if !(200..300).contains(&record.response.status) {
        return None;
    }
    let path = record.path.as_deref()?;
    let decoded: Vec<String> = split_path(path)
        .into_iter()
        .map(|segment| segment_value(segment).into_owned())
        .filter(|segment| !segment.is_empty())
        .collect();
    let body = record.response.body.text()?;
    let json = Json::parse(body.as_bytes()).ok()?;
    let mut strings = Vec::new();
    array_strings(&json, false, &mut strings);
    strings
        .into_iter()
        .any(|text| names_child(decoded.get(root..).unwrap_or_default(), text))
        .then_some(decoded.len() + 1)
}

/// Whether `text` (a leading `/` dropped) is the parts of `folder` (the folder's path below the
/// tree's root, at least one part) and one more non-empty part.
fn names_child(folder: &[String], text: &str) -> bool {
    let parts: Vec<&str> = text.trim_start_matches('/').split('/').collect();
    let Some((last, parents)) = parts.split_last() else {
        return false;
    };
    !last.is_empty()
        && !parents.is_empty()
        && parents.len() == folder.len()
        && folder
            .iter()
            .zip(parents)
            .all(|(segment, part)| segment == part)
}

/// The strings held inside arrays of an answer, at any depth.
fn array_strings<'j>(value: &'j Json, in_array: bool, found: &mut Vec<&'j str>) {
    match value {
        Json::String(text) if in_array => found.push(text),
        Json::Array(items) => items
            .iter()
            .for_each(|item| array_strings(item, true, found)),
        Json::Object(object) => object
            .iter()
            .for_each(|(_, member)| array_strings(member, in_array, found)),
        _ => {}
    }
}

/// A recorded `GET` whose last segment is a whole-segment parameter: it reads an entry.
fn is_entry_read(tool: &ManifestTool) -> bool {
    let last = template_length(tool).checked_sub(1);
    tool.method.eq_ignore_ascii_case("GET")
        && tool.inferred_from.is_none()
        && last.is_some_and(|last| {
            tool.path_parameters
                .iter()
                .any(|parameter| parameter.segment_index == last && !parameter.is_fused())
        })
}

fn template_length(tool: &ManifestTool) -> usize {
    split_path(&tool.path_template).len()
}

/// The source read one level deeper: its template and parameters and one more whole-segment
/// parameter, its query names recorded on none of its records.
fn listed_read(source: &ManifestTool, taken: &BTreeSet<String>) -> ManifestTool {
    let index = template_length(source);
    let parameter = PathParameter {
        any_segment: false,
        name: format!("segment_{index}"),
        observed_values: Vec::new(),
        prefix: String::new(),
        rule: ENTRY_RULE.to_owned(),
        segment_index: index,
        suffix: String::new(),
    };
    let mut path_parameters = source.path_parameters.clone();
    path_parameters.push(parameter);
    ManifestTool {
        method: source.method.clone(),
        name: unique_name(&format!("{}_and_segment_{index}", source.name), taken),
        path_parameters,
        path_template: format!("{}/{{{ENTRY_RULE}}}", source.path_template),
        query_parameters: crate::depths::unrecorded_names(&source.query_parameters),
        record_ordinals: Vec::new(),
        request_body: None,
        request_media_types: Vec::new(),
        response_body: source.response_body.clone(),
        response_media_types: source.response_media_types.clone(),
        statuses: Vec::new(),
        inferred_from: Some(source.name.clone()),
        trailing_slash_optional: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{record, templated_tool};

    fn tool(name: &str, template: &str, ordinals: &[u64]) -> ManifestTool {
        templated_tool("GET", name, template, "content", ordinals)
    }

    fn listing(ordinal: u64, path: &str, body: &str) -> CaptureRecord {
        record(ordinal, "GET", &format!("http://app.test{path}"))
            .json(200, body)
            .build()
    }

    #[test]
    fn a_listing_naming_entries_below_every_read_offers_the_deepest_read_there() {
        let records = vec![
            listing(
                1,
                "/files/notes",
                r#"{"content": [{"path": "notes/a.md"}]}"#,
            ),
            listing(2, "/files/notes/a.md", r#"{"path": "notes/a.md"}"#),
            listing(3, "/files/notes/b.md", r#"{"path": "notes/b.md"}"#),
            listing(
                4,
                "/files/reports/2026",
                r#"{"content": [{"path": "reports/2026/q4.md"}]}"#,
            ),
        ];
        let tools = vec![
            tool("get_files_by_name", "/files/{folder-tree}", &[1]),
            tool(
                "get_files_by_a_and_b",
                "/files/{folder-tree}/{folder-tree}",
                &[2, 3],
            ),
            tool(
                "get_files_by_a_and_numeric",
                "/files/{folder-tree}/{numeric}",
                &[4],
            ),
            tool("get_other", "/other/{folder-tree}", &[]),
        ];
        let families = [Some(0), Some(0), Some(0), None];
        let offered = inferred_listed_reads(&tools, &families, &records);
        assert_eq!(offered.len(), 1, "{offered:#?}");
        let read = &offered[0];
        assert_eq!(
            read.path_template,
            "/files/{folder-tree}/{folder-tree}/{folder-tree}"
        );
        assert_eq!(read.name, "get_files_by_a_and_b_and_segment_3");
        assert_eq!(read.inferred_from.as_deref(), Some("get_files_by_a_and_b"));
        assert_eq!(read.path_parameters.len(), 3);
        assert_eq!(read.path_parameters[2].segment_index, 3);
        assert!(read.record_ordinals.is_empty());
        assert_eq!(read.query_parameters[0].records, 0);
        // No family, no inference.
        assert!(inferred_listed_reads(&tools, &[], &records).is_empty());
    }

    #[test]
    fn names_alone_or_entries_at_a_read_depth_offer_nothing() {
        let records = vec![
            listing(
                1,
                "/files",
                r#"{"content": [{"path": "notes"}, {"path": "data"}]}"#,
            ),
            listing(
                2,
                "/files/notes",
                r#"{"content": [{"path": "notes/a.md"}]}"#,
            ),
            listing(
                3,
                "/files/notes/a.md",
                r#"{"path": "notes/a.md", "tags": ["x/y"]}"#,
            ),
        ];
        let tools = vec![
            tool("get_files", "/files", &[1]),
            tool("get_files_by_name", "/files/{folder-tree}", &[2]),
            tool(
                "get_files_by_a_and_b",
                "/files/{folder-tree}/{folder-tree}",
                &[3],
            ),
        ];
        let families = [Some(0), Some(0), Some(0)];
        assert!(inferred_listed_reads(&tools, &families, &records).is_empty());
        // A link relative to the origin spells no path of the tree below the read's parameters.
        let related = vec![listing(
            1,
            "/people/1/tasks",
            r#"{"data": [{"links": {"self": "/tasks/4"}}]}"#,
        )];
        let tools = vec![tool("get_related", "/people/{numeric}/{folder-tree}", &[1])];
        assert!(inferred_listed_reads(&tools, &[Some(0)], &related).is_empty());
    }

    #[test]
    fn a_child_is_the_folders_last_parts_and_one_more() {
        let folder: Vec<String> = ["reports", "2026"].map(str::to_owned).to_vec();
        assert!(names_child(&folder, "reports/2026/q4.md"));
        assert!(names_child(&folder, "/reports/2026/q4.md"));
        assert!(
            !names_child(&folder, "/2026/q4.md"),
            "a path from elsewhere"
        );
        assert!(
            !names_child(&[], "q4.md"),
            "the root's listing names its entries alone"
        );
        assert!(!names_child(&folder, "q4.md"), "a name alone");
        assert!(!names_child(&folder, "reports/2026/"), "an empty last part");
        assert!(!names_child(&folder, "reports/2027/q4.md"));
        assert!(
            !names_child(&folder, "reports/2026/q4.md/x"),
            "two levels down"
        );
    }
}

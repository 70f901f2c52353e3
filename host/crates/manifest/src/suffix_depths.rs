//! Suffix routes at every depth of a document tree (opt-in with sibling transfer, `[manifest]
//! sibling_transfer = true`): a route family recorded below one document of a tree
//! (`/api/contents/{…}/{…}/checkpoints`, recorded for `notes/standup.md` only) templates at the
//! depth of that document, so a document at another depth (`analysis.ipynb` at the root) has no
//! tool for it, and its path is read by the document tool of that depth's length instead
//! (`/api/contents/{…}/{…}` answering `analysis.ipynb/checkpoints` missing).
//!
//! A *tree* is the entry reads below one literal prefix: `GET` tools whose template is the prefix
//! and then only whole-segment parameters, at one or more depths (the parameter count), where a
//! recorded read at least two levels down answered, in its 2xx JSON body, a string spelling its
//! own decoded path below the prefix (`"path": "notes/todo.md"` for
//! `/api/contents/notes/todo.md`; a leading `/` dropped, etcd's `"key": "/config/web"`): the
//! entries are addressed by their path, whatever their depth. A *suffix route* of the tree is a
//! recorded tool whose template is the prefix, as many whole-segment parameters as one of the
//! tree's depths, then a literal segment and whatever follows (`checkpoints`,
//! `checkpoints/{id}`). It is offered at each other depth of the tree (the tree's read there
//! citing the most records, an inferred listed depth included) where no tool of its method fits
//! the new template, as an inferred tool citing no record (`ManifestTool::inferred_from` names
//! the suffix route): that read's template and parameters, then the suffix's segments and
//! parameters, the source's query names (recorded on none of its records), bodies and media
//! types. Whether the state serves it is the state engine's decision; replay never answers it.

use std::collections::{BTreeMap, BTreeSet};

use rea_plugin_api::contracts::capture::CaptureRecord;
use rea_plugin_api::json::Json;

use crate::manifest::{ManifestTool, PathParameter};
use crate::segments::{segment_value, split_path};
use crate::siblings::unique_name;

/// Entry reads with their depths.
type DepthReads<'t> = Vec<(usize, &'t ManifestTool)>;

/// One tree: its literal prefix's segment count and its entry read per depth.
struct Tree<'t> {
    prefix: usize,
    reads: BTreeMap<usize, &'t ManifestTool>,
}

/// The inferred tools the suffix routes of each tree offer at the tree's other depths (see the
/// module docs), in the order of the suffix routes, then of the depths.
pub fn inferred_suffix_tools(
    tools: &[ManifestTool],
    records: &[CaptureRecord],
) -> Vec<ManifestTool> {
    let trees = trees(tools, records);
    let mut names: BTreeSet<String> = tools.iter().map(|tool| tool.name.clone()).collect();
    let mut offered: Vec<ManifestTool> = Vec::new();
    for source in tools.iter().filter(|tool| tool.inferred_from.is_none()) {
        for tree in &trees {
            let Some(depth) = suffix_depth(source, tree) else {
                continue;
            };
            for (other, read) in &tree.reads {
                if *other == depth {
                    continue;
                }
                let (template, path_parameters) = moved(source, tree.prefix + depth, read);
                let fits = |tool: &ManifestTool| {
                    tool.method == source.method && fits_template(tool, &template, &path_parameters)
                };
                if tools.iter().chain(&offered).any(fits) {
                    continue;
                }
                let name = unique_name(&format!("{}_depth_{other}", source.name), &names);
                names.insert(name.clone());
                offered.push(ManifestTool {
                    path_parameters,
                    path_template: template,
                    query_parameters: crate::depths::unrecorded_names(&source.query_parameters),
                    response_body: source.response_body.clone(),
                    ..crate::siblings::inferred_on(source, read, name)
                });
            }
        }
    }
    offered
}

/// The trees of the tools: their entry reads grouped by literal prefix, kept where a recorded
/// read two or more levels down spelled its own path (see the module docs).
fn trees<'t>(tools: &'t [ManifestTool], records: &[CaptureRecord]) -> Vec<Tree<'t>> {
    let by_ordinal: BTreeMap<u64, &CaptureRecord> = records
        .iter()
        .map(|record| (record.ordinal, record))
        .collect();
    let mut grouped: BTreeMap<Vec<&str>, (usize, DepthReads<'t>)> = BTreeMap::new();
    for tool in tools {
        let Some((prefix, depth)) = entry_depth(tool) else {
            continue;
        };
        let literal = split_path(&tool.path_template)[..prefix].to_vec();
        let group = grouped.entry(literal).or_insert((prefix, Vec::new()));
        group.1.push((depth, tool));
    }
    grouped
        .into_values()
        .filter(|(prefix, reads)| {
            reads.iter().any(|(depth, read)| {
                *depth >= 2
                    && read.record_ordinals.iter().any(|ordinal| {
                        by_ordinal
                            .get(ordinal)
                            .is_some_and(|record| spells_own_path(record, *prefix))
                    })
            })
        })
        .map(|(prefix, reads)| {
            let mut chosen: BTreeMap<usize, &ManifestTool> = BTreeMap::new();
            for (depth, read) in reads {
                let cited = |tool: &ManifestTool| tool.record_ordinals.len();
                if chosen
                    .get(&depth)
                    .is_none_or(|kept| cited(read) > cited(kept))
                {
                    chosen.insert(depth, read);
                }
            }
            Tree {
                prefix,
                reads: chosen,
            }
        })
        .collect()
}

/// A `GET` whose template is literal segments and then only whole-segment parameters, at least
/// one: the literal prefix's segment count and the parameter count.
fn entry_depth(tool: &ManifestTool) -> Option<(usize, usize)> {
    if !tool.method.eq_ignore_ascii_case("GET") {
        return None;
    }
    let length = split_path(&tool.path_template).len();
    let prefix = (0..length).find(|index| parameter_at(tool, *index).is_some())?;
    (prefix..length)
        .all(|index| parameter_at(tool, index).is_some_and(|parameter| !parameter.is_fused()))
        .then_some((prefix, length - prefix))
}

fn parameter_at(tool: &ManifestTool, index: usize) -> Option<&PathParameter> {
    tool.path_parameters
        .iter()
        .find(|parameter| parameter.segment_index == index)
}

/// Whether a record's 2xx JSON answer holds a string spelling its decoded path below `prefix`
/// segments (a leading `/` dropped).
fn spells_own_path(record: &CaptureRecord, prefix: usize) -> bool {
    if !(200..300).contains(&record.response.status) {
        return false;
    }
    let Some(path) = record.path.as_deref() else {
        return false;
    };
    let parts: Vec<String> = split_path(path)
        .iter()
        .skip(prefix)
        .map(|segment| segment_value(segment).into_owned())
        .collect();
    let own = parts.join("/");
    let Some(json) = record
        .response
        .body
        .text()
        .and_then(|body| Json::parse(body.as_bytes()).ok())
    else {
        return false;
    };
    holds_string(&json, &own)
}

/// Whether a JSON value holds `text` as a string (a leading `/` dropped), at any depth.
fn holds_string(value: &Json, text: &str) -> bool {
    match value {
        Json::String(found) => found.trim_start_matches('/') == text,
        Json::Array(items) => items.iter().any(|item| holds_string(item, text)),
        Json::Object(object) => object.iter().any(|(_, member)| holds_string(member, text)),
        _ => false,
    }
}

/// The tree depth a tool's template hangs a suffix on: the tree's prefix, a depth's parameters
/// (whole segments), then a literal segment.
fn suffix_depth(tool: &ManifestTool, tree: &Tree<'_>) -> Option<usize> {
    let segments = split_path(&tool.path_template);
    let (_, read) = tree.reads.iter().next()?;
    let literal = split_path(&read.path_template);
    if segments.get(..tree.prefix)? != literal.get(..tree.prefix)?
        || parameter_at(tool, tree.prefix).is_none()
    {
        return None;
    }
    let end = (tree.prefix..segments.len()).find(|index| parameter_at(tool, *index).is_none())?;
    let depth = end - tree.prefix;
    let whole = (tree.prefix..end)
        .all(|index| parameter_at(tool, index).is_some_and(|parameter| !parameter.is_fused()));
    (whole && tree.reads.contains_key(&depth)).then_some(depth)
}

/// The source's template moved onto the read's: the read's segments and parameters, then the
/// source's segments from `suffix_at` on, their parameters shifted by the depths' difference.
fn moved(
    source: &ManifestTool,
    suffix_at: usize,
    read: &ManifestTool,
) -> (String, Vec<PathParameter>) {
    let own = split_path(&source.path_template);
    let base = split_path(&read.path_template).len();
    let mut template = read.path_template.trim_end_matches('/').to_owned();
    for segment in &own[suffix_at..] {
        template.push('/');
        template.push_str(segment);
    }
    let mut parameters = read.path_parameters.clone();
    parameters.extend(
        source
            .path_parameters
            .iter()
            .filter(|parameter| parameter.segment_index >= suffix_at)
            .map(|parameter| PathParameter {
                segment_index: parameter.segment_index - suffix_at + base,
                ..parameter.clone()
            }),
    );
    (template, parameters)
}

/// Whether a tool has the template's form: as many segments, a parameter wherever the template
/// has one and its literal wherever it has one (a tool with a parameter where the template has a
/// literal routes fewer literals, so the offered tool takes those paths from it).
fn fits_template(tool: &ManifestTool, template: &str, parameters: &[PathParameter]) -> bool {
    let (left, right) = (split_path(&tool.path_template), split_path(template));
    let is_parameter = |index: usize| {
        parameters
            .iter()
            .any(|parameter| parameter.segment_index == index)
    };
    left.len() == right.len()
        && (0..left.len()).all(
            |index| match (parameter_at(tool, index), is_parameter(index)) {
                (Some(_), true) => true,
                (None, false) => left[index] == right[index],
                _ => false,
            },
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{record, templated_tool};

    fn tool(method: &str, name: &str, template: &str, ordinals: &[u64]) -> ManifestTool {
        templated_tool(method, name, template, "content", ordinals)
    }

    fn answer(ordinal: u64, method: &str, path: &str, body: &str) -> CaptureRecord {
        record(ordinal, method, &format!("http://app.test{path}"))
            .json(200, body)
            .build()
    }

    fn tree_tools() -> Vec<ManifestTool> {
        vec![
            tool("GET", "get_files", "/files", &[1]),
            tool("GET", "get_files_by_name", "/files/{a}", &[2]),
            tool("GET", "get_files_by_a_and_b", "/files/{a}/{b}", &[3]),
            tool("POST", "post_marks", "/files/{a}/{b}/marks", &[4]),
            tool("GET", "get_marks", "/files/{a}/{b}/marks", &[5]),
            tool("DELETE", "delete_mark", "/files/{a}/{b}/marks/{id}", &[6]),
            tool("GET", "get_marks_by_name", "/files/{a}/marks", &[]),
        ]
    }

    fn tree_records(deep_path: &str) -> Vec<CaptureRecord> {
        vec![
            answer(1, "GET", "/files", r#"{"content": [{"path": "a.md"}]}"#),
            answer(2, "GET", "/files/a.md", r#"{"path": "a.md"}"#),
            answer(
                3,
                "GET",
                "/files/notes/b.md",
                &format!(r#"{{"path": "{deep_path}"}}"#),
            ),
            answer(4, "POST", "/files/notes/b.md/marks", r#"{"id": "m"}"#),
            answer(5, "GET", "/files/notes/b.md/marks", r#"[{"id": "m"}]"#),
            answer(6, "DELETE", "/files/notes/b.md/marks/m", "{}"),
        ]
    }

    #[test]
    fn a_suffix_route_of_a_tree_is_offered_at_its_other_depths() {
        let tools = tree_tools();
        let offered = inferred_suffix_tools(&tools, &tree_records("notes/b.md"));
        let lines = crate::testing::inferred_lines(&offered);
        // The GET at depth one is already there; the root listing is no entry.
        assert_eq!(
            lines,
            vec![
                (
                    "POST",
                    "post_marks_depth_1",
                    "/files/{a}/marks",
                    Some("post_marks")
                ),
                (
                    "DELETE",
                    "delete_mark_depth_1",
                    "/files/{a}/marks/{id}",
                    Some("delete_mark")
                ),
            ]
        );
        let delete = &offered[1];
        let indexes: Vec<usize> = delete
            .path_parameters
            .iter()
            .map(|parameter| parameter.segment_index)
            .collect();
        assert_eq!(indexes, vec![1, 3]);
        assert!(delete.record_ordinals.is_empty());
        assert!(
            delete
                .query_parameters
                .iter()
                .all(|query| query.records == 0)
        );
    }

    #[test]
    fn reads_not_spelling_their_paths_make_no_tree() {
        // A two-level read whose answer does not spell its path: a database and its
        // documents, say, not a tree of documents.
        let offered = inferred_suffix_tools(&tree_tools(), &tree_records("b.md"));
        assert!(offered.is_empty(), "{offered:#?}");
    }
}

//! `folder-tree`: the entries of a folder tree are parameters, so one tool per depth reads, writes
//! and deletes every key or document of the tree, including those the recording never named in a
//! request line (`/v2/keys/config/web/theme` beside the recorded `/v2/keys/config/billing/currency`,
//! `/api/contents/archive/old-notes.md` beside `/api/contents/notes/todo.md`).
//!
//! 1. Listings: a recorded 2xx JSON answer of a `GET` at folder path `F` (its decoded segments, a
//!    trailing empty one dropped) lists an entry when a string it holds inside an array spells a
//!    path below `F`: the text (a leading `/` dropped) split at `/` starts with the last `n ≥ 1`
//!    segments of `F` and goes on (`/config/billing` in the listing of `…/keys/config`,
//!    `notes/todo.md` in the listing of `…/contents/notes`, `/services/api/node-1` in a recursive
//!    listing of `…/keys/services`): that names the entry `F` less those `n` segments, then the
//!    text's parts. Such a listing is *by path*, the evidence of a tree.
//! 2. Roots: a folder whose listing names entries by their name alone (`/config` in `…/keys/`,
//!    `notes` in `…/contents`: the text is one part, or a leading `/` and one part) lists them only
//!    when one of them is a folder that lists by path, so a list of names elsewhere makes nothing a
//!    parameter.
//! 3. Parameters: every still-literal segment of any route (any method) whose path up to and
//!    including it is a listed entry becomes a parameter. It takes the form a sibling route holds at
//!    that position (routes of one length equal elsewhere), so a listed name joins the tool of
//!    its recorded siblings, and otherwise the whole-segment rule `folder-tree`.
//! 4. Query families: the routes whose folder (a trailing empty segment dropped) is a listed entry
//!    or the root of the tree (the folder above an entry's shortest listed ancestor) are read
//!    with one query language, one family per root, so the tools of every depth take the query
//!    names any of them recorded (`recursive` recorded on `/v2/keys/config` is taken by the root
//!    `/v2/keys/`; `type` recorded on a document read by the `/api/contents` root).

use rea_plugin_api::contracts::capture::CompactString;
use std::collections::{BTreeMap, BTreeSet};

use rea_plugin_api::contracts::route::{
    RecordedRoute, RouteFormOutcome, RouteFormRequest, SegmentForm,
};
use rea_plugin_api::route_fields::{FORMAT_RULES, format_rule};
use rea_plugin_api::{PluginError, RouteForm};

use crate::routes::{Routes, Token, most_common};

/// The stage's name, also the rule of its parameters.
pub const FOLDER_TREE: &str = "folder-tree";

/// `folder-tree` (see the module docs).
pub struct FolderTree;

impl RouteForm for FolderTree {
    fn apply(&self, request: &RouteFormRequest) -> Result<RouteFormOutcome, PluginError> {
        let listed = listed_entries(&request.routes);
        let mut routes = Routes::new(request);
        let mut changes: Vec<(usize, usize, SegmentForm)> = Vec::new();
        for (index, route) in request.routes.iter().enumerate() {
            for position in 0..route.segments.len() {
                if !routes.open(index, position) {
                    continue;
                }
                let entry: Vec<&str> = route.decoded[..=position]
                    .iter()
                    .map(CompactString::as_str)
                    .collect();
                if listed.contains(&entry) {
                    let form = sibling_form(&routes, index, position)
                        .unwrap_or_else(|| SegmentForm::whole(FOLDER_TREE));
                    changes.push((index, position, form));
                }
            }
        }
        for (index, position, form) in changes {
            routes.set(index, position, &form);
        }
        let mut outcome = routes.outcome();
        outcome.query_families = query_families(&request.routes, &listed);
        Ok(outcome)
    }
}

/// The routes of each folder tree read with one query language (step 4 of the module docs): those
/// whose folder is a listed entry or the root of one, grouped by that root; a group of one route
/// is left out.
fn query_families(routes: &[RecordedRoute], listed: &BTreeSet<Vec<&str>>) -> Vec<Vec<usize>> {
    // The root of a listed entry: the folder above its shortest listed ancestor.
    let root_of = |entry: &[&str]| -> Option<Vec<String>> {
        (1..=entry.len())
            .find(|end| listed.contains(&entry[..*end]))
            .map(|end| {
                entry[..end - 1]
                    .iter()
                    .map(|part| (*part).to_owned())
                    .collect()
            })
    };
    let roots: BTreeSet<Vec<String>> = listed.iter().filter_map(|entry| root_of(entry)).collect();
    let mut families: BTreeMap<Vec<String>, Vec<usize>> = BTreeMap::new();
    for (index, route) in routes.iter().enumerate() {
        let folder = folder_of(route);
        let owned: Vec<String> = folder.iter().map(|part| (*part).to_owned()).collect();
        let root = if listed.contains(&folder) {
            root_of(&folder)
        } else {
            roots.contains(&owned).then_some(owned)
        };
        if let Some(root) = root {
            families.entry(root).or_default().push(index);
        }
    }
    families
        .into_values()
        .filter(|family| family.len() > 1)
        .collect()
}

/// A folder's decoded segments without a trailing empty one.
fn folder_of(route: &RecordedRoute) -> Vec<&str> {
    let mut folder: Vec<&str> = route.decoded.iter().map(CompactString::as_str).collect();
    if folder.last() == Some(&"") {
        folder.pop();
    }
    folder
}

/// The entry a listing text names below `folder`, and whether it names it by path (a run of the
/// folder's own segments first) rather than by name alone.
fn entry_of<'a>(folder: &[&'a str], text: &'a str) -> Option<(Vec<&'a str>, bool)> {
    let parts: Vec<&str> = text.strip_prefix('/').unwrap_or(text).split('/').collect();
    if parts.iter().any(|part| part.is_empty()) {
        return None;
    }
    // The longest run of the folder's last segments the text starts with, going on below it.
    for shared in (1..=folder.len().min(parts.len() - 1)).rev() {
        if folder[folder.len() - shared..] == parts[..shared] {
            let mut entry = folder[..folder.len() - shared].to_vec();
            entry.extend_from_slice(&parts);
            return Some((entry, true));
        }
    }
    (parts.len() == 1).then(|| {
        let mut entry = folder.to_vec();
        entry.push(parts[0]);
        (entry, false)
    })
}

/// Every entry a folder tree's listings name (see the module docs), each with its ancestors below
/// the listing folder.
fn listed_entries(routes: &[RecordedRoute]) -> BTreeSet<Vec<&str>> {
    let mut by_path: BTreeSet<Vec<&str>> = BTreeSet::new();
    let mut by_name: Vec<(Vec<&str>, Vec<&str>)> = Vec::new();
    for route in routes {
        if !route.method.eq_ignore_ascii_case("GET") || route.answer.json.is_none() {
            continue;
        }
        let folder = folder_of(route);
        let texts = route
            .answer
            .paths
            .iter()
            .chain(&route.answer.values)
            .filter(|value| value.in_array);
        for value in texts {
            match entry_of(&folder, &value.text) {
                Some((entry, true)) => {
                    for end in folder.len().min(entry.len())..entry.len() {
                        by_path.insert(entry[..=end].to_vec());
                    }
                }
                Some((entry, false)) => by_name.push((folder.clone(), entry)),
                None => {}
            }
        }
    }
    let folders: BTreeSet<Vec<&str>> = by_path
        .iter()
        .filter(|entry| entry.len() > 1)
        .map(|entry| entry[..entry.len() - 1].to_vec())
        .collect();
    let roots: BTreeSet<&Vec<&str>> = by_name
        .iter()
        .filter(|(_, entry)| folders.contains(entry))
        .map(|(folder, _)| folder)
        .collect();
    let named: Vec<Vec<&str>> = by_name
        .iter()
        .filter(|(folder, _)| roots.contains(folder))
        .map(|(_, entry)| entry.clone())
        .collect();
    by_path.extend(named);
    by_path
}

/// The form sibling routes hold at `position` (routes of the same length whose other tokens are
/// equal): the one most of them hold (the first in order among equals) whose rule the segment's
/// value fits (a format rule only for a value of that format).
pub(crate) fn sibling_form(
    routes: &Routes<'_>,
    index: usize,
    position: usize,
) -> Option<SegmentForm> {
    let length = routes.routes[index].segments.len();
    let others: Vec<Token<'_>> = routes.others(index, position);
    let value = routes.routes[index].decoded[position].as_str();
    let fits = |form: &SegmentForm| {
        !FORMAT_RULES.contains(&form.rule.as_str()) || format_rule(value) == Some(&form.rule)
    };
    let mut counts: BTreeMap<SegmentForm, usize> = BTreeMap::new();
    for other in 0..routes.routes.len() {
        if other == index || routes.routes[other].segments.len() != length {
            continue;
        }
        if let Some(form) = routes.form(other, position).filter(|form| fits(form))
            && routes.others(other, position) == others
        {
            *counts.entry(form.clone()).or_default() += 1;
        }
    }
    most_common(counts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routes::testing::route;
    use rea_plugin_api::contracts::route::AnswerValue;

    /// A `GET` listing the given `(pointer, text)` path runs.
    fn listing(path: &str, runs: &[(&str, &str)], names: &[(&str, &str)]) -> RecordedRoute {
        let mut listing = route("GET", path, Some(names));
        listing.answer.paths = runs
            .iter()
            .map(|(pointer, text)| AnswerValue {
                pointer: (*pointer).into(),
                in_array: true,
                text: (*text).into(),
            })
            .collect();
        listing
    }

    fn placeholders(request: &RouteFormRequest) -> Vec<(usize, usize, String)> {
        FolderTree
            .apply(request)
            .expect("the form answers")
            .changes
            .into_iter()
            .map(|change| (change.route, change.segment, change.form.placeholder()))
            .collect()
    }

    fn request(routes: Vec<RecordedRoute>) -> RouteFormRequest {
        RouteFormRequest {
            options: Default::default(),
            routes,
            schema_version: 1,
        }
    }

    /// The root `/keys/` listing `/config` by name, and `/keys/config` listing these path runs.
    fn key_listings(config: &[(&str, &str)]) -> Vec<RecordedRoute> {
        vec![
            listing("/keys/", &[("/node/nodes/0/key", "/config")], &[]),
            listing("/keys/config", config, &[]),
        ]
    }

    #[test]
    fn entries_listed_by_path_and_their_root_become_parameters() {
        let mut routes = key_listings(&[
            ("/node/nodes/0/key", "/config/billing"),
            ("/node/nodes/0/nodes/0/key", "/config/billing/currency"),
        ]);
        routes.extend([
            route("GET", "/keys/config/billing/currency", Some(&[])),
            route("PUT", "/keys/config/billing/currency", None),
            route("GET", "/keys/status", Some(&[])),
        ]);
        let changes = placeholders(&request(routes));
        let tree = "{folder-tree}".to_owned();
        assert_eq!(
            changes,
            vec![
                (1, 1, tree.clone()),
                (2, 1, tree.clone()),
                (2, 2, tree.clone()),
                (2, 3, tree.clone()),
                (3, 1, tree.clone()),
                (3, 2, tree.clone()),
                (3, 3, tree),
            ],
            "keys and status are listed by no folder"
        );
    }

    #[test]
    fn the_root_and_the_entries_of_a_tree_share_one_query_family() {
        let mut routes = key_listings(&[("/node/nodes/0/key", "/config/billing")]);
        routes.extend([
            route("GET", "/keys/config/billing", Some(&[])),
            route("GET", "/keys/config/billing/history", Some(&[])),
            route("GET", "/status", Some(&[])),
            route("DELETE", "/keys/config", None),
        ]);
        let outcome = FolderTree
            .apply(&request(routes))
            .expect("the form answers");
        assert_eq!(
            outcome.query_families,
            vec![vec![0, 1, 2, 5]],
            "below an entry no listing names, and outside the tree, no family"
        );
        let unrelated = vec![
            route("GET", "/api/projects", Some(&[("/0/name", "web")])),
            route("GET", "/api/projects/web", Some(&[])),
        ];
        let outcome = FolderTree.apply(&request(unrelated)).expect("answers");
        assert!(outcome.query_families.is_empty());
    }

    #[test]
    fn names_alone_make_no_tree() {
        let routes = vec![
            route("GET", "/api/projects", Some(&[("/0/name", "web")])),
            route("GET", "/api/projects/web", Some(&[])),
        ];
        assert!(placeholders(&request(routes)).is_empty());
    }

    #[test]
    fn a_listed_name_joins_the_form_of_its_recorded_siblings() {
        let folder = Some(SegmentForm::whole("prefix-variance"));
        let mut sibling = route("GET", "/api/contents/notes/todo.md", Some(&[]));
        sibling.forms[2] = folder.clone();
        sibling.forms[3] = Some(SegmentForm::whole("sibling-variance"));
        let mut renamed = route("GET", "/api/contents/archive/old-notes.md", Some(&[]));
        renamed.forms[2] = folder.clone();
        // A sibling whose form is a format rule the listed name does not fit.
        let mut numbered = route("GET", "/api/contents/reports/2026", Some(&[]));
        numbered.forms[2] = folder;
        numbered.forms[3] = Some(SegmentForm::whole("numeric"));
        let routes = vec![
            listing(
                "/api/contents",
                &[],
                &[("/content/0/path", "notes"), ("/content/1/path", "archive")],
            ),
            listing(
                "/api/contents/archive",
                &[("/content/0/path", "archive/old-notes.md")],
                &[],
            ),
            listing(
                "/api/contents/notes",
                &[("/content/0/path", "notes/todo.md")],
                &[],
            ),
            sibling,
            renamed,
            numbered,
        ];
        let changes = placeholders(&request(routes));
        assert!(
            changes.contains(&(4, 3, "{sibling-variance}".to_owned())),
            "{changes:?}"
        );
        assert!(
            changes.contains(&(1, 2, "{folder-tree}".to_owned())),
            "a listed folder without a templated sibling: {changes:?}"
        );
        assert!(
            !changes
                .iter()
                .any(|(route, segment, _)| *route == 3 && *segment == 3),
            "a segment with a form keeps it"
        );
    }

    #[test]
    fn entry_texts_name_paths_below_the_folder() {
        let folder = ["v2", "keys", "config"];
        assert_eq!(
            entry_of(&folder, "/config/billing"),
            Some((vec!["v2", "keys", "config", "billing"], true))
        );
        assert_eq!(
            entry_of(&folder, "billing"),
            Some((vec!["v2", "keys", "config", "billing"], false))
        );
        assert_eq!(entry_of(&folder, "a//b"), None);
        assert_eq!(entry_of(&folder, "other/x"), None);
    }
}

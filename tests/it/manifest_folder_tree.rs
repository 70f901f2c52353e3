//! The `folder-tree` route form on real recordings: the entries of a folder tree whose listings name
//! them by path become parameters, so one tool per depth serves every key or document, including
//! those the recording never named in a request line. Tested on etcd's v2 key space (directories
//! listing `/config/billing`, recursively `/config/billing/currency`) and on jupyter_server's
//! contents API (folders listing `notes/todo.md`); on recordings without a folder tree the form
//! proposes nothing. The tools of every depth and the root take the query names any of them
//! recorded (one query family per tree).

use std::path::PathBuf;

use rea_manifest::{Manifest, ManifestTool};
use rea_plugin_api::route_fields::{FORMAT_RULES, format_rule};

use crate::state_support::{Served, capture_file, serve_evidence, state_rules};

fn corpus(app: &str, file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("corpus/apps")
        .join(app)
        .join(file)
}

fn served(app: &str) -> Served {
    serve_evidence(
        capture_file(&corpus(app, "build.har")),
        state_rules(),
        Default::default(),
    )
}

/// Whether a path template matches a request path: literal segments equal, each parameter a
/// non-empty value between its literal prefix and suffix, of its format for a format rule.
fn matches(template: &str, path: &str) -> bool {
    let path = path.split('?').next().unwrap_or(path);
    let template: Vec<&str> = template.split('/').collect();
    let path: Vec<&str> = path.split('/').collect();
    template.len() == path.len()
        && template.iter().zip(&path).all(|(part, segment)| {
            match (part.find('{'), part.rfind('}')) {
                (Some(open), Some(close)) => {
                    let (prefix, suffix) = (&part[..open], &part[close + 1..]);
                    let value = segment
                        .strip_prefix(prefix)
                        .and_then(|rest| rest.strip_suffix(suffix))
                        .unwrap_or_default();
                    let rule = &part[open + 1..close];
                    !value.is_empty()
                        && (!FORMAT_RULES.contains(&rule) || format_rule(value) == Some(rule))
                }
                _ => part == segment,
            }
        })
}

/// The tools of a method whose template matches a path.
fn tools_for<'m>(manifest: &'m Manifest, method: &str, path: &str) -> Vec<&'m ManifestTool> {
    manifest
        .tools
        .iter()
        .filter(|tool| tool.method == method && matches(&tool.path_template, path))
        .collect()
}

/// The recorded paths a tool cites.
fn cited_paths(served: &Served, tool: &ManifestTool) -> Vec<String> {
    tool.record_ordinals
        .iter()
        .filter_map(|ordinal| {
            served
                .records
                .iter()
                .find(|record| record.ordinal == *ordinal)
        })
        .filter_map(|record| record.path.as_deref().map(str::to_owned))
        .collect()
}

pub(crate) fn tool<'m>(manifest: &'m Manifest, method: &str, template: &str) -> &'m ManifestTool {
    manifest
        .tools
        .iter()
        .find(|tool| tool.method == method && tool.path_template == template)
        .unwrap_or_else(|| {
            let templates: Vec<String> = manifest
                .tools
                .iter()
                .map(|tool| format!("{} {}", tool.method, tool.path_template))
                .collect();
            panic!("no {method} {template}: {templates:#?}")
        })
}

#[test]
fn etcd_keys_of_one_depth_share_one_tool_and_unread_keys_have_it() {
    let served = served("etcd");
    let manifest = &served.manifest;
    assert_eq!(
        manifest.route_forms,
        vec!["folder-tree", "fused-affix", "listed-id", "member-key"]
    );
    let leaves = tool(
        manifest,
        "GET",
        "/v2/keys/{folder-tree}/{folder-tree}/{folder-tree}",
    );
    let cited = cited_paths(&served, leaves);
    for key in [
        "/v2/keys/config/billing/currency",
        "/v2/keys/config/billing/tax_rate",
        "/v2/keys/services/api/node-1",
        "/v2/keys/services/worker/node-1",
    ] {
        assert!(cited.iter().any(|path| path == key), "{key}: {cited:?}");
    }
    // Keys and directories the build never named in a request line (its listings show them, or
    // they are new): each has exactly one tool.
    for (method, path) in [
        ("GET", "/v2/keys/config/web?sorted=true"),
        ("GET", "/v2/keys/config/web/theme"),
        ("GET", "/v2/keys/config/billing/invoice_prefix"),
        ("GET", "/v2/keys/flags/purple"),
        ("GET", "/v2/keys/archive"),
        ("PUT", "/v2/keys/flags/maintenance?prevExist=false"),
        ("PUT", "/v2/keys/config/web/theme?prevValue=light"),
        ("DELETE", "/v2/keys/flags/dark-mode?prevValue=off"),
    ] {
        let found = tools_for(manifest, method, path);
        assert_eq!(found.len(), 1, "{method} {path}: {found:#?}");
    }
    // No key below the root stays a literal route; the root and the v3 gateway keep theirs.
    for tool in &manifest.tools {
        if let Some(below) = tool.path_template.strip_prefix("/v2/keys/") {
            assert!(
                below.is_empty() || below.starts_with('{'),
                "{} {}",
                tool.method,
                tool.path_template
            );
        }
    }
    tool(manifest, "GET", "/v2/keys/");
    tool(manifest, "POST", "/v3/kv/range");
}

#[test]
fn jupyter_a_listed_document_joins_the_tool_of_its_siblings() {
    let served = served("jupyter_server");
    let manifest = &served.manifest;
    let documents = tool(
        manifest,
        "GET",
        "/api/contents/{prefix-variance}/{sibling-variance}",
    );
    let cited = cited_paths(&served, documents);
    for path in [
        "/api/contents/notes/todo.md",
        "/api/contents/archive/old-notes.md",
    ] {
        assert!(cited.iter().any(|cited| cited == path), "{path}: {cited:?}");
    }
    assert!(
        !manifest
            .tools
            .iter()
            .any(|tool| tool.path_template.contains("old-notes.md")),
        "the archive listing names old-notes.md: no literal route of its own"
    );
    // What no listing names stays literal: the checkpoints of a file are no folder entry.
    tool(
        manifest,
        "GET",
        "/api/contents/{prefix-variance}/{prefix-variance}/checkpoints",
    );
    for path in [
        "/api/contents/notes/ideas.txt",
        "/api/contents/archive/old-notes.md",
    ] {
        assert_eq!(tools_for(manifest, "GET", path).len(), 1, "{path}");
    }
}

/// How many parameters `folder-tree` proposes for an app's build capture.
fn folder_changes(app: &str) -> usize {
    crate::manifest_route_forms::corpus_form_changes(app, "folder-tree").len()
}

#[test]
fn the_form_proposes_parameters_only_on_folder_trees() {
    assert!(folder_changes("etcd") > 0);
    assert!(folder_changes("jupyter_server") > 0);
    for app in ["datasette", "json-server-v1", "directus"] {
        assert_eq!(folder_changes(app), 0, "{app} has no folder tree");
    }
}

/// The query names a tool takes, as recorded on its own records or shared (`records` 0).
fn query_names(tool: &ManifestTool) -> Vec<(&str, u64)> {
    tool.query_parameters
        .iter()
        .map(|parameter| (parameter.name.as_str(), parameter.records))
        .collect()
}

#[test]
fn the_root_of_a_folder_tree_takes_the_query_names_of_its_entries() {
    // etcd: `recursive` was recorded on the config and services directories only; the root
    // (read with `sorted` alone) takes it too, so the state is asked a recursive root read.
    let etcd = served("etcd");
    let root = tool(&etcd.manifest, "GET", "/v2/keys/");
    assert_eq!(query_names(root), [("sorted", 1), ("recursive", 0)]);
    let folders = tools_for(&etcd.manifest, "GET", "/v2/keys/config");
    assert_eq!(folders.len(), 1);
    assert!(
        query_names(folders[0])
            .iter()
            .any(|(name, records)| *name == "recursive" && *records > 0),
        "{:?}",
        query_names(folders[0])
    );
    // Writes share among writes only: no read's query name reaches a delete.
    for delete in etcd.manifest.tools.iter().filter(|t| t.method == "DELETE") {
        assert!(
            query_names(delete)
                .iter()
                .all(|(name, _)| *name != "sorted"),
            "{}: {:?}",
            delete.path_template,
            query_names(delete)
        );
    }
    // Writes share among every write method: `prevValue` (recorded on PUTs) reaches the deletes
    // and `recursive` (recorded on a delete) the PUTs; no write's query name reaches a read.
    for write in etcd.manifest.tools.iter().filter(|t| {
        ["PUT", "DELETE", "POST"].contains(&t.method.as_str())
            && t.path_template.starts_with("/v2/")
    }) {
        let names: Vec<&str> = query_names(write).iter().map(|(name, _)| *name).collect();
        for name in ["prevValue", "prevIndex", "prevExist", "recursive"] {
            assert!(
                names.contains(&name),
                "{} {}: {names:?}",
                write.method,
                write.path_template
            );
        }
    }
    for read in etcd.manifest.tools.iter().filter(|t| t.method == "GET") {
        assert!(
            query_names(read)
                .iter()
                .all(|(name, _)| !name.starts_with("prev")),
            "{}: {:?}",
            read.path_template,
            query_names(read)
        );
    }
    // jupyter_server: `type` and `format` were recorded on a file read, `hash` on README.md and
    // `content` on folders; the root listing `/api/contents` (read without a query) takes them.
    let jupyter = served("jupyter_server");
    let root = tool(&jupyter.manifest, "GET", "/api/contents");
    let names: Vec<&str> = query_names(root).iter().map(|(name, _)| *name).collect();
    for name in ["type", "format", "hash", "content"] {
        assert!(names.contains(&name), "{name}: {names:?}");
    }
    // What no listing names takes nothing: the checkpoints of a file are no folder entry.
    let checkpoints = tool(
        &jupyter.manifest,
        "GET",
        "/api/contents/{prefix-variance}/{prefix-variance}/checkpoints",
    );
    assert!(query_names(checkpoints).is_empty(), "{checkpoints:?}");
}

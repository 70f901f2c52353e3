//! Folder entries on real recordings: a read tool answering from its recordings answers a key or
//! document the build's folder listings show, learned only where the tool's own reads agree with
//! the listing entries. etcd's v2 keys read as etcd answers them (the recursive listing of
//! `/v2/keys/config` shows `config/web/theme`, which the build never read directly); on
//! jupyter_server the folder listings show files without their content (`content: null`), as the
//! item views' reads with `content=0` do: that query answers any listed document or folder as its
//! folder lists it, while the plain reads stay the item views'. Folder listings composed from
//! those entries (`rea_state::listings`): etcd's folders read with `sorted=true` list flat and
//! with `recursive=true&sorted=true` deep, so a folder the build listed only flat answers deep;
//! jupyter_server's listings hold no child's children, so none is composed. The root and the tools
//! of every depth take each other's query names: etcd's root asked recursively composes its deep
//! listing, and a name a tool took without a read showing it is refused (`shared-query`).

use std::path::PathBuf;

use rea_manifest::catalog::ArgumentTarget;
use serde_json::{Map, Value, json};

use crate::state_support::{Served, capture_file, serve_evidence, state_rules};

fn served(app: &str) -> Served {
    let build = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("corpus/apps")
        .join(app)
        .join("build.har");
    serve_evidence(capture_file(&build), state_rules(), Default::default())
}

/// The tool of a method whose template has as many segments as the path (the one of `template`
/// when given), and the arguments naming the path's segments and query pairs.
pub(crate) fn call_for(
    served: &Served,
    method: &str,
    target: &str,
    template: Option<&str>,
) -> (String, Map<String, Value>) {
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let wanted = template;
    let tool = served
        .manifest
        .tools
        .iter()
        .find(|tool| {
            let template: Vec<&str> = tool
                .path_template
                .trim_start_matches('/')
                .split('/')
                .collect();
            tool.method == method
                && wanted.is_none_or(|wanted| wanted == tool.path_template)
                && template.len() == segments.len()
                && template
                    .iter()
                    .zip(&segments)
                    .all(|(part, segment)| part.starts_with('{') || part == segment)
        })
        .unwrap_or_else(|| panic!("no tool for {method} {target}"));
    let definition = served
        .replay
        .tool(&tool.name)
        .expect("the tool's definition");
    let mut arguments = Map::new();
    for argument in &definition.input_schema.arguments {
        if let ArgumentTarget::Path { segment_index, .. } = &argument.target {
            arguments.insert(argument.name.clone(), json!(segments[*segment_index]));
        }
    }
    for pair in query.split('&').filter(|pair| !pair.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        arguments.insert(name.to_owned(), json!(value));
    }
    (tool.name.clone(), arguments)
}

/// The answer of a `GET` the state answers (see [`call_for`]).
fn from_state(served: &Served, target: &str, template: Option<&str>) -> Value {
    let (tool, arguments) = call_for(served, "GET", target, template);
    let (answer, is_error) = served.call(&tool, arguments);
    assert!(!is_error, "{target}: {answer}");
    assert_eq!(answer["state"]["source"], "state", "{target}: {answer}");
    answer
}

/// The keys an etcd folder answer lists.
fn node_keys(answer: &Value) -> Vec<&str> {
    answer["body"]["node"]["nodes"]
        .as_array()
        .expect("the folder's keys")
        .iter()
        .filter_map(|node| node["key"].as_str())
        .collect()
}

#[test]
fn etcd_keys_the_build_never_read_answer_from_its_listings() {
    let served = served("etcd");
    let learned: Vec<(&str, &str, &str)> = served
        .state()
        .folder_entries
        .iter()
        .map(|entries| {
            (
                entries.prefix.as_str(),
                entries.pointer.as_str(),
                entries.member.as_str(),
            )
        })
        .collect();
    assert!(!learned.is_empty());
    assert!(
        learned
            .iter()
            .all(|learned| *learned == ("/v2/keys", "/node", "key")),
        "{learned:?}"
    );
    // A key below config/web: only the build's recursive listing of config shows it.
    let (tool, arguments) = call_for(&served, "GET", "/v2/keys/config/web/theme", None);
    let (answer, is_error) = served.call(&tool, arguments);
    assert!(!is_error, "{answer}");
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    assert_eq!(
        answer["body"],
        json!({"action": "get", "node": {"key": "/config/web/theme", "value": "light", "modifiedIndex": 7, "createdIndex": 7}})
    );
    // A directory with its keys, sorted as the build's sorted reads were.
    let (tool, arguments) = call_for(&served, "GET", "/v2/keys/services/api?sorted=true", None);
    let (answer, is_error) = served.call(&tool, arguments);
    assert!(!is_error, "{answer}");
    let keys = node_keys(&answer);
    assert_eq!(keys, vec!["/services/api/node-1", "/services/api/node-2"]);
    // The seed's key the build deleted later: the listing before the delete shows it.
    let (tool, arguments) = call_for(&served, "GET", "/v2/keys/flags/beta-search", None);
    let (answer, _) = served.call(&tool, arguments);
    assert_eq!(answer["body"]["node"]["value"], "off", "{answer}");
    // No agreeing read sent that query: never another key's answer (a key no listing shows
    // answers the tree's missing answer, `state_unlisted_documents`).
    let target = "/v2/keys/flags/dark-mode?quorum=true";
    let (tool, arguments) = call_for(&served, "GET", target, None);
    let (answer, is_error) = served.call(&tool, arguments);
    assert!(
        is_error || answer["state"]["source"] != "state",
        "{target}: {answer}"
    );
}

#[test]
fn jupyter_documents_asked_without_content_answer_as_their_folder_lists_them() {
    let served = served("jupyter_server");
    // content=0 (read on data and on notes/todo.md) shows the document as its folder's listing
    // does; the plain reads show the content, which the listings leave null: they teach nothing.
    let learned = &served.state().folder_entries;
    let tools: Vec<&str> = learned
        .iter()
        .map(|entries| entries.tool.as_str())
        .collect();
    assert_eq!(
        tools.len(),
        2,
        "one per item view read with content=0: {tools:?}"
    );
    let content_0: std::collections::BTreeSet<(String, String)> =
        [("content".to_owned(), "0".to_owned())].into();
    for entries in learned {
        assert_eq!(entries.prefix, "/api/contents", "{tools:?}");
        assert_eq!(entries.member, "path", "{tools:?}");
        assert!(entries.exact_query, "{tools:?}");
        assert_eq!(entries.query, content_0, "{tools:?}");
    }
    // A notebook and a folder the build never asked without content: the root listing's entries.
    for (target, size) in [
        ("/api/contents/analysis.ipynb?content=0", json!(548)),
        ("/api/contents/reports?content=0", Value::Null),
    ] {
        let (tool, arguments) = call_for(&served, "GET", target, None);
        let (answer, is_error) = served.call(&tool, arguments);
        assert!(!is_error, "{target}: {answer}");
        assert_eq!(answer["state"]["source"], "state", "{target}: {answer}");
        assert_eq!(answer["body"]["content"], Value::Null, "{target}: {answer}");
        assert_eq!(answer["body"]["format"], Value::Null, "{target}: {answer}");
        assert_eq!(answer["body"]["size"], size, "{target}: {answer}");
    }
    // A file the notes listing shows, asked without content: its listing entry.
    let two_levels = Some("/api/contents/{prefix-variance}/{sibling-variance}");
    let answer = from_state(
        &served,
        "/api/contents/notes/ideas.txt?content=0",
        two_levels,
    );
    assert_eq!(answer["body"]["path"], "notes/ideas.txt", "{answer}");
    assert_eq!(answer["body"]["size"], 29, "{answer}");
    // The plain read of the notebook still shows its content (the item view).
    let (tool, arguments) = call_for(&served, "GET", "/api/contents/analysis.ipynb", None);
    let (answer, _) = served.call(&tool, arguments);
    assert!(answer["body"]["content"].is_object(), "{answer}");
    // With its content, the file the build never read stays unanswered from the state; another
    // query than the learned one is not answered from a listing.
    for target in [
        "/api/contents/notes/ideas.txt",
        "/api/contents/notes/ideas.txt?content=0&hash=1",
    ] {
        let (tool, arguments) = call_for(&served, "GET", target, two_levels);
        let (answer, is_error) = served.call(&tool, arguments);
        assert!(
            is_error || answer["status"] == 404 || answer["state"]["source"] != "state",
            "{target}: {answer}"
        );
    }
}

#[test]
fn etcd_folders_compose_their_listings_at_the_depth_the_build_read_them() {
    let served = served("etcd");
    let listings = &served.state().folder_listings;
    assert_eq!(listings.len(), 1, "{listings:?}");
    let listing = &listings[0];
    assert_eq!(
        (listing.prefix.as_str(), listing.children.as_str()),
        ("/v2/keys", "nodes")
    );
    let learned: Vec<(Vec<(String, String)>, bool)> = listing
        .queries
        .iter()
        .map(|query| (query.query.iter().cloned().collect(), query.deep))
        .collect();
    let pair = |name: &str| (name.to_owned(), "true".to_owned());
    assert_eq!(
        learned,
        vec![
            (vec![pair("recursive"), pair("sorted")], true),
            (vec![pair("sorted")], false),
        ]
    );
    // The build listed flags flat only: asked recursively, it answers from the entries.
    let answer = from_state(&served, "/v2/keys/flags?recursive=true&sorted=true", None);
    assert_eq!(answer["body"]["action"], "get");
    assert_eq!(answer["body"]["node"]["key"], "/flags");
    let keys = node_keys(&answer);
    assert_eq!(
        keys,
        vec![
            "/flags/beta-search",
            "/flags/dark-mode",
            "/flags/new-checkout"
        ]
    );
    // A query no listing read sent is never answered with another query's listing.
    let (tool, arguments) = call_for(&served, "GET", "/v2/keys/queue", None);
    let (answer, is_error) = served.call(&tool, arguments);
    assert!(is_error || answer["state"]["source"] != "state", "{answer}");
}

#[test]
fn jupyter_listings_leave_children_unlisted_and_compose_nothing() {
    // jupyter_server's folder listings show each child with `content: null`: no listed entry
    // holds its own children, so no folder listing is composed (its folders are item views).
    let served = served("jupyter_server");
    assert!(
        served.state().folder_listings.is_empty(),
        "{:?}",
        served.state().folder_listings
    );
}

#[test]
fn etcd_the_root_asked_recursively_composes_its_deep_listing() {
    // The root tool took `recursive` from the folder tools (one query family), so the state is
    // asked; the build read the root only with `sorted=true`.
    let served = served("etcd");
    let answer = from_state(&served, "/v2/keys/?recursive=true&sorted=true", None);
    assert_eq!(answer["body"]["node"]["dir"], true);
    let top = node_keys(&answer);
    assert!(
        top.contains(&"/config") && top.contains(&"/services"),
        "{top:?}"
    );
    let config = answer["body"]["node"]["nodes"]
        .as_array()
        .and_then(|nodes| nodes.iter().find(|node| node["key"] == "/config"))
        .expect("the config directory");
    assert!(
        config["nodes"]
            .as_array()
            .is_some_and(|nodes| !nodes.is_empty()),
        "deep: {config}"
    );
}

#[test]
fn jupyter_query_names_taken_from_the_family_are_never_answered_as_absent() {
    // `hash` was recorded on README.md only and `type` on a file read of another depth: the tools
    // that took them from the query family hold no read showing what they do there, so the state
    // refuses (the app answers a 400 not-a-file; a folder holds no text to digest), never the
    // plain listing as though the name were absent. (A `type` the root model restates is
    // answered: see state_restated_list_query; a document's `hash=1` is a digest query: see
    // state_digest_conflicts.)
    let served = served("jupyter_server");
    for (target, template) in [
        ("/api/contents/notes?type=file", None),
        ("/api/contents?hash=1", None),
    ] {
        let (tool, arguments) = call_for(&served, "GET", target, template);
        let (answer, is_error) = served.call(&tool, arguments);
        assert!(is_error, "{target}: {answer}");
        assert_eq!(
            answer["error"]["code"], "not_modelled",
            "{target}: {answer}"
        );
        assert_eq!(
            answer["error"]["data"]["reason"], "shared-query",
            "{target}: {answer}"
        );
    }
}

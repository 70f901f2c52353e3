//! The `listed-id` route form on real recordings: an item segment the build named once, in no
//! format a rule knows, becomes a parameter when its collection's listing names it by the member
//! the item answers with, or when a sibling route's parameter took that value; the tool then
//! serves every item from the state, and a write through it changes the state the reads show.

use serde_json::{Map, Value};

use rea_manifest::{Manifest, ManifestTool};

use crate::state_support::{Served, serve_corpus_app};

fn tool<'m>(manifest: &'m Manifest, method: &str, template: &str) -> &'m ManifestTool {
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

/// Calls a tool whose one path parameter takes `value`.
fn call_with(served: &Served, tool: &ManifestTool, value: &str) -> (Value, bool) {
    let definition = served
        .replay
        .tool(&tool.name)
        .expect("the tool's definition");
    let mut arguments = Map::new();
    for argument in &definition.input_schema.arguments {
        if matches!(
            argument.target,
            rea_manifest::catalog::ArgumentTarget::Path { .. }
        ) {
            arguments.insert(argument.name.clone(), Value::String(value.to_owned()));
        }
    }
    assert_eq!(arguments.len(), 1, "{}: one path argument", tool.name);
    served.call(&tool.name, arguments)
}

/// The status of a state answer (the recorded status of a missing entity, or 200).
fn status(answer: &Value) -> Option<u64> {
    answer["status"].as_u64()
}

#[test]
fn an_item_its_collection_lists_has_one_tool_for_every_listed_item() {
    // A collection whose listing names its items by `id`, read once by id.
    let served = serve_corpus_app("json-server-v1");
    let agents = tool(&served.manifest, "GET", "/agents/{listed-id}");
    assert_eq!(agents.path_parameters.len(), 1);
    assert_eq!(agents.path_parameters[0].observed_values, vec!["a2"]);
    let (answer, is_error) = call_with(&served, agents, "a3");
    assert!(!is_error, "{answer}");
    assert_eq!(answer["body"]["id"], "a3", "{answer}");
    assert_eq!(answer["body"]["name"], "Oli", "{answer}");
    // The build never showed this collection's missing-item answer: a structured refusal, never
    // another agent's recording.
    let (missing, is_error) = call_with(&served, agents, "zz9");
    assert!(is_error, "{missing}");
    assert_eq!(missing["error"]["code"], "not_found", "{missing}");

    // A bucket listing naming its buckets by `id`, the bucket answering `{"data": {"id": …}}`.
    let kinto = serve_corpus_app("kinto");
    let buckets = tool(&kinto.manifest, "GET", "/v1/buckets/{listed-id}");
    assert_eq!(
        buckets.path_parameters[0].observed_values,
        vec!["workspace"]
    );
    let (answer, is_error) = call_with(&kinto, buckets, "workspace");
    assert!(!is_error, "{answer}");
    assert_eq!(answer["body"]["data"]["id"], "workspace", "{answer}");
}

#[test]
fn names_no_listing_shows_as_items_stay_literal() {
    let served = serve_corpus_app("json-server-v1");
    assert!(
        served
            .manifest
            .tools
            .iter()
            .any(|tool| tool.method == "GET" && tool.path_template == "/settings"),
        "the singular resource keeps its literal route"
    );
    let verdaccio = serve_corpus_app("verdaccio");
    assert!(
        verdaccio
            .manifest
            .tools
            .iter()
            .all(|tool| !tool.path_template.contains("{listed-id}")),
        "package names no listing holds as items stay as the other rules left them"
    );
}

#[test]
fn a_delete_through_a_sibling_route_of_a_read_title_serves_every_title() {
    let served = serve_corpus_app("tiddlywiki");
    let delete = tool(
        &served.manifest,
        "DELETE",
        "/bags/default/tiddlers/{sibling-variance}",
    );
    assert_eq!(
        delete.path_parameters[0].observed_values,
        vec!["Call%20the%20plumber"]
    );
    let read = tool(
        &served.manifest,
        "GET",
        "/recipes/default/tiddlers/{sibling-variance}",
    );
    let (before, _) = call_with(&served, read, "Welcome");
    assert_eq!(before["body"]["title"], "Welcome", "{before}");
    let (deleted, is_error) = call_with(&served, delete, "Welcome");
    assert!(!is_error, "a title the build never deleted: {deleted}");
    let (after, _) = call_with(&served, read, "Welcome");
    assert_eq!(status(&after), Some(404), "{after}");
    let (other, _) = call_with(&served, read, "Buy milk");
    assert_eq!(other["body"]["title"], "Buy milk", "{other}");
}

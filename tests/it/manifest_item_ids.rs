//! Item ids outside a learned format on real recordings. The `listed-id` route form: an item
//! segment the build named once, in no format a rule knows, becomes a parameter when its
//! collection's listing names it by the member the item answers with, or when a sibling route's
//! parameter took that value; the tool then serves every item from the state, and a write through
//! it changes the state the reads show. `sibling-variance`: one collection's ids in two shapes
//! (digits beside words or UUIDs) are one parameter, so one tool answers every id.

use serde_json::Value;

use rea_manifest::{Manifest, ManifestTool};

use crate::manifest_folder_tree::tool;
use crate::state_folder_entries::call_for;
use crate::state_support::{Served, serve_corpus_app};

/// Calls a tool whose one path parameter takes `value`.
fn call_with(served: &Served, tool: &ManifestTool, value: &str) -> (Value, bool) {
    let path: Vec<&str> = tool
        .path_template
        .split('/')
        .map(|segment| {
            if segment.starts_with('{') {
                value
            } else {
                segment
            }
        })
        .collect();
    let (name, arguments) = call_for(
        served,
        &tool.method,
        &path.join("/"),
        Some(&tool.path_template),
    );
    served.call(&name, arguments)
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

/// The `GET` tools whose template is `prefix` and one more segment.
fn item_tools<'m>(manifest: &'m Manifest, prefix: &str) -> Vec<&'m ManifestTool> {
    let depth = prefix.matches('/').count();
    manifest
        .tools
        .iter()
        .filter(|tool| {
            tool.method == "GET"
                && tool.path_template.starts_with(prefix)
                && tool.path_template.matches('/').count() == depth
        })
        .collect()
}

#[test]
fn ids_of_one_collection_in_two_shapes_share_one_tool() {
    // Seeded ids of digits beside generated ids of hex letters.
    let served = serve_corpus_app("json-server-v1");
    let tickets = item_tools(&served.manifest, "/tickets/");
    assert_eq!(tickets.len(), 1, "{tickets:#?}");
    assert_eq!(tickets[0].path_template, "/tickets/{sibling-variance}");
    let observed = &tickets[0].path_parameters[0].observed_values;
    assert!(observed.iter().any(|id| id == "101") && observed.iter().any(|id| id == "728c"));
    // No ticket c1: the missing-ticket answer the build showed, from the state.
    let (answer, _) = call_with(&served, tickets[0], "c1");
    assert_eq!(status(&answer), Some(404), "{answer}");
    assert_eq!(answer["state"]["view"], "missing", "{answer}");
    let (answer, is_error) = call_with(&served, tickets[0], "104");
    assert!(!is_error, "{answer}");
    assert_eq!(answer["body"]["id"], "104", "{answer}");

    // Documents at chosen names beside documents at generated UUIDs.
    let pouchdb = serve_corpus_app("pouchdb-server");
    assert!(
        pouchdb
            .manifest
            .tools
            .iter()
            .all(|tool| tool.path_template != "/{prefix-variance}/{uuid}"),
        "no tool for the UUID-shaped documents alone"
    );
    let documents = [tool(
        &pouchdb.manifest,
        "GET",
        "/{prefix-variance}/{sibling-variance}",
    )];
    let observed = &documents[0].path_parameters[1].observed_values;
    assert!(
        observed
            .iter()
            .any(|id| rea_plugin_api::route_fields::format_rule(id) == Some("uuid")),
        "{observed:?}"
    );
    assert!(
        observed
            .iter()
            .any(|id| rea_plugin_api::route_fields::format_rule(id).is_none()),
        "{observed:?}"
    );
}

#[test]
fn an_action_on_an_item_an_item_route_took_shares_its_parameter() {
    // A composite row key the row route took (`6,infra` of `/tracker/task_tags/6,infra.json`)
    // before a delete action: one delete tool for every row.
    let datasette = serve_corpus_app("datasette");
    let delete = tool(
        &datasette.manifest,
        "POST",
        "/tracker/task_tags/{fused-affix}/-/delete",
    );
    assert_eq!(delete.path_parameters.len(), 1, "{delete:#?}");
    // A tarball file name the tarball route spells (`date-helpers-1.0.0.tgz`) before its
    // revision: the tarball delete takes the tarball route's fused parameter (the package name
    // part of the id: it spells the route's own `{name}`).
    let verdaccio = serve_corpus_app("verdaccio");
    let tarball_delete = tool(
        &verdaccio.manifest,
        "DELETE",
        "/{prefix-variance}/-/{fused-affix}.tgz/-rev/{opaque-token}",
    );
    assert_eq!(
        tarball_delete.path_parameters.len(),
        3,
        "{tarball_delete:#?}"
    );
    assert!(
        verdaccio
            .manifest
            .tools
            .iter()
            .all(|tool| !tool.path_template.contains("date-helpers")),
        "no tool keeps the deleted tarball's or its package's name literal"
    );
}

//! Ids of another spelling at an item route on real recordings (`rea_manifest`'s
//! `missing_ids.rs`, issue 12): an item route whose ids all fit a format rule takes any one
//! segment at its id where the build shows the missing-entity answer of its route family and no
//! literal route could be shadowed; a request naming such an id routes to the item tool, which
//! answers the recorded missing answer from the state, while ids in the format keep working.
//!
//! json-server (its probe's `GET /users/abc`, answered `404 {}`: the users' item route recorded
//! no 404, its sibling collections' did, which counts with sibling transfer on), Django REST framework (item routes spelled with a
//! trailing slash, `/api/tasks/{numeric}/`) and safrs (a JSON:API error document) take such ids;
//! PiccoloCRUD's literal routes beside its items (`/api/tasks/count/`) keep its item routes in
//! their format.

use rea_compare::route::match_tool;
use rea_manifest::ManifestTool;
use rea_manifest::segments::split_path;
use serde_json::{Value, json};

use crate::state_support::{
    Served, request_arguments, serve_corpus_app, serve_corpus_app_transfer,
};

/// The tool a request line routes to, read as the comparer reads it.
fn routed<'m>(served: &'m Served, method: &str, path: &str) -> Option<&'m ManifestTool> {
    match_tool(&served.manifest.tools, method, path)
}

/// Calls the tool a `GET` request line routes to, as the comparer calls it.
fn read(served: &Served, path: &str) -> (String, Value) {
    let tool = routed(served, "GET", path).unwrap_or_else(|| panic!("no tool for {path}"));
    let arguments = request_arguments(served, &tool.name, (&split_path(path), &[]), None);
    let (answer, is_error) = served.call(&tool.name, arguments);
    assert!(!is_error, "GET {path}: {answer:#}");
    (tool.name.clone(), answer)
}

/// Whether a tool's parameter at a segment index takes any segment.
fn takes_any_segment(served: &Served, tool: &str, segment_index: usize) -> bool {
    let tool = served.manifest.tool(tool).expect("the tool");
    let parameter = tool.path_parameter(segment_index).expect("the parameter");
    parameter.any_segment
}

/// Reads an id of another spelling and an id in the format through one item tool: the missing
/// answer as the build recorded it for an id the state does not hold, and the held entity.
fn check_item(served: &Served, other: &str, held: &str, tool: &str) -> Value {
    let (name, missing) = read(served, other);
    assert_eq!(name, tool);
    assert_eq!(missing["status"], 404, "{missing:#}");
    assert_eq!(missing["state"]["view"], "missing", "{missing:#}");
    let (name, found) = read(served, held);
    assert_eq!(name, tool);
    assert_eq!(found["status"], 200, "{found:#}");
    assert_eq!(found["state"]["source"], "state", "{found:#}");
    missing
}

#[test]
fn json_server_answers_a_word_id_as_an_id_it_does_not_hold() {
    // With sibling transfer on, the users' item view answers the missing answer its sibling item
    // views share, so its route takes a word too.
    let served = serve_corpus_app_transfer("json-server", true);
    assert!(takes_any_segment(&served, "get_users_by_id", 1));
    let missing = check_item(&served, "/users/abc", "/users/2", "get_users_by_id");
    assert_eq!(missing["body"], json!({}), "{missing:#}");
    // An integer argument names the same user a string does.
    let (answer, is_error) = served.call(
        "get_users_by_id",
        json!({"id": 3}).as_object().expect("an object").clone(),
    );
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer["body"]["username"], "carol", "{answer:#}");
    // The route below an item keeps its format.
    assert!(!takes_any_segment(
        &served,
        "get_posts_comments_by_post_id",
        1
    ));
    assert!(routed(&served, "GET", "/posts/abc/comments").is_none());

    // Off, only an item route that recorded its own missing answer takes a word.
    let plain = serve_corpus_app("json-server");
    assert!(!takes_any_segment(&plain, "get_users_by_id", 1));
    assert!(routed(&plain, "GET", "/users/abc").is_none());
    let missing = check_item(&plain, "/posts/abc", "/posts/1", "get_posts_by_id");
    assert_eq!(missing["body"], json!({}), "{missing:#}");
}

#[test]
fn django_rest_framework_and_safrs_item_routes_take_ids_of_another_spelling() {
    let drf = serve_corpus_app("drf");
    let tool = routed(&drf, "GET", "/api/tasks/1/").expect("the item tool");
    assert_eq!(tool.path_template, "/api/tasks/{numeric}/");
    let missing = check_item(&drf, "/api/tasks/abc/", "/api/tasks/2/", &tool.name.clone());
    assert_eq!(
        missing["body"],
        json!({"detail": "No Task matches the given query."}),
        "{missing:#}"
    );

    let safrs = serve_corpus_app("safrs");
    let tool = routed(&safrs, "GET", "/api/tasks/1").expect("the item tool");
    let missing = check_item(&safrs, "/api/tasks/abc", "/api/tasks/4", &tool.name.clone());
    assert_eq!(missing["body"]["errors"][0]["code"], "404", "{missing:#}");
}

#[test]
fn piccolo_item_routes_beside_literal_routes_keep_their_format() {
    let served = serve_corpus_app("piccolo");
    let tool = routed(&served, "GET", "/api/tasks/99/").expect("the item tool");
    assert!(tool.statuses.contains(&404), "{tool:#?}");
    assert!(routed(&served, "GET", "/api/tasks/count/").is_some());
    assert!(routed(&served, "GET", "/api/tasks/abc/").is_none());
    assert!(routed(&served, "GET", "/api/people/abc/").is_none());
}

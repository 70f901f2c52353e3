//! Item routes reached with the other trailing-slash spelling on real recordings
//! (`rea_manifest`'s `slash_spellings.rs`, issue 12): where the build answered a collection in
//! both spellings with answers of one shape, its item routes take the other spelling too and
//! answer as the item tool.
//!
//! safrs's build read the task list as `/api/tasks` and, through its `links.next`, as
//! `/api/tasks/`, but its tasks only as `/api/tasks/4`; its probe reads `/api/tasks/4/` (the
//! spelling every resource's `links.self` shows), which the app answers as the item. No other
//! recorded application answers a collection in both spellings: Django REST framework,
//! django-tastypie and PiccoloCRUD spell every route with the slash, so their item routes keep
//! that one spelling.

use rea_compare::route::match_tool;
use rea_manifest::ManifestTool;
use rea_manifest::segments::split_path;

use crate::state_support::{Served, request_arguments, serve_corpus_app};

/// The tool a request line routes to, read as the comparer reads it.
fn routed<'m>(served: &'m Served, method: &str, path: &str) -> Option<&'m ManifestTool> {
    match_tool(&served.manifest.tools, method, path)
}

/// The tools whose path also matches in the other trailing-slash spelling.
fn slash_optional(served: &Served) -> Vec<String> {
    let tools = &served.manifest.tools;
    let marked = tools.iter().filter(|tool| tool.trailing_slash_optional);
    marked
        .map(|tool| format!("{} {}", tool.method, tool.path_template))
        .collect()
}

#[test]
fn safrs_task_items_answer_in_the_spelling_their_links_show() {
    let served = serve_corpus_app("safrs");
    assert_eq!(
        slash_optional(&served),
        [
            "GET /api/tasks/{numeric}",
            "PATCH /api/tasks/{numeric}",
            "DELETE /api/tasks/{numeric}"
        ]
    );
    let tool = routed(&served, "GET", "/api/tasks/4/").expect("the item tool");
    assert_eq!(tool.path_template, "/api/tasks/{numeric}");
    let path = "/api/tasks/4/";
    let arguments = request_arguments(&served, &tool.name, (&split_path(path), &[]), None);
    let (answer, is_error) = served.call(&tool.name, arguments);
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer["status"], 200, "{answer:#}");
    assert_eq!(answer["state"]["source"], "state", "{answer:#}");
    assert_eq!(answer["body"]["data"]["id"], "4", "{answer:#}");
    assert_eq!(
        answer["body"]["data"]["links"]["self"], "/api/tasks/4/",
        "{answer:#}"
    );
    // The collection in both spellings keeps its two recorded tools; a collection the build
    // read in one spelling keeps its items in theirs.
    assert_ne!(
        routed(&served, "GET", "/api/tasks").map(|tool| &tool.name),
        routed(&served, "GET", "/api/tasks/").map(|tool| &tool.name)
    );
    assert!(routed(&served, "GET", "/api/users/3/").is_none());
}

#[test]
fn apps_spelling_every_route_with_the_slash_keep_their_items_in_it() {
    for (app, item) in [
        ("drf", "/api/tasks/1"),
        ("tastypie", "/api/v1/book/1"),
        ("piccolo", "/api/tasks/1"),
    ] {
        let served = serve_corpus_app(app);
        assert!(slash_optional(&served).is_empty(), "{app}");
        assert!(
            routed(&served, "GET", &format!("{item}/")).is_some(),
            "{app}"
        );
        assert!(routed(&served, "GET", item).is_none(), "{app}");
    }
}

//! A directory of collections on a real recording (Roundup's REST API, one app): `/rest/data`
//! answers a map naming every class, each class is a collection (`/rest/data/issue`) with items
//! beneath it (`/rest/data/issue/7`), and an item answers a resource identifier
//! `{"data": {"id": "7", "type": "issue", …}}`. The class segment stays literal, a tool per class:
//! `sibling-variance` takes no echo of a `type` member beside an `id` as the segment's identity,
//! and `member-key` leaves a map's keys with routes beneath them as collections.

use crate::manifest_folder_tree::tool;
use crate::state_support::serve_corpus_app;

#[test]
fn each_class_of_a_collection_directory_is_its_own_collection() {
    let served = serve_corpus_app("roundup");
    let manifest = &served.manifest;
    for class in ["issue", "status", "keyword", "user", "priority"] {
        tool(manifest, "GET", &format!("/rt/rest/data/{class}"));
    }
    for class in ["issue", "msg", "status", "keyword", "user"] {
        let item = tool(
            manifest,
            "GET",
            &format!("/rt/rest/data/{class}/{{numeric}}"),
        );
        assert_eq!(
            item.path_parameters.len(),
            1,
            "only the id of {class} is a parameter"
        );
    }
    tool(manifest, "PATCH", "/rt/rest/data/issue/{numeric}");
    tool(manifest, "POST", "/rt/rest/data/keyword");
    assert!(
        !manifest
            .tools
            .iter()
            .any(|tool| tool.path_template.starts_with("/rt/rest/data/{")),
        "no class segment is a parameter"
    );
}

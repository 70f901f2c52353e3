//! Document merges on real recordings, wherever the document's object sits in its answers:
//! directus answers its singleton settings under a `data` envelope (`{"data": {…}}`) and its
//! `PATCH` sends the bare members, which land inside the envelope (the plan's
//! `document_pointer` is `/data`); json-server's profile is the answer itself (pointer empty).
//! Either way a `PATCH` is a partial modification: it accepts any member the document holds,
//! not only the ones the build happened to send, and keeps the members it does not send.

use serde_json::{Value, json};

use crate::state_support::{Served, serve, serve_corpus_app};

fn call(served: &Served, tool: &str, arguments: Value) -> (Value, bool) {
    let Value::Object(arguments) = arguments else {
        panic!("arguments are an object")
    };
    served.call(tool, arguments)
}

fn document_pointer(served: &Served, tool: &str) -> String {
    let plan = served
        .state()
        .write_plans
        .iter()
        .find(|plan| plan.tool == tool)
        .unwrap_or_else(|| panic!("no plan {tool}"));
    assert!(plan.served, "{plan:?}");
    plan.fields
        .as_ref()
        .map(|fields| fields.document_pointer.clone())
        .expect("a learned field model")
}

#[test]
fn directus_settings_merge_inside_their_data_envelope() {
    let served = serve_corpus_app("directus");
    assert_eq!(
        document_pointer(&served, "patch_items_site_settings"),
        "/data"
    );
    let (before, _) = call(&served, "get_items_site_settings", json!({}));
    // The build sent only `week_starts_on`; any member the settings hold is accepted.
    let (merged, error) = call(
        &served,
        "patch_items_site_settings",
        json!({"body": {"default_priority": 2}}),
    );
    assert!(!error, "{merged}");
    let mut expected = before["body"].clone();
    expected["data"]["default_priority"] = json!(2);
    assert_eq!(merged["body"], expected);
    let (after, _) = call(&served, "get_items_site_settings", json!({}));
    assert_eq!(after["body"], expected);
    assert!(after["body"].get("default_priority").is_none(), "{after}");
    // A member of the wrong type is refused and changes nothing.
    let (refused, error) = call(
        &served,
        "patch_items_site_settings",
        json!({"body": {"default_priority": "high"}}),
    );
    assert!(error, "{refused}");
    let (unchanged, _) = call(&served, "get_items_site_settings", json!({}));
    assert_eq!(unchanged["body"], expected);
}

#[test]
fn json_server_profile_merges_at_the_answer_root() {
    let served = serve("json-server/build.har");
    assert_eq!(document_pointer(&served, "patch_profile"), "");
    let (before, _) = call(&served, "get_profile", json!({}));
    // The build sent only `theme`.
    let (merged, error) = call(
        &served,
        "patch_profile",
        json!({"body": {"postsPerPage": 25}}),
    );
    assert!(!error, "{merged}");
    let mut expected = before["body"].clone();
    expected["postsPerPage"] = json!(25);
    assert_eq!(merged["body"], expected);
    let (after, _) = call(&served, "get_profile", json!({}));
    assert_eq!(after["body"], expected);
    assert_eq!(after["body"]["name"], "Demo blog");
}

//! Creates numbered across a type's collections, and a sent member placed on the nested leaf of
//! its own name, learned from the build and served on flexget (one app): the entry lists' entries
//! share one id sequence (list 1 holds 1 to 7, list 2 holds 8 and 9, the build's creates in a new
//! list 3 got 10 and 11), so a create in list 1 is numbered 10, not 8; and the entry create sends
//! `url` beside `original_url` (equal in every recorded call) while the entity stores it only at
//! `entry.url`, so a create sending another url stores that url there instead of being refused.

use serde_json::{Map, Value, json};

use crate::state_support::serve_corpus_app;

fn object(value: Value) -> Map<String, Value> {
    let Value::Object(map) = value else {
        panic!("an object")
    };
    map
}

const CREATE: &str = "post_entry_list_entries_by_entry_list_id";

#[test]
fn an_entry_create_continues_the_numbering_every_entry_list_shares() {
    let served = serve_corpus_app("flexget");
    let plan = served.state().write_plan(CREATE).expect("the entry create");
    assert!(plan.served, "{:?}", plan.reason);
    let fields = plan.fields.as_ref().expect("a field model");
    assert_eq!(fields.numbered_by_type, ["id"]);
    let entry = |title: &str| {
        json!({"title": title, "url": format!("http://example.test/{title}.torrent"),
            "original_url": format!("http://example.test/{title}.torrent")})
    };
    let (first, is_error) = served.call(
        CREATE,
        object(json!({"entry_list_id": "1", "body": entry("first")})),
    );
    assert!(!is_error, "{first}");
    assert_eq!(first["state"]["view"], "create", "{first}");
    assert_eq!(
        first["body"]["id"], 10,
        "one past the 9 list 2 holds: {first}"
    );
    assert_eq!(first["body"]["list_id"], 1, "{first}");
    let (second, is_error) = served.call(
        CREATE,
        object(json!({"entry_list_id": "2", "body": entry("second")})),
    );
    assert!(!is_error, "{second}");
    assert_eq!(
        second["body"]["id"], 11,
        "one past the 10 list 1 holds now: {second}"
    );
    let (read, is_error) = served.call(
        "get_entry_list_entries_by_entry_list_id_and_entry_id",
        object(json!({"entry_list_id": "1", "entry_id": "10"})),
    );
    assert!(!is_error, "{read}");
    assert_eq!(read["body"]["title"], "first", "{read}");
}

#[test]
fn a_sent_url_is_stored_at_the_nested_leaf_of_its_name() {
    let served = serve_corpus_app("flexget");
    let plan = served.state().write_plan(CREATE).expect("the entry create");
    let fields = plan.fields.as_ref().expect("a field model");
    assert_eq!(
        fields.sent_as.get("url").map(String::as_str),
        Some("/entry/url")
    );
    let body = plan.body.as_ref().expect("a body model");
    assert_eq!(body.members["url"].fixed, None, "url is a free value");
    let (created, is_error) = served.call(
        CREATE,
        object(json!({"entry_list_id": "1", "body": {
            "title": "Mirror 1975 1080p",
            "url": "http://example.test/mirror.torrent",
            "original_url": "http://example.test/mirror-original.torrent"}})),
    );
    assert!(!is_error, "{created}");
    assert_eq!(created["state"]["view"], "create", "{created}");
    let answer = &created["body"];
    assert_eq!(answer["entry"]["url"], "http://example.test/mirror.torrent");
    assert_eq!(
        answer["entry"]["original_url"],
        "http://example.test/mirror-original.torrent"
    );
    assert_eq!(
        answer["original_url"],
        "http://example.test/mirror-original.torrent"
    );
    assert!(
        answer.get("url").is_none(),
        "url is not stored on its own: {answer}"
    );
}

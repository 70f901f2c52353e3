//! Folder-tree writes on a real recording (`rea_state::tree_writes`, `rea_state::tree_reads`):
//! etcd's v2 keys, set by `PUT` with a form body `value=…` (plain, `prevExist=false`, or a
//! compare on `prevValue`/`prevIndex`), appended by `POST` to a directory (the key named by the
//! store index, zero-padded) and removed by `DELETE`, each answered with the node stamped by the
//! store index the tree keeps (16 after the seed: the build's first write answered 17), the
//! previous node as `prevNode`; the keys and the folder listings then read back from the written
//! entries, and a deleted key answers the tree's missing answer at the index now. A call of a kind
//! the build never recorded (a failed compare, a create of a held key, a value written to a
//! directory) is refused, changing nothing. Only this recorded application shows the rule:
//! jupyter_server composes no folder listing (its listings hold no child's children), so no
//! tree is learned there (see `state_unlisted_documents`).

use serde_json::{Value, json};

use crate::state_folder_entries::call_for;
use crate::state_support::{Served, serve_corpus_app};

/// Calls `method target` with a form body's members (`None`: no body).
fn send(served: &Served, method: &str, target: &str, body: Option<Value>) -> (Value, bool) {
    let (tool, mut arguments) = call_for(served, method, target, None);
    if let Some(body) = body {
        arguments.insert("body".to_owned(), body);
    }
    served.call(&tool, arguments)
}

/// A `GET`'s answer (status and body).
fn get(served: &Served, target: &str) -> Value {
    let (answer, is_error) = send(served, "GET", target, None);
    assert!(!is_error, "{target}: {answer}");
    answer
}

fn listed_keys(answer: &Value) -> Vec<&str> {
    answer["body"]["node"]["nodes"]
        .as_array()
        .unwrap_or_else(|| panic!("a folder's keys: {answer}"))
        .iter()
        .filter_map(|node| node["key"].as_str())
        .collect()
}

#[test]
fn etcd_key_writes_are_learned_from_the_build_and_confirmed_by_its_reads() {
    let served = serve_corpus_app("etcd");
    let trees = &served.state().tree_writes;
    assert_eq!(trees.len(), 1, "{trees:#?}");
    assert_eq!(trees[0].prefix, "/v2/keys");
    assert_eq!(trees[0].seed, 16);
    // The reads after the build's first write that the replayed keys answer, all agreeing:
    // the keys read back (20, 23, 26, 29, 37), the listings (21, 24, 30, 34, 35, 38, 41, 42, 45,
    // 48) and the deleted keys' 404s (40, 44, 47).
    assert!(
        trees[0].confirmed_by.contains(&21),
        "{:?}",
        trees[0].confirmed_by
    );
    assert!(
        trees[0].confirmed_by.contains(&40),
        "{:?}",
        trees[0].confirmed_by
    );
    let plans = &served.state().write_plans;
    for tool in ["put_keys_by_key_id_and_id", "post_keys_by_id"] {
        let plan = plans.iter().find(|plan| plan.tool == tool).expect(tool);
        assert!(plan.served, "{plan:#?}");
        assert_eq!(plan.reason, None);
    }
}

#[test]
fn etcd_a_created_key_is_stamped_with_the_store_index_and_listed_in_its_folder() {
    let served = serve_corpus_app("etcd");
    let (answer, is_error) = send(
        &served,
        "PUT",
        "/v2/keys/flags/maintenance?prevExist=false",
        Some(json!({"value": "off"})),
    );
    assert!(!is_error, "{answer}");
    assert_eq!(answer["status"], 201, "{answer}");
    let node = json!({"key": "/flags/maintenance", "value": "off", "modifiedIndex": 17, "createdIndex": 17});
    assert_eq!(answer["body"], json!({"action": "create", "node": node}));
    let read = get(&served, "/v2/keys/flags/maintenance");
    assert_eq!(read["status"], 200, "{read}");
    assert_eq!(read["body"], json!({"action": "get", "node": node}));
    let listing = get(&served, "/v2/keys/flags?sorted=true");
    assert_eq!(
        listed_keys(&listing),
        [
            "/flags/beta-search",
            "/flags/dark-mode",
            "/flags/maintenance",
            "/flags/new-checkout"
        ]
    );
    // A second create of the held key: the build never showed etcd's 412, so it is refused and
    // changes nothing (the next write still takes index 18).
    let (refused, is_error) = send(
        &served,
        "PUT",
        "/v2/keys/flags/maintenance?prevExist=false",
        Some(json!({"value": "on"})),
    );
    assert!(is_error, "{refused}");
    assert_eq!(
        get(&served, "/v2/keys/flags/maintenance")["body"]["node"],
        node
    );
    // The form text a recorded request sends is read as its members too.
    let (set, _) = send(
        &served,
        "PUT",
        "/v2/keys/config/web/max_upload_mb",
        Some(json!("value=50")),
    );
    assert_eq!(set["status"], 200, "{set}");
    assert_eq!(
        set["body"],
        json!({
            "action": "set",
            "node": {"key": "/config/web/max_upload_mb", "value": "50", "modifiedIndex": 18, "createdIndex": 18},
            "prevNode": {"key": "/config/web/max_upload_mb", "value": "25", "modifiedIndex": 8, "createdIndex": 8}
        })
    );
}

#[test]
fn etcd_a_compare_and_swap_keeps_the_created_index_and_a_failed_compare_is_refused() {
    let served = serve_corpus_app("etcd");
    // prevValue recorded only on a key two levels down (flags/new-checkout); the class serves
    // the three-level tool of the same method too.
    let (failed, is_error) = send(
        &served,
        "PUT",
        "/v2/keys/config/web/theme?prevValue=dark",
        Some(json!({"value": "solarized"})),
    );
    assert!(is_error, "{failed}");
    let (swapped, is_error) = send(
        &served,
        "PUT",
        "/v2/keys/config/web/theme?prevValue=light",
        Some(json!({"value": "dark"})),
    );
    assert!(!is_error, "{swapped}");
    assert_eq!(
        swapped["body"],
        json!({
            "action": "compareAndSwap",
            "node": {"key": "/config/web/theme", "value": "dark", "modifiedIndex": 17, "createdIndex": 7},
            "prevNode": {"key": "/config/web/theme", "value": "light", "modifiedIndex": 7, "createdIndex": 7}
        })
    );
    let listing = get(&served, "/v2/keys/config/web?sorted=true");
    assert_eq!(
        listing["body"]["node"]["nodes"][1]["value"], "dark",
        "{listing}"
    );
    // A value written to a directory (etcd's 403 Not a file, never recorded): refused.
    let (refused, is_error) = send(
        &served,
        "PUT",
        "/v2/keys/config/web",
        Some(json!({"value": "x"})),
    );
    assert!(is_error, "{refused}");
    let listing = get(&served, "/v2/keys/config/web?sorted=true");
    assert_eq!(listed_keys(&listing).len(), 2, "{listing}");
}

#[test]
fn etcd_a_deleted_key_answers_missing_at_the_index_now_and_an_append_names_its_index() {
    let served = serve_corpus_app("etcd");
    let (deleted, is_error) = send(&served, "DELETE", "/v2/keys/flags/dark-mode", None);
    assert!(!is_error, "{deleted}");
    assert_eq!(
        deleted["body"],
        json!({
            "action": "delete",
            "node": {"key": "/flags/dark-mode", "modifiedIndex": 17, "createdIndex": 10},
            "prevNode": {"key": "/flags/dark-mode", "value": "off", "modifiedIndex": 10, "createdIndex": 10}
        })
    );
    let missing = json!({"errorCode": 100, "message": "Key not found", "cause": "/flags/dark-mode", "index": 17});
    let read = get(&served, "/v2/keys/flags/dark-mode");
    assert_eq!(
        (read["status"].clone(), read["body"].clone()),
        (json!(404), missing.clone())
    );
    // Deleting it again answers the missing key, changing nothing.
    let (again, _) = send(&served, "DELETE", "/v2/keys/flags/dark-mode", None);
    assert_eq!(
        (again["status"].clone(), again["body"].clone()),
        (json!(404), missing)
    );
    let listing = get(&served, "/v2/keys/flags?sorted=true");
    assert_eq!(
        listed_keys(&listing),
        ["/flags/beta-search", "/flags/new-checkout"]
    );
    // An append to the queue names the key by the next index, zero-padded.
    let (appended, is_error) = send(
        &served,
        "POST",
        "/v2/keys/queue",
        Some(json!({"value": "nightly-report"})),
    );
    assert!(!is_error, "{appended}");
    assert_eq!(appended["status"], 201, "{appended}");
    let key = "/queue/00000000000000000018";
    assert_eq!(appended["body"]["node"]["key"], key, "{appended}");
    let listing = get(&served, "/v2/keys/queue?sorted=true");
    assert_eq!(listed_keys(&listing).last(), Some(&key), "{listing}");
    // An append to a folder the state does not hold: refused.
    let (refused, is_error) = send(
        &served,
        "POST",
        "/v2/keys/releases",
        Some(json!({"value": "2.4.1"})),
    );
    assert!(is_error, "{refused}");
}

#[test]
fn etcd_a_compare_and_delete_by_value_follows_the_recorded_compares() {
    // The build deleted by `prevIndex` only (the queue's first job), and compared by
    // `prevValue` and by `prevIndex` alike on its `PUT`s: a `DELETE` comparing by `prevValue`
    // (a query name the delete tools take from the tree's writes) is that compare-and-delete.
    let served = serve_corpus_app("etcd");
    let delete = served
        .manifest
        .tools
        .iter()
        .find(|tool| tool.method == "DELETE")
        .expect("a delete tool");
    assert!(
        delete
            .query_parameters
            .iter()
            .any(|parameter| parameter.name == "prevValue" && parameter.records == 0),
        "{:?}",
        delete.query_parameters
    );
    // A failed compare: refused (its 412 is not recorded), changing nothing.
    let (failed, is_error) = send(
        &served,
        "DELETE",
        "/v2/keys/flags/dark-mode?prevValue=on",
        None,
    );
    assert!(is_error, "{failed}");
    let held = get(&served, "/v2/keys/flags/dark-mode");
    assert_eq!(held["body"]["node"]["value"], "off", "{held}");
    let (deleted, is_error) = send(
        &served,
        "DELETE",
        "/v2/keys/flags/dark-mode?prevValue=off",
        None,
    );
    assert!(!is_error, "{deleted}");
    assert_eq!(
        deleted["body"],
        json!({
            "action": "compareAndDelete",
            "node": {"key": "/flags/dark-mode", "modifiedIndex": 17, "createdIndex": 10},
            "prevNode": {"key": "/flags/dark-mode", "value": "off", "modifiedIndex": 10, "createdIndex": 10}
        })
    );
    let read = get(&served, "/v2/keys/flags/dark-mode");
    assert_eq!(read["status"], 404, "{read}");
    // A compare on a member no recorded compare showed (`prevExist=true` is an exact value the
    // build never sent on any write): refused.
    let (refused, is_error) = send(
        &served,
        "DELETE",
        "/v2/keys/flags/new-checkout?prevExist=true",
        None,
    );
    assert!(is_error, "{refused}");
}

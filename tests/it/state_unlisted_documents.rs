//! Unlisted documents on real recordings (`rea_state::unlisted`): a path of a folder tree that no
//! listing shows, in a folder whose children the listings show, answers the application's missing
//! answer. etcd's build showed its `404` (`errorCode` 100, `cause` naming the key, `index` the etcd
//! index) only after its deletes, at indexes 25 to 27; before any write the state answers the
//! index its listings hold (16, the largest `modifiedIndex`), as the probe's app did. A missing
//! folder's child (the app names the folder), another query, or any call after a served write is
//! not answered so. jupyter_server composes no folder listing (its listings hold no child's
//! children), so nothing is learned there; its missing files answer through the item views.

use serde_json::json;

use crate::state_folder_entries::call_for;
use crate::state_support::serve_corpus_app;

#[test]
fn etcd_keys_no_listing_shows_answer_the_missing_key_with_the_seed_index() {
    let served = serve_corpus_app("etcd");
    let missing: Vec<_> = served
        .state()
        .folder_listings
        .iter()
        .filter_map(|listing| listing.missing.as_ref())
        .collect();
    assert_eq!(missing.len(), 1, "{missing:?}");
    assert_eq!(missing[0].counters, ["/index"]);
    for (target, cause) in [
        ("/v2/keys/flags/purple", "/flags/purple"),
        ("/v2/keys/archive", "/archive"),
        ("/v2/keys/config/web/font", "/config/web/font"),
    ] {
        let (tool, arguments) = call_for(&served, "GET", target, None);
        let (answer, is_error) = served.call(&tool, arguments);
        assert!(!is_error, "{target}: {answer}");
        assert_eq!(answer["status"], 404, "{target}: {answer}");
        assert_eq!(answer["state"]["source"], "state", "{target}: {answer}");
        assert_eq!(answer["state"]["view"], "missing", "{target}: {answer}");
        assert_eq!(
            answer["body"],
            json!({"errorCode": 100, "message": "Key not found", "cause": cause, "index": 16}),
            "{target}"
        );
    }
    // A listed key still answers its entry, not the missing answer.
    let (tool, arguments) = call_for(&served, "GET", "/v2/keys/flags/dark-mode", None);
    let (answer, _) = served.call(&tool, arguments);
    assert_eq!(answer["status"], 200, "{answer}");
    // A key in a folder no listing shows (the app names the missing folder, not the key), and a
    // missing key asked with a query no missing answer was read with: not rendered so.
    for target in ["/v2/keys/archive/2025", "/v2/keys/flags/purple?quorum=true"] {
        let (tool, arguments) = call_for(&served, "GET", target, None);
        let (answer, is_error) = served.call(&tool, arguments);
        assert!(
            is_error || answer["state"]["view"] != "missing",
            "{target}: {answer}"
        );
    }
}

#[test]
fn jupyter_learns_no_unlisted_answer_and_its_missing_files_answer_through_item_views() {
    let served = serve_corpus_app("jupyter_server");
    assert!(
        served
            .state()
            .folder_listings
            .iter()
            .all(|listing| listing.missing.is_none())
    );
    let (tool, arguments) = call_for(
        &served,
        "GET",
        "/api/contents/data/budget.csv",
        Some("/api/contents/{prefix-variance}/{sibling-variance}"),
    );
    let (answer, is_error) = served.call(&tool, arguments);
    assert!(!is_error, "{answer}");
    assert_eq!(answer["status"], 404, "{answer}");
    assert_eq!(answer["state"]["view"], "missing", "{answer}");
    assert_eq!(
        answer["body"], "file or directory '/data/budget.csv' does not exist",
        "{answer}"
    );
}

//! Guarded batches (`rea_state::writes::guarded`): a write whose body lists sub-requests, each
//! wrapped in a member naming a sibling write tool by its verb, applied only when every guard
//! beside them holds against the entity it names. On etcd's v3 `kv/txn` (`build.har` call 54:
//! a `compare` of app/version's value, a `success` list of one `request_put`, a `failure` list
//! never applied, answered with `succeeded` and `responses[].response_put`, a part of the put's
//! answer), the one recorded application whose writes take this shape: one app (etcd). The
//! roles are read from the recorded call's shape, not from its member names.

use serde_json::{Value, json};

use crate::state_support::{Served, corpus_write_plans, plan_of, serve_corpus_app, with_body};

/// app/owner, `platform-team` at version 1 and revision 5 before the build's writes.
const OWNER: &str = "YXBwL293bmVy";

/// The pair a range naming `key` alone answers.
fn pair(served: &Served, key: &str) -> Value {
    let tool = "post_kv_range";
    let (answer, is_error) = served.call(tool, with_body(served, tool, json!({"key": key})));
    assert!(!is_error, "{answer}");
    answer["body"]["kvs"][0].clone()
}

/// A txn comparing `member` of app/owner with `expected` and putting `value` on success.
fn txn(member: &str, expected: &str, value: &str) -> Value {
    json!({
        "compare": [{"key": OWNER, "target": member.to_uppercase(), "result": "EQUAL", member: expected}],
        "success": [{"request_put": {"key": OWNER, "value": value}}],
        "failure": [{"request_range": {"key": OWNER}}]
    })
}

#[test]
fn a_txn_is_learned_as_a_guarded_batch_of_the_puts_it_wraps() {
    let plans = corpus_write_plans("etcd");
    let txn = plan_of(&plans, "post_kv_txn");
    let shown = serde_json::to_string_pretty(txn).expect("plan");
    assert_eq!(txn["served"], true, "{shown}");
    let model = &txn["guarded"];
    assert_eq!(model["requests"], "success", "{shown}");
    assert_eq!(model["answers"], "responses", "{shown}");
    assert_eq!(
        model["wrappers"]["request_put"],
        json!({"tool": "post_kv_put", "answer": "response_put", "shown": ["/header/revision"]}),
        "{shown}"
    );
    assert_eq!(
        model["guards"],
        json!({"member": "compare", "key": "key", "selector": "target", "fixed": {"result": "EQUAL"}}),
        "{shown}"
    );
    assert_eq!(model["alternatives"], json!(["failure"]), "{shown}");
}

#[test]
fn a_txn_whose_guard_holds_applies_its_put_at_the_next_revision() {
    let served = serve_corpus_app("etcd");
    let before = pair(&served, OWNER);
    assert_eq!(before["version"], "1", "{before}");
    // A guard on the version (the build compared the value): the selector names the member.
    let tool = "post_kv_txn";
    let (answer, is_error) = served.call(
        tool,
        with_body(&served, tool, txn("version", "1", "c3JlLXRlYW0=")),
    );
    assert!(!is_error, "{answer}");
    let body = &answer["body"];
    assert_eq!(body["succeeded"], true, "{answer}");
    assert_eq!(
        body["header"]["revision"], "8",
        "one step past the seed 7: {answer}"
    );
    assert_eq!(
        body["responses"],
        json!([{"response_put": {"header": {"revision": "8"}}}]),
        "the put's answer as the recorded txn showed a part of it: {answer}"
    );
    let after = pair(&served, OWNER);
    assert_eq!(after["value"], "c3JlLXRlYW0=", "{after}");
    assert_eq!(after["version"], "2", "{after}");
    assert_eq!(after["mod_revision"], "8", "{after}");
}

#[test]
fn a_txn_whose_guard_fails_is_refused_and_changes_nothing() {
    let served = serve_corpus_app("etcd");
    let before = pair(&served, OWNER);
    let tool = "post_kv_txn";
    for body in [
        // The value differs: what a failed compare answers is not recorded.
        txn("value", "c3RhZ2luZw==", "ZGV2"),
        // A result the recorded guards never sent.
        json!({
            "compare": [{"key": OWNER, "target": "VERSION", "result": "GREATER", "version": "0"}],
            "success": [{"request_put": {"key": OWNER, "value": "ZGV2"}}]
        }),
        // A key the state does not hold.
        json!({
            "compare": [{"key": "bm9wZQ==", "target": "VERSION", "result": "EQUAL", "version": "1"}],
            "success": [{"request_put": {"key": OWNER, "value": "ZGV2"}}]
        }),
    ] {
        let (answer, is_error) = served.call(tool, with_body(&served, tool, body));
        assert!(is_error, "{answer}");
    }
    // A sub-request naming no learned wrapper is refused before anything is applied.
    let (answer, is_error) = served.call(
        tool,
        with_body(
            &served,
            tool,
            json!({"success": [{"request_delete_range": {"key": OWNER}}]}),
        ),
    );
    assert!(is_error, "{answer}");
    assert_eq!(pair(&served, OWNER), before);
}

#[test]
fn a_batch_of_method_and_path_sub_requests_is_no_guarded_batch() {
    // parse-server's `/batch` names its sub-requests by method and path (`batch`), not by a
    // wrapper naming a sibling's verb.
    let plans = corpus_write_plans("parse-server");
    let batch = plan_of(&plans, "post_parse_batch");
    assert!(batch["batch"].is_object(), "{batch}");
    assert!(batch["guarded"].is_null(), "{batch}");
}

//! Range deletes (`rea_state::writes::ranged`): a delete naming its entity in a body member
//! (etcd's `kv/deleterange`, `build.har` call 56: `{"key": db/replica, "prev_kv": true}`,
//! answered `"deleted": "1"` and `prev_kvs` listing the pair) whose type a body-query read
//! selects by a grammar that also reads a range (`kv/range`'s `range_end`). A served call
//! sending a range deletes every pair the read's grammar selects with it, counts them in the
//! member the recorded answer counted (as text, as recorded), steps the store revision once,
//! and leaves `prev_kvs` out when the call leaves `prev_kv` out: `kv/put` shows `prev_kv`
//! optional (calls 49 and 52: its answer shows the pair before only when sent). One app: etcd,
//! the one recorded application whose deletes select by a body range.

use serde_json::{Value, json};

use crate::state_support::{Served, corpus_write_plans, plan_of, serve_corpus_app, with_body};
use rea_manifest::catalog::{ArgumentTarget, PropertyKind};

/// `app/` and the end of its prefix, `app0`.
const APP: &str = "YXBwLw==";
const APP_END: &str = "YXBwMA==";
/// `db/` and `db0`; `db/replica`.
const DB: &str = "ZGIv";
const DB_END: &str = "ZGIw";
const REPLICA: &str = "ZGIvcmVwbGljYQ==";

/// The answer body of a call that must not fail.
fn answered(served: &Served, tool: &str, body: Value) -> Value {
    let (answer, is_error) = served.call(tool, with_body(served, tool, body));
    assert!(!is_error, "{tool}: {answer}");
    answer["body"].clone()
}

/// The keys a range lists, and the store revision its header stands at.
fn range(served: &Served, body: Value) -> (Vec<String>, Value) {
    let answer = answered(served, "post_kv_range", body);
    let keys = answer["kvs"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|pair| pair["key"].as_str().map(str::to_owned))
        .collect();
    (keys, answer["header"]["revision"].clone())
}

fn every_key(served: &Served) -> (Vec<String>, Value) {
    range(served, json!({"key": "AA==", "range_end": "AA=="}))
}

#[test]
fn a_delete_by_key_learns_the_range_its_read_grammar_selects() {
    let plans = corpus_write_plans("etcd");
    let delete = plan_of(&plans, "post_kv_deleterange");
    let shown = serde_json::to_string_pretty(delete).expect("plan");
    assert_eq!(
        delete["ranged"],
        json!({
            "read_tool": "post_kv_range",
            "members": {"range_end": ["string"]},
            "count": "deleted",
            "count_text": true,
            "listed": "prev_kvs",
            "option": ["prev_kv", true]
        }),
        "{shown}"
    );
    // The put, which shows prev_kv optional, learns no range (it is no delete).
    assert!(plan_of(&plans, "post_kv_put")["ranged"].is_null());
}

#[test]
fn the_delete_tool_accepts_a_range_and_leaves_prev_kv_optional() {
    let served = serve_corpus_app("etcd");
    let state = served.state();
    let tools = rea_state::catalog::state_tools_with_views(
        &served.replay,
        &served.manifest,
        &state.write_plans,
        &state.views,
        rea_state::rules::WithheldWrites::Hide,
    );
    let tool = tools
        .iter()
        .find(|tool| tool.name == "post_kv_deleterange")
        .expect("the delete tool");
    let body = tool
        .input_schema
        .arguments
        .iter()
        .find(|argument| argument.target == ArgumentTarget::Body)
        .expect("a body argument");
    let PropertyKind::Object(schema) = &body.schema.kind else {
        panic!("an object body: {:?}", body.schema.kind);
    };
    let names: Vec<&str> = schema
        .members
        .iter()
        .map(|(name, _)| name.as_str())
        .collect();
    assert_eq!(names, ["key", "prev_kv", "range_end"]);
    assert_eq!(schema.required, ["key"]);
    assert!(schema.closed);
}

#[test]
fn a_prefix_delete_removes_the_prefix_pairs_and_counts_them_at_one_revision() {
    let served = serve_corpus_app("etcd");
    let (keys, revision) = every_key(&served);
    assert_eq!((keys.len(), revision), (6, json!("7")));
    let answer = answered(
        &served,
        "post_kv_deleterange",
        json!({"key": APP, "range_end": APP_END}),
    );
    // The recorded answer's header at the next revision, the count as text, no prev_kvs.
    assert_eq!(answer["header"]["revision"], "8", "{answer}");
    assert_eq!(answer["header"]["cluster_id"], "16162422364174168257");
    assert_eq!(answer["deleted"], "4", "{answer}");
    assert!(answer.get("prev_kvs").is_none(), "{answer}");
    let (left, revision) = range(&served, json!({"key": APP, "range_end": APP_END}));
    assert!(left.is_empty(), "{left:?}");
    assert_eq!(revision, "8");
    // Exactly the prefix's pairs went: db/ keeps its two.
    let (keys, revision) = every_key(&served);
    assert_eq!(keys, ["ZGIvcHJpbWFyeQ==", REPLICA]);
    assert_eq!(revision, "8");
}

#[test]
fn a_range_delete_sending_prev_kv_lists_every_removed_pair() {
    let served = serve_corpus_app("etcd");
    let answer = answered(
        &served,
        "post_kv_deleterange",
        json!({"key": DB, "range_end": DB_END, "prev_kv": true}),
    );
    assert_eq!(answer["deleted"], "2", "{answer}");
    let removed: Vec<&Value> = answer["prev_kvs"]
        .as_array()
        .expect("prev_kvs")
        .iter()
        .collect();
    assert_eq!(removed.len(), 2, "{answer}");
    assert_eq!(removed[0]["key"], "ZGIvcHJpbWFyeQ==");
    assert_eq!(removed[1]["key"], REPLICA);
    assert_eq!(removed[1]["value"], "MTAuMC4yLjExOjU0MzI=");
    assert_eq!(answer["header"]["revision"], "8", "{answer}");
}

#[test]
fn a_single_key_delete_answers_as_recorded_with_or_without_prev_kv() {
    let served = serve_corpus_app("etcd");
    // As the build's call 56 sent it: the recorded answer with the pair it removed.
    let answer = answered(
        &served,
        "post_kv_deleterange",
        json!({"key": REPLICA, "prev_kv": true}),
    );
    assert_eq!(
        answer,
        json!({
            "header": {"cluster_id": "16162422364174168257", "member_id": "15062536455672039171", "revision": "8", "raft_term": "2"},
            "deleted": "1",
            "prev_kvs": [{"key": REPLICA, "create_revision": "7", "mod_revision": "7", "version": "1", "value": "MTAuMC4yLjExOjU0MzI="}]
        })
    );
    // Without prev_kv: the key alone selects its pair, counted, not listed.
    let answer = answered(
        &served,
        "post_kv_deleterange",
        json!({"key": "ZGIvcHJpbWFyeQ=="}),
    );
    assert_eq!(answer["deleted"], "1", "{answer}");
    assert!(answer.get("prev_kvs").is_none(), "{answer}");
    assert_eq!(answer["header"]["revision"], "9", "{answer}");
    let (keys, _) = range(&served, json!({"key": DB, "range_end": DB_END}));
    assert!(keys.is_empty(), "{keys:?}");
}

#[test]
fn a_range_the_grammar_cannot_read_or_that_selects_nothing_changes_nothing() {
    let served = serve_corpus_app("etcd");
    let refused = |body: Value| {
        let tool = "post_kv_deleterange";
        let (answer, is_error) = served.call(tool, with_body(&served, tool, body));
        assert!(is_error, "{answer}");
        answer
    };
    // A range end that is not base64: the kv-range grammar does not read the body.
    refused(json!({"key": APP, "range_end": "not base64!"}));
    // A member the delete and its range never took.
    refused(json!({"key": APP, "range_end": APP_END, "limit": 1}));
    // prev_kv with a value no recorded call sent.
    refused(json!({"key": APP, "range_end": APP_END, "prev_kv": false}));
    // A range holding no pair: what a delete removing nothing answers is not recorded.
    refused(json!({"key": "eHl6Lw==", "range_end": "eHl6MA=="}));
    let (keys, revision) = every_key(&served);
    assert_eq!((keys.len(), revision), (6, json!("7")));
}

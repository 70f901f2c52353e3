//! The `store-counter` rule on a recorded application: etcd's v3 `kv/put` stamps the pair it
//! writes with the store-wide revision (`mod_revision`), the integer every answer carries in
//! `header.revision` and every write of any key steps by one (`build.har` calls 49 and 52: 7 → 8
//! → 9, the put of an existing key moving its `mod_revision` from 4 to 9). The state keeps that
//! counter (`rea_state::counters`): seeded from the reads before the first write (7), stepped by
//! each served write of a tool whose answers stepped it, written into the write's answer and the
//! range answers' `header`, and restored by `data/reset`.

use serde_json::{Value, json};

use crate::state_support::plane_calls::run;
use crate::state_support::{Served, corpus_write_plans, plan_of, serve_corpus_app, with_body};

#[test]
fn the_default_pipeline_runs_the_store_counter_after_the_revision() {
    let revision = "[[rules]]\nstage = \"revision\"\n\n[[rules]]\nstage = \"store-counter\"\n";
    assert!(rea_pipeline::DEFAULT_PIPELINE.contains(revision));
}

#[test]
fn a_put_learns_the_store_revision_its_answer_header_carries() {
    let plans = corpus_write_plans("etcd");
    let put = plan_of(&plans, "post_kv_put");
    let shown = serde_json::to_string_pretty(put).expect("plan");
    let rule = put["rules"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|rule| rule["stage"] == "store-counter")
        .unwrap_or_else(|| panic!("no store-counter rule: {shown}"));
    assert_eq!(
        rule["explains"],
        serde_json::json!(["/mod_revision"]),
        "{shown}"
    );
    assert_eq!(rule["rule"]["counter"], "/header/revision", "{shown}");
    assert_eq!(
        rule["rule"]["fields"],
        serde_json::json!({"/mod_revision": "digits"}),
        "{shown}"
    );
    // The state keeps the counter, so the plan replays: the range naming the put key alone
    // after call 52 confirms it.
    assert_eq!(put["served"], Value::Bool(true), "{shown}");
    assert!(
        put["confirmed_by"]
            .as_array()
            .is_some_and(|reads| reads.contains(&Value::from(53))),
        "{shown}"
    );
}

/// The body of a served call's answer, which must not be an error.
fn answered(served: &Served, tool: &str, body: Value) -> Value {
    let (answer, is_error) = served.call(tool, with_body(served, tool, body));
    assert!(!is_error, "{tool}: {answer}");
    answer["body"].clone()
}

/// app/replicas, as the build recorded it before its writes (`3`, revision 4, version 1).
const REPLICAS: &str = "YXBwL3JlcGxpY2Fz";

#[test]
fn the_state_keeps_the_store_revision_and_steps_it_per_served_put() {
    let served = serve_corpus_app("etcd");
    // The counter the capture shows: the header every answer carries, 7 before the writes,
    // stepped by every answer of the three v3 writes.
    let counters = &served.state().store_counters;
    assert_eq!(counters.len(), 1, "{counters:?}");
    assert_eq!(counters[0].pointer, "/header/revision");
    assert_eq!(counters[0].seed.as_str(), Some("7"));
    assert_eq!(
        counters[0].tools,
        ["post_kv_put", "post_kv_txn", "post_kv_deleterange"]
    );
    let range = |served: &Served| answered(served, "post_kv_range", json!({"key": REPLICAS}));
    let before = range(&served);
    assert_eq!(before["header"]["revision"], "7", "{before}");
    assert_eq!(before["kvs"][0]["mod_revision"], "4", "{before}");
    // Two puts: each answers the store's next revision and stamps the pair with it.
    for (value, revision, version) in [("Nw==", "8", "2"), ("OA==", "9", "3")] {
        let put = answered(
            &served,
            "post_kv_put",
            json!({"key": REPLICAS, "value": value}),
        );
        assert_eq!(put["header"]["revision"], revision, "{put}");
        assert_eq!(
            put["header"]["cluster_id"], "16162422364174168257",
            "the rest of the header as recorded: {put}"
        );
        let after = range(&served);
        assert_eq!(after["header"]["revision"], revision, "{after}");
        let pair = &after["kvs"][0];
        assert_eq!(pair["mod_revision"], revision, "{after}");
        assert_eq!(pair["create_revision"], "4", "{after}");
        assert_eq!(pair["version"], version, "{after}");
        assert_eq!(pair["value"], value, "{after}");
    }
    // Every range answer's header stands at the store's revision, not only the written key's.
    let other = answered(&served, "post_kv_range", json!({"key": "YXBwL2Vudg=="}));
    assert_eq!(other["header"]["revision"], "9", "{other}");
    assert_eq!(other["kvs"][0]["mod_revision"], "2", "{other}");
    // data/reset restores the counter with the pairs.
    run(&served, "data/reset", None).expect("reset");
    let reset = range(&served);
    assert_eq!(reset["header"]["revision"], "7", "{reset}");
    assert_eq!(reset["kvs"][0]["mod_revision"], "4", "{reset}");
}

#[test]
fn a_nested_copy_of_a_created_id_is_no_store_counter() {
    // flexget's movie-list create answers the movie with `movies_list_ids: [{"movie_id": …}]`,
    // a copy of its own id inside a list, which steps by one per create too: no envelope member
    // holds steady between writes, so the state keeps no counter and the default pipeline's
    // store-counter explains none of flexget's writes.
    let served = serve_corpus_app("flexget");
    assert!(
        served.state().store_counters.is_empty(),
        "{:?}",
        served.state().store_counters
    );
    let plans = corpus_write_plans("flexget");
    for plan in &plans {
        let stages: Vec<&Value> = plan["rules"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|rule| &rule["stage"])
            .collect();
        assert!(
            !stages.contains(&&Value::from("store-counter")),
            "{}: {stages:?}",
            plan["tool"]
        );
    }
}

/// db/backup, a key the build never held (`10.0.2.12:5432`).
const BACKUP: &str = "ZGIvYmFja3Vw";

#[test]
fn a_put_of_a_new_key_creates_it_at_the_next_revision() {
    // The build's put of app/region (call 49) created its key: `kv/put` is an upsert keyed by
    // its body's `key`, its creating half learned apart, the key's revisions stamped by the
    // store-counter (not the collection's largest revision, which the sequence leaves to it).
    let plans = corpus_write_plans("etcd");
    let put = plan_of(&plans, "post_kv_put");
    let shown = serde_json::to_string_pretty(put).expect("plan");
    assert_eq!(put["upsert"]["record_ordinals"], json!([49]), "{shown}");
    let stages: Vec<&Value> = put["upsert"]["rules"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|rule| &rule["stage"])
        .collect();
    assert_eq!(stages, [&json!("store-counter")], "{shown}");
    assert_eq!(
        put["upsert"]["fields"]["constants"]["version"], "1",
        "{shown}"
    );

    let served = serve_corpus_app("etcd");
    let range = |served: &Served| answered(served, "post_kv_range", json!({"key": BACKUP}));
    let before = range(&served);
    assert!(before.get("kvs").is_none(), "{before}");
    // A put naming no key is refused and changes nothing.
    let (refused, is_error) = served.call(
        "post_kv_put",
        with_body(
            &served,
            "post_kv_put",
            json!({"value": "MTAuMC4yLjEyOjU0MzI="}),
        ),
    );
    assert!(is_error, "{refused}");
    assert_eq!(range(&served)["header"]["revision"], "7");
    // The put creates the pair at the store's next revision, version 1 (probe-crud step 33).
    let put = answered(
        &served,
        "post_kv_put",
        json!({"key": BACKUP, "value": "MTAuMC4yLjEyOjU0MzI="}),
    );
    assert_eq!(put["header"]["revision"], "8", "{put}");
    assert!(put.get("prev_kv").is_none(), "{put}");
    let after = range(&served);
    assert_eq!(after["count"], "1", "{after}");
    assert_eq!(
        after["kvs"][0],
        json!({"key": BACKUP, "create_revision": "8", "mod_revision": "8", "version": "1",
               "value": "MTAuMC4yLjEyOjU0MzI="}),
        "{after}"
    );
    // Put again: now an update of a held pair, its create_revision kept.
    answered(
        &served,
        "post_kv_put",
        json!({"key": BACKUP, "value": "MTAuMC4yLjEzOjU0MzI="}),
    );
    let again = range(&served);
    assert_eq!(again["header"]["revision"], "9", "{again}");
    assert_eq!(again["kvs"][0]["create_revision"], "8", "{again}");
    assert_eq!(again["kvs"][0]["mod_revision"], "9", "{again}");
    assert_eq!(again["kvs"][0]["version"], "2", "{again}");
}

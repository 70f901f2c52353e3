//! RPC-style writes naming their target in the body (`POST /v3/kv/put` with `{"key": …}`): the
//! body member named as the held type's identity names the entity, and the reads after each call
//! observe it. A body-query read whose body names that entity alone (etcd's `kv/range` with
//! `{"key": …}`) is a read of the entity: the pair it lists is the entity after the write, and
//! an answer listing nothing shows it gone, so a verb naming no known effect (`deleterange`) is
//! learned as a delete from its calls. Every write advances the store's revision
//! (`header.revision`, each pair's `mod_revision`), a counter the state keeps (see
//! `state_store_counter`), and the confirming replay checks such body reads as item reads, so
//! both are served. On etcd's v3 JSON gateway, the one recorded application whose RPC writes
//! only body reads observe.

use serde_json::Value;

use crate::state_support::{corpus_write_plans, plan_of};

fn show(plan: &Value) -> String {
    serde_json::to_string(plan).unwrap_or_default()
}

/// The pointers the plan's rules explain.
fn explained(plan: &Value) -> Vec<String> {
    plan["rules"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|rule| rule["explains"].as_array().cloned().unwrap_or_default())
        .filter_map(|pointer| pointer.as_str().map(str::to_owned))
        .collect()
}

#[test]
fn a_body_read_naming_the_key_alone_observes_the_rpc_write_of_that_key() {
    let plans = corpus_write_plans("etcd");
    let put = plan_of(&plans, "post_kv_put");
    let shown = show(put);
    // The body's `key` names the pair, as the range type's identity does.
    assert_eq!(put["target"]["type"], "/v3/kv", "{shown}");
    assert_eq!(put["target"]["key_member"], "key", "{shown}");
    assert_eq!(put["effect"], "update", "{shown}");
    assert_eq!(
        put["record_ordinals"],
        serde_json::json!([49, 52]),
        "{shown}"
    );
    // The ranges naming each put key alone show the pair after it: the put of an existing key
    // keeps its create_revision and steps its version (explained); its mod_revision is the
    // store's revision counter (the store-counter rule explains it: state_store_counter), and
    // the range naming the put key alone after call 52 confirms it.
    assert!(
        explained(put).contains(&"/version".to_owned()),
        "the version steps per put: {shown}"
    );
    assert!(
        put["fields"]["kept"]
            .as_array()
            .is_some_and(|kept| kept.contains(&Value::from("create_revision"))),
        "{shown}"
    );
    assert_eq!(put["served"], true, "{shown}");
    assert!(
        put["confirmed_by"]
            .as_array()
            .is_some_and(|reads| reads.contains(&Value::from(53))),
        "{shown}"
    );
}

#[test]
fn a_verb_whose_calls_leave_the_named_key_gone_is_learned_as_a_delete() {
    let plans = corpus_write_plans("etcd");
    let delete = plan_of(&plans, "post_kv_deleterange");
    let shown = show(delete);
    // `deleterange` is no verb the host knows: the range naming db/replica alone after the
    // call lists nothing, so the call deleted the pair its body names.
    assert_eq!(delete["effect"], "delete", "{shown}");
    assert!(delete["action"].is_null(), "{shown}");
    assert_eq!(delete["target"]["key_member"], "key", "{shown}");
    // Its answer shows the pair it deleted (`prev_kvs`, asked by `prev_kv`).
    assert_eq!(delete["response"]["pointer"], "/prev_kvs/0", "{shown}");
    // The range naming db/replica alone after it lists nothing, at the store's revision the
    // delete stepped (the replay follows the txn before it): it confirms the delete.
    assert_eq!(delete["served"], true, "{shown}");
    assert_eq!(delete["confirmed_by"], serde_json::json!([57]), "{shown}");
}

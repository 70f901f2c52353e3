//! Served writes from several threads at once, on real captures: concurrent creates serialize,
//! each getting an identity of its own that the state then holds, and together they create what
//! the same number of creates one after another does (json-server's sequence ids, kinto's
//! generated record ids: both are decided by the writes served before, never by timing).

use crate::state_support;

use std::collections::BTreeSet;

use serde_json::{Value, json};
use state_support::{Served, serve};

/// Creates per thread.
const CREATES: usize = 12;

/// The identity of a created entity in a create's answer.
fn created_id(served: &Served, tool: &str, arguments: &Value, pointer: &str) -> String {
    let Value::Object(arguments) = arguments.clone() else {
        panic!("arguments are an object")
    };
    let (answer, error) = served.call(tool, arguments);
    assert!(!error, "{tool}: {answer}");
    match answer.pointer(pointer) {
        Some(Value::String(id)) => id.clone(),
        Some(Value::Number(id)) => id.to_string(),
        other => panic!("{tool}: no identity at {pointer}: {other:?} in {answer}"),
    }
}

/// Two threads each serving `CREATES` creates at once, then the same creates one after another
/// on a fresh state: the ids each way.
fn concurrent_and_sequential(
    capture: &str,
    tool: &str,
    arguments: &Value,
    pointer: &str,
) -> (Vec<String>, Vec<String>) {
    let served = serve(capture);
    assert!(
        served
            .state()
            .write_plan(tool)
            .is_some_and(|plan| plan.served),
        "{capture}: {tool} is not served"
    );
    let held = served.backend.service().read().len();
    let concurrent: Vec<String> = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..2)
            .map(|_| {
                scope.spawn(|| {
                    (0..CREATES)
                        .map(|_| created_id(&served, tool, arguments, pointer))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        threads
            .into_iter()
            .flat_map(|thread| thread.join().expect("the thread ends"))
            .collect()
    });
    let live = served.backend.service().read();
    assert_eq!(
        live.len(),
        held + 2 * CREATES,
        "{capture}: every create held"
    );
    assert_eq!(
        live.writes(),
        (2 * CREATES) as u64,
        "{capture}: writes counted"
    );
    drop(live);
    let again = serve(capture);
    let sequential = (0..2 * CREATES)
        .map(|_| created_id(&again, tool, arguments, pointer))
        .collect();
    (concurrent, sequential)
}

#[test]
fn concurrent_creates_get_distinct_ids_and_create_what_creates_in_turn_do() {
    let cases = [
        (
            "json-server/build.har",
            "post_posts",
            json!({"body": {"title": "concurrent", "views": 1}}),
            "/body/id",
        ),
        (
            "kinto/build.har",
            "post_buckets_workspace_collections_records_by_collection_id",
            json!({"collection_id": "tasks", "body": {"data": {"title": "concurrent"}}}),
            "/body/data/id",
        ),
    ];
    for (capture, tool, arguments, pointer) in &cases {
        let (concurrent, sequential) = concurrent_and_sequential(capture, tool, arguments, pointer);
        let distinct: BTreeSet<&String> = concurrent.iter().collect();
        assert_eq!(
            distinct.len(),
            concurrent.len(),
            "{capture}: an id was given twice: {concurrent:?}"
        );
        assert_eq!(
            distinct,
            sequential.iter().collect::<BTreeSet<_>>(),
            "{capture}: concurrent creates made other ids than creates in turn"
        );
    }
}

//! The `digest-revision` rule on a recorded application: PouchDB Server's document `PUT`s give
//! each saved document a `_rev` of a counter and the MD5 of the document as the server serialized
//! it (the body in sent order, its `_id`, the held `_rev` and a one-entry `_revisions` history on
//! an update; `build.har` calls 30, 33, 41 and 45). Only PouchDB Server shows such a revision in
//! the corpus (a one-app rule: no other recorded application spells a revision `N-<32 hex>`).
//! A `POST` create, whose `_id` a later rule generates, is not explained by it.

use crate::state_support::{capture_file, corpus_write_plans, state_rules};
use serde_json::Value;

fn write_plans() -> Vec<Value> {
    corpus_write_plans("pouchdb-server")
}

fn plan<'a>(plans: &'a [Value], tool: &str) -> &'a Value {
    plans
        .iter()
        .find(|plan| plan["tool"] == tool)
        .unwrap_or_else(|| panic!("no plan for {tool}"))
}

fn stages(rules: &Value) -> Vec<(String, Value)> {
    rules
        .as_array()
        .expect("rules")
        .iter()
        .map(|rule| {
            (
                rule["stage"].as_str().expect("stage").to_owned(),
                rule["explains"].clone(),
            )
        })
        .collect()
}

#[test]
fn document_puts_learn_the_counter_and_digest_of_the_saved_document() {
    let plans = write_plans();
    let put = plan(&plans, "put_root_by_segment_0_and_id");
    assert_eq!(
        stages(&put["rules"]),
        [("digest-revision".to_owned(), serde_json::json!(["/_rev"]))],
        "{put:#}"
    );
    let rule = &put["rules"][0]["rule"];
    assert_eq!(rule["field"], "_rev");
    assert_eq!(rule["identity"], "_id");
    assert_eq!(rule["identity_param"], 1);
    assert_eq!(
        rule["composition"],
        serde_json::json!({"identity": true, "prior": true, "history": true})
    );
    // Every recorded document was ASCII: the digest's text encoding is not shown.
    assert_eq!(rule["encoding"], "ascii-only");
    // The creates among the PUTs (upserts) learn it too.
    let upsert = stages(&put["upsert"]["rules"]);
    assert!(
        upsert.iter().any(|(stage, _)| stage == "digest-revision"),
        "{upsert:?}"
    );
}

#[test]
fn a_post_create_whose_identity_is_generated_keeps_its_other_rules() {
    let plans = write_plans();
    let post = plan(&plans, "post_root_by_db_name");
    assert_eq!(post["served"], true, "{post:#}");
    let explained = stages(&post["rules"]);
    assert!(
        explained
            .iter()
            .all(|(stage, _)| stage != "digest-revision"),
        "{explained:?}"
    );
}

/// The arguments of a call of `tool`: path segments by index, and a JSON body.
fn arguments(
    served: &crate::state_support::Served,
    tool: &str,
    segments: &[(usize, &str)],
    body: Option<Value>,
) -> serde_json::Map<String, Value> {
    use rea_manifest::catalog::ArgumentTarget;
    let definition = served.replay.tool(tool).expect("tool");
    let mut out = serde_json::Map::new();
    for argument in &definition.input_schema.arguments {
        match &argument.target {
            ArgumentTarget::Path { segment_index, .. } => {
                if let Some((_, value)) = segments.iter().find(|(at, _)| at == segment_index) {
                    out.insert(argument.name.clone(), Value::from(*value));
                }
            }
            ArgumentTarget::Body => {
                if let Some(body) = &body {
                    out.insert(argument.name.clone(), body.clone());
                }
            }
            ArgumentTarget::Query { .. } => {}
        }
    }
    out
}

#[test]
fn the_index_views_refuse_after_a_served_write_instead_of_stale_rows() {
    let path = rea_tests::workspace_root().join("tests/corpus/apps/pouchdb-server/build.har");
    let served = crate::state_support::serve_evidence(
        capture_file(&path),
        state_rules(),
        Default::default(),
    );
    let all_docs = "get_all_docs_by_segment_0";
    let list = || {
        served.call(
            all_docs,
            arguments(&served, all_docs, &[(0, "library")], None),
        )
    };
    // Before any write the rows of _all_docs answer from the state.
    let (before, is_error) = list();
    assert!(!is_error, "{before:#}");
    assert_eq!(
        before.pointer("/state/source"),
        Some(&Value::from("state")),
        "{before:#}"
    );

    // A served create (POST /{db}, build.har call 37), its answer naming the served _id.
    let post = "post_root_by_db_name";
    let body = serde_json::json!({"type": "book", "title": "Lathe", "author": "author:le-guin",
        "year": 1971, "genre": "sf", "pages": 184, "status": "available", "tags": ["dreams"]});
    let (answer, is_error) = served.call(
        post,
        arguments(&served, post, &[(0, "library")], Some(body)),
    );
    assert!(!is_error, "{answer:#}");
    let id = answer
        .pointer("/body/id")
        .or_else(|| answer.get("id"))
        .cloned();
    assert_ne!(
        id,
        Some(Value::from("3139d1f4-62ab-4333-931c-7b3e5052b7b4")),
        "{answer:#}"
    );

    // The _all_docs rows (a type no write tool writes, which the recorded writes changed) would
    // now show what the state held before the write: refused, never stale.
    let (after, is_error) = list();
    assert!(is_error, "{after:#}");
    assert!(
        after.to_string().contains("unmodelled-after-write"),
        "{after:#}"
    );
}

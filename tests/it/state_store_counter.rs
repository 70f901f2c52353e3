//! The `store-counter` rule on a recorded application: etcd's v3 `kv/put` stamps the pair it
//! writes with the store-wide revision (`mod_revision`), the integer every answer carries in
//! `header.revision` and every write of any key steps by one (`build.har` calls 49 and 52: 7 → 8
//! → 9, the put of an existing key moving its `mod_revision` from 4 to 9).

use crate::state_support::{capture_file, corpus_write_plans, pipeline_rules, plan_of, rules};
use serde_json::Value;

/// etcd's write plans derived with a pipeline naming `store-counter` after `revision` (the stage
/// is opt-in: the default pipeline leaves it out while the host keeps no store counter, since a
/// plan it explains could not be served).
fn etcd_plans_with_the_store_counter() -> Vec<Value> {
    let folder = tempfile::tempdir().unwrap();
    let revision = "[[rules]]\nstage = \"revision\"\n";
    assert!(rea_pipeline::DEFAULT_PIPELINE.contains(revision));
    let text = rea_pipeline::DEFAULT_PIPELINE.replace(
        revision,
        &format!("{revision}\n[[rules]]\nstage = \"store-counter\"\n"),
    );
    let pipeline = folder.path().join("pipeline.toml");
    std::fs::write(&pipeline, text).unwrap();
    let path = rea_tests::workspace_root().join("tests/corpus/apps/etcd/build.har");
    let projected = rea_state::project_state_evidence(
        &capture_file(&path),
        &rules(),
        &pipeline_rules(Some(&pipeline)),
    )
    .expect("state");
    let state: Value =
        serde_json::from_slice(&projected.evidence.to_canonical_vec()).expect("state JSON");
    state["write_plans"]
        .as_array()
        .expect("write plans")
        .clone()
}

#[test]
fn the_default_pipeline_leaves_the_store_counter_out() {
    let plans = corpus_write_plans("etcd");
    let put = plan_of(&plans, "post_kv_put");
    let stages: Vec<&Value> = put["rules"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|rule| &rule["stage"])
        .collect();
    assert!(
        !stages.contains(&&Value::from("store-counter")),
        "{stages:?}"
    );
}

#[test]
fn a_put_learns_the_store_revision_its_answer_header_carries() {
    let plans = etcd_plans_with_the_store_counter();
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
    // The state keeps no store counter yet (nor stamps the range header from one): the put
    // stays withheld rather than answering a stale revision.
    assert_eq!(put["served"], Value::Bool(false), "{shown}");
}

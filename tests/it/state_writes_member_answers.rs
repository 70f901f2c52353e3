//! Updates learned inside one object member of the entity, on real captures: MLflow's
//! runs/update follows an unobserved log-batch of the same run, yet its answer (`{"run_info":
//! …}`) shows the run's `info` as the read after it does, so the update is learned there (the
//! members it sends placed at `/info/…`, its answer that member) and a member only unobserved
//! calls sent (`run_name`, which also rewrites a tag) is refused; flexget's entry PUT, which
//! may replace its `entry` object whole, is not merged into it.

use crate::state_support;

use serde_json::{Value, json};
use state_support::{Served, serve, serve_corpus_app};

fn call(served: &Served, tool: &str, arguments: Value) -> (Value, bool) {
    let Value::Object(arguments) = arguments else {
        panic!("arguments are an object")
    };
    served.call(tool, arguments)
}

#[test]
fn an_mlflow_run_update_sets_the_info_members_it_sends_and_answers_the_info() {
    let served = serve("mlflow/build.har");
    let plan = served
        .state()
        .write_plan("post_mlflow_runs_update")
        .cloned()
        .expect("a plan");
    assert!(plan.served, "{:?}", plan.reason);
    let sent_as = &plan.fields.as_ref().expect("fields").sent_as;
    assert_eq!(
        sent_as.get("status").map(String::as_str),
        Some("/info/status")
    );
    assert_eq!(
        sent_as.get("end_time").map(String::as_str),
        Some("/info/end_time")
    );
    let run = "093664c431d34c09b820e07002e2f673";
    let (before, _) = call(&served, "get_mlflow_runs_get", json!({"run_id": run}));
    assert_eq!(before["body"]["run"]["info"]["status"], "FAILED");
    let (updated, error) = call(
        &served,
        "post_mlflow_runs_update",
        json!({"body": {"run_id": run, "status": "KILLED"}}),
    );
    assert!(!error, "{updated}");
    assert_eq!(updated["status"], 200);
    let mut expected = before["body"].clone();
    expected["run"]["info"]["status"] = json!("KILLED");
    assert_eq!(
        updated["body"],
        json!({"run_info": expected["run"]["info"]})
    );
    let (read, _) = call(&served, "get_mlflow_runs_get", json!({"run_id": run}));
    assert_eq!(read["body"], expected);
    // A rename also rewrites the run's mlflow.runName tag, which no read showed alone: refused,
    // and nothing changes.
    let (refused, error) = call(
        &served,
        "post_mlflow_runs_update",
        json!({"body": {"run_id": run, "run_name": "renamed"}}),
    );
    assert!(error, "{refused}");
    let (read, _) = call(&served, "get_mlflow_runs_get", json!({"run_id": run}));
    assert_eq!(read["body"], expected);
}

#[test]
fn a_flexget_entry_put_is_not_merged_into_an_entry_object_it_may_replace() {
    // Flexget's entry PUT overrides the entry data with what it sent; the build's one PUT
    // changed every leaf of the entry object, so nothing shows a merge: the quality it sends is
    // not placed inside the object (the plan is withheld rather than served by a guess).
    let served = serve_corpus_app("flexget");
    let plan = served
        .state()
        .write_plan("put_entry_list_entries_by_entry_list_id_and_entry_id")
        .cloned()
        .expect("a plan");
    let placed = plan
        .fields
        .as_ref()
        .and_then(|fields| fields.sent_as.get("quality").cloned());
    assert_eq!(placed, None, "{plan:?}");
    assert!(!plan.served, "{plan:?}");
}

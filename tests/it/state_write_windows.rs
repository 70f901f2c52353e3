//! Writes confirmed together, on a real capture: MLflow's build writes run 48a6… twice with no
//! read between (an unobserved runs/log-batch, then runs/update answering `{"run_info": …}`),
//! and its read after both shows the two at once. The update's answer shows the one member it
//! changed, so the two effects are separable: the update is learned in `info`, the log-batch
//! from the rest (its params, metrics and tags), and the read confirms the update. The
//! build's set-tag follows a rename answering only `info` too, but a rename also rewrites the
//! run's `mlflow.runName` tag, in the `data` member set-tag writes: the read after them shows
//! the two tag changes together, and set-tag is not learned from it.

use crate::state_support;

use state_support::serve;

#[test]
fn mlflow_log_batch_is_observed_through_the_update_answering_its_info() {
    let served = serve("mlflow/build.har");
    let state = served.state();
    let update = state
        .write_plan("post_mlflow_runs_update")
        .expect("an update plan");
    assert!(update.served, "{:?}", update.reason);
    assert_eq!(update.confirmed_by, vec![28]);
    // The log-batch of 26 is observed (its params and metrics stored under `data`), no longer
    // `no-observation`; it stays withheld, for no rule explains the tag it appended to the
    // tags the run held.
    let batch = state
        .write_plan("post_mlflow_runs_log_batch")
        .expect("a log-batch plan");
    assert!(!batch.served);
    assert_eq!(batch.reason.as_deref(), Some("unexplained-change"));
    assert_eq!(batch.exemplar_ordinal, Some(26));
    // Set-tag's one call follows a rename whose effect on `data` no answer showed.
    let tag = state
        .write_plan("post_mlflow_runs_set_tag")
        .expect("a set-tag plan");
    assert!(!tag.served);
    assert_eq!(tag.reason.as_deref(), Some("no-observation"));
}

//! A change a read shows after a write the replay cannot follow (a write the state has no target
//! for: an RPC running a task, an action route it does not model) may be that write's: it is
//! charged to no plan, where it used to be charged to the latest modelled write as a side effect.
//! Two recorded applications: FlexGet's `POST /api/tasks/execute` (build call 56) changes the
//! entry lists read after it, which had withheld the series `DELETE` (call 54); Datasette's
//! `POST /tracker/task_tags/{key}/-/delete` (call 56) changes the task tags read after it, which
//! had withheld the row delete action (call 53). Both deletes are served now, confirmed by their
//! own reads; the writes the replay cannot follow stay withheld (FlexGet's task run; Datasette's
//! tag delete is followed now, its compound key a fused identity).

use crate::state_support::{corpus_write_plans, plan_of as plan};
use serde_json::Value;

fn assert_served_and_confirmed(plan: &Value) {
    assert_eq!(plan["served"], true, "{plan:#}");
    assert!(
        !plan["confirmed_by"]
            .as_array()
            .expect("confirmed_by")
            .is_empty(),
        "{plan:#}"
    );
}

#[test]
fn a_series_delete_is_not_charged_with_what_the_task_run_after_it_changed() {
    let plans = corpus_write_plans("flexget");
    assert_served_and_confirmed(plan(&plans, "delete_series_by_sery_id"));
    let execute = plan(&plans, "post_tasks_execute");
    assert_eq!(execute["served"], false, "{execute:#}");
    assert_eq!(execute["reason"], "no-state-target", "{execute:#}");
}

#[test]
fn a_row_delete_is_not_charged_with_what_the_tag_delete_after_it_changed() {
    let plans = corpus_write_plans("datasette");
    assert_served_and_confirmed(plan(
        &plans,
        "post_tracker_delete_by_tracker_id_and_segment_2",
    ));
    // The tag delete is followed now: task_tags rows are named by their compound key fused
    // from two members (`{task_id},{tag}`, `tests/it/state_fused_identity.rs`), so the delete
    // on that key is served, confirmed by the missing-row read after it.
    let tags = plan(&plans, "post_tracker_task_tags_delete_by_task_tag_id");
    assert_served_and_confirmed(tags);
    assert_eq!(
        tags["target"]["identity_field"], "{task_id},{tag}",
        "{tags:#}"
    );
}

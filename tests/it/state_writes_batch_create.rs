//! A create tool whose recorded calls send one object or an array of them (a batch) is learned
//! from the one-object calls, with the defaults a call omitting members stored (what every
//! create not sending a member stored with one value); each batch call is adopted as observed,
//! each entity its answer lists held, so the reads after it confirm the plan instead of
//! contradicting it. A write whose plan the replay already knows wrong (contradicted, or an answer
//! it does not reproduce) explains the differences later reads show about what it wrote, so the
//! collection's other writes are not blamed for them. Recorded on Directus (`POST /items/tasks`:
//! build calls 25 and 28 send one task, 34 an array of two; the project create of call 30 nests
//! two tasks its plan makes as nested children); no second recorded application sends a batch to a create.

use crate::state_support::{corpus_write_plans, plan_of as plan};
use serde_json::Value;

#[test]
fn a_task_create_is_learned_from_its_one_object_calls_and_served() {
    let plans = corpus_write_plans("directus");
    let create = plan(&plans, "post_items_tasks");
    assert_eq!(create["served"], true, "{create:#}");
    assert_eq!(
        create["record_ordinals"],
        serde_json::json!([25, 28]),
        "{create:#}"
    );
    // Call 28 sent only a title: the defaults are what it stored.
    let constants = &create["fields"]["constants"];
    assert_eq!(constants["state"], "todo", "{create:#}");
    assert_eq!(constants["assignee"], Value::Null, "{create:#}");
    // The task delete keeps being served: the differences the list reads after it show about
    // the batch's tasks (updated by a bulk PATCH whose plan is contradicted) and the project
    // create's nested tasks are not charged to it.
    let delete = plan(&plans, "delete_items_tasks_by_id");
    assert_eq!(delete["served"], true, "{delete:#}");
    // The project create nesting two tasks is served too: it makes its children itself (see
    // `state_writes_nested_creates`), so their tasks are not charged to the task delete.
    let project = plan(&plans, "post_items_projects");
    assert_eq!(project["served"], true, "{project:#}");
}

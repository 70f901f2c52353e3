//! A query nested in a wrapper's brackets (LoopBack's `filter[where][status]=todo`,
//! `filter[where][priority][gt]=2`, `filter[limit]`, `filter[skip]`, `filter[order]=title DESC`;
//! see `rea_plugin_api::query_fields::unnested`), qs's indexed value lists
//! (`filter[where][status][inq][0]=a&…[1]=b`, `filter[order][0]=…`; see
//! `rea_plugin_api::query_lists::fold_indexed`) and sort keys with a direction word: learned
//! from LoopBack's build and answered from the state for values, fields, operators and
//! combinations it never sent; the bracketed operator words, `[]` lists and offsets FeathersJS
//! established (`state_query_lists.rs`) read the same way on this second app. A field selection
//! nested so and spelled as flags (`filter[fields][title]=true`) or by index
//! (`filter[fields][0]=code`) folds into the selection's comma list
//! (`rea_plugin_api::query_lists::fold_flags`) and shows other fields on lists and items.

use crate::state_query_grammar::served_with_probes;
use crate::state_query_lists::{
    argument_schema, assert_item_answers, assert_state_answers, takes_a_list,
};

#[test]
fn a_filter_nested_in_a_wrappers_brackets_answers_from_the_state() {
    let (served, probes) = served_with_probes("loopback");
    assert_state_answers(
        &served,
        &probes,
        "get_tasks",
        &[
            "GET /tasks?filter[where][projectId]=3",
            "GET /tasks?filter[where][assigneeId]=1&filter[where][status]=todo",
            "GET /tasks?filter[where][priority][gte]=3",
            "GET /tasks?filter[where][estimate][lte]=2&filter[where][status]=todo",
            "GET /tasks?filter[where][dueDate][lt]=2026-12-01",
            "GET /tasks?filter[where][projectId][neq]=1",
            "GET /tasks?filter[where][title]=Grease%20the%20winch",
            "GET /tasks?filter[where][estimate]=8",
        ],
    );
    assert_state_answers(
        &served,
        &probes,
        "get_projects",
        &[
            "GET /projects?filter[where][budget][lte]=60",
            "GET /projects?filter[where][name]=Ferry%20Ramp",
        ],
    );
    // A field's own name in brackets is offered as one value, not as a list name.
    let equality = argument_schema(&served, "get_tasks", "filter[where][title]").expect("offered");
    assert!(!takes_a_list(&equality), "{equality}");
}

#[test]
fn an_indexed_value_list_and_a_sort_with_direction_words_answer_from_the_state() {
    // Recorded: `filter[where][status][inq][0]=doing&…[1]=done`, `[nin][0]/[1]` on projectId,
    // `[between][0]/[1]` on estimate, `filter[order][0]=priority DESC&filter[order][1]=title ASC`,
    // `filter[limit]`/`filter[skip]`. Asked: other fields, one value, pages walked.
    let (served, probes) = served_with_probes("loopback");
    assert_state_answers(
        &served,
        &probes,
        "get_tasks",
        &[
            "GET /tasks?filter[where][status][inq][0]=todo",
            // The `[]` list spelling the build sent for assigneeId, asked of a set filter it
            // established only by index.
            "GET /tasks?filter[where][status][inq][]=todo&filter[where][status][inq][]=done",
            "GET /tasks?filter[where][projectId][inq][0]=3&filter[where][projectId][inq][1]=4",
            "GET /tasks?filter[where][status][nin][0]=todo&filter[where][status][nin][1]=doing",
            "GET /tasks?filter[where][priority][between][0]=1&filter[where][priority][between][1]=2",
            "GET /tasks?filter[order]=estimate%20DESC",
            "GET /tasks?filter[order][0]=status%20ASC&filter[order][1]=priority%20DESC",
            "GET /tasks?filter[limit]=4&filter[skip]=8",
            "GET /tasks?filter[where][projectId][inq][0]=1&filter[where][projectId][inq][1]=2&filter[order]=priority%20ASC&filter[limit]=3&filter[skip]=3",
        ],
    );
    assert_state_answers(
        &served,
        &probes,
        "get_people",
        &["GET /people?filter[order]=name%20ASC&filter[limit]=2&filter[skip]=2"],
    );
}

#[test]
fn a_nested_selection_spelled_as_flags_or_by_index_shows_other_fields() {
    // Recorded: `filter[fields][title]=true&filter[fields][status]=true` on tasks,
    // `filter[fields][0]=name` on people, `/tasks/5?filter[fields][title]=true`. Asked: other
    // fields (one recorded flag beside an unrecorded one), a sibling list, another item.
    let (served, probes) = served_with_probes("loopback");
    assert_state_answers(
        &served,
        &probes,
        "get_tasks",
        &[
            "GET /tasks?filter[fields][title]=true&filter[fields][priority]=true",
            "GET /tasks?filter[where][status]=todo&filter[order]=priority%20DESC&filter[fields][title]=true",
        ],
    );
    assert_state_answers(
        &served,
        &probes,
        "get_projects",
        &["GET /projects?filter[fields][0]=code"],
    );
    assert_item_answers(
        &served,
        &probes,
        ("get_tasks_by_id", Some("1")),
        &["GET /tasks/1?filter[fields][status]=true"],
    );
}

#[test]
fn a_set_filter_recorded_by_index_is_offered_as_a_list_name_too() {
    // `filter[where][status][inq]` was recorded as `[inq][0]`, `[inq][1]` (entry 7); the
    // application spells value lists with `[]` too (assigneeId, entry 8), so the recorded set
    // filter takes that spelling, as an array.
    let (served, _) = served_with_probes("loopback");
    let listed = argument_schema(&served, "get_tasks", "filter[where][status][inq][]")
        .expect("the list name is offered");
    assert!(takes_a_list(&listed), "{listed}");
    // A field's own name (no set operator) is not.
    assert!(argument_schema(&served, "get_tasks", "filter[where][status][]").is_none());
}

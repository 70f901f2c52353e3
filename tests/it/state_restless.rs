//! Flask-Restless-NG (corpus app `restless`), an application the state engine was not developed
//! on: its list answers' `links` hold `self`, the collection's path alone, beside the page links
//! (`first`, `last`, `next`, `prev`), learned as an echo relation of the call's path without its
//! query (`PageRelation::echo_bare`); its filter lists pass SQLAlchemy's `like`, a SQL pattern
//! (`%the%`), not a substring, and SQLAlchemy's `not_in`, a presence test naming no value
//! (`is_null`), an `or` group of conditions and a `has` condition on a task's project or assignee
//! (over the joined resource) as the build used them, `any` refused where the list joins no
//! relation; and a filter on the
//! foreign-key column `assignee_id`, which no
//! resource shows (its tasks show `relationships.assignee.data.id`), is refused rather than
//! matching nothing.

use serde_json::Value;

use crate::state_query_grammar::{assert_live_answers, probe_arguments, served_with_probes};
use crate::state_support::{assert_not_modelled, probe_with_line};

const APP: &str = "restless";

/// The probe of `line` called on `tool` with its query pairs is not modelled; its answer.
fn assert_probe_refused(tool: &str, line: &str) -> Value {
    let (served, probes) = served_with_probes(APP);
    let (answer, is_error) = served.call(tool, probe_arguments(probe_with_line(&probes, line)));
    assert_not_modelled(&answer, is_error);
    answer
}

#[test]
fn pages_the_build_never_read_answer_their_links_and_the_bare_self() {
    // Recorded: pages of 10 and of 5; never pages of 4, of 3 or past the end.
    assert_live_answers(
        APP,
        "get_task",
        &[
            "GET /api/task?page[size]=4&page[number]=2",
            "GET /api/task?page[size]=3&page[number]=4",
            "GET /api/task?page[size]=5&page[number]=9",
        ],
    );
}

#[test]
fn like_is_a_sql_pattern() {
    // Recorded: `ilike` `%THE%` and `like` `%page%`; the probe asks `like` `%the%`.
    assert_live_answers(
        APP,
        "get_task",
        &[
            "GET /api/task?filter[objects]=%5B%7B%22name%22%3A%22title%22,%22op%22%3A%22like%22,%22val%22%3A%22%25the%25%22%7D%5D",
        ],
    );
}

#[test]
fn a_filter_on_a_field_no_task_holds_is_refused() {
    let line = "GET /api/task?filter[objects]=%5B%7B%22name%22%3A%22assignee_id%22,%22op%22%3A%22eq%22,%22val%22%3A6%7D%5D";
    let answer = assert_probe_refused("get_task", line);
    assert_eq!(
        answer.pointer("/error/data/reason").and_then(Value::as_str),
        Some("unrecorded-request"),
        "{answer}"
    );
}

#[test]
fn the_task_update_is_served_past_an_unobserved_relationship_write() {
    // Build entry 71 moved task 13 by `PATCH /api/task/13/relationships/project`, which no read
    // of task 13 followed; the task's own PATCH after it (74) shows both changes together and
    // teaches nothing of its own, so the first PATCH (68) alone explains the update.
    let served = crate::state_support::serve_corpus_app(APP);
    let plan = crate::state_support::write_plan(&served, "patch_task_by_id");
    assert!(plan.served, "{plan:?}");
}

#[test]
fn the_people_borrow_the_tasks_page_links_and_null_placement() {
    // The people were never paged (each list shorter than the default page of 10) and never
    // sorted on a null; they take the tasks' links form with its default size (their unsized
    // lines show `page[size]=10` in their links) and the nulls-first placement the tasks' and
    // projects' sorts showed, read through the resources' `attributes`.
    assert_live_answers(
        APP,
        "get_person",
        &[
            "GET /api/person?page[size]=3&page[number]=3",
            "GET /api/person?sort=email",
        ],
    );
}

#[test]
fn a_person_created_without_an_email_holds_null_as_dan_does() {
    // Build entry 79 created a person with an email; Dan, held, has `attributes.email: null`:
    // a create leaving the email out answers and stores `null` there, as the app does.
    let served = crate::state_support::serve_corpus_app(APP);
    let body = serde_json::json!({"data": {"type": "person", "attributes": {"name": "Ines Ito", "role": "engineer"}}});
    let (answer, is_error) = served.call(
        "post_person",
        crate::state_support::with_body(&served, "post_person", body),
    );
    assert!(!is_error, "{answer}");
    let (status, live) = crate::state_support::live_answer(APP, "probe-crud", 17);
    assert_eq!(answer.get("status").and_then(Value::as_u64), Some(status));
    assert_eq!(answer.get("body"), Some(&live), "{answer}");
}

#[test]
fn not_in_presence_tests_and_or_groups_are_read_as_the_build_used_them() {
    // Recorded: `status not_in [done]` (entry 17), `estimate is_null` on tasks (entry 18) and
    // `{or: [status eq done, priority eq 3]}` (entry 25); the probe asks `not_in` two values,
    // `is_null` on the people's `email` and `or` over other conditions.
    assert_live_answers(
        APP,
        "get_task",
        &[
            "GET /api/task?filter[objects]=%5B%7B%22name%22%3A%22status%22,%22op%22%3A%22not_in%22,%22val%22%3A%5B%22todo%22,%22doing%22%5D%7D%5D",
            "GET /api/task?filter[objects]=%5B%7B%22or%22%3A%5B%7B%22name%22%3A%22status%22,%22op%22%3A%22eq%22,%22val%22%3A%22todo%22%7D,%7B%22name%22%3A%22estimate%22,%22op%22%3A%22gt%22,%22val%22%3A5%7D%5D%7D%5D",
        ],
    );
    assert_live_answers(
        APP,
        "get_person",
        &[
            "GET /api/person?filter[objects]=%5B%7B%22name%22%3A%22email%22,%22op%22%3A%22is_null%22%7D%5D",
        ],
    );
}

#[test]
fn a_presence_test_the_build_never_used_stays_refused() {
    // `is_not_null` (probe-reads step 12) was never recorded: no role, the call is not modelled.
    let line = "GET /api/task?filter[objects]=%5B%7B%22name%22%3A%22estimate%22,%22op%22%3A%22is_not_null%22%7D%5D";
    assert_probe_refused("get_task", line);
}

#[test]
fn a_has_condition_reads_the_linked_resource_and_any_without_a_join_is_refused() {
    // Recorded: `project has {code eq OPS}` and `assignee has {role eq engineer}` (entries 23,
    // 24); the probe asks other fields of the linked project and person.
    assert_live_answers(
        APP,
        "get_task",
        &[
            "GET /api/task?filter[objects]=%5B%7B%22name%22%3A%22project%22,%22op%22%3A%22has%22,%22val%22%3A%7B%22name%22%3A%22status%22,%22op%22%3A%22eq%22,%22val%22%3A%22archived%22%7D%7D%5D",
            "GET /api/task?filter[objects]=%5B%7B%22name%22%3A%22assignee%22,%22op%22%3A%22has%22,%22val%22%3A%7B%22name%22%3A%22name%22,%22op%22%3A%22eq%22,%22val%22%3A%22Carol%20Chen%22%7D%7D%5D",
        ],
    );
    // The projects join no `tasks` (a linkage array): `any` is not evaluated.
    let line = "GET /api/project?filter[objects]=%5B%7B%22name%22%3A%22tasks%22,%22op%22%3A%22any%22,%22val%22%3A%7B%22name%22%3A%22priority%22,%22op%22%3A%22eq%22,%22val%22%3A3%7D%7D%5D";
    assert_probe_refused("get_project", line);
}

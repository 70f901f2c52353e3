//! Flask-Restless-NG (corpus app `restless`), an application the state engine was not developed
//! on: its list answers' `links` hold `self`, the collection's path alone, beside the page links
//! (`first`, `last`, `next`, `prev`), learned as an echo relation of the call's path without its
//! query (`PageRelation::echo_bare`); its filter lists pass SQLAlchemy's `like`, a SQL pattern
//! (`%the%`), not a substring, and SQLAlchemy's `not_in`, a presence test naming no value
//! (`is_null`), an `or` group of conditions and a `has` condition on a task's project or assignee
//! (over the joined resource) as the build used them, `any` refused where the list joins no
//! relation; a filter on the foreign-key column `assignee_id`, which no resource shows (its
//! tasks show `relationships.assignee.data.id`), compares the relation's linkage; and the
//! resources a compound document includes are listed by type and id.

use serde_json::{Value, json};

use crate::state_query_grammar::{assert_live_answers, probe_arguments, served_with_probes};
use crate::state_support::{assert_not_modelled, id_and_body, probe_with_line, read_by_id};

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
fn a_foreign_key_column_filters_by_the_relation_and_included_resources_sort_by_type_and_id() {
    // Recorded: `project_id eq 2` and `assignee_id eq 3` (entries 19, 20), columns no resource
    // shows (a task shows `relationships.project.data.id`); the probe asks other ids (project 4,
    // probe-reads step 13, is build entry 97's own request, after a move). Entry 39
    // listed its included people and projects by type and id, not as the tasks named them.
    assert_live_answers(
        APP,
        "get_task",
        &[
            "GET /api/task?filter[objects]=%5B%7B%22name%22%3A%22assignee_id%22,%22op%22%3A%22eq%22,%22val%22%3A6%7D%5D",
            "GET /api/task?filter[objects]=%5B%7B%22name%22%3A%22project_id%22,%22op%22%3A%22eq%22,%22val%22%3A3%7D%5D&include=assignee",
        ],
    );
}

#[test]
fn relationship_writes_shown_by_reads_of_the_relationship_are_served() {
    // Build entry 71 moved task 13 by `PATCH /api/task/13/relationships/project`; no read of
    // task 13 followed, but the read of its related project did (entry 72). Entry 83 set task
    // 12's assignee, shown by person 8's task list (84); entry 95 added task 11 to project 1,
    // shown by task 11's own linkage route (96). The task's PATCH after entry 71 (74) then
    // teaches what it sends in `relationships`, and person 8's delete (85) clears the
    // assignee of the tasks naming them.
    let served = crate::state_support::serve_corpus_app(APP);
    for tool in [
        "patch_task_relationships_project_by_task_id",
        "patch_task_relationships_assignee_by_task_id",
        "post_project_relationships_tasks_by_project_id",
        "patch_task_by_id",
    ] {
        let plan = crate::state_support::write_plan(&served, tool);
        assert!(plan.served, "{tool}: {plan:?}");
    }
    let project = |id: &str| json!({"data": {"type": "project", "id": id}});
    let tool = "patch_task_relationships_project_by_task_id";
    let (answer, is_error) = served.call(tool, id_and_body(&served, tool, "3", project("4")));
    assert!(!is_error, "{answer}");
    let related = read_by_id(&served, "get_task_project_by_task_id", "3");
    assert_eq!(related.pointer("/data/id"), Some(&json!("4")), "{related}");
    let unassigned = json!({"data": {"type": "task", "id": "3",
        "relationships": {"assignee": {"data": null}}}});
    let (answer, is_error) = served.call(
        "patch_task_by_id",
        id_and_body(&served, "patch_task_by_id", "3", unassigned),
    );
    assert!(!is_error, "{answer}");
    let task = read_by_id(&served, "get_task_by_id", "3");
    assert_eq!(
        task.pointer("/data/relationships/assignee/data"),
        Some(&Value::Null)
    );
    assert_eq!(
        task.pointer("/data/relationships/project/data/id"),
        Some(&json!("4"))
    );
    let tool = "post_project_relationships_tasks_by_project_id";
    let added = json!({"data": [{"type": "task", "id": "12"}]});
    let (answer, is_error) = served.call(tool, id_and_body(&served, tool, "2", added));
    assert!(!is_error, "{answer}");
    let task = read_by_id(&served, "get_task_by_id", "12");
    assert_eq!(
        task.pointer("/data/relationships/project/data/id"),
        Some(&json!("2"))
    );
    // Person 6 holds tasks 9 and 11; their assignee is cleared with the person.
    let task = read_by_id(&served, "get_task_by_id", "9");
    assert_eq!(
        task.pointer("/data/relationships/assignee/data/id"),
        Some(&json!("6"))
    );
    let (answer, is_error) = served.call(
        "delete_person_by_id",
        crate::state_support::id_arguments(&served, "delete_person_by_id", "6"),
    );
    assert!(!is_error, "{answer}");
    for id in ["9", "11"] {
        let task = read_by_id(&served, "get_task_by_id", id);
        assert_eq!(
            task.pointer("/data/relationships/assignee/data"),
            Some(&Value::Null)
        );
    }
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

#[test]
fn a_linkage_route_mints_its_related_link_from_the_call_path() {
    // Build entries 54 and 55 read tasks 1's linkage routes; the probe reads task 3's assignee
    // route (probe-reads step 51), whose `links.related` no task holds.
    let served = crate::state_support::serve_corpus_app(APP);
    let tool = "get_task_relationships_assignee_by_task_id";
    let answer = read_by_id(&served, tool, "3");
    let (status, live) = crate::state_support::live_answer(APP, "probe-reads", 51);
    assert_eq!(status, 200);
    assert_eq!(answer, live);
}

#[test]
fn a_transferred_linkage_route_mints_its_page_links_its_collection_and_its_count() {
    // The build read project 2's tasks linkage (entry 58: `links.first` and `last` with the page
    // query, `links.self` the collection's path, `meta.total` 3), never a person's; sibling
    // transfer offers the people's route, answered for Alice (probe-reads step 54).
    let served = crate::state_support::serve_corpus_app_transfer(APP, true);
    let tool = "get_person_relationships_tasks_by_person_id";
    let answer = read_by_id(&served, tool, "1");
    let (status, live) = crate::state_support::live_answer(APP, "probe-reads", 54);
    assert_eq!(status, 200);
    assert_eq!(answer, live);
}

#[test]
fn a_compound_read_after_a_served_move_includes_what_the_inverse_linkage_keeps() {
    // A project's `relationships.tasks.data` lists the tasks naming it, kept as a task moves
    // (`inverse.rs`), so after a served write its `include=tasks` read answers from the state
    // (before, any held to-many linkage refused after a write): the moved task included as its
    // own read shows it, and gone from its old project's.
    let served = crate::state_support::serve_corpus_app(APP);
    let included = |id: &str| {
        let mut arguments = crate::state_support::id_arguments(&served, "get_project_by_id", id);
        arguments.insert("include".to_owned(), json!("tasks"));
        let (answer, is_error) = served.call("get_project_by_id", arguments);
        assert!(!is_error, "{answer}");
        assert_eq!(
            answer.pointer("/state/source").and_then(Value::as_str),
            Some("state"),
            "{answer}"
        );
        answer["body"].clone()
    };
    let linked = |project: &Value| -> Vec<String> {
        (project["data"]["relationships"]["tasks"]["data"].as_array())
            .expect("the tasks' linkage")
            .iter()
            .map(|identifier| identifier["id"].as_str().expect("an id").to_owned())
            .collect()
    };
    let task = read_by_id(&served, "get_task_by_id", "3");
    let old = task["data"]["relationships"]["project"]["data"]["id"]
        .as_str()
        .expect("task 3's project")
        .to_owned();
    assert_ne!(old, "4");
    assert!(linked(&included(&old)).contains(&"3".to_owned()));
    let tool = "patch_task_relationships_project_by_task_id";
    let moved = json!({"data": {"type": "project", "id": "4"}});
    let (answer, is_error) = served.call(tool, id_and_body(&served, tool, "3", moved));
    assert!(!is_error, "{answer}");
    let project = included("4");
    assert!(linked(&project).contains(&"3".to_owned()), "{project}");
    let task = read_by_id(&served, "get_task_by_id", "3");
    let shown = project["included"].as_array().expect("included");
    assert!(shown.contains(&task["data"]), "{project}");
    assert_eq!(shown.len(), linked(&project).len(), "{project}");
    let left = included(&old);
    assert!(!linked(&left).contains(&"3".to_owned()), "{left}");
    assert!(
        !left["included"]
            .as_array()
            .expect("included")
            .contains(&task["data"])
    );
}

#[test]
fn a_condition_on_a_field_no_task_holds_answers_the_recorded_refusal() {
    // Build entry 61 refused `colour eq red` inside the filter list (400, `Invalid filter object:
    // No such field "colour"`), where other conditions named held fields and the foreign-key
    // column `project_id`; the probe asks `blue`.
    crate::state_query_grammar::assert_live_refusal(
        APP,
        "get_task",
        "GET /api/task?filter[objects]=%5B%7B%22name%22%3A%22colour%22,%22op%22%3A%22eq%22,%22val%22%3A%22blue%22%7D%5D",
    );
}

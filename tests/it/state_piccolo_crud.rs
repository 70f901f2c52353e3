//! piccolo-api's PiccoloCRUD (`tests/corpus/apps/piccolo`), an application nobody tuned the
//! engine for: its control parameters marked by a double underscore (`__order`, `__page`,
//! `__page_size`), read as the plain names' roles (`query_fields::unsigiled`), and its operators
//! held by companion parameters (`priority=2&priority__operator=gte`, `title__match=ends`,
//! `due__operator=not_null`), which `field-affixes` splits into filter terms
//! (`rea_plugin_query_grammar::companion`), the companion's affix read from the call.
//! Its creates answer the generated id alone in a list of one object (`[{"id": 15}]`), the
//! created row shown by the item read after it, or only by a list filtered by one of its fields
//! (`?project=5`): the create is learned and served (`writes::observe::find_entity`,
//! `whole_members_list`).

use serde_json::json;

use crate::state_query_grammar::served_with_probes;
use crate::state_query_lists::assert_state_answers;
use crate::state_support::{
    Served, call_with_strings, live_answer, path_parameter, serve_corpus_app, with_body,
};

/// Calls a write tool with a JSON body (and the item's id), asserting it is served.
fn write(
    served: &Served,
    tool: &str,
    id: Option<&str>,
    body: serde_json::Value,
) -> serde_json::Value {
    let mut arguments = with_body(served, tool, body);
    if let Some(id) = id {
        arguments.insert(path_parameter(served, tool), json!(id));
    }
    let (answer, is_error) = served.call(tool, arguments);
    assert!(!is_error, "{tool}: {answer}");
    answer
}

/// Reads an item by id, asserting an answer.
fn read_item(served: &Served, tool: &str, id: &str) -> serde_json::Value {
    let parameter = path_parameter(served, tool);
    let (answer, is_error) = call_with_strings(served, tool, &[(&parameter, id)]);
    assert!(!is_error, "{tool}: {answer}");
    answer
}

#[test]
fn creates_answering_their_id_in_a_list_of_one_are_served() {
    // probe-crud 0-1: a task's create answers `[{"id": 15}]`, its read every sent field, the
    // frozen clock's `created_at` and the next id (build entries 64-65 show it).
    let served = serve_corpus_app("piccolo");
    let task = json!({"title": "Test the sprinklers", "status": "doing", "priority": 2,
        "due": null, "project": 2, "assignee": 1});
    let answer = write(&served, "post_tasks", None, task);
    assert_eq!(answer["body"], live_answer("piccolo", "probe-crud", 0).1);
    let answer = read_item(&served, "get_tasks_by_task_id", "15");
    assert_eq!(answer["body"], live_answer("piccolo", "probe-crud", 1).1);
    // probe-crud 34-35: a project's create, which the build read only through the project list
    // and the tasks filtered by it (entries 86-88), never by id.
    let project = json!({"code": "WTR", "name": "Water Tower", "budget": 55, "active": false});
    let answer = write(&served, "post_projects", None, project);
    assert_eq!(answer["body"], live_answer("piccolo", "probe-crud", 34).1);
    let answer = read_item(&served, "get_projects_by_project_id", "5");
    assert_eq!(answer["body"], live_answer("piccolo", "probe-crud", 35).1);
}

#[test]
fn operator_companions_answer_from_the_state() {
    // Recorded: `__operator` gte, lt, lte, ne, is_null on tasks and gte on projects; `__match`
    // starts, ends, exact on tasks. Asked: other values, `not_null` (never recorded), `lte` on
    // the projects' budget, `exact` on another title.
    let (served, probes) = served_with_probes("piccolo");
    assert_state_answers(
        &served,
        &probes,
        "get_tasks",
        &[
            "GET /api/tasks/?title=wall&title__match=ends",
            "GET /api/tasks/?title=Fit%20the%20vents&title__match=exact",
            "GET /api/tasks/?due__operator=not_null",
        ],
    );
    assert_state_answers(
        &served,
        &probes,
        "get_projects",
        &["GET /api/projects/?budget=60&budget__operator=lte"],
    );
}

#[test]
fn a_companion_affix_one_list_established_filters_its_siblings() {
    // The tasks established `__operator` and `__match` (build entries 10-20); the people were
    // never filtered through a companion, nor the projects through `__match`.
    let (served, probes) = served_with_probes("piccolo");
    assert_state_answers(
        &served,
        &probes,
        "get_people",
        &["GET /api/people/?email__operator=is_null"],
    );
    assert_state_answers(
        &served,
        &probes,
        "get_projects",
        &["GET /api/projects/?code=FRR&code__match=exact"],
    );
}

#[test]
fn double_underscore_control_names_page_the_state() {
    // `__page_size` and `__page` play `page_size` and `page`: the projects 3 at a time, the
    // people's third page of 2.
    let (served, probes) = served_with_probes("piccolo");
    assert_state_answers(
        &served,
        &probes,
        "get_projects",
        &["GET /api/projects/?__page_size=3"],
    );
    assert_state_answers(
        &served,
        &probes,
        "get_people",
        &["GET /api/people/?__page_size=2&__page=3"],
    );
}

#[test]
fn a_default_page_without_a_count_is_learned_from_its_second_page_newest_first() {
    // The plain list answers the 6 newest of 14 tasks in `{rows}` (no count); `__page=2` (build
    // entry 1) lists the next 6: the default page is 6 and the default sort `-id`, so filters,
    // operators and pages cut the newest matches.
    let (served, probes) = served_with_probes("piccolo");
    assert_state_answers(
        &served,
        &probes,
        "get_tasks",
        &[
            "GET /api/tasks/?status=doing",
            "GET /api/tasks/?title=THE",
            "GET /api/tasks/?priority=1&priority__operator=gt",
            "GET /api/tasks/?__page=2&status=open",
            "GET /api/tasks/?__page_size=4&__page=3",
            "GET /api/tasks/?__page=5",
        ],
    );
}

#[test]
fn a_patch_answers_its_own_row_less_the_identity() {
    // PiccoloCRUD's PATCH answers the updated row without `id` (build entry 68, task 15's):
    // the served answer is the patched task's own row (probe-crud 12: task 6; 50: task 4), not
    // the recorded task's members the body did not send.
    let served = serve_corpus_app("piccolo");
    let answer = write(
        &served,
        "patch_tasks_by_task_id",
        Some("6"),
        json!({"status": "done"}),
    );
    assert_eq!(answer["body"], live_answer("piccolo", "probe-crud", 12).1);
    let body = json!({"status": "done", "assignee": 4});
    let answer = write(&served, "patch_tasks_by_task_id", Some("4"), body);
    assert_eq!(answer["body"], live_answer("piccolo", "probe-crud", 50).1);
}

#[test]
fn count_reads_count_the_lists_matches_through_operator_companions() {
    // `/api/tasks/count/` answers `{count, page_size}`: the count of what the task list selects
    // (build entries 47-49), its operator companions split as the list reads them, and after a
    // served create too (probe-crud 0 then 4).
    let (served, probes) = served_with_probes("piccolo");
    assert_state_answers(
        &served,
        &probes,
        "get_tasks_count",
        &[
            "GET /api/tasks/count/?status=done",
            "GET /api/tasks/count/?project=2&priority=2&priority__operator=gte",
        ],
    );
    let served = serve_corpus_app("piccolo");
    let task = json!({"title": "Test the sprinklers", "status": "doing", "priority": 2,
        "due": null, "project": 2, "assignee": 1});
    write(&served, "post_tasks", None, task);
    let (answer, is_error) = call_with_strings(&served, "get_tasks_count", &[("project", "2")]);
    assert!(!is_error, "{answer}");
    assert_eq!(answer["body"], live_answer("piccolo", "probe-crud", 4).1);
}

#[test]
fn people_list_newest_first_and_a_created_person_comes_first() {
    // The plain people list (build entry 4) lists every person id descending: the default sort
    // `-id`, so a created person is listed first (probe-crud 20, 22), and the PATCH the build's
    // `role=designer` read confirms is served (probe-crud 23).
    let served = serve_corpus_app("piccolo");
    let person = json!({"name": "Oskar Lind", "email": "oskar@example.test", "role": "manager"});
    write(&served, "post_people", None, person);
    let (answer, is_error) = call_with_strings(&served, "get_people", &[("role", "manager")]);
    assert!(!is_error, "{answer}");
    assert_eq!(answer["body"], live_answer("piccolo", "probe-crud", 22).1);
    let body = json!({"email": "oskar.lind@example.test"});
    let answer = write(&served, "patch_people_by_people_id", Some("6"), body);
    assert_eq!(answer["body"], live_answer("piccolo", "probe-crud", 23).1);
}

#[test]
fn a_sort_breaks_ties_by_ascending_id_beside_a_newest_first_list() {
    // `__order` leaves ties in SQLite's rowid order (build entry 25, `__order=priority`: the
    // priority-1 tasks 1, 5, 7, 10, 14), while the plain list is newest first: the tie order is
    // learned apart from the default sort, and with it the null placement (`__order=due`, entry
    // 28: the tasks without a due date first), which the people's sorts take (`email`).
    let (served, probes) = served_with_probes("piccolo");
    assert_state_answers(
        &served,
        &probes,
        "get_tasks",
        &[
            "GET /api/tasks/?__order=-priority",
            "GET /api/tasks/?__order=status,-priority",
            "GET /api/tasks/?__order=-due",
            "GET /api/tasks/?status=done&__order=-priority,title",
            "GET /api/tasks/?__order=-title&__page_size=5&__page=2",
        ],
    );
    assert_state_answers(
        &served,
        &probes,
        "get_people",
        &["GET /api/people/?__order=email"],
    );
    // After served writes: a created task of priority 1 comes after the seeded ones it ties
    // with (probe-crud 11, Aiko's tasks by priority descending).
    let served = serve_corpus_app("piccolo");
    let task = json!({"title": "Test the sprinklers", "status": "doing", "priority": 2,
        "due": null, "project": 2, "assignee": 1});
    write(&served, "post_tasks", None, task);
    let body = json!({"title": "Test the misters", "due": "2026-12-30"});
    write(&served, "patch_tasks_by_task_id", Some("15"), body);
    let body = json!({"title": "Test the misters", "status": "open", "priority": 1,
        "due": "2026-12-30", "project": 4, "assignee": 5});
    write(&served, "put_tasks_by_task_id", Some("15"), body);
    let (answer, is_error) = call_with_strings(
        &served,
        "get_tasks",
        &[("assignee", "5"), ("__order", "-priority")],
    );
    assert!(!is_error, "{answer}");
    assert_eq!(answer["body"], live_answer("piccolo", "probe-crud", 11).1);
}

#[test]
fn a_project_delete_shown_by_its_count_removes_it_and_its_tasks() {
    // The build's project delete (entry 91) is read back only through `/api/projects/count/`
    // (4 again, entry 92) and the tasks filtered by the project (none, entry 93): the count one
    // less than the held projects shows the project gone, and the empty filter its tasks.
    let served = serve_corpus_app("piccolo");
    let task = json!({"title": "Test the sprinklers", "status": "doing", "priority": 2,
        "due": null, "project": 2, "assignee": 1});
    write(&served, "post_tasks", None, task);
    let project = json!({"code": "WTR", "name": "Water Tower", "budget": 55, "active": false});
    write(&served, "post_projects", None, project);
    let task = json!({"title": "Paint the tank", "status": "open", "priority": 3,
        "due": null, "project": 5, "assignee": null});
    let answer = write(&served, "post_tasks", None, task);
    assert_eq!(answer["body"], live_answer("piccolo", "probe-crud", 39).1);
    let parameter = path_parameter(&served, "delete_projects_by_project_id");
    let (answer, is_error) = call_with_strings(
        &served,
        "delete_projects_by_project_id",
        &[(&parameter, "5")],
    );
    assert!(!is_error, "{answer}");
    assert_eq!(answer["status"], 204, "{answer}");
    let (answer, is_error) = call_with_strings(&served, "get_projects", &[]);
    assert!(!is_error, "{answer}");
    assert_eq!(answer["body"], live_answer("piccolo", "probe-crud", 43).1);
    let parameter = path_parameter(&served, "get_tasks_by_task_id");
    let (answer, _) = call_with_strings(&served, "get_tasks_by_task_id", &[(&parameter, "16")]);
    assert_eq!(answer["status"], 404, "{answer}");
    let (answer, is_error) = call_with_strings(&served, "get_tasks_count", &[]);
    assert!(!is_error, "{answer}");
    assert_eq!(answer["body"]["count"], 15, "{answer}");
}

//! rails-ransack (corpus app `rails-ransack`), a Rails 6.1 API scaffold searching with Ransack,
//! recorded to measure an application the engine was not developed on (reads 14/52 and CRUD
//! 17/54 before): its lists filter by `q[<field>_<predicate>]` (`q[status_eq]`,
//! `q[status_not_eq]`, `q[priority_gteq]`, `q[title_cont]`, `q[title_start]`, `q[status_in][]`,
//! `q[due_null]`) and sort by `q[s]=<field> <direction>`, answering plain arrays paged by
//! kaminari (`page`, `per_page`, `Total` and `Link` headers).

use serde_json::json;

use crate::state_query_grammar::assert_live_answers;
use crate::state_support::{
    assert_not_modelled, id_and_body, id_arguments, live_answer, serve_corpus_app, with_body,
    write_plan,
};

const APP: &str = "rails-ransack";

#[test]
fn predicates_after_a_field_and_an_underscore_answer_other_fields_and_values() {
    // Each predicate the build used on some field (entries 4 to 24), read as an operator word
    // after the field, answers other values, other fields and the sibling lists.
    assert_live_answers(
        APP,
        "get_tasks",
        &[
            "GET /tasks?q[status_eq]=doing",
            "GET /tasks?q[assignee_id_eq]=1&q[status_eq]=todo",
            "GET /tasks?q[estimate_gteq]=8",
            "GET /tasks?q[title_cont]=THE",
            "GET /tasks?q[estimate_null]=true",
        ],
    );
    assert_live_answers(
        APP,
        "get_people",
        &[
            "GET /people?q[name_start]=D",
            "GET /people?q[email_null]=true",
        ],
    );
    assert_live_answers(APP, "get_projects", &["GET /projects?q[name_cont]=lake"]);
}

#[test]
fn a_condition_naming_an_association_and_a_key_filters_by_the_linked_entities() {
    // `q[project_code_eq]=WEB` and `q[assignee_role_eq]=designer` (entries 19 and 20): the
    // association of `project_id` (`assignee_id`) joined to the linked project's `code` (the
    // person's `role`). Other values, alone or with another condition, answer as live.
    assert_live_answers(
        APP,
        "get_tasks",
        &[
            "GET /tasks?q[project_code_eq]=DAT",
            "GET /tasks?q[project_code_eq]=OPS&q[status_eq]=todo",
            "GET /tasks?q[assignee_role_eq]=manager",
        ],
    );
}

#[test]
fn a_sort_value_naming_a_direction_word_sorts_every_list() {
    // `q[s]=priority asc`, `q[s]=title desc` and a list of both (entries 25 to 30): the keys'
    // direction words are read as a sort's, on the tasks and the sibling lists alike.
    assert_live_answers(
        APP,
        "get_tasks",
        &[
            "GET /tasks?q[s]=due%20desc",
            "GET /tasks?q[status_eq]=done&q[s]=priority%20desc",
            "GET /tasks?q[s]=title%20asc&page=3&per_page=5",
        ],
    );
    assert_live_answers(APP, "get_people", &["GET /people?q[s]=email%20asc"]);
    assert_live_answers(APP, "get_projects", &["GET /projects?q[s]=code%20asc"]);
}

#[test]
fn an_update_stamps_the_constant_its_types_creates_store() {
    // The app's clock is frozen: every create stores `updated_at` "2026-12-06T09:30:00.000Z"
    // (entries 50, 67, 84), and the PATCH of the seeded task 2 (entry 61) changed its
    // `updated_at` to that instant. The PATCH stores the constant the creates store: it is
    // served, and answers probe-crud entry 8 (task 6) as the live application did.
    let served = serve_corpus_app(APP);
    let plan = write_plan(&served, "patch_tasks_by_id");
    assert!(plan.served, "{plan:?}");
    let arguments = id_and_body(
        &served,
        "patch_tasks_by_id",
        "6",
        json!({"status": "doing", "assignee_id": 1}),
    );
    let (answer, is_error) = served.call("patch_tasks_by_id", arguments);
    assert!(!is_error, "{answer:#}");
    let (status, live) = live_answer(APP, "probe-crud", 8);
    assert_eq!(answer["status"], json!(status), "{answer:#}");
    assert_eq!(answer["body"], live, "{answer:#}");
}

#[test]
fn a_nested_list_answers_its_parent_s_tasks_and_queries_over_them() {
    // `/projects/{id}/tasks` lists tasks the state holds under `/tasks`: called plainly it
    // answers the parent's children (the parent learned from its plain lines); a condition or a
    // sort the top-level `/tasks` list learned (9, 27; the nested route was read with
    // `q[status_eq]` only, 46) selects and orders the parent's tasks as live; a page is not
    // evaluated (no recording showed the nested route's pages).
    let served = serve_corpus_app(APP);
    let tool = "get_projects_tasks_by_project_id";
    let plain = id_arguments(&served, tool, "4");
    let (answer, is_error) = served.call(tool, plain);
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer["state"]["source"], "state", "{answer:#}");
    assert_eq!(answer["body"], live_answer(APP, "probe-reads", 45).1);
    for (project, name, value, ordinal) in [
        ("2", "q[priority_eq]", "3", 46),
        ("1", "q[s]", "priority desc", 47),
    ] {
        let mut arguments = id_arguments(&served, tool, project);
        arguments.insert(name.to_owned(), json!(value));
        let (answer, is_error) = served.call(tool, arguments);
        assert!(!is_error, "{answer:#}");
        assert_eq!(answer["state"]["source"], "state", "{answer:#}");
        assert_eq!(answer["state"]["membership"], "query", "{answer:#}");
        assert_eq!(answer["body"], live_answer(APP, "probe-reads", ordinal).1);
    }
    let mut paged = id_arguments(&served, tool, "1");
    paged.insert("page".to_owned(), json!("2"));
    let (answer, is_error) = served.call(tool, paged);
    assert_not_modelled(&answer, is_error);
}

#[test]
fn a_delete_shown_only_by_the_entities_referring_to_it_clears_their_relation() {
    // The build deleted Esme (entry 78) and never read her back: entry 79 read task 7, hers
    // before, back with `assignee_id` null (Rails' `dependent: :nullify`). That read shows what
    // the delete did, so the people delete is served with the nullify, and deleting Chiara
    // (probe-crud entry 27) leaves her task 4 unassigned as the live application did (28).
    let served = serve_corpus_app(APP);
    let plan = write_plan(&served, "delete_people_by_id");
    assert!(plan.served, "{plan:?}");
    let (answer, is_error) = served.call(
        "delete_people_by_id",
        id_arguments(&served, "delete_people_by_id", "3"),
    );
    assert!(!is_error, "{answer:#}");
    let (answer, is_error) = served.call(
        "get_tasks_by_id",
        id_arguments(&served, "get_tasks_by_id", "4"),
    );
    assert!(!is_error, "{answer:#}");
    let (status, live) = live_answer(APP, "probe-crud", 28);
    assert_eq!(answer["status"], json!(status), "{answer:#}");
    assert_eq!(answer["body"], live, "{answer:#}");
}

#[test]
fn a_nested_create_read_back_only_once_creates_in_the_collection_it_was_read_in() {
    // `POST /projects/{id}/tasks`: the build's first call (entry 67) was read back as
    // `/tasks/18`, the second (84) only through a nested list. Both create in `/tasks`, so the
    // plan is served: after probe-crud's first create (entry 0, task 17), the nested create of
    // entry 14 answers task 18 in project 4 as the live application did.
    let served = serve_corpus_app(APP);
    let plan = write_plan(&served, "post_projects_tasks_by_project_id");
    assert!(plan.served, "{plan:?}");
    let first = json!({"title": "Audit the coupon codes", "status": "todo", "priority": 2,
        "estimate": 3, "project_id": 2, "assignee_id": 1});
    let (answer, is_error) = served.call("post_tasks", with_body(&served, "post_tasks", first));
    assert!(!is_error, "{answer:#}");
    let arguments = id_and_body(
        &served,
        "post_projects_tasks_by_project_id",
        "4",
        json!({"title": "Vacuum the warehouse", "priority": 3}),
    );
    let (answer, is_error) = served.call("post_projects_tasks_by_project_id", arguments);
    assert!(!is_error, "{answer:#}");
    let (status, live) = live_answer(APP, "probe-crud", 14);
    assert_eq!(answer["status"], json!(status), "{answer:#}");
    assert_eq!(answer["body"], live, "{answer:#}");
}

#[test]
fn a_task_create_leaves_out_what_the_nested_creates_left_out_and_answers_the_keyed_refusal() {
    // `POST /tasks` always sent `status` and `priority` (entry 50); the nested creates left them
    // out (67, 84) and stored `todo` and 2, and the 422 of entry 95 keyed `title` and the
    // association `project` of `project_id`, not the `status` it also left out.
    let served = serve_corpus_app(APP);
    let body = json!({"title": "Scan the dependencies", "project_id": 1, "priority": 3});
    let (answer, is_error) = served.call("post_tasks", with_body(&served, "post_tasks", body));
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer["status"], json!(201), "{answer:#}");
    assert_eq!(answer["body"]["status"], json!("todo"), "{answer:#}");
    assert_eq!(answer["body"]["priority"], json!(3), "{answer:#}");
    // probe-crud entry 40: a body with `status` alone answers the recorded refusal.
    let lacking = with_body(&served, "post_tasks", json!({"status": "todo"}));
    let (answer, _) = served.call("post_tasks", lacking);
    let (status, live) = live_answer(APP, "probe-crud", 40);
    assert_eq!(answer["status"], json!(status), "{answer:#}");
    assert_eq!(answer["body"], live, "{answer:#}");
}

#[test]
fn a_set_predicate_is_offered_on_other_fields_in_the_list_spelling_recorded() {
    // `q[status_in][]` (entries 15, 23) is a list of values: `q[priority_in][]` is offered so
    // and answers probe-reads entry 13 as live.
    let served = serve_corpus_app(APP);
    let mut arguments = serde_json::Map::new();
    arguments.insert("q[priority_in][]".to_owned(), json!(["1", "3"]));
    let (answer, is_error) = served.call("get_tasks", arguments);
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer["state"]["source"], "state", "{answer:#}");
    assert_eq!(answer["body"], live_answer(APP, "probe-reads", 13).1);
}

#[test]
fn an_update_to_a_taken_code_answers_the_create_s_refusal() {
    // The build's create of a taken code was refused 422 (entry 97): the projects PATCH of
    // probe-crud entry 44, setting another project's code, answers it; its own code is no
    // other project's.
    let served = serve_corpus_app(APP);
    let patch = |id: &str, code: &str| {
        let arguments = id_and_body(&served, "patch_projects_by_id", id, json!({"code": code}));
        served.call("patch_projects_by_id", arguments).0
    };
    let (status, live) = live_answer(APP, "probe-crud", 44);
    let refused = patch("1", "WEB");
    assert_eq!(refused["status"], json!(status), "{refused:#}");
    assert_eq!(refused["body"], live, "{refused:#}");
    let own = patch("1", "OPS");
    assert_eq!(own["status"], json!(200), "{own:#}");
}

//! nestjs-crud (corpus app `nestjs-crud`), NestJS with @dataui/crud, recorded to measure an
//! application the engine was not developed on (reads 12/52 and CRUD 23/48 before): its lists
//! filter by conditions spelled in one value, `filter=<field>||<operator>||<value>`
//! (`filter=status||$eq||todo`, `$in` with a comma list, `$isnull` with none), each repeated
//! parameter one condition; and pages in an envelope named in several spellings.

use serde_json::json;

use crate::state_query_grammar::assert_live_answers;
use crate::state_support::{
    call_admitted, id_and_body, id_arguments, live_answer, path_arguments, read_by_id,
    serve_corpus_app, with_body, write_plan,
};

const APP: &str = "nestjs-crud";

#[test]
fn a_condition_delimited_in_one_value_answers_other_fields_operators_and_lists() {
    // The build used each operator on some field (entries 3 to 27): other values, other fields
    // and the sibling lists answer as live.
    assert_live_answers(
        APP,
        "get_tasks",
        &[
            "GET /tasks?filter=status||$eq||doing",
            "GET /tasks?filter=estimate||$gte||8",
            "GET /tasks?filter=title||$cont||wallet",
            "GET /tasks?filter=status||$in||todo,done",
            "GET /tasks?filter=due||$notnull",
        ],
    );
    assert_live_answers(
        APP,
        "get_people",
        &[
            "GET /people?filter=email||$notnull",
            "GET /people?filter=name||$starts||B",
        ],
    );
    assert_live_answers(
        APP,
        "get_projects",
        &["GET /projects?filter=budget||$lt||80"],
    );
}

#[test]
fn writes_confirmed_by_delimited_filters_are_served() {
    // The people and project PATCHes (entries 85, 96) are confirmed by `||`-filtered lists (86,
    // 97), evaluated now; the task delete is not charged for the project delete's cascade read
    // 104 shows (a delete of one other item changes nothing else).
    let served = serve_corpus_app(APP);
    for tool in [
        "patch_people_by_id",
        "patch_projects_by_id",
        "delete_tasks_by_id",
    ] {
        let plan = write_plan(&served, tool);
        assert!(plan.served, "{tool}: {plan:?}");
    }
}

#[test]
fn an_update_to_a_taken_code_answers_the_create_s_conflict() {
    // The build's create of a taken code answered 409 (entry 108): the projects PATCH of
    // probe-crud entry 41, setting another project's code, answers it.
    let served = serve_corpus_app(APP);
    let arguments = id_and_body(&served, "patch_projects_by_id", "2", json!({"code": "DAT"}));
    let (refused, _) = served.call("patch_projects_by_id", arguments);
    let (status, live) = live_answer(APP, "probe-crud", 41);
    assert_eq!(refused["status"], json!(status), "{refused:#}");
    assert_eq!(refused["body"], live, "{refused:#}");
}

#[test]
fn a_sort_value_naming_a_direction_word_after_a_comma_sorts_every_list() {
    // `sort=priority,DESC` (entries 28 to 33): the word after the comma directs the key before it.
    assert_live_answers(
        APP,
        "get_tasks",
        &["GET /tasks?sort=due,DESC", "GET /tasks?sort=estimate,ASC"],
    );
    assert_live_answers(APP, "get_people", &["GET /people?sort=email,ASC"]);
    assert_live_answers(APP, "get_projects", &["GET /projects?sort=code,ASC"]);
}

#[test]
fn repeated_conditions_hold_together() {
    // Two `filter=` conditions (as entry 7 sent): each splits into its own term, and the tasks
    // listed meet both, as probe-reads entry 16 shows.
    let served = serve_corpus_app(APP);
    let mut arguments = serde_json::Map::new();
    arguments.insert(
        "filter".to_owned(),
        json!(["status||$eq||doing", "assigneeId||$eq||2"]),
    );
    let (answer, is_error) = served.call("get_tasks", arguments);
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer["state"]["source"], "state", "{answer:#}");
    assert_eq!(answer["body"], live_answer(APP, "probe-reads", 16).1);
}

#[test]
fn pages_named_in_every_recorded_spelling_are_computed_in_the_envelope() {
    // The build paged with `limit` and `per_page` beside `page`, and with `offset` beside `limit`
    // (entries 35 to 41, one past the last page): other pages, sizes, offsets and a filtered
    // page answer the `{data, count, total, page, pageCount}` envelope as live.
    assert_live_answers(
        APP,
        "get_tasks",
        &[
            "GET /tasks?limit=4&page=3",
            "GET /tasks?limit=6&page=2",
            "GET /tasks?offset=5&limit=5",
            "GET /tasks?per_page=3&page=5",
            "GET /tasks?filter=projectId||$eq||2&limit=2&page=2",
        ],
    );
}

#[test]
fn a_query_over_a_nested_list_reads_the_parent_s_tasks_with_the_top_level_model() {
    // The nested route was read with one condition (58, for project 2): another project's
    // tasks are selected by the `||` condition the top-level `/tasks` list learned.
    let served = serve_corpus_app(APP);
    let tool = "get_projects_tasks_by_project_id";
    let mut arguments = id_arguments(&served, tool, "4");
    arguments.insert("filter".to_owned(), json!("status||$eq||doing"));
    let (answer, is_error) = served.call(tool, arguments);
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer["state"]["source"], "state", "{answer:#}");
    assert_eq!(answer["state"]["membership"], "query", "{answer:#}");
    assert_eq!(answer["body"], live_answer(APP, "probe-reads", 47).1);
}

#[test]
fn a_delete_whose_cascade_only_a_filtered_read_shows_is_served_with_it() {
    // The build deleted project 5 (entry 102) after a nested create made task 19 in it; only a
    // `||`-filtered read (104, `filter=title||$cont||test plan` answering `[]`) showed the task
    // gone, which the list's query model evaluates: the project delete is served removing its
    // tasks, as probe-crud entries 30 to 37 show live.
    let served = serve_corpus_app(APP);
    let plan = write_plan(&served, "delete_projects_by_id");
    assert!(plan.served, "{plan:?}");
    let project = json!({"code": "SEC", "name": "Security Review", "budget": 55, "active": false});
    let created = call_admitted(
        &served,
        "post_projects",
        with_body(&served, "post_projects", project),
    );
    let id = created["body"]["id"].to_string();
    let task = json!({"title": "Scan the dependencies", "assigneeId": 4});
    let tool = "post_projects_tasks_by_project_id";
    let nested = call_admitted(&served, tool, id_and_body(&served, tool, &id, task));
    let task_id = nested["body"]["id"].to_string();
    call_admitted(
        &served,
        "delete_projects_by_id",
        id_arguments(&served, "delete_projects_by_id", &id),
    );
    let (answer, _) = served.call(
        "get_tasks_by_id",
        id_arguments(&served, "get_tasks_by_id", &task_id),
    );
    assert_eq!(answer["status"], json!(404), "{answer:#}");
    let mut arguments = serde_json::Map::new();
    arguments.insert("filter".to_owned(), json!("assigneeId||$eq||4"));
    let listed = call_admitted(&served, "get_tasks", arguments);
    assert_eq!(
        listed["body"],
        live_answer(APP, "probe-crud", 37).1,
        "{listed:#}"
    );
}

#[test]
fn an_or_condition_beside_a_filter_is_its_alternative() {
    // `filter=…&or=…` (build entry 21) and `or=…&or=…` (22) list what either side selects:
    // another filter with another alternative answers as live (probe-reads entry 18).
    assert_live_answers(
        APP,
        "get_tasks",
        &["GET /tasks?filter=status||$eq||todo&or=assigneeId||$eq||5"],
    );
}

#[test]
fn a_join_read_with_a_filter_embeds_the_parent_named_by_the_one_member_every_task_shows() {
    // `join=project` (build entry 44) embeds each task's project: task 1's `priority` holds its
    // project's id too, but only `projectId` names it on every task listed, so the relation is
    // learned; a `||` filter beside it (48) selects the tasks, not the relation, and another
    // filter with the join answers from the state, each task with the project it names.
    let served = serve_corpus_app(APP);
    let call = |pairs: &[(&str, &str)]| {
        let mut arguments = serde_json::Map::new();
        for (name, value) in pairs {
            arguments.insert((*name).to_owned(), json!(value));
        }
        call_admitted(&served, "get_tasks", arguments)
    };
    let joined = call(&[("join", "project"), ("filter", "status||$eq||todo")]);
    assert_eq!(joined["state"]["source"], "state", "{joined:#}");
    let plain = call(&[("filter", "status||$eq||todo")]);
    let tasks = plain["body"].as_array().expect("tasks");
    assert!(tasks.len() > 1, "{plain:#}");
    let expected: Vec<serde_json::Value> = tasks
        .iter()
        .map(|task| {
            let project = read_by_id(
                &served,
                "get_projects_by_id",
                &task["projectId"].to_string(),
            );
            let mut task = task.clone();
            task["project"] = project;
            task
        })
        .collect();
    assert_eq!(joined["body"], json!(expected));
}

#[test]
fn a_nested_item_route_reads_the_task_its_parent_holds() {
    // The nested item route was read once (build entry 59, `/projects/1/tasks/2`, task 2 as
    // `/tasks/2` shows it): another project's task answers as live (probe-reads entry 48), a
    // write to the task shows there, and a task of another project is no item of the route.
    let served = serve_corpus_app(APP);
    let tool = "get_projects_tasks_by_project_id_and_id";
    let answer = call_admitted(
        &served,
        tool,
        path_arguments(&served, tool, &["3", "7"], None),
    );
    assert_eq!(answer["state"]["source"], "state", "{answer:#}");
    assert_eq!(answer["body"], live_answer(APP, "probe-reads", 48).1);
    let patch = id_and_body(&served, "patch_tasks_by_id", "7", json!({"status": "todo"}));
    call_admitted(&served, "patch_tasks_by_id", patch);
    let answer = call_admitted(
        &served,
        tool,
        path_arguments(&served, tool, &["3", "7"], None),
    );
    assert_eq!(answer["body"]["status"], "todo", "{answer:#}");
    let (other, _) = served.call(tool, path_arguments(&served, tool, &["2", "7"], None));
    assert_ne!(other["state"]["source"], "state", "{other:#}");
}

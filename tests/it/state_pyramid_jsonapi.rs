//! pyramid-jsonapi (corpus app `pyramid-jsonapi`), a second JSON:API server over SQL with
//! relationship routes, recorded and measured before any engine change for it: its relationship
//! writes (`PATCH /api/tasks/{id}/relationships/project`, `/assignee`, and the to-many
//! `POST /api/projects/{id}/relationships/tasks`) are shown in the build only by reads of the
//! relationship (the related resource, the related entity's list, the linkage route), never by a
//! read of the task by id; the state still serves them and applies them to the task's
//! `relationships.<name>.data`, which the task's item read and its new related list then show.
//! Its lists' page links restate the call's query (the page size and the sort first, then the
//! filters, strictly encoded), minted for queries the build never sent; its update answers list
//! the names the call sent.
//! Its compound documents (`include=project,assignee`), related-resource routes
//! (`/api/tasks/{id}/project`) and linkage routes (`/api/tasks/{id}/relationships/assignee`)
//! answer from the state: the compound rule is learned from the build's include reads in their
//! observation windows, the project create's include read after it (build entry 88) left out.

use rea_evidence::capture::capture_records;
use rea_plugin_api::contracts::capture::CaptureRecord;
use serde_json::{Value, json};

use crate::state_support::agreement::route;
use crate::state_support::{
    Served, call_admitted, capture_file, corpus_dir, id_and_body, id_arguments, live_answer,
    read_by_id, serve_corpus_app, serve_corpus_app_transfer, write_plan,
};

const APP: &str = "pyramid-jsonapi";

/// The ids of the resources a list answer's `data` holds.
fn listed_ids(body: &Value) -> Vec<String> {
    body["data"]
        .as_array()
        .map(|items| {
            (items.iter())
                .filter_map(|item| item["id"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn relationship_writes_shown_only_by_reads_of_the_relationship_are_served() {
    // Build entry 67 moved task 13 by `PATCH /api/tasks/13/relationships/project`, shown by its
    // related project (68); entry 79 gave task 12 to Hal, shown by Hal's tasks (80); entry 93
    // added task 11 to project 1, shown by task 11's linkage route (94).
    let served = serve_corpus_app(APP);
    for tool in [
        "patch_tasks_relationships_project_by_task_id",
        "patch_tasks_relationships_assignee_by_task_id",
        "post_projects_relationships_tasks_by_project_id",
    ] {
        let plan = write_plan(&served, tool);
        assert!(plan.served, "{tool}: {plan:?}");
    }
    // The app answers the new identifier (probe-crud entry 7 moved task 13 to project 4).
    let tool = "patch_tasks_relationships_project_by_task_id";
    let moved = json!({"data": {"type": "projects", "id": "4"}});
    let (answer, is_error) = served.call(tool, id_and_body(&served, tool, "3", moved));
    assert!(!is_error, "{answer}");
    let (status, live) = live_answer(APP, "probe-crud", 7);
    assert_eq!(answer.get("status").and_then(Value::as_u64), Some(status));
    assert_eq!(answer.get("body"), Some(&live), "{answer}");
    let task = read_by_id(&served, "get_tasks_by_id", "3");
    assert_eq!(
        task.pointer("/data/relationships/project/data"),
        Some(&json!({"type": "projects", "id": "4"})),
        "{task}"
    );
    let listed = read_by_id(&served, "get_projects_tasks_by_project_id", "4");
    assert!(listed_ids(&listed).contains(&"3".to_owned()), "{listed}");
    let listed = read_by_id(&served, "get_projects_tasks_by_project_id", "1");
    assert!(!listed_ids(&listed).contains(&"3".to_owned()), "{listed}");
}

#[test]
fn a_to_many_post_and_a_to_one_patch_move_tasks_between_related_lists() {
    // Task 12 (project 4) joins project 2 by a POST to the project's tasks relationship; task 10
    // is given to Gus (person 7, no task in the seed) by its assignee relationship.
    let served = serve_corpus_app(APP);
    let tool = "post_projects_relationships_tasks_by_project_id";
    let added = json!({"data": [{"type": "tasks", "id": "12"}]});
    let (answer, is_error) = served.call(tool, id_and_body(&served, tool, "2", added));
    assert!(!is_error, "{answer}");
    let task = read_by_id(&served, "get_tasks_by_id", "12");
    assert_eq!(
        task.pointer("/data/relationships/project/data/id"),
        Some(&json!("2")),
        "{task}"
    );
    let listed = read_by_id(&served, "get_projects_tasks_by_project_id", "2");
    assert_eq!(listed_ids(&listed), ["4", "5", "6", "12"], "{listed}");
    let tool = "patch_tasks_relationships_assignee_by_task_id";
    let assigned = json!({"data": {"type": "people", "id": "7"}});
    let (answer, is_error) = served.call(tool, id_and_body(&served, tool, "10", assigned));
    assert!(!is_error, "{answer}");
    let listed = read_by_id(&served, "get_people_tasks_by_people_id", "7");
    assert_eq!(listed_ids(&listed), ["10"], "{listed}");
}

#[test]
fn a_to_many_post_answers_the_linkage_it_leaves_rendered_from_the_state() {
    // Build entry 93 (`POST /api/projects/1/relationships/tasks`, task 11) answered project 1's
    // whole linkage after the add, tasks 1, 2, 3 and 11, in a linkage read's envelope without
    // its `returned` count: a call for another project answers that project's linkage.
    let served = serve_corpus_app(APP);
    let tool = "post_projects_relationships_tasks_by_project_id";
    let added = json!({"data": [{"type": "tasks", "id": "12"}]});
    let (answer, is_error) = served.call(tool, id_and_body(&served, tool, "2", added));
    assert!(!is_error, "{answer}");
    let body = &answer["body"];
    assert_eq!(listed_ids(body), ["4", "5", "6", "12"], "{answer}");
    let link = body.pointer("/links/self").and_then(Value::as_str);
    assert!(
        link.is_some_and(|link| link.ends_with("/api/projects/2/relationships/tasks")),
        "{answer}"
    );
    assert_eq!(body.pointer("/meta/results/returned"), None, "{answer}");
    // The people's POST (build entry 81, task 10 to Hal) is shown only by task 10's related
    // assignee read (entry 82), and its answer names Hal's linkage too: without a route to
    // render it (the people's linkage route is a sibling read's, lent with sibling transfer)
    // it stays withheld, never answering entry 81's linkage for another person.
    let tool = "post_people_relationships_tasks_by_people_id";
    let plan = write_plan(&served, tool);
    assert!(!plan.served, "{plan:?}");
    let served = serve_corpus_app_transfer(APP, true);
    let plan = write_plan(&served, tool);
    assert!(plan.served, "{plan:?}");
    // Gus (person 7) holds no task in the seed.
    let added = json!({"data": [{"type": "tasks", "id": "10"}]});
    let (answer, is_error) = served.call(tool, id_and_body(&served, tool, "7", added));
    assert!(!is_error, "{answer}");
    assert_eq!(listed_ids(&answer["body"]), ["10"], "{answer}");
    let task = read_by_id(&served, "get_tasks_by_id", "10");
    assert_eq!(
        task.pointer("/data/relationships/assignee/data"),
        Some(&json!({"type": "people", "id": "7"})),
        "{task}"
    );
}

#[test]
fn page_links_restating_the_query_are_minted_for_queries_the_build_never_sent() {
    // The app's links spell the page size and the sort first (the sort's `-` dropped, `sort=id`
    // when none was sent), then the filters, the offset last, strictly encoded; `self` repeats
    // the call as sent. Sorts, filters and pages no build line sent are answered with the live
    // bodies, links and all.
    crate::state_query_grammar::assert_live_answers(
        APP,
        "get_tasks",
        &[
            "GET /api/tasks?sort=-priority",
            "GET /api/tasks?sort=-estimate,id",
            "GET /api/tasks?filter[status:eq]=todo&sort=title",
            "GET /api/tasks?filter[estimate:gt]=4",
            "GET /api/tasks?page[limit]=4&page[offset]=4",
            "GET /api/tasks?page[limit]=5&page[offset]=40",
            // `like` and `ilike` take `*` for any run of characters (build entries 13, 14:
            // `*page*`, `*THE*`), in any case.
            "GET /api/tasks?filter[title:like]=*the*",
            "GET /api/tasks?filter[title:ilike]=fix*",
            // A foreign-key column no resource shows, read over the relation's identifier
            // (`query.rs::foreign_key_relation`, as Flask-Restless-NG's `assignee_id`).
            "GET /api/tasks?filter[assignee_id:eq]=6",
        ],
    );
    // The people and projects lists, never paged or sorted so, take the same form.
    crate::state_query_grammar::assert_live_answers(
        APP,
        "get_people",
        &["GET /api/people?sort=email"],
    );
    crate::state_query_grammar::assert_live_answers(
        APP,
        "get_projects",
        &["GET /api/projects?filter[code:eq]=MOB"],
    );
}

#[test]
fn an_update_answer_lists_the_names_its_call_sent() {
    // Build entries 65 and 70 answered `meta.updated` listing the attribute and relationship
    // names each PATCH sent; probe-crud entry 45 sends one of each.
    let served = serve_corpus_app(APP);
    let tool = "patch_tasks_by_id";
    assert!(write_plan(&served, tool).served);
    let body = json!({"data": {"type": "tasks", "id": "4", "attributes": {"status": "done"},
        "relationships": {"assignee": {"data": {"type": "people", "id": "3"}}}}});
    let (answer, is_error) = served.call(tool, id_and_body(&served, tool, "4", body));
    assert!(!is_error, "{answer}");
    let (status, live) = live_answer(APP, "probe-crud", 45);
    assert_eq!(
        live.pointer("/meta/updated"),
        Some(&json!({"attributes": ["status"], "relationships": ["assignee"]}))
    );
    assert_eq!(answer.get("status").and_then(Value::as_u64), Some(status));
    assert_eq!(answer.get("body"), Some(&live), "{answer}");
}

/// The records of one of the app's probes.
fn probe_records(probe: &str) -> Vec<CaptureRecord> {
    let path = corpus_dir(APP).join(format!("{probe}.har"));
    capture_records(&capture_file(&path)).expect("the probe's records")
}

/// Calls the tool a probe record's request fits with its arguments (`None` when no tool takes
/// them); the tool and its answer.
fn call_probe(served: &Served, record: &CaptureRecord) -> Option<(String, Value)> {
    let (tool, mut arguments) = route(served, record)?;
    arguments.retain(|_, value| !value.is_null());
    let (answer, _) = served.call(&tool, arguments);
    Some((tool, answer))
}

/// The probe's step answers from the state with the live status and body.
fn assert_live_step(served: &Served, probe: &str, records: &[CaptureRecord], step: usize) {
    let (tool, answer) = call_probe(served, &records[step]).expect("a tool fits the probe");
    assert_live_answer((probe, step), &tool, &answer);
}

/// An answer to the probe's step is the state's, with the live status and body.
fn assert_live_answer((probe, step): (&str, usize), tool: &str, answer: &Value) {
    assert_eq!(
        answer.pointer("/state/source").and_then(Value::as_str),
        Some("state"),
        "{probe} step {step} ({tool}) answers from the state: {answer}"
    );
    let (status, live) = live_answer(APP, probe, step);
    assert_eq!(
        answer.get("status").and_then(Value::as_u64),
        Some(status),
        "{answer}"
    );
    assert_eq!(
        answer.get("body"),
        Some(&live),
        "{probe} step {step} ({tool})"
    );
}

#[test]
fn compound_documents_related_resources_and_linkage_answer_from_the_state() {
    // The build read `include` on the tasks and one project before any write (entries 36-40)
    // and once after creating project 7 and its task (entry 88, not the state held); the probe
    // includes on other filters (31, 32) and on a person, never read with a query (33, its
    // `links.self` echoing the call's origin, path and query as every item read with a query
    // did), reads related resources (45: task 9's project; 46: task 12's assignee, none) and
    // linkage routes (47, 48) the build never read.
    let served = serve_corpus_app(APP);
    let records = probe_records("probe-reads");
    for step in [31, 32, 45, 46, 47, 48] {
        assert_live_step(&served, "probe-reads", &records, step);
    }
    // `include` is offered on the person item, whose recorded calls never named it.
    let tool = "get_people_by_id";
    let mut arguments = id_arguments(&served, tool, "1");
    arguments.insert("include".to_owned(), json!("tasks"));
    let answer = call_admitted(&served, tool, arguments);
    assert_live_answer(("probe-reads", 33), tool, &answer);
}

#[test]
fn related_and_linkage_routes_follow_the_served_writes() {
    // probe-crud: task 13 created (step 0) and moved to project 4 (step 7), its linkage read
    // (step 8); task 10 given to Ines, created at step 18 (step 23), its assignee read with her
    // tasks' linkage and its count, `meta.results.returned` (step 24); task 12 added to project
    // 2's tasks (step 39), its project read (step 40). Every call before is made in order, as
    // the probe made it.
    let served = serve_corpus_app(APP);
    let records = probe_records("probe-crud");
    for step in 0..=40 {
        if [8, 24, 40].contains(&step) {
            assert_live_step(&served, "probe-crud", &records, step);
        } else {
            // A call no tool takes changes nothing.
            let _ = call_probe(&served, &records[step]);
        }
    }
}

#[test]
fn a_transferred_linkage_route_mints_its_page_link_and_counts_its_linkage() {
    // The build read project 2's tasks linkage (entry 57: `links.first` with the page query,
    // `meta.results.returned` 3), never a person's; sibling transfer offers the people's route,
    // answered for Alice (probe-reads step 51: tasks 4 and 8).
    let served = serve_corpus_app_transfer(APP, true);
    let tool = "get_people_relationships_tasks_by_people_id";
    let answer = call_admitted(&served, tool, id_arguments(&served, tool, "1"));
    assert_live_answer(("probe-reads", 51), tool, &answer);
}

#[test]
fn sparse_fieldsets_leave_the_unnamed_relationships_out_on_every_list() {
    // Build entries 34 and 35 read `fields[tasks]` and `fields[people]` alone: the attributes
    // named, `relationships: {}`. The probe asks the tasks for other attributes and the
    // projects, never read so, for theirs: the live bodies, links and all.
    crate::state_query_grammar::assert_live_answers(
        APP,
        "get_tasks",
        &["GET /api/tasks?fields[tasks]=title,priority"],
    );
    crate::state_query_grammar::assert_live_answers(
        APP,
        "get_projects",
        &["GET /api/projects?fields[projects]=code,name"],
    );
}

#[test]
fn a_create_confirmed_by_an_include_read_is_served() {
    // Build entry 86 created project 7, and the only read of it after, 88, includes its tasks
    // (`include=tasks`, after entry 87 created task 13 in it): the project's to-many linkage
    // is kept by the inverse linkage, so that read answers from the state and confirms the
    // create. The probe's create, its read and a filter listing it answer as the live app did.
    let served = serve_corpus_app(APP);
    assert!(write_plan(&served, "post_projects").served);
    let records = probe_records("probe-crud");
    for step in [32, 33, 34] {
        assert_live_step(&served, "probe-crud", &records, step);
    }
}

#[test]
fn a_filter_on_a_field_no_task_holds_answers_the_recorded_refusal() {
    // Build entry 59 refused `filter[colour:eq]=red` (400, `Collection 'tasks' has no attribute
    // 'colour'`) where reads filtered held fields in that form, and a foreign-key column
    // (`filter[project_id:eq]`, read through the relation) too; the probe asks `blue`.
    crate::state_query_grammar::assert_live_refusal(
        APP,
        "get_tasks",
        "GET /api/tasks?filter[colour:eq]=blue",
    );
}

#[test]
fn a_project_tasks_name_is_not_deleted_and_answers_the_failed_dependency() {
    // Build entry 89 refused project 7's delete with 424 while task 13 named it, and entry 91
    // deleted it once the task was gone: project 3, named by tasks 7-9, answers that refusal
    // (the live status; its SQL parameters name the refused rows) and stays.
    let served = serve_corpus_app(APP);
    let tool = "delete_projects_by_id";
    let (answer, _) = served.call(tool, id_arguments(&served, tool, "3"));
    let (status, live) = live_answer(APP, "probe-crud", 44);
    assert_eq!(status, 424);
    assert_eq!(answer.get("status").and_then(Value::as_u64), Some(status));
    assert_eq!(
        answer.pointer("/body/errors/0/title"),
        live.pointer("/errors/0/title")
    );
    let project = read_by_id(&served, "get_projects_by_id", "3");
    assert_eq!(project.pointer("/data/id"), Some(&json!("3")), "{project}");
}

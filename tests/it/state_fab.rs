//! Flask-AppBuilder's REST API (corpus app `fab`), an application the state engine was not
//! developed on: its whole list query is one Rison parameter (`q=(filters:!((col:status,opr:eq,
//! value:done)),order_column:title,page:0,page_size:5)`, split by `json-filter`'s Rison reading
//! into bracket terms), its list answers list the page's ids beside the rows (`ids`, an identity
//! list the state computes), its item answers repeat the id around the entity (`{id, result:
//! {id, …}, label_columns, show_columns}`), its items (`/api/v1/task/{id}`) and list
//! (`/api/v1/task/`) differ by a trailing slash, every session logs in before its first read,
//! and a relation filter names its own operator (`rel_o_m`) over link objects (`project: {id,
//! code}`). Probe reads of filter values, relations and items the build never read are
//! answered from the state with the live body. Its write answers show the entity one envelope
//! down (`{id, result: {…}}` for a create, `{result: {…}}` for an update) with links as bare
//! ids where the reads show link objects: served writes answer their own entity so.

use rea_plugin_api::contracts::query::QueryRole;
use rea_state::model::ViewDetail;
use serde_json::Value;

use crate::state_query_grammar::{assert_live_answers, served_with_probes};
use crate::state_support::{
    id_arguments, list_view, live_answer, query_model, serve_corpus_app, serve_corpus_app_transfer,
    view_detail, with_body,
};

const APP: &str = "fab";
const TASKS: &str = "get_task";

#[test]
fn the_rison_query_is_learned_as_its_bracket_terms() {
    let (served, _) = served_with_probes(APP);
    let model = query_model(&served, TASKS);
    assert_eq!(
        model.parameters.get("q[filters][status][eq]"),
        Some(&QueryRole::filter("status", "eq"))
    );
    assert_eq!(
        model.parameters.get("q[filters][title][ct]"),
        Some(&QueryRole::filter("title", "like"))
    );
    assert_eq!(
        model.parameters.get("q[page]"),
        Some(&QueryRole::Page { base: 0 })
    );
    assert_eq!(
        model.parameters.get("q[page_size]"),
        Some(&QueryRole::PageSize)
    );
    assert!(!model.parameters.contains_key("q"));
    // `ids` lists the page's identities: computed, neither minted per answer nor paged.
    let list = list_view(&served, TASKS);
    assert_eq!(list.identity_lists, vec!["/ids".to_owned()]);
    assert!(!list.per_response_members.contains(&"/ids".to_owned()));
}

#[test]
fn unrecorded_filters_and_relations_answer_the_live_body() {
    // Recorded: status todo and doing, project 2, assignee 3 (`rel_o_m`); never status done,
    // project 4 or assignee 6.
    assert_live_answers(
        APP,
        TASKS,
        &[
            "GET /api/v1/task/?q=(filters:!((col:status,opr:eq,value:done)))",
            "GET /api/v1/task/?q=(filters:!((col:project,opr:rel_o_m,value:4)))",
            "GET /api/v1/task/?q=(filters:!((col:assignee,opr:rel_o_m,value:6)))",
        ],
    );
}

#[test]
fn item_answers_are_the_entity_their_envelope_repeats_the_id_around() {
    let (served, _) = served_with_probes(APP);
    let ViewDetail::Item(item) = view_detail(&served, "get_project_by_id") else {
        panic!("an item view");
    };
    // One type with the list `/api/v1/project/`, though the log-in came before every read.
    assert_eq!(item.entity_pointer, "/result");
    assert_eq!(item.entity_type, "/api/v1/project/");
    assert!(!item.checked_ordinals.is_empty());
    // Project 3 and person 1 were never read by id in the build.
    for (tool, id, entry) in [
        ("get_project_by_id", "3", 45),
        ("get_person_by_id", "1", 47),
    ] {
        let (answer, is_error) = served.call(tool, id_arguments(&served, tool, id));
        assert!(!is_error, "{tool} {id}: {answer}");
        assert_eq!(
            answer.pointer("/state/source").and_then(Value::as_str),
            Some("state"),
            "{tool} {id} answers from the state: {answer}"
        );
        let (status, live) = live_answer(APP, "probe-reads", entry);
        assert_eq!(status, 200);
        assert_eq!(answer.get("body"), Some(&live), "{tool} {id}");
    }
}

#[test]
fn an_unknown_filter_column_answers_the_applications_refusal() {
    // Recorded: `col:colour, value:red` answered 400 `Filter column: colour not allowed to
    // filter` (build entry 80); the probe asks the same unknown column for `blue`, and the
    // refusal learned inside the Rison query names the called column.
    crate::state_query_grammar::assert_live_refusal(
        APP,
        TASKS,
        "GET /api/v1/task/?q=(filters:!((col:colour,opr:eq,value:blue)))",
    );
}

/// The request body a probe-crud step sent.
fn probe_body(entry: usize) -> Value {
    let path = crate::state_support::corpus_dir(APP).join("probe-crud.har");
    let har: Value =
        serde_json::from_slice(&std::fs::read(path).expect("the probe")).expect("JSON");
    let text = har["log"]["entries"][entry]["request"]["postData"]["text"]
        .as_str()
        .expect("a sent body");
    serde_json::from_str(text).expect("a JSON body")
}

/// Calls a write tool with a probe-crud step's body (and id) and asserts it answers as the live
/// application did, from the state.
fn assert_write_answers_live(
    served: &crate::state_support::Served,
    tool: &str,
    id: Option<&str>,
    entry: usize,
) {
    let mut arguments = with_body(served, tool, probe_body(entry));
    if let Some(id) = id {
        arguments.extend(id_arguments(served, tool, id));
    }
    let (answer, is_error) = served.call(tool, arguments);
    assert!(!is_error, "{tool}: {answer}");
    assert_eq!(
        answer.pointer("/state/source").and_then(Value::as_str),
        Some("state"),
        "{answer}"
    );
    let (status, live) = live_answer(APP, "probe-crud", entry);
    assert_eq!(
        answer.get("status").and_then(Value::as_u64),
        Some(status),
        "{tool}"
    );
    assert_eq!(
        answer.get("body"),
        Some(&live),
        "{tool} (probe-crud {entry})"
    );
}

#[test]
fn writes_answer_their_own_entity_one_envelope_down_with_links_by_id() {
    let served = serve_corpus_app(APP);
    // A task in project 2 (recorded creates: projects 1 and 5), its links answered as the ids
    // the reads show inside link objects: `{id: 13, result: {project: 2, assignee: null, …}}`.
    assert_write_answers_live(&served, "post_task", None, 1);
    // Its update answers every member after it, links by id, the identity nowhere.
    assert_write_answers_live(&served, "put_task_by_id", Some("13"), 5);
    // A seeded task's update answers that task, not the recorded update's task 13.
    assert_write_answers_live(&served, "put_task_by_id", Some("6"), 11);
    // The project create's answer names the id beside the members (`result` holds no id): the
    // created project is that object with the id, as the list after it showed project 5.
    assert_write_answers_live(&served, "post_project", None, 31);
    let plans = crate::state_support::corpus_write_plans(APP);
    let project = crate::state_support::plan_of(&plans, "post_project");
    assert_eq!(project["response"]["kind"], "projection", "{project}");
    assert_eq!(project["response"]["projected"]["envelopes"][0], "/result");
    let task = crate::state_support::plan_of(&plans, "post_task");
    assert_eq!(task["response"]["projected"]["link_member"], "id", "{task}");
}

#[test]
fn a_project_update_is_offered_as_the_task_update_answering_the_projects_own_members() {
    // The build never updated a project; the task update's answer holds every member of the
    // task but its id in `result`, so the project update inferred from it answers the project's.
    let served = serve_corpus_app_transfer(APP, true);
    let plan = crate::state_support::write_plan(&served, "put_project_by_id");
    assert_eq!(plan.inferred_from.as_deref(), Some("put_task_by_id"));
    assert!(plan.served, "{plan:?}");
    assert_write_answers_live(&served, "post_project", None, 31);
    assert_write_answers_live(&served, "put_project_by_id", Some("5"), 34);
}

#[test]
fn a_project_its_tasks_name_refuses_its_delete_as_the_build_recorded() {
    // Entry 70 refused project 5's delete (422) while task 13 named it; task 13's delete (71),
    // which no read followed, left it gone before project 5's delete succeeded (72).
    let served = serve_corpus_app(APP);
    let refusal = &crate::state_support::write_plan(&served, "delete_project_by_id").referenced;
    assert_eq!(refusal.len(), 1, "{refusal:?}");
    assert_eq!(refusal[0].member, "/project/id");
    // Tasks 7-9 name project 3.
    let (answer, _) = served.call(
        "delete_project_by_id",
        id_arguments(&served, "delete_project_by_id", "3"),
    );
    let (status, live) = live_answer(APP, "probe-crud", 41);
    assert_eq!(answer.get("status").and_then(Value::as_u64), Some(status));
    assert_eq!(answer.get("body"), Some(&live), "{answer}");
}

#[test]
fn the_people_sort_a_null_first_as_the_tasks_showed() {
    // Only the tasks' sorts met a null (entry 27, by estimate); the people, sorted by name only,
    // take that placement: the sort is a term of the Rison query.
    let (served, _) = served_with_probes(APP);
    assert!(query_model(&served, "get_person").nulls_first);
    assert_live_answers(
        APP,
        "get_person",
        &["GET /api/v1/person/?q=(order_column:email,order_direction:asc)"],
    );
}

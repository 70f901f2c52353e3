//! dynamic-rest (corpus app `dynamic-rest`), Django REST framework with dynamic-rest, recorded to
//! measure an application the engine was not developed on (reads 6/60 and CRUD 10/54 before):
//! its lists answer `{"tasks": […], "meta": {page, per_page, total_results, total_pages}}` and
//! sideload related records beside the list (`include[]=project.` adds `"projects": […]`, no
//! object naming its kind), its filters are spelled in braces (`filter{status}`,
//! `filter{priority.gte}`, `filter{-status}` excluding, `filter{status.in}` repeated for a set),
//! its sorts and exclusions as `[]` lists.

use serde_json::{Map, Value, json};

use crate::state_query_grammar::{assert_live_answers, assert_live_refusal};
use crate::state_support::{
    assert_not_modelled, call_with_strings, id_arguments, input_schema, live_answer, read_by_id,
    serve_corpus_app, with_body, write_plan,
};

const APP: &str = "dynamic-rest";

#[test]
fn brace_filters_sort_lists_and_page_arithmetic_answer_unrecorded_queries() {
    // `filter{…}` as `filter[…]` (equality, an operator word after a dot), a `-` before the
    // field excluding; `sort[]` lists; the page's number and the pages counted per call.
    assert_live_answers(
        APP,
        "get_tasks",
        &[
            "GET /api/tasks/?filter{status}=doing",
            "GET /api/tasks/?filter{assignee}=1&filter{status}=todo",
            "GET /api/tasks/?filter{priority.gt}=1",
            "GET /api/tasks/?filter{title.icontains}=THE",
            "GET /api/tasks/?filter{-status}=todo",
            "GET /api/tasks/?filter{-project}=1",
            "GET /api/tasks/?filter{due.lte}=2026-12-01",
            "GET /api/tasks/?sort[]=-due",
            "GET /api/tasks/?page=2&per_page=4",
            "GET /api/tasks/?sort[]=-title&per_page=6&page=3",
        ],
    );
    assert_live_answers(
        APP,
        "get_projects",
        &[
            "GET /api/projects/?filter{budget.lte}=70",
            "GET /api/projects/?filter{code}=MOB",
        ],
    );
}

#[test]
fn a_list_beside_sideloaded_records_is_held_by_the_members_its_objects_hold() {
    // The build's tasks and projects lists sideload related records in some answers
    // (`{"projects": […], "tasks": […]}`): no object names its kind, but every task holds a
    // `title` no project holds, so the list is `tasks` and every listed task is held (task 12
    // was only ever listed).
    let served = serve_corpus_app(APP);
    let task = read_by_id(&served, "get_tasks_by_task_id", "12");
    assert_eq!(
        task.pointer("/task/id").and_then(Value::as_u64),
        Some(12),
        "{task}"
    );
    let project = read_by_id(&served, "get_projects_by_project_id", "4");
    assert_eq!(
        project.pointer("/project/code").and_then(Value::as_str),
        Some("DAT"),
        "{project}"
    );
}

#[test]
fn repeated_set_filters_and_list_names_take_every_value_an_agent_sends() {
    // As an MCP client sends a repeated name: an array. probe-reads entries 41 and 32.
    let served = serve_corpus_app(APP);
    for (entry, arguments) in [
        (
            41,
            json!({"filter{status.in}": ["todo", "doing"], "per_page": "4", "page": "2"}),
        ),
        (
            32,
            json!({"filter{status}": "doing", "exclude[]": ["due", "estimate"]}),
        ),
    ] {
        let arguments: Map<String, Value> = arguments.as_object().cloned().expect("an object");
        let (answer, is_error) = served.call("get_tasks", arguments);
        assert!(!is_error, "{answer}");
        let (_, live) = live_answer(APP, "probe-reads", entry);
        assert_eq!(answer.get("body"), Some(&live), "probe-reads entry {entry}");
    }
}

#[test]
fn writes_answering_another_shape_than_the_reads_learn_from_the_lists_after_them() {
    // dynamic-rest's write answers show a deferred to-many member as ids (`"tasks": []`) where
    // its reads show `links`: the person PATCH (build entry 80) and the project create and PATCH
    // (85, 90), shown only by lists after them (81, 86, 91), take the entity as listed. The
    // refused `filter{priority}=high` after the writes (entry 100, a 400) blames no write, so the
    // task delete (75, confirmed by 76) stays served.
    let served = serve_corpus_app(APP);
    for tool in [
        "patch_people_by_people_id",
        "post_projects",
        "patch_projects_by_project_id",
        "delete_tasks_by_task_id",
    ] {
        let plan = write_plan(&served, tool);
        assert!(plan.served, "{tool}: {plan:?}");
    }
}

#[test]
fn sideloaded_records_teach_joins_that_filters_reach_through_and_sideloads_compose() {
    // The build sideloaded projects and assignees (`include[]=project.`, entries 34, 35, 40;
    // `include[]=assignee.`, 36): each task's `project` and `assignee` join the held projects and
    // people. The build's `filter{project.code}` (entries 20, 89, with WEB and SRC) is then read
    // through the join for other codes and the project's other fields, and a sideload of any
    // list or item call is composed from the state.
    assert_live_answers(
        APP,
        "get_tasks",
        &[
            "GET /api/tasks/?filter{project.code}=DAT",
            "GET /api/tasks/?filter{project.code}=OPS&filter{status}=todo",
            "GET /api/tasks/?filter{project.active}=false",
            "GET /api/tasks/?filter{project}=4&include[]=assignee.*",
        ],
    );
    // probe-reads entry 34: one task's project sideloaded beside it.
    let served = serve_corpus_app(APP);
    let (answer, is_error) = call_with_strings(
        &served,
        "get_tasks_by_task_id",
        &[("task_id", "8"), ("include[]", "project.*")],
    );
    assert!(!is_error, "{answer}");
    assert_eq!(
        answer.pointer("/state/source").and_then(Value::as_str),
        Some("state"),
        "{answer}"
    );
    assert_eq!(
        answer.get("body"),
        Some(&live_answer(APP, "probe-reads", 34).1)
    );
    // A related field's selection (`project.name`) is no spelling the reads showed: refused.
    let (answer, is_error) = call_with_strings(
        &served,
        "get_tasks",
        &[("filter{status}", "doing"), ("include[]", "project.name")],
    );
    assert_not_modelled(&answer, is_error);
}

#[test]
fn a_put_requires_what_the_creates_required_and_keeps_what_it_leaves_out() {
    // The build's one `PUT /api/tasks/12/` (entry 68) sent every member; its creates (61, 87)
    // left `due`, `estimate` and `assignee` out. A PUT requires only the creates' `title` and
    // `project` (as json-server's replacing `PUT` does, `state_error_answers.rs`), and, merging
    // what it sends, keeps what it leaves out (probe-crud entry 7 on the live app).
    const PUT: &str = "put_tasks_by_task_id";
    let served = serve_corpus_app(APP);
    let schema = input_schema(&served, PUT);
    assert_eq!(
        schema["properties"]["body"]["required"],
        json!(["project", "title"]),
        "{schema:#?}"
    );
    let before = read_by_id(&served, "get_tasks_by_task_id", "4");
    let mut arguments = id_arguments(&served, PUT, "4");
    arguments.extend(with_body(
        &served,
        PUT,
        json!({"title": "Redesign the cart page twice", "status": "todo", "priority": 1,
            "project": 4, "assignee": 2}),
    ));
    let (answer, is_error) = served.call(PUT, arguments);
    assert!(!is_error, "{answer:#}");
    let task = &answer["body"]["task"];
    assert_eq!(
        task["title"],
        json!("Redesign the cart page twice"),
        "{answer:#}"
    );
    assert_eq!(task["project"], json!(4), "{answer:#}");
    for kept in ["due", "estimate", "created_at"] {
        assert!(!before["task"][kept].is_null(), "{before:#}");
        assert_eq!(task[kept], before["task"][kept], "{kept}: {answer:#}");
    }
    let after = read_by_id(&served, "get_tasks_by_task_id", "4");
    assert_eq!(after["task"], *task);
}

#[test]
fn an_unknown_field_refusal_naming_no_type_answers_every_list_in_its_form() {
    // The build's tasks list refused an unknown field in a filter name and in a sort value
    // (entries 102 and 101: `["Invalid filter field: colour"]`, `["Invalid filter field:
    // ['colour']"]`, naming no type), and the projects' and people's lists filtered and sorted
    // by their own fields in those forms: their unknown fields answer the same refusal, renamed.
    assert_live_refusal(APP, "get_projects", "GET /api/projects/?filter{owner}=x");
    assert_live_refusal(APP, "get_people", "GET /api/people/?sort[]=height");
}

#[test]
fn a_list_paged_only_from_its_first_page_takes_the_siblings_page_arithmetic() {
    // The build walked `page` with `meta.page` and `meta.total_pages` only on tasks (entries
    // 42-47); projects were paged from their first page alone (48, `per_page=2`), so their own
    // lines showed one page number and page counts a page size fits too: they take the tasks'
    // arithmetic, and another page of projects answers its number and count as live.
    assert_live_answers(
        APP,
        "get_projects",
        &["GET /api/projects/?page=2&per_page=3"],
    );
}

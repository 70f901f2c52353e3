//! Sails.js blueprints (`tests/corpus/apps/sails`), an application nobody tuned the engine for,
//! read through the rules other apps taught: the whole criteria as JSON with operators and groups
//! spelled without a sigil (`where={"priority":{">":1}}`, `{"title":{"startsWith":"Paint"}}`,
//! `{"or":[…]}`; `json_filter.rs` of the query-grammar plugin), sort keys with a direction word
//! (`sort=title DESC`, as LoopBack's `filter[order]`) or as a JSON array
//! (`sort=[{"status":"ASC"},{"priority":"DESC"}]`; `rea_state::query::sort_keys`), a filter on a
//! populated association by the id of the record it embeds (`project=3` over
//! `"project": {"id": 3, …}`; `rea_state::query::embedded_identifier`) and a field selection
//! whose kept fields differ by type (`select=title` keeps a task's `id`, `project` and
//! `assignee`, a person's `id` alone; `rea_state::selection`). The whole filter as JSON with its
//! clauses reads on LoopBack too (`filter={"where":…,"order":…,"limit":…}`).

use crate::state_query_grammar::served_with_probes;
use crate::state_query_lists::{assert_item_answers, assert_state_answers};

#[test]
fn a_where_criteria_without_sigils_answers_from_the_state() {
    // Recorded: `<`, `<=`, `>`, `>=` on priority, `in` on status, `nin` on project, `!=` on
    // status, `contains`/`startsWith`/`endsWith` on title, one `or`. Asked: other values,
    // fields and combinations.
    let (served, probes) = served_with_probes("sails");
    assert_state_answers(
        &served,
        &probes,
        "get_task",
        &[
            "GET /task?where=%7B%22priority%22:3%7D",
            "GET /task?where=%7B%22status%22:%7B%22in%22:%5B%22todo%22%5D%7D%7D",
            "GET /task?where=%7B%22status%22:%7B%22nin%22:%5B%22todo%22,%22doing%22%5D%7D%7D",
            "GET /task?where=%7B%22priority%22:%7B%22%3E%22:1%7D%7D",
            "GET /task?where=%7B%22priority%22:%7B%22%3C%22:3%7D,%22status%22:%22doing%22%7D",
            "GET /task?where=%7B%22dueDate%22:%7B%22%3C%22:%222026-12-01%22%7D%7D",
            "GET /task?where=%7B%22title%22:%7B%22startsWith%22:%22Paint%22%7D%7D",
            "GET /task?where=%7B%22title%22:%7B%22endsWith%22:%22bolts%22%7D%7D",
            "GET /task?where=%7B%22status%22:%22todo%22,%22or%22:%5B%7B%22priority%22:1%7D,%7B%22dueDate%22:%7B%22%3E%3D%22:%222026-12-15%22%7D%7D%5D%7D",
        ],
    );
    assert_state_answers(
        &served,
        &probes,
        "get_project",
        &["GET /project?where=%7B%22budget%22:%7B%22%3C%3D%22:60%7D%7D"],
    );
}

#[test]
fn a_populated_association_filters_by_the_id_it_embeds() {
    let (served, probes) = served_with_probes("sails");
    assert_state_answers(
        &served,
        &probes,
        "get_task",
        &[
            "GET /task?project=3",
            "GET /task?assignee=1&status=todo",
            "GET /task?where=%7B%22project%22:%7B%22in%22:%5B3,4%5D%7D%7D",
            "GET /task?where=%7B%22project%22:%7B%22%21%3D%22:1%7D%7D",
            "GET /task?where=%7B%22or%22:%5B%7B%22project%22:3%7D,%7B%22assignee%22:2%7D%5D%7D",
        ],
    );
}

#[test]
fn sorts_with_direction_words_or_a_json_array_answer_from_the_state() {
    let (served, probes) = served_with_probes("sails");
    assert_state_answers(
        &served,
        &probes,
        "get_task",
        &[
            "GET /task?sort=priority%20DESC",
            "GET /task?sort=%5B%7B%22status%22:%22ASC%22%7D,%7B%22priority%22:%22DESC%22%7D%5D",
            "GET /task?sort=title%20DESC&limit=6&skip=6",
            "GET /task?where=%7B%22project%22:%7B%22in%22:%5B1,2%5D%7D%7D&sort=priority%20ASC&limit=3&skip=3",
        ],
    );
    assert_state_answers(
        &served,
        &probes,
        "get_project",
        &["GET /project?sort=name%20ASC"],
    );
    assert_state_answers(
        &served,
        &probes,
        "get_person",
        &["GET /person?sort=name%20ASC&limit=2&skip=2"],
    );
}

#[test]
fn a_selection_keeps_the_fields_its_type_keeps() {
    // Recorded: `select=title,status` and `select=title` on tasks (showing `id`, `project`,
    // `assignee` unasked), `select=name` on people (showing `id` alone).
    let (served, probes) = served_with_probes("sails");
    assert_state_answers(
        &served,
        &probes,
        "get_task",
        &[
            "GET /task?select=title,priority",
            "GET /task?where=%7B%22project%22:2%7D&sort=priority%20DESC&select=title",
        ],
    );
    assert_item_answers(
        &served,
        &probes,
        ("get_task_by_id", Some("1")),
        &["GET /task/1?select=status"],
    );
}

#[test]
fn a_whole_filter_as_json_with_its_clauses_answers_from_the_state() {
    // LoopBack's build sent `filter={"where":{"status":"doing"},"order":"title ASC"}` and one
    // with `gte` and `fields`; the probes ask other conditions, an `inq` array and a `limit`.
    let (served, probes) = served_with_probes("loopback");
    assert_state_answers(
        &served,
        &probes,
        "get_tasks",
        &[
            "GET /tasks?filter=%7B%22where%22%3A%7B%22projectId%22%3A2%7D%2C%22order%22%3A%22estimate%20DESC%22%7D",
            "GET /tasks?filter=%7B%22where%22%3A%7B%22status%22%3A%7B%22inq%22%3A%5B%22todo%22%2C%22doing%22%5D%7D%7D%2C%22limit%22%3A4%7D",
        ],
    );
}

/// Sails' projects embed their tasks whole (`tasks: [{"id": 1, "title": …, "project": 1,
/// "assignee": 1}]`, the associations as ids) while a task's own reads populate them
/// (`inverse.rs`, `EntryForm::Embedded`): a served task write refreshes, moves or drops the
/// embedded copy, read back by the projects list and item reads.
#[test]
fn served_task_writes_keep_the_projects_embedded_tasks() {
    use crate::state_support::{Served, serve_corpus_app};
    use serde_json::{Value, json};
    fn embedded(served: &Served, project: &str) -> Vec<(i64, String, Value)> {
        let read = call(served, "get_project_by_id", &["project", project], None);
        let tasks = read["body"]["tasks"].as_array().expect("embedded tasks");
        let shown = tasks.iter().map(|task| {
            let id = task["id"].as_i64().expect("an id");
            (
                id,
                task["title"].as_str().unwrap_or("").to_owned(),
                task["project"].clone(),
            )
        });
        shown.collect()
    }
    let served = serve_corpus_app("sails");
    let ids = |tasks: &[(i64, String, Value)]| tasks.iter().map(|task| task.0).collect::<Vec<_>>();
    assert_eq!(ids(&embedded(&served, "1")), [1, 2, 3, 12]);
    assert_eq!(ids(&embedded(&served, "2")), [4, 5, 6, 13]);
    // Task 1 moves to project 2, retitled: it leaves project 1 and joins project 2 in id order,
    // its embedded `project` the new project's bare id.
    let body = json!({"title": "Survey the slipway again", "project": 2, "assignee": null});
    let moved = call(&served, "put_task_by_id", &["task", "1"], Some(body));
    assert_eq!(moved["body"]["project"]["id"], 2, "{moved}");
    assert_eq!(ids(&embedded(&served, "1")), [2, 3, 12]);
    let joined = embedded(&served, "2");
    assert_eq!(ids(&joined), [1, 4, 5, 6, 13]);
    assert_eq!(joined[0].1, "Survey the slipway again");
    assert_eq!(joined[0].2, json!(2));
    let listed = call(&served, "get_project", &["project"], None);
    let second = &listed["body"][1]["tasks"][0];
    assert_eq!(
        (second["id"].clone(), second["assignee"].clone()),
        (json!(1), Value::Null)
    );
    // A changed task stays where it stood; a deleted one leaves its project.
    call(
        &served,
        "patch_task_by_id",
        &["task", "2"],
        Some(json!({"status": "done"})),
    );
    call(&served, "delete_task_by_id", &["task", "3"], None);
    let kept = embedded(&served, "1");
    assert_eq!(ids(&kept), [2, 12]);
    assert_eq!(kept[0].1, "Order granite blocks");
    let read = call(&served, "get_project_by_id", &["project", "1"], None);
    assert_eq!(read["body"]["tasks"][0]["status"], "done", "{read}");
}

/// A task's own reads embed its project and assignee records, while the association route
/// `/project/{id}/tasks` shows them as bare ids: the route's shape learns that spelling from
/// every task it recorded (`linked_ids`, `derive/lists.rs`) and reads the parent through the
/// embedded record's id (`relations.rs`), so a served create shows in both forms, also under a
/// project whose association route the build read only after writes.
#[test]
fn a_served_task_create_reads_back_whole_from_its_item_and_as_ids_from_its_project() {
    use crate::state_support::serve_corpus_app;
    use serde_json::json;
    let served = serve_corpus_app("sails");
    let body = json!({"title": "Oil the bell rope", "project": 2, "assignee": 3});
    let created = call(&served, "post_task", &["task"], Some(body));
    let id = created["body"]["id"].as_i64().expect("a created id");
    let item = call(&served, "get_task_by_id", &["task", &id.to_string()], None);
    assert_eq!(item["body"]["project"]["name"], "Signal Box", "{item}");
    assert_eq!(item["body"]["assignee"]["name"], "Lena Brandt", "{item}");
    let listed = call(
        &served,
        "get_project_tasks_by_project_id",
        &["project", "2", "tasks"],
        None,
    );
    let tasks = listed["body"].as_array().expect("a list");
    let ids: Vec<i64> = tasks
        .iter()
        .filter_map(|task| task["id"].as_i64())
        .collect();
    assert_eq!(ids, [4, 5, 6, 13, id], "{listed}");
    let shown = &tasks[4];
    assert_eq!(
        (shown["project"].clone(), shown["assignee"].clone()),
        (json!(2), json!(3)),
        "{listed}"
    );
    // A task without an assignee shows `null` there in both forms.
    assert_eq!(tasks[2]["assignee"], serde_json::Value::Null, "{listed}");
}

/// The association routes' writes (`writes/collection_links.rs`): `PUT /project/{id}/tasks/{fk}`
/// adds a task to the project (moving it out of its old one), `DELETE` of the same path removes
/// it (its `project` cleared), and `PUT /project/{id}/tasks` with an array of ids replaces the
/// collection; each is applied as the task's served update of `project` (its embedded record and
/// its clock as that update stores them) and answers the project with its tasks. Asked on other
/// projects and tasks than the build's.
#[test]
fn association_routes_add_remove_and_replace_a_projects_tasks() {
    use crate::state_support::serve_corpus_app;
    use serde_json::{Value, json};
    let served = serve_corpus_app("sails");
    let project_of = |task: &str| {
        let read = call(&served, "get_task_by_id", &["task", task], None);
        read["body"]["project"]["id"].clone()
    };
    let listed = |project: &str| {
        let read = call(
            &served,
            "get_project_tasks_by_project_id",
            &["project", project, "tasks"],
            None,
        );
        let ids = read["body"].as_array().expect("a list").iter();
        ids.filter_map(|task| task["id"].as_i64())
            .collect::<Vec<_>>()
    };
    let path = |project, task| ["project", project, "tasks", task];
    let added = call(
        &served,
        "put_project_tasks_by_project_id_and_id",
        &path("1", "14"),
        None,
    );
    assert_eq!(added["body"]["id"], 1, "{added}");
    let embedded: Vec<Value> = added["body"]["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .map(|task| task["id"].clone())
        .collect();
    assert_eq!(
        embedded,
        [json!(1), json!(2), json!(3), json!(12), json!(14)]
    );
    assert_eq!(project_of("14"), 1);
    assert_eq!(listed("3"), [7, 8]);
    call(
        &served,
        "delete_project_tasks_by_project_id_and_id",
        &path("1", "3"),
        None,
    );
    assert_eq!(project_of("3"), Value::Null);
    assert_eq!(listed("1"), [1, 2, 12, 14]);
    let replaced = call(
        &served,
        "put_project_tasks_by_project_id",
        &["project", "3", "tasks"],
        Some(json!([7, 3])),
    );
    assert_eq!(replaced["body"]["tasks"][0]["id"], 3, "{replaced}");
    assert_eq!(listed("3"), [3, 7]);
    assert_eq!((project_of("3"), project_of("8")), (json!(3), Value::Null));
    // A task the state does not hold is refused, changing nothing.
    let arguments = crate::state_support::request_arguments(
        &served,
        "put_project_tasks_by_project_id",
        (&["project", "3", "tasks"], &[]),
        Some(json!([8, 99])),
    );
    let (refused, is_error) = served.call("put_project_tasks_by_project_id", arguments);
    assert!(is_error, "{refused}");
    assert_eq!(listed("3"), [3, 7]);
}

/// Calls a tool with its path's segments and a body; the call is answered from the state, not
/// refused.
fn call(
    served: &crate::state_support::Served,
    tool: &str,
    path: &[&str],
    body: Option<serde_json::Value>,
) -> serde_json::Value {
    let arguments = crate::state_support::request_arguments(served, tool, (path, &[]), body);
    let (answer, is_error) = served.call(tool, arguments);
    assert!(!is_error, "{tool}: {answer}");
    assert_eq!(answer["state"]["source"], "state", "{tool}: {answer}");
    answer
}

//! JSON:API list documents (issue 12) on a real recording: a list answer carrying an `included`
//! array beside `data` (empty, or related resources of other types) holds its list in `data`, so
//! the users, projects and tasks lists derive and hold every entity the build listed; their
//! queries are learned (`filter[status]` as one of a comma list over the attribute nested under
//! `attributes`, `sort`, `page[limit]`); and the task update is served past the user delete that
//! cleared a task's `assignee_id` (a write adopted as observed). One app: safrs.

use rea_state::model::QueryRole;
use serde_json::Value;

use crate::state_support::{call_with_strings, list_view, query_model, serve_corpus_app};

const TASKS: &str = "get_api_tasks";

fn codes(answer: &Value) -> Vec<String> {
    answer["body"]["data"]
        .as_array()
        .unwrap_or_else(|| panic!("a list in data: {answer:#}"))
        .iter()
        .map(|member| {
            member["attributes"]["code"]
                .as_str()
                .expect("a code")
                .to_owned()
        })
        .collect()
}

#[test]
fn a_list_beside_its_included_resources_is_data_and_learns_its_queries() {
    let served = serve_corpus_app("safrs");
    for tool in [TASKS, "get_users", "get_projects"] {
        assert_eq!(list_view(&served, tool).list_pointer, "/data", "{tool}");
    }
    let model = query_model(&served, TASKS);
    assert_eq!(
        model.parameters.get("filter[status]"),
        Some(&QueryRole::filter("status", "in"))
    );
    assert_eq!(
        model.parameters.get("page[limit]"),
        Some(&QueryRole::PageSize)
    );
    assert_eq!(model.parameters.get("sort"), Some(&QueryRole::Sort));
    // Every seeded task the build listed is held, not only those it read by id.
    let held = served
        .state()
        .entities
        .iter()
        .filter(|entity| entity.entity_type == "/api/tasks" && entity.collection == "/api/tasks")
        .count();
    assert!(held >= 9, "{held} tasks held");
}

#[test]
fn another_filter_value_answers_from_the_state() {
    let served = serve_corpus_app("safrs");
    // Recorded: filter[status]=active. Asked: archived (the build archived project 4, then
    // deleted it: the state before the writes holds OPS alone).
    let (answer, is_error) =
        call_with_strings(&served, "get_projects", &[("filter[status]", "archived")]);
    assert!(!is_error, "{answer:#}");
    assert_eq!(codes(&answer), vec!["OPS"]);
}

#[test]
fn the_task_update_is_served_past_the_adopted_user_delete() {
    let served = serve_corpus_app("safrs");
    let plan = crate::state_support::write_plan(&served, "patch_tasks_by_id");
    assert!(plan.served, "{:?}", plan.reason);
    assert_eq!(plan.contradicted_by, None);
}

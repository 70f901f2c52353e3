//! Related routes answered for any entity (issue 12). To-one (`rea_state::related_routes`): a
//! read of an entity's path and one relationship name (`/api/task/9/project`,
//! `/books/3/borrower/`, `/tasks/9/project`) answers the resource the entity's linkage names, or
//! `null` where it links nothing, in the envelope of a recorded answer, its `links.self` the
//! call's own path even where one read showed it; learned only from reads in their observation
//! windows (a read of a task a later write created, or of a project whose tasks later changed,
//! shows another state than the one held). Three JSON:API apps: Flask-Restless-NG, drf-jsonapi
//! and Fortune.js. To-many: a list under a parent (`/api/person/6/tasks`) spells the called path
//! in its page links (`rea_state::path_echo`) and counts the members it lists (Flask-Restless-NG).

use serde_json::Value;

use crate::state_query_grammar::served_with_probes;
use crate::state_support::{agreement, probe_with_line, recorded_answer};

/// Each probe line is routed to `tool`, answered from the state, with the live body, and no
/// recorded call of the build named its path.
fn assert_related_answers(app: &str, tool: &str, lines: &[&str]) {
    let (served, probes) = served_with_probes(app);
    for line in lines {
        let probe = probe_with_line(&probes, line);
        let (routed, arguments) = agreement::route(&served, probe).expect("a tool");
        assert_eq!(routed, tool, "{app}: {line}");
        let recorded = served
            .records
            .iter()
            .any(|record| record.path == probe.path);
        assert!(!recorded, "{app}: {line} is no path the build read");
        let (answer, is_error) = served.call(tool, arguments);
        assert!(!is_error, "{app}: {line}: {answer:#}");
        assert_eq!(
            answer.pointer("/state/source").and_then(Value::as_str),
            Some("state"),
            "{app}: {line} answers from the state: {answer:#}"
        );
        let (_, live) = recorded_answer(probe);
        assert_eq!(answer.get("body"), Some(&live), "{app}: {line}");
    }
}

#[test]
fn a_related_resource_and_an_empty_linkage_answer_for_any_entity() {
    // Recorded: task 1's project (entry 51) and task 13's (72, a task the build created, which
    // teaches nothing); task 1's assignee and task 6's `null` one (52, 53).
    assert_related_answers(
        "restless",
        "get_task_project_by_task_id",
        &["GET /api/task/9/project"],
    );
    assert_related_answers(
        "restless",
        "get_task_assignee_by_task_id",
        &["GET /api/task/12/assignee"],
    );
}

#[test]
fn a_second_and_third_app_answer_the_empty_linkage_and_the_path_echo() {
    // drf-jsonapi's build read borrowers only where a book had one; book 3 has none.
    assert_related_answers(
        "drf-jsonapi",
        "get_books_borrower_by_book_id",
        &["GET /books/3/borrower/"],
    );
    // Fortune.js's build read one to-one related route, whose `links.self` is its path.
    assert_related_answers(
        "fortune",
        "get_tasks_by_task_id_and_id",
        &["GET /tasks/9/project"],
    );
}

#[test]
fn a_related_list_names_the_called_parent_in_its_page_links_and_counts_its_members() {
    // Recorded: Carol's tasks (entry 57, three; `links.first` and `last` her path and the first
    // page's query, `meta.total` 3); Femi has two.
    assert_related_answers(
        "restless",
        "get_person_tasks_by_person_id",
        &["GET /api/person/6/tasks"],
    );
}

#[test]
fn a_related_list_an_item_route_below_it_mirrors_lists_the_parents_tasks() {
    // Recorded: project 2's and project 1's tasks (entries 56, 67) and one task read below a
    // project (`/api/project/1/tasks/2`, entry 59), which made the route a type of its own.
    assert_related_answers(
        "restless",
        "get_project_tasks_by_project_id",
        &["GET /api/project/4/tasks"],
    );
}

//! Count views (`rea_state::count_views`, issue 12): LoopBack 4's `GET /tasks/count?where[…]`
//! answers `{"count": n}`, the number of tasks its sibling list `GET /tasks` selects with the same
//! filter, spelled unnested (`where[status]` for the list's `filter[where][status]`). Learned from
//! the build's counts (entries 32 to 36: none, `where[status]`, `where[priority][gte]` on tasks,
//! none on people, `where[active]` on projects), they answer from the state for filters the
//! build never counted by and after served writes, as the live application answered the probes.
//! The other recorded applications count on the list's own path (parse-server's
//! `count=1&limit=0`, datasette's `_extra=count`, directus's `meta=filter_count`): list
//! envelopes, not this rule.

use serde_json::{Value, json};

use crate::state_query_grammar::{probe_arguments, served_with_probes};
use crate::state_support::{
    Served, call_with_strings, input_schema, live_answer, probe_with_line, recorded_answer,
    request_arguments, serve_corpus_app, with_body,
};

/// The number a count answered from the state, asserting it was.
fn counted(answer: &Value) -> &Value {
    assert_eq!(
        answer.pointer("/state/source").and_then(Value::as_str),
        Some("state"),
        "{answer}"
    );
    &answer["body"]["count"]
}

#[test]
fn a_count_answers_from_the_state_for_filters_it_never_counted_by() {
    let (served, probes) = served_with_probes("loopback");
    for (tool, line) in [
        ("get_tasks_count", "GET /tasks/count?where[status]=done"),
        ("get_tasks_count", "GET /tasks/count?where[projectId]=3"),
        ("get_tasks_count", "GET /tasks/count?where[estimate][lt]=3"),
        ("get_projects_count", "GET /projects/count"),
    ] {
        let probe = probe_with_line(&probes, line);
        let arguments = probe_arguments(probe);
        let schema = input_schema(&served, tool);
        assert!(
            rea_serve::arguments::check(&schema, &arguments).is_ok(),
            "{line}: {schema:?}"
        );
        let (answer, is_error) = served.call(tool, arguments);
        assert!(!is_error, "{line}: {answer}");
        counted(&answer);
        assert_eq!(
            answer.get("body"),
            Some(&recorded_answer(probe).1),
            "{line}"
        );
    }
}

/// The number of tasks the list answers for a filter (each pair's list name and value) and
/// the number the count answers for the same one (its count name).
fn list_and_count(served: &Served, filter: &[(&str, &str, &str)]) -> (usize, Value) {
    let listed: Vec<(&str, &str)> = filter
        .iter()
        .map(|(_, list, value)| (*list, *value))
        .collect();
    let counts: Vec<(&str, &str)> = filter
        .iter()
        .map(|(count, _, value)| (*count, *value))
        .collect();
    let (list, _) = call_with_strings(served, "get_tasks", &listed);
    let (count, _) = call_with_strings(served, "get_tasks_count", &counts);
    let length = list["body"].as_array().expect("a list").len();
    (length, counted(&count).clone())
}

#[test]
fn a_count_follows_served_writes() {
    let served = serve_corpus_app("loopback");
    // Probe-crud entry 0's create, in project 2.
    let created = json!({"title": "Test the sprinklers", "status": "doing", "priority": 2, "estimate": 5, "projectId": 2, "assigneeId": 1});
    let (answer, is_error) = served.call("post_tasks", with_body(&served, "post_tasks", created));
    assert!(!is_error, "{answer}");
    // Project 2's tasks counted after it, as the live application counted them (entry 4).
    let (count, _) = call_with_strings(&served, "get_tasks_count", &[("where[projectId]", "2")]);
    assert_eq!(
        counted(&count),
        &live_answer("loopback", "probe-crud", 4).1["count"]
    );
    let (answer, is_error) = served.call(
        "delete_tasks_by_id",
        request_arguments(&served, "delete_tasks_by_id", (&["tasks", "5"], &[]), None),
    );
    assert!(!is_error, "{answer}");
    let filters: [&[(&str, &str, &str)]; 4] = [
        &[],
        &[("where[projectId]", "filter[where][projectId]", "2")],
        &[("where[status]", "filter[where][status]", "doing")],
        &[
            ("where[priority][gte]", "filter[where][priority][gte]", "2"),
            ("where[assigneeId]", "filter[where][assigneeId]", "1"),
        ],
    ];
    for filter in filters {
        let (length, count) = list_and_count(&served, filter);
        assert_eq!(count, json!(length), "{filter:?}");
    }
    let (all, _) = call_with_strings(&served, "get_tasks_count", &[]);
    assert_eq!(counted(&all), &json!(14));
}

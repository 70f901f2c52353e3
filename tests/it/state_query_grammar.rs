//! The list query grammar learned from a build's recorded queries, applied to fields, operators
//! and sibling lists its recording never queried (`rea_state::derive::query_grammar`): probe
//! requests recorded on the live application, answered from the state of its `build.har`, give
//! the live answer. A parameter the grammar cannot explain keeps its structured refusal.

use std::path::PathBuf;

use rea_backends::fetch::FetchOptions;
use rea_evidence::capture::capture_records;
use rea_plugin_api::contracts::capture::CaptureRecord;
use serde_json::{Map, Value};

use crate::state_support::{Served, capture_file, recorded_answer, serve_evidence, state_rules};

fn app_dir(name: &str) -> PathBuf {
    rea_tests::fidelity::discover(&rea_tests::fidelity::default_roots())
        .into_iter()
        .find(|app| app.name == name)
        .unwrap_or_else(|| panic!("the corpus holds {name}"))
        .dir
}

fn request_line(record: &CaptureRecord) -> String {
    crate::state_support::request_line(record, "")
}

/// The app's build state and its read probes.
pub(crate) fn served_with_probes(app: &str) -> (Served, Vec<CaptureRecord>) {
    let dir = app_dir(app);
    let served = serve_evidence(
        capture_file(&dir.join("build.har")),
        state_rules(),
        FetchOptions::default(),
    );
    let probes = capture_records(&capture_file(&dir.join("probe-reads.har"))).expect("records");
    (served, probes)
}

/// A probe's query pairs as string arguments named as the pairs are.
pub(crate) fn probe_arguments(probe: &CaptureRecord) -> Map<String, Value> {
    probe
        .query
        .iter()
        .flat_map(|query| query.pairs.iter().flatten())
        .map(|(name, value)| (name.clone(), Value::String(value.clone())))
        .collect()
}

/// Calls a list tool with a probe's query pairs as string arguments.
fn call_probe(served: &Served, tool: &str, probe: &CaptureRecord) -> Value {
    served.call(tool, probe_arguments(probe)).0
}

/// Each probe line is answered from the state by query evaluation, with the live body, and none
/// of its parameters was named by a recorded line of the build.
pub(crate) fn assert_live_answers(app: &str, tool: &str, lines: &[&str]) {
    let (served, probes) = served_with_probes(app);
    let definition = served.replay.tool(tool).expect("the tool").clone();
    let recorded_lines: Vec<String> = served.records.iter().map(request_line).collect();
    for line in lines {
        let probe = probes
            .iter()
            .find(|record| request_line(record) == *line)
            .unwrap_or_else(|| panic!("{app} probes {line}"));
        // The tool's recorded schema lacks one of its parameters, or the build never made it.
        let unseen = probe
            .query
            .iter()
            .flat_map(|query| query.pairs.iter().flatten())
            .any(|(name, _)| definition.input_schema.argument(name).is_none())
            || !recorded_lines.contains(&request_line(probe));
        let answer = call_probe(&served, tool, probe);
        assert_eq!(
            answer.pointer("/state/source").and_then(Value::as_str),
            Some("state"),
            "{app}: {line} answers from the state: {answer}"
        );
        assert_eq!(
            answer.pointer("/state/membership").and_then(Value::as_str),
            Some("query"),
            "{app}: {line} evaluates the query: {answer}"
        );
        let (_, live) = recorded_answer(probe);
        assert_eq!(
            answer.get("body"),
            Some(&live),
            "{app}: {line} lists what the live application listed"
        );
        assert!(unseen, "{app}: {line} is no request the build recorded");
    }
}

/// The probe of `line` on `tool` answers the application's refusal the state learned for a
/// query naming a field the entities lack (`query-refused`), with the live status and body.
pub(crate) fn assert_live_refusal(app: &str, tool: &str, line: &str) {
    let (served, probes) = served_with_probes(app);
    let probe = crate::state_support::probe_with_line(&probes, line);
    let (answer, _) = served.call(tool, probe_arguments(probe));
    assert_eq!(
        answer.pointer("/state/view").and_then(Value::as_str),
        Some("query-refused"),
        "{app}: {line}: {answer}"
    );
    let (status, live) = recorded_answer(probe);
    assert_eq!(
        answer.get("status").and_then(Value::as_u64),
        status.map(u64::from)
    );
    assert_eq!(answer.get("body"), Some(&live), "{app}: {line}");
}

#[test]
fn operator_families_and_equality_extend_to_unqueried_fields() {
    // Recorded: status, customerId, sla.breached (equality), priority_gte, priority_lt,
    // status_ne, sla.hours_lte. Never recorded: agentId… `_gt`, `_lte` on priority, `_ne` on
    // customerId, `_gt` on a nested field.
    assert_live_answers(
        "json-server-v1",
        "get_tickets",
        &[
            "GET /tickets?priority_gt=3",
            "GET /tickets?priority_lte=2",
            "GET /tickets?customerId_ne=c1",
            "GET /tickets?sla.hours_gt=24",
            "GET /tickets?sla.breached=false&status=open",
        ],
    );
    // Equality and sorts learned on /tickets, offered on the sibling lists.
    assert_live_answers(
        "json-server-v1",
        "get_notes",
        &["GET /notes?internal=true&ticketId=101"],
    );
}

#[test]
fn equality_extends_to_sibling_lists_of_another_application() {
    assert_live_answers("json-server", "get_users", &["GET /users?role=reader"]);
    assert_live_answers(
        "json-server",
        "get_comments",
        &["GET /comments?author=carol"],
    );
}

#[test]
fn bracket_and_double_underscore_forms_complete_their_order_comparisons() {
    // Recorded: filter[state][_eq], filter[priority][_lte], filter[title][_contains],
    // filter[assignee][_in] on /items/tasks; never `_gte`, `_gt`, nor any filter on projects.
    assert_live_answers(
        "directus",
        "get_items_tasks",
        &[
            "GET /items/tasks?filter%5Bpriority%5D%5B_gte%5D=4",
            "GET /items/tasks?filter%5Bstate%5D%5B_eq%5D=blocked",
        ],
    );
    assert_live_answers(
        "directus",
        "get_items_projects",
        &["GET /items/projects?filter%5Bbudget%5D%5B_gt%5D=20000"],
    );
    // Recorded: priority__lte and assignee__in; never `__gt`, `__gte`, `__lt`.
    assert_live_answers(
        "datasette",
        "get_tracker_tasks_json",
        &[
            "GET /tracker/tasks.json?priority__gt=3",
            "GET /tracker/tasks.json?priority__gte=2&priority__lt=4",
        ],
    );
}

#[test]
fn bracket_words_outside_the_vocabulary_read_as_the_operators_they_alias() {
    // fortune-json-api's words (`plugin-api` `OPERATOR_ALIASES`), recorded as `[min]` on priority,
    // `[max]` and both on estimate, `[min]` on due-date, `[exists]=false` on assignee and
    // `[fuzzy-match]=the` on title (build entries 10-15): other fields, a date's upper bound,
    // the other link, a match in capitals, and the projects' budget.
    assert_live_answers(
        "fortune",
        "get_tasks",
        &[
            "GET /tasks?filter[priority][max]=1",
            "GET /tasks?filter[due-date][max]=2026-12-01",
            "GET /tasks?filter[project][exists]=false",
            "GET /tasks?filter[assignee][exists]=true",
            "GET /tasks?filter[title][fuzzy-match]=WALL",
        ],
    );
    assert_live_answers(
        "fortune",
        "get_projects",
        &["GET /projects?filter[budget][min]=70"],
    );
}

#[test]
fn a_substring_form_reads_a_field_holding_an_array_item_by_item() {
    // Recorded: title_like on /posts, never a filter on `tags`, which holds arrays of words; the
    // live application lists the post one of whose tags holds the text (`search`).
    assert_live_answers("json-server", "get_posts", &["GET /posts?tags_like=sea"]);
    // No other form reads an array: equality and the order comparisons stay refused there.
    let (served, _) = served_with_probes("json-server");
    for name in ["tags", "tags_gte", "tags_ne"] {
        let arguments = Map::from_iter([(name.to_owned(), Value::String("rest".to_owned()))]);
        let (answer, is_error) = served.call("get_posts", arguments);
        assert!(is_error, "{name}: {answer}");
    }
    // Directus's tasks hold `tags` arrays too, and its substring form (`filter[title][_contains]`
    // recorded) is offered on them, keeping the tasks one of whose tags holds the text (no
    // probe of directus asks it: the state's own tasks are the expectation).
    let (directus, _) = served_with_probes("directus");
    let arguments = Map::from_iter([(
        "filter[tags][_contains]".to_owned(),
        Value::String("fra".to_owned()),
    )]);
    let (answer, is_error) = directus.call("get_items_tasks", arguments);
    assert!(!is_error, "{answer}");
    assert_eq!(
        answer.pointer("/state/membership").and_then(Value::as_str),
        Some("query"),
        "{answer}"
    );
    let listed: Vec<&Value> = answer
        .pointer("/body/data")
        .and_then(Value::as_array)
        .expect("a data list")
        .iter()
        .collect();
    assert!(!listed.is_empty(), "{answer}");
    for task in &listed {
        let tags = task.get("tags").and_then(Value::as_array).expect("tags");
        assert!(
            tags.iter()
                .any(|tag| tag.as_str().is_some_and(|tag| tag.contains("fra"))),
            "{task}"
        );
    }
}

#[test]
fn a_parameter_no_grammar_explains_stays_refused() {
    for (app, tool) in [
        ("json-server-v1", "get_tickets"),
        ("json-server", "get_posts"),
    ] {
        let (served, _) = served_with_probes(app);
        let mut arguments = Map::new();
        arguments.insert("colour~gt".to_owned(), Value::String("3".to_owned()));
        let (answer, is_error) = served.call(tool, arguments);
        assert!(
            is_error,
            "{app}: an unexplained parameter is refused: {answer}"
        );
        let code = answer
            .pointer("/error/code")
            .or_else(|| answer.get("code"))
            .and_then(Value::as_str);
        assert_eq!(code, Some("invalid_arguments"), "{app}: {answer}");
    }
}

#[test]
fn an_operator_slot_takes_every_operator_word_of_the_vocabulary() {
    // Recorded: priority__lte, assignee__in, title__contains, due__notnull, status__notin; the
    // `__` spelling is an operator slot. Never recorded: startswith, endswith, not, isnull, like,
    // glob.
    assert_live_answers(
        "datasette",
        "get_tracker_tasks_json",
        &[
            "GET /tracker/tasks.json?title__startswith=Write",
            "GET /tracker/tasks.json?title__endswith=page",
            "GET /tracker/tasks.json?assignee__not=ana",
            "GET /tracker/tasks.json?due__isnull=1",
            // The pattern operators: an SQL LIKE pattern (case-insensitive) and a glob.
            "GET /tracker/tasks.json?title__like=%25key%25",
            "GET /tracker/tasks.json?title__glob=%2AAPI%2A",
        ],
    );
    // Recorded: `_eq`, `_lte`, `_contains`, `_in` in filter[field][op]; never `_between`,
    // `_null`, `_nnull`, `_starts_with`, `_nin`, `_icontains`.
    assert_live_answers(
        "directus",
        "get_items_tasks",
        &[
            "GET /items/tasks?filter%5Bpriority%5D%5B_between%5D=2%2C3",
            "GET /items/tasks?filter%5Bassignee%5D%5B_null%5D=true",
            "GET /items/tasks?filter%5Btitle%5D%5B_starts_with%5D=Write",
            "GET /items/tasks?filter%5Bassignee%5D%5B_nin%5D=ana%2Cbo",
            // The case-insensitive `i` spelling of the established `_contains`.
            "GET /items/tasks?filter%5Btitle%5D%5B_icontains%5D=LOGIN",
        ],
    );
}

#[test]
fn an_operator_word_the_vocabulary_lacks_stays_refused() {
    for (app, tool, name) in [
        ("datasette", "get_tracker_tasks_json", "title__regex"),
        ("directus", "get_items_tasks", "filter[title][_regex]"),
    ] {
        let (served, _) = served_with_probes(app);
        let mut arguments = Map::new();
        arguments.insert(name.to_owned(), Value::String("*API*".to_owned()));
        let (answer, is_error) = served.call(tool, arguments);
        assert!(is_error, "{app}: {name} is refused: {answer}");
        let code = answer
            .pointer("/error/code")
            .or_else(|| answer.get("code"))
            .and_then(Value::as_str);
        assert_eq!(code, Some("invalid_arguments"), "{app}: {answer}");
    }
}

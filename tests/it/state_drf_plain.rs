//! Plain Django REST framework with django-filter (`tests/corpus/apps/drf`), an application
//! nobody tuned the engine for, read through the rules other apps taught: django-filter's
//! `field__lookup=value` suffixes (`__gt`, `__lte`, `__icontains`, `__in` as a comma list,
//! `__isnull`; the `__` operator affixes datasette taught the query-grammar plugin), `ordering`
//! and `search` over the state; and its page-number envelope `{count, next, previous, results}`,
//! whose absolute `next`/`previous` links sit beside the list rather than in a links object
//! (`rea_state::flat_links`), minted for every evaluated page, a call naming no `page_size`
//! paged by the default size its answered lines showed (10), which its links never name.
//! Its writes send the assignee as `assignee_id` and answer the nested `assignee` record of that
//! person (`rea_state::writes::references`, a reference stored under another name), and a
//! comparison of a number field given no number answers the recorded 400
//! (`rea_state::query_refusals`, the typed form). The plain project list counts what it lists
//! after a create (`count`), so the build's read after its project create no longer contradicts
//! the create and the create is served.

use serde_json::{Value, json};

use crate::state_query_grammar::served_with_probes;
use crate::state_query_lists::assert_state_answers;
use crate::state_support::{
    Served, call_with_strings, input_schema, live_answer, path_parameter, serve_corpus_app,
    with_body, write_plan,
};

#[test]
fn django_filter_lookups_answer_from_the_state() {
    // Recorded: `__gte`, `__lt`, `__lte`, `__icontains`, `__startswith`, `__in`, `__isnull`,
    // equality. Asked: `__gt` (never recorded), other values, fields and combinations.
    let (served, probes) = served_with_probes("drf");
    assert_state_answers(
        &served,
        &probes,
        "get_tasks",
        &[
            "GET /api/tasks/?status=doing",
            "GET /api/tasks/?priority__gt=1",
            "GET /api/tasks/?priority__lt=3&status=doing",
            "GET /api/tasks/?title__icontains=THE",
            "GET /api/tasks/?status__in=open,doing",
            "GET /api/tasks/?due__isnull=false",
            "GET /api/tasks/?assignee__isnull=false&priority__lt=3",
            "GET /api/tasks/?search=GRANITE",
        ],
    );
    assert_state_answers(
        &served,
        &probes,
        "get_people",
        &[
            "GET /api/people/?role=designer",
            "GET /api/people/?search=kofi",
        ],
    );
}

#[test]
fn page_links_beside_the_list_are_minted_for_evaluated_pages() {
    // Fourteen tasks, 10 a page unless `page_size` says otherwise: the first page of an
    // ordering links `?ordering=-priority&page=2`; a page asked directly links both ways; a
    // walk by `next` re-encodes the query in name order (`status__in=open%2Cdoing`).
    let (served, probes) = served_with_probes("drf");
    assert_state_answers(
        &served,
        &probes,
        "get_tasks",
        &[
            "GET /api/tasks/?ordering=-priority",
            "GET /api/tasks/?page=2",
            "GET /api/tasks/?page=2&page_size=4",
            "GET /api/tasks/?ordering=-title&page_size=6",
            "GET /api/tasks/?ordering=-title&page=3&page_size=6",
            "GET /api/tasks/?status__in=open,doing&page_size=3",
            "GET /api/tasks/?page=2&page_size=3&status__in=open%2Cdoing",
            "GET /api/tasks/?page=4&page_size=3&status__in=open%2Cdoing",
        ],
    );
}

/// The write answered from the state: not an error, its body the live application's answer to
/// the probe's entry (the JSON body as the live application answered it).
fn assert_write_answers(
    served: &Served,
    tool: &str,
    task: Option<&str>,
    body: Value,
    entry: usize,
) {
    let mut arguments = with_body(served, tool, body);
    if let Some(task) = task {
        arguments.insert(path_parameter(served, tool), json!(task));
    }
    let schema = input_schema(served, tool);
    assert!(
        rea_serve::arguments::check(&schema, &arguments).is_ok(),
        "{tool}: {schema:?}"
    );
    let (answer, is_error) = served.call(tool, arguments);
    assert!(!is_error, "{tool}: {answer}");
    assert_eq!(
        answer["body"],
        live_answer("drf", "probe-crud", entry).1,
        "{tool}"
    );
}

#[test]
fn an_id_sent_beside_its_nested_record_answers_the_held_record() {
    // DRF writes the assignee as `assignee_id` (write-only) and answers the nested read-only
    // `assignee: {id, name}` of that person: the create, a PATCH (no recorded PATCH sent it: the
    // type's writes share the reference) and a PUT answer the held person's record.
    let served = serve_corpus_app("drf");
    let created = json!({"title": "Test the sprinklers", "status": "doing", "priority": 2, "project": 2, "assignee_id": 1});
    assert_write_answers(&served, "post_tasks", None, created, 0);
    let patched = json!({"title": "Test the misters", "due": "2026-12-30"});
    assert_write_answers(&served, "patch_tasks_by_task_id", Some("15"), patched, 4);
    let put = json!({"title": "Test the misters", "status": "open", "priority": 1, "project": 4, "assignee_id": 5});
    assert_write_answers(&served, "put_tasks_by_task_id", Some("15"), put, 7);
    let reassigned = json!({"status": "done", "assignee_id": 4});
    assert_write_answers(&served, "patch_tasks_by_task_id", Some("4"), reassigned, 51);
    // An id naming no held person is refused, not guessed.
    let arguments = with_body(
        &served,
        "post_tasks",
        json!({"title": "x", "project": 1, "assignee_id": 77}),
    );
    let (answer, is_error) = served.call("post_tasks", arguments);
    assert!(is_error, "{answer}");
}

#[test]
fn a_number_compared_with_no_number_answers_the_recorded_refusal() {
    // Build entry 96: `priority__gte=high` answered 400 `{"priority__gte": ["Enter a number."]}`.
    // Another comparison of the number field answers it renamed; a number still filters.
    let served = serve_corpus_app("drf");
    let (answer, _) = call_with_strings(&served, "get_tasks", &[("priority__lt", "low")]);
    assert_eq!(answer["status"], 400, "{answer}");
    assert_eq!(answer["body"], json!({"priority__lt": ["Enter a number."]}));
    let (answer, _) = call_with_strings(&served, "get_tasks", &[("priority__gte", "high")]);
    assert_eq!(
        answer["body"],
        json!({"priority__gte": ["Enter a number."]})
    );
    let (answer, is_error) = call_with_strings(&served, "get_tasks", &[("priority__gte", "3")]);
    assert!(!is_error, "{answer}");
    assert_eq!(answer["body"]["count"], 4, "{answer}");
    // A text field compared with a word is no refusal.
    let (answer, is_error) = call_with_strings(&served, "get_tasks", &[("status", "open")]);
    assert!(!is_error && answer["status"] == 200, "{answer}");
}

#[test]
fn the_plain_list_counts_the_created_project() {
    // Build entries 80-82: a project created, then the plain list read, `count` 5.
    let served = serve_corpus_app("drf");
    assert!(write_plan(&served, "post_projects").served);
    let body = json!({"code": "WTR", "name": "Water Tower", "budget": 40});
    let (answer, is_error) =
        served.call("post_projects", with_body(&served, "post_projects", body));
    assert!(!is_error, "{answer}");
    let (answer, _) = call_with_strings(&served, "get_projects", &[]);
    assert_eq!(answer["body"]["count"], 5, "{answer}");
    assert_eq!(answer["body"]["results"].as_array().map(Vec::len), Some(5));
}

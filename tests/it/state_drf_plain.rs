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
//! (`rea_state::query_refusals`, the typed form). django-filter's lookup across a relation,
//! `project__code=GLS`, filters by the code of the project the task names by a bare key
//! (`rea_state::link_filters`, a name joining the member and the key). The detail action
//! `GET /api/projects/{id}/tasks/` lists the tasks whose `project` holds the id, another
//! project's and after writes too (`rea_state::relations::ParentSegment`, its members read in
//! `/api/tasks` by their item route and in `/api/tasks/` by the list, one collection). A page
//! number past the last page answers the build's 404 `Invalid page.` (`rea_state::page_past_end`).
//! A plain list after writes counts what it lists: the whole project list's `count` (so the
//! build's read after its project create confirms the create), and the paged task list's first
//! page evaluated over the state with its `count` and links. The project list's
//! LimitOffsetPagination links are minted too (`previous` a step back stopping at the first
//! item, `rea_state::page_cursor`), and a create leaving out required members answers the
//! recorded 400 keyed by the members it leaves out (`rea_state::writes::keyed_refusal`).

use serde_json::{Value, json};

use crate::state_query_grammar::served_with_probes;
use crate::state_query_lists::assert_state_answers;
use crate::state_support::{
    Served, call_admitted, call_with_strings, input_schema, live_answer, path_parameter,
    serve_corpus_app, with_body,
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
fn a_lookup_across_a_relation_filters_by_the_linked_key() {
    // Recorded: `project__code=SGB` (and `BTH` after the writes). Asked: other projects' codes,
    // alone and beside another filter.
    let (served, probes) = served_with_probes("drf");
    assert_state_answers(
        &served,
        &probes,
        "get_tasks",
        &[
            "GET /api/tasks/?project__code=GLS",
            "GET /api/tasks/?project__code=HBW&status=open",
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

#[test]
fn limit_offset_links_are_minted_for_pages_the_build_never_read() {
    // Recorded: `limit=2` from offsets 0, 2 and 1, `previous` from offset 1 naming the first
    // page (offset - limit stopping at 0, the offset left out); the unsized lines (4 or 5
    // projects, no link) show no default size. Asked: a page of 3, and offset 1 of an ordering,
    // its links re-encoding the query in name order (`page`, which the task list's names lend
    // the project list, is no position of its own: its lines sent `offset`).
    let (served, probes) = served_with_probes("drf");
    assert_state_answers(
        &served,
        &probes,
        "get_projects",
        &[
            "GET /api/projects/?limit=3",
            "GET /api/projects/?limit=2&offset=2",
            "GET /api/projects/?ordering=-budget&limit=2&offset=1",
        ],
    );
}

#[test]
fn a_create_leaving_out_required_members_answers_the_refusal_keyed_by_them() {
    // Build entry 91: a task create sending only `priority` answered 400 keyed by `title` and
    // `project`, each `["This field is required."]`; entry 92: a person create sending only
    // `role` keyed `name` alone. Asked: the probe's task create sending only `status`, then
    // creates leaving out one of the two, each keyed by the member it leaves out.
    let served = serve_corpus_app("drf");
    let refused = |tool: &str, body: Value| {
        let arguments = with_body(&served, tool, body);
        let schema = input_schema(&served, tool);
        assert!(
            rea_serve::arguments::check(&schema, &arguments).is_ok(),
            "{tool}: {schema:?}"
        );
        let (answer, _) = served.call(tool, arguments);
        assert_eq!(answer["status"], 400, "{answer}");
        answer["body"].clone()
    };
    let live = live_answer("drf", "probe-crud", 46).1;
    assert_eq!(refused("post_tasks", json!({"status": "open"})), live);
    let required = json!(["This field is required."]);
    assert_eq!(
        refused("post_tasks", json!({"title": "Paint the tank"})),
        json!({"project": required})
    );
    assert_eq!(
        refused("post_tasks", json!({"project": 2, "priority": 1})),
        json!({"title": required})
    );
    assert_eq!(
        refused("post_people", json!({"role": "designer"})),
        json!({"name": required})
    );
    // No project create was refused: the projects' required members (all the one recorded
    // create sent: `code`, `name`, `budget`) are keyed with the one text the tasks' and people's
    // refusals recorded for every member (inferred); leaving out `code` alone answers as the
    // live application did (probe-crud 47 left out `budget` too, which the app defaults).
    assert_eq!(
        refused("post_projects", json!({"name": "Nameless", "budget": 5})),
        live_answer("drf", "probe-crud", 47).1
    );
    // Every required member sent: a create.
    let created = json!({"title": "Paint the tank", "project": 2});
    let (answer, is_error) = served.call("post_tasks", with_body(&served, "post_tasks", created));
    assert!(!is_error && answer["status"] == 201, "{answer}");
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
    let answer = call_admitted(served, tool, arguments);
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
    create_patch_and_put_task_15(&served);
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
fn a_projects_tasks_are_listed_from_the_state_before_and_after_writes() {
    // Recorded: projects 1 and 3. Asked: projects 2 and 4 (probe-reads 58, 59); then, after a
    // create in project 2 moved to project 4 by a PUT, project 4 again (probe-crud 9).
    let served = serve_corpus_app("drf");
    let tool = "get_projects_tasks_by_project_id";
    let parameter = path_parameter(&served, tool);
    let list = |project: &str| {
        let (answer, is_error) = call_with_strings(&served, tool, &[(&parameter, project)]);
        assert!(!is_error, "{answer}");
        assert_eq!(answer["state"]["source"], "state", "{answer}");
        answer["body"].clone()
    };
    assert_eq!(list("2"), live_answer("drf", "probe-reads", 58).1);
    assert_eq!(list("4"), live_answer("drf", "probe-reads", 59).1);
    create_patch_and_put_task_15(&served);
    assert_eq!(list("4"), live_answer("drf", "probe-crud", 9).1);
}

#[test]
fn a_page_past_the_last_answers_the_recorded_refusal() {
    // Recorded: `page=9` answered 404 (build entry 45). Asked: `page=5` (probe-reads 47), a
    // filtered list's second page past its end; the first page of nothing stays an empty page.
    let served = serve_corpus_app("drf");
    let (answer, _) = call_with_strings(&served, "get_tasks", &[("page", "5")]);
    let (status, live) = live_answer("drf", "probe-reads", 47);
    assert_eq!(
        (answer["status"].as_u64(), &answer["body"]),
        (Some(status), &live),
        "{answer}"
    );
    let (answer, _) = call_with_strings(&served, "get_tasks", &[("status", "done"), ("page", "2")]);
    assert_eq!(answer["status"], 404, "{answer}");
    let (answer, is_error) = call_with_strings(&served, "get_tasks", &[("page", "2")]);
    assert!(!is_error && answer["status"] == 200, "{answer}");
    let (answer, is_error) = call_with_strings(&served, "get_tasks", &[("status", "gone")]);
    assert!(!is_error && answer["status"] == 200, "{answer}");
    assert_eq!(answer["body"]["results"], json!([]), "{answer}");
}

#[test]
fn a_plain_list_after_writes_counts_what_the_state_holds() {
    // The whole project list (4 of 10 a page): after a create its `count` is 5, which the
    // build's read after its create (entry 82) showed, so the create is served.
    let served = serve_corpus_app("drf");
    let created = json!({"code": "WTR", "name": "Water Tower", "budget": 55, "active": false});
    let arguments = with_body(&served, "post_projects", created);
    let (answer, is_error) = served.call("post_projects", arguments);
    assert!(!is_error, "{answer}");
    assert_eq!(answer["body"], live_answer("drf", "probe-crud", 36).1);
    let (answer, is_error) = call_with_strings(&served, "get_projects", &[]);
    assert!(!is_error, "{answer}");
    assert_eq!(answer["body"]["count"], 5, "{answer}");
    assert_eq!(answer["body"]["results"].as_array().map(Vec::len), Some(5));
    // The paged task list (14, 10 a page): after a create its first page is evaluated.
    let created = json!({"title": "Paint the tank", "project": 2, "priority": 3});
    let (answer, is_error) = served.call("post_tasks", with_body(&served, "post_tasks", created));
    assert!(!is_error, "{answer}");
    let (answer, is_error) = call_with_strings(&served, "get_tasks", &[]);
    assert!(!is_error, "{answer}");
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    assert_eq!(answer["body"]["count"], 15, "{answer}");
    assert_eq!(answer["body"]["results"].as_array().map(Vec::len), Some(10));
    assert_eq!(answer["body"]["results"][9]["id"], 10, "{answer}");
    assert_eq!(
        answer["body"]["next"], "http://127.0.0.1:18871/api/tasks/?page=2",
        "{answer}"
    );
}

/// Probe-crud steps 0, 4 and 7: task 15 created in project 2 (assigned to person 1), patched,
/// then put into project 4 (assigned to person 5), each answering as the live application did.
fn create_patch_and_put_task_15(served: &Served) {
    let created = json!({"title": "Test the sprinklers", "status": "doing", "priority": 2, "project": 2, "assignee_id": 1});
    assert_write_answers(served, "post_tasks", None, created, 0);
    let patched = json!({"title": "Test the misters", "due": "2026-12-30"});
    assert_write_answers(served, "patch_tasks_by_task_id", Some("15"), patched, 4);
    let put = json!({"title": "Test the misters", "status": "open", "priority": 1, "project": 4, "assignee_id": 5});
    assert_write_answers(served, "put_tasks_by_task_id", Some("15"), put, 7);
}

#[test]
fn a_limit_offset_previous_steps_one_page_back_as_the_task_pages_tell() {
    // The project list's one `previous` past the first item (offset 1, limit 2) names the
    // first page: a step back stopping at 0, or the first page itself. The task list's pages
    // (`page=3` naming page 2) tell the step, which both lists share
    // (`derive::shared_links`): offset 3 names offset 1, not the first page.
    let served = serve_corpus_app("drf");
    let (answer, is_error) =
        call_with_strings(&served, "get_projects", &[("limit", "2"), ("offset", "3")]);
    assert!(!is_error, "{answer}");
    let previous = answer["body"]["previous"].as_str().unwrap_or_default();
    assert!(
        previous.ends_with("/api/projects/?limit=2&offset=1"),
        "{answer}"
    );
}

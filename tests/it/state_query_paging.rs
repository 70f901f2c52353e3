//! Sorts, searches and pages a list's recorded queries teach, answered from the state for
//! queries the build never sent: a descending sort spelling (`_sort_desc=f`, split by the
//! `field-affixes` stage into the sort term `-f`) on any column; a search established on one
//! list offered on its sibling lists; a keyset cursor (`_next`, `since`) learned with its key
//! field, keeping the members after the one it names; and the envelope members naming a page's
//! position by that cursor (the next page's cursor and link, the last position listed) minted
//! from the state, or the call refused as not modelled when they cannot be, never another
//! query's recorded value. On datasette (sorts, pages, cursors), pouchdb-server (a cursor and
//! the last position) and json-server (search on a sibling list); a sort name holding its field
//! in brackets with the direction as the value (`$sort[title]=-1`, split by `field-affixes` into
//! the sort term `-title`) on FeathersJS, on any field of each list's entities.

use rea_state::model::QueryRole;
use serde_json::{Map, Value};

use crate::state_query_envelope::{arguments, source};
use crate::state_query_grammar::assert_live_answers;
use crate::state_support::{query_model, serve_corpus_app};

const TASKS: &str = "get_tracker_tasks_json";

fn column<'a>(answer: &'a Value, field: &str) -> Vec<&'a Value> {
    answer["body"]["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|row| &row[field])
        .collect()
}

#[test]
fn a_descending_sort_spelling_sorts_any_column_from_the_state() {
    let served = serve_corpus_app("datasette");
    let (whole, _) = served.call(TASKS, Map::new());
    let held = whole["body"]["rows"].as_array().expect("rows").len();
    // Recorded: _sort_desc=priority only. Asked: by title, descending.
    let by_title = arguments(
        &served,
        TASKS,
        "_sort_desc=priority",
        &[("_sort_desc", Some("title"))],
    );
    let (answer, is_error) = served.call(TASKS, by_title);
    assert!(!is_error, "{answer}");
    assert_eq!(source(&answer), Some("state"), "{answer}");
    let titles: Vec<&str> = column(&answer, "title")
        .into_iter()
        .map(|title| title.as_str().expect("a title"))
        .collect();
    assert_eq!(titles.len(), held, "{answer}");
    let mut descending = titles.clone();
    descending.sort_by(|left, right| right.cmp(left));
    assert_eq!(titles, descending, "{answer}");
}

#[test]
fn a_search_reaches_the_sibling_lists() {
    // `q` was recorded on /posts only.
    assert_live_answers("json-server", "get_users", &["GET /users?q=example.test"]);
}

#[test]
fn a_page_names_its_next_page_by_the_cursor_the_state_mints() {
    // Recorded: pages of 5 by id and of 4 by title. Asked: pages of 3 and 2 by id, and of 5
    // descending by priority (cursor `priority,id`), with their `next` and `next_url`.
    assert_live_answers(
        "datasette",
        TASKS,
        &[
            "GET /tracker/tasks.json?_size=3",
            "GET /tracker/tasks.json?_size=3&_next=3",
            "GET /tracker/tasks.json?_size=2&_next=7",
            "GET /tracker/tasks.json?_size=5&_sort_desc=priority",
            "GET /tracker/tasks.json?_size=5&_next=3%2C4&_sort_desc=priority",
        ],
    );
    let served = serve_corpus_app("datasette");
    // A page of all rows: no next page.
    let all = arguments(&served, TASKS, "_size=5", &[("_size", Some("100"))]);
    let (answer, is_error) = served.call(TASKS, all);
    assert!(!is_error, "{answer}");
    assert_eq!(source(&answer), Some("state"), "{answer}");
    assert_eq!(answer["body"]["next"], Value::Null, "{answer}");
    assert_eq!(answer["body"]["next_url"], Value::Null, "{answer}");
    // A sort by a column no row holds leaves the cursor unknown: not modelled, no recording.
    let unknown = arguments(&served, TASKS, "_size=4", &[("_sort", Some("nope"))]);
    let (answer, is_error) = served.call(TASKS, unknown);
    assert!(is_error, "{answer}");
    let code = answer
        .pointer("/error/code")
        .or_else(|| answer.get("code"))
        .and_then(Value::as_str);
    assert_eq!(code, Some("not_modelled"), "{answer}");
}

#[test]
fn a_keyset_cursor_answers_the_pages_after_it_from_the_state() {
    // Recorded: pages of 5 by id (`_next=5`, `_next=10`) and of 4 by title. Asked: the last
    // page of 3 by id, and the last page of 5 descending by priority (cursor `priority,id`).
    assert_live_answers(
        "datasette",
        TASKS,
        &[
            "GET /tracker/tasks.json?_size=3&_next=9",
            "GET /tracker/tasks.json?_size=5&_next=1%2C2&_sort_desc=priority",
        ],
    );
}

#[test]
fn a_keyset_cursor_is_learned_with_its_key_and_the_last_position_minted() {
    let served = serve_corpus_app("pouchdb-server");
    let tool = "get_changes_by_segment_0";
    let model = query_model(&served, tool);
    assert_eq!(
        model.role("since"),
        Some(&QueryRole::After {
            key: "seq".to_owned()
        })
    );
    // The recorded second page: the changes after seq 5, from the state.
    let recorded = arguments(&served, tool, "since=5", &[]);
    let (answer, is_error) = served.call(tool, recorded);
    assert!(!is_error, "{answer}");
    assert_eq!(source(&answer), Some("state"), "{answer}");
    let seqs = change_seqs(&answer);
    assert_eq!(seqs, [6, 7, 8, 9, 10].map(Value::from));
    assert_eq!(answer["body"]["last_seq"], Value::from(10), "{answer}");
    // Another position and size: the changes after seq 7, and the last one listed.
    let other = arguments(
        &served,
        tool,
        "since=5",
        &[("since", Some("7")), ("limit", Some("2"))],
    );
    let (answer, is_error) = served.call(tool, other);
    assert!(!is_error, "{answer}");
    assert_eq!(source(&answer), Some("state"), "{answer}");
    let seqs = change_seqs(&answer);
    assert_eq!(seqs, [8, 9].map(Value::from));
    assert_eq!(answer["body"]["last_seq"], Value::from(9), "{answer}");
}

/// The `seq` of every change a changes feed answer lists.
fn change_seqs(answer: &Value) -> Vec<Value> {
    answer["body"]["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|change| change["seq"].clone())
        .collect()
}

#[test]
fn a_bracketed_sort_field_with_its_direction_sorts_any_field_from_the_state() {
    // Recorded: `$sort[priority]=1`, `$sort[priority]=-1&$sort[title]=1`, `$sort[dueDate]=1`,
    // `$sort[title]=1` paged, on tasks; `$sort[budget]=-1` on projects. Asked: other fields and
    // directions (a null due date last descending), and pages of a descending sort.
    assert_live_answers(
        "feathers",
        "get_tasks",
        &[
            "GET /tasks?$sort[estimate]=-1",
            "GET /tasks?$sort[title]=1",
            "GET /tasks?$sort[dueDate]=-1",
            "GET /tasks?$sort[title]=-1&$limit=6&$skip=6",
        ],
    );
    assert_live_answers("feathers", "get_projects", &["GET /projects?$sort[name]=1"]);
    // Recorded on people: `$sort[name]` only. Asked: by email, a field no list sorted by.
    assert_live_answers("feathers", "get_people", &["GET /people?$sort[email]=1"]);
}

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

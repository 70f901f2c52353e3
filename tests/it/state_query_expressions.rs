//! Query expressions (`rea_state::query_terms`): a parameter whose value is an expression of the
//! application's query language is split by a query-grammar stage into terms whose roles the
//! state learns from the recorded lines, so a probe naming other values, steps and combinations
//! is answered from the state with the live body. On two recorded applications with two
//! languages: TiddlyWiki's filter runs (`filter-steps`) and Directus's JSON filter objects
//! (`json-filter`), whose `_or` groups hold by any branch, as FeathersJS's `$or` groups at the
//! top of the query do (`$or[0][status]=doing`) and LoopBack's plain-word `or` groups inside its
//! nested filter (`filter[where][or][0][status]=doing`), and Flask-REST-JSONAPI's list of
//! `{name, op, val}` conditions (`filter=[{"name":"estimate","op":"ge","val":5}]`)
//! (the Mango `$or` of PouchDB's `_find` bodies is checked in `state_body_queries`). An
//! expression the grammar does not model is refused, never answered with another query's
//! recording.

use rea_plugin_api::contracts::query::QueryRole;
use serde_json::{Map, Value};

use crate::state_query_grammar::{assert_live_answers, probe_arguments, served_with_probes};
use crate::state_support::{Served, input_schema, list_view, recorded_answer};

const TIDDLERS: &str = "get_recipes_default_tiddlers_json";
const TASKS: &str = "get_items_tasks";

#[test]
fn expression_terms_are_learned_from_the_recorded_lines() {
    let (tiddlywiki, _) = served_with_probes("tiddlywiki");
    let model = list_view(&tiddlywiki, TIDDLERS)
        .query
        .clone()
        .expect("a query model");
    // `[tag[Task]]`, `[tag[Task]field:status[open]]`, `[!is[system]!sort[modified]]`, … recorded.
    assert_eq!(
        model.parameters.get("filter:tag"),
        Some(&QueryRole::filter("tags", "token"))
    );
    assert_eq!(
        model.parameters.get("filter:field:status"),
        Some(&QueryRole::filter("fields.status", "eq"))
    );
    assert_eq!(model.parameters.get("filter:sort"), Some(&QueryRole::Sort));
    assert_eq!(
        model.parameters.get("filter:!is"),
        Some(&QueryRole::Inert {
            values: vec!["system".to_owned()]
        })
    );
    assert!(!model.parameters.contains_key("filter"));
    // `filter={"estimate_h": {"_gt": 5}}` recorded: its term is the bracket spelling's.
    let (directus, _) = served_with_probes("directus");
    let model = list_view(&directus, TASKS)
        .query
        .clone()
        .expect("a query model");
    assert_eq!(
        model.parameters.get("filter[estimate_h][_gt]"),
        Some(&QueryRole::filter("estimate_h", "gt"))
    );
    assert!(!model.parameters.contains_key("filter"));
}

#[test]
fn filter_runs_apply_to_values_steps_and_combinations_never_recorded() {
    // Recorded: tag[Task], tag[Contact] with limit[1], !sort[modified], search[quarterly]; never
    // these tags (one with spaces, one no tiddler has), sort[…] on title, limit[2] on Task, has[…].
    assert_live_answers(
        "tiddlywiki",
        TIDDLERS,
        &[
            "GET /recipes/default/tiddlers.json?filter=%5Btag%5BWork%5D%5D",
            "GET /recipes/default/tiddlers.json?filter=%5Btag%5BHome%20and%20Garden%5D%5D",
            "GET /recipes/default/tiddlers.json?filter=%5Btag%5BNonexistent%5D%5D",
            "GET /recipes/default/tiddlers.json?filter=%5B!is%5Bsystem%5D!sort%5Btitle%5D%5D",
            "GET /recipes/default/tiddlers.json?filter=%5B!is%5Bsystem%5Dsearch%5Bpanels%5D%5D",
            "GET /recipes/default/tiddlers.json?filter=%5Btag%5BTask%5Dlimit%5B2%5D%5D",
            "GET /recipes/default/tiddlers.json?filter=%5Bhas%5Bemail%5D%5D",
        ],
    );
}

#[test]
fn json_filters_apply_as_their_bracket_terms() {
    // Recorded: the JSON form with `_gt` only; never `_and`, `_neq` or `_lte` in it.
    assert_live_answers(
        "directus",
        TASKS,
        &[
            "GET /items/tasks?filter=%7B%22_and%22%3A+%5B%7B%22state%22%3A+%7B%22_neq%22%3A+%22done%22%7D%7D%2C+%7B%22estimate_h%22%3A+%7B%22_lte%22%3A+6%7D%7D%5D%7D",
        ],
    );
}

/// Probe 8 of directus: `state = doing OR priority = 5`, in the bracket spelling.
const OR_BRACKETS: &str = "GET /items/tasks?filter%5B_or%5D%5B0%5D%5Bstate%5D%5B_eq%5D=doing&filter%5B_or%5D%5B1%5D%5Bpriority%5D%5B_eq%5D=5";

#[test]
fn an_or_group_holds_by_any_branch() {
    // Recorded: no `_or` in either spelling; the bracket one is probed. Its names are accepted
    // by the tool's schema as a name family the grammar learned from the bracket filters the
    // build recorded, and both spellings list what the live application listed for the group.
    let (directus, probes) = served_with_probes("directus");
    let probe = crate::state_support::probe_with_line(&probes, OR_BRACKETS);
    let (_, live) = recorded_answer(probe);
    let bracket_arguments = probe_arguments(probe);
    assert_eq!(bracket_arguments.len(), 2);
    let schema = input_schema(&directus, TASKS);
    assert!(
        rea_serve::arguments::check(&schema, &bracket_arguments).is_ok(),
        "{schema:?}"
    );
    let bracket = directus.call(TASKS, bracket_arguments);
    let json = call_filter(
        &directus,
        TASKS,
        r#"{"_or": [{"state": {"_eq": "doing"}}, {"priority": {"_eq": 5}}]}"#,
    );
    for (answer, is_error) in [bracket, json] {
        assert!(!is_error, "{answer}");
        assert_eq!(
            answer.pointer("/state/membership").and_then(Value::as_str),
            Some("query"),
            "{answer}"
        );
        assert_eq!(answer.get("body"), Some(&live));
    }
    // A group beside a term every match holds narrows it: only the listed tasks of project 2.
    let (answer, is_error) = call_filter(
        &directus,
        TASKS,
        r#"{"project": {"_eq": 2}, "_or": [{"state": {"_eq": "doing"}}, {"priority": {"_eq": 5}}]}"#,
    );
    assert!(!is_error, "{answer}");
    let listed = |body: &Value| -> Vec<Value> {
        body.pointer("/data")
            .and_then(Value::as_array)
            .expect("a data list")
            .iter()
            .filter(|task| task.get("project") == Some(&Value::from(2)))
            .cloned()
            .collect()
    };
    let narrowed = answer.pointer("/body/data").and_then(Value::as_array);
    assert_eq!(narrowed, Some(&listed(&live)), "{answer}");
    assert!(!listed(&live).is_empty());
}

#[test]
fn an_or_group_at_the_top_of_the_query_holds_by_any_branch() {
    // Recorded: `$or[0][status]=doing&$or[1][priority]=1` (FeathersJS, a group with no filter
    // base). Asked: other fields, an operator in a branch, and a term every match holds beside
    // the group; the names are accepted by the family the recorded group implies.
    let lines = [
        "GET /tasks?$or[0][projectId]=3&$or[1][assigneeId]=2",
        "GET /tasks?status=todo&$or[0][priority]=1&$or[1][estimate][$gte]=8",
    ];
    assert_accepted_and_live("feathers", &lines);
}

#[test]
fn an_or_group_spelled_with_no_sigil_inside_the_filter_holds_by_any_branch() {
    // Recorded: `filter[where][or][0][status]=doing&filter[where][or][1][priority]=1` (LoopBack,
    // the plain word `or` after the filter's `where`, entry 18). Asked: other fields, an
    // operator in a branch, and an equality every match holds beside the group; the names are
    // accepted by the family the recorded group implies, each term playing its name's role
    // outside the group.
    let lines = [
        "GET /tasks?filter[where][or][0][projectId]=3&filter[where][or][1][assigneeId]=2",
        "GET /tasks?filter[where][status]=todo&filter[where][or][0][priority]=1&filter[where][or][1][estimate][gte]=8",
    ];
    assert_accepted_and_live("loopback", &lines);
}

#[test]
fn a_name_family_accepts_group_names_only() {
    // The family is the group spelling the bracket filters take; other bracket names, a group
    // entry that is no index, and a misspelled base stay unknown arguments.
    let (directus, _) = served_with_probes("directus");
    let schema = input_schema(&directus, TASKS);
    let patterns = schema
        .get("patternProperties")
        .and_then(Value::as_object)
        .expect("a name family");
    assert_eq!(
        patterns.keys().collect::<Vec<_>>(),
        vec![r"^filter(\[_(and|or)\]\[[0-9]+\])+(\[[^\[\]]+\])+$"]
    );
    assert_eq!(
        schema.get("additionalProperties"),
        Some(&Value::Bool(false))
    );
    let accepts = |name: &str| {
        let arguments = Map::from_iter([(name.to_owned(), Value::String("1".to_owned()))]);
        rea_serve::arguments::check(&schema, &arguments).is_ok()
    };
    assert!(accepts("filter[_or][0][state][_eq]"));
    assert!(accepts("filter[_and][1][_or][0][priority][_gte]"));
    for name in [
        "filter[_or][x][state][_eq]",
        "filter[_not][0][state][_eq]",
        "filters[_or][0][state][_eq]",
        "filter[_or][0]",
    ] {
        assert!(!accepts(name), "{name}");
    }
    // A grouped name the grammar cannot evaluate is accepted by the schema and refused by the
    // state, never answered with a recording.
    let arguments = Map::from_iter([(
        "filter[_or][0][tasks][_some][assignee][_eq]".to_owned(),
        Value::String("chen".to_owned()),
    )]);
    let (answer, is_error) = directus.call(TASKS, arguments);
    assert!(is_error, "{answer}");
    assert!(answer.get("body").is_none(), "{answer}");
}

/// Calls a list tool with one `filter` argument.
fn call_filter(served: &Served, tool: &str, filter: &str) -> (Value, bool) {
    let mut arguments = Map::new();
    arguments.insert("filter".to_owned(), Value::String(filter.to_owned()));
    served.call(tool, arguments)
}

/// The call's answer is a structured refusal: no recording, no state answer.
fn assert_refused(served: &Served, tool: &str, filter: &str) {
    let (answer, is_error) = call_filter(served, tool, filter);
    assert!(is_error, "{filter} is refused: {answer}");
    let code = answer
        .pointer("/error/code")
        .or_else(|| answer.get("code"))
        .and_then(Value::as_str);
    assert_eq!(code, Some("not_modelled"), "{filter}: {answer}");
    assert!(answer.get("body").is_none(), "{filter}: {answer}");
}

#[test]
fn an_expression_the_grammar_does_not_model_is_refused() {
    let (tiddlywiki, _) = served_with_probes("tiddlywiki");
    // Several runs (title literals); a step no recording used whose only reading is inert; an
    // inert step with an argument never recorded.
    for filter in [
        "[[Buy milk]] [[Bob Marley]]",
        "[all[tiddlers]]",
        "[is[system]]",
        "[!is[shadow]tag[Task]]",
    ] {
        assert_refused(&tiddlywiki, TIDDLERS, filter);
    }
    let (directus, _) = served_with_probes("directus");
    for filter in [
        // A negation, a quantifier over a relation inside a group.
        r#"{"_not": {"state": {"_eq": "doing"}}}"#,
        r#"{"_or": [{"state": {"_eq": "doing"}}, {"tags": {"_some": {"_eq": "infra"}}}]}"#,
        r#"{"state": {"_eq": {"nested": 1}}}"#,
        "{state:",
    ] {
        assert_refused(&directus, TASKS, filter);
    }
}

#[test]
fn a_relational_path_in_a_group_plays_its_role_outside_the_group() {
    // The grammar names no role for `filter[_or][1][project][code][_eq]`; the list learned one
    // for `filter[project][code][_eq]` (the join through the project), which the grouped term
    // plays in its branch. The build's tasks: doing are 2 and 6; project 2 (code MOB) holds 2, 5
    // and 6.
    let (directus, _) = served_with_probes("directus");
    let (answer, is_error) = call_filter(
        &directus,
        TASKS,
        r#"{"_or": [{"state": {"_eq": "doing"}}, {"project": {"code": {"_eq": "MOB"}}}]}"#,
    );
    assert!(!is_error, "{answer}");
    assert_eq!(
        answer.pointer("/state/membership").and_then(Value::as_str),
        Some("query"),
        "{answer}"
    );
    let ids: Vec<&Value> = answer
        .pointer("/body/data")
        .and_then(Value::as_array)
        .expect("a data list")
        .iter()
        .map(|task| &task["id"])
        .collect();
    assert_eq!(ids, [&Value::from(2), &Value::from(5), &Value::from(6)]);
}

/// Each line's arguments pass `get_tasks`'s input schema (the family a recorded group implies
/// accepts their names), and the state answers each as the live application did.
fn assert_accepted_and_live(app: &str, lines: &[&str]) {
    let (served, probes) = served_with_probes(app);
    let schema = input_schema(&served, "get_tasks");
    for line in lines {
        let probe = crate::state_support::probe_with_line(&probes, line);
        let arguments = probe_arguments(probe);
        assert!(
            rea_serve::arguments::check(&schema, &arguments).is_ok(),
            "{line}: {schema:?}"
        );
    }
    assert_live_answers(app, "get_tasks", lines);
}

#[test]
fn filter_lists_apply_as_their_conditions_bracket_terms() {
    // Recorded: `filter=[{"name":"estimate","op":"ge","val":5}]` and `title` `ilike` `%the%`
    // (entries 11, 12). Never `le`, `priority`, nor another pattern: each condition is its
    // bracket filter (`filter[priority][le]`), an operator word read as `lte` where no recording
    // named it, and `ilike` an SQL pattern compared without case.
    let (served, _) = served_with_probes("flask-rest-jsonapi-next");
    let model = list_view(&served, "get_tasks")
        .query
        .clone()
        .expect("a query model");
    assert_eq!(
        model.parameters.get("filter[estimate][ge]"),
        Some(&QueryRole::filter("estimate", "gte"))
    );
    assert_eq!(
        model.parameters.get("filter[title][ilike]"),
        Some(&QueryRole::filter("title", "pattern"))
    );
    assert_live_answers(
        "flask-rest-jsonapi-next",
        "get_tasks",
        &[
            "GET /tasks?filter=%5B%7B%22name%22%3A%22priority%22,%22op%22%3A%22le%22,%22val%22%3A2%7D%5D",
            "GET /tasks?filter=%5B%7B%22name%22%3A%22title%22,%22op%22%3A%22ilike%22,%22val%22%3A%22%25LOG%25%22%7D%5D",
        ],
    );
}

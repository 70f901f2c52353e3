//! A refused operator word or control parameter answers the application's recorded refusal
//! (issue 12, query grammar; `rea_state::operator_refusals`), on two recorded applications:
//!
//! - FeathersJS: the build's `title[$regex]=wall` (entry 49, `400 Invalid query parameter
//!   $regex`, `data: {"$regex": "wall"}`) beside successful bracket operators (`priority[$lt]`,
//!   `status[$in][]`), and `$search=wall` (entry 50, `400 Invalid filter value $search`) beside the
//!   successful controls (`$limit`, `$skip`, `$sort[…]`, `$select[]`): the probe's
//!   `title[$like]=wall` and `$populate=project` answer what the live application answered
//!   (probe-reads entries 53 and 54).
//! - PiccoloCRUD: the build's `priority=2&priority__operator=bigger` (entry 95, plain text `400
//!   Unrecognised __operator argument - bigger`) beside the successful companions `gte`, `lt`,
//!   `lte`, `ne`, `is_null`: another word no call used answers that refusal renamed (no probe
//!   calls one the application refuses).
//!
//! Words the build established or the query grammar reads still answer from the list's view, and
//! a refused call changes nothing.

use serde_json::{Map, Value, json};

use crate::state_support::{
    Served, call_with_strings, input_schema, live_answer, serve_corpus_app,
};

/// Whether the schema the MCP server checks admits the arguments.
fn admits(schema: &Map<String, Value>, pairs: &[(&str, &str)]) -> bool {
    let arguments = crate::state_support::string_arguments(pairs);
    rea_serve::arguments::check(schema, &arguments).is_ok()
}

/// A call's answer, asserted to be no tool error.
fn answered(served: &Served, tool: &str, pairs: &[(&str, &str)]) -> Value {
    let (answer, is_error) = call_with_strings(served, tool, pairs);
    assert!(!is_error, "{pairs:?}: {answer:#}");
    answer
}

/// The task list answers each of `established` from its view (200), and its unfiltered answer is
/// still `before`: the refused calls changed nothing.
fn assert_still_answered(served: &Served, before: &Value, established: &[&[(&str, &str)]]) {
    for pairs in established {
        let answer = answered(served, "get_tasks", pairs);
        assert_eq!(answer["status"], json!(200), "{pairs:?}: {answer:#}");
    }
    assert_eq!(
        &answered(served, "get_tasks", &[]),
        before,
        "a refused call changes nothing"
    );
}

#[test]
fn feathers_answers_its_refusal_of_an_operator_word_and_a_control() {
    let served = serve_corpus_app("feathers");
    let schema = input_schema(&served, "get_tasks");
    for pairs in [[("title[$like]", "wall")], [("$populate", "project")]] {
        assert!(admits(&schema, &pairs), "{pairs:?}: {schema:#?}");
    }
    assert!(!admits(&schema, &[("title[$like", "wall")]));
    let before = answered(&served, "get_tasks", &[]);
    for (pairs, entry) in [
        ([("title[$like]", "wall")], 53),
        ([("$populate", "project")], 54),
    ] {
        let answer = answered(&served, "get_tasks", &pairs);
        let (status, body) = live_answer("feathers", "probe-reads", entry);
        assert_eq!(answer["status"], json!(status), "{pairs:?}: {answer:#}");
        assert_eq!(answer["body"], body, "{pairs:?}: {answer:#}");
    }
    // The value is renamed where the answer spells it.
    let answer = answered(&served, "get_tasks", &[("estimate[$where]", "7")]);
    assert_eq!(answer["status"], json!(400), "{answer:#}");
    assert_eq!(answer["body"]["data"], json!({"$where": "7"}), "{answer:#}");
    // Operators and controls the build established, or the grammar offers, answer from the view.
    assert_still_answered(
        &served,
        &before,
        &[
            &[("priority[$lt]", "2")],
            &[("title[$in][]", "Pour foundation")],
            &[("$limit", "2"), ("$skip", "1")],
        ],
    );
}

#[test]
fn piccolo_answers_its_refusal_of_an_operator_companions_word() {
    let served = serve_corpus_app("piccolo");
    let before = answered(&served, "get_tasks", &[]);
    let answer = answered(
        &served,
        "get_tasks",
        &[("priority", "2"), ("priority__operator", "biggest")],
    );
    assert_eq!(answer["status"], json!(400), "{answer:#}");
    assert_eq!(
        answer["body"],
        json!("Unrecognised __operator argument - biggest"),
        "{answer:#}"
    );
    // A word the build established, and one the query grammar reads (`not_null`), filter as
    // before.
    assert_still_answered(
        &served,
        &before,
        &[
            &[("priority", "2"), ("priority__operator", "gte")],
            &[("due__operator", "not_null")],
        ],
    );
}

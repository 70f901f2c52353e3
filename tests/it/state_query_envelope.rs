//! Envelope members a list query asks for (`meta=total_count,filter_count`, `_extra=count`): a
//! call giving the parameter is answered in the envelope of a recorded line that gave it, with
//! the counts computed from the state where the recordings explain them, and never with another
//! query's recorded value. A member that counts the matches or the whole collection (the
//! recordings never filtered with it) is computed for a call matching the whole collection and
//! refused (not modelled) for a filtered one. On two recorded applications: directus (`meta`)
//! and datasette (`_extra=count`).

use serde_json::{Map, Value};

use crate::state_support::{Served, arguments_of, query_model, serve_corpus_app as served};

/// The arguments of the recorded read of `tool` whose query holds `marker`, with values replaced
/// (typed as the recorded argument) or removed (`None`).
pub(crate) fn arguments(
    served: &Served,
    tool: &str,
    marker: &str,
    changes: &[(&str, Option<&str>)],
) -> Map<String, Value> {
    let record = served
        .records
        .iter()
        .find(|record| {
            record.method.as_deref() == Some("GET")
                && record.query.as_ref().is_some_and(|query| {
                    query
                        .pairs
                        .iter()
                        .flatten()
                        .any(|(name, value)| format!("{name}={value}").contains(marker))
                })
        })
        .unwrap_or_else(|| panic!("a recorded read with {marker}"));
    let mut arguments = arguments_of(&served.replay, tool, record);
    for (name, value) in changes {
        match value {
            None => {
                arguments.remove(*name);
            }
            Some(value) => {
                let typed = match arguments.get(*name) {
                    Some(Value::Number(_)) => Value::Number(value.parse().expect("a number")),
                    _ => Value::String((*value).to_owned()),
                };
                arguments.insert((*name).to_owned(), typed);
            }
        }
    }
    arguments
}

pub(crate) fn source(answer: &Value) -> Option<&str> {
    answer.pointer("/state/source").and_then(Value::as_str)
}

#[test]
fn directus_meta_counts_are_computed_for_another_page() {
    let served = served("directus");
    let tool = "get_items_tasks";
    let model = query_model(&served, tool);
    assert_eq!(
        model.unfiltered_totals,
        vec!["/meta/total_count", "/meta/filter_count"]
    );
    let (whole, _) = served.call(tool, Map::new());
    let held = whole["body"]["data"].as_array().expect("the list").len();
    assert!(held > 8, "{held}");
    // Page 3 of size 4, sorted by id, asking for the counts: recorded only for pages of 3.
    let paged = arguments(
        &served,
        tool,
        "meta=total_count",
        &[
            ("limit", Some("4")),
            ("page", Some("3")),
            ("sort", Some("id")),
        ],
    );
    let (answer, is_error) = served.call(tool, paged);
    assert!(!is_error, "{answer}");
    assert_eq!(source(&answer), Some("state"), "{answer}");
    assert_eq!(
        answer["body"]["meta"],
        serde_json::json!({"total_count": held, "filter_count": held})
    );
    assert_eq!(
        answer["body"]["data"].as_array().map(Vec::len),
        Some((held - 8).min(4))
    );
    // With a filter, which member counts the matches is unknown: not modelled, not a recording.
    let mut filtered = arguments(&served, tool, "meta=total_count", &[]);
    filtered.insert(
        "filter[state][_eq]".to_owned(),
        Value::String("todo".to_owned()),
    );
    let (answer, _) = served.call(tool, filtered);
    assert_ne!(source(&answer), Some("state"), "{answer}");
    assert_ne!(
        answer.pointer("/replay/exact_match"),
        Some(&Value::Bool(true)),
        "{answer}"
    );
}

#[test]
fn datasette_never_shows_another_querys_count() {
    let served = served("datasette");
    let tool = "get_tracker_tasks_json";
    // `_extra=count` was recorded once, with status=doing (count 3); asked with another status.
    let other = arguments(&served, tool, "_extra=count", &[("status", Some("todo"))]);
    let (answer, is_error) = served.call(tool, other);
    assert!(!is_error, "{answer}");
    assert_eq!(source(&answer), Some("state"), "{answer}");
    let rows = answer["body"]["rows"].as_array().expect("rows").len();
    assert_ne!(rows, 3, "a status with another number of tasks: {answer}");
    if let Some(count) = answer["body"].get("count") {
        assert_eq!(count, &Value::from(rows), "{answer}");
    }
}

#[test]
fn datasette_count_of_a_page_listing_every_match_is_computed() {
    // `count` was shown only on the filtered line that listed every match: the number matched or
    // listed, which agree on such a page, so another filter's count is computed.
    let served = served("datasette");
    let tool = "get_tracker_tasks_json";
    let model = query_model(&served, tool);
    assert_eq!(model.complete_totals, vec!["/count".to_owned()]);
    let other = arguments(&served, tool, "_extra=count", &[("status", Some("todo"))]);
    let (answer, is_error) = served.call(tool, other);
    assert!(!is_error, "{answer}");
    let rows = answer["body"]["rows"].as_array().expect("rows").len();
    assert_eq!(answer["body"]["count"], Value::from(rows), "{answer}");
    // The live application's answer to a filter, a descending sort and the count together.
    crate::state_query_grammar::assert_live_answers(
        "datasette",
        tool,
        &["GET /tracker/tasks.json?project=MOB&_sort_desc=priority&_extra=count"],
    );
}

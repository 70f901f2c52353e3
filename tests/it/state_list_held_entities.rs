//! Entities a whole list shows, held for the writes after it: of a type no item view reads, the
//! list's members are what the state holds of its entities, so an entity a write the state could
//! not follow made (and the list first showed) is held from that list by the observation pass and
//! the confirming replay, and a later delete of it is observed and confirmed.
//!
//! optuna-dashboard shows it: its study detail names the study by path only (no item view), the
//! build's rename copies study 4 under the new id 5 (a write the state does not follow) and its
//! `DELETE /api/studies/5` deletes that copy, which only the study list had shown. No other
//! recorded application deletes an entity that only a list showed after a write the state could
//! not follow (their types have item views, or their deletes name entities the reads before the
//! first write showed).

use serde_json::{Map, Value, json};

use crate::state_support::serve_corpus_app;

const DELETE_TOOL: &str = "delete_studies_by_version";
const LIST_TOOL: &str = "get_studies";
const DETAIL_TOOL: &str = "get_studies_by_version";

/// The arguments naming a study id for a tool whose one path parameter is it.
fn study(served: &crate::state_support::Served, tool: &str, id: &str) -> Map<String, Value> {
    let definition = crate::state_support::manifest_tool(served, tool);
    assert_eq!(definition.path_parameters.len(), 1, "{tool}");
    let mut arguments = Map::new();
    arguments.insert(definition.path_parameters[0].name.clone(), json!(id));
    arguments
}

fn listed_ids(answer: &Value) -> Vec<i64> {
    answer["body"]["study_summaries"]
        .as_array()
        .expect("a study list")
        .iter()
        .filter_map(|study| study["study_id"].as_i64())
        .collect()
}

#[test]
fn optuna_deletes_a_study_only_the_list_showed_and_serves_the_delete() {
    let served = serve_corpus_app("optuna_dashboard");
    let state = served.state();
    assert!(
        state.types.iter().all(|known| known.item_view.is_none()),
        "the study detail is no item view"
    );
    let plan = state.write_plan(DELETE_TOOL).expect("a delete plan");
    assert!(plan.served, "{:?}", plan.reason);
    // The recorded delete named study 5, the rename's copy, which only the list read after the
    // rename showed; the whole list read after the delete confirmed it.
    let delete = &served.records[plan.record_ordinals[0] as usize];
    assert_eq!(delete.path.as_deref(), Some("/api/studies/5"));
    let confirming = plan
        .confirmed_by
        .iter()
        .map(|ordinal| &served.records[*ordinal as usize])
        .find(|record| record.path.as_deref() == Some("/api/studies") && record.query.is_none())
        .expect("the study list confirms the delete");
    assert!(confirming.ordinal > delete.ordinal);
    let (before, _) = served.call(LIST_TOOL, Map::new());
    assert_eq!(listed_ids(&before), vec![1, 2, 3]);
    // Served: a seeded study is deleted, the list no longer shows it and its detail answers
    // the build's missing answer.
    let (deleted, is_error) = served.call(DELETE_TOOL, study(&served, DELETE_TOOL, "3"));
    assert!(!is_error, "{deleted}");
    assert_eq!(deleted["status"], 204, "{deleted}");
    assert_eq!(deleted["state"]["view"], "delete", "{deleted}");
    let (after, _) = served.call(LIST_TOOL, Map::new());
    assert_eq!(listed_ids(&after), vec![1, 2]);
    let (detail, is_error) = served.call(DETAIL_TOOL, study(&served, DETAIL_TOOL, "3"));
    assert!(!is_error, "{detail}");
    assert_eq!(detail["status"], 404, "{detail}");
    assert_eq!(
        detail["body"],
        json!({"reason": "study_id=3 is not found"}),
        "{detail}"
    );
    // Deleting it again is no delete the build showed: refused, changing nothing.
    let (again, _) = served.call(DELETE_TOOL, study(&served, DELETE_TOOL, "3"));
    assert_ne!(again["state"]["view"], "delete", "{again}");
    let (unchanged, _) = served.call(LIST_TOOL, Map::new());
    assert_eq!(listed_ids(&unchanged), vec![1, 2]);
}

//! An update copying its entity under a new identity, learned from the build and served: the
//! call names a held entity, its answer shows another entity of the type under an identity the
//! state does not hold, and the list after it no longer lists the original. The copy takes the
//! identity the type's rules generate (`sequence`: one past the largest the collection held, the
//! original included), keeps the original's members but those the call sent, and replaces the
//! original last in the list; a copy storing a value the type's creates were refused for answers
//! that refusal. A later delete of the copy is observed against it.
//!
//! One recorded application shows it: optuna-dashboard's `POST /api/studies/{id}/rename` (the
//! storage copies the study under a new `study_id` and deletes the old one). No other recorded
//! application renames by copying: jupyter's `PATCH` rename keeps its entity's identity (its
//! path), and the others rename in place.

use serde_json::{Map, Value, json};

use crate::state_support::{Served, manifest_tool, serve_corpus_app};

const RENAME_TOOL: &str = "post_studies_rename_by_study_id";
const DELETE_TOOL: &str = "delete_studies_by_version";
const LIST_TOOL: &str = "get_studies";
const DETAIL_TOOL: &str = "get_studies_by_version";

/// The arguments naming a study id for a tool whose one path parameter is it, and a body.
fn study(served: &Served, tool: &str, id: &str, body: Option<Value>) -> Map<String, Value> {
    let definition = manifest_tool(served, tool);
    assert_eq!(definition.path_parameters.len(), 1, "{tool}");
    let mut arguments = Map::new();
    arguments.insert(definition.path_parameters[0].name.clone(), json!(id));
    if let Some(body) = body {
        arguments.insert("body".to_owned(), body);
    }
    arguments
}

fn listed(served: &Served) -> Vec<(i64, String)> {
    let (answer, _) = served.call(LIST_TOOL, Map::new());
    answer["body"]["study_summaries"]
        .as_array()
        .expect("a study list")
        .iter()
        .map(|study| {
            (
                study["study_id"].as_i64().expect("an id"),
                study["study_name"].as_str().expect("a name").to_owned(),
            )
        })
        .collect()
}

#[test]
fn optuna_learns_the_rename_as_a_copy_under_a_new_study_id() {
    let served = serve_corpus_app("optuna_dashboard");
    let plan = served
        .state()
        .write_plan(RENAME_TOOL)
        .expect("a rename plan");
    assert!(plan.served, "{:?}", plan.reason);
    assert!(plan.copies, "{plan:?}");
    // Confirmed by the study list after the build's rename (study 4 gone, 5 listed last).
    let list = plan
        .confirmed_by
        .iter()
        .map(|ordinal| &served.records[*ordinal as usize])
        .find(|record| record.path.as_deref() == Some("/api/studies"))
        .expect("the study list confirms the rename");
    assert!(list.ordinal > plan.record_ordinals[0]);
    let explained: Vec<(&str, &[String])> = plan
        .rules
        .iter()
        .map(|rule| (rule.stage.as_str(), rule.explains.as_slice()))
        .collect();
    assert_eq!(explained, [("sequence", &["/study_id".to_owned()][..])]);
    // The create's refusal of a taken name is the copy's too.
    assert_eq!(
        plan.conflicts
            .iter()
            .map(|conflict| conflict.member.as_str())
            .collect::<Vec<_>>(),
        ["study_name"]
    );
}

#[test]
fn optuna_serves_a_rename_refuses_a_taken_name_and_deletes_the_copy() {
    let served = serve_corpus_app("optuna_dashboard");
    assert_eq!(
        listed(&served),
        [
            (1, "churn-lgbm"),
            (2, "price-forecast"),
            (3, "banner-review")
        ]
        .map(|(id, name)| (id, name.to_owned()))
    );
    let rename = |id: &str, name: &str| {
        served.call(
            RENAME_TOOL,
            study(&served, RENAME_TOOL, id, Some(json!({"study_name": name}))),
        )
    };
    // A copy of study 2 under the next id, its members kept but the name sent.
    let (copied, is_error) = rename("2", "price-forecast-2027");
    assert!(!is_error, "{copied}");
    assert_eq!(copied["status"], 201, "{copied}");
    assert_eq!(
        copied["body"],
        json!({"study_id": 4, "study_name": "price-forecast-2027",
               "directions": ["minimize", "minimize"],
               "user_attrs": [{"key": "team", "value": "finance"}], "is_preferential": false})
    );
    let renamed = [
        (1, "churn-lgbm"),
        (3, "banner-review"),
        (4, "price-forecast-2027"),
    ]
    .map(|(id, name)| (id, name.to_owned()));
    assert_eq!(listed(&served), renamed);
    // The original is gone: its detail answers the build's missing answer.
    let (detail, is_error) = served.call(DETAIL_TOOL, study(&served, DETAIL_TOOL, "2", None));
    assert!(!is_error, "{detail}");
    assert_eq!(detail["status"], 404, "{detail}");
    // A taken name answers the create's recorded refusal, changing nothing.
    let (taken, is_error) = rename("4", "banner-review");
    assert!(!is_error, "{taken}");
    assert_eq!(taken["status"], 400, "{taken}");
    assert_eq!(taken["state"]["view"], "conflict", "{taken}");
    assert_eq!(
        taken["body"],
        json!({"reason": "Study name already exists."})
    );
    assert_eq!(listed(&served), renamed);
    // A missing study is no copy: refused, changing nothing.
    let (missing, _) = rename("2", "fresh-name");
    assert_ne!(missing["status"], 201, "{missing}");
    assert_eq!(listed(&served), renamed);
    // The copy is deleted like any study.
    let (deleted, is_error) = served.call(DELETE_TOOL, study(&served, DELETE_TOOL, "4", None));
    assert!(!is_error, "{deleted}");
    assert_eq!(deleted["status"], 204, "{deleted}");
    assert_eq!(
        listed(&served),
        [(1, "churn-lgbm"), (3, "banner-review")].map(|(id, name)| (id, name.to_owned()))
    );
}

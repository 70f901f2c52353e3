//! A created entity's document composed from the build's read-back (`writes::composed`): the
//! build created a study and read its detail back by id right after, the detail's members
//! either the created study's (`name` from `study_name`, `directions`) or constants (empty
//! trials, the default note). A served create then holds that composition for the study it made,
//! and the keyed detail view answers it; a copy (the rename) composes nothing and stays refused.
//!
//! One recorded application shows it: optuna-dashboard's study detail (`/api/studies/{id}`, a
//! document per study). No other corpus or shared capture reads a keyed document view back after
//! a create (measured: no other build learns a composition).

use serde_json::{Map, Value, json};

use crate::state_support::{Served, live_answer, manifest_tool, serve_corpus_app};

const CREATE_TOOL: &str = "post_studies";
const RENAME_TOOL: &str = "post_studies_rename_by_study_id";
const DETAIL_TOOL: &str = "get_studies_by_version";

/// The arguments naming a study id for a tool whose one path parameter is it, and a body.
fn study(served: &Served, tool: &str, id: Option<&str>, body: Option<Value>) -> Map<String, Value> {
    let definition = manifest_tool(served, tool);
    let mut arguments = Map::new();
    if let Some(id) = id {
        arguments.insert(definition.path_parameters[0].name.clone(), json!(id));
    }
    if let Some(body) = body {
        arguments.insert("body".to_owned(), body);
    }
    arguments
}

#[test]
fn optuna_composes_a_created_studys_detail_as_the_live_app_answers_it() {
    let served = serve_corpus_app("optuna_dashboard");
    let plan = served
        .state()
        .write_plan(CREATE_TOOL)
        .expect("a create plan");
    let composed = plan.composed.as_ref().expect("a composed detail");
    assert_eq!(composed.view, DETAIL_TOOL);
    assert!(
        served
            .state()
            .write_plan(RENAME_TOOL)
            .expect("a rename plan")
            .composed
            .is_none(),
        "a copy composes nothing"
    );
    // Before any write, study 4 is missing.
    let (missing, _) = served.call(DETAIL_TOOL, study(&served, DETAIL_TOOL, Some("4"), None));
    assert_eq!(missing["status"], 404, "{missing}");
    // The probe's create (entry 0), then its read-back (entry 1): the live answer.
    let body = json!({"study_name": "latency-vs-cost", "directions": ["minimize", "minimize"]});
    let (created, is_error) =
        served.call(CREATE_TOOL, study(&served, CREATE_TOOL, None, Some(body)));
    assert!(!is_error, "{created}");
    assert_eq!(created["body"]["study_summary"]["study_id"], 4, "{created}");
    let (detail, is_error) = served.call(DETAIL_TOOL, study(&served, DETAIL_TOOL, Some("4"), None));
    assert!(!is_error, "{detail}");
    let (status, live) = live_answer("optuna_dashboard", "probe-crud", 1);
    assert_eq!(detail["status"], status, "{detail}");
    assert_eq!(detail["body"], live, "{detail}");
    // Its trials sliced from an index (`after`, learned on study 1) answer from the same
    // document: none yet.
    let mut after = study(&served, DETAIL_TOOL, Some("4"), None);
    after.insert("after".to_owned(), json!("0"));
    let (sliced, is_error) = served.call(DETAIL_TOOL, after);
    assert!(!is_error, "{sliced}");
    assert_eq!(sliced["body"]["name"], "latency-vs-cost", "{sliced}");
    assert_eq!(sliced["body"]["trials"], json!([]), "{sliced}");
    // A copy's detail is not composed: its trials would be the original's, which no read shows.
    let (copied, is_error) = served.call(
        RENAME_TOOL,
        study(
            &served,
            RENAME_TOOL,
            Some("2"),
            Some(json!({"study_name": "copy"})),
        ),
    );
    assert!(!is_error, "{copied}");
    let id = copied["body"]["study_id"].to_string();
    let (copy, _) = served.call(DETAIL_TOOL, study(&served, DETAIL_TOOL, Some(&id), None));
    assert_ne!(copy["body"]["name"], "copy", "{copy}");
}

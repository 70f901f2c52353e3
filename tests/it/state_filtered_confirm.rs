//! An update confirmed by a filtered list read (`writes/confirm.rs`): the confirming replay reads
//! with the pipeline's query grammars, so a read whose query a grammar splits into filter terms
//! is evaluated over the replayed state as served, and confirms the writes of the entities it
//! lists when it agrees. PiccoloCRUD's project `PUT` answered 204 with no body and only the list
//! filtered by a companion operator after it (`budget=60&budget__operator=gte`, build entry 90)
//! showed its effect; Sails' project `PATCH` (entry 97) is followed by the list filtered by a
//! `where` criteria (`{"budget":{">":50}}`, entry 98). A read the applied write does not reproduce
//! still contradicts the write: the piccolo build with entry 90 showing another budget withholds
//! the `PUT`.

use serde_json::{Map, Value, json};

use rea_state::writes::model::WritePlan;

use crate::state_support::{
    Served, call_with_strings, capture_file, corpus_dir, id_arguments, live_answer,
    serve_corpus_app, serve_evidence, state_rules, with_body, write_plan,
};
use rea_backends::fetch::FetchOptions;

/// Calls a tool, asserting it answered without a tool error.
fn called(served: &Served, tool: &str, arguments: Map<String, Value>) -> Value {
    let (answer, is_error) = served.call(tool, arguments);
    assert!(!is_error, "{tool}: {answer}");
    answer
}

fn assert_served(plan: &WritePlan) {
    assert!(plan.served, "{}: {:?}", plan.tool, plan.reason);
}

#[test]
fn a_piccolo_put_confirmed_by_an_operator_filtered_list_is_served() {
    // probe-crud 34-38: the project WTR created at a budget of 55, put to 70, then listed by the
    // budget filter with its companion operator.
    let served = serve_corpus_app("piccolo");
    assert_served(write_plan(&served, "put_projects_by_project_id"));
    let project = json!({"code": "WTR", "name": "Water Tower", "budget": 55, "active": false});
    called(
        &served,
        "post_projects",
        with_body(&served, "post_projects", project),
    );
    let put = json!({"code": "WTR", "name": "Water Tower", "budget": 70, "active": true});
    let mut arguments = with_body(&served, "put_projects_by_project_id", put);
    arguments.extend(id_arguments(&served, "put_projects_by_project_id", "5"));
    let answer = called(&served, "put_projects_by_project_id", arguments);
    assert_eq!(
        answer["status"],
        live_answer_status("piccolo", 37),
        "{answer}"
    );
    let (listed, is_error) = call_with_strings(
        &served,
        "get_projects",
        &[("budget", "70"), ("budget__operator", "gte")],
    );
    assert!(!is_error, "{listed}");
    assert_eq!(listed["state"]["source"], "state", "{listed}");
    assert_eq!(
        listed["body"],
        live_answer("piccolo", "probe-crud", 38).1,
        "{listed}"
    );
}

/// The status the live application answered a probe-crud entry with (its body may be empty).
fn live_answer_status(app: &str, entry: usize) -> u64 {
    let path = corpus_dir(app).join("probe-crud.har");
    let har: Value = serde_json::from_slice(&std::fs::read(path).expect("the probe")).unwrap();
    har["log"]["entries"][entry]["response"]["status"]
        .as_u64()
        .expect("a status")
}

#[test]
fn a_sails_patch_confirmed_by_a_where_filtered_list_is_served() {
    let served = serve_corpus_app("sails");
    assert_served(write_plan(&served, "patch_project_by_id"));
    // Project 3 (Ferry Ramp) held a budget of 45: patched to 95, the list of budgets over 50
    // lists it with the new budget.
    let mut arguments = with_body(&served, "patch_project_by_id", json!({"budget": 95}));
    arguments.extend(id_arguments(&served, "patch_project_by_id", "3"));
    called(&served, "patch_project_by_id", arguments);
    let criteria = r#"{"budget":{">":50}}"#;
    let (listed, is_error) = call_with_strings(&served, "get_project", &[("where", criteria)]);
    assert!(!is_error, "{listed}");
    assert_eq!(listed["state"]["source"], "state", "{listed}");
    let budgets: Vec<(Value, Value)> = listed["body"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|project| (project["id"].clone(), project["budget"].clone()))
        .collect();
    assert!(budgets.contains(&(json!(3), json!(95))), "{budgets:?}");
    assert!(
        budgets.iter().all(|(_, budget)| budget.as_i64() > Some(50)),
        "{budgets:?}"
    );
}

#[test]
fn a_filtered_list_the_applied_put_does_not_reproduce_withholds_it() {
    // The piccolo build with entry 90 (the budget filter after the `PUT`) listing project 5
    // last, where the application orders by descending id (as every recorded list did): the
    // replayed `PUT` leaves the values the read shows, but the state lists project 5 first, so
    // the read contradicts the write.
    let build = corpus_dir("piccolo").join("build.har");
    let mut har: Value = serde_json::from_slice(&std::fs::read(&build).expect("build")).unwrap();
    let content = &mut har["log"]["entries"][90]["response"]["content"];
    let mut listed: Value =
        serde_json::from_str(content["text"].as_str().expect("a body")).unwrap();
    let rows = listed["rows"].as_array_mut().expect("rows");
    assert_eq!(rows[0]["id"], 5, "{rows:?}");
    rows.rotate_left(1);
    content["text"] = json!(listed.to_string());
    let dir = tempfile::tempdir().expect("temp dir");
    let tampered = dir.path().join("build.har");
    std::fs::write(&tampered, har.to_string()).expect("the tampered build");
    let served = serve_evidence(
        capture_file(&tampered),
        state_rules(),
        FetchOptions::default(),
    );
    let plan = write_plan(&served, "put_projects_by_project_id");
    assert!(!plan.served, "{plan:?}");
    assert_eq!(plan.reason.as_deref(), Some("contradicted"), "{plan:?}");
    assert_eq!(plan.contradicted_by, Some(90), "{plan:?}");
}

//! A create's recorded refusal of a set of left-out members (`writes/omitted_set.rs`, issue 12):
//! a create whose body leaves out every required member a recorded refusal's answer named
//! answers that refusal, changing nothing, and the input schema lets such a call reach it. Two
//! apps: Fortune.js (build entry 93: a task create whose `attributes` held no `title` answered
//! 400 `A task needs a title.`; probe-crud 53 sends no `relationships` either) and PiccoloCRUD
//! (build entry 94: a task create sending only `priority` answered pydantic's plain text naming
//! `title` and `project` and spelling the input, `input_value={'priority': 3}`; probe-crud 46
//! sends `{"status": "open"}`, answered with its own input spelled so).

use serde_json::{Map, Value, json};

use crate::state_support::{
    Served, corpus_dir, input_schema, live_answer, serve_corpus_app, with_body, write_plan,
};

/// A probe step's live status and recorded body text.
fn live_text(app: &str, probe: &str, entry: usize) -> (u64, String) {
    let path = corpus_dir(app).join(format!("{probe}.har"));
    let har: Value = serde_json::from_slice(&std::fs::read(&path).expect("the probe HAR"))
        .expect("the probe HAR is JSON");
    let response = &har["log"]["entries"][entry]["response"];
    let text = response["content"]["text"].as_str().expect("a kept body");
    (
        response["status"].as_u64().expect("a status"),
        text.to_owned(),
    )
}

/// The body a list tool answers with no arguments.
fn listed(served: &Served, tool: &str) -> Value {
    let (answer, is_error) = served.call(tool, Map::new());
    assert!(!is_error, "{tool}: {answer:#}");
    answer["body"].clone()
}

/// Calls a create with `body`, asserting the input schema admits it, and returns the answer and
/// whether it is a tool error.
fn create(served: &Served, tool: &str, body: Value) -> (Value, bool) {
    let arguments = with_body(served, tool, body);
    let schema = input_schema(served, tool);
    assert!(
        rea_serve::arguments::check(&schema, &arguments).is_ok(),
        "{tool}: {schema:#?}"
    );
    served.call(tool, arguments)
}

#[test]
fn a_fortune_task_without_a_title_answers_the_recorded_refusal() {
    let served = serve_corpus_app("fortune");
    let plan = write_plan(&served, "post_tasks");
    let members: Vec<&[String]> = plan
        .omitted_sets
        .iter()
        .map(|set| set.members.as_slice())
        .collect();
    assert_eq!(members, [["attributes/title".to_owned()]], "{plan:#?}");
    let before = listed(&served, "get_tasks");
    // probe-crud 53: no title and no relationships.
    let body = json!({"data": {"type": "tasks", "attributes": {"estimate": 2}}});
    let (answer, is_error) = create(&served, "post_tasks", body);
    assert!(!is_error, "{answer:#}");
    let (status, live) = live_answer("fortune", "probe-crud", 53);
    assert_eq!(answer["status"], json!(status), "{answer:#}");
    assert_eq!(answer["body"], live, "{answer:#}");
    assert_eq!(
        listed(&served, "get_tasks"),
        before,
        "a refusal changes nothing"
    );
    // A title sent: the call is checked as before (the state still requires `relationships`).
    let titled = json!({"data": {"type": "tasks", "attributes": {"title": "Moor"}}});
    let (answer, is_error) = create(&served, "post_tasks", titled);
    assert!(is_error, "{answer:#}");
    assert_eq!(listed(&served, "get_tasks"), before);
}

#[test]
fn a_piccolo_task_without_title_and_project_answers_its_input_spelled() {
    let served = serve_corpus_app("piccolo");
    let plan = write_plan(&served, "post_tasks");
    let [set] = plan.omitted_sets.as_slice() else {
        panic!("one learned set: {plan:#?}");
    };
    assert_eq!(set.members, ["project", "title"]);
    let spelling = set.spelling.as_ref().expect("the answer spells the input");
    assert_eq!(spelling.recorded, "{'priority': 3}");
    let schema = input_schema(&served, "post_tasks");
    assert_eq!(
        schema["properties"]["body"].get("required"),
        None,
        "{schema:#?}"
    );
    let before = listed(&served, "get_tasks");
    let (answer, is_error) = create(&served, "post_tasks", json!({"status": "open"}));
    assert!(!is_error, "{answer:#}");
    let (status, live) = live_text("piccolo", "probe-crud", 46);
    assert_eq!(answer["status"], json!(status), "{answer:#}");
    assert_eq!(answer["body"], json!(live), "{answer:#}");
    assert_eq!(
        listed(&served, "get_tasks"),
        before,
        "a refusal changes nothing"
    );
}

#[test]
fn a_piccolo_call_the_refusal_does_not_fit_is_refused_by_the_state() {
    let served = serve_corpus_app("piccolo");
    let before = listed(&served, "get_tasks");
    for body in [
        // Only one of the two named members left out: the application's text would differ.
        json!({"project": 1, "status": "open"}),
        // A value the recorded spelling never showed spelled (a quote).
        json!({"status": "it's open"}),
        json!({"status": "open", "priority": 2.5}),
    ] {
        let (answer, is_error) = create(&served, "post_tasks", body.clone());
        assert!(is_error, "{body}: {answer:#}");
        let code = answer
            .pointer("/error/code")
            .or_else(|| answer.get("code"))
            .and_then(Value::as_str);
        assert_eq!(code, Some("invalid_arguments"), "{body}: {answer:#}");
    }
    assert_eq!(listed(&served, "get_tasks"), before);
}

//! Row pages and action routes. A read answering its entity as the one item of an array
//! (`{"rows": [{…}]}`, a row page) is an item view of the type its list reads (its envelope
//! renamed for the row it holds: `primary_key_values`), and a list read
//! whose path carries a representation suffix (`/db/tasks.json`) lists the collection without it;
//! an untyped `POST` naming an entity in a parameter segment followed by verb segments
//! (`/{table}/{pk}/-/update`, `/-/delete`) updates or deletes that entity when the reads after
//! its calls name it. On datasette (recorded so) and on json-server recorded again in datasette's
//! conventions (item answers wrapped in `rows`, `PATCH` and `DELETE` of an item sent as `POST`s
//! to `/-/update` and `/-/delete`: the recording rewritten). Which routes are action routes is a
//! route-form stage's answer (`listed-id`'s `actions`): a pipeline without it learns none.

use serde_json::{Map, Value, json};

use crate::state_support;
use state_support::{
    Served, capture_file, pipeline_rules, serve_corpus_app, serve_evidence, state_rules,
};

fn arguments(pairs: &[(&str, &str)]) -> Map<String, Value> {
    pairs
        .iter()
        .map(|(name, value)| ((*name).to_owned(), json!(value)))
        .collect()
}

/// A tool's item view: `(type, entity pointer)`.
fn item_view(served: &Served, tool: &str) -> (String, String) {
    match state_support::view_detail(served, tool) {
        rea_state::model::ViewDetail::Item(item) => {
            (item.entity_type.clone(), item.entity_pointer.clone())
        }
        other => panic!("{tool} is not an item view: {other:?}"),
    }
}

/// A write tool's plan: `(served, effect, type, reason)`.
fn plan(served: &Served, tool: &str) -> (bool, String, Option<String>, Option<String>) {
    let plan = served
        .state()
        .write_plans
        .iter()
        .find(|plan| plan.tool == tool)
        .unwrap_or_else(|| panic!("{tool} has a plan"));
    (
        plan.served,
        plan.effect.name().to_owned(),
        plan.target
            .as_ref()
            .and_then(|target| target.entity_type.clone()),
        plan.reason.clone(),
    )
}

/// The tool whose path template is `template` (the manifest names tools by their templates).
fn tool_of(served: &Served, method: &str, template: &str) -> String {
    served
        .manifest
        .tools
        .iter()
        .find(|tool| tool.method == method && tool.path_template == template)
        .unwrap_or_else(|| panic!("a tool {method} {template}"))
        .name
        .clone()
}

#[test]
fn a_row_page_is_an_item_view_of_the_type_its_list_reads() {
    let served = serve_corpus_app("datasette");
    let rows = tool_of(&served, "GET", "/tracker/{prefix-variance}/{numeric}.json");
    let (entity_type, pointer) = item_view(&served, &rows);
    assert_eq!(pointer, "/rows/0");
    let list = state_support::list_view(&served, "get_tracker_tasks_json");
    assert_eq!(list.entity_type, entity_type, "one type for rows and list");
    // Task 7 was listed but never read by id: its row page renders from the state.
    let (answer, is_error) = served.call(&rows, arguments(&[("tracker_id", "tasks"), ("id", "7")]));
    assert!(!is_error, "{answer}");
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    assert_eq!(answer["body"]["rows"][0]["id"], 7, "{answer}");
    assert_eq!(answer["body"]["rows"][0]["title"], "Design app icon");
    assert_eq!(answer["body"]["rows"].as_array().map(Vec::len), Some(1));
    // The envelope names the row it holds, not the row it was recorded for.
    assert_eq!(
        answer["body"]["primary_key_values"],
        json!(["7"]),
        "{answer}"
    );
    assert_eq!(answer["body"]["table"], "tasks", "{answer}");
    // A row the state does not hold answers the build's missing-row 404.
    let (answer, _) = served.call(&rows, arguments(&[("tracker_id", "tasks"), ("id", "999")]));
    assert_eq!(answer["status"], 404, "{answer}");
    assert_eq!(answer["body"]["error"], "Row not found", "{answer}");
}

#[test]
fn datasette_action_routes_act_on_the_row_their_path_names() {
    let served = serve_corpus_app("datasette");
    let update = tool_of(
        &served,
        "POST",
        "/tracker/{prefix-variance}/{numeric}/-/update",
    );
    let delete = tool_of(
        &served,
        "POST",
        "/tracker/{prefix-variance}/{numeric}/-/delete",
    );
    let rows = tool_of(&served, "GET", "/tracker/{prefix-variance}/{numeric}.json");
    let (entity_type, _) = item_view(&served, &rows);
    for (tool, effect) in [(&update, "update"), (&delete, "delete")] {
        let (_, learned, target, reason) = plan(&served, tool);
        assert_eq!(learned, effect, "{tool}");
        assert_eq!(target.as_ref(), Some(&entity_type), "{tool}");
        assert_ne!(reason.as_deref(), Some("no-state-target"), "{tool}");
    }
}

/// json-server's build rewritten in datasette's conventions (see the module docs).
fn row_page_json_server(folder: &std::path::Path) -> std::path::PathBuf {
    let source = state_support::capture_path("json-server/build.har");
    let mut har: Value = serde_json::from_slice(&std::fs::read(source).unwrap()).unwrap();
    for entry in har["log"]["entries"].as_array_mut().expect("entries") {
        let url = entry["request"]["url"].as_str().expect("a url").to_owned();
        let (origin, path) = url.split_at(url.find("/posts").unwrap_or(url.len()));
        let item = path
            .strip_prefix("/posts/")
            .is_some_and(|id| !id.is_empty() && id.bytes().all(|byte| byte.is_ascii_digit()));
        if !item {
            continue;
        }
        let method = entry["request"]["method"].as_str().unwrap_or("").to_owned();
        match method.as_str() {
            "GET" if entry["response"]["status"] == 200 => {
                let content = &mut entry["response"]["content"];
                let text = content["text"].as_str().expect("a body");
                let row: Value = serde_json::from_str(text).expect("JSON");
                content["text"] = json!(json!({"ok": true, "rows": [row]}).to_string());
            }
            "PATCH" | "DELETE" => {
                let verb = if method == "PATCH" {
                    "update"
                } else {
                    "delete"
                };
                entry["request"]["method"] = json!("POST");
                entry["request"]["url"] = json!(format!("{origin}{path}/-/{verb}"));
            }
            _ => {}
        }
    }
    let written = folder.join("build.har");
    std::fs::write(&written, serde_json::to_vec(&har).unwrap()).unwrap();
    written
}

#[test]
fn action_routes_serve_updates_and_deletes_of_the_row_their_path_names() {
    let folder = tempfile::tempdir().unwrap();
    let capture = capture_file(&row_page_json_server(folder.path()));
    let served = serve_evidence(capture, state_rules(), Default::default());
    let read = tool_of(&served, "GET", "/posts/{numeric}");
    assert_eq!(
        item_view(&served, &read),
        ("/posts".into(), "/rows/0".into())
    );
    let update = tool_of(&served, "POST", "/posts/{numeric}/-/update");
    let delete = tool_of(&served, "POST", "/posts/{numeric}/-/delete");
    assert_eq!(
        plan(&served, &update),
        (true, "update".into(), Some("/posts".into()), None)
    );
    assert_eq!(
        plan(&served, &delete),
        (true, "delete".into(), Some("/posts".into()), None)
    );
    // A POST creating a child under an item path stays a create.
    let child = tool_of(&served, "POST", "/posts/{numeric}/comments");
    assert_eq!(plan(&served, &child).1, "create");
    // Served: the row the path names changes, then is gone.
    let post = |id: &str| arguments(&[("id", id)]);
    let action = |id: &str| arguments(&[("post_id", id)]);
    let mut sent = action("1");
    sent.insert("body".into(), json!({"title": "Renamed by an action"}));
    let (answer, is_error) = served.call(&update, sent);
    assert!(!is_error, "{answer}");
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    let (after, _) = served.call(&read, post("1"));
    assert_eq!(after["body"]["rows"][0]["title"], "Renamed by an action");
    let (answer, is_error) = served.call(&delete, action("1"));
    assert!(!is_error, "{answer}");
    let (after, _) = served.call(&read, post("1"));
    assert_eq!(after["status"], 404, "{after}");
}

#[test]
fn action_routes_are_what_a_route_form_stage_names() {
    // The same recording, with a pipeline whose route forms leave out `listed-id` (the built-in
    // stage answering which write routes are action routes): the routes stay creates their calls
    // cannot link, withheld.
    let folder = tempfile::tempdir().unwrap();
    let default_forms = rea_pipeline::DEFAULT_PIPELINE
        .lines()
        .find(|line| line.starts_with("route_forms = "))
        .expect("the default route forms");
    let without = default_forms.replace(r#""listed-id", "#, "");
    assert_ne!(without, default_forms, "listed-id is a default route form");
    let text = rea_pipeline::DEFAULT_PIPELINE.replace(default_forms, &without);
    let pipeline = folder.path().join("pipeline.toml");
    std::fs::write(&pipeline, text).unwrap();
    let capture = capture_file(&row_page_json_server(folder.path()));
    let served = serve_evidence(capture, pipeline_rules(Some(&pipeline)), Default::default());
    for template in ["/posts/{numeric}/-/update", "/posts/{numeric}/-/delete"] {
        let tool = tool_of(&served, "POST", template);
        let (served_plan, effect, _, reason) = plan(&served, &tool);
        assert_eq!(
            (served_plan, effect.as_str()),
            (false, "create"),
            "{template}: {reason:?}"
        );
    }
}

#[test]
fn a_datasette_row_update_sends_the_row_in_an_envelope_beside_its_options() {
    // `{"update": {…}, "return": true}` and `{"update": {…}}`: the members sit in `update`, and
    // `return` is an option beside it that stores nothing (a boolean, never required).
    let served = serve_corpus_app("datasette");
    let update = tool_of(
        &served,
        "POST",
        "/tracker/{prefix-variance}/{numeric}/-/update",
    );
    let plan = served.state().write_plan(&update).cloned().expect("a plan");
    let body = plan.body.as_ref().expect("a body model");
    assert_eq!(body.envelope, "/update");
    for member in ["priority", "status"] {
        assert!(body.members.contains_key(member), "{member}");
    }
    for outside in ["update", "return"] {
        assert!(!body.members.contains_key(outside), "{outside}");
    }
    assert_eq!(body.options.keys().collect::<Vec<_>>(), vec!["return"]);
    assert_eq!(body.options["return"].types, vec!["boolean".to_owned()]);
    assert!(!body.options["return"].required);
    // What the calls sent in the envelope is stored as sent: no member is left unexplained.
    assert_ne!(plan.reason.as_deref(), Some("unexplained-change"));
}

#[test]
fn a_datasette_row_update_is_served_and_answers_as_the_calls_sending_its_options_did() {
    // The row pages carry `query_ms`, the server's measured query time, which each answer mints:
    // the confirmation sets it aside as the row page's verification did, so the read after the
    // first update (record 37) confirms it. The projects row page was read once before its
    // first write; it answers in the envelope of the tasks row pages, which showed `query_ms`
    // varying.
    let served = serve_corpus_app("datasette");
    let update = tool_of(
        &served,
        "POST",
        "/tracker/{prefix-variance}/{numeric}/-/update",
    );
    let projects = tool_of(&served, "POST", "/tracker/projects/{fused-affix}/-/update");
    for tool in [&update, &projects] {
        let (served_plan, effect, _, reason) = plan(&served, tool);
        assert_eq!(
            (served_plan, effect.as_str(), reason),
            (true, "update", None)
        );
    }
    // With `return: true` the recorded call answered the row; without it, `{"ok": true}`.
    let rows = tool_of(&served, "GET", "/tracker/{prefix-variance}/{numeric}.json");
    let row = |id: &str| arguments(&[("tracker_id", "tasks"), ("id", id)]);
    let call = |id: &str, body: Value| {
        let mut sent = arguments(&[("tracker_id", "tasks"), ("segment_2", id)]);
        sent.insert("body".into(), body);
        served.call(&update, sent)
    };
    let (answer, is_error) = call("7", json!({"update": {"status": "done"}, "return": true}));
    assert!(!is_error, "{answer}");
    assert_eq!(answer["body"]["rows"][0]["status"], "done", "{answer}");
    assert_eq!(answer["body"]["rows"][0]["id"], 7, "{answer}");
    let (answer, is_error) = call(
        "7",
        json!({"update": {"status": "todo", "assignee": "ana"}}),
    );
    assert!(!is_error, "{answer}");
    assert_eq!(answer["body"], json!({"ok": true}), "{answer}");
    let (after, _) = served.call(&rows, row("7"));
    assert_eq!(after["body"]["rows"][0]["status"], "todo", "{after}");
    assert_eq!(after["body"]["rows"][0]["assignee"], "ana", "{after}");
    // `return: false` no recorded call sent: its answer is not known, so the call is refused
    // and changes nothing.
    let (answer, is_error) = call("7", json!({"update": {"status": "done"}, "return": false}));
    assert!(is_error, "{answer}");
    let (after, _) = served.call(&rows, row("7"));
    assert_eq!(after["body"]["rows"][0]["status"], "todo", "{after}");
}

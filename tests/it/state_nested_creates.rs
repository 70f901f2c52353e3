//! Creates with defaults and members composed from the generated id nested below the top level
//! (issue 12, write learning), on real recordings: safrs's task, project and user creates are
//! served (the defaults a create did not send, nested under `attributes`, and the links built
//! from the generated id, nested under `links` and `relationships`), a served update's answer
//! names the written resource beside it (its top-level `links.self`), a taken value nested in
//! the sent object is refused as the build showed (`attributes.code`), the user delete clears
//! the `assignee_id` nested in the tasks naming the user, a project a task names refuses its
//! delete, and a `type` other than the collection's is refused naming both. Roundup is the
//! second app of the defaults rule: its issue create's `status`, left out by the second create,
//! is a default.

use serde_json::{Map, Value, json};

use crate::state_support::{serve_corpus_app, string_arguments as args, write_plan as plan};

fn with_body(pairs: &[(&str, &str)], body: Value) -> Map<String, Value> {
    let mut arguments = args(pairs);
    arguments.insert("body".into(), body);
    arguments
}

#[test]
fn the_creates_are_served_with_their_nested_defaults_and_composed_links() {
    let served = serve_corpus_app("safrs");
    for tool in [
        "post_tasks",
        "post_projects",
        "post_users",
        "delete_users_by_id",
    ] {
        let plan = plan(&served, tool);
        assert!(plan.served, "{tool}: {:?}", plan.reason);
    }
    let tasks = plan(&served, "post_tasks");
    let fields = tasks.fields.as_ref().expect("a field model");
    // Defaults: what the second create did not send and the first did.
    assert_eq!(
        fields.nested_constants.get("/attributes/status"),
        Some(&rea_plugin_api::json::Json::String("todo".into()))
    );
    assert!(fields.nested_constants.contains_key("/attributes/priority"));
    // Composed: the links nested below the top level, built from the generated id.
    let composed = tasks
        .rules
        .iter()
        .find(|rule| rule.stage == "composed")
        .expect("a composed rule");
    assert!(composed.explains.contains(&"/links/self".to_owned()));
    assert!(
        composed
            .explains
            .contains(&"/relationships/project/links/self".to_owned())
    );
    // Served: a create sending only a title and a project.
    let sent = json!({"data": {"type": "Task", "attributes": {"title": "Plan the move", "project_id": 3}}});
    let (answer, is_error) = served.call("post_tasks", with_body(&[], sent));
    assert!(!is_error, "{answer:#}");
    let data = &answer["body"]["data"];
    let id = data["id"].as_str().expect("an id");
    assert_eq!(data["attributes"]["status"], "todo", "{answer:#}");
    assert_eq!(data["attributes"]["priority"], 2);
    assert_eq!(data["attributes"]["estimate"], Value::Null);
    assert_eq!(data["links"]["self"], format!("/api/tasks/{id}/"));
    assert_eq!(
        data["relationships"]["project"]["links"]["self"],
        format!("/api/tasks/{id}/project")
    );
    // The answer's own `links.self` names the created task, not the recorded one.
    assert_eq!(answer["body"]["links"]["self"], format!("/api/tasks/{id}/"));
}

#[test]
fn an_update_answer_names_the_written_resource_beside_it() {
    let served = serve_corpus_app("safrs");
    let sent = json!({"data": {"type": "Task", "id": "3", "attributes": {"status": "done"}}});
    let (answer, is_error) = served.call("patch_tasks_by_id", with_body(&[("id", "3")], sent));
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer["body"]["data"]["links"]["self"], "/api/tasks/3/");
    assert_eq!(
        answer["body"]["links"]["self"], "/api/tasks/3/",
        "{answer:#}"
    );
}

#[test]
fn a_taken_code_nested_in_the_sent_object_is_refused_and_the_type_is_no_conflict() {
    let served = serve_corpus_app("safrs");
    let conflicts: Vec<&str> = plan(&served, "post_projects")
        .conflicts
        .iter()
        .map(|conflict| conflict.member.as_str())
        .collect();
    assert_eq!(conflicts, ["/attributes/code"]);
    let taken =
        json!({"data": {"type": "Project", "attributes": {"code": "WEB", "name": "Again"}}});
    let (answer, _) = served.call("post_projects", with_body(&[], taken));
    assert_eq!(answer["status"], 409, "{answer:#}");
    let fresh =
        json!({"data": {"type": "Project", "attributes": {"code": "QA", "name": "Quality"}}});
    let (answer, is_error) = served.call("post_projects", with_body(&[], fresh));
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer["body"]["data"]["attributes"]["status"], "active");
}

#[test]
fn the_user_delete_clears_the_nested_assignee_of_its_tasks() {
    let served = serve_corpus_app("safrs");
    let delete = plan(&served, "delete_users_by_id");
    let effects = delete
        .rules
        .iter()
        .find(|rule| rule.stage == "dependents")
        .map(|rule| rule.rule.to_canonical_string())
        .expect("a dependents rule");
    assert!(effects.contains("/attributes/assignee_id"), "{effects}");
    // User 2 is assigned task 3 in the seed.
    let (before, _) = served.call("get_tasks_by_id", args(&[("id", "3")]));
    let assignee = before["body"]["data"]["attributes"]["assignee_id"].clone();
    assert_ne!(assignee, Value::Null, "{before:#}");
    let user = assignee.to_string();
    let (answer, is_error) = served.call(
        "delete_users_by_id",
        args(&[("id", user.trim_matches('"'))]),
    );
    assert!(!is_error, "{answer:#}");
    let (after, _) = served.call("get_tasks_by_id", args(&[("id", "3")]));
    assert_eq!(
        after["body"]["data"]["attributes"]["assignee_id"],
        Value::Null,
        "{after:#}"
    );
}

#[test]
fn roundup_learns_the_status_its_second_issue_create_left_out_as_a_default() {
    let served = serve_corpus_app("roundup");
    let fields = plan(&served, "post_rt_rest_data_issue")
        .fields
        .as_ref()
        .expect("a field model");
    // The status link object the second create stored, read from the link the first sent.
    assert_eq!(
        fields.nested_constants.get("/status/id"),
        Some(&rea_plugin_api::json::Json::String("1".into())),
        "{fields:?}"
    );
    assert!(fields.nested_constants.contains_key("/status/link"));
}

#[test]
fn a_project_a_task_names_refuses_its_delete_until_the_task_is_gone() {
    let served = serve_corpus_app("safrs");
    let refusal = &plan(&served, "delete_projects_by_id").referenced;
    assert_eq!(refusal.len(), 1, "{refusal:?}");
    assert_eq!(refusal[0].member, "/attributes/project_id");
    let project =
        json!({"data": {"type": "Project", "attributes": {"code": "QA", "name": "Quality"}}});
    let (created, _) = served.call("post_projects", with_body(&[], project));
    let project = created["body"]["data"]["id"]
        .as_str()
        .expect("an id")
        .to_owned();
    let task = json!({"data": {"type": "Task", "attributes": {"title": "Test plan", "project_id": project.parse::<u64>().expect("numeric")}}});
    let (created, _) = served.call("post_tasks", with_body(&[], task));
    let task = created["body"]["data"]["id"]
        .as_str()
        .expect("an id")
        .to_owned();
    let (answer, _) = served.call("delete_projects_by_id", args(&[("id", &project)]));
    assert_eq!(answer["status"], 409, "{answer:#}");
    let (answer, is_error) = served.call("delete_tasks_by_id", args(&[("id", &task)]));
    assert!(!is_error, "{answer:#}");
    let (answer, is_error) = served.call("delete_projects_by_id", args(&[("id", &project)]));
    assert!(!is_error, "{answer:#}");
    assert_eq!(answer["status"], 204, "{answer:#}");
}

#[test]
fn a_type_other_than_the_collections_is_refused_naming_both() {
    let served = serve_corpus_app("safrs");
    // Learned from the task create's refusal (entry 62), shared with the user create.
    let wrong = json!({"data": {"type": "Task", "attributes": {"username": "gina"}}});
    let (answer, _) = served.call("post_users", with_body(&[], wrong));
    assert_eq!(answer["status"], 400, "{answer:#}");
    let title = answer["body"]["errors"][0]["title"]
        .as_str()
        .expect("a title");
    assert!(
        title.ends_with("Invalid type member: Task != User"),
        "{title}"
    );
    let wrong = json!({"data": {"type": "Project", "attributes": {"title": "Wrong"}}});
    let (answer, _) = served.call("post_tasks", with_body(&[], wrong));
    let title = answer["body"]["errors"][0]["title"]
        .as_str()
        .expect("a title");
    assert!(title.ends_with("Project != Task"), "{title}");
}

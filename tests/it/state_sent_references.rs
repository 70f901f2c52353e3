//! Sent references (`rea_state::writes::references`): a write sends a member as the id or a key
//! name of another held type's entity (`"status": "in-progress"`, `"assignedto": "carol"`), and
//! the item read after it holds the member as that entity's link object (`{"id", "link"}`).
//! Roundup's `build.har` creates issues with links given by name and `PUT`s an issue's
//! `priority=urgent, status=in-progress`, reading each back; the plans learn each member's linked
//! type and key member, a `PUT` takes those its type's create learned (the assignee), and a
//! served `PUT` naming a status and a user by name stores their link objects, so a list filtered
//! by the new status lists the issue; its answer names the members it changed, by id
//! (`"attribute": {"status": "8", "assignedto": "5"}`), as the build's answer named its own. A name
//! no held entity has is refused. One app: Roundup (no
//! other corpus app sends a link by a key name and reads it back as a link object).

use rea_manifest::catalog::ArgumentTarget;
use serde_json::{Map, Value, json};

use crate::state_support::{
    Served, call_with_strings, collection_ids, corpus_write_plans, plan_of, serve_corpus_app,
};

const PUT_ISSUE: &str = "put_rt_rest_data_issue_by_id";
const ISSUES: &str = "get_rt_rest_data_issue";

fn put_arguments(served: &Served, id: &str, body: Value) -> Map<String, Value> {
    let definition = served.replay.tool(PUT_ISSUE).expect("tool");
    definition
        .input_schema
        .arguments
        .iter()
        .filter_map(|argument| match argument.target {
            ArgumentTarget::Path { .. } => Some((argument.name.clone(), json!(id))),
            ArgumentTarget::Body => Some((argument.name.clone(), body.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn the_put_plan_learns_the_references_its_type_was_sent_by_name() {
    let plans = corpus_write_plans("roundup");
    let plan = plan_of(&plans, PUT_ISSUE);
    assert_eq!(plan["served"], true, "{plan:#}");
    let references = plan["references"].as_array().expect("references");
    let member = |name: &str| {
        references
            .iter()
            .find(|reference| reference["member"] == name)
            .unwrap_or_else(|| panic!("{name}: {plan:#}"))
    };
    assert!(
        member("status")["target_type"]
            .as_str()
            .expect("a type")
            .ends_with("/status")
    );
    assert_eq!(member("status")["keys"], json!(["name"]));
    assert!(
        member("assignedto")["target_type"]
            .as_str()
            .expect("a type")
            .ends_with("/user")
    );
    assert_eq!(member("assignedto")["keys"], json!(["username"]));
    assert_eq!(member("priority")["shown"], json!(["id", "link"]));
    // Sent as recorded: names and ids, not link objects.
    assert_eq!(
        plan["body"]["members"]["status"]["types"],
        json!(["string"]),
        "{plan:#}"
    );
}

#[test]
fn a_served_put_by_name_stores_the_link_objects_the_lists_filter_by() {
    let served = serve_corpus_app("roundup");
    let body = json!({"status": "resolved", "assignedto": "carol"});
    let (answer, is_error) = served.call(PUT_ISSUE, put_arguments(&served, "2", body));
    assert!(!is_error, "{answer:#}");
    // The answer names the members this call changed, each by its linked entity's id.
    assert_eq!(
        answer.pointer("/body/data/attribute"),
        Some(&json!({"status": "8", "assignedto": "5"})),
        "{answer:#}"
    );
    assert_eq!(
        answer.pointer("/body/data/id"),
        Some(&json!("2")),
        "{answer:#}"
    );
    let (answer, is_error) = call_with_strings(
        &served,
        ISSUES,
        &[("status", "resolved"), ("@fields", "title")],
    );
    assert!(!is_error, "{answer:#}");
    assert_eq!(collection_ids(&answer), vec!["2", "4"]);
    let issue = served
        .backend
        .service()
        .read()
        .entity("/rt/rest/data/issue", "/rt/rest/data/issue", "2")
        .cloned()
        .expect("issue 2");
    assert_eq!(
        issue
            .fields
            .get("assignedto")
            .map(|value| value.to_canonical_vec()),
        Some(br#"{"id":"5","link":"http://127.0.0.1:18841/rt/rest/data/user/5"}"#.to_vec())
    );
}

#[test]
fn a_name_no_held_entity_has_is_refused() {
    let served = serve_corpus_app("roundup");
    let body = json!({"status": "archived"});
    let (answer, is_error) = served.call(PUT_ISSUE, put_arguments(&served, "2", body));
    assert!(is_error, "{answer:#}");
}

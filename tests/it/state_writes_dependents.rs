//! Deletes that change the entities referring to the deleted one, learned by the built-in
//! `dependents` rule stage from the reads after a recorded delete, on two recorded applications:
//! json-server 0.17 removes a post's comments with it (the build read `GET /comments/6` `404`
//! after `DELETE /posts/5`: a cascade over `postId`), json-server 1.0 clears the relation
//! (`GET /tickets/106` showed `customerId: null` after `DELETE /customers/c4`) and, asked with
//! `?_dependent=notes`, removes a ticket's notes (shown only by the whole `GET /notes` list after
//! `DELETE /tickets/105?_dependent=notes`, listing every other note). Each delete is served, and
//! a served delete of another entity changes that entity's referrers the same way (and nothing
//! else).

use serde_json::{Map, Value, json};

use crate::state_support;
use state_support::{Served, capture_file, serve, serve_evidence, state_rules};

const JSON_SERVER_V1: &str = "tests/corpus/apps/json-server-v1/build.har";

fn arguments(value: Value) -> Map<String, Value> {
    value.as_object().cloned().expect("an object")
}

/// json-server 1.x's build served from the state.
fn json_server_v1() -> Served {
    serve_evidence(
        capture_file(&rea_tests::workspace_root().join(JSON_SERVER_V1)),
        state_rules(),
        Default::default(),
    )
}

/// The plan's learned `dependents` effects, as JSON.
fn learned_dependents(served: &Served, tool: &str) -> Value {
    let plan = served.state().write_plan(tool).expect("a plan");
    assert!(plan.served, "{tool}: {:?}", plan.reason);
    let rule = plan
        .rules
        .iter()
        .find(|rule| rule.stage == "dependents")
        .unwrap_or_else(|| panic!("{tool} learned no dependents rule: {:?}", plan.rules));
    rule.rule
        .get("dependents")
        .expect("effects")
        .to_serde_value()
        .expect("json")
}

/// Asserts that a list answer lists none of `removed` and lists `kept`.
fn assert_lists(answer: &Value, removed: &[&str], kept: &str) {
    let ids = listed_ids(answer);
    assert!(
        removed
            .iter()
            .all(|id| !ids.iter().any(|listed| listed == id)),
        "{ids:?}"
    );
    assert!(ids.iter().any(|listed| listed == kept), "{ids:?}");
}

/// The ids a list answer shows.
fn listed_ids(answer: &Value) -> Vec<String> {
    answer["body"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|item| match &item["id"] {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        })
        .collect()
}

#[test]
fn json_server_a_served_post_delete_removes_its_comments() {
    let served = serve("json-server/build.har");
    assert_eq!(
        learned_dependents(&served, "delete_posts_by_id"),
        json!([{"entity_type": "/comments", "field": "postId", "action": {"kind": "remove"}}])
    );
    // Post 1 has comments 1 and 2; post 2 has comment 3.
    let (comments, _) = served.call("get_comments", Map::new());
    assert_eq!(listed_ids(&comments)[..3], ["1", "2", "3"]);
    let (deleted, error) = served.call("delete_posts_by_id", arguments(json!({"id": "1"})));
    assert!(!error, "{deleted}");
    assert_eq!(deleted["state"]["source"], "state", "{deleted}");
    for (id, status) in [("1", 404), ("2", 404), ("3", 200)] {
        let (comment, _) = served.call("get_comments_by_id", arguments(json!({"id": id})));
        assert_eq!(comment["status"], status, "comment {id}: {comment}");
    }
    let (comments, _) = served.call("get_comments", Map::new());
    assert_eq!(comments["state"]["source"], "state", "{comments}");
    assert_lists(&comments, &["1", "2"], "3");
    // Other types keep everything (users hold no post id).
    let (users, _) = served.call("get_users", Map::new());
    assert_eq!(listed_ids(&users).len(), 3, "{users}");
}

#[test]
fn json_server_v1_a_served_customer_delete_clears_the_tickets_customer() {
    let served = json_server_v1();
    assert_eq!(
        learned_dependents(&served, "delete_customers_by_id"),
        json!([{"entity_type": "/tickets", "field": "customerId", "action": {"kind": "clear"}}])
    );
    // Ticket 101 belongs to customer c1, ticket 102 to c2.
    let (before, _) = served.call("get_tickets_by_id", arguments(json!({"id": "101"})));
    assert_eq!(before["body"]["customerId"], "c1", "{before}");
    let (deleted, error) = served.call("delete_customers_by_id", arguments(json!({"id": "c1"})));
    assert!(!error, "{deleted}");
    assert_eq!(deleted["state"]["source"], "state", "{deleted}");
    let (cleared, _) = served.call("get_tickets_by_id", arguments(json!({"id": "101"})));
    assert_eq!(cleared["status"], 200, "{cleared}");
    assert_eq!(cleared["body"]["customerId"], Value::Null, "{cleared}");
    assert_eq!(cleared["body"]["subject"], before["body"]["subject"]);
    let (other, _) = served.call("get_tickets_by_id", arguments(json!({"id": "102"})));
    assert_eq!(other["body"]["customerId"], "c2", "{other}");
    let (customer, _) = served.call("get_customers_by_id", arguments(json!({"id": "c1"})));
    assert_eq!(customer["status"], 404, "{customer}");
}

#[test]
fn json_server_v1_a_served_ticket_delete_removes_its_notes_a_list_showed_gone() {
    let served = json_server_v1();
    assert_eq!(
        learned_dependents(&served, "delete_tickets_by_id"),
        json!([{"entity_type": "/notes", "field": "ticketId", "action": {"kind": "remove"}}])
    );
    // Notes n1 and n2 belong to ticket 101, n3 to ticket 103.
    let (notes, _) = served.call("get_notes", Map::new());
    assert_eq!(listed_ids(&notes)[..3], ["n1", "n2", "n3"], "{notes}");
    let (deleted, error) = served.call(
        "delete_tickets_by_id",
        arguments(json!({"id": "101", "_dependent": "notes"})),
    );
    assert!(!error, "{deleted}");
    assert_eq!(deleted["state"]["source"], "state", "{deleted}");
    let (notes, _) = served.call("get_notes", Map::new());
    assert_eq!(notes["state"]["source"], "state", "{notes}");
    assert_lists(&notes, &["n1", "n2"], "n3");
    // The customer delete still only clears tickets' customers: it learned no note effect.
    assert_eq!(
        learned_dependents(&served, "delete_customers_by_id"),
        json!([{"entity_type": "/tickets", "field": "customerId", "action": {"kind": "clear"}}])
    );
}

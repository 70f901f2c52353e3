//! Short generated ids on a recorded app: json-server 1.x generates four hex digits (`728c`,
//! `f304`) for every created entity. The `token` rule learns them from the creates of two
//! collections (tickets from two calls, notes from one), so both creates are served with fresh
//! ids of that shape; the longer tokens other apps generate (mlflow's 32 hex digits) are learned
//! as before. With the tickets create served, the build's read of `GET /tickets?status=pending`
//! lists the created ticket that has no `status` (the application's equality filter passes an
//! entity lacking the member): that read differs from the state only in which entities pass the
//! query, each shown as the state holds it, so it blames no write and the ticket `PATCH` stays
//! served.

use serde_json::{Map, Value, json};

use crate::state_support;
use crate::state_writes_learning::served;

const JSON_SERVER_V1: &str = "tests/corpus/apps/json-server-v1/build.har";

fn arguments(value: Value) -> Map<String, Value> {
    value.as_object().cloned().expect("an object")
}

/// The token shape a served plan's `token` rule learned for `/id`.
fn token_shape(served: &state_support::Served, tool: &str, pointer: &str) -> Value {
    let plan = served.state().write_plan(tool).expect("a plan");
    assert!(plan.served, "{tool}: {:?}", plan.reason);
    let rule = plan
        .rules
        .iter()
        .find(|rule| rule.stage == "token")
        .unwrap_or_else(|| panic!("{tool} learned no token rule: {:?}", plan.rules));
    rule.rule
        .to_serde_value()
        .expect("json")
        .pointer(&format!("/fields/{}", pointer.replace('/', "~1")))
        .cloned()
        .unwrap_or(Value::Null)
}

fn is_short_hex(text: &str) -> bool {
    text.len() == 4
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[test]
fn json_server_v1_creates_generate_four_hex_digit_ids() {
    let served = served(JSON_SERVER_V1);
    for tool in ["post_tickets", "post_notes"] {
        assert_eq!(
            token_shape(&served, tool, "/id"),
            json!({"alphabet": "hex", "length": 4}),
            "{tool}"
        );
    }
    let mut ids = Vec::new();
    for subject in ["Printer on fire", "Invoice missing"] {
        let (created, error) = served.call(
            "post_tickets",
            arguments(json!({"body": {"subject": subject, "customerId": "c1"}})),
        );
        assert!(!error, "{created}");
        assert_eq!(created["status"], 201, "{created}");
        assert_eq!(created["state"]["source"], "state", "{created}");
        let id = created["body"]["id"]
            .as_str()
            .expect("a text id")
            .to_owned();
        assert!(is_short_hex(&id), "{id}");
        let (read, _) = served.call("get_tickets_by_id", arguments(json!({"id": id})));
        assert_eq!(read["status"], 200, "{read}");
        assert_eq!(read["body"]["subject"], subject, "{read}");
        ids.push(id);
    }
    assert_ne!(ids[0], ids[1]);
}

#[test]
fn mlflow_runs_keep_their_thirty_two_hex_digit_run_ids() {
    let served = served("mlflow/build.har");
    let plan = served
        .state()
        .write_plan("post_mlflow_runs_create")
        .expect("a plan");
    let token = plan
        .rules
        .iter()
        .find(|rule| rule.stage == "token")
        .expect("a token rule")
        .rule
        .to_serde_value()
        .expect("json");
    for pointer in ["/info/run_id", "/info/run_uuid"] {
        assert_eq!(
            token["fields"][pointer],
            json!({"alphabet": "hex", "length": 32}),
            "{token}"
        );
    }
}

#[test]
fn json_server_v1_a_filter_passing_an_entity_lacking_the_member_blames_no_write() {
    let served = served(JSON_SERVER_V1);
    // The build's second ticket create sent no status; its later read of the pending tickets
    // listed it anyway.
    assert!(
        served
            .state()
            .write_plan("post_tickets")
            .expect("a plan")
            .served
    );
    let patch = served
        .state()
        .write_plan("patch_tickets_by_id")
        .expect("a plan");
    assert!(
        patch.served,
        "{:?} {:?}",
        patch.reason, patch.contradicted_by
    );
    assert_eq!(patch.contradicted_by, None);
    assert!(!patch.confirmed_by.is_empty());
    let (patched, error) = served.call(
        "patch_tickets_by_id",
        arguments(json!({"id": "103", "body": {"status": "pending"}})),
    );
    assert!(!error, "{patched}");
    let (read, _) = served.call("get_tickets_by_id", arguments(json!({"id": "103"})));
    assert_eq!(read["body"]["status"], "pending", "{read}");
}

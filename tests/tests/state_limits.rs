//! The state's size limit at startup: a state `data/get` would write past the 32 MiB `data/add`
//! loads is unavailable, and the server serves replay (with the refusal it logs).

mod state_support;

use rea_evidence::Evidence;
use rea_evidence::capture::capture_records;
use rea_manifest::Environment;
use rea_manifest::evidence::project_manifest_evidence;
use rea_plugin_api::json::{Json, Object};
use rea_state::Serving;
use state_support::{capture, rules, state_rules};

/// The json-server capture with user 1's read by id answering a member of `bytes` bytes.
fn capture_with_a_large_user(bytes: usize) -> Evidence {
    let original = capture("json-server/build.har");
    let mut body = Json::Object(original.body().clone());
    let Some(Json::Array(records)) = body
        .as_object_mut()
        .and_then(|body| body.get_mut("records"))
    else {
        panic!("capture Evidence holds records")
    };
    let record = records
        .iter_mut()
        .find(|record| record.get("path").and_then(Json::as_str) == Some("/users/1"))
        .expect("a read of user 1");
    let large = format!(
        "{{\"id\": 1, \"username\": \"alice\", \"name\": \"Alice Liddell\", \"email\": \"alice@example.test\", \"role\": \"editor\", \"notes\": \"{}\"}}",
        "x".repeat(bytes)
    );
    let mut text = Object::new();
    text.insert("kind", Json::String("text".into()));
    text.insert("text", Json::String(large));
    if let Some(Json::Object(response)) = record
        .as_object_mut()
        .and_then(|record| record.get_mut("response"))
    {
        response.insert("body", Json::Object(text));
    }
    let Json::Object(body) = body else {
        unreachable!("an object stays an object")
    };
    Evidence::seal(original.operation(), body)
}

#[test]
fn a_state_data_get_would_write_past_32_mib_is_unavailable() {
    // contract: STATE-022, STATE-010, STATE-018, STATE-029
    for (bytes, available) in [(1024, true), (33 * 1024 * 1024, false)] {
        let capture = capture_with_a_large_user(bytes);
        let (manifest, _) = project_manifest_evidence(&capture, &rules()).expect("manifest");
        let records = capture_records(&capture).expect("records");
        let environment = Environment::new(&manifest, capture.id(), records).expect("environment");
        match rea_state::startup::prepare(
            environment,
            &manifest,
            &capture,
            &manifest.name,
            state_rules(),
        ) {
            Serving::State { .. } => assert!(available, "a {bytes}-byte member still serves"),
            Serving::Replay {
                refusal, report, ..
            } => {
                assert!(!available, "a {bytes}-byte member: {refusal:?}");
                assert_eq!(refusal.code, "resource_constraint");
                assert!(refusal.message.contains("data/get"), "{}", refusal.message);
                assert_eq!(report["reason"], "unavailable");
                assert_eq!(report["code"], "resource_constraint");
            }
        }
    }
}

//! The state's size limit at startup: a state `data/get` would write past the 32 MiB `data/add`
//! loads is unavailable, and the server serves replay (with the refusal it logs).

use crate::state_support;

use rea_backends::Serving;
use rea_evidence::Evidence;
use rea_evidence::capture::capture_records;
use rea_json::{Json, Object};
use rea_manifest::Environment;
use rea_manifest::evidence::project_manifest_evidence;
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
    text.insert("text", Json::String(large.into()));
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
    for (bytes, available) in [(1024, true), (33 * 1024 * 1024, false)] {
        let capture = capture_with_a_large_user(bytes);
        let (manifest, _) = project_manifest_evidence(&capture, &rules()).expect("manifest");
        let records = capture_records(&capture).expect("records");
        let environment = Environment::new(&manifest, capture.id(), records).expect("environment");
        match rea_backends::prepare(
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
                // contract: STATE-022, STATE-010, STATE-018 (replay served instead)
                assert!(!available, "a {bytes}-byte member: {refusal:?}");
                assert_eq!(refusal.code, "resource_constraint");
                assert!(refusal.message.contains("data/get"), "{}", refusal.message);
                // contract: STATE-029
                assert_eq!(report["reason"], "unavailable");
                assert_eq!(report["code"], "resource_constraint");
            }
        }
    }
}

/// A capture's Evidence with every record's response body replaced (`None`: dropped, as a capture
/// keeping header values only records it).
fn capture_without_bodies(relative: &str) -> Evidence {
    let original = capture(relative);
    let mut body = Json::Object(original.body().clone());
    let Some(Json::Array(records)) = body
        .as_object_mut()
        .and_then(|body| body.get_mut("records"))
    else {
        panic!("capture Evidence holds records")
    };
    for record in records.iter_mut() {
        let mut missing = Object::new();
        missing.insert("kind", Json::String("missing".into()));
        if let Some(Json::Object(response)) = record
            .as_object_mut()
            .and_then(|record| record.get_mut("response"))
        {
            response.insert("body", Json::Object(missing));
        }
    }
    let Json::Object(body) = body else {
        unreachable!("an object stays an object")
    };
    Evidence::seal(original.operation(), body)
}

/// Prepares a capture for serving within a derivation budget.
fn prepare_within(capture: &Evidence, budget: u64) -> Serving {
    let (manifest, _) = project_manifest_evidence(capture, &rules()).expect("manifest");
    let records = capture_records(capture).expect("records");
    let environment = Environment::new(&manifest, capture.id(), records).expect("environment");
    rea_backends::prepare_within(
        environment,
        &manifest,
        capture,
        &manifest.name,
        state_rules(),
        rea_backends::fetch::FetchOptions::default(),
        budget,
    )
}

#[test]
fn a_capture_whose_reads_kept_no_body_derives_no_state() {
    let bodiless = capture_without_bodies("json-server/build.har");
    // The view refuses it ...
    let refusal = rea_state::project_state_evidence(&bodiless, &rules(), &state_rules())
        .expect_err("no state from a capture without bodies");
    assert_eq!(refusal.code, "unsupported_target");
    // ... and at serve time the same refusal makes the state unavailable.
    match prepare_within(&bodiless, 96 * 1024 * 1024) {
        Serving::State { .. } => panic!("a capture without bodies served a state"),
        Serving::Replay {
            refusal: served,
            report,
            ..
        } => {
            // contract: STATE-020, STATE-015 (the view's refusal, at serve time)
            assert_eq!(served.code, refusal.code);
            assert_eq!(served.message, refusal.message);
            // contract: STATE-029, STATE-030
            assert_eq!(report["reason"], "unavailable");
            assert_eq!(report["code"], "unsupported_target");
            assert_eq!(report["message"], refusal.message.as_str());
        }
    }
    // The same capture with its bodies derives one.
    let with_bodies = capture("json-server/build.har");
    assert!(matches!(
        prepare_within(&with_bodies, 96 * 1024 * 1024),
        Serving::State { .. }
    ));
}

#[test]
fn a_derivation_over_the_view_budget_is_unavailable() {
    // contract: LIMITS-009 (the spec's 96 MiB)
    assert_eq!(
        rea_state::evidence::DERIVATION_BUDGET_BYTES,
        96 * 1024 * 1024
    );
    let served = capture("json-server/build.har");
    let capture = &served;
    let projected =
        rea_state::project_state_evidence(capture, &rules(), &state_rules()).expect("state");
    let size = serde_json::to_vec(&projected.state).expect("json").len() as u64;
    // The view itself refuses a derivation over its budget ...
    let refusal = rea_state::evidence::project_state_evidence_within(
        capture,
        &rules(),
        &state_rules(),
        size - 1,
    )
    .expect_err("over the budget");
    assert_eq!(refusal.code, "resource_constraint");
    // ... and so does the derivation at serve time: exactly at the budget it serves.
    match prepare_within(capture, size - 1) {
        Serving::State { .. } => panic!("a derivation over its budget served"),
        Serving::Replay { report, .. } => {
            // contract: STATE-021, STATE-015 (the view's budget, at serve time)
            assert_eq!(report["reason"], "unavailable");
            assert_eq!(report["code"], "resource_constraint");
            assert_eq!(report["message"], refusal.message.as_str());
        }
    }
    assert!(matches!(
        prepare_within(capture, size),
        Serving::State { .. }
    ));
}

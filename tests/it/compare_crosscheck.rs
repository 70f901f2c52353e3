//! The cross-check: on the four shared captures, `environment-compare` (rea-compare) reports the
//! agreement an independent client reports when it replays the same probes against the same
//! served state (`state_support::agreement`, the client `state_probes` uses: its own routing,
//! its own id mapping, its own body comparison, calling the state backend directly).
//!
//! Both figures are printed per app and probe, with every step on which the two verdicts differ
//! and why. Where they differ the spec decides which is right; the differences that remain are
//! the independent client's simplifications, each named below:
//!
//! - it replays every call against the state; environment-compare skips a call the served
//!   catalog does not offer (`not-served`: an agent cannot make it) and checks arguments against
//!   the tool's schema first (`refused`), as the MCP server does;
//! - it never translates a live id into a later request, so after a create whose new id differs
//!   it reads another entity (MLflow's `runs/get` of a run the probe created);
//! - it maps ids anew for each call, where an id pair learned earlier in the probe holds (json-
//!   server's second create after a delete the environment does not serve: the application
//!   reuses id 5, the environment, still holding post 5, answers 6).
//!
//! One difference was the client's error, fixed in `state_support::agreement`: it learned ids
//! from a missing write target's answer, which is another call's recorded absence (Kinto's 404
//! naming the build's record), so it counted that 404 as agreeing and later translated the id.
//!
//! Reads make no writes, so both must agree step for step there; on CRUD probes every step where
//! the verdicts differ must be one of the named causes.

use std::collections::BTreeMap;

use rea_compare::adapter::Mode;
use rea_evidence::capture::capture_records;
use serde_json::Value;

use crate::state_support::agreement::{self, IdMap, answered_this_call};
use crate::state_support::{APPS, capture, recorded_answer, serve};

/// The independent verdict per record ordinal: agrees, and the tool it routed to.
fn independent(app: &str, probe: &str) -> BTreeMap<u64, (bool, Option<String>, Option<u64>)> {
    let served = serve(&format!("{app}/build.har"));
    let probe = capture(&format!("{app}/{probe}.har"));
    let mut verdicts = BTreeMap::new();
    for record in capture_records(&probe).expect("records") {
        let Some((tool, mut arguments)) = agreement::route(&served, &record) else {
            verdicts.insert(record.ordinal, (false, None, None));
            continue;
        };
        arguments.retain(|_, value| !value.is_null());
        let (answer, is_error) = served.call(&tool, arguments);
        let mut ids = IdMap::default();
        if answered_this_call(&record, &answer) {
            ids.learn(
                &recorded_answer(&record).1,
                answer.get("body").unwrap_or(&Value::Null),
            );
        }
        let verdict = agreement::compare(&ids, &record, &answer);
        let status = answer.get("status").and_then(Value::as_u64);
        verdicts.insert(
            record.ordinal,
            (
                !is_error && verdict.status && verdict.body,
                Some(tool),
                status,
            ),
        );
    }
    verdicts
}

/// environment-compare's report of one probe, in-process.
fn measured(app: &str, probe: &str) -> Value {
    let build = capture(&format!("{app}/build.har"));
    let rules = rea_tests::fidelity::default_rules().expect("rules");
    let (_, manifest) =
        rea_manifest::project_manifest_evidence(&build, &crate::state_support::rules())
            .expect("manifest");
    let probe = capture(&format!("{app}/{probe}.har"));
    let comparison = rea_compare::compare(&rea_compare::CompareInputs {
        manifest: &manifest,
        capture: &build,
        probes: std::slice::from_ref(&probe),
        mode: Mode::State,
        rules,
    })
    .expect("compared");
    serde_json::to_value(&comparison.report).expect("report")
}

/// Why the verdicts of a step differ, when it is one of the independent client's named
/// simplifications; `None` for an unexplained difference.
fn explained(step: &Value, writes_before: bool) -> Option<&'static str> {
    let categories = step["categories"].as_array()?;
    if categories.iter().any(|category| category == "not-served") {
        return Some("a call the served catalog does not offer: environment-compare makes no call");
    }
    if categories.iter().any(|category| category == "refused") {
        return Some("arguments the tool's schema refuses: the MCP server refuses them first");
    }
    if !writes_before {
        return None;
    }
    if step["agrees"] == true {
        return Some(
            "environment-compare translated a live id the probe learned into this request; the client sends the live id",
        );
    }
    let only_ids = step["differences"].as_array()?.iter().all(|difference| {
        difference["category"] == "value"
            && difference["pointer"]
                .as_str()
                .and_then(|pointer| pointer.rsplit('/').next())
                .is_some_and(rea_compare::ids::is_identifier_name)
    });
    only_ids.then_some(
        "an id pair learned earlier in the probe holds (an equal pair stays in its collection); the client maps ids anew for each call",
    )
}

#[test]
fn environment_compare_reports_the_agreement_an_independent_client_measures() {
    let mut lines = Vec::new();
    for app in APPS {
        for probe in ["probe-reads", "probe-crud"] {
            let independent = independent(app, probe);
            let report = measured(app, probe);
            let steps = report["probes"][0]["steps"].as_array().expect("steps");
            let records = capture_records(&capture(&format!("{app}/{probe}.har"))).unwrap();
            // contract: COMPARE-106
            assert_eq!(
                steps.len() as u64 + report["summary"]["unobserved"].as_u64().unwrap(),
                records.len() as u64,
                "{app} {probe}: every call the probe makes, and only those"
            );
            let ours = report["summary"]["agreeing"].as_u64().unwrap();
            let theirs = independent
                .values()
                .filter(|(agrees, _, _)| *agrees)
                .count() as u64;
            lines.push(format!(
                "{app} {probe}: environment-compare {ours}/{}, independent client {theirs}/{}",
                steps.len(),
                independent.len()
            ));
            let mut writes_before = false;
            for step in steps {
                let ordinal = step["ordinal"].as_u64().unwrap();
                let (agrees, tool, status) = independent[&ordinal].clone();
                let called_alike = step["source"].is_string()
                    && step["source"] != "refused"
                    && tool.is_some()
                    && step["tool"].as_str() == tool.as_deref();
                if called_alike && !writes_before {
                    // The same call, answered by the same served environment.
                    // contract: COMPARE-012
                    assert_eq!(step["env_status"].as_u64(), status, "{app} {probe} {step}");
                }
                if step["agrees"].as_bool() != Some(agrees) {
                    let why = explained(step, writes_before);
                    lines.push(format!(
                        "  {ordinal} {}: environment-compare {}, independent {agrees}: {}",
                        step["request"],
                        step["agrees"],
                        why.unwrap_or("UNEXPLAINED")
                    ));
                    assert!(
                        probe == "probe-crud" && why.is_some(),
                        "{app} {probe}: the verdicts differ at {step} (independent: {agrees})"
                    );
                }
                let method = step["request"].as_str().unwrap_or("").split(' ').next();
                writes_before |= !matches!(method, Some("GET" | "HEAD"));
            }
            if probe == "probe-reads" {
                assert_eq!(ours, theirs, "{app}: {}", lines.join("\n"));
            }
        }
    }
    println!("cross-check:\n{}", lines.join("\n"));
}

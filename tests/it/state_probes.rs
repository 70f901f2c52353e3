//! The probe-reads agreement report: each `probe-reads.har` capture was recorded on the live
//! application from the same seed as `build.har`. Every probe call is answered by the environment
//! served from `build.har`'s state and compared with the live answer (status, and body as JSON,
//! with ids mapped and clocks compared by format, as the spec's fidelity measure does), and each
//! step's causes of disagreement are printed by category.
//! The report is printed, not asserted to be complete: a probe may read what the build capture
//! never showed. The test asserts only that it ran over every probe and that the environment
//! answered each call it could route.

use crate::state_support;

use rea_evidence::capture::capture_records;
use rea_plugin_api::contracts::capture::CaptureRecord;
use serde_json::{Map, Value};
use state_support::agreement::{self, IdMap, answered_this_call, compare, describe};
use state_support::{APPS, capture, recorded_answer, serve};

/// The tool whose method and template a probe request fits, and its arguments (members with no
/// value left out).
fn route(
    served: &state_support::Served,
    record: &CaptureRecord,
) -> Option<(String, Map<String, Value>)> {
    let (name, mut arguments) = agreement::route(served, record)?;
    arguments.retain(|_, value| !value.is_null());
    Some((name, arguments))
}

#[test]
fn probe_reads_agreement_report() {
    let mut lines = Vec::new();
    for app in APPS {
        let served = serve(&format!("{app}/build.har"));
        let probes = capture(&format!("{app}/probe-reads.har"));
        let records = capture_records(&probes).expect("probe records");
        let (mut agree, mut unordered, mut state_agree, mut state_total, mut unrouted, mut errors) =
            (0, 0, 0, 0, 0, 0);
        let mut categories: std::collections::BTreeMap<&'static str, usize> = Default::default();
        let mut steps = Vec::new();
        for record in &records {
            let Some((tool, arguments)) = route(&served, record) else {
                unrouted += 1;
                *categories.entry("no-tool").or_default() += 1;
                steps.push(format!(
                    "    {:>3} no-tool: {} {}",
                    record.ordinal,
                    record.method.as_deref().unwrap_or("?"),
                    record.url.as_deref().unwrap_or("?")
                ));
                continue;
            };
            let (answer, is_error) = served.call(&tool, arguments);
            let from_state =
                answer.pointer("/state/source").and_then(Value::as_str) == Some("state");
            // Ids map only from an answer the environment gave this very call: from its state,
            // or a recording of the same request line.
            let mut ids = IdMap::default();
            let (_, live) = recorded_answer(record);
            if answered_this_call(record, &answer) {
                ids.learn(&live, answer.get("body").unwrap_or(&Value::Null));
            }
            let verdict = compare(&ids, record, &answer);
            let agrees = !is_error && verdict.status && verdict.body;
            if is_error {
                errors += 1;
                *categories.entry("refused").or_default() += 1;
            } else {
                for difference in &verdict.differences {
                    *categories.entry(difference.category).or_default() += 1;
                }
            }
            if from_state {
                state_total += 1;
                state_agree += usize::from(agrees);
            }
            agree += usize::from(agrees);
            unordered += usize::from(
                !is_error && verdict.status && (verdict.body || verdict.body_ignoring_order),
            );
            let source = answer
                .pointer("/state/reason")
                .and_then(Value::as_str)
                .map(|reason| format!("recording: {reason}"))
                .unwrap_or_else(|| {
                    if is_error {
                        "refused".to_owned()
                    } else {
                        "state".to_owned()
                    }
                });
            steps.push(format!(
                "    {:>3} {tool} [{source}]: {}",
                record.ordinal,
                if agrees {
                    "agrees".to_owned()
                } else if is_error {
                    format!(
                        "refused ({})",
                        answer
                            .pointer("/error/code")
                            .and_then(Value::as_str)
                            .unwrap_or("tool error")
                    )
                } else {
                    describe(&verdict, 3)
                }
            ));
        }
        lines.push(format!(
            "{app}: {agree}/{} probe reads agree with the live answer (status and body; ids mapped, clocks by format); {unordered} ignoring order; {state_agree}/{state_total} of the state-backed answers agree; {unrouted} had no tool; {errors} refused; differences by category {categories:?}",
            records.len()
        ));
        lines.extend(steps);
        assert!(
            !records.is_empty(),
            "{app}: the probe capture has no records"
        );
    }
    println!("probe-reads agreement:\n{}", lines.join("\n"));
}

#[test]
fn the_comparison_maps_ids_by_natural_keys_and_clocks_by_format() {
    use serde_json::json;
    use state_support::agreement::{clock_named, differences, iso_format};
    // Clocks: ISO-8601 by format; epoch numbers only under clock-named members.
    assert!(iso_format("2026-01-01T10:00:00.123Z").is_some());
    assert!(iso_format("2026-01-01T10:00:00+24:00").is_none());
    assert!(iso_format("2026-12-05").is_none());
    assert!(clock_named("last_modified") && clock_named("createdAt") && clock_named("start_time"));
    assert!(!clock_named("schema") && !clock_named("priority"));
    let ids = IdMap::default();
    let same_format = differences(
        &ids,
        &json!({"at": "2026-01-01T10:00:00Z", "last_modified": 1795950612507_i64}),
        &json!({"at": "2027-05-05T11:11:11Z", "last_modified": 1795950605114_i64}),
    );
    assert!(same_format.is_empty(), "{same_format:?}");
    let other_format = differences(
        &ids,
        &json!({"at": "2026-01-01T10:00:00Z"}),
        &json!({"at": "2026-01-01T10:00:00.000Z"}),
    );
    assert_eq!(other_format[0].category, "clock-format");
    let literal = differences(
        &ids,
        &json!({"schema": 1795950612507_i64}),
        &json!({"schema": 1_i64}),
    );
    assert_eq!(literal[0].category, "value");
    // Objects pair by a natural key; their identifier fields map, other values stay literal.
    let live = json!([{"id": 7, "name": "b", "rank": 7}, {"id": 9, "name": "a", "rank": 1}]);
    let env = json!([{"id": 2, "name": "a", "rank": 1}, {"id": 1, "name": "b", "rank": 7}]);
    let mut ids = IdMap::default();
    ids.learn(&live, &env);
    let found = differences(&ids, &live, &env);
    let categories: Vec<&str> = found.iter().map(|difference| difference.category).collect();
    assert_eq!(categories, vec!["order"], "{found:?}");
    // A missing member and a different length are named as such.
    let found = differences(
        &ids,
        &json!({"a": 1, "b": [1, 2]}),
        &json!({"b": [1], "c": 2}),
    );
    let categories: Vec<&str> = found.iter().map(|difference| difference.category).collect();
    assert_eq!(
        categories,
        vec!["missing-field", "length", "extra-field"],
        "{found:?}"
    );
}

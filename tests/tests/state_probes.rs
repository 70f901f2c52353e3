//! The probe-reads agreement report: each `probe-reads.har` capture was recorded on the live
//! application from the same seed as `build.har`. Every probe call is answered by the environment
//! served from `build.har`'s state and compared with the live answer (status, and body as JSON).
//! The report is printed, not asserted to be complete: a probe may read what the build capture
//! never showed. The test asserts only that it ran over every probe and that the environment
//! answered each call it could route.

mod state_support;

use rea_evidence::capture::capture_records;
use rea_manifest::segments::split_path;
use rea_plugin_api::contracts::capture::CaptureRecord;
use serde_json::{Map, Value};
use state_support::{APPS, capture, recorded_answer, serve};

/// The tool whose method and template a probe request fits, and its arguments.
fn route(
    served: &state_support::Served,
    record: &CaptureRecord,
) -> Option<(String, Map<String, Value>)> {
    let method = record.method.as_deref()?;
    let path = record.path.as_deref()?;
    let segments = split_path(path);
    let pairs: Vec<(String, String)> = record
        .query
        .as_ref()
        .map(|query| query.pairs.iter().flatten().cloned().collect())
        .unwrap_or_default();
    let mut best: Option<(usize, &str)> = None;
    for tool in &served.manifest.tools {
        if !tool.method.eq_ignore_ascii_case(method) {
            continue;
        }
        let template = split_path(&tool.path_template);
        if template.len() != segments.len() {
            continue;
        }
        let mut literal = 0;
        let fits = template
            .iter()
            .zip(&segments)
            .enumerate()
            .all(|(index, (pattern, segment))| {
                if tool
                    .path_parameters
                    .iter()
                    .any(|parameter| parameter.segment_index == index)
                {
                    !segment.is_empty()
                } else {
                    literal += 1;
                    pattern == segment
                }
            });
        if fits && best.is_none_or(|(score, _)| literal > score) {
            best = Some((literal, &tool.name));
        }
    }
    let (_, name) = best?;
    let definition = served.replay.tool(name)?;
    let mut arguments = state_support::arguments_of(&served.replay, name, record);
    // Query names the tool never recorded cannot be sent: such a probe has no route.
    for (name, _) in &pairs {
        let known = definition.input_schema.arguments.iter().any(|argument| {
            matches!(&argument.target, rea_manifest::catalog::ArgumentTarget::Query { name: captured } if captured == name)
        });
        if !known {
            return None;
        }
    }
    arguments.retain(|_, value| !value.is_null());
    Some((name.to_owned(), arguments))
}

#[test]
fn probe_reads_agreement_report() {
    let mut lines = Vec::new();
    for app in APPS {
        let served = serve(&format!("{app}/build.har"));
        let probes = capture(&format!("{app}/probe-reads.har"));
        let records = capture_records(&probes).expect("probe records");
        let (mut agree, mut state_agree, mut state_total, mut unrouted, mut errors) =
            (0, 0, 0, 0, 0);
        let mut disagreements = Vec::new();
        for record in &records {
            let Some((tool, arguments)) = route(&served, record) else {
                unrouted += 1;
                disagreements.push(format!(
                    "    no tool: {} {}",
                    record.method.as_deref().unwrap_or("?"),
                    record.url.as_deref().unwrap_or("?")
                ));
                continue;
            };
            let (answer, is_error) = served.call(&tool, arguments);
            let (status, body) = recorded_answer(record);
            let from_state =
                answer.pointer("/state/source").and_then(Value::as_str) == Some("state");
            if is_error {
                errors += 1;
            }
            let agrees = !is_error
                && answer.get("status").and_then(Value::as_u64) == status.map(u64::from)
                && answer.get("body") == Some(&body);
            if from_state {
                state_total += 1;
                if agrees {
                    state_agree += 1;
                }
            }
            if agrees {
                agree += 1;
            } else {
                let why = answer
                    .pointer("/state/reason")
                    .and_then(Value::as_str)
                    .map(|reason| format!("recording: {reason}"))
                    .unwrap_or_else(|| {
                        if is_error {
                            "tool error".to_owned()
                        } else {
                            "state".to_owned()
                        }
                    });
                disagreements.push(format!(
                    "    differs ({why}): {} {} live {:?} served {}",
                    record.method.as_deref().unwrap_or("?"),
                    record
                        .url
                        .as_deref()
                        .unwrap_or("?")
                        .split_once("//")
                        .map_or("", |(_, rest)| rest),
                    status,
                    answer
                        .get("status")
                        .map(Value::to_string)
                        .unwrap_or_default()
                ));
            }
        }
        lines.push(format!(
            "{app}: {agree}/{} probe reads agree with the live answer (status and body); {state_agree}/{state_total} of the state-backed answers agree; {unrouted} had no tool; {errors} tool errors",
            records.len()
        ));
        lines.extend(disagreements);
        assert!(
            !records.is_empty(),
            "{app}: the probe capture has no records"
        );
    }
    println!("probe-reads agreement:\n{}", lines.join("\n"));
}

//! No answer is another query's or another id's recording: every probe call of every corpus app
//! (`probe-reads.har` and `probe-crud.har` of `shared/captures/*` and `tests/corpus/apps/*`,
//! writes applied in order) is answered by the environment served from the app's `build.har`
//! state, and each answer a recording gave (`state.source: "recording"`) must cite a build record
//! whose request is the probe's own: the same method, the same path (segments as written or
//! percent-decoded), the same query (each name with the same values in the same order, no name
//! more or less) and the same body. A `missing` answer (the recorded `404` standing for an entity
//! the state does not hold) must not show another id: the recorded request's id may appear in the
//! body only when it is the probe's.

use std::collections::BTreeMap;

use rea_backends::fetch::FetchOptions;
use rea_evidence::capture::capture_records;
use rea_manifest::segments::{percent_decode, split_path};
use rea_plugin_api::contracts::capture::{Body, CaptureRecord};
use serde_json::Value;

use crate::state_support::agreement::route;
use crate::state_support::{Served, capture_file, serve_evidence, state_rules};

/// What one scan found.
#[derive(Default)]
struct Scan {
    /// Calls answered.
    calls: usize,
    /// Recording answers checked.
    recordings: usize,
    /// `missing` answers checked.
    missing: usize,
    /// `not_modelled` refusals.
    refused: usize,
    /// What broke the rule, one line each.
    violations: Vec<String>,
}

fn decoded(segment: &str) -> String {
    percent_decode(segment).map_or_else(|| segment.to_owned(), |value| value.into_owned())
}

fn same_path(recorded: &CaptureRecord, probe: &CaptureRecord) -> bool {
    let recorded = split_path(recorded.path.as_deref().unwrap_or_default());
    let probe = split_path(probe.path.as_deref().unwrap_or_default());
    recorded.len() == probe.len()
        && recorded
            .iter()
            .zip(&probe)
            .all(|(a, b)| a == b || decoded(a) == decoded(b))
}

/// Query name → values in order.
fn query_of(record: &CaptureRecord) -> BTreeMap<String, Vec<String>> {
    let mut names: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (name, value) in record
        .query
        .iter()
        .flat_map(|query| query.pairs.iter().flatten())
    {
        names.entry(name.clone()).or_default().push(value.clone());
    }
    names
}

/// A request body as JSON when it is JSON, as text otherwise; `None` when empty.
fn body_of(record: &CaptureRecord) -> Option<Value> {
    match &record.request.body {
        Body::Text { text } if !text.trim().is_empty() => {
            Some(serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string())))
        }
        Body::Base64 { base64, .. } => Some(Value::String(base64.clone())),
        _ => None,
    }
}

fn line(record: &CaptureRecord) -> String {
    crate::state_support::request_line(record, "?")
}

/// The last path segment of a request, decoded: the id an item request names.
fn last_segment(record: &CaptureRecord) -> Option<String> {
    split_path(record.path.as_deref()?)
        .last()
        .map(|last| decoded(last))
}

impl Scan {
    fn check(&mut self, served: &Served, app: &str, probe: &CaptureRecord, answer: &Value) {
        self.calls += 1;
        if answer.pointer("/error/code").and_then(Value::as_str) == Some("not_modelled") {
            self.refused += 1;
            return;
        }
        let source = answer.pointer("/state/source").and_then(Value::as_str);
        let missing = answer.pointer("/state/view").and_then(Value::as_str) == Some("missing");
        if source != Some("recording") && !missing {
            return;
        }
        let ordinal = answer
            .pointer("/replay/record_ordinal")
            .and_then(Value::as_u64);
        let Some(recorded) = ordinal.and_then(|ordinal| {
            served
                .records
                .iter()
                .find(|record| record.ordinal == ordinal)
        }) else {
            self.violations.push(format!(
                "{app}: {} answered a recording citing no build record: {answer}",
                line(probe)
            ));
            return;
        };
        if missing {
            self.missing += 1;
            self.check_missing(app, probe, recorded, answer);
            return;
        }
        self.recordings += 1;
        let same = recorded.method == probe.method
            && same_path(recorded, probe)
            && query_of(recorded) == query_of(probe)
            && body_of(recorded) == body_of(probe);
        if !same {
            self.violations.push(format!(
                "{app}: {} answered the recording of {} (record {})",
                line(probe),
                line(recorded),
                recorded.ordinal
            ));
        }
    }

    /// A `missing` answer shows the recorded request's id only when it is the probe's.
    fn check_missing(
        &mut self,
        app: &str,
        probe: &CaptureRecord,
        recorded: &CaptureRecord,
        answer: &Value,
    ) {
        let (Some(recorded_id), Some(probe_id)) = (last_segment(recorded), last_segment(probe))
        else {
            return;
        };
        let body = answer.get("body").map(Value::to_string).unwrap_or_default();
        if recorded_id != probe_id && recorded_id.len() > 1 && body.contains(&recorded_id) {
            self.violations.push(format!(
                "{app}: {} answered a missing entity with record {}'s answer, which names {recorded_id:?}",
                line(probe),
                recorded.ordinal
            ));
        }
    }
}

/// Every probe of every corpus app, answered from its build state.
fn scan_corpus() -> Scan {
    let mut scan = Scan::default();
    let apps = rea_tests::fidelity::discover(&rea_tests::fidelity::default_roots());
    assert!(apps.len() >= 2, "the corpus holds at least two apps");
    for app in &apps {
        for probe in rea_tests::fidelity::PROBES {
            let served = serve_evidence(
                capture_file(&app.dir.join("build.har")),
                state_rules(),
                FetchOptions::default(),
            );
            let probes = capture_file(&app.dir.join(format!("{probe}.har")));
            for record in capture_records(&probes).expect("probe records") {
                let Some((tool, mut arguments)) = route(&served, &record) else {
                    continue;
                };
                arguments.retain(|_, value| !value.is_null());
                let (answer, _) = served.call(&tool, arguments);
                scan.check(&served, &format!("{}/{probe}", app.name), &record, &answer);
            }
        }
    }
    scan
}

#[test]
fn no_probe_answer_is_another_requests_or_another_ids_recording() {
    let scan = scan_corpus();
    println!(
        "{} probe calls: {} recording answers and {} missing answers checked, {} refused as not modelled",
        scan.calls, scan.recordings, scan.missing, scan.refused
    );
    assert!(
        scan.recordings > 0 && scan.refused > 0,
        "the scan saw recording answers and refusals"
    );
    assert!(
        scan.violations.is_empty(),
        "{} answers are another request's recording:\n{}",
        scan.violations.len(),
        scan.violations.join("\n")
    );
}

//! environment-compare benchmark, printed as figures (run with
//! `cargo bench -p rea-compare --bench compare`; the release profile):
//!
//! probes of 1,000, 2,500, 5,000 and 10,000 calls made by repeating json-server's recorded
//! probes, compared with the environment built from its `build.har`, served from the state. Two
//! workloads: the reads probe repeated (the state stays as seeded), and the CRUD probe repeated
//! (every round creates entities, so later lists are longer: the application's answers grow,
//! not the comparison's work per byte). Each figure is the whole comparison (state derivation
//! included) as the command runs it, the median of three runs, with the time per 1,000 calls and
//! its ratio to the 1,000-call probe's (1.0 is linear). Measurements, not assertions.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rea::commands::inspect_capture::{InspectRequest, inspect_with_builtins};
use rea_compare::adapter::Mode;
use rea_compare::{CompareInputs, compare};
use rea_evidence::Evidence;
use rea_evidence::capture::capture_records;
use rea_plugin_api::json::Json;

const SIZES: [usize; 4] = [1_000, 2_500, 5_000, 10_000];

fn captures_dir() -> PathBuf {
    let shared = std::env::var_os("REA_SHARED_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../../shared"),
        PathBuf::from,
    );
    shared.join("captures")
}

fn inspect(path: &Path) -> Evidence {
    inspect_with_builtins(&InspectRequest {
        capture: path,
        input_kind: "har",
        selection: None,
        sensitive_values: &[],
    })
    .expect("inspect")
}

/// A probe of `calls` records: the probe's records repeated, renumbered, in record order.
fn scaled(probe: &Evidence, calls: usize) -> Evidence {
    let records = capture_records(probe).expect("records");
    let scaled: Vec<_> = (0..calls)
        .map(|index| {
            let mut record = records[index % records.len()].clone();
            record.ordinal = index as u64;
            record.pointer = format!("/log/entries/{index}").into();
            record.started = None;
            record
        })
        .collect();
    let text = serde_json::to_string(&scaled).expect("records");
    let mut body = probe.body().clone();
    body.insert("records", Json::parse(text.as_bytes()).expect("JSON"));
    Evidence::seal(probe.operation(), body)
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    let dir = captures_dir().join("json-server");
    let build = inspect(&dir.join("build.har"));
    let rules = rea_manifest::TemplateRules::parse(&[
        "after-uid-literal",
        "opaque-token",
        "sibling-variance",
        "prefix-variance",
    ])
    .expect("rules");
    let (_, manifest) = rea_manifest::project_manifest_evidence(&build, &rules).expect("manifest");
    let mut registry = rea::builtin_registry().expect("registry");
    let state_rules = rea_compare::adapter::load_rules(None, &mut registry).expect("pipeline");
    for workload in ["probe-reads", "probe-crud"] {
        let probe = inspect(&dir.join(format!("{workload}.har")));
        println!("environment-compare, json-server {workload} repeated (median of 3):");
        let mut first_per_thousand = None;
        for calls in SIZES {
            let probe = scaled(&probe, calls);
            let samples = (0..3)
                .map(|_| {
                    let started = Instant::now();
                    let comparison = compare(&CompareInputs {
                        manifest: &manifest,
                        capture: &build,
                        probes: std::slice::from_ref(&probe),
                        mode: Mode::State,
                        rules: state_rules.clone(),
                    })
                    .expect("compared");
                    assert_eq!(
                        comparison.report.summary.tally.counts.compared,
                        calls as u64
                    );
                    started.elapsed()
                })
                .collect();
            let elapsed = median(samples);
            let per_thousand = elapsed.as_secs_f64() * 1_000.0 / calls as f64;
            let first = *first_per_thousand.get_or_insert(per_thousand);
            println!(
                "  {calls:>6} calls: {:>8.1} ms  ({:.1} ms per 1,000 calls, {:.2}x the 1,000-call rate)",
                elapsed.as_secs_f64() * 1_000.0,
                per_thousand * 1_000.0,
                per_thousand / first
            );
        }
    }
}

//! `rea-compare`: an environment measured against the application it was recorded from.
//!
//! [`compare`] takes an authenticated manifest and capture pair and probes (capture Evidence of
//! call sequences recorded on the live application, seeded as for the capture and reset before
//! each sequence), serves the environment in-process exactly as `environment-serve` would (from
//! the state, or replay with `--replay-only`; [`adapter`] is the one door to that answer path),
//! resets it before each probe, replays every probe call in the order it was made, and compares
//! each answer with the application's. No network call is made.
//!
//! | Module | Responsibility |
//! | --- | --- |
//! | [`adapter`] | the served environment: prepare, reset, call, and what the state model says about ids and generation |
//! | [`probe`] | probe checks and refusals, the application's origin, call order |
//! | [`route`] | tool matching, arguments, live ids translated into paths, queries and bodies |
//! | [`ids`] | the id mapping (natural-key pairing, collections, conflicts) |
//! | [`pairing`] | array items paired by a natural key |
//! | [`clock`] | clocks by format, probe start times |
//! | [`generated`] | generated values under a served write's rules |
//! | [`diff`] | body differences, categories, pointers, values cut short |
//! | [`run`] | one probe's steps |
//! | [`report`] | the Evidence report and its text form |
//!
//! The output is Evidence (`environment_compare`): deterministic, sealed with an `ev_` id, naming
//! the manifest as its parent and the capture and probes beside it.

pub mod adapter;
pub mod clock;
pub mod diff;
#[cfg(test)]
mod fixtures;
pub mod generated;
pub mod ids;
pub mod pairing;
pub mod probe;
pub mod report;
pub mod route;
pub mod run;

use std::collections::BTreeMap;

use rea_evidence::capture::capture_records;
use rea_evidence::{Evidence, Refusal};
use rea_manifest::Environment;
use serde_json::json;

use crate::adapter::{Mode, Rules, Served};
use crate::ids::IdFields;
use crate::report::{
    EnvironmentReport, OPERATION, ProbeReport, Report, SCHEMA_VERSION, Summary, ToolReport,
};
use crate::run::{Bench, request_body, run_probe};

/// The stage name refusals carry.
pub const STAGE: &str = "environment-compare";

/// What to compare.
#[derive(Debug)]
pub struct CompareInputs<'a> {
    /// The manifest Evidence.
    pub manifest: &'a Evidence,
    /// The capture Evidence the manifest was projected from.
    pub capture: &'a Evidence,
    /// The probes, in argument order (at least one).
    pub probes: &'a [Evidence],
    /// State (the default) or replay only.
    pub mode: Mode,
    /// The rule stages served writes use.
    pub rules: Rules,
}

/// A finished comparison: the report and its sealed Evidence.
#[derive(Debug)]
pub struct Comparison {
    /// The report.
    pub report: Report,
    /// The Evidence.
    pub evidence: Evidence,
}

/// The probes' tallies summed, and the counts per tool over every step that named one.
fn summarize(reports: &[ProbeReport]) -> (Summary, Vec<ToolReport>) {
    let mut summary = Summary::default();
    let mut tools: BTreeMap<String, report::Counts> = BTreeMap::new();
    for probe in reports {
        summary.tally.add(&probe.tally);
        for step in &probe.steps {
            if let Some(tool) = &step.tool {
                tools.entry(tool.clone()).or_default().count(step);
            }
        }
    }
    summary.unobserved = summary.tally.unobserved;
    let tools = tools
        .into_iter()
        .map(|(tool, counts)| ToolReport { tool, counts })
        .collect();
    (summary, tools)
}

/// Compares an environment with the application (see the crate docs). Every refusal comes
/// before anything is served: the pair must authenticate, and every probe must be usable.
pub fn compare(inputs: &CompareInputs<'_>) -> Result<Comparison, Refusal> {
    let environment = Environment::from_evidence(inputs.manifest, inputs.capture)
        .map_err(|refusal| refusal.in_stage(STAGE))?;
    let manifest =
        rea_manifest::read_manifest(inputs.manifest).map_err(|refusal| refusal.in_stage(STAGE))?;
    if inputs.probes.is_empty() {
        return Err(
            Refusal::invalid_request("environment-compare needs at least one --probe")
                .in_stage(STAGE),
        );
    }
    let probes = inputs
        .probes
        .iter()
        .map(|probe| probe::read_probe(probe, &manifest))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|refusal| refusal.in_stage(STAGE))?;
    let build_bodies: BTreeMap<u64, Option<serde_json::Value>> = capture_records(inputs.capture)?
        .iter()
        .map(|record| (record.ordinal, request_body(record)))
        .collect();
    let replay = Environment::from_evidence(inputs.manifest, inputs.capture)?;
    let served = Served::prepare(
        environment,
        &manifest,
        inputs.capture,
        inputs.mode,
        inputs.rules.clone(),
    );
    let fields = IdFields {
        state_held: served.state_held_ids(),
    };
    let bench = Bench {
        served: &served,
        manifest: &manifest,
        environment: &replay,
        build_bodies: &build_bodies,
        fields: &fields,
    };
    let mut reports = Vec::new();
    for probe in &probes {
        served.reset();
        reports.push(run_probe(&bench, probe));
    }
    let (summary, tools) = summarize(&reports);
    let report = Report {
        parent_evidence_id: inputs.manifest.id().to_owned(),
        capture_evidence_id: inputs.capture.id().to_owned(),
        probe_evidence_ids: inputs
            .probes
            .iter()
            .map(|probe| probe.id().to_owned())
            .collect(),
        parameters: json!({ "replay_only": inputs.mode == Mode::ReplayOnly }),
        subject: json!({ "application": manifest.primary_origin, "environment": manifest.name }),
        environment: EnvironmentReport {
            mode: match inputs.mode {
                Mode::State => "state",
                Mode::ReplayOnly => "replay-only",
            },
            state: served.state_report().clone(),
            served_tools: served.served_count(),
        },
        summary,
        probes: reports,
        tools,
        schema_version: SCHEMA_VERSION,
    };
    let evidence =
        Evidence::seal_value(OPERATION, &report).map_err(|refusal| refusal.in_stage(STAGE))?;
    Ok(Comparison { report, evidence })
}

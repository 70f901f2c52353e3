//! The comparison report: what `environment-compare` seals as Evidence, and its text form.
//!
//! ```text
//! operation            environment_compare
//! parent_evidence_id   the manifest's id; capture_evidence_id, probe_evidence_ids beside it
//! parameters           {replay_only}
//! subject              {application (origin), environment (manifest name)}
//! environment          {mode, state (as environment-serve's stopped document reports it), served_tools}
//! summary              agreement overall: compared, agreeing, agreement, agreeing_ignoring_order,
//!                      agreement_ignoring_order, unobserved (records not compared),
//!                      unobserved_bodies, categories (steps showing each), normalised
//!                      {clock, id, generated}, id_conflicts
//! probes               per probe: the same counts, order, origin, steps, and unobserved (the
//!                      records not compared, each with its reason)
//! tools                per tool: compared, agreeing, agreement, agreement_ignoring_order
//! ```
//!
//! Agreements are fractions of compared steps, rounded to four decimals (`null` when nothing
//! was compared). Every list has a defined order, so the same inputs give the same Evidence.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::diff::{Category, Difference, Normalised};

/// The Evidence operation.
pub const OPERATION: &str = "environment_compare";

/// The report's schema version.
pub const SCHEMA_VERSION: u64 = 1;

/// At most this many differences are listed per step.
pub const MAX_DIFFERENCES: usize = 20;

/// A fraction of compared steps, rounded to four decimals.
pub fn fraction(part: u64, whole: u64) -> Option<f64> {
    (whole > 0).then(|| ((part as f64 / whole as f64) * 10_000.0).round() / 10_000.0)
}

/// One compared step.
#[derive(Debug, Clone, Serialize)]
pub struct Step {
    /// The probe record's ordinal.
    pub ordinal: u64,
    /// `METHOD path?query` as recorded, cut short.
    pub request: String,
    /// The manifest tool it matched.
    pub tool: Option<String>,
    /// Where the environment's answer came from: `state`, `write`, `missing`, `recording`,
    /// `replay`, `refused`, or `null` when no call was made.
    pub source: Option<String>,
    /// The application's status.
    pub live_status: u16,
    /// The environment's status (`null` when it refused, was not called, or answered none).
    pub env_status: Option<u16>,
    /// Whether the statuses and normalised bodies are equal.
    pub agrees: bool,
    /// Whether they are, item order aside.
    pub agrees_ignoring_order: bool,
    /// The live body was not recorded: compared by status only.
    pub unobserved_body: bool,
    /// The categories of all its differences (listed or not), in report order.
    pub categories: Vec<Category>,
    /// How many differences there are.
    pub difference_count: usize,
    /// The first [`MAX_DIFFERENCES`].
    pub differences: Vec<Difference>,
}

/// A probe record that was not compared.
#[derive(Debug, Clone, Serialize)]
pub struct Unobserved {
    /// The record's ordinal.
    pub ordinal: u64,
    /// `no-request-line`, `other-origin` or `no-answer`.
    pub reason: &'static str,
    /// `METHOD path?query` when recorded, cut short.
    pub request: Option<String>,
}

/// Agreement counts of a set of steps.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Counts {
    /// Steps compared.
    pub compared: u64,
    /// Steps that agree.
    pub agreeing: u64,
    /// `agreeing / compared`.
    pub agreement: Option<f64>,
    /// Steps that agree, item order aside.
    pub agreeing_ignoring_order: u64,
    /// `agreeing_ignoring_order / compared`.
    pub agreement_ignoring_order: Option<f64>,
}

impl Counts {
    /// Counts one step.
    pub fn count(&mut self, step: &Step) {
        self.compared += 1;
        self.agreeing += u64::from(step.agrees);
        self.agreeing_ignoring_order += u64::from(step.agrees_ignoring_order);
        self.agreement = fraction(self.agreeing, self.compared);
        self.agreement_ignoring_order = fraction(self.agreeing_ignoring_order, self.compared);
    }
}

/// What a set of steps shows beyond agreement.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Tally {
    /// Agreement.
    #[serde(flatten)]
    pub counts: Counts,
    /// Records not compared (reported by [`Summary`]; a probe lists them instead).
    #[serde(skip)]
    pub unobserved: u64,
    /// Steps compared by status only (the live body was not recorded).
    pub unobserved_bodies: u64,
    /// Per category, the steps showing it.
    pub categories: BTreeMap<&'static str, u64>,
    /// Normalised values.
    pub normalised: Normalised,
    /// Live ids in a global conflict involving an equal pair.
    pub id_conflicts: u64,
}

impl Tally {
    /// Counts one step.
    pub fn count(&mut self, step: &Step) {
        self.counts.count(step);
        self.unobserved_bodies += u64::from(step.unobserved_body);
        for category in &step.categories {
            *self.categories.entry(category.name()).or_default() += 1;
        }
    }

    /// Adds another tally (a probe's into the summary).
    pub fn add(&mut self, other: &Tally) {
        let counts = &mut self.counts;
        counts.compared += other.counts.compared;
        counts.agreeing += other.counts.agreeing;
        counts.agreeing_ignoring_order += other.counts.agreeing_ignoring_order;
        counts.agreement = fraction(counts.agreeing, counts.compared);
        counts.agreement_ignoring_order = fraction(counts.agreeing_ignoring_order, counts.compared);
        self.unobserved += other.unobserved;
        self.unobserved_bodies += other.unobserved_bodies;
        for (category, steps) in &other.categories {
            *self.categories.entry(category).or_default() += steps;
        }
        self.normalised.add(other.normalised);
        self.id_conflicts += other.id_conflicts;
    }
}

/// One probe's report.
#[derive(Debug, Clone, Serialize)]
pub struct ProbeReport {
    /// The probe's Evidence id.
    pub evidence_id: String,
    /// The application's origin it was recorded against.
    pub origin: String,
    /// `start-time` or `record`.
    pub order: &'static str,
    /// Its counts.
    #[serde(flatten)]
    pub tally: Tally,
    /// Its compared steps, in call order.
    pub steps: Vec<Step>,
    /// Its records not compared, in call order, each with its reason.
    pub unobserved: Vec<Unobserved>,
}

/// Every probe together: the counts, and how many records were not compared.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    /// The counts.
    #[serde(flatten)]
    pub tally: Tally,
    /// Records not compared.
    pub unobserved: u64,
}

/// One tool's agreement.
#[derive(Debug, Clone, Serialize)]
pub struct ToolReport {
    /// The manifest tool.
    pub tool: String,
    /// Its counts.
    #[serde(flatten)]
    pub counts: Counts,
}

/// The environment compared.
#[derive(Debug, Clone, Serialize)]
pub struct EnvironmentReport {
    /// `state` or `replay-only`.
    pub mode: &'static str,
    /// What serves, as `environment-serve`'s stopped document reports it.
    pub state: Value,
    /// How many tools the served catalog offers.
    pub served_tools: usize,
}

/// The whole report (the Evidence body without its envelope members).
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The manifest's Evidence id.
    pub parent_evidence_id: String,
    /// The capture's Evidence id.
    pub capture_evidence_id: String,
    /// The probes' Evidence ids, in argument order.
    pub probe_evidence_ids: Vec<String>,
    /// `{replay_only}`.
    pub parameters: Value,
    /// `{application, environment}`.
    pub subject: Value,
    /// The environment compared.
    pub environment: EnvironmentReport,
    /// Every probe together.
    pub summary: Summary,
    /// Per probe, in argument order.
    pub probes: Vec<ProbeReport>,
    /// Per tool, by name.
    pub tools: Vec<ToolReport>,
    /// [`SCHEMA_VERSION`].
    pub schema_version: u64,
}

fn percent(value: Option<f64>) -> String {
    value.map_or_else(|| "-".to_owned(), |value| format!("{:.1}%", value * 100.0))
}

fn tally_line(tally: &Tally) -> String {
    format!(
        "{}/{} agree ({}), {} ignoring order ({}); {} unobserved, {} unobserved bodies",
        tally.counts.agreeing,
        tally.counts.compared,
        percent(tally.counts.agreement),
        tally.counts.agreeing_ignoring_order,
        percent(tally.counts.agreement_ignoring_order),
        tally.unobserved,
        tally.unobserved_bodies
    )
}

impl Report {
    /// The readable text form (`environment-compare` without `--json`).
    pub fn to_text(&self, evidence_id: &str) -> String {
        let mut text = format!(
            "environment comparison {evidence_id}\n  environment: {} ({}, {} tools served)\n  manifest: {}\n  capture: {}\n  agreement: {}\n",
            self.subject["environment"].as_str().unwrap_or("-"),
            self.environment.mode,
            self.environment.served_tools,
            self.parent_evidence_id,
            self.capture_evidence_id,
            tally_line(&self.summary.tally),
        );
        let categories: Vec<String> = self
            .summary
            .tally
            .categories
            .iter()
            .map(|(category, steps)| format!("{category} {steps}"))
            .collect();
        text.push_str(&format!(
            "  steps by difference: {}\n  normalised: {} clocks, {} ids, {} generated; {} id conflicts\n",
            if categories.is_empty() { "none".to_owned() } else { categories.join(", ") },
            self.summary.tally.normalised.clock,
            self.summary.tally.normalised.id,
            self.summary.tally.normalised.generated,
            self.summary.tally.id_conflicts
        ));
        for probe in &self.probes {
            text.push_str(&format!(
                "  probe {} ({} order): {}\n",
                probe.evidence_id,
                probe.order,
                tally_line(&probe.tally)
            ));
            for step in &probe.steps {
                text.push_str(&step_line(step));
            }
            for record in &probe.unobserved {
                text.push_str(&format!(
                    "    {:>4} unobserved ({}): {}\n",
                    record.ordinal,
                    record.reason,
                    record.request.as_deref().unwrap_or("-")
                ));
            }
        }
        text.push_str("  tools:\n");
        for tool in &self.tools {
            text.push_str(&format!(
                "    {} {}/{} ({})\n",
                tool.tool,
                tool.counts.agreeing,
                tool.counts.compared,
                percent(tool.counts.agreement)
            ));
        }
        text
    }
}

fn step_line(step: &Step) -> String {
    let verdict = if step.agrees {
        "agrees".to_owned()
    } else {
        step.differences
            .iter()
            .take(3)
            .map(|difference| {
                format!(
                    "{} at {:?} (live {}, env {})",
                    difference.category.name(),
                    difference.pointer,
                    difference.live.as_deref().unwrap_or("-"),
                    difference.env.as_deref().unwrap_or("-")
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    format!(
        "    {:>4} {} [{} {}]: {}\n",
        step.ordinal,
        step.request,
        step.tool.as_deref().unwrap_or("no tool"),
        step.source.as_deref().unwrap_or("-"),
        verdict
    )
}

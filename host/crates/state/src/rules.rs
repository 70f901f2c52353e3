//! The state rules a pipeline runs, in its order: the host side of the rule contract
//! ([`rea_plugin_api::contracts::rule`]).
//!
//! A [`RuleSet`] holds one [`ConfiguredRule`] per `[[rules]]` step: the stage's name, the plugin
//! providing it, its options, and a handle that calls the stage's `learn` and `apply`. Built-in
//! rules and rules from plugin libraries are the same kind of step: both come from the registry
//! through [`RuleSet::from_pipeline`]. Tests may also build steps from plain-Rust rules
//! ([`RuleSet::from_rules`]), which exercises the same JSON contract without the ABI.
//!
//! The rules a state was derived with are part of its Evidence (`rule_stages`), so turning a rule
//! off, reordering rules or changing an option gives another state Evidence id.

use std::collections::BTreeMap;
use std::sync::Arc;

use rea_evidence::Refusal;
use rea_plugin_api::StateRule;
use rea_plugin_api::contracts::rule::{ApplyOutcome, ApplyRequest, LearnOutcome, LearnRequest};
use rea_registry::{Registry, RuleHandle};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A rule stage the host can call: `learn` and `apply` over the contract's types. A failed call
/// is one sentence naming the stage.
pub trait RuleStep: Send + Sync + std::fmt::Debug {
    /// Learns from a tool's observations.
    fn learn(&self, request: &LearnRequest) -> Result<LearnOutcome, String>;
    /// Applies a learned rule to a served call.
    fn apply(&self, request: &ApplyRequest) -> Result<ApplyOutcome, String>;
}

impl RuleStep for RuleHandle {
    fn learn(&self, request: &LearnRequest) -> Result<LearnOutcome, String> {
        RuleHandle::learn(self, request).map_err(|error| error.to_string())
    }

    fn apply(&self, request: &ApplyRequest) -> Result<ApplyOutcome, String> {
        RuleHandle::apply(self, request).map_err(|error| error.to_string())
    }
}

/// A plain-Rust rule called directly (tests; the same JSON round trip as the ABI).
struct Direct<R>(R);

impl<R> std::fmt::Debug for Direct<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Direct")
    }
}

impl<R: StateRule> RuleStep for Direct<R> {
    fn learn(&self, request: &LearnRequest) -> Result<LearnOutcome, String> {
        // Through JSON text, as the ABI passes it.
        let text = serde_json::to_string(request).map_err(|error| error.to_string())?;
        let request: LearnRequest =
            serde_json::from_str(&text).map_err(|error| error.to_string())?;
        self.0.learn(&request).map_err(|error| error.to_string())
    }

    fn apply(&self, request: &ApplyRequest) -> Result<ApplyOutcome, String> {
        let text = serde_json::to_string(request).map_err(|error| error.to_string())?;
        let request: ApplyRequest =
            serde_json::from_str(&text).map_err(|error| error.to_string())?;
        self.0.apply(&request).map_err(|error| error.to_string())
    }
}

/// One step of the pipeline's `[[rules]]`.
#[derive(Debug, Clone)]
pub struct ConfiguredRule {
    /// The stage's name.
    pub stage: String,
    /// The plugin providing it.
    pub plugin: String,
    /// Its options, as the pipeline wrote them.
    pub options: BTreeMap<String, Value>,
    /// The stage.
    pub handle: Arc<dyn RuleStep>,
}

/// Reads a pipeline file (or the embedded default when `path` is `None`), loading its plugin
/// libraries into `registry`, and builds its rule steps. An invalid pipeline is one
/// `configuration_invalid` refusal listing every problem (`data.diagnostics`).
pub fn load_pipeline(
    path: Option<&std::path::Path>,
    registry: &mut Registry,
) -> Result<(rea_pipeline::Pipeline, RuleSet), Refusal> {
    let pipeline = rea_pipeline::load(path, registry).map_err(|errors| {
        let diagnostics: Vec<String> = errors.0.iter().map(ToString::to_string).collect();
        Refusal::configuration_invalid(format!(
            "the pipeline is not valid: {}",
            diagnostics.join("; ")
        ))
        .with_data(serde_json::json!({ "diagnostics": diagnostics }))
    })?;
    let rules = RuleSet::from_pipeline(&pipeline, registry)?;
    Ok((pipeline, rules))
}

/// How a rule step is named in the state Evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RuleStageRef {
    /// The stage.
    pub stage: String,
    /// The plugin providing it.
    pub plugin: String,
    /// Its options.
    pub options: BTreeMap<String, Value>,
}

/// The ordered rule steps a state is derived and served with.
#[derive(Debug, Clone, Default)]
pub struct RuleSet {
    steps: Vec<ConfiguredRule>,
}

impl RuleSet {
    /// No rules: every write a rule would explain is withheld.
    pub fn empty() -> Self {
        Self::default()
    }

    /// The rules of a resolved pipeline, constructed from the registry that resolved it.
    pub fn from_pipeline(
        pipeline: &rea_pipeline::Pipeline,
        registry: &Registry,
    ) -> Result<Self, Refusal> {
        let mut steps = Vec::with_capacity(pipeline.rules.len());
        for rule in &pipeline.rules {
            let handle = registry.rule_stage(&rule.stage.stage).map_err(|error| {
                Refusal::configuration_invalid(format!(
                    "the rule stage `{}` cannot be constructed: {error}",
                    rule.stage.stage
                ))
            })?;
            steps.push(ConfiguredRule {
                stage: rule.stage.stage.clone(),
                plugin: rule.stage.plugin.clone(),
                options: rule.options.clone(),
                handle: Arc::new(handle),
            });
        }
        Ok(Self { steps })
    }

    /// Rules from plain-Rust stages, in order: `(stage, plugin, options, rule)`.
    pub fn from_rules<R: StateRule>(
        rules: impl IntoIterator<Item = (String, String, BTreeMap<String, Value>, R)>,
    ) -> Self {
        Self {
            steps: rules
                .into_iter()
                .map(|(stage, plugin, options, rule)| ConfiguredRule {
                    stage,
                    plugin,
                    options,
                    handle: Arc::new(Direct(rule)),
                })
                .collect(),
        }
    }

    /// Adds a step.
    pub fn push(&mut self, rule: ConfiguredRule) {
        self.steps.push(rule);
    }

    /// A plain-Rust stage as a step handle.
    pub fn direct<R: StateRule>(rule: R) -> Arc<dyn RuleStep> {
        Arc::new(Direct(rule))
    }

    /// The steps, in order.
    pub fn steps(&self) -> &[ConfiguredRule] {
        &self.steps
    }

    /// The step of a stage.
    pub fn step(&self, stage: &str) -> Option<&ConfiguredRule> {
        self.steps.iter().find(|step| step.stage == stage)
    }

    /// The steps as the state Evidence names them.
    pub fn refs(&self) -> Vec<RuleStageRef> {
        self.steps
            .iter()
            .map(|step| RuleStageRef {
                stage: step.stage.clone(),
                plugin: step.plugin.clone(),
                options: step.options.clone(),
            })
            .collect()
    }
}

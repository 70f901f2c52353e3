//! The one place this crate reaches the served environment's answer path (`rea-state`,
//! `rea-backends` and `rea-serve`): everything else in the crate speaks the types defined here.
//!
//! An environment is prepared as `environment-serve` prepares it — from the state
//! (`rea_backends::prepare`, replay when the state is unavailable) or by replay only — and every
//! call goes through the MCP server's own `McpSurface::call`: the argument check against the
//! served tool's input schema, then the backend's answer, in-process. Nothing listens and no
//! request leaves the process. `reset` restores the derived state, as `data/reset` does.
//!
//! From the derived state it also reads what the comparison needs to know about the model: the
//! entity types' identity fields (ids the state holds) and each served write's generation rules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

use rea_evidence::{Evidence, Refusal};
use rea_manifest::{Environment, Manifest};
use rea_serve::ToolBackend;
use rea_serve::mcp::McpSurface;
use rea_state::service::StateService;
use rea_state::writes::model::{Effect, PlanRule, ResponseKind, WritePlan};
use serde_json::{Map, Value};

use crate::generated::{GenerationKind, GenerationRule, TemplatePart};

/// The rule stages served writes learn and apply with (a pipeline's).
pub type Rules = Arc<rea_state::rules::RuleSet>;

/// Loads a pipeline's rule stages (`None`: the embedded default pipeline).
pub fn load_rules(
    pipeline: Option<&Path>,
    registry: &mut rea_registry::Registry,
) -> Result<Rules, Refusal> {
    let (_, rules) = rea_state::rules::load_pipeline(pipeline, registry)?;
    Ok(Arc::new(rules))
}

/// How the environment is served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// From the state (replay when the state is unavailable), as `environment-serve` does.
    State,
    /// Replay only, as `environment-serve --replay-only` does.
    ReplayOnly,
}

/// Where an answer came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Rendered from the state (a read's view).
    State,
    /// A served write changed the state; `view` is `create`, `update`, `delete` or
    /// `document-write`.
    Write {
        /// What the write did.
        view: String,
    },
    /// A served write's target is missing: its recorded absence answer.
    Missing,
    /// A recorded answer (replay, or a state read answering from its recordings).
    Recording {
        /// The record that answered.
        ordinal: u64,
        /// Whether every argument matched that record.
        exact: bool,
        /// The state's reason, when a state read answered from its recordings.
        reason: Option<String>,
    },
}

/// An answer's body.
#[derive(Debug, Clone, PartialEq)]
pub enum AnswerBody {
    /// JSON (or text, as a JSON string).
    Json(Value),
    /// Base64 of bytes that are not UTF-8.
    Base64(String),
    /// The recording kept no body.
    NotRecorded,
}

/// The environment's answer to one call.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// An answer with a status.
    Answered {
        /// The status (`None`: the recording answered none).
        status: Option<u16>,
        /// The body.
        body: AnswerBody,
        /// Where it came from.
        source: Source,
    },
    /// A tool error (`isError`): the argument check or the backend refused the call.
    Refused {
        /// The error code.
        code: String,
        /// The message.
        message: String,
    },
}

/// A served environment, in-process.
pub struct Served {
    surface: McpSurface,
    service: Option<Arc<StateService>>,
    served: BTreeSet<String>,
    report: Value,
}

impl std::fmt::Debug for Served {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Served")
            .field("served", &self.served)
            .field("report", &self.report)
            .finish_non_exhaustive()
    }
}

impl Served {
    /// Prepares the environment of an authenticated manifest and capture as the server would.
    pub fn prepare(
        environment: Environment,
        manifest: &Manifest,
        capture: &Evidence,
        mode: Mode,
        rules: Rules,
    ) -> Served {
        let name = manifest.name.clone();
        let (backend, service, report): (Arc<dyn ToolBackend>, _, Value) = match mode {
            Mode::ReplayOnly => (
                Arc::new(rea_backends::replay::ReplayBackend::new(environment, &name)),
                None,
                serde_json::json!({ "served": false, "reason": "replay-only" }),
            ),
            Mode::State => {
                match rea_backends::prepare(environment, manifest, capture, &name, rules) {
                    rea_backends::Serving::State {
                        backend, report, ..
                    } => {
                        let service = Arc::clone(backend.service());
                        (backend, Some(service), report)
                    }
                    rea_backends::Serving::Replay {
                        environment,
                        report,
                        ..
                    } => (
                        Arc::new(rea_backends::replay::ReplayBackend::new(environment, &name)),
                        None,
                        report,
                    ),
                }
            }
        };
        let served = backend
            .tools()
            .iter()
            .map(|tool| tool.name.clone())
            .collect();
        Served {
            surface: McpSurface::new(backend),
            service,
            served,
            report,
        }
    }

    /// The stopped document's `state` member of `environment-serve` for this environment:
    /// `{"served": true, "evidence_id"}`, or why replay serves.
    pub fn state_report(&self) -> &Value {
        &self.report
    }

    /// Whether the state serves (rather than replay).
    pub fn from_state(&self) -> bool {
        self.service.is_some()
    }

    /// How many tools the served catalog offers.
    pub fn served_count(&self) -> usize {
        self.served.len()
    }

    /// Whether the served catalog offers a tool.
    pub fn offers(&self, tool: &str) -> bool {
        self.served.contains(tool)
    }

    /// Restores the derived state (what `data/reset` does); replay holds no state.
    pub fn reset(&self) {
        if let Some(service) = &self.service {
            service.reset();
        }
    }

    /// Calls a tool as an MCP client would, through the server's argument check and backend.
    pub fn call(&self, tool: &str, arguments: Map<String, Value>) -> Answer {
        self.call_sent(tool, arguments, None)
    }

    /// [`Served::call`] by a client that wrote its arguments in the order `sent` names them.
    pub fn call_sent(
        &self,
        tool: &str,
        arguments: Map<String, Value>,
        sent: Option<Vec<String>>,
    ) -> Answer {
        use futures_util::FutureExt as _;
        let sent = sent.map(rea_serve::arguments::SentOrder);
        let outcome = self
            .surface
            .call_sent(tool, Some(arguments), sent)
            .now_or_never();
        let result = match outcome {
            Some(Ok(result)) => serde_json::to_value(result).unwrap_or(Value::Null),
            Some(Err(error)) => {
                return Answer::Refused {
                    code: "unknown_tool".to_owned(),
                    message: error.message.to_string(),
                };
            }
            None => {
                return Answer::Refused {
                    code: "internal_error".to_owned(),
                    message: "the environment did not answer at once".to_owned(),
                };
            }
        };
        let text = result
            .pointer("/content/0/text")
            .and_then(Value::as_str)
            .unwrap_or("null");
        let document: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        if result.get("isError").and_then(Value::as_bool) == Some(true) {
            let error = document.get("error").cloned().unwrap_or(Value::Null);
            return Answer::Refused {
                code: text_at(&error, "/code").unwrap_or_else(|| "tool_error".to_owned()),
                message: text_at(&error, "/message").unwrap_or_default(),
            };
        }
        answered(&document)
    }

    /// The fields the state holds as an entity type's identity (top-level members only).
    pub fn state_held_ids(&self) -> BTreeSet<String> {
        let Some(service) = &self.service else {
            return BTreeSet::new();
        };
        service
            .derived()
            .types
            .iter()
            .map(|entity_type| entity_type.identity_field.clone())
            .filter(|field| !field.starts_with('/'))
            .collect()
    }

    /// The generation rules of a served write's answer (by the answer's write view: an upsert's
    /// creating call follows its create half); empty for reads, replay, and withheld writes.
    pub fn generation_rules(&self, tool: &str, view: &str) -> Vec<GenerationRule> {
        let Some(plan) = self
            .service
            .as_ref()
            .and_then(|service| service.derived().write_plan(tool))
            .filter(|plan| plan.served)
        else {
            return Vec::new();
        };
        let created = (plan.effect == Effect::Update && view == "create")
            .then(|| plan.upsert_plan())
            .flatten();
        plan_rules(created.as_ref().unwrap_or(plan))
    }
}

fn text_at(value: &Value, pointer: &str) -> Option<String> {
    value
        .pointer(pointer)
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// An answer document (`{status, body, replay, state?}`) read.
fn answered(document: &Value) -> Answer {
    let status = document
        .get("status")
        .and_then(Value::as_u64)
        .and_then(|status| u16::try_from(status).ok());
    let replay = document.get("replay");
    let recorded = replay
        .and_then(|replay| replay.get("body_recorded"))
        .and_then(Value::as_bool)
        .unwrap_or(true);
    let body = match (document.get("body"), recorded) {
        (_, false) => AnswerBody::NotRecorded,
        (Some(Value::String(text)), true)
            if replay
                .and_then(|replay| replay.get("body_encoding"))
                .and_then(Value::as_str)
                == Some("base64") =>
        {
            AnswerBody::Base64(text.clone())
        }
        (body, true) => AnswerBody::Json(body.cloned().unwrap_or(Value::Null)),
    };
    let state_source = document.pointer("/state/source").and_then(Value::as_str);
    let view = text_at(document, "/state/view");
    let source = match (state_source, view.as_deref()) {
        (Some("state"), Some("missing")) => Source::Missing,
        (
            Some("state"),
            Some(view @ ("create" | "update" | "delete" | "document-write" | "batch")),
        ) => Source::Write {
            view: view.to_owned(),
        },
        (Some("state"), _) => Source::State,
        _ => Source::Recording {
            ordinal: replay
                .and_then(|replay| replay.get("record_ordinal"))
                .and_then(Value::as_u64)
                .unwrap_or(u64::MAX),
            exact: replay
                .and_then(|replay| replay.get("exact_match"))
                .and_then(Value::as_bool)
                .unwrap_or(false),
            reason: text_at(document, "/state/reason"),
        },
    };
    Answer::Answered {
        status,
        body,
        source,
    }
}

/// A plan's rules as generation rules at pointers of its answer body.
fn plan_rules(plan: &WritePlan) -> Vec<GenerationRule> {
    let Some(response) = &plan.response else {
        return Vec::new();
    };
    if !matches!(
        response.kind,
        ResponseKind::Entity | ResponseKind::Projection
    ) {
        return Vec::new();
    }
    let base = response.pointer.clone().unwrap_or_default();
    plan.rules
        .iter()
        .flat_map(|rule| rule_generation(rule, &base))
        .collect()
}

fn rule_generation(rule: &PlanRule, base: &str) -> Vec<GenerationRule> {
    let fields: BTreeMap<String, Value> = rule
        .rule
        .to_serde_value()
        .unwrap_or(Value::Null)
        .get("fields")
        .and_then(Value::as_object)
        .map(|fields| fields.clone().into_iter().collect())
        .unwrap_or_default();
    rule.explains
        .iter()
        .filter_map(|pointer| {
            let kind = match rule.stage.as_str() {
                "uuid" => GenerationKind::Uuid,
                "unique" => GenerationKind::Unique,
                "token" => GenerationKind::Token,
                "renewed" => GenerationKind::Renewed,
                "composed" => GenerationKind::Composed(template(fields.get(pointer)?)?),
                _ => return None,
            };
            Some(GenerationRule {
                kind,
                pointer: format!("{base}{pointer}"),
            })
        })
        .collect()
}

fn template(value: &Value) -> Option<Vec<TemplatePart>> {
    value
        .as_array()?
        .iter()
        .map(|part| match (part.get("text"), part.get("source")) {
            (Some(Value::String(text)), _) => Some(TemplatePart::Text(text.clone())),
            (_, Some(Value::String(source))) => Some(TemplatePart::Source(source.clone())),
            _ => None,
        })
        .collect()
}

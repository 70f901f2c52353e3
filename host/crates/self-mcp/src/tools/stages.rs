//! The pipeline stage tools: `inspect_web_network_capture` (family `capture`) and
//! `inspect_analysis_view` (family `views`).
//!
//! This crate does not depend on the stage crates: the host passes their implementations in
//! through [`CaptureInspection`] and [`ViewProjection`], and [`register_stage_tools`] registers a
//! tool for each one given. Both tools return their Evidence inline and the session retains it;
//! `inspect_analysis_view` also accepts `{"kind": "retained-evidence", "evidence_id"}` sources.

use std::path::PathBuf;
use std::sync::Arc;

use rea_evidence::Refusal;
use serde_json::{Map, Value, json};

use super::object;
use crate::catalog::tool_names::{INSPECT_ANALYSIS_VIEW, INSPECT_WEB_NETWORK_CAPTURE};
use crate::catalog::{
    FAMILY_CAPTURE, FAMILY_VIEWS, ToolCatalog, ToolContext, ToolOutcome, ToolSpec,
    read_only_annotations,
};
use crate::error::SelfMcpError;
use crate::ledger::EvidenceDocument;

/// What `inspect_web_network_capture` asks the capture stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureRequest {
    /// The capture file (absolute).
    pub path: PathBuf,
    /// The input kind (`har`).
    pub input_kind: String,
    /// Selected record ordinals, in the caller's order; `None` for every record.
    pub records: Option<Vec<u64>>,
    /// Values declared sensitive.
    pub sensitive_values: Vec<String>,
}

/// The capture stage: a capture file in, capture Evidence out.
pub trait CaptureInspection: Send + Sync {
    /// Inspects one capture file and returns its capture Evidence document.
    fn inspect(&self, request: &CaptureRequest) -> Result<EvidenceDocument, Refusal>;
}

/// Where a view's source Evidence comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum SourceEvidence {
    /// Evidence the session retained (resolved from the ledger).
    Retained(EvidenceDocument),
    /// An Evidence file, by absolute path.
    File(PathBuf),
    /// Evidence passed inline.
    Inline(Value),
}

/// The views stage: a source and a view request in, view Evidence out.
pub trait ViewProjection: Send + Sync {
    /// Projects the view `view` (`{"kind", …}`) from `source`.
    fn project(&self, source: SourceEvidence, view: &Value) -> Result<EvidenceDocument, Refusal>;
}

/// The stage implementations the host has; a tool is registered for each one given.
#[derive(Clone, Default)]
pub struct StageImplementations {
    /// The capture stage, for `inspect_web_network_capture`.
    pub capture: Option<Arc<dyn CaptureInspection>>,
    /// The views stage, for `inspect_analysis_view`.
    pub views: Option<Arc<dyn ViewProjection>>,
}

impl std::fmt::Debug for StageImplementations {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("StageImplementations")
            .field("capture", &self.capture.is_some())
            .field("views", &self.views.is_some())
            .finish()
    }
}

/// Registers the stage tools whose implementations are given.
pub fn register_stage_tools(
    catalog: &mut ToolCatalog,
    stages: &StageImplementations,
) -> Result<(), SelfMcpError> {
    if let Some(capture) = &stages.capture {
        let capture = Arc::clone(capture);
        catalog.register(
            capture_spec(),
            Arc::new(
                move |arguments: &Map<String, Value>, _: &ToolContext| match capture_request(
                    arguments,
                ) {
                    Ok(request) => match capture.inspect(&request) {
                        Ok(evidence) => ToolOutcome::evidence(evidence),
                        Err(refusal) => ToolOutcome::refused(refusal),
                    },
                    Err(refusal) => ToolOutcome::refused(refusal),
                },
            ),
        )?;
    }
    if let Some(views) = &stages.views {
        let views = Arc::clone(views);
        catalog.register(
            view_spec(),
            Arc::new(
                move |arguments: &Map<String, Value>, context: &ToolContext| match view_source(
                    arguments, context,
                ) {
                    Ok(source) => {
                        let view = arguments.get("view").cloned().unwrap_or(Value::Null);
                        match views.project(source, &view) {
                            Ok(evidence) => ToolOutcome::evidence(evidence),
                            Err(refusal) => ToolOutcome::refused(refusal),
                        }
                    }
                    Err(refusal) => ToolOutcome::refused(refusal),
                },
            ),
        )?;
    }
    Ok(())
}

fn capture_spec() -> ToolSpec {
    ToolSpec {
        name: INSPECT_WEB_NETWORK_CAPTURE.into(),
        family: FAMILY_CAPTURE.into(),
        title: "Inspect a web network capture".into(),
        description: "Reads a HAR 1.2 file offline (nothing recorded is fetched) and returns its capture Evidence inline: every record with its ordinal and pointer, the container metadata, redactions (authentication header values and URL userinfo are excluded) and limitations. The session retains the Evidence, so later tools can use it as `{\"kind\": \"retained-evidence\", \"evidence_id\": …}`.".into(),
        input_schema: object(json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Absolute path of the capture file."},
                "input": {"type": "string", "enum": ["har"], "description": "The capture format (default `har`)."},
                "records": {
                    "type": "array",
                    "items": {"type": "integer", "minimum": 0},
                    "description": "Zero-based record ordinals to return, in this order (default: every record)."
                },
                "sensitive_values": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Values to exclude wherever they occur; never persisted."
                }
            },
            "required": ["path"],
            "additionalProperties": false
        })),
        annotations: read_only_annotations(),
    }
}

fn view_spec() -> ToolSpec {
    ToolSpec {
        name: INSPECT_ANALYSIS_VIEW.into(),
        family: FAMILY_VIEWS.into(),
        title: "Inspect an analysis view".into(),
        description: "Projects a view from capture Evidence and returns the view Evidence inline: the environment manifest (`{\"kind\": \"environment-manifest\", \"template_rules\": [...]}`, one tool per method and path template), the environment state (`environment-state`: entities, read views and write plans) and the environment coverage (`environment-coverage`: reads answered from the state or from recordings, and `writes.served` and `writes.withheld`, each withheld write with its `reason` and a `hint` about what to record next), when the views stage offers them. The source is Evidence this session retained (`{\"kind\": \"retained-evidence\", \"evidence_id\"}`), an Evidence file (`{\"kind\": \"evidence-file\", \"path\"}`) or inline Evidence (`{\"kind\": \"inline\", \"evidence\"}`). The session retains the result.".into(),
        input_schema: object(json!({
            "type": "object",
            "properties": {
                "source": {
                    "type": "object",
                    "properties": {
                        "kind": {"type": "string", "enum": ["retained-evidence", "evidence-file", "inline"]},
                        "evidence_id": {"type": "string"},
                        "path": {"type": "string"},
                        "evidence": {"type": "object"}
                    },
                    "required": ["kind"],
                    "additionalProperties": false
                },
                "view": {
                    "type": "object",
                    "properties": {"kind": {"type": "string"}},
                    "required": ["kind"]
                }
            },
            "required": ["source", "view"],
            "additionalProperties": false
        })),
        annotations: read_only_annotations(),
    }
}

fn absolute_path(value: Option<&Value>, pointer: &str) -> Result<PathBuf, Refusal> {
    let text = value
        .and_then(Value::as_str)
        .ok_or_else(|| Refusal::invalid_request("a path string is required").at(pointer))?;
    let path = PathBuf::from(text);
    if !path.is_absolute() {
        return Err(Refusal::invalid_request(
            "the path must be absolute: the server's working directory is not the caller's",
        )
        .at(pointer));
    }
    Ok(path)
}

fn capture_request(arguments: &Map<String, Value>) -> Result<CaptureRequest, Refusal> {
    Ok(CaptureRequest {
        path: absolute_path(arguments.get("path"), "/path")?,
        input_kind: arguments
            .get("input")
            .and_then(Value::as_str)
            .unwrap_or("har")
            .to_owned(),
        records: arguments
            .get("records")
            .and_then(Value::as_array)
            .map(|items| items.iter().filter_map(Value::as_u64).collect()),
        sensitive_values: arguments
            .get("sensitive_values")
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default(),
    })
}

fn view_source(
    arguments: &Map<String, Value>,
    context: &ToolContext,
) -> Result<SourceEvidence, Refusal> {
    let source = arguments.get("source").cloned().unwrap_or(Value::Null);
    match source.get("kind").and_then(Value::as_str) {
        Some("retained-evidence") => context
            .ledger
            .resolve(&source, "/source")
            .map(SourceEvidence::Retained),
        Some("evidence-file") => {
            absolute_path(source.get("path"), "/source/path").map(SourceEvidence::File)
        }
        Some("inline") => match source.get("evidence") {
            Some(evidence @ Value::Object(_)) => Ok(SourceEvidence::Inline(evidence.clone())),
            _ => Err(
                Refusal::invalid_request("an inline source needs an `evidence` object")
                    .at("/source/evidence"),
            ),
        },
        _ => Err(Refusal::invalid_request(
            "`source.kind` must be `retained-evidence`, `evidence-file` or `inline`",
        )
        .at("/source/kind")),
    }
}

//! The session's Evidence ledger: every Evidence document the session's tool calls retained, in
//! retention order, and what it is (a capture, a manifest, a coverage or state view, …).
//!
//! Tools accept `{"kind": "retained-evidence", "evidence_id"}` sources resolved here, and
//! completion projects identifiers from it on every request (no cache). The ledger lives as long
//! as the session: a `rea mcp` process serves one session, over stdio or HTTP.

use std::sync::Arc;

use rea_evidence::Refusal;
use serde_json::{Value, json};

use crate::identity::canonical_json;

/// An Evidence document: its exact text (as the stage wrote it, numbers keeping their lexemes)
/// and its parsed value (for projections and structured tool results).
#[derive(Debug, Clone, PartialEq)]
pub struct EvidenceDocument {
    /// The parsed document.
    pub value: Arc<Value>,
    /// The exact canonical text.
    pub canonical: Arc<str>,
}

impl EvidenceDocument {
    /// A document from the canonical text a stage wrote.
    pub fn from_canonical(text: impl Into<String>) -> Result<Self, Refusal> {
        let text = text.into();
        let value: Value = serde_json::from_str(&text).map_err(|error| {
            Refusal::internal(format!(
                "a stage returned Evidence that is not JSON: {error}"
            ))
        })?;
        Ok(Self {
            value: Arc::new(value),
            canonical: Arc::from(text),
        })
    }

    /// A document from a value (its canonical text is computed).
    pub fn from_value(value: Value) -> Self {
        let canonical = canonical_json(&value);
        Self {
            value: Arc::new(value),
            canonical: Arc::from(canonical),
        }
    }
}

/// What a retained Evidence document is.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum EvidenceKind {
    /// Capture Evidence (`inspect_web_network_capture`, `capture_browser_scenario`).
    Capture,
    /// An environment manifest view.
    Manifest,
    /// An environment coverage view.
    Coverage,
    /// An environment state view.
    State,
    /// Anything else, by operation (and view kind when there is one).
    Other(String),
}

impl EvidenceKind {
    /// Classifies an Evidence document by its `operation` and, for views, its view kind.
    pub fn classify(document: &Value) -> Self {
        let operation = document
            .get("operation")
            .and_then(Value::as_str)
            .unwrap_or_default();
        match operation {
            "inspect_web_network_capture" | "capture_browser_scenario" => return Self::Capture,
            _ => {}
        }
        match view_kind(document) {
            Some("environment-manifest") => Self::Manifest,
            Some("environment-coverage") => Self::Coverage,
            Some("environment-state") => Self::State,
            Some(kind) => Self::Other(format!("{operation}:{kind}")),
            None => Self::Other(operation.to_owned()),
        }
    }

    /// A short name for reports.
    pub fn name(&self) -> String {
        match self {
            Self::Capture => "capture".into(),
            Self::Manifest => "environment-manifest".into(),
            Self::Coverage => "environment-coverage".into(),
            Self::State => "environment-state".into(),
            Self::Other(other) => other.clone(),
        }
    }
}

/// The view kind of a view Evidence document, wherever the views stage records it
/// (`parameters.view.kind`, `view.kind`, `view`, `result.kind`, `normalized_result.kind`).
pub fn view_kind(document: &Value) -> Option<&str> {
    [
        "/parameters/view/kind",
        "/view/kind",
        "/view",
        "/result/kind",
        "/normalized_result/kind",
    ]
    .iter()
    .find_map(|pointer| document.pointer(pointer).and_then(Value::as_str))
}

/// One retained Evidence document.
#[derive(Debug, Clone, PartialEq)]
pub struct RetainedEvidence {
    /// Its `evidence_id`.
    pub evidence_id: String,
    /// Its `operation`.
    pub operation: String,
    /// What it is.
    pub kind: EvidenceKind,
    /// The whole document, as the tool returned it.
    pub document: EvidenceDocument,
}

impl RetainedEvidence {
    /// The `parent_evidence_id` of a view, when it names one.
    pub fn parent_evidence_id(&self) -> Option<&str> {
        [
            "/parent_evidence_id",
            "/result/parent_evidence_id",
            "/parameters/parent_evidence_id",
        ]
        .iter()
        .find_map(|pointer| self.document.value.pointer(pointer).and_then(Value::as_str))
    }
}

/// The Evidence a session retained, in retention order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EvidenceLedger {
    entries: Vec<RetainedEvidence>,
}

impl EvidenceLedger {
    /// An empty ledger.
    pub fn new() -> Self {
        Self::default()
    }

    /// Retains an Evidence document; a document without a string `evidence_id` is not Evidence.
    /// Retaining an id again moves it to the end (it is the latest again).
    pub fn retain(&mut self, document: EvidenceDocument) -> Result<String, Refusal> {
        let evidence_id = document
            .value
            .get("evidence_id")
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty())
            .ok_or_else(|| Refusal::internal("a tool returned Evidence without an `evidence_id`"))?
            .to_owned();
        let operation = document
            .value
            .get("operation")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let kind = EvidenceKind::classify(&document.value);
        self.entries
            .retain(|entry| entry.evidence_id != evidence_id);
        self.entries.push(RetainedEvidence {
            evidence_id: evidence_id.clone(),
            operation,
            kind,
            document,
        });
        Ok(evidence_id)
    }

    /// Forgets everything (the session ended).
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// Every retained document, in retention order.
    pub fn entries(&self) -> &[RetainedEvidence] {
        &self.entries
    }

    /// The document of this id.
    pub fn get(&self, evidence_id: &str) -> Option<&RetainedEvidence> {
        self.entries
            .iter()
            .find(|entry| entry.evidence_id == evidence_id)
    }

    /// Retained documents of one kind, in retention order.
    pub fn of_kind(&self, kind: &EvidenceKind) -> impl Iterator<Item = &RetainedEvidence> {
        self.entries.iter().filter(move |entry| &entry.kind == kind)
    }

    /// The latest retained document of one kind.
    pub fn latest(&self, kind: &EvidenceKind) -> Option<&RetainedEvidence> {
        self.of_kind(kind).last()
    }

    /// Resolves a `{"kind": "retained-evidence", "evidence_id"}` source to its document.
    /// `pointer` locates the source in the caller's arguments for refusals.
    pub fn resolve(&self, source: &Value, pointer: &str) -> Result<EvidenceDocument, Refusal> {
        let kind = source.get("kind").and_then(Value::as_str);
        if kind != Some("retained-evidence") {
            return Err(Refusal::invalid_request(
                "a retained Evidence source is `{\"kind\": \"retained-evidence\", \"evidence_id\": …}`",
            )
            .at(format!("{pointer}/kind")));
        }
        let id = source
            .get("evidence_id")
            .and_then(Value::as_str)
            .ok_or_else(|| {
                Refusal::invalid_request("`evidence_id` must be a string")
                    .at(format!("{pointer}/evidence_id"))
            })?;
        self.get(id)
            .map(|entry| entry.document.clone())
            .ok_or_else(|| {
                Refusal::invalid_request(format!(
                    "this session retained no Evidence `{id}`; Evidence ids are retained only by this session's own tool calls"
                ))
                .at(format!("{pointer}/evidence_id"))
                .with_data(json!({"reason": "not_retained", "retained": self.entries.len()}))
            })
    }

    /// `[{evidence_id, operation, kind}]` in retention order.
    pub fn summary(&self) -> Value {
        Value::Array(
            self.entries
                .iter()
                .map(|entry| {
                    json!({
                        "evidence_id": entry.evidence_id,
                        "operation": entry.operation,
                        "kind": entry.kind.name(),
                    })
                })
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evidence_is_classified_and_resolved_by_id() {
        let mut ledger = EvidenceLedger::new();
        ledger
            .retain(EvidenceDocument::from_value(
                json!({"evidence_id": "ev_a", "operation": "inspect_web_network_capture"}),
            ))
            .expect("retained");
        ledger
            .retain(EvidenceDocument::from_value(json!({
                "evidence_id": "ev_b",
                "operation": "inspect_analysis_view",
                "parameters": {"view": {"kind": "environment-manifest"}}
            })))
            .expect("retained");
        assert_eq!(
            ledger.get("ev_a").map(|e| &e.kind),
            Some(&EvidenceKind::Capture)
        );
        assert_eq!(
            ledger
                .latest(&EvidenceKind::Manifest)
                .map(|e| e.evidence_id.as_str()),
            Some("ev_b")
        );
        let source = json!({"kind": "retained-evidence", "evidence_id": "ev_a"});
        assert!(ledger.resolve(&source, "/source").is_ok());
        let missing = json!({"kind": "retained-evidence", "evidence_id": "ev_x"});
        let refusal = ledger
            .resolve(&missing, "/source")
            .expect_err("not retained");
        assert_eq!(refusal.pointer.as_deref(), Some("/source/evidence_id"));
    }

    #[test]
    fn a_document_without_an_id_is_not_retained() {
        let mut ledger = EvidenceLedger::new();
        assert!(
            ledger
                .retain(EvidenceDocument::from_value(json!({"operation": "x"})))
                .is_err()
        );
        assert!(ledger.entries().is_empty());
    }
}

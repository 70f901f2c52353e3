//! Large Evidence results as a summary plus a resource link (issue 14).
//!
//! A tool whose Evidence text is longer than [`INLINE_RESULT_MAX_BYTES`] answers with a short
//! summary (the Evidence id, operation, kind and size, and each top-level member digested: a
//! scalar as it is, an array as its length, an object as its member count) and a `resource_link`
//! to `rea://evidence/<id>`. The session retains the whole Evidence as before: `resources/read`
//! of that address returns its exact text, and tools take it as a retained-evidence source.

use serde_json::{Map, Value, json};

use crate::ledger::{EvidenceKind, EvidenceLedger};

/// Evidence texts up to this many bytes are returned inline; longer ones as a summary and link.
pub const INLINE_RESULT_MAX_BYTES: usize = 32 * 1024;

/// The address of a retained Evidence document is this prefix and its id.
pub const EVIDENCE_URI_PREFIX: &str = "rea://evidence/";

/// Strings in a summary are cut to this many characters.
const SUMMARY_TEXT_MAX_CHARS: usize = 160;

/// The `resources/read` address of retained Evidence `evidence_id`.
pub fn evidence_uri(evidence_id: &str) -> String {
    format!("{EVIDENCE_URI_PREFIX}{evidence_id}")
}

/// The Evidence id an address names, when it is an Evidence address.
pub fn evidence_id_of(uri: &str) -> Option<&str> {
    uri.strip_prefix(EVIDENCE_URI_PREFIX)
        .filter(|id| !id.is_empty())
}

/// The summary returned in place of an Evidence document `bytes` long.
pub fn summary(document: &Value, bytes: usize) -> Value {
    let evidence_id = document.get("evidence_id").and_then(Value::as_str);
    let uri = evidence_id.map(evidence_uri);
    let digest: Map<String, Value> = document
        .as_object()
        .map(|members| {
            members
                .iter()
                .filter(|(name, _)| !matches!(name.as_str(), "evidence_id" | "operation"))
                .map(|(name, value)| (name.clone(), digest(value)))
                .collect()
        })
        .unwrap_or_default();
    json!({
        "evidence_id": evidence_id,
        "operation": document.get("operation"),
        "kind": EvidenceKind::classify(document).name(),
        "inline": false,
        "bytes": bytes,
        "resource": uri,
        "summary": digest,
        "hint": format!(
            "the whole Evidence ({bytes} bytes) is the resource {}: read it with resources/read, or pass {{\"kind\": \"retained-evidence\", \"evidence_id\": \"{}\"}} to a tool that takes an Evidence source",
            uri.as_deref().unwrap_or("-"),
            evidence_id.unwrap_or("-"),
        ),
    })
}

/// One member digested: scalars as they are (long strings cut), arrays and objects by size.
fn digest(value: &Value) -> Value {
    match value {
        Value::String(text) if text.chars().count() > SUMMARY_TEXT_MAX_CHARS => {
            let cut: String = text.chars().take(SUMMARY_TEXT_MAX_CHARS).collect();
            Value::String(format!("{cut}…"))
        }
        Value::Array(items) => json!({ "items": items.len() }),
        Value::Object(members) => json!({ "members": members.len() }),
        other => other.clone(),
    }
}

/// Every retained Evidence document as `(uri, evidence id, kind name, bytes)`, in retention order.
pub fn listed(ledger: &EvidenceLedger) -> Vec<(String, String, String, usize)> {
    ledger
        .entries()
        .iter()
        .map(|entry| {
            (
                evidence_uri(&entry.evidence_id),
                entry.evidence_id.clone(),
                entry.kind.name(),
                entry.document.canonical.len(),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_names_the_evidence_and_digests_every_member() {
        let long = "x".repeat(400);
        let document = json!({
            "evidence_id": "ev_1", "operation": "inspect_web_network_capture",
            "records": [1, 2, 3], "limits": {"a": 1, "b": 2}, "input": "har", "note": long
        });
        let summary = summary(&document, 200_000);
        assert_eq!(summary["evidence_id"], "ev_1");
        assert_eq!(summary["kind"], "capture");
        assert_eq!(summary["resource"], "rea://evidence/ev_1");
        assert_eq!(summary["summary"]["records"], json!({"items": 3}));
        assert_eq!(summary["summary"]["limits"], json!({"members": 2}));
        assert_eq!(summary["summary"]["input"], "har");
        assert_eq!(
            summary["summary"]["note"].as_str().unwrap().chars().count(),
            161
        );
        assert!(summary["hint"].as_str().unwrap().contains("resources/read"));
        assert_eq!(evidence_id_of("rea://evidence/ev_1"), Some("ev_1"));
        assert_eq!(evidence_id_of("rea://evidence/"), None);
        assert_eq!(evidence_id_of("file:///x"), None);
    }
}

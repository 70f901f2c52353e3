//! Session-aware completion of guided-workflow arguments.
//!
//! Candidates are live projections of the session's Evidence ledger, computed on every request
//! (no cache): retained Evidence ids, capture ids, manifest ids, the active manifest's tools and
//! the residual unknowns (withheld writes of the latest coverage view, and the manifest's
//! unknowns), and for arguments that take a path the `.har` files and bundle folders under the
//! working directory. Matching is a prefix match on the NFKC, lowercased forms; suggestions keep their
//! original spelling, are deduplicated and sorted by code point, and at most
//! [`MAX_COMPLETION_VALUES`] are returned with `total` and `has_more`. A projection that cannot
//! read its Evidence yields no candidates: never an unverified identifier.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::ledger::{EvidenceKind, EvidenceLedger, RetainedEvidence};
use crate::text::match_form;
use crate::workflows::CompletionSource;

/// The MCP limit on values per completion reply.
pub const MAX_COMPLETION_VALUES: usize = 100;

/// A completion reply.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Completion {
    /// At most [`MAX_COMPLETION_VALUES`] values, sorted by code point.
    pub values: Vec<String>,
    /// Every match, including omitted ones.
    pub total: usize,
    /// Whether values were omitted.
    pub has_more: bool,
}

/// Matches candidates against a typed prefix.
pub fn complete<I>(candidates: I, prefix: &str) -> Completion
where
    I: IntoIterator<Item = String>,
{
    let wanted = match_form(prefix);
    let matched: BTreeSet<String> = candidates
        .into_iter()
        .filter(|candidate| match_form(candidate).starts_with(&wanted))
        .collect();
    let total = matched.len();
    Completion {
        values: matched.into_iter().take(MAX_COMPLETION_VALUES).collect(),
        total,
        has_more: total > MAX_COMPLETION_VALUES,
    }
}

/// The candidates of one source in the current session. `context` holds the other arguments the
/// client already resolved (`context.arguments`).
pub fn candidates(
    source: CompletionSource,
    ledger: &EvidenceLedger,
    context: &BTreeMap<String, String>,
) -> Vec<String> {
    let ids_of = |kind: EvidenceKind| {
        ledger
            .of_kind(&kind)
            .map(|entry| entry.evidence_id.clone())
            .collect::<Vec<_>>()
    };
    match source {
        CompletionSource::Evidence => ledger
            .entries()
            .iter()
            .map(|entry| entry.evidence_id.clone())
            .collect(),
        CompletionSource::Capture => ledger
            .of_kind(&EvidenceKind::Capture)
            .filter(|entry| is_capture_result(&entry.document.value))
            .map(|entry| entry.evidence_id.clone())
            .collect(),
        CompletionSource::Manifest => ids_of(EvidenceKind::Manifest)
            .into_iter()
            .filter(|id| {
                ledger
                    .get(id)
                    .is_some_and(|entry| manifest_tools(&entry.document.value).is_some())
            })
            .collect(),
        CompletionSource::ManifestTool => match manifest_in_context(ledger, context) {
            Some(manifest) => manifest_tool_candidates(&manifest.document.value),
            None => Vec::new(),
        },
        CompletionSource::ResidualUnknown => residual_unknowns(ledger, context),
        CompletionSource::CaptureOrPath => {
            let mut found = candidates(CompletionSource::Capture, ledger, context);
            found.extend(candidates(CompletionSource::Manifest, ledger, context));
            if let Ok(root) = std::env::current_dir() {
                found.extend(crate::paths::capture_and_bundle_paths(&root));
            }
            found
        }
    }
}

/// Whether a capture Evidence document's result is a capture: a `records` array no longer than
/// its unsigned `record_count` (the records are the selected ones). Evidence whose operation
/// names a capture but whose result does not validate is not offered.
pub fn is_capture_result(document: &Value) -> bool {
    let records = document.get("records").and_then(Value::as_array);
    let count = document.get("record_count").and_then(Value::as_u64);
    match (records, count) {
        (Some(records), Some(count)) => u64::try_from(records.len()).is_ok_and(|len| len <= count),
        _ => false,
    }
}

/// The manifest the context names (`document` as a manifest id, or as a capture id whose latest
/// manifest it is), else the active manifest. A context naming nothing retained gives none.
fn manifest_in_context<'a>(
    ledger: &'a EvidenceLedger,
    context: &BTreeMap<String, String>,
) -> Option<&'a RetainedEvidence> {
    let named = ["document", "manifest", "environment"]
        .iter()
        .find_map(|key| context.get(*key));
    match named {
        None => ledger.latest(&EvidenceKind::Manifest),
        Some(id) => {
            let entry = ledger.get(id)?;
            match entry.kind {
                EvidenceKind::Manifest => Some(entry),
                EvidenceKind::Capture => ledger
                    .of_kind(&EvidenceKind::Manifest)
                    .filter(|manifest| manifest.parent_evidence_id() == Some(id.as_str()))
                    .last(),
                _ => None,
            }
        }
    }
}

/// One manifest tool as completion needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCandidate {
    /// The MCP tool name.
    pub name: String,
    /// `GET`, `POST`, …
    pub method: String,
    /// The path template (`/api/users/{id}`).
    pub path_template: String,
}

/// The tools of a manifest Evidence document, or `None` when it has no readable tool list
/// (malformed output gives no candidates).
pub fn manifest_tools(document: &Value) -> Option<Vec<ToolCandidate>> {
    let tools = [
        "/result/tools",
        "/normalized_result/tools",
        "/view/tools",
        "/tools",
    ]
    .iter()
    .find_map(|pointer| document.pointer(pointer).and_then(Value::as_array))?;
    tools
        .iter()
        .map(|tool| {
            let text = |keys: &[&str]| {
                keys.iter()
                    .find_map(|key| tool.get(*key).and_then(Value::as_str))
                    .map(str::to_owned)
            };
            Some(ToolCandidate {
                name: text(&["name"])?,
                method: text(&["method"])?,
                path_template: text(&["path_template", "template", "path"])?,
            })
        })
        .collect()
}

/// Every `METHOD /path/template` of a manifest, and each tool name exactly one tool holds.
///
/// The reference offers every procedure address and each uniquely named procedure; here the
/// method and template identify a tool as an address does, and a name two tools share is left
/// out because it would not identify one tool.
fn manifest_tool_candidates(document: &Value) -> Vec<String> {
    let Some(tools) = manifest_tools(document) else {
        return Vec::new();
    };
    let mut names: BTreeMap<&str, BTreeSet<(&str, &str)>> = BTreeMap::new();
    for tool in &tools {
        names
            .entry(tool.name.as_str())
            .or_default()
            .insert((tool.method.as_str(), tool.path_template.as_str()));
    }
    let mut out: Vec<String> = tools
        .iter()
        .map(|tool| format!("{} {}", tool.method, tool.path_template))
        .collect();
    out.extend(
        names
            .into_iter()
            .filter(|(_, addresses)| addresses.len() == 1)
            .map(|(name, _)| name.to_owned()),
    );
    out
}

/// Withheld-write tools of the latest coverage view (of the manifest in context when one is
/// named), and the unknowns the active manifest lists.
fn residual_unknowns(ledger: &EvidenceLedger, context: &BTreeMap<String, String>) -> Vec<String> {
    let mut out = Vec::new();
    let manifest = manifest_in_context(ledger, context);
    let parent = manifest.and_then(RetainedEvidence::parent_evidence_id);
    let coverage = ledger
        .of_kind(&EvidenceKind::Coverage)
        .filter(|coverage| parent.is_none() || coverage.parent_evidence_id() == parent)
        .last();
    if let Some(coverage) = coverage {
        out.extend(withheld_tools(&coverage.document.value));
    }
    if let Some(manifest) = manifest {
        out.extend(manifest_unknowns(&manifest.document.value));
    }
    out
}

/// The `tool` of every withheld write in a coverage summary.
pub fn withheld_tools(document: &Value) -> Vec<String> {
    let withheld = [
        "/result/coverage/writes/withheld",
        "/result/writes/withheld",
        "/coverage/writes/withheld",
        "/writes/withheld",
    ]
    .iter()
    .find_map(|pointer| document.pointer(pointer).and_then(Value::as_array));
    withheld
        .map(|items| {
            items
                .iter()
                .filter_map(|item| item.get("tool").and_then(Value::as_str))
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// The ids (or names) of the unknowns a manifest lists.
pub fn manifest_unknowns(document: &Value) -> Vec<String> {
    let unknowns = ["/result/unknowns", "/unknowns"]
        .iter()
        .find_map(|pointer| document.pointer(pointer).and_then(Value::as_array));
    unknowns
        .map(|items| {
            items
                .iter()
                .filter_map(|item| match item {
                    Value::String(text) => Some(text.clone()),
                    Value::Object(object) => ["subject", "id", "unknown", "kind", "name"]
                        .iter()
                        .find_map(|key| object.get(*key).and_then(Value::as_str))
                        .map(str::to_owned),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::EvidenceDocument;
    use serde_json::json;

    // contract: COMPLETION-026, COMPLETION-027, COMPLETION-028, COMPLETION-029, COMPLETION-030
    #[test]
    fn prefix_matching_is_normalized_and_case_insensitive_and_keeps_spellings() {
        let found = complete(
            [
                "Ｅv_Beta".to_owned(),
                "ev_alpha".to_owned(),
                "EV_alpha".to_owned(),
                "ev_alpha".to_owned(),
                "other".to_owned(),
            ],
            "EV_",
        );
        assert_eq!(found.values, ["EV_alpha", "ev_alpha", "Ｅv_Beta"]);
        assert_eq!(found.total, 3);
        assert!(!found.has_more);
    }

    // contract: COMPLETION-033, COMPLETION-034, COMPLETION-035, COMPLETION-037, COMPLETION-038
    #[test]
    fn more_than_one_hundred_matches_are_cut_with_total_and_has_more() {
        let candidates: Vec<String> = (0..150).map(|n| format!("ev_{n:03}")).collect();
        let found = complete(candidates.clone(), "ev_");
        assert_eq!(found.values.len(), 100);
        assert_eq!(found.total, 150);
        assert!(found.has_more);
        assert_eq!(found.values.last().map(String::as_str), Some("ev_099"));
        let narrower = complete(candidates, "ev_14");
        assert_eq!(
            narrower.values,
            (140..150).map(|n| format!("ev_{n}")).collect::<Vec<_>>()
        );
        assert!(!narrower.has_more);
    }

    fn ledger_with_manifest(tools: Value) -> EvidenceLedger {
        let mut ledger = EvidenceLedger::new();
        ledger
            .retain(EvidenceDocument::from_value(
                json!({"evidence_id": "ev_cap", "operation": "inspect_web_network_capture"}),
            ))
            .expect("capture");
        ledger
            .retain(EvidenceDocument::from_value(json!({
                "evidence_id": "ev_man",
                "operation": "inspect_analysis_view",
                "parent_evidence_id": "ev_cap",
                "parameters": {"view": {"kind": "environment-manifest"}},
                "result": {"tools": tools}
            })))
            .expect("manifest");
        ledger
    }

    // contract: COMPLETION-015, COMPLETION-016, COMPLETION-031, COMPLETION-032
    #[test]
    fn a_tool_name_two_tools_share_is_not_offered_but_their_addresses_are() {
        let ledger = ledger_with_manifest(json!([
            {"name": "get_posts", "method": "GET", "path_template": "/posts"},
            {"name": "get_item", "method": "GET", "path_template": "/a/{id}"},
            {"name": "get_item", "method": "GET", "path_template": "/b/{id}"}
        ]));
        let mut values = candidates(CompletionSource::ManifestTool, &ledger, &BTreeMap::new());
        values.sort();
        assert_eq!(
            values,
            ["GET /a/{id}", "GET /b/{id}", "GET /posts", "get_posts"]
        );
    }

    // contract: COMPLETION-017, COMPLETION-043, COMPLETION-045
    #[test]
    fn context_selects_the_manifest_and_malformed_evidence_gives_nothing() {
        let ledger = ledger_with_manifest(json!([
            {"name": "get_posts", "method": "GET", "path_template": "/posts"}
        ]));
        let by_capture = BTreeMap::from([("document".to_owned(), "ev_cap".to_owned())]);
        assert_eq!(
            candidates(CompletionSource::ManifestTool, &ledger, &by_capture).len(),
            2
        );
        let unknown = BTreeMap::from([("document".to_owned(), "Notes".to_owned())]);
        assert!(candidates(CompletionSource::ManifestTool, &ledger, &unknown).is_empty());
        let malformed = ledger_with_manifest(json!([{"name": 3}]));
        assert!(
            candidates(CompletionSource::ManifestTool, &malformed, &BTreeMap::new()).is_empty()
        );
        assert!(candidates(CompletionSource::Manifest, &malformed, &BTreeMap::new()).is_empty());
    }

    fn retain(ledger: &mut EvidenceLedger, document: Value) {
        ledger
            .retain(EvidenceDocument::from_value(document))
            .expect("retained");
    }

    // contract: COMPLETION-013, COMPLETION-022
    // Adapted: the reference's documents and process captures are rea's capture Evidence.
    #[test]
    fn document_completion_offers_validated_captures_only() {
        let mut ledger = ledger_with_manifest(json!([
            {"name": "get_posts", "method": "GET", "path_template": "/posts"}
        ]));
        retain(
            &mut ledger,
            json!({"evidence_id": "ev_good", "operation": "inspect_web_network_capture",
                   "record_count": 3, "records": [{}, {}]}),
        );
        retain(
            &mut ledger,
            json!({"evidence_id": "ev_scenario", "operation": "capture_browser_scenario",
                   "record_count": 0, "records": []}),
        );
        // A capture operation whose result does not validate: no records, records not an
        // array, more records than the capture holds.
        for (id, result) in [
            ("ev_no_records", json!({"record_count": 1})),
            (
                "ev_records_text",
                json!({"record_count": 1, "records": "x"}),
            ),
            (
                "ev_overfull",
                json!({"record_count": 1, "records": [{}, {}]}),
            ),
            ("ev_no_count", json!({"records": []})),
        ] {
            let mut document = result;
            document["evidence_id"] = json!(id);
            document["operation"] = json!("inspect_web_network_capture");
            retain(&mut ledger, document);
        }
        let mut documents = candidates(CompletionSource::Capture, &ledger, &BTreeMap::new());
        documents.sort();
        // `ev_cap` (the manifest's parent in the fixture) has no records either: not offered.
        assert_eq!(documents, ["ev_good", "ev_scenario"]);
        // Manifests and other Evidence are never documents.
        assert!(!documents.contains(&"ev_man".to_owned()));
    }

    // contract: COMPLETION-023
    #[test]
    fn manifest_completion_offers_schema_valid_manifests_only() {
        let mut ledger = ledger_with_manifest(json!([
            {"name": "get_posts", "method": "GET", "path_template": "/posts"}
        ]));
        for (id, tools) in [
            ("ev_man_empty", json!([])),
            (
                "ev_man_no_method",
                json!([{"name": "x", "path_template": "/x"}]),
            ),
            ("ev_man_tools_object", json!({"name": "x"})),
        ] {
            retain(
                &mut ledger,
                json!({"evidence_id": id, "operation": "inspect_analysis_view",
                       "parameters": {"view": {"kind": "environment-manifest"}},
                       "tools": tools}),
            );
        }
        let mut manifests = candidates(CompletionSource::Manifest, &ledger, &BTreeMap::new());
        manifests.sort();
        assert_eq!(manifests, ["ev_man", "ev_man_empty"]);
    }

    // contract: COMPLETION-014
    #[test]
    fn procedure_completion_reads_the_whole_manifest() {
        let tools: Vec<Value> = (0..150)
            .map(|n| {
                json!({"name": format!("get_item_{n:03}"), "method": "GET",
                            "path_template": format!("/items{n:03}/{{id}}")})
            })
            .collect();
        let ledger = ledger_with_manifest(Value::Array(tools));
        let found = complete(
            candidates(CompletionSource::ManifestTool, &ledger, &BTreeMap::new()),
            "",
        );
        // Every address and every (unique) name of all 150 tools, not a first page of them.
        assert_eq!(found.total, 300);
        assert!(found.has_more);
        let last = complete(
            candidates(CompletionSource::ManifestTool, &ledger, &BTreeMap::new()),
            "get_item_149",
        );
        assert_eq!(last.values, ["get_item_149"]);
        let last_address = complete(
            candidates(CompletionSource::ManifestTool, &ledger, &BTreeMap::new()),
            "get /items149",
        );
        assert_eq!(last_address.values, ["GET /items149/{id}"]);
    }

    // contract: COMPLETION-020, COMPLETION-025
    #[test]
    fn evidence_and_withheld_writes_come_from_the_ledger() {
        let mut ledger = ledger_with_manifest(json!([]));
        ledger
            .retain(EvidenceDocument::from_value(json!({
                "evidence_id": "ev_cov",
                "operation": "inspect_analysis_view",
                "parent_evidence_id": "ev_cap",
                "parameters": {"view": {"kind": "environment-coverage"}},
                "result": {"coverage": {"writes": {
                    "served": [{"tool": "delete_posts_by_id"}],
                    "withheld": [{"tool": "post_posts", "reason": "unconfirmed"}]
                }}}
            })))
            .expect("coverage");
        let mut evidence = candidates(CompletionSource::Evidence, &ledger, &BTreeMap::new());
        evidence.sort();
        assert_eq!(evidence, ["ev_cap", "ev_cov", "ev_man"]);
        assert_eq!(
            candidates(CompletionSource::ResidualUnknown, &ledger, &BTreeMap::new()),
            ["post_posts"]
        );
    }
}

//! What the status page and the commands show of an environment: the state's coverage summary
//! ([`rea_state::coverage::summary`]) read into `rea-serve`'s [`CoverageTable`], and the status
//! page's data of a state environment (each tool's source, the live state's counts) and of a
//! replay one.

use std::collections::BTreeMap;

use rea_manifest::Environment;
use rea_serve::status::{CoverageTable, StatusPage, ToolStatus, WriteRow};
use rea_state::model::ViewDetail;
use rea_state::service::StateService;
use serde_json::Value;

/// The status page of a state environment: the state's Evidence id, each served tool's source
/// (a read view's kind, or why it answers from its recordings; a served write's effect), the
/// coverage, and the live state's entities per type, documents and served writes.
pub fn state_status(service: &StateService, tools: &[rea_serve::ToolDescriptor]) -> StatusPage {
    let derived = service.derived();
    let tool_status = |name: &str| -> (String, String) {
        if let Some(view) = derived.views.iter().find(|view| view.tool == name) {
            let source = match &view.detail {
                ViewDetail::Recorded { reason } => format!("recording ({reason})"),
                _ => format!("state ({})", view.kind()),
            };
            return ("read".to_owned(), source);
        }
        match derived.write_plans.iter().find(|plan| plan.tool == name) {
            Some(plan) => (
                plan.effect.name().to_owned(),
                "state (served write)".to_owned(),
            ),
            None => (String::new(), String::new()),
        }
    };
    let live = service.read();
    let mut entities: BTreeMap<String, u64> = BTreeMap::new();
    for entity in live.entities() {
        *entities.entry(entity.entity_type.clone()).or_default() += 1;
    }
    StatusPage {
        serving: format!("from the state {}", service.state_evidence_id()),
        tools: tools
            .iter()
            .map(|tool| {
                let (kind, source) = tool_status(&tool.name);
                ToolStatus {
                    name: tool.name.clone(),
                    kind,
                    source,
                }
            })
            .collect(),
        coverage: Some(coverage_table(&rea_state::coverage::summary(derived))),
        entities: entities.into_iter().collect(),
        documents: Some(live.documents().count() as u64),
        writes: Some(live.writes()),
    }
}

/// The status page of a replay environment: every tool replays its recordings.
pub fn replay_status(environment: &Environment) -> StatusPage {
    StatusPage {
        serving: "replay (every tool answers from its recordings)".to_owned(),
        tools: environment
            .tools()
            .iter()
            .map(|tool| ToolStatus {
                name: tool.name.clone(),
                kind: tool.method.clone(),
                source: "recording".to_owned(),
            })
            .collect(),
        ..StatusPage::default()
    }
}

/// The coverage table of a coverage summary (`{"reads": {…}, "writes": {"served", "withheld"}}`,
/// as the build report's `coverage` and the `environment-coverage` view carry it).
pub fn coverage_table(summary: &Value) -> CoverageTable {
    let count = |pointer: &str| {
        summary
            .pointer(pointer)
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    let text = |row: &Value, key: &str| {
        row.get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let rows = |pointer: &str| {
        summary
            .pointer(pointer)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
    };
    let mut writes: Vec<WriteRow> = rows("/writes/served")
        .map(|row| WriteRow {
            tool: text(row, "tool"),
            // A write carried over from a sibling collection says so (opt-in sibling transfer).
            effect: match row.get("inferred_from").and_then(Value::as_str) {
                Some(source) => format!("{}, inferred from {source}", text(row, "effect")),
                None => text(row, "effect"),
            },
            reason: None,
            hint: None,
        })
        .collect();
    writes.extend(rows("/writes/withheld").map(|row| WriteRow {
        tool: text(row, "tool"),
        effect: text(row, "effect"),
        reason: Some(text(row, "reason")),
        hint: Some(text(row, "hint")),
    }));
    CoverageTable {
        reads_state: count("/reads/state"),
        reads_recorded: count("/reads/recorded"),
        recorded_reasons: summary
            .pointer("/reads/recorded_reasons")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(reason, count)| (reason.clone(), count.as_u64().unwrap_or(0)))
            .collect(),
        writes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_summary_reads_into_served_then_withheld_rows() {
        let summary = json!({
            "reads": {"state": 3, "recorded": 2, "recorded_reasons": {"query-varies": 1, "method-replay": 1}},
            "writes": {
                "served": [{"tool": "delete_x", "effect": "delete"}],
                "withheld": [{"tool": "post_x", "effect": "create", "reason": "unconfirmed",
                              "hint": "Read it back.", "exemplar_ordinal": 4, "contradicted_by": null}]
            }
        });
        let table = coverage_table(&summary);
        assert_eq!((table.reads_state, table.reads_recorded), (3, 2));
        assert_eq!(
            table.recorded_reasons,
            [
                ("method-replay".to_owned(), 1),
                ("query-varies".to_owned(), 1)
            ]
        );
        assert_eq!(table.served().count(), 1);
        let withheld: Vec<&WriteRow> = table.withheld().collect();
        assert_eq!(withheld[0].tool, "post_x");
        assert_eq!(withheld[0].hint.as_deref(), Some("Read it back."));
    }
}

//! What the status page and the commands show of a state environment: the state's coverage
//! summary ([`rea_state::coverage::summary`]) read into `rea-serve`'s [`CoverageTable`].

use rea_serve::status::{CoverageTable, WriteRow};
use serde_json::Value;

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
            effect: text(row, "effect"),
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

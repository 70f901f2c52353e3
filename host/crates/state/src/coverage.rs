//! Environment coverage: the state's read views and write plans summarized, as the build report's
//! `coverage` member and the `environment-coverage` view report them.
//!
//! ```json
//! {"reads": {"state": 36, "recorded": 6, "recorded_reasons": {"query-varies": 3}},
//!  "writes": {"served": [{"tool": "delete_folders_by_uid", "effect": "delete"}],
//!             "withheld": [{"tool": "post_folders", "effect": "create", "reason": "unconfirmed",
//!                           "hint": "…", "exemplar_ordinal": 94, "contradicted_by": null}]}}
//! ```
//!
//! A served write carried over from a sibling collection's confirmed write (opt-in sibling
//! transfer) names its source: `{"tool": "post_comments", "effect": "create", "inferred_from":
//! "post_posts"}`; so does a read carried over from a sibling's, in `reads.inferred` (left out
//! when none): `{"tool": "get_people_by_people_id_and_segment_2_and_id", "inferred_from":
//! "get_projects_by_project_id_and_segment_2_and_id"}`.
//!
//! `HEAD`, `OPTIONS` and `TRACE` tools count as recorded reads (`method-replay`). The view
//! summarizes the state as derived: serve-time admission (the discovery reservation, the
//! `data/add` size) is not applied here.

use std::collections::BTreeMap;

use rea_evidence::{Evidence, Refusal};
use rea_manifest::STAGE;
use rea_manifest::evidence::VIEW_OPERATION;
use serde::Serialize;
use serde_json::{Value, json};

use crate::evidence::ProjectedState;
use crate::model::{StateView, ViewDetail};

/// The view kind.
pub const COVERAGE_VIEW_KIND: &str = "environment-coverage";

/// The coverage summary of a state.
pub fn summary(state: &StateView) -> Value {
    let mut recorded_reasons: BTreeMap<String, u64> = BTreeMap::new();
    let mut backed = 0u64;
    let mut recorded = 0u64;
    for view in &state.views {
        match &view.detail {
            ViewDetail::Recorded { reason } => {
                recorded += 1;
                *recorded_reasons.entry(reason.clone()).or_default() += 1;
            }
            _ => backed += 1,
        }
    }
    let served: Vec<Value> = state
        .write_plans
        .iter()
        .filter(|plan| plan.served)
        .map(|plan| match &plan.inferred_from {
            Some(source) => json!({
                "tool": plan.tool,
                "effect": plan.effect.name(),
                "inferred_from": source,
            }),
            None => json!({"tool": plan.tool, "effect": plan.effect.name()}),
        })
        .collect();
    let withheld: Vec<Value> = state
        .write_plans
        .iter()
        .filter(|plan| !plan.served)
        .map(|plan| {
            json!({
                "tool": plan.tool,
                "effect": plan.effect.name(),
                "reason": plan.reason,
                "hint": plan.hint,
                "exemplar_ordinal": plan.exemplar_ordinal,
                "contradicted_by": plan.contradicted_by,
            })
        })
        .collect();
    let mut reads = json!({
        "state": backed,
        "recorded": recorded,
        "recorded_reasons": recorded_reasons,
    });
    let inferred = inferred_reads(state);
    if !inferred.is_empty() {
        reads["inferred"] = Value::Array(inferred);
    }
    json!({
        "reads": reads,
        "writes": {"served": served, "withheld": withheld},
    })
}

/// The reads and query arguments the state offers carried over from a sibling's (opt-in sibling
/// transfer), each naming its source: a sibling read's lent route ([`crate::sibling_reads`]).
fn inferred_reads(state: &StateView) -> Vec<Value> {
    let mut listed: Vec<&str> = Vec::new();
    let mut inferred = Vec::new();
    for route in &state.linkage_routes {
        let Some(source) = &route.inferred_from else {
            continue;
        };
        if !listed.contains(&route.tool.as_str()) {
            listed.push(&route.tool);
            inferred.push(json!({"tool": route.tool, "inferred_from": source}));
        }
    }
    inferred
}

#[derive(Serialize)]
struct CoverageDocument<'a> {
    manifest_evidence_id: &'a str,
    parameters: Value,
    parent_evidence_id: &'a str,
    reads: &'a Value,
    rule_stages: &'a [crate::rules::RuleStageRef],
    schema_version: u64,
    state_evidence_id: &'a str,
    template_rules: &'a [String],
    view: &'static str,
    writes: &'a Value,
}

/// Seals the coverage of a projected state as `environment-coverage` Evidence (its parent is the
/// capture; it names the state Evidence it summarizes).
pub fn seal_coverage(projected: &ProjectedState) -> Result<Evidence, Refusal> {
    let state = &projected.state;
    let summary = summary(state);
    let document = CoverageDocument {
        manifest_evidence_id: &state.manifest_evidence_id,
        parameters: json!({"view": {"kind": COVERAGE_VIEW_KIND, "template_rules": state.template_rules}}),
        parent_evidence_id: &state.parent_evidence_id,
        reads: &summary["reads"],
        rule_stages: &state.rule_stages,
        schema_version: 1,
        state_evidence_id: projected.evidence.id(),
        template_rules: &state.template_rules,
        view: COVERAGE_VIEW_KIND,
        writes: &summary["writes"],
    };
    Evidence::seal_value(VIEW_OPERATION, &document).map_err(|refusal| refusal.in_stage(STAGE))
}

/// A short human summary of a coverage view.
pub fn text_summary(evidence: &Evidence, state: &StateView) -> String {
    let summary = summary(state);
    let mut text = format!(
        "environment coverage {}\n  reads: {} from the state, {} recorded\n",
        evidence.id(),
        summary["reads"]["state"],
        summary["reads"]["recorded"],
    );
    if let Some(reasons) = summary["reads"]["recorded_reasons"].as_object() {
        for (reason, count) in reasons {
            text.push_str(&format!("    recorded ({reason}): {count}\n"));
        }
    }
    for inferred in summary["reads"]["inferred"]
        .as_array()
        .into_iter()
        .flatten()
    {
        text.push_str(&format!(
            "  read {}: inferred from {}\n",
            inferred["tool"].as_str().unwrap_or_default(),
            inferred["inferred_from"].as_str().unwrap_or_default(),
        ));
    }
    for plan in &state.write_plans {
        if plan.served {
            let inferred = plan
                .inferred_from
                .as_ref()
                .map(|source| format!(", inferred from {source}"))
                .unwrap_or_default();
            text.push_str(&format!(
                "  write {} ({}): served{inferred}\n",
                plan.tool,
                plan.effect.name()
            ));
        } else {
            text.push_str(&format!(
                "  write {} ({}): withheld, {}{}\n    {}\n",
                plan.tool,
                plan.effect.name(),
                plan.reason.as_deref().unwrap_or(""),
                plan.contradicted_by
                    .map(|read| format!(" by record {read}"))
                    .unwrap_or_default(),
                plan.hint.as_deref().unwrap_or(""),
            ));
        }
    }
    text
}

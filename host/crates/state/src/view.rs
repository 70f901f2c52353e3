//! The `environment-state` and `environment-coverage` view requests, for
//! `rea inspect-analysis-view`:
//!
//! ```json
//! {"source": {"kind": "inline", "evidence": {…}} | {"kind": "evidence-file", "path": "capture.json"},
//!  "view": {"kind": "environment-state" | "environment-coverage", "template_rules": ["after-uid-literal", …]}}
//! ```
//!
//! They take the same members as the `environment-manifest` view, so they are read by the
//! manifest crate's request parser (the view kind swapped, at the raw-text level so inline
//! Evidence keeps its exact spelling and id); refusals keep their pointers and name the view
//! kind. The coverage view derives the state as the state view does (with the same rule stages)
//! and summarizes it ([`crate::coverage`]).

use std::collections::BTreeMap;
use std::path::Path;

use rea_evidence::{Evidence, Refusal, read_bounded};
use rea_manifest::evidence::VIEW_FILE_MAX_BYTES;
use rea_manifest::{STAGE, ViewRequest, ViewSpec, parse_view_request};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::evidence::{ProjectedState, project_state_evidence};
use crate::model::{STATE_VIEW_KIND, ViewDetail};
use crate::rules::RuleSet;

const MANIFEST_KIND: &str = "environment-manifest";

/// Which view a state view request asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateViewKind {
    /// `environment-state`: the state Evidence.
    State,
    /// `environment-coverage`: its summary.
    Coverage,
}

impl StateViewKind {
    /// The view kind's name.
    pub fn name(self) -> &'static str {
        match self {
            StateViewKind::State => STATE_VIEW_KIND,
            StateViewKind::Coverage => crate::coverage::COVERAGE_VIEW_KIND,
        }
    }
}

/// When `text` is a view request of kind `environment-state` or `environment-coverage`, the
/// request read as the manifest view's parser reads it (same source and rules); `None` for any
/// other request.
pub fn state_view_request(text: &str) -> Option<(StateViewKind, Result<ViewRequest, Refusal>)> {
    let top: BTreeMap<String, &RawValue> = serde_json::from_str(text).ok()?;
    let mut view: serde_json::Map<String, Value> =
        serde_json::from_str(top.get("view")?.get()).ok()?;
    let kind = match view.get("kind").and_then(Value::as_str) {
        Some(STATE_VIEW_KIND) => StateViewKind::State,
        Some(crate::coverage::COVERAGE_VIEW_KIND) => StateViewKind::Coverage,
        _ => return None,
    };
    view.insert("kind".to_owned(), Value::String(MANIFEST_KIND.to_owned()));
    let mut rewritten = String::from("{");
    for (index, (key, raw)) in top.iter().enumerate() {
        if index > 0 {
            rewritten.push(',');
        }
        rewritten.push_str(&serde_json::to_string(key).unwrap_or_default());
        rewritten.push(':');
        if key == "view" {
            rewritten.push_str(&Value::Object(view.clone()).to_string());
        } else {
            rewritten.push_str(raw.get());
        }
    }
    rewritten.push('}');
    Some((
        kind,
        parse_view_request(&rewritten).map_err(|mut refusal| {
            refusal.message = refusal.message.replace(MANIFEST_KIND, kind.name());
            refusal
        }),
    ))
}

/// A projected state or coverage view: its Evidence and a short human summary.
#[derive(Debug)]
pub struct ProjectedView {
    /// The view's Evidence.
    pub evidence: Evidence,
    /// The text summary.
    pub summary: String,
}

/// Projects a state or coverage view of capture Evidence (what `inspect_state_view` does once
/// the request is read; `rea mcp`'s `inspect_analysis_view` can call it with the same inputs).
pub fn project_view(
    kind: StateViewKind,
    capture: &Evidence,
    template_rules: &rea_manifest::TemplateRules,
    rules: &RuleSet,
) -> Result<ProjectedView, Refusal> {
    let projected = project_state_evidence(capture, template_rules, rules).map_err(|refusal| {
        if refusal.stage.is_none() {
            refusal.in_stage(STAGE)
        } else {
            refusal
        }
    })?;
    Ok(match kind {
        StateViewKind::State => ProjectedView {
            summary: text_summary(&projected),
            evidence: projected.evidence,
        },
        StateViewKind::Coverage => {
            let evidence = crate::coverage::seal_coverage(&projected)?;
            ProjectedView {
                summary: crate::coverage::text_summary(&evidence, &projected.state),
                evidence,
            }
        }
    })
}

/// Reads a view request file; when it asks for the `environment-state` or
/// `environment-coverage` view, projects it with the rule stages. `None` when the file holds
/// another view kind (or cannot be read as a request at all: the manifest view's own reading then
/// reports the problem).
pub fn inspect_state_view(view: &Path, rules: &RuleSet) -> Option<Result<ProjectedView, Refusal>> {
    let file = read_bounded(view, VIEW_FILE_MAX_BYTES).ok()?;
    let text = std::str::from_utf8(&file.bytes).ok()?;
    let (kind, request) = state_view_request(text)?;
    Some(request.and_then(|request| {
        let base = file.path.parent().unwrap_or(Path::new("."));
        let capture: Evidence = request.source.load(base)?;
        let ViewSpec::EnvironmentManifest { template_rules } = &request.view;
        project_view(kind, &capture, template_rules, rules)
    }))
}

/// A short human summary of a state view.
pub fn text_summary(projected: &ProjectedState) -> String {
    let state = &projected.state;
    let (backed, recorded) = state.coverage();
    let mut text = format!(
        "environment state {}\n  parent evidence: {}\n  manifest: {}\n  template rules: {}\n  first write: {}\n  related writes: {}\n  types: {}\n  entities: {}\n  documents: {}\n  read views: {} ({backed} from the state, {recorded} recorded)\n",
        projected.evidence.id(),
        state.parent_evidence_id,
        state.manifest_evidence_id,
        if state.template_rules.is_empty() {
            "none (format rules only)".to_owned()
        } else {
            state.template_rules.join(", ")
        },
        state
            .first_write_ordinal
            .map_or_else(|| "none".to_owned(), |ordinal| format!("record {ordinal}")),
        state.related_writes.len(),
        state.types.len(),
        state.entities.len(),
        state.documents.len(),
        state.views.len(),
    );
    text.push_str(&format!(
        "  write clock: {}\n  write plans: {} ({} served)\n",
        state.write_clock.as_deref().unwrap_or("none"),
        state.write_plans.len(),
        state.served_writes().count()
    ));
    for entity_type in &state.types {
        text.push_str(&format!(
            "    type {} (identity {:?})\n",
            entity_type.collection_template, entity_type.identity_field
        ));
    }
    for view in &state.views {
        let detail = view_detail_text(view);
        text.push_str(&format!(
            "    {} {} {}: {detail}\n",
            view.tool, view.method, view.path_template
        ));
    }
    for plan in &state.write_plans {
        let status = if plan.served {
            "served".to_owned()
        } else {
            format!("withheld ({})", plan.reason.as_deref().unwrap_or(""))
        };
        text.push_str(&format!(
            "    {} {} {}: {} {status}\n",
            plan.tool,
            plan.method,
            plan.path_template,
            plan.effect.name()
        ));
    }
    text
}

/// How the text summary names a read view's kind.
fn view_detail_text(view: &crate::model::ReadView) -> String {
    match &view.detail {
        ViewDetail::Recorded { reason } => format!("recorded ({reason})"),
        ViewDetail::List(list) => format!(
            "list of {} ({} lines{})",
            list.entity_type,
            list.lines.len(),
            if list.query.is_some() {
                ", query model"
            } else {
                ""
            }
        ),
        ViewDetail::Item(item) => format!("item of {}", item.entity_type),
        ViewDetail::BodyQuery(query) => format!(
            "body query of {} ({} recordings)",
            query.entity_type,
            query.record_ordinals.len()
        ),
        ViewDetail::Document(document) if document.is_keyed() => format!(
            "documents by id ({} paths, first {})",
            document.keyed.len() + 1,
            document.path
        ),
        ViewDetail::Document(document) => format!("document {}", document.path),
        ViewDetail::Member(member) => format!("member of {}", member.entity_type),
        ViewDetail::Count(count) => format!("count of {}", count.entity_type),
        ViewDetail::IdMap(map) => format!("{} of {} by id", map.member, map.entity_type),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_state_requests_are_taken() {
        // contract: BUILD-017
        assert!(state_view_request(r#"{"source": {"kind": "inline", "evidence": {}}, "view": {"kind": "environment-manifest"}}"#).is_none());
        assert!(state_view_request("nope").is_none());
        let (kind, request) = state_view_request(
            r#"{"source": {"kind": "inline", "evidence": {"n": 1.50}}, "view": {"kind": "environment-state", "template_rules": ["opaque-token"]}}"#,
        )
        .unwrap();
        assert_eq!(kind, StateViewKind::State);
        let request = request.unwrap();
        let rea_manifest::ViewSource::Inline { evidence } = &request.source else {
            panic!("inline expected")
        };
        // The inline Evidence keeps its spelling.
        assert_eq!(evidence.get(), r#"{"n": 1.50}"#);
        let ViewSpec::EnvironmentManifest { template_rules } = &request.view;
        assert_eq!(template_rules.names(), vec!["opaque-token"]);
        let (_, refused) = state_view_request(
            r#"{"source": {"kind": "inline", "evidence": {}}, "view": {"kind": "environment-coverage", "rules": []}}"#,
        )
        .unwrap();
        let refusal = refused.unwrap_err();
        assert_eq!(refusal.pointer.as_deref(), Some("/view/rules"));
        assert!(
            refusal.message.contains("environment-coverage"),
            "{}",
            refusal.message
        );
    }
}

//! An example third-party `rea` rule plugin: **revision counters**.
//!
//! Many applications keep an integer revision on each entity (`version`, `revision`,
//! `lock_version`, …) that every update increments, whatever the update sent. No built-in rule
//! explains that change, so without this plugin such an update is withheld as
//! `unexplained-change`. Loaded by a pipeline, this plugin learns which integer field each recorded
//! update incremented by exactly one and, when an update is served, sets it one past the held value.
//!
//! The plugin is built outside the host: it depends only on `rea-plugin-api`, and the host loads its
//! shared library by path (`[[plugins]] path = …` in a pipeline file).
//!
//! It also contributes an MCP tool to `rea mcp` (a `tool` stage in its own family, `revisions`):
//! `revision_counter_check` says, for one entity read before and after an update, which fields the
//! rule would explain — a quick way for an agent to see why an update is or is not served.

use rea_plugin_api::contracts::SCHEMA_VERSION;
use rea_plugin_api::contracts::rule::{
    ApplyOutcome, ApplyRequest, LearnOutcome, LearnRequest, ObservedCall, ObservedRead,
};
use rea_plugin_api::contracts::tool::ToolDescription;
use rea_plugin_api::{AgentTool, Plugin, PluginError, StageInfo, StateRule};
use serde_json::{Map, Value, json};

/// Field names tried when the pipeline names none.
pub const DEFAULT_FIELDS: [&str; 4] = ["version", "revision", "rev", "lock_version"];

/// The revision-counter rule.
#[derive(Debug, Default, Clone, Copy)]
pub struct RevisionCounter;

impl RevisionCounter {
    fn candidate_fields(request: &LearnRequest) -> Result<Vec<String>, PluginError> {
        match request.options.get("fields") {
            None => Ok(DEFAULT_FIELDS
                .iter()
                .map(|field| (*field).to_owned())
                .collect()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| {
                    item.as_str().map(str::to_owned).ok_or_else(|| {
                        PluginError::new("invalid_option", "option `fields` must list field names")
                    })
                })
                .collect(),
            Some(_) => Err(PluginError::new(
                "invalid_option",
                "option `fields` must be an array of field names",
            )),
        }
    }
}

/// What one recorded call says about a field: incremented by one, contradicted, or silent.
#[derive(Debug, PartialEq, Eq)]
enum Evidence {
    Incremented,
    Contradicted,
    Silent,
}

fn evidence_for(field: &str, call: &ObservedCall) -> Evidence {
    let Some(before) = call
        .entity_before
        .as_ref()
        .and_then(|entity| entity.get(field))
    else {
        return Evidence::Silent;
    };
    let Some(before) = before.as_i64() else {
        return Evidence::Contradicted;
    };
    // A call that sent the field with another value than it held set it itself.
    if let Some(sent) = call.request_body.as_ref().and_then(|body| body.get(field))
        && sent.as_i64() != Some(before)
    {
        return Evidence::Contradicted;
    }
    let after = call
        .reads_after
        .iter()
        .find_map(|read| read.entity.as_ref())
        .or(call.response_body.as_ref())
        .and_then(|entity| entity.get(field));
    match after.and_then(Value::as_i64) {
        Some(after) if after == before + 1 => Evidence::Incremented,
        Some(_) => Evidence::Contradicted,
        None => Evidence::Silent,
    }
}

impl StateRule for RevisionCounter {
    fn learn(&self, request: &LearnRequest) -> Result<LearnOutcome, PluginError> {
        if !request.effect.starts_with("update") {
            return Ok(LearnOutcome::NoExplanation {
                reason: format!(
                    "revision counters change on updates, not on `{}`",
                    request.effect
                ),
                schema_version: SCHEMA_VERSION,
            });
        }
        let mut explained = Vec::new();
        for field in Self::candidate_fields(request)? {
            let evidence: Vec<Evidence> = request
                .calls
                .iter()
                .map(|call| evidence_for(&field, call))
                .collect();
            let incremented = evidence.contains(&Evidence::Incremented);
            let contradicted = evidence.contains(&Evidence::Contradicted);
            if incremented && !contradicted {
                explained.push(field);
            }
        }
        if explained.is_empty() {
            return Ok(LearnOutcome::NoExplanation {
                reason: "no integer field was incremented by exactly one by every recorded update"
                    .to_owned(),
                schema_version: SCHEMA_VERSION,
            });
        }
        Ok(LearnOutcome::learned(
            explained.iter().map(|field| format!("/{field}")).collect(),
            serde_json::json!({ "fields": explained }),
        ))
    }

    fn apply(&self, request: &ApplyRequest) -> Result<ApplyOutcome, PluginError> {
        let fields = request
            .rule
            .get("fields")
            .and_then(Value::as_array)
            .ok_or_else(|| PluginError::new("invalid_rule", "the learned rule names no fields"))?;
        let entity = request.call.entity_before.as_ref().ok_or_else(|| {
            PluginError::new(
                "no_entity",
                "a revision counter needs the entity the update writes",
            )
        })?;
        let mut outcome = ApplyOutcome::default();
        for field in fields.iter().filter_map(Value::as_str) {
            let held = entity.get(field).and_then(Value::as_i64).ok_or_else(|| {
                PluginError::new(
                    "no_revision",
                    format!("the entity holds no integer `{field}` to increment"),
                )
            })?;
            outcome
                .set
                .insert(format!("/{field}"), Value::from(held + 1));
        }
        Ok(outcome)
    }
}

/// The `revision_counter_check` MCP tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct RevisionCounterCheck;

impl AgentTool for RevisionCounterCheck {
    fn describe(&self) -> ToolDescription {
        let object = json!({"type": "object"});
        ToolDescription {
            annotations: json!({"readOnlyHint": true, "openWorldHint": false})
                .as_object()
                .cloned()
                .unwrap_or_default(),
            description: "Says which integer fields the revision-counter rule explains for one \
                update: give the entity as read before the update, as read after it, and the body \
                the update sent. Answers {explained: [...], contradicted: [...]}."
                .to_owned(),
            family: "revisions".to_owned(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "before": object,
                    "after": object,
                    "sent": object,
                    "fields": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["before", "after"],
                "additionalProperties": false,
            })
            .as_object()
            .cloned()
            .unwrap_or_default(),
            schema_version: SCHEMA_VERSION,
            title: "Check a revision counter".to_owned(),
        }
    }

    fn call(&self, arguments: &Map<String, Value>) -> Result<Value, PluginError> {
        let call = ObservedCall {
            entity_before: arguments.get("before").cloned(),
            path_params: Vec::new(),
            reads_after: vec![ObservedRead {
                entity: arguments.get("after").cloned(),
                list_order: None,
                query_sorted: false,
                kind: "item".to_owned(),
                record_ordinal: 0,
                status: 200,
                ..Default::default()
            }],
            record_ordinal: 0,
            request_body: arguments.get("sent").cloned(),
            response_body: None,
            response_status: 200,
            started: None,
            ..Default::default()
        };
        let fields: Vec<String> = match arguments.get("fields").and_then(Value::as_array) {
            Some(items) => items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            None => DEFAULT_FIELDS
                .iter()
                .map(|field| (*field).to_owned())
                .collect(),
        };
        let mut explained = Vec::new();
        let mut contradicted = Vec::new();
        for field in fields {
            match evidence_for(&field, &call) {
                Evidence::Incremented => explained.push(field),
                Evidence::Contradicted => contradicted.push(field),
                Evidence::Silent => {}
            }
        }
        Ok(json!({"explained": explained, "contradicted": contradicted}))
    }
}

rea_plugin_api::plugin_root_module! {
    /// The plugin's root module: one rule stage, `revision-counter`.
    pub fn root_module() = Plugin::new("example-revision-counter", env!("CARGO_PKG_VERSION"))
        .rule(
            StageInfo::new(
                "revision-counter",
                "Explains integer revision fields that every update increments by one",
            )
            .options(["fields"]),
            RevisionCounter,
        )
        .tool(
            StageInfo::new(
                "revision_counter_check",
                "MCP tool: which fields the revision-counter rule explains for one update",
            ),
            RevisionCounterCheck,
        );
}

rea_plugin_api::export_plugin!(root_module);

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::contracts::rule::{ServedCall, ToolRef};

    fn tool() -> ToolRef {
        ToolRef {
            method: "PATCH".to_owned(),
            name: "patch_notes_by_id".to_owned(),
            path_template: "/notes/{id}".to_owned(),
        }
    }

    fn call(before: Value, sent: Value, after: Value) -> ObservedCall {
        ObservedCall {
            entity_before: Some(before),
            path_params: vec!["1".to_owned()],
            reads_after: vec![ObservedRead {
                entity: Some(after),
                list_order: None,
                query_sorted: false,
                kind: "item".to_owned(),
                record_ordinal: 9,
                status: 200,
                ..Default::default()
            }],
            record_ordinal: 8,
            request_body: Some(sent),
            response_body: None,
            response_status: 200,
            started: None,
            ..Default::default()
        }
    }

    fn learn(calls: Vec<ObservedCall>) -> LearnOutcome {
        RevisionCounter
            .learn(&LearnRequest {
                calls,
                clock_anchors: Vec::new(),
                effect: "update".to_owned(),
                identity_field: Some("id".to_owned()),
                options: Default::default(),
                schema_version: SCHEMA_VERSION,
                tool: tool(),
            })
            .expect("learns")
    }

    #[test]
    fn learns_a_field_every_update_incremented() {
        let outcome = learn(vec![call(
            serde_json::json!({"id": 1, "title": "a", "version": 3}),
            serde_json::json!({"title": "b"}),
            serde_json::json!({"id": 1, "title": "b", "version": 4}),
        )]);
        let LearnOutcome::Learned { explains, rule, .. } = outcome else {
            panic!("expected a learned rule, got {outcome:?}");
        };
        assert_eq!(explains, vec!["/version"]);
        assert_eq!(rule, serde_json::json!({"fields": ["version"]}));
    }

    #[test]
    fn a_field_the_call_set_itself_is_not_a_counter() {
        let outcome = learn(vec![call(
            serde_json::json!({"id": 1, "version": 3}),
            serde_json::json!({"version": 4}),
            serde_json::json!({"id": 1, "version": 4}),
        )]);
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
    }

    #[test]
    fn one_contradicting_call_withholds_the_rule() {
        let outcome = learn(vec![
            call(
                serde_json::json!({"id": 1, "version": 3}),
                serde_json::json!({"title": "b"}),
                serde_json::json!({"id": 1, "version": 4}),
            ),
            call(
                serde_json::json!({"id": 1, "version": 4}),
                serde_json::json!({"title": "c"}),
                serde_json::json!({"id": 1, "version": 7}),
            ),
        ]);
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
    }

    #[test]
    fn the_check_tool_reports_explained_and_contradicted_fields() {
        let mut arguments = Map::new();
        arguments.insert("before".to_owned(), json!({"version": 2, "revision": 5}));
        arguments.insert("after".to_owned(), json!({"version": 3, "revision": 9}));
        let answer = RevisionCounterCheck.call(&arguments).expect("answers");
        assert_eq!(
            answer,
            json!({"explained": ["version"], "contradicted": ["revision"]})
        );
    }

    #[test]
    fn applying_sets_one_past_the_held_value() {
        let outcome = RevisionCounter
            .apply(&ApplyRequest {
                call: ServedCall {
                    body: Some(serde_json::json!({"title": "x"})),
                    clock: None,
                    entity_before: Some(serde_json::json!({"id": 1, "version": 41})),
                    held_values: Default::default(),
                    path_params: vec!["1".to_owned()],
                    state_evidence_id: "ev_x".to_owned(),
                    write_count: 0,
                },
                rule: serde_json::json!({"fields": ["version"]}),
                schema_version: SCHEMA_VERSION,
                tool: tool(),
            })
            .expect("applies");
        assert_eq!(outcome.set.get("/version"), Some(&Value::from(42)));
    }
}

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
    ApplyOutcome, ApplyRequest, Effect, LearnOutcome, LearnRequest, ObservedCall, ObservedRead,
    ReadKind,
};
use rea_plugin_api::contracts::tool::ToolDescription;
use rea_plugin_api::{AgentTool, Plugin, PluginError, StageInfo, StateRule};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// Field names tried when the pipeline names none.
pub const DEFAULT_FIELDS: [&str; 4] = ["version", "revision", "rev", "lock_version"];

/// The rule's pipeline options: `options = { fields = ["version"] }`. `rea pipeline check` reads
/// the pipeline's table into this type, so a value that does not fit (`fields = "version"`) is
/// reported with its line and column before anything runs.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Options {
    /// The integer fields to try, in order.
    #[serde(default = "default_fields")]
    pub fields: Vec<String>,
}

fn default_fields() -> Vec<String> {
    DEFAULT_FIELDS
        .iter()
        .map(|field| (*field).to_owned())
        .collect()
}

impl Default for Options {
    fn default() -> Self {
        Self {
            fields: default_fields(),
        }
    }
}

/// The learned rule: the fields every recorded update incremented by one
/// (`{"fields": ["version"]}` on the wire, opaque to the host).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rule {
    /// The counter fields.
    pub fields: Vec<String>,
}

/// The revision-counter rule.
#[derive(Debug, Default, Clone, Copy)]
pub struct RevisionCounter;

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
    type Options = Options;
    type Rule = Rule;

    fn learn(&self, request: &LearnRequest<Options>) -> Result<LearnOutcome<Rule>, PluginError> {
        if request.effect != Effect::Update {
            return Ok(LearnOutcome::no_explanation(format!(
                "revision counters change on updates, not on `{}`",
                request.effect
            )));
        }
        let mut explained = Vec::new();
        for field in &request.options.fields {
            let evidence: Vec<Evidence> = request
                .calls
                .iter()
                .map(|call| evidence_for(field, call))
                .collect();
            let incremented = evidence.contains(&Evidence::Incremented);
            let contradicted = evidence.contains(&Evidence::Contradicted);
            if incremented && !contradicted {
                explained.push(field.clone());
            }
        }
        if explained.is_empty() {
            return Ok(LearnOutcome::no_explanation(
                "no integer field was incremented by exactly one by every recorded update",
            ));
        }
        Ok(LearnOutcome::learned(
            explained.iter().map(|field| format!("/{field}")).collect(),
            Rule { fields: explained },
        ))
    }

    fn apply(&self, request: &ApplyRequest<Rule>) -> Result<ApplyOutcome, PluginError> {
        let entity = request.call.entity_before.as_ref().ok_or_else(|| {
            PluginError::new(
                "no_entity",
                "a revision counter needs the entity the update writes",
            )
        })?;
        let mut outcome = ApplyOutcome::default();
        for field in &request.rule.fields {
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
                kind: ReadKind::Item,
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
            // The option names (`fields`) are read off `Options`.
            StageInfo::new(
                "revision-counter",
                "Explains integer revision fields that every update increments by one",
            ),
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
    use rea_plugin_api::testing::{
        apply_request, expect_learned, expect_no_explanation, learn_request, observed_call,
    };

    fn call(before: Value, sent: Value, after: Value) -> ObservedCall {
        observed_call(8)
            .before(before)
            .sent(sent)
            .read(rea_plugin_api::testing::item_read(9, Some(after)))
            .path_params(&["1"])
            .build()
    }

    fn learn(calls: Vec<ObservedCall>) -> LearnOutcome<Rule> {
        let mut request = learn_request(Effect::Update).options(Options::default());
        for recorded in calls {
            request = request.call(recorded);
        }
        RevisionCounter.learn(&request.build()).expect("learns")
    }

    #[test]
    fn learns_a_field_every_update_incremented() {
        let outcome = learn(vec![call(
            json!({"id": 1, "title": "a", "version": 3}),
            json!({"title": "b"}),
            json!({"id": 1, "title": "b", "version": 4}),
        )]);
        let (explains, rule) = expect_learned(outcome);
        assert_eq!(explains, vec!["/version"]);
        assert_eq!(rule.fields, ["version"]);
        // The rule crosses as the JSON it always had.
        assert_eq!(
            serde_json::to_value(&rule).unwrap(),
            json!({"fields": ["version"]})
        );
    }

    #[test]
    fn a_field_the_call_set_itself_is_not_a_counter() {
        let outcome = learn(vec![call(
            json!({"id": 1, "version": 3}),
            json!({"version": 4}),
            json!({"id": 1, "version": 4}),
        )]);
        expect_no_explanation(outcome);
    }

    #[test]
    fn one_contradicting_call_withholds_the_rule() {
        let outcome = learn(vec![
            call(
                json!({"id": 1, "version": 3}),
                json!({"title": "b"}),
                json!({"id": 1, "version": 4}),
            ),
            call(
                json!({"id": 1, "version": 4}),
                json!({"title": "c"}),
                json!({"id": 1, "version": 7}),
            ),
        ]);
        expect_no_explanation(outcome);
    }

    #[test]
    fn options_name_the_fields_and_other_values_are_refused() {
        let options: Options =
            rea_plugin_api::options::read_options(&[("fields".to_owned(), json!(["lock"]))].into())
                .expect("fits");
        assert_eq!(options.fields, ["lock"]);
        let problem = rea_plugin_api::options::read_options::<Options>(
            &[("fields".to_owned(), json!("lock"))].into(),
        )
        .expect_err("a string is not a list");
        assert_eq!(problem.pointer, "/fields");
        assert_eq!(
            rea_plugin_api::options::option_names::<Options>(),
            Some(&["fields"][..])
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
        let request = apply_request(Rule {
            fields: vec!["version".to_owned()],
        })
        .body(json!({"title": "x"}))
        .entity_before(json!({"id": 1, "version": 41}))
        .path_params(&["1"])
        .build();
        let outcome = RevisionCounter.apply(&request).expect("applies");
        assert_eq!(outcome.set.get("/version"), Some(&Value::from(42)));
    }
}

//! The `soft-delete` rule: deletes that keep the entity, marked deleted.
//!
//! **Learn** (deletes only). Learned when, in every recorded delete a later read showed, the
//! entity read back by id carries a deleted flag set `true` that the host could not explain
//! (`deleted`, `isDeleted` or `is_deleted`, or the members the `flags` option names), as EspoCRM
//! answers a deleted record. A delete whose entity read back absent (`404`) is a hard delete: the
//! rule then explains nothing.
//!
//! **Apply.** The flag is set `true` and the entity is kept (`keep`), so a read of it by id
//! answers its last fields marked deleted until a reset or load; lists no longer show it.

use std::collections::BTreeSet;

use rea_plugin_api::contracts::rule::{ApplyOutcome, ApplyRequest, LearnOutcome, LearnRequest};
use rea_plugin_api::{Plugin, PluginError, StageInfo, StateRule};
use serde_json::{Value, json};

/// The stage name.
pub const STAGE: &str = "soft-delete";

/// The members that mark a record deleted when `true`.
pub const DEFAULT_FLAGS: [&str; 3] = ["deleted", "isDeleted", "is_deleted"];

/// The soft-delete rule.
#[derive(Debug, Default, Clone, Copy)]
pub struct SoftDeleteRule;

fn flags(request: &LearnRequest) -> Result<Vec<String>, PluginError> {
    match request.options.get("flags") {
        None => Ok(DEFAULT_FLAGS
            .iter()
            .map(|flag| (*flag).to_owned())
            .collect()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| {
                item.as_str().map(str::to_owned).ok_or_else(|| {
                    PluginError::new("invalid_option", "option `flags` must list member names")
                })
            })
            .collect(),
        Some(_) => Err(PluginError::new(
            "invalid_option",
            "option `flags` must be an array of member names",
        )),
    }
}

impl StateRule for SoftDeleteRule {
    fn learn(&self, request: &LearnRequest) -> Result<LearnOutcome, PluginError> {
        if !request.effect.ends_with("delete") {
            return Ok(LearnOutcome::no_explanation(
                "soft deletes are deletes, not other writes",
            ));
        }
        let candidates = flags(request)?;
        let mut common: Option<BTreeSet<String>> = None;
        for call in &request.calls {
            // Only a delete whose entity a read showed marked deleted says anything.
            let Some(after) = &call.entity_after else {
                return Ok(LearnOutcome::no_explanation(
                    "a recorded delete's entity read back absent: a hard delete",
                ));
            };
            let marked: BTreeSet<String> = candidates
                .iter()
                .filter(|flag| after.get(flag.as_str()) == Some(&Value::Bool(true)))
                .filter(|flag| call.unexplained.contains_key(&format!("/{flag}")))
                .cloned()
                .collect();
            common = Some(match common {
                None => marked,
                Some(previous) => previous.intersection(&marked).cloned().collect(),
            });
        }
        let Some(flag) = common.and_then(|flags| flags.into_iter().next()) else {
            return Ok(LearnOutcome::no_explanation(
                "no recorded delete's entity read back marked deleted",
            ));
        };
        Ok(LearnOutcome::learned(
            vec![format!("/{flag}")],
            json!({ "flag": flag }),
        ))
    }

    fn apply(&self, request: &ApplyRequest) -> Result<ApplyOutcome, PluginError> {
        let flag = request
            .rule
            .get("flag")
            .and_then(Value::as_str)
            .ok_or_else(|| PluginError::new("invalid_rule", "the learned rule names no flag"))?;
        let mut outcome = ApplyOutcome {
            keep: true,
            ..ApplyOutcome::default()
        };
        outcome.set.insert(format!("/{flag}"), Value::Bool(true));
        Ok(outcome)
    }
}

rea_plugin_api::plugin_root_module! {
    /// The root module of the soft-delete rule.
    pub fn root_module() = Plugin::new("rea-soft-delete", env!("CARGO_PKG_VERSION")).rule(
        StageInfo::new(STAGE, "Explains deletes whose entity reads back marked deleted; serves them by keeping the entity, marked")
            .options(["flags"]),
        SoftDeleteRule,
    );
}

rea_plugin_api::submit_builtin!(root_module);

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::contracts::rule::{ObservedCall, ServedCall, ToolRef};

    fn tool() -> ToolRef {
        ToolRef {
            method: "DELETE".into(),
            name: "delete_contact".into(),
            path_template: "/contacts/{id}".into(),
        }
    }

    fn learn(calls: Vec<ObservedCall>) -> LearnOutcome {
        SoftDeleteRule
            .learn(&LearnRequest {
                calls,
                clock_anchors: Vec::new(),
                effect: "delete".into(),
                identity_field: Some("id".into()),
                options: Default::default(),
                schema_version: 1,
                tool: tool(),
            })
            .expect("learns")
    }

    #[test]
    fn learns_the_flag_a_read_set_and_keeps_the_entity() {
        // contract: WRITE-050, WRITE-052
        let outcome = learn(vec![ObservedCall {
            entity_before: Some(json!({"id": "c1", "name": "Ann", "deleted": false})),
            entity_after: Some(json!({"id": "c1", "name": "Ann", "deleted": true})),
            unexplained: [("/deleted".to_owned(), json!(true))].into(),
            ..ObservedCall::default()
        }]);
        let LearnOutcome::Learned { explains, rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(explains, ["/deleted"]);
        let applied = SoftDeleteRule
            .apply(&ApplyRequest {
                call: ServedCall::default(),
                rule,
                schema_version: 1,
                tool: tool(),
            })
            .expect("applies");
        assert!(applied.keep);
        assert_eq!(applied.set["/deleted"], json!(true));
    }

    #[test]
    fn a_delete_read_back_absent_is_hard() {
        let outcome = learn(vec![ObservedCall {
            entity_before: Some(json!({"id": "c1", "deleted": false})),
            entity_after: None,
            ..ObservedCall::default()
        }]);
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
        // A flag that was already true, or set on an update, is not this rule's.
        let outcome = learn(vec![ObservedCall {
            entity_before: Some(json!({"id": "c1", "deleted": true})),
            entity_after: Some(json!({"id": "c1", "deleted": true})),
            ..ObservedCall::default()
        }]);
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
    }
}

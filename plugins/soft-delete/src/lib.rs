//! The `soft-delete` rule: deletes that keep the entity, marked deleted.
//!
//! **Learn** (deletes only). Learned when, in every recorded delete a later read showed, the
//! entity read back by id carries a deleted flag set `true` that the host could not explain
//! (`deleted`, `isDeleted` or `is_deleted`, or the members the `flags` option names), as EspoCRM
//! answers a deleted record. A delete whose entity read back absent (`404`) is a hard delete: the
//! rule then explains nothing.
//!
//! Without such a flag, a **lifecycle state** marks the delete: a string member (at any depth,
//! MLflow's `/info/lifecycle_stage`) that every recorded delete changed from another string to
//! `deleted` (or one of the values the `states` option names), which the host could not
//! explain. The spec names only boolean flags (WRITE-050); a lifecycle string is how MLflow keeps
//! a deleted run readable by id (`runs/get` answers it with `lifecycle_stage: "deleted"`), so it
//! is served the same way.
//!
//! **Apply.** The flag is set `true` (or the lifecycle member to its deleted value) and the
//! entity is kept (`keep`), so a read of it by id answers its last fields marked deleted until a
//! reset or load; lists no longer show it.

use std::collections::BTreeSet;

use rea_plugin_api::contracts::rule::{
    ApplyOutcome, ApplyRequest, Effect, LearnOutcome, LearnRequest, LearnScope,
};
use rea_plugin_api::{Plugin, PluginError, StageInfo, StateRule};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The stage name.
pub const STAGE: &str = "soft-delete";

/// The members that mark a record deleted when `true`.
pub const DEFAULT_FLAGS: [&str; 3] = ["deleted", "isDeleted", "is_deleted"];

/// The lifecycle values that mark a record deleted.
pub const DEFAULT_STATES: [&str; 2] = ["deleted", "trashed"];

/// The rule's pipeline options.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Options {
    /// The members that mark a record deleted when `true`.
    #[serde(default = "default_flags")]
    pub flags: Vec<String>,
    /// The lifecycle values that mark a record deleted.
    #[serde(default = "default_states")]
    pub states: Vec<String>,
}

fn default_flags() -> Vec<String> {
    DEFAULT_FLAGS
        .iter()
        .map(|flag| (*flag).to_owned())
        .collect()
}

fn default_states() -> Vec<String> {
    DEFAULT_STATES
        .iter()
        .map(|state| (*state).to_owned())
        .collect()
}

impl Default for Options {
    fn default() -> Self {
        Self {
            flags: default_flags(),
            states: default_states(),
        }
    }
}

/// What marks a deleted entity: a lifecycle member set to a value, or a flag set `true`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Marker {
    /// A lifecycle member (JSON pointer) set to its deleted value.
    Lifecycle {
        /// The member.
        pointer: String,
        /// Its deleted value.
        value: Value,
    },
    /// A top-level boolean set `true`.
    Flag {
        /// The member.
        flag: String,
    },
}

/// The soft-delete rule.
#[derive(Debug, Default, Clone, Copy)]
pub struct SoftDeleteRule;

/// The lifecycle member every call changed from another string to one deleted value:
/// `(pointer, value)`.
fn lifecycle(request: &LearnRequest<Options>) -> Option<(String, String)> {
    let states = &request.options.states;
    let mut common: Option<BTreeSet<(String, String)>> = None;
    for call in &request.calls {
        let Some(after) = &call.entity_after else {
            return None;
        };
        let marked: BTreeSet<(String, String)> = call
            .unexplained
            .iter()
            .filter_map(|(pointer, value)| {
                let value = value.as_str()?;
                if !states.iter().any(|state| state == value)
                    || after.pointer(pointer).and_then(Value::as_str) != Some(value)
                {
                    return None;
                }
                // It held another string before: a state changed, not a member made.
                let before = call.entity_before.as_ref()?.pointer(pointer)?.as_str()?;
                (before != value).then(|| (pointer.clone(), value.to_owned()))
            })
            .collect();
        common = Some(match common {
            None => marked,
            Some(previous) => previous.intersection(&marked).cloned().collect(),
        });
    }
    common.and_then(|marked| marked.into_iter().next())
}

impl StateRule for SoftDeleteRule {
    type Options = Options;
    type Rule = Marker;

    /// The effects `learn` answers for (it explains nothing for others), joining only by
    /// explaining.
    fn learn_scope(&self) -> LearnScope {
        LearnScope::effects(Effect::DELETES).explaining()
    }

    fn learn(&self, request: &LearnRequest<Options>) -> Result<LearnOutcome<Marker>, PluginError> {
        if !request.effect.deletes() {
            return Ok(LearnOutcome::no_explanation(
                "soft deletes are deletes, not other writes",
            ));
        }
        let candidates = &request.options.flags;
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
            if let Some((pointer, value)) = lifecycle(request) {
                return Ok(LearnOutcome::learned(
                    vec![pointer.clone()],
                    Marker::Lifecycle {
                        pointer,
                        value: Value::String(value),
                    },
                ));
            }
            return Ok(LearnOutcome::no_explanation(
                "no recorded delete's entity read back marked deleted",
            ));
        };
        Ok(LearnOutcome::learned(
            vec![format!("/{flag}")],
            Marker::Flag { flag },
        ))
    }

    fn apply(&self, request: &ApplyRequest<Marker>) -> Result<ApplyOutcome, PluginError> {
        let mut outcome = ApplyOutcome {
            keep: true,
            ..ApplyOutcome::default()
        };
        match &request.rule {
            Marker::Lifecycle { pointer, value } => {
                outcome.set.insert(pointer.clone(), value.clone());
            }
            Marker::Flag { flag } => {
                outcome.set.insert(format!("/{flag}"), Value::Bool(true));
            }
        }
        Ok(outcome)
    }
}

rea_plugin_api::plugin_root_module! {
    /// The root module of the soft-delete rule.
    pub fn root_module() = Plugin::new("rea-soft-delete", env!("CARGO_PKG_VERSION")).rule(
        // The option names (`flags`, `states`) are read off `Options`.
        StageInfo::new(STAGE, "Explains deletes whose entity reads back marked deleted; serves them by keeping the entity, marked"),
        SoftDeleteRule,
    );
}

rea_plugin_api::submit_builtin!(root_module);

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::contracts::rule::{Effect, ObservedCall, ServedCall, ToolRef};
    use serde_json::json;

    fn tool() -> ToolRef {
        ToolRef {
            method: "DELETE".into(),
            name: "delete_contact".into(),
            path_template: "/contacts/{id}".into(),
        }
    }

    fn learn(calls: Vec<ObservedCall>) -> LearnOutcome<Marker> {
        SoftDeleteRule
            .learn(&LearnRequest {
                calls,
                clock_anchors: Vec::new(),
                effect: Effect::Delete,
                identity_field: Some("id".into()),
                options: Options::default(),
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

    #[test]
    fn learns_a_nested_lifecycle_state_a_read_set_deleted() {
        // contract: WRITE-050, WRITE-052
        let run = |stage: &str| json!({"info": {"run_id": "r1", "lifecycle_stage": stage}, "data": {"tags": []}});
        let outcome = learn(vec![ObservedCall {
            entity_before: Some(run("active")),
            entity_after: Some(run("deleted")),
            unexplained: [("/info/lifecycle_stage".to_owned(), json!("deleted"))].into(),
            ..ObservedCall::default()
        }]);
        let LearnOutcome::Learned { explains, rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(explains, ["/info/lifecycle_stage"]);
        let applied = SoftDeleteRule
            .apply(&ApplyRequest {
                call: ServedCall::default(),
                rule,
                schema_version: 1,
                tool: tool(),
            })
            .expect("applies");
        assert!(applied.keep);
        assert_eq!(applied.set["/info/lifecycle_stage"], json!("deleted"));
        // A lifecycle member that was already deleted, or made by the delete, is not a state
        // change; nor is another value than a deleted one.
        for (before, after) in [
            (run("deleted"), run("deleted")),
            (json!({"info": {"run_id": "r1"}}), run("deleted")),
            (run("active"), run("archived")),
        ] {
            let value = after
                .pointer("/info/lifecycle_stage")
                .cloned()
                .expect("a stage");
            let outcome = learn(vec![ObservedCall {
                entity_before: Some(before),
                entity_after: Some(after),
                unexplained: [("/info/lifecycle_stage".to_owned(), value)].into(),
                ..ObservedCall::default()
            }]);
            assert!(
                matches!(outcome, LearnOutcome::NoExplanation { .. }),
                "{outcome:?}"
            );
        }
    }
}

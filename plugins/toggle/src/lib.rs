//! The `toggle` and `set` rules: item actions (`/{type}/{id}/archive`, Miniflux's
//! `PUT /v1/entries/{id}/bookmark`) that change a member they were not sent.
//!
//! **toggle** (actions only). Learned for a boolean member that every recorded call flipped
//! (`true` to `false` or `false` to `true`), when the calls flipped it both ways: one flip alone
//! cannot tell a toggle from a `set`. Applied, it flips the entity's value, and refuses a call on
//! an entity that holds no boolean there.
//!
//! **set** (actions only). Learned for a member every recorded call left at one value, when some
//! call found it already at that value (so the action sets it rather than flips it), and some
//! call changed it. Applied, it sets that value.

use std::collections::BTreeMap;

use rea_plugin_api::contracts::rule::{
    ApplyOutcome, ApplyRequest, Effect, LearnOutcome, LearnRequest, NoOptions,
};
use rea_plugin_api::rule_fields::{self, FieldRules};
use rea_plugin_api::{Plugin, PluginError, StageInfo, StateRule};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The toggle stage.
pub const TOGGLE_STAGE: &str = "toggle";
/// The set stage.
pub const SET_STAGE: &str = "set";

fn member<'a>(value: Option<&'a Value>, pointer: &str) -> Option<&'a Value> {
    value?.pointer(pointer)
}

/// What `toggle` learns: the booleans an action flips.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Toggles {
    /// JSON pointers of the booleans.
    pub fields: Vec<String>,
}

/// The toggle rule.
#[derive(Debug, Default, Clone, Copy)]
pub struct ToggleRule;

impl StateRule for ToggleRule {
    type Options = NoOptions;
    type Rule = Toggles;

    /// The effects `learn` answers for (it explains nothing for others), joining only by
    /// explaining.
    fn learn_scope(&self) -> rea_plugin_api::contracts::rule::LearnScope {
        rea_plugin_api::contracts::rule::LearnScope::effects([
            rea_plugin_api::contracts::rule::Effect::Action,
        ])
        .explaining()
    }

    fn learn(
        &self,
        request: &LearnRequest<NoOptions>,
    ) -> Result<LearnOutcome<Toggles>, PluginError> {
        if request.effect != Effect::Action {
            return Ok(LearnOutcome::no_explanation("toggles are item actions"));
        }
        // pointer → (every call flipped it, flipped to true, flipped to false)
        let mut flips: BTreeMap<String, (bool, bool, bool)> = BTreeMap::new();
        for call in &request.calls {
            for pointer in call.unexplained.keys() {
                flips.entry(pointer.clone()).or_insert((true, false, false));
            }
        }
        for (pointer, flip) in flips.iter_mut() {
            for call in &request.calls {
                let before = member(call.entity_before.as_ref(), pointer).and_then(Value::as_bool);
                let after = member(call.entity_after.as_ref(), pointer).and_then(Value::as_bool);
                match (before, after) {
                    (Some(before), Some(after)) if before != after => {
                        flip.1 |= after;
                        flip.2 |= !after;
                    }
                    _ => flip.0 = false,
                }
            }
        }
        let fields: Vec<String> = flips
            .into_iter()
            .filter(|(_, (every, to_true, to_false))| *every && *to_true && *to_false)
            .map(|(pointer, _)| pointer)
            .collect();
        if fields.is_empty() {
            return Ok(LearnOutcome::no_explanation(
                "no boolean was flipped by every recorded call, both ways",
            ));
        }
        Ok(LearnOutcome::learned(fields.clone(), Toggles { fields }))
    }

    fn apply(&self, request: &ApplyRequest<Toggles>) -> Result<ApplyOutcome, PluginError> {
        let mut outcome = ApplyOutcome::default();
        for pointer in &request.rule.fields {
            let held = member(request.call.entity_before.as_ref(), pointer)
                .and_then(Value::as_bool)
                .ok_or_else(|| {
                    PluginError::new(
                        "no_boolean",
                        format!("the entity holds no boolean at {pointer} to flip"),
                    )
                })?;
            outcome.set.insert(pointer.clone(), Value::Bool(!held));
        }
        Ok(outcome)
    }
}

/// The set rule.
#[derive(Debug, Default, Clone, Copy)]
pub struct SetRule;

impl StateRule for SetRule {
    type Options = NoOptions;
    /// Per member, the value the action sets.
    type Rule = FieldRules<Value>;

    /// The effects `learn` answers for (it explains nothing for others), joining only by
    /// explaining.
    fn learn_scope(&self) -> rea_plugin_api::contracts::rule::LearnScope {
        rea_plugin_api::contracts::rule::LearnScope::effects([
            rea_plugin_api::contracts::rule::Effect::Action,
        ])
        .explaining()
    }

    fn learn(
        &self,
        request: &LearnRequest<NoOptions>,
    ) -> Result<LearnOutcome<Self::Rule>, PluginError> {
        if request.effect != Effect::Action {
            return Ok(LearnOutcome::no_explanation("sets are item actions"));
        }
        let pointers: Vec<String> = {
            let mut all: Vec<String> = request
                .calls
                .iter()
                .flat_map(|call| call.unexplained.keys().cloned())
                .collect();
            all.sort();
            all.dedup();
            all
        };
        let mut fields = BTreeMap::new();
        for pointer in pointers {
            let mut value: Option<&Value> = None;
            let mut same = true;
            let mut already = false;
            for call in &request.calls {
                let after = member(call.entity_after.as_ref(), &pointer);
                let before = member(call.entity_before.as_ref(), &pointer);
                match (value, after) {
                    (_, None) => same = false,
                    (None, Some(after)) => value = Some(after),
                    (Some(seen), Some(after)) if seen != after => same = false,
                    _ => {}
                }
                already |= before.is_some() && before == after;
            }
            if let (true, true, Some(value)) = (same, already, value) {
                fields.insert(pointer, value.clone());
            }
        }
        Ok(rule_fields::learned(
            fields,
            "no member was left at one value by every recorded call, with some call finding it already set",
        ))
    }

    fn apply(&self, request: &ApplyRequest<Self::Rule>) -> Result<ApplyOutcome, PluginError> {
        let mut outcome = ApplyOutcome::default();
        for (pointer, value) in &request.rule.fields {
            outcome.set.insert(pointer.clone(), value.clone());
        }
        Ok(outcome)
    }
}

rea_plugin_api::plugin_root_module! {
    /// The root module of the toggle and set rules.
    pub fn root_module() = Plugin::new("rea-toggle", env!("CARGO_PKG_VERSION"))
        .rule(
            StageInfo::new(TOGGLE_STAGE, "Explains item actions that flip a boolean, learned only from flips both ways"),
            ToggleRule,
        )
        .rule(
            StageInfo::new(SET_STAGE, "Explains item actions that set a member, learned only when a call found it already set"),
            SetRule,
        );
}

rea_plugin_api::submit_builtin!(root_module);

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::contracts::rule::{ObservedCall, ServedCall, ToolRef};
    use serde_json::json;

    fn tool() -> ToolRef {
        ToolRef {
            method: "PUT".into(),
            name: "put_entries_bookmark".into(),
            path_template: "/v1/entries/{id}/bookmark".into(),
        }
    }

    fn action(before: Value, after: Value) -> ObservedCall {
        let unexplained = match (before.as_object(), after.as_object()) {
            (Some(before), Some(after)) => after
                .iter()
                .filter(|(key, value)| before.get(*key) != Some(*value))
                .map(|(key, value)| (format!("/{key}"), value.clone()))
                .collect(),
            _ => Default::default(),
        };
        ObservedCall {
            entity_before: Some(before),
            entity_after: Some(after),
            unexplained,
            ..ObservedCall::default()
        }
    }

    fn learn<R: StateRule<Options = NoOptions>>(
        rule: &R,
        calls: Vec<ObservedCall>,
    ) -> LearnOutcome<R::Rule> {
        rule.learn(&LearnRequest {
            calls,
            clock_anchors: Vec::new(),
            effect: Effect::Action,
            identity_field: Some("id".into()),
            options: NoOptions {},
            schema_version: 1,
            tool: tool(),
        })
        .expect("learns")
    }

    #[test]
    fn a_toggle_needs_a_flip_both_ways() {
        // contract: WRITE-021, WRITE-023
        let one_way = learn(
            &ToggleRule,
            vec![action(
                json!({"id": 1, "starred": false}),
                json!({"id": 1, "starred": true}),
            )],
        );
        assert!(
            matches!(one_way, LearnOutcome::NoExplanation { .. }),
            "{one_way:?}"
        );
        let both = learn(
            &ToggleRule,
            vec![
                action(
                    json!({"id": 1, "starred": false}),
                    json!({"id": 1, "starred": true}),
                ),
                action(
                    json!({"id": 1, "starred": true}),
                    json!({"id": 1, "starred": false}),
                ),
            ],
        );
        let LearnOutcome::Learned { explains, rule, .. } = both else {
            panic!("{both:?}")
        };
        assert_eq!(explains, ["/starred"]);
        let applied = ToggleRule
            .apply(&ApplyRequest {
                call: ServedCall {
                    entity_before: Some(json!({"id": 2, "starred": true})),
                    ..ServedCall::default()
                },
                rule: rule.clone(),
                schema_version: 1,
                tool: tool(),
            })
            .expect("applies");
        assert_eq!(applied.set["/starred"], json!(false));
        // contract: WRITE-024
        let refused = ToggleRule.apply(&ApplyRequest {
            call: ServedCall {
                entity_before: Some(json!({"id": 3})),
                ..ServedCall::default()
            },
            rule,
            schema_version: 1,
            tool: tool(),
        });
        assert!(refused.is_err());
    }

    #[test]
    fn a_set_needs_a_call_that_found_it_set() {
        // contract: WRITE-020, WRITE-023
        let once = learn(
            &SetRule,
            vec![action(
                json!({"id": 1, "status": "open"}),
                json!({"id": 1, "status": "archived"}),
            )],
        );
        assert!(
            matches!(once, LearnOutcome::NoExplanation { .. }),
            "{once:?}"
        );
        let twice = learn(
            &SetRule,
            vec![
                action(
                    json!({"id": 1, "status": "open"}),
                    json!({"id": 1, "status": "archived"}),
                ),
                action(
                    json!({"id": 1, "status": "archived"}),
                    json!({"id": 1, "status": "archived"}),
                ),
            ],
        );
        let LearnOutcome::Learned { rule, .. } = twice else {
            panic!("{twice:?}")
        };
        assert_eq!(
            serde_json::to_value(&rule).unwrap(),
            json!({"fields": {"/status": "archived"}})
        );
    }
}

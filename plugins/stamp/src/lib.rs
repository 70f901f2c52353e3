//! The `stamp` rule: an update writes the acting user into the entity's modifier field.
//!
//! **Learn** (updates). A member named `modified…by…` or `updated…by…` in any spelling
//! (`modified_by`, `modifiedById`, `updated_by_id`, …) that the host could not explain is a stamp
//! when, in every recorded call that changed it, the entity then held in it the value the entity
//! already held in its `created…` counterpart (the same name with `created` in place of
//! `modified` or `updated`): the recording's user is the one who created the entity, which is all
//! the capture can show of who acts.
//!
//! **Apply.** The member takes the value the entity holds in its counterpart; an entity holding
//! no counterpart is refused (there is no acting user to write).

use std::collections::BTreeMap;

use rea_plugin_api::contracts::rule::{
    ApplyOutcome, ApplyRequest, Effect, LearnOutcome, LearnRequest, LearnScope, NoOptions,
};
use rea_plugin_api::rule_fields::{self, FieldRules, top_field};
use rea_plugin_api::{Plugin, PluginError, StageInfo, StateRule};

/// The stage name.
pub const STAGE: &str = "stamp";

/// The `created…by` counterpart of a `modified…by` or `updated…by` member name.
pub fn counterpart(field: &str) -> Option<String> {
    let lower = field.to_ascii_lowercase();
    let by = lower.find("by")?;
    for (word, created) in [
        ("modified", "created"),
        ("Modified", "Created"),
        ("MODIFIED", "CREATED"),
        ("updated", "created"),
        ("Updated", "Created"),
        ("UPDATED", "CREATED"),
    ] {
        if let Some(at) = field.find(word)
            && at < by
        {
            let mut name = String::with_capacity(field.len());
            name.push_str(&field[..at]);
            name.push_str(created);
            name.push_str(&field[at + word.len()..]);
            return Some(name);
        }
    }
    None
}

/// The stamp rule.
#[derive(Debug, Default, Clone, Copy)]
pub struct StampRule;

impl StateRule for StampRule {
    type Options = NoOptions;
    /// Per modifier member, the name of its `created…` counterpart.
    type Rule = FieldRules<String>;

    /// The effects `learn` answers for (it explains nothing for others), joining only by
    /// explaining.
    fn learn_scope(&self) -> LearnScope {
        LearnScope::effects(Effect::UPDATES).explaining()
    }

    fn learn(
        &self,
        request: &LearnRequest<NoOptions>,
    ) -> Result<LearnOutcome<Self::Rule>, PluginError> {
        if !request.effect.updates() {
            return Ok(LearnOutcome::no_explanation(
                "a modifier is stamped by updates of a held entity",
            ));
        }
        // Per pointer: the counterpart, or `None` once a call disagrees.
        let mut found: BTreeMap<String, Option<String>> = BTreeMap::new();
        for call in &request.calls {
            for (pointer, after) in &call.unexplained {
                let Some(field) = top_field(pointer) else {
                    continue;
                };
                let Some(counterpart) = counterpart(&field) else {
                    continue;
                };
                let creator = call
                    .entity_before
                    .as_ref()
                    .and_then(|before| before.get(&counterpart));
                let fits = creator.is_some_and(|creator| creator == after && !creator.is_null());
                let entry = found
                    .entry(pointer.clone())
                    .or_insert_with(|| Some(counterpart.clone()));
                if !fits {
                    *entry = None;
                }
            }
        }
        let fields = found
            .into_iter()
            .filter_map(|(pointer, counterpart)| Some((pointer, counterpart?)));
        Ok(rule_fields::learned(
            fields,
            "no recorded update wrote the entity's creator into its modifier member",
        ))
    }

    fn apply(&self, request: &ApplyRequest<Self::Rule>) -> Result<ApplyOutcome, PluginError> {
        let mut outcome = ApplyOutcome::default();
        for (pointer, counterpart) in &request.rule.fields {
            let creator = request
                .call
                .entity_before
                .as_ref()
                .and_then(|before| before.get(counterpart.as_str()))
                .filter(|creator| !creator.is_null())
                .ok_or_else(|| {
                    PluginError::new(
                        "no_acting_user",
                        format!("the entity names no {counterpart:?} to stamp as the acting user"),
                    )
                })?;
            outcome.set.insert(pointer.clone(), creator.clone());
        }
        Ok(outcome)
    }
}

rea_plugin_api::plugin_root_module! {
    /// The root module of the stamp rule.
    pub fn root_module() = Plugin::new("rea-stamp", env!("CARGO_PKG_VERSION")).rule(
        StageInfo::new(STAGE, "Explains updates that write the user the entity names as its creator into its modifier member"),
        StampRule,
    );
}

rea_plugin_api::submit_builtin!(root_module);

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::contracts::rule::{ObservedCall, ServedCall, ToolRef};
    use serde_json::{Value, json};

    fn tool() -> ToolRef {
        ToolRef {
            method: "PATCH".into(),
            name: "patch_accounts_by_id".into(),
            path_template: "/accounts/{id}".into(),
        }
    }

    fn learn(effect: &str, calls: Vec<ObservedCall>) -> LearnOutcome<FieldRules<String>> {
        StampRule
            .learn(&LearnRequest {
                calls,
                clock_anchors: Vec::new(),
                effect: serde_json::from_value(serde_json::Value::from(effect)).expect("an effect"),
                identity_field: Some("id".into()),
                options: NoOptions {},
                schema_version: 1,
                tool: tool(),
            })
            .expect("learns")
    }

    fn call(before: Value, unexplained: Value) -> ObservedCall {
        ObservedCall {
            entity_before: Some(before),
            unexplained: serde_json::from_value(unexplained).expect("a map"),
            ..ObservedCall::default()
        }
    }

    #[test]
    fn names_the_created_counterpart_of_a_modifier() {
        assert_eq!(counterpart("modified_by").as_deref(), Some("created_by"));
        assert_eq!(counterpart("modifiedById").as_deref(), Some("createdById"));
        assert_eq!(
            counterpart("updated_by_id").as_deref(),
            Some("created_by_id")
        );
        assert_eq!(counterpart("UpdatedBy").as_deref(), Some("CreatedBy"));
        assert_eq!(counterpart("updated_at"), None);
        assert_eq!(counterpart("byline_modified"), None);
    }

    #[test]
    fn stamps_the_creator_as_the_modifier() {
        // contract: WRITE-012, WRITE-038
        // EspoCRM-style: the admin created the account; an update names them as its modifier.
        let outcome = learn(
            "update",
            vec![call(
                json!({"id": "a1", "createdById": "u1", "modifiedById": null}),
                json!({"/modifiedById": "u1", "/name": "x"}),
            )],
        );
        let LearnOutcome::Learned { explains, rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(explains, ["/modifiedById"]);
        let applied = StampRule
            .apply(&ApplyRequest {
                call: ServedCall {
                    entity_before: Some(
                        json!({"id": "a2", "createdById": "u7", "modifiedById": "u1"}),
                    ),
                    ..ServedCall::default()
                },
                rule: rule.clone(),
                schema_version: 1,
                tool: tool(),
            })
            .expect("applies");
        assert_eq!(applied.set["/modifiedById"], json!("u7"));
        // An entity naming no creator has no acting user to stamp.
        let refused = StampRule.apply(&ApplyRequest {
            call: ServedCall {
                entity_before: Some(json!({"id": "a3"})),
                ..ServedCall::default()
            },
            rule,
            schema_version: 1,
            tool: tool(),
        });
        assert!(refused.is_err());
    }

    #[test]
    fn another_user_or_a_create_is_no_stamp() {
        // The modifier took another value than the creator: someone else acted.
        let outcome = learn(
            "update",
            vec![call(
                json!({"id": "a1", "created_by": "u1", "modified_by": "u1"}),
                json!({"/modified_by": "u2"}),
            )],
        );
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
        // One call agreeing and one not: no rule.
        let outcome = learn(
            "update",
            vec![
                call(
                    json!({"id": "a1", "created_by": "u1"}),
                    json!({"/modified_by": "u1"}),
                ),
                call(
                    json!({"id": "a2", "created_by": "u1"}),
                    json!({"/modified_by": "u3"}),
                ),
            ],
        );
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
        let outcome = learn(
            "create",
            vec![call(
                json!({"id": "a1", "created_by": "u1"}),
                json!({"/modified_by": "u1"}),
            )],
        );
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
    }
}

//! The `sequence` rule: ids and counters a create numbers one past the largest its collection
//! holds.
//!
//! **Learn** (creates only). A member the host could not explain is a sequence when, in every
//! recorded create that stored it, its value is an integer (a JSON number, or a string of digits)
//! one past the largest value of that member the collection held before the create
//! (`ObservedCall::held_max`), or `1` in a collection that held none, and at least one create
//! showed a collection holding some. Its spelling (number or string, zero-padded width) is kept.
//!
//! **Apply.** The member takes one past the largest of the values the collection holds and the
//! largest the sequence generated (both in `ServedCall::held_values`), or `1`.

use std::collections::BTreeMap;

use rea_plugin_api::contracts::rule::{ApplyOutcome, ApplyRequest, LearnOutcome, LearnRequest};
use rea_plugin_api::rule_fields;
use rea_plugin_api::{Plugin, PluginError, StageInfo, StateRule};
use serde_json::{Value, json};

/// The stage name.
pub const STAGE: &str = "sequence";

/// An integer value and its spelling: `(value, string width)` (`None`: a JSON number).
fn integer(value: &Value) -> Option<(i128, Option<usize>)> {
    match value {
        Value::Number(number) => number.as_i64().map(|value| (i128::from(value), None)),
        Value::String(text) if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => {
            Some((text.parse().ok()?, Some(text.len())))
        }
        _ => None,
    }
}

/// The sequence rule.
#[derive(Debug, Default, Clone, Copy)]
pub struct SequenceRule;

impl StateRule for SequenceRule {
    fn learn(&self, request: &LearnRequest) -> Result<LearnOutcome, PluginError> {
        if request.effect != "create" {
            return Ok(LearnOutcome::no_explanation(
                "sequences number creates, not other writes",
            ));
        }
        // pointer → (fits every create, some create showed a held value, spelling)
        let mut found: BTreeMap<String, (bool, bool, Option<Option<usize>>)> = BTreeMap::new();
        for call in &request.calls {
            for (pointer, value) in &call.unexplained {
                let field = pointer.trim_start_matches('/');
                if pointer.matches('/').count() != 1 {
                    continue;
                }
                let entry = found.entry(pointer.clone()).or_insert((true, false, None));
                let Some((number, width)) = integer(value) else {
                    entry.0 = false;
                    continue;
                };
                let held = call
                    .held_max
                    .get(field)
                    .and_then(integer)
                    .map(|(held, _)| held);
                let expected = held.map_or(1, |held| held + 1);
                entry.0 &= number == expected;
                entry.1 |= held.is_some();
                // A number (`None`), a plain digit string (`Some(0)`), or a zero-padded one of
                // a width (`Some(width)`).
                let spelling = width.map(|width| {
                    if width > number.to_string().len() {
                        width
                    } else {
                        0
                    }
                });
                match &entry.2 {
                    None => entry.2 = Some(spelling),
                    Some(previous) if *previous != spelling => entry.0 = false,
                    Some(_) => {}
                }
            }
        }
        let fields: BTreeMap<String, Value> = found
            .into_iter()
            .filter(|(_, (fits, shown, _))| *fits && *shown)
            .map(|(pointer, (_, _, spelling))| {
                let spelling = spelling.flatten();
                let rule = match spelling {
                    None => json!({"string": false}),
                    Some(0) => json!({"string": true}),
                    Some(width) => json!({"string": true, "width": width}),
                };
                (pointer, rule)
            })
            .collect();
        Ok(rule_fields::learned(
            fields,
            "no unexplained member took one past the largest value its collection held",
        ))
    }

    fn apply(&self, request: &ApplyRequest) -> Result<ApplyOutcome, PluginError> {
        let fields = rule_fields::fields(request)?;
        let mut outcome = ApplyOutcome::default();
        for (pointer, spelling) in fields {
            let largest = request
                .call
                .held_values
                .get(pointer)
                .into_iter()
                .flatten()
                .filter_map(integer)
                .map(|(value, _)| value)
                .max();
            let next = largest.map_or(1, |largest| largest + 1);
            let value = if spelling.get("string").and_then(Value::as_bool) == Some(true) {
                let width = spelling.get("width").and_then(Value::as_u64).unwrap_or(0) as usize;
                Value::String(format!("{next:0width$}"))
            } else {
                let next = i64::try_from(next).map_err(|_| {
                    PluginError::new("sequence_overflow", "the next sequence value is too large")
                })?;
                Value::from(next)
            };
            outcome.set.insert(pointer.clone(), value);
        }
        Ok(outcome)
    }
}

rea_plugin_api::plugin_root_module! {
    /// The root module of the sequence rule.
    pub fn root_module() = Plugin::new("rea-sequence", env!("CARGO_PKG_VERSION")).rule(
        StageInfo::new(STAGE, "Explains ids and counters a create numbers one past the largest its collection holds"),
        SequenceRule,
    );
}

rea_plugin_api::submit_builtin!(root_module);

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::contracts::rule::{ObservedCall, ServedCall, ToolRef};

    fn tool() -> ToolRef {
        ToolRef {
            method: "POST".into(),
            name: "post_posts".into(),
            path_template: "/posts".into(),
        }
    }

    fn create(held: Option<Value>, id: Value) -> ObservedCall {
        ObservedCall {
            held_max: held
                .map(|held| [("id".to_owned(), held)].into())
                .unwrap_or_default(),
            unexplained: [("/id".to_owned(), id)].into(),
            ..ObservedCall::default()
        }
    }

    fn learn(effect: &str, calls: Vec<ObservedCall>) -> LearnOutcome {
        SequenceRule
            .learn(&LearnRequest {
                calls,
                clock_anchors: Vec::new(),
                effect: effect.into(),
                identity_field: Some("id".into()),
                options: BTreeMap::new(),
                schema_version: 1,
                tool: tool(),
            })
            .expect("learns")
    }

    #[test]
    fn learns_one_past_the_largest_held() {
        // contract: WRITE-058, WRITE-076
        let outcome = learn(
            "create",
            vec![
                create(Some(json!(4)), json!(5)),
                create(Some(json!(5)), json!(6)),
            ],
        );
        let LearnOutcome::Learned { explains, rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(explains, ["/id"]);
        // Served: one past both the largest held and the largest generated.
        let applied = SequenceRule
            .apply(&ApplyRequest {
                call: ServedCall {
                    held_values: [("/id".to_owned(), vec![json!(1), json!(9), json!(4)])].into(),
                    ..ServedCall::default()
                },
                rule,
                schema_version: 1,
                tool: tool(),
            })
            .expect("applies");
        assert_eq!(applied.set["/id"], json!(10));
    }

    #[test]
    fn a_gap_or_an_update_is_no_sequence() {
        let outcome = learn("create", vec![create(Some(json!(4)), json!(7))]);
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
        let outcome = learn("update", vec![create(Some(json!(4)), json!(5))]);
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
        // An empty collection alone never shows the sequence.
        let outcome = learn("create", vec![create(None, json!(1))]);
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
    }

    #[test]
    fn digit_strings_keep_their_padding() {
        let outcome = learn("create", vec![create(Some(json!("0041")), json!("0042"))]);
        let LearnOutcome::Learned { rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        let applied = SequenceRule
            .apply(&ApplyRequest {
                call: ServedCall {
                    held_values: [("/id".to_owned(), vec![json!("0042")])].into(),
                    ..ServedCall::default()
                },
                rule,
                schema_version: 1,
                tool: tool(),
            })
            .expect("applies");
        assert_eq!(applied.set["/id"], json!("0043"));
    }
}

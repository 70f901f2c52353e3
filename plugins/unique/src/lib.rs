//! The `unique` rule: large unique integers a write generates (snowflake-style ids, random
//! numeric keys).
//!
//! **Learn.** A member the host could not explain is unique when, in every recorded call that
//! changed it, its value is an integer of 10 to 20 digits, of one JSON kind (number or digit
//! string) and one length, different in every call and from the value held before, not one past
//! the largest its collection held (a sequence: the `sequence` rule's), and not the call's own
//! time as epoch seconds or milliseconds (a clock: the `clock` rule's).
//!
//! **Apply.** The member takes an integer of that length derived from the state Evidence id, the
//! tool, the member and the write count (SHA-256), skipping values the collection holds (asked
//! of the host's index: `ServedCall::holds_text`).

use std::collections::{BTreeMap, BTreeSet};

use rea_plugin_api::contracts::rule::{
    ApplyOutcome, ApplyRequest, HeldIndexKind, LearnOutcome, LearnRequest, NoOptions,
};
use rea_plugin_api::date::read_iso_clock;
use rea_plugin_api::rule_fields::{self, Agreement, FieldRules};
use rea_plugin_api::{Plugin, PluginError, StageInfo, StateRule};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The stage name.
pub const STAGE: &str = "unique";

/// Whether an integer reads as epoch seconds or milliseconds within a day of the call's start.
fn reads_as_call_time(text: &str, started: Option<&str>) -> bool {
    let Some(started) = started else {
        return false;
    };
    // The start (UTC, `YYYY-MM-DDTHH:MM:SS…Z`) in whole seconds.
    let seconds = read_iso_clock(started).map(|(instant, _)| instant.seconds);
    let (Some(seconds), Ok(value)) = (seconds, text.parse::<i64>()) else {
        return false;
    };
    let near = |candidate: i64| (candidate - seconds).abs() <= 86_400;
    near(value) || near(value / 1_000)
}

/// The digits of a 10-to-20-digit integer value and whether it is a string.
fn digits(value: &Value) -> Option<(String, bool)> {
    let (text, string) = match value {
        Value::Number(number) if number.is_u64() || number.is_i64() => (number.to_string(), false),
        Value::String(text) => (text.clone(), true),
        _ => return None,
    };
    let plain = !text.is_empty()
        && text.bytes().all(|byte| byte.is_ascii_digit())
        && !text.starts_with('0');
    (plain && (10..=20).contains(&text.len())).then_some((text, string))
}

fn derive(
    state: &str,
    tool: &str,
    pointer: &str,
    writes: u64,
    attempt: u64,
    length: usize,
) -> String {
    let mut out = String::with_capacity(length);
    let mut block = 0u64;
    while out.len() < length {
        let mut hasher = Sha256::new();
        for part in [state, tool, pointer] {
            hasher.update(part.as_bytes());
            hasher.update([0]);
        }
        hasher.update(writes.to_be_bytes());
        hasher.update(attempt.to_be_bytes());
        hasher.update(block.to_be_bytes());
        for byte in hasher.finalize() {
            if out.len() == length {
                break;
            }
            let digit = byte % 10;
            // No leading zero.
            let digit = if out.is_empty() && digit == 0 {
                1
            } else {
                digit
            };
            out.push(char::from(b'0' + digit));
        }
        block += 1;
    }
    out
}

/// The shape of a unique integer: its digit count and whether it is spelled as a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct IntegerShape {
    /// Digits.
    pub length: usize,
    /// Spelled as a string of digits (else a JSON number).
    pub string: bool,
}

/// The unique rule.
#[derive(Debug, Default, Clone, Copy)]
pub struct UniqueRule;

impl StateRule for UniqueRule {
    type Options = NoOptions;
    type Rule = FieldRules<IntegerShape>;

    /// Its rule joins a plan only by explaining (asked while something is unexplained).
    fn learn_scope(&self) -> rea_plugin_api::contracts::rule::LearnScope {
        rea_plugin_api::contracts::rule::LearnScope::default().explaining()
    }

    fn learn(
        &self,
        request: &LearnRequest<NoOptions>,
    ) -> Result<LearnOutcome<Self::Rule>, PluginError> {
        let mut shapes = Agreement::default();
        let mut seen: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for call in &request.calls {
            for (pointer, value) in &call.unexplained {
                let mut found = digits(value);
                let field = pointer.trim_start_matches('/');
                if let Some((text, _)) = &found {
                    let held_next = call
                        .held_max
                        .get(field)
                        .and_then(|held| held.as_i64().or_else(|| held.as_str()?.parse().ok()))
                        .map(|held| (held + 1).to_string());
                    let before = call
                        .entity_before
                        .as_ref()
                        .and_then(|before| before.pointer(pointer));
                    if held_next.as_deref() == Some(text.as_str())
                        || before == Some(value)
                        || reads_as_call_time(text, call.started.as_deref())
                        || !seen
                            .entry(pointer.clone())
                            .or_default()
                            .insert(text.clone())
                    {
                        found = None;
                    }
                }
                let shape = found.map(|(text, string)| (text.len(), string));
                shapes.record(pointer, shape);
            }
        }
        let fields = shapes
            .agreed()
            .map(|(pointer, (length, string))| (pointer, IntegerShape { length, string }));
        Ok(rule_fields::learned(
            fields,
            "no unexplained member held a fresh 10-to-20-digit integer in every recorded call",
        ))
    }

    fn apply(&self, request: &ApplyRequest<Self::Rule>) -> Result<ApplyOutcome, PluginError> {
        let call = &request.call;
        let mut outcome = ApplyOutcome::default();
        for (pointer, &IntegerShape { length, string }) in &request.rule.fields {
            let mut attempt = 0;
            let text = loop {
                let candidate = derive(
                    call.generation_seed(),
                    &request.tool.name,
                    pointer,
                    call.write_count,
                    attempt,
                    length,
                );
                if !call.holds_text(pointer, &candidate) {
                    break candidate;
                }
                attempt += 1;
            };
            let value = if string {
                Value::String(text)
            } else {
                // Numbers beyond u64 stay strings rather than lose digits.
                text.parse::<u64>()
                    .map(Value::from)
                    .unwrap_or(Value::String(text))
            };
            outcome.set.insert(pointer.clone(), value);
        }
        Ok(outcome)
    }

    fn held_indexes(&self) -> Vec<HeldIndexKind> {
        vec![HeldIndexKind::Texts]
    }
}

rea_plugin_api::plugin_root_module! {
    /// The root module of the unique rule.
    pub fn root_module() = Plugin::new("rea-unique", env!("CARGO_PKG_VERSION")).rule(
        StageInfo::new(STAGE, "Explains large unique integers a write generates; serves ones derived from the state, tool, field and write count"),
        UniqueRule,
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
            method: "POST".into(),
            name: "post_orders".into(),
            path_template: "/orders".into(),
        }
    }

    fn learn(calls: Vec<ObservedCall>) -> LearnOutcome<FieldRules<IntegerShape>> {
        UniqueRule
            .learn(&LearnRequest {
                calls,
                clock_anchors: Vec::new(),
                effect: Effect::Create,
                identity_field: Some("id".into()),
                options: NoOptions {},
                schema_version: 1,
                tool: tool(),
            })
            .expect("learns")
    }

    fn call(id: Value, held: Option<Value>) -> ObservedCall {
        ObservedCall {
            unexplained: [("/id".to_owned(), id)].into(),
            held_max: held
                .map(|held| [("id".to_owned(), held)].into())
                .unwrap_or_default(),
            ..ObservedCall::default()
        }
    }

    #[test]
    fn learns_and_serves_fresh_large_integers() {
        // contract: WRITE-059, WRITE-060
        let outcome = learn(vec![
            call(json!(1_795_950_607_203_114_u64), None),
            call(json!(1_795_950_612_000_001_u64), None),
        ]);
        let LearnOutcome::Learned { rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        let applied = UniqueRule
            .apply(&ApplyRequest {
                call: ServedCall {
                    state_evidence_id: "ev_s".into(),
                    ..ServedCall::default()
                },
                rule,
                schema_version: 1,
                tool: tool(),
            })
            .expect("applies");
        let value = &applied.set["/id"];
        assert_eq!(value.to_string().len(), 16);
        assert!(value.is_u64());
    }

    #[test]
    fn the_calls_own_time_is_a_clock_not_a_unique_number() {
        // Kinto's `last_modified`: epoch milliseconds of the request.
        let mut stamped = call(json!(1_795_950_607_203_u64), None);
        stamped.started = Some("2026-11-29T11:10:07.197563000Z".into());
        assert!(matches!(
            learn(vec![stamped]),
            LearnOutcome::NoExplanation { .. }
        ));
    }

    #[test]
    fn small_sequential_or_repeated_integers_are_not_unique() {
        assert!(matches!(
            learn(vec![call(json!(42), None)]),
            LearnOutcome::NoExplanation { .. }
        ));
        assert!(matches!(
            learn(vec![call(
                json!(1_000_000_001_u64),
                Some(json!(1_000_000_000_u64))
            )]),
            LearnOutcome::NoExplanation { .. }
        ));
        assert!(matches!(
            learn(vec![
                call(json!(1_234_567_890_u64), None),
                call(json!(1_234_567_890_u64), None)
            ]),
            LearnOutcome::NoExplanation { .. }
        ));
    }
}

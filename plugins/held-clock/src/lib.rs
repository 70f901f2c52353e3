//! The `held-clock` and `nested-clock` rules: clocks an update stamps that the client holds.
//!
//! **`held-clock`** (updates). A clock the client sends back as it read it and the application
//! stamps anew (Ghost's `updated_at`, its collision check): learned when, in every recorded call
//! that changed the member, the call sent the member with the value the entity held before, and
//! the entity then held a time within the call's request, spelled as the held value was. It runs
//! before `clock`, which would otherwise explain the member as a plain clock and accept any sent
//! value. **Apply:** the call must send the member with the value the entity holds (a call
//! sending another value, or none, is refused: the application answers a stale or missing
//! `updated_at` with an error), and the member takes the served clock in its format.
//!
//! **`nested-clock`** (updates). An object member the entity holds (`{"meta": {"updated":
//! "…"}}`) in which the write changed only clocks, each a time within the call's request:
//! learned when every recorded call that changed the object did so. **Apply:** the clocks inside
//! the held object take the served clock, each in the spelling the recorded calls left it in
//! (the spelling of the write's own observation, a known limit); the rest of the object is kept.
//! A call on an entity holding no such object is refused.
//!
//! Both need the served clock (a plan with them is withheld `unknown-clock` without one).

use std::collections::{BTreeMap, BTreeSet};

use rea_plugin_api::contracts::rule::{
    ApplyOutcome, ApplyRequest, Effect, LearnOutcome, LearnRequest, LearnScope, NoOptions,
    ObservedCall,
};
use rea_plugin_api::date::{UtcInstant, read_clock, read_iso_clock, spell_clock};
use rea_plugin_api::rule_fields::{self, FieldRules, top_field};
use rea_plugin_api::{Plugin, PluginError, StageInfo, StateRule};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The held-clock stage name.
pub const HELD_STAGE: &str = "held-clock";

/// The nested-clock stage name.
pub const NESTED_STAGE: &str = "nested-clock";

/// How much earlier or later than its request a stamped time may be (as the `clock` rule).
const SLACK_NANOS: i128 = 1_000_000_000;

/// Whether a value is a time within the call's request (start less the slack, at the value's
/// precision, to the end plus the slack).
fn stamped_during(call: &ObservedCall, value: &Value) -> bool {
    let (Some((instant, format)), Some((started, _)), Some(duration)) = (
        read_clock(value),
        call.started.as_deref().and_then(read_iso_clock),
        call.duration_ms,
    ) else {
        return false;
    };
    if spell_clock(instant, &format).is_none() {
        return false;
    }
    let (instant, started) = (instant.as_nanos(), started.as_nanos());
    // Compared at the value's precision: a second, a millisecond, or its fraction digits.
    let unit = precision(value);
    let start = (started - SLACK_NANOS).div_euclid(unit) * unit;
    let end = started + i128::from(duration) * 1_000_000 + SLACK_NANOS;
    (start..=end).contains(&instant)
}

/// The precision a clock value is spelled at, in nanoseconds.
fn precision(value: &Value) -> i128 {
    match value {
        Value::Number(number) if number.as_i64().is_some_and(|n| n >= 1_000_000_000_000) => {
            1_000_000
        }
        Value::Number(_) => 1_000_000_000,
        Value::String(text) if text.bytes().all(|b| b.is_ascii_digit()) && text.len() >= 13 => {
            1_000_000
        }
        Value::String(text) if text.bytes().all(|b| b.is_ascii_digit()) => 1_000_000_000,
        Value::String(text) => {
            let fraction = text.split_once('.').map_or(0, |(_, rest)| {
                rest.bytes().take_while(u8::is_ascii_digit).count()
            });
            10i128.pow(9u32.saturating_sub(fraction.min(9) as u32))
        }
        _ => 1_000_000_000,
    }
}

/// Two clock values spelled alike (same format).
fn same_spelling(left: &Value, right: &Value) -> bool {
    match (read_clock(left), read_clock(right)) {
        (Some((_, a)), Some((_, b))) => a == b,
        _ => false,
    }
}

/// The member a call sent for a top-level field: at the body's root, or inside its one
/// envelope (`{"posts": [{…}]}`, `{"data": {…}}`).
fn sent_member<'a>(body: Option<&'a Value>, field: &str) -> Option<&'a Value> {
    let body = body?.as_object()?;
    if let Some(value) = body.get(field) {
        return Some(value);
    }
    if body.len() != 1 {
        return None;
    }
    match body.values().next()? {
        Value::Object(inner) => inner.get(field),
        Value::Array(items) if items.len() == 1 => items[0].as_object()?.get(field),
        _ => None,
    }
}

/// What `held-clock` learns per member: a value the write stamped, spelled as its clock is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HeldClock {
    /// A stamped value (its spelling is the clock's format).
    pub example: Value,
}

/// What `nested-clock` learns per object member: each clock inside it, with a stamped value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NestedClocks {
    /// Clock member → a stamped value.
    pub clocks: BTreeMap<String, Value>,
}

fn served_instant<R>(request: &ApplyRequest<R>) -> Result<UtcInstant, PluginError> {
    let clock = request.call.clock.as_deref().ok_or_else(|| {
        PluginError::new("no_clock", "the state has no served clock to stamp with")
    })?;
    read_iso_clock(clock)
        .map(|(instant, _)| instant)
        .ok_or_else(|| PluginError::new("invalid_clock", "the served clock does not parse"))
}

fn spelled_like(instant: UtcInstant, example: &Value) -> Result<Value, PluginError> {
    let (_, format) = read_clock(example)
        .ok_or_else(|| PluginError::new("invalid_rule", "a learned clock does not parse"))?;
    spell_clock(instant, &format).ok_or_else(|| {
        PluginError::new(
            "clock_out_of_range",
            "the served clock cannot be spelled in this field's format",
        )
    })
}

/// The held-clock rule.
#[derive(Debug, Default, Clone, Copy)]
pub struct HeldClockRule;

impl StateRule for HeldClockRule {
    type Options = NoOptions;
    type Rule = FieldRules<HeldClock>;

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
                "a held clock is sent back by updates of a held entity",
            ));
        }
        // Per pointer: an example of the stamped value, or `None` once a call disagrees.
        let mut found: BTreeMap<String, Option<Value>> = BTreeMap::new();
        for call in &request.calls {
            for (pointer, after) in &call.unexplained {
                let Some(field) = top_field(pointer) else {
                    continue;
                };
                let held = call
                    .entity_before
                    .as_ref()
                    .and_then(|before| before.get(&field));
                let sent = sent_member(call.request_body.as_ref(), &field);
                let fits = match (held, sent) {
                    (Some(held), Some(sent)) => {
                        sent == held
                            && held != after
                            && same_spelling(held, after)
                            && stamped_during(call, after)
                    }
                    _ => false,
                };
                let entry = found
                    .entry(pointer.clone())
                    .or_insert_with(|| Some(after.clone()));
                if !fits {
                    *entry = None;
                }
            }
        }
        let fields = found
            .into_iter()
            .filter_map(|(pointer, example)| Some((pointer, HeldClock { example: example? })));
        Ok(rule_fields::learned(
            fields,
            "no recorded call sent a clock back as held and found it stamped anew",
        )
        .needing_clock())
    }

    fn apply(&self, request: &ApplyRequest<Self::Rule>) -> Result<ApplyOutcome, PluginError> {
        let instant = served_instant(request)?;
        let mut outcome = ApplyOutcome::default();
        for (pointer, learned) in &request.rule.fields {
            let field = top_field(pointer)
                .ok_or_else(|| PluginError::new("invalid_rule", "a held clock is not a member"))?;
            let held = request
                .call
                .entity_before
                .as_ref()
                .and_then(|before| before.get(&field));
            let sent = sent_member(request.call.body.as_ref(), &field);
            match (held, sent) {
                (Some(held), Some(sent)) if sent == held => {}
                (Some(held), _) => {
                    return Err(PluginError::new(
                        "stale_clock",
                        format!(
                            "the member {field:?} must be sent with the value the entity holds, {held}"
                        ),
                    ));
                }
                (None, _) => {
                    return Err(PluginError::new(
                        "no_held_clock",
                        format!("the entity holds no {field:?} to check the sent value against"),
                    ));
                }
            }
            outcome
                .set
                .insert(pointer.clone(), spelled_like(instant, &learned.example)?);
        }
        Ok(outcome)
    }
}

/// The nested-clock rule.
#[derive(Debug, Default, Clone, Copy)]
pub struct NestedClockRule;

impl StateRule for NestedClockRule {
    type Options = NoOptions;
    type Rule = FieldRules<NestedClocks>;

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
                "nested clocks are stamped by updates of a held object",
            ));
        }
        // Per object pointer: per clock member, an example (`None` once a call disagrees).
        let mut found: BTreeMap<String, Option<BTreeMap<String, Value>>> = BTreeMap::new();
        for call in &request.calls {
            for (pointer, after) in &call.unexplained {
                let Some(field) = top_field(pointer) else {
                    continue;
                };
                let before = call
                    .entity_before
                    .as_ref()
                    .and_then(|before| before.get(&field))
                    .and_then(Value::as_object);
                let clocks = match (before, after.as_object()) {
                    (Some(before), Some(after)) => nested_clocks(call, before, after),
                    _ => None,
                };
                let entry = found
                    .entry(pointer.clone())
                    .or_insert_with(|| Some(BTreeMap::new()));
                match (entry.as_mut(), clocks) {
                    (Some(known), Some(clocks)) => {
                        for (member, example) in clocks {
                            let kept = known.entry(member).or_insert_with(|| example.clone());
                            if !same_spelling(kept, &example) {
                                *entry = None;
                                break;
                            }
                        }
                    }
                    _ => *entry = None,
                }
            }
        }
        let fields = found.into_iter().filter_map(|(pointer, clocks)| {
            let clocks = clocks.filter(|clocks| !clocks.is_empty())?;
            Some((pointer, NestedClocks { clocks }))
        });
        Ok(rule_fields::learned(
            fields,
            "no recorded call changed only clocks inside a held object",
        )
        .needing_clock())
    }

    fn apply(&self, request: &ApplyRequest<Self::Rule>) -> Result<ApplyOutcome, PluginError> {
        let instant = served_instant(request)?;
        let mut outcome = ApplyOutcome::default();
        for (pointer, learned) in &request.rule.fields {
            let field = top_field(pointer).ok_or_else(|| {
                PluginError::new("invalid_rule", "a nested clock is not a member")
            })?;
            let Some(Value::Object(held)) = request
                .call
                .entity_before
                .as_ref()
                .and_then(|before| before.get(&field))
            else {
                return Err(PluginError::new(
                    "no_nested_object",
                    format!("the entity holds no object {field:?} whose clocks this write stamps"),
                ));
            };
            let mut object = held.clone();
            for (member, example) in &learned.clocks {
                object.insert(member.clone(), spelled_like(instant, example)?);
            }
            outcome.set.insert(pointer.clone(), Value::Object(object));
        }
        Ok(outcome)
    }
}

/// The clocks a write changed inside an object, when it changed nothing else there: member →
/// the value after.
fn nested_clocks(
    call: &ObservedCall,
    before: &Map<String, Value>,
    after: &Map<String, Value>,
) -> Option<BTreeMap<String, Value>> {
    let members: BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    let mut clocks = BTreeMap::new();
    for member in members {
        match (before.get(member), after.get(member)) {
            (Some(was), Some(now)) if was == now => {}
            (_, Some(now)) if stamped_during(call, now) => {
                clocks.insert(member.clone(), now.clone());
            }
            _ => return None,
        }
    }
    Some(clocks)
}

rea_plugin_api::plugin_root_module! {
    /// The root module of the held-clock and nested-clock rules.
    pub fn root_module() = Plugin::new("rea-held-clock", env!("CARGO_PKG_VERSION"))
        .rule(
            StageInfo::new(HELD_STAGE, "Explains clocks an update must send back as held and which the application stamps anew (Ghost's updated_at)"),
            HeldClockRule,
        )
        .rule(
            StageInfo::new(NESTED_STAGE, "Explains clocks an update stamps inside an object the entity holds"),
            NestedClockRule,
        );
}

rea_plugin_api::submit_builtin!(root_module);

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::contracts::rule::{Effect, ServedCall, ToolRef};
    use serde_json::json;

    fn tool() -> ToolRef {
        ToolRef {
            method: "PUT".into(),
            name: "put_posts_by_id".into(),
            path_template: "/posts/{id}".into(),
        }
    }

    fn learn<R: StateRule<Options = NoOptions>>(
        rule: &R,
        calls: Vec<ObservedCall>,
    ) -> LearnOutcome<R::Rule> {
        rule.learn(&LearnRequest {
            calls,
            clock_anchors: Vec::new(),
            effect: Effect::Update,
            identity_field: Some("id".into()),
            options: NoOptions {},
            schema_version: 1,
            tool: tool(),
        })
        .expect("learns")
    }

    fn apply<R: StateRule>(
        rule: &R,
        learned: R::Rule,
        call: ServedCall,
    ) -> Result<ApplyOutcome, PluginError> {
        rule.apply(&ApplyRequest {
            call,
            rule: learned,
            schema_version: 1,
            tool: tool(),
        })
    }

    const SERVED: &str = "2026-12-01T09:00:00.000000000Z";

    /// A Ghost-style update: the post read at `held`, sent back with `sent`, stamped `after`.
    fn ghost_call(held: &str, sent: &str, after: &str) -> ObservedCall {
        ObservedCall {
            started: Some("2026-11-29T11:00:00.200000000Z".into()),
            duration_ms: Some(30),
            entity_before: Some(json!({"id": "p1", "title": "a", "updated_at": held})),
            entity_after: Some(json!({"id": "p1", "title": "b", "updated_at": after})),
            request_body: Some(json!({"posts": [{"title": "b", "updated_at": sent}]})),
            unexplained: [("/updated_at".to_owned(), json!(after))].into(),
            ..ObservedCall::default()
        }
    }

    #[test]
    fn a_held_clock_must_be_sent_as_held_and_takes_the_served_clock() {
        // contract: WRITE-034, WRITE-035, WRITE-073
        let outcome = learn(
            &HeldClockRule,
            vec![ghost_call(
                "2026-11-28T08:00:00.000Z",
                "2026-11-28T08:00:00.000Z",
                "2026-11-29T11:00:00.215Z",
            )],
        );
        let LearnOutcome::Learned {
            explains,
            needs_clock,
            rule,
            ..
        } = outcome
        else {
            panic!("{outcome:?}")
        };
        assert_eq!(explains, ["/updated_at"]);
        assert!(needs_clock);
        let served = |sent: Option<&str>| ServedCall {
            clock: Some(SERVED.into()),
            entity_before: Some(json!({"id": "p1", "updated_at": "2026-11-29T11:00:00.215Z"})),
            body: Some(match sent {
                Some(sent) => json!({"posts": [{"title": "c", "updated_at": sent}]}),
                None => json!({"posts": [{"title": "c"}]}),
            }),
            ..ServedCall::default()
        };
        let applied = apply(
            &HeldClockRule,
            rule.clone(),
            served(Some("2026-11-29T11:00:00.215Z")),
        )
        .expect("applies");
        assert_eq!(
            applied.set["/updated_at"],
            json!("2026-12-01T09:00:00.000Z")
        );
        // Another value than the entity holds, or none, is refused.
        let stale = apply(
            &HeldClockRule,
            rule.clone(),
            served(Some("2026-11-28T08:00:00.000Z")),
        )
        .expect_err("a stale clock is refused");
        assert_eq!(stale.code.as_str(), "stale_clock");
        assert!(apply(&HeldClockRule, rule, served(None)).is_err());
    }

    #[test]
    fn a_clock_not_sent_back_as_held_is_no_held_clock() {
        // Sent with another value than held: the client did not send it back as read.
        let outcome = learn(
            &HeldClockRule,
            vec![ghost_call(
                "2026-11-28T08:00:00.000Z",
                "2026-11-27T08:00:00.000Z",
                "2026-11-29T11:00:00.215Z",
            )],
        );
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
        // Stamped outside the request: not the write's clock.
        let outcome = learn(
            &HeldClockRule,
            vec![ghost_call(
                "2026-11-28T08:00:00.000Z",
                "2026-11-28T08:00:00.000Z",
                "2026-11-29T15:00:00.000Z",
            )],
        );
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
        // Not an update.
        let outcome = HeldClockRule
            .learn(&LearnRequest {
                calls: vec![ghost_call(
                    "2026-11-28T08:00:00.000Z",
                    "2026-11-28T08:00:00.000Z",
                    "2026-11-29T11:00:00.215Z",
                )],
                clock_anchors: Vec::new(),
                effect: Effect::Create,
                identity_field: Some("id".into()),
                options: NoOptions {},
                schema_version: 1,
                tool: tool(),
            })
            .expect("learns");
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
    }

    fn nested_call(before: Value, after: Value) -> ObservedCall {
        ObservedCall {
            started: Some("2026-11-29T11:00:00.200000000Z".into()),
            duration_ms: Some(30),
            entity_before: Some(json!({"id": 1, "meta": before})),
            entity_after: Some(json!({"id": 1, "meta": after.clone()})),
            unexplained: [("/meta".to_owned(), after)].into(),
            ..ObservedCall::default()
        }
    }

    #[test]
    fn a_nested_clock_stamps_the_clocks_inside_the_held_object() {
        // contract: WRITE-009, WRITE-036, WRITE-037
        let outcome = learn(
            &NestedClockRule,
            vec![nested_call(
                json!({"created": "2026-11-01 10:00:00", "updated": "2026-11-01 10:00:00", "by": "ann"}),
                json!({"created": "2026-11-01 10:00:00", "updated": "2026-11-29 11:00:00", "by": "ann"}),
            )],
        );
        let LearnOutcome::Learned {
            explains,
            needs_clock,
            rule,
            ..
        } = outcome
        else {
            panic!("{outcome:?}")
        };
        assert_eq!(explains, ["/meta"]);
        assert!(needs_clock);
        let applied = apply(
            &NestedClockRule,
            rule.clone(),
            ServedCall {
                clock: Some(SERVED.into()),
                entity_before: Some(json!({"id": 2, "meta": {"created": "2025-01-01 00:00:00", "updated": "2025-01-01 00:00:00", "by": "bo"}})),
                ..ServedCall::default()
            },
        )
        .expect("applies");
        assert_eq!(
            applied.set["/meta"],
            json!({"created": "2025-01-01 00:00:00", "updated": "2026-12-01 09:00:00", "by": "bo"})
        );
        // An entity holding no such object is refused.
        let refused = apply(
            &NestedClockRule,
            rule,
            ServedCall {
                clock: Some(SERVED.into()),
                entity_before: Some(json!({"id": 3})),
                ..ServedCall::default()
            },
        )
        .expect_err("no object");
        assert_eq!(refused.code.as_str(), "no_nested_object");
    }

    #[test]
    fn an_object_changed_besides_its_clocks_is_no_nested_clock() {
        let outcome = learn(
            &NestedClockRule,
            vec![nested_call(
                json!({"updated": "2026-11-01 10:00:00", "by": "ann"}),
                json!({"updated": "2026-11-29 11:00:00", "by": "bo"}),
            )],
        );
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
    }
}

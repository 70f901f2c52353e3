//! The `clock` rule: fields a write stamps with the time it happened.
//!
//! **Learn.** A member the host could not explain is a clock when, in every recorded call that
//! changed it, its value is a time within that call's request (from the record's start, less a
//! second, to its end, plus a second), spelled the same way each time: an ISO-8601 date-time with
//! a separator (`T` or a space), a number of fraction digits and a zone (`Z`, `+00:00`, `+0000`,
//! another offset, or none), or an epoch number in seconds or milliseconds (a JSON number, or a
//! string of digits). A call without a start time or duration cannot show that, so the rule then
//! explains nothing. The learned rule names each field's format and needs the served clock.
//!
//! **Apply.** Each field takes the served clock (`ServedCall::clock`), respelled in its format:
//! the fraction cut to its precision, the time shifted into its offset.

use rea_plugin_api::contracts::rule::{
    ApplyOutcome, ApplyRequest, LearnOutcome, LearnRequest, NoOptions, ObservedCall,
};
use rea_plugin_api::date::{ClockFormat, read_clock, read_iso_clock, spell_clock};
use rea_plugin_api::rule_fields::{self, Agreement, FieldRules};
use rea_plugin_api::{Plugin, PluginError, StageInfo, StateRule};

/// The stage name.
pub const STAGE: &str = "clock";

/// How much earlier or later than its request a stamped time may be (clock skew, rounding).
const SLACK_MILLIS: i128 = 1_000;

/// An instant in nanoseconds since the epoch.
type Nanos = i128;

/// Parses an ISO-8601 date-time with seconds: its instant in nanoseconds and its format.
fn parse_iso(text: &str) -> Option<(Nanos, ClockFormat)> {
    read_iso_clock(text).map(|(timestamp, format)| (timestamp.as_nanos(), format))
}

/// The window a call's request spans, in nanoseconds: `(start, end)`.
fn window(call: &ObservedCall) -> Option<(Nanos, Nanos)> {
    let (start, _) = parse_iso(call.started.as_deref()?)?;
    let duration = i128::from(call.duration_ms?) * 1_000_000;
    let slack = SLACK_MILLIS * 1_000_000;
    Some((start - slack, start + duration + slack))
}

/// The clock rule.
#[derive(Debug, Default, Clone, Copy)]
pub struct ClockRule;

impl StateRule for ClockRule {
    type Options = NoOptions;
    type Rule = FieldRules<ClockFormat>;

    /// Its rule joins a plan only by explaining (asked while something is unexplained).
    fn learn_scope(&self) -> rea_plugin_api::contracts::rule::LearnScope {
        rea_plugin_api::contracts::rule::LearnScope::default().explaining()
    }

    fn learn(
        &self,
        request: &LearnRequest<NoOptions>,
    ) -> Result<LearnOutcome<Self::Rule>, PluginError> {
        let mut formats = Agreement::default();
        for call in &request.calls {
            for (pointer, value) in &call.unexplained {
                let fits = match (read_clock(value), window(call)) {
                    (Some((instant, format)), Some((start, end))) => {
                        // Seconds and cut fractions lose precision: compare at that precision.
                        let unit = format.precision_nanos();
                        let start = start.div_euclid(unit) * unit;
                        (start..=end)
                            .contains(&instant.as_nanos())
                            .then_some(format)
                    }
                    _ => None,
                };
                formats.record(pointer, fits);
            }
        }
        Ok(rule_fields::learned(
            formats.agreed(),
            "no unexplained member held a time within its request in every recorded call",
        )
        .needing_clock())
    }

    fn apply(&self, request: &ApplyRequest<Self::Rule>) -> Result<ApplyOutcome, PluginError> {
        let clock = request.call.clock.as_deref().ok_or_else(|| {
            PluginError::new("no_clock", "the state has no served clock to stamp with")
        })?;
        let (instant, _) = read_iso_clock(clock)
            .ok_or_else(|| PluginError::new("invalid_clock", "the served clock does not parse"))?;
        let mut outcome = ApplyOutcome::default();
        for (pointer, format) in &request.rule.fields {
            let value = spell_clock(instant, format).ok_or_else(|| {
                PluginError::new(
                    "clock_out_of_range",
                    "the served clock cannot be spelled in this field's format",
                )
            })?;
            outcome.set.insert(pointer.clone(), value);
        }
        Ok(outcome)
    }
}

rea_plugin_api::plugin_root_module! {
    /// The root module of the clock rule.
    pub fn root_module() = Plugin::new("rea-clock", env!("CARGO_PKG_VERSION")).rule(
        StageInfo::new(STAGE, "Explains fields a write stamps with the time of its request (ISO-8601 or epoch seconds or milliseconds)"),
        ClockRule,
    );
}

rea_plugin_api::submit_builtin!(root_module);

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::contracts::rule::{Effect, ServedCall, ToolRef};
    use serde_json::{Value, json};

    fn call(started: &str, duration: u64, unexplained: Value) -> ObservedCall {
        ObservedCall {
            started: Some(started.to_owned()),
            duration_ms: Some(duration),
            unexplained: serde_json::from_value(unexplained).expect("map"),
            ..ObservedCall::default()
        }
    }

    fn learn(calls: Vec<ObservedCall>) -> LearnOutcome<FieldRules<ClockFormat>> {
        ClockRule
            .learn(&LearnRequest {
                calls,
                clock_anchors: Vec::new(),
                effect: Effect::Update,
                identity_field: Some("id".to_owned()),
                options: NoOptions {},
                schema_version: 1,
                tool: ToolRef {
                    method: "PATCH".into(),
                    name: "patch_t".into(),
                    path_template: "/t/{id}".into(),
                },
            })
            .expect("learns")
    }

    #[test]
    fn learns_epoch_milliseconds_within_the_request() {
        // contract: WRITE-008
        // Kinto's `last_modified`: the record started 11:10:07.197563Z and took 8.9 ms.
        let outcome = learn(vec![call(
            "2026-11-29T11:10:07.197563000Z",
            9,
            json!({"/last_modified": 1_795_950_607_203u64, "/title": "x"}),
        )]);
        let LearnOutcome::Learned {
            explains,
            needs_clock,
            rule,
            ..
        } = outcome
        else {
            panic!("{outcome:?}")
        };
        assert_eq!(explains, ["/last_modified"]);
        assert!(needs_clock);
        let applied = ClockRule
            .apply(&ApplyRequest {
                call: ServedCall {
                    clock: Some("2026-11-29T11:10:09.000000000Z".into()),
                    ..ServedCall::default()
                },
                rule,
                schema_version: 1,
                tool: ToolRef {
                    method: "PATCH".into(),
                    name: "patch_t".into(),
                    path_template: "/t/{id}".into(),
                },
            })
            .expect("applies");
        assert_eq!(applied.set["/last_modified"], json!(1_795_950_609_000u64));
    }

    #[test]
    fn a_time_outside_the_request_or_a_second_spelling_is_no_clock() {
        // A value from another time (the collection's own timestamp) is not this write's clock.
        let outcome = learn(vec![call(
            "2026-11-29T11:10:07.197563000Z",
            9,
            json!({"/schema": 1_795_950_605_114u64}),
        )]);
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
        // Two calls spelling the field two ways: no one format.
        let outcome = learn(vec![
            call(
                "2026-11-29T11:00:00Z",
                10,
                json!({"/at": "2026-11-29T11:00:00.005Z"}),
            ),
            call(
                "2026-11-29T11:00:05Z",
                10,
                json!({"/at": "2026-11-29T11:00:05.005000+00:00"}),
            ),
        ]);
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
        // No start time: nothing can be shown.
        let mut unanchored = call(
            "2026-11-29T11:00:00Z",
            10,
            json!({"/at": "2026-11-29T11:00:00Z"}),
        );
        unanchored.started = None;
        let outcome = learn(vec![unanchored]);
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
    }

    #[test]
    fn iso_spellings_keep_their_precision_and_zone() {
        // contract: STATE-072, WRITE-077
        let (instant, format) = read_iso_clock("2026-11-29T12:02:33.9726+01:00").expect("iso");
        assert_eq!(
            format,
            ClockFormat::Iso {
                separator: 'T',
                digits: 4,
                zone: "+01:00".into()
            }
        );
        assert_eq!(
            spell_clock(instant, &format),
            Some(json!("2026-11-29T12:02:33.9726+01:00"))
        );
        let utc = ClockFormat::Iso {
            separator: ' ',
            digits: 0,
            zone: String::new(),
        };
        assert_eq!(
            spell_clock(instant, &utc),
            Some(json!("2026-11-29 11:02:33"))
        );
        let outcome = learn(vec![call(
            "2026-11-29T11:02:33.970000000Z",
            5,
            json!({"/updated_at": "2026-11-29T12:02:33.9726+01:00"}),
        )]);
        assert!(
            matches!(outcome, LearnOutcome::Learned { .. }),
            "{outcome:?}"
        );
    }
}

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
    ApplyOutcome, ApplyRequest, LearnOutcome, LearnRequest, ObservedCall,
};
use rea_plugin_api::rule_fields::{self, Agreement};
use rea_plugin_api::{Plugin, PluginError, StageInfo, StateRule};
use serde_json::{Value, json};

/// The stage name.
pub const STAGE: &str = "clock";

/// How much earlier or later than its request a stamped time may be (clock skew, rounding).
const SLACK_MILLIS: i128 = 1_000;

/// A clock spelling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Format {
    /// ISO-8601: separator, fraction digits, zone text (`Z`, `+00:00`, `+0000`, `+02:00`, ``).
    Iso {
        /// `T` or a space.
        separator: char,
        /// Fraction digits.
        digits: usize,
        /// The zone as spelled.
        zone: String,
    },
    /// Epoch milliseconds or seconds, as a number or a string.
    Epoch {
        /// Milliseconds (else seconds).
        millis: bool,
        /// Spelled as a string of digits.
        string: bool,
    },
}

impl Format {
    fn to_json(&self) -> Value {
        match self {
            Format::Iso {
                separator,
                digits,
                zone,
            } => {
                json!({"kind": "iso", "separator": separator.to_string(), "digits": digits, "zone": zone})
            }
            Format::Epoch { millis, string } => {
                json!({"kind": "epoch", "unit": if *millis { "ms" } else { "s" }, "string": string})
            }
        }
    }

    fn from_json(value: &Value) -> Option<Self> {
        match value.get("kind")?.as_str()? {
            "iso" => Some(Format::Iso {
                separator: value.get("separator")?.as_str()?.chars().next()?,
                digits: usize::try_from(value.get("digits")?.as_u64()?).ok()?,
                zone: value.get("zone")?.as_str()?.to_owned(),
            }),
            "epoch" => Some(Format::Epoch {
                millis: value.get("unit")?.as_str()? == "ms",
                string: value.get("string")?.as_bool()?,
            }),
            _ => None,
        }
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = if year >= 0 { year } else { year - 399 } / 400;
    let year_of_era = year - era * 400;
    let day_of_year = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let days = days + 719_468;
    let era = if days >= 0 { days } else { days - 146_096 } / 146_097;
    let day_of_era = days - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    (year_of_era + era * 400 + i64::from(month <= 2), month, day)
}

/// An instant in nanoseconds since the epoch.
type Nanos = i128;

fn digits(text: &str) -> Option<i64> {
    (!text.is_empty() && text.bytes().all(|byte| byte.is_ascii_digit()))
        .then(|| text.parse().ok())
        .flatten()
}

/// The zone's offset in minutes (`None` when it is not a zone spelling).
fn zone_offset(zone: &str) -> Option<i64> {
    match zone {
        "" | "Z" => Some(0),
        _ => {
            let sign = match zone.as_bytes().first()? {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let rest = &zone[1..];
            let (hours, minutes) = match rest.len() {
                5 if rest.as_bytes()[2] == b':' => (&rest[..2], &rest[3..]),
                4 => (&rest[..2], &rest[2..]),
                _ => return None,
            };
            let (hours, minutes) = (digits(hours)?, digits(minutes)?);
            (hours <= 23 && minutes <= 59).then_some(sign * (hours * 60 + minutes))
        }
    }
}

/// Parses an ISO-8601 date-time: its instant and its format.
pub fn parse_iso(text: &str) -> Option<(Nanos, Format)> {
    let bytes = text.as_bytes();
    if bytes.len() < 19
        || bytes[4] != b'-'
        || bytes[7] != b'-'
        || !matches!(bytes[10], b'T' | b' ')
        || bytes[13] != b':'
        || bytes[16] != b':'
    {
        return None;
    }
    let (year, month, day) = (
        digits(&text[0..4])?,
        digits(&text[5..7])?,
        digits(&text[8..10])?,
    );
    let (hour, minute, second) = (
        digits(&text[11..13])?,
        digits(&text[14..16])?,
        digits(&text[17..19])?,
    );
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let rest = &text[19..];
    let (fraction, zone) = match rest.strip_prefix('.') {
        Some(after) => {
            let end = after
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(after.len());
            if end == 0 {
                return None;
            }
            (&after[..end], &after[end..])
        }
        None => ("", rest),
    };
    let offset = zone_offset(zone)?;
    let mut nanos_text: String = fraction.chars().take(9).collect();
    while nanos_text.len() < 9 {
        nanos_text.push('0');
    }
    let nanos = i128::from(digits(&nanos_text).unwrap_or(0));
    let seconds = days_from_civil(year, month, day) * 86_400 + hour * 3_600 + minute * 60 + second
        - offset * 60;
    Some((
        i128::from(seconds) * 1_000_000_000 + nanos,
        Format::Iso {
            separator: bytes[10] as char,
            digits: fraction.len(),
            zone: zone.to_owned(),
        },
    ))
}

/// Reads a value as a clock: its instant and its format.
pub fn read_clock(value: &Value) -> Option<(Nanos, Format)> {
    let (number, string) = match value {
        Value::String(text) => {
            if let Some(found) = parse_iso(text) {
                return Some(found);
            }
            (digits(text)?, true)
        }
        Value::Number(number) => (number.as_i64()?, false),
        _ => return None,
    };
    // Plausible epochs only: 2001-09-09 .. 2286-11-20 in seconds, or in milliseconds.
    if (1_000_000_000..10_000_000_000).contains(&number) {
        Some((
            i128::from(number) * 1_000_000_000,
            Format::Epoch {
                millis: false,
                string,
            },
        ))
    } else if (1_000_000_000_000..10_000_000_000_000).contains(&number) {
        Some((
            i128::from(number) * 1_000_000,
            Format::Epoch {
                millis: true,
                string,
            },
        ))
    } else {
        None
    }
}

/// Spells an instant in a format.
pub fn spell(instant: Nanos, format: &Format) -> Option<Value> {
    match format {
        Format::Epoch { millis, string } => {
            let number = if *millis {
                instant.div_euclid(1_000_000)
            } else {
                instant.div_euclid(1_000_000_000)
            };
            let number = i64::try_from(number).ok()?;
            Some(if *string {
                Value::String(number.to_string())
            } else {
                Value::from(number)
            })
        }
        Format::Iso {
            separator,
            digits,
            zone,
        } => {
            let local = instant + i128::from(zone_offset(zone)?) * 60 * 1_000_000_000;
            let seconds = i64::try_from(local.div_euclid(1_000_000_000)).ok()?;
            let nanos = local.rem_euclid(1_000_000_000);
            let (year, month, day) = civil_from_days(seconds.div_euclid(86_400));
            if !(0..=9999).contains(&year) {
                return None;
            }
            let within = seconds.rem_euclid(86_400);
            let mut text = format!(
                "{year:04}-{month:02}-{day:02}{separator}{:02}:{:02}:{:02}",
                within / 3_600,
                (within / 60) % 60,
                within % 60
            );
            if *digits > 0 {
                let fraction = format!("{nanos:09}");
                let mut shown: String = fraction.chars().take(*digits).collect();
                while shown.len() < *digits {
                    shown.push('0');
                }
                text.push('.');
                text.push_str(&shown);
            }
            text.push_str(zone);
            Some(Value::String(text))
        }
    }
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
    fn learn(&self, request: &LearnRequest) -> Result<LearnOutcome, PluginError> {
        let mut formats = Agreement::default();
        for call in &request.calls {
            for (pointer, value) in &call.unexplained {
                let fits = match (read_clock(value), window(call)) {
                    (Some((instant, format)), Some((start, end))) => {
                        // Seconds and cut fractions lose precision: compare at that precision.
                        let unit: i128 = match &format {
                            Format::Epoch { millis: false, .. } | Format::Iso { digits: 0, .. } => {
                                1_000_000_000
                            }
                            Format::Epoch { millis: true, .. } => 1_000_000,
                            Format::Iso { digits, .. } => {
                                10i128.pow(9u32.saturating_sub(*digits as u32))
                            }
                        };
                        let start = start.div_euclid(unit) * unit;
                        (start..=end).contains(&instant).then_some(format)
                    }
                    _ => None,
                };
                formats.record(pointer, fits);
            }
        }
        let fields = formats
            .agreed()
            .map(|(pointer, format)| (pointer, format.to_json()));
        Ok(rule_fields::learned(
            fields,
            "no unexplained member held a time within its request in every recorded call",
        )
        .needing_clock())
    }

    fn apply(&self, request: &ApplyRequest) -> Result<ApplyOutcome, PluginError> {
        let clock = request.call.clock.as_deref().ok_or_else(|| {
            PluginError::new("no_clock", "the state has no served clock to stamp with")
        })?;
        let (instant, _) = parse_iso(clock)
            .ok_or_else(|| PluginError::new("invalid_clock", "the served clock does not parse"))?;
        let fields = rule_fields::fields(request)?;
        let mut outcome = ApplyOutcome::default();
        for (pointer, format) in fields {
            let format = Format::from_json(format)
                .ok_or_else(|| PluginError::new("invalid_rule", "a clock format does not parse"))?;
            let value = spell(instant, &format).ok_or_else(|| {
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
    use rea_plugin_api::contracts::rule::{ServedCall, ToolRef};
    use std::collections::BTreeMap;

    fn call(started: &str, duration: u64, unexplained: Value) -> ObservedCall {
        ObservedCall {
            started: Some(started.to_owned()),
            duration_ms: Some(duration),
            unexplained: serde_json::from_value(unexplained).expect("map"),
            ..ObservedCall::default()
        }
    }

    fn learn(calls: Vec<ObservedCall>) -> LearnOutcome {
        ClockRule
            .learn(&LearnRequest {
                calls,
                clock_anchors: Vec::new(),
                effect: "update".to_owned(),
                identity_field: Some("id".to_owned()),
                options: BTreeMap::new(),
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
        let (instant, format) = parse_iso("2026-11-29T12:02:33.9726+01:00").expect("iso");
        assert_eq!(
            format,
            Format::Iso {
                separator: 'T',
                digits: 4,
                zone: "+01:00".into()
            }
        );
        assert_eq!(
            spell(instant, &format),
            Some(json!("2026-11-29T12:02:33.9726+01:00"))
        );
        let utc = Format::Iso {
            separator: ' ',
            digits: 0,
            zone: String::new(),
        };
        assert_eq!(spell(instant, &utc), Some(json!("2026-11-29 11:02:33")));
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

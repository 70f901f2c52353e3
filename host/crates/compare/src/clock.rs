//! Clocks: which values are clocks, their formats, and the start times probes are ordered by.
//!
//! Two clock values compare by format only. A clock is an ISO-8601 date-time string anywhere in
//! a body (`2026-01-01T10:00:00.123Z`: a four-digit year `0000`–`9999`, `T` or a space, hours and
//! minutes, optional seconds and fraction, a `Z`, an extended `±HH:MM` or compact `±HHMM` offset
//! within RFC 3339's `00`–`23` hours and `00`–`59` minutes, or no zone; the date and time must
//! exist on the calendar), or an epoch number (seconds, milliseconds, microseconds or nanoseconds
//! since 1970, by magnitude) under a clock-named member: a word of the name (snake-case,
//! kebab-case or camel-case) is `at`, `time`, `date`, `timestamp`, `created`, `updated` or
//! `modified`, and none is a measurement word (`duration`, `elapsed`, `ms`, …). Arrays keep their
//! member's context; an object's members set their own; the body root is no clock context.
//!
//! Probe ordering ([`StartKey`]): an ISO start with a four-digit year, `T` and `Z` or `±HH:MM` is
//! ordered exactly, every fraction digit kept; other spellings a native `Date` reads (a space, a
//! compact offset, no zone as UTC, RFC 2822) keep millisecond precision.

use rea_plugin_api::date::{self, UtcInstant};
use serde_json::Value;

/// How an ISO date-time spells its zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZoneSpelling {
    /// `Z`.
    Utc,
    /// `±HH:MM`.
    Extended,
    /// `±HHMM`.
    Compact,
    /// No zone.
    Absent,
}

/// The format of an ISO-8601 date-time: what two clocks must share to compare equal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IsoFormat {
    /// `T` or a space.
    pub separator: char,
    /// Whether seconds are spelled.
    pub seconds: bool,
    /// How many fraction digits.
    pub fraction_digits: usize,
    /// The zone spelling.
    pub zone: ZoneSpelling,
}

/// An ISO-8601 date-time, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IsoClock {
    /// Its format.
    pub format: IsoFormat,
    /// Its instant (UTC when no zone is spelled), fraction cut to nanoseconds.
    pub instant: UtcInstant,
    /// Every fraction digit as written, trailing zeros removed (exact ordering).
    pub fraction: String,
}

/// The unit of an epoch number, read from its magnitude.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EpochMagnitude {
    /// `1e9 ≤ n < 1e10`.
    Seconds,
    /// `1e12 ≤ n < 1e13`.
    Milliseconds,
    /// `1e15 ≤ n < 1e16`.
    Microseconds,
    /// `1e18 ≤ n < 1e19`.
    Nanoseconds,
}

/// A clock's format as two compared clock values must share it (not the learned rules'
/// `rea_plugin_api::date::ClockFormat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComparedClockFormat {
    /// An ISO-8601 string.
    Iso(IsoFormat),
    /// An epoch number: its unit, and whether it is written as an integer.
    Epoch(EpochMagnitude, bool),
}

/// Reads an ISO-8601 date-time (see the module docs) with `rea_plugin_api::date`, keeping the
/// spellings a native `Date` reads: `T` or a space, `Z` (not `z`), no leap second. `None` when
/// the text is not one.
pub fn read_iso(text: &str) -> Option<IsoClock> {
    let recorded = date::parse(text)?;
    let spelling = &recorded.spelling;
    let zone = match spelling.zone.as_bytes() {
        [] => ZoneSpelling::Absent,
        b"Z" => ZoneSpelling::Utc,
        [_, _, _, b':', _, _] => ZoneSpelling::Extended,
        [_, _, _, _, _] => ZoneSpelling::Compact,
        _ => return None,
    };
    let leap_second = spelling.seconds && text.get(17..19) == Some("60");
    if !matches!(spelling.separator, 'T' | ' ') || leap_second {
        return None;
    }
    Some(IsoClock {
        format: IsoFormat {
            separator: spelling.separator,
            seconds: spelling.seconds,
            fraction_digits: spelling.digits,
            zone,
        },
        instant: recorded.instant()?,
        fraction: recorded.fraction.trim_end_matches('0').to_owned(),
    })
}

/// The words of a member name: split at `_`, `-`, `.`, spaces and camel-case humps
/// (`lastModifiedUTC` → `last`, `modified`, `utc`), lower-cased.
fn words(member: &str) -> Vec<String> {
    let characters: Vec<char> = member.chars().collect();
    let mut words: Vec<String> = vec![String::new()];
    for (index, character) in characters.iter().enumerate() {
        if matches!(character, '_' | '-' | '.' | ' ') {
            words.push(String::new());
            continue;
        }
        let previous = index.checked_sub(1).map(|at| characters[at]);
        let next = characters.get(index + 1);
        let hump = character.is_uppercase()
            && previous.is_some_and(|previous| {
                previous.is_lowercase()
                    || previous.is_ascii_digit()
                    || (previous.is_uppercase() && next.is_some_and(|next| next.is_lowercase()))
            });
        if hump {
            words.push(String::new());
        }
        if let Some(word) = words.last_mut() {
            word.extend(character.to_lowercase());
        }
    }
    words.retain(|word| !word.is_empty());
    words
}

/// The words that name a clock.
const CLOCK_WORDS: [&str; 7] = [
    "at",
    "time",
    "date",
    "timestamp",
    "created",
    "updated",
    "modified",
];

/// The words that name a measurement (a span, not an instant).
const MEASUREMENT_WORDS: [&str; 14] = [
    "duration", "elapsed", "latency", "ms", "millis", "seconds", "secs", "took", "timeout", "ttl",
    "interval", "delay", "age", "spent",
];

/// Whether epoch numbers under this member are clocks (see the module docs).
pub fn clock_named(member: &str) -> bool {
    let words = words(member);
    words
        .iter()
        .any(|word| CLOCK_WORDS.contains(&word.as_str()))
        && !words
            .iter()
            .any(|word| MEASUREMENT_WORDS.contains(&word.as_str()))
}

/// The epoch unit of a number, by magnitude; `None` for a number no epoch clock spells.
fn epoch_unit(value: f64) -> Option<EpochMagnitude> {
    match value.abs() {
        n if (1e9..1e10).contains(&n) => Some(EpochMagnitude::Seconds),
        n if (1e12..1e13).contains(&n) => Some(EpochMagnitude::Milliseconds),
        n if (1e15..1e16).contains(&n) => Some(EpochMagnitude::Microseconds),
        n if (1e18..1e19).contains(&n) => Some(EpochMagnitude::Nanoseconds),
        _ => None,
    }
}

/// A value's clock format: an ISO string anywhere, an epoch number only in a clock context.
pub fn clock_format(value: &Value, clock_context: bool) -> Option<ComparedClockFormat> {
    match value {
        Value::String(text) => read_iso(text).map(|clock| ComparedClockFormat::Iso(clock.format)),
        Value::Number(number) if clock_context => {
            let integer = number.is_i64() || number.is_u64();
            epoch_unit(number.as_f64()?).map(|unit| ComparedClockFormat::Epoch(unit, integer))
        }
        _ => None,
    }
}

/// Where a probe record falls in time: exact for strict ISO spellings, milliseconds otherwise.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct StartKey {
    seconds: i64,
    /// Fraction digits (trailing zeros removed): compared as text, which is numeric order.
    fraction: String,
}

/// The ordering key of a recorded start time; `None` when it cannot be read.
pub fn start_key(recorded: &str) -> Option<StartKey> {
    let text = recorded.trim();
    if let Some(clock) = read_iso(text) {
        let strict = clock.format.separator == 'T'
            && matches!(
                clock.format.zone,
                ZoneSpelling::Utc | ZoneSpelling::Extended
            );
        if strict {
            return Some(StartKey {
                seconds: clock.instant.seconds,
                fraction: clock.fraction,
            });
        }
        return millisecond_key(clock.instant.millis());
    }
    let parsed = jiff::fmt::rfc2822::parse(text).ok()?;
    millisecond_key(i128::from(parsed.timestamp().as_millisecond()))
}

fn millisecond_key(milliseconds: i128) -> Option<StartKey> {
    let fraction = format!("{:03}", milliseconds.rem_euclid(1000));
    Some(StartKey {
        seconds: i64::try_from(milliseconds.div_euclid(1000)).ok()?,
        fraction: fraction.trim_end_matches('0').to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn iso_clocks_are_read_with_calendar_and_offset_checks() {
        // contract: COMPARE-054
        assert!(read_iso("2026-01-01T10:00:00+23:59").is_some());
        assert!(read_iso("2026-01-01T10:00:00+24:00").is_none());
        assert!(read_iso("2026-01-01T10:00:00+05:60").is_none());
        assert!(read_iso("2026-01-01T10:00:00-0530").is_some());
        // contract: COMPARE-060
        assert!(read_iso("0000-01-01T00:00:00Z").is_some());
        assert!(read_iso("0099-12-31T23:59:59Z").is_some());
        assert!(read_iso("0004-02-29T00:00:00Z").is_some());
        assert!(read_iso("0100-02-29T00:00:00Z").is_none());
        assert!(read_iso("2026-02-30T00:00:00Z").is_none());
        assert!(read_iso("2026-12-05").is_none());
        assert!(read_iso("2026-12-05T10:00:00.Z").is_none());
        // Spellings a native `Date` does not read, though RFC 3339 allows them.
        assert!(read_iso("2026-12-05t10:00:00Z").is_none());
        assert!(read_iso("2026-12-05T10:00:00z").is_none());
        assert!(read_iso("2016-12-31T23:59:60Z").is_none());
        // The last second of the four-digit years is a clock.
        assert!(read_iso("9999-12-31T23:59:59.999Z").is_some());
        let clock = read_iso("2026-01-01 10:00:00.120Z").expect("a clock");
        assert_eq!(
            clock.format,
            IsoFormat {
                separator: ' ',
                seconds: true,
                fraction_digits: 3,
                zone: ZoneSpelling::Utc
            }
        );
    }

    #[test]
    fn clock_names_follow_words_and_skip_measurements() {
        for name in [
            "at",
            "created",
            "createdAt",
            "created_at",
            "last_modified",
            "lastModified",
            "updated-at",
            "start_time",
            "timestamp",
            "date",
        ] {
            assert!(clock_named(name), "{name}");
        }
        for name in [
            "duration_ms",
            "response_time_ms",
            "priority",
            "status",
            "data",
            "format",
            "category",
            "metadata",
        ] {
            assert!(!clock_named(name), "{name}");
        }
    }

    #[test]
    fn epoch_numbers_are_clocks_only_in_a_clock_context() {
        let millis = json!(1795950612507_i64);
        assert_eq!(
            clock_format(&millis, true),
            Some(ComparedClockFormat::Epoch(
                EpochMagnitude::Milliseconds,
                true
            ))
        );
        assert_eq!(clock_format(&millis, false), None);
        assert_eq!(clock_format(&json!(0), true), None);
        assert_eq!(
            clock_format(&json!(1795950612.5), true),
            Some(ComparedClockFormat::Epoch(EpochMagnitude::Seconds, false))
        );
        assert!(clock_format(&json!("2026-01-01T00:00:00Z"), false).is_some());
    }

    #[test]
    fn start_keys_keep_every_fraction_digit_of_strict_iso_spellings() {
        // contract: COMPARE-055
        let earlier = start_key("2026-01-01T10:00:00.1234567891Z").unwrap();
        let later = start_key("2026-01-01T10:00:00.1234567892Z").unwrap();
        assert!(earlier < later);
        assert_eq!(
            start_key("2026-01-01T12:00:00.5+02:00"),
            start_key("2026-01-01T10:00:00.50Z")
        );
        // contract: COMPARE-057
        let spaced = start_key("2026-01-01 10:00:00.1234567891Z").unwrap();
        let spaced_later = start_key("2026-01-01 10:00:00.1239Z").unwrap();
        assert_eq!(spaced, spaced_later, "a space spelling keeps milliseconds");
        assert_eq!(
            start_key("2026-01-01T10:00:00.123+0000"),
            start_key("2026-01-01T10:00:00.123Z")
        );
        assert_eq!(
            start_key("Thu, 01 Jan 2026 10:00:00 +0000"),
            start_key("2026-01-01T10:00:00Z")
        );
        assert_eq!(start_key("yesterday"), None);
        let utc = start_key("2026-01-01T10:00:00Z");
        // contract: COMPARE-064
        assert_eq!(
            [
                start_key("2026-01-01 10:00:00Z"),
                start_key("2026-01-01T11:00:00+01:00"),
                start_key("2026-01-01T11:00:00+0100"),
                start_key("2026-01-01T10:00:00"),
                start_key("2026-01-01 10:00:00"),
            ],
            [utc.clone(), utc.clone(), utc.clone(), utc.clone(), utc]
        );
    }
}

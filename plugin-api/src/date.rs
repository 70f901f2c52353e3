//! Dates and times as applications spell them: one ISO-8601 / RFC 3339 reader and writer for
//! plugins and the host alike, on `jiff` (calendar validation, offsets, timestamps).
//!
//! What `jiff` does not do is keep a spelling: a recorded clock is respelled the way the
//! application wrote it, so [`parse`] answers the civil date-time, its offset *and* its
//! [`Spelling`] (separator, seconds, fraction digits, zone as written), and [`spell`] writes a
//! timestamp back in a spelling. The grammar:
//!
//! ```text
//! YYYY-MM-DD (T | t | space) HH:MM [:SS [.fraction]] [Z | z | ±HH:MM | ±HHMM]
//! ```
//!
//! * Years are four digits, `0000`–`9999` (a year below 100 is that year, not 19xx), with normal
//!   calendar validation (no 30 February).
//! * Offsets stay within RFC 3339's ranges: hours `00`–`23`, minutes `00`–`59`. No zone at all is
//!   read as UTC; callers that need a zone check [`Spelling::zone`].
//! * A fraction has at least one digit and any number of them: all are kept as written
//!   ([`RecordedDateTime::fraction`]); the timestamp keeps the first nine (nanoseconds).
//! * A leap second (`:60`) is read as `:59` of the same minute.
//! * Minute-only times (`HH:MM`) are read; [`Spelling::seconds`] tells them apart.
//!
//! Clock values ([`read_clock`], [`spell_clock`]) add epoch numbers in seconds or milliseconds, as
//! the clock rules learn and serve them ([`ClockFormat`]).
//!
//! Instants are [`UtcInstant`]s: seconds and nanoseconds since the Unix epoch, over every UTC
//! date-time `jiff`'s civil calendar holds (years -9999 to 9999). `jiff::Timestamp` is not used:
//! it ends on 9999-12-30T22:00Z (so that any offset keeps a civil reading in range), and clocks
//! run to 9999-12-31T23:59:59.999999999Z.

use jiff::SignedDuration;
use jiff::civil::{Date, DateTime, Time};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The Unix epoch as a UTC civil date-time.
const EPOCH: DateTime = DateTime::constant(1970, 1, 1, 0, 0, 0, 0);

/// The last second of year 9999 (9999-12-31T23:59:59Z), in seconds since the epoch.
const LAST_SECOND: i64 = 253_402_300_799;

/// An instant: seconds since the Unix epoch and nanoseconds within the second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UtcInstant {
    /// Whole seconds since 1970-01-01T00:00:00Z (may be negative).
    pub seconds: i64,
    /// Nanoseconds, `0..1_000_000_000`.
    pub nanos: u32,
}

impl UtcInstant {
    /// The instant `nanos` nanoseconds after the epoch; `None` past what `i64` seconds hold.
    pub fn from_nanos(nanos: i128) -> Option<Self> {
        Some(Self {
            seconds: i64::try_from(nanos.div_euclid(1_000_000_000)).ok()?,
            nanos: nanos.rem_euclid(1_000_000_000) as u32,
        })
    }

    /// Nanoseconds since the epoch.
    pub fn as_nanos(self) -> i128 {
        i128::from(self.seconds) * 1_000_000_000 + i128::from(self.nanos)
    }

    /// Milliseconds since the epoch (rounded down).
    pub fn millis(self) -> i128 {
        self.as_nanos().div_euclid(1_000_000)
    }

    /// The instant of a UTC civil date-time.
    fn of_utc(utc: DateTime) -> Option<Self> {
        Self::from_nanos(utc.duration_since(EPOCH).as_nanos())
    }

    /// The UTC civil date-time of the instant; `None` outside `jiff`'s calendar.
    fn utc(self) -> Option<DateTime> {
        EPOCH
            .checked_add(SignedDuration::new(self.seconds, self.nanos as i32))
            .ok()
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction]Z` (the records' parsed start instants; no other
    /// separator or zone).
    pub fn parse(text: &str) -> Option<Self> {
        let recorded = parse(text)?;
        let spelling = &recorded.spelling;
        if spelling.separator != 'T' || !spelling.seconds || spelling.zone != "Z" {
            return None;
        }
        recorded.instant()
    }

    /// The instant as `YYYY-MM-DDTHH:MM:SS.fffffffffZ` (nine fraction digits); empty outside
    /// years `0000`–`9999`.
    pub fn to_nanos_text(self) -> String {
        spell(self, &Spelling::utc(9)).unwrap_or_default()
    }

    /// The instant as `YYYY-MM-DDTHH:MM:SSZ` (whole seconds; any fraction dropped); empty outside
    /// years `0000`–`9999`.
    pub fn to_seconds_text(self) -> String {
        spell(self, &Spelling::utc(0)).unwrap_or_default()
    }

    /// The instant `milliseconds` later (fractional milliseconds kept to the nanosecond); `None`
    /// when that is not finite or falls after year 9999.
    pub fn plus_millis(self, milliseconds: f64) -> Option<Self> {
        let added = (milliseconds * 1_000_000.0).round();
        if !added.is_finite() || added.abs() > 1e30 {
            return None;
        }
        let instant = Self::from_nanos(self.as_nanos() + added as i128)?;
        (instant.ceil_second().seconds <= LAST_SECOND).then_some(instant)
    }

    /// The next whole second at or after this instant.
    pub fn ceil_second(self) -> Self {
        Self {
            seconds: self.seconds + i64::from(self.nanos > 0),
            nanos: 0,
        }
    }

    /// The instant `seconds` later.
    pub fn plus_seconds(self, seconds: u64) -> Self {
        Self {
            seconds: self.seconds.saturating_add(seconds as i64),
            nanos: self.nanos,
        }
    }
}

/// How a date-time is spelled: everything about it but its instant.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Spelling {
    /// Between date and time: `T`, `t` or a space.
    pub separator: char,
    /// Whether the time has seconds (`HH:MM:SS`), not only minutes.
    pub seconds: bool,
    /// Fraction digits written (0: no fraction).
    pub digits: usize,
    /// The zone as written: `Z`, `z`, `+01:00`, `+0100`, or empty for none.
    pub zone: String,
}

impl Spelling {
    /// UTC with `T`, seconds, `digits` fraction digits and `Z`.
    pub fn utc(digits: usize) -> Self {
        Self {
            separator: 'T',
            seconds: true,
            digits,
            zone: "Z".to_owned(),
        }
    }

    /// Whether the zone names UTC (`Z`, `z`, `+00:00`, `-00:00`, `+0000`, `-0000`); no zone is
    /// not counted as a UTC spelling.
    pub fn is_utc(&self) -> bool {
        matches!(
            self.zone.as_str(),
            "Z" | "z" | "+00:00" | "-00:00" | "+0000" | "-0000"
        )
    }
}

/// A date-time as recorded: its civil (local) reading, its offset and its spelling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedDateTime {
    /// The date and time as written (in the written zone).
    pub civil: DateTime,
    /// The zone's offset from UTC in seconds (0 for `Z` and for no zone).
    pub offset_seconds: i32,
    /// Every fraction digit as written (empty for none).
    pub fraction: String,
    /// The spelling.
    pub spelling: Spelling,
}

impl RecordedDateTime {
    /// The instant, or `None` when its UTC reading falls outside `jiff`'s calendar.
    pub fn instant(&self) -> Option<UtcInstant> {
        let utc = self
            .civil
            .checked_sub(SignedDuration::from_secs(i64::from(self.offset_seconds)))
            .ok()?;
        UtcInstant::of_utc(utc)
    }
}

/// Reads a date-time (the grammar in the module docs); `None` when the text is not one.
pub fn parse(text: &str) -> Option<RecordedDateTime> {
    let bytes = text.as_bytes();
    let number = |from: usize, count: usize| -> Option<i32> {
        let slice = bytes.get(from..from + count)?;
        slice.iter().try_fold(0i32, |value, byte| {
            byte.is_ascii_digit()
                .then(|| value * 10 + i32::from(byte - b'0'))
        })
    };
    let separator_at = |at: usize, expected: u8| (bytes.get(at) == Some(&expected)).then_some(());
    let year = number(0, 4)?;
    separator_at(4, b'-')?;
    let month = number(5, 2)?;
    separator_at(7, b'-')?;
    let day = number(8, 2)?;
    let separator = match bytes.get(10)? {
        b'T' => 'T',
        b't' => 't',
        b' ' => ' ',
        _ => return None,
    };
    let hour = number(11, 2)?;
    separator_at(13, b':')?;
    let minute = number(14, 2)?;
    let (second, seconds) = match bytes.get(16) {
        Some(b':') => (number(17, 2)?, true),
        _ => (0, false),
    };
    let mut at = if seconds { 19 } else { 16 };
    let mut fraction = String::new();
    if seconds && bytes.get(at) == Some(&b'.') {
        let digits = bytes[at + 1..]
            .iter()
            .take_while(|byte| byte.is_ascii_digit())
            .count();
        if digits == 0 {
            return None;
        }
        fraction = text[at + 1..at + 1 + digits].to_owned();
        at += 1 + digits;
    }
    let zone = &text[at..];
    let offset_seconds = zone_offset(zone)?;
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let date = Date::new(i16::try_from(year).ok()?, month as i8, day as i8).ok()?;
    let time = Time::new(
        hour as i8,
        minute as i8,
        second.min(59) as i8,
        nanos_of(&fraction),
    )
    .ok()?;
    Some(RecordedDateTime {
        civil: DateTime::from_parts(date, time),
        offset_seconds,
        spelling: Spelling {
            separator,
            seconds,
            digits: fraction.len(),
            zone: zone.to_owned(),
        },
        fraction,
    })
}

/// The nanoseconds of a fraction's digits: the first nine, padded with zeros.
fn nanos_of(fraction: &str) -> i32 {
    fraction
        .bytes()
        .chain(std::iter::repeat(b'0'))
        .take(9)
        .fold(0, |value, byte| value * 10 + i32::from(byte - b'0'))
}

/// A zone spelling's offset from UTC in seconds: `Z`, `z` and none are 0; `±HH:MM` and `±HHMM`
/// within RFC 3339's ranges (hours to 23, minutes to 59). `None` when it is no zone spelling.
pub fn zone_offset(zone: &str) -> Option<i32> {
    let (sign, hours, minutes) = match zone.as_bytes() {
        [] | [b'Z' | b'z'] => return Some(0),
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] | [sign @ (b'+' | b'-'), h1, h2, m1, m2] => {
            (*sign, [*h1, *h2], [*m1, *m2])
        }
        _ => return None,
    };
    let two = |pair: [u8; 2]| {
        pair.iter()
            .all(u8::is_ascii_digit)
            .then(|| i32::from(pair[0] - b'0') * 10 + i32::from(pair[1] - b'0'))
    };
    let (hours, minutes) = (two(hours)?, two(minutes)?);
    if hours > 23 || minutes > 59 {
        return None;
    }
    let magnitude = hours * 3_600 + minutes * 60;
    Some(if sign == b'+' { magnitude } else { -magnitude })
}

/// An instant written in a spelling: the time in the spelling's zone, the fraction cut (or
/// padded with zeros) to its digits. `None` when the zone is no zone spelling or the year in that
/// zone falls outside `0000`–`9999`.
pub fn spell(instant: UtcInstant, spelling: &Spelling) -> Option<String> {
    let offset = SignedDuration::from_secs(i64::from(zone_offset(&spelling.zone)?));
    let local = instant.utc()?.checked_add(offset).ok()?;
    if !(0..=9999).contains(&local.year()) {
        return None;
    }
    let mut text = format!(
        "{:04}-{:02}-{:02}{}{:02}:{:02}",
        local.year(),
        local.month(),
        local.day(),
        spelling.separator,
        local.hour(),
        local.minute()
    );
    if spelling.seconds {
        text.push_str(&format!(":{:02}", local.second()));
        if spelling.digits > 0 {
            let nanos = format!("{:09}", local.subsec_nanosecond());
            text.push('.');
            text.extend(
                nanos
                    .chars()
                    .chain(std::iter::repeat('0'))
                    .take(spelling.digits),
            );
        }
    }
    text.push_str(&spelling.zone);
    Some(text)
}

/// The UTC instant of a recorded start time (`StartTime::instant` in the capture contract):
/// `YYYY-MM-DDTHH:MM:SS.fffffffffZ`, nine fraction digits so text order is time order. The
/// recorded text must have seconds and a zone; `None` otherwise, or when the instant falls
/// outside years `0000`–`9999`.
pub fn instant_text(text: &str) -> Option<String> {
    let recorded = parse(text)?;
    if !recorded.spelling.seconds || recorded.spelling.zone.is_empty() {
        return None;
    }
    spell(recorded.instant()?, &Spelling::utc(9))
}

/// How a clock value is spelled in JSON: ISO-8601 text, or an epoch number (seconds or
/// milliseconds) written as a number or as a string of digits. Serialized as learned rules carry
/// it: `{"kind": "iso", "separator", "digits", "zone"}` or `{"kind": "epoch", "unit": "s" | "ms",
/// "string"}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum ClockFormat {
    /// ISO-8601 text with seconds.
    Iso {
        /// `T`, `t` or a space.
        separator: char,
        /// Fraction digits.
        digits: usize,
        /// The zone as spelled (`Z`, `+00:00`, `+0000`, `+02:00`, or empty).
        zone: String,
    },
    /// Epoch seconds or milliseconds.
    Epoch {
        /// Seconds or milliseconds.
        unit: EpochUnit,
        /// Spelled as a string of digits.
        string: bool,
    },
}

/// The unit of an epoch clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EpochUnit {
    /// Seconds.
    #[serde(rename = "s")]
    Seconds,
    /// Milliseconds.
    #[serde(rename = "ms")]
    Milliseconds,
}

impl ClockFormat {
    /// The nanoseconds one step of this spelling stands for: a second, a millisecond, or the
    /// last fraction digit (a fraction longer than nine digits counts as nanoseconds).
    pub fn precision_nanos(&self) -> i128 {
        match self {
            ClockFormat::Epoch {
                unit: EpochUnit::Seconds,
                ..
            } => 1_000_000_000,
            ClockFormat::Epoch {
                unit: EpochUnit::Milliseconds,
                ..
            } => 1_000_000,
            ClockFormat::Iso { digits, .. } => 10i128.pow(9u32.saturating_sub(*digits as u32)),
        }
    }
}

/// Reads ISO-8601 text with seconds as a clock: its instant and format.
pub fn read_iso_clock(text: &str) -> Option<(UtcInstant, ClockFormat)> {
    let recorded = parse(text)?;
    if !recorded.spelling.seconds {
        return None;
    }
    let instant = recorded.instant()?;
    let Spelling {
        separator,
        digits,
        zone,
        ..
    } = recorded.spelling;
    Some((
        instant,
        ClockFormat::Iso {
            separator,
            digits,
            zone,
        },
    ))
}

/// Reads a JSON value as a clock: ISO-8601 text with seconds, or a plausible epoch (2001-09-09 to
/// 2286-11-20) in seconds or milliseconds, as a number or a string of digits.
pub fn read_clock(value: &Value) -> Option<(UtcInstant, ClockFormat)> {
    let (number, string) = match value {
        Value::String(text) => {
            if let Some(found) = read_iso_clock(text) {
                return Some(found);
            }
            let digits = !text.is_empty() && text.bytes().all(|byte| byte.is_ascii_digit());
            (digits.then(|| text.parse::<i64>().ok()).flatten()?, true)
        }
        Value::Number(number) => (number.as_i64()?, false),
        _ => return None,
    };
    let (instant, unit) = if (1_000_000_000..10_000_000_000).contains(&number) {
        (
            UtcInstant {
                seconds: number,
                nanos: 0,
            },
            EpochUnit::Seconds,
        )
    } else if (1_000_000_000_000..10_000_000_000_000).contains(&number) {
        (
            UtcInstant::from_nanos(i128::from(number) * 1_000_000)?,
            EpochUnit::Milliseconds,
        )
    } else {
        return None;
    };
    Some((instant, ClockFormat::Epoch { unit, string }))
}

/// An instant as a clock value in a format; `None` when it cannot be spelled so (a year outside
/// `0000`–`9999` in the format's zone, or a zone that is no zone spelling).
pub fn spell_clock(instant: UtcInstant, format: &ClockFormat) -> Option<Value> {
    match format {
        ClockFormat::Epoch { unit, string } => {
            let nanos = instant.as_nanos();
            let number = match unit {
                EpochUnit::Milliseconds => nanos.div_euclid(1_000_000),
                EpochUnit::Seconds => nanos.div_euclid(1_000_000_000),
            };
            let number = i64::try_from(number).ok()?;
            Some(if *string {
                Value::String(number.to_string())
            } else {
                Value::from(number)
            })
        }
        ClockFormat::Iso {
            separator,
            digits,
            zone,
        } => {
            let spelling = Spelling {
                separator: *separator,
                seconds: true,
                digits: *digits,
                zone: zone.clone(),
            };
            spell(instant, &spelling).map(Value::String)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timestamp(text: &str) -> UtcInstant {
        parse(text)
            .and_then(|recorded| recorded.instant())
            .unwrap_or_else(|| panic!("{text} reads as a timestamp"))
    }

    #[test]
    fn producers_spellings_read_as_utc_instants() {
        // The HAR start times browsers, Playwright, mitmproxy and proxies write.
        let cases = [
            (
                "2023-03-29T17:37:42.482-07:00",
                "2023-03-30T00:37:42.482000000Z",
            ),
            ("2023-03-30T00:00:54.250Z", "2023-03-30T00:00:54.250000000Z"),
            (
                "2023-07-25T11:03:15.216374+00:00",
                "2023-07-25T11:03:15.216374000Z",
            ),
            ("2024-02-29T23:59:59+0130", "2024-02-29T22:29:59.000000000Z"),
            (
                "2000-01-01 00:00:00.1234567891z",
                "2000-01-01T00:00:00.123456789Z",
            ),
            (
                "1970-01-01T00:30:00+01:00",
                "1969-12-31T23:30:00.000000000Z",
            ),
            ("0099-12-31T23:59:59Z", "0099-12-31T23:59:59.000000000Z"),
            ("0000-01-01T00:00:00Z", "0000-01-01T00:00:00.000000000Z"),
        ];
        for (recorded, instant) in cases {
            assert_eq!(
                instant_text(recorded).as_deref(),
                Some(instant),
                "{recorded}"
            );
        }
        for bad in [
            "",
            "2023-02-29T00:00:00Z",
            "2023-03-30T24:00:00Z",
            "2023-03-30T00:00:00",
            "2023-03-30T00:00Z",
            "2023-03-30T00:00:00.Z",
            "0000-01-01T00:00:00+01:00",
            "2023-03-30T00:00:00Zx",
            "2023-03-30T00:00:00+24:00",
            "2023-03-30T00:00:00+01:60",
            "2023-03-30T00:00:00+1:00",
            "١٢٣٤-01-01T00:00:00Z",
        ] {
            assert_eq!(instant_text(bad), None, "{bad}");
        }
    }

    #[test]
    fn spellings_keep_separator_precision_and_zone() {
        let recorded = parse("2026-11-29T12:02:33.9726+01:00").expect("iso");
        assert_eq!(
            recorded.spelling,
            Spelling {
                separator: 'T',
                seconds: true,
                digits: 4,
                zone: "+01:00".into()
            }
        );
        let instant = recorded.instant().expect("in range");
        assert_eq!(
            spell(instant, &recorded.spelling).as_deref(),
            Some("2026-11-29T12:02:33.9726+01:00")
        );
        let utc_plain = Spelling {
            separator: ' ',
            seconds: true,
            digits: 0,
            zone: String::new(),
        };
        assert_eq!(
            spell(instant, &utc_plain).as_deref(),
            Some("2026-11-29 11:02:33")
        );
        let padded = Spelling::utc(6);
        assert_eq!(
            spell(timestamp("2026-11-29T11:02:33.972Z"), &padded).as_deref(),
            Some("2026-11-29T11:02:33.972000Z")
        );
        // A year outside 0000–9999 in the target zone cannot be spelled.
        let early = timestamp("0000-01-01T00:30:00Z");
        let behind = Spelling {
            zone: "-01:00".into(),
            ..Spelling::utc(0)
        };
        assert_eq!(spell(early, &behind), None);
    }

    #[test]
    fn minute_only_times_long_fractions_and_zone_forms_are_read() {
        let minutes = parse("2026-11-29 11:02+0000").expect("minute-only");
        assert!(!minutes.spelling.seconds);
        assert_eq!(minutes.spelling.zone, "+0000");
        assert!(minutes.spelling.is_utc());
        assert_eq!(
            spell(minutes.instant().expect("in range"), &minutes.spelling).as_deref(),
            Some("2026-11-29 11:02+0000")
        );
        let long = parse("2026-11-29T11:02:33.1234567891234Z").expect("long fraction");
        assert_eq!(long.fraction, "1234567891234");
        assert_eq!(long.spelling.digits, 13);
        assert_eq!(long.civil.subsec_nanosecond(), 123_456_789);
        let zoneless = parse("2026-11-29T11:02:33").expect("no zone");
        assert_eq!(zoneless.offset_seconds, 0);
        assert!(!zoneless.spelling.is_utc());
        assert_eq!(
            parse("2026-11-29T11:02:33.5+02:00").unwrap().offset_seconds,
            7_200
        );
        assert_eq!(
            parse("2026-11-29T11:02:33-0330").unwrap().offset_seconds,
            -12_600
        );
        // A fraction needs seconds; a minute-only time takes no fraction.
        assert!(parse("2026-11-29T11:02.5Z").is_none());
        assert!(parse("20250331").is_none());
        assert!(parse("2026-13-01T00:00:00Z").is_none());
        // A leap second reads as the last second of its minute.
        assert_eq!(
            instant_text("2016-12-31T23:59:60Z").as_deref(),
            Some("2016-12-31T23:59:59.000000000Z")
        );
    }

    #[test]
    fn instants_do_the_clock_arithmetic() {
        let instant = timestamp("2026-11-29T11:02:33.972665000Z");
        assert_eq!(instant.millis(), 1_795_950_153_972);
        assert_eq!(
            timestamp("1969-12-31T23:59:59Z").seconds,
            -1,
            "before the epoch"
        );
        assert_eq!(
            spell(instant.plus_seconds(2), &Spelling::utc(9)).as_deref(),
            Some("2026-11-29T11:02:35.972665000Z")
        );
        let new_year = timestamp("2026-12-31T23:59:59Z").plus_seconds(2);
        assert_eq!(new_year.to_seconds_text(), "2027-01-01T00:00:01Z");
        assert_eq!(
            instant.ceil_second().to_seconds_text(),
            "2026-11-29T11:02:34Z"
        );
        assert_eq!(
            UtcInstant::parse("2026-11-29T11:02:33.972665Z").map(UtcInstant::to_nanos_text),
            Some("2026-11-29T11:02:33.972665000Z".to_owned())
        );
        // Only `T` and `Z` with seconds are a record's start instant.
        assert_eq!(UtcInstant::parse("2026-11-29 11:02:33Z"), None);
        assert_eq!(UtcInstant::parse("2026-11-29T11:02:33+00:00"), None);
    }

    #[test]
    fn instants_reach_the_last_second_of_year_9999() {
        // Past `jiff::Timestamp::MAX` (9999-12-30T22:00Z), still within the four-digit years.
        let last = timestamp("9999-12-31T23:59:59.999999999Z");
        assert_eq!(last.to_nanos_text(), "9999-12-31T23:59:59.999999999Z");
        assert_eq!(
            instant_text("9999-12-31T23:30:00-00:29").as_deref(),
            Some("9999-12-31T23:59:00.000000000Z")
        );
        assert_eq!(instant_text("9999-12-31T23:30:00-00:30"), None);
        let ahead = Spelling {
            zone: "+01:00".into(),
            ..Spelling::utc(0)
        };
        assert_eq!(
            spell(timestamp("9999-12-31T22:59:59Z"), &ahead).as_deref(),
            Some("9999-12-31T23:59:59+01:00")
        );
        assert_eq!(spell(timestamp("9999-12-31T23:00:00Z"), &ahead), None);
        let second = timestamp("9999-12-31T23:59:58Z");
        assert_eq!(
            second.plus_millis(1_000.0).map(UtcInstant::to_seconds_text),
            Some("9999-12-31T23:59:59Z".to_owned())
        );
        assert_eq!(second.plus_millis(1_500.0), None, "rounds up into 10000");
        assert_eq!(second.plus_millis(f64::INFINITY), None);
        let (clock, format) = read_iso_clock("9999-12-31T23:59:59Z").expect("a clock");
        assert_eq!(
            spell_clock(clock, &format),
            Some(Value::from("9999-12-31T23:59:59Z"))
        );
        assert_eq!(spell_clock(clock.plus_seconds(1), &format), None);
    }

    #[test]
    fn clock_values_read_and_spell_in_their_format() {
        let (instant, format) =
            read_clock(&Value::from("2026-11-29T12:02:33.9726+01:00")).expect("iso");
        assert_eq!(
            format,
            ClockFormat::Iso {
                separator: 'T',
                digits: 4,
                zone: "+01:00".into()
            }
        );
        assert_eq!(format.precision_nanos(), 100_000);
        assert_eq!(
            serde_json::to_value(&format).unwrap(),
            serde_json::json!({"kind": "iso", "separator": "T", "digits": 4, "zone": "+01:00"})
        );
        assert_eq!(
            spell_clock(instant, &format),
            Some(Value::from("2026-11-29T12:02:33.9726+01:00"))
        );
        let (epoch, millis) = read_clock(&Value::from(1_795_950_607_203u64)).expect("epoch ms");
        assert_eq!(
            millis,
            ClockFormat::Epoch {
                unit: EpochUnit::Milliseconds,
                string: false
            }
        );
        assert_eq!(
            serde_json::to_value(&millis).unwrap(),
            serde_json::json!({"kind": "epoch", "unit": "ms", "string": false})
        );
        assert_eq!(
            spell_clock(epoch, &millis),
            Some(Value::from(1_795_950_607_203u64))
        );
        let seconds = ClockFormat::Epoch {
            unit: EpochUnit::Seconds,
            string: true,
        };
        assert_eq!(
            spell_clock(epoch, &seconds),
            Some(Value::from("1795950607"))
        );
        assert_eq!(
            read_clock(&Value::from("1795950607")).map(|(_, f)| f),
            Some(seconds)
        );
        // Implausible epochs, minute-only times and other values are no clocks.
        assert!(read_clock(&Value::from(12_345)).is_none());
        assert!(read_clock(&Value::from("2026-11-29T11:02Z")).is_none());
        assert!(read_clock(&Value::Bool(true)).is_none());
    }
}

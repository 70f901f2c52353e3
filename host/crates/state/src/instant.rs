//! UTC instants as the capture records them (`YYYY-MM-DDTHH:MM:SS.fffffffffZ`), the write clock
//! learned from them, and the served clock that advances from it.
//!
//! The write clock is the end of the capture: the latest `start + duration` of the records the
//! manifest cites, rounded up to the next whole second, so every served write happens after
//! everything recorded. It is `null` when any cited record lacks a usable start time or a
//! duration (the capture then fixes no global clock start). The served clock of the `n`-th served
//! write since a reset or load (counting from 0) is the write clock plus `n` seconds.

/// An instant: seconds since the Unix epoch and nanoseconds within the second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct UtcInstant {
    /// Whole seconds since 1970-01-01T00:00:00Z (may be negative).
    pub seconds: i64,
    /// Nanoseconds, `0..1_000_000_000`.
    pub nanos: u32,
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = if year >= 0 { year } else { year - 399 } / 400;
    let year_of_era = year - era * 400;
    let month = i64::from(month);
    let day_of_year =
        (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + i64::from(day) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The date of a day since 1970-01-01: `(year, month, day)`.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let days = days + 719_468;
    let era = if days >= 0 { days } else { days - 146_096 } / 146_097;
    let day_of_era = days - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * month_index + 2) / 5 + 1) as u32;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

impl UtcInstant {
    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction]Z` (the records' parsed start instants).
    pub fn parse(text: &str) -> Option<Self> {
        let bytes = text.as_bytes();
        if bytes.len() < 20 || !text.ends_with('Z') {
            return None;
        }
        let number = |range: std::ops::Range<usize>| -> Option<i64> {
            let part = text.get(range)?;
            part.bytes()
                .all(|byte| byte.is_ascii_digit())
                .then(|| part.parse().ok())?
        };
        if bytes[4] != b'-'
            || bytes[7] != b'-'
            || bytes[10] != b'T'
            || bytes[13] != b':'
            || bytes[16] != b':'
        {
            return None;
        }
        let year = number(0..4)?;
        let month = u32::try_from(number(5..7)?).ok()?;
        let day = u32::try_from(number(8..10)?).ok()?;
        let hour = number(11..13)?;
        let minute = number(14..16)?;
        let second = number(17..19)?;
        if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 {
            return None;
        }
        let rest = &text[19..text.len() - 1];
        let nanos = match rest.strip_prefix('.') {
            None if rest.is_empty() => 0,
            Some(fraction)
                if !fraction.is_empty() && fraction.bytes().all(|byte| byte.is_ascii_digit()) =>
            {
                let mut digits: String = fraction.chars().take(9).collect();
                while digits.len() < 9 {
                    digits.push('0');
                }
                digits.parse().ok()?
            }
            _ => return None,
        };
        let seconds =
            days_from_civil(year, month, day) * 86_400 + hour * 3_600 + minute * 60 + second;
        Some(Self { seconds, nanos })
    }

    /// The instant as `YYYY-MM-DDTHH:MM:SS.fffffffffZ` (nine fraction digits).
    pub fn to_nanos_text(self) -> String {
        let (date, time) = self.parts();
        format!("{date}T{time}.{:09}Z", self.nanos)
    }

    /// The instant as `YYYY-MM-DDTHH:MM:SSZ` (whole seconds; any fraction dropped).
    pub fn to_seconds_text(self) -> String {
        let (date, time) = self.parts();
        format!("{date}T{time}Z")
    }

    fn parts(self) -> (String, String) {
        let days = self.seconds.div_euclid(86_400);
        let within = self.seconds.rem_euclid(86_400);
        let (year, month, day) = civil_from_days(days);
        (
            format!("{year:04}-{month:02}-{day:02}"),
            format!(
                "{:02}:{:02}:{:02}",
                within / 3_600,
                (within / 60) % 60,
                within % 60
            ),
        )
    }

    /// Milliseconds since the epoch.
    pub fn millis(self) -> i128 {
        i128::from(self.seconds) * 1_000 + i128::from(self.nanos / 1_000_000)
    }

    /// The instant `milliseconds` later (fractional milliseconds kept to the nanosecond); `None`
    /// when that is not finite or falls after year 9999.
    pub fn plus_millis(self, milliseconds: f64) -> Option<Self> {
        let added = (milliseconds * 1_000_000.0).round();
        if !added.is_finite() || added.abs() > 1e30 {
            return None;
        }
        let total =
            i128::from(self.seconds) * 1_000_000_000 + i128::from(self.nanos) + added as i128;
        let seconds = i64::try_from(total.div_euclid(1_000_000_000)).ok()?;
        let instant = Self {
            seconds,
            nanos: total.rem_euclid(1_000_000_000) as u32,
        };
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

/// The last second an instant may name: 9999-12-31T23:59:59Z.
const LAST_SECOND: i64 = 253_402_300_799;

/// The write clock of records given as `(start instant, duration in milliseconds)`; `None` when
/// any lacks either, or when a duration carries the clock past year 9999.
pub fn write_clock<'a>(
    records: impl IntoIterator<Item = (Option<&'a str>, Option<f64>)>,
) -> Option<String> {
    let mut end: Option<UtcInstant> = None;
    for (start, duration) in records {
        let start = UtcInstant::parse(start?)?;
        let duration = duration.filter(|duration| duration.is_finite() && *duration >= 0.0)?;
        let finished = start.plus_millis(duration)?;
        end = Some(end.map_or(finished, |end| end.max(finished)));
    }
    end.map(|end| end.ceil_second().to_seconds_text())
}

/// The served clock of the `writes`-th served write since a reset or load.
pub fn served_clock(write_clock: &str, writes: u64) -> Option<String> {
    Some(
        UtcInstant::parse(write_clock)?
            .plus_seconds(writes)
            .to_nanos_text(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instants_round_trip_and_advance() {
        // contract: WRITE-056, WRITE-057
        let instant = UtcInstant::parse("2026-11-29T11:02:33.972665000Z").expect("parses");
        assert_eq!(instant.to_nanos_text(), "2026-11-29T11:02:33.972665000Z");
        assert_eq!(instant.millis(), 1_795_950_153_972);
        assert_eq!(
            instant.ceil_second().to_seconds_text(),
            "2026-11-29T11:02:34Z"
        );
        assert_eq!(
            served_clock("2026-12-31T23:59:59Z", 2).as_deref(),
            Some("2027-01-01T00:00:01.000000000Z")
        );
        assert_eq!(
            UtcInstant::parse("1969-12-31T23:59:59Z").map(|i| i.seconds),
            Some(-1)
        );
        assert!(UtcInstant::parse("2026-13-01T00:00:00Z").is_none());
        assert_eq!(
            write_clock([
                (Some("2026-11-29T11:02:33.900000000Z"), Some(50.0)),
                (Some("2026-11-29T11:02:34.500000000Z"), Some(600.0)),
            ])
            .as_deref(),
            Some("2026-11-29T11:02:36Z")
        );
        assert_eq!(write_clock([(Some("2026-11-29T11:02:33.9Z"), None)]), None);
    }

    #[test]
    fn a_duration_past_year_9999_gives_no_clock() {
        let start = Some("2024-05-01T10:00:00.000Z");
        for absurd in [1e17, 1e308, f64::INFINITY, f64::NAN] {
            assert_eq!(write_clock([(start, Some(absurd))]), None, "{absurd}");
        }
        assert_eq!(
            write_clock([(start, Some(86_400_000.0))]).as_deref(),
            Some("2024-05-02T10:00:00Z")
        );
        assert_eq!(
            write_clock([(Some("9999-12-31T23:59:58.000Z"), Some(1_000.0))]).as_deref(),
            Some("9999-12-31T23:59:59Z")
        );
        assert_eq!(
            write_clock([(Some("9999-12-31T23:59:58.000Z"), Some(1_500.0))]),
            None
        );
    }
}

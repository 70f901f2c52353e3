//! UTC instants as the capture records them (`YYYY-MM-DDTHH:MM:SS.fffffffffZ`), the write clock
//! learned from them, and the served clock that advances from it.
//!
//! The write clock is the end of the capture: the latest `start + duration` of the records the
//! manifest cites, rounded up to the next whole second, so every served write happens after
//! everything recorded. It is `null` when any cited record lacks a usable start time or a
//! duration (the capture then fixes no global clock start). The served clock of the `n`-th served
//! write since a reset or load (counting from 0) is the write clock plus `n` seconds. Reading and
//! spelling instants is `rea_plugin_api::date`'s.

use rea_plugin_api::date::{self, Spelling, Timestamp};

/// An instant: seconds since the Unix epoch and nanoseconds within the second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct UtcInstant {
    /// Whole seconds since 1970-01-01T00:00:00Z (may be negative).
    pub seconds: i64,
    /// Nanoseconds, `0..1_000_000_000`.
    pub nanos: u32,
}

impl UtcInstant {
    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction]Z` (the records' parsed start instants).
    pub fn parse(text: &str) -> Option<Self> {
        let recorded = date::parse(text)?;
        let spelling = &recorded.spelling;
        if spelling.separator != 'T' || !spelling.seconds || spelling.zone != "Z" {
            return None;
        }
        let nanos = recorded.timestamp()?.as_nanosecond();
        Some(Self {
            seconds: i64::try_from(nanos.div_euclid(1_000_000_000)).ok()?,
            nanos: nanos.rem_euclid(1_000_000_000) as u32,
        })
    }

    /// The instant as `YYYY-MM-DDTHH:MM:SS.fffffffffZ` (nine fraction digits).
    pub fn to_nanos_text(self) -> String {
        self.spelled(9)
    }

    /// The instant as `YYYY-MM-DDTHH:MM:SSZ` (whole seconds; any fraction dropped).
    pub fn to_seconds_text(self) -> String {
        self.spelled(0)
    }

    fn spelled(self, digits: usize) -> String {
        let nanos = i128::from(self.seconds) * 1_000_000_000 + i128::from(self.nanos);
        Timestamp::from_nanosecond(nanos)
            .ok()
            .and_then(|timestamp| date::spell(timestamp, &Spelling::utc(digits)))
            .unwrap_or_default()
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

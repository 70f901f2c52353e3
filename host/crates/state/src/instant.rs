//! UTC instants as the capture records them (`YYYY-MM-DDTHH:MM:SS.fffffffffZ`), the write clock
//! learned from them, and the served clock that advances from it.
//!
//! The write clock is the end of the capture: the latest `start + duration` of the records the
//! manifest cites, rounded up to the next whole second, so every served write happens after
//! everything recorded. It is `null` when any cited record lacks a usable start time or a
//! duration (the capture then fixes no global clock start). The served clock of the `n`-th served
//! write since a reset or load (counting from 0) is the write clock plus `n` seconds. The instant
//! type, its reading and spelling are `rea_plugin_api::date`'s.

pub use rea_plugin_api::date::UtcInstant;

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

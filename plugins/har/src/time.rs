//! Start times: the recorded ISO 8601 / RFC 3339 text to a UTC instant with nine fraction digits.

/// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM|±HHMM)` (`t`, `z` and a space separator are
/// accepted too) into `YYYY-MM-DDTHH:MM:SS.fffffffffZ` in UTC, so text order is time order.
/// Fractions beyond nanoseconds are truncated. `None` when the text is not such a date-time or
/// the instant falls outside years 0000–9999.
pub fn parse_instant(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let digits = |from: usize, count: usize| -> Option<i64> {
        let slice = bytes.get(from..from + count)?;
        slice.iter().try_fold(0i64, |value, byte| {
            byte.is_ascii_digit()
                .then(|| value * 10 + i64::from(byte - b'0'))
        })
    };
    let year = digits(0, 4)?;
    (bytes.get(4) == Some(&b'-')).then_some(())?;
    let month = digits(5, 2)?;
    (bytes.get(7) == Some(&b'-')).then_some(())?;
    let day = digits(8, 2)?;
    matches!(bytes.get(10), Some(b'T' | b't' | b' ')).then_some(())?;
    let hour = digits(11, 2)?;
    (bytes.get(13) == Some(&b':')).then_some(())?;
    let minute = digits(14, 2)?;
    (bytes.get(16) == Some(&b':')).then_some(())?;
    let second = digits(17, 2)?;
    let mut at = 19;
    let mut nanos = 0i64;
    if bytes.get(at) == Some(&b'.') {
        at += 1;
        let start = at;
        while bytes.get(at).is_some_and(u8::is_ascii_digit) {
            if at - start < 9 {
                nanos = nanos * 10 + i64::from(bytes[at] - b'0');
            }
            at += 1;
        }
        if at == start {
            return None;
        }
        for _ in (at - start)..9 {
            nanos *= 10;
        }
    }
    let offset_seconds = match bytes.get(at) {
        Some(b'Z' | b'z') if at + 1 == bytes.len() => 0,
        Some(&sign @ (b'+' | b'-')) => {
            let hours = digits(at + 1, 2)?;
            let minutes = match bytes.len() - (at + 3) {
                3 if bytes[at + 3] == b':' => digits(at + 4, 2)?,
                2 => digits(at + 3, 2)?,
                _ => return None,
            };
            if hours > 23 || minutes > 59 {
                return None;
            }
            let magnitude = hours * 3600 + minutes * 60;
            if sign == b'+' { magnitude } else { -magnitude }
        }
        _ => return None,
    };
    if !(1..=12).contains(&month)
        || day < 1
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    let local = days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second;
    let utc = local - offset_seconds;
    let days = utc.div_euclid(86_400);
    let seconds_of_day = utc.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    if !(0..=9999).contains(&year) {
        return None;
    }
    Some(format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{nanos:09}Z",
        seconds_of_day / 3600,
        seconds_of_day % 3600 / 60,
        seconds_of_day % 60
    ))
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_index = (month + 9) % 12;
    let day_of_year = (153 * month_index + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let shifted = days + 719_468;
    let era = shifted.div_euclid(146_097);
    let day_of_era = shifted - era * 146_097;
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
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::parse_instant;

    #[test]
    fn producers_spellings_parse_to_utc() {
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
        ];
        for (recorded, instant) in cases {
            assert_eq!(
                parse_instant(recorded).as_deref(),
                Some(instant),
                "{recorded}"
            );
        }
        for bad in [
            "",
            "2023-02-29T00:00:00Z",
            "2023-03-30T24:00:00Z",
            "2023-03-30T00:00:00",
            "2023-03-30T00:00:00.Z",
            "0000-01-01T00:00:00+01:00",
            "2023-03-30T00:00:00Zx",
            "١٢٣٤-01-01T00:00:00Z",
        ] {
            assert_eq!(parse_instant(bad), None, "{bad}");
        }
    }
}

//! Clock spellings: ISO-8601 date-times a view may spell otherwise than the stored value (a list
//! writing `+00:00` where item reads write `Z`, or fewer fraction digits).
//!
//! A format is written `T.3Z`: the date/time separator (`T` or a space), `.` and the number of
//! fraction digits (`0`: none), and the zone (`Z`, `+00:00`, `+0000`, or empty for none). Only
//! UTC spellings are respelled into one another, so a respelled value always names the same
//! instant (a cut fraction aside, as the view recorded it).

/// A parsed ISO-8601 date-time.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Clock<'a> {
    date: &'a str,
    separator: char,
    time: &'a str,
    fraction: &'a str,
    zone: &'a str,
}

fn parse(text: &str) -> Option<Clock<'_>> {
    let bytes = text.as_bytes();
    if bytes.len() < 19 {
        return None;
    }
    let digits = |range: std::ops::Range<usize>| bytes[range].iter().all(u8::is_ascii_digit);
    let shaped = digits(0..4)
        && bytes[4] == b'-'
        && digits(5..7)
        && bytes[7] == b'-'
        && digits(8..10)
        && matches!(bytes[10], b'T' | b' ')
        && digits(11..13)
        && bytes[13] == b':'
        && digits(14..16)
        && bytes[16] == b':'
        && digits(17..19);
    if !shaped {
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
    if !matches!(zone, "" | "Z" | "+00:00" | "+0000" | "-00:00") && !is_offset(zone) {
        return None;
    }
    Some(Clock {
        date: &text[..10],
        separator: bytes[10] as char,
        time: &text[11..19],
        fraction,
        zone,
    })
}

fn is_offset(zone: &str) -> bool {
    let bytes = zone.as_bytes();
    bytes.len() == 6
        && matches!(bytes[0], b'+' | b'-')
        && bytes[1..3].iter().all(u8::is_ascii_digit)
        && bytes[3] == b':'
        && bytes[4..6].iter().all(u8::is_ascii_digit)
}

fn is_utc(zone: &str) -> bool {
    matches!(zone, "Z" | "+00:00" | "+0000" | "-00:00")
}

/// The format of a clock spelling, when the text is one.
pub fn format_of(text: &str) -> Option<String> {
    let clock = parse(text)?;
    Some(format!(
        "{}.{}{}",
        clock.separator,
        clock.fraction.len(),
        clock.zone
    ))
}

/// A clock value respelled in `format`; `None` when the value is not a clock, the format is not
/// one, or the respelling would change the instant's zone.
pub fn respell(
    value: &rea_plugin_api::json::Json,
    format: &str,
) -> Option<rea_plugin_api::json::Json> {
    let text = value.as_str()?;
    let clock = parse(text)?;
    let mut chars = format.chars();
    let separator = chars.next()?;
    if !matches!(separator, 'T' | ' ') || chars.next()? != '.' {
        return None;
    }
    let rest: String = chars.collect();
    let digits_end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let width: usize = rest[..digits_end].parse().ok()?;
    let zone = &rest[digits_end..];
    if clock.zone != zone && !(is_utc(clock.zone) && is_utc(zone)) {
        return None;
    }
    let mut fraction: String = clock.fraction.chars().take(width).collect();
    while fraction.len() < width {
        fraction.push('0');
    }
    let mut out = format!("{}{separator}{}", clock.date, clock.time);
    if width > 0 {
        out.push('.');
        out.push_str(&fraction);
    }
    out.push_str(zone);
    Some(rea_plugin_api::json::Json::String(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::json::Json;

    #[test]
    fn clocks_are_respelled_within_utc() {
        // contract: STATE-071, STATE-072
        assert_eq!(
            format_of("2026-11-29T11:02:33.972665+00:00").as_deref(),
            Some("T.6+00:00")
        );
        assert_eq!(format_of("2026-11-29 11:02:33Z").as_deref(), Some(" .0Z"));
        assert_eq!(format_of("20250331"), None);
        let value = Json::String("2026-11-29T11:02:33.972Z".into());
        assert_eq!(
            respell(&value, "T.6+00:00"),
            Some(Json::String("2026-11-29T11:02:33.972000+00:00".into()))
        );
        assert_eq!(
            respell(&value, "T.0Z"),
            Some(Json::String("2026-11-29T11:02:33Z".into()))
        );
        let local = Json::String("2026-11-29T11:02:33+02:00".into());
        assert_eq!(respell(&local, "T.0Z"), None);
    }
}

//! Clock spellings: ISO-8601 date-times a view may spell otherwise than the stored value (a list
//! writing `+00:00` where item reads write `Z`, or fewer fraction digits).
//!
//! A format is written `T.3Z`: the date/time separator (`T` or a space), `.` and the number of
//! fraction digits (`0`: none), and the zone (`Z`, `+00:00`, `+0000`, or empty for none). Only
//! UTC spellings are respelled into one another, so a respelled value always names the same
//! instant (a cut fraction aside, as the view recorded it). Reading and spelling is
//! `rea_plugin_api::date`'s.

use rea_plugin_api::date::{self, RecordedDateTime, Spelling};

/// A clock: ISO-8601 text with seconds (read by `rea_plugin_api::date`).
fn parse(text: &str) -> Option<RecordedDateTime> {
    date::parse(text).filter(|recorded| recorded.spelling.seconds)
}

/// The format of a clock spelling, when the text is one.
pub fn format_of(text: &str) -> Option<String> {
    let spelling = parse(text)?.spelling;
    Some(format!(
        "{}.{}{}",
        spelling.separator, spelling.digits, spelling.zone
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
    let target = Spelling {
        separator,
        seconds: true,
        digits: width,
        zone: zone.to_owned(),
    };
    if clock.spelling.zone != zone && !(clock.spelling.is_utc() && target.is_utc()) {
        return None;
    }
    date::spell(clock.instant()?, &target).map(rea_plugin_api::json::Json::from)
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

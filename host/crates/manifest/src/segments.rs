//! Path segments and percent-decoding (on the `percent-encoding` crate), shared by templating (which classifies segments), replay
//! (which matches arguments against recorded segments) and body shapes (form bodies).
//!
//! A path is split on `/` after its leading slash, keeping empty segments: `/a//b/` has the
//! segments `a`, ``, `b`, ``; `/` has one empty segment. Segment indexes are zero-based over that
//! list, so `/api/users/2` has `2` at index 2.

use std::borrow::Cow;

use percent_encoding::percent_decode_str;

/// The path's segments as recorded (percent-encoding kept).
pub fn split_path(path: &str) -> Vec<&str> {
    path.strip_prefix('/').unwrap_or(path).split('/').collect()
}

/// Percent-decodes a path segment (`%20` → space; `+` stays `+`). `None` when the decoded bytes
/// are not UTF-8; an invalid escape (`%zz`, a lone `%`) is kept as written.
pub fn percent_decode(text: &str) -> Option<Cow<'_, str>> {
    decode(text, false)
}

/// Decodes one `application/x-www-form-urlencoded` component (`+` is a space). `None` when the
/// decoded bytes are not UTF-8.
pub fn form_decode(text: &str) -> Option<Cow<'_, str>> {
    decode(text, true)
}

fn decode(text: &str, plus_is_space: bool) -> Option<Cow<'_, str>> {
    if plus_is_space && text.contains('+') {
        let spaced = text.replace('+', " ");
        return percent_decode_str(&spaced)
            .decode_utf8()
            .ok()
            .map(|decoded| Cow::Owned(decoded.into_owned()));
    }
    percent_decode_str(text).decode_utf8().ok()
}

/// The segment as a value: percent-decoded when that yields UTF-8, as written otherwise.
pub fn segment_value(segment: &str) -> Cow<'_, str> {
    percent_decode(segment).unwrap_or(Cow::Borrowed(segment))
}

/// The segment a parameter value makes between a route form's literal prefix and suffix.
pub fn fused_segment(prefix: &str, value: &str, suffix: &str) -> String {
    format!("{prefix}{value}{suffix}")
}

pub use rea_plugin_api::route_fields::fused_value;

/// The literal prefix and suffix a path template's segment holds around its parameter
/// (`{numeric}.json`: `("", ".json")`, `org.couchdb.user:{fused-affix}`:
/// `("org.couchdb.user:", "")`); `None` for a literal segment. A placeholder is `{` + a rule name
/// of lower-case letters, digits and `-` + `}`.
pub fn template_affixes(template_segment: &str) -> Option<(&str, &str)> {
    let open = template_segment.find('{')?;
    let close = open + template_segment[open..].find('}')?;
    let rule = &template_segment[open + 1..close];
    let named = !rule.is_empty()
        && rule
            .bytes()
            .all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'-');
    let (prefix, suffix) = (&template_segment[..open], &template_segment[close + 1..]);
    (named && !prefix.contains('{') && !suffix.contains('{')).then_some((prefix, suffix))
}

/// The parameter value a recorded segment holds at a template segment: without the prefix and
/// suffix of a fused parameter, the segment itself otherwise (also when it does not fit them).
pub fn template_value<'s>(template_segment: &str, segment: &'s str) -> &'s str {
    template_affixes(template_segment)
        .and_then(|(prefix, suffix)| fused_value(prefix, suffix, segment))
        .unwrap_or(segment)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_split_keeping_empty_segments() {
        assert_eq!(split_path("/api/users/2"), vec!["api", "users", "2"]);
        assert_eq!(split_path("/"), vec![""]);
        assert_eq!(split_path("/a//b/"), vec!["a", "", "b", ""]);
    }

    #[test]
    fn percent_decoding_keeps_invalid_escapes_and_refuses_bad_utf8() {
        assert_eq!(percent_decode("Alice%20Liddell").unwrap(), "Alice Liddell");
        assert_eq!(
            percent_decode("%24%3A%2FSiteTitle").unwrap(),
            "$:/SiteTitle"
        );
        assert_eq!(percent_decode("a+b").unwrap(), "a+b");
        assert_eq!(percent_decode("100%").unwrap(), "100%");
        assert_eq!(percent_decode("%zz%4").unwrap(), "%zz%4");
        assert!(percent_decode("%ff").is_none());
        assert_eq!(form_decode("a+b%2Cc").unwrap(), "a b,c");
        assert_eq!(segment_value("%ff"), "%ff");
    }

    #[test]
    fn fused_parameters_strip_and_add_their_literal_text() {
        assert_eq!(template_affixes("{numeric}.json"), Some(("", ".json")));
        assert_eq!(
            template_affixes("org.couchdb.user:{fused-affix}"),
            Some(("org.couchdb.user:", ""))
        );
        assert_eq!(template_affixes("{uuid}"), Some(("", "")));
        assert_eq!(template_affixes("tasks.json"), None);
        assert_eq!(template_affixes("%7Bx%7D"), None);
        assert_eq!(template_affixes("{Not A Rule}"), None);
        assert_eq!(template_value("{numeric}.json", "7.json"), "7");
        assert_eq!(template_value("{numeric}.json", "7.csv"), "7.csv");
        assert_eq!(template_value("item-{numeric}", "item-12"), "12");
        assert_eq!(template_value("{numeric}", "12"), "12");
        assert_eq!(template_value("tasks", "tasks"), "tasks");
        assert_eq!(fused_value("", ".json", ".json"), None);
        assert_eq!(fused_value("", "", ""), Some(""));
        assert_eq!(fused_segment("v2:", "7", ""), "v2:7");
    }
}

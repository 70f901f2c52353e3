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
}

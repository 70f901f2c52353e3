//! The id shapes route forms and the host share: the built-in format rules.
//!
//! A format rule recognises a decoded segment (or the part of one a form cuts out) by its shape
//! alone: `numeric` (digits only), `uuid` (8-4-4-4-12 hex), `ulid` (26 Crockford base-32
//! characters with letters and digits, one case) and `hex` (at least 8 hex digits of one case,
//! with a digit and a letter). The host applies them to every segment before any route form runs;
//! forms use them to tell an id from a word.

/// The format rules' names, in the order they are tried.
pub const FORMAT_RULES: [&str; 4] = ["numeric", "uuid", "ulid", "hex"];

/// The format rule a decoded value satisfies, if any.
pub fn format_rule(value: &str) -> Option<&'static str> {
    if value.is_empty() {
        return None;
    }
    if value.bytes().all(|byte| byte.is_ascii_digit()) {
        return Some("numeric");
    }
    if is_uuid(value) {
        return Some("uuid");
    }
    if is_ulid(value) {
        return Some("ulid");
    }
    if is_hex_id(value) {
        return Some("hex");
    }
    None
}

fn is_uuid(value: &str) -> bool {
    let bytes = value.as_bytes();
    bytes.len() == 36
        && bytes.iter().enumerate().all(|(index, byte)| match index {
            8 | 13 | 18 | 23 => *byte == b'-',
            _ => byte.is_ascii_hexdigit(),
        })
}

fn is_ulid(value: &str) -> bool {
    const CROCKFORD: &[u8] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    let bytes = value.as_bytes();
    bytes.len() == 26
        && (b'0'..=b'7').contains(&bytes[0])
        && bytes
            .iter()
            .all(|byte| CROCKFORD.contains(&byte.to_ascii_uppercase()))
        && bytes.iter().any(u8::is_ascii_alphabetic)
        && one_case(bytes)
}

fn is_hex_id(value: &str) -> bool {
    let bytes = value.as_bytes();
    bytes.len() >= 8
        && bytes.iter().all(u8::is_ascii_hexdigit)
        && bytes.iter().any(u8::is_ascii_digit)
        && bytes.iter().any(u8::is_ascii_alphabetic)
        && one_case(bytes)
}

fn one_case(bytes: &[u8]) -> bool {
    bytes.iter().all(|byte| !byte.is_ascii_lowercase())
        || bytes.iter().all(|byte| !byte.is_ascii_uppercase())
}

/// Verbs naming a delete as a path's last segment (`/-/delete`, `/runs/delete`).
pub const DELETE_VERBS: [&str; 3] = ["delete", "remove", "destroy"];

/// Verbs naming a plain update (no action of its own) as a path's last segment.
pub const PLAIN_UPDATE_VERBS: [&str; 5] = ["update", "edit", "modify", "patch", "save"];

/// Verbs naming a create as a path's last segment.
pub const CREATE_VERBS: [&str; 4] = ["create", "add", "new", "insert"];

/// The value between a literal prefix and suffix of a segment (a fused parameter's value), when
/// the segment has both and something between them; with neither, the whole segment.
pub fn fused_value<'s>(prefix: &str, suffix: &str, segment: &'s str) -> Option<&'s str> {
    let value = segment.strip_prefix(prefix)?.strip_suffix(suffix)?;
    (!value.is_empty() || prefix.is_empty() && suffix.is_empty()).then_some(value)
}

/// Whether a character separates the parts of a segment (`1.json`, `v2:7`, `item-7`).
pub fn is_separator(character: char) -> bool {
    matches!(
        character,
        '.' | ':' | ',' | '-' | '_' | '@' | '~' | '+' | '=' | ' '
    )
}

/// The runs of a decoded segment's parts between separators, the whole segment included:
/// `a.b-c` gives `a`, `a.b`, `a.b-c`, `b`, `b-c`, `c` (each once, in that order). Empty runs are
/// left out.
pub fn separated_runs(segment: &str) -> Vec<&str> {
    let mut bounds: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    for (index, character) in segment.char_indices() {
        if is_separator(character) {
            bounds.push((start, index));
            start = index + character.len_utf8();
        }
    }
    bounds.push((start, segment.len()));
    let mut runs: Vec<&str> = Vec::new();
    for first in 0..bounds.len() {
        for last in first..bounds.len() {
            let run = &segment[bounds[first].0..bounds[last].1];
            if !run.is_empty() && !runs.contains(&run) {
                runs.push(run);
            }
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_rules_recognise_id_shapes() {
        assert_eq!(format_rule("42"), Some("numeric"));
        assert_eq!(
            format_rule("5d0c6a1e-1f4b-4c36-9a53-8d2f4b7e0a11"),
            Some("uuid")
        );
        assert_eq!(format_rule("3801476c4a394a5d9d21e4887b201428"), Some("hex"));
        assert_eq!(format_rule("01ARZ3NDEKTSV4RRFFQ69G5FAV"), Some("ulid"));
        for literal in [
            "",
            "users",
            "v1",
            "2.0",
            "deadbeef",
            "tiddlers.json",
            "cafe",
        ] {
            assert_eq!(format_rule(literal), None, "{literal}");
        }
    }

    #[test]
    fn runs_between_separators_cover_every_fragment() {
        assert_eq!(
            separated_runs("a.b-c"),
            vec!["a", "a.b", "a.b-c", "b", "b-c", "c"]
        );
        assert_eq!(separated_runs("7.json"), vec!["7", "7.json", "json"]);
        assert_eq!(separated_runs("plain"), vec!["plain"]);
        assert_eq!(separated_runs(".x"), vec![".x", "x"]);
        assert!(separated_runs("").is_empty());
    }
}

//! The answer for an entity the state does not hold, never another id's recording.
//!
//! An item read, update or delete naming an entity the state does not hold answers the tool's
//! recorded `400`/`404`/`410`, or another client error reading a path a recorded delete removed (an
//! application answering `403` for what does not exist), with `state.view: "missing"`. That
//! recording named another entity, and its body often says which (`{"details": {"id": "…"}}`, `"Key
//! not found: /queue/15"`, `"version 1.0.0 not found"`). So the body is rendered with each value
//! the recorded request named where the call names another (a path segment, percent-decoded, or a
//! query value of the same name) replaced by the call's: a JSON string equal to it, an occurrence
//! of it inside a string between characters that are neither letters nor digits, or a number
//! spelled as it (a number again when the call's value is one). A body that is not JSON is rendered
//! the same way as text.

use rea_manifest::BodyEncoding;
use rea_manifest::body::ReplayBody;
use rea_manifest::segments::{percent_decode, split_path};
use rea_plugin_api::contracts::capture::CompactString;
use rea_plugin_api::json::{Json, Number};

use crate::answer::{KeptRecord, StateAnswer, StateSource, recording_answer, state_answer};

fn decoded(segment: &str) -> String {
    percent_decode(segment).map_or_else(|| segment.to_owned(), |value| value.into_owned())
}

/// The values the recorded request named where the call names others: `(recorded, called)`.
fn renamed(
    base: &KeptRecord,
    segments: &[CompactString],
    pairs: &[(String, String)],
) -> Vec<(String, String)> {
    let recorded = split_path(&base.path);
    let mut renamed: Vec<(String, String)> = Vec::new();
    if recorded.len() == segments.len() {
        for (recorded, called) in recorded.iter().zip(segments) {
            let (recorded, called) = (decoded(recorded), decoded(called));
            if recorded != called && !recorded.is_empty() {
                renamed.push((recorded, called));
            }
        }
    }
    let recorded_pairs = base
        .query
        .iter()
        .flat_map(|query| query.pairs.iter().flatten());
    for (name, value) in recorded_pairs {
        let called = pairs.iter().find(|(given, _)| given == name);
        if let Some((_, called)) = called
            && called != value
            && !value.is_empty()
        {
            renamed.push((value.clone(), called.clone()));
        }
    }
    // Longer values first, so one value inside another is not replaced in it.
    renamed.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.cmp(b)));
    renamed
}

/// `text` with each whole-token occurrence of `from` replaced by `to` (a part of a dotted
/// number, the `1` of `"1.0"`, is no token).
pub(crate) fn replace_tokens(text: &str, from: &str, to: &str) -> String {
    let boundary = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
    let dotted_digit = |mut chars: Box<dyn Iterator<Item = char> + '_>| {
        chars.next() == Some('.') && chars.next().is_some_and(|c| c.is_ascii_digit())
    };
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for (at, _) in text.match_indices(from) {
        let before = text[..at].chars().next_back();
        let after = text[at + from.len()..].chars().next();
        let dotted = dotted_digit(Box::new(text[at + from.len()..].chars()))
            || dotted_digit(Box::new(text[..at].chars().rev()));
        if at >= copied && boundary(before) && boundary(after) && !dotted {
            out.push_str(&text[copied..at]);
            out.push_str(to);
            copied = at + from.len();
        }
    }
    out.push_str(&text[copied..]);
    out
}

fn rename_in(value: &mut Json, renamed: &[(String, String)]) {
    match value {
        Json::String(text) => {
            for (from, to) in renamed {
                if text == from {
                    *text = to.clone().into();
                    return;
                }
            }
            for (from, to) in renamed {
                *text = replace_tokens(text, from, to).into();
            }
        }
        Json::Number(number) => {
            if let Some((_, to)) = renamed.iter().find(|(from, _)| from == number.as_str()) {
                *value = Number::from_lexeme(to)
                    .map_or_else(|| Json::String(to.clone().into()), Json::Number);
            }
        }
        Json::Array(items) => items.iter_mut().for_each(|item| rename_in(item, renamed)),
        Json::Object(object) => object
            .iter_mut()
            .for_each(|(_, item)| rename_in(item, renamed)),
        _ => {}
    }
}

/// An item envelope recorded for the entity `recorded` names, rendered for the one `called` names:
/// each value naming the recorded entity (`{"primary_key_values": ["4"]}` beside the row) renamed
/// as a missing answer renames the recorded request's values in strings (see the module docs); a
/// number is left alone (an envelope's count or status may equal an id).
pub(crate) fn rename_entity(envelope: &mut Json, recorded: &str, called: &str) {
    rename_entity_values(envelope, &[(recorded.to_owned(), called.to_owned())]);
}

/// [`rename_entity`] of several values at once, `(recorded, called)`: a fused identity's whole
/// text and each of its members' (`["5", "release"]` of `5,release` beside the row).
pub(crate) fn rename_entity_values(envelope: &mut Json, pairs: &[(String, String)]) {
    let mut renamed: Vec<(String, String)> = pairs
        .iter()
        .filter(|(recorded, called)| recorded != called && !recorded.is_empty())
        .cloned()
        .collect();
    if renamed.is_empty() {
        return;
    }
    renamed.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.cmp(b)));
    rename_strings(envelope, &renamed);
}

/// A write's answer recorded as is (it shows no written entity) for a call naming `segments`:
/// each path value the recorded request named where the call names another, spelled inside a
/// string of the answer, renamed to the call's (`"successfully removed series 4 from DB"` for a
/// delete of series 3 names 3); numbers are left alone (a status or count may equal an id). The
/// recording unchanged when the call names the recorded path, or the answer is not JSON.
pub(crate) fn recorded_write_answer(
    base: &KeptRecord,
    segments: &[CompactString],
    evidence_id: &str,
    source: StateSource,
) -> StateAnswer {
    let renamed = renamed(base, segments, &[]);
    let recorded = base.replay_answer(evidence_id, false);
    let Some(mut body) = base.json().cloned().filter(|_| !renamed.is_empty()) else {
        return recording_answer(recorded, source);
    };
    rename_strings(&mut body, &renamed);
    state_answer(base, body, evidence_id, false, source)
}

/// Each string inside `value` with the `(recorded, called)` values renamed as [`rename_in`]
/// renames them; numbers and keys left alone.
fn rename_strings(value: &mut Json, renamed: &[(String, String)]) {
    match value {
        Json::String(_) => rename_in(value, renamed),
        Json::Array(items) => items
            .iter_mut()
            .for_each(|item| rename_strings(item, renamed)),
        Json::Object(object) => object
            .iter_mut()
            .for_each(|(_, item)| rename_strings(item, renamed)),
        _ => {}
    }
}

/// The recorded missing answer `base` for a call naming `segments` and `pairs`: as recorded when
/// the call names what the recorded request named (`exact_match` as the caller found it), else
/// rendered with the call's values (`exact_match: false`).
pub(crate) fn missing_answer(
    base: &KeptRecord,
    call: (&[CompactString], &[(String, String)]),
    evidence_id: &str,
    exact: bool,
) -> StateAnswer {
    let renamed = renamed(base, call.0, call.1);
    renamed_answer(
        base,
        &renamed,
        evidence_id,
        exact,
        StateSource::state("missing", None),
    )
}

/// The recorded answer `base` rendered with each `(recorded, called)` value renamed as a missing
/// answer renames the recorded request's values (see the module docs): as recorded when nothing
/// is renamed (`exact_match` as `exact` says).
pub(crate) fn renamed_answer(
    base: &KeptRecord,
    renamed: &[(String, String)],
    evidence_id: &str,
    exact: bool,
    source: StateSource,
) -> StateAnswer {
    let recorded = base.replay_answer(evidence_id, exact && renamed.is_empty());
    if renamed.is_empty() {
        return recording_answer(recorded, source);
    }
    let mut body = match base.json() {
        Some(json) => json.clone(),
        None => match &recorded.body {
            ReplayBody::Text(text) if recorded.replay.body_encoding == BodyEncoding::Utf8 => {
                Json::String(text.as_ref().into())
            }
            _ => return recording_answer(recorded, source),
        },
    };
    rename_in(&mut body, renamed);
    state_answer(base, body, evidence_id, false, source)
}

/// A recorded answer's JSON `body` (already changed by the caller) rendered with each
/// `(recorded, called)` value renamed in its strings as [`renamed_answer`] renames them.
pub(crate) fn renamed_json(
    base: &KeptRecord,
    mut body: Json,
    renamed: &[(String, String)],
    evidence_id: &str,
    source: StateSource,
) -> StateAnswer {
    rename_in(&mut body, renamed);
    state_answer(base, body, evidence_id, false, source)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_write_answer_renames_inside_strings_and_leaves_numbers() {
        let mut body = Json::parse(
            br#"{"message": "successfully removed series 4 from DB", "status_code": 4, "id": "4"}"#,
        )
        .unwrap();
        rename_strings(&mut body, &[("4".to_owned(), "3".to_owned())]);
        assert_eq!(
            body.to_canonical_string(),
            r#"{"id":"3","message":"successfully removed series 3 from DB","status_code":4}"#
        );
    }

    #[test]
    fn whole_tokens_are_replaced_and_parts_of_words_are_not() {
        assert_eq!(
            replace_tokens("Key not found: /queue/15", "15", "7"),
            "Key not found: /queue/7"
        );
        assert_eq!(
            replace_tokens("version 1.0.0 not found", "1.0.0", "2.1.0"),
            "version 2.1.0 not found"
        );
        assert_eq!(replace_tokens("a15 15b 15", "15", "7"), "a15 15b 7");
        // A part of a dotted number is no token (`jsonapi.version` beside item 1).
        assert_eq!(replace_tokens("1.0", "1", "4"), "1.0");
        assert_eq!(replace_tokens("v2.1 of 1", "1", "4"), "v2.1 of 4");
        assert_eq!(
            replace_tokens("removed item 1.", "1", "4"),
            "removed item 4."
        );
    }

    #[test]
    fn strings_and_numbers_naming_the_recorded_value_name_the_called_one() {
        let parse = |text: &str| Json::parse(text.as_bytes()).unwrap();
        let mut body = parse(
            r#"{"details": {"id": "abc-1", "n": 12}, "message": "record abc-1 missing", "code": 404}"#,
        );
        rename_in(
            &mut body,
            &[
                ("abc-1".to_owned(), "zz-9".to_owned()),
                ("12".to_owned(), "30".to_owned()),
            ],
        );
        assert_eq!(
            body,
            parse(
                r#"{"details": {"id": "zz-9", "n": 30}, "message": "record zz-9 missing", "code": 404}"#
            )
        );
    }

    #[test]
    fn a_missing_item_answers_the_recorded_404_naming_the_called_id() {
        use crate::derive::tests::{derive, post, posts, record};
        use serde_json::json;
        let fixture = derive(vec![
            record(0, "GET", "/posts", 200, posts()),
            record(1, "GET", "/posts/1", 200, post(1)),
            record(2, "GET", "/posts/2", 200, post(2)),
            record(
                3,
                "GET",
                "/posts/9",
                404,
                json!({"error": "post 9 not found", "id": 9, "path": "/posts/9"}),
            ),
        ]);
        let answer = fixture.call("get_posts_by_id", json!({"id": "5"}));
        assert_eq!(answer["status"], 404, "{answer}");
        assert_eq!(
            answer["state"],
            json!({"source": "state", "view": "missing"})
        );
        assert_eq!(
            answer["body"],
            json!({"error": "post 5 not found", "id": 5, "path": "/posts/5"})
        );
        assert_eq!(answer["replay"]["exact_match"], false);
        // The recorded request itself answers as recorded.
        let answer = fixture.call("get_posts_by_id", json!({"id": "9"}));
        assert_eq!(
            answer["body"],
            json!({"error": "post 9 not found", "id": 9, "path": "/posts/9"})
        );
    }
}

//! Recorded credentials kept out of tool answers (issue 15, defect 5).
//!
//! A served answer echoes the recording: its body is the recorded response (or one rendered from
//! the state the recording observed) and `replay.recorded_query` repeats the recorded request's
//! query. Unless the operator keeps credentials (`--keep-credentials`), every answer is passed
//! through [`redact_answer`] before it leaves the server:
//! * every object member, at any depth, whose name looks like a credential
//!   ([`rea_evidence::credential_names::is_redacted_name`]: `api_key`, `session_token`,
//!   `password`; not a paging token such as `next_page_token`, nor a name describing the
//!   credential, `authMode`, `token_type`) and that holds a value is answered as `"[redacted]"`;
//! * in `replay.recorded_query`, the value of every such parameter is `[redacted]`.
//!
//! An answer none of whose member names is a credential name, and whose `recorded_query` names
//! no credential word, is answered as it is, byte for byte: a scan of the member names decides
//! without parsing (a name or query spelled with escapes counts as a credential, so the scan
//! never passes what the reader would redact; `author` alone no longer costs a parse). Any other
//! answer is re-read with the strict JSON reader (member order and number lexemes kept) and, only
//! when something was redacted, written again compactly in the same order. Headers never reach an answer; the card and the logs carry names, not recorded values.

use rea_evidence::credential_names::is_redacted_name;
use rea_plugin_api::json::{self, Json, ParseOptions};
use serde_json::Value;

use crate::backend::ToolAnswer;

/// What a redacted value is answered as.
pub const REDACTED: &str = "[redacted]";

/// Lower-case fragments every credential name contains one of (checked before the name's
/// segments are, which allocates).
const FRAGMENTS: [&str; 7] = ["token", "secret", "pass", "auth", "session", "key", "jwt"];

/// Whether a lower-case byte starts one of [`FRAGMENTS`] (most bytes of a name do not).
const FRAGMENT_START: [bool; 256] = {
    let mut starts = [false; 256];
    let mut at = 0;
    while at < FRAGMENTS.len() {
        starts[FRAGMENTS[at].as_bytes()[0] as usize] = true;
        at += 1;
    }
    starts
};

/// The answer with recorded credentials redacted (see the module documentation).
pub fn redact_answer(mut answer: ToolAnswer) -> ToolAnswer {
    if !might_hold_a_credential(&answer.text) {
        if let Some(structured) = answer.structured.as_mut() {
            redact_value(structured);
        }
        return answer;
    }
    let options = ParseOptions::default().max_depth(512);
    if let Ok(mut parsed) = json::parse_with(answer.text.as_bytes(), &options)
        && redact_json(&mut parsed)
    {
        let mut out = Vec::with_capacity(answer.text.len());
        write_in_order(&parsed, &mut out);
        answer.text = String::from_utf8(out).unwrap_or_else(|_| answer.text.clone());
    }
    if let Some(structured) = answer.structured.as_mut() {
        redact_value(structured);
    }
    answer
}

/// Whether redaction could change the text: some member name, at any depth, is a credential name
/// ([`is_redacted_name`]), or a `recorded_query` string might name one. A name or query spelled
/// with escapes, and text that is not whole JSON, count as might (the strict reader decides).
fn might_hold_a_credential(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut index = 0;
    while let Some(offset) = bytes[index..].iter().position(|&byte| byte == b'"') {
        let start = index + offset + 1;
        let Some((end, escaped)) = string_end(bytes, start) else {
            return true;
        };
        index = end + 1;
        let after = skip_space(bytes, index);
        if bytes.get(after) != Some(&b':') {
            continue;
        }
        let name = &text[start..end];
        if escaped || names_a_credential(name) {
            return true;
        }
        if name == "recorded_query" {
            let value = skip_space(bytes, after + 1);
            if bytes.get(value) == Some(&b'"') {
                let Some((value_end, escaped)) = string_end(bytes, value + 1) else {
                    return true;
                };
                let query = &text[value + 1..value_end];
                if escaped || query.contains('%') || has_fragment(query) {
                    return true;
                }
            }
        }
    }
    false
}

/// Where the string starting at `start` (after its opening quote) ends, and whether it holds an
/// escape; `None` when it does not end.
fn string_end(bytes: &[u8], start: usize) -> Option<(usize, bool)> {
    let mut escaped = false;
    let mut index = start;
    while index < bytes.len() {
        match bytes[index] {
            b'"' => return Some((index, escaped)),
            b'\\' => {
                escaped = true;
                index += 2;
            }
            _ => index += 1,
        }
    }
    None
}

fn skip_space(bytes: &[u8], mut index: usize) -> usize {
    while bytes
        .get(index)
        .is_some_and(|byte| matches!(byte, b' ' | b'\t' | b'\n' | b'\r'))
    {
        index += 1;
    }
    index
}

/// Whether the text contains a credential word fragment (ASCII case-insensitive); every name
/// [`is_redacted_name`] accepts does. One pass: a fragment is compared only where its first
/// letter is (every answer's member names go through here on the serving path).
fn has_fragment(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().any(|(at, byte)| {
        let first = byte.to_ascii_lowercase();
        FRAGMENT_START[usize::from(first)]
            && FRAGMENTS.iter().any(|fragment| {
                fragment.as_bytes()[0] == first
                    && bytes
                        .get(at..at + fragment.len())
                        .is_some_and(|window| window.eq_ignore_ascii_case(fragment.as_bytes()))
            })
    })
}

/// [`is_redacted_name`], answered without splitting names that hold no credential word.
fn names_a_credential(name: &str) -> bool {
    has_fragment(name) && is_redacted_name(name)
}

fn holds_value(value: &Json) -> bool {
    match value {
        Json::Null => false,
        Json::String(text) => !text.is_empty() && text != REDACTED,
        Json::Array(items) => !items.is_empty(),
        Json::Object(object) => !object.is_empty(),
        Json::Bool(_) | Json::Number(_) => true,
    }
}

/// Redacts in place; answers whether anything changed.
fn redact_json(value: &mut Json) -> bool {
    match value {
        Json::Array(items) => items
            .iter_mut()
            .fold(false, |changed, item| redact_json(item) | changed),
        Json::Object(object) => {
            let mut changed = false;
            for (name, member) in object.iter_mut() {
                if names_a_credential(name) && holds_value(member) {
                    *member = Json::String(REDACTED.into());
                    changed = true;
                } else if name == "recorded_query" {
                    if let Json::String(query) = member
                        && let Some(redacted) = redact_query(query)
                    {
                        *query = redacted.into();
                        changed = true;
                    }
                } else {
                    changed |= redact_json(member);
                }
            }
            changed
        }
        _ => false,
    }
}

fn redact_value(value: &mut Value) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(redact_value),
        Value::Object(object) => {
            for (name, member) in object.iter_mut() {
                let holds = match member {
                    Value::Null => false,
                    Value::String(text) => !text.is_empty() && text != REDACTED,
                    Value::Array(items) => !items.is_empty(),
                    Value::Object(members) => !members.is_empty(),
                    Value::Bool(_) | Value::Number(_) => true,
                };
                if names_a_credential(name) && holds {
                    *member = Value::String(REDACTED.to_owned());
                } else if name == "recorded_query" {
                    if let Value::String(query) = member
                        && let Some(redacted) = redact_query(query)
                    {
                        *query = redacted;
                    }
                } else {
                    redact_value(member);
                }
            }
        }
        _ => {}
    }
}

/// `?name=value&…` with the value of every credential-named parameter `[redacted]`; `None` when
/// none is.
pub fn redact_query(query: &str) -> Option<String> {
    let (prefix, pairs) = match query.strip_prefix('?') {
        Some(rest) => ("?", rest),
        None => ("", query),
    };
    let mut changed = false;
    let parts: Vec<String> = pairs
        .split('&')
        .map(|part| match part.split_once('=') {
            Some((name, value)) if !value.is_empty() && names_a_credential(&decoded(name)) => {
                changed = true;
                format!("{name}={REDACTED}")
            }
            _ => part.to_owned(),
        })
        .collect();
    changed.then(|| format!("{prefix}{}", parts.join("&")))
}

/// A form-urlencoded name decoded (`+` is a space; invalid UTF-8 becomes U+FFFD).
fn decoded(name: &str) -> String {
    let spaced = name.replace('+', " ");
    percent_encoding::percent_decode_str(&spaced)
        .decode_utf8_lossy()
        .into_owned()
}

/// Compact JSON in document order, numbers as recorded.
fn write_in_order(value: &Json, out: &mut Vec<u8>) {
    match value {
        Json::Null => out.extend_from_slice(b"null"),
        Json::Bool(true) => out.extend_from_slice(b"true"),
        Json::Bool(false) => out.extend_from_slice(b"false"),
        Json::Number(number) => out.extend_from_slice(number.as_str().as_bytes()),
        Json::String(text) => json::write_canonical_string(text, out),
        Json::Array(items) => {
            out.push(b'[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                write_in_order(item, out);
            }
            out.push(b']');
        }
        Json::Object(object) => {
            out.push(b'{');
            for (index, (name, member)) in object.iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                json::write_canonical_string(name, out);
                out.push(b':');
                write_in_order(member, out);
            }
            out.push(b'}');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(text: &str) -> ToolAnswer {
        ToolAnswer {
            text: text.to_owned(),
            structured: serde_json::from_str(text).ok(),
            is_error: false,
            source: crate::AnswerSource::State,
        }
    }

    #[test]
    fn credential_members_and_query_values_are_redacted_in_order() {
        let redacted = redact_answer(answer(
            r#"{"body":{"z":1.50,"password":"p","next_page_token":"n","list":[{"api_key":"k","a":null}]},"replay":{"recorded_query":"?page=2&access%5Ftoken=t&q="}}"#,
        ));
        assert_eq!(
            redacted.text,
            r#"{"body":{"z":1.50,"password":"[redacted]","next_page_token":"n","list":[{"api_key":"[redacted]","a":null}]},"replay":{"recorded_query":"?page=2&access%5Ftoken=[redacted]&q="}}"#
        );
        let structured = redacted.structured.unwrap();
        assert_eq!(structured["body"]["password"], REDACTED);
        assert_eq!(structured["body"]["next_page_token"], "n");
        assert_eq!(
            structured["replay"]["recorded_query"],
            "?page=2&access%5Ftoken=[redacted]&q="
        );
    }

    #[test]
    fn an_answer_without_credentials_is_kept_byte_for_byte() {
        for text in [
            r#"{"body":{"a": 1.0e3 , "title":"x"}}"#,
            r#"{"password":null,"token":""}"#,
            "not json key",
        ] {
            assert_eq!(redact_answer(answer(text)).text, text);
        }
    }

    #[test]
    fn the_scan_passes_only_answers_no_member_name_redacts() {
        for text in [
            r#"{"body":{"id":1,"title":"json-server","author":"typicode"},"replay":{"recorded_query":"?page=2"}}"#,
            r#"{"body":{"note":"my password is p","tokenizer":"x \" key: \"v"}}"#,
            r#"["token", {"keyword": "auth"}]"#,
        ] {
            assert!(!might_hold_a_credential(text), "{text}");
        }
        for text in [
            r#"{"a":{"b":[{"Session_Token" : "t"}]}}"#,
            r#"{"pass\u0077ord":"p"}"#,
            r#"{"replay":{"recorded_query":"?access%5Ftoken=t"}}"#,
            r#"{"replay":{"recorded_query":"?%74oken=t"}}"#,
            r#"{"replay":{"recorded_query":"?q=\u0074"}}"#,
            r#"{"unterminated"#,
        ] {
            assert!(might_hold_a_credential(text), "{text}");
        }
    }

    #[test]
    fn the_one_pass_fragment_check_finds_every_fragment_anywhere() {
        let naive = |text: &str| {
            FRAGMENTS
                .iter()
                .any(|fragment| text.to_ascii_lowercase().contains(fragment))
        };
        for text in [
            "",
            "k",
            "ke",
            "KEY",
            "monkey",
            "xJwT",
            "authorization",
            "pas",
            "Pass",
            "sessio",
            "SESSION_ID",
            "secre",
            "my-secret",
            "tok",
            "_TOKEN_",
            "title",
            "tsk",
            "jw",
        ] {
            assert_eq!(has_fragment(text), naive(text), "{text:?}");
        }
    }

    #[test]
    fn the_fragment_check_never_rejects_a_redacted_name() {
        for name in [
            "api_key",
            "apiKey",
            "X-Api-Key",
            "access_token",
            "csrftoken",
            "JWT",
            "passphrase",
            "passwd",
            "Authorization",
            "auth",
            "sessionid",
            "client_secret",
            "private-key",
            "next_page_token",
            "author",
            "keyword",
            "title",
            "passage",
        ] {
            assert_eq!(names_a_credential(name), is_redacted_name(name), "{name}");
        }
    }

    #[test]
    fn escaped_names_and_queries_are_still_redacted() {
        let redacted = redact_answer(answer(
            r#"{"pass\u0077ord":"p","replay":{"recorded_query":"?%74oken=t"}}"#,
        ));
        assert_eq!(
            redacted.text,
            r#"{"password":"[redacted]","replay":{"recorded_query":"?%74oken=[redacted]"}}"#
        );
    }
}

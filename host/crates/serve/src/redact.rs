//! Recorded credentials kept out of tool answers (issue 15, defect 5).
//!
//! A served answer echoes the recording: its body is the recorded response (or one rendered from
//! the state the recording observed) and `replay.recorded_query` repeats the recorded request's
//! query. Unless the operator keeps credentials (`--keep-credentials`), every answer is passed
//! through [`redact_answer`] before it leaves the server:
//! * every object member, at any depth, whose name looks like a credential
//!   ([`rea_evidence::credential_names::is_redacted_name`]: `api_key`, `session_token`,
//!   `password`; not a paging token such as `next_page_token`) and that holds a value is answered
//!   as `"[redacted]"`;
//! * in `replay.recorded_query`, the value of every such parameter is `[redacted]`.
//!
//! An answer that names no credential word at all is answered as it is, byte for byte (a quick
//! scan decides); one that does is re-read with the strict JSON reader (member order and number
//! lexemes kept) and, only when something was redacted, written again compactly in the same
//! order. Headers never reach an answer; the card and the logs carry names, not recorded values.

use rea_evidence::credential_names::is_redacted_name;
use rea_plugin_api::json::{self, Json, ParseOptions};
use serde_json::Value;

use crate::backend::ToolAnswer;

/// What a redacted value is answered as.
pub const REDACTED: &str = "[redacted]";

/// Lower-case fragments every credential name contains one of.
const FRAGMENTS: [&str; 7] = ["token", "secret", "pass", "auth", "session", "key", "jwt"];

/// The answer with recorded credentials redacted (see the module documentation).
pub fn redact_answer(mut answer: ToolAnswer) -> ToolAnswer {
    if !might_name_a_credential(&answer.text) {
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

/// Whether the text contains a credential word anywhere (ASCII case-insensitive).
fn might_name_a_credential(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    FRAGMENTS.iter().any(|fragment| lower.contains(fragment))
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
                if is_redacted_name(name) && holds_value(member) {
                    *member = Json::String(REDACTED.to_owned());
                    changed = true;
                } else if name == "recorded_query" {
                    if let Json::String(query) = member
                        && let Some(redacted) = redact_query(query)
                    {
                        *query = redacted;
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
                if is_redacted_name(name) && holds {
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
            Some((name, value)) if !value.is_empty() && is_redacted_name(&decoded(name)) => {
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
}

//! JSON-RPC 2.0 messages of the `/agentenv` data plane: parsing a body into messages and checking
//! each one, without ever re-spelling an `id`.
//!
//! Ids are kept as the raw JSON text the caller sent and echoed byte for byte, so a number id is
//! never answered as a different number. A numeric id is refused (`-32600`, null id) when it lies
//! outside JavaScript's safe integer range (`|n| > 2^53 - 1`) or when the nearest double would not
//! read back as the same number (`0.10000000000000000001`, `1e400`): those are the ids a
//! JavaScript caller could not have meant. A number a double holds exactly (`1.5`, `1.0`, `-0`)
//! is accepted and echoed as sent.

use serde::Deserialize;
use std::sync::Arc;

use serde_json::Value;
use serde_json::value::RawValue;

/// The largest integer JavaScript represents exactly (`Number.MAX_SAFE_INTEGER`).
pub const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// A parsed body: one message or a batch of raw messages.
#[derive(Debug)]
pub enum RpcBody<'a> {
    /// A single message.
    Single(&'a RawValue),
    /// A batch (a JSON array), possibly empty.
    Batch(Vec<&'a RawValue>),
}

/// Parses a request body; `Err` means it is not JSON (`-32700`).
pub fn parse_body(bytes: &[u8]) -> Result<RpcBody<'_>, serde_json::Error> {
    let text = std::str::from_utf8(bytes).map_err(serde::de::Error::custom)?;
    let raw: &RawValue = serde_json::from_str(text)?;
    if raw.get().starts_with('[') {
        let items: Vec<&RawValue> = serde_json::from_str(raw.get())?;
        Ok(RpcBody::Batch(items))
    } else {
        Ok(RpcBody::Single(raw))
    }
}

/// One checked message.
#[derive(Debug, Clone)]
pub enum Message {
    /// A request: it carries an id and gets a reply.
    Request {
        /// The id as the caller spelled it (a string, a safe number or `null`).
        id: Box<RawValue>,
        /// The method.
        method: String,
        /// The params (an object or array), when present.
        params: Option<Value>,
        /// The params exactly as the caller wrote them (number spellings kept).
        params_raw: Option<Arc<str>>,
    },
    /// A notification (no `id` member): it runs and gets no reply.
    Notification {
        /// The method.
        method: String,
        /// The params (an object or array), when present.
        params: Option<Value>,
        /// The params exactly as the caller wrote them (number spellings kept).
        params_raw: Option<Arc<str>>,
    },
    /// Not a JSON-RPC request (`-32600 invalid request`), or a request whose params no native
    /// value holds (`-32602 invalid params`: a number out of a double's range, nesting deeper
    /// than [`MAX_PARAMS_DEPTH`]).
    Invalid {
        /// The id to answer with: the caller's when it was valid, else `null`.
        id: Box<RawValue>,
        /// `-32600` or `-32602`.
        code: i64,
        /// Why, for the error message.
        reason: String,
    },
}

#[derive(Deserialize)]
struct Fields<'a> {
    #[serde(default, borrow, deserialize_with = "present")]
    jsonrpc: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    method: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    params: Option<&'a RawValue>,
}

/// A member that is present is `Some`, even when its value is `null`.
fn present<'de, D>(deserializer: D) -> Result<Option<&'de RawValue>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    <&'de RawValue as Deserialize<'de>>::deserialize(deserializer).map(Some)
}

/// The raw JSON `null`.
pub fn null_id() -> Box<RawValue> {
    RawValue::NULL.to_owned()
}

fn owned(raw: &RawValue) -> Box<RawValue> {
    raw.to_owned()
}

/// Checks one message of a body.
pub fn classify(raw: &RawValue) -> Message {
    let invalid = |id: Box<RawValue>, reason: &str| Message::Invalid {
        id,
        code: INVALID_REQUEST,
        reason: reason.to_owned(),
    };
    if !raw.get().starts_with('{') {
        return invalid(null_id(), "a message must be a JSON object");
    }
    let fields: Fields<'_> = match serde_json::from_str(raw.get()) {
        Ok(fields) => fields,
        Err(_) => return invalid(null_id(), "a message must not repeat a member"),
    };
    let id = match fields.id {
        None => None,
        Some(id) => match check_id(id) {
            Ok(()) => Some(owned(id)),
            Err(reason) => return invalid(null_id(), reason),
        },
    };
    let reply_id = || id.clone().unwrap_or_else(null_id);
    let version_ok = fields
        .jsonrpc
        .and_then(|v| serde_json::from_str::<String>(v.get()).ok())
        .is_some_and(|v| v == "2.0");
    if !version_ok {
        return invalid(reply_id(), "jsonrpc must be \"2.0\"");
    }
    let Some(method) = fields
        .method
        .and_then(|m| serde_json::from_str::<String>(m.get()).ok())
    else {
        return invalid(reply_id(), "method must be a string");
    };
    let (params, params_raw) = match fields.params {
        None => (None, None),
        Some(p) if p.get().starts_with('{') || p.get().starts_with('[') => {
            match serde_json::from_str::<Value>(p.get()) {
                Ok(value) => (Some(value), Some(Arc::from(p.get()))),
                Err(error) => {
                    return Message::Invalid {
                        id: reply_id(),
                        code: INVALID_PARAMS,
                        reason: unreadable_params(p.get(), &error),
                    };
                }
            }
        }
        Some(_) => return invalid(reply_id(), "params must be an object or an array"),
    };
    match id {
        Some(id) => Message::Request {
            id,
            method,
            params,
            params_raw,
        },
        None => Message::Notification {
            method,
            params,
            params_raw,
        },
    }
}

/// How deep params may nest (serde_json's recursion limit).
pub const MAX_PARAMS_DEPTH: usize = 128;

const INVALID_REQUEST: i64 = -32600;
const INVALID_PARAMS: i64 = -32602;

/// Why params that are an object or an array hold no native value: too deep, or a number out of a
/// double's range (named by its JSON pointer inside `params`).
fn unreadable_params(text: &str, error: &serde_json::Error) -> String {
    let message = error.to_string();
    if message.contains("recursion limit") {
        return format!("params nest deeper than {MAX_PARAMS_DEPTH} levels");
    }
    if message.contains("number out of range") {
        let options = rea_plugin_api::json::ParseOptions::default().max_depth(MAX_PARAMS_DEPTH + 1);
        let pointer = rea_plugin_api::json::parse_with(text.as_bytes(), &options)
            .ok()
            .and_then(|parsed| out_of_range_number(&parsed, &mut String::new()));
        return match pointer {
            Some(pointer) => format!(
                "params hold a number out of a double's range at {}",
                Value::String(pointer)
            ),
            None => "params hold a number out of a double's range".to_owned(),
        };
    }
    format!("params are not readable JSON: {message}")
}

/// The pointer of the first number no double holds (it reads as infinite).
fn out_of_range_number(value: &rea_plugin_api::json::Json, pointer: &mut String) -> Option<String> {
    use rea_plugin_api::json::{Json, escape_pointer_segment};
    match value {
        Json::Number(number) if number.as_f64().is_infinite() => Some(pointer.clone()),
        Json::Array(items) => items.iter().enumerate().find_map(|(index, item)| {
            let length = pointer.len();
            pointer.push_str(&format!("/{index}"));
            let found = out_of_range_number(item, pointer);
            pointer.truncate(length);
            found
        }),
        Json::Object(object) => object.iter().find_map(|(key, item)| {
            let length = pointer.len();
            pointer.push('/');
            pointer.push_str(&escape_pointer_segment(key));
            let found = out_of_range_number(item, pointer);
            pointer.truncate(length);
            found
        }),
        _ => None,
    }
}

/// Checks an id: a string, `null`, or a number JavaScript reads as exactly that number within its
/// safe integer range.
pub fn check_id(id: &RawValue) -> Result<(), &'static str> {
    let text = id.get();
    match text.as_bytes().first() {
        // A string id must be Unicode text: an escaped lone surrogate (`"\ud800"`) is echoed
        // as sent, and strict JSON readers refuse such a reply (found by fuzzing).
        Some(b'"') => serde_json::from_str::<String>(text)
            .map(drop)
            .map_err(|_| "id must be a string of Unicode text"),
        Some(b'n') => Ok(()),
        Some(b'-') | Some(b'0'..=b'9') => check_number_id(text),
        _ => Err("id must be a string, a number or null"),
    }
}

fn check_number_id(text: &str) -> Result<(), &'static str> {
    let value: f64 = text
        .parse()
        .map_err(|_| "id must be a string, a number or null")?;
    if !value.is_finite() || value.abs() > MAX_SAFE_INTEGER {
        return Err("numeric id outside the safe integer range");
    }
    let sent = Decimal::parse(text).ok_or("id must be a string, a number or null")?;
    let read = Decimal::parse(&format!("{value:e}")).ok_or("numeric id would lose precision")?;
    if sent == read {
        Ok(())
    } else {
        Err("numeric id would lose precision")
    }
}

/// A decimal number normalized for comparison: sign, significant digits without leading or
/// trailing zeros, and the exponent of the last digit. Zero is `(false, "", 0)` whatever its sign
/// (JavaScript echoes `-0` as `0`, the same number).
#[derive(Debug, PartialEq, Eq)]
struct Decimal {
    negative: bool,
    digits: String,
    exponent: i64,
}

impl Decimal {
    fn parse(text: &str) -> Option<Self> {
        let (negative, rest) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (mantissa, exponent) = match rest.find(['e', 'E']) {
            Some(at) => (&rest[..at], rest[at + 1..].parse::<i64>().ok()?),
            None => (rest, 0),
        };
        let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        if whole.is_empty()
            || !whole
                .bytes()
                .chain(fraction.bytes())
                .all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let all: String = format!("{whole}{fraction}");
        let mut exponent = exponent.checked_sub(i64::try_from(fraction.len()).ok()?)?;
        let trimmed_end = all.trim_end_matches('0');
        exponent = exponent.checked_add(i64::try_from(all.len() - trimmed_end.len()).ok()?)?;
        let digits = trimmed_end.trim_start_matches('0').to_owned();
        if digits.is_empty() {
            return Some(Self {
                negative: false,
                digits,
                exponent: 0,
            });
        }
        Some(Self {
            negative,
            digits,
            exponent,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).expect("valid JSON")
    }

    // contract: SERVE-029, SERVE-030, SERVE-031
    #[test]
    fn number_ids_within_the_safe_range_that_a_double_holds_are_accepted() {
        for id in [
            "0",
            "-0",
            "1",
            "1.5",
            "1.0",
            "10e0",
            "1E2",
            "-7",
            "9007199254740991",
            "-9007199254740991",
            "0.1",
            "123.456",
        ] {
            assert_eq!(check_id(&raw(id)), Ok(()), "{id}");
        }
    }

    // contract: SERVE-029, SERVE-030
    #[test]
    fn number_ids_outside_the_safe_range_or_losing_precision_are_refused() {
        assert_eq!(
            check_id(&raw("9007199254740992")),
            Err("numeric id outside the safe integer range")
        );
        assert_eq!(
            check_id(&raw("-9007199254740993")),
            Err("numeric id outside the safe integer range")
        );
        assert_eq!(
            check_id(&raw("1e400")),
            Err("numeric id outside the safe integer range")
        );
        assert_eq!(
            check_id(&raw("0.10000000000000000001")),
            Err("numeric id would lose precision")
        );
        assert_eq!(
            check_id(&raw("4.35000000000000000001")),
            Err("numeric id would lose precision")
        );
    }

    // contract: SERVE-042
    #[test]
    fn ids_of_other_types_are_refused() {
        for id in ["true", "false", "{}", "[1]"] {
            assert!(check_id(&raw(id)).is_err(), "{id}");
        }
        assert_eq!(check_id(&raw("\"a\"")), Ok(()));
        assert_eq!(check_id(&raw("null")), Ok(()));
    }

    #[test]
    fn decimals_compare_by_value() {
        assert_eq!(Decimal::parse("1.50"), Decimal::parse("15e-1"));
        assert_eq!(Decimal::parse("-0.0"), Decimal::parse("0"));
        assert_ne!(Decimal::parse("1.5"), Decimal::parse("-1.5"));
        assert_eq!(Decimal::parse("100"), Decimal::parse("1e2"));
    }

    // contract: SERVE-037, SERVE-041, SERVE-042, SERVE-043
    #[test]
    fn messages_are_classified() {
        let request = classify(&raw(
            r#"{"jsonrpc":"2.0","id":3,"method":"data/get","params":{}}"#,
        ));
        assert!(
            matches!(request, Message::Request { ref id, ref method, .. } if id.get() == "3" && method == "data/get")
        );
        let null_id_request = classify(&raw(r#"{"jsonrpc":"2.0","id":null,"method":"m"}"#));
        assert!(matches!(null_id_request, Message::Request { ref id, .. } if id.get() == "null"));
        let notification = classify(&raw(r#"{"jsonrpc":"2.0","method":"data/get"}"#));
        assert!(matches!(notification, Message::Notification { .. }));
        for (body, id) in [
            (r#"{"jsonrpc":"2.0","id":7}"#, "7"),
            (r#"{"jsonrpc":"1.0","id":"a","method":"m"}"#, "\"a\""),
            (r#"{"id":1,"method":"m"}"#, "1"),
            (r#"{"jsonrpc":"2.0","id":1,"method":"m","params":"x"}"#, "1"),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"m","params":null}"#,
                "1",
            ),
            (r#"{"jsonrpc":"2.0","id":1,"method":5}"#, "1"),
            (r#"{"jsonrpc":"2.0","id":{},"method":"m"}"#, "null"),
            (r#"{"jsonrpc":"2.0","id":true,"method":"m"}"#, "null"),
            (
                r#"{"jsonrpc":"2.0","id":9007199254740993,"method":"m"}"#,
                "null",
            ),
            (r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}"#, "null"),
            ("5", "null"),
            ("\"x\"", "null"),
        ] {
            match classify(&raw(body)) {
                Message::Invalid { id: got, .. } => assert_eq!(got.get(), id, "{body}"),
                other => panic!("{body}: {other:?}"),
            }
        }
    }

    // contract: SERVE-036
    #[test]
    fn bodies_parse_as_one_message_or_a_batch() {
        assert!(matches!(parse_body(b" [1, {}] "), Ok(RpcBody::Batch(items)) if items.len() == 2));
        assert!(matches!(parse_body(b"{}"), Ok(RpcBody::Single(_))));
        assert!(parse_body(b"{\"jsonrpc\": ").is_err());
        assert!(parse_body(b"").is_err());
        assert!(parse_body(b"{} {}").is_err());
        assert!(parse_body(&[0xff, 0xfe]).is_err());
    }
}

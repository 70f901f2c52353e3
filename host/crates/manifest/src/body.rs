//! How replay answers a recorded response body.
//!
//! * A body the capture did not keep (missing, reported null, excluded) answers `null` with
//!   `body_recorded: false`: not a recorded JSON `null`.
//! * UTF-8 text over 256 KiB is cut at a UTF-8 boundary and answered as text, `truncated: true`.
//! * Otherwise, when the recorded media type is JSON-like (`application/json`,
//!   `application/*+json`, `text/plain`, `text/markdown`) and the text parses as JSON whose every
//!   number converts safely, the body is that JSON, spelled exactly as recorded (its key order and
//!   number lexemes kept). A number converts safely when it is an integer of at most 2^53 − 1 in
//!   magnitude written without fraction or exponent, or a number whose nearest double spells the
//!   same decimal value. One unsafe number (a large integer id) keeps the whole body as text, so
//!   no number changes.
//! * Otherwise the body is the recorded text.
//! * Retained base64 bytes are decoded only as far as the 256 KiB a reply carries. Bytes that are
//!   UTF-8 (a cut inside a character aside) are text as above, a leading byte-order mark kept;
//!   other bytes are answered as base64 of exactly those bytes (`body_encoding: "base64"`), the
//!   256 KiB limit counted in recorded bytes and a cut keeping whole base64 groups.

use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use rea_plugin_api::contracts::capture::Body;
use serde::{Serialize, Serializer};
use serde_json::value::RawValue;

use crate::display::utf8_prefix;
use crate::media;

/// The most bytes of a recorded body one reply carries.
pub const REPLY_BODY_LIMIT: usize = 256 * 1024;

/// A replayed body.
#[derive(Debug, Clone)]
pub enum ReplayBody {
    /// The capture kept no body (`body_recorded: false`).
    NotRecorded,
    /// JSON, exactly as recorded.
    Json(Arc<RawValue>),
    /// Text (UTF-8), or base64 of non-UTF-8 bytes.
    Text(Arc<str>),
}

impl Serialize for ReplayBody {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            ReplayBody::NotRecorded => serializer.serialize_none(),
            ReplayBody::Json(raw) => (**raw).serialize(serializer),
            ReplayBody::Text(text) => serializer.serialize_str(text),
        }
    }
}

impl ReplayBody {
    /// The body as a JSON value (parsed again for JSON bodies).
    pub fn to_value(&self) -> serde_json::Value {
        match self {
            ReplayBody::NotRecorded => serde_json::Value::Null,
            ReplayBody::Json(raw) => {
                serde_json::from_str(raw.get()).unwrap_or(serde_json::Value::Null)
            }
            ReplayBody::Text(text) => serde_json::Value::String(text.to_string()),
        }
    }
}

/// How a body is spelled in a reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum BodyEncoding {
    /// Text or JSON.
    #[serde(rename = "utf-8")]
    Utf8,
    /// Base64 of bytes that are not UTF-8.
    #[serde(rename = "base64")]
    Base64,
}

/// A recorded body as replay answers it.
#[derive(Debug, Clone)]
pub struct InterpretedBody {
    /// The body.
    pub body: ReplayBody,
    /// `utf-8` or `base64`.
    pub encoding: BodyEncoding,
    /// Whether the capture kept a body.
    pub recorded: bool,
    /// Whether the body was cut at [`REPLY_BODY_LIMIT`].
    pub truncated: bool,
}

impl InterpretedBody {
    /// Whether replay answers this body as JSON.
    pub fn is_json(&self) -> bool {
        matches!(self.body, ReplayBody::Json(_))
    }
}

/// Interprets a recorded response body with the full recorded media type.
pub fn interpret(body: &Body, media_type: Option<&str>) -> InterpretedBody {
    match body {
        Body::Missing | Body::ReportedNull | Body::Excluded { .. } => InterpretedBody {
            body: ReplayBody::NotRecorded,
            encoding: BodyEncoding::Utf8,
            recorded: false,
            truncated: false,
        },
        Body::Text { text } => text_body(text, Some(text), media_type),
        Body::Base64 { base64, .. } => base64_body(base64, media_type),
    }
}

/// A text body as replay answers it; `shared` is the recorded text when `text` is all of it, so a
/// body answered as text shares the record's copy.
fn text_body(text: &str, shared: Option<&Arc<str>>, media_type: Option<&str>) -> InterpretedBody {
    if text.len() > REPLY_BODY_LIMIT {
        return InterpretedBody {
            body: ReplayBody::Text(Arc::from(utf8_prefix(text, REPLY_BODY_LIMIT))),
            encoding: BodyEncoding::Utf8,
            recorded: true,
            truncated: true,
        };
    }
    let whole = || shared.map_or_else(|| Arc::from(text), Arc::clone);
    let body = if media::is_json_like(media_type) {
        parse_safe_json(text)
            .map(ReplayBody::Json)
            .unwrap_or_else(|| ReplayBody::Text(whole()))
    } else {
        ReplayBody::Text(whole())
    };
    InterpretedBody {
        body,
        encoding: BodyEncoding::Utf8,
        recorded: true,
        truncated: false,
    }
}

fn base64_body(base64: &str, media_type: Option<&str>) -> InterpretedBody {
    // Decode whole groups covering one byte more than a reply carries, to know whether it is cut.
    let groups_needed = REPLY_BODY_LIMIT / 3 + 1;
    let prefix_chars = (groups_needed * 4).min(base64.len());
    let prefix = &base64[..prefix_chars - prefix_chars % 4];
    let Ok(mut bytes) = STANDARD.decode(prefix) else {
        // The capture contract keeps canonical base64; anything else is answered as recorded.
        return InterpretedBody {
            body: ReplayBody::Text(Arc::from(utf8_prefix(base64, REPLY_BODY_LIMIT))),
            encoding: BodyEncoding::Base64,
            recorded: true,
            truncated: base64.len() > REPLY_BODY_LIMIT,
        };
    };
    let truncated = bytes.len() > REPLY_BODY_LIMIT || prefix.len() < base64.len();
    if truncated {
        bytes.truncate(REPLY_BODY_LIMIT);
    }
    match std::str::from_utf8(&bytes) {
        Ok(text) if !truncated => text_body(text, None, media_type),
        Ok(text) => cut_text(text),
        Err(error) if truncated && error.error_len().is_none() => {
            cut_text(std::str::from_utf8(&bytes[..error.valid_up_to()]).unwrap_or_default())
        }
        Err(_) => {
            let encoded = if truncated {
                bytes.truncate(REPLY_BODY_LIMIT - REPLY_BODY_LIMIT % 3);
                STANDARD.encode(&bytes)
            } else {
                base64.to_owned()
            };
            InterpretedBody {
                body: ReplayBody::Text(Arc::from(encoded)),
                encoding: BodyEncoding::Base64,
                recorded: true,
                truncated,
            }
        }
    }
}

fn cut_text(text: &str) -> InterpretedBody {
    InterpretedBody {
        body: ReplayBody::Text(Arc::from(text)),
        encoding: BodyEncoding::Utf8,
        recorded: true,
        truncated: true,
    }
}

/// The text as JSON when it parses and every number converts safely.
pub fn parse_safe_json(text: &str) -> Option<Arc<RawValue>> {
    let raw: Box<RawValue> = serde_json::from_str(text).ok()?;
    if !numbers_are_safe(raw.get()) {
        return None;
    }
    Some(Arc::from(raw))
}

/// Whether every number of a valid JSON text converts safely (see the module docs).
pub fn numbers_are_safe(json: &str) -> bool {
    let bytes = json.as_bytes();
    let mut index = 0;
    while index < bytes.len() {
        match bytes[index] {
            b'"' => {
                index += 1;
                while index < bytes.len() {
                    match bytes[index] {
                        b'\\' => index += 2,
                        b'"' => {
                            index += 1;
                            break;
                        }
                        _ => index += 1,
                    }
                }
            }
            b'-' | b'0'..=b'9' => {
                let start = index;
                while index < bytes.len()
                    && matches!(bytes[index], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    index += 1;
                }
                if !is_safe_number(&json[start..index]) {
                    return false;
                }
            }
            _ => index += 1,
        }
    }
    true
}

/// Whether one JSON number lexeme converts to a double without losing information.
pub fn is_safe_number(lexeme: &str) -> bool {
    let unsigned = lexeme.strip_prefix('-').unwrap_or(lexeme);
    if unsigned.bytes().all(|byte| byte.is_ascii_digit()) {
        const MAX_SAFE: &str = "9007199254740991";
        let digits = unsigned.trim_start_matches('0');
        return digits.len() < MAX_SAFE.len()
            || (digits.len() == MAX_SAFE.len() && digits <= MAX_SAFE);
    }
    let Ok(value) = lexeme.parse::<f64>() else {
        return false;
    };
    if !value.is_finite() {
        return false;
    }
    decimal(lexeme) == decimal(&format!("{value:e}"))
}

/// A decimal number as (negative, significant digits, exponent) with value 0.d₁d₂… × 10^exponent;
/// zero is `(false, "", 0)`.
fn decimal(text: &str) -> (bool, String, i64) {
    let (negative, text) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(at) => (&text[..at], text[at + 1..].parse::<i64>().unwrap_or(0)),
        None => (text, 0),
    };
    let (integer, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all: String = format!("{integer}{fraction}");
    let leading = all.len() - all.trim_start_matches('0').len();
    let digits = all.trim_start_matches('0').trim_end_matches('0').to_owned();
    if digits.is_empty() {
        return (false, String::new(), 0);
    }
    let point = integer.len() as i64 - leading as i64 + exponent;
    (negative, digits, point)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spec's 256 KiB a reply carries (REPLAY-026, REPLAY-035), written as the spec's number.
    const SPEC_REPLY_BODY_BYTES: usize = 256 * 1024;

    fn text(text: &str) -> Body {
        Body::Text { text: text.into() }
    }

    fn rendered(body: &InterpretedBody) -> String {
        serde_json::to_string(&body.body).unwrap()
    }

    #[test]
    fn json_like_bodies_are_parsed_and_spelled_as_recorded() {
        // contract: REPLAY-024
        let body = interpret(
            &text(r#"{"id": 2, "login": "probe", "a": 1.50}"#),
            Some("application/json; charset=utf-8"),
        );
        assert!(body.is_json());
        assert_eq!(rendered(&body), r#"{"id": 2, "login": "probe", "a": 1.50}"#);
        let body = interpret(&text("42"), Some("text/plain"));
        assert_eq!(rendered(&body), "42");
        let body = interpret(&text("hello"), Some("text/plain"));
        assert_eq!(rendered(&body), "\"hello\"");
        let body = interpret(&text(r#"{"a":1}"#), Some("text/html"));
        assert_eq!(rendered(&body), r#""{\"a\":1}""#);
        let body = interpret(&text(r#"{"a":1}"#), Some("application/problem+json"));
        assert!(body.is_json());
    }

    #[test]
    fn unsafe_numbers_keep_the_whole_body_as_text() {
        // contract: REPLAY-025
        let recorded = r#"{"id": 12345678901234567890, "n": 1}"#;
        let body = interpret(&text(recorded), Some("application/json"));
        assert!(!body.is_json());
        assert_eq!(
            body.body.to_value(),
            serde_json::Value::String(recorded.into())
        );
        for safe in [
            "0",
            "-0",
            "9007199254740991",
            "-9007199254740991",
            "1.5",
            "0.1",
            "1e2",
            "1E-7",
            "2.50",
            "-0.0",
        ] {
            assert!(is_safe_number(safe), "{safe}");
        }
        for unsafe_number in [
            "9007199254740992",
            "12345678901234567890",
            "0.1000000000000000000001",
            "1e400",
            "9007199254740993.0",
        ] {
            assert!(!is_safe_number(unsafe_number), "{unsafe_number}");
        }
        assert!(numbers_are_safe(
            r#"{"s": "12345678901234567890", "t": "\"9007199254740993"}"#
        ));
    }

    #[test]
    fn unrecorded_bodies_answer_null_without_claiming_a_recording() {
        // contract: REPLAY-027
        for body in [
            Body::Missing,
            Body::ReportedNull,
            Body::Excluded {
                reason: "sensitive-value".into(),
            },
        ] {
            let interpreted = interpret(&body, Some("application/json"));
            assert!(!interpreted.recorded);
            assert_eq!(rendered(&interpreted), "null");
        }
        let recorded_null = interpret(&text("null"), Some("application/json"));
        assert!(recorded_null.recorded);
        assert_eq!(rendered(&recorded_null), "null");
    }

    #[test]
    fn long_text_is_cut_at_a_utf8_boundary() {
        // contract: REPLAY-026, REPLAY-035
        let long = format!("[\"{}\"]", "é".repeat(SPEC_REPLY_BODY_BYTES));
        let body = interpret(&text(&long), Some("application/json"));
        assert!(body.truncated);
        assert!(!body.is_json());
        let ReplayBody::Text(cut) = &body.body else {
            panic!("text expected")
        };
        assert!(cut.len() <= SPEC_REPLY_BODY_BYTES && cut.len() >= SPEC_REPLY_BODY_BYTES - 1);
        assert!(long.starts_with(&**cut));
    }

    #[test]
    fn binary_bodies_are_base64_of_exactly_the_bytes() {
        // contract: REPLAY-028, REPLAY-029
        let bytes = vec![0xff, 0x00, 0x80, 0x41];
        let body = Body::Base64 {
            base64: STANDARD.encode(&bytes),
            bytes: 4,
        };
        let interpreted = interpret(&body, Some("application/octet-stream"));
        assert_eq!(interpreted.encoding, BodyEncoding::Base64);
        assert!(!interpreted.truncated);
        assert_eq!(
            rendered(&interpreted),
            format!("\"{}\"", STANDARD.encode(&bytes))
        );
        // UTF-8 bytes retained as base64 are text, a byte-order mark kept.
        let text_bytes = "\u{feff}{\"a\":1}".as_bytes().to_vec();
        let interpreted = interpret(
            &Body::Base64 {
                base64: STANDARD.encode(&text_bytes),
                bytes: text_bytes.len() as u64,
            },
            Some("application/json"),
        );
        assert_eq!(interpreted.encoding, BodyEncoding::Utf8);
        assert_eq!(
            interpreted.body.to_value(),
            serde_json::json!("\u{feff}{\"a\":1}")
        );
        // contract: REPLAY-031
        let plain = interpret(
            &Body::Base64 {
                base64: STANDARD.encode(b"{\"a\":1}"),
                bytes: 7,
            },
            Some("application/json"),
        );
        assert!(plain.is_json());
    }

    #[test]
    fn long_binary_bodies_are_cut_by_recorded_bytes_in_whole_groups() {
        // contract: REPLAY-030, REPLAY-032
        let bytes: Vec<u8> = (0..SPEC_REPLY_BODY_BYTES + 5000)
            .map(|n| (n % 251) as u8 | 0x80)
            .collect();
        let body = Body::Base64 {
            base64: STANDARD.encode(&bytes),
            bytes: bytes.len() as u64,
        };
        let interpreted = interpret(&body, None);
        assert!(interpreted.truncated);
        assert_eq!(interpreted.encoding, BodyEncoding::Base64);
        let ReplayBody::Text(encoded) = &interpreted.body else {
            panic!("text expected")
        };
        assert_eq!(encoded.len() % 4, 0);
        assert!(!encoded.ends_with('='));
        let decoded = STANDARD.decode(encoded.as_bytes()).unwrap();
        assert_eq!(
            decoded.len(),
            SPEC_REPLY_BODY_BYTES - SPEC_REPLY_BODY_BYTES % 3
        );
        assert_eq!(&decoded[..], &bytes[..decoded.len()]);
        // Long UTF-8 retained as base64 is cut as text at a character boundary.
        let long = "é".repeat(SPEC_REPLY_BODY_BYTES);
        let interpreted = interpret(
            &Body::Base64 {
                base64: STANDARD.encode(long.as_bytes()),
                bytes: long.len() as u64,
            },
            Some("text/plain"),
        );
        assert!(interpreted.truncated);
        assert_eq!(interpreted.encoding, BodyEncoding::Utf8);
        let ReplayBody::Text(cut) = &interpreted.body else {
            panic!("text expected")
        };
        assert_eq!(cut.len(), SPEC_REPLY_BODY_BYTES);
    }
}

//! The JSON of a [`crate::fast_path`] answer, byte for byte what `serde_json` writes for the SDK's
//! message, written with less work per call.
//!
//! Why: a tool result's text is itself JSON, so quoting it again escapes every quote in it; the
//! generic writer hands each run between two escapes and each escape to the output as a write of
//! its own, which made escaping the text the largest single cost of answering a call (about an
//! eighth of the server's instructions per call). Here the message is written by `serde_json`
//! through the SDK's types as before, with a placeholder in place of the first text content; the
//! text is then escaped in one pass into the placeholder's place ([`escape_into`], the same
//! escapes `serde_json` writes). When the placeholder's JSON does not appear exactly once in the
//! message (a client's id could spell it), the message is written whole the ordinary way.

use rmcp::model::{ContentBlock, JsonRpcMessage, ServerJsonRpcMessage, ServerResult};

/// The text put in place of the result's text while the message is written.
const PLACEHOLDER: &str = "\u{1}rea:answer-text\u{1}";
/// [`PLACEHOLDER`] as `serde_json` writes it inside a string.
const PLACEHOLDER_JSON: &[u8] = b"\\u0001rea:answer-text\\u0001";

/// The message's compact JSON between `prefix` and `suffix`, in one buffer of about `size` bytes
/// (it grows past that when needed).
pub fn encode(
    mut message: ServerJsonRpcMessage,
    prefix: &[u8],
    suffix: &[u8],
    size: usize,
) -> serde_json::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(size);
    out.extend_from_slice(prefix);
    let Some(slot) = first_text(&mut message) else {
        serde_json::to_writer(&mut out, &message)?;
        out.extend_from_slice(suffix);
        return Ok(out);
    };
    let text = std::mem::replace(slot, PLACEHOLDER.to_owned());
    serde_json::to_writer(&mut out, &message)?;
    let mut found = memchr::memmem::find_iter(&out[prefix.len()..], PLACEHOLDER_JSON);
    match (found.next(), found.next()) {
        (Some(at), None) => {
            let at = prefix.len() + at;
            let tail = out.split_off(at + PLACEHOLDER_JSON.len());
            out.truncate(at);
            escape_into(&mut out, &text);
            out.extend_from_slice(&tail);
        }
        _ => {
            if let Some(slot) = first_text(&mut message) {
                *slot = text;
            }
            out.truncate(prefix.len());
            serde_json::to_writer(&mut out, &message)?;
        }
    }
    out.extend_from_slice(suffix);
    Ok(out)
}

/// The text of a tool result's first content block, when the message is one and it is text.
fn first_text(message: &mut ServerJsonRpcMessage) -> Option<&mut String> {
    let JsonRpcMessage::Response(response) = message else {
        return None;
    };
    let ServerResult::CallToolResult(result) = &mut response.result else {
        return None;
    };
    match result.content.first_mut()? {
        ContentBlock::Text(text) => Some(&mut text.text),
        _ => None,
    }
}

/// How `serde_json` escapes a byte in a string: `0` for none, `u` for `\u00XX`, else the letter
/// after the backslash.
const ESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = b'u';
        byte += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0a] = b'n';
    table[0x0c] = b'f';
    table[0x0d] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

/// Appends the text as the contents of a JSON string, escaped exactly as `serde_json` escapes it
/// (`\"`, `\\`, `\b`, `\t`, `\n`, `\f`, `\r`, other control characters as `\u00xx` in lower-case
/// hex; nothing else).
pub fn escape_into(out: &mut Vec<u8>, text: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = text.as_bytes();
    let escaped: usize = bytes.iter().map(|&byte| escaped_len(byte)).sum();
    out.reserve(escaped);
    // Byte by byte into reserved room: the runs between a quoted JSON text's escapes are a few
    // bytes long, too short to pay for a copy call each.
    for &byte in bytes {
        match ESCAPE[usize::from(byte)] {
            0 => out.push(byte),
            b'u' => out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(byte >> 4)],
                HEX[usize::from(byte & 0xf)],
            ]),
            escape => out.extend_from_slice(&[b'\\', escape]),
        }
    }
}

/// How many bytes a byte takes escaped.
fn escaped_len(byte: u8) -> usize {
    match ESCAPE[usize::from(byte)] {
        0 => 1,
        b'u' => 6,
        _ => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{CallToolResult, NumberOrString};
    use serde_json::json;

    fn quoted(text: &str) -> Vec<u8> {
        let mut out = b"\"".to_vec();
        escape_into(&mut out, text);
        out.push(b'"');
        out
    }

    #[test]
    fn text_is_escaped_as_serde_json_escapes_it() {
        let every_ascii: String = (0u8..=0x7f).map(char::from).collect();
        let texts = [
            String::new(),
            every_ascii,
            r#"{"a":"b\"c","d":"e\\f\n"}"#.to_owned(),
            "é, 中文, 🦀, \u{2028}\u{2029} and DEL \u{7f}".to_owned(),
            "\"\"\\\\\n".to_owned(),
        ];
        for text in texts {
            let expected = serde_json::to_vec(&text).unwrap();
            assert_eq!(quoted(&text), expected, "{text:?}");
        }
    }

    fn message(id: NumberOrString, text: &str) -> ServerJsonRpcMessage {
        let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
        result.structured_content = Some(json!({"echo": text}));
        ServerJsonRpcMessage::response(ServerResult::CallToolResult(result), id)
    }

    #[test]
    fn answers_are_the_messages_json_byte_for_byte() {
        let text = r#"{"status":200,"body":{"title":"a \"quoted\" word","lines":"1\n2"}}"#;
        let ids = [
            NumberOrString::Number(7),
            NumberOrString::String("plain".into()),
            // An id spelling the placeholder: the message is written the ordinary way.
            NumberOrString::String(PLACEHOLDER.into()),
        ];
        for id in ids {
            let expected = serde_json::to_vec(&message(id.clone(), text)).unwrap();
            let written = encode(message(id.clone(), text), b"", b"", 16).unwrap();
            assert_eq!(
                String::from_utf8(written).unwrap(),
                String::from_utf8(expected.clone()).unwrap()
            );
            let event = encode(message(id, text), b"data: ", b"\n\n", 0).unwrap();
            assert_eq!(event, [&b"data: "[..], &expected, b"\n\n"].concat());
        }
    }

    #[test]
    fn an_error_message_is_written_whole() {
        let error = rmcp::ErrorData::invalid_params("unknown tool: \"x\"", None);
        let message = ServerJsonRpcMessage::error(error, Some(NumberOrString::Number(1)));
        let expected = serde_json::to_vec(&message).unwrap();
        assert_eq!(encode(message, b"", b"", 0).unwrap(), expected);
    }
}

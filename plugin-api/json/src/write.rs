//! The canonical writer: compact, object keys sorted by code point, numbers as their lexeme,
//! minimal string escaping.

use std::borrow::Cow;

use super::Json;
use super::parse::{find_special, next_special};

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Chunked writing hands the buffer over once it holds at least this many bytes.
pub const CHUNK_BYTES: usize = 64 * 1024;

pub(crate) fn write_canonical(value: &Json, out: &mut Vec<u8>) {
    write_value(value, out, &mut |_: &mut Vec<u8>| {});
}

/// Writes the canonical serialization of `value` into `buffer` (which may already hold bytes),
/// calling `flush` with the buffer whenever it holds at least [`CHUNK_BYTES`] at a value
/// boundary; `flush` must empty it (or not, to keep collecting). The caller flushes the rest.
///
/// Streaming this way hashes or writes a large document with a small buffer (one value, such as
/// one long string, may still grow it beyond the chunk size).
pub fn write_canonical_chunks(
    value: &Json,
    buffer: &mut Vec<u8>,
    flush: &mut dyn FnMut(&mut Vec<u8>),
) {
    write_value(value, buffer, &mut |buffer: &mut Vec<u8>| {
        if buffer.len() >= CHUNK_BYTES {
            flush(buffer);
        }
    });
}

fn write_value(value: &Json, out: &mut Vec<u8>, boundary: &mut dyn FnMut(&mut Vec<u8>)) {
    match value {
        Json::Null => out.extend_from_slice(b"null"),
        Json::Bool(true) => out.extend_from_slice(b"true"),
        Json::Bool(false) => out.extend_from_slice(b"false"),
        Json::Number(number) => out.extend_from_slice(number.as_str().as_bytes()),
        Json::String(text) => write_canonical_string(text, out),
        Json::Array(items) => {
            out.push(b'[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                write_value(item, out, boundary);
                boundary(out);
            }
            out.push(b']');
        }
        Json::Object(object) => {
            let members = object.members();
            out.push(b'{');
            if members
                .windows(2)
                .all(|pair| pair[0].0.as_bytes() < pair[1].0.as_bytes())
            {
                // Already sorted (canonical input read back): no index to build.
                for (index, (key, value)) in members.iter().enumerate() {
                    if index > 0 {
                        out.push(b',');
                    }
                    write_canonical_string(key.as_str(), out);
                    out.push(b':');
                    write_value(value, out, boundary);
                }
            } else {
                let mut sorted: Vec<&(_, Json)> = members.iter().collect();
                sorted.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
                for (index, (key, value)) in sorted.into_iter().enumerate() {
                    if index > 0 {
                        out.push(b',');
                    }
                    write_canonical_string(key.as_str(), out);
                    out.push(b':');
                    write_value(value, out, boundary);
                }
            }
            out.push(b'}');
        }
    }
}

/// Writes a string with the canonical escaping: `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, other
/// control characters as `\u00xx` (lower-case hex), everything else as UTF-8.
pub fn write_canonical_string(text: &str, out: &mut Vec<u8>) {
    let bytes = text.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut at = 0;
    loop {
        // After an escape runs are often short (JSON inside JSON escapes every quote).
        let stop = if at == 0 {
            find_special(bytes, at)
        } else {
            next_special(bytes, at)
        };
        out.extend_from_slice(&bytes[at..stop]);
        let Some(&byte) = bytes.get(stop) else {
            break;
        };
        match byte {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            control => out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(control >> 4)],
                HEX[usize::from(control & 0xf)],
            ]),
        }
        at = stop + 1;
    }
    out.push(b'"');
}

/// Escapes one JSON pointer segment (RFC 6901: `~` → `~0`, `/` → `~1`).
pub fn escape_pointer_segment(segment: &str) -> Cow<'_, str> {
    if segment.contains(['~', '/']) {
        Cow::Owned(segment.replace('~', "~0").replace('/', "~1"))
    } else {
        Cow::Borrowed(segment)
    }
}

/// Unescapes one JSON pointer segment (RFC 6901: `~1` → `/`, then `~0` → `~`).
pub fn unescape_pointer_segment(segment: &str) -> String {
    segment.replace("~1", "/").replace("~0", "~")
}

#[cfg(test)]
mod tests {
    use super::super::parse;

    #[test]
    fn canonical_form_sorts_keys_and_keeps_lexemes() {
        let value = parse(
            "{ \"b\": 1.50, \"a\": [true, null, \"\\u0001\\n\\\"/é\"], \"B\": {}, \"é\": 0, \"z\": -0 }"
                .as_bytes(),
        )
        .unwrap();
        assert_eq!(
            value.to_canonical_string(),
            "{\"B\":{},\"a\":[true,null,\"\\u0001\\n\\\"/é\"],\"b\":1.50,\"z\":-0,\"é\":0}"
        );
    }

    #[test]
    fn canonical_strings_match_serde_json_escaping() {
        let text: String = (0u8..0x80)
            .map(char::from)
            .chain("é\u{2028}😀".chars())
            .collect();
        let mut ours = Vec::new();
        super::write_canonical_string(&text, &mut ours);
        assert_eq!(
            String::from_utf8(ours).unwrap(),
            serde_json::to_string(&text).unwrap()
        );
    }

    #[test]
    fn canonical_output_reads_back_identically() {
        let value = parse(br#"{"x":{"k":[1,2,{"z":"\t"}],"a":"\u007f"}}"#).unwrap();
        let canonical = value.to_canonical_vec();
        assert_eq!(parse(&canonical).unwrap().to_canonical_vec(), canonical);
    }
}

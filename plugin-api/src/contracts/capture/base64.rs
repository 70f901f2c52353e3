//! Strict standard base64 (RFC 4648 §4), as capture bodies use it.
//!
//! Decoding refuses anything that is not exactly one canonical spelling of some bytes: characters
//! outside the standard alphabet (whitespace included), misplaced or excess `=` padding, a length
//! that no byte count has, and non-zero bits in the last character's unused low bits. Unpadded
//! input is accepted when its length is possible (some producers drop the padding); the extractor
//! re-encodes with padding.

/// Why a text is not base64.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Base64Error {
    /// Byte offset of the first offending character (the length for a bad length).
    pub offset: usize,
}

impl std::fmt::Display for Base64Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invalid base64 at character {}", self.offset)
    }
}

impl std::error::Error for Base64Error {}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const INVALID: u8 = 0xff;

const fn decode_table() -> [u8; 256] {
    let mut table = [INVALID; 256];
    let mut index = 0;
    while index < 64 {
        table[ALPHABET[index] as usize] = index as u8;
        index += 1;
    }
    table
}

static DECODE: [u8; 256] = decode_table();

/// Checks the text and returns the number of bytes it decodes to, without decoding.
pub fn decoded_len(text: &str) -> Result<usize, Base64Error> {
    let data = strip_padding(text.as_bytes())?;
    if let Some(offset) = data
        .iter()
        .position(|&byte| DECODE[usize::from(byte)] == INVALID)
    {
        return Err(Base64Error { offset });
    }
    check_tail(data)?;
    Ok(data.len() / 4 * 3 + tail_bytes(data.len() % 4))
}

/// Decodes the text into bytes.
pub fn decode(text: &str) -> Result<Vec<u8>, Base64Error> {
    let data = strip_padding(text.as_bytes())?;
    check_tail(data)?;
    let mut out = Vec::with_capacity(data.len() / 4 * 3 + 3);
    let mut chunks = data.chunks_exact(4);
    for (index, chunk) in chunks.by_ref().enumerate() {
        let mut word = 0u32;
        for (position, &byte) in chunk.iter().enumerate() {
            let value = DECODE[usize::from(byte)];
            if value == INVALID {
                return Err(Base64Error {
                    offset: index * 4 + position,
                });
            }
            word = word << 6 | u32::from(value);
        }
        out.extend_from_slice(&[(word >> 16) as u8, (word >> 8) as u8, word as u8]);
    }
    let rest = chunks.remainder();
    let base = data.len() - rest.len();
    let mut word = 0u32;
    for (position, &byte) in rest.iter().enumerate() {
        let value = DECODE[usize::from(byte)];
        if value == INVALID {
            return Err(Base64Error {
                offset: base + position,
            });
        }
        word = word << 6 | u32::from(value);
    }
    match rest.len() {
        2 => out.push((word >> 4) as u8),
        3 => out.extend_from_slice(&[(word >> 10) as u8, (word >> 2) as u8]),
        _ => {}
    }
    Ok(out)
}

/// Encodes bytes as padded standard base64.
pub fn encode(bytes: &[u8]) -> String {
    let mut out = Vec::with_capacity(bytes.len().div_ceil(3) * 4);
    let mut chunks = bytes.chunks_exact(3);
    for chunk in chunks.by_ref() {
        let word = u32::from(chunk[0]) << 16 | u32::from(chunk[1]) << 8 | u32::from(chunk[2]);
        out.extend_from_slice(&[
            ALPHABET[(word >> 18) as usize & 63],
            ALPHABET[(word >> 12) as usize & 63],
            ALPHABET[(word >> 6) as usize & 63],
            ALPHABET[word as usize & 63],
        ]);
    }
    match *chunks.remainder() {
        [a] => {
            let word = u32::from(a) << 16;
            out.extend_from_slice(&[
                ALPHABET[(word >> 18) as usize & 63],
                ALPHABET[(word >> 12) as usize & 63],
                b'=',
                b'=',
            ]);
        }
        [a, b] => {
            let word = u32::from(a) << 16 | u32::from(b) << 8;
            out.extend_from_slice(&[
                ALPHABET[(word >> 18) as usize & 63],
                ALPHABET[(word >> 12) as usize & 63],
                ALPHABET[(word >> 6) as usize & 63],
                b'=',
            ]);
        }
        _ => {}
    }
    // Only alphabet bytes were written.
    String::from_utf8(out).unwrap_or_default()
}

/// Whether the text is already padded canonical base64 (then re-encoding gives it back).
pub fn is_padded(text: &str) -> bool {
    text.len().is_multiple_of(4)
}

fn strip_padding(bytes: &[u8]) -> Result<&[u8], Base64Error> {
    let padding = bytes.iter().rev().take_while(|&&byte| byte == b'=').count();
    let data = &bytes[..bytes.len() - padding];
    if padding > 0 && (padding > 2 || !bytes.len().is_multiple_of(4)) {
        return Err(Base64Error { offset: data.len() });
    }
    if padding > 0 && tail_bytes(data.len() % 4) == 0 {
        return Err(Base64Error { offset: data.len() });
    }
    if data.len() % 4 == 1 {
        return Err(Base64Error { offset: data.len() });
    }
    Ok(data)
}

fn tail_bytes(rest: usize) -> usize {
    match rest {
        2 => 1,
        3 => 2,
        _ => 0,
    }
}

/// The unused low bits of the last character must be zero (one canonical spelling per byte string).
fn check_tail(data: &[u8]) -> Result<(), Base64Error> {
    let rest = data.len() % 4;
    let Some(&last) = data.last() else {
        return Ok(());
    };
    let value = DECODE[usize::from(last)];
    let unused_mask = match rest {
        2 => 0b1111,
        3 => 0b11,
        _ => 0,
    };
    if value != INVALID && value & unused_mask != 0 {
        return Err(Base64Error {
            offset: data.len() - 1,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_length() {
        let bytes: Vec<u8> = (0..=255u8).collect();
        for length in 0..40 {
            let encoded = encode(&bytes[..length]);
            assert_eq!(decode(&encoded).unwrap(), &bytes[..length]);
            assert_eq!(decoded_len(&encoded).unwrap(), length);
            let unpadded = encoded.trim_end_matches('=');
            assert_eq!(decode(unpadded).unwrap(), &bytes[..length]);
        }
        assert_eq!(encode(b"hello"), "aGVsbG8=");
    }

    #[test]
    fn refuses_what_is_not_canonical_base64() {
        assert!(decode("a").is_err());
        assert!(decode("aGVsbG8==").is_err());
        assert!(decode("aGV sbG8=").is_err());
        assert!(decode("aGVs\nbG8=").is_err());
        assert!(decode("aGVsbG9=").is_err(), "non-zero unused bits");
        assert!(decode("====").is_err());
        assert!(decode("a===").is_err());
        assert!(decode("aG=VsbG8").is_err());
        assert!(decode("aG-_").is_err());
        assert!(decoded_len("aG-_").is_err());
        assert!(decoded_len("aGVsbG9=").is_err());
        assert_eq!(decode("aGVsbG8").unwrap(), b"hello");
    }
}

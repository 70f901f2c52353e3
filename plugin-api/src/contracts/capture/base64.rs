//! Strict standard base64 (RFC 4648 §4), as capture bodies use it, on the `base64` crate.
//!
//! Decoding refuses anything that is not exactly one canonical spelling of some bytes: characters
//! outside the standard alphabet (whitespace included), misplaced or excess `=` padding, a length
//! that no byte count has, and non-zero bits in the last character's unused low bits. Unpadded
//! input is accepted when its length is possible (some producers drop the padding); the extractor
//! re-encodes with padding.

use base64::Engine as _;
use base64::alphabet::STANDARD;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};

/// The engine: the standard alphabet, padding optional on input but canonical when present,
/// non-zero trailing bits refused, padding written on output.
pub const ENGINE: GeneralPurpose = GeneralPurpose::new(
    &STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_padding_mode(DecodePaddingMode::Indifferent)
        .with_decode_allow_trailing_bits(false),
);

/// Why a text is not base64.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Base64Error {
    /// Byte offset of the first offending character (where the padding starts for bad padding,
    /// the length for a bad length).
    pub offset: usize,
}

impl std::fmt::Display for Base64Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invalid base64 at character {}", self.offset)
    }
}

impl std::error::Error for Base64Error {}

/// Decodes the text into bytes.
pub fn decode(text: &str) -> Result<Vec<u8>, Base64Error> {
    ENGINE.decode(text).map_err(|error| {
        let offset = match error {
            base64::DecodeError::InvalidByte(offset, _)
            | base64::DecodeError::InvalidLastSymbol(offset, _) => offset,
            base64::DecodeError::InvalidLength(_) | base64::DecodeError::InvalidPadding => {
                text.trim_end_matches('=').len()
            }
        };
        Base64Error { offset }
    })
}

/// Encodes bytes as padded standard base64.
pub fn encode(bytes: &[u8]) -> String {
    ENGINE.encode(bytes)
}

/// Whether the text is already padded canonical base64 (then re-encoding gives it back).
pub fn is_padded(text: &str) -> bool {
    text.len().is_multiple_of(4)
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
        assert!(decode("aGVsbG8=x").is_err());
        assert_eq!(decode("aGV sbG8=").unwrap_err().offset, 3);
        assert_eq!(decode("aGVsbG8").unwrap(), b"hello");
    }
}

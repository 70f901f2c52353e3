//! JSON numbers kept as their original lexeme, and the test of whether a native number keeps them.

/// A JSON number as its lexeme (always valid RFC 8259 number grammar).
///
/// Lexemes of up to 22 bytes (nearly all) are stored inline, without an allocation. Equality is
/// lexeme equality: `1.0` and `1` differ, as they do in Evidence.
#[derive(Clone)]
pub struct Number(Lexeme);

#[derive(Clone)]
enum Lexeme {
    Inline { length: u8, bytes: [u8; INLINE] },
    Heap(Box<str>),
}

const INLINE: usize = 22;

impl PartialEq for Number {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Number {}

impl std::hash::Hash for Number {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl std::fmt::Debug for Number {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Number").field(&self.as_str()).finish()
    }
}

impl Number {
    /// The number when `lexeme` is valid JSON number grammar.
    pub fn from_lexeme(lexeme: &str) -> Option<Number> {
        (scan_number(lexeme.as_bytes(), 0) == Some(lexeme.len()))
            .then(|| Number::from_validated(lexeme))
    }

    /// Wraps a lexeme the parser already validated.
    pub(crate) fn from_validated(lexeme: &str) -> Number {
        if lexeme.len() <= INLINE {
            let mut bytes = [0u8; INLINE];
            bytes[..lexeme.len()].copy_from_slice(lexeme.as_bytes());
            Number(Lexeme::Inline {
                length: lexeme.len() as u8,
                bytes,
            })
        } else {
            Number(Lexeme::Heap(lexeme.into()))
        }
    }

    /// A finite `f64` as its shortest round-trip spelling (`None` for NaN and infinities).
    pub fn from_f64(value: f64) -> Option<Number> {
        // `{:?}` is the shortest spelling that reads back to the same f64, and for finite values
        // it is valid JSON number grammar (`1.0`, `1e-7`, `1e300`, `-0.0`).
        value
            .is_finite()
            .then(|| Number::from_validated(&format!("{value:?}")))
    }

    /// The lexeme.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            // Inline lexemes are ASCII (digits, sign, dot, exponent).
            Lexeme::Inline { length, bytes } => {
                std::str::from_utf8(&bytes[..usize::from(*length)]).unwrap_or("0")
            }
            Lexeme::Heap(text) => text,
        }
    }

    /// Whether the lexeme is a plain integer (no fraction, no exponent).
    pub fn is_integer_lexeme(&self) -> bool {
        !self
            .as_str()
            .bytes()
            .any(|byte| matches!(byte, b'.' | b'e' | b'E'))
    }

    /// The value as `u64` when the lexeme is a plain integer in range.
    pub fn as_u64(&self) -> Option<u64> {
        if self.is_integer_lexeme() {
            self.as_str().parse().ok()
        } else {
            None
        }
    }

    /// The value as `i64` when the lexeme is a plain integer in range.
    pub fn as_i64(&self) -> Option<i64> {
        if self.is_integer_lexeme() {
            self.as_str().parse().ok()
        } else {
            None
        }
    }

    /// The nearest `f64` (may be infinite for huge exponents; see [`Number::lossless_f64`]).
    pub fn as_f64(&self) -> f64 {
        self.as_str().parse().unwrap_or(f64::NAN)
    }

    /// The `f64` when the lexeme is a shortest round-trip spelling of it, so writing the `f64`
    /// back (shortest round-trip, as JavaScript and Rust do) gives the same value: `0.1`, `1.50`
    /// and `14.666000031866133` are lossless; `0.10000000000000001` (reads back as `0.1`),
    /// `9007199254740993` (reads back as `…992`), `12345678901234567891` and `1e400` are not.
    /// When the `f64` lies exactly halfway between two shortest spellings, either is accepted
    /// (Python writes `2.4042129516601562`, Rust `2.4042129516601563`).
    pub fn lossless_f64(&self) -> Option<f64> {
        let value = self.as_f64();
        if !value.is_finite() {
            return None;
        }
        let own = Short::of(self.as_str())?;
        // Up to 15 significant digits always read back as themselves (an f64 carries 15.95 decimal
        // digits), unless the value is subnormal.
        if own.length == 0 || (own.length <= 15 && value.abs() >= f64::MIN_POSITIVE) {
            return Some(value);
        }
        let mut spelled = StackText::default();
        std::fmt::Write::write_fmt(&mut spelled, format_args!("{value:e}")).ok()?;
        let shortest_short = Short::of(spelled.as_str())?;
        if own == shortest_short {
            return Some(value);
        }
        if own.length > shortest_short.length {
            return None;
        }
        let own = Decimal::of(self.as_str())?;
        let shortest = Decimal::of(spelled.as_str())?;
        // `own` reads back as `value`, so it has at least as many digits as the shortest
        // spelling; with more it says more than the f64 keeps.
        if own.digits.len() != shortest.digits.len() || own.negative != shortest.negative {
            return None;
        }
        // The same length but other digits: only a tie, where the exact value has one digit
        // more, a final 5, and `own` is one of its two roundings.
        let exact = Decimal::of(&format!("{value:.800e}"))?;
        let length = own.digits.len();
        if exact.digits.len() != length + 1 || !exact.digits.ends_with('5') {
            return None;
        }
        let unit_exponent = exact.exponent + 1;
        let truncated: u128 = exact.digits[..length].parse().ok()?;
        let scale = u32::try_from(own.exponent - unit_exponent).ok()?;
        let own_scaled = own
            .digits
            .parse::<u128>()
            .ok()?
            .checked_mul(10u128.checked_pow(scale)?)?;
        (own_scaled == truncated || own_scaled == truncated + 1).then_some(value)
    }

    /// Whether a native number keeps this value: a plain integer that fits `i64` or `u64`, or a
    /// number whose `f64` is lossless ([`Number::lossless_f64`]).
    pub fn is_lossless(&self) -> bool {
        self.as_u64().is_some() || self.as_i64().is_some() || self.lossless_f64().is_some()
    }

    /// The value as a `serde_json::Number` when it is lossless.
    pub fn to_serde_number(&self) -> Option<serde_json::Number> {
        if let Some(value) = self.as_u64() {
            return Some(value.into());
        }
        if let Some(value) = self.as_i64() {
            return Some(value.into());
        }
        serde_json::Number::from_f64(self.lossless_f64()?)
    }
}

impl From<u64> for Number {
    fn from(value: u64) -> Self {
        Number::from_validated(&value.to_string())
    }
}

impl From<i64> for Number {
    fn from(value: i64) -> Self {
        Number::from_validated(&value.to_string())
    }
}

impl From<u32> for Number {
    fn from(value: u32) -> Self {
        Number::from_validated(&value.to_string())
    }
}

impl std::fmt::Display for Number {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Scans RFC 8259 number grammar at `start`; returns the end offset, or `None` when the bytes there
/// are not a number.
pub(crate) fn scan_number(bytes: &[u8], start: usize) -> Option<usize> {
    let mut at = start;
    if bytes.get(at) == Some(&b'-') {
        at += 1;
    }
    match bytes.get(at) {
        Some(b'0') => at += 1,
        Some(b'1'..=b'9') => {
            at += 1;
            while matches!(bytes.get(at), Some(b'0'..=b'9')) {
                at += 1;
            }
        }
        _ => return None,
    }
    if bytes.get(at) == Some(&b'.') {
        at += 1;
        if !matches!(bytes.get(at), Some(b'0'..=b'9')) {
            return None;
        }
        while matches!(bytes.get(at), Some(b'0'..=b'9')) {
            at += 1;
        }
    }
    if matches!(bytes.get(at), Some(b'e' | b'E')) {
        at += 1;
        if matches!(bytes.get(at), Some(b'+' | b'-')) {
            at += 1;
        }
        if !matches!(bytes.get(at), Some(b'0'..=b'9')) {
            return None;
        }
        while matches!(bytes.get(at), Some(b'0'..=b'9')) {
            at += 1;
        }
    }
    Some(at)
}

/// A decimal value with at most 24 significant digits, as `0.digits × 10^exponent` with no
/// leading or trailing zero digit (zero has no digits, whatever its sign); no allocation.
#[derive(Debug, PartialEq, Eq)]
struct Short {
    negative: bool,
    digits: [u8; 24],
    length: usize,
    exponent: i64,
}

impl Short {
    /// Reads number grammar (also Rust's `{:e}` output); `None` beyond 24 significant digits or
    /// for an absurd exponent (neither is ever lossless).
    fn of(text: &str) -> Option<Short> {
        let bytes = text.as_bytes();
        let negative = bytes.first() == Some(&b'-');
        let mantissa_end = bytes
            .iter()
            .position(|&byte| byte == b'e' || byte == b'E')
            .unwrap_or(bytes.len());
        let exponent: i64 = if mantissa_end < bytes.len() {
            let raw = &text[mantissa_end + 1..];
            raw.strip_prefix('+').unwrap_or(raw).parse().ok()?
        } else {
            0
        };
        let mut short = Short {
            negative,
            digits: [0; 24],
            length: 0,
            exponent: 0,
        };
        // Position of the decimal point relative to the first significant digit.
        let mut point = 0i64;
        let mut seen_point = false;
        let mut zeros_pending = 0usize;
        for &byte in &bytes[usize::from(negative)..mantissa_end] {
            match byte {
                b'.' => seen_point = true,
                b'0' if short.length == 0 => {
                    if seen_point {
                        point -= 1;
                    }
                }
                b'0'..=b'9' => {
                    if !seen_point {
                        point += 1;
                    }
                    if byte == b'0' {
                        zeros_pending += 1;
                        continue;
                    }
                    if short.length + zeros_pending + 1 > short.digits.len() {
                        return None;
                    }
                    for _ in 0..zeros_pending {
                        short.digits[short.length] = b'0';
                        short.length += 1;
                    }
                    zeros_pending = 0;
                    short.digits[short.length] = byte;
                    short.length += 1;
                }
                _ => return None,
            }
        }
        if short.length == 0 {
            short.negative = false;
            return Some(short);
        }
        short.exponent = point.checked_add(exponent)?;
        Some(short)
    }
}

/// A small stack buffer for formatting one number.
#[derive(Default)]
struct StackText {
    bytes: [u8; 32],
    length: usize,
}

impl StackText {
    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..self.length]).unwrap_or("")
    }
}

impl std::fmt::Write for StackText {
    fn write_str(&mut self, text: &str) -> std::fmt::Result {
        let end = self.length + text.len();
        let slot = self
            .bytes
            .get_mut(self.length..end)
            .ok_or(std::fmt::Error)?;
        slot.copy_from_slice(text.as_bytes());
        self.length = end;
        Ok(())
    }
}

/// A decimal value as `digits × 10^exponent` with no leading or trailing zero digits (zero is
/// the empty digit string, whatever its sign).
#[derive(Debug, PartialEq, Eq)]
struct Decimal {
    negative: bool,
    digits: String,
    exponent: i128,
}

impl Decimal {
    /// Reads number grammar (also Rust's `{:e}` output, which is a subset of it).
    fn of(text: &str) -> Option<Decimal> {
        let (negative, body) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (mantissa, exponent) = match body.find(['e', 'E']) {
            Some(at) => {
                let raw = &body[at + 1..];
                let raw = raw.strip_prefix('+').unwrap_or(raw);
                // Saturate absurd exponents; any non-zero value there is not lossless anyway.
                let exponent = raw.parse::<i128>().unwrap_or(if raw.starts_with('-') {
                    i128::from(i64::MIN)
                } else {
                    i128::from(i64::MAX)
                });
                (&body[..at], exponent)
            }
            None => (body, 0),
        };
        let (integer, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let mut digits: String = integer.chars().chain(fraction.chars()).collect();
        if !digits.bytes().all(|byte| byte.is_ascii_digit()) {
            return None;
        }
        let mut exponent = exponent - fraction.len() as i128;
        let trailing = digits.len() - digits.trim_end_matches('0').len();
        digits.truncate(digits.len() - trailing);
        exponent += trailing as i128;
        let digits = digits.trim_start_matches('0').to_owned();
        if digits.is_empty() {
            return Some(Decimal {
                negative: false,
                digits,
                exponent: 0,
            });
        }
        Some(Decimal {
            negative,
            digits,
            exponent,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexemes_are_checked() {
        for good in [
            "0",
            "-0",
            "1",
            "-1.5",
            "1e5",
            "1E+5",
            "1.25e-3",
            "123456789012345678901234",
        ] {
            assert!(Number::from_lexeme(good).is_some(), "{good}");
        }
        for bad in [
            "", "-", "01", "1.", ".5", "+1", "1e", "1e+", "0x1", "1 ", "NaN", "Infinity",
        ] {
            assert!(Number::from_lexeme(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn lossless_numbers_keep_their_value() {
        for lossless in [
            "0",
            "-0",
            "0.1",
            "14.666000031866133",
            "1.5e3",
            "9007199254740993",
            "1e300",
        ] {
            let number = Number::from_lexeme(lossless).unwrap();
            assert!(number.is_lossless(), "{lossless}");
        }
        // A tie between two 17-digit shortest spellings: Python writes ...62, Rust ...63.
        for tie in ["2.4042129516601562", "2.4042129516601563"] {
            assert!(
                Number::from_lexeme(tie).unwrap().lossless_f64().is_some(),
                "{tie}"
            );
        }
        for lossy in [
            "0.10000000000000000001",
            "0.10000000000000001",
            "123456789012345678901",
            "1e400",
            "-1e400",
            "4.9e-325",
        ] {
            let number = Number::from_lexeme(lossy).unwrap();
            assert!(!number.is_lossless(), "{lossy}");
        }
        // An integer beyond 2^53 is kept exactly as u64 but not as f64.
        let big = Number::from_lexeme("9007199254740993").unwrap();
        assert_eq!(big.as_u64(), Some(9_007_199_254_740_993));
        assert_eq!(big.lossless_f64(), None);
        assert_eq!(
            Number::from_lexeme("2.50").unwrap().lossless_f64(),
            Some(2.5)
        );
    }

    #[test]
    fn short_decimals_normalize() {
        let short = |text: &str| {
            let value = Short::of(text).unwrap();
            (
                value.negative,
                String::from_utf8(value.digits[..value.length].to_vec()).unwrap(),
                value.exponent,
            )
        };
        assert_eq!(short("0.0012300"), (false, "123".to_owned(), -2));
        assert_eq!(short("-120.5e2"), (true, "1205".to_owned(), 5));
        assert_eq!(short("1000"), (false, "1".to_owned(), 4));
        assert_eq!(short("1.2e0"), short("12e-1"));
        assert_eq!(short("-0.0e5"), (false, String::new(), 0));
        assert_eq!(short("105"), (false, "105".to_owned(), 3));
        assert!(Short::of("1234567890123456789012345").is_none());
    }

    #[test]
    fn f64_spelling_is_json() {
        for value in [0.0, -0.0, 1.0, 0.1, 1e-7, 1e300, 123.456] {
            let number = Number::from_f64(value).unwrap();
            assert!(Number::from_lexeme(number.as_str()).is_some(), "{number}");
            assert_eq!(number.lossless_f64(), Some(value));
        }
        assert!(Number::from_f64(f64::NAN).is_none());
    }
}

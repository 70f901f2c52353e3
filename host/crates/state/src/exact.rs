//! Exact numbers: the numbers a state may hold.
//!
//! A state is loaded and reported as JSON that JavaScript clients read too, so a number is held
//! only when an IEEE-754 double keeps it exactly **and** its serialized spelling reads back as
//! exact: the lexeme must be a shortest round-trip spelling of its double
//! ([`Number::lossless_f64`]: `0.1`, `1.50` and `1e300` are exact, `0.10000000000000001`,
//! `9007199254740993` and `1e400` are not), and an integer from 2^53 up to (not including) 1e21
//! is refused in any spelling (`1e20`, `100000000000000000000`): JavaScript writes such integers
//! out in full, where they are no longer safe integers. A number that is refused is never
//! altered into a nearby one.

use rea_plugin_api::json::{Json, Number};

/// 2^53: the first integer a double cannot tell from its neighbour.
const SAFE_LIMIT: f64 = 9_007_199_254_740_992.0;

/// Where JavaScript starts writing integers with an exponent.
const EXPONENT_LIMIT: f64 = 1e21;

/// Whether a number is exact (see the module docs).
pub fn is_exact(number: &Number) -> bool {
    let Some(value) = number.lossless_f64() else {
        return false;
    };
    let magnitude = value.abs();
    !(value.fract() == 0.0 && (SAFE_LIMIT..EXPONENT_LIMIT).contains(&magnitude))
}

/// The JSON pointer of the first number (in document order) that is not exact.
pub fn first_inexact_number(value: &Json) -> Option<String> {
    value.first_number_where(|number| !is_exact(number))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn number(lexeme: &str) -> Number {
        Number::from_lexeme(lexeme).unwrap()
    }

    #[test]
    fn exact_numbers_are_those_a_double_keeps_and_spells_back() {
        // contract: DATA-066, DATA-067
        for exact in [
            "0",
            "-0",
            "1",
            "1.50",
            "0.1",
            "1e300",
            "9007199254740991",
            "-9007199254740991",
            "1e21",
            "12.5e-3",
        ] {
            assert!(is_exact(&number(exact)), "{exact}");
        }
        for inexact in [
            "9007199254740992",
            "9007199254740993",
            "1e20",
            "100000000000000000000",
            "-1e20",
            "1.5e16",
            "0.10000000000000001",
            "1e400",
            "123456789012345678901234",
        ] {
            assert!(!is_exact(&number(inexact)), "{inexact}");
        }
    }

    #[test]
    fn the_first_inexact_number_is_found_by_pointer() {
        let value =
            rea_plugin_api::json::parse(br#"{"a": [1, 2.5], "b/c": {"d": 1e20}, "e": 1e400}"#)
                .unwrap();
        assert_eq!(first_inexact_number(&value).as_deref(), Some("/b~1c/d"));
        let fine = rea_plugin_api::json::parse(br#"{"a": [1, 2.5]}"#).unwrap();
        assert_eq!(first_inexact_number(&fine), None);
    }
}

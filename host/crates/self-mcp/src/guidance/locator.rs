//! Guidance locators: `rg1-<bundle>-<section>`, two fixed-size hashes (128 bits each, lowercase
//! hex). The first binds the locator to the installed bundle, the second to the complete section
//! (its file, position and text), so a locator's length never depends on a heading's length.

use rea_evidence::Refusal;
use serde_json::json;

const PREFIX: &str = "rg1-";
const HASH_HEX: usize = 32;

/// A parsed guidance locator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GuidanceLocator {
    /// The bundle hash it was issued for.
    pub bundle: [u8; 16],
    /// The section hash.
    pub section: [u8; 16],
}

impl GuidanceLocator {
    /// The locator text.
    pub fn render(&self) -> String {
        format!(
            "{PREFIX}{}-{}",
            hex::encode(self.bundle),
            hex::encode(self.section)
        )
    }

    /// Parses a locator; anything else is `invalid_request` at `pointer`.
    pub fn parse(text: &str, pointer: &str) -> Result<Self, Refusal> {
        let malformed = || {
            Refusal::invalid_request(
                "the locator is not a guidance locator (`rg1-` and two 32-digit hashes); pass a locator search_guidance returned",
            )
            .at(pointer)
            .with_data(json!({"reason": "malformed_locator"}))
        };
        let rest = text.strip_prefix(PREFIX).ok_or_else(malformed)?;
        let (bundle, section) = rest.split_once('-').ok_or_else(malformed)?;
        Ok(Self {
            bundle: parse_hash(bundle).ok_or_else(malformed)?,
            section: parse_hash(section).ok_or_else(malformed)?,
        })
    }
}

fn parse_hash(text: &str) -> Option<[u8; 16]> {
    if text.len() != HASH_HEX
        || !text
            .bytes()
            .all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte))
    {
        return None;
    }
    let mut out = [0u8; 16];
    for (index, slot) in out.iter_mut().enumerate() {
        *slot = u8::from_str_radix(&text[index * 2..index * 2 + 2], 16).ok()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_locator_round_trips_and_has_a_fixed_length() {
        let locator = GuidanceLocator {
            bundle: [0xab; 16],
            section: [0x01; 16],
        };
        let text = locator.render();
        assert_eq!(text.len(), 4 + 32 + 1 + 32);
        assert_eq!(
            GuidanceLocator::parse(&text, "/locator").expect("parses"),
            locator
        );
    }

    #[test]
    fn malformed_locators_are_refused_at_the_pointer() {
        for text in [
            "",
            "rg1-",
            "rg2-aa-bb",
            &format!("rg1-{}-{}", "A".repeat(32), "0".repeat(32)),
        ] {
            let refusal = GuidanceLocator::parse(text, "/locator").expect_err("refused");
            assert_eq!(refusal.code, "invalid_request");
            assert_eq!(refusal.pointer.as_deref(), Some("/locator"));
        }
    }
}

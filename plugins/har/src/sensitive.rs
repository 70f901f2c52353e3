//! Values the caller declared sensitive: finding them, excluding the fields that hold them, and
//! scrubbing them from refusals.
//!
//! A field "holds" a declared value when its text contains it (for a URL also after
//! percent-decoding, for a base64 body also in the decoded bytes). The field is then reported as
//! `null` with a [`Redaction`] naming its pointer; the value itself is never copied anywhere.

use rea_plugin_api::contracts::capture::Redaction;
use rea_plugin_api::json::{Json, escape_pointer_segment};

use crate::refusal::{HarRefusal, SENSITIVE_MARKER};

/// The reason of a sensitive-value redaction.
pub(crate) const SENSITIVE_REASON: &str = "sensitive-value";

/// The declared sensitive values.
#[derive(Debug, Default)]
pub(crate) struct Sensitive {
    values: Vec<String>,
}

impl Sensitive {
    /// Checks the declarations: an empty value would match every field and is refused.
    pub(crate) fn new(values: &[String]) -> Result<Self, HarRefusal> {
        if values.iter().any(String::is_empty) {
            return Err(HarRefusal::input(
                "a --sensitive-value must not be empty",
                None,
            ));
        }
        Ok(Self {
            values: values.to_vec(),
        })
    }

    pub(crate) fn empty() -> Self {
        Self::default()
    }

    pub(crate) fn is_active(&self) -> bool {
        !self.values.is_empty()
    }

    /// Whether the text contains a declared value.
    pub(crate) fn hit(&self, text: &str) -> bool {
        self.values
            .iter()
            .any(|value| text.contains(value.as_str()))
    }

    /// Whether the bytes contain a declared value.
    pub(crate) fn hit_bytes(&self, bytes: &[u8]) -> bool {
        self.values
            .iter()
            .any(|value| contains_bytes(bytes, value.as_bytes()))
    }

    /// The text with every occurrence of every declared value replaced by the marker.
    pub(crate) fn scrub(&self, text: &str) -> String {
        if !self.is_active() {
            return text.to_owned();
        }
        let mut covered = vec![false; text.len()];
        for value in &self.values {
            for (start, _) in text.match_indices(value.as_str()) {
                covered[start..start + value.len()].fill(true);
            }
        }
        let mut out = String::with_capacity(text.len());
        let mut in_marker = false;
        for (index, character) in text.char_indices() {
            if covered[index] {
                if !in_marker {
                    out.push_str(SENSITIVE_MARKER);
                    in_marker = true;
                }
            } else {
                out.push(character);
                in_marker = false;
            }
        }
        out
    }

    /// Replaces every string or number of the container that holds a declared value by `null`,
    /// and removes members whose key holds one (the redaction then names the parent object).
    pub(crate) fn scrub_container(&self, container: &mut Json, redactions: &mut Vec<Redaction>) {
        if self.is_active() {
            let mut pointer = String::new();
            self.scrub_value(container, &mut pointer, redactions);
        }
    }

    fn scrub_value(&self, value: &mut Json, pointer: &mut String, redactions: &mut Vec<Redaction>) {
        let hit = match value {
            Json::String(text) => self.hit(text),
            Json::Number(number) => self.hit(number.as_str()),
            Json::Array(items) => {
                for (index, item) in items.iter_mut().enumerate() {
                    let length = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&index.to_string());
                    self.scrub_value(item, pointer, redactions);
                    pointer.truncate(length);
                }
                false
            }
            Json::Object(object) => {
                let doomed: Vec<String> = object
                    .keys()
                    .filter(|key| self.hit(key))
                    .map(str::to_owned)
                    .collect();
                if !doomed.is_empty() {
                    for key in &doomed {
                        object.remove(key);
                    }
                    redactions.push(redaction(pointer.clone(), None));
                }
                for (key, item) in object.iter_mut() {
                    let length = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&escape_pointer_segment(key));
                    self.scrub_value(item, pointer, redactions);
                    pointer.truncate(length);
                }
                false
            }
            Json::Null | Json::Bool(_) => false,
        };
        if hit {
            *value = Json::Null;
            redactions.push(redaction(pointer.clone(), None));
        }
    }
}

/// A sensitive-value redaction at `pointer`.
pub(crate) fn redaction(pointer: String, record_ordinal: Option<u64>) -> Redaction {
    Redaction {
        pointer,
        reason: SENSITIVE_REASON.to_owned(),
        record_ordinal,
    }
}

/// Whether `needle` occurs in `haystack` (first-byte filter, then compare).
fn contains_bytes(haystack: &[u8], needle: &[u8]) -> bool {
    let Some((&first, rest)) = needle.split_first() else {
        return true;
    };
    if haystack.len() < needle.len() {
        return false;
    }
    haystack[..=haystack.len() - needle.len()]
        .iter()
        .enumerate()
        .any(|(index, &byte)| byte == first && haystack[index + 1..].starts_with(rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scrub_replaces_overlapping_values_once() {
        let sensitive = Sensitive::new(&["abc".to_owned(), "bcd".to_owned()]).unwrap();
        assert_eq!(
            sensitive.scrub("xabcdy abc"),
            "x<sensitive-value>y <sensitive-value>"
        );
        assert!(sensitive.hit_bytes(b"\x00\xffbcd"));
        assert!(!sensitive.hit_bytes(b"ab"));
        assert!(Sensitive::new(&[String::new()]).is_err());
    }
}

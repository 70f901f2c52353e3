//! Caveats about what a capture cannot show, gathered by an extractor while it reads records.
//!
//! Each limitation has a stable code and one fixed sentence (never a recorded value, so never a
//! sensitive one) and lists the ordinals of the records it is about; the list is sorted by code.

use std::collections::BTreeMap;

use super::Limitation;

/// Limitations by code, each with the ordinals of its records.
#[derive(Debug, Default)]
pub struct Limitations {
    by_code: BTreeMap<&'static str, (&'static str, Vec<u64>)>,
}

impl Limitations {
    /// A limitation about the whole capture.
    pub fn whole(&mut self, code: &'static str, message: &'static str) {
        self.by_code.entry(code).or_insert((message, Vec::new()));
    }

    /// A limitation about one record (records arrive in ordinal order).
    pub fn record(&mut self, code: &'static str, message: &'static str, ordinal: u64) {
        let (_, ordinals) = self.by_code.entry(code).or_insert((message, Vec::new()));
        if ordinals.last() != Some(&ordinal) {
            ordinals.push(ordinal);
        }
    }

    /// The limitations, sorted by code.
    pub fn into_list(self) -> Vec<Limitation> {
        self.by_code
            .into_iter()
            .map(|(code, (message, record_ordinals))| Limitation {
                code: code.to_owned(),
                message: message.to_owned(),
                record_ordinals,
            })
            .collect()
    }
}

//! The allocation budgets of a recording: what a body and a content event are charged, and what
//! is kept within `max_network_body_bytes`, `max_network_body_allocation_bytes`,
//! `max_event_allocation_bytes` and `max_total_event_allocation_bytes`.
//!
//! A body is charged for the bytes the browser hands over: [`TEXT_CHARGE`] per byte for text,
//! [`BASE64_CHARGE`] per byte for bytes the browser sends as base64, plus
//! [`REDACTION_CHARGE`]` / length` per byte for each declared secret (redaction scans and
//! rewrites the text, costing more the shorter the secret: 35 bytes per body byte for a
//! 12-character secret). A body charged more than `max_network_body_allocation_bytes` is kept as
//! `unavailable`; a kept body longer than `max_network_body_bytes` keeps its beginning only
//! (`truncated`). A content event (a request or response with its headers and body) is charged its
//! body's charge plus [`TEXT_CHARGE`] per byte of its URL and headers; one over
//! `max_event_allocation_bytes`, or one that would take the total over
//! `max_total_event_allocation_bytes`, is left out whole and listed among the omissions.

use rea_plugin_api::contracts::capture::base64;
use rea_plugin_api::contracts::session::{Content, SessionLimits};

use crate::redact::Redactor;

/// Charged per byte of a text body, URL or header.
pub const TEXT_CHARGE: u64 = 3;
/// Charged per byte of a body the browser sends as base64.
pub const BASE64_CHARGE: u64 = 11;
/// Divided by a secret's length: charged per body byte for redacting it.
pub const REDACTION_CHARGE: u64 = 420;

/// The reason of a body over its allocation limit.
pub const BODY_ALLOCATION_REASON: &str = "max_network_body_allocation_bytes";
/// The reason of a content event over its allocation limit.
pub const EVENT_ALLOCATION_REASON: &str = "max_event_allocation_bytes";
/// The reason of a content event over the total allocation limit.
pub const TOTAL_ALLOCATION_REASON: &str = "max_total_event_allocation_bytes";

/// A body as the browser handed it over.
#[derive(Debug, Clone)]
pub enum RawBody {
    /// No body.
    Absent,
    /// Text.
    Text(String),
    /// Bytes (the browser sent them as base64).
    Bytes(Vec<u8>),
}

/// The budgets of one recording.
#[derive(Debug, Clone)]
pub struct Budget {
    limits: SessionLimits,
    secret_lengths: Vec<usize>,
    charged: u64,
}

impl Budget {
    /// Budgets under these limits, charging redaction for these secrets.
    pub fn new(limits: SessionLimits, redactor: &Redactor) -> Self {
        Self {
            limits,
            secret_lengths: redactor.lengths(),
            charged: 0,
        }
    }

    /// What a body of `bytes` bytes is charged.
    pub fn body_charge(&self, bytes: u64, base64: bool) -> u64 {
        let base = if base64 { BASE64_CHARGE } else { TEXT_CHARGE };
        let redaction: u64 = self
            .secret_lengths
            .iter()
            .map(|&length| bytes.saturating_mul(REDACTION_CHARGE) / length.max(1) as u64)
            .sum();
        bytes.saturating_mul(base).saturating_add(redaction)
    }

    /// The body kept, redacted, and what it is charged.
    pub fn body(&self, raw: RawBody, redactor: &Redactor) -> (Content, u64) {
        let (length, base64) = match &raw {
            RawBody::Absent => return (Content::Absent, 0),
            RawBody::Text(text) => (text.len() as u64, false),
            RawBody::Bytes(bytes) => (bytes.len() as u64, true),
        };
        let charge = self.body_charge(length, base64);
        if charge > self.limits.max_network_body_allocation_bytes {
            let reason = BODY_ALLOCATION_REASON.to_owned();
            return (Content::Unavailable { reason }, 0);
        }
        let content = if length > self.limits.max_network_body_bytes {
            let keep = self.limits.max_network_body_bytes as usize;
            let prefix = match &raw {
                RawBody::Text(text) => {
                    let mut end = keep.min(text.len());
                    while !text.is_char_boundary(end) {
                        end -= 1;
                    }
                    Some(redactor.text(&text[..end]))
                }
                _ => None,
            };
            Content::Truncated {
                bytes: length,
                prefix,
            }
        } else {
            match raw {
                RawBody::Absent => Content::Absent,
                RawBody::Text(text) => Content::Text {
                    text: redactor.text(&text),
                },
                RawBody::Bytes(bytes) => match String::from_utf8(bytes) {
                    Ok(text) => Content::Text {
                        text: redactor.text(&text),
                    },
                    Err(error) => {
                        let bytes = error.into_bytes();
                        if redactor.holds_secret(&bytes) {
                            Content::Redacted
                        } else {
                            Content::Base64 {
                                base64: base64::encode(&bytes),
                                bytes: bytes.len() as u64,
                            }
                        }
                    }
                },
            }
        };
        (content, charge)
    }

    /// Admits a content event charged its body's charge plus its URL and headers, or says which
    /// limit leaves it out.
    pub fn admit_event(&mut self, body_charge: u64, head_bytes: u64) -> Result<u64, &'static str> {
        let charge = body_charge.saturating_add(head_bytes.saturating_mul(TEXT_CHARGE));
        if charge > self.limits.max_event_allocation_bytes {
            return Err(EVENT_ALLOCATION_REASON);
        }
        if self.charged.saturating_add(charge) > self.limits.max_total_event_allocation_bytes {
            return Err(TOTAL_ALLOCATION_REASON);
        }
        self.charged += charge;
        Ok(charge)
    }

    /// What the admitted content events were charged in all.
    pub fn charged(&self) -> u64 {
        self.charged
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(body: u64, body_allocation: u64, event: u64, total: u64) -> SessionLimits {
        SessionLimits {
            max_event_allocation_bytes: event,
            max_network_body_allocation_bytes: body_allocation,
            max_network_body_bytes: body,
            max_total_event_allocation_bytes: total,
        }
    }

    #[test]
    fn charges_follow_the_spec_figures() {
        let redactor = Redactor::new(&[("admin_password".to_owned(), "x".repeat(12))]);
        let budget = Budget::new(limits(1, 1, 1, 1), &Redactor::default());
        // contract: SCENARIO-004
        assert_eq!(budget.body_charge(1000, true), 11_000);
        let budget = Budget::new(limits(1, 1, 1, 1), &redactor);
        // contract: SCENARIO-005
        assert_eq!(budget.body_charge(1000, false) - 1000 * TEXT_CHARGE, 35_000);
        let shorter = Redactor::new(&[("s".to_owned(), "x".repeat(6))]);
        assert!(
            Budget::new(limits(1, 1, 1, 1), &shorter).body_charge(1000, false)
                > budget.body_charge(1000, false)
        );
    }

    #[test]
    fn raised_limits_keep_256_kib_bodies_with_a_12_character_secret() {
        let raised = limits(262_144, 12_582_912, 12_582_912, 67_108_864);
        let twelve = Redactor::new(&[("admin_password".to_owned(), "p".repeat(12))]);
        let mut budget = Budget::new(raised, &twelve);
        let binary: Vec<u8> = (0..262_144u32).map(|i| (i % 251) as u8 | 0x80).collect();
        let (content, charge) = budget.body(RawBody::Bytes(binary), &twelve);
        // contract: SCENARIO-010
        assert!(matches!(content, Content::Base64 { bytes: 262_144, .. }));
        assert!(budget.admit_event(charge, 200).is_ok());
        let eleven = Redactor::new(&[("admin_password".to_owned(), "p".repeat(11))]);
        let budget = Budget::new(raised, &eleven);
        let binary: Vec<u8> = (0..262_144u32).map(|i| (i % 251) as u8 | 0x80).collect();
        let (content, _) = budget.body(RawBody::Bytes(binary), &eleven);
        assert!(matches!(content, Content::Unavailable { .. }));
    }

    #[test]
    fn bodies_and_events_over_their_limits() {
        let defaults = limits(65_536, 1_048_576, 4_194_304, 16_777_216);
        let none = Redactor::default();
        let mut budget = Budget::new(defaults, &none);
        let (content, _) = budget.body(RawBody::Text("a".repeat(70_000)), &none);
        // contract: SCENARIO-003
        assert!(
            matches!(content, Content::Truncated { bytes: 70_000, prefix: Some(ref p) } if p.len() == 65_536)
        );
        let (content, charge) = budget.body(RawBody::Text("a".repeat(65_536)), &none);
        assert!(matches!(content, Content::Text { .. }));
        assert!(budget.admit_event(charge, 100).is_ok());
        let (content, _) = budget.body(RawBody::Text("a".repeat(400_000)), &none);
        // contract: SCENARIO-006
        assert_eq!(
            content,
            Content::Unavailable {
                reason: "max_network_body_allocation_bytes".to_owned()
            }
        );
        let mut small = Budget::new(limits(65_536, 4_194_304, 1_048_576, 16_777_216), &none);
        let (_, charge) = small.body(RawBody::Text("a".repeat(60_000)), &none);
        assert!(small.admit_event(charge, 10).is_ok());
        let (_, charge) = small.body(RawBody::Text("a".repeat(500_000)), &none);
        // contract: SCENARIO-007
        assert_eq!(
            small.admit_event(charge, 10),
            Err("max_event_allocation_bytes")
        );
        let mut total = Budget::new(limits(65_536, 1_048_576, 4_194_304, 500_000), &none);
        let (_, charge) = total.body(RawBody::Text("a".repeat(60_000)), &none);
        assert!(total.admit_event(charge, 10).is_ok());
        assert!(total.admit_event(charge, 10).is_ok());
        // contract: SCENARIO-008
        assert_eq!(
            total.admit_event(charge, 10),
            Err("max_total_event_allocation_bytes")
        );
        assert_eq!(total.charged(), 2 * (charge + 30));
    }
}

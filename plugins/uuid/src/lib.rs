//! The `uuid` and `token` rules: fresh identifiers a write generates.
//!
//! **uuid.** Learned for a member the host could not explain whose value is, in every recorded
//! call that changed it, a UUID (`8-4-4-4-12` hexadecimal digits) in one letter case, different
//! from the value the entity held before. Applied, it derives a version-4 UUID from the state
//! Evidence id, the tool, the member and the write count (SHA-256), in that case, skipping
//! values the collection holds (ASCII case ignored, asked of the host's index:
//! `ServedCall::holds_folded_text`).
//!
//! **token.** Learned for a member whose value is, in every such call, an opaque string of one
//! length (at least eight characters) from one alphabet (lower-case hex, upper-case hex,
//! alphanumeric or base64url) holding a digit, different in every call and from the value held
//! before (not a UUID: the `uuid` rule takes those). Four to seven characters are a token only
//! in hex mixing digits with letters (`728c`, `f304`: short generated ids), since fewer digits
//! alone are a number and fewer characters of a wider alphabet a word or code. Applied, it
//! derives a string of that length from that alphabet in the same way. Calls whose tokens fall
//! in nested alphabets agree on the widest (a random base64url id holds no `-` or `_` in about
//! two draws of three and reads as alphanumeric there: Fortune.js's memory adapter). A token spelled as an
//! HTTP entity tag, between double quotes (an `@etag` member repeating the `ETag` header, one
//! app: Roundup), is learned by what the quotes hold and served quoted.
//!
//! Deterministic: the same state, tool and write count always give the same value, so the same
//! calls after a reset give the same state.

use std::collections::{BTreeMap, BTreeSet};

use rea_plugin_api::contracts::rule::{
    ApplyOutcome, ApplyRequest, HeldIndexKind, LearnOutcome, LearnRequest, NoOptions,
};
use rea_plugin_api::rule_fields::{self, FieldRules};
use rea_plugin_api::{Plugin, PluginError, StageInfo, StateRule};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The uuid stage.
pub const UUID_STAGE: &str = "uuid";
/// The token stage.
pub const TOKEN_STAGE: &str = "token";

/// Whether a text is a UUID; `Some(true)` when its letters are upper case.
pub fn uuid_case(text: &str) -> Option<bool> {
    let bytes = text.as_bytes();
    if bytes.len() != 36 {
        return None;
    }
    for (index, byte) in bytes.iter().enumerate() {
        let dash = matches!(index, 8 | 13 | 18 | 23);
        if dash != (*byte == b'-') || (!dash && !byte.is_ascii_hexdigit()) {
            return None;
        }
    }
    let upper = bytes.iter().any(u8::is_ascii_uppercase);
    let lower = bytes.iter().any(u8::is_ascii_lowercase);
    match (upper, lower) {
        (true, true) => None,
        (upper, _) => Some(upper),
    }
}

/// The bytes a generated value derives from: SHA-256 of the state Evidence id, the tool, the
/// member, the write count and an attempt number.
pub fn derive(state: &str, tool: &str, pointer: &str, writes: u64, attempt: u64) -> [u8; 32] {
    let mut hasher = Sha256::new();
    for part in [state, tool, pointer] {
        hasher.update(part.as_bytes());
        hasher.update([0]);
    }
    hasher.update(writes.to_be_bytes());
    hasher.update(attempt.to_be_bytes());
    hasher.finalize().into()
}

fn uuid_from(bytes: &[u8; 32], upper: bool) -> String {
    let mut raw = [0u8; 16];
    raw.copy_from_slice(&bytes[..16]);
    raw[6] = (raw[6] & 0x0f) | 0x40;
    raw[8] = (raw[8] & 0x3f) | 0x80;
    let hex = hex::encode(raw);
    let text = format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    );
    if upper {
        text.to_ascii_uppercase()
    } else {
        text
    }
}

const HEX: &[u8] = b"0123456789abcdef";
const HEX_UPPER: &[u8] = b"0123456789ABCDEF";
const ALNUM: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const BASE64URL: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_";

/// The smallest alphabet a token's characters come from.
fn alphabet(text: &str) -> Option<&'static str> {
    let bytes = text.as_bytes();
    if bytes.iter().all(|byte| HEX.contains(byte)) {
        Some("hex")
    } else if bytes.iter().all(|byte| HEX_UPPER.contains(byte)) {
        Some("HEX")
    } else if bytes.iter().all(|byte| ALNUM.contains(byte)) {
        Some("alnum")
    } else if bytes.iter().all(|byte| BASE64URL.contains(byte)) {
        Some("base64url")
    } else {
        None
    }
}

fn alphabet_bytes(name: &str) -> Option<&'static [u8]> {
    match name {
        "hex" => Some(HEX),
        "HEX" => Some(HEX_UPPER),
        "alnum" => Some(ALNUM),
        "base64url" => Some(BASE64URL),
        _ => None,
    }
}

fn token_from(
    state: &str,
    tool: &str,
    pointer: &str,
    writes: u64,
    attempt: u64,
    length: usize,
    letters: &[u8],
) -> String {
    let mut out = String::with_capacity(length);
    let mut block = 0u64;
    while out.len() < length {
        let bytes = derive(
            state,
            tool,
            pointer,
            writes,
            attempt.wrapping_mul(1 << 20) + block,
        );
        for byte in bytes {
            if out.len() == length {
                break;
            }
            out.push(letters[usize::from(byte) % letters.len()] as char);
        }
        block += 1;
    }
    out
}

/// The fewest characters a token holds.
const SHORT_TOKEN: usize = 4;
/// The fewest characters a token of any alphabet holds (shorter ones are hex mixing digits and
/// letters).
const LONG_TOKEN: usize = 8;

/// Which stage: a UUID or a token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// UUIDs.
    Uuid,
    /// Opaque tokens.
    Token,
}

/// The uuid or token rule.
#[derive(Debug, Clone, Copy)]
pub struct GeneratedRule(pub Kind);

/// The shape of a generated value: a UUID's case, or a token's alphabet and length.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum GeneratedShape {
    /// A UUID.
    Uuid {
        /// Upper-case hex digits.
        upper: bool,
    },
    /// An opaque token.
    Token {
        /// `hex`, `HEX`, `alnum` or `base64url`.
        alphabet: String,
        /// Characters.
        length: usize,
        /// Spelled as an HTTP entity tag: the token between double quotes (`"4635…"`, an
        /// `@etag` a body repeats from the `ETag` header).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        quoted: bool,
    },
}

/// Whether every character of alphabet `narrow` is one of alphabet `wide`.
fn alphabet_within(narrow: &str, wide: &str) -> bool {
    match (alphabet_bytes(narrow), alphabet_bytes(wide)) {
        (Some(narrow), Some(wide)) => narrow.iter().all(|byte| wide.contains(byte)),
        _ => false,
    }
}

/// The shape two calls' values agree on: the same shape, or tokens of one length and quoting
/// whose alphabets nest (the wider); `None` when they disagree.
fn widened(first: &GeneratedShape, second: &GeneratedShape) -> Option<GeneratedShape> {
    if first == second {
        return Some(first.clone());
    }
    let (
        GeneratedShape::Token {
            alphabet: a,
            length: la,
            quoted: qa,
        },
        GeneratedShape::Token {
            alphabet: b,
            length: lb,
            quoted: qb,
        },
    ) = (first, second)
    else {
        return None;
    };
    if la != lb || qa != qb {
        return None;
    }
    if alphabet_within(a, b) {
        Some(second.clone())
    } else if alphabet_within(b, a) {
        Some(first.clone())
    } else {
        None
    }
}

/// Per member, the shape every recorded call agreed on so far (`widened`), `None` once one call
/// disagreed or held no generated value.
#[derive(Default)]
struct Widening {
    findings: BTreeMap<String, Option<GeneratedShape>>,
}

impl Widening {
    fn record(&mut self, pointer: &str, found: Option<GeneratedShape>) {
        let merged = match self.findings.get(pointer) {
            None => found,
            Some(agreed) => match (agreed, &found) {
                (Some(agreed), Some(found)) => widened(agreed, found),
                _ => None,
            },
        };
        self.findings.insert(pointer.to_owned(), merged);
    }

    fn agreed(self) -> impl Iterator<Item = (String, GeneratedShape)> {
        self.findings
            .into_iter()
            .filter_map(|(pointer, found)| Some((pointer, found?)))
    }
}

/// The token inside an entity tag's double quotes, and whether it was quoted.
fn unquoted(text: &str) -> (&str, bool) {
    match text
        .strip_prefix('"')
        .and_then(|inner| inner.strip_suffix('"'))
    {
        Some(inner) if !inner.contains('"') => (inner, true),
        _ => (text, false),
    }
}

fn shape(kind: Kind, value: &Value) -> Option<GeneratedShape> {
    let text = value.as_str()?;
    match kind {
        Kind::Uuid => uuid_case(text).map(|upper| GeneratedShape::Uuid { upper }),
        Kind::Token => {
            let (text, quoted) = unquoted(text);
            if text.len() < SHORT_TOKEN
                || uuid_case(text).is_some()
                || !text.bytes().any(|b| b.is_ascii_digit())
            {
                return None;
            }
            // A token is no word: it must mix digits with letters, or be all digits in hex.
            let name = alphabet(text)?;
            // A short one is hex mixing digits with letters: short digits alone are a number,
            // short letters of a wider alphabet a word or code.
            if text.len() < LONG_TOKEN
                && (!matches!(name, "hex" | "HEX") || text.bytes().all(|b| b.is_ascii_digit()))
            {
                return None;
            }
            Some(GeneratedShape::Token {
                alphabet: name.to_owned(),
                length: text.len(),
                quoted,
            })
        }
    }
}

impl StateRule for GeneratedRule {
    type Options = NoOptions;
    type Rule = FieldRules<GeneratedShape>;

    /// Its rule joins a plan only by explaining (asked while something is unexplained).
    fn learn_scope(&self) -> rea_plugin_api::contracts::rule::LearnScope {
        rea_plugin_api::contracts::rule::LearnScope::default().explaining()
    }

    fn learn(
        &self,
        request: &LearnRequest<NoOptions>,
    ) -> Result<LearnOutcome<Self::Rule>, PluginError> {
        let mut shapes = Widening::default();
        let mut seen: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for call in &request.calls {
            for (pointer, value) in &call.unexplained {
                let before = call
                    .entity_before
                    .as_ref()
                    .and_then(|before| before.pointer(pointer));
                let mut found = shape(self.0, value);
                if before == Some(value) {
                    found = None;
                }
                if let Some(text) = value.as_str()
                    && !seen
                        .entry(pointer.clone())
                        .or_default()
                        .insert(text.to_owned())
                {
                    // The same value twice is not generated fresh.
                    found = None;
                }
                shapes.record(pointer, found);
            }
        }
        Ok(rule_fields::learned(
            shapes.agreed(),
            match self.0 {
                Kind::Uuid => "no unexplained member held a fresh UUID in every recorded call",
                Kind::Token => {
                    "no unexplained member held a fresh token of one shape in every recorded call"
                }
            },
        ))
    }

    fn apply(&self, request: &ApplyRequest<Self::Rule>) -> Result<ApplyOutcome, PluginError> {
        let mut outcome = ApplyOutcome::default();
        let call = &request.call;
        for (pointer, shape) in &request.rule.fields {
            let mut attempt = 0u64;
            let value = loop {
                let candidate = match shape {
                    GeneratedShape::Uuid { upper } => uuid_from(
                        &derive(
                            call.generation_seed(),
                            &request.tool.name,
                            pointer,
                            call.write_count,
                            attempt,
                        ),
                        *upper,
                    ),
                    GeneratedShape::Token {
                        alphabet,
                        length,
                        quoted,
                    } => {
                        let letters = alphabet_bytes(alphabet).ok_or_else(|| {
                            PluginError::new("invalid_rule", "a token alphabet does not parse")
                        })?;
                        let token = token_from(
                            call.generation_seed(),
                            &request.tool.name,
                            pointer,
                            call.write_count,
                            attempt,
                            *length,
                            letters,
                        );
                        if *quoted {
                            format!("\"{token}\"")
                        } else {
                            token
                        }
                    }
                };
                if !call.holds_folded_text(pointer, &candidate) {
                    break candidate;
                }
                attempt += 1;
            };
            outcome.set.insert(pointer.clone(), Value::String(value));
        }
        Ok(outcome)
    }

    fn held_indexes(&self) -> Vec<HeldIndexKind> {
        vec![HeldIndexKind::FoldedTexts]
    }
}

rea_plugin_api::plugin_root_module! {
    /// The root module of the uuid and token rules.
    pub fn root_module() = Plugin::new("rea-uuid", env!("CARGO_PKG_VERSION"))
        .rule(
            StageInfo::new(UUID_STAGE, "Explains fresh UUIDs a write generates; serves ones derived from the state, tool, field and write count"),
            GeneratedRule(Kind::Uuid),
        )
        .rule(
            StageInfo::new(TOKEN_STAGE, "Explains fresh opaque tokens a write generates; serves ones of the same length and alphabet"),
            GeneratedRule(Kind::Token),
        );
}

rea_plugin_api::submit_builtin!(root_module);

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::contracts::rule::{Effect, ObservedCall, ServedCall, ToolRef};
    use serde_json::json;

    fn tool() -> ToolRef {
        ToolRef {
            method: "POST".into(),
            name: "post_records".into(),
            path_template: "/records".into(),
        }
    }

    fn learn(kind: Kind, values: &[Value]) -> LearnOutcome<FieldRules<GeneratedShape>> {
        GeneratedRule(kind)
            .learn(&LearnRequest {
                calls: values
                    .iter()
                    .map(|value| ObservedCall {
                        unexplained: [("/id".to_owned(), value.clone())].into(),
                        ..ObservedCall::default()
                    })
                    .collect(),
                clock_anchors: Vec::new(),
                effect: Effect::Create,
                identity_field: Some("id".into()),
                options: NoOptions {},
                schema_version: 1,
                tool: tool(),
            })
            .expect("learns")
    }

    fn apply(
        kind: Kind,
        rule: FieldRules<GeneratedShape>,
        held: Vec<Value>,
        writes: u64,
    ) -> String {
        GeneratedRule(kind)
            .apply(&ApplyRequest {
                call: ServedCall {
                    held_values: [("/id".to_owned(), held)].into(),
                    state_evidence_id: "ev_state".into(),
                    write_count: writes,
                    ..ServedCall::default()
                },
                rule,
                schema_version: 1,
                tool: tool(),
            })
            .expect("applies")
            .set["/id"]
            .as_str()
            .expect("text")
            .to_owned()
    }

    #[test]
    fn uuids_are_learned_and_derived_deterministically() {
        // contract: WRITE-059, WRITE-060
        let outcome = learn(
            Kind::Uuid,
            &[
                json!("6711b84f-f1fc-453f-8ba4-5ad399ff0dc6"),
                json!("8627afdd-12a7-43ba-81bc-015347c5a44e"),
            ],
        );
        let LearnOutcome::Learned { rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        let first = apply(Kind::Uuid, rule.clone(), Vec::new(), 0);
        assert_eq!(uuid_case(&first), Some(false));
        assert_eq!(&first[14..15], "4");
        assert_eq!(first, apply(Kind::Uuid, rule.clone(), Vec::new(), 0));
        assert_ne!(first, apply(Kind::Uuid, rule.clone(), Vec::new(), 1));
        // A held value is skipped.
        let skipped = apply(Kind::Uuid, rule, vec![json!(first.to_ascii_uppercase())], 0);
        assert_ne!(skipped, first);
    }

    #[test]
    fn tokens_keep_their_length_and_alphabet() {
        let outcome = learn(
            Kind::Token,
            &[
                json!("48a6aa810b594629982eaa007c519475"),
                json!("e0263689620a40d39b0114f8f4d0214a"),
            ],
        );
        let LearnOutcome::Learned { rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        let token = apply(Kind::Token, rule, Vec::new(), 3);
        assert_eq!(token.len(), 32);
        assert_eq!(alphabet(&token), Some("hex"));
    }

    #[test]
    fn tokens_of_nested_alphabets_agree_on_the_widest() {
        // Fortune.js's memory adapter draws 15 base64url characters; some draws hold no `-`/`_`.
        let outcome = learn(
            Kind::Token,
            &[
                json!("s2UkrBg-nlFk2kx"),
                json!("JwPtrvji0QvJvgK"),
                json!("O-8hNwDM6FmQp_n"),
            ],
        );
        let LearnOutcome::Learned { rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(
            rule.fields["/id"],
            GeneratedShape::Token {
                alphabet: "base64url".into(),
                length: 15,
                quoted: false
            }
        );
        // Lengths that differ, and alphabets that do not nest (lower and upper hex), disagree.
        for values in [
            [json!("JwPtrvji0QvJvgK"), json!("JwPtrvji0QvJvgKa")],
            [json!("48a6aa810b59"), json!("48A6AA810B59")],
        ] {
            assert!(
                matches!(
                    learn(Kind::Token, &values),
                    LearnOutcome::NoExplanation { .. }
                ),
                "{values:?}"
            );
        }
    }

    #[test]
    fn an_entity_tag_is_a_token_between_double_quotes() {
        // Roundup's `@etag`: the item's ETag header repeated in the body, quotes included.
        let outcome = learn(
            Kind::Token,
            &[
                json!("\"46359978fea2c6114931fa86a277fee3\""),
                json!("\"2be4f94938153c6ea0c2a1e5df6e1d3b\""),
            ],
        );
        let LearnOutcome::Learned { rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        let tag = apply(Kind::Token, rule, Vec::new(), 1);
        let inner = tag
            .strip_prefix('"')
            .and_then(|inner| inner.strip_suffix('"'))
            .expect("quoted");
        assert_eq!((inner.len(), alphabet(inner)), (32, Some("hex")));
        // Quotes around a word are no tag of a token; an unbalanced quote is no tag.
        for value in ["\"pending\"", "\"46359978fea2c6114931fa86a277fee3"] {
            assert!(
                matches!(
                    learn(Kind::Token, &[json!(value)]),
                    LearnOutcome::NoExplanation { .. }
                ),
                "{value}"
            );
        }
    }

    #[test]
    fn short_hex_tokens_are_learned_from_mixed_digits_and_letters() {
        // Four hex digits, as json-server 1.x generates its ids.
        let outcome = learn(Kind::Token, &[json!("728c"), json!("866e")]);
        let LearnOutcome::Learned { rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        let token = apply(Kind::Token, rule, Vec::new(), 0);
        assert_eq!(token.len(), 4);
        assert_eq!(alphabet(&token), Some("hex"));
        // Short digits alone are a number, short words of a wider alphabet a code.
        for value in ["2027", "g1h2", "Ab3d", "12-4"] {
            assert!(
                matches!(
                    learn(Kind::Token, &[json!(value)]),
                    LearnOutcome::NoExplanation { .. }
                ),
                "{value}"
            );
        }
        // Three characters are too few.
        assert!(matches!(
            learn(Kind::Token, &[json!("7a8")]),
            LearnOutcome::NoExplanation { .. }
        ));
    }

    #[test]
    fn words_repeats_and_mixed_shapes_are_not_generated() {
        assert!(matches!(
            learn(Kind::Token, &[json!("published")]),
            LearnOutcome::NoExplanation { .. }
        ));
        assert!(matches!(
            learn(Kind::Token, &[json!("abc12345"), json!("abc12345")]),
            LearnOutcome::NoExplanation { .. }
        ));
        assert!(matches!(
            learn(
                Kind::Uuid,
                &[json!("6711b84f-f1fc-453f-8ba4-5ad399ff0dc6"), json!("x")]
            ),
            LearnOutcome::NoExplanation { .. }
        ));
        // A UUID is the uuid rule's, not a token.
        assert!(matches!(
            learn(
                Kind::Token,
                &[json!("6711b84f-f1fc-453f-8ba4-5ad399ff0dc6")]
            ),
            LearnOutcome::NoExplanation { .. }
        ));
    }
}

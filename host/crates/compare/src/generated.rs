//! Generated values: normalised only where a confirmed, served write's entity response rules
//! identify generation, in that write's own answer.
//!
//! | Rule | Two values normalise when |
//! | --- | --- |
//! | `uuid` | both are UUIDs (identity case-insensitive, as the generator matches) |
//! | `unique` | both are UUIDs, or both generated integers of 10 to 20 digits of one JSON kind and length |
//! | `token` | both are strings of one length of at least eight, the same character classes, and a digit (literal identity) |
//! | `renewed` | at its recorded pointers only (`*` matches actual array items), as `uuid` or `token` |
//! | `composed` | each side spells the value its parts build from that answer's own fields (a `sent-last:NAME` part: the last `/`-separated part of the sent text; a `made:NAME` part: the member another rule generated, read as a held one, from the member's parent or the nearest object enclosing it that holds every part: `/data/links/self` from `/data`'s `id`), and the parts agree by text or by their source fields' clock and id rules |
//!
//! A numeric `sequence` compares literally (only an id mapping may apply). A read's or replay's
//! answer, and a missing write target's absence answer, have no generation facts. Within one
//! answer, admitted values must keep aliases and distinct identities (one live value, one
//! environment value); the correspondence ends with the answer.

use std::collections::BTreeMap;

use serde_json::Value;

/// A template part of a `composed` rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplatePart {
    /// Fixed text.
    Text(String),
    /// A source: `held:NAME`, `sent:NAME` or `path:INDEX`.
    Source(String),
}

/// What a rule generates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GenerationKind {
    /// Fresh UUIDs.
    Uuid,
    /// Large unique values.
    Unique,
    /// Opaque tokens.
    Token,
    /// Values renewed at recorded pointers.
    Renewed,
    /// A string built from parts.
    Composed(Vec<TemplatePart>),
}

/// One generation rule at a pointer of the answer body (`*` matches an array index).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenerationRule {
    /// What it generates.
    pub kind: GenerationKind,
    /// Where, in the answer body.
    pub pointer: String,
}

/// The generation facts of one served write's answer, and what its composed parts read.
#[derive(Debug, Clone, Default)]
pub struct Generation {
    /// The rules.
    pub rules: Vec<GenerationRule>,
    /// The live and environment path parameter values of the call (decoded).
    pub path_params: (Vec<String>, Vec<String>),
    /// The live and environment request bodies.
    pub sent: (Option<Value>, Option<Value>),
}

/// Whether a concrete pointer fits a rule pointer (`*` matches a digits-only segment).
pub fn pointer_fits(pattern: &str, pointer: &str) -> bool {
    let mut left = pattern.split('/');
    let mut right = pointer.split('/');
    loop {
        match (left.next(), right.next()) {
            (None, None) => return true,
            (Some("*"), Some(segment)) => {
                if segment.is_empty() || !segment.bytes().all(|byte| byte.is_ascii_digit()) {
                    return false;
                }
            }
            (Some(a), Some(b)) if a == b => {}
            _ => return false,
        }
    }
}

impl Generation {
    /// The rule at a concrete pointer.
    pub fn rule_at(&self, pointer: &str) -> Option<&GenerationRule> {
        self.rules
            .iter()
            .find(|rule| pointer_fits(&rule.pointer, pointer))
    }
}

/// Whether a text is a UUID (either case).
pub fn is_uuid(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 36
        && bytes.iter().enumerate().all(|(index, byte)| match index {
            8 | 13 | 18 | 23 => *byte == b'-',
            _ => byte.is_ascii_hexdigit(),
        })
}

/// The character classes of a text: lower-case, upper-case, digit, other.
fn classes(text: &str) -> [bool; 4] {
    let mut found = [false; 4];
    for character in text.chars() {
        let class = if character.is_ascii_lowercase() {
            0
        } else if character.is_ascii_uppercase() {
            1
        } else if character.is_ascii_digit() {
            2
        } else {
            3
        };
        found[class] = true;
    }
    found
}

fn token_like(live: &str, env: &str) -> bool {
    live.chars().count() == env.chars().count()
        && live.chars().count() >= 8
        && classes(live) == classes(env)
        && classes(live)[2]
}

fn generated_integer(value: &Value) -> Option<(bool, usize)> {
    let text = match value {
        Value::Number(number) if number.is_u64() || number.is_i64() => number.to_string(),
        Value::String(text) => text.clone(),
        _ => return None,
    };
    let digits = text.len();
    ((10..=20).contains(&digits) && text.bytes().all(|byte| byte.is_ascii_digit()))
        .then_some((value.is_number(), digits))
}

/// The identities two values normalise under for a scalar rule (`None`: they do not).
pub fn admit(kind: &GenerationKind, live: &Value, env: &Value) -> Option<(String, String)> {
    let (live_text, env_text) = (live.as_str(), env.as_str());
    let uuids = || {
        let (live, env) = (live_text?, env_text?);
        (is_uuid(live) && is_uuid(env))
            .then(|| (live.to_ascii_lowercase(), env.to_ascii_lowercase()))
    };
    let tokens = || {
        let (live, env) = (live_text?, env_text?);
        (!is_uuid(live) && token_like(live, env)).then(|| (live.to_owned(), env.to_owned()))
    };
    match kind {
        GenerationKind::Uuid => uuids(),
        GenerationKind::Token => tokens(),
        GenerationKind::Renewed => uuids().or_else(tokens),
        GenerationKind::Unique => uuids().or_else(|| {
            let (left, right) = (generated_integer(live)?, generated_integer(env)?);
            if left != right {
                return None;
            }
            Some((crate::ids::id_text(live)?, crate::ids::id_text(env)?))
        }),
        GenerationKind::Composed(_) => None,
    }
}

/// One admitted generated pair of an answer.
#[derive(Debug, Clone)]
pub struct Admitted {
    /// Where.
    pub pointer: String,
    /// The live identity.
    pub live: String,
    /// The environment identity.
    pub env: String,
}

/// The admitted pairs that break aliases or distinct identities within one answer.
pub fn broken_aliases(admitted: &[Admitted]) -> Vec<&Admitted> {
    let mut forward: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut backward: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for pair in admitted {
        forward.entry(&pair.live).or_default().push(&pair.env);
        backward.entry(&pair.env).or_default().push(&pair.live);
    }
    let consistent = |targets: &Vec<&str>| targets.iter().all(|target| *target == targets[0]);
    admitted
        .iter()
        .filter(|pair| {
            !consistent(&forward[pair.live.as_str()]) || !consistent(&backward[pair.env.as_str()])
        })
        .collect()
}

/// One side of a composed field: the value its parts build from the side's own fields, and each
/// part's source value (`None` when a source is absent).
pub fn compose(
    parts: &[TemplatePart],
    entity: &serde_json::Map<String, Value>,
    sent: Option<&Value>,
    path_params: &[String],
) -> Option<(String, Vec<(String, Value)>)> {
    let mut built = String::new();
    let mut sources = Vec::new();
    for part in parts {
        match part {
            TemplatePart::Text(text) => built.push_str(text),
            TemplatePart::Source(source) => {
                let value = match source.split_once(':')? {
                    ("held" | "made", name) => entity.get(name).cloned(),
                    ("sent", name) => entity
                        .get(name)
                        .or_else(|| sent.and_then(|sent| sent.get(name)))
                        .cloned(),
                    ("sent-last", name) => entity
                        .get(name)
                        .or_else(|| sent.and_then(|sent| sent.get(name)))
                        .and_then(|value| last_part(&crate::ids::id_text(value)?)),
                    ("path", index) => index
                        .parse::<usize>()
                        .ok()
                        .and_then(|index| path_params.get(index))
                        .map(|value| Value::String(value.clone())),
                    _ => None,
                }?;
                let text = crate::ids::id_text(&value)?;
                built.push_str(&text);
                sources.push((source.clone(), value));
            }
        }
    }
    Some((built, sources))
}

/// The last `/`-separated part of a text holding a `/`, when it is not empty (a `sent-last:`
/// source, as the `composed` stage spells it: `reports/2027` → `2027`).
fn last_part(text: &str) -> Option<Value> {
    let (_, last) = text.rsplit_once('/')?;
    (!last.is_empty()).then(|| Value::String(last.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_sent_last_source_is_the_last_part_of_the_sent_path() {
        let parts = [TemplatePart::Source("sent-last:path".into())];
        let sent = json!({"path": "reports/2027"});
        let entity = json!({"name": "2027"});
        let entity = entity.as_object().expect("object");
        let (built, sources) = compose(&parts, entity, Some(&sent), &[]).expect("composed");
        assert_eq!(built, "2027");
        assert_eq!(sources, vec![("sent-last:path".to_owned(), json!("2027"))]);
        // A sent text without a `/`, or ending in one, has no last part.
        assert!(compose(&parts, entity, Some(&json!({"path": "archive"})), &[]).is_none());
        assert!(compose(&parts, entity, Some(&json!({"path": "reports/"})), &[]).is_none());
    }

    #[test]
    fn uuid_rules_normalise_only_two_uuids_case_insensitively() {
        let a = json!("5D0C6A1E-1F4B-4C36-9A53-8D2F4B7E0A11");
        let b = json!("a3b9e2f0-7c1d-4e85-b6a2-0f9c3d4e5a22");
        // contract: COMPARE-035
        assert!(admit(&GenerationKind::Uuid, &a, &b).is_some());
        assert!(admit(&GenerationKind::Uuid, &a, &json!("not-a-uuid")).is_none());
        // contract: COMPARE-044
        assert_eq!(
            admit(&GenerationKind::Uuid, &a, &b).unwrap().0,
            "5d0c6a1e-1f4b-4c36-9a53-8d2f4b7e0a11"
        );
    }

    #[test]
    fn unique_rules_normalise_uuids_or_generated_integers_of_one_kind_and_length() {
        // contract: COMPARE-036
        assert!(
            admit(
                &GenerationKind::Unique,
                &json!(1234567890123_u64),
                &json!(9876543210987_u64)
            )
            .is_some()
        );
        assert!(
            admit(
                &GenerationKind::Unique,
                &json!(1234567890123_u64),
                &json!("9876543210987")
            )
            .is_none()
        );
        assert!(
            admit(
                &GenerationKind::Unique,
                &json!(1234567890123_u64),
                &json!(98765432109_u64)
            )
            .is_none()
        );
        assert!(
            admit(
                &GenerationKind::Unique,
                &json!(123456789),
                &json!(987654321)
            )
            .is_none()
        );
        assert!(
            admit(
                &GenerationKind::Unique,
                &json!("5d0c6a1e-1f4b-4c36-9a53-8d2f4b7e0a11"),
                &json!("a3b9e2f0-7c1d-4e85-b6a2-0f9c3d4e5a22")
            )
            .is_some()
        );
    }

    #[test]
    fn token_rules_need_one_length_the_same_classes_and_a_digit() {
        // contract: COMPARE-038
        assert!(
            admit(
                &GenerationKind::Token,
                &json!("ab12cd34"),
                &json!("zz99yy00")
            )
            .is_some()
        );
        assert!(admit(&GenerationKind::Token, &json!("ab12cd3"), &json!("zz99yy0")).is_none());
        assert!(
            admit(
                &GenerationKind::Token,
                &json!("ab12cd34"),
                &json!("zz99yy001")
            )
            .is_none()
        );
        assert!(
            admit(
                &GenerationKind::Token,
                &json!("ab12cd34"),
                &json!("ZZ99YY00")
            )
            .is_none()
        );
        assert!(
            admit(
                &GenerationKind::Token,
                &json!("abcdefgh"),
                &json!("zyxwvuts")
            )
            .is_none()
        );
        // contract: COMPARE-045
        assert_eq!(
            admit(
                &GenerationKind::Token,
                &json!("AB12cd34"),
                &json!("zz99YY00")
            )
            .unwrap(),
            ("AB12cd34".to_owned(), "zz99YY00".to_owned())
        );
    }

    #[test]
    fn renewed_rules_apply_only_at_their_pointers() {
        let generation = Generation {
            rules: vec![GenerationRule {
                kind: GenerationKind::Renewed,
                pointer: "/versions/*/etag".to_owned(),
            }],
            ..Generation::default()
        };
        // contract: COMPARE-037
        assert!(generation.rule_at("/versions/3/etag").is_some());
        assert!(generation.rule_at("/versions/x/etag").is_none());
        assert!(generation.rule_at("/etag").is_none());
        assert!(generation.rule_at("/versions/3/etag/0").is_none());
    }

    #[test]
    fn aliases_and_distinct_identities_are_kept_within_an_answer() {
        let pair = |pointer: &str, live: &str, env: &str| Admitted {
            pointer: pointer.to_owned(),
            live: live.to_owned(),
            env: env.to_owned(),
        };
        // contract: COMPARE-043
        let pointers = |pairs: &[Admitted]| -> Vec<String> {
            broken_aliases(pairs)
                .into_iter()
                .map(|pair| pair.pointer.clone())
                .collect()
        };
        assert!(pointers(&[pair("/a", "x", "1"), pair("/b", "x", "1")]).is_empty());
        assert_eq!(
            pointers(&[pair("/a", "x", "1"), pair("/b", "x", "2")]),
            vec!["/a", "/b"]
        );
        assert_eq!(
            pointers(&[pair("/a", "x", "1"), pair("/b", "y", "1")]),
            vec!["/a", "/b"]
        );
    }
}

//! The `digest-revision` rule: a revision spelled `N-<md5>`, a counter one past the revision the
//! entity held (1 for a new entity) and the MD5 digest of the document as the application
//! serialized it when it saved the write.
//!
//! **Learn** (creates, updates and each row of a bulk update). A top-level member the rules
//! before it left unexplained is such a revision when, in every recorded call that set it, its
//! value is `N-` and 32 lower-case hex digits, `N` is one past the counter of the revision the entity held there (1 when it held
//! none), and the digest is the MD5 of one composition of the call's document, the same for
//! every call: the body's members in the order the call sent them (`member_order`), then, each
//! where the body lacks it, the entity's identity, the held revision, and a revision history
//! `{"start": N-1, "ids": [held digest]}` (the CouchDB document protocol's `_revisions` member,
//! the one name this rule knows), serialized as JavaScript's `JSON.stringify` does, its text
//! read as UTF-8 or as the low byte of each UTF-16 unit (Node's `binary` encoding). The digest
//! makes one call unambiguous: a composition that reproduces 128 bits is not a coincidence. The
//! encoding is known only where a recorded document held text beyond ASCII.
//!
//! **Apply.** The member takes the counter one past the held one and the digest of the served
//! body composed as learned, its members in the order the recorded calls sent them (a tool call's
//! arguments carry no order), members no recorded call sent after them as given. Refused, never
//! guessed: a body sending another revision than the one held (the application's conflict), a
//! history longer than the held revision shows (an entity past its second revision), text beyond
//! ASCII where the recording never showed the encoding, a nested object of several members
//! (whose order the served body no longer holds), a number JavaScript would spell otherwise.

use md5::{Digest, Md5};
use rea_plugin_api::contracts::rule::{
    ApplyOutcome, ApplyRequest, LearnOutcome, LearnRequest, NoOptions, ObservedCall,
};
use rea_plugin_api::rule_fields::top_field;
use rea_plugin_api::{PluginError, StateRule};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The stage name.
pub const STAGE: &str = "digest-revision";

/// The revision-history member's name (CouchDB's document protocol).
const HISTORY: &str = "_revisions";

/// How the serialized document's text becomes the bytes the digest reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Encoding {
    /// UTF-8.
    Utf8,
    /// The low byte of each UTF-16 code unit (Node's `binary`/`latin1`).
    Latin1,
    /// Not shown: every recorded document was ASCII, where both agree.
    AsciiOnly,
}

/// Which members the application adds to the sent body before digesting it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Composition {
    /// The entity's identity member, when the body lacks it.
    pub identity: bool,
    /// The held revision, when the body lacks it.
    pub prior: bool,
    /// The revision history of the held revision, on an entity holding one.
    pub history: bool,
}

/// The compositions tried, the fewest added members first.
const COMPOSITIONS: [Composition; 4] = [
    Composition {
        identity: false,
        prior: false,
        history: false,
    },
    Composition {
        identity: true,
        prior: false,
        history: false,
    },
    Composition {
        identity: true,
        prior: true,
        history: false,
    },
    Composition {
        identity: true,
        prior: true,
        history: true,
    },
];

/// The learned rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DigestRevision {
    /// The top-level member holding the revision.
    pub field: String,
    /// The entity's identity member.
    pub identity: Option<String>,
    /// The path parameter holding the identity, when one did in every call.
    pub identity_param: Option<usize>,
    /// The members the recorded calls sent, in an order every call's order agrees with.
    pub order: Vec<String>,
    /// What the application adds to the body.
    pub composition: Composition,
    /// How the text is read.
    pub encoding: Encoding,
    /// Every recorded call on an entity holding a revision sent it back: a served call that
    /// does not is refused (the application's answer to it was never shown).
    #[serde(default)]
    pub revision_sent: bool,
}

/// A revision's counter and digest (`3-0e04…`).
fn parse_revision(value: &Value) -> Option<(u64, &str)> {
    crate::counter_and_hex(value, |length| length == 32)
}

/// A number as JavaScript's `JSON.stringify` spells it, when Rust's spelling is the same.
fn js_number(number: &serde_json::Number) -> Option<String> {
    if number.is_i64() || number.is_u64() {
        return Some(number.to_string());
    }
    let value = number.as_f64()?;
    let magnitude = value.abs();
    // Both print the shortest round-trip decimal without an exponent in this range.
    (value == 0.0 || (1e-7..1e21).contains(&magnitude)).then(|| format!("{value}"))
}

/// `JSON.stringify` of a value whose object members (if any) hold one member each, or none.
fn js_text(value: &Value, out: &mut String) -> Option<()> {
    match value {
        Value::Null | Value::Bool(_) | Value::String(_) => {
            out.push_str(&serde_json::to_string(value).ok()?)
        }
        Value::Number(number) => out.push_str(&js_number(number)?),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                js_text(item, out)?;
            }
            out.push(']');
        }
        // A parsed object keeps no member order: only an object of at most one member is known.
        Value::Object(members) if members.len() <= 1 => js_members(members.iter(), out)?,
        Value::Object(_) => return None,
    }
    Some(())
}

/// `JSON.stringify` of an object whose members come in this order.
fn js_members<'a>(
    members: impl Iterator<Item = (&'a String, &'a Value)>,
    out: &mut String,
) -> Option<()> {
    out.push('{');
    for (index, (name, value)) in members.enumerate() {
        if index > 0 {
            out.push(',');
        }
        out.push_str(&serde_json::to_string(name).ok()?);
        out.push(':');
        js_text(value, out)?;
    }
    out.push('}');
    Some(())
}

/// The hex MD5 of `text` read as `encoding` (`None` for text beyond ASCII whose encoding is not
/// known).
fn digest(text: &str, encoding: Encoding) -> Option<String> {
    let bytes: Vec<u8> = match encoding {
        Encoding::Utf8 => text.as_bytes().to_vec(),
        Encoding::Latin1 => text.encode_utf16().map(|unit| unit as u8).collect(),
        Encoding::AsciiOnly if text.is_ascii() => text.as_bytes().to_vec(),
        Encoding::AsciiOnly => return None,
    };
    Some(hex::encode(Md5::digest(&bytes)))
}

/// What a document's digest is composed of, besides the sent members.
struct Document<'a> {
    sent: &'a Map<String, Value>,
    order: &'a [String],
    identity: Option<(&'a str, Value)>,
    field: &'a str,
    held: Option<(&'a Value, u64, &'a str)>,
}

impl Document<'_> {
    /// The document's text as the application serialized it, composed as `composition` says.
    fn text(&self, composition: Composition) -> Option<String> {
        let mut members: Vec<(String, Value)> = Vec::new();
        for name in self.order {
            if let Some(value) = self.sent.get(name) {
                members.push((name.clone(), value.clone()));
            }
        }
        for (name, value) in self.sent {
            if !self.order.contains(name) {
                members.push((name.clone(), value.clone()));
            }
        }
        let has = |members: &[(String, Value)], name: &str| members.iter().any(|(n, _)| n == name);
        if composition.identity {
            let (name, value) = self.identity.as_ref()?;
            if !has(&members, name) {
                members.push(((*name).to_owned(), value.clone()));
            }
        }
        if let Some((held, ..)) = self.held {
            if composition.prior && !has(&members, self.field) {
                members.push((self.field.to_owned(), held.clone()));
            }
            if composition.history {
                // Written below: a parsed object would not keep `start` before `ids`.
                members.push((HISTORY.to_owned(), Value::Null));
            }
        }
        let mut out = String::new();
        out.push('{');
        for (index, (name, value)) in members.iter().enumerate() {
            if index > 0 {
                out.push(',');
            }
            out.push_str(&serde_json::to_string(name).ok()?);
            out.push(':');
            if let (HISTORY, true, Some((_, counter, held_digest))) =
                (name.as_str(), composition.history, self.held)
            {
                out.push_str(&format!(r#"{{"start":{counter},"ids":["{held_digest}"]}}"#));
            } else {
                js_text(value, &mut out)?;
            }
        }
        out.push('}');
        Some(out)
    }
}

/// The member order every call's sent order agrees with (each call's names in its order, names
/// new to the merged order placed after the last name of that call already in it), or `None`
/// when two calls sent two members in opposite orders.
fn merged_order(calls: &[ObservedCall]) -> Option<Vec<String>> {
    let mut order: Vec<String> = Vec::new();
    for call in calls {
        let mut cursor = 0;
        for name in &call.member_order {
            match order.iter().position(|known| known == name) {
                Some(at) if at < cursor => return None,
                Some(at) => cursor = at + 1,
                None => {
                    order.insert(cursor, name.clone());
                    cursor += 1;
                }
            }
        }
    }
    Some(order)
}

/// What one recorded call shows: the identity parameter index and the compositions and
/// encodings its digest agrees with.
struct Finding {
    identity_param: Option<usize>,
    matches: Vec<(Composition, Encoding)>,
}

fn finding(
    call: &ObservedCall,
    field: &str,
    identity: Option<&str>,
    order: &[String],
) -> Option<Finding> {
    let after = call.unexplained.get(&format!("/{field}"))?;
    let (counter, recorded) = parse_revision(after)?;
    let held_value = call
        .entity_before
        .as_ref()
        .and_then(|entity| entity.get(field));
    let held = held_value.and_then(|value| Some((value, parse_revision(value)?)));
    if held_value.is_some() && held.is_none() {
        return None;
    }
    let expected = held.map_or(1, |(_, (held, _))| held + 1);
    if counter != expected {
        return None;
    }
    let empty = Map::new();
    let sent = match &call.request_body {
        Some(Value::Object(members)) => members,
        None => &empty,
        Some(_) => return None,
    };
    let identity_after = identity.and_then(|name| {
        let value = call.entity_after.as_ref()?.get(name)?.clone();
        Some((name, value))
    });
    let identity_param = identity_after.as_ref().and_then(|(_, value)| {
        call.path_params
            .iter()
            .position(|param| Some(param.as_str()) == value.as_str())
    });
    // Only an identity a served call knows before the write (sent, held, or in its path) can
    // be part of what it digests: one a later rule generates is not.
    let known_before = identity_after.as_ref().is_some_and(|(name, _)| {
        identity_param.is_some()
            || sent.contains_key(*name)
            || call
                .entity_before
                .as_ref()
                .is_some_and(|e| e.get(*name).is_some())
    });
    let identity_value = identity_after.filter(|_| known_before);
    let document = Document {
        sent,
        order: if call.member_order.is_empty() {
            order
        } else {
            &call.member_order
        },
        identity: identity_value,
        field,
        held: held.map(|(value, (counter, digest))| (value, counter, digest)),
    };
    let mut matches = Vec::new();
    for composition in COMPOSITIONS {
        let Some(text) = document.text(composition) else {
            continue;
        };
        let encodings: &[Encoding] = if text.is_ascii() {
            &[Encoding::AsciiOnly]
        } else {
            &[Encoding::Utf8, Encoding::Latin1]
        };
        for encoding in encodings {
            if digest(&text, *encoding).as_deref() == Some(recorded) {
                matches.push((composition, *encoding));
            }
        }
    }
    Some(Finding {
        identity_param,
        matches,
    })
}

/// The composition and encoding every finding agrees with: the fewest added members that every
/// call reproduces (a composition adding nothing the call lacked agrees with a richer one), and
/// the encoding a non-ASCII document showed, if any.
fn agreed(findings: &[Finding]) -> Option<(Composition, Encoding)> {
    let composition = COMPOSITIONS.into_iter().find(|composition| {
        findings
            .iter()
            .all(|finding| finding.matches.iter().any(|(c, _)| c == composition))
    })?;
    let mut encoding = Encoding::AsciiOnly;
    for finding in findings {
        for (c, e) in &finding.matches {
            if *c == composition && *e != Encoding::AsciiOnly {
                if encoding != Encoding::AsciiOnly && encoding != *e {
                    return None;
                }
                encoding = *e;
            }
        }
    }
    Some((composition, encoding))
}

/// The digest revision rule.
#[derive(Debug, Default, Clone, Copy)]
pub struct DigestRevisionRule;

impl DigestRevisionRule {
    fn learn_field(
        request: &LearnRequest<NoOptions>,
        field: &str,
        order: &[String],
    ) -> Option<DigestRevision> {
        let identity = request.identity_field.as_deref();
        let pointer = format!("/{field}");
        let calls: Vec<&ObservedCall> = request
            .calls
            .iter()
            .filter(|call| call.unexplained.contains_key(&pointer))
            .collect();
        let findings: Vec<Finding> = calls
            .iter()
            .map(|call| finding(call, field, identity, order))
            .collect::<Option<_>>()?;
        let (composition, encoding) = agreed(&findings)?;
        let first = findings.first()?.identity_param;
        let identity_param = findings
            .iter()
            .all(|finding| finding.identity_param == first)
            .then_some(first)
            .flatten();
        let updates: Vec<&&ObservedCall> = calls
            .iter()
            .filter(|call| {
                call.entity_before
                    .as_ref()
                    .is_some_and(|e| e.get(field).is_some())
            })
            .collect();
        let revision_sent = !updates.is_empty()
            && updates.iter().all(|call| {
                call.request_body
                    .as_ref()
                    .is_some_and(|body| body.get(field).is_some())
            });
        Some(DigestRevision {
            revision_sent,
            field: field.to_owned(),
            identity: identity.map(str::to_owned),
            identity_param,
            order: order.to_vec(),
            composition,
            encoding,
        })
    }
}

impl StateRule for DigestRevisionRule {
    type Options = NoOptions;
    type Rule = DigestRevision;

    /// The effects `learn` answers for (it explains nothing for others), joining only by
    /// explaining.
    fn learn_scope(&self) -> rea_plugin_api::contracts::rule::LearnScope {
        rea_plugin_api::contracts::rule::LearnScope::effects([
            rea_plugin_api::contracts::rule::Effect::Create,
            rea_plugin_api::contracts::rule::Effect::Update,
            rea_plugin_api::contracts::rule::Effect::BulkUpdate,
        ])
        .explaining()
    }

    fn learn(
        &self,
        request: &LearnRequest<NoOptions>,
    ) -> Result<LearnOutcome<DigestRevision>, PluginError> {
        use rea_plugin_api::contracts::rule::Effect;
        // A bulk update's rows are learned one document at a time: each saves its own digest.
        if !matches!(
            request.effect,
            Effect::Create | Effect::Update | Effect::BulkUpdate
        ) {
            return Ok(LearnOutcome::no_explanation(
                "digest revisions are learned from creates and updates",
            ));
        }
        let Some(order) = merged_order(&request.calls) else {
            return Ok(LearnOutcome::no_explanation(
                "the recorded calls sent their members in orders that disagree",
            ));
        };
        let mut fields: Vec<String> = request
            .calls
            .iter()
            .flat_map(|call| call.unexplained.iter())
            .filter(|(_, value)| parse_revision(value).is_some())
            .filter_map(|(pointer, _)| top_field(pointer))
            .collect();
        fields.sort();
        fields.dedup();
        for field in fields {
            if let Some(rule) = Self::learn_field(request, &field, &order) {
                return Ok(LearnOutcome::Learned {
                    explains: vec![format!("/{field}")],
                    needs_clock: false,
                    rule,
                    schema_version: rea_plugin_api::contracts::SCHEMA_VERSION,
                });
            }
        }
        Ok(LearnOutcome::no_explanation(
            "no unexplained member is a counter and the digest of the document the call saved",
        ))
    }

    fn apply(&self, request: &ApplyRequest<DigestRevision>) -> Result<ApplyOutcome, PluginError> {
        let rule = &request.rule;
        let call = &request.call;
        let empty = Map::new();
        let sent = match &call.body {
            Some(Value::Object(members)) => members,
            None => &empty,
            Some(_) => return Err(refusal("the body is not a JSON object")),
        };
        let held_value = call.entity_before.as_ref().and_then(|e| e.get(&rule.field));
        let held = match held_value {
            Some(value) => Some(
                parse_revision(value)
                    .map(|(counter, digest)| (value, counter, digest))
                    .ok_or_else(|| refusal("the entity holds no counter-digest revision"))?,
            ),
            None => None,
        };
        if let (Some(sent_revision), Some((held, ..))) = (sent.get(&rule.field), held)
            && sent_revision != held
        {
            return Err(PluginError::new(
                "revision_conflict",
                format!(
                    "the body sends `{}` {sent_revision}, the entity holds {held}",
                    rule.field
                ),
            ));
        }
        if rule.revision_sent && held.is_some() && !sent.contains_key(&rule.field) {
            return Err(PluginError::new(
                "revision_required",
                format!(
                    "every recorded write of an entity holding `{}` sent it back; send the held one",
                    rule.field
                ),
            ));
        }
        if rule.composition.history && held.is_some_and(|(_, counter, _)| counter > 1) {
            return Err(refusal(
                "the revision history before the held revision is not held",
            ));
        }
        let identity = identity_value(rule, call, sent);
        if rule.composition.identity && identity.is_none() {
            return Err(refusal(
                "the entity's identity is not known before the write",
            ));
        }
        let document = Document {
            sent,
            order: &rule.order,
            identity: rule.identity.as_deref().zip(identity),
            field: &rule.field,
            held,
        };
        let text = document
            .text(rule.composition)
            .ok_or_else(|| refusal("the document's serialization is not known (a nested object of several members, or a number spelled otherwise)"))?;
        let hex = digest(&text, rule.encoding).ok_or_else(|| {
            refusal("the recording never showed how text beyond ASCII is digested")
        })?;
        let counter = held.map_or(1, |(_, counter, _)| counter + 1);
        let mut outcome = ApplyOutcome::default();
        outcome.set.insert(
            format!("/{}", rule.field),
            Value::String(format!("{counter}-{hex}")),
        );
        Ok(outcome)
    }
}

/// The identity a served call writes: sent, held, or the learned path parameter.
fn identity_value(
    rule: &DigestRevision,
    call: &rea_plugin_api::contracts::rule::ServedCall,
    sent: &Map<String, Value>,
) -> Option<Value> {
    let name = rule.identity.as_deref()?;
    sent.get(name)
        .or_else(|| call.entity_before.as_ref()?.get(name))
        .cloned()
        .or_else(|| {
            let param = call.path_params.get(rule.identity_param?)?;
            Some(Value::String(param.clone()))
        })
}

fn refusal(message: &str) -> PluginError {
    PluginError::new("no_revision", message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::contracts::rule::Effect;
    use rea_plugin_api::testing::{apply_request, expect_learned, learn_request, observed_call};
    use serde_json::json;

    // The recorded values are PouchDB Server's (tests/corpus/apps/pouchdb-server/build.har):
    // `PUT /library/author:dick` (a create) and `PUT /library/book:dune` (an update).
    const DICK: &str = "1-54d724e81ac7dc72c33d3d8970fcf6a7";
    const DUNE_HELD: &str = "1-0e045896575ed351bee705cc1b0df1f2";
    const DUNE: &str = "2-a5fb5a69397c0440d46e3a0db8bbd435";

    fn create() -> ObservedCall {
        let body =
            json!({"type": "author", "name": "Philip K. Dick", "born": 1928, "country": "US"});
        observed_call(30)
            .sent(body.clone())
            .member_order(&["type", "name", "born", "country"])
            .path_params(&["library", "author:dick"])
            .after(json!({"type": "author", "name": "Philip K. Dick", "born": 1928, "country": "US", "_id": "author:dick", "_rev": DICK}))
            .unexplained("/_rev", json!(DICK))
            .build()
    }

    fn dune(pages: u64, status: &str) -> Value {
        json!({"type": "book", "title": "Dune", "author": "author:herbert", "year": 1965,
            "genre": "sf", "pages": pages, "status": status, "tags": ["desert", "politics"],
            "_id": "book:dune"})
    }

    const DUNE_ORDER: [&str; 10] = [
        "type", "title", "author", "year", "genre", "pages", "status", "tags", "_id", "_rev",
    ];

    fn update() -> ObservedCall {
        let mut held = dune(412, "available");
        held["_rev"] = json!(DUNE_HELD);
        let mut sent = dune(617, "on-loan");
        sent["_rev"] = json!(DUNE_HELD);
        let mut after = dune(617, "on-loan");
        after["_rev"] = json!(DUNE);
        observed_call(41)
            .before(held)
            .sent(sent)
            .member_order(&DUNE_ORDER)
            .path_params(&["library", "book:dune"])
            .after(after)
            .unexplained("/_rev", json!(DUNE))
            .build()
    }

    fn learn(effect: Effect, calls: Vec<ObservedCall>) -> LearnOutcome<DigestRevision> {
        let request = calls.into_iter().fold(
            learn_request(effect).identity_field(Some("_id")),
            |request, call| request.call(call),
        );
        DigestRevisionRule.learn(&request.build()).expect("learns")
    }

    #[test]
    fn learns_the_digest_of_the_sent_document_with_its_identity_and_history() {
        let (explains, rule) = expect_learned(learn(Effect::Update, vec![create(), update()]));
        assert_eq!(explains, ["/_rev"]);
        assert_eq!(
            rule.composition,
            Composition {
                identity: true,
                prior: true,
                history: true
            }
        );
        assert_eq!(rule.encoding, Encoding::AsciiOnly);
        assert_eq!(rule.identity_param, Some(1));
        assert!(rule.revision_sent);
    }

    #[test]
    fn a_create_alone_learns_the_identity_only() {
        let (_, rule) = expect_learned(learn(Effect::Create, vec![create()]));
        assert_eq!(
            rule.composition,
            Composition {
                identity: true,
                prior: false,
                history: false
            }
        );
    }

    #[test]
    fn an_identity_a_later_rule_generates_is_not_digested() {
        let mut call = create();
        call.path_params = vec!["library".to_owned()];
        call.unexplained
            .insert("/_id".to_owned(), json!("author:dick"));
        assert!(matches!(
            learn(Effect::Create, vec![call]),
            LearnOutcome::NoExplanation { .. }
        ));
    }

    #[test]
    fn a_revision_whose_digest_no_composition_gives_is_not_learned() {
        let call = observed_call(30)
            .sent(json!({"type": "author"}))
            .member_order(&["type"])
            .after(json!({"type": "author", "_id": "a", "_rev": DICK}))
            .unexplained("/_rev", json!(DICK))
            .build();
        assert!(matches!(
            learn(Effect::Create, vec![call]),
            LearnOutcome::NoExplanation { .. }
        ));
    }

    #[test]
    fn a_counter_not_one_past_the_held_one_is_not_learned() {
        let mut call = update();
        call.entity_before.as_mut().expect("held")["_rev"] =
            json!("4-0e045896575ed351bee705cc1b0df1f2");
        assert!(matches!(
            learn(Effect::Update, vec![call]),
            LearnOutcome::NoExplanation { .. }
        ));
    }

    fn learned() -> DigestRevision {
        expect_learned(learn(Effect::Update, vec![create(), update()])).1
    }

    #[test]
    fn applies_the_recorded_revision_to_the_recorded_update_sent_unordered() {
        let mut held = dune(412, "available");
        held["_rev"] = json!(DUNE_HELD);
        let mut sent = dune(617, "on-loan");
        sent["_rev"] = json!(DUNE_HELD);
        let request = apply_request(learned())
            .body(sent)
            .entity_before(held)
            .path_params(&["library", "book:dune"])
            .build();
        let outcome = DigestRevisionRule.apply(&request).expect("applies");
        assert_eq!(outcome.set["/_rev"], json!(DUNE));
    }

    #[test]
    fn applies_a_create_by_its_path_identity() {
        let request = apply_request(learned())
            .body(
                json!({"country": "US", "born": 1928, "name": "Philip K. Dick", "type": "author"}),
            )
            .path_params(&["library", "author:dick"])
            .build();
        let outcome = DigestRevisionRule.apply(&request).expect("applies");
        assert_eq!(outcome.set["/_rev"], json!(DICK));
    }

    #[test]
    fn refuses_a_stale_revision_a_long_history_and_unknown_encodings() {
        let mut held = dune(412, "available");
        held["_rev"] = json!(DUNE_HELD);
        let mut stale = dune(617, "on-loan");
        stale["_rev"] = json!("1-00000000000000000000000000000000");
        let request = apply_request(learned())
            .body(stale)
            .entity_before(held.clone())
            .build();
        let error = DigestRevisionRule.apply(&request).expect_err("conflict");
        assert_eq!(error.code.as_str(), "revision_conflict");

        let mut unsent = dune(617, "on-loan");
        unsent.as_object_mut().expect("object").remove("_id");
        let request = apply_request(learned())
            .body(unsent)
            .entity_before(held.clone())
            .build();
        let error = DigestRevisionRule.apply(&request).expect_err("required");
        assert_eq!(error.code.as_str(), "revision_required");

        let mut second = held.clone();
        second["_rev"] = json!(DUNE);
        let request = apply_request(learned())
            .body(dune(1, "available"))
            .entity_before(second)
            .build();
        assert!(DigestRevisionRule.apply(&request).is_err());

        let request = apply_request(learned())
            .body(json!({"type": "author", "name": "Stanisław Lem"}))
            .path_params(&["library", "author:lem"])
            .build();
        assert!(DigestRevisionRule.apply(&request).is_err());
    }

    #[test]
    fn reads_text_beyond_ascii_as_the_recording_showed() {
        // Node's `binary` digest of a seeded PouchDB document (`author:lem`, rev
        // 1-200fed919c307ef73bab3228982757cb): UTF-16 units, low byte each.
        let text = r#"{"type":"author","name":"Stanisław Lem","born":1921,"country":"PL","_id":"author:lem"}"#;
        assert_eq!(
            digest(text, Encoding::Latin1).as_deref(),
            Some("200fed919c307ef73bab3228982757cb")
        );
        assert_ne!(digest(text, Encoding::Utf8), digest(text, Encoding::Latin1));
        assert_eq!(digest(text, Encoding::AsciiOnly), None);
    }

    #[test]
    fn merges_the_member_orders_of_the_calls() {
        let order = merged_order(&[create(), update()]).expect("agree");
        let at = |name: &str| order.iter().position(|n| n == name).expect(name);
        for call in [create(), update()] {
            for pair in call.member_order.windows(2) {
                assert!(at(&pair[0]) < at(&pair[1]), "{pair:?} in {order:?}");
            }
        }
        let mut reversed = create();
        reversed.member_order.reverse();
        assert_eq!(merged_order(&[create(), reversed]), None);
    }
}

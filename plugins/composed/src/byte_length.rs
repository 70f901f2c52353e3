//! The `byte-length` rule: a number a write stores as the size of the text it was sent (Jupyter's
//! contents `size`, the bytes of the `content` a file `PUT` saves).
//!
//! **Learn** (creates and updates). A top-level member the host could not explain holding a
//! non-negative integer is the byte length (UTF-8) of a sent string member when, in every recorded
//! call that changed it, exactly one sent string member other than itself is that many bytes
//! long, and it is the same member in every call. One call is enough when it is unambiguous (a
//! single sent string of that length): a count equal to the bytes of one sent text is what a
//! document store stamps; a call where two sent strings share the length, or none has it, drops
//! the member.
//!
//! **Apply.** The member takes the byte length of the sent text; a call not sending it leaves the
//! member as the entity holds it (the text did not change). A create not sending it is refused:
//! the rule knows no text to measure. The sent text is measured as sent.
//!
//! **Decoded forms.** An application storing a decoded form (Jupyter's `format: "base64"` file,
//! whose `size` counts the decoded bytes) shows it in the entities the state held
//! (`ObservedCall::held_entities`): a held entity whose number is not its text's byte length but
//! the length of the bytes the text decodes to as base64 (line breaks ignored, as MIME base64
//! wraps its lines), and exactly one member the calls sent (other than the text and the number)
//! holding a string no call sent (`format: "base64"`, where the calls sent `"text"`), the same
//! member and value in every such entity, and every held entity with that value decoding to its
//! number: a call sending that member with that value is measured by the decoded bytes; a text
//! that is not base64 then is refused. No held entity of that form, or two candidate members,
//! learns the text length alone.
//!
//! **Stored spelling.** The held entities of that form also show how the application spells the
//! bytes it stores when it reads them back: re-encoded base64 on lines of one length, each ending
//! in a line break (MIME base64, Jupyter's `iVBORw0KGgo=\n`). When every held text of the form is
//! its decoded bytes re-encoded so (one line length shown by a text of two lines or more, and
//! every text ending in a break, or none), the rule learns that spelling ([`Wrap`]) and names the
//! measured member in its `respells`: a call sending the base64 form stores the member re-spelled,
//! and the host lets the rule set that sent member. Without a held text of two lines or more no
//! spelling is learned (the text is stored as sent).

use rea_plugin_api::contracts::rule::{
    ApplyOutcome, ApplyRequest, Effect, LearnOutcome, LearnRequest, NoOptions, ObservedCall,
};
use std::collections::{BTreeMap, BTreeSet};

use rea_plugin_api::contracts::capture::base64;
use rea_plugin_api::json::escape_pointer_segment;
use rea_plugin_api::rule_fields::{self, FieldRules, sent_members, top_field};
use rea_plugin_api::{PluginError, StateRule};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The stage name.
pub const BYTE_LENGTH_STAGE: &str = "byte-length";

/// The one sent string member (other than `field`) whose UTF-8 length is `after`.
fn measured_member(call: &ObservedCall, field: &str, after: &Value) -> Option<String> {
    let length = after.as_u64()?;
    let sent = sent_members(call.request_body.as_ref())?;
    let mut candidates = sent.iter().filter(|(name, value)| {
        name.as_str() != field
            && value
                .as_str()
                .is_some_and(|text| text.len() as u64 == length)
    });
    let (name, _) = candidates.next()?;
    candidates.next().is_none().then(|| name.clone())
}

/// What a learned byte length measures: the sent member's text (spelled as its name alone), or
/// that text's decoded bytes when another sent member names a decoded form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Measured {
    /// The UTF-8 bytes of the sent member of this name.
    Text(String),
    /// The sent member's bytes, or its base64-decoded bytes when `form` is sent.
    Forms {
        /// The sent member measured.
        member: String,
        /// The sent member and value that name the base64 form.
        form: DecodedForm,
    },
}

/// A sent member's value naming a base64 form of the measured text (`format` = `base64`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecodedForm {
    /// The naming member.
    pub member: String,
    /// Its value for the base64 form.
    pub value: String,
    /// The spelling the held texts of the form show, when they show one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wrap: Option<Wrap>,
}

/// How an application spells stored bytes as base64: standard padded base64 on lines of `line`
/// characters joined by line breaks, with a break after the last line when `final_break`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wrap {
    /// The characters of every line but the last.
    pub line: usize,
    /// Whether the last line ends in a break too.
    pub final_break: bool,
}

impl Wrap {
    /// The bytes spelled this way.
    fn spell(&self, bytes: &[u8]) -> String {
        let encoded = base64::encode(bytes);
        let lines: Vec<&str> = encoded
            .as_bytes()
            .chunks(self.line.max(1))
            .map(|chunk| std::str::from_utf8(chunk).unwrap_or_default())
            .collect();
        let mut spelled = lines.join("\n");
        if self.final_break && !spelled.is_empty() {
            spelled.push('\n');
        }
        spelled
    }

    /// The spelling every text shows, when they show one (see the module docs).
    fn shown_by(texts: &[&str]) -> Option<Self> {
        let mut line: Option<usize> = None;
        let mut final_break: Option<bool> = None;
        for &text in texts {
            let breaks = text.ends_with('\n');
            if *final_break.get_or_insert(breaks) != breaks {
                return None;
            }
            let body = text.strip_suffix('\n').unwrap_or(text);
            if let Some((first, _)) = body.split_once('\n')
                && *line.get_or_insert(first.len()) != first.len()
            {
                return None;
            }
        }
        let wrap = Self {
            line: line.filter(|line| *line > 0)?,
            final_break: final_break?,
        };
        texts
            .iter()
            .all(|text| decoded_bytes(text).is_some_and(|bytes| wrap.spell(&bytes) == *text))
            .then_some(wrap)
    }
}

/// The learned rule: per explained pointer, what it measures; and the pointers of the sent members
/// the rule stores re-spelled (`respells`, read by the host: a rule sets a sent member only when
/// it names it there).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ByteLengths {
    /// The explained fields and what each measures.
    pub fields: BTreeMap<String, Measured>,
    /// The sent members a call naming the base64 form stores in the learned spelling.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub respells: Vec<String>,
}

impl Measured {
    /// The sent member measured.
    fn member(&self) -> &str {
        match self {
            Self::Text(member) | Self::Forms { member, .. } => member,
        }
    }

    /// The decoded form a call sending `sent` names, if it names the learned one.
    fn named_form(&self, sent: &Map<String, Value>) -> Option<&DecodedForm> {
        match self {
            Self::Forms { form, .. }
                if sent.get(&form.member).and_then(Value::as_str) == Some(form.value.as_str()) =>
            {
                Some(form)
            }
            _ => None,
        }
    }

    /// The length the sent `text` stores, in a call sending `sent`; `None` when the call names
    /// the base64 form and the text is not base64.
    fn length(&self, text: &str, sent: &Map<String, Value>) -> Option<usize> {
        match self.named_form(sent) {
            Some(_) => decoded_length(text),
            None => Some(text.len()),
        }
    }

    /// The text stored re-spelled, in a call sending `sent` that names a form whose spelling
    /// was learned; `None` when it is stored as sent.
    fn respelled(&self, text: &str, sent: &Map<String, Value>) -> Option<String> {
        let wrap = self.named_form(sent)?.wrap?;
        decoded_bytes(text).map(|bytes| wrap.spell(&bytes))
    }
}

/// The bytes a base64 text decodes to, its line breaks ignored (MIME base64 wraps its lines).
fn decoded_bytes(text: &str) -> Option<Vec<u8>> {
    let joined: String = text.chars().filter(|c| !matches!(c, '\n' | '\r')).collect();
    base64::decode(&joined).ok()
}

/// The number of bytes a base64 text decodes to.
fn decoded_length(text: &str) -> Option<usize> {
    decoded_bytes(text).map(|bytes| bytes.len())
}

/// The string values each sent member (other than `skipped`) took in the calls.
fn sent_strings<'a>(
    calls: &'a [ObservedCall],
    skipped: [&str; 2],
) -> BTreeMap<&'a str, BTreeSet<&'a str>> {
    let mut values: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for call in calls {
        let Some(sent) = sent_members(call.request_body.as_ref()) else {
            continue;
        };
        for (name, value) in sent {
            if let Some(text) = value.as_str()
                && !skipped.contains(&name.as_str())
            {
                values.entry(name).or_default().insert(text);
            }
        }
    }
    values
}

/// The decoded form the held entities show for `field` measuring `member` (see the module docs).
fn decoded_form(calls: &[ObservedCall], field: &str, member: &str) -> Option<DecodedForm> {
    let sent = sent_strings(calls, [field, member]);
    let held = || calls.iter().flat_map(|call| &call.held_entities);
    let mut found: Option<DecodedForm> = None;
    for entity in held() {
        let (Some(size), Some(text)) = (
            entity.get(field).and_then(Value::as_u64),
            entity.get(member).and_then(Value::as_str),
        ) else {
            continue;
        };
        if size == text.len() as u64 || decoded_length(text) != Some(size as usize) {
            continue;
        }
        let mut candidates = sent.iter().filter_map(|(name, values)| {
            let held = entity.get(*name)?.as_str()?;
            (!values.contains(held)).then(|| DecodedForm {
                member: (*name).to_owned(),
                value: held.to_owned(),
                wrap: None,
            })
        });
        let candidate = candidates.next()?;
        if candidates.next().is_some() || found.as_ref().is_some_and(|f| *f != candidate) {
            return None;
        }
        found = Some(candidate);
    }
    let form = found?;
    let decodes = |entity: &Value| {
        entity.get(&form.member).and_then(Value::as_str) != Some(form.value.as_str())
            || entity
                .get(member)
                .and_then(Value::as_str)
                .and_then(decoded_length)
                .map(|length| length as u64)
                == entity.get(field).and_then(Value::as_u64)
    };
    if !held().all(decodes) {
        return None;
    }
    let texts: Vec<&str> = held()
        .filter(|entity| {
            entity.get(&form.member).and_then(Value::as_str) == Some(form.value.as_str())
        })
        .filter_map(|entity| entity.get(member).and_then(Value::as_str))
        .collect();
    Some(DecodedForm {
        wrap: Wrap::shown_by(&texts),
        ..form
    })
}

/// The learned texts, each with the decoded form the held entities show, if any, and the
/// members stored in a learned spelling.
fn with_forms(calls: &[ObservedCall], rule: FieldRules<String>) -> ByteLengths {
    let fields: BTreeMap<String, Measured> = rule
        .fields
        .into_iter()
        .map(|(pointer, member)| {
            let measured =
                match top_field(&pointer).and_then(|field| decoded_form(calls, &field, &member)) {
                    Some(form) => Measured::Forms { member, form },
                    None => Measured::Text(member),
                };
            (pointer, measured)
        })
        .collect();
    let respells: BTreeSet<String> = fields
        .values()
        .filter_map(|measured| match measured {
            Measured::Forms { member, form } if form.wrap.is_some() => {
                Some(format!("/{}", escape_pointer_segment(member)))
            }
            _ => None,
        })
        .collect();
    ByteLengths {
        fields,
        respells: respells.into_iter().collect(),
    }
}

/// The byte-length rule.
#[derive(Debug, Default, Clone, Copy)]
pub struct ByteLengthRule;

impl StateRule for ByteLengthRule {
    type Options = NoOptions;
    /// Per explained pointer, the sent member whose bytes it counts (and its decoded form), and
    /// the sent members stored re-spelled.
    type Rule = ByteLengths;

    /// The effects `learn` answers for (it explains nothing for others), joining only by
    /// explaining.
    fn learn_scope(&self) -> rea_plugin_api::contracts::rule::LearnScope {
        rea_plugin_api::contracts::rule::LearnScope::effects([
            rea_plugin_api::contracts::rule::Effect::Create,
            rea_plugin_api::contracts::rule::Effect::Update,
        ])
        .explaining()
    }

    fn learn(
        &self,
        request: &LearnRequest<NoOptions>,
    ) -> Result<LearnOutcome<Self::Rule>, PluginError> {
        if !matches!(request.effect, Effect::Create | Effect::Update) {
            return Ok(LearnOutcome::no_explanation(
                "a byte length is learned from creates and updates",
            ));
        }
        let outcome = rule_fields::learned_by_agreement(
            &request.calls,
            |call, pointer, after| {
                top_field(pointer).and_then(|field| measured_member(call, &field, after))
            },
            "no unexplained number was the byte length of one sent string member",
        );
        outcome.map_rule(|rule| Ok::<_, PluginError>(with_forms(&request.calls, rule)))
    }

    fn apply(&self, request: &ApplyRequest<Self::Rule>) -> Result<ApplyOutcome, PluginError> {
        let sent = sent_members(request.call.body.as_ref());
        let mut outcome = ApplyOutcome::default();
        for (pointer, measured) in &request.rule.fields {
            let member = measured.member();
            match sent.and_then(|sent| Some((sent, sent.get(member)?))) {
                Some((sent, Value::String(text))) => {
                    let length = measured.length(text, sent).ok_or_else(|| {
                        PluginError::new(
                            "unmeasured_value",
                            format!("{member:?} names a base64 form but is not base64"),
                        )
                    })?;
                    outcome.set.insert(pointer.clone(), Value::from(length));
                    if let Some(spelled) = measured.respelled(text, sent) {
                        let at = format!("/{}", escape_pointer_segment(member));
                        outcome.set.insert(at, Value::String(spelled));
                    }
                }
                Some(_) => {
                    return Err(PluginError::new(
                        "unmeasured_value",
                        format!("{member:?} is measured in bytes only when it is sent as a string"),
                    ));
                }
                None if request.call.entity_before.is_some() => {}
                None => {
                    return Err(PluginError::new(
                        "unmeasured_value",
                        format!("a create must send {member:?}, whose bytes the write stores"),
                    ));
                }
            }
        }
        Ok(outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::testing::{apply_request, learn_request, observed_call};
    use serde_json::json;

    fn learn(effect: Effect, calls: Vec<ObservedCall>) -> LearnOutcome<ByteLengths> {
        let request = learn_request(effect).calls(calls);
        ByteLengthRule.learn(&request.build()).expect("learns")
    }

    fn saved(sent: Value, size: Value) -> ObservedCall {
        observed_call(1)
            .sent(sent)
            .unexplained("/size", size)
            .build()
    }

    #[test]
    fn learns_the_bytes_of_the_one_sent_text_of_that_length_from_one_call() {
        // "é" is two bytes: the length counted is UTF-8 bytes, not characters.
        let outcome = learn(
            Effect::Update,
            vec![saved(
                json!({"type": "file", "format": "text", "content": "# Café\n"}),
                json!(8),
            )],
        );
        let LearnOutcome::Learned { explains, rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(explains, ["/size"]);
        assert_eq!(rule.fields["/size"], Measured::Text("content".to_owned()));
        let applied = ByteLengthRule
            .apply(
                &apply_request(rule.clone())
                    .body(json!({"content": "ünïcode", "format": "text"}))
                    .build(),
            )
            .expect("applies");
        assert_eq!(applied.set["/size"], json!(9));
        // An update not sending the text keeps the size the entity holds.
        let kept = ByteLengthRule
            .apply(
                &apply_request(rule.clone())
                    .entity_before(json!({"content": "abc", "size": 3}))
                    .body(json!({"format": "text"}))
                    .build(),
            )
            .expect("applies");
        assert!(kept.set.is_empty(), "{kept:?}");
        // A create not sending it is refused.
        let error = ByteLengthRule
            .apply(&apply_request(rule).body(json!({"format": "text"})).build())
            .expect_err("refused");
        assert_eq!(error.code, "unmeasured_value");
    }

    #[test]
    fn an_ambiguous_or_disagreeing_length_explains_nothing() {
        // Two sent strings of four bytes: which one is measured is not shown.
        let outcome = learn(
            Effect::Create,
            vec![saved(json!({"type": "file", "content": "abcd"}), json!(4))],
        );
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
        // The second call's size is no sent text's length.
        let outcome = learn(
            Effect::Update,
            vec![
                saved(json!({"content": "abc"}), json!(3)),
                saved(json!({"content": "abcdef"}), json!(7)),
            ],
        );
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
        // A delete measures nothing.
        let outcome = learn(
            Effect::Delete,
            vec![saved(json!({"content": "abc"}), json!(3))],
        );
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
    }

    /// A text file and a base64 file as a document store holds them (`logo.png`: 8 bytes,
    /// encoded on wrapped lines with a final line break).
    fn held() -> Vec<Value> {
        vec![
            json!({"name": "todo.md", "format": "text", "type": "file", "content": "abc", "size": 3}),
            json!({"name": "logo.png", "format": "base64", "type": "file",
                   "content": "iVBO\nRw0KGgo=\n", "size": 8}),
            json!({"name": "notes", "format": "json", "type": "directory", "content": null}),
        ]
    }

    fn created(held: Vec<Value>) -> ObservedCall {
        observed_call(1)
            .sent(json!({"type": "file", "format": "text", "content": "# Stand\n"}))
            .unexplained("/size", json!(8))
            .held_entities(held)
            .build()
    }

    #[test]
    fn a_held_base64_entity_teaches_its_form_and_the_decoded_bytes_are_measured() {
        assert_eq!(decoded_length("iVBO\nRw0KGgo=\n"), Some(8));
        assert_eq!(decoded_length("not base64!"), None);
        let outcome = learn(Effect::Create, vec![created(held())]);
        let LearnOutcome::Learned { rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        let form = DecodedForm {
            member: "format".to_owned(),
            value: "base64".to_owned(),
            wrap: None,
        };
        assert_eq!(
            rule.fields["/size"],
            Measured::Forms {
                member: "content".to_owned(),
                form
            }
        );
        let size = |body: Value| {
            ByteLengthRule
                .apply(&apply_request(rule.clone()).body(body).build())
                .map(|applied| applied.set["/size"].clone())
        };
        let pixel = json!({"type": "file", "format": "base64", "content": "iVBORw0KGgo="});
        assert_eq!(size(pixel).expect("applies"), json!(8));
        let text = json!({"type": "file", "format": "text", "content": "iVBORw0KGgo="});
        assert_eq!(size(text).expect("applies"), json!(12));
        let broken = json!({"type": "file", "format": "base64", "content": "not base64!"});
        assert_eq!(size(broken).expect_err("refused").code, "unmeasured_value");
        // The learned rule keeps the plain spelling when no form was shown.
        let plain = serde_json::to_value(Measured::Text("content".to_owned())).expect("json");
        assert_eq!(plain, json!("content"));
    }

    #[test]
    fn no_form_is_learned_without_one_naming_member_or_against_a_held_entity() {
        let measured = |held: Vec<Value>| {
            let outcome = learn(Effect::Create, vec![created(held)]);
            let LearnOutcome::Learned { rule, .. } = outcome else {
                panic!("{outcome:?}")
            };
            rule.fields["/size"].clone()
        };
        let text = Measured::Text("content".to_owned());
        // Only text files held: nothing shows a decoded form.
        assert_eq!(measured(held()[..1].to_vec()), text);
        // Two sent members hold unsent values: which one names the form is not shown.
        let mut two = held();
        two[1]["type"] = json!("binary");
        assert_eq!(measured(two), text);
        // Another entity of that form whose size is not its decoded length.
        let mut against = held();
        against.push(json!({"format": "base64", "content": "iVBORw0KGgo=", "size": 12}));
        assert_eq!(measured(against), text);
    }

    /// A held base64 text on full lines of 4 characters and a last one, each ending in a break.
    fn wrapped() -> Vec<Value> {
        let mut held = held();
        held[1]["content"] = json!("iVBO\nRw0K\nGgo=\n");
        held
    }

    #[test]
    fn the_held_spelling_of_the_form_is_learned_and_a_base64_save_stored_in_it() {
        assert_eq!(
            Wrap::shown_by(&["iVBO\nRw0K\nGgo=\n"]),
            Some(Wrap {
                line: 4,
                final_break: true
            })
        );
        // One line shows no line length; a text not re-encoded as it reads shows no spelling.
        assert_eq!(Wrap::shown_by(&["iVBORw0KGgo=\n"]), None);
        assert_eq!(Wrap::shown_by(&["iVBO\nRw0KGgo=\n"]), None);
        // Lines of one length disagreeing on the final break show none either.
        assert_eq!(Wrap::shown_by(&["iVBO\nRw0K\nGgo=\n", "iVBO\nRw0K"]), None);
        let outcome = learn(Effect::Create, vec![created(wrapped())]);
        let LearnOutcome::Learned { explains, rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(explains, ["/size"]);
        assert_eq!(rule.respells, ["/content"]);
        let applied = |body: Value| {
            ByteLengthRule
                .apply(&apply_request(rule.clone()).body(body).build())
                .expect("applies")
                .set
        };
        // A base64 save stores its bytes re-encoded on the learned lines, sized by its bytes.
        let set = applied(json!({"type": "file", "format": "base64", "content": "iVBORw0KGgo="}));
        assert_eq!(set["/content"], json!("iVBO\nRw0K\nGgo=\n"));
        assert_eq!(set["/size"], json!(8));
        // A text save is stored as sent: the rule sets its size only.
        let set = applied(json!({"type": "file", "format": "text", "content": "iVBORw0KGgo="}));
        assert!(!set.contains_key("/content"), "{set:?}");
        // Without a learned spelling nothing is re-spelled, and the rule names no member.
        let outcome = learn(Effect::Create, vec![created(held())]);
        let LearnOutcome::Learned { rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        assert!(rule.respells.is_empty());
        assert_eq!(
            serde_json::to_value(&rule).expect("json"),
            json!({"fields": {"/size": {"member": "content",
                "form": {"member": "format", "value": "base64"}}}})
        );
    }
}

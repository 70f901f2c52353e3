//! The `composed`, `slug` and `derived` rules: strings a write builds from the text it was sent.
//!
//! **`composed`** (creates and updates). A string member (or a string nested in a member, such as
//! `/entry/title` in a created object, whose sources are those beside that member) the host
//! could not explain that spells,
//! around fixed text, the values of sent members, path parameters or other members the entity
//! holds (BookStack's `description_html` `<p>{description}</p>`, MLflow's `artifact_uri`
//! `mlflow-artifacts:/{experiment_id}/…`): learned when every recorded call that changed it
//! spells it with one template. The template is found left to right, taking at each position the
//! longest source value (of two characters or more) that starts there, sent members first, then
//! path parameters, then held members, then the members another rule generated in the same call
//! (`made:NAME`, from `ObservedCall::earlier`: a created issue's `link` ending in the id the
//! sequence generated; any length, but only as a whole token). **Apply:** the template filled from
//! the served call (a held member takes its sent value when the call sends it; a generated one is
//! read from `ServedCall::earlier`, which the host fills for a rule marked `earlier`). A call that does not send a member the
//! template takes from the call leaves the string as it is. Sent text is copied as sent,
//! unescaped (a known limit: an application that escapes or renders it spells it otherwise).
//!
//! **`slug`** (creates and updates). A string member that is, in every recorded call that changed
//! it, the slug of one sent member (lowercase letters and digits, other runs of characters one
//! `-`, none at either end): `Hello, World!` → `hello-world`. **Apply:** the slug of the sent
//! member, when sent; not made unique (a known limit: two creates with one title get one slug).
//!
//! **`derived`** (updates). A string member that, in every recorded call that changed it,
//! shows the text of the one sent member the entity stores nowhere (their texts, markup removed,
//! agree or one holds the other: Ghost derives `plaintext` from the `html` it is sent), while
//! the derivation itself is unknown. **Apply:** only the recorded derivations are reproduced: the
//! member sent with a recorded value, to an entity holding the value the recorded call found
//! in the derived member, gives the recorded derived value; sent with that value to an entity
//! holding another is refused (the spec leaves the derived value unspecified; we do not guess
//! one). A call not sending the member leaves the derived member as it is.
//!
//! **`byte-length`** (creates and updates, [`byte_length`]): a number that is the UTF-8 byte
//! length of one sent string member (a document's `size`), or the bytes it decodes to when a
//! sent member names the base64 form the held entities of the type show; a text sent in that form
//! is stored re-encoded in the spelling those entities show (wrapped lines), when they show one.
//!
//! **`name-suffix`** (creates, [`name_suffix`]): a member that is a function of the suffix of a
//! name the create was given (a file's `mimetype` by its extension), learned from the entities
//! of the type the state held.

mod byte_length;
mod name_suffix;

pub use byte_length::{
    BYTE_LENGTH_STAGE, ByteLengthRule, ByteLengths, DecodedForm, Measured, Wrap,
};
pub use name_suffix::{BySuffix, NAME_SUFFIX_STAGE, NameSuffixRule};

use std::collections::BTreeMap;

use rea_plugin_api::contracts::rule::{
    ApplyOutcome, ApplyRequest, Effect, LearnOutcome, LearnRequest, LearnScope, NoOptions,
    ObservedCall,
};
use rea_plugin_api::json::escape_pointer_segment;
use rea_plugin_api::rule_fields::{
    self, Agreement, FieldRules, owning_field, scalar_text, sent_members, top_field,
};
use rea_plugin_api::{Plugin, PluginError, StageInfo, StateRule};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The composed stage name.
pub const COMPOSED_STAGE: &str = "composed";

/// The slug stage name.
pub const SLUG_STAGE: &str = "slug";

/// The derived stage name.
pub const DERIVED_STAGE: &str = "derived";

/// The shortest source value a template takes (shorter values match by chance).
const SHORTEST_SOURCE: usize = 2;

/// The sources a template may take, in preference order: `sent:NAME`, `sent-last:NAME`,
/// `path:INDEX`, `held:NAME`, `made:NAME` → text. A create offers no held member: it holds nothing before
/// the call, so a template reading one could never be filled when served.
fn sources(call: &ObservedCall, except: &str, effect: Effect) -> Vec<(String, String)> {
    let mut found = Vec::new();
    if let Some(sent) = sent_members(call.request_body.as_ref()) {
        for (name, value) in sent {
            if let Some(text) = scalar_text(value) {
                let last = last_part(&text).map(str::to_owned);
                found.push((format!("sent:{name}"), text));
                if let Some(last) = last {
                    found.push((format!("sent-last:{name}"), last));
                }
            }
        }
    }
    for (index, value) in call.path_params.iter().enumerate() {
        found.push((format!("path:{index}"), value.clone()));
    }
    let made: Vec<(String, String)> = made_sources(call, except);
    let held = match &call.entity_after {
        Some(Value::Object(after)) if effect != Effect::Create => Some(after),
        _ => None,
    };
    if let Some(after) = held {
        for (name, value) in after {
            // A held member the write itself changed unexplained gives nothing: two such
            // members would otherwise each spell the other, a rule no call can apply.
            if name == except || changed_unexplained(call, name) {
                continue;
            }
            if let Some(text) = scalar_text(value) {
                found.push((format!("held:{name}"), text));
            }
        }
    }
    found.retain(|(_, text)| text.chars().count() >= SHORTEST_SOURCE);
    found.extend(made);
    found
}

/// The `made:NAME` sources: the top-level members another rule generated for this call (its
/// `earlier` values, a created entity's id), of any length; a template places one only as a
/// whole token (see [`MADE`]), so a short generated id never matches inside other text.
fn made_sources(call: &ObservedCall, except: &str) -> Vec<(String, String)> {
    call.earlier
        .iter()
        .filter_map(|(pointer, value)| {
            let name = top_field(pointer)?;
            let text = scalar_text(value)?;
            (name != except && !text.is_empty()).then(|| (format!("{MADE}{name}"), text))
        })
        .collect()
}

/// The prefix of a source another rule generated in the same call.
const MADE: &str = "made:";

/// Whether `source` (spelling `text`) may start at `rest`, `before` the character in front of
/// it: a generated value only as a whole token, no letter or digit touching it on either side.
fn fits(source: &str, text: &str, rest: &str, before: Option<char>) -> bool {
    if !rest.starts_with(text) {
        return false;
    }
    if !source.starts_with(MADE) {
        return true;
    }
    let touches = |character: Option<char>| character.is_some_and(char::is_alphanumeric);
    !touches(before) && !touches(rest[text.len()..].chars().next())
}

/// Whether the call changed the top-level member `name` in a way nothing explains yet.
fn changed_unexplained(call: &ObservedCall, name: &str) -> bool {
    call.unexplained
        .keys()
        .any(|pointer| owning_field(pointer).as_deref() == Some(name))
}

/// The last `/`-separated part of a sent path-like text (`archive/old-notes.md` →
/// `old-notes.md`): a name a call gives inside a path; `None` when the text holds no `/` or the
/// part is empty.
fn last_part(text: &str) -> Option<&str> {
    let (_, last) = text.rsplit_once('/')?;
    (!last.is_empty()).then_some(last)
}

/// One part of a composed string's template: fixed text, or a source (`sent:NAME`, `path:INDEX`,
/// `held:NAME`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Part {
    /// Fixed text.
    Text {
        /// The text.
        text: String,
    },
    /// A value the call gives.
    Source {
        /// `sent:NAME`, `sent-last:NAME`, `path:INDEX`, `held:NAME` or `made:NAME`.
        source: String,
    },
}

/// A string's template, when it spells some of the sources around fixed text.
fn template_of(value: &str, sources: &[(String, String)]) -> Option<Vec<Part>> {
    let mut parts: Vec<Part> = Vec::new();
    let mut literal = String::new();
    let mut rest = value;
    let mut placed = false;
    let mut before: Option<char> = None;
    while !rest.is_empty() {
        let best = sources
            .iter()
            .filter(|(name, text)| fits(name, text, rest, before))
            .fold(None::<&(String, String)>, |best, source| match best {
                Some(kept) if kept.1.len() >= source.1.len() => Some(kept),
                _ => Some(source),
            });
        match best {
            Some((name, text)) => {
                if !literal.is_empty() {
                    parts.push(Part::Text {
                        text: std::mem::take(&mut literal),
                    });
                }
                parts.push(Part::Source {
                    source: name.clone(),
                });
                before = text.chars().last();
                rest = &rest[text.len()..];
                placed = true;
            }
            None => {
                let next = rest.chars().next()?;
                literal.push(next);
                before = Some(next);
                rest = &rest[next.len_utf8()..];
            }
        }
    }
    if !literal.is_empty() {
        parts.push(Part::Text { text: literal });
    }
    placed.then_some(parts)
}

/// What `composed` learns: per member, its template; and whether a template reads a value
/// another rule generates in the same call (`made:NAME`), so the host calls the rule after the
/// others, passing their values (`ServedCall::earlier`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Templates {
    /// Per member pointer, its template.
    pub fields: BTreeMap<String, Vec<Part>>,
    /// Whether some template reads a `made:NAME` source.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub earlier: bool,
}

/// The composed rule.
#[derive(Debug, Default, Clone, Copy)]
pub struct ComposedRule;

impl StateRule for ComposedRule {
    type Options = NoOptions;
    /// Per member, its template.
    type Rule = Templates;

    /// The effects `learn` answers for (it explains nothing for others), joining only by
    /// explaining.
    fn learn_scope(&self) -> LearnScope {
        LearnScope::effects(Effect::WRITING_MEMBERS).explaining()
    }

    fn learn(
        &self,
        request: &LearnRequest<NoOptions>,
    ) -> Result<LearnOutcome<Self::Rule>, PluginError> {
        if request.effect.deletes() {
            return Ok(LearnOutcome::no_explanation("a delete composes no string"));
        }
        let mut found = Agreement::default();
        for call in &request.calls {
            for (pointer, value) in &call.unexplained {
                // A string nested in a created object (`/entry/title`) composes from the
                // sources beside the object it nests in.
                let Some(field) = owning_field(pointer) else {
                    continue;
                };
                let template = value
                    .as_str()
                    .and_then(|value| template_of(value, &sources(call, &field, request.effect)));
                found.record(pointer, template);
            }
        }
        Ok(templates(rule_fields::learned(
            found.agreed(),
            "no unexplained string spelled the call's values with one template",
        )))
    }

    fn apply(&self, request: &ApplyRequest<Self::Rule>) -> Result<ApplyOutcome, PluginError> {
        let sent = sent_members(request.call.body.as_ref());
        let held = request
            .call
            .entity_before
            .as_ref()
            .and_then(Value::as_object);
        let mut outcome = ApplyOutcome::default();
        'fields: for (pointer, parts) in &request.rule.fields {
            let mut spelled = String::new();
            for part in parts {
                let source = match part {
                    Part::Text { text } => {
                        spelled.push_str(text);
                        continue;
                    }
                    Part::Source { source } => source,
                };
                let value = match source.split_once(':') {
                    Some(("sent", name)) => {
                        sent.and_then(|sent| sent.get(name)).and_then(scalar_text)
                    }
                    Some(("sent-last", name)) => sent
                        .and_then(|sent| sent.get(name))
                        .and_then(scalar_text)
                        .and_then(|text| last_part(&text).map(str::to_owned)),
                    Some(("path", index)) => index
                        .parse::<usize>()
                        .ok()
                        .and_then(|index| request.call.path_params.get(index).cloned()),
                    Some(("held", name)) => sent
                        .and_then(|sent| sent.get(name))
                        .or_else(|| held.and_then(|held| held.get(name)))
                        .and_then(scalar_text),
                    Some(("made", name)) => request
                        .call
                        .earlier
                        .get(&format!("/{}", escape_pointer_segment(name)))
                        .and_then(scalar_text),
                    _ => {
                        return Err(PluginError::new(
                            "invalid_rule",
                            "a template part names an unknown source",
                        ));
                    }
                };
                // A source the call does not give: the string stays as it is.
                let Some(value) = value else {
                    continue 'fields;
                };
                spelled.push_str(&value);
            }
            outcome.set.insert(pointer.clone(), Value::String(spelled));
        }
        Ok(outcome)
    }
}

/// The learned templates as `composed`'s rule, marked when one reads a `made:NAME` source.
fn templates(outcome: LearnOutcome<FieldRules<Vec<Part>>>) -> LearnOutcome<Templates> {
    let mapped = outcome.map_rule(|rule| {
        let earlier = rule
            .fields
            .values()
            .flatten()
            .any(|part| matches!(part, Part::Source { source } if source.starts_with(MADE)));
        Ok::<_, std::convert::Infallible>(Templates {
            fields: rule.fields,
            earlier,
        })
    });
    match mapped {
        Ok(outcome) => outcome,
        Err(never) => match never {},
    }
}

/// A text's slug: lowercase letters and digits, every other run of characters one `-`, none at
/// either end.
pub fn slugify(text: &str) -> String {
    let mut slug = String::with_capacity(text.len());
    let mut gap = false;
    for character in text.chars().flat_map(char::to_lowercase) {
        if character.is_alphanumeric() {
            if gap && !slug.is_empty() {
                slug.push('-');
            }
            gap = false;
            slug.push(character);
        } else {
            gap = true;
        }
    }
    slug
}

/// A text with markup removed and whitespace collapsed.
fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_tag = false;
    for character in text.chars() {
        match character {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                out.push(' ');
            }
            _ if !in_tag => out.push(character),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether a derived text shows a sent text.
fn shows(derived: &str, sent: &str) -> bool {
    let (derived, sent) = (plain(derived), plain(sent));
    !derived.is_empty() && !sent.is_empty() && (derived.contains(&sent) || sent.contains(&derived))
}

/// What `derived` learns per member: the sent member it shows, and every recorded derivation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Derivation {
    /// The sent member whose text the derived member shows.
    pub member: String,
    /// The recorded derivations.
    pub derivations: Vec<Derived>,
}

/// One recorded derivation: the text sent, the derived text, and what the entity held before.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Derived {
    /// The sent text.
    pub sent: String,
    /// The derived text the entity then held.
    pub derived: String,
    /// The derived member's value before the call.
    pub held: Value,
}

/// The derived rule.
#[derive(Debug, Default, Clone, Copy)]
pub struct DerivedRule;

impl StateRule for DerivedRule {
    type Options = NoOptions;
    type Rule = FieldRules<Derivation>;

    /// The effects `learn` answers for (it explains nothing for others), joining only by
    /// explaining.
    fn learn_scope(&self) -> LearnScope {
        LearnScope::effects([Effect::Update, Effect::Action]).explaining()
    }

    fn learn(
        &self,
        request: &LearnRequest<NoOptions>,
    ) -> Result<LearnOutcome<Self::Rule>, PluginError> {
        if !matches!(request.effect, Effect::Update | Effect::Action) {
            return Ok(LearnOutcome::no_explanation(
                "a derived member is learned from updates",
            ));
        }
        // Per pointer: the member and the recorded derivations, or `None` once a call disagrees.
        let mut found: BTreeMap<String, Option<(String, Vec<Derived>)>> = BTreeMap::new();
        for call in &request.calls {
            let sent = sent_members(call.request_body.as_ref());
            let after = call.entity_after.as_ref().and_then(Value::as_object);
            for (pointer, value) in &call.unexplained {
                let derivation = (|| {
                    let field = top_field(pointer)?;
                    let derived = value.as_str()?;
                    let held = call.entity_before.as_ref()?.get(&field)?.clone();
                    // The one sent member whose text it shows and the entity stores nowhere.
                    let candidates: Vec<(&String, &str)> = sent?
                        .iter()
                        .filter_map(|(name, sent)| Some((name, sent.as_str()?)))
                        .filter(|(name, text)| {
                            **name != field
                                && shows(derived, text)
                                && after.is_none_or(|after| {
                                    after.values().all(|stored| stored.as_str() != Some(*text))
                                })
                        })
                        .collect();
                    let [(name, text)] = candidates.as_slice() else {
                        return None;
                    };
                    Some((
                        (*name).clone(),
                        Derived {
                            sent: (*text).to_owned(),
                            derived: derived.to_owned(),
                            held,
                        },
                    ))
                })();
                let entry = found.entry(pointer.clone()).or_insert_with(|| {
                    derivation
                        .as_ref()
                        .map(|(name, _)| (name.clone(), Vec::new()))
                });
                match (entry.as_mut(), derivation) {
                    (Some((known, examples)), Some((name, example))) if *known == name => {
                        examples.push(example);
                    }
                    _ => *entry = None,
                }
            }
        }
        let fields = found.into_iter().filter_map(|(pointer, derivation)| {
            let (member, derivations) = derivation?;
            Some((
                pointer,
                Derivation {
                    member,
                    derivations,
                },
            ))
        });
        Ok(rule_fields::learned(
            fields,
            "no unexplained string showed the text of one sent member stored nowhere",
        ))
    }

    fn apply(&self, request: &ApplyRequest<Self::Rule>) -> Result<ApplyOutcome, PluginError> {
        let sent = sent_members(request.call.body.as_ref());
        let mut outcome = ApplyOutcome::default();
        for (pointer, learned) in &request.rule.fields {
            let member = &learned.member;
            let Some(value) = sent.and_then(|sent| sent.get(member)) else {
                continue;
            };
            let field = top_field(pointer).ok_or_else(|| {
                PluginError::new("invalid_rule", "a derived field is not a member")
            })?;
            let held = request
                .call
                .entity_before
                .as_ref()
                .and_then(|before| before.get(&field));
            let recorded: Vec<&Derived> = learned
                .derivations
                .iter()
                .filter(|example| value.as_str() == Some(example.sent.as_str()))
                .collect();
            if recorded.is_empty() {
                return Err(PluginError::new(
                    "underived_value",
                    format!(
                        "{field:?} is derived from {member:?} only for the values the recorded calls sent"
                    ),
                ));
            }
            let Some(example) = recorded.iter().find(|example| Some(&example.held) == held) else {
                return Err(PluginError::new(
                    "underived_value",
                    format!(
                        "{field:?} is derived from {member:?} only for an entity holding the {field:?} the recorded call found"
                    ),
                ));
            };
            outcome
                .set
                .insert(pointer.clone(), Value::String(example.derived.clone()));
        }
        Ok(outcome)
    }
}

/// The slug rule.
#[derive(Debug, Default, Clone, Copy)]
pub struct SlugRule;

impl StateRule for SlugRule {
    type Options = NoOptions;
    /// Per member, the sent member it is the slug of.
    type Rule = FieldRules<String>;

    /// The effects `learn` answers for (it explains nothing for others), joining only by
    /// explaining.
    fn learn_scope(&self) -> LearnScope {
        LearnScope::effects(Effect::WRITING_MEMBERS).explaining()
    }

    fn learn(
        &self,
        request: &LearnRequest<NoOptions>,
    ) -> Result<LearnOutcome<Self::Rule>, PluginError> {
        if request.effect.deletes() {
            return Ok(LearnOutcome::no_explanation("a delete makes no slug"));
        }
        Ok(rule_fields::learned_by_agreement(
            &request.calls,
            |call, _, value| {
                let sent = sent_members(call.request_body.as_ref())?;
                let slug = value.as_str().filter(|slug| !slug.is_empty())?;
                sent.iter().find_map(|(name, sent)| {
                    (sent.as_str().map(slugify).as_deref() == Some(slug)
                        && sent.as_str() != Some(slug))
                    .then(|| name.clone())
                })
            },
            "no unexplained string was the slug of a sent member",
        ))
    }

    fn apply(&self, request: &ApplyRequest<Self::Rule>) -> Result<ApplyOutcome, PluginError> {
        let sent = sent_members(request.call.body.as_ref());
        let mut outcome = ApplyOutcome::default();
        for (pointer, source) in &request.rule.fields {
            if let Some(text) = sent
                .and_then(|sent| sent.get(source))
                .and_then(Value::as_str)
            {
                outcome
                    .set
                    .insert(pointer.clone(), Value::String(slugify(text)));
            }
        }
        Ok(outcome)
    }
}

rea_plugin_api::plugin_root_module! {
    /// The root module of the composed, slug, derived, byte-length and name-suffix rules.
    pub fn root_module() = Plugin::new("rea-composed", env!("CARGO_PKG_VERSION"))
        .rule(
            StageInfo::new(COMPOSED_STAGE, "Explains strings a write spells from sent members, path values and held members around fixed text"),
            ComposedRule,
        )
        .rule(
            StageInfo::new(SLUG_STAGE, "Explains strings that are the slug of a sent member"),
            SlugRule,
        )
        .rule(
            StageInfo::new(DERIVED_STAGE, "Explains strings showing the text of the one sent member the entity stores nowhere, reproducing the recorded derivations"),
            DerivedRule,
        )
        .rule(
            StageInfo::new(BYTE_LENGTH_STAGE, "Explains a number that is the byte length of one sent string member (a document's size)"),
            ByteLengthRule,
        )
        .rule(
            StageInfo::new(NAME_SUFFIX_STAGE, "Explains a member a create stores as a function of the suffix of a name it was given (a file's media type by its extension), learned from the held entities"),
            NameSuffixRule,
        );
}

rea_plugin_api::submit_builtin!(root_module);

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::contracts::rule::{ServedCall, ToolRef};
    use serde_json::json;

    fn learn<R: StateRule<Options = NoOptions>>(
        rule: &R,
        effect: &str,
        calls: Vec<ObservedCall>,
    ) -> LearnOutcome<R::Rule> {
        rule.learn(&LearnRequest {
            calls,
            clock_anchors: Vec::new(),
            effect: serde_json::from_value(serde_json::Value::from(effect)).expect("an effect"),
            identity_field: Some("id".into()),
            options: NoOptions {},
            schema_version: 1,
            tool: ToolRef {
                method: "PUT".into(),
                name: "put_books_by_id".into(),
                path_template: "/books/{id}".into(),
            },
        })
        .expect("learns")
    }

    fn apply<R: StateRule>(rule: &R, learned: R::Rule, call: ServedCall) -> ApplyOutcome {
        rule.apply(&ApplyRequest {
            call,
            rule: learned,
            schema_version: 1,
            tool: ToolRef {
                method: "PUT".into(),
                name: "put_books_by_id".into(),
                path_template: "/books/{id}".into(),
            },
        })
        .expect("applies")
    }

    fn call(body: Value, after: Value, unexplained: Value) -> ObservedCall {
        ObservedCall {
            request_body: Some(body),
            entity_after: Some(after),
            unexplained: serde_json::from_value(unexplained).expect("a map"),
            ..ObservedCall::default()
        }
    }

    #[test]
    fn composes_a_string_from_sent_text_unescaped() {
        // contract: WRITE-014, WRITE-075
        // BookStack: `description_html` wraps the sent description.
        let outcome = learn(
            &ComposedRule,
            "update",
            vec![
                call(
                    json!({"name": "Shelf", "description": "Old maps"}),
                    json!({"id": 4, "name": "Shelf", "description": "Old maps", "description_html": "<p>Old maps</p>"}),
                    json!({"/description_html": "<p>Old maps</p>"}),
                ),
                call(
                    json!({"description": "Sea charts"}),
                    json!({"id": 5, "name": "Box", "description": "Sea charts", "description_html": "<p>Sea charts</p>"}),
                    json!({"/description_html": "<p>Sea charts</p>"}),
                ),
            ],
        );
        let LearnOutcome::Learned { explains, rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(explains, ["/description_html"]);
        let applied = apply(
            &ComposedRule,
            rule.clone(),
            ServedCall {
                body: Some(json!({"description": "Salt & pepper"})),
                entity_before: Some(
                    json!({"id": 6, "description": "x", "description_html": "<p>x</p>"}),
                ),
                ..ServedCall::default()
            },
        );
        // Copied as sent: `&` is not escaped (a known limit).
        assert_eq!(
            applied.set["/description_html"],
            json!("<p>Salt & pepper</p>")
        );
        // A call not sending the description leaves the string as it is.
        let applied = apply(
            &ComposedRule,
            rule,
            ServedCall {
                body: Some(json!({"name": "Other"})),
                entity_before: Some(json!({"id": 6, "description": "x"})),
                ..ServedCall::default()
            },
        );
        assert!(applied.set.is_empty());
    }

    #[test]
    fn two_members_the_write_changed_unexplained_never_spell_each_other() {
        // A create whose answer holds `name` equal to `path`, neither sent: each is a held value
        // of the other, but neither is given by the call, so no template is learned.
        let outcome = learn(
            &ComposedRule,
            "create",
            vec![call(
                json!({"type": "directory"}),
                json!({"name": "Untitled Folder", "path": "Untitled Folder", "type": "directory"}),
                json!({"/name": "Untitled Folder", "/path": "Untitled Folder"}),
            )],
        );
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
    }

    #[test]
    fn a_create_spells_no_member_from_a_held_one() {
        // A created message's link spells its answer's `type` (a constant of every create) and
        // a literal id: the create held nothing before, so no served call could fill `held:type`.
        let created = || {
            call(
                json!({"content": "Hello", "author": "4"}),
                json!({"id": "9", "type": "msg", "link": "http://h/rest/data/msg/9"}),
                json!({"/link": "http://h/rest/data/msg/9"}),
            )
        };
        let outcome = learn(&ComposedRule, "create", vec![created()]);
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
        // An update, holding the entity before the call, spells it from the held member.
        let LearnOutcome::Learned { rule, .. } = learn(&ComposedRule, "update", vec![created()])
        else {
            panic!("an update learns the template")
        };
        assert_eq!(
            rule.fields["/link"][1],
            Part::Source {
                source: "held:type".into()
            }
        );
    }

    #[test]
    fn a_create_spells_a_member_from_the_id_another_rule_generated() {
        // Roundup-like: the created issue's link ends in the id the sequence generated
        // (`earlier`); the id `7` inside `127.0.0.1` is no whole token, so it is not taken.
        let created = |id: &str| ObservedCall {
            earlier: serde_json::from_value(json!({"/id": id})).expect("a map"),
            ..call(
                json!({"title": "Export"}),
                json!({"id": id, "link": format!("http://127.0.0.1/rest/data/issue/{id}")}),
                json!({"/link": format!("http://127.0.0.1/rest/data/issue/{id}")}),
            )
        };
        let LearnOutcome::Learned { explains, rule, .. } =
            learn(&ComposedRule, "create", vec![created("7"), created("8")])
        else {
            panic!("the create learns the template")
        };
        assert_eq!(explains, ["/link"]);
        assert!(rule.earlier, "{rule:?}");
        assert_eq!(
            rule.fields["/link"],
            [
                Part::Text {
                    text: "http://127.0.0.1/rest/data/issue/".into()
                },
                Part::Source {
                    source: "made:id".into()
                }
            ]
        );
        let served = |earlier: Value| ServedCall {
            body: Some(json!({"title": "Import"})),
            earlier: serde_json::from_value(earlier).expect("a map"),
            ..ServedCall::default()
        };
        let applied = apply(&ComposedRule, rule.clone(), served(json!({"/id": "12"})));
        assert_eq!(
            applied.set["/link"],
            json!("http://127.0.0.1/rest/data/issue/12")
        );
        // Without the generated id the link is left as it is.
        let applied = apply(&ComposedRule, rule, served(json!({})));
        assert!(applied.set.is_empty());
        // A template without a generated source is not marked: the host calls it with the others.
        let LearnOutcome::Learned { rule, .. } = learn(
            &ComposedRule,
            "update",
            vec![call(
                json!({"description": "Old maps"}),
                json!({"id": 4, "description_html": "<p>Old maps</p>"}),
                json!({"/description_html": "<p>Old maps</p>"}),
            )],
        ) else {
            panic!("the update learns the template")
        };
        assert!(!rule.earlier);
        assert!(
            !serde_json::to_string(&rule)
                .expect("json")
                .contains("earlier")
        );
    }

    #[test]
    fn names_a_member_by_the_last_part_of_a_sent_path() {
        // Jupyter-like rename: the name is the last part of the sent path, not a template
        // fitted to the path segment (`old-` + `notes` + `.md`).
        let outcome = learn(
            &ComposedRule,
            "update",
            vec![ObservedCall {
                path_params: vec!["notes".into(), "untitled.md".into()],
                ..call(
                    json!({"path": "archive/old-notes.md"}),
                    json!({"name": "old-notes.md", "path": "archive/old-notes.md"}),
                    json!({"/name": "old-notes.md"}),
                )
            }],
        );
        let LearnOutcome::Learned { explains, rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(explains, ["/name"]);
        let served = |body: Value| ServedCall {
            body: Some(body),
            entity_before: Some(json!({"name": "todo.md", "path": "notes/todo.md"})),
            ..ServedCall::default()
        };
        let applied = apply(
            &ComposedRule,
            rule.clone(),
            served(json!({"path": "notes/done.md"})),
        );
        assert_eq!(applied.set["/name"], json!("done.md"));
        // A sent path with no `/` gives no last part: the name stays as it is.
        let applied = apply(&ComposedRule, rule, served(json!({"path": "done.md"})));
        assert!(applied.set.is_empty());
    }

    #[test]
    fn the_last_part_of_a_path_needs_a_separator_and_text() {
        assert_eq!(last_part("a/b/c.md"), Some("c.md"));
        assert_eq!(last_part("c.md"), None);
        assert_eq!(last_part("a/"), None);
    }

    #[test]
    fn composes_a_string_nested_in_a_created_object_from_the_sources_beside_it() {
        // A created entry nests an object whose title repeats the sent title.
        let created = |title: &str| {
            call(
                json!({"title": title, "url": "http://example.test/a"}),
                json!({"id": 3, "title": title, "entry": {"title": title}}),
                json!({"/entry/title": title}),
            )
        };
        let outcome = learn(
            &ComposedRule,
            "create",
            vec![created("Tenet 2020"), created("Memento 2000")],
        );
        let LearnOutcome::Learned { explains, rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(explains, ["/entry/title"]);
        let applied = apply(
            &ComposedRule,
            rule,
            ServedCall {
                body: Some(json!({"title": "Heat 1995"})),
                ..ServedCall::default()
            },
        );
        assert_eq!(applied.set["/entry/title"], json!("Heat 1995"));
    }

    #[test]
    fn composes_from_path_values_and_held_members() {
        // MLflow-like: the artifact location spells the experiment (held) and the path's id.
        let observed = |id: &str| ObservedCall {
            path_params: vec![id.to_owned()],
            request_body: Some(json!({"status": "FINISHED"})),
            entity_after: Some(
                json!({"experiment_id": "17", "status": "FINISHED", "uri": format!("store:/17/{id}/artifacts")}),
            ),
            unexplained: [(
                "/uri".to_owned(),
                json!(format!("store:/17/{id}/artifacts")),
            )]
            .into(),
            ..ObservedCall::default()
        };
        let outcome = learn(
            &ComposedRule,
            "update",
            vec![observed("ab12"), observed("cd34")],
        );
        let LearnOutcome::Learned { rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        let applied = apply(
            &ComposedRule,
            rule,
            ServedCall {
                path_params: vec!["ef56".into()],
                body: Some(json!({"status": "FAILED"})),
                entity_before: Some(json!({"experiment_id": "23"})),
                ..ServedCall::default()
            },
        );
        assert_eq!(applied.set["/uri"], json!("store:/23/ef56/artifacts"));
    }

    #[test]
    fn no_template_without_a_source_or_with_two_templates() {
        // Text that spells nothing the call gave is not composed.
        let outcome = learn(
            &ComposedRule,
            "update",
            vec![call(
                json!({"name": "a"}),
                json!({"id": 1, "token": "zq81"}),
                json!({"/token": "zq81"}),
            )],
        );
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
        // Two calls spelled with different templates.
        let outcome = learn(
            &ComposedRule,
            "update",
            vec![
                call(
                    json!({"description": "Old maps"}),
                    json!({"html": "<p>Old maps</p>"}),
                    json!({"/html": "<p>Old maps</p>"}),
                ),
                call(
                    json!({"description": "Sea charts"}),
                    json!({"html": "<div>Sea charts</div>"}),
                    json!({"/html": "<div>Sea charts</div>"}),
                ),
            ],
        );
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
    }

    #[test]
    fn slugs_a_sent_title_and_repeats_it() {
        // contract: WRITE-011, WRITE-074
        assert_eq!(slugify("Hello, World!"), "hello-world");
        assert_eq!(slugify("  Ça va? 2 fois "), "ça-va-2-fois");
        let outcome = learn(
            &SlugRule,
            "update",
            vec![call(
                json!({"posts": [{"title": "My First Post"}]}),
                json!({"id": 1, "title": "My First Post", "slug": "my-first-post"}),
                json!({"/slug": "my-first-post"}),
            )],
        );
        let LearnOutcome::Learned { explains, rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(explains, ["/slug"]);
        let served = |title: &str| ServedCall {
            body: Some(json!({"posts": [{"title": title}]})),
            ..ServedCall::default()
        };
        let first = apply(&SlugRule, rule.clone(), served("Tides & Winds"));
        assert_eq!(first.set["/slug"], json!("tides-winds"));
        // The same title gives the same slug: not made unique (a known limit).
        let second = apply(&SlugRule, rule.clone(), served("Tides & Winds"));
        assert_eq!(second.set, first.set);
        // No title sent: the slug stays.
        let untouched = apply(
            &SlugRule,
            rule,
            ServedCall {
                body: Some(json!({"posts": [{"body": "x"}]})),
                ..ServedCall::default()
            },
        );
        assert!(untouched.set.is_empty());
    }

    #[test]
    fn a_member_stored_as_sent_is_no_slug() {
        let outcome = learn(
            &SlugRule,
            "update",
            vec![call(
                json!({"code": "abc"}),
                json!({"id": 1, "key": "abc"}),
                json!({"/key": "abc"}),
            )],
        );
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
    }

    #[test]
    fn a_derived_member_reproduces_only_the_recorded_derivation() {
        // contract: WRITE-013, WRITE-039, WRITE-040
        // Ghost: `plaintext` derived from the sent `html`, which the post stores nowhere (it
        // keeps `lexical`).
        let outcome = learn(
            &DerivedRule,
            "update",
            vec![ObservedCall {
                request_body: Some(json!({"posts": [{"html": "<p>Hello <b>you</b></p>"}]})),
                entity_before: Some(json!({"id": "p1", "plaintext": "Old", "lexical": "{}"})),
                entity_after: Some(json!({"id": "p1", "plaintext": "Hello you", "lexical": "{…}"})),
                unexplained: [("/plaintext".to_owned(), json!("Hello you"))].into(),
                ..ObservedCall::default()
            }],
        );
        let LearnOutcome::Learned { explains, rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(explains, ["/plaintext"]);
        let served = |html: Option<&str>, held: &str| ServedCall {
            body: Some(match html {
                Some(html) => json!({"posts": [{"html": html}]}),
                None => json!({"posts": [{"title": "t"}]}),
            }),
            entity_before: Some(json!({"id": "p1", "plaintext": held})),
            ..ServedCall::default()
        };
        let applied = apply(
            &DerivedRule,
            rule.clone(),
            served(Some("<p>Hello <b>you</b></p>"), "Old"),
        );
        assert_eq!(applied.set["/plaintext"], json!("Hello you"));
        // Not sent: unchanged.
        assert!(
            apply(&DerivedRule, rule.clone(), served(None, "Old"))
                .set
                .is_empty()
        );
        // Sent with its recorded value to an entity holding another: refused.
        let refused = DerivedRule.apply(&ApplyRequest {
            call: served(Some("<p>Hello <b>you</b></p>"), "Something else"),
            rule: rule.clone(),
            schema_version: 1,
            tool: ToolRef {
                method: "PUT".into(),
                name: "put_posts_by_id".into(),
                path_template: "/posts/{id}".into(),
            },
        });
        assert!(refused.is_err());
        // Sent with another value: no recorded derivation.
        let refused = DerivedRule.apply(&ApplyRequest {
            call: served(Some("<p>Other</p>"), "Old"),
            rule,
            schema_version: 1,
            tool: ToolRef {
                method: "PUT".into(),
                name: "put_posts_by_id".into(),
                path_template: "/posts/{id}".into(),
            },
        });
        assert!(refused.is_err());
    }

    #[test]
    fn a_member_the_entity_stores_is_no_derivation_source() {
        let outcome = learn(
            &DerivedRule,
            "update",
            vec![ObservedCall {
                request_body: Some(json!({"title": "Hello"})),
                entity_before: Some(json!({"id": 1, "title": "Old", "summary": "Old"})),
                entity_after: Some(json!({"id": 1, "title": "Hello", "summary": "Hello"})),
                unexplained: [("/summary".to_owned(), json!("Hello"))].into(),
                ..ObservedCall::default()
            }],
        );
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
    }
}

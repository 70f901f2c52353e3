//! The `name-suffix` rule: a member a create stores as a function of the suffix of a name it
//! was given (Jupyter's contents `mimetype`, `text/markdown` for `.md`, `null` for `.ipynb`,
//! which the server takes from the file name's extension).
//!
//! **Learn** (creates). A top-level member the host could not explain holding a string or null
//! (a value the created entity's collection shared by chance, which the host offers when the
//! type's other collections hold others: see `ObservedCall::held_entities`) is a function of the
//! suffix of another string member, the text after the last `.` of its last `/`-separated part
//! (a name without one, or a dot-file, has none), when: the entities of the type the state held
//! map each such suffix to one value, and hold at least two values; every recorded call stored,
//! for its name's suffix, the value the held entities map it to (a suffix they never held is
//! learned from the call), and some call's suffix was one they held; and every call was given that name as sent or in its path (the same
//! sent member, or the same path parameter, in every call). The first such member, by name, is
//! the one taken.
//!
//! **Apply.** The member takes the value of the given name's suffix. A create whose name has a
//! suffix the build never showed, or none, is refused (the value is the application's, not ours
//! to guess); a call not giving the name leaves an entity it updates as it is and refuses a
//! create.

use std::collections::BTreeMap;

use rea_plugin_api::contracts::rule::{
    ApplyOutcome, ApplyRequest, Effect, LearnOutcome, LearnRequest, NoOptions, ObservedCall,
};
use rea_plugin_api::rule_fields::{FieldRules, scalar_text, sent_members, top_field};
use rea_plugin_api::{PluginError, StateRule};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The stage name.
pub const NAME_SUFFIX_STAGE: &str = "name-suffix";

/// A member learned as a function of a name's suffix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BySuffix {
    /// The member holding the name in the entity.
    pub member: String,
    /// Where a call gives the name: `sent:NAME` or `path:INDEX`.
    pub source: String,
    /// Each suffix seen → the value stored for it.
    pub values: BTreeMap<String, Value>,
}

/// The suffix of a name: the text after the last `.` of its last `/`-separated part, when both
/// sides of that dot hold text.
pub fn suffix(name: &str) -> Option<&str> {
    let last = name.rsplit('/').next()?;
    let (stem, suffix) = last.rsplit_once('.')?;
    (!stem.is_empty() && !suffix.is_empty()).then_some(suffix)
}

/// Each suffix of `member` the held entities show → the one value they hold in `field`; `None`
/// when some suffix maps to two values.
fn held_map(calls: &[ObservedCall], member: &str, field: &str) -> Option<BTreeMap<String, Value>> {
    let mut values: BTreeMap<String, Value> = BTreeMap::new();
    for entity in calls.iter().flat_map(|call| &call.held_entities) {
        let (Some(name), Some(value)) = (
            entity.get(member).and_then(Value::as_str),
            entity.get(field),
        ) else {
            continue;
        };
        let Some(suffix) = suffix(name) else {
            continue;
        };
        if !matches!(value, Value::String(_) | Value::Null) {
            return None;
        }
        match values.get(suffix) {
            Some(held) if held != value => return None,
            Some(_) => {}
            None => {
                values.insert(suffix.to_owned(), value.clone());
            }
        }
    }
    Some(values)
}

/// Where a call gives the text `name`: the sent members holding it, then the path parameters.
fn sources_of(call: &ObservedCall, name: &str) -> Vec<String> {
    let mut found: Vec<String> = sent_members(call.request_body.as_ref())
        .into_iter()
        .flatten()
        .filter(|(_, value)| scalar_text(value).as_deref() == Some(name))
        .map(|(sent, _)| format!("sent:{sent}"))
        .collect();
    found.extend(
        call.path_params
            .iter()
            .enumerate()
            .filter(|(_, param)| param.as_str() == name)
            .map(|(index, _)| format!("path:{index}")),
    );
    found
}

/// The rule for `field` by the suffix of `member`, when the held entities and every call agree.
fn by_member(calls: &[ObservedCall], pointer: &str, field: &str, member: &str) -> Option<BySuffix> {
    let mut values = held_map(calls, member, field)?;
    let mut sources: Option<Vec<String>> = None;
    let mut predicted = false;
    for call in calls {
        let name = call.entity_after.as_ref()?.get(member)?.as_str()?;
        let stored = call.unexplained.get(pointer)?;
        let suffix = suffix(name)?;
        match values.get(suffix) {
            Some(held) if held != stored => return None,
            Some(_) => predicted = true,
            None => {
                values.insert(suffix.to_owned(), stored.clone());
            }
        }
        let given = sources_of(call, name);
        sources = Some(match sources {
            None => given,
            Some(kept) => kept.into_iter().filter(|s| given.contains(s)).collect(),
        });
    }
    let distinct: Vec<&Value> = values.values().fold(Vec::new(), |mut seen, value| {
        if !seen.contains(&value) {
            seen.push(value);
        }
        seen
    });
    // The held entities must have predicted some call's value (a name's suffix, not a text
    // that merely holds a dot, such as a timestamp's fraction, each held once).
    if distinct.len() < 2 || !predicted {
        return None;
    }
    let source = sources?.into_iter().next()?;
    Some(BySuffix {
        member: member.to_owned(),
        source,
        values,
    })
}

/// The rule for one unexplained pointer: the first member, by name, whose suffix explains it.
fn learn_pointer(calls: &[ObservedCall], pointer: &str) -> Option<BySuffix> {
    let field = top_field(pointer)?;
    if calls.iter().any(|call| {
        call.held_entities.is_empty()
            || !matches!(
                call.unexplained.get(pointer),
                Some(Value::String(_) | Value::Null)
            )
    }) {
        return None;
    }
    let first = calls.first()?.entity_after.as_ref()?.as_object()?;
    first
        .iter()
        .filter(|(member, value)| {
            **member != field && value.as_str().is_some_and(|name| suffix(name).is_some())
        })
        .find_map(|(member, _)| by_member(calls, pointer, &field, member))
}

/// The name-suffix rule.
#[derive(Debug, Default, Clone, Copy)]
pub struct NameSuffixRule;

impl StateRule for NameSuffixRule {
    type Options = NoOptions;
    /// Per explained pointer, the name it follows and the value of each suffix.
    type Rule = FieldRules<BySuffix>;

    /// The effects `learn` answers for (it explains nothing for others), joining only by
    /// explaining.
    fn learn_scope(&self) -> rea_plugin_api::contracts::rule::LearnScope {
        rea_plugin_api::contracts::rule::LearnScope::effects([
            rea_plugin_api::contracts::rule::Effect::Create,
        ])
        .explaining()
    }

    fn learn(
        &self,
        request: &LearnRequest<NoOptions>,
    ) -> Result<LearnOutcome<Self::Rule>, PluginError> {
        let no_explanation = "no unexplained member was a function of a given name's suffix";
        if request.effect != Effect::Create || request.calls.is_empty() {
            return Ok(LearnOutcome::no_explanation(
                "a member following a name's suffix is learned from creates",
            ));
        }
        let mut fields = BTreeMap::new();
        let pointers = request.calls[0].unexplained.keys();
        for pointer in pointers {
            if let Some(rule) = learn_pointer(&request.calls, pointer) {
                fields.insert(pointer.clone(), rule);
            }
        }
        if fields.is_empty() {
            return Ok(LearnOutcome::no_explanation(no_explanation));
        }
        Ok(LearnOutcome::learned(
            fields.keys().cloned().collect(),
            FieldRules { fields },
        ))
    }

    fn apply(&self, request: &ApplyRequest<Self::Rule>) -> Result<ApplyOutcome, PluginError> {
        let sent = sent_members(request.call.body.as_ref());
        let mut outcome = ApplyOutcome::default();
        for (pointer, learned) in &request.rule.fields {
            let given = match learned.source.split_once(':') {
                Some(("sent", name)) => sent.and_then(|sent| sent.get(name)).and_then(scalar_text),
                Some(("path", index)) => index
                    .parse::<usize>()
                    .ok()
                    .and_then(|index| request.call.path_params.get(index).cloned()),
                _ => {
                    return Err(PluginError::new(
                        "invalid_rule",
                        "a name-suffix rule names an unknown source",
                    ));
                }
            };
            let Some(name) = given else {
                if request.call.entity_before.is_some() {
                    continue;
                }
                return Err(PluginError::new(
                    "underived_value",
                    format!(
                        "a create must give the {:?} {pointer:?} follows",
                        learned.member
                    ),
                ));
            };
            let value = suffix(&name).and_then(|suffix| learned.values.get(suffix));
            let Some(value) = value else {
                return Err(PluginError::new(
                    "underived_value",
                    format!(
                        "{pointer:?} follows the suffix of {:?}, and the build never showed a name like {name:?}",
                        learned.member
                    ),
                ));
            };
            outcome.set.insert(pointer.clone(), value.clone());
        }
        Ok(outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::testing::{apply_request, learn_request, observed_call};
    use serde_json::json;

    fn held() -> Vec<Value> {
        vec![
            json!({"name": "todo.md", "path": "notes/todo.md", "mimetype": "text/markdown"}),
            json!({"name": "logo.png", "path": "data/logo.png", "mimetype": "image/png"}),
            json!({"name": "data", "path": "data", "mimetype": null}),
        ]
    }

    fn created(name: &str, mimetype: Value, held: Vec<Value>) -> ObservedCall {
        observed_call(15)
            .sent(json!({"type": "file", "format": "text", "content": "x"}))
            .path_params(&["notes", name])
            .after(json!({"name": name, "path": format!("notes/{name}"), "mimetype": mimetype}))
            .unexplained("/mimetype", mimetype)
            .held_entities(held)
            .build()
    }

    fn learn(effect: Effect, calls: Vec<ObservedCall>) -> LearnOutcome<FieldRules<BySuffix>> {
        let request = learn_request(effect).calls(calls);
        NameSuffixRule.learn(&request.build()).expect("learns")
    }

    #[test]
    fn the_suffix_of_a_name_is_the_text_after_its_last_dot() {
        assert_eq!(suffix("notes/todo.md"), Some("md"));
        assert_eq!(suffix("archive.tar.gz"), Some("gz"));
        assert_eq!(suffix("notes"), None);
        assert_eq!(suffix(".bashrc"), None);
        assert_eq!(suffix("a.b/Makefile"), None);
        assert_eq!(suffix("trailing."), None);
    }

    #[test]
    fn learns_the_value_of_each_suffix_the_held_entities_show_and_applies_it() {
        let outcome = learn(
            Effect::Create,
            vec![created("standup.md", json!("text/markdown"), held())],
        );
        let LearnOutcome::Learned { explains, rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(explains, ["/mimetype"]);
        let learned = &rule.fields["/mimetype"];
        // `name` comes first by name and is given in the path; `path` is given nowhere.
        assert_eq!(learned.member, "name");
        assert_eq!(learned.source, "path:1");
        assert_eq!(learned.values["png"], json!("image/png"));
        let applied = NameSuffixRule
            .apply(
                &apply_request(rule.clone())
                    .path_params(&["data", "pixel.png"])
                    .build(),
            )
            .expect("applies");
        assert_eq!(applied.set["/mimetype"], json!("image/png"));
        // A suffix the build never showed, or none, is refused, never guessed.
        for name in ["budget.csv", "Makefile"] {
            let error = NameSuffixRule
                .apply(
                    &apply_request(rule.clone())
                        .path_params(&["data", name])
                        .build(),
                )
                .expect_err("refused");
            assert_eq!(error.code, "underived_value", "{name}");
        }
    }

    #[test]
    fn a_value_every_suffix_shares_or_a_suffix_held_with_two_values_explains_nothing() {
        // Every held suffix maps to one value: a constant, not a function of the suffix.
        let same = vec![
            json!({"name": "todo.md", "mimetype": "text/markdown"}),
            json!({"name": "q3.md", "mimetype": "text/markdown"}),
        ];
        // One suffix held with two values: not a function of the suffix.
        let mut mixed = held();
        mixed.push(json!({"name": "raw.md", "mimetype": "text/plain"}));
        let cases = [
            (Effect::Create, "standup.md", json!("text/markdown"), same),
            (Effect::Create, "standup.md", json!("text/markdown"), mixed),
            // The call stored another value than the held entities map its suffix to.
            (Effect::Create, "standup.md", json!("text/plain"), held()),
            // The call's suffix is none the held entities show: nothing confirms the function.
            (Effect::Create, "budget.csv", json!("text/csv"), held()),
            // No held entities (the host offered nothing), or an update.
            (
                Effect::Create,
                "standup.md",
                json!("text/markdown"),
                Vec::new(),
            ),
            (Effect::Update, "standup.md", json!("text/markdown"), held()),
        ];
        for (effect, name, mimetype, held) in cases {
            let outcome = learn(effect, vec![created(name, mimetype, held)]);
            assert!(
                matches!(outcome, LearnOutcome::NoExplanation { .. }),
                "{name}: {outcome:?}"
            );
        }
    }

    #[test]
    fn a_sent_name_is_a_source_and_a_call_not_giving_it_keeps_an_update() {
        let call = observed_call(3)
            .sent(json!({"filename": "report.txt", "body": "x"}))
            .after(json!({"filename": "report.txt", "content_type": "text/plain"}))
            .unexplained("/content_type", json!("text/plain"))
            .held_entities(vec![
                json!({"filename": "a.svg", "content_type": "image/svg+xml"}),
                json!({"filename": "b.txt", "content_type": "text/plain"}),
            ])
            .build();
        let LearnOutcome::Learned { rule, .. } = learn(Effect::Create, vec![call]) else {
            panic!("learned nothing")
        };
        assert_eq!(rule.fields["/content_type"].source, "sent:filename");
        let applied = NameSuffixRule
            .apply(
                &apply_request(rule.clone())
                    .body(json!({"filename": "c.svg"}))
                    .build(),
            )
            .expect("applies");
        assert_eq!(applied.set["/content_type"], json!("image/svg+xml"));
        let kept = NameSuffixRule
            .apply(
                &apply_request(rule.clone())
                    .entity_before(json!({"filename": "b.txt"}))
                    .body(json!({"body": "y"}))
                    .build(),
            )
            .expect("applies");
        assert!(kept.set.is_empty(), "{kept:?}");
        let error = NameSuffixRule
            .apply(&apply_request(rule).body(json!({"body": "y"})).build())
            .expect_err("a create must give the name");
        assert_eq!(error.code, "underived_value");
    }
}

//! The `joined-list` rule: an array of strings a write sends, stored as one string of its items
//! joined by a separator (`"tags": ["Task", "Admin"]` read back as `"tags": "Task Admin"`).
//!
//! **Learn** (creates and updates). A top-level member the host could not explain is a joined
//! list when, in every recorded call that changed it, the call sent an array of strings there and
//! the entity after holds those items joined by one separator, the same one in every call. The
//! separators tried are a space, a comma, a semicolon, a bar and a newline (a comma and a
//! semicolon also with a space after, a bar also between spaces). Calls whose arrays hold fewer than two items fit any separator; the rule is
//! learned only when exactly one separator fits every call, so one call with two or more items
//! is enough (the pattern is then unambiguous).
//!
//! **Apply.** A call sending an array of strings there stores its items joined by the learned
//! separator. An item that is empty or holds the separator needs the application's quoting,
//! which no recorded write showed: it is taken from the strings the collection holds
//! (`ServedCall::held_strings`, asked only then) when they show one delimiter pair (`[[…]]`, `"…"`, `'…'`)
//! around items holding the separator, and refused otherwise. A call sending a string stores it
//! as sent; a call not sending the member leaves it as it is.

use std::collections::BTreeSet;

use rea_plugin_api::contracts::rule::{
    ApplyOutcome, ApplyRequest, HeldIndexKind, LearnOutcome, LearnRequest, NoOptions, ObservedCall,
};
use rea_plugin_api::rule_fields::{self, FieldRules, sent_members, top_field};
use rea_plugin_api::{Plugin, PluginError, StageInfo, StateRule};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The stage name.
pub const STAGE: &str = "joined-list";

/// The separators a joined list may use, in the order they are tried.
pub const SEPARATORS: [&str; 8] = [" ", ",", ", ", ";", "; ", "|", " | ", "\n"];

/// The delimiter pairs an item holding the separator may be wrapped in.
const QUOTES: [(&str, &str); 3] = [("[[", "]]"), ("\"", "\""), ("'", "'")];

/// What a joined list is: its separator.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Joined {
    /// The text between two items.
    pub separator: String,
}

/// The items of a sent array of strings.
fn items(value: &Value) -> Option<Vec<&str>> {
    value.as_array()?.iter().map(Value::as_str).collect()
}

/// The separators one call fits for `field`, or `None` when it shows no joined list.
fn fitting(call: &ObservedCall, field: &str, after: &Value) -> Option<BTreeSet<&'static str>> {
    let sent = sent_members(call.request_body.as_ref())?.get(field)?;
    let items = items(sent)?;
    let after = after.as_str()?;
    let fits: BTreeSet<&'static str> = SEPARATORS
        .into_iter()
        .filter(|separator| items.join(separator) == after)
        .collect();
    (!fits.is_empty()).then_some(fits)
}

/// The delimiter pair the held values show around an item holding `separator`, when they show
/// exactly one.
fn held_quote(held: &[String], separator: &str) -> Option<(&'static str, &'static str)> {
    let shown: Vec<(&str, &str)> = QUOTES
        .into_iter()
        .filter(|(open, close)| {
            held.iter().any(|text| {
                text.split(open).skip(1).any(|rest| {
                    rest.split_once(close)
                        .is_some_and(|(inner, _)| inner.contains(separator))
                })
            })
        })
        .collect();
    match shown.as_slice() {
        [quote] => Some(*quote),
        _ => None,
    }
}

/// The items joined by `separator`, each that needs it wrapped in the quoting of the strings
/// held (asked only then: `held` lists them).
fn join(
    items: &[&str],
    separator: &str,
    held: impl FnOnce() -> Vec<String>,
) -> Result<String, PluginError> {
    let mut spelled = Vec::with_capacity(items.len());
    let mut held = Some(held);
    let mut quote = None;
    for item in items {
        if item.is_empty() || item.contains(separator) {
            if let Some(held) = held.take() {
                quote = held_quote(&held(), separator);
            }
            let Some((open, close)) = quote else {
                return Err(PluginError::new(
                    "unknown_quoting",
                    format!(
                        "the item {item:?} needs quoting in a list joined by {separator:?}, and \
                         neither the recorded writes nor the held values show how the application \
                         quotes one"
                    ),
                ));
            };
            spelled.push(format!("{open}{item}{close}"));
        } else {
            spelled.push((*item).to_owned());
        }
    }
    Ok(spelled.join(separator))
}

/// The joined-list rule.
#[derive(Debug, Default, Clone, Copy)]
pub struct JoinedListRule;

impl StateRule for JoinedListRule {
    type Options = NoOptions;
    type Rule = FieldRules<Joined>;

    /// Its rule joins a plan only by explaining (asked while something is unexplained).
    fn learn_scope(&self) -> rea_plugin_api::contracts::rule::LearnScope {
        rea_plugin_api::contracts::rule::LearnScope::default().explaining()
    }

    fn learn(
        &self,
        request: &LearnRequest<NoOptions>,
    ) -> Result<LearnOutcome<Self::Rule>, PluginError> {
        // pointer → the separators every call so far fits (`None`: a call showed no joined list).
        let mut found: std::collections::BTreeMap<String, Option<BTreeSet<&'static str>>> =
            std::collections::BTreeMap::new();
        for call in &request.calls {
            for (pointer, after) in &call.unexplained {
                let fits = top_field(pointer).and_then(|field| fitting(call, &field, after));
                let entry = found.entry(pointer.clone()).or_insert_with(|| fits.clone());
                *entry = match (entry.take(), fits) {
                    (Some(agreed), Some(fits)) => Some(&agreed & &fits),
                    _ => None,
                };
            }
        }
        let fields = found.into_iter().filter_map(|(pointer, fits)| {
            let fits = fits?;
            let mut fits = fits.into_iter();
            match (fits.next(), fits.next()) {
                (Some(separator), None) => Some((
                    pointer,
                    Joined {
                        separator: separator.to_owned(),
                    },
                )),
                _ => None,
            }
        });
        Ok(rule_fields::learned(
            fields,
            "no unexplained member held the items a sent array named, joined by one separator",
        ))
    }

    fn apply(&self, request: &ApplyRequest<Self::Rule>) -> Result<ApplyOutcome, PluginError> {
        let mut outcome = ApplyOutcome::default();
        let sent = sent_members(request.call.body.as_ref());
        for (pointer, joined) in &request.rule.fields {
            let Some(value) = top_field(pointer).and_then(|field| sent?.get(&field).cloned())
            else {
                continue;
            };
            let stored = match items(&value) {
                Some(items) => Value::String(join(&items, &joined.separator, || {
                    request.call.held_strings(pointer)
                })?),
                None if value.is_string() => value,
                None => {
                    return Err(PluginError::new(
                        "not_a_list",
                        format!("`{pointer}` takes an array of strings or a string"),
                    ));
                }
            };
            outcome.set.insert(pointer.clone(), stored);
        }
        Ok(outcome)
    }

    fn held_indexes(&self) -> Vec<HeldIndexKind> {
        vec![HeldIndexKind::Strings]
    }
}

rea_plugin_api::plugin_root_module! {
    /// The root module of the joined-list rule.
    pub fn root_module() = Plugin::new("rea-joined-list", env!("CARGO_PKG_VERSION")).rule(
        StageInfo::new(STAGE, "Explains an array a write sends, stored as its items joined by a separator"),
        JoinedListRule,
    );
}

rea_plugin_api::submit_builtin!(root_module);

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::contracts::rule::Effect;
    use rea_plugin_api::testing::{apply_request, learn_request, observed_call};
    use serde_json::json;

    fn call(sent: Value, after: Value) -> ObservedCall {
        observed_call(1)
            .sent(json!({"title": "t", "tags": sent}))
            .unexplained("/tags", after)
            .build()
    }

    fn learn(calls: Vec<ObservedCall>) -> LearnOutcome<FieldRules<Joined>> {
        let request = learn_request(Effect::Create).calls(calls);
        JoinedListRule.learn(&request.build()).expect("learns")
    }

    fn rule(separator: &str) -> FieldRules<Joined> {
        FieldRules {
            fields: [(
                "/tags".to_owned(),
                Joined {
                    separator: separator.to_owned(),
                },
            )]
            .into(),
        }
    }

    #[test]
    fn learns_the_one_separator_every_call_fits() {
        let outcome = learn(vec![
            call(json!(["Task", "Admin"]), json!("Task Admin")),
            call(json!(["Solo"]), json!("Solo")),
        ]);
        let LearnOutcome::Learned { explains, rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(explains, ["/tags"]);
        assert_eq!(rule.fields["/tags"].separator, " ");
        let outcome = learn(vec![call(json!(["a", "b", "c"]), json!("a, b, c"))]);
        let LearnOutcome::Learned { rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(rule.fields["/tags"].separator, ", ");
    }

    #[test]
    fn ambiguous_or_contradicted_lists_are_not_learned() {
        // Single items fit every separator.
        let outcome = learn(vec![call(json!(["Solo"]), json!("Solo"))]);
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
        // Two calls, two separators.
        let outcome = learn(vec![
            call(json!(["a", "b"]), json!("a b")),
            call(json!(["a", "b"]), json!("a,b")),
        ]);
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
        // The stored string is not the sent items.
        let outcome = learn(vec![call(json!(["a", "b"]), json!("b a"))]);
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
    }

    #[test]
    fn applies_the_separator_and_the_held_quoting() {
        let applied = JoinedListRule
            .apply(
                &apply_request(rule(" "))
                    .body(json!({"tags": ["Task", "Home and Garden"]}))
                    .held_values(
                        "/tags",
                        vec![json!("Contact"), json!("Task [[Home and Garden]]")],
                    )
                    .build(),
            )
            .expect("applies");
        assert_eq!(applied.set["/tags"], json!("Task [[Home and Garden]]"));
        // A string is stored as sent, an unsent member left alone.
        let applied = JoinedListRule
            .apply(
                &apply_request(rule(" "))
                    .body(json!({"tags": "A B"}))
                    .build(),
            )
            .expect("applies");
        assert_eq!(applied.set["/tags"], json!("A B"));
        let applied = JoinedListRule
            .apply(&apply_request(rule(" ")).body(json!({"title": "x"})).build())
            .expect("applies");
        assert!(applied.set.is_empty());
    }

    #[test]
    fn quoting_no_held_value_shows_is_refused() {
        let error = JoinedListRule
            .apply(
                &apply_request(rule(" "))
                    .body(json!({"tags": ["Home and Garden"]}))
                    .held_values("/tags", vec![json!("Task Admin")])
                    .build(),
            )
            .expect_err("refused");
        assert_eq!(error.code, "unknown_quoting");
    }
}

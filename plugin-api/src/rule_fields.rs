//! The common shape of a learned rule: `{"fields": {pointer: detail}}` ([`FieldRules`]).
//!
//! Most rules explain a set of fields, each with a detail of their own (a clock format, a token
//! shape, a template), and apply the same detail to every served call. [`FieldRules`] is that
//! learned rule, typed by the detail, and [`learned`] builds the learn outcome, so a rule's code is
//! only about its own details; with the small readings of pointers and bodies most rules make.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::contracts::rule::{LearnOutcome, ObservedCall};

/// A learned rule explaining fields, each with its detail (JSON pointer into the entity → detail).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldRules<D> {
    /// The explained fields and their details.
    pub fields: BTreeMap<String, D>,
}

/// The rule explaining `fields` (pointer → detail), or no explanation for `reason` when no field
/// was explained.
pub fn learned<D>(
    fields: impl IntoIterator<Item = (String, D)>,
    reason: &str,
) -> LearnOutcome<FieldRules<D>> {
    let fields: BTreeMap<String, D> = fields.into_iter().collect();
    if fields.is_empty() {
        return LearnOutcome::no_explanation(reason);
    }
    LearnOutcome::learned(fields.keys().cloned().collect(), FieldRules { fields })
}

/// What every recorded call agrees on, per pointer: a pointer keeps a finding only while each
/// call that shows it finds the same one (a call finding nothing, `None`, drops the pointer).
#[derive(Debug, Clone)]
pub struct Agreement<T> {
    findings: BTreeMap<String, Option<T>>,
}

impl<T> Default for Agreement<T> {
    fn default() -> Self {
        Self {
            findings: BTreeMap::new(),
        }
    }
}

impl<T: PartialEq> Agreement<T> {
    /// Records one call's finding for `pointer`.
    pub fn record(&mut self, pointer: &str, found: Option<T>) {
        match self.findings.get_mut(pointer) {
            None => {
                self.findings.insert(pointer.to_owned(), found);
            }
            Some(agreed) => {
                if *agreed != found {
                    *agreed = None;
                }
            }
        }
    }

    /// The pointers every call agreed on, in pointer order, with their finding.
    pub fn agreed(self) -> impl Iterator<Item = (String, T)> {
        self.findings
            .into_iter()
            .filter_map(|(pointer, found)| Some((pointer, found?)))
    }
}

/// The rule explaining each unexplained pointer for which every recorded call that changed it
/// finds the same detail (`find(call, pointer, value after the call)`; `None` drops the
/// pointer), or no explanation for `reason`: the loop most rules learn with.
pub fn learned_by_agreement<D: PartialEq>(
    calls: &[ObservedCall],
    find: impl Fn(&ObservedCall, &str, &Value) -> Option<D>,
    reason: &str,
) -> LearnOutcome<FieldRules<D>> {
    let mut agreement = Agreement::default();
    for call in calls {
        for (pointer, after) in &call.unexplained {
            agreement.record(pointer, find(call, pointer, after));
        }
    }
    learned(agreement.agreed(), reason)
}

/// The top-level member a pointer names, when it names one (`/title`; not `/info/title`).
pub fn top_field(pointer: &str) -> Option<String> {
    let field = pointer.strip_prefix('/')?;
    (!field.contains('/')).then(|| crate::json::unescape_pointer_segment(field))
}

/// The top-level member a pointer names or nests in (`/title` → `title`; `/info/run_id` →
/// `info`): the member a rule explaining a value nested in a created object leaves out of its
/// sources.
pub fn owning_field(pointer: &str) -> Option<String> {
    let rest = pointer.strip_prefix('/')?;
    let first = rest.split('/').next()?;
    Some(crate::json::unescape_pointer_segment(first))
}

/// The members a body sends: at its root, or inside its one envelope (`{"data": {…}}`,
/// `{"posts": [{…}]}`).
pub fn sent_members(body: Option<&Value>) -> Option<&Map<String, Value>> {
    let object = body?.as_object()?;
    if object.len() == 1 {
        match object.values().next()? {
            Value::Object(inner) => return Some(inner),
            Value::Array(items) if items.len() == 1 => {
                if let Some(inner) = items[0].as_object() {
                    return Some(inner);
                }
            }
            _ => {}
        }
    }
    Some(object)
}

/// A scalar's text: a string as it is, a number as spelled; `None` for anything else.
pub fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_learned_rule_carries_its_fields_and_no_field_is_no_explanation() {
        let outcome = learned([("/id".to_owned(), json!({"string": false}))], "none");
        let LearnOutcome::Learned { explains, rule, .. } = outcome else {
            panic!("learned")
        };
        assert_eq!(explains, ["/id"]);
        assert_eq!(
            serde_json::to_value(&rule).unwrap(),
            json!({"fields": {"/id": {"string": false}}})
        );
        assert!(matches!(
            learned(Vec::<(String, Value)>::new(), "nothing held a sequence"),
            LearnOutcome::NoExplanation { reason, .. } if reason == "nothing held a sequence"
        ));
    }

    #[test]
    fn a_pointer_keeps_a_finding_only_while_every_call_agrees() {
        let mut agreement = Agreement::default();
        agreement.record("/a", Some(1));
        agreement.record("/a", Some(1));
        agreement.record("/b", Some(2));
        agreement.record("/b", Some(3));
        agreement.record("/c", None);
        agreement.record("/c", Some(4));
        agreement.record("/d", Some(5));
        agreement.record("/d", None);
        agreement.record("/d", Some(5));
        assert_eq!(
            agreement.agreed().collect::<Vec<_>>(),
            [("/a".to_owned(), 1)]
        );
    }

    #[test]
    fn pointers_bodies_and_scalars_read_as_rules_need_them() {
        assert_eq!(top_field("/a~1b~0c").as_deref(), Some("a/b~c"));
        assert_eq!(top_field("/info/title"), None);
        assert_eq!(owning_field("/info/title").as_deref(), Some("info"));
        assert_eq!(owning_field("/a~1b/c").as_deref(), Some("a/b"));
        assert_eq!(owning_field("title"), None);
        let enveloped = json!({"posts": [{"title": "t"}]});
        assert_eq!(sent_members(Some(&enveloped)).unwrap()["title"], "t");
        let flat = json!({"title": "t", "body": "b"});
        assert_eq!(sent_members(Some(&flat)).unwrap().len(), 2);
        assert_eq!(sent_members(Some(&json!([1]))), None);
        assert_eq!(scalar_text(&json!(1.50)).as_deref(), Some("1.5"));
        assert_eq!(scalar_text(&json!("x")).as_deref(), Some("x"));
        assert_eq!(scalar_text(&json!(null)), None);
    }
}

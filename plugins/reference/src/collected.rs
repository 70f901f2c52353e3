//! The `collected` rule: an array member a create was not sent, stored as the list of what one
//! sent member stored (`[]` when the create did not send it).
//!
//! **Learn** (creates only). An unexplained top-level member holding an array is collected from
//! a sent member when, in every recorded create that shows it, it holds exactly that member's
//! stored value: `[v]` for a sent single value `v` (a link object the host re-spelled from a
//! sent id or name), the elements of a sent array, and `[]` when the create sent the member
//! absent or `null`. Exactly one member may fit across the calls, and at least one call must
//! show it non-empty (an empty list alone names no member).
//!
//! **Apply.** A served create gets the list from the same member of what it sent (the body as
//! the host re-spelled it, so a sent id reads as the link object the entity stores).

use std::collections::{BTreeMap, BTreeSet};

use rea_plugin_api::contracts::rule::{
    ApplyOutcome, ApplyRequest, LearnOutcome, LearnRequest, NoOptions, ObservedCall,
};
use rea_plugin_api::rule_fields::{FieldRules, sent_members, top_field};
use rea_plugin_api::{PluginError, StateRule};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The stage name.
pub const STAGE: &str = "collected";

/// What the rule learns per collecting member: the sent member whose stored value it lists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Collected {
    /// The sent member.
    pub member: String,
}

/// The collected rule.
#[derive(Debug, Default, Clone, Copy)]
pub struct CollectedRule;

/// The member `name` as a call sent it: at the body's root, else inside its one envelope.
fn sent_value<'a>(body: Option<&'a Value>, name: &str) -> Option<&'a Value> {
    let root = body.and_then(Value::as_object);
    root.and_then(|root| root.get(name))
        .or_else(|| sent_members(body).and_then(|members| members.get(name)))
}

/// The list a sent value (or its absence) stores: `[]` for none or `null`, an array's elements,
/// else the one value.
fn listed(sent: Option<&Value>) -> Vec<Value> {
    match sent {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items.clone(),
        Some(one) => vec![one.clone()],
    }
}

/// Every member any call sent (the candidates a collected list may follow).
fn sent_names(calls: &[ObservedCall]) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for call in calls {
        let body = call.request_body.as_ref();
        for members in [body.and_then(Value::as_object), sent_members(body)]
            .into_iter()
            .flatten()
        {
            names.extend(members.keys().cloned());
        }
    }
    names
}

/// Per candidate: whether every call showing `pointer` agrees, and whether one showed it
/// non-empty.
#[derive(Debug, Default, Clone, Copy)]
struct Fit {
    broken: bool,
    shown: bool,
}

impl CollectedRule {
    /// The one sent member every call showing `pointer` stored as the list it holds.
    fn member_for(
        calls: &[ObservedCall],
        pointer: &str,
        names: &BTreeSet<String>,
    ) -> Option<String> {
        let field = top_field(pointer)?;
        let mut fits: BTreeMap<&String, Fit> = names
            .iter()
            .filter(|name| **name != field)
            .map(|name| (name, Fit::default()))
            .collect();
        for call in calls {
            let Some(stored) = call.unexplained.get(pointer) else {
                continue;
            };
            let Value::Array(stored) = stored else {
                return None;
            };
            for (name, fit) in fits.iter_mut() {
                let expected = listed(sent_value(call.request_body.as_ref(), name));
                if expected != *stored {
                    fit.broken = true;
                } else if !stored.is_empty() {
                    fit.shown = true;
                }
            }
        }
        let mut agreed = fits
            .into_iter()
            .filter(|(_, fit)| !fit.broken && fit.shown)
            .map(|(name, _)| name.clone());
        let member = agreed.next()?;
        agreed.next().is_none().then_some(member)
    }
}

impl StateRule for CollectedRule {
    type Options = NoOptions;
    type Rule = FieldRules<Collected>;

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
        if request.effect != rea_plugin_api::contracts::rule::Effect::Create {
            return Ok(LearnOutcome::no_explanation(
                "only a create collects what it sent",
            ));
        }
        let names = sent_names(&request.calls);
        let pointers: BTreeSet<&String> = request
            .calls
            .iter()
            .flat_map(|call| call.unexplained.keys())
            .collect();
        let fields: BTreeMap<String, Collected> = pointers
            .into_iter()
            .filter_map(|pointer| {
                let member = Self::member_for(&request.calls, pointer, &names)?;
                Some((pointer.clone(), Collected { member }))
            })
            .collect();
        Ok(rea_plugin_api::rule_fields::learned(
            fields,
            "no unsent array member listed what one sent member stored",
        ))
    }

    fn apply(&self, request: &ApplyRequest<Self::Rule>) -> Result<ApplyOutcome, PluginError> {
        let mut outcome = ApplyOutcome::default();
        let body = request.call.body.as_ref();
        for (pointer, collected) in &request.rule.fields {
            let list = listed(sent_value(body, &collected.member));
            outcome.set.insert(pointer.clone(), Value::Array(list));
        }
        Ok(outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::contracts::rule::Effect;
    use rea_plugin_api::testing::{apply_request, learn_request, observed_call};
    use serde_json::json;

    fn link(id: &str) -> Value {
        json!({"id": id, "link": format!("/user/{id}")})
    }

    fn learned(calls: Vec<ObservedCall>, effect: Effect) -> LearnOutcome<FieldRules<Collected>> {
        CollectedRule
            .learn(&learn_request(effect).calls(calls).build())
            .expect("learns")
    }

    fn create(sent: Value, watchers: Value) -> ObservedCall {
        observed_call(1)
            .sent(sent)
            .unexplained("/watchers", watchers)
            .into()
    }

    #[test]
    fn an_unsent_list_holds_what_one_sent_member_stored() {
        let outcome = learned(
            vec![
                create(
                    json!({"title": "a", "owner": link("5"), "state": link("1")}),
                    json!([link("5")]),
                ),
                create(json!({"title": "b", "state": link("2")}), json!([])),
            ],
            Effect::Create,
        );
        let LearnOutcome::Learned { explains, rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(explains, ["/watchers"]);
        assert_eq!(rule.fields["/watchers"].member, "owner");
        let served = |body: Value| {
            CollectedRule
                .apply(&apply_request(rule.clone()).body(body).build())
                .expect("applies")
                .set["/watchers"]
                .clone()
        };
        assert_eq!(served(json!({"owner": link("3")})), json!([link("3")]));
        assert_eq!(served(json!({"title": "c"})), json!([]));
        assert_eq!(served(json!({"owner": null, "title": "d"})), json!([]));
    }

    #[test]
    fn an_empty_list_alone_or_two_fitting_members_name_none() {
        // Only empty lists: no call shows which member it follows.
        let outcome = learned(
            vec![create(json!({"title": "a"}), json!([]))],
            Effect::Create,
        );
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
        // Two members sent the same value every time: which one the list follows is unknown.
        let outcome = learned(
            vec![create(
                json!({"owner": link("5"), "reporter": link("5")}),
                json!([link("5")]),
            )],
            Effect::Create,
        );
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
        // A call that sent the member and stored something else breaks it.
        let outcome = learned(
            vec![
                create(json!({"owner": link("5")}), json!([link("5")])),
                create(json!({"owner": link("3")}), json!([link("3"), link("5")])),
            ],
            Effect::Create,
        );
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
    }

    #[test]
    fn an_update_collects_nothing() {
        let outcome = learned(
            vec![create(json!({"owner": link("5")}), json!([link("5")]))],
            Effect::Update,
        );
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
    }
}

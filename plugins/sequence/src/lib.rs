//! The `sequence` rule: ids and counters a create numbers one past the largest its collection
//! holds.
//!
//! **Learn** (creates, and the identity of a copy: a write whose entity after holds another
//! identity than before, a rename making a new record). A member the host could not explain is a
//! sequence when, in every recorded create (copy) that stored it, its value is an integer (a JSON
//! number, or a string of digits) one past the largest value of that member the collection held
//! before the call (`ObservedCall::held_max`), or `1` in a collection that held none, and at
//! least one call showed a collection holding some; or, in every such create, one past the
//! largest it ever held (`ObservedCall::given_max`: a counter that never gives a number twice,
//! FeathersJS's memory service numbering a create after the latest was deleted). Its spelling (number or string, zero-padded
//! width) is kept. A create may also be one past that plus the refused calls of the tool just
//! before it whose status consumed a number (`ObservedCall::refused_before`): a status consumes
//! when a create right after refusals of that status alone skipped exactly as many numbers, and
//! no create after such a refusal skipped none (Roundup numbers a keyword before it refuses a
//! taken name with 409, but refuses an invalid issue with 400 before numbering it); the learned
//! spelling names those statuses (`consumed_by`).
//!
//! **Apply.** The member takes one past the largest of the values the collection holds and the
//! largest the sequence generated (`ServedCall::largest_integer`, from the host's index), or `1`,
//! plus one for each served refusal of a consuming status since the tool's previous success
//! (`ServedCall::refused_before`).

use std::collections::{BTreeMap, BTreeSet};

use rea_plugin_api::contracts::rule::{
    ApplyOutcome, ApplyRequest, Effect, HeldIndexKind, LearnOutcome, LearnRequest, NoOptions,
    ObservedCall,
};
use rea_plugin_api::rule_fields::{self, FieldRules};
use rea_plugin_api::{Plugin, PluginError, StageInfo, StateRule};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The stage name.
pub const STAGE: &str = "sequence";

/// An integer value and its spelling: `(value, string width)` (`None`: a JSON number).
fn integer(value: &Value) -> Option<(i128, Option<usize>)> {
    match value {
        Value::Number(number) => number.as_i64().map(|value| (i128::from(value), None)),
        Value::String(text) if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => {
            Some((text.parse().ok()?, Some(text.len())))
        }
        _ => None,
    }
}

/// How a sequence field is spelled: a JSON number, or a string of digits (zero-padded to a
/// width when the recorded values were).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Spelling {
    /// Spelled as a string of digits.
    pub string: bool,
    /// The zero-padded width of a string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<usize>,
    /// The statuses of refused calls the recorded creates showed consuming a number.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub consumed_by: Vec<u16>,
}

/// One create's numbers skipped past the collection's largest (`value - largest - 1`) and the
/// statuses of the tool's refusals just before it.
type Gap<'a> = (i128, &'a [u16]);

/// Notes a create's gap past the largest its collection held (`held_max`, else none: 1 is
/// expected) in `gaps`, and past the largest it ever held (`given_max`, else the same) in
/// `given_gaps`, each with the refusals before it; returns the largest held, when shown.
fn note_gaps<'a>(
    call: &'a ObservedCall,
    (pointer, field, number): (&str, &str, i128),
    gaps: &mut BTreeMap<String, Vec<Gap<'a>>>,
    given_gaps: &mut BTreeMap<String, Vec<Gap<'a>>>,
) -> Option<i128> {
    let held = call
        .held_max
        .get(field)
        .and_then(integer)
        .map(|(held, _)| held);
    let expected = held.map_or(1, |held| held + 1);
    let refused = call.refused_before.as_slice();
    gaps.entry(pointer.to_owned())
        .or_default()
        .push((number - expected, refused));
    let given = call.given_max.get(field).and_then(integer);
    let given = given.map_or(expected, |(given, _)| given + 1);
    given_gaps
        .entry(pointer.to_owned())
        .or_default()
        .push((number - given, refused));
    held
}

/// The statuses whose refusals consumed a number, when one set explains every create's gap: a
/// status consumes when a create after refusals of it alone skipped as many numbers, and none
/// does that a create skipping none followed; `None` when no set explains every gap.
fn consumed_statuses(gaps: &[Gap]) -> Option<BTreeSet<u16>> {
    let mut consumed = BTreeSet::new();
    let mut kept = BTreeSet::new();
    for (gap, refused) in gaps {
        if *gap == 0 {
            kept.extend(refused.iter().copied());
        } else if let Some(first) = refused.first()
            && refused.iter().all(|status| status == first)
        {
            consumed.insert(*first);
        }
    }
    let explained = gaps.iter().all(|(gap, refused)| {
        let counted = refused
            .iter()
            .filter(|status| consumed.contains(status))
            .count();
        i128::try_from(counted).is_ok_and(|counted| counted == *gap)
    });
    (explained && consumed.is_disjoint(&kept)).then_some(consumed)
}

/// Whether a write call copied its entity under a new identity: the entity after it holds
/// another value of the identity field than the entity before.
fn copies(call: &rea_plugin_api::contracts::rule::ObservedCall, identity: &str) -> bool {
    let before = call
        .entity_before
        .as_ref()
        .and_then(|entity| entity.get(identity));
    let after = call
        .entity_after
        .as_ref()
        .and_then(|entity| entity.get(identity));
    !identity.is_empty() && before.is_some() && after.is_some() && before != after
}

/// Whether, in every call storing the member at `pointer`, its value is also one past a store
/// counter the host kept before the call (`ObservedCall::store_counters`, the same counter each
/// time): the store's counter, stepping with every write of any entity, explains it as well as
/// the collection's largest, which a create into a collection behind the store would not follow,
/// so the member is left to the `store-counter` stage. A counter the answers hold at the member's
/// own name (`/id` for `/id`, `/data/id`) is the entity's own member, not a store's.
fn store_counted(calls: &[rea_plugin_api::contracts::rule::ObservedCall], pointer: &str) -> bool {
    let mut shared: Option<std::collections::BTreeSet<&String>> = None;
    for call in calls {
        let Some((value, _)) = call.unexplained.get(pointer).and_then(integer) else {
            continue;
        };
        let counters = call
            .store_counters
            .iter()
            // A counter at the member's own name is the written entity's member as the answer
            // shows it (a create answering the entity), no store's.
            .filter(|(counter, _)| !counter.ends_with(pointer))
            .filter(|(_, before)| integer(before).is_some_and(|(before, _)| before + 1 == value))
            .map(|(counter, _)| counter)
            .collect();
        shared = Some(match shared {
            None => counters,
            Some(held) => held.intersection(&counters).copied().collect(),
        });
    }
    shared.is_some_and(|counters| !counters.is_empty())
}

/// The sequence rule.
#[derive(Debug, Default, Clone, Copy)]
pub struct SequenceRule;

impl StateRule for SequenceRule {
    type Options = NoOptions;
    type Rule = FieldRules<Spelling>;

    /// Its rule joins a plan only by explaining (asked while something is unexplained).
    fn learn_scope(&self) -> rea_plugin_api::contracts::rule::LearnScope {
        rea_plugin_api::contracts::rule::LearnScope::default().explaining()
    }

    fn learn(
        &self,
        request: &LearnRequest<NoOptions>,
    ) -> Result<LearnOutcome<Self::Rule>, PluginError> {
        let identity = request.identity_field.as_deref().unwrap_or_default();
        if request.effect != Effect::Create
            && !request.calls.iter().all(|call| copies(call, identity))
        {
            return Ok(LearnOutcome::no_explanation(
                "sequences number creates and copies under a new identity, not other writes",
            ));
        }
        // pointer → (fits every create, some create showed a held value, spelling)
        let mut found: BTreeMap<String, (bool, bool, Option<Option<usize>>)> = BTreeMap::new();
        // pointer → each create's gap past the largest held, with the refusals before it; and
        // past the largest ever held (a counter never giving a number twice)
        let mut gaps: BTreeMap<String, Vec<Gap>> = BTreeMap::new();
        let mut given_gaps: BTreeMap<String, Vec<Gap>> = BTreeMap::new();
        for call in &request.calls {
            for (pointer, value) in &call.unexplained {
                let field = pointer.trim_start_matches('/');
                if pointer.matches('/').count() != 1
                    || (request.effect != Effect::Create && field != identity)
                {
                    continue;
                }
                let entry = found.entry(pointer.clone()).or_insert((true, false, None));
                let Some((number, width)) = integer(value) else {
                    entry.0 = false;
                    continue;
                };
                let held = note_gaps(call, (pointer, field, number), &mut gaps, &mut given_gaps);
                entry.1 |= held.is_some();
                // A number (`None`), a plain digit string (`Some(0)`), or a zero-padded one of
                // a width (`Some(width)`).
                let spelling = width.map(|width| {
                    if width > number.to_string().len() {
                        width
                    } else {
                        0
                    }
                });
                match &entry.2 {
                    None => entry.2 = Some(spelling),
                    Some(previous) if *previous != spelling => entry.0 = false,
                    Some(_) => {}
                }
            }
        }
        let fields = found
            .into_iter()
            .filter(|(_, (fits, shown, _))| *fits && *shown)
            .filter(|(pointer, _)| !store_counted(&request.calls, pointer))
            .filter_map(|(pointer, (_, _, spelling))| {
                let consumed = consumed_statuses(gaps.get(&pointer).map_or(&[], Vec::as_slice))
                    .or_else(|| {
                        consumed_statuses(given_gaps.get(&pointer).map_or(&[], Vec::as_slice))
                    })?;
                let (string, width) = match spelling.flatten() {
                    None => (false, None),
                    Some(0) => (true, None),
                    Some(width) => (true, Some(width)),
                };
                let spelling = Spelling {
                    string,
                    width,
                    consumed_by: consumed.into_iter().collect(),
                };
                Some((pointer, spelling))
            });
        Ok(rule_fields::learned(
            fields,
            "no unexplained member took one past the largest value its collection held",
        ))
    }

    fn apply(&self, request: &ApplyRequest<Self::Rule>) -> Result<ApplyOutcome, PluginError> {
        let mut outcome = ApplyOutcome::default();
        for (pointer, spelling) in &request.rule.fields {
            let largest = request.call.largest_integer(pointer);
            // Each served refusal of a status that consumed a number took one.
            let consumed = request
                .call
                .refused_before
                .iter()
                .filter(|status| spelling.consumed_by.contains(status))
                .count();
            let next = largest.map_or(1, |largest| largest + 1) + consumed as i128;
            let value = if spelling.string {
                let width = spelling.width.unwrap_or(0);
                Value::String(format!("{next:0width$}"))
            } else {
                let next = i64::try_from(next).map_err(|_| {
                    PluginError::new("sequence_overflow", "the next sequence value is too large")
                })?;
                Value::from(next)
            };
            outcome.set.insert(pointer.clone(), value);
        }
        Ok(outcome)
    }

    fn held_indexes(&self) -> Vec<HeldIndexKind> {
        vec![HeldIndexKind::LargestInteger]
    }
}

rea_plugin_api::plugin_root_module! {
    /// The root module of the sequence rule.
    pub fn root_module() = Plugin::new("rea-sequence", env!("CARGO_PKG_VERSION")).rule(
        StageInfo::new(STAGE, "Explains ids and counters a create numbers one past the largest its collection holds"),
        SequenceRule,
    );
}

rea_plugin_api::submit_builtin!(root_module);

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::contracts::rule::ObservedCall;
    use rea_plugin_api::testing::{apply_request, learn_request};
    use serde_json::json;

    fn create(held: Option<Value>, id: Value) -> ObservedCall {
        ObservedCall {
            held_max: held
                .map(|held| [("id".to_owned(), held)].into())
                .unwrap_or_default(),
            unexplained: [("/id".to_owned(), id)].into(),
            ..ObservedCall::default()
        }
    }

    fn learn(effect: Effect, calls: Vec<ObservedCall>) -> LearnOutcome<FieldRules<Spelling>> {
        let request = learn_request(effect).calls(calls);
        SequenceRule.learn(&request.build()).expect("learns")
    }

    #[test]
    fn learns_one_past_the_largest_held() {
        // contract: WRITE-058, WRITE-076
        let outcome = learn(
            Effect::Create,
            vec![
                create(Some(json!(4)), json!(5)),
                create(Some(json!(5)), json!(6)),
            ],
        );
        let LearnOutcome::Learned { explains, rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(explains, ["/id"]);
        // Served: one past both the largest held and the largest generated.
        let applied = SequenceRule
            .apply(
                &apply_request(rule)
                    .held_values("/id", vec![json!(1), json!(9), json!(4)])
                    .build(),
            )
            .expect("applies");
        assert_eq!(applied.set["/id"], json!(10));
    }

    #[test]
    fn a_counter_never_giving_a_number_twice_continues_past_a_deleted_one() {
        // Created 15 over 14 held, deleted it, created 16 over 14 held again: one past the
        // largest ever held (15), not the largest held.
        let after_delete = ObservedCall {
            given_max: [("id".to_owned(), json!(15))].into(),
            ..create(Some(json!(14)), json!(16))
        };
        let outcome = learn(
            Effect::Create,
            vec![create(Some(json!(14)), json!(15)), after_delete.clone()],
        );
        let LearnOutcome::Learned { explains, .. } = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(explains, ["/id"]);
        // Without the largest ever held, the gap is unexplained.
        let unexplained = ObservedCall {
            given_max: BTreeMap::new(),
            ..after_delete
        };
        let outcome = learn(
            Effect::Create,
            vec![create(Some(json!(14)), json!(15)), unexplained],
        );
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
    }

    #[test]
    fn a_refusal_of_a_status_that_consumed_a_number_explains_a_gap() {
        let after = |held: &str, id: &str, refused: &[u16]| ObservedCall {
            refused_before: refused.to_vec(),
            ..create(Some(json!(held)), json!(id))
        };
        // A 409 just before took 4: the create got 5; a 400 took none.
        let outcome = learn(
            Effect::Create,
            vec![after("3", "5", &[409]), after("5", "6", &[400, 400])],
        );
        let LearnOutcome::Learned { rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(rule.fields["/id"].consumed_by, [409]);
        // Served: one past the largest held, as before.
        let applied = SequenceRule
            .apply(
                &apply_request(rule.clone())
                    .held_values("/id", vec![json!("3")])
                    .build(),
            )
            .expect("applies");
        assert_eq!(applied.set["/id"], json!("4"));
        // A served 409 since the previous success took a number; a served 400 took none.
        let applied = SequenceRule
            .apply(
                &apply_request(rule)
                    .held_values("/id", vec![json!("3")])
                    .refused_before(&[409, 400])
                    .build(),
            )
            .expect("applies");
        assert_eq!(applied.set["/id"], json!("5"));
        // A gap after no refusal, after mixed refusals, or after a status another create showed
        // taking none, is no sequence.
        for calls in [
            vec![after("3", "5", &[])],
            vec![after("3", "5", &[400, 409])],
            vec![after("3", "5", &[409]), after("5", "6", &[409])],
        ] {
            let outcome = learn(Effect::Create, calls);
            assert!(
                matches!(outcome, LearnOutcome::NoExplanation { .. }),
                "{outcome:?}"
            );
        }
    }

    #[test]
    fn a_member_a_store_counter_explains_too_is_left_to_it() {
        // A put numbering its key one past the collection's largest, which is also one past the
        // store's revision before it (etcd's `create_revision`): the store's counter.
        let counted = |held: i64, revision: &str, value: &str| ObservedCall {
            store_counters: [("/header/revision".to_owned(), json!(revision))].into(),
            ..create(Some(json!(held.to_string())), json!(value))
        };
        let outcome = learn(Effect::Create, vec![counted(7, "7", "8")]);
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
        // A counter that stood elsewhere in one call explains nothing: the sequence is learned.
        let outcome = learn(
            Effect::Create,
            vec![counted(7, "7", "8"), counted(8, "12", "9")],
        );
        assert!(
            matches!(outcome, LearnOutcome::Learned { .. }),
            "{outcome:?}"
        );
        // A "counter" at the member's own name is the created entity's id as answered: no store's.
        let own = ObservedCall {
            store_counters: [("/data/id".to_owned(), json!(4))].into(),
            ..create(Some(json!(4)), json!(5))
        };
        let outcome = learn(Effect::Create, vec![own]);
        assert!(
            matches!(outcome, LearnOutcome::Learned { .. }),
            "{outcome:?}"
        );
    }

    #[test]
    fn a_gap_or_an_update_is_no_sequence() {
        let outcome = learn(Effect::Create, vec![create(Some(json!(4)), json!(7))]);
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
        let outcome = learn(Effect::Update, vec![create(Some(json!(4)), json!(5))]);
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
        // An empty collection alone never shows the sequence.
        let outcome = learn(Effect::Create, vec![create(None, json!(1))]);
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
    }

    #[test]
    fn a_copys_new_identity_is_one_past_the_largest_held() {
        // An update whose entity after holds another identity than before (a rename making a
        // new record): its identity is a sequence; a member beside it is not, nor an update
        // keeping its identity.
        let copy = |before: Value, after: Value| ObservedCall {
            entity_before: Some(json!({"id": before, "n": 1})),
            entity_after: Some(json!({"id": after, "n": 2})),
            held_max: [("id".to_owned(), json!(4)), ("n".to_owned(), json!(1))].into(),
            unexplained: [
                ("/id".to_owned(), after.clone()),
                ("/n".to_owned(), json!(2)),
            ]
            .into(),
            ..ObservedCall::default()
        };
        let learn_copy = |call: ObservedCall| {
            let request = learn_request(Effect::Action)
                .identity_field(Some("id"))
                .call(call)
                .build();
            SequenceRule.learn(&request).expect("learns")
        };
        let outcome = learn_copy(copy(json!(2), json!(5)));
        let LearnOutcome::Learned { explains, .. } = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(explains, ["/id"]);
        let outcome = learn_copy(copy(json!(5), json!(5)));
        assert!(
            matches!(outcome, LearnOutcome::NoExplanation { .. }),
            "{outcome:?}"
        );
    }

    #[test]
    fn digit_strings_keep_their_padding() {
        let outcome = learn(
            Effect::Create,
            vec![create(Some(json!("0041")), json!("0042"))],
        );
        let LearnOutcome::Learned { rule, .. } = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(
            serde_json::to_value(&rule).unwrap(),
            json!({"fields": {"/id": {"string": true, "width": 4}}})
        );
        let applied = SequenceRule
            .apply(
                &apply_request(rule)
                    .held_values("/id", vec![json!("0042")])
                    .build(),
            )
            .expect("applies");
        assert_eq!(applied.set["/id"], json!("0043"));
    }
}

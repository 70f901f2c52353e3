//! The `member-operator` rule: an update that sends, for a member, an operator object instead of
//! its value (`{"estimate": {"__op": "Increment", "amount": 3}}`), which the application applies
//! to the value it holds.
//!
//! **Learned** from the recorded calls whose read after the write showed such a member changed
//! otherwise than sent: the object is an operator when one of its two members holds a word (the
//! operator key, `__op`, the same in every call) and the other its argument, and the word's
//! meaning is what every recorded call using it showed, among the meanings this rule knows
//! ([`Meaning`]: a number added, an array's items added when absent, appended, or removed). A word
//! more than one meaning fits keeps them all; a served call is applied only when they agree.
//!
//! **Applied** to a served call: each member sent as an operator object is the word's meaning
//! over the value held before; a member sent plainly that the rule explains is stored as sent. A
//! call is refused, never applied wrongly, when it sends an operator for a member no recorded
//! call did, a word no recorded call used, an argument or held value of the wrong kind, or a word
//! whose meanings disagree on it.

use std::collections::{BTreeMap, BTreeSet};

use rea_plugin_api::contracts::rule::{
    ApplyOutcome, ApplyRequest, Effect, LearnOutcome, LearnRequest, LearnScope, NoOptions,
    ObservedCall,
};
use rea_plugin_api::json::escape_pointer_segment;
use rea_plugin_api::{Plugin, PluginError, StageInfo, StateRule};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

/// The member-operator stage.
pub const STAGE: &str = "member-operator";

/// What an operator word does to the value held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Meaning {
    /// The held number plus the argument number.
    Add,
    /// The held array, then each item of the argument array it does not hold yet.
    Union,
    /// The held array, then every item of the argument array.
    Append,
    /// The held array without any item of the argument array.
    Remove,
    /// The held array's items and each item of the argument array it does not hold yet, in an
    /// order the application chooses (a database's set union): applied only when it adds
    /// nothing, as where the application puts an added item is not shown.
    UnorderedUnion,
}

const MEANINGS: [Meaning; 5] = [
    Meaning::Add,
    Meaning::Union,
    Meaning::Append,
    Meaning::Remove,
    Meaning::UnorderedUnion,
];

impl Meaning {
    /// The value after the operator, or `None` when the held value or argument is of another kind.
    fn apply(self, held: Option<&Value>, argument: &Value) -> Option<Value> {
        match self {
            Self::Add => add_numbers(held?, argument),
            Self::Union | Self::Append | Self::Remove => {
                let (held, items) = (held?.as_array()?, argument.as_array()?);
                Some(Value::Array(self.on_array(held, items)))
            }
            Self::UnorderedUnion => {
                let (held, items) = (held?.as_array()?, argument.as_array()?);
                let adds = items.iter().any(|item| !held.contains(item));
                (!adds).then(|| Value::Array(held.clone()))
            }
        }
    }

    /// Whether the meaning takes `before` to `after` with `argument`.
    fn holds(self, before: Option<&Value>, argument: &Value, after: &Value) -> bool {
        if self != Self::UnorderedUnion {
            return self.apply(before, argument).as_ref() == Some(after);
        }
        let (Some(before), Some(items), Some(after)) = (
            before.and_then(Value::as_array),
            argument.as_array(),
            after.as_array(),
        ) else {
            return false;
        };
        let union = Self::Union.on_array(before, items);
        let distinct = after
            .iter()
            .enumerate()
            .all(|(index, item)| !after[..index].contains(item));
        distinct && union.len() == after.len() && union.iter().all(|item| after.contains(item))
    }

    fn on_array(self, held: &[Value], items: &[Value]) -> Vec<Value> {
        let mut after = held.to_vec();
        match self {
            Self::Append => after.extend(items.iter().cloned()),
            Self::Union => {
                for item in items {
                    if !after.contains(item) {
                        after.push(item.clone());
                    }
                }
            }
            Self::Remove => after.retain(|value| !items.contains(value)),
            Self::Add | Self::UnorderedUnion => {}
        }
        after
    }
}

fn add_numbers(held: &Value, argument: &Value) -> Option<Value> {
    if let (Some(held), Some(argument)) = (held.as_i64(), argument.as_i64()) {
        return held.checked_add(argument).map(Value::from);
    }
    let sum = held.as_f64()? + argument.as_f64()?;
    Number::from_f64(sum).map(Value::Number)
}

/// One operator word as the recorded calls showed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Operator {
    /// The member of the operator object holding its argument (`amount`, `objects`).
    pub argument: String,
    /// The meanings every recorded call using the word agreed with.
    pub meanings: Vec<Meaning>,
}

/// What `member-operator` learns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Operators {
    /// The member of an operator object naming its operator (`__op`).
    pub key: String,
    /// Per operator word, its argument and meanings.
    pub operators: BTreeMap<String, Operator>,
    /// The members (top-level pointers) the recorded calls sent operators for.
    pub fields: Vec<String>,
}

/// One operator object a recorded call sent for a member, read with one candidate key.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Finding {
    key: String,
    word: String,
    argument: String,
    meanings: BTreeSet<Meaning>,
}

/// The readings of an operator object `sent` that explain `before` becoming `after`: one per
/// member holding a word, the other member its argument.
fn findings(sent: &Value, before: Option<&Value>, after: &Value) -> Vec<Finding> {
    let Some(object) = sent.as_object().filter(|object| object.len() == 2) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (key, word) in object {
        let Some(word) = word.as_str() else { continue };
        let Some((argument, value)) = object.iter().find(|(name, _)| *name != key) else {
            continue;
        };
        let meanings: BTreeSet<Meaning> = MEANINGS
            .into_iter()
            .filter(|meaning| meaning.holds(before, value, after))
            .collect();
        if !meanings.is_empty() {
            found.push(Finding {
                key: key.clone(),
                word: word.to_owned(),
                argument: argument.clone(),
                meanings,
            });
        }
    }
    found
}

/// Per recorded call and unexplained top-level member, the readings of what it sent there.
fn call_findings(call: &ObservedCall) -> Vec<(String, Vec<Finding>)> {
    call.unexplained
        .iter()
        .filter(|(pointer, _)| pointer.len() > 1 && !pointer[1..].contains('/'))
        .map(|(pointer, after)| {
            let sent = call
                .request_body
                .as_ref()
                .and_then(|body| body.pointer(pointer));
            let before = call
                .entity_before
                .as_ref()
                .and_then(|entity| entity.pointer(pointer));
            let found = sent.map_or_else(Vec::new, |sent| findings(sent, before, after));
            (pointer.clone(), found)
        })
        .collect()
}

/// The words read with `key`, each with the meanings every call using it agreed on (a word whose
/// calls disagree on the argument member, or share no meaning, is left out).
fn words_under(key: &str, all: &[(String, Vec<Finding>)]) -> BTreeMap<String, Operator> {
    let mut words: BTreeMap<String, Option<(String, BTreeSet<Meaning>)>> = BTreeMap::new();
    for finding in all
        .iter()
        .flat_map(|(_, found)| found)
        .filter(|f| f.key == key)
    {
        let entry = words
            .entry(finding.word.clone())
            .or_insert_with(|| Some((finding.argument.clone(), finding.meanings.clone())));
        if let Some((argument, meanings)) = entry {
            meanings.retain(|meaning| finding.meanings.contains(meaning));
            if *argument != finding.argument || meanings.is_empty() {
                *entry = None;
            }
        }
    }
    words
        .into_iter()
        .filter_map(|(word, agreed)| {
            let (argument, mut meanings) = agreed?;
            // Every call showing the order of a union, the order is the one it showed.
            if meanings.contains(&Meaning::Union) {
                meanings.remove(&Meaning::UnorderedUnion);
            }
            Some((
                word,
                Operator {
                    argument,
                    meanings: meanings.into_iter().collect(),
                },
            ))
        })
        .collect()
}

/// The pointers `key` and its words explain: those every call leaving them unexplained sent an
/// operator for, read as a learned word.
fn explained(
    key: &str,
    operators: &BTreeMap<String, Operator>,
    all: &[(String, Vec<Finding>)],
) -> Vec<String> {
    let reads = |found: &Vec<Finding>| {
        found.iter().any(|finding| {
            finding.key == key
                && operators.get(&finding.word).is_some_and(|operator| {
                    operator.argument == finding.argument
                        && operator
                            .meanings
                            .iter()
                            .all(|m| finding.meanings.contains(m))
                })
        })
    };
    let pointers: BTreeSet<&String> = all.iter().map(|(pointer, _)| pointer).collect();
    pointers
        .into_iter()
        .filter(|pointer| {
            all.iter()
                .filter(|(other, _)| other == *pointer)
                .all(|(_, found)| reads(found))
        })
        .cloned()
        .collect()
}

/// The member-operator rule.
#[derive(Debug, Default, Clone, Copy)]
pub struct MemberOperatorRule;

impl StateRule for MemberOperatorRule {
    type Options = NoOptions;
    type Rule = Operators;

    /// The effects `learn` answers for (it explains nothing for others), joining only by
    /// explaining.
    fn learn_scope(&self) -> LearnScope {
        LearnScope::effects(Effect::UPDATES).explaining()
    }

    fn learn(
        &self,
        request: &LearnRequest<NoOptions>,
    ) -> Result<LearnOutcome<Operators>, PluginError> {
        if !request.effect.updates() {
            return Ok(LearnOutcome::no_explanation(
                "operators update held entities",
            ));
        }
        let all: Vec<(String, Vec<Finding>)> =
            request.calls.iter().flat_map(call_findings).collect();
        let keys: BTreeSet<&String> = all
            .iter()
            .flat_map(|(_, found)| found.iter().map(|finding| &finding.key))
            .collect();
        // The key explaining the most members wins; a tie goes to the first key by name.
        let best = keys
            .into_iter()
            .map(|key| {
                let operators = words_under(key, &all);
                let fields = explained(key, &operators, &all);
                (key, operators, fields)
            })
            .max_by(|a, b| a.2.len().cmp(&b.2.len()).then_with(|| b.0.cmp(a.0)));
        match best {
            Some((key, operators, fields)) if !fields.is_empty() => Ok(LearnOutcome::learned(
                fields.clone(),
                Operators {
                    key: key.clone(),
                    operators,
                    fields,
                },
            )),
            _ => Ok(LearnOutcome::no_explanation(
                "no member was sent as an operator object whose word every call agreed on",
            )),
        }
    }

    fn apply(&self, request: &ApplyRequest<Operators>) -> Result<ApplyOutcome, PluginError> {
        let rule = &request.rule;
        let mut outcome = ApplyOutcome::default();
        let Some(body) = request.call.body.as_ref().and_then(Value::as_object) else {
            return Ok(outcome);
        };
        let before = request.call.entity_before.as_ref();
        for (name, value) in body {
            let pointer = format!("/{}", escape_pointer_segment(name));
            let explains = rule.fields.contains(&pointer);
            match operator_word(rule, value) {
                Some(word) => {
                    let held = before.and_then(|entity| entity.pointer(&pointer));
                    let after = operate(rule, explains, &pointer, word, value, held)?;
                    outcome.set.insert(pointer, after);
                }
                None if explains => {
                    outcome.set.insert(pointer, value.clone());
                }
                None => {}
            }
        }
        Ok(outcome)
    }
}

/// The word of an operator object (an object whose operator key holds a word).
fn operator_word<'a>(rule: &Operators, value: &'a Value) -> Option<&'a str> {
    value.as_object()?.get(&rule.key)?.as_str()
}

/// The value after applying `word` (sent as `sent`) to the member at `pointer` holding `held`.
fn operate(
    rule: &Operators,
    explains: bool,
    pointer: &str,
    word: &str,
    sent: &Value,
    held: Option<&Value>,
) -> Result<Value, PluginError> {
    if !explains {
        return Err(refusal(format!(
            "no recorded call sent an operator for {pointer}, so what the application stores there is not shown"
        )));
    }
    let operator = rule.operators.get(word).ok_or_else(|| {
        refusal(format!(
            "no recorded call used the operator {word}, so its effect is not shown"
        ))
    })?;
    let argument = sent
        .as_object()
        .filter(|object| object.len() == 2)
        .and_then(|object: &Map<String, Value>| object.get(&operator.argument))
        .ok_or_else(|| {
            refusal(format!(
                "the operator {word} takes one member {}",
                operator.argument
            ))
        })?;
    let results: Vec<Option<Value>> = operator
        .meanings
        .iter()
        .map(|meaning| meaning.apply(held, argument))
        .collect();
    match results.split_first() {
        Some((Some(first), rest)) if rest.iter().all(|other| other.as_ref() == Some(first)) => {
            Ok(first.clone())
        }
        _ => Err(refusal(format!(
            "the operator {word} cannot be applied to what {pointer} holds, as the recorded calls showed it"
        ))),
    }
}

fn refusal(message: String) -> PluginError {
    PluginError::new("operator_not_shown", message)
}

rea_plugin_api::plugin_root_module! {
    /// The root module of the member-operator rule.
    pub fn root_module() = Plugin::new("rea-operator", env!("CARGO_PKG_VERSION"))
        .rule(
            StageInfo::new(STAGE, "Explains updates sending an operator object for a member (increment, array union, append, removal), learned from the values the reads after showed"),
            MemberOperatorRule,
        );
}

rea_plugin_api::submit_builtin!(root_module);

#[cfg(test)]
mod tests;

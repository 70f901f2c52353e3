//! A list's recorded refusal of a query word the application does not allow (issue 12, query
//! grammar): the build called a list read whose one unexplained query pair named an operator word
//! or a reserved control parameter no successful read of the tool used, and the application
//! answered `400`/`422` spelling that word (a JSON string or member name, or its plain text).
//! Three slots, each learned only where the successful reads used it with other words:
//!
//! - an operator word in a parameter's name after a held field, between two affixes
//!   (`title[$regex]` beside the successes' `priority[$lt]`, `estimate[$gte]`:
//!   [`RefusedForm::Operator`]), every word the successes put there one the query grammar reads
//!   as an operator ([`operator_word`]);
//! - an operator word as the value of a held field's companion parameter (`priority__operator=
//!   bigger` beside the successes' `priority__operator=gte`, `due__operator=is_null`:
//!   [`RefusedForm::OperatorValue`]), every value the successes gave such a companion an operator
//!   word;
//! - a reserved control parameter: a sigil (`$`) and a plain word no entity holds, named by no
//!   success, where the successes named controls with that sigil (`$search` beside `$limit`,
//!   `$skip`, `$sort[…]`: [`RefusedForm::Control`]).
//!
//! A pair is unexplained when no success named it (or, a companion, named it with that value);
//! the failed call's other pairs are explained. Served before the list's view, for a call of the
//! tool naming, in that slot, a word the successes did not establish, in a name the tool does not
//! already take (recorded, generalized by the query grammar, or in one of its families), or, for a
//! companion, a value the query grammar reads as no operator: the recorded refusal with the
//! recorded word renamed to the called one, in texts and in member names (`data.$regex` answers
//! `data.$like`), and the recorded value renamed to the called one where the answer spells it.
//! The catalog admits the operator and control names as argument families (`^[A-Za-z0-9_]+\[\$
//! [A-Za-z]+\]$`, `^\$[A-Za-z0-9_]+$`). Learned from the recordings only (the words the failed
//! and the successful reads named and the members the entities hold), never from names.

use std::collections::BTreeSet;

use rea_plugin_api::contracts::capture::CaptureRecord;
use rea_plugin_api::json::Json;
use rea_plugin_api::query_fields::operator_word;

use crate::answer::{StateAnswer, StateSource};
use crate::observation::Observation;
use crate::query_refusals::{QueryRefusal, RefusedForm};
use crate::service::StateService;

/// A parameter name read as a held field, then an operator word between two affixes (`title`,
/// `[$`, `regex`, `]`): the field is the name's leading plain word, the word its one run of ASCII
/// letters after it, the rest neither letters nor digits.
fn operator_name<'n>(
    name: &'n str,
    held: &BTreeSet<String>,
) -> Option<(&'n str, &'n str, &'n str, &'n str)> {
    let end = name
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(name.len());
    let (field, rest) = name.split_at(end);
    if !held.contains(field) || rest.is_empty() {
        return None;
    }
    let start = rest.find(|c: char| c.is_ascii_alphabetic())?;
    let stop = rest[start..]
        .find(|c: char| !c.is_ascii_alphabetic())
        .map_or(rest.len(), |at| start + at);
    let (before, word, after) = (&rest[..start], &rest[start..stop], &rest[stop..]);
    let bare = |affix: &str| !affix.chars().any(|c| c.is_alphanumeric());
    (!before.is_empty() && bare(before) && bare(after)).then_some((field, before, word, after))
}

/// A companion parameter's affix: the name less a held field it starts with, separator
/// characters (`_`, `.`, `:`, `-`) then one word (`__operator` of `priority__operator`).
fn companion_affix<'n>(name: &'n str, held: &BTreeSet<String>) -> Option<&'n str> {
    held.iter().find_map(|field| {
        let affix = name.strip_prefix(field.as_str())?;
        let word = affix.trim_start_matches(['_', '.', ':', '-']);
        let fits = word.len() < affix.len()
            && !word.is_empty()
            && word.chars().all(|c| c.is_ascii_alphanumeric());
        fits.then_some(affix)
    })
}

/// A control parameter's sigil and word (`$`, `search` of `$search`): a run of ASCII
/// punctuation, then a plain word.
fn control_name(name: &str) -> Option<(&str, &str)> {
    let at = name.find(|c: char| !c.is_ascii_punctuation())?;
    let (sigil, word) = name.split_at(at);
    (!sigil.is_empty() && crate::query_refusals::plain(word)).then_some((sigil, word))
}

/// The sigil and word a control a success named starts with (`$`, `sort` of `$sort[priority]`).
fn control_prefix(name: &str) -> Option<(&str, &str)> {
    let at = name.find(|c: char| !c.is_ascii_punctuation())?;
    let end = name[at..]
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map_or(name.len(), |stop| at + stop);
    (at > 0 && end > at).then(|| (&name[..at], &name[at..end]))
}

/// What a tool's successful reads named: each name, and the words of each slot.
struct Established<'a> {
    pairs: Vec<(&'a str, &'a str)>,
    held: &'a BTreeSet<String>,
}

impl<'a> Established<'a> {
    fn of(successes: &[&'a Observation], held: &'a BTreeSet<String>) -> Self {
        let pairs = successes
            .iter()
            .flat_map(|observation| observation.pairs())
            .map(|(name, value)| (name.as_str(), value.as_str()))
            .collect();
        Established { pairs, held }
    }

    fn named(&self, name: &str) -> bool {
        self.pairs.iter().any(|(sent, _)| *sent == name)
    }

    /// The words the successes put between these affixes, when each is an operator word.
    fn operator_words(&self, before: &str, after: &str) -> Option<Vec<String>> {
        let words: BTreeSet<&str> = self
            .pairs
            .iter()
            .filter_map(|(name, _)| operator_name(name, self.held))
            .filter(|(_, b, _, a)| *b == before && *a == after)
            .map(|(_, _, word, _)| word)
            .collect();
        operator_vocabulary(words)
    }

    /// The values the successes gave a companion of this affix, when each is an operator word.
    fn companion_words(&self, affix: &str) -> Option<Vec<String>> {
        let words: BTreeSet<&str> = self
            .pairs
            .iter()
            .filter(|(name, _)| companion_affix(name, self.held) == Some(affix))
            .map(|(_, value)| *value)
            .collect();
        operator_vocabulary(words)
    }

    /// The control words the successes named with this sigil.
    fn control_words(&self, sigil: &str) -> Vec<String> {
        let words: BTreeSet<&str> = self
            .pairs
            .iter()
            .filter_map(|(name, _)| control_prefix(name))
            .filter(|(spelled, _)| *spelled == sigil)
            .map(|(_, word)| word)
            .collect();
        words.into_iter().map(str::to_owned).collect()
    }

    /// Whether a pair is unexplained: no success named it, or it is a companion whose value no
    /// success gave it.
    fn unexplained(&self, (name, value): (&str, &str)) -> bool {
        if !self.named(name) {
            return true;
        }
        companion_affix(name, self.held)
            .and_then(|affix| self.companion_words(affix))
            .is_some_and(|words| !words.iter().any(|word| word == value))
    }
}

/// Words, sorted, when there are some and the query grammar reads each as an operator.
fn operator_vocabulary(words: BTreeSet<&str>) -> Option<Vec<String>> {
    let shown = !words.is_empty() && words.iter().all(|word| operator_word(word).is_some());
    shown.then(|| words.into_iter().map(str::to_owned).collect())
}

/// The slot a failed call's one unexplained pair names a word in, and that word.
fn refused_slot(
    established: &Established<'_>,
    (name, value): (&str, &str),
) -> Option<(RefusedForm, String)> {
    if let Some(affix) = companion_affix(name, established.held)
        && established.named(name)
        && crate::query_refusals::plain(value)
    {
        let words = established.companion_words(affix)?;
        let affix = affix.to_owned();
        return Some((
            RefusedForm::OperatorValue { affix, words },
            value.to_owned(),
        ));
    }
    if let Some((_, before, word, after)) = operator_name(name, established.held) {
        let words = established.operator_words(before, after)?;
        let (before, after) = (before.to_owned(), after.to_owned());
        let form = RefusedForm::Operator {
            before,
            after,
            words: words.clone(),
        };
        return (!words.iter().any(|known| known == word)).then(|| (form, word.to_owned()));
    }
    let (sigil, word) = control_name(name)?;
    let words = established.control_words(sigil);
    let fresh = !words.is_empty() && !established.held.contains(word);
    let sigil = sigil.to_owned();
    fresh.then(|| (RefusedForm::Control { sigil, words }, word.to_owned()))
}

/// The texts of a failed call's answer: each string and member name of its JSON answer, or its
/// whole text when it is not JSON (read from its record).
fn answer_texts(failed: &Observation, records: &[CaptureRecord]) -> Vec<String> {
    fn collect(value: &Json, texts: &mut Vec<String>) {
        match value {
            Json::String(text) => texts.push(text.to_string()),
            Json::Array(items) => items.iter().for_each(|item| collect(item, texts)),
            Json::Object(members) => members.iter().for_each(|(name, item)| {
                texts.push(name.to_owned());
                collect(item, texts);
            }),
            _ => {}
        }
    }
    let mut texts = Vec::new();
    match &failed.body {
        Some(answer) => collect(answer, &mut texts),
        None => {
            let record = records
                .iter()
                .find(|record| record.ordinal == failed.ordinal);
            let text = record
                .and_then(|record| record.response.body.bytes())
                .and_then(|bytes| String::from_utf8(bytes.into_owned()).ok());
            texts.extend(text);
        }
    }
    texts
}

/// Whether one of the texts holds the word whole (the characters beside it are neither letters,
/// digits nor `_`).
fn spelled(texts: &[String], word: &str) -> bool {
    texts
        .iter()
        .any(|text| crate::query_refusals::spells_word(&Json::from(text.as_str()), word))
}

/// The refusals of operator words and control parameters one list tool's failed reads teach
/// (see the module docs): one per slot.
pub(crate) fn derive_one(
    (observations, records): (&[&Observation], &[CaptureRecord]),
    (tool, entity_type): (&str, &str),
    held: &BTreeSet<String>,
) -> Vec<QueryRefusal> {
    let successes: Vec<&Observation> = observations
        .iter()
        .copied()
        .filter(|seen| seen.is_success())
        .collect();
    let established = Established::of(&successes, held);
    let mut learned: Vec<QueryRefusal> = Vec::new();
    for failed in observations {
        if !matches!(failed.status, 400 | 422) || held.is_empty() {
            continue;
        }
        let mut open = failed
            .pairs()
            .iter()
            .filter(|(name, value)| established.unexplained((name, value)));
        let (Some((name, value)), None) = (open.next(), open.next()) else {
            continue;
        };
        let Some((form, word)) = refused_slot(&established, (name, value)) else {
            continue;
        };
        let kind = std::mem::discriminant(&form);
        if spelled(&answer_texts(failed, records), &word)
            && !learned
                .iter()
                .any(|known| std::mem::discriminant(&known.form) == kind)
        {
            learned.push(QueryRefusal {
                tool: tool.to_owned(),
                entity_type: entity_type.to_owned(),
                form,
                field: word,
                ordinal: failed.ordinal,
            });
        }
    }
    learned
}

/// The word a call's pair names in a refusal's slot that the successes did not establish, and
/// the recorded pair's name it stands for; `None` when the pair names none, or a word the tool
/// takes (`explained`: a name the tool takes already; a companion's value the query grammar reads
/// as an operator).
fn refused_word<'c>(
    refusal: &QueryRefusal,
    (name, value): (&'c str, &'c str),
    held: &BTreeSet<String>,
    explained: &dyn Fn(&str) -> bool,
) -> Option<&'c str> {
    let fresh = |word: &str, words: &[String]| !words.iter().any(|known| known == word);
    match &refusal.form {
        RefusedForm::Operator {
            before,
            after,
            words,
        } => {
            let (_, b, word, a) = operator_name(name, held)?;
            (b == before && a == after && fresh(word, words) && !explained(name)).then_some(word)
        }
        RefusedForm::OperatorValue { affix, words } => {
            let fits = companion_affix(name, held) == Some(affix.as_str())
                && crate::query_refusals::plain(value)
                && operator_word(value).is_none();
            (fits && fresh(value, words)).then_some(value)
        }
        RefusedForm::Control { sigil, words } => {
            let (spelled, word) = control_name(name)?;
            let fits = spelled == sigil && !held.contains(word) && !explained(name);
            (fits && fresh(word, words)).then_some(word)
        }
        _ => None,
    }
}

/// The recorded value of the refused pair (the one naming the refused word), for a slot in a
/// parameter's name; `None` for a companion, whose value is the word.
fn recorded_value(refusal: &QueryRefusal, base: &crate::answer::KeptRecord) -> Option<String> {
    let spelled = match &refusal.form {
        RefusedForm::Operator { before, after, .. } => format!("{before}{}{after}", refusal.field),
        RefusedForm::Control { sigil, .. } => format!("{sigil}{}", refusal.field),
        _ => return None,
    };
    let pairs = base
        .query
        .iter()
        .flat_map(|query| query.pairs.iter().flatten());
    pairs
        .filter(|(name, _)| name.ends_with(&spelled))
        .map(|(_, value)| value.clone())
        .next()
}

/// The recorded refusal a call's pair answers in a learned operator or control slot (see the
/// module docs); `None` when the pair names no refused word there.
pub(crate) fn answer(
    service: &StateService,
    refusal: &QueryRefusal,
    (name, value): (&str, &str),
    held: &BTreeSet<String>,
    explained: &dyn Fn(&str) -> bool,
) -> Option<StateAnswer> {
    let word = refused_word(refusal, (name, value), held, explained)?;
    let base = service.kept(refusal.ordinal)?;
    let mut renamed = Vec::new();
    if word != refusal.field {
        renamed.push((refusal.field.clone(), word.to_owned()));
    }
    if let Some(recorded) = recorded_value(refusal, base)
        && !recorded.is_empty()
        && recorded != value
    {
        renamed.push((recorded, value.to_owned()));
    }
    let source = StateSource::state("query-refused", None);
    let evidence = service.replay_evidence_id();
    match base.json() {
        Some(json) if !renamed.is_empty() => {
            let mut body = json.clone();
            rename_member_words(&mut body, &renamed);
            Some(crate::missing::renamed_json(
                base, body, &renamed, evidence, source,
            ))
        }
        _ => Some(crate::missing::renamed_answer(
            base, &renamed, evidence, false, source,
        )),
    }
}

/// An answer with each member name holding a recorded word whole (`$regex`) spelling the called
/// one (`$like`), at any depth, in place.
fn rename_member_words(answer: &mut Json, renamed: &[(String, String)]) {
    match answer {
        Json::Object(members) => {
            let taken = std::mem::take(members);
            *members = taken
                .into_iter()
                .map(|(name, mut value)| {
                    rename_member_words(&mut value, renamed);
                    let name = renamed.iter().fold(name, |name, (from, to)| {
                        crate::missing::replace_tokens(&name, from, to)
                    });
                    (name, value)
                })
                .collect();
        }
        Json::Array(items) => items
            .iter_mut()
            .for_each(|item| rename_member_words(item, renamed)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::name_set as held;
    use crate::test_support::read_observation;

    #[test]
    fn an_operator_name_is_a_held_field_then_one_word_between_bare_affixes() {
        let held = held(&["title", "priority"]);
        assert_eq!(
            operator_name("title[$regex]", &held),
            Some(("title", "[$", "regex", "]"))
        );
        assert_eq!(
            operator_name("priority[$in][]", &held),
            Some(("priority", "[$", "in", "][]"))
        );
        // No held field first, no word, or a second word is no operator name.
        assert_eq!(operator_name("weight[$lt]", &held), None);
        assert_eq!(operator_name("filter[title]", &held), None);
        assert_eq!(operator_name("title[0]", &held), None);
        assert_eq!(operator_name("title[$or][status]", &held), None);
        assert_eq!(operator_name("priority__gte", &held), None);
    }

    #[test]
    fn companions_and_controls_are_read_from_their_spelling() {
        let held = held(&["due", "priority"]);
        assert_eq!(
            companion_affix("priority__operator", &held),
            Some("__operator")
        );
        assert_eq!(companion_affix("priority", &held), None);
        assert_eq!(companion_affix("title__operator", &held), None);
        assert_eq!(control_name("$search"), Some(("$", "search")));
        assert_eq!(control_name("$sort[title]"), None);
        assert_eq!(control_name("search"), None);
        assert_eq!(control_prefix("$sort[title]"), Some(("$", "sort")));
        assert_eq!(control_prefix("__page_size"), Some(("__", "page_size")));
    }

    /// A toy list's successes and one failed read of it, answered `answer`.
    fn learned(
        successes: &[&[(&str, &str)]],
        failed: &[(&str, &str)],
        answer: &str,
    ) -> Vec<QueryRefusal> {
        let mut observations: Vec<Observation> = successes
            .iter()
            .enumerate()
            .map(|(at, pairs)| read_observation(at as u64, "/tasks", pairs, "[]"))
            .collect();
        let mut refused = read_observation(99, "/tasks", failed, answer);
        refused.status = 400;
        observations.push(refused);
        let seen: Vec<&Observation> = observations.iter().collect();
        let held = held(&["title", "priority", "due"]);
        derive_one((&seen, &[]), ("get_tasks", "/tasks"), &held)
    }

    #[test]
    fn an_operator_word_outside_the_successes_slot_is_learned() {
        let successes: [&[(&str, &str)]; 2] = [&[("priority[$lt]", "2")], &[("$limit", "5")]];
        let answer = r#"{"message": "Invalid query parameter $regex", "data": {"$regex": "wall"}}"#;
        let refusals = learned(&successes, &[("title[$regex]", "wall")], answer);
        let [refusal] = refusals.as_slice() else {
            panic!("{refusals:?}");
        };
        assert_eq!(refusal.field, "regex");
        assert_eq!(
            refusal.form,
            RefusedForm::Operator {
                before: "[$".to_owned(),
                after: "]".to_owned(),
                words: vec!["lt".to_owned()],
            }
        );
        let control = learned(&successes, &[("$search", "wall")], r#"{"m": "no $search"}"#);
        assert_eq!(control[0].field, "search");
        assert_eq!(
            control[0].form,
            RefusedForm::Control {
                sigil: "$".to_owned(),
                words: vec!["limit".to_owned()],
            }
        );
        // An answer not spelling the word, or a slot no success used, teaches nothing.
        assert!(learned(&successes, &[("title[$regex]", "wall")], r#"{"m": "bad"}"#).is_empty());
        assert!(learned(&[&[("$limit", "5")]], &[("title[$regex]", "x")], answer).is_empty());
    }

    #[test]
    fn a_companion_value_outside_the_successes_words_is_learned() {
        let successes: [&[(&str, &str)]; 2] = [
            &[("priority", "2"), ("priority__operator", "gte")],
            &[("due__operator", "is_null")],
        ];
        let failed = [("priority", "2"), ("priority__operator", "bigger")];
        let refusals = learned(&successes, &failed, r#""Unrecognised argument - bigger""#);
        assert_eq!(refusals.len(), 1, "{refusals:?}");
        assert_eq!(refusals[0].field, "bigger");
        assert_eq!(
            refusals[0].form,
            RefusedForm::OperatorValue {
                affix: "__operator".to_owned(),
                words: vec!["gte".to_owned(), "is_null".to_owned()],
            }
        );
        // A comparison's numbers are no operator words: `priority__gte=high` is no companion.
        let numbers: [&[(&str, &str)]; 1] = [&[("priority__gte", "2")]];
        let answer = r#"{"priority__gte": ["Enter a number: high"]}"#;
        assert!(learned(&numbers, &[("priority__gte", "high")], answer).is_empty());
    }

    #[test]
    fn a_called_word_the_successes_established_or_the_grammar_explains_is_not_refused() {
        let held = held(&["title"]);
        let refusal = |form| QueryRefusal {
            tool: "get_tasks".to_owned(),
            entity_type: "/tasks".to_owned(),
            form,
            field: "regex".to_owned(),
            ordinal: 1,
        };
        let operator = refusal(RefusedForm::Operator {
            before: "[$".to_owned(),
            after: "]".to_owned(),
            words: vec!["in".to_owned(), "lt".to_owned()],
        });
        let unknown = |_: &str| false;
        let pair = ("title[$like]", "wall");
        assert_eq!(refused_word(&operator, pair, &held, &unknown), Some("like"));
        assert_eq!(
            refused_word(&operator, ("title[$lt]", "3"), &held, &unknown),
            None
        );
        assert_eq!(refused_word(&operator, pair, &held, &|_| true), None);
        let companion = refusal(RefusedForm::OperatorValue {
            affix: "__operator".to_owned(),
            words: vec!["gte".to_owned()],
        });
        let call = |value| refused_word(&companion, ("title__operator", value), &held, &unknown);
        assert_eq!(call("bigger"), Some("bigger"));
        // `not_null` is an operator word the grammar reads; `gte` an established one.
        assert_eq!(call("not_null"), None);
        assert_eq!(call("gte"), None);
    }

    #[test]
    fn member_names_spelling_the_recorded_word_spell_the_called_one() {
        let mut answer =
            Json::parse(br#"{"data": {"$regex": "wall", "regexes": 1}}"#).expect("json");
        rename_member_words(&mut answer, &[("regex".to_owned(), "like".to_owned())]);
        assert_eq!(
            answer,
            Json::parse(br#"{"data": {"$like": "wall", "regexes": 1}}"#).expect("json")
        );
    }
}

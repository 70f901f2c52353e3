//! Store counters: an integer member of the application's answers that is store-wide rather
//! than an entity's (a key-value store's revision in every answer's `header`), holding steady
//! between writes and stepping by one per write. The state keeps each one the capture shows
//! ([`derive`]), seeded from the value the reads before the first write stepping it showed (the
//! state served is the one those reads observed), steps it per served write of a tool whose
//! recorded answers stepped it, passes it to the rule stages (`ServedCall::store_counters`, what
//! the `store-counter` rule stamps written entities from) and writes it into the answers that
//! carry it ([`stamp`]): a served write's answer and a body query's envelope.
//!
//! Learned from the recordings only, never from a name: a pointer (object members only, never
//! inside a list, so no entity of a listing is taken for one) whose integer, in record order
//! over every successful JSON answer holding it, is first shown by a read, equal in every read to
//! the value before it, and one past it in every write's answer; at least two writes stepped it,
//! a read after a write showed it, and every successful answer of each stepping tool holds it.

use std::collections::{BTreeMap, BTreeSet};

use rea_manifest::Manifest;
use rea_plugin_api::json::{Json, Number};
use serde::{Deserialize, Serialize};

use crate::observation::Timeline;
use crate::render::with_value_at;

/// How deep into an answer's objects a counter is looked for.
const MAX_DEPTH: usize = 3;

/// A store counter the capture shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreCounter {
    /// The answer pointer holding it (`/header/revision`).
    pub pointer: String,
    /// Its value as the state's reads showed it, before the first write stepping it, spelled as
    /// the answers spell it.
    pub seed: Json,
    /// The write tools whose every recorded answer stepped it by one.
    pub tools: Vec<String>,
}

/// An integer and whether it is spelled as a string of digits.
pub fn integer(value: &Json) -> Option<(i128, bool)> {
    match value {
        Json::Number(number) => number.as_i64().map(|value| (i128::from(value), false)),
        Json::String(text) if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => {
            text.parse().ok().map(|value| (value, true))
        }
        _ => None,
    }
}

/// `value` spelled as `like` is (a string of digits, or a number).
pub fn spelled_like(value: i128, like: &Json) -> Json {
    let text = value.to_string();
    match like {
        Json::String(_) => Json::String(text.into()),
        _ => Number::from_lexeme(&text).map_or(Json::String(text.into()), Json::Number),
    }
}

/// The next value of a counter: one past it, spelled alike (`None`: not an integer, or past
/// the largest).
pub fn next(value: &Json) -> Option<Json> {
    let (held, _) = integer(value)?;
    let next = held
        .checked_add(1)
        .filter(|next| *next <= i128::from(i64::MAX))?;
    Some(spelled_like(next, value))
}

/// `body` with each counter written where it holds that pointer (left as it is elsewhere).
pub fn stamp<'a>(mut body: Json, counters: impl IntoIterator<Item = (&'a str, &'a Json)>) -> Json {
    for (pointer, value) in counters {
        if body
            .pointer(pointer)
            .is_some_and(|held| integer(held).is_some())
        {
            body = with_value_at(body, pointer, value.clone());
        }
    }
    body
}

/// Sets each counter an answer holds to its value there.
pub fn follow<'a>(values: impl IntoIterator<Item = (&'a str, &'a mut Json)>, answer: &Json) {
    for (pointer, value) in values {
        if let Some(shown) = answer
            .pointer(pointer)
            .filter(|shown| integer(shown).is_some())
        {
            *value = shown.clone();
        }
    }
}

/// Every integer in an answer's objects (never inside an array), by JSON pointer.
fn integers(value: &Json, pointer: &str, depth: usize, found: &mut Vec<(String, Json)>) {
    let Json::Object(members) = value else {
        if depth > 0 && integer(value).is_some() {
            found.push((pointer.to_owned(), value.clone()));
        }
        return;
    };
    if depth == MAX_DEPTH {
        return;
    }
    for (name, member) in members.iter() {
        let inner = format!(
            "{pointer}/{}",
            rea_plugin_api::json::escape_pointer_segment(name)
        );
        integers(member, &inner, depth + 1, found);
    }
}

/// One answer holding a candidate pointer.
struct Shown {
    tool: usize,
    write: bool,
    value: Json,
}

/// The store counters a capture shows (see the module docs), by pointer.
pub fn derive(manifest: &Manifest, timeline: &Timeline) -> Vec<StoreCounter> {
    let mut shown: BTreeMap<String, Vec<Shown>> = BTreeMap::new();
    for ordinal in &timeline.ordered {
        let Some(observation) = timeline.get(*ordinal) else {
            continue;
        };
        let Some(body) = observation.success_body() else {
            continue;
        };
        let write = timeline.is_write(manifest, observation.tool);
        let mut found = Vec::new();
        integers(body, "", 0, &mut found);
        for (pointer, value) in found {
            shown.entry(pointer).or_default().push(Shown {
                tool: observation.tool,
                write,
                value,
            });
        }
    }
    shown
        .into_iter()
        .filter_map(|(pointer, shown)| counter(manifest, timeline, pointer, &shown))
        .collect()
}

/// The counter a pointer's answers show, if they show one.
fn counter(
    manifest: &Manifest,
    timeline: &Timeline,
    pointer: String,
    shown: &[Shown],
) -> Option<StoreCounter> {
    let first = shown.first().filter(|first| !first.write)?;
    let (mut value, digits) = integer(&first.value)?;
    let mut seed = first.value.clone();
    let (mut steps, mut read_after_step) = (0usize, false);
    let mut tools = BTreeSet::new();
    for answer in shown {
        let (shown_value, shown_digits) = integer(&answer.value)?;
        if shown_digits != digits {
            return None;
        }
        if answer.write {
            if shown_value != value + 1 {
                return None;
            }
            value = shown_value;
            steps += 1;
            tools.insert(answer.tool);
        } else {
            if shown_value != value {
                return None;
            }
            if steps == 0 {
                seed = answer.value.clone();
            }
            read_after_step |= steps > 0;
        }
    }
    if steps < 2 || !read_after_step {
        return None;
    }
    // Every successful answer of a stepping tool holds it (a write that sometimes does not
    // answer it may step it unseen).
    let holds = |tool: usize| {
        timeline
            .all(tool)
            .filter(|observation| observation.is_success())
            .all(|observation| {
                observation
                    .body
                    .as_ref()
                    .and_then(|body| body.pointer(&pointer))
                    .is_some()
            })
    };
    if !tools.iter().all(|tool| holds(*tool)) {
        return None;
    }
    Some(StoreCounter {
        tools: tools
            .into_iter()
            .map(|tool| manifest.tools[tool].name.clone())
            .collect(),
        pointer,
        seed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::parsed_json as json;

    #[test]
    fn integers_are_found_in_objects_only_and_spelled_back_alike() {
        let mut found = Vec::new();
        let body =
            json(r#"{"header": {"revision": "7", "term": 2}, "kvs": [{"v": "3"}], "n": 1.5}"#);
        integers(&body, "", 0, &mut found);
        let pointers: Vec<&str> = found.iter().map(|(pointer, _)| pointer.as_str()).collect();
        assert_eq!(pointers, ["/header/revision", "/header/term"]);
        assert_eq!(next(&json(r#""9""#)), Some(json(r#""10""#)));
        assert_eq!(next(&json("9")), Some(json("10")));
        assert_eq!(next(&json(r#""x""#)), None);
        let stamped = stamp(
            body,
            [
                ("/header/revision", &json(r#""8""#)),
                ("/missing", &json("1")),
            ],
        );
        assert_eq!(stamped.pointer("/header/revision"), Some(&json(r#""8""#)));
        assert!(stamped.pointer("/missing").is_none());
    }
}

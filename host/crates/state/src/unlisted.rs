//! Unlisted documents: a path of a folder tree that no listing shows, in a folder whose children
//! the listings show, answers the tree's recorded missing answer (etcd's `404` with `errorCode`
//! 100 for `/v2/keys/flags/purple`, shown by the build only after its deletes), never a refusal
//! or another document's answer.
//!
//! **Learning, per folder listing** (see [`crate::listings`]). Every `GET` of a path below the
//! tree's prefix answering `404` or `410` with a JSON body holding the text the path names (the
//! path after the prefix, `/flags/beta-search`, as a string or a whole token of one) is a missing
//! answer. The tree's *counter* at a record is the largest number any member of an object naming
//! an entry (by the tree's naming member) held in the successful answers under the prefix recorded
//! before it (etcd's `modifiedIndex`, which a delete's answer raises as well). A number member of
//! the missing answers holding the counter in every one of them (`index`) is learned as the
//! counter. The answers are learned when they agree once the named text and the counter members
//! are set aside, and were read with the same query; the latest is kept.
//!
//! **Answering.** A call of a read tool of the tree, with the query the missing answers were read
//! with, naming a path that is no listed entry and whose parent folder is listed (its children are
//! all shown), answers the latest missing answer naming the call's text instead, each counter
//! member holding the largest number a listed entry holds. A path whose parent is not listed (a
//! missing folder's child: the application names the missing folder) is not answered, and neither
//! is any call after a served write (the listings are the state before the first write).

use std::collections::BTreeSet;

use rea_plugin_api::json::{Json, escape_pointer_segment};
use serde::{Deserialize, Serialize};

use crate::observation::{Observation, Timeline, decoded};

/// How far below an answer's root objects naming entries and number members are looked for.
const MAX_DEPTH: usize = 16;

/// A folder tree's learned missing answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnlistedAnswer {
    /// The latest recorded missing answer, rendered for a call.
    pub base_ordinal: u64,
    /// The text that answer names (the recorded path after the prefix).
    pub named: String,
    /// The query pairs the missing answers were read with (a call sends exactly these).
    pub query: BTreeSet<(String, String)>,
    /// The pointers of the number members holding the tree's counter.
    pub counters: Vec<String>,
}

/// One recorded missing answer, with the text it names and the counter before it.
struct Missing<'t> {
    read: &'t Observation,
    named: String,
    counter: Option<u64>,
}

/// The decoded path of an observation, after `prefix` (`None`: not below it).
pub(crate) fn rest_of(read: &Observation, prefix: &str) -> Option<String> {
    let segments: Vec<String> = read.segments.iter().map(|s| decoded(s)).collect();
    let path = format!("/{}", segments.join("/"));
    let rest = path.strip_prefix(prefix)?;
    (rest.starts_with('/') && rest.len() > 1).then(|| rest.to_owned())
}

/// The largest number a member of an object naming an entry by `member` holds in `body`.
fn largest_counter(body: &Json, member: &str, depth: usize) -> Option<u64> {
    if depth > MAX_DEPTH {
        return None;
    }
    match body {
        Json::Object(object) => {
            let own = object.get(member).and_then(Json::as_str).and_then(|_| {
                object
                    .iter()
                    .filter_map(|(_, value)| match value {
                        Json::Number(number) => number.as_u64(),
                        _ => None,
                    })
                    .max()
            });
            let below = object
                .iter()
                .filter_map(|(_, value)| largest_counter(value, member, depth + 1))
                .max();
            own.max(below)
        }
        Json::Array(items) => items
            .iter()
            .filter_map(|item| largest_counter(item, member, depth + 1))
            .max(),
        _ => None,
    }
}

/// The number members of `body` by pointer.
fn numbers(body: &Json, pointer: &str, depth: usize, found: &mut Vec<(String, u64)>) {
    if depth > MAX_DEPTH {
        return;
    }
    match body {
        Json::Number(number) => {
            if let Some(value) = number.as_u64() {
                found.push((pointer.to_owned(), value));
            }
        }
        Json::Object(object) => {
            for (name, value) in object.iter() {
                let below = format!("{pointer}/{}", escape_pointer_segment(name));
                numbers(value, &below, depth + 1, found);
            }
        }
        Json::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                numbers(item, &format!("{pointer}/{index}"), depth + 1, found);
            }
        }
        _ => {}
    }
}

/// Whether some string of `body` is `text` or holds it as a whole token.
fn names(body: &Json, text: &str) -> bool {
    let mut renamed = body.clone();
    crate::missing::rename_entity(&mut renamed, text, "\u{0}");
    renamed != *body
}

/// The missing answers of a tree, in record order, each with the counter before it.
fn missing_answers<'t>(timeline: &'t Timeline, prefix: &str, member: &str) -> Vec<Missing<'t>> {
    let mut counter: Option<u64> = None;
    let mut found = Vec::new();
    for ordinal in &timeline.ordered {
        let Some(read) = timeline.by_ordinal.get(ordinal) else {
            continue;
        };
        let below = rest_of(read, prefix);
        let (Some(rest), Some(body)) = (&below, &read.body) else {
            continue;
        };
        let get = read.method.eq_ignore_ascii_case("GET");
        if get && matches!(read.status, 404 | 410) && names(body, rest) {
            found.push(Missing {
                read,
                named: rest.clone(),
                counter,
            });
        } else if read.is_success() {
            counter = counter.max(largest_counter(body, member, 0));
        }
    }
    found
}

/// The pointers of the number members holding the counter in every missing answer.
fn counter_members(found: &[Missing<'_>]) -> Vec<String> {
    let mut shared: Option<BTreeSet<String>> = None;
    for missing in found {
        let mut held = Vec::new();
        if let Some(body) = &missing.read.body {
            numbers(body, "", 0, &mut held);
        }
        let holding: BTreeSet<String> = held
            .into_iter()
            .filter(|(_, value)| Some(*value) == missing.counter)
            .map(|(pointer, _)| pointer)
            .collect();
        shared = Some(match shared {
            None => holding,
            Some(shared) => shared.intersection(&holding).cloned().collect(),
        });
    }
    shared.unwrap_or_default().into_iter().collect()
}

/// A missing answer with its named text and counter members set aside.
fn set_aside(missing: &Missing<'_>, counters: &[String]) -> Option<Json> {
    let mut body = missing.read.body.clone()?;
    crate::missing::rename_entity(&mut body, &missing.named, "\u{0}");
    for pointer in counters {
        body = crate::render::with_value_at(body, pointer, Json::Null);
    }
    Some(body)
}

fn query_of(read: &Observation) -> BTreeSet<(String, String)> {
    read.query
        .iter()
        .flat_map(|pairs| pairs.iter().cloned())
        .collect()
}

/// The missing answer of the tree under `prefix` naming entries by `member`, when its recorded
/// missing answers agree (see the module docs).
pub fn learn(timeline: &Timeline, prefix: &str, member: &str) -> Option<UnlistedAnswer> {
    let found = missing_answers(timeline, prefix, member);
    let latest = found.last()?;
    let counters = counter_members(&found);
    let shape = set_aside(latest, &counters)?;
    let query = query_of(latest.read);
    let agree = found.iter().all(|missing| {
        missing.read.status == latest.read.status
            && query_of(missing.read) == query
            && set_aside(missing, &counters).as_ref() == Some(&shape)
    });
    agree.then(|| UnlistedAnswer {
        base_ordinal: latest.read.ordinal,
        named: latest.named.clone(),
        query,
        counters,
    })
}

impl UnlistedAnswer {
    /// The recorded missing answer `base` rendered for the call's text, its counter members
    /// holding `counter` (see the module docs).
    pub fn render(&self, base: &Json, text: &str, counter: Option<u64>) -> Option<Json> {
        let mut body = base.clone();
        crate::missing::rename_entity(&mut body, &self.named, text);
        for pointer in &self.counters {
            body = crate::render::with_value_at(body, pointer, Json::from(counter?));
        }
        Some(body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::parsed_json as parse;

    #[test]
    fn the_counter_is_the_largest_number_of_an_object_naming_an_entry() {
        let body = parse(
            r#"{"action": "get", "errorCode": 900, "node": {"key": "/a", "modifiedIndex": 4,
                "nodes": [{"key": "/a/b", "modifiedIndex": 9, "createdIndex": 2}]}}"#,
        );
        // errorCode sits beside no naming member: it is not a counter.
        assert_eq!(largest_counter(&body, "key", 0), Some(9));
        assert_eq!(largest_counter(&body, "path", 0), None);
    }

    #[test]
    fn a_rendered_answer_names_the_call_and_holds_the_counter() {
        let answer = UnlistedAnswer {
            base_ordinal: 0,
            named: "/flags/beta-search".to_owned(),
            query: BTreeSet::new(),
            counters: vec!["/index".to_owned()],
        };
        let base = parse(
            r#"{"errorCode": 100, "message": "Key not found", "cause": "/flags/beta-search", "index": 25}"#,
        );
        assert_eq!(
            answer.render(&base, "/flags/purple", Some(16)),
            Some(parse(
                r#"{"errorCode": 100, "message": "Key not found", "cause": "/flags/purple", "index": 16}"#
            ))
        );
        // Without a counter the answer is not rendered, never with the recorded number.
        assert_eq!(answer.render(&base, "/flags/purple", None), None);
        // A name inside a longer word is left alone.
        assert!(!names(
            &parse(r#"{"cause": "/flags/beta-searches"}"#),
            "/flags/beta-search"
        ));
    }
}

//! Pass 3: array item defaults, what a write does with the items of a sent array of objects
//! besides storing them as sent.
//!
//! A sent member holding an array of objects the entity after holds as the same items, each
//! with the members it was sent with and the same members beside them with one value (the
//! defaults the application fills in), in the order sent or sorted by one member's values
//! (Syncthing's folder `devices`: `[{"deviceID": "FB7…"}, {"deviceID": "AOW…"}]` stored as
//! `[{"deviceID": "AOW…", "introducedBy": "", "encryptionPassword": ""}, {"deviceID": "FB7…", …}]`).
//! Learned before the rules, when every observed call sending the member as a non-empty array of
//! objects shows its items stored so with the same gained members and an order all of them
//! agree on (sent, or ascending by a member every stored item holds as distinct text or numbers), and one
//! call shows of it what storing it as sent would not (members gained, or items reordered).
//! Applied, each sent item takes the gained members it lacks, and the items are sorted.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use rea_plugin_api::json::{Json, Object};
use serde::{Deserialize, Serialize};

use super::explain::Observed;
use super::model::Effect;
use super::observe::After;
use crate::render::scalar_text;

/// What a write does to the items of one sent array member (see the module docs).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ItemDefaults {
    /// The members each stored item gains beside the ones it was sent with (an object).
    pub gained: Json,
    /// The member whose values (ascending) order the stored items; `None`: the order sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sorted_by: Option<String>,
}

/// What one call shows of a sent array member: the gained members, whether the order sent was
/// kept, and the members the stored items are sorted by.
struct Shown {
    gained: Object,
    kept_order: bool,
    sorted_by: BTreeSet<String>,
}

/// The sent array members of `observed`'s calls whose items gain defaults (see the module docs).
pub(super) fn learn(effect: Effect, observed: &[Observed<'_>]) -> BTreeMap<String, ItemDefaults> {
    let mut found: BTreeMap<String, Option<Vec<Shown>>> = BTreeMap::new();
    for seen in observed {
        let after = match (&seen.call.after, effect) {
            (After::Present(Json::Object(after)), Effect::Create | Effect::Update) => after,
            _ => continue,
        };
        for (member, value) in seen.sent.iter() {
            let Some(sent) = objects_of(value).filter(|items| !items.is_empty()) else {
                continue;
            };
            let shown = after.get(member).and_then(|stored| shown_by(&sent, stored));
            let entry = found.entry(member.to_owned()).or_insert(Some(Vec::new()));
            match (entry.as_mut(), shown) {
                (Some(calls), Some(shown)) => calls.push(shown),
                _ => *entry = None,
            }
        }
    }
    found
        .into_iter()
        .filter_map(|(member, calls)| Some((member, agreed(&calls?)?)))
        .collect()
}

/// The defaults every call agrees on, when one shows more than storing as sent.
fn agreed(calls: &[Shown]) -> Option<ItemDefaults> {
    let (first, rest) = calls.split_first()?;
    if rest.iter().any(|call| call.gained != first.gained) {
        return None;
    }
    let kept_order = calls.iter().all(|call| call.kept_order);
    let sorted_by = if kept_order {
        None
    } else {
        let mut common = first.sorted_by.clone();
        for call in rest {
            common.retain(|member| call.sorted_by.contains(member));
        }
        Some(common.into_iter().next()?)
    };
    let shows = !first.gained.is_empty() || sorted_by.is_some();
    shows.then(|| ItemDefaults {
        gained: Json::Object(first.gained.clone()),
        sorted_by,
    })
}

/// The items of an array of objects.
fn objects_of(value: &Json) -> Option<Vec<&Object>> {
    value.as_array()?.iter().map(Json::as_object).collect()
}

/// What a call shows of a sent array stored as `stored`: each sent item stored once, holding its
/// sent members as sent and the same gained members beside them; `None` otherwise.
fn shown_by(sent: &[&Object], stored: &Json) -> Option<Shown> {
    let stored = objects_of(stored)?;
    if stored.len() != sent.len() {
        return None;
    }
    let mut used = vec![false; stored.len()];
    let mut kept_order = true;
    let mut gained: Option<Object> = None;
    for (index, item) in sent.iter().enumerate() {
        let at = (0..stored.len()).find(|at| !used[*at] && holds_as_sent(stored[*at], item))?;
        used[at] = true;
        kept_order &= at == index;
        let extra = gained_members(stored[at], item);
        if gained.get_or_insert_with(|| extra.clone()) != &extra {
            return None;
        }
    }
    Some(Shown {
        gained: gained.unwrap_or_default(),
        kept_order,
        sorted_by: sorting_members(&stored),
    })
}

/// Whether a stored item holds every member of the sent one as sent.
fn holds_as_sent(stored: &Object, sent: &Object) -> bool {
    sent.iter()
        .all(|(key, value)| stored.get(key) == Some(value))
}

/// The members of a stored item its sent item lacks.
fn gained_members(stored: &Object, sent: &Object) -> Object {
    let mut gained = Object::new();
    for (key, value) in stored.iter() {
        if !sent.contains_key(key) {
            gained.insert(key, value.clone());
        }
    }
    gained
}

/// The members every item holds as text or a number whose values strictly ascend over the items
/// (a key: a member holding one value in two items orders nothing for sure).
fn sorting_members(items: &[&Object]) -> BTreeSet<String> {
    let Some(first) = items.first() else {
        return BTreeSet::new();
    };
    first
        .iter()
        .map(|(key, _)| key)
        .filter(|key| {
            let values: Option<Vec<String>> = items
                .iter()
                .map(|item| item.get(key).and_then(scalar_text))
                .collect();
            values.is_some_and(|values| {
                values
                    .windows(2)
                    .all(|pair| crate::query::compare_text(&pair[0], &pair[1]) == Ordering::Less)
            })
        })
        .map(str::to_owned)
        .collect()
}

/// A sent array of objects as the write stores it: each item with the gained members it lacks,
/// sorted when the defaults say so; any other value as sent.
pub fn stored(defaults: &ItemDefaults, sent: &Json) -> Json {
    let Some(items) = objects_of(sent) else {
        return sent.clone();
    };
    let mut stored: Vec<Object> = items
        .into_iter()
        .map(|item| {
            let mut item = item.clone();
            for (key, value) in defaults
                .gained
                .as_object()
                .into_iter()
                .flat_map(Object::iter)
            {
                if !item.contains_key(key) {
                    item.insert(key, value.clone());
                }
            }
            item
        })
        .collect();
    if let Some(member) = &defaults.sorted_by {
        let text = |item: &Object| item.get(member).and_then(scalar_text).unwrap_or_default();
        stored.sort_by(|a, b| crate::query::compare_text(&text(a), &text(b)));
    }
    Json::Array(stored.into_iter().map(Json::Object).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::parsed_json as json;

    fn shown(sent: &str, stored: &str) -> Option<Shown> {
        let sent = json(sent);
        let items = objects_of(&sent).expect("objects");
        shown_by(&items, &json(stored))
    }

    #[test]
    fn stored_items_show_the_gained_members_and_their_order() {
        let call = shown(
            r#"[{"id": "B"}, {"id": "A"}]"#,
            r#"[{"id": "A", "by": ""}, {"id": "B", "by": ""}]"#,
        )
        .expect("shown");
        assert_eq!(
            call.gained,
            *json(r#"{"by": ""}"#).as_object().expect("object")
        );
        assert!(!call.kept_order);
        assert!(call.sorted_by.contains("id"));
        let learned = agreed(&[call]).expect("learned");
        assert_eq!(learned.sorted_by.as_deref(), Some("id"));
        assert_eq!(
            stored(&learned, &json(r#"[{"id": "C"}, {"id": "A", "by": "x"}]"#)),
            json(r#"[{"id": "A", "by": "x"}, {"id": "C", "by": ""}]"#)
        );
        // Items gaining different members, a sent item not stored as sent, or another count:
        // nothing shown.
        let uneven = shown(
            r#"[{"id": "A"}, {"id": "B"}]"#,
            r#"[{"id": "A", "by": ""}, {"id": "B", "by": "x"}]"#,
        );
        assert!(uneven.is_none());
        assert!(shown(r#"[{"id": "A"}]"#, r#"[{"id": "Z"}]"#).is_none());
        assert!(shown(r#"[{"id": "A"}]"#, r#"[]"#).is_none());
    }

    #[test]
    fn items_stored_as_sent_teach_nothing() {
        let call = shown(
            r#"[{"id": "A"}, {"id": "B"}]"#,
            r#"[{"id": "A"}, {"id": "B"}]"#,
        )
        .expect("shown");
        assert!(agreed(&[call]).is_none());
    }
}

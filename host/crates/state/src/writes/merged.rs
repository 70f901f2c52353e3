//! Pass 3: map-merge members and unstored members, what a write does with a sent member besides
//! storing it as sent.
//!
//! **Map-merge.** A sent object member the entity after holds as the object held there before
//! (nothing, for a create) with each sent entry set key-wise: the held entries the call did not
//! name kept, each named one as sent, or, where both are objects, as sent plus members every such
//! entry gained with one value (a package registry's publish setting `versions["1.2.0"]` beside
//! the held versions and stamping `contributors: []` into it; a settings section's `PATCH`
//! merging `editor`); an entry set into a held object merges into it at every depth
//! ([`deep_merge`]: a JSON:API `PATCH` sending `relationships.borrower.data` replaces that
//! `data` and keeps the relationship's `links` and the unsent `author`). Learned before the
//! rules, when every observed call sending the member as a non-empty object shows it merged with
//! the same gained members, and one call shows of one member what storing it as sent would not
//! (a held entry kept, or an entry's gained members):
//! the write merges, so every member its calls show merged alike merges (the tags map of a
//! publish whose calls only set tags the package held or none).
//!
//! **Unstored.** After the rules, a sent top-level member whose change is still unexplained and
//! whose value the entity after does not show: an update that left it as held, a create that
//! stored one empty value (`{}`, `[]`, `""`, `null`) there in every call, or a member sent with
//! several values that no call stored (an upsert's halves, each sending it once, count together).
//! Applied, a call's value of it is accepted and not stored.

use std::collections::BTreeMap;

use rea_plugin_api::json::{Json, Object, escape_pointer_segment, unescape_pointer_segment};

use super::explain::{Explanation, Observed};
use super::model::Effect;
use super::observe::After;

/// The members of `observed`'s calls that merge key-wise (see the module docs): member → the
/// members each entry it set gained.
pub(super) fn learn_merged(effect: Effect, observed: &[Observed<'_>]) -> BTreeMap<String, Json> {
    let mut found: BTreeMap<String, Option<(Object, bool)>> = BTreeMap::new();
    for seen in observed {
        let (Some(after), before) = entity_around(effect, seen) else {
            continue;
        };
        for (member, value) in seen.sent.iter() {
            let Json::Object(sent) = value else {
                continue;
            };
            if sent.is_empty() {
                continue;
            }
            let held = before.and_then(|before| before.get(member));
            let merge = after
                .get(member)
                .and_then(|stored| merge_shown(held, sent, stored));
            let entry = found
                .entry(member.to_owned())
                .or_insert_with(|| merge.clone());
            match (entry.as_mut(), merge) {
                (Some((gained, evidence)), Some((now, shown))) if *gained == now => {
                    *evidence |= shown;
                }
                _ => *entry = None,
            }
        }
    }
    // The write merges what it sends: once one member shows it, every member no call showed
    // otherwise merges too (a tag map set key-wise, where the calls only set held keys).
    if !found.values().flatten().any(|(_, shown)| *shown) {
        return BTreeMap::new();
    }
    found
        .into_iter()
        .filter_map(|(member, merge)| Some((member, Json::Object(merge?.0))))
        .collect()
}

/// The entity after a call and the one before it (none for a create), as objects.
fn entity_around<'a>(
    effect: Effect,
    seen: &Observed<'a>,
) -> (Option<&'a Object>, Option<&'a Object>) {
    let after = match &seen.call.after {
        After::Present(Json::Object(after)) | After::Document(Json::Object(after)) => Some(after),
        _ => None,
    };
    let before = match effect {
        Effect::Create => None,
        Effect::Document => seen.call.document_before.as_ref().and_then(Json::as_object),
        _ => seen
            .call
            .before
            .as_ref()
            .and_then(|before| before.fields.as_object()),
    };
    (after, before)
}

/// Whether `stored` is `held` (an object, or nothing) with `sent`'s entries set key-wise: the
/// members the set object entries gained (one set for all), and whether the call shows a merge
/// rather than a store as sent (a held entry kept, or members gained).
fn merge_shown(held: Option<&Json>, sent: &Object, stored: &Json) -> Option<(Object, bool)> {
    let Json::Object(stored) = stored else {
        return None;
    };
    let empty = Object::new();
    let held = match held {
        None => &empty,
        Some(Json::Object(held)) => held,
        Some(_) => return None,
    };
    let mut shown = false;
    for (key, value) in held.iter() {
        if sent.contains_key(key) {
            continue;
        }
        if stored.get(key) != Some(value) {
            return None;
        }
        shown = true;
    }
    if stored
        .keys()
        .any(|key| !held.contains_key(key) && !sent.contains_key(key))
    {
        return None;
    }
    let mut gained: Option<Object> = None;
    for (key, value) in sent.iter() {
        let now = stored.get(key)?;
        // An object entry set into a held one merges into it at every depth (a JSON:API
        // relationship's `data` replaced, its `links` kept): no gained members.
        if let (Some(held_entry @ Json::Object(_)), Json::Object(_)) = (held.get(key), value) {
            let merged = deep_merge(held_entry, value);
            if merged != *now {
                return None;
            }
            shown |= merged != *value;
            continue;
        }
        let entry_gained = match (value, now) {
            (Json::Object(sent_entry), Json::Object(stored_entry)) => {
                gained_members(sent_entry, stored_entry)?
            }
            _ if value == now => continue,
            _ => return None,
        };
        if gained.get_or_insert_with(|| entry_gained.clone()) != &entry_gained {
            return None;
        }
    }
    let gained = gained.unwrap_or_default();
    shown |= !gained.is_empty();
    Some((gained, shown))
}

/// The members a stored entry holds beyond the sent one, when it holds every sent member as
/// sent.
fn gained_members(sent: &Object, stored: &Object) -> Option<Object> {
    if sent
        .iter()
        .any(|(key, value)| stored.get(key) != Some(value))
    {
        return None;
    }
    let mut gained = Object::new();
    for (key, value) in stored.iter() {
        if !sent.contains_key(key) {
            gained.insert(key, value.clone());
        }
    }
    Some(gained)
}

/// `sent` merged into `held` at every depth: where both are objects, the held members `sent`
/// does not name kept and each it names merged in turn; anything else (`null`, an array, a
/// scalar, an object in place of another value) is `sent` as it is.
pub(super) fn deep_merge(held: &Json, sent: &Json) -> Json {
    let (Json::Object(held), Json::Object(sent)) = (held, sent) else {
        return sent.clone();
    };
    let mut merged = held.clone();
    for (key, value) in sent.iter() {
        let value = match held.get(key) {
            Some(inner) => deep_merge(inner, value),
            None => value.clone(),
        };
        merged.insert(key, value);
    }
    Json::Object(merged)
}

/// A merged member applied: `sent`'s entries set into `held` key-wise, an object entry set into
/// a held object merged into it at every depth ([`deep_merge`]), each other object entry given
/// the members the plan's entries gained where it lacks them.
pub(super) fn merge_into(held: Option<&Json>, sent: &Object, gained: &Json) -> Json {
    let empty = Object::new();
    let gained = gained.as_object().unwrap_or(&empty);
    let mut merged = match held {
        Some(Json::Object(held)) => held.clone(),
        _ => Object::new(),
    };
    for (key, value) in sent.iter() {
        if let (Some(held_entry @ Json::Object(_)), Json::Object(_)) = (merged.get(key), value) {
            let value = deep_merge(held_entry, value);
            merged.insert(key, value);
            continue;
        }
        let mut value = value.clone();
        if let Json::Object(entry) = &mut value {
            for (name, member) in gained.iter() {
                if !entry.contains_key(name) {
                    entry.insert(name, member.clone());
                }
            }
        }
        merged.insert(key, value);
    }
    Json::Object(merged)
}

/// A merged member's keyed segments: per merged member, the pointer segment standing for each
/// key its sent entries added (`{versions}`), and those keys of one call (held nowhere before),
/// escaped as pointer segments. A change the write made at such a key of another member
/// (`/time/1.2.0` beside `versions["1.2.0"]`) is explained once for every key a call adds.
pub(super) type Keyed = Vec<(String, Vec<String>)>;

/// The keyed segments of one call (see [`Keyed`]).
pub(super) fn added_keys(
    merged: &BTreeMap<String, Json>,
    sent: Option<&Object>,
    before: Option<&Json>,
) -> Keyed {
    let mut keyed = Keyed::new();
    for member in merged.keys() {
        let Some(Json::Object(entries)) = sent.and_then(|sent| sent.get(member)) else {
            continue;
        };
        let held = before.and_then(|before| before.get(member));
        let added = entries
            .keys()
            .filter(|key| {
                !held
                    .and_then(Json::as_object)
                    .is_some_and(|held| held.contains_key(key))
            })
            .map(|key| escape_pointer_segment(key).into_owned())
            .collect();
        keyed.push((keyed_segment(member), added));
    }
    keyed
}

/// The pointer segment standing for each key a merged member added.
fn keyed_segment(member: &str) -> String {
    escape_pointer_segment(&format!("{{{member}}}")).into_owned()
}

/// A pointer holding keyed segments as the concrete pointers of one call, one per added key;
/// `None` when it holds none.
pub(super) fn expand_pointer(pointer: &str, keyed: &Keyed) -> Option<Vec<String>> {
    let segments: Vec<&str> = pointer.split('/').collect();
    let (index, keys) = segments
        .iter()
        .enumerate()
        .skip(2)
        .find_map(|(index, segment)| {
            keyed
                .iter()
                .find(|(marker, _)| marker == segment)
                .map(|(_, keys)| (index, keys))
        })?;
    Some(
        keys.iter()
            .map(|key| {
                let mut concrete: Vec<&str> = segments.clone();
                concrete[index] = key;
                concrete.join("/")
            })
            .collect(),
    )
}

/// A concrete pointer of one call spelled with the keyed segment of the key it holds (below its
/// top member, which is not that merged member).
fn keyed_pointer(pointer: &str, keyed: &Keyed) -> Option<String> {
    let mut segments: Vec<String> = pointer.split('/').map(str::to_owned).collect();
    for index in 2..segments.len() {
        let marker = keyed.iter().find_map(|(marker, keys)| {
            let member = &marker[1..marker.len() - 1];
            (keys.contains(&segments[index]) && segments[1] != escape_pointer_segment(member))
                .then(|| marker.clone())
        });
        if let Some(marker) = marker {
            segments[index] = marker;
            return Some(segments.join("/"));
        }
    }
    None
}

/// Whether a value holds nothing: an empty object, array or string, or `null`.
fn empty_value(value: &Json) -> bool {
    match value {
        Json::Object(object) => object.is_empty(),
        Json::Array(items) => items.is_empty(),
        Json::String(text) => text.is_empty(),
        Json::Null => true,
        _ => false,
    }
}

impl Explanation {
    /// Before the rules: each call's changes at a key a merged member added, spelled with the
    /// keyed segment (see [`Keyed`]).
    pub(super) fn key_residuals(&mut self, effect: Effect, observed: &[Observed<'_>]) {
        if self.model.merged.is_empty() {
            return;
        }
        for (residual, seen) in self.residuals.iter_mut().zip(observed) {
            let (_, before) = entity_around(effect, seen);
            let before = before.map(|before| Json::Object(before.clone()));
            let keyed = added_keys(&self.model.merged, Some(seen.sent), before.as_ref());
            let pointers: Vec<String> = residual.keys().cloned().collect();
            for pointer in pointers {
                if let Some(spelled) = keyed_pointer(&pointer, &keyed)
                    && let Some(value) = residual.remove(&pointer)
                {
                    residual.insert(spelled, value);
                }
            }
        }
    }

    /// After the rules: the sent top-level members whose value the entity after does not show
    /// (see the module docs) are unstored; a create's empty value is its constant.
    pub(super) fn settle_unstored(&mut self, effect: Effect, observed: &[Observed<'_>]) {
        let mut candidates: BTreeMap<String, Option<Option<Json>>> = BTreeMap::new();
        for (residual, seen) in self.residuals.iter().zip(observed) {
            let (after, before) = entity_around(effect, seen);
            for pointer in residual.keys() {
                let Some(member) = top_member(pointer) else {
                    continue;
                };
                if !seen.sent.contains_key(&member) {
                    continue;
                }
                let now = after.and_then(|after| after.get(&member));
                let held = before.and_then(|before| before.get(&member));
                let verdict = match effect {
                    _ if now.is_none() => (self.fixed.get(&member) == Some(&None)).then_some(None),
                    Effect::Create => now
                        .filter(|now| empty_value(now))
                        .map(|now| Some(now.clone())),
                    _ => (now == held).then_some(None),
                };
                let entry = candidates.entry(member).or_insert_with(|| verdict.clone());
                if *entry != verdict {
                    *entry = None;
                }
            }
        }
        for (member, verdict) in candidates {
            let Some(constant) = verdict else {
                continue;
            };
            let pointer = super::explain::pointer_of(&member);
            for residual in &mut self.residuals {
                residual.remove(&pointer);
            }
            self.fixed.remove(&member);
            if let Some(value) = constant {
                self.model.constants.insert(member.clone(), value);
            }
            self.model.unstored.push(member);
        }
    }
}

/// The top-level member a pointer names when it names no nested one.
fn top_member(pointer: &str) -> Option<String> {
    let field = pointer.strip_prefix('/')?;
    (!field.is_empty() && !field.contains('/')).then(|| unescape_pointer_segment(field))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::parsed_json as json;

    fn object(text: &str) -> Object {
        json(text).as_object().expect("object").clone()
    }

    #[test]
    fn a_merge_keeps_held_entries_and_gives_set_entries_their_gained_members() {
        let held = json(r#"{"1.0.0": {"v": 1, "extra": []}}"#);
        let sent = object(r#"{"1.1.0": {"v": 2}}"#);
        let stored = json(r#"{"1.0.0": {"v": 1, "extra": []}, "1.1.0": {"v": 2, "extra": []}}"#);
        let (gained, shown) = merge_shown(Some(&held), &sent, &stored).expect("a merge");
        assert_eq!(gained, object(r#"{"extra": []}"#));
        assert!(shown);
        assert_eq!(
            merge_into(Some(&held), &sent, &Json::Object(gained)),
            stored
        );
    }

    #[test]
    fn a_replacement_or_a_foreign_entry_is_no_merge() {
        let held = json(r#"{"a": 1, "b": 2}"#);
        let sent = object(r#"{"b": 3}"#);
        // The held entry `a` went: the member was replaced.
        assert!(merge_shown(Some(&held), &sent, &json(r#"{"b": 3}"#)).is_none());
        // An entry neither held nor sent.
        assert!(merge_shown(Some(&held), &sent, &json(r#"{"a": 1, "b": 3, "c": 0}"#)).is_none());
        // Stored as sent into nothing: a merge no call tells from a store as sent.
        let (gained, shown) = merge_shown(None, &sent, &json(r#"{"b": 3}"#)).expect("a merge");
        assert!(gained.is_empty() && !shown);
        // Entries gaining different members are no merge.
        let sent = object(r#"{"x": {"v": 1}, "y": {"v": 2}}"#);
        let stored = json(r#"{"x": {"v": 1, "g": 1}, "y": {"v": 2, "g": 2}}"#);
        assert!(merge_shown(None, &sent, &stored).is_none());
    }

    #[test]
    fn an_entry_set_into_a_held_object_merges_at_every_depth() {
        // drf-jsonapi's book PATCH: the sent borrower `data` replaces the held one, the
        // relationship's `links` and the unsent `author` stay.
        let held = json(
            r#"{"author": {"links": {"self": "/b/6/a"}, "data": {"type": "Author", "id": "2"}},
                "borrower": {"links": {"self": "/b/6/b"}, "data": null}}"#,
        );
        let sent = object(r#"{"borrower": {"data": {"type": "Member", "id": "4"}}}"#);
        let stored = json(
            r#"{"author": {"links": {"self": "/b/6/a"}, "data": {"type": "Author", "id": "2"}},
                "borrower": {"links": {"self": "/b/6/b"}, "data": {"type": "Member", "id": "4"}}}"#,
        );
        let (gained, shown) = merge_shown(Some(&held), &sent, &stored).expect("a merge");
        assert!(gained.is_empty() && shown);
        assert_eq!(merge_into(Some(&held), &sent, &json("{}")), stored);
        // A `null` sent replaces a held object; a held entry dropped is no merge.
        let cleared = object(r#"{"author": {"data": null}}"#);
        let merged = merge_into(Some(&held), &cleared, &json("{}"));
        assert_eq!(merged.pointer("/author/data"), Some(&Json::Null));
        assert_eq!(
            merged.pointer("/author/links"),
            held.pointer("/author/links")
        );
        let replaced = json(r#"{"author": {"data": null}, "borrower": {"data": null}}"#);
        assert!(merge_shown(Some(&held), &cleared, &replaced).is_none());
    }

    #[test]
    fn only_empty_values_are_a_creates_unstored_constant() {
        assert!(empty_value(&json("{}")) && empty_value(&json("null")));
        assert!(!empty_value(&json(r#"{"a": 1}"#)) && !empty_value(&json("0")));
    }
}

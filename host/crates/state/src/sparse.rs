//! Sparse fieldsets: a query parameter named as a base with a type's name in brackets
//! (`fields[Task]=title,status`) that keeps, in each shown entity whose type member holds that
//! name, only the named properties of the one object member nesting them (`attributes`), leaves
//! out whole the members the recorded selection left out (drf-jsonapi's and
//! flask-rest-jsonapi-next's `relationships`, none of whose relationships it named; safrs keeps
//! them), strips from each entry of one object member the inner members the selection took from
//! the entries it did not name (Fortune.js keeps each unnamed relationship's `links` and drops its
//! `data`: [`SparseFields::unlisted`]) or leaves those entries out whole (pyramid-jsonapi answers
//! `relationships: {}`), every other member as the plain read shows it.
//!
//! Learned from the successful list reads naming one such parameter alone with a plain list of
//! fields: each member the read listed is a held entity of the list's type but for that object
//! member, which holds exactly the entity's properties the value names (those it holds), at most
//! one other object member whose entries lost the same inner members, and the members it lacks,
//! none holding a property the value names; each member shows the bracketed name in one top-level
//! member (the type member, `type: "Task"`). One rule per state (an application's sparse
//! fieldsets are one language); a call of any list or item view naming the base with the type
//! name its entities show is answered as the call without it, each entity pruned, unless it names
//! a property of a member the recordings left out or an entry of the stripped member (no
//! recording showed what that keeps).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use rea_manifest::Manifest;
use rea_plugin_api::json::{Json, Object};

use crate::model::{Entity, ReadView, ViewDetail};
use crate::observation::Timeline;
use crate::selection::plain_fields;

/// A learned sparse fieldset (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SparseFields {
    /// The parameter's base, before the brackets (`fields`).
    pub base: String,
    /// The top-level member naming each entity's type (`type`).
    pub type_member: String,
    /// The object member holding the properties a selection keeps (`attributes`).
    pub nested: String,
    /// The top-level members a selection leaves out whole (`relationships`), in held order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dropped: Vec<String>,
    /// The top-level object member whose entries a selection does not name lose some inner
    /// members (Fortune.js's `relationships`, each unnamed one keeping its `links`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unlisted: Option<Unlisted>,
    /// Per list or item tool whose entities all show one type name, the parameter naming it
    /// (`get_projects` → `fields[Project]`): what the state catalog offers the tool.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub offered: BTreeMap<String, String>,
}

/// The entries of an object member a selection strips when it does not name them (see
/// [`SparseFields::unlisted`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unlisted {
    /// The top-level member holding the entries (`relationships`).
    pub member: String,
    /// The inner members an unnamed entry loses (`data`), in held order; empty when the
    /// entries are `removed`.
    pub stripped: Vec<String>,
    /// Whether an unnamed entry is left out whole (pyramid-jsonapi shows `relationships: {}`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub removed: bool,
}

/// What one shown entity teaches: the nested member, the members left out whole and the member
/// whose unnamed entries were stripped.
type Pruning = (String, Vec<String>, Option<Unlisted>);

/// A name of the form `base[name]` (one pair of brackets, both parts non-empty): its parts.
pub fn bracketed(name: &str) -> Option<(&str, &str)> {
    let (base, rest) = name.split_once('[')?;
    let inner = rest.strip_suffix(']')?;
    (!base.is_empty() && !inner.is_empty() && !inner.contains(['[', ']'])).then_some((base, inner))
}

/// Learns the rule from the list reads of every list view (see the module docs); `None` when no
/// read teaches one or two reads teach different ones.
pub fn learn(
    manifest: &Manifest,
    timeline: &Timeline,
    entities: &[Entity],
    views: &[ReadView],
) -> Option<SparseFields> {
    let mut learned: Option<SparseFields> = None;
    for view in views {
        let ViewDetail::List(list) = &view.detail else {
            continue;
        };
        let Some(index) = crate::derive::tool_index(manifest, &view.tool) else {
            continue;
        };
        let held: Vec<&Entity> = entities
            .iter()
            .filter(|entity| entity.entity_type == list.entity_type)
            .collect();
        for observation in timeline.all(index) {
            let [(name, value)] = observation.pairs() else {
                continue;
            };
            let shown = observation
                .body
                .as_ref()
                .and_then(|body| body.pointer(&list.list_pointer))
                .and_then(Json::as_array);
            let (Some(shown), true) = (shown, observation.is_success()) else {
                continue;
            };
            let Some(taught) = taught_by(name, value, shown, &held) else {
                continue;
            };
            if learned.as_ref().is_some_and(|known| *known != taught) {
                return None;
            }
            learned = Some(taught);
        }
    }
    let mut learned = learned?;
    learned.offered = offered(&learned, entities, views);
    Some(learned)
}

/// The parameter each list or item view's entities name their one type by (see
/// [`SparseFields::offered`]).
fn offered(
    rule: &SparseFields,
    entities: &[Entity],
    views: &[ReadView],
) -> BTreeMap<String, String> {
    let mut offered = BTreeMap::new();
    for view in views {
        let entity_type = match &view.detail {
            ViewDetail::List(list) => &list.entity_type,
            ViewDetail::Item(item) => &item.entity_type,
            _ => continue,
        };
        let mut names = entities
            .iter()
            .filter(|entity| entity.entity_type == *entity_type)
            .map(|entity| entity.fields.get(&rule.type_member).and_then(Json::as_str));
        let Some(Some(first)) = names.next() else {
            continue;
        };
        if names.all(|name| name == Some(first)) {
            offered.insert(view.tool.clone(), format!("{}[{first}]", rule.base));
        }
    }
    offered
}

/// The rule one read teaches (`None` when its parameter is of another form, or a member does
/// not fit).
fn taught_by(name: &str, value: &str, shown: &[Json], held: &[&Entity]) -> Option<SparseFields> {
    let (base, type_name) = bracketed(name)?;
    let requested = plain_fields(value)?;
    let first = shown.first()?.as_object()?;
    let type_member = first
        .iter()
        .find(|(_, value)| value.as_str() == Some(type_name))
        .map(|(key, _)| key.to_owned())?;
    let mut learned: Option<Pruning> = None;
    for member in shown {
        let member = member.as_object()?;
        if member.get(&type_member).and_then(Json::as_str) != Some(type_name) {
            return None;
        }
        let found = held
            .iter()
            .find_map(|entity| pruned_member(entity.fields.as_object()?, member, &requested))?;
        if learned.as_ref().is_some_and(|known| *known != found) {
            return None;
        }
        learned = Some(found);
    }
    let (nested, dropped, unlisted) = learned?;
    Some(SparseFields {
        base: base.to_owned(),
        type_member,
        nested,
        dropped,
        unlisted,
        offered: BTreeMap::new(),
    })
}

/// The one object member in which `shown` differs from `held` by holding exactly the members of
/// `held`'s that `requested` names, at most one other object member whose unnamed entries lost
/// some inner members ([`stripped_entries`]), equal everywhere else, with the members of `held`
/// that `shown` lacks (none holding a requested property).
fn pruned_member(held: &Object, shown: &Object, requested: &[String]) -> Option<Pruning> {
    if shown.iter().any(|(key, _)| held.get(key).is_none()) {
        return None;
    }
    let dropped: Vec<String> = held
        .iter()
        .filter(|(key, _)| shown.get(key).is_none())
        .map(|(key, _)| key.to_owned())
        .collect();
    if dropped
        .iter()
        .any(|key| holds_requested(held.get(key), requested))
    {
        return None;
    }
    let differing: Vec<(&str, &Json)> = shown
        .iter()
        .filter(|(key, value)| held.get(key) != Some(*value))
        .collect();
    let is_nested = |(key, value): (&str, &Json)| {
        let Some(Json::Object(properties)) = held.get(key) else {
            return false;
        };
        *value == Json::Object(prune(properties, requested)) && kept_fewer(properties, requested)
    };
    let (nested, unlisted) = match differing.as_slice() {
        [one] => (is_nested(*one).then_some(one.0)?, None),
        [first, second] => {
            let (nested, other) = if is_nested(*first) {
                (first, second)
            } else {
                (is_nested(*second).then_some(second)?, first)
            };
            let unlisted = unlisted_entries(other.0, held.get(other.0)?, other.1, requested)?;
            (nested.0, Some(unlisted))
        }
        _ => return None,
    };
    Some((nested.to_owned(), dropped, unlisted))
}

/// How the entries of member `name` fared: left out whole (`shown` an empty object where `held`
/// holds entries, none named by `requested`) or stripped of some inner members
/// ([`stripped_entries`]).
fn unlisted_entries(
    name: &str,
    held: &Json,
    shown: &Json,
    requested: &[String],
) -> Option<Unlisted> {
    let removed = match (held, shown) {
        (Json::Object(held), Json::Object(shown)) => {
            shown.is_empty()
                && !held.is_empty()
                && held.iter().all(|(_, entry)| entry.as_object().is_some())
                && !requested.iter().any(|field| held.get(field).is_some())
        }
        _ => false,
    };
    let stripped = if removed {
        Vec::new()
    } else {
        stripped_entries(held, shown, requested)?
    };
    Some(Unlisted {
        member: name.to_owned(),
        stripped,
        removed,
    })
}

/// The inner members each entry of `shown` (an object of objects, the entries of `held` in its
/// order, none named by `requested`) lacks of the `held` entry, when that is the same non-empty
/// set for every entry holding them and the entries agree otherwise.
fn stripped_entries(held: &Json, shown: &Json, requested: &[String]) -> Option<Vec<String>> {
    let (Json::Object(held), Json::Object(shown)) = (held, shown) else {
        return None;
    };
    let same_keys = held
        .iter()
        .map(|(key, _)| key)
        .eq(shown.iter().map(|(key, _)| key));
    if !same_keys || requested.iter().any(|field| held.get(field).is_some()) {
        return None;
    }
    let mut stripped: Vec<String> = Vec::new();
    for (key, entry) in held.iter() {
        let (Json::Object(entry), Some(Json::Object(kept))) = (entry, shown.get(key)) else {
            return None;
        };
        for (inner, value) in entry.iter() {
            match kept.get(inner) {
                Some(shown) if shown == value => {}
                Some(_) => return None,
                None if !stripped.iter().any(|known| known == inner) => {
                    stripped.push(inner.to_owned())
                }
                None => {}
            }
        }
    }
    let consistent = held
        .iter()
        .zip(shown.iter())
        .all(|((_, entry), (_, kept))| strip(entry, &stripped) == *kept);
    (!stripped.is_empty() && consistent).then_some(stripped)
}

/// An entry without the `stripped` inner members.
fn strip(entry: &Json, stripped: &[String]) -> Json {
    let mut entry = entry.clone();
    if let Json::Object(object) = &mut entry {
        for inner in stripped {
            object.remove(inner);
        }
    }
    entry
}

/// Whether a member is an object holding a property `requested` names.
fn holds_requested(member: Option<&Json>, requested: &[String]) -> bool {
    member
        .and_then(Json::as_object)
        .is_some_and(|object| requested.iter().any(|field| object.get(field).is_some()))
}

/// Whether a selection leaves out some property (one keeping them all teaches nothing).
fn kept_fewer(properties: &Object, requested: &[String]) -> bool {
    properties
        .iter()
        .any(|(key, _)| !requested.iter().any(|field| field == key))
}

/// The properties `requested` names, in the held order.
fn prune(properties: &Object, requested: &[String]) -> Object {
    let mut kept = Object::new();
    for (key, value) in properties.iter() {
        if requested.iter().any(|field| field == key) {
            kept.insert(key, value.clone());
        }
    }
    kept
}

impl SparseFields {
    /// The fields a call's pair asks for, when it is this rule's parameter: the type name in
    /// its brackets and the plain fields.
    pub fn asked<'a>(&self, name: &'a str, value: &str) -> Option<(&'a str, Vec<String>)> {
        let (base, type_name) = bracketed(name)?;
        (base == self.base).then_some(())?;
        Some((type_name, plain_fields(value)?))
    }

    /// Prunes, in each entity object of `shown` (one entity, or an array of them) whose type
    /// member holds `type_name`, the nested member to the `requested` properties and leaves out
    /// the dropped members; `None` when some entity shows no such member, a dropped member holds
    /// a requested property, or no entity is of the type.
    pub fn apply(&self, shown: &mut Json, type_name: &str, requested: &[String]) -> Option<()> {
        let entities: Vec<&mut Json> = match shown {
            Json::Array(items) => items.iter_mut().collect(),
            object => vec![object],
        };
        let mut pruned = 0;
        for entity in entities {
            let object = match entity {
                Json::Object(object) => object,
                _ => return None,
            };
            if object.get(&self.type_member).and_then(Json::as_str) != Some(type_name) {
                continue;
            }
            let Some(Json::Object(properties)) = object.get(&self.nested) else {
                return None;
            };
            let kept = prune(properties, requested);
            object.insert(self.nested.as_str(), Json::Object(kept));
            for dropped in &self.dropped {
                if holds_requested(object.get(dropped), requested) {
                    return None;
                }
                object.remove(dropped);
            }
            if let Some(unlisted) = &self.unlisted {
                unlisted.apply(object, requested)?;
            }
            pruned += 1;
        }
        (pruned > 0).then_some(())
    }
}

impl Unlisted {
    /// Strips the entries of the member (when the entity holds it as an object); `None` when the
    /// selection names one of them (what a named entry keeps no recording showed).
    fn apply(&self, entity: &mut Object, requested: &[String]) -> Option<()> {
        let Some(Json::Object(entries)) = entity.get(&self.member) else {
            return Some(());
        };
        if holds_requested(entity.get(&self.member), requested) {
            return None;
        }
        let mut kept = Object::new();
        for (key, entry) in entries.iter().filter(|_| !self.removed) {
            kept.insert(key, strip(entry, &self.stripped));
        }
        entity.insert(self.member.as_str(), Json::Object(kept));
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::json::parse;

    fn entity(fields: &str) -> Entity {
        Entity {
            entity_type: "/tasks".to_owned(),
            collection: "/tasks".to_owned(),
            id: String::new(),
            fields: parse(fields.as_bytes()).expect("JSON"),
            view_fields: Default::default(),
            record_ordinals: Vec::new(),
        }
    }

    /// The entity's fields pruned by the rule for `type_name` and `requested` (`None`: refused).
    fn pruned(
        rule: &SparseFields,
        entity: &Entity,
        type_name: &str,
        requested: &[&str],
    ) -> Option<Json> {
        let mut answer = entity.fields.clone();
        let requested: Vec<String> = requested.iter().map(|field| (*field).to_owned()).collect();
        rule.apply(&mut answer, type_name, &requested)
            .map(|()| answer)
    }

    #[test]
    fn a_bracketed_type_keeps_the_named_nested_properties() {
        let held = [
            entity(
                r#"{"id": "1", "type": "Task", "attributes": {"title": "a", "status": "x", "rank": 1}}"#,
            ),
            entity(
                r#"{"id": "2", "type": "Task", "attributes": {"title": "b", "status": "y", "rank": 2}}"#,
            ),
        ];
        let held: Vec<&Entity> = held.iter().collect();
        let shown =
            parse(br#"[{"id": "2", "type": "Task", "attributes": {"title": "b", "status": "y"}}]"#)
                .expect("JSON");
        let shown = shown.as_array().expect("array");
        let rule = taught_by("fields[Task]", "title,status", shown, &held).expect("a rule");
        assert_eq!(
            rule,
            SparseFields {
                base: "fields".to_owned(),
                type_member: "type".to_owned(),
                nested: "attributes".to_owned(),
                dropped: Vec::new(),
                unlisted: None,
                offered: BTreeMap::new(),
            }
        );
        // Another type name than the members show, or a property left that was not asked.
        assert_eq!(
            taught_by("fields[Project]", "title,status", shown, &held),
            None
        );
        assert_eq!(taught_by("fields[Task]", "title", shown, &held), None);
        let mut answer =
            parse(br#"{"id": "1", "type": "Task", "attributes": {"title": "a", "status": "x"}}"#)
                .expect("JSON");
        let (type_name, requested) = rule.asked("fields[Task]", "status").expect("asked");
        assert_eq!(rule.apply(&mut answer, type_name, &requested), Some(()));
        assert_eq!(
            answer.get("attributes"),
            Some(&parse(br#"{"status": "x"}"#).expect("JSON"))
        );
        assert_eq!(rule.apply(&mut answer, "Project", &requested), None);
    }

    #[test]
    fn members_the_selection_left_out_are_dropped_unless_a_call_names_their_properties() {
        let held = [entity(
            r#"{"type": "Book", "id": "1", "attributes": {"title": "a", "pages": 3, "rating": 5}, "relationships": {"author": {"data": null}}, "links": {"self": "/books/1/"}}"#,
        )];
        let held: Vec<&Entity> = held.iter().collect();
        let shown = parse(
            br#"[{"type": "Book", "id": "1", "attributes": {"title": "a", "pages": 3}, "links": {"self": "/books/1/"}}]"#,
        )
        .expect("JSON");
        let shown = shown.as_array().expect("array");
        let rule = taught_by("fields[Book]", "title,pages", shown, &held).expect("a rule");
        assert_eq!(rule.nested, "attributes");
        assert_eq!(rule.dropped, ["relationships"]);
        // A selection naming a relationship while leaving it out teaches nothing.
        assert_eq!(
            taught_by("fields[Book]", "title,pages,author", shown, &held),
            None
        );
        assert_eq!(
            pruned(&rule, held[0], "Book", &["rating"]),
            Some(parse(br#"{"type": "Book", "id": "1", "attributes": {"rating": 5}, "links": {"self": "/books/1/"}}"#).expect("JSON"))
        );
        // Which relationships a selection naming one keeps no recording showed.
        assert_eq!(pruned(&rule, held[0], "Book", &["author"]), None);
    }

    #[test]
    fn unnamed_entries_of_one_member_may_be_left_out_whole() {
        // pyramid-jsonapi: a selection naming no relationship answers `relationships: {}`.
        let held = [entity(
            r#"{"type": "tasks", "id": "1", "attributes": {"title": "a", "status": "x", "rank": 1}, "relationships": {"project": {"data": {"type": "projects", "id": "1"}}, "assignee": {"data": null}}, "links": {"self": "/tasks/1"}}"#,
        )];
        let held: Vec<&Entity> = held.iter().collect();
        let shown = parse(
            br#"[{"type": "tasks", "id": "1", "attributes": {"title": "a", "status": "x"}, "relationships": {}, "links": {"self": "/tasks/1"}}]"#,
        )
        .expect("JSON");
        let shown = shown.as_array().expect("array");
        let rule = taught_by("fields[tasks]", "title,status", shown, &held).expect("a rule");
        let unlisted = rule.unlisted.clone().expect("unlisted entries");
        assert_eq!(
            (unlisted.member.as_str(), unlisted.removed),
            ("relationships", true)
        );
        assert!(unlisted.stripped.is_empty());
        assert_eq!(
            pruned(&rule, held[0], "tasks", &["rank"]),
            Some(parse(br#"{"type": "tasks", "id": "1", "attributes": {"rank": 1}, "relationships": {}, "links": {"self": "/tasks/1"}}"#).expect("JSON"))
        );
        // What a named relationship keeps no recording showed.
        assert_eq!(
            pruned(&rule, held[0], "tasks", &["title", "assignee"]),
            None
        );
        // A selection naming a relationship while its entries are gone teaches nothing.
        assert_eq!(
            taught_by("fields[tasks]", "title,status,project", shown, &held),
            None
        );
    }

    #[test]
    fn unnamed_entries_of_one_member_lose_what_the_selection_stripped() {
        // Fortune.js: each relationship the selection does not name keeps its `links` only.
        let held = [entity(
            r#"{"type": "tasks", "id": "1", "attributes": {"title": "a", "status": "x", "rank": 1}, "relationships": {"project": {"links": {"self": "/tasks/1/relationships/project"}, "data": {"type": "projects", "id": "1"}}, "assignee": {"links": {"self": "/tasks/1/relationships/assignee"}, "data": null}}, "links": {"self": "/tasks/1"}}"#,
        )];
        let held: Vec<&Entity> = held.iter().collect();
        let shown = parse(
            br#"[{"type": "tasks", "id": "1", "attributes": {"title": "a", "status": "x"}, "relationships": {"project": {"links": {"self": "/tasks/1/relationships/project"}}, "assignee": {"links": {"self": "/tasks/1/relationships/assignee"}}}, "links": {"self": "/tasks/1"}}]"#,
        )
        .expect("JSON");
        let shown = shown.as_array().expect("array");
        let rule = taught_by("fields[tasks]", "title,status", shown, &held).expect("a rule");
        assert_eq!(rule.nested, "attributes");
        assert!(rule.dropped.is_empty());
        assert_eq!(
            rule.unlisted,
            Some(Unlisted {
                member: "relationships".to_owned(),
                stripped: vec!["data".to_owned()],
                removed: false,
            })
        );
        assert_eq!(
            pruned(&rule, held[0], "tasks", &["rank"]),
            Some(parse(br#"{"type": "tasks", "id": "1", "attributes": {"rank": 1}, "relationships": {"project": {"links": {"self": "/tasks/1/relationships/project"}}, "assignee": {"links": {"self": "/tasks/1/relationships/assignee"}}}, "links": {"self": "/tasks/1"}}"#).expect("JSON"))
        );
        // What a named relationship keeps no recording showed.
        assert_eq!(pruned(&rule, held[0], "tasks", &["title", "project"]), None);
        // An entry that changed otherwise, or a selection naming an entry, teaches nothing.
        let changed = parse(
            br#"[{"type": "tasks", "id": "1", "attributes": {"title": "a", "status": "x"}, "relationships": {"project": {"links": {"self": "/elsewhere"}}, "assignee": {"links": {"self": "/tasks/1/relationships/assignee"}}}, "links": {"self": "/tasks/1"}}]"#,
        )
        .expect("JSON");
        let changed = changed.as_array().expect("array");
        assert_eq!(
            taught_by("fields[tasks]", "title,status", changed, &held),
            None
        );
        assert_eq!(
            taught_by("fields[tasks]", "title,status,project", shown, &held),
            None
        );
    }
}

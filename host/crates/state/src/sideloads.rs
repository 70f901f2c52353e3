//! Sideloaded records: a query parameter naming a member that holds a related entity's id
//! (dynamic-rest's `include[]=project.`, `include[]=assignee.*`) whose answer is the plain answer
//! plus one top-level array (`projects`, `people`) holding the related records the shown objects'
//! member names, in first-seen order over the shown objects, each as the related entity holds it.
//! JSON:API's compound documents ([`crate::compound`]) are the same idea through relationship
//! linkage and one `included` member; here the member holds the bare id and each related kind
//! has its own array.
//!
//! Learned from the checked successful list and item reads of a view whose type joins the member
//! ([`crate::joins`], a many-to-one join): a pair whose value is the member followed by a
//! spelling (`.`, `.*`; the spellings the reads used are the ones accepted) and whose body holds,
//! beside the shown objects, one array whose records' identities are exactly the ids the shown
//! objects name there, in first-seen order. Each (type, member) keeps the array's name, every
//! read the same one; the parameter is one per state and so is the arrays' place (before the
//! shown objects' member, or after it). A read contradicting a learned array name, or one naming
//! the parameter with another value, teaches nothing.
//!
//! A list or item call of a view whose type learned a member, naming the parameter with learned
//! spellings only, is answered as the call without it, the arrays added from the live entities;
//! a shown object naming an entity the state does not hold is not modelled.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use rea_manifest::Manifest;
use rea_plugin_api::json::{Json, Object};

use crate::model::{ReadView, ViewDetail};
use crate::observation::{Observation, Timeline};
use crate::relations::{Link, Relation};
use crate::render::scalar_text;
use crate::store::LiveState;

/// A learned sideloading rule (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sideloads {
    /// The parameter naming the members (`include[]`).
    pub parameter: String,
    /// What a value spells after the member (`.`, `.*`).
    pub spellings: BTreeSet<String>,
    /// Whether the arrays come before the shown objects' member.
    pub before: bool,
    /// Per entity type, per member, the top-level array holding its related records.
    pub arrays: BTreeMap<String, BTreeMap<String, String>>,
}

/// What the reads taught so far: the parameter, the spellings, the place, the arrays
/// (`None`: two reads disagreed on a member's array).
#[derive(Default)]
struct Taught {
    parameter: Option<String>,
    spellings: BTreeSet<String>,
    before: Option<bool>,
    arrays: BTreeMap<String, BTreeMap<String, Option<String>>>,
    conflicting: bool,
}

/// One read's lesson: the parameter, spelling, member, array and place it showed.
struct Lesson<'a> {
    parameter: &'a str,
    spelling: &'a str,
    member: &'a str,
    array: &'a str,
    before: bool,
}

/// Learns the rule from the checked reads of every list and item view (see the module docs).
pub fn learn(manifest: &Manifest, timeline: &Timeline, views: &[ReadView]) -> Option<Sideloads> {
    let mut taught = Taught::default();
    for view in views {
        let (Some(entity_type), Some(pointer)) = (view.entity_type(), view.shown_pointer()) else {
            continue;
        };
        let Some(index) = crate::derive::tool_index(manifest, &view.tool) else {
            continue;
        };
        let joins = parent_joins(view);
        for observation in timeline.checked(index) {
            if let Some(lesson) = lesson(observation, pointer, &joins) {
                taught.add(entity_type, lesson);
            }
        }
    }
    taught.rule()
}

impl Taught {
    fn add(&mut self, entity_type: &str, lesson: Lesson<'_>) {
        if self
            .parameter
            .get_or_insert_with(|| lesson.parameter.to_owned())
            != lesson.parameter
            || *self.before.get_or_insert(lesson.before) != lesson.before
        {
            self.conflicting = true;
            return;
        }
        self.spellings.insert(lesson.spelling.to_owned());
        let arrays = self.arrays.entry(entity_type.to_owned()).or_default();
        match arrays.get(lesson.member) {
            None => {
                arrays.insert(lesson.member.to_owned(), Some(lesson.array.to_owned()));
            }
            Some(Some(known)) if known != lesson.array => {
                arrays.insert(lesson.member.to_owned(), None);
            }
            Some(_) => {}
        }
    }

    fn rule(self) -> Option<Sideloads> {
        if self.conflicting {
            return None;
        }
        let arrays: BTreeMap<String, BTreeMap<String, String>> = (self.arrays.into_iter())
            .map(|(entity_type, members)| {
                let agreed = members
                    .into_iter()
                    .filter_map(|(member, array)| Some((member, array?)))
                    .collect::<BTreeMap<_, _>>();
                (entity_type, agreed)
            })
            .filter(|(_, members)| !members.is_empty())
            .collect();
        (!arrays.is_empty()).then(|| Sideloads {
            parameter: self.parameter.unwrap_or_default(),
            spellings: self.spellings,
            before: self.before.unwrap_or(true),
            arrays,
        })
    }
}

/// The lesson of one read: the one pair naming a joined member whose related records the body
/// holds beside the shown objects, in first-seen order (see the module docs).
fn lesson<'a>(
    observation: &'a Observation,
    pointer: &str,
    joins: &[&'a Relation],
) -> Option<Lesson<'a>> {
    let Some(Json::Object(body)) = observation.success_body() else {
        return None;
    };
    let shown_key = pointer.strip_prefix('/').filter(|key| !key.contains('/'))?;
    let shown = shown_objects(body.get(shown_key)?);
    let mut lessons = observation.pairs().iter().filter_map(|(name, value)| {
        let (join, spelling) = joins.iter().find_map(|join| {
            let spelling = value.strip_prefix(join.member.as_str())?;
            (!spelling.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
                .then_some((*join, spelling))
        })?;
        let named = first_seen(&shown, &join.member);
        if named.is_empty() {
            return None;
        }
        let (array, _) = body.iter().find(|(key, value)| {
            *key != shown_key && identities(value, &join.identity).as_ref() == Some(&named)
        })?;
        let position = |wanted: &str| body.iter().position(|(key, _)| key == wanted);
        Some(Lesson {
            parameter: name,
            spelling,
            member: &join.member,
            array,
            before: position(array) < position(shown_key),
        })
    });
    let first = lessons.next()?;
    lessons.next().is_none().then_some(first)
}

/// The many-to-one joins of a list or item view.
fn parent_joins(view: &ReadView) -> Vec<&Relation> {
    let joins = match &view.detail {
        ViewDetail::Item(item) => &item.joins,
        ViewDetail::List(list) => &list.joins,
        _ => return Vec::new(),
    };
    joins
        .iter()
        .filter(|join| matches!(join.link, Link::Parent { key: None, .. }))
        .collect()
}

/// The objects a shown member holds: an array's, or the one object.
fn shown_objects(shown: &Json) -> Vec<&Object> {
    match shown {
        Json::Array(items) => items.iter().filter_map(Json::as_object).collect(),
        Json::Object(object) => vec![object],
        _ => Vec::new(),
    }
}

/// The ids the shown objects name in a member, first-seen, nulls left out.
fn first_seen(shown: &[&Object], member: &str) -> Vec<String> {
    let mut seen = Vec::new();
    for id in shown
        .iter()
        .filter_map(|object| object.get(member).and_then(scalar_text))
    {
        if !id.is_empty() && !seen.contains(&id) {
            seen.push(id);
        }
    }
    seen
}

/// The identities of an array's objects, in order (`None` for no array of objects holding it).
fn identities(value: &Json, identity: &str) -> Option<Vec<String>> {
    value
        .as_array()?
        .iter()
        .map(|item| item.as_object()?.get(identity).and_then(scalar_text))
        .collect()
}

impl Sideloads {
    /// Whether a view's type learned a member the call could name.
    pub fn offered(&self, view: &ReadView) -> bool {
        view.entity_type()
            .is_some_and(|entity_type| self.arrays.contains_key(entity_type))
    }

    /// The members (with their joins and arrays) the values of the call's pairs name, in the
    /// order named; `None` when one names no learned member or spells it otherwise.
    pub fn asked<'a>(
        &'a self,
        view: &'a ReadView,
        values: &[&str],
    ) -> Option<Vec<(&'a Relation, &'a str)>> {
        let arrays = self.arrays.get(view.entity_type()?)?;
        let joins = parent_joins(view);
        values
            .iter()
            .map(|value| {
                let (join, spelling) = joins
                    .iter()
                    .find_map(|join| Some((*join, value.strip_prefix(join.member.as_str())?)))?;
                let array = arrays.get(&join.member)?;
                self.spellings
                    .contains(spelling)
                    .then_some((join, array.as_str()))
            })
            .collect()
    }

    /// Adds to an answer the arrays of the asked members' related records, from the live state;
    /// `None` when a shown object names one the state does not hold.
    pub fn apply(
        &self,
        body: &mut Json,
        pointer: &str,
        asked: &[(&Relation, &str)],
        live: &LiveState,
    ) -> Option<()> {
        let Json::Object(object) = body else {
            return None;
        };
        let shown_key = pointer.strip_prefix('/').filter(|key| !key.contains('/'))?;
        let shown = shown_objects(object.get(shown_key)?);
        let mut arrays = Vec::new();
        for (join, array) in asked {
            let records = first_seen(&shown, &join.member)
                .iter()
                .map(|id| {
                    let related = live.entity(&join.entity_type, &join.collection, id)?;
                    Some(join.shown(related))
                })
                .collect::<Option<Vec<Json>>>()?;
            arrays.push(((*array).to_owned(), Json::Array(records)));
        }
        let mut answered = Object::new();
        let rest = std::mem::take(object);
        if self.before {
            for (name, records) in arrays.drain(..) {
                answered.insert(name, records);
            }
        }
        for (name, value) in rest.into_iter().chain(arrays) {
            answered.insert(name, value);
        }
        *object = answered;
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Entity;

    fn parsed(text: &str) -> Json {
        rea_plugin_api::json::parse(text.as_bytes()).expect("JSON")
    }

    fn project(id: &str, code: &str) -> Entity {
        Entity {
            entity_type: "/projects/".into(),
            collection: "/projects/".into(),
            id: id.into(),
            fields: parsed(&format!(r#"{{"id": {id}, "code": "{code}"}}"#)),
            view_fields: BTreeMap::new(),
            record_ordinals: Vec::new(),
        }
    }

    fn project_join() -> Relation {
        Relation {
            query: Vec::new(),
            member: "project".into(),
            entity_type: "/projects/".into(),
            collection: "/projects".into(),
            identity: "id".into(),
            enclosing: false,
            beside: None,
            link: Link::Parent {
                field: "project".into(),
                key: None,
            },
        }
    }

    fn rule(before: bool) -> Sideloads {
        Sideloads {
            parameter: "include".into(),
            spellings: [".".to_owned()].into(),
            before,
            arrays: BTreeMap::new(),
        }
    }

    #[test]
    fn the_records_a_list_names_are_added_first_seen_from_the_live_state() {
        let live = LiveState::new(vec![project("1", "OPS"), project("2", "WEB")], Vec::new());
        let join = project_join();
        let mut body = parsed(
            r#"{"tasks": [{"id": 5, "project": 2}, {"id": 6, "project": null},
                {"id": 7, "project": 1}, {"id": 8, "project": 2}], "meta": {"page": 1}}"#,
        );
        rule(true)
            .apply(&mut body, "/tasks", &[(&join, "projects")], &live)
            .expect("every named project is held");
        let keys: Vec<&str> = match &body {
            Json::Object(object) => object.iter().map(|(key, _)| key).collect(),
            _ => Vec::new(),
        };
        assert_eq!(keys, ["projects", "tasks", "meta"]);
        let codes: Vec<String> =
            identities(body.get("projects").expect("projects"), "code").expect("records");
        assert_eq!(codes, ["WEB", "OPS"]);
        // After the shown member where the reads put them there; an item's one object.
        let mut item = parsed(r#"{"task": {"id": 7, "project": 1}}"#);
        rule(false)
            .apply(&mut item, "/task", &[(&join, "projects")], &live)
            .expect("held");
        assert_eq!(
            item,
            parsed(r#"{"task": {"id": 7, "project": 1}, "projects": [{"id": 1, "code": "OPS"}]}"#)
        );
    }

    #[test]
    fn a_record_the_state_does_not_hold_is_not_answered() {
        let live = LiveState::new(vec![project("1", "OPS")], Vec::new());
        let join = project_join();
        let mut body = parsed(r#"{"tasks": [{"id": 5, "project": 9}]}"#);
        let before = body.clone();
        assert!(
            rule(true)
                .apply(&mut body, "/tasks", &[(&join, "projects")], &live)
                .is_none()
        );
        assert_eq!(body, before, "nothing is added to a refused answer");
    }
}

//! Reference expansions: a query pair (`@verbose=2`) that adds to each reference object of an
//! answer (an object whose member, `link`, names a held entity by its path) members the
//! referenced entity holds (a status's `name`, a user's `username`), everything else as the plain
//! read shows it.
//!
//! Learned from an item tool's successful reads of one path, one without a query and one naming
//! that pair alone: their bodies agree but for objects gaining members, each such object naming a
//! held entity by one text member (the reference member, one for all), each gained member the
//! named entity's value there (a plain name read as [`crate::query::field_value`] reads it, so
//! `username` under `attributes`); per referenced collection the members it gains, one list for
//! every object of it. An object naming an entity whose answer did not change (the entity the
//! read shows, `data.link`) names a collection left as it is; one gaining a member its held
//! entity lacks (a message's `activity`, which the message read does not show) a collection not
//! modelled. An object naming an entity the state does not hold teaches nothing. One rule per
//! state.
//!
//! A list or item call of a tool not recorded with the parameter whose held entities show
//! references of a learned collection ([`ReferenceExpansion::offered`]) naming the pair is
//! answered as the call without it, each reference of a learned collection gaining its members
//! from the live entity; a reference of a collection not modelled, or one naming an entity of a
//! collection the reads showed that the state lacks, is not modelled. One app: Roundup (the issue item
//! read with and without `@verbose=2`, the issue list with it).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use rea_manifest::Manifest;
use rea_plugin_api::json::{Json, Object};

use crate::model::{Entity, ReadView, ViewDetail};
use crate::observation::{Observation, Timeline};

/// A learned reference expansion (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReferenceExpansion {
    /// The parameter's name (`@verbose`).
    pub parameter: String,
    /// Its value (`2`).
    pub value: String,
    /// The text member naming the referenced entity (`link`).
    pub reference: String,
    /// Per referenced collection, the members its references gain, in the order shown.
    pub members: BTreeMap<String, Vec<String>>,
    /// The collections whose references the pair leaves as they are.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub left: BTreeSet<String>,
    /// The collections whose references gained members their held entities do not hold (a
    /// message's `activity`): not modelled.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub unknown: BTreeSet<String>,
    /// The list and item tools the state offers the parameter to.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub offered: BTreeSet<String>,
}

/// The held entity a text names by its path (an absolute link's path after its origin).
fn named_entity<'a>(text: &str, held: &[&'a Entity]) -> Option<&'a Entity> {
    let (collection, id) = crate::page_cursor::path_of(text).rsplit_once('/')?;
    held.iter()
        .copied()
        .find(|entity| entity.id == id && entity.collection.trim_end_matches('/') == collection)
}

/// What one pair of bodies teaches, gathered as they are walked.
#[derive(Debug, Default)]
struct Taught {
    reference: Option<String>,
    members: BTreeMap<String, Vec<String>>,
    left: BTreeSet<String>,
    unknown: BTreeSet<String>,
}

impl Taught {
    /// The reference member and entity of an object: the first text member naming a held
    /// entity, the same member for every object.
    fn referenced<'a>(&mut self, object: &Object, held: &[&'a Entity]) -> Option<&'a Entity> {
        let (key, entity) = object
            .iter()
            .find_map(|(key, value)| Some((key, named_entity(value.as_str()?, held)?)))?;
        (self.reference.get_or_insert_with(|| key.to_owned()) == key).then_some(entity)
    }

    /// Walks a plain and an expanded body together; `None` when they differ otherwise than by
    /// references gaining their entity's members.
    fn walk(&mut self, plain: &Json, expanded: &Json, held: &[&Entity]) -> Option<()> {
        match (plain, expanded) {
            (Json::Array(left), Json::Array(right)) if left.len() == right.len() => left
                .iter()
                .zip(right)
                .try_for_each(|(left, right)| self.walk(left, right, held)),
            (Json::Object(left), Json::Object(right)) => self.walk_object(left, right, held),
            _ => (plain == expanded).then_some(()),
        }
    }

    fn walk_object(&mut self, plain: &Object, expanded: &Object, held: &[&Entity]) -> Option<()> {
        for (key, value) in plain.iter() {
            self.walk(value, expanded.get(key)?, held)?;
        }
        let gained: Vec<(&str, &Json)> = (expanded.iter())
            .filter(|(key, _)| plain.get(key).is_none())
            .collect();
        let Some(entity) = self.referenced(plain, held) else {
            // A reference to an entity the state does not hold teaches nothing.
            let linked = (plain.iter()).any(|(_, value)| {
                value
                    .as_str()
                    .is_some_and(|text| text.contains("://") || text.starts_with('/'))
            });
            return (gained.is_empty() || linked).then_some(());
        };
        let collection = entity.collection.trim_end_matches('/').to_owned();
        if gained.is_empty() {
            self.left.insert(collection);
            return Some(());
        }
        let fields = entity.fields.as_object()?;
        let values: Vec<Option<&Json>> = (gained.iter())
            .map(|(key, _)| crate::query::field_value(fields, key))
            .collect();
        // The entity as held lacks a gained member: what the references gain is not known.
        if values.iter().any(Option::is_none) {
            self.unknown.insert(collection);
            return Some(());
        }
        let agrees = (gained.iter().zip(values)).all(|((_, value), held)| held == Some(*value));
        let names: Vec<String> = gained.iter().map(|(key, _)| (*key).to_owned()).collect();
        let known = self
            .members
            .entry(collection)
            .or_insert_with(|| names.clone());
        (agrees && *known == names).then_some(())
    }
}

/// Learns the rule from the item tools' reads (see the module docs); `None` when no pair of
/// reads teaches one or two teach different ones.
pub fn learn(
    manifest: &Manifest,
    timeline: &Timeline,
    entities: &[Entity],
    views: &[ReadView],
) -> Option<ReferenceExpansion> {
    let held: Vec<&Entity> = entities.iter().collect();
    let mut learned: Option<ReferenceExpansion> = None;
    for view in views {
        if !matches!(view.detail, ViewDetail::Item(_)) {
            continue;
        }
        let Some(index) = crate::derive::tool_index(manifest, &view.tool) else {
            continue;
        };
        let reads: Vec<&Observation> = (timeline.all(index))
            .filter(|read| read.is_success() && read.body.is_some())
            .collect();
        for read in &reads {
            let [(name, value)] = read.pairs() else {
                continue;
            };
            let plain = reads
                .iter()
                .find(|other| other.path == read.path && other.pairs().is_empty());
            let (Some(plain), Some(body)) =
                (plain.and_then(|plain| plain.body.as_ref()), &read.body)
            else {
                continue;
            };
            let mut taught = Taught::default();
            taught.walk(plain, body, &held)?;
            let mut members = taught.members;
            members.retain(|collection, _| !taught.unknown.contains(collection));
            let (Some(reference), false) = (taught.reference, members.is_empty()) else {
                continue;
            };
            let rule = ReferenceExpansion {
                parameter: name.clone(),
                value: value.clone(),
                reference,
                members,
                left: taught.left,
                unknown: taught.unknown,
                offered: BTreeSet::new(),
            };
            if learned.as_ref().is_some_and(|known| *known != rule) {
                return None;
            }
            learned = Some(rule);
        }
    }
    let mut rule = learned?;
    rule.offered = offered(&rule, manifest, entities, views);
    Some(rule)
}

/// The list and item tools not recorded with the parameter whose held entities show a reference
/// of a learned collection.
fn offered(
    rule: &ReferenceExpansion,
    manifest: &Manifest,
    entities: &[Entity],
    views: &[ReadView],
) -> BTreeSet<String> {
    let held: Vec<&Entity> = entities.iter().collect();
    let mut offered = BTreeSet::new();
    for view in views {
        let entity_type = match &view.detail {
            ViewDetail::List(list) => &list.entity_type,
            ViewDetail::Item(item) => &item.entity_type,
            _ => continue,
        };
        let recorded = manifest.tool(&view.tool).is_some_and(|tool| {
            (tool.query_parameters.iter()).any(|parameter| parameter.name == rule.parameter)
        });
        let shows = (entities.iter())
            .filter(|entity| entity.entity_type == *entity_type)
            .any(|entity| rule.references_in(&entity.fields, &held, true));
        if !recorded && shows {
            offered.insert(view.tool.clone());
        }
    }
    offered
}

impl ReferenceExpansion {
    /// Whether a value holds, below its top level when `nested`, a reference of a learned
    /// collection.
    fn references_in(&self, value: &Json, held: &[&Entity], nested: bool) -> bool {
        match value {
            Json::Array(items) => items
                .iter()
                .any(|item| self.references_in(item, held, false)),
            Json::Object(object) => {
                let own = !nested
                    && (object.get(&self.reference).and_then(Json::as_str))
                        .and_then(|text| named_entity(text, held))
                        .is_some_and(|entity| {
                            let collection = entity.collection.trim_end_matches('/');
                            self.members.contains_key(collection)
                        });
                own || object
                    .iter()
                    .any(|(_, member)| self.references_in(member, held, false))
            }
            _ => false,
        }
    }

    /// Whether a call's pair is this rule's.
    pub fn asked(&self, name: &str, value: &str) -> bool {
        name == self.parameter && value == self.value
    }

    /// Expands every reference a shown value holds from the live entities; `None` when one names
    /// a collection the reads never showed, or an entity (or a member) the state lacks.
    pub fn apply(&self, shown: &mut Json, held: &[&Entity]) -> Option<()> {
        match shown {
            Json::Array(items) => items.iter_mut().try_for_each(|item| self.apply(item, held)),
            Json::Object(object) => {
                for (_, member) in object.iter_mut() {
                    self.apply(member, held)?;
                }
                self.expand(object, held)
            }
            _ => Some(()),
        }
    }

    /// Expands one object when it is a reference (see [`Self::apply`]).
    fn expand(&self, object: &mut Object, held: &[&Entity]) -> Option<()> {
        let Some(text) = object.get(&self.reference).and_then(Json::as_str) else {
            return Some(());
        };
        let Some(entity) = named_entity(text, held) else {
            let known = (self.members.keys().chain(&self.left).chain(&self.unknown))
                .any(|collection| text.contains(&format!("{collection}/")));
            return (!known).then_some(());
        };
        let collection = entity.collection.trim_end_matches('/');
        if self.left.contains(collection) {
            return Some(());
        }
        if self.unknown.contains(collection) {
            return None;
        }
        let fields = entity.fields.as_object()?;
        for member in self.members.get(collection)? {
            let value = crate::query::field_value(fields, member)?.clone();
            object.insert(member.as_str(), value);
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::entity;

    use crate::test_support::parsed_json as json;

    fn held() -> Vec<Entity> {
        vec![
            entity(
                "/data/status",
                "5",
                r#"{"id": "5", "link": "http://h/data/status/5", "name": "open"}"#,
            ),
            entity(
                "/data/user",
                "3",
                r#"{"id": "3", "attributes": {"username": "alice"}}"#,
            ),
            entity(
                "/data/issue",
                "1",
                r#"{"id": "1", "link": "http://h/data/issue/1", "status": {"id": "5", "link": "http://h/data/status/5"}}"#,
            ),
        ]
    }

    #[test]
    fn references_gain_the_members_the_expanded_read_showed() {
        let entities = held();
        let held: Vec<&Entity> = entities.iter().collect();
        let plain = json(
            r#"{"data": {"id": "1", "link": "http://h/data/issue/1", "status": {"id": "5", "link": "http://h/data/status/5"}, "nosy": [{"id": "3", "link": "http://h/data/user/3"}]}}"#,
        );
        let expanded = json(
            r#"{"data": {"id": "1", "link": "http://h/data/issue/1", "status": {"id": "5", "link": "http://h/data/status/5", "name": "open"}, "nosy": [{"id": "3", "link": "http://h/data/user/3", "username": "alice"}]}}"#,
        );
        let mut taught = Taught::default();
        assert_eq!(taught.walk(&plain, &expanded, &held), Some(()));
        assert_eq!(taught.reference.as_deref(), Some("link"));
        assert_eq!(taught.members["/data/status"], ["name"]);
        assert_eq!(taught.members["/data/user"], ["username"]);
        assert!(taught.left.contains("/data/issue"));
        let rule = ReferenceExpansion {
            parameter: "@verbose".to_owned(),
            value: "2".to_owned(),
            reference: taught.reference.clone().expect("a reference"),
            members: taught.members.clone(),
            left: taught.left.clone(),
            unknown: BTreeSet::new(),
            offered: BTreeSet::new(),
        };
        assert!(rule.references_in(&entities[2].fields, &held, true));
        assert!(
            !rule.references_in(&entities[0].fields, &held, true),
            "its own link"
        );
        let mut shown = json(
            r#"[{"id": "1", "link": "http://h/data/issue/1", "status": {"id": "5", "link": "http://h/data/status/5"}}]"#,
        );
        assert_eq!(rule.apply(&mut shown, &held), Some(()));
        assert_eq!(
            shown.pointer("/0/status/name").and_then(Json::as_str),
            Some("open")
        );
        // A reference of a collection never shown, or of an entity the state lacks.
        let mut unknown = json(r#"{"ref": {"id": "9", "link": "http://h/data/msg/9"}}"#);
        assert_eq!(
            rule.apply(&mut unknown, &held),
            Some(()),
            "no held msg: not a reference"
        );
        let mut lacking = json(r#"{"status": {"id": "8", "link": "http://h/data/status/8"}}"#);
        assert_eq!(rule.apply(&mut lacking, &held), None);
        // A gained member the held entity lacks: that collection is not modelled.
        let mut taught = Taught::default();
        let gains_unheld = json(
            r#"{"status": {"id": "5", "link": "http://h/data/status/5", "name": "open", "order": 2}}"#,
        );
        let bare = json(r#"{"status": {"id": "5", "link": "http://h/data/status/5"}}"#);
        assert_eq!(taught.walk(&bare, &gains_unheld, &held), Some(()));
        assert!(taught.unknown.contains("/data/status"));
        // A gained member the entity does not hold teaches nothing.
        let wrong = json(
            r#"{"data": {"id": "1", "link": "http://h/data/issue/1", "status": {"id": "5", "link": "http://h/data/status/5", "name": "closed"}, "nosy": [{"id": "3", "link": "http://h/data/user/3"}]}}"#,
        );
        assert_eq!(Taught::default().walk(&plain, &wrong, &held), None);
    }
}

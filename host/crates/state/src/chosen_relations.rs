//! Relation embedding chosen per call: a query parameter whose value names the one association
//! an answer embeds (`populate=project`), the entity type's other associations spelled by their
//! record's id (`"assignee": 1`), where the entities the state holds embed every association's
//! record (`"project": {"id": 1, …}`, `"assignee": {"id": 1, …}`).
//!
//! Learned per parameter and entity type from the recorded list and item reads naming that
//! parameter alone: each shown object is its held entity but for members holding a record shown
//! as one of the record's scalars (the record's key, one per member across the lines). A line
//! whose value names a member the type's held entities hold a record in (a choice) must show
//! that member as held and every other such member by its key; a choice line that shows
//! anything else teaches nothing for the pair. A line naming no member (`populate=false`) only
//! teaches keys. The relation members are those whose key the lines showed.
//!
//! A call of a tool recorded with the parameter, naming one relation member, is answered as the
//! call without the parameter, each entity's other relation members respelled by their key
//! (a `null` stays `null`), whichever member the recording chose; a value naming no relation
//! member, or several values, is left to the view's other answers. One app: Sails.js
//! blueprints' `populate` (a task list recorded with `populate=project` answers
//! `populate=assignee`).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use rea_manifest::Manifest;
use rea_plugin_api::json::{Json, Object};
use serde::{Deserialize, Serialize};

use crate::model::{Entity, EntityType, ReadView};
use crate::observation::{Observation, Timeline};
use crate::render::scalar_text;
use crate::selection::shown_place;

/// A parameter choosing the relation an entity type's answers embed (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChosenRelation {
    /// The parameter's name (`populate`).
    pub parameter: String,
    /// The entity type whose answers it reshapes.
    #[serde(rename = "type")]
    pub entity_type: String,
    /// Per relation member, the key of its record an answer not choosing it shows (`id`).
    pub members: BTreeMap<String, String>,
    /// The members the recorded lines chose.
    pub recorded: BTreeSet<String>,
    /// The read tools recorded with the parameter whose views show the type.
    pub tools: BTreeSet<String>,
}

/// How one recorded line shows its entities against the held ones.
#[derive(Debug, Default, PartialEq)]
struct LineReading {
    /// Per member shown as a scalar of its held record, the record's keys holding that scalar
    /// on every row.
    spelled: BTreeMap<String, BTreeSet<String>>,
    /// The members holding a record that the line shows as held.
    kept: BTreeSet<String>,
}

impl LineReading {
    /// Adds one row's reading of a shown object against its held entity; `None` when they
    /// differ otherwise than by records shown as one of their scalars, or a member is spelled
    /// on one row and kept on another.
    fn add_row(&mut self, shown: &Object, held: &Object) -> Option<()> {
        if shown.len() != held.len() {
            return None;
        }
        for (member, held_value) in held.iter() {
            let shown_value = shown.get(member)?;
            if shown_value == held_value {
                if matches!(held_value, Json::Object(_)) {
                    self.kept.insert(member.to_owned());
                }
                continue;
            }
            let (Json::Object(record), Json::String(_) | Json::Number(_)) =
                (held_value, shown_value)
            else {
                return None;
            };
            let keys: BTreeSet<String> = (record.iter())
                .filter(|(_, value)| *value == shown_value)
                .map(|(key, _)| key.to_owned())
                .collect();
            let known = (self.spelled)
                .entry(member.to_owned())
                .or_insert_with(|| keys.clone());
            known.retain(|key| keys.contains(key));
            if known.is_empty() {
                return None;
            }
        }
        self.kept
            .iter()
            .all(|member| !self.spelled.contains_key(member))
            .then_some(())
    }
}

/// One recorded line naming a parameter alone: its value and reading (`None`: it did not fit).
struct RecordedLine {
    parameter: String,
    value: String,
    reading: Option<LineReading>,
}

/// The held entities by type and id, looked up once per row of every recorded line.
type HeldById<'a> = HashMap<(&'a str, &'a str), &'a Entity>;

/// Reads one line's shown objects against the held entities of `entity_type` they name by
/// `identity`; `None` when one names no held entity or does not fit.
fn read_line(
    body: &Json,
    (pointer, is_list, entity_type): (&str, bool, &String),
    identity: &str,
    held_by_id: &HeldById<'_>,
) -> Option<LineReading> {
    let rows: Vec<&Object> = match (body.pointer(pointer)?, is_list) {
        (Json::Array(items), true) => items.iter().map(Json::as_object).collect::<Option<_>>()?,
        (Json::Object(object), false) => vec![object],
        _ => return None,
    };
    let mut reading = LineReading::default();
    for row in rows {
        let id = row.get(identity).and_then(scalar_text)?;
        let held = held_by_id.get(&(entity_type.as_str(), id.as_str()))?;
        reading.add_row(row, held.fields.as_object()?)?;
    }
    Some(reading)
}

/// The successful recorded lines of a view's tool naming one query pair.
fn recorded_lines<'a>(
    view: &ReadView,
    observations: impl Iterator<Item = &'a Observation>,
    identity: &str,
    held_by_id: &HeldById<'_>,
) -> Vec<RecordedLine> {
    let Some(shown) = shown_place(view) else {
        return Vec::new();
    };
    observations
        .filter(|read| read.is_success())
        .filter_map(|read| {
            let [(parameter, value)] = read.pairs() else {
                return None;
            };
            Some(RecordedLine {
                parameter: parameter.clone(),
                value: value.clone(),
                reading: read
                    .body
                    .as_ref()
                    .and_then(|body| read_line(body, shown, identity, held_by_id)),
            })
        })
        .collect()
}

/// The members some held entity of the type holds a record (an object) in.
fn record_members(entity_type: &str, entities: &[Entity]) -> BTreeSet<String> {
    (entities.iter())
        .filter(|entity| entity.entity_type == entity_type)
        .filter_map(|entity| entity.fields.as_object())
        .flat_map(|fields| {
            (fields.iter())
                .filter(|(_, value)| matches!(value, Json::Object(_)))
                .map(|(member, _)| member.to_owned())
        })
        .collect()
}

/// The relation members the fitting lines spelled by one key, with that key.
fn spelled_keys<'a>(readings: impl Iterator<Item = &'a LineReading>) -> BTreeMap<String, String> {
    let mut keys: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for reading in readings {
        for (member, spelled) in &reading.spelled {
            let known = keys
                .entry(member.clone())
                .or_insert_with(|| spelled.clone());
            known.retain(|key| spelled.contains(key));
        }
    }
    keys.into_iter()
        .filter_map(|(member, keys)| match keys.len() {
            1 => Some((member, keys.into_iter().next()?)),
            _ => None,
        })
        .collect()
}

/// Whether a choice line shows the chosen member as held and every other relation member by
/// its key.
fn shows_choice(reading: &LineReading, chosen: &str, members: &BTreeMap<String, String>) -> bool {
    let others_spelled = (reading.spelled.iter()).all(|(member, keys)| {
        member != chosen && members.get(member).is_some_and(|key| keys.contains(key))
    });
    let kept_only_chosen = (reading.kept.iter())
        .filter(|member| members.contains_key(*member))
        .all(|member| member == chosen);
    members.contains_key(chosen) && others_spelled && kept_only_chosen
}

/// The rule one parameter's lines of one entity type teach (the tools left to fill); `None`
/// when no line chose a relation or a choice line showed anything else.
fn teach(
    (entity_type, parameter): (&str, &str),
    lines: &[&RecordedLine],
    records: &BTreeSet<String>,
) -> Option<ChosenRelation> {
    let members = spelled_keys(lines.iter().filter_map(|line| line.reading.as_ref()));
    let mut recorded = BTreeSet::new();
    for line in lines.iter().filter(|line| records.contains(&line.value)) {
        let reading = line.reading.as_ref()?;
        if !shows_choice(reading, &line.value, &members) {
            return None;
        }
        recorded.insert(line.value.clone());
    }
    (!recorded.is_empty()).then(|| ChosenRelation {
        parameter: parameter.to_owned(),
        entity_type: entity_type.to_owned(),
        members,
        recorded,
        tools: BTreeSet::new(),
    })
}

/// Learns the rules the list and item reads teach (see the module docs), per parameter and
/// entity type.
pub fn learn(
    manifest: &Manifest,
    timeline: &Timeline,
    (types, entities): (&[EntityType], &[Entity]),
    views: &[ReadView],
) -> Vec<ChosenRelation> {
    // The first held entity of each type and id, as a scan of the list would find it.
    let mut held_by_id: HeldById<'_> = HashMap::new();
    for entity in entities {
        let key = (entity.entity_type.as_str(), entity.id.as_str());
        held_by_id.entry(key).or_insert(entity);
    }
    let mut lines: BTreeMap<(String, String), Vec<RecordedLine>> = BTreeMap::new();
    for view in views {
        let (Some((_, _, entity_type)), Some(index)) = (
            shown_place(view),
            crate::derive::tool_index(manifest, &view.tool),
        ) else {
            continue;
        };
        let Some(identity) = (types.iter())
            .find(|known| known.collection_template == *entity_type)
            .map(|known| known.identity_field.as_str())
        else {
            continue;
        };
        for line in recorded_lines(view, timeline.all(index), identity, &held_by_id) {
            let key = (entity_type.to_owned(), line.parameter.clone());
            lines.entry(key).or_default().push(line);
        }
    }
    let mut learned = Vec::new();
    for ((entity_type, parameter), lines) in &lines {
        let records = record_members(entity_type, entities);
        let lines: Vec<&RecordedLine> = lines.iter().collect();
        if let Some(mut rule) = teach((entity_type, parameter), &lines, &records) {
            rule.tools = answering_tools(manifest, &rule, views);
            learned.push(rule);
        }
    }
    learned
}

/// The list and item tools recorded with the rule's parameter whose views show its type.
fn answering_tools(
    manifest: &Manifest,
    rule: &ChosenRelation,
    views: &[ReadView],
) -> BTreeSet<String> {
    (views.iter())
        .filter(|view| {
            shown_place(view).is_some_and(|(_, _, entity_type)| *entity_type == rule.entity_type)
        })
        .filter(|view| {
            manifest.tool(&view.tool).is_some_and(|tool| {
                (tool.query_parameters.iter()).any(|parameter| parameter.name == rule.parameter)
            })
        })
        .map(|view| view.tool.clone())
        .collect()
}

impl ChosenRelation {
    /// The member a call's values of the parameter choose: its one value, when it names a
    /// relation member.
    pub fn chosen<'a>(&self, values: &'a [String]) -> Option<&'a str> {
        match values {
            [value] if self.members.contains_key(value) => Some(value),
            _ => None,
        }
    }

    /// Respells an entity's relation members but `chosen` by their record's key; `None` when a
    /// record lacks it.
    pub fn apply(&self, entity: &mut Json, chosen: &str) -> Option<()> {
        let object = entity.as_object_mut()?;
        for (member, key) in &self.members {
            if member == chosen {
                continue;
            }
            if let Some(Json::Object(record)) = object.get(member) {
                let id = record.get(key)?.clone();
                object.insert(member.as_str(), id);
            }
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::parsed_json as json;

    const HELD: &str = r#"{"id": 1, "title": "a", "project": {"id": 2, "code": "P"},
        "assignee": {"id": 3, "name": "x"}, "note": {"k": 1}}"#;

    fn reading(shown: &str) -> Option<LineReading> {
        let (shown, held) = (json(shown), json(HELD));
        let mut reading = LineReading::default();
        reading.add_row(shown.as_object()?, held.as_object()?)?;
        Some(reading)
    }

    fn line(value: &str, shown: &str) -> RecordedLine {
        RecordedLine {
            parameter: "populate".to_owned(),
            value: value.to_owned(),
            reading: reading(shown),
        }
    }

    #[test]
    fn a_line_shows_records_kept_or_spelled_by_a_key() {
        let read = reading(
            r#"{"id": 1, "title": "a", "project": {"id": 2, "code": "P"}, "assignee": 3, "note": {"k": 1}}"#,
        )
        .expect("it fits");
        assert!(read.kept.contains("project") && read.kept.contains("note"));
        assert_eq!(read.spelled["assignee"], BTreeSet::from(["id".to_owned()]));
        // Another value, a member left out, or a record shown otherwise: no fit.
        assert_eq!(
            reading(r#"{"id": 1, "title": "b", "project": 2, "assignee": 3, "note": {"k": 1}}"#),
            None
        );
        assert_eq!(
            reading(r#"{"id": 1, "project": 2, "assignee": 3, "note": {"k": 1}}"#),
            None
        );
        assert_eq!(
            reading(
                r#"{"id": 1, "title": "a", "project": {"id": 2}, "assignee": 3, "note": {"k": 1}}"#
            ),
            None
        );
        assert_eq!(
            reading(r#"{"id": 1, "title": "a", "project": 9, "assignee": 3, "note": {"k": 1}}"#),
            None
        );
    }

    #[test]
    fn a_choice_teaches_every_member_and_answers_another() {
        let records = BTreeSet::from([
            "project".to_owned(),
            "assignee".to_owned(),
            "note".to_owned(),
        ]);
        let chosen = line(
            "project",
            r#"{"id": 1, "title": "a", "project": {"id": 2, "code": "P"}, "assignee": 3, "note": {"k": 1}}"#,
        );
        let none = line(
            "false",
            r#"{"id": 1, "title": "a", "project": 2, "assignee": 3, "note": {"k": 1}}"#,
        );
        let rule = teach(("/task", "populate"), &[&chosen, &none], &records).expect("a rule");
        assert_eq!(
            rule.members.keys().collect::<Vec<_>>(),
            ["assignee", "project"]
        );
        assert_eq!(rule.recorded, BTreeSet::from(["project".to_owned()]));
        assert_eq!(rule.chosen(&["assignee".to_owned()]), Some("assignee"));
        assert_eq!(rule.chosen(&["note".to_owned()]), None, "no key learned");
        assert_eq!(rule.chosen(&["false".to_owned()]), None);
        assert_eq!(
            rule.chosen(&["project".to_owned(), "assignee".to_owned()]),
            None
        );
        let mut entity = json(HELD);
        assert_eq!(rule.apply(&mut entity, "assignee"), Some(()));
        assert_eq!(
            entity,
            json(
                r#"{"id": 1, "title": "a", "project": 2, "assignee": {"id": 3, "name": "x"}, "note": {"k": 1}}"#
            )
        );
        // Without the line naming no member, the chosen member's own key is unknown: it is no
        // relation member another call can leave out, so the choice teaches nothing.
        assert_eq!(teach(("/task", "populate"), &[&chosen], &records), None);
        // A choice line showing its member by its key contradicts the rule.
        let contradicting = line(
            "assignee",
            r#"{"id": 1, "title": "a", "project": 2, "assignee": 3, "note": {"k": 1}}"#,
        );
        assert_eq!(
            teach(
                ("/task", "populate"),
                &[&chosen, &none, &contradicting],
                &records
            ),
            None
        );
        // Lines naming no held record member teach no rule.
        assert_eq!(teach(("/task", "populate"), &[&none], &records), None);
    }
}

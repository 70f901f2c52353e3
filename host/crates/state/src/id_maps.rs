//! Id maps: a read beside a type's list (`GET /tasks/ids/` beside `/tasks/`) answering one JSON
//! object whose keys are ids of the type's held entities, spelled as the ids are, and whose
//! values are each that entity's value of one member, the same member for every key (the
//! "readable member": `{"9": "Glaze the east wall", "12": "Check the wall mortar"}` maps tasks
//! to their `title`). Such a read answers, before and after served writes, the type's live
//! entities of the collection as that map, in ascending id order (numeric ids numerically, the
//! others as text), the order every checked answer showed.
//!
//! Learned once the lists are (see [`crate::derive`]), from the tool's checked lines: every one
//! answers an object keyed by held ids; the readable member is the first member, in the keyed
//! entities' member order, whose value equals the shown value at every key of every line (of
//! two members holding equal values at every shown key, the earlier one is taken). A line
//! without a query must show every held entity; a line with one parameter must show exactly the
//! held entities whose readable member contains its value case-blind (the list's search role,
//! [`crate::query`]), and that parameter, the same on every such line, is the map's search. A
//! line with any other query, or one not so reproduced, leaves the read as it was. A call naming
//! any parameter but the learned search is answered from its recording, or refused, as before.

use std::cmp::Ordering;
use std::collections::HashMap;

use rea_manifest::Manifest;
use rea_plugin_api::contracts::capture::CompactString;
use rea_plugin_api::json::{Json, Object};
use serde::{Deserialize, Serialize};

use crate::answer::{StateAnswer, tool_error};
use crate::call::Call;
use crate::count_views::parent_path;
use crate::derive::entities::collection_key;
use crate::model::{Entity, ReadView, ViewDetail, WriteScope};
use crate::observation::{Observation, Timeline};
use crate::service::StateService;

/// An id map view (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IdMapView {
    /// The entity type whose ids are the keys.
    #[serde(rename = "type")]
    pub entity_type: String,
    /// The member each key maps to.
    pub member: String,
    /// The query parameter selecting the entities whose member contains its value case-blind,
    /// when a checked line showed one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<String>,
    /// The record whose status and headers answers are given in (the latest checked line).
    pub envelope_ordinal: u64,
    /// The checked recordings the view reproduced.
    pub record_ordinals: Vec<u64>,
}

impl IdMapView {
    /// What a call on `segments` shows: the entities of its type in the collection it maps.
    pub fn scope(&self, segments: &[CompactString]) -> WriteScope {
        crate::count_views::parent_collection_scope(&self.entity_type, segments)
    }
}

/// Makes an id map view of every read tool answering from its recordings or as a document
/// whose checked lines map held ids to one member (see the module docs).
pub(crate) fn derive(
    manifest: &Manifest,
    timeline: &Timeline,
    entities: &[Entity],
    views: &mut [ReadView],
) {
    for (index, lines) in crate::derive::recorded_reads(manifest, timeline, views) {
        let template = views[index].path_template.clone();
        if let Some(map) = learn(views, &template, &lines, entities) {
            views[index].detail = ViewDetail::IdMap(Box::new(map));
        }
    }
}

/// The id map view of a tool read under `template` beside a list whose checked `lines` each
/// map held ids to one member; `None` when one does not.
fn learn(
    views: &[ReadView],
    template: &str,
    lines: &[&Observation],
    entities: &[Entity],
) -> Option<IdMapView> {
    let (parent, last) = collection_key(template).rsplit_once('/')?;
    if last.is_empty() || last.contains('{') || parent.is_empty() || lines.is_empty() {
        return None;
    }
    let entity_type = views.iter().find_map(|view| match &view.detail {
        ViewDetail::List(list)
            if collection_key(&view.path_template) == parent && list.parent.is_none() =>
        {
            Some(&list.entity_type)
        }
        _ => None,
    })?;
    let held_of = |line: &Observation| -> Option<Vec<&Entity>> {
        let collection = parent_path(&line.segments)?;
        Some(
            entities
                .iter()
                .filter(|entity| {
                    entity.entity_type == *entity_type
                        && collection_key(&entity.collection) == collection
                })
                .collect(),
        )
    };
    let shown: Vec<(&Observation, &Object, Vec<&Entity>)> = lines
        .iter()
        .map(|line| Some((*line, line.body.as_ref()?.as_object()?, held_of(line)?)))
        .collect::<Option<_>>()?;
    let member = readable_member(&shown)?;
    let search = search_parameter(&shown)?;
    let reproduced = shown.iter().all(|(line, answer, held)| {
        let term = line.query.as_deref().unwrap_or(&[]).first();
        let rendered = mapped(held, &member, term.map(|(_, value)| value.as_str()));
        rendered == **answer && same_order(&rendered, answer)
    });
    let last = lines.last()?;
    reproduced.then(|| IdMapView {
        entity_type: entity_type.clone(),
        member,
        search,
        envelope_ordinal: last.ordinal,
        record_ordinals: lines.iter().map(|line| line.ordinal).collect(),
    })
}

/// The first member, in the first keyed entity's member order, whose value equals the shown
/// value at every key of every answer, each key naming a held entity; `None` when a key names
/// none, no answer shows a key, or no member fits.
fn readable_member(shown: &[(&Observation, &Object, Vec<&Entity>)]) -> Option<String> {
    let mut keyed: Vec<(&Object, &Json)> = Vec::new();
    for (_, answer, held) in shown {
        let by_id: HashMap<&str, &Entity> = held
            .iter()
            .map(|entity| (entity.id.as_str(), *entity))
            .collect();
        for (key, value) in answer.iter() {
            let entity = by_id.get(key)?;
            keyed.push((entity.fields.as_object()?, value));
        }
    }
    let (first, _) = keyed.first()?;
    first
        .keys()
        .find(|member| {
            keyed
                .iter()
                .all(|(fields, value)| fields.get(member) == Some(*value))
        })
        .map(str::to_owned)
}

/// The one parameter the lines with a query name (each naming it alone), `Some(None)` when no
/// line has a query; `None` when a line names more than one or lines name different ones.
fn search_parameter(shown: &[(&Observation, &Object, Vec<&Entity>)]) -> Option<Option<String>> {
    let mut search: Option<String> = None;
    for (line, _, _) in shown {
        match line.query.as_deref().unwrap_or(&[]) {
            [] => {}
            [(name, _)] if search.as_ref().is_none_or(|known| known == name) => {
                search = Some(name.clone());
            }
            _ => return None,
        }
    }
    Some(search)
}

/// The map of `held` entities to their `member`, in ascending id order, keeping those whose
/// member contains `term` case-blind when one is given.
fn mapped(held: &[&Entity], member: &str, term: Option<&str>) -> Object {
    let needle = term.map(str::to_lowercase);
    let mut kept: Vec<(&str, &Json)> = held
        .iter()
        .filter_map(|entity| Some((entity.id.as_str(), entity.fields.as_object()?.get(member)?)))
        .filter(|(_, value)| {
            needle
                .as_deref()
                .is_none_or(|needle| crate::query::contains_text(value, needle))
        })
        .collect();
    let numeric = kept.iter().all(|(id, _)| id.parse::<i64>().is_ok());
    kept.sort_by(|(left, _), (right, _)| id_order(left, right, numeric));
    let mut map = Object::with_capacity(kept.len());
    for (id, value) in kept {
        map.insert(id.to_owned(), value.clone());
    }
    map
}

/// Ascending id order: numerically when every id is an integer, else as text.
fn id_order(left: &str, right: &str, numeric: bool) -> Ordering {
    match (numeric, left.parse::<i64>(), right.parse::<i64>()) {
        (true, Ok(left), Ok(right)) => left.cmp(&right),
        _ => left.cmp(right),
    }
}

/// Whether two maps list their keys in the same order.
fn same_order(rendered: &Object, recorded: &Object) -> bool {
    rendered.keys().eq(recorded.keys())
}

impl StateService {
    /// An id map view's call: the live entities of the call's collection mapped to the readable
    /// member, kept by the learned search, in the latest checked line's envelope; `Err` with the
    /// reason for a call naming another parameter.
    pub(crate) fn answer_id_map(
        &self,
        template: &str,
        map: &IdMapView,
        call: &Call,
        exact: bool,
    ) -> Result<StateAnswer, &'static str> {
        let pairs = call.pairs();
        let term = match pairs.as_slice() {
            [] => None,
            [(name, term)] if map.search.as_deref() == Some(name.as_str()) => Some(term.as_str()),
            _ => return Err("id-map-query"),
        };
        let segments = call.segments(template);
        let Some(collection) = parent_path(&segments) else {
            return Ok(tool_error(
                "internal_error",
                "an id map view's path has no parent",
            ));
        };
        let live = self.read();
        let held = live.collection(&map.entity_type, &collection);
        let body = mapped(&held, &map.member, term);
        let envelope = (map.envelope_ordinal, "id map");
        Ok(self.answer_in_envelope(envelope, body, exact, collection))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::derive::tests::{derive, posts, record};
    use crate::model::ViewDetail;

    /// A build listing the posts and reading `/posts/ids` with `query` (`""`: none), answering
    /// `answer`.
    fn mapped(query: &str, answer: serde_json::Value) -> crate::derive::tests::Fixture {
        let target = match query {
            "" => "/posts/ids".to_owned(),
            query => format!("/posts/ids?{query}"),
        };
        derive(vec![
            record(0, "GET", "/posts", 200, posts()),
            record(1, "GET", &target, 200, answer),
        ])
    }

    #[test]
    fn a_read_mapping_held_ids_to_one_member_answers_from_the_state() {
        let fixture = mapped("", json!({"1": "Alpha", "2": "Beta", "3": "Gamma"}));
        let ViewDetail::IdMap(map) = fixture.view("get_posts_ids") else {
            panic!("an id map: {:?}", fixture.view("get_posts_ids"))
        };
        assert_eq!(
            (map.member.as_str(), map.search.as_deref()),
            ("title", None)
        );
        let answer = fixture.call("get_posts_ids", json!({}));
        assert_eq!(answer["state"]["source"], "state", "{answer}");
        assert_eq!(
            answer["body"],
            json!({"1": "Alpha", "2": "Beta", "3": "Gamma"})
        );
    }

    #[test]
    fn a_searched_map_learns_its_member_and_searches_it_case_blind() {
        // Only a search was recorded: `author` is the member every shown value equals.
        let fixture = mapped("q=ALI", json!({"1": "alice", "3": "alice"}));
        let ViewDetail::IdMap(map) = fixture.view("get_posts_ids") else {
            panic!("an id map: {:?}", fixture.view("get_posts_ids"))
        };
        assert_eq!(
            (map.member.as_str(), map.search.as_deref()),
            ("author", Some("q"))
        );
        let bob = fixture.call("get_posts_ids", json!({"q": "Bo"}));
        assert_eq!(bob["body"], json!({"2": "bob"}), "{bob}");
        let all = fixture.call("get_posts_ids", json!({}));
        assert_eq!(
            all["body"],
            json!({"1": "alice", "2": "bob", "3": "alice"}),
            "{all}"
        );
    }

    #[test]
    fn a_map_leaving_out_a_held_id_or_showing_another_value_is_no_id_map() {
        // A complete map without post 3, and values no member holds.
        for answer in [
            json!({"1": "Alpha", "2": "Beta"}),
            json!({"1": "Alpha", "2": "Beta", "3": "Delta"}),
        ] {
            let fixture = mapped("", answer);
            assert!(
                !matches!(fixture.view("get_posts_ids"), ViewDetail::IdMap(_)),
                "{:?}",
                fixture.view("get_posts_ids")
            );
        }
    }

    #[test]
    fn ids_sort_numerically() {
        let held = [("10", "ten"), ("9", "nine"), ("100", "hundred")].map(|(id, title)| {
            crate::model::Entity {
                entity_type: "/posts".to_owned(),
                collection: "/posts".to_owned(),
                id: id.to_owned(),
                fields: rea_plugin_api::json::Json::from_serde_value(&json!({"title": title})),
                view_fields: Default::default(),
                record_ordinals: Vec::new(),
            }
        });
        let held: Vec<&crate::model::Entity> = held.iter().collect();
        let map = super::mapped(&held, "title", None);
        assert_eq!(map.keys().collect::<Vec<_>>(), ["9", "10", "100"]);
    }
}

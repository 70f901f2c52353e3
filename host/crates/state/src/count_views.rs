//! Count views: a read under a list's path (`GET /tasks/count?where[status]=todo`) answering one
//! number member (`{"count": 5}`) that equals, at every checked recording, the number of
//! entities its sibling list (the list tool reading the parent path, `/tasks`) selects with the
//! same query, read through the count's own nesting of the list's names (`where[status]` for the
//! list's `filter[where][status]`, see [`rea_plugin_api::query_fields::nested_in`]). Such a read
//! answers, before and after served writes, the number of held entities the list's learned
//! query model selects for any filter or search it evaluates; a parameter the list reads as
//! anything else (a sort, a page), or one its grammar cannot evaluate, answers `not_modelled`.
//!
//! Learned once the lists' query grammars are (see [`crate::derive`]), from the tool's checked
//! lines (those before a write related to the list's type): every one answers an object whose
//! one member holds a non-negative integer, the same member on every line, and at least one
//! line was checked.

use rea_manifest::Manifest;
use rea_plugin_api::json::{Json, Object};
use rea_plugin_api::query_lists::fold_list_names;
use serde::{Deserialize, Serialize};

use crate::answer::{StateAnswer, StateSource, state_answer, tool_error};
use crate::call::Call;
use crate::derive::entities::collection_key;
use crate::model::{Entity, QueryModel, ReadView, ViewDetail, WriteScope};
use crate::observation::{Observation, Timeline};
use crate::recorded::{NotModelled, RecordingUnusable};
use crate::service::StateService;
use crate::writes::selected::{count_answer, list_spelled, nesting, selecting};

/// A count view (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CountView {
    /// The entity type the sibling list shows.
    #[serde(rename = "type")]
    pub entity_type: String,
    /// The sibling list tool.
    pub list_tool: String,
    /// The member holding the number.
    pub member: String,
    /// The wrapper the list nests the count's query names in (`filter`), when it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nesting: Option<String>,
    /// The sibling list's query model, evaluated over the held entities.
    pub model: QueryModel,
    /// The record whose status and headers answers are given in (the latest checked line).
    pub envelope_ordinal: u64,
    /// The checked recordings the view reproduced.
    pub record_ordinals: Vec<u64>,
}

impl CountView {
    /// What a call on `segments` shows: the entities of its type in the collection it counts.
    pub fn scope(&self, segments: &[String]) -> WriteScope {
        WriteScope::Type {
            entity_type: self.entity_type.clone(),
            collection: parent_path(segments).map(|path| collection_key(&path).to_owned()),
            entity: None,
        }
    }
}

/// Makes a count view of every read tool answering from its recordings or as a document whose
/// checked lines count what its sibling list selects (see the module docs).
pub(crate) fn derive(
    manifest: &Manifest,
    timeline: &Timeline,
    entities: &[Entity],
    views: &mut [ReadView],
) {
    for index in 0..views.len() {
        let view = &views[index];
        if !matches!(
            view.detail,
            ViewDetail::Recorded { .. } | ViewDetail::Document(_)
        ) || !view.method.eq_ignore_ascii_case("GET")
        {
            continue;
        }
        let Some(tool) = crate::derive::tool_index(manifest, &view.tool) else {
            continue;
        };
        let lines = crate::derive::latest_lines(timeline, tool);
        if let Some(count) = learn(views, &view.path_template, &lines, entities) {
            views[index].detail = ViewDetail::Count(Box::new(count));
        }
    }
}

/// The count view of a tool read under `template` whose checked `lines` each count what the
/// sibling list selects; `None` when one does not.
fn learn(
    views: &[ReadView],
    template: &str,
    lines: &[&Observation],
    entities: &[Entity],
) -> Option<CountView> {
    let (parent, last) = template.rsplit_once('/')?;
    if last.is_empty() || last.contains('{') || parent.is_empty() {
        return None;
    }
    let (list_tool, entity_type, model) = views.iter().find_map(|view| match &view.detail {
        ViewDetail::List(list) if view.path_template == parent && list.parent.is_none() => {
            Some((&view.tool, &list.entity_type, list.query.as_ref()?))
        }
        _ => None,
    })?;
    let mut member: Option<&str> = None;
    let names: Vec<String> = lines
        .iter()
        .flat_map(|line| line.query.iter().flatten().map(|(name, _)| name.clone()))
        .collect();
    let nesting = nesting(model, names.iter().map(String::as_str))?;
    for line in lines {
        let (name, count) = count_answer(line.body.as_ref()?)?;
        if member.is_some_and(|known| known != name) {
            return None;
        }
        member = Some(name);
        let pairs = list_spelled(
            model,
            nesting.as_deref(),
            line.query.clone().unwrap_or_default(),
        );
        let collection = parent_path(&line.segments)?;
        let held: Vec<&Object> = entities
            .iter()
            .filter(|entity| {
                entity.entity_type == *entity_type
                    && collection_key(&entity.collection) == collection
            })
            .filter_map(|entity| entity.fields.as_object())
            .collect();
        if matched(model, &pairs, &held).ok()? != count {
            return None;
        }
    }
    let last = lines.last()?;
    Some(CountView {
        entity_type: entity_type.clone(),
        list_tool: list_tool.clone(),
        member: member?.to_owned(),
        nesting,
        model: model.clone(),
        envelope_ordinal: last.ordinal,
        record_ordinals: lines.iter().map(|line| line.ordinal).collect(),
    })
}

/// The collection a count path counts: its path less the last segment (`/tasks` of
/// `/tasks/count`).
fn parent_path(segments: &[String]) -> Option<String> {
    let (_, parent) = segments.split_last()?;
    Some(format!("/{}", parent.join("/")))
}

/// How many of `held` the (list-spelled) query selects; the refusal's reason when the list's
/// model does not evaluate it.
fn matched(
    model: &QueryModel,
    pairs: &[(String, String)],
    held: &[&Object],
) -> Result<u64, String> {
    selecting(model, pairs).map_err(|refused| refused.message)?;
    let (matched, _) = crate::query::order_matches(model, pairs, held)
        .ok_or("the list's learned query grammar cannot evaluate this query")?;
    Ok(matched.len() as u64)
}

impl StateService {
    /// A count view's call: the number of held entities of the call's collection the sibling
    /// list's model selects with the call's query, in the latest checked line's envelope;
    /// `not_modelled` for a query the model does not evaluate.
    pub(crate) fn answer_count(
        &self,
        template: &str,
        count: &CountView,
        call: &Call,
        exact: bool,
    ) -> StateAnswer {
        let segments = call.segments(template);
        let Some(collection) = parent_path(&segments) else {
            return tool_error("internal_error", "a count view's path has no parent");
        };
        let pairs = list_spelled(
            &count.model,
            count.nesting.as_deref(),
            fold_list_names(&call.pairs()),
        );
        let live = self.read();
        let held = live.collection(&count.entity_type, &collection);
        let objects: Vec<&Object> = held
            .iter()
            .filter_map(|entity| entity.fields.as_object())
            .collect();
        let number = match matched(&count.model, &pairs, &objects) {
            Ok(number) => number,
            Err(reason) => {
                return NotModelled {
                    reason,
                    recording: RecordingUnusable::NotRecorded,
                }
                .into();
            }
        };
        let Some(envelope) = self.kept(count.envelope_ordinal) else {
            return tool_error(
                "internal_error",
                "the count view's envelope record is not retained",
            );
        };
        let mut body = Object::new();
        body.insert(count.member.clone(), Json::from(number));
        state_answer(
            envelope,
            Json::Object(body),
            self.replay().evidence_id(),
            exact,
            StateSource::state(collection, None),
        )
    }
}

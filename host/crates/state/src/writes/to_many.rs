//! To-many relationship writes (after the four passes, for a write withheld as `no-observation`
//! or `no-state-target`): a `POST` (an add) or `DELETE` (a removal) of a type's item path plus
//! segments naming a relationship (`/projects/{id}/relationships/tasks`), whose every successful
//! call sent one array of resource identifiers, each an object of scalars naming one held entity
//! of one type (`{"data": [{"type": "task", "id": "11"}]}`), and after which each named entity,
//! read back by id, shows one member changed: its linkage now naming the parent (an add: the
//! task's `relationships.project.data` set to `{"type": "project", "id": "4"}`), or cleared (a
//! removal: `null`). One call is learned from when its read after shows this; the segments between
//! the parent and the relationship's name keep the values the recorded calls gave them (a parameter
//! `{segment_2}` recorded as `relationships`), which a served call must give too.
//!
//! Served as an update of each named entity's linkage (set to the parent's identifier, spelled
//! with the members the read after showed, or cleared where it named the parent), the parents'
//! lists following ([`crate::inverse`]), answered as the recorded call was (JSON:API's
//! `{"meta": {"message": …}}`), or, where the recorded answer holds the parent's whole linkage
//! after the call, with the live linkage rendered by the linkage route of the write's own path in
//! the recorded answer's envelope ([`ToManyModel::answer_route`]); a recorded answer naming a
//! sent identifier otherwise, at any depth, is not learned.
//! Refused, nothing changed: a body holding anything beside the identifiers' wrapping, a parent
//! the state does not hold, a relationship name no recorded call sent, an identifier naming no
//! held entity of the relationship's type.

use rea_plugin_api::contracts::capture::CompactString;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use rea_manifest::segments::{split_path, template_affixes};
use rea_plugin_api::json::{Json, Object};
use serde::{Deserialize, Serialize};

use super::apply::{Change, commit, set_pointer};
use super::dependents::member_at;
use super::model::Effect;
use super::observe::{Call, first_shown_after};
use super::referenced::{Key, held_before};
use super::relationship::{changed, matches_members, wrapped_only};
use super::{Draft, Views};
use crate::answer::{StateAnswer, StateSource, tool_error};
use crate::linkage_routes::LinkageRoute;
use crate::model::{Entity, StateView};
use crate::observation::{Observation, RequestBody, Timeline, decoded};
use crate::render::scalar_text;
use crate::service::StateService;
use crate::store::LiveState;

/// How a to-many relationship write names its parent and the entities it links or unlinks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToManyModel {
    /// The parent's type (collection template).
    pub parent_type: String,
    /// The path segment naming the parent.
    pub parent_segment: usize,
    /// The segments between the parent and the relationship's name, by index, with the value
    /// every recorded call gave (a list of pairs: a state's JSON keys are text).
    pub fixed: Vec<(usize, String)>,
    /// The body pointer of the identifiers' array.
    pub identifiers: String,
    /// The calls link the named entities to the parent (`POST`), else unlink them (`DELETE`).
    pub adds: bool,
    /// Per relationship name the recorded calls sent, the linkage it sets.
    pub named: BTreeMap<String, ToManyLink>,
    /// The recorded call whose status and body the answer takes.
    pub answer_ordinal: u64,
    /// The read tool of the write's own path whose linkage route ([`crate::linkage_routes`])
    /// renders the answer in the recorded one's envelope: the recorded answer holds the parent's
    /// linkage after the call (pyramid-jsonapi answers a `POST` with the whole linkage).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_route: Option<String>,
}

/// The linkage a to-many relationship sets on each entity it names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToManyLink {
    /// The named entities' type.
    pub child_type: String,
    /// The pointer of their linkage (`/relationships/project/data`).
    pub linkage: String,
    /// The members the linkage holds, each the parent's member of that name (`id`, `type`).
    pub members: Vec<String>,
}

/// Learns the to-many relationship writes among the drafts withheld for want of a target, as
/// [`super::relationship::learn`] does: before the replay the model alone, after it (`serve`)
/// the drafts with a model are served.
pub(super) fn learn(
    drafts: &mut [Draft],
    (calls, views): (&[Call], &Views),
    state: &StateView,
    timeline: &Timeline,
    serve: bool,
) {
    for draft in drafts.iter_mut() {
        if !super::relationship::withheld_untargeted(draft) || draft.plan.relationship.is_some() {
            continue;
        }
        if draft.plan.to_many.is_none() {
            let adds = match draft.plan.method.as_str() {
                "POST" => true,
                "DELETE" => false,
                _ => continue,
            };
            let successes: Vec<&Observation> = timeline
                .all(draft.tool)
                .filter(|call| call.is_success())
                .collect();
            let learning = (adds, (calls, views), state, timeline);
            draft.plan.to_many = model_of(&draft.plan.path_template, &successes, learning);
        }
        if serve && draft.plan.to_many.is_some() {
            draft.plan.effect = Effect::Update;
            super::batch::mark_served(&mut draft.plan);
        }
    }
}

/// What a model is learned with: whether the calls add, the observed calls and the views, the
/// seeded state and the timeline.
type Learning<'a> = (bool, (&'a [Call], &'a Views), &'a StateView, &'a Timeline);

/// The model every successful call agrees on (at least one); `None` when one shows no to-many
/// relationship write.
fn model_of(
    template: &str,
    successes: &[&Observation],
    (adds, (calls, views), state, timeline): Learning<'_>,
) -> Option<ToManyModel> {
    let (parent_type, parent_segment) = parent_of(template, views)?;
    let first = successes.first()?;
    let mut named: BTreeMap<String, ToManyLink> = BTreeMap::new();
    let mut identifiers: Option<String> = None;
    // What the first call held before it, kept for its answer's check below.
    let mut first_held: Option<HashMap<Key, Json>> = None;
    for call in successes {
        let held = held_before(state, calls, call.ordinal);
        let parent = (parent_type.as_str(), parent_segment);
        let (name, pointer, link) = shown_by(call, parent, adds, (&held, views), timeline)?;
        if identifiers.get_or_insert_with(|| pointer.clone()) != &pointer
            || named
                .insert(name, link.clone())
                .is_some_and(|known| known != link)
        {
            return None;
        }
        first_held.get_or_insert(held);
    }
    let first_held = first_held?;
    let fixed = fixed_segments(successes, parent_segment)?;
    let identifiers = identifiers?;
    let link = named.values().next()?;
    let parent = (parent_type.as_str(), parent_segment);
    let answer_route = answering_route(template, state).and_then(|route| {
        let call = (*first, parent);
        shows_linkage_after(call, (link, &identifiers), (adds, &first_held), route)
    });
    if answer_route.is_none() {
        answered_as_recorded(first, &identifiers)?;
    }
    Some(ToManyModel {
        parent_type,
        parent_segment,
        fixed,
        identifiers,
        adds,
        named,
        answer_ordinal: first.ordinal,
        answer_route,
    })
}

/// The read tool of the write's own path (`GET` of its template) with a linkage route, and
/// where its envelope holds the linkage.
fn answering_route<'s>(template: &str, state: &'s StateView) -> Option<&'s LinkageRoute> {
    let view =
        (state.views.iter()).find(|view| view.method == "GET" && view.path_template == template)?;
    (state.linkage_routes.iter()).find(|route| route.tool == view.tool)
}

/// The route's tool when the call's recorded answer holds, where the route's envelope holds the
/// linkage, every identifier the state before the call shows linking the parent after it (the
/// entities whose linkage named it, the sent ones added or removed) and otherwise only
/// identifiers of held entities of the linked type, none of them removed, in any order: the
/// route renders such answers. The state before the call may miss a linkage another relationship
/// write set (pyramid-jsonapi's task 12 given to Hal by a to-one write shown only through Hal's
/// tasks), so the answer may list more. `None` when the answer shows another linkage.
fn shows_linkage_after(
    (call, (parent_type, parent_segment)): (&Observation, (&str, usize)),
    (link, identifiers): (&ToManyLink, &str),
    (adds, held): (bool, &HashMap<Key, Json>),
    route: &LinkageRoute,
) -> Option<String> {
    let RequestBody::Json(body) = &call.request else {
        return None;
    };
    let sent = body.pointer(identifiers)?.as_array()?;
    let keys: Vec<&str> = sent.first()?.as_object()?.keys().collect();
    let parent_id = decoded(call.segments.get(parent_segment)?);
    let (_, parent) = held
        .iter()
        .find(|((entity_type, _, id), _)| entity_type == parent_type && *id == parent_id)?;
    let names_parent = |child: &Json| {
        child.pointer(&link.linkage).is_some_and(|linkage| {
            (link.members.iter()).all(|member| {
                member_at(linkage, member).and_then(scalar_text)
                    == member_at(parent, member).and_then(scalar_text)
            })
        })
    };
    let mut known = BTreeSet::new();
    let mut expected = BTreeSet::new();
    for ((entity_type, _, _), child) in held {
        if *entity_type != link.child_type {
            continue;
        }
        let text = identifier_text(&identifier_of(child, &keys));
        if names_parent(child) {
            expected.insert(text.clone());
        }
        known.insert(text);
    }
    let sent: BTreeSet<String> = sent.iter().map(identifier_text).collect();
    if adds {
        expected.extend(sent.iter().cloned());
    } else {
        expected.retain(|text| !sent.contains(text));
    }
    let shown = call.body.as_ref()?.pointer(&route.pointer)?.as_array()?;
    let shown: BTreeSet<String> = shown.iter().map(identifier_text).collect();
    let agrees =
        expected.is_subset(&shown) && shown.is_subset(&known) && (adds || shown.is_disjoint(&sent));
    agrees.then(|| route.tool.clone())
}

/// An entity's identifier: its members of the given names.
fn identifier_of(entity: &Json, keys: &[&str]) -> Json {
    let mut identifier = Object::new();
    for key in keys {
        if let Some(value) = member_at(entity, key) {
            identifier.insert(*key, value.clone());
        }
    }
    Json::Object(identifier)
}

/// An identifier's members as text, in key order (`id=11;type=tasks`), so two spellings of one
/// identifier compare equal.
fn identifier_text(identifier: &Json) -> String {
    let mut members: Vec<String> = (identifier.as_object().into_iter())
        .flat_map(Object::iter)
        .map(|(key, value)| format!("{key}={}", scalar_text(value).unwrap_or_default()))
        .collect();
    members.sort_unstable();
    members.join(";")
}

/// The type whose collection template the write's path starts with, and the parameter segment
/// after it naming the parent, at least one segment (the relationship's name) following: the
/// one such type.
pub(super) fn parent_of(template: &str, views: &Views) -> Option<(String, usize)> {
    let write = split_path(template);
    let write = write.as_slice();
    let mut fitting = (1..write.len().saturating_sub(1))
        .filter(|at| template_affixes(write[*at]).is_some())
        .flat_map(|at| {
            views
                .types
                .iter()
                .filter(move |(_, info)| {
                    let own = split_path(info.template.strip_suffix('/').unwrap_or(&info.template));
                    own.len() == at
                        && own.iter().zip(write).all(|(pattern, segment)| {
                            template_affixes(pattern).is_some() || pattern == segment
                        })
                })
                .map(move |(entity_type, _)| (entity_type.clone(), at))
        });
    let found = fitting.next()?;
    fitting.next().is_none().then_some(found)
}

/// The segments between the parent and the relationship's name, each with the one value every
/// call gave it; `None` when the calls gave one of them two values.
pub(super) fn fixed_segments(
    successes: &[&Observation],
    parent: usize,
) -> Option<Vec<(usize, String)>> {
    let first = successes.first()?;
    let between = parent + 1..first.segments.len().saturating_sub(1);
    between
        .map(|index| {
            let value = decoded(first.segments.get(index)?);
            successes
                .iter()
                .all(|call| call.segments.get(index).map(|s| decoded(s)).as_ref() == Some(&value))
                .then_some((index, value))
        })
        .collect()
}

/// Whether the recorded answer names none of the identifiers sent (a message only, or no body:
/// `204 No Content`), so it is answered as recorded.
fn answered_as_recorded(call: &Observation, identifiers: &str) -> Option<()> {
    let RequestBody::Json(body) = &call.request else {
        return None;
    };
    let Some(answer) = call.body.as_ref() else {
        return (call.body_bytes == 0).then_some(());
    };
    let items = body.pointer(identifiers)?.as_array()?;
    items
        .iter()
        .filter_map(Json::as_object)
        .all(|item| !names_anywhere(answer, item))
        .then_some(())
}

/// Whether an object of `answer`, inside objects or arrays at any depth, holds every member of
/// `sent` with equal values.
fn names_anywhere(answer: &Json, sent: &Object) -> bool {
    match answer {
        Json::Object(object) => {
            matches_members(sent, answer)
                || object
                    .iter()
                    .any(|(_, member)| names_anywhere(member, sent))
        }
        Json::Array(items) => items.iter().any(|item| names_anywhere(item, sent)),
        _ => false,
    }
}

/// What one call shows: the relationship's name, the pointer of the identifiers it sent, and
/// the linkage the read after each named entity shows set to the parent (or cleared).
fn shown_by(
    call: &Observation,
    (parent_type, at): (&str, usize),
    adds: bool,
    (held, views): (&HashMap<Key, Json>, &Views),
    timeline: &Timeline,
) -> Option<(String, String, ToManyLink)> {
    let parent_id = decoded(call.segments.get(at)?);
    let name = decoded(call.segments.last()?);
    let RequestBody::Json(body) = &call.request else {
        return None;
    };
    let (_, parent) = held
        .iter()
        .find(|((entity_type, _, id), _)| entity_type == parent_type && *id == parent_id)?;
    let (pointer, children) = identifier_array(body, held, views)?;
    let mut agreed: Option<ToManyLink> = None;
    for key in children {
        let before = held.get(key)?;
        let after = first_shown_after(timeline, views, call.ordinal, key)
            .or_else(|| linkage_shown_after(timeline, call.ordinal, (key, before), parent))?;
        let (linkage, members) = linkage_set((before, &after), parent, adds)?;
        let shown = ToManyLink {
            child_type: key.0.clone(),
            linkage,
            members,
        };
        if agreed.as_ref().is_some_and(|known| *known != shown) {
            return None;
        }
        agreed = Some(shown);
    }
    Some((name, pointer, agreed?))
}

/// The one array of a body (at any depth of objects) whose every entry is an object of scalars
/// naming one held entity, all of one type: its pointer and the entities' keys.
fn identifier_array<'h>(
    body: &Json,
    held: &'h HashMap<Key, Json>,
    views: &Views,
) -> Option<(String, Vec<&'h Key>)> {
    let mut found = Vec::new();
    arrays(body, String::new(), &mut found);
    let mut named = found.into_iter().filter_map(|(pointer, items)| {
        let keys: Vec<&Key> = items
            .iter()
            .map(|item| named_entity(item.as_object()?, held, views))
            .collect::<Option<_>>()?;
        let one_type = keys.windows(2).all(|pair| pair[0].0 == pair[1].0);
        (!keys.is_empty() && one_type).then_some((pointer, keys))
    });
    let first = named.next()?;
    named.next().is_none().then_some(first)
}

/// The arrays of a value's objects, by pointer.
fn arrays<'a>(value: &'a Json, at: String, found: &mut Vec<(String, &'a [Json])>) {
    match value {
        Json::Object(object) => {
            for (key, member) in object.iter() {
                let pointer = format!("{at}/{}", rea_plugin_api::json::escape_pointer_segment(key));
                arrays(member, pointer, found);
            }
        }
        Json::Array(items) if !at.is_empty() => found.push((at, items.as_slice())),
        _ => {}
    }
}

/// The one held entity an identifier names: its identity member among the identifier's, every
/// member equal to the entity's.
fn named_entity<'h>(
    identifier: &Object,
    held: &'h HashMap<Key, Json>,
    views: &Views,
) -> Option<&'h Key> {
    let mut named = held.iter().filter(|(key, fields)| {
        views.types.get(&key.0).is_some_and(|info| {
            let identity = info.identity.trim_start_matches('/');
            identifier.get(identity).and_then(scalar_text).as_deref() == Some(key.2.as_str())
        }) && matches_members(identifier, fields)
    });
    let (key, _) = named.next()?;
    named.next().is_none().then_some(key)
}

/// The linkage one entity's read after shows set (an add: the one changed member, or the object
/// holding it, an object naming the parent) or cleared (a removal: the one changed member now
/// null, an object naming the parent before): its pointer and members.
fn linkage_set(
    (before, after): (&Json, &Json),
    parent: &Json,
    adds: bool,
) -> Option<(String, Vec<String>)> {
    let changes = changed(before, after, "");
    let [(pointer, value)] = changes.as_slice() else {
        return None;
    };
    let naming = |shown: &Json, at: &str| {
        let object = shown.pointer(at)?.as_object()?;
        matches_members(object, parent)
            .then(|| (at.to_owned(), object.keys().map(str::to_owned).collect()))
    };
    if !adds {
        return (*value == Json::Null).then(|| naming(before, pointer))?;
    }
    let holder = pointer.rsplit_once('/').map(|(holder, _)| holder);
    naming(after, pointer).or_else(|| {
        holder
            .filter(|at| !at.is_empty())
            .and_then(|at| naming(after, at))
    })
}

/// The entities a call links or unlinks, each before and after; or why it is refused.
fn linked(
    live: &LiveState,
    (model, link): (&ToManyModel, &ToManyLink),
    parent_id: &str,
    items: &[Json],
) -> Result<Vec<(Entity, Entity)>, String> {
    let parent = live
        .entities()
        .find(|entity| entity.entity_type == model.parent_type && entity.id == parent_id)
        .ok_or_else(|| format!("no {} {parent_id} is held", model.parent_type))?;
    let mut linkage = Object::new();
    for member in &link.members {
        let value = member_at(&parent.fields, member)
            .ok_or_else(|| format!("{} {parent_id} holds no {member:?}", model.parent_type))?;
        linkage.insert(member, value.clone());
    }
    let mut written: Vec<(Entity, Entity)> = Vec::new();
    for item in items {
        let child = item
            .as_object()
            .and_then(|identifier| {
                live.entities().find(|entity| {
                    entity.entity_type == link.child_type
                        && matches_members(identifier, &entity.fields)
                })
            })
            .ok_or_else(|| {
                format!(
                    "no held {} is named by {}",
                    link.child_type,
                    item.to_canonical_string()
                )
            })?;
        if written.iter().any(|(before, _)| before.id == child.id) {
            continue;
        }
        let mut after = child.clone();
        let names_parent = member_at(&child.fields, &link.linkage)
            .and_then(Json::as_object)
            .is_some_and(|shown| matches_members(shown, &parent.fields));
        match model.adds {
            true => set_pointer(
                &mut after.fields,
                &link.linkage,
                Json::Object(linkage.clone()),
            ),
            false if names_parent => set_pointer(&mut after.fields, &link.linkage, Json::Null),
            false => continue,
        }
        written.push((child.clone(), after));
    }
    Ok(written)
}

/// The parent id, the relationship's name and the identifiers of a call's path and body, as the
/// model reads them; or why it is refused.
fn read_call<'b>(
    model: &ToManyModel,
    segments: &[CompactString],
    body: Option<&'b Json>,
) -> Result<(String, String, &'b [Json]), String> {
    let (Some(parent_id), Some(name)) = (
        segments.get(model.parent_segment).map(|s| decoded(s)),
        segments
            .last()
            .filter(|_| segments.len() > model.parent_segment + 1)
            .map(|s| decoded(s)),
    ) else {
        return Err("the path names no parent and relationship".to_owned());
    };
    if let Some((index, value)) = model.fixed.iter().find(|(index, value)| {
        segments.get(*index).map(|s| decoded(s)).as_deref() != Some(value.as_str())
    }) {
        return Err(format!(
            "path segment {index} must be {value:?}, as every recorded call sent it"
        ));
    }
    let items = body
        .filter(|body| wrapped_only(body, &model.identifiers))
        .and_then(|body| body.pointer(&model.identifiers))
        .and_then(Json::as_array)
        .ok_or_else(|| {
            format!(
                "the body must hold the identifiers' array at {}, and nothing beside it",
                model.identifiers
            )
        })?;
    Ok((parent_id, name, items.as_slice()))
}

/// Replays a recorded call on the simulated state (pass 4): each named entity as the model sets
/// it; their keys, or `None` when the model does not apply (then adopted).
pub(super) fn replay(
    live: &mut LiveState,
    model: &ToManyModel,
    (segments, request): (&[CompactString], &RequestBody),
) -> Option<Vec<(String, String, String)>> {
    let RequestBody::Json(body) = request else {
        return None;
    };
    let (parent_id, name, items) = read_call(model, segments, Some(body)).ok()?;
    let link = model.named.get(&name)?;
    let written = linked(live, (model, link), &parent_id, items).ok()?;
    let mut keys = Vec::new();
    for (_, after) in written {
        keys.push(crate::store::key_of(&after));
        live.update_entity(after, None);
    }
    Some(keys)
}

/// Serves one call of a to-many relationship write (see the module docs).
pub(super) fn serve(
    service: &StateService,
    plan: &super::model::WritePlan,
    model: &ToManyModel,
    call: &crate::call::Call,
) -> StateAnswer {
    let segments = call.segments(&plan.path_template);
    let body = call.body.as_ref().map(Json::from_serde_value);
    let (parent_id, name, items) = match read_call(model, &segments, body.as_ref()) {
        Ok(read) => read,
        Err(problem) => return tool_error("invalid_arguments", problem),
    };
    let Some(link) = model.named.get(&name) else {
        return tool_error(
            "invalid_arguments",
            format!("no recorded call wrote the relationship {name:?}"),
        );
    };
    let mut live = service.write();
    let written = match linked(&live, (model, link), &parent_id, items) {
        Ok(written) => written,
        Err(problem) => return tool_error("not_found", format!("{problem}; nothing was changed")),
    };
    let source = StateSource::Write {
        source: "state",
        view: "update",
        collection: Some(link.child_type.clone()),
        id: written.first().map(|(_, after)| after.id.clone()),
        ids: Some(written.iter().map(|(_, after)| after.id.clone()).collect()),
    };
    if model.answer_route.is_none() {
        let answer = super::relationship::as_recorded(service, model.answer_ordinal, source);
        if answer.is_error() {
            return answer;
        }
        commit_linked(&mut live, written);
        return answer;
    }
    // The answer shows the linkage after the change: committed first, rendered after.
    commit_linked(&mut live, written);
    drop(live);
    let path = format!("/{}", segments.join("/"));
    answer_from_route(service, model, &path, source).unwrap_or_else(|| {
        tool_error(
            "internal_error",
            "the relationship's linkage could not be rendered after the change",
        )
    })
}

/// Commits each named entity's new linkage.
fn commit_linked(live: &mut LiveState, written: Vec<(Entity, Entity)>) {
    let mut change = Change::of(Effect::Update);
    for (before, after) in written {
        change.entities.push((Some(before), Some(after)));
        change.positions.push(None);
        change.generated.push(Default::default());
    }
    commit(live, &change);
}

/// The answer the model's answering route renders for `path` in the recorded answer's envelope
/// ([`crate::linkage_routes::LinkageRoute::within`]), from the live entities.
fn answer_from_route(
    service: &StateService,
    model: &ToManyModel,
    path: &str,
    source: StateSource,
) -> Option<StateAnswer> {
    let derived = service.derived();
    let rule = derived.compound.as_ref()?;
    let tool = model.answer_route.as_deref()?;
    let route = (derived.linkage_routes.iter()).find(|route| route.tool == tool)?;
    let recorded = service.kept(model.answer_ordinal)?;
    let envelope = recorded.json()?;
    let live = service.read();
    let held: Vec<&Entity> = live.entities().collect();
    let body = route
        .within(envelope)
        .answer((rule, envelope), path, &held)?;
    Some(crate::answer::state_answer(
        recorded,
        body,
        service.replay_evidence_id(),
        false,
        source,
    ))
}

/// A named entity after an add, where no read of it by id shows it: the first read of one of
/// its relationships' linkage after the call (before any write), `…/{id}/relationships/project`,
/// whose body holds an identifier naming the parent (each of its members the parent's), or of
/// its related route, `…/{id}/assignee`, whose body holds the parent's resource (its scalar
/// members, `type` and `id`, the parent's: the identifier): the entity as held before, its member
/// holding that relationship's linkage (see [`super::relationship::linkage_pointer`]) set to that
/// identifier.
fn linkage_shown_after(
    timeline: &Timeline,
    at: u64,
    ((_, collection, id), before): (&Key, &Json),
    parent: &Json,
) -> Option<Json> {
    let mut own: Vec<String> = split_path(collection)
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    own.push(id.clone());
    let start = timeline.ordered.iter().position(|ordinal| *ordinal == at)?;
    for ordinal in &timeline.ordered[start + 1..] {
        let read = timeline.get(*ordinal)?;
        if !matches!(read.method.as_str(), "GET" | "HEAD") {
            return None;
        }
        let segments: Vec<String> = read.segments.iter().map(|s| decoded(s)).collect();
        let related = segments.len() == own.len() + 1;
        if !(related || segments.len() == own.len() + 2) || !segments.starts_with(&own) {
            continue;
        }
        let (Some(body), true) = (read.body.as_ref(), read.is_success()) else {
            continue;
        };
        let shown = super::relationship::objects(body, String::new())
            .into_iter()
            .filter(|(pointer, _)| !pointer.is_empty())
            .map(|(_, object)| {
                if related {
                    scalars_of(object)
                } else {
                    object.clone()
                }
            })
            .find(|object| matches_members(object, parent))?;
        let name = segments.last()?;
        let at = super::relationship::linkage_pointer(before, name, &shown)?;
        let mut after = before.clone();
        set_pointer(&mut after, &at, Json::Object(shown));
        return Some(after);
    }
    None
}

/// The scalar members of an object (a resource's `type` and `id`, its identifier).
fn scalars_of(object: &Object) -> Object {
    let mut scalars = Object::new();
    for (key, value) in object.iter() {
        if scalar_text(value).is_some() {
            scalars.insert(key, value.clone());
        }
    }
    scalars
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::parsed_json as json;

    #[test]
    fn an_add_sets_a_linkage_naming_the_parent_and_a_removal_clears_it() {
        let parent = json(r#"{"type": "project", "id": "4", "name": "x"}"#);
        let before = json(
            r#"{"id": "11", "relationships": {"project": {"data": {"type": "project", "id": "3"}, "links": {"self": "/t"}}}}"#,
        );
        let after = json(
            r#"{"id": "11", "relationships": {"project": {"data": {"type": "project", "id": "4"}, "links": {"self": "/t"}}}}"#,
        );
        let set = linkage_set((&before, &after), &parent, true);
        assert_eq!(
            set,
            Some((
                "/relationships/project/data".to_owned(),
                vec!["type".to_owned(), "id".to_owned()]
            ))
        );
        // From null, the whole linkage changed.
        let unset = json(r#"{"id": "11", "relationships": {"project": {"data": null}}}"#);
        let from_null = json(
            r#"{"id": "11", "relationships": {"project": {"data": {"type": "project", "id": "4"}}}}"#,
        );
        assert_eq!(
            linkage_set((&unset, &from_null), &parent, true).map(|(at, _)| at),
            Some("/relationships/project/data".to_owned())
        );
        // A removal: the linkage that named the parent is null after; one naming another parent
        // is no removal, nor an add naming another parent.
        assert_eq!(
            linkage_set((&from_null, &unset), &parent, false).map(|(at, _)| at),
            Some("/relationships/project/data".to_owned())
        );
        assert_eq!(linkage_set((&after, &before), &parent, true), None);
        assert_eq!(linkage_set((&before, &unset), &parent, false), None);
    }

    #[test]
    fn an_answer_naming_no_sent_identifier_or_no_content_is_answered_as_recorded() {
        let sent = r#"{"data": [{"type": "task", "id": "11"}]}"#;
        let call = |answer: Option<&str>| {
            let mut call = crate::test_support::read_observation(0, "/projects/4", &[], "{}");
            call.method = "POST".into();
            call.request = RequestBody::Json(json(sent));
            call.body = answer.map(json);
            call.body_bytes = answer.map_or(0, str::len);
            call
        };
        let message = r#"{"meta": {"message": "Relationship successfully created"}}"#;
        assert_eq!(
            answered_as_recorded(&call(Some(message)), "/data"),
            Some(())
        );
        assert_eq!(answered_as_recorded(&call(None), "/data"), Some(()));
        // An answer naming a sent identifier, or a body that is not JSON, is not learned.
        let naming = r#"{"data": {"type": "task", "id": "11"}}"#;
        assert_eq!(answered_as_recorded(&call(Some(naming)), "/data"), None);
        // Nor one listing it in an array (pyramid-jsonapi's whole linkage after the add).
        let listing = r#"{"data": [{"type": "task", "id": "3"}, {"type": "task", "id": "11"}]}"#;
        assert_eq!(answered_as_recorded(&call(Some(listing)), "/data"), None);
        let mut unreadable = call(None);
        unreadable.body_bytes = 12;
        assert_eq!(answered_as_recorded(&unreadable, "/data"), None);
    }

    #[test]
    fn a_related_resource_names_its_parent_by_its_scalar_members() {
        // A related route's body holds the parent's resource: its identifier is the resource's
        // scalar members, which name the parent; its attributes are not the identifier's.
        let parent = json(r#"{"type": "people", "id": "8", "attributes": {"name": "Hal"}}"#);
        let resource = json(
            r#"{"type": "people", "id": "8", "attributes": {"name": "Hal"}, "links": {"self": "/p/8"}}"#,
        );
        let identifier = scalars_of(resource.as_object().expect("an object"));
        assert_eq!(
            Json::Object(identifier.clone()),
            json(r#"{"type": "people", "id": "8"}"#)
        );
        assert!(matches_members(&identifier, &parent));
        assert!(!matches_members(
            resource.as_object().expect("an object"),
            &parent
        ));
        let other = json(r#"{"type": "people", "id": "9"}"#);
        assert!(!matches_members(
            &scalars_of(other.as_object().expect("an object")),
            &parent
        ));
    }

    #[test]
    fn identifiers_compare_by_their_members_in_any_order() {
        let one = json(r#"{"type": "tasks", "id": "11"}"#);
        let same = json(r#"{"id": 11, "type": "tasks"}"#);
        assert_eq!(identifier_text(&one), identifier_text(&same));
        assert_ne!(
            identifier_text(&one),
            identifier_text(&json(r#"{"type": "tasks", "id": "1"}"#))
        );
        let entity = json(r#"{"type": "tasks", "id": "11", "attributes": {"title": "x"}}"#);
        assert_eq!(identifier_of(&entity, &["type", "id"]), one);
    }

    #[test]
    fn the_identifiers_array_is_found_in_the_body_by_what_it_names() {
        let held: HashMap<Key, Json> = [
            (("/tasks", "11"), r#"{"type": "task", "id": "11"}"#),
            (("/tasks", "12"), r#"{"type": "task", "id": "12"}"#),
            (("/projects", "4"), r#"{"type": "project", "id": "4"}"#),
        ]
        .into_iter()
        .map(|((entity_type, id), fields)| {
            let key = (
                entity_type.to_owned(),
                entity_type.to_owned(),
                id.to_owned(),
            );
            (key, json(fields))
        })
        .collect();
        let views = crate::test_support::views_of_types(&["/tasks", "/projects"]);
        let body =
            json(r#"{"data": [{"type": "task", "id": "11"}, {"type": "task", "id": "12"}]}"#);
        let (pointer, keys) = identifier_array(&body, &held, &views).expect("an array");
        assert_eq!(pointer, "/data");
        let mut ids: Vec<&str> = keys.iter().map(|key| key.2.as_str()).collect();
        ids.sort_unstable();
        assert_eq!(ids, ["11", "12"]);
        // An entry naming nothing held, or two types in one array: no identifiers.
        for body in [
            r#"{"data": [{"type": "task", "id": "99"}]}"#,
            r#"{"data": [{"type": "task", "id": "11"}, {"type": "project", "id": "4"}]}"#,
        ] {
            assert!(
                identifier_array(&json(body), &held, &views).is_none(),
                "{body}"
            );
        }
    }
}

//! Relationship writes (after the four passes, for a write withheld as `no-state-target`): a
//! `PUT`, `PATCH` or `POST` of a type's item path plus one parameter segment naming a
//! relationship (`/api/tasks/{id}/{relationship}`), whose every successful call sent a resource
//! identifier (a body object whose every member equals the same member of one held entity, the
//! entity's identity among them: `{"data": {"type": "User", "id": "1"}}`) and whose parent, read
//! back by id after the call, shows exactly one member changed, to the sent id
//! (`/attributes/assignee_id`). The pairing of the segment and the member is learned as the
//! member's pointer around the segment's value (`/attributes/` + `assignee` + `_id`), agreeing
//! across the calls, and applies to another segment value whose member the parent holds
//! (`project` → `/attributes/project_id`).
//!
//! The relationship may also be named by a literal after literal segments
//! (`/books/{id}/relationships/author`, one tool per relationship), or after parameter segments
//! every recorded call (two or more) gave one value (`/tasks/{id}/{a}/{b}` recorded as
//! `/tasks/13/relationships/project` and `/tasks/2/relationships/assignee`: the value is kept and
//! a served call must give it too; or, the parent segment following a type's collection
//! template, after parameter segments one recorded call gave their values:
//! `/tasks/{token}/{a}/{b}` recorded once as `/tasks/s2Uk…/relationships/project`), and the member
//! may be the
//! relationship's linkage: an object the read after shows holding exactly the sent identifier
//! (`/relationships/` + `author` + `/data`, set to `{"type": "Author", "id": "3"}`), set to the
//! identifier as sent; an answer that held the identifier as sent answers the served one
//! (JSON:API's relationship routes, drf-jsonapi). The model is learned before the replay (pass 4)
//! too, which applies the recorded calls with it ([`replay`]) rather than adopting them blind.
//!
//! Served as an update of that member of the parent (typed as the read after the calls showed
//! it), answered as the recorded call was: as recorded when it names no related entity
//! (flask-rest-jsonapi-next's `{"meta": {"message": …}}`, or a `204` without a body:
//! [`as_recorded`], which the to-many writes share); else its status, and its body with the named
//! entity where the recorded one stood, the strings repeating one of that entity's string members
//! re-spelled from the served entity, and a string ending in the recorded call's path ending in
//! the served call's. Refused, nothing changed: a body holding anything beside the identifier's
//! wrapping, a parent the state does not hold, a segment naming no member the parent holds, an
//! identifier no held entity matches (of the type the segment's recorded calls named; for another
//! segment, of a type holding an entity whose id is the member's current value or its current
//! linkage's id).

use rea_plugin_api::contracts::capture::CompactString;
use std::collections::{BTreeMap, HashMap};

use rea_manifest::segments::{split_path, template_affixes};
use rea_plugin_api::json::{Json, Object, escape_pointer_segment};
use serde::{Deserialize, Serialize};

use super::apply::{Change, commit, set_pointer};
use super::dependents::member_at;
use super::model::{Effect, WritePlan};
use super::observe::{Call, first_shown_until};
use super::referenced::{Key, held_before};
use super::{Draft, Views};
use crate::answer::{StateAnswer, StateSource, recording_answer, state_answer, tool_error};
use crate::model::{Entity, StateView};
use crate::observation::{Observation, RequestBody, Timeline, decoded};
use crate::render::scalar_text;
use crate::service::StateService;

/// How a relationship write names its parent and the entity it relates, and how it answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RelationshipModel {
    /// The parent's type (collection template).
    pub parent_type: String,
    /// The path segment naming the parent (the relationship's segment follows it).
    pub parent_segment: usize,
    /// The body pointer of the resource identifier.
    pub identifier: String,
    /// The identifier's member holding the related entity's id.
    pub id_member: String,
    /// The parent member's pointer before the relationship's name.
    pub prefix: String,
    /// The parent member's pointer after the relationship's name.
    pub suffix: String,
    /// The reads showed the member's value as a number.
    pub numeric: bool,
    /// Per relationship name the recorded calls sent, the related entity's type.
    pub named: BTreeMap<String, String>,
    /// The recorded call whose status and body the answer takes.
    pub answer_ordinal: u64,
    /// That call's path.
    pub answer_path: String,
    /// Where its answer holds the related entity.
    pub answer_pointer: String,
    /// The member is the relationship's linkage: the parent holds the sent identifier object
    /// there (`/relationships/author/data` holding `{"type": "Author", "id": "3"}`), not the id.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub linkage: bool,
    /// The recorded answer holds the identifier as sent, not the related entity.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub answers_identifier: bool,
    /// The recorded answer names no related entity (`{"meta": {"message": …}}`): it is answered
    /// as recorded.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub answers_as_recorded: bool,
    /// Parameter segments between the parent and the relationship's name that every recorded
    /// call gave one value (`relationships` of a route templated `/tasks/{id}/{a}/{b}`): by
    /// index, that value, which a served call must give too (a list of pairs: a state's JSON
    /// keys are text).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fixed: Vec<(usize, String)>,
}

/// What one recorded call shows.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Shown {
    identifier: String,
    id_member: String,
    prefix: String,
    suffix: String,
    numeric: bool,
    linkage: bool,
    name: String,
    related_type: String,
}

/// Learns the relationship writes among the drafts withheld for want of a target
/// (`no-state-target`, `no-observation`): before the replay (pass 4), which then applies their
/// recorded calls with the model rather than adopting them blind ([`replay`]), the model alone;
/// after it (`serve`), the drafts with a model (learned then or now) are served.
pub(super) fn learn(
    drafts: &mut [Draft],
    (calls, views): (&[Call], &Views),
    state: &StateView,
    timeline: &Timeline,
    serve: bool,
) {
    for draft in drafts.iter_mut() {
        if !withheld_untargeted(draft) {
            continue;
        }
        if draft.plan.relationship.is_some() {
            if serve {
                draft.plan.effect = super::model::Effect::Update;
                super::batch::mark_served(&mut draft.plan);
            }
            continue;
        }
        if !matches!(draft.plan.method.as_str(), "PUT" | "PATCH" | "POST") {
            continue;
        }
        let successes: Vec<&Observation> = timeline
            .all(draft.tool)
            .filter(|call| call.is_success())
            .collect();
        let Some((parent_type, parent_segment, fixed)) =
            parent_and_fixed(&draft.plan.path_template, views, &successes)
        else {
            continue;
        };
        let learned = (parent_type.as_str(), parent_segment);
        if let Some(mut model) = model_of(&successes, learned, (calls, views), state, timeline) {
            model.fixed = fixed;
            draft.plan.relationship = Some(model);
            if serve {
                draft.plan.effect = super::model::Effect::Update;
                super::batch::mark_served(&mut draft.plan);
            }
        }
    }
}

/// Parameter segments every recorded call gave one value, by index, with that value.
type Fixed = Vec<(usize, String)>;

/// The parent's type and segment of a write's template, and the segments after the parent
/// that every call gave one value: the template's own item path plus a named relationship
/// ([`parent_of`]); else, the parent segment following a type's collection template and parameter
/// segments only after it ([`super::to_many::parent_of`]: `/tasks/{opaque-token}/{a}/{b}`, the
/// one recorded call `/tasks/s2Uk…/relationships/project`), the segments between it and the
/// name keeping the values the calls gave them (one call is enough: the parent is placed by the
/// collection, so no segment between can be its id).
fn parent_and_fixed(
    template: &str,
    views: &Views,
    successes: &[&Observation],
) -> Option<(String, usize, Fixed)> {
    let fixed = fixed_segments(successes);
    let found =
        parent_of(template, views, &BTreeMap::new()).or_else(|| parent_of(template, views, &fixed));
    if let Some((parent_type, parent_segment)) = found {
        let after = fixed
            .into_iter()
            .filter(|(index, _)| *index > parent_segment)
            .collect();
        return Some((parent_type, parent_segment, after));
    }
    let (parent_type, parent_segment) = super::to_many::parent_of(template, views)?;
    let between = super::to_many::fixed_segments(successes, parent_segment)?;
    Some((parent_type, parent_segment, between))
}

/// The segments but the last that every call gave one value, by index: none unless two calls
/// show it (one call cannot tell a constant from the parent's id).
fn fixed_segments(successes: &[&Observation]) -> BTreeMap<usize, String> {
    let Some((first, rest)) = successes.split_first().filter(|(_, rest)| !rest.is_empty()) else {
        return BTreeMap::new();
    };
    let count = first.segments.len().saturating_sub(1);
    (0..count)
        .filter(|index| {
            rest.iter()
                .all(|call| call.segments.get(*index) == first.segments.get(*index))
        })
        .map(|index| (index, first.segments[index].to_string()))
        .collect()
}

/// The type whose item path the write's template extends by the relationship's segment (a
/// parameter, or a literal name after literal segments: `/books/{id}/relationships/author`; a
/// parameter every call gave one value, `fixed`, counting as that literal between the parent
/// and the name), and the segment naming the parent: the one type whose collection template
/// the path starts with, a parameter segment after it.
pub(super) fn parent_of(
    template: &str,
    views: &Views,
    fixed: &BTreeMap<usize, String>,
) -> Option<(String, usize)> {
    let write = split_path(template);
    let (last, before_last) = write.split_last()?;
    let literal = |segment: &&str| template_affixes(segment).is_none();
    let between = before_last
        .iter()
        .enumerate()
        .rev()
        .take_while(|(index, segment)| literal(segment) || fixed.contains_key(index))
        .count();
    let item = &before_last[..before_last.len() - between];
    let (id, collection) = item.split_last()?;
    let named = if between == 0 { !literal(last) } else { true };
    if !named || literal(id) {
        return None;
    }
    let mut fitting = views.types.iter().filter(|(_, info)| {
        // A collection template ending in a slash (`/books/`) names its items below it.
        let own = split_path(info.template.strip_suffix('/').unwrap_or(&info.template));
        own.len() == collection.len()
            && own
                .iter()
                .zip(collection)
                .all(|(pattern, segment)| template_affixes(pattern).is_some() || pattern == segment)
    });
    let (entity_type, _) = fitting.next()?;
    fitting
        .next()
        .is_none()
        .then(|| (entity_type.clone(), collection.len()))
}

/// The model every successful call agrees on; `None` when one shows no relationship write.
fn model_of(
    successes: &[&Observation],
    (parent_type, parent_segment): (&str, usize),
    (calls, views): (&[Call], &Views),
    state: &StateView,
    timeline: &Timeline,
) -> Option<RelationshipModel> {
    let first = successes.first()?;
    let mut named = BTreeMap::new();
    let mut agreed: Option<Shown> = None;
    for call in successes {
        let held = held_before(state, calls, call.ordinal);
        let shown = shown_by(call, (parent_type, parent_segment), &held, views, timeline)?;
        if let Some(known) = &agreed {
            let same = (
                &known.identifier,
                &known.id_member,
                &known.prefix,
                &known.suffix,
            ) == (
                &shown.identifier,
                &shown.id_member,
                &shown.prefix,
                &shown.suffix,
            );
            if !same || (known.numeric, known.linkage) != (shown.numeric, shown.linkage) {
                return None;
            }
        }
        if named
            .insert(shown.name.clone(), shown.related_type.clone())
            .is_some_and(|known| known != shown.related_type)
        {
            return None;
        }
        agreed = Some(shown);
    }
    let shown = agreed?;
    // A call answered without a body (`204 No Content`) is answered as recorded too.
    let answer = match first.body.as_ref() {
        Some(answer) => answer,
        None if first.body_bytes == 0 => &Json::Null,
        None => return None,
    };
    let sent = identifier_in(&first.request, &shown.identifier)?;
    let found = holding(answer, sent, "");
    let answers_as_recorded = found.is_none();
    let answer_pointer = found.unwrap_or_default();
    let answers_identifier = answer
        .pointer(&answer_pointer)
        .and_then(Json::as_object)
        .is_some_and(|shown| shown.len() == sent.len());
    Some(RelationshipModel {
        parent_type: parent_type.to_owned(),
        parent_segment,
        identifier: shown.identifier,
        id_member: shown.id_member,
        prefix: shown.prefix,
        suffix: shown.suffix,
        numeric: shown.numeric,
        named,
        answer_ordinal: first.ordinal,
        answer_path: first.path.to_string(),
        answer_pointer,
        linkage: shown.linkage,
        answers_identifier: answers_identifier && !answers_as_recorded,
        answers_as_recorded,
        fixed: Vec::new(),
    })
}

/// What one call shows: the identifier it sent naming one held entity, and the one member of
/// its parent the read after it shows changed to that entity's id.
fn shown_by(
    call: &Observation,
    (parent_type, at): (&str, usize),
    held: &HashMap<Key, Json>,
    views: &Views,
    timeline: &Timeline,
) -> Option<Shown> {
    let parent_id = decoded(call.segments.get(at)?);
    let name = decoded(call.segments.last()?);
    let RequestBody::Json(body) = &call.request else {
        return None;
    };
    let (identifier, id_member, related) = sent_identifier(body, held, views)?;
    let sent = body.pointer(&identifier)?.as_object()?;
    let (key, before) = held
        .iter()
        .find(|((entity_type, _, id), _)| entity_type == parent_type && *id == parent_id)?;
    let after = parent_after(
        (timeline, views),
        (call, at),
        (key, before),
        (&identifier, sent),
    )?;
    let changes = changed(before, &after, "");
    let [(pointer, value)] = changes.as_slice() else {
        return None;
    };
    let (member, linkage) = set_member(&after, (pointer, value), sent, &related.2)?;
    let (prefix, suffix) = around(&member, &name)?;
    if !linkage && suffix.contains('/') {
        return None;
    }
    Some(Shown {
        identifier,
        id_member,
        prefix,
        suffix,
        numeric: !linkage && matches!(value, Json::Number(_)),
        linkage,
        name,
        related_type: related.0.clone(),
    })
}

/// The member one changed leaf shows the call set, and whether it is a linkage: the leaf's
/// object (or the leaf itself) holding exactly the sent identifier's members, as sent; else the
/// leaf holding the related entity's id.
fn set_member(
    after: &Json,
    (pointer, value): (&str, &Json),
    sent: &Object,
    related_id: &str,
) -> Option<(String, bool)> {
    let is_sent = |shown: &Json| {
        shown.as_object().is_some_and(|shown| {
            shown.len() == sent.len() && matches_members(sent, &Json::Object(shown.clone()))
        })
    };
    if is_sent(value) {
        return Some((pointer.to_owned(), true));
    }
    if scalar_text(value).as_deref() != Some(related_id) {
        return None;
    }
    match pointer.rsplit_once('/') {
        Some((holder, _)) if !holder.is_empty() && after.pointer(holder).is_some_and(is_sent) => {
            Some((holder.to_owned(), true))
        }
        _ => Some((pointer.to_owned(), false)),
    }
}

/// What the first list read after the call (before a later write naming the entity) shows of
/// the entity, listed by its identity among a list view's members of its type.
fn first_listed_after(
    timeline: &Timeline,
    views: &Views,
    at: u64,
    (entity_type, _, id): &Key,
) -> Option<Json> {
    let info = views.types.get(entity_type)?;
    let identity = info.identity.trim_start_matches('/');
    let start = timeline.ordered.iter().position(|ordinal| *ordinal == at)?;
    for ordinal in &timeline.ordered[start + 1..] {
        let read = timeline.get(*ordinal)?;
        if !matches!(read.method.as_str(), "GET" | "HEAD") {
            return None;
        }
        let Some(super::Scope::List(list_type, list)) = views.scopes.get(&read.tool) else {
            continue;
        };
        if list_type != entity_type || !read.is_success() {
            continue;
        }
        let listed = super::observe::members(read, &list.list_pointer)
            .iter()
            .find(|object| object.get(identity).and_then(scalar_text).as_deref() == Some(id));
        if let Some(object) = listed {
            return Some(object.clone());
        }
    }
    None
}

/// The parent `key` (held as `before`) after a relationship write `call` naming it at segment
/// `at`: as the first read of the parent by id, or of a list listing it, after the call and
/// before the next write shows it (any write closes that window: a write of the related entity
/// may change the linkage too), else as the first read of the relationship does
/// ([`related_shown_after`], whose window a later write naming the parent closes).
pub(super) fn parent_after(
    (timeline, views): (&Timeline, &Views),
    (call, at): (&Observation, usize),
    (key, before): (&Key, &Json),
    (place, sent): (&str, &Object),
) -> Option<Json> {
    first_shown_until(timeline, views, (call.ordinal, key), &|_| true)
        .or_else(|| first_listed_after(timeline, views, call.ordinal, key))
        .or_else(|| related_shown_after(timeline, (call, at), before, (place, sent)))
}

/// The parent as the first read of its relationship after the call shows it (before a later
/// write naming the parent), where no read of the parent itself does: a read of the related
/// resource (the parent's path and the relationship's name, `/api/task/13/project`, showing the
/// resource at the sent identifier's place) or of the linkage (the call's own path, showing the
/// identifier there), named by the sent identifier's members. The parent as held before, its
/// one member holding the relationship's linkage ([`linkage_pointer`]) set to that identifier.
fn related_shown_after(
    timeline: &Timeline,
    (call, at): (&Observation, usize),
    before: &Json,
    (place, sent): (&str, &Object),
) -> Option<Json> {
    let name = decoded(call.segments.last()?);
    let parent_id = decoded(call.segments.get(at)?);
    let parent = call.segments.get(..=at)?;
    let start = timeline.ordered.iter().position(|o| *o == call.ordinal)?;
    for ordinal in &timeline.ordered[start + 1..] {
        let read = timeline.get(*ordinal)?;
        if !matches!(read.method.as_str(), "GET" | "HEAD") {
            if super::observe::names_entity((&read.segments, &read.request), &parent_id) {
                return None;
            }
            continue;
        }
        let related = read.segments.len() == parent.len() + 1
            && read.segments.starts_with(parent)
            && decoded(&read.segments[parent.len()]) == name;
        let linkage = read.segments == call.segments;
        if !(related || linkage) || !read.is_success() || !read.pairs().is_empty() {
            continue;
        }
        let shown = read.body.as_ref()?.pointer(place)?.as_object()?;
        let mut identifier = Object::new();
        for (key, _) in sent.iter() {
            identifier.insert(
                key,
                shown
                    .get(key)
                    .filter(|value| value.as_str().is_some())?
                    .clone(),
            );
        }
        let mut after = before.clone();
        set_pointer(
            &mut after,
            &linkage_pointer(before, &name, sent)?,
            Json::Object(identifier),
        );
        return Some(after);
    }
    None
}

/// The resource identifier a relationship write's body sends, with its pointer: the one object
/// of the body (the body or an object member of it, at any depth) holding only text members.
pub(super) fn identifier_place(body: &Json) -> Option<(String, &Object)> {
    let mut found = objects(body, String::new())
        .into_iter()
        .filter(|(_, object)| {
            !object.is_empty() && object.iter().all(|(_, v)| v.as_str().is_some())
        });
    let one = found.next()?;
    found.next().is_none().then_some(one)
}

/// The one member of a held entity holding a relationship's linkage: a pointer with a segment
/// naming the relationship, holding `null` or an identifier with the sent identifier's members.
pub(super) fn linkage_pointer(held: &Json, name: &str, sent: &Object) -> Option<String> {
    fn walk(value: &Json, at: String, found: &mut Vec<String>, test: &dyn Fn(&str, &Json) -> bool) {
        if test(&at, value) {
            found.push(at);
            return;
        }
        if let Json::Object(object) = value {
            for (key, member) in object.iter() {
                let pointer = format!("{at}/{}", escape_pointer_segment(key));
                walk(member, pointer, found, test);
            }
        }
    }
    let named = format!("/{}", escape_pointer_segment(name));
    let holds_linkage = |at: &str, value: &Json| {
        let names = at.contains(&format!("{named}/")) || at.ends_with(&named);
        let shaped = match value {
            Json::Null => true,
            Json::Object(object) => {
                object.len() == sent.len() && sent.iter().all(|(key, _)| object.contains_key(key))
            }
            _ => false,
        };
        names && shaped && !at.is_empty()
    };
    let mut found = Vec::new();
    walk(held, String::new(), &mut found, &holds_linkage);
    match found.as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    }
}

/// The pointer split around the relationship's name, which its last segment holding the name
/// holds (`/attributes/assignee_id`, `/relationships/author/data`).
fn around(pointer: &str, name: &str) -> Option<(String, String)> {
    let mut end = pointer.len();
    loop {
        let start = pointer[..end].rfind('/')? + 1;
        if let Some(at) = pointer[start..end].find(name) {
            let at = at + start;
            return Some((
                pointer[..at].to_owned(),
                pointer[at + name.len()..].to_owned(),
            ));
        }
        end = start.checked_sub(1).filter(|end| *end > 0)?;
    }
}

/// The leaves (pointer, value after) whose values differ between two objects.
pub(super) fn changed(before: &Json, after: &Json, at: &str) -> Vec<(String, Json)> {
    match (before, after) {
        (Json::Object(was), Json::Object(now)) => {
            let mut keys: Vec<&str> = was.keys().chain(now.keys()).collect();
            keys.sort_unstable();
            keys.dedup();
            keys.into_iter()
                .flat_map(|key| {
                    let pointer = format!("{at}/{}", escape_pointer_segment(key));
                    match (was.get(key), now.get(key)) {
                        (Some(was), Some(now)) => changed(was, now, &pointer),
                        (_, now) => vec![(pointer, now.cloned().unwrap_or(Json::Null))],
                    }
                })
                .collect()
        }
        _ if before == after => Vec::new(),
        _ => vec![(at.to_owned(), after.clone())],
    }
}

/// The body object at `pointer` as sent.
fn identifier_in<'a>(request: &'a RequestBody, pointer: &str) -> Option<&'a Object> {
    match request {
        RequestBody::Json(body) => body.pointer(pointer)?.as_object(),
        _ => None,
    }
}

/// The resource identifier a body sends: the one object (the body or an object member of it)
/// whose members are all scalars equal to the same members of exactly one held entity's type,
/// that entity's identity among them; its pointer, the identity member and the entity's key.
fn sent_identifier<'h>(
    body: &Json,
    held: &'h HashMap<Key, Json>,
    views: &Views,
) -> Option<(String, String, &'h Key)> {
    let mut found = Vec::new();
    for (pointer, object) in objects(body, String::new()) {
        for (key, fields) in held {
            let Some(info) = views.types.get(&key.0) else {
                continue;
            };
            let identity = info.identity.trim_start_matches('/');
            if object.get(identity).and_then(scalar_text).as_deref() != Some(key.2.as_str()) {
                continue;
            }
            if matches_members(object, fields) {
                found.push((pointer.clone(), identity.to_owned(), key));
            }
        }
    }
    found.sort_by(|a, b| (&a.0, &a.2).cmp(&(&b.0, &b.2)));
    match found.as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    }
}

/// The objects of a body with their pointers: the body and its object members, recursively.
pub(super) fn objects(value: &Json, at: String) -> Vec<(String, &Object)> {
    let Json::Object(object) = value else {
        return Vec::new();
    };
    let mut found = vec![(at.clone(), object)];
    for (key, member) in object.iter() {
        found.extend(objects(
            member,
            format!("{at}/{}", escape_pointer_segment(key)),
        ));
    }
    found
}

/// Whether every member of `object` is a scalar equal (as text) to the same member of `fields`.
pub(super) fn matches_members(object: &Object, fields: &Json) -> bool {
    !object.is_empty()
        && object.iter().all(|(key, value)| {
            let Some(sent) = scalar_text(value) else {
                return false;
            };
            member_at(fields, key).and_then(scalar_text).as_deref() == Some(sent.as_str())
        })
}

/// The pointer of the object in `answer` holding every member of `sent` with equal values.
pub(super) fn holding(answer: &Json, sent: &Object, at: &str) -> Option<String> {
    let Json::Object(object) = answer else {
        return None;
    };
    let all = sent
        .iter()
        .all(|(key, value)| object.get(key).and_then(scalar_text) == scalar_text(value));
    if all {
        return Some(at.to_owned());
    }
    let mut keys: Vec<&str> = object.keys().collect();
    keys.sort_unstable();
    keys.into_iter().find_map(|key| {
        holding(
            object.get(key)?,
            sent,
            &format!("{at}/{}", escape_pointer_segment(key)),
        )
    })
}

/// Whether a draft is withheld because no target or observation explained it, the writes the
/// relationship learners ([`learn`], [`super::to_many::learn`]) may model.
pub(super) fn withheld_untargeted(draft: &Draft) -> bool {
    !draft.plan.served
        && matches!(
            draft.plan.reason.as_deref(),
            Some("no-state-target" | "no-observation")
        )
}

/// Replays a recorded call of a relationship write on the simulated state (pass 4): the parent
/// as the model sets it; its key, or `None` when the model does not apply (then adopted).
pub(super) fn replay(
    live: &mut crate::store::LiveState,
    model: &RelationshipModel,
    (segments, request): (&[CompactString], &RequestBody),
) -> Option<(String, String, String)> {
    let parent_id = decoded(segments.get(model.parent_segment)?);
    let name = decoded(segments.last()?);
    let RequestBody::Json(body) = request else {
        return None;
    };
    let sent = body.pointer(&model.identifier)?.as_object()?;
    let (_, after, _) = updated(live, model, (&parent_id, &name), sent).ok()?;
    let key = crate::store::key_of(&after);
    live.update_entity(after, None);
    Some(key)
}

/// Serves one call of a relationship write (see the module docs).
pub(super) fn serve(
    service: &StateService,
    plan: &WritePlan,
    model: &RelationshipModel,
    call: &crate::call::Call,
) -> StateAnswer {
    let segments = call.segments(&plan.path_template);
    let (Some(parent_id), Some(name)) = (
        segments.get(model.parent_segment).map(|s| decoded(s)),
        segments
            .last()
            .filter(|_| segments.len() > model.parent_segment + 1)
            .map(|s| decoded(s)),
    ) else {
        return tool_error(
            "invalid_arguments",
            "the path names no parent and relationship",
        );
    };
    if let Some((index, value)) = model.fixed.iter().find(|(index, value)| {
        segments.get(*index).map(|s| decoded(s)).as_deref() != Some(value.as_str())
    }) {
        return tool_error(
            "invalid_arguments",
            format!("path segment {index} must be {value:?}, as every recorded call sent it"),
        );
    }
    let body = call.body.as_ref().map(Json::from_serde_value);
    let Some(sent) = body
        .as_ref()
        .filter(|body| wrapped_only(body, &model.identifier))
        .and_then(|body| body.pointer(&model.identifier))
        .and_then(Json::as_object)
    else {
        return tool_error(
            "invalid_arguments",
            format!(
                "the body must hold the related entity's identifier at {} (its {:?} naming the id)",
                model.identifier, model.id_member
            ),
        );
    };
    let mut live = service.write();
    let written = match updated(&live, model, (&parent_id, &name), sent) {
        Ok(written) => written,
        Err(problem) => return tool_error("not_found", format!("{problem}; nothing was changed")),
    };
    let answer = answer(service, model, &written, &segments);
    if answer.is_error() {
        return answer;
    }
    let mut change = Change::of(Effect::Update);
    change.entities.push((Some(written.0), Some(written.1)));
    change.positions.push(None);
    change.generated.push(Default::default());
    commit(&mut live, &change);
    answer
}

/// Whether every object around the identifier at `pointer` holds only the member leading to it,
/// as the recorded calls sent it (`{"data": {…}}`).
pub(super) fn wrapped_only(body: &Json, pointer: &str) -> bool {
    let mut value = body;
    for part in pointer.split('/').skip(1) {
        let key = rea_plugin_api::json::unescape_pointer_segment(part);
        match value {
            Json::Object(object) if object.len() == 1 => match object.get(&key) {
                Some(inner) => value = inner,
                None => return false,
            },
            _ => return false,
        }
    }
    true
}

/// The parent before and after, and the related entity, for a call; or why it is refused.
fn updated(
    live: &crate::store::LiveState,
    model: &RelationshipModel,
    (parent_id, name): (&str, &str),
    sent: &Object,
) -> Result<(Entity, Entity, Entity), String> {
    let parent = live
        .entities()
        .find(|entity| entity.entity_type == model.parent_type && entity.id == parent_id)
        .ok_or_else(|| format!("no {} {parent_id} is held", model.parent_type))?;
    let member = format!("{}{name}{}", model.prefix, model.suffix);
    let current = member_at(&parent.fields, &member).ok_or_else(|| {
        format!(
            "{} {parent_id} has no relationship {name:?}",
            model.parent_type
        )
    })?;
    let id = sent
        .get(&model.id_member)
        .and_then(scalar_text)
        .ok_or_else(|| format!("the identifier names no {:?}", model.id_member))?;
    let types: Vec<String> = match model.named.get(name) {
        Some(known) => vec![known.clone()],
        None => holding_types(live, current, model),
    };
    let related = live
        .entities()
        .find(|entity| {
            types.contains(&entity.entity_type)
                && entity.id == id
                && matches_members(sent, &entity.fields)
        })
        .ok_or_else(|| format!("no held entity the relationship {name:?} names has id {id}"))?;
    let value = if model.linkage {
        Json::Object(sent.clone())
    } else if model.numeric {
        Json::parse(id.as_bytes())
            .ok()
            .filter(|value| matches!(value, Json::Number(_)))
            .unwrap_or(Json::String(id.into()))
    } else {
        Json::String(id.into())
    };
    let mut after = parent.clone();
    set_pointer(&mut after.fields, &member, value);
    Ok((parent.clone(), after, related.clone()))
}

/// The types holding an entity whose id is the member's current value, or the current
/// linkage's id member (none for a null).
fn holding_types(
    live: &crate::store::LiveState,
    current: &Json,
    model: &RelationshipModel,
) -> Vec<String> {
    let current = match current {
        Json::Object(linkage) if model.linkage => linkage.get(&model.id_member).unwrap_or(current),
        _ => current,
    };
    let Some(text) = scalar_text(current) else {
        return Vec::new();
    };
    let mut types: Vec<String> = live
        .entities()
        .filter(|entity| entity.id == text)
        .map(|entity| entity.entity_type.clone())
        .collect();
    types.sort();
    types.dedup();
    types
}

/// The recorded answer re-spelled for the related entity and the served call's path.
fn answer(
    service: &StateService,
    model: &RelationshipModel,
    (parent, _, related): &(Entity, Entity, Entity),
    segments: &[CompactString],
) -> StateAnswer {
    let source = StateSource::Write {
        source: "state",
        view: "update",
        collection: Some(parent.collection.clone()),
        id: Some(parent.id.clone()),
        ids: None,
    };
    if model.answers_as_recorded {
        return as_recorded(service, model.answer_ordinal, source);
    }
    let Some(base) = service.kept(model.answer_ordinal) else {
        return tool_error(
            "internal_error",
            "the relationship's recorded answer is not retained",
        );
    };
    let Some(recorded) = base.json() else {
        return tool_error(
            "internal_error",
            "the relationship's recorded answer is not JSON",
        );
    };
    let Some(was) = recorded.pointer(&model.answer_pointer).cloned() else {
        return tool_error(
            "internal_error",
            "the recorded answer holds no related entity",
        );
    };
    let path = format!("/{}", segments.join("/"));
    let respell =
        |text: &str| respelled(text, (&was, &related.fields), (&model.answer_path, &path));
    let mut body = rewrite_strings(recorded, &respell);
    let shown = if model.answers_identifier {
        identifier_of(&was, &related.fields)
    } else {
        related.fields.clone()
    };
    if model.answer_pointer.is_empty() {
        body = shown;
    } else {
        set_pointer(&mut body, &model.answer_pointer, shown);
    }
    state_answer(base, body, service.replay_evidence_id(), false, source)
}

/// A relationship write's recorded answer as recorded (a message, `{"meta": {"message": …}}`,
/// or no body: `204 No Content`), shared by the to-one and to-many relationship writes.
pub(super) fn as_recorded(
    service: &StateService,
    ordinal: u64,
    source: StateSource,
) -> StateAnswer {
    let Some(base) = service.kept(ordinal) else {
        return tool_error(
            "internal_error",
            "the relationship's recorded answer is not retained",
        );
    };
    let evidence_id = service.replay_evidence_id();
    match base.json() {
        Some(recorded) => state_answer(base, recorded.clone(), evidence_id, false, source),
        None if base.body.bytes().is_none_or(|bytes| bytes.is_empty()) => {
            recording_answer(base.replay_answer(evidence_id, false), source)
        }
        None => tool_error(
            "internal_error",
            "the relationship's recorded answer is not JSON",
        ),
    }
}

/// The related entity's identifier as the recorded answer spelled one: each member the recorded
/// identifier holds, taken from the entity.
fn identifier_of(recorded: &Json, entity: &Json) -> Json {
    let mut identifier = Object::new();
    for (key, _) in recorded.as_object().into_iter().flat_map(Object::iter) {
        if let Some(value) = member_at(entity, key) {
            identifier.insert(key, value.clone());
        }
    }
    Json::Object(identifier)
}

/// A recorded string re-spelled: the served entity's string where the recorded entity held the
/// same string at that pointer; the served path where it ended in the recorded path.
fn respelled(text: &str, (was, now): (&Json, &Json), (recorded, served): (&str, &str)) -> String {
    if let Some(pointer) = string_pointer(was, text, "")
        && let Some(Json::String(served)) = now.pointer(&pointer)
    {
        return served.to_string();
    }
    match text.strip_suffix(recorded) {
        Some(start) if !recorded.is_empty() => format!("{start}{served}"),
        _ => text.to_owned(),
    }
}

/// The pointer of a string member equal to `text`, first in key order.
fn string_pointer(value: &Json, text: &str, at: &str) -> Option<String> {
    match value {
        Json::String(own) if own == text && !at.is_empty() => Some(at.to_owned()),
        Json::Object(object) => {
            let mut keys: Vec<&str> = object.keys().collect();
            keys.sort_unstable();
            keys.into_iter().find_map(|key| {
                string_pointer(
                    object.get(key)?,
                    text,
                    &format!("{at}/{}", escape_pointer_segment(key)),
                )
            })
        }
        _ => None,
    }
}

/// Every string of a value passed through `respell`.
fn rewrite_strings(value: &Json, respell: &dyn Fn(&str) -> String) -> Json {
    match value {
        Json::String(text) => Json::String(respell(text).into()),
        Json::Object(object) => {
            let mut out = Object::new();
            for (key, member) in object.iter() {
                out.insert(key, rewrite_strings(member, respell));
            }
            Json::Object(out)
        }
        Json::Array(items) => Json::Array(
            items
                .iter()
                .map(|item| rewrite_strings(item, respell))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::parsed_json as json;

    #[test]
    fn the_member_is_split_around_the_relationship_name_in_its_last_segment() {
        assert_eq!(
            around("/attributes/assignee_id", "assignee"),
            Some(("/attributes/".to_owned(), "_id".to_owned()))
        );
        assert_eq!(
            around("/relationships/author/data", "author"),
            Some(("/relationships/".to_owned(), "/data".to_owned()))
        );
        assert_eq!(around("/attributes/owner", "author"), None);
        assert_eq!(
            around("/owner", "owner"),
            Some(("/".to_owned(), String::new()))
        );
    }

    #[test]
    fn a_linkage_is_the_object_holding_exactly_the_sent_identifier() {
        let sent = json(r#"{"type": "Author", "id": "3"}"#);
        let sent = sent.as_object().expect("object");
        let after =
            json(r#"{"relationships": {"author": {"data": {"type": "Author", "id": "3"}}}}"#);
        // One leaf changed (the id), inside the linkage object.
        assert_eq!(
            set_member(
                &after,
                ("/relationships/author/data/id", &json(r#""3""#)),
                sent,
                "3"
            ),
            Some(("/relationships/author/data".to_owned(), true))
        );
        // A linkage set from null: the whole object changed.
        assert_eq!(
            set_member(
                &after,
                (
                    "/relationships/author/data",
                    &json(r#"{"type": "Author", "id": "3"}"#)
                ),
                sent,
                "3"
            ),
            Some(("/relationships/author/data".to_owned(), true))
        );
        // A member holding the id itself (safrs), and a value naming another id.
        let flat = json(r#"{"attributes": {"assignee_id": 3, "title": "t"}}"#);
        assert_eq!(
            set_member(&flat, ("/attributes/assignee_id", &json("3")), sent, "3"),
            Some(("/attributes/assignee_id".to_owned(), false))
        );
        assert_eq!(
            set_member(&flat, ("/attributes/assignee_id", &json("4")), sent, "3"),
            None
        );
    }

    #[test]
    fn a_parent_placed_by_its_collection_keeps_the_segments_between_from_one_call() {
        let views = crate::test_support::views_of_types(&["/tasks", "/projects"]);
        let call = |path: &str| {
            let mut call = crate::test_support::read_observation(0, path, &[], "{}");
            call.segments = split_path(path).into_iter().map(Into::into).collect();
            call
        };
        let one = call("/tasks/s2UkrBg-nlFk2kx/relationships/project");
        let template = "/tasks/{opaque-token}/{folder-tree}/{folder-tree}";
        assert_eq!(
            parent_and_fixed(template, &views, &[&one]),
            Some((
                "/tasks".to_owned(),
                1,
                vec![(2, "relationships".to_owned())]
            ))
        );
        // Two calls giving the segment between two values keep nothing fixed: no model.
        let other = call("/tasks/2/links/assignee");
        assert_eq!(parent_and_fixed(template, &views, &[&one, &other]), None);
        // A literal route keeps its own reading: the item path plus the name.
        assert_eq!(
            parent_and_fixed("/tasks/{id}/relationships/project", &views, &[&one]),
            Some(("/tasks".to_owned(), 1, Vec::new()))
        );
    }

    #[test]
    fn the_changed_leaves_are_found_at_any_depth() {
        let before = json(r#"{"id": "10", "attributes": {"assignee_id": 3, "title": "t"}}"#);
        let after = json(r#"{"id": "10", "attributes": {"assignee_id": 1, "title": "t"}}"#);
        assert_eq!(
            changed(&before, &after, ""),
            vec![("/attributes/assignee_id".to_owned(), json("1"))]
        );
    }

    #[test]
    fn the_linkage_is_the_one_member_named_by_the_relationship_holding_an_identifier_or_null() {
        let sent = json(r#"{"type": "project", "id": "3"}"#);
        let sent = sent.as_object().expect("object");
        let task = json(
            r#"{"id": "13", "attributes": {"project": "x"},
                "relationships": {"project": {"data": {"id": "1", "type": "project"}},
                                  "assignee": {"data": null}}}"#,
        );
        assert_eq!(
            linkage_pointer(&task, "project", sent).as_deref(),
            Some("/relationships/project/data")
        );
        assert_eq!(
            linkage_pointer(&task, "assignee", sent).as_deref(),
            Some("/relationships/assignee/data")
        );
        // No member named so, or one of another shape: none.
        assert_eq!(linkage_pointer(&task, "owner", sent), None);
        let two = json(r#"{"a": {"project": null}, "b": {"project": null}}"#);
        assert_eq!(linkage_pointer(&two, "project", sent), None);
    }

    #[test]
    fn the_sent_identifier_is_the_one_object_of_texts() {
        let body = json(r#"{"data": {"type": "project", "id": "3"}}"#);
        let (place, sent) = identifier_place(&body).expect("an identifier");
        assert_eq!(place, "/data");
        assert_eq!(sent.get("id"), Some(&json(r#""3""#)));
        // Two such objects, or none: no identifier.
        let two = json(r#"{"data": {"type": "a", "id": "1"}, "meta": {"note": "x"}}"#);
        assert_eq!(identifier_place(&two).map(|(place, _)| place), None);
        assert_eq!(
            identifier_place(&json(r#"{"data": {"id": 3}}"#)).map(|(p, _)| p),
            None
        );
    }

    #[test]
    fn an_identifier_matches_an_entity_holding_its_members() {
        let sent = json(r#"{"type": "User", "id": "1"}"#);
        let sent = sent.as_object().expect("object");
        assert!(matches_members(
            sent,
            &json(r#"{"type": "User", "id": "1", "x": 2}"#)
        ));
        assert!(!matches_members(
            sent,
            &json(r#"{"type": "Project", "id": "1"}"#)
        ));
    }

    #[test]
    fn the_identifier_is_sent_wrapped_as_recorded_and_nothing_beside_it() {
        let sent = json(r#"{"data": {"type": "User", "id": "1"}}"#);
        assert!(wrapped_only(&sent, "/data"));
        let beside = json(r#"{"data": {"type": "User", "id": "1"}, "meta": {}}"#);
        assert!(!wrapped_only(&beside, "/data"));
        assert!(!wrapped_only(&json(r#"{"other": {}}"#), "/data"));
    }

    #[test]
    fn recorded_strings_follow_the_served_entity_and_path() {
        let was = json(r#"{"links": {"self": "/api/users/1/"}}"#);
        let now = json(r#"{"links": {"self": "/api/projects/3/"}}"#);
        let paths = ("/api/tasks/10/assignee", "/api/tasks/2/project");
        assert_eq!(
            respelled("/api/users/1/", (&was, &now), paths),
            "/api/projects/3/"
        );
        assert_eq!(
            respelled("http://h:1/api/tasks/10/assignee", (&was, &now), paths),
            "http://h:1/api/tasks/2/project"
        );
        assert_eq!(respelled("1.0", (&was, &now), paths), "1.0");
    }
}

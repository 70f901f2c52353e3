//! Body-query views (see [`BodyQueryView`]): a read tool whose query is its request body is
//! kept as a view of the entities of one held type when the pipeline's query grammars read its
//! recorded bodies (`split_body`) and evaluating each over the entities the state holds in the
//! collection its path lies under reproduces the recorded answer, envelope included. Learned here:
//! the type, the member holding the list, the order of a body that sorts nothing, and when each
//! envelope member appears. Otherwise the tool answers from its recordings (`query-body`: no
//! grammar read a body; `body-differs`: evaluating did not reproduce one; `body-envelope`: an
//! envelope member the state cannot compute).

use std::collections::BTreeSet;

use rea_plugin_api::json::Json;

use super::entities::{Entities, collection_key};
use super::recorded;
use crate::body_query::{BodyTerms, answer_body, default_ordered, list, read_body};
use crate::model::{
    BodyEnvelopeMember, BodyQueryView, DefaultOrder, Entity, EnvelopePresence, PageToken,
    ViewDetail,
};
use crate::observation::{Observation, RequestBody, Timeline};
use crate::render::scalar_text;
use crate::rules::RuleSet;

/// The held collection of a type a call's path lies under: the longest collection key that is a
/// whole-segment prefix of the path.
pub fn enclosing_collection<'a>(
    collections: impl IntoIterator<Item = &'a str>,
    path: &str,
) -> Option<&'a str> {
    collections
        .into_iter()
        .filter(|collection| {
            let key = collection_key(collection);
            key != "/"
                && path
                    .strip_prefix(key)
                    .is_some_and(|rest| rest.starts_with('/'))
        })
        .max_by_key(|collection| collection_key(collection).len())
}

/// A recorded call the view is learned from: the observation, its answer and its terms.
struct Recorded<'a> {
    observation: &'a Observation,
    answer: &'a rea_plugin_api::json::Object,
    terms: BodyTerms,
}

/// The view of a body-query tool (see the module docs).
pub fn derive(
    timeline: &Timeline,
    index: usize,
    (entities, whole_members): (&Entities, Option<&Vec<String>>),
    rules: &RuleSet,
) -> ViewDetail {
    let whole_members = whole_members.cloned().unwrap_or_default();
    let calls: Vec<&Observation> = timeline
        .checked(index)
        .filter(|observation| observation.is_success())
        .filter(|observation| matches!(observation.request, RequestBody::Json(_)))
        .collect();
    let Some(list_member) = common_list_member(&calls) else {
        return recorded("query-body");
    };
    let Some((entity_type, identity)) = member_type(entities, &calls, &list_member) else {
        return recorded("query-body");
    };
    let read = read_calls(calls, entities, &entity_type, rules);
    let Some(first) = read.first() else {
        return recorded("query-body");
    };
    let listed_with = |order: DefaultOrder, call: &Recorded| {
        let candidates = default_ordered(
            order,
            &identity,
            &pool(entities, &entity_type, &call.observation.path),
        );
        list(&call.terms, &candidates, &whole_members)
    };
    let Some(default_order) = learn_order(&read, &list_member, &listed_with) else {
        return recorded("body-differs");
    };
    let Some(counts) = read
        .iter()
        .map(|call| listed_with(default_order, call).map(|listed| Counts::of(&listed)))
        .collect::<Option<Vec<Counts>>>()
    else {
        return recorded("body-differs");
    };
    let Some((mut envelope, list_position)) = learn_envelope(&read, &list_member, &counts) else {
        return recorded("body-envelope");
    };
    let Some(recorded_omission) = learn_empty_list(&read, &list_member, &counts) else {
        return recorded("body-envelope");
    };
    let empties = EmptyAnswers {
        timeline,
        index,
        read: &read,
        counts: &counts,
        list_member: &list_member,
    };
    // Always asked: an empty answer's evidence also marks the envelope's zero counts omitted.
    let omitted = empties.omitted(
        &mut envelope,
        &pool(entities, &entity_type, &first.observation.path),
    );
    let listed = |call: &Recorded| listed_with(default_order, call);
    let page_token = learn_page_token(&read, &envelope, &listed);
    let view = BodyQueryView {
        entity_type: entity_type.clone(),
        list_member,
        list_position,
        default_order,
        envelope,
        partial_pages: counts.iter().any(|counts| counts.left_out),
        page_token,
        record_ordinal: first.observation.ordinal,
        record_ordinals: read.iter().map(|call| call.observation.ordinal).collect(),
        omit_empty_list: recorded_omission || omitted,
        whole_members: whole_members.clone(),
        encoded_fields: encoded_fields(&read),
    };
    if !reproduces(&view, &read, &listed) {
        return recorded("body-differs");
    }
    ViewDetail::BodyQuery(view)
}

/// The fields the grammars read as bytes in an encoding in any of the calls (field →
/// encoding; see [`BodyQueryView::encoded_fields`]).
fn encoded_fields(read: &[Recorded]) -> std::collections::BTreeMap<String, String> {
    read.iter()
        .flat_map(|call| call.terms.encodings.clone())
        .collect()
}

/// What a body-query tool's calls show about empty answers.
struct EmptyAnswers<'r, 'a> {
    timeline: &'r Timeline,
    index: usize,
    read: &'r [Recorded<'a>],
    counts: &'r [Counts],
    list_member: &'r str,
}

impl EmptyAnswers<'_, '_> {
    /// Whether an empty list is left out of the answer though no learned call showed one empty:
    /// an answer with nothing matched shows the list (and the zero counts, which `envelope`
    /// then omits too) left out, or the entities `held` leave their empty arrays out.
    fn omitted(&self, envelope: &mut [BodyEnvelopeMember], held: &[&Entity]) -> bool {
        let empty_list_shown = self
            .read
            .iter()
            .zip(self.counts)
            .any(|(call, counts)| counts.empty && call.answer.contains_key(self.list_member));
        if !empty_list_shown
            && self.counts.iter().all(|counts| counts.matched != 0)
            && shows_empty_answer(self.timeline.all(self.index), self.list_member, envelope)
        {
            for member in envelope.iter_mut() {
                if let EnvelopePresence::Matched { omit_zero, .. } = &mut member.presence {
                    *omit_zero = true;
                }
            }
            return true;
        }
        self.counts.iter().all(|counts| !counts.empty) && omits_empty_arrays(self.timeline, held)
    }
}

/// Seeds the entities a body-query tool's answers list when they are no held type's: a type of
/// their own, its collection the parent of the tool's path (`/v3/kv` of `/v3/kv/range`), its
/// identity the member a body names as the one listed object of its answer does (`{"key": k}`
/// answering `[{"key": k, …}]`), each listed object its entity (the object listing the most
/// members where answers differ only by leaving members out), an object listed only projected
/// completed from a later answer showing it unchanged and whole (`later_members.rs`; `writes`
/// says which tools write). Answers the members every object listed with all of them held (see
/// [`BodyQueryView::whole_members`]); `None` when nothing is seeded.
pub fn seed(
    timeline: &Timeline,
    (template, index): (&str, usize),
    writes: &dyn Fn(usize) -> bool,
    entities: &mut Entities,
) -> Option<Vec<String>> {
    let calls: Vec<&Observation> = timeline
        .checked(index)
        .filter(|observation| observation.is_success())
        .filter(|observation| matches!(observation.request, RequestBody::Json(_)))
        .collect();
    let list_member = common_list_member(&calls)?;
    if member_type(entities, &calls, &list_member).is_some() {
        return None;
    }
    let parent = |path: &str| path.rsplit_once('/').map(|(parent, _)| parent.to_owned());
    let type_template = parent(template).filter(|parent| !parent.is_empty())?;
    if entities.entity_type(&type_template).is_some() {
        return None;
    }
    let identity = body_identity(&calls, &list_member)?;
    let mut whole: Option<BTreeSet<String>> = None;
    let mut listed: Vec<(&Observation, String, &Json)> = Vec::new();
    for call in &calls {
        let members = call.body.as_ref().and_then(|body| body.get(&list_member));
        for member in members.and_then(Json::as_array).into_iter().flatten() {
            let id = member.get(&identity).and_then(scalar_text)?;
            listed.push((call, id, member));
        }
    }
    let widest = listed
        .iter()
        .map(|(_, _, member)| member.as_object().map_or(0, |object| object.len()))
        .max()?;
    entities.add_type(crate::model::EntityType::new(
        type_template.clone(),
        identity.clone(),
        None,
    ));
    for (call, id, member) in listed {
        let collection = parent(&call.path)?;
        let names: BTreeSet<String> = member.as_object()?.keys().map(str::to_owned).collect();
        if names.len() == widest {
            whole = Some(match whole {
                Some(known) => known.intersection(&names).cloned().collect(),
                None => names,
            });
        }
        observe_widest(entities, (&type_template, &collection), &id, member, call);
    }
    let seeded = super::later_members::Seeded {
        tool: index,
        list_member: &list_member,
        type_template: &type_template,
        identity: &identity,
    };
    super::later_members::complete(timeline, &seeded, writes, entities);
    Some(whole?.into_iter().collect())
}

/// Observes one listed object of a seeded type, keeping the one listing more members.
fn observe_widest(
    entities: &mut Entities,
    (type_template, collection): (&str, &str),
    id: &str,
    member: &Json,
    call: &Observation,
) {
    let width = |value: &Json| value.as_object().map_or(0, |object| object.len());
    let wider = entities
        .find(type_template, collection, id)
        .is_some_and(|index| width(member) > width(&entities.list[index].fields));
    entities.observe(
        type_template,
        collection,
        id,
        member,
        (call.ordinal, call.position),
        wider,
    );
}

/// The member naming a body query's listed objects: one every listed object holds as a scalar,
/// distinct within each answer, which some body holds at its top level with the value of the
/// one object its answer lists.
fn body_identity(calls: &[&Observation], list_member: &str) -> Option<String> {
    let lists: Vec<(&Observation, &Vec<Json>)> = calls
        .iter()
        .filter_map(|call| {
            let members = call.body.as_ref()?.get(list_member)?.as_array()?;
            Some((*call, members))
        })
        .collect();
    let first = lists.first()?.1.first()?.as_object()?;
    first.keys().find_map(|name| {
        let distinct = lists.iter().all(|(_, members)| {
            let ids: Option<BTreeSet<String>> = members
                .iter()
                .map(|member| member.get(name).and_then(scalar_text))
                .collect();
            ids.is_some_and(|ids| ids.len() == members.len())
        });
        let named = lists.iter().any(|(call, members)| {
            let RequestBody::Json(body) = &call.request else {
                return false;
            };
            matches!(members.as_slice(), [only] if body.get(name).is_some() && only.get(name) == body.get(name))
        });
        (distinct && named).then(|| name.to_owned())
    })
}

/// The entities of a type held in the collection a path lies under, in state order.
pub(super) fn pool<'a>(entities: &'a Entities, entity_type: &str, path: &str) -> Vec<&'a Entity> {
    let collections: BTreeSet<&str> = entities
        .list
        .iter()
        .filter(|entity| entity.entity_type == entity_type)
        .map(|entity| collection_key(&entity.collection))
        .collect();
    enclosing_collection(collections, path)
        .map(|collection| {
            entities
                .collection(entity_type, collection)
                .iter()
                .map(|index| &entities.list[*index])
                .collect()
        })
        .unwrap_or_default()
}

/// The recorded calls whose bodies a query grammar reads, with their terms.
fn read_calls<'a>(
    calls: Vec<&'a Observation>,
    entities: &Entities,
    entity_type: &str,
    rules: &RuleSet,
) -> Vec<Recorded<'a>> {
    calls
        .into_iter()
        .filter_map(|observation| {
            let RequestBody::Json(body) = &observation.request else {
                return None;
            };
            let candidates = pool(entities, entity_type, &observation.path);
            Some(Recorded {
                observation,
                answer: observation.body.as_ref().and_then(Json::as_object)?,
                terms: read_body(rules, body, &candidates)?,
            })
        })
        .collect()
}

/// Whether the view renders every read recording's answer (a page token, minted per answer,
/// compared out).
fn reproduces(
    view: &BodyQueryView,
    read: &[Recorded],
    listed: &dyn Fn(&Recorded) -> Option<crate::body_query::Listed>,
) -> bool {
    let mut unpaged = view.clone();
    unpaged
        .envelope
        .retain(|member| member.presence != EnvelopePresence::Paged);
    read.iter().all(|call| {
        let mut recorded = call.answer.clone();
        for member in &view.envelope {
            if member.presence == EnvelopePresence::Paged {
                recorded.remove(&member.member);
            }
        }
        listed(call)
            .and_then(|listed| answer_body(&unpaged, &call.terms, listed))
            .is_some_and(|body| body == Json::Object(recorded))
    })
}

/// The page token of the view's one paged envelope member (see [`PageToken`]): the split of its
/// decoded text around the next page's offset that every recorded page leaving matches out
/// shows; `None` when one shows no such text, or two disagree.
fn learn_page_token(
    read: &[Recorded],
    envelope: &[BodyEnvelopeMember],
    listed: &dyn Fn(&Recorded) -> Option<crate::body_query::Listed>,
) -> Option<PageToken> {
    let mut paged = envelope
        .iter()
        .filter(|member| member.presence == EnvelopePresence::Paged);
    let member = paged.next()?;
    if paged.next().is_some() {
        return None;
    }
    let mut form: Option<(String, String)> = None;
    for call in read {
        let listed = listed(call)?;
        if !listed.left_out {
            continue;
        }
        let token = call.answer.get(&member.member)?.as_str()?;
        let bytes = rea_plugin_api::contracts::capture::base64::decode(token).ok()?;
        let split = split_around(&String::from_utf8(bytes).ok()?, listed.next_offset)?;
        if form.as_ref().is_some_and(|known| *known != split) {
            return None;
        }
        form = Some(split);
    }
    let (prefix, suffix) = form?;
    Some(PageToken {
        member: member.member.clone(),
        prefix,
        suffix,
    })
}

/// The text before and after the one whole decimal number `value` in `text`.
fn split_around(text: &str, value: usize) -> Option<(String, String)> {
    let digits = value.to_string();
    let whole = |at: usize| {
        let before = text[..at].chars().next_back();
        let after = text[at + digits.len()..].chars().next();
        !before.is_some_and(|c| c.is_ascii_digit()) && !after.is_some_and(|c| c.is_ascii_digit())
    };
    let mut found = text
        .match_indices(digits.as_str())
        .map(|(at, _)| at)
        .filter(|at| whole(*at));
    let at = found.next()?;
    if found.next().is_some() {
        return None;
    }
    Some((text[..at].to_owned(), text[at + digits.len()..].to_owned()))
}

/// The members an answer lists in its list member (none when it lacks the member).
fn listed_in<'a>(
    answer: &'a rea_plugin_api::json::Object,
    list_member: &str,
) -> Option<&'a [Json]> {
    match answer.get(list_member) {
        Some(list) => list.as_array().map(Vec::as_slice),
        None => Some(&[]),
    }
}

/// The one top-level member every answer listing something holds its list of objects in (an
/// answer holding no list, as an encoding leaving out an empty one does, names none; some
/// answer names it).
fn common_list_member(calls: &[&Observation]) -> Option<String> {
    let mut members = BTreeSet::new();
    for call in calls {
        let Some(pointer) = call.body.as_ref().and_then(super::lists::list_pointer) else {
            continue;
        };
        let member = pointer.strip_prefix('/')?;
        if member.contains('/') || member.contains('~') {
            return None;
        }
        members.insert(member.to_owned());
    }
    let mut members = members.into_iter();
    let member = members.next()?;
    members.next().is_none().then_some(member)
}

/// The held type whose entities the answers list (every listed member showing its identity is
/// one of the type's, held in the collection the call's path lies under; some member is), with
/// its identity field.
fn member_type(
    entities: &Entities,
    calls: &[&Observation],
    list_member: &str,
) -> Option<(String, String)> {
    entities.types.iter().find_map(|entity_type| {
        let template = &entity_type.collection_template;
        let identity = &entity_type.identity_field;
        let collections: BTreeSet<&str> = entities
            .list
            .iter()
            .filter(|entity| &entity.entity_type == template)
            .map(|entity| collection_key(&entity.collection))
            .collect();
        let mut resolved = 0;
        for call in calls {
            let Some(members) = call
                .body
                .as_ref()
                .and_then(|body| body.get(list_member))
                .and_then(Json::as_array)
            else {
                continue;
            };
            for member in members {
                let Some(id) = crate::render::identity_text(member, identity) else {
                    continue;
                };
                let collection = enclosing_collection(collections.iter().copied(), &call.path)?;
                entities.find(template, collection, &id)?;
                resolved += 1;
            }
        }
        (resolved > 0).then(|| (template.clone(), identity.clone()))
    })
}

/// The first default order reproducing the list of every recorded body that sorts nothing.
fn learn_order(
    read: &[Recorded],
    list_member: &str,
    listed_with: &dyn Fn(DefaultOrder, &Recorded) -> Option<crate::body_query::Listed>,
) -> Option<DefaultOrder> {
    [
        DefaultOrder::State,
        DefaultOrder::Reversed,
        DefaultOrder::Identity,
        DefaultOrder::IdentityDescending,
    ]
    .into_iter()
    .find(|order| {
        read.iter().filter(|call| !call.terms.sorts).all(|call| {
            listed_with(*order, call).is_some_and(|listed| {
                listed_in(call.answer, list_member) == Some(&listed.members[..])
            })
        })
    })
}

/// The envelope members besides the list and when each appears (see [`EnvelopePresence`]), with
/// the list's place among them; `None` when a member follows none of those rules.
fn learn_envelope(
    read: &[Recorded],
    list_member: &str,
    counts: &[Counts],
) -> Option<(Vec<BodyEnvelopeMember>, usize)> {
    let left_out: Vec<bool> = counts.iter().map(|counts| counts.left_out).collect();
    let mut names: Vec<&str> = Vec::new();
    let mut list_position = None;
    for call in read {
        for (name, _) in call.answer.iter() {
            if name == list_member {
                list_position.get_or_insert(names.len());
            } else if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    let mut envelope = Vec::new();
    for name in names {
        let held: Vec<bool> = read
            .iter()
            .map(|call| call.answer.contains_key(name))
            .collect();
        let values: BTreeSet<String> = read
            .iter()
            .filter_map(|call| call.answer.get(name))
            .map(|value| value.to_canonical_string())
            .collect();
        let value = read.iter().find_map(|call| call.answer.get(name))?.clone();
        let presence = if let Some(matched) = counting(read, name, counts) {
            matched
        } else if held.iter().all(|held| *held) && values.len() == 1 {
            EnvelopePresence::Always
        } else if held == left_out && values.len() == 1 && matches!(value, Json::Bool(_)) {
            EnvelopePresence::LeftOut
        } else if held == left_out {
            EnvelopePresence::Paged
        } else if values.len() == 1 {
            unless_named(read, &held)?
        } else {
            return None;
        };
        envelope.push(BodyEnvelopeMember {
            member: name.to_owned(),
            value,
            presence,
        });
    }
    Some((envelope, list_position.unwrap_or(0)))
}

/// What evaluating a recorded body listed: how many matched, whether the page left matches
/// out, whether it listed nothing.
#[derive(Debug, Clone, Copy)]
struct Counts {
    matched: usize,
    left_out: bool,
    empty: bool,
}

impl Counts {
    fn of(listed: &crate::body_query::Listed) -> Self {
        Self {
            matched: listed.matched,
            left_out: listed.left_out,
            empty: listed.members.is_empty(),
        }
    }
}

/// The presence of a member counting the matches (see [`EnvelopePresence::Matched`]): every
/// recording holding it showed the number its body matched (as a number, or all as decimal
/// text), at least two different numbers among them, and every recording lacking it matched
/// nothing.
fn counting(read: &[Recorded], name: &str, counts: &[Counts]) -> Option<EnvelopePresence> {
    let mut text = None;
    let mut numbers = BTreeSet::new();
    let mut omit_zero = false;
    for (call, counts) in read.iter().zip(counts) {
        let Some(value) = call.answer.get(name) else {
            if counts.matched != 0 {
                return None;
            }
            omit_zero = true;
            continue;
        };
        let (spelled, is_text) = match value {
            Json::String(spelled) => (spelled.to_string(), true),
            Json::Number(_) => (value.to_canonical_string(), false),
            _ => return None,
        };
        if spelled != counts.matched.to_string() || *text.get_or_insert(is_text) != is_text {
            return None;
        }
        numbers.insert(counts.matched);
    }
    (numbers.len() >= 2).then(|| EnvelopePresence::Matched {
        text: text.unwrap_or(false),
        omit_zero,
    })
}

/// Whether some successful answer of the tool (at any time: how an empty answer is spelled
/// does not depend on the state) holds nothing but members the envelope always holds: no list
/// and no count, as an encoding leaving out an empty list and a zero does.
fn shows_empty_answer<'a>(
    calls: impl Iterator<Item = &'a Observation>,
    list_member: &str,
    envelope: &[BodyEnvelopeMember],
) -> bool {
    let always = |name: &str| {
        envelope
            .iter()
            .any(|member| member.member == name && member.presence == EnvelopePresence::Always)
    };
    let counted = envelope
        .iter()
        .any(|member| matches!(member.presence, EnvelopePresence::Matched { .. }));
    counted
        && calls
            .filter(|call| call.is_success())
            .filter_map(|call| call.body.as_ref().and_then(Json::as_object))
            .any(|answer| !answer.contains_key(list_member) && answer.keys().all(always))
}

/// Whether the application leaves out empty arrays, as an encoding leaving out default values
/// does: no successful answer of the capture holds an empty array anywhere, and some entity's
/// object lacks a member that the same object of another entity of the type holds as a
/// non-empty array (a run's `data` without metrics has no `metrics` at all; a document store's
/// documents of several shapes at the top level say nothing).
fn omits_empty_arrays(timeline: &Timeline, entities: &[&Entity]) -> bool {
    fn holds_empty_array(value: &Json) -> bool {
        match value {
            Json::Array(items) => items.is_empty() || items.iter().any(holds_empty_array),
            Json::Object(object) => object.iter().any(|(_, value)| holds_empty_array(value)),
            _ => false,
        }
    }
    let arrays = |entity: &Entity| -> BTreeSet<String> {
        let mut found = BTreeSet::new();
        for (name, value) in entity.fields.as_object().into_iter().flat_map(|o| o.iter()) {
            for (inner, nested) in value.as_object().into_iter().flat_map(|o| o.iter()) {
                if nested.as_array().is_some_and(|items| !items.is_empty()) {
                    found.insert(format!("{name}/{inner}"));
                }
            }
        }
        found
    };
    let lacks = |entity: &Entity, member: &str| {
        member.split_once('/').is_some_and(|(outer, inner)| {
            entity
                .fields
                .get(outer)
                .and_then(Json::as_object)
                .is_some_and(|object| object.get(inner).is_none())
        })
    };
    let held: BTreeSet<String> = entities.iter().flat_map(|entity| arrays(entity)).collect();
    let some_lacks = held
        .iter()
        .any(|member| entities.iter().any(|entity| lacks(entity, member)));
    some_lacks
        && !timeline
            .by_ordinal
            .values()
            .filter(|observation| observation.is_success())
            .filter_map(|observation| observation.body.as_ref())
            .any(holds_empty_array)
}

/// Whether the list member is absent when nothing is listed: every recording listing nothing
/// lacked it (and one did); `Some(false)` when every recording held it; `None` when a
/// recording listing something lacked it.
fn learn_empty_list(read: &[Recorded], list_member: &str, counts: &[Counts]) -> Option<bool> {
    let (mut shown, mut omitted) = (false, false);
    for (call, counts) in read.iter().zip(counts) {
        match (call.answer.contains_key(list_member), counts.empty) {
            (false, false) => return None,
            (false, true) => omitted = true,
            (true, true) => shown = true,
            (true, false) => {}
        }
    }
    (!(shown && omitted)).then_some(omitted)
}

/// The fields whose naming explains a member's absence: those the bodies lacking it named and no
/// body holding it named, when each body lacking it named one.
fn unless_named(read: &[Recorded], held: &[bool]) -> Option<EnvelopePresence> {
    let named_by = |wanted: bool| -> BTreeSet<&String> {
        read.iter()
            .zip(held)
            .filter(|(_, held)| **held == wanted)
            .flat_map(|(call, _)| &call.terms.named)
            .collect()
    };
    let holders = named_by(true);
    let fields: BTreeSet<&String> = named_by(false)
        .into_iter()
        .filter(|field| !holders.contains(field))
        .collect();
    let explained = read
        .iter()
        .zip(held)
        .filter(|(_, held)| !**held)
        .all(|(call, _)| call.terms.named.iter().any(|field| fields.contains(field)));
    explained.then(|| EnvelopePresence::UnlessNamed {
        fields: fields.into_iter().cloned().collect(),
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use rea_plugin_api::contracts::query::{
        QueryBodyRequest, QueryExpressionOutcome, QueryExpressionRequest, QueryGrammarOutcome,
        QueryGrammarRequest, QueryRole, QueryTerm,
    };
    use serde_json::{Value, json};

    use super::*;
    use crate::derive::tests::{derive_with_state_rules, posts, record, stand_in};
    use crate::rules::{ConfiguredQueryGrammar, QueryGrammarStep, RuleSet};

    /// A toy body language: `{"where": {field: value}, "order": "field", "limit": n}`.
    #[derive(Debug)]
    struct WhereBody;

    impl QueryGrammarStep for WhereBody {
        fn apply(&self, request: &QueryGrammarRequest) -> Result<QueryGrammarOutcome, String> {
            Ok(QueryGrammarOutcome {
                lists: vec![Default::default(); request.lists.len()],
                families: Vec::new(),
                schema_version: 1,
            })
        }

        fn split(&self, _: &QueryExpressionRequest) -> Result<QueryExpressionOutcome, String> {
            Ok(QueryExpressionOutcome::default())
        }

        fn split_body(&self, request: &QueryBodyRequest) -> Result<QueryExpressionOutcome, String> {
            let term =
                |name: &str, value: String, role: QueryRole| QueryTerm::playing(name, value, role);
            let mut terms = Vec::new();
            let Some(body) = request.body.as_object() else {
                return Ok(QueryExpressionOutcome::default());
            };
            for (member, value) in body {
                match (member.as_str(), value) {
                    ("where", Value::Object(fields)) => {
                        for (field, value) in fields {
                            let Some(text) = value.as_str() else {
                                return Ok(QueryExpressionOutcome::default());
                            };
                            terms.push(term(
                                field,
                                text.to_owned(),
                                QueryRole::filter(field, "eq"),
                            ));
                        }
                    }
                    ("order", Value::String(field)) => {
                        terms.push(term("order", field.clone(), QueryRole::Sort));
                    }
                    ("limit", Value::Number(limit)) => {
                        terms.push(term("limit", limit.to_string(), QueryRole::PageSize));
                    }
                    _ => return Ok(QueryExpressionOutcome::default()),
                }
            }
            Ok(QueryExpressionOutcome::of(Some(terms)))
        }
    }

    fn rules() -> RuleSet {
        RuleSet::empty().with_query_grammars(vec![ConfiguredQueryGrammar {
            stage: "where-body".to_owned(),
            plugin: "test".to_owned(),
            handle: Arc::new(WhereBody),
        }])
    }

    fn search(
        ordinal: u64,
        body: Value,
        answer: Value,
    ) -> rea_plugin_api::contracts::capture::CaptureRecord {
        let mut search = record(ordinal, "POST", "/posts/search", 200, answer);
        search.request.body = rea_plugin_api::contracts::capture::Body::Text {
            text: body.to_string().into(),
        };
        search
    }

    fn fixture() -> crate::derive::tests::Fixture {
        let alice = json!([posts()[0], posts()[2]]);
        derive_with_state_rules(
            vec![
                record(0, "GET", "/posts", 200, posts()),
                search(
                    1,
                    json!({"where": {"author": "alice"}}),
                    json!({"hits": alice, "took": "fast"}),
                ),
                search(
                    2,
                    json!({"order": "views", "limit": 2}),
                    json!({"hits": [posts()[0], posts()[2]], "took": "fast"}),
                ),
                // A body the language does not read: it stays the recording of that body.
                search(
                    3,
                    json!({"match": "Beta"}),
                    json!({"hits": [posts()[1]], "took": "slow"}),
                ),
            ],
            rules(),
        )
    }

    fn search_view(fixture: &crate::derive::tests::Fixture) -> &crate::model::ReadView {
        fixture
            .state
            .views
            .iter()
            .find(|view| view.tool == "post_posts_search")
            .expect("the search tool")
    }

    #[test]
    fn a_body_query_is_learned_and_answers_bodies_never_recorded() {
        let fixture = fixture();
        let view = search_view(&fixture);
        let ViewDetail::BodyQuery(query) = &view.detail else {
            panic!("a body query: {:?}", view.detail);
        };
        assert_eq!(query.list_member, "hits");
        assert_eq!(query.default_order, DefaultOrder::State);
        assert_eq!(query.record_ordinals, vec![1, 2]);
        assert!(query.partial_pages);
        let answer = fixture.call(
            "post_posts_search",
            json!({"body": {"where": {"author": "bob"}}}),
        );
        assert_eq!(
            answer["body"],
            json!({"hits": [posts()[1]], "took": "fast"}),
            "{answer}"
        );
        assert_eq!(answer["state"]["membership"], "body-query");
        let answer = fixture.call(
            "post_posts_search",
            json!({"body": {"order": "views", "limit": 1}}),
        );
        assert_eq!(answer["body"]["hits"], json!([posts()[0]]), "{answer}");
    }

    #[test]
    fn a_body_no_grammar_reads_answers_its_own_recording_or_is_refused() {
        let fixture = fixture();
        let answer = fixture.call("post_posts_search", json!({"body": {"match": "Beta"}}));
        assert_eq!(answer["body"]["took"], "slow", "{answer}");
        assert_eq!(stand_in(&answer), json!({"recording": "query-body"}));
        let answer = fixture.call("post_posts_search", json!({"body": {"match": "Alpha"}}));
        assert_eq!(
            stand_in(&answer),
            json!({"not_modelled": "query-body", "recording": "not-recorded"})
        );
    }

    #[test]
    fn a_recording_the_terms_do_not_reproduce_keeps_the_tool_on_its_recordings() {
        let fixture = derive_with_state_rules(
            vec![
                record(0, "GET", "/posts", 200, posts()),
                // The application listed bob's post for alice: no evaluation explains it.
                search(
                    1,
                    json!({"where": {"author": "alice"}}),
                    json!({"hits": [posts()[1]]}),
                ),
            ],
            rules(),
        );
        let view = search_view(&fixture);
        assert!(
            matches!(&view.detail, ViewDetail::Recorded { reason } if reason == "body-differs"),
            "{:?}",
            view.detail
        );
    }

    #[test]
    fn the_enclosing_collection_is_the_longest_whole_segment_prefix() {
        let collections = ["/library", "/lib", "/library/sub", "/"];
        assert_eq!(
            enclosing_collection(collections, "/library/_find"),
            Some("/library")
        );
        assert_eq!(
            enclosing_collection(collections, "/library/sub/_find"),
            Some("/library/sub")
        );
        assert_eq!(enclosing_collection(collections, "/librarian/_find"), None);
        assert_eq!(enclosing_collection(collections, "/library"), None);
    }
}

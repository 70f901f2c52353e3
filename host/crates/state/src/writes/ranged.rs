//! Range deletes: a delete naming its entity in a body member (an RPC-style write, etcd's
//! `kv/deleterange` with `{"key": …, "prev_kv": true}`) whose type a body-query read selects by
//! a grammar that also reads a range of that member (`kv/range`'s `range_end`: the keys from
//! `key` up to it). A served call whose body sends such a range member applies the learned
//! one-entity delete to every entity the read's grammar selects with the call's key and range
//! members, in one write (the store counters step once, as the recorded delete stepped them).
//!
//! Learned after the replay, for a served delete only, from the recordings:
//! * the range members: members of the read's recorded bodies the grammar read as an order
//!   comparison of the identity field (`range_end`: `key < range_end`), other than the key;
//! * the count: the one top-level member of every recorded answer holding the number of
//!   entities the call removed (`"deleted": "1"`), spelled as they spelled it (text or number);
//! * the listing: the answer member whose array showed the removed entity (`prev_kvs`, the
//!   answer's pointer `/prev_kvs/0`), which lists every removed entity;
//! * an option shown optional: a member every recorded delete sent with one value
//!   (`prev_kv: true`) that a served write of the same type and key sent on some calls and left
//!   out on others, its answers holding one member more when sent, showing the written entity
//!   (`kv/put`'s `prev_kv`): a call leaving it out answers without the listing.
//!
//! A call sending a range member, or leaving out that option, is served here; any other call as
//! the one-entity delete it always was. A body the read's grammar cannot read, one it reads with
//! a term that is no filter or sort (a page), and one selecting nothing (what the application
//! answers to a delete removing nothing no recorded call shows) are refused, nothing changed.

use std::collections::BTreeMap;

use rea_manifest::Manifest;
use rea_plugin_api::json::{Json, Object};
use serde::{Deserialize, Serialize};

use super::apply::{Change, RuleCalls, WriteInput, call_target, commit, keep_held_indexes};
use super::model::{Effect, ResponseKind, WritePlan};
use super::observe::Call as ObservedCall;
use super::{Draft, Views};
use crate::answer::{StateAnswer, StateSource, state_answer, tool_error};
use crate::model::{Entity, QueryRole, StateView};
use crate::observation::{RequestBody, Timeline};
use crate::rules::RuleSet;
use crate::service::StateService;

/// What a delete by a body member learned about selecting a range (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RangeDelete {
    /// The body-query read tool whose grammar selects.
    pub read_tool: String,
    /// The members naming a range a call may send beside the key, with their recorded JSON types.
    pub members: BTreeMap<String, Vec<String>>,
    /// The answer member counting the removed entities.
    pub count: String,
    /// Whether the count is spelled as text (`"4"`), else as a number.
    pub count_text: bool,
    /// The answer member listing the removed entities, when the recorded answer showed one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listed: Option<String>,
    /// The member whose leaving out leaves the listing out, with the value every recorded call
    /// sent (see the module docs); `None`: every recorded member stays required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub option: Option<(String, Json)>,
}

/// Learns each served delete's range model (after the replay).
pub(super) fn learn(
    drafts: &mut [Draft],
    calls: &[ObservedCall],
    (manifest, timeline, state, views, rules): (&Manifest, &Timeline, &StateView, &Views, &RuleSet),
) {
    for index in 0..drafts.len() {
        let draft = &drafts[index];
        if !draft.plan.served || draft.plan.effect != Effect::Delete || draft.plan.bulk {
            continue;
        }
        let Some(read) = range_read(draft, (manifest, timeline, state, views, rules)) else {
            continue;
        };
        let Some((count, count_text)) = count_member(draft, calls) else {
            continue;
        };
        let Some(listed) = listing_member(&draft.plan) else {
            continue;
        };
        let option = shown_optional(drafts, index, calls);
        drafts[index].plan.ranged = Some(RangeDelete {
            read_tool: read.0,
            members: read.1,
            count,
            count_text,
            listed,
            option,
        });
    }
}

/// The body-query read of the delete's type and the range members its recorded bodies show.
fn range_read(
    draft: &Draft,
    (manifest, timeline, state, views, rules): (&Manifest, &Timeline, &StateView, &Views, &RuleSet),
) -> Option<(String, BTreeMap<String, Vec<String>>)> {
    let target = draft.plan.target.as_ref()?;
    let key = target.key_member.as_deref()?;
    let entity_type = target.entity_type.as_deref()?;
    let identity = target.identity_field.as_deref()?;
    let entities: Vec<&Entity> = state
        .entities
        .iter()
        .filter(|entity| entity.entity_type == entity_type)
        .map(|entity| &**entity)
        .collect();
    let mut reads: Vec<usize> = views
        .body_reads
        .iter()
        .filter(|(_, scope)| scope.entity_type == entity_type)
        .map(|(tool, _)| *tool)
        .collect();
    reads.sort_unstable();
    reads.into_iter().find_map(|tool| {
        let mut members: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for observation in timeline.checked(tool) {
            let RequestBody::Json(body) = &observation.request else {
                continue;
            };
            let Some(terms) = crate::body_query::read_body(rules, body, &entities) else {
                continue;
            };
            for name in ranging_members(&terms, body, identity, key) {
                members
                    .entry(name)
                    .or_insert_with(|| vec!["string".to_owned()]);
            }
        }
        (!members.is_empty()).then(|| (manifest.tools[tool].name.clone(), members))
    })
}

/// The top-level members of a read body the grammar read as an order comparison of the identity
/// field, holding the term's value as text (the key member aside).
fn ranging_members(
    terms: &crate::body_query::BodyTerms,
    body: &Json,
    identity: &str,
    key: &str,
) -> Vec<String> {
    terms
        .pairs
        .iter()
        .filter(|(name, value)| {
            let comparing = matches!(
                terms.model.role(name),
                Some(QueryRole::Filter { field, op })
                    if field == identity && matches!(op.as_str(), "gt" | "gte" | "lt" | "lte")
            );
            comparing
                && name != key
                && body.get(name).and_then(Json::as_str) == Some(value.as_str())
        })
        .map(|(name, _)| name.clone())
        .collect()
}

/// The one top-level member every recorded answer counts its one removed entity in (`1` or
/// `"1"`), and whether it is text.
fn count_member(draft: &Draft, calls: &[ObservedCall]) -> Option<(String, bool)> {
    let mut found: Option<(String, bool)> = None;
    for call in draft.calls.iter().map(|call| &calls[*call]) {
        let object = call.response.as_ref()?.as_object()?;
        let mut ones = object.iter().filter_map(|(name, value)| match value {
            Json::String(text) if &**text == "1" => Some((name.to_owned(), true)),
            Json::Number(number) if number.as_i64() == Some(1) => Some((name.to_owned(), false)),
            _ => None,
        });
        let (Some(one), None) = (ones.next(), ones.next()) else {
            return None;
        };
        if found.as_ref().is_some_and(|known| *known != one) {
            return None;
        }
        found = Some(one);
    }
    found
}

/// The answer member listing the removed entity: `Some(member)` for an answer showing it at
/// `/member/0`, `Some(None)` for an answer showing no entity, `None` for another answer.
fn listing_member(plan: &WritePlan) -> Option<Option<String>> {
    let response = plan.response.as_ref()?;
    match response.kind {
        ResponseKind::Recorded | ResponseKind::None if response.pointer.is_none() => Some(None),
        ResponseKind::Entity if response.member.is_none() => {
            let pointer = response.pointer.as_deref()?;
            let member = pointer.strip_prefix('/')?.strip_suffix("/0")?;
            (!member.contains('/')).then(|| Some(member.replace("~1", "/").replace("~0", "~")))
        }
        _ => None,
    }
}

/// The member of the delete's body a sibling write of its type and key showed optional (see the
/// module docs), with the value every recorded delete sent.
fn shown_optional(
    drafts: &[Draft],
    index: usize,
    calls: &[ObservedCall],
) -> Option<(String, Json)> {
    let delete = &drafts[index];
    let target = delete.plan.target.as_ref()?;
    let key = target.key_member.as_deref()?;
    let identity = target.identity_field.as_deref()?;
    let body = delete.plan.body.as_ref()?;
    let siblings: Vec<&Draft> = drafts
        .iter()
        .filter(|draft| {
            draft.plan.served
                && draft.plan.tool != delete.plan.tool
                && draft.plan.target.as_ref().is_some_and(|sibling| {
                    sibling.entity_type == target.entity_type
                        && sibling.key_member == target.key_member
                })
        })
        .collect();
    body.members
        .iter()
        .filter(|(name, member)| name.as_str() != key && member.required)
        .find_map(|(name, _)| {
            let value = one_sent_value(delete, calls, name)?;
            siblings
                .iter()
                .any(|sibling| answers_entity_when_sent(sibling, calls, (name, key, identity)))
                .then(|| (name.clone(), value))
        })
}

/// The one value every call of a draft sent a member with.
fn one_sent_value(draft: &Draft, calls: &[ObservedCall], member: &str) -> Option<Json> {
    let mut values = draft.calls.iter().map(|call| match &calls[*call].request {
        RequestBody::Json(body) => body.get(member).cloned(),
        _ => None,
    });
    let first = values.next()??;
    values
        .all(|value| value.as_ref() == Some(&first))
        .then_some(first)
}

/// Whether a write's calls show `member` adding the written entity to their answers (see
/// [`option_adds_entity`]); a call that sent no JSON body or got no JSON object shows nothing.
fn answers_entity_when_sent(
    sibling: &Draft,
    calls: &[ObservedCall],
    names: (&str, &str, &str),
) -> bool {
    let exchanges: Option<Vec<(&Json, &Object)>> = sibling
        .calls
        .iter()
        .map(
            |call| match (&calls[*call].request, &calls[*call].response) {
                (RequestBody::Json(body), Some(Json::Object(answer))) => Some((body, answer)),
                _ => None,
            },
        )
        .collect();
    exchanges.is_some_and(|exchanges| option_adds_entity(&exchanges, names))
}

/// Whether calls (body, answer) sent `member` on some calls and left it out on others, the
/// answers of those sending it holding exactly one top-level member more than those leaving it
/// out, an object naming the written entity (its identity field holding the call's `key`).
fn option_adds_entity(
    exchanges: &[(&Json, &Object)],
    (member, key, identity): (&str, &str, &str),
) -> bool {
    let mut sent_shapes = Vec::new();
    let mut unsent_shapes = Vec::new();
    for (body, answer) in exchanges {
        let names: Vec<String> = answer.iter().map(|(name, _)| name.to_owned()).collect();
        if body.get(member).is_none() {
            unsent_shapes.push(names);
            continue;
        }
        let named = body.get(key).and_then(crate::render::scalar_text);
        let extra: Vec<(&str, &Json)> = answer
            .iter()
            .filter(|(_, value)| {
                value.as_object().is_some()
                    && named.is_some()
                    && crate::render::identity_text(value, identity) == named
            })
            .collect();
        let [(extra_name, _)] = extra.as_slice() else {
            return false;
        };
        sent_shapes.push(
            names
                .into_iter()
                .filter(|name| name != extra_name)
                .collect(),
        );
    }
    !sent_shapes.is_empty()
        && !unsent_shapes.is_empty()
        && sent_shapes
            .iter()
            .chain(&unsent_shapes)
            .all(|shape| shape == &unsent_shapes[0])
}

/// Whether a call of the plan is a range delete's (it sends a range member, or leaves out the
/// option shown optional): a body that is no object is not.
pub(super) fn selects_range(ranged: &RangeDelete, body: Option<&serde_json::Value>) -> bool {
    let Some(serde_json::Value::Object(body)) = body else {
        return false;
    };
    ranged.members.keys().any(|name| body.contains_key(name))
        || ranged
            .option
            .as_ref()
            .is_some_and(|(name, _)| !body.contains_key(name))
}

/// The members a range delete's body may send beside the plan's: the range members (optional),
/// and the option shown optional (see [`RangeDelete::option`]).
pub fn widened_members(ranged: &RangeDelete) -> (Vec<(String, Vec<String>)>, Option<&str>) {
    let members = ranged
        .members
        .iter()
        .map(|(name, types)| (name.clone(), types.clone()))
        .collect();
    (
        members,
        ranged.option.as_ref().map(|(name, _)| name.as_str()),
    )
}

/// Serves a range delete's call (see the module docs).
pub(super) fn serve(
    service: &StateService,
    plan: &WritePlan,
    ranged: &RangeDelete,
    call: &crate::call::Call,
) -> StateAnswer {
    let body = call.body.as_ref().map(Json::from_serde_value);
    let (selection, listing) = match checked(plan, ranged, body.as_ref()) {
        Ok(checked) => checked,
        Err(problem) => return tool_error("invalid_arguments", problem),
    };
    let segments = call.segments(&plan.path_template);
    let mut live = service.write();
    // The held indexes the delete's rules read for the collection, as a one-entity call keeps.
    let input = WriteInput {
        segments: segments.clone(),
        body: Some(selection.clone()),
        listed: None,
        query: Vec::new(),
    };
    keep_held_indexes(plan, service.rules(), &mut live, &input);
    let change = match removed(service, plan, (&live, &segments), &selection) {
        Ok(change) => change,
        Err(problem) => return tool_error("not_modelled", problem),
    };
    let answer = answered(service, plan, ranged, &change, listing);
    if !answer.is_error() {
        commit(&mut live, &change);
        live.clear_refusals(&plan.tool);
    }
    answer
}

/// The call's body checked: the selection body (its key and range members) and whether the
/// answer lists the removed entities; the problem otherwise.
fn checked(
    plan: &WritePlan,
    ranged: &RangeDelete,
    body: Option<&Json>,
) -> Result<(Json, bool), String> {
    let Some(Json::Object(members)) = body else {
        return Err("the body must be a JSON object".to_owned());
    };
    let key = plan
        .target
        .as_ref()
        .and_then(|target| target.key_member.as_deref())
        .unwrap_or_default();
    let model = plan.body.as_ref().map(|body| &body.members);
    let option = ranged.option.as_ref();
    let mut selection = Object::new();
    for (name, value) in members.iter() {
        let types = ranged
            .members
            .get(name)
            .or_else(|| model?.get(name).map(|member| &member.types));
        let Some(types) = types else {
            return Err(format!(
                "the member {} is no member this write or its range takes",
                Json::from(name).to_canonical_string()
            ));
        };
        if !types.iter().any(|kind| kind == value.type_name()) {
            return Err(format!(
                "the member {} is a {}, but the recorded calls sent a {}",
                Json::from(name).to_canonical_string(),
                value.type_name(),
                types.join(" or ")
            ));
        }
        if name == key || ranged.members.contains_key(name) {
            selection.insert(name, value.clone());
        }
    }
    for (name, member) in model.into_iter().flatten() {
        let sent = members.get(name);
        let optional = option.is_some_and(|(option, _)| option == name);
        let recorded = match (option, member.fixed.as_ref()) {
            (Some((option, value)), _) if option == name => Some(value),
            (_, fixed) => fixed,
        };
        if (sent.is_none() && member.required && !optional)
            || sent
                .zip(recorded)
                .is_some_and(|(sent, recorded)| sent != recorded)
        {
            return Err(format!(
                "the member {} must be sent as the recorded calls sent it",
                Json::from(name.as_str()).to_canonical_string()
            ));
        }
    }
    let listing = option.is_none_or(|(name, _)| members.contains_key(name));
    Ok((Json::Object(selection), listing))
}

/// The change removing every entity the read's grammar selects with `selection`, the one-entity
/// delete prepared for each and the store counters stepped once; the problem otherwise.
fn removed(
    service: &StateService,
    plan: &WritePlan,
    (live, segments): (
        &crate::store::LiveState,
        &[rea_plugin_api::contracts::capture::CompactString],
    ),
    selection: &Json,
) -> Result<Change, String> {
    let key = plan
        .target
        .as_ref()
        .and_then(|target| target.key_member.as_deref())
        .unwrap_or_default();
    let entity_type = plan.entity_type().unwrap_or_default();
    let input = |body: Json| WriteInput {
        segments: segments.to_vec(),
        body: Some(body),
        listed: None,
        query: Vec::new(),
    };
    let (collection, _) = call_target(plan, &input(selection.clone()))
        .ok_or_else(|| "the call names no collection".to_owned())?;
    let held = live.collection(entity_type, &collection);
    let chosen = selected(service.rules(), selection, &held)?;
    let mut merged: Option<Change> = None;
    for entity in chosen {
        let mut body = Object::new();
        body.insert(key, Json::from(entity.id.as_str()));
        let one = super::serve::prepare_with(
            service,
            plan,
            live,
            &input(Json::Object(body)),
            &RuleCalls::Now,
        )
        .map_err(|refused| refused.message)?;
        merged = Some(match merged {
            None => one,
            Some(mut change) => {
                change.entities.extend(one.entities);
                change.positions.extend(one.positions);
                change.generated.extend(one.generated);
                change.dependents.extend(one.dependents);
                change.referrers.extend(one.referrers);
                change
            }
        });
    }
    merged.ok_or_else(|| {
        "the body's range selects no held entity; what the application answers to a delete removing nothing no recorded call shows, so nothing was changed".to_owned()
    })
}

/// The held entities the read's grammar selects with a selection body, in its order; the
/// problem when it cannot read the body or reads a term that neither filters nor sorts.
fn selected<'a>(
    rules: &RuleSet,
    selection: &Json,
    held: &[&'a Entity],
) -> Result<Vec<&'a Entity>, String> {
    let unread = || {
        "the read's body grammar cannot read this key and range, so which entities it selects is not modelled; nothing was changed".to_owned()
    };
    let terms = crate::body_query::read_body(rules, selection, held).ok_or_else(unread)?;
    let selects = terms.selection.is_none()
        && !terms.count_only
        && terms.pairs.iter().all(|(name, _)| {
            matches!(
                terms.model.role(name),
                Some(QueryRole::Filter { .. } | QueryRole::Sort)
            )
        });
    if !selects {
        return Err(unread());
    }
    crate::body_query::selected(&terms, held).ok_or_else(unread)
}

/// The recorded answer with the removed entities counted, listed (or the listing left out) and
/// the store counters stamped; an error when a removed entity lacks a member every recorded
/// answer showed.
fn answered(
    service: &StateService,
    plan: &WritePlan,
    ranged: &RangeDelete,
    change: &Change,
    listing: bool,
) -> StateAnswer {
    let Some(base) = plan
        .response
        .as_ref()
        .and_then(|response| service.kept(response.ordinal))
    else {
        return tool_error(
            "internal_error",
            "the write's recorded answer is not retained",
        );
    };
    let Some(Json::Object(mut answer)) = base.json().cloned() else {
        return tool_error(
            "internal_error",
            "the write's recorded answer is no JSON object",
        );
    };
    let removed: Vec<&Entity> = change
        .entities
        .iter()
        .filter_map(|(before, _)| before.as_ref())
        .collect();
    let count = removed.len().to_string();
    let counted = if ranged.count_text {
        Json::from(count)
    } else {
        rea_plugin_api::json::parse(count.as_bytes()).unwrap_or(Json::Null)
    };
    answer.insert(ranged.count.clone(), counted);
    if let Some(member) = &ranged.listed {
        if listing {
            for entity in &removed {
                if let Some(missing) = lacked_member(plan, entity) {
                    return tool_error(
                        "incomplete_entity",
                        format!(
                            "a removed entity lacks the member {} every recorded answer of this write carried",
                            Json::from(missing).to_canonical_string()
                        ),
                    );
                }
            }
            let items = removed.iter().map(|entity| entity.fields.clone()).collect();
            answer.insert(member.clone(), Json::Array(items));
        } else {
            answer.remove(member);
        }
    }
    let counters = change
        .counters
        .iter()
        .map(|(pointer, value)| (pointer.as_str(), value));
    let body = crate::counters::stamp(Json::Object(answer), counters);
    let source = StateSource::Write {
        source: "state",
        view: change.view,
        collection: removed.first().map(|entity| entity.collection.clone()),
        id: removed.first().map(|entity| entity.id.clone()),
        ids: Some(removed.iter().map(|entity| entity.id.clone()).collect()),
    };
    state_answer(base, body, service.replay_evidence_id(), false, source)
}

/// The first member every recorded answer showed of the removed entity that `entity` lacks.
fn lacked_member(plan: &WritePlan, entity: &Entity) -> Option<String> {
    let response = plan.response.as_ref()?;
    response
        .required_members
        .iter()
        .find(|member| entity.fields.get(member).is_none())
        .cloned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::parsed_json as json;

    fn exchanges(pairs: &[(&str, &str)]) -> Vec<(Json, Object)> {
        pairs
            .iter()
            .map(|(body, answer)| (json(body), json(answer).as_object().cloned().unwrap()))
            .collect()
    }

    fn adds(pairs: &[(&str, &str)]) -> bool {
        let owned = exchanges(pairs);
        let borrowed: Vec<(&Json, &Object)> = owned.iter().map(|(b, a)| (b, a)).collect();
        option_adds_entity(&borrowed, ("prev", "key", "key"))
    }

    #[test]
    fn an_option_is_optional_when_sending_it_only_adds_the_written_entity() {
        let unsent = (r#"{"key": "a", "value": "1"}"#, r#"{"header": {}}"#);
        let sent = (
            r#"{"key": "b", "value": "2", "prev": true}"#,
            r#"{"header": {}, "prev": {"key": "b", "value": "1"}}"#,
        );
        assert!(adds(&[unsent, sent]));
        // Never left out, or never sent: nothing shows it optional.
        assert!(!adds(&[sent]));
        assert!(!adds(&[unsent]));
        // The added member shows another entity, or the answers differ otherwise.
        let other = (sent.0, r#"{"header": {}, "prev": {"key": "z"}}"#);
        assert!(!adds(&[unsent, other]));
        let more = (
            sent.0,
            r#"{"header": {}, "extra": 1, "prev": {"key": "b"}}"#,
        );
        assert!(!adds(&[unsent, more]));
    }

    #[test]
    fn a_range_member_is_a_body_member_comparing_the_identity_by_order() {
        let terms = crate::body_query::BodyTerms {
            pairs: [("key", "a"), ("end", "b"), ("limit", "2"), ("title", "t")]
                .map(|(name, value)| (name.to_owned(), value.to_owned()))
                .to_vec(),
            model: crate::model::QueryModel::of_roles(&[
                ("key", QueryRole::filter("key", "gte")),
                ("end", QueryRole::filter("key", "lt")),
                ("limit", QueryRole::PageSize),
                ("title", QueryRole::filter("title", "lt")),
            ]),
            selection: None,
            named: Default::default(),
            sorts: false,
            encodings: Default::default(),
            count_only: false,
        };
        let body = json(r#"{"key": "a", "end": "b", "limit": 2, "title": "t"}"#);
        assert_eq!(ranging_members(&terms, &body, "key", "key"), ["end"]);
        // A term whose value no body member holds as sent is no member of the body.
        let spelled = json(r#"{"key": "a", "end": "c"}"#);
        assert!(ranging_members(&terms, &spelled, "key", "key").is_empty());
    }

    fn ranged(option: bool) -> RangeDelete {
        RangeDelete {
            read_tool: "post_range".to_owned(),
            members: [("end".to_owned(), vec!["string".to_owned()])].into(),
            count: "deleted".to_owned(),
            count_text: true,
            listed: Some("removed".to_owned()),
            option: option.then(|| ("prev".to_owned(), Json::Bool(true))),
        }
    }

    #[test]
    fn a_call_selects_a_range_when_it_sends_one_or_leaves_the_option_out() {
        let value = |text: &str| serde_json::from_str::<serde_json::Value>(text).unwrap();
        let with_option = ranged(true);
        assert!(selects_range(
            &with_option,
            Some(&value(r#"{"key": "a", "end": "b"}"#))
        ));
        assert!(selects_range(&with_option, Some(&value(r#"{"key": "a"}"#))));
        assert!(!selects_range(
            &with_option,
            Some(&value(r#"{"key": "a", "prev": true}"#))
        ));
        assert!(!selects_range(&with_option, Some(&value("[1]"))));
        assert!(!selects_range(&with_option, None));
        // Without an option shown optional, only a range member selects one.
        assert!(!selects_range(
            &ranged(false),
            Some(&value(r#"{"key": "a"}"#))
        ));
    }

    fn plan() -> WritePlan {
        serde_json::from_value(serde_json::json!({
            "tool": "post_delete", "method": "POST", "path_template": "/kv/delete",
            "effect": "delete", "bulk": false, "served": true,
            "record_ordinals": [], "confirmed_by": [], "rules": [],
            "target": {"type": "/kv", "identity_field": "key", "collection_segments": 1,
                       "key_member": "key"},
            "body": {"envelope": "", "query": [], "none": false, "members": {
                "key": {"types": ["string"], "required": true, "fixed": null},
                "prev": {"types": ["boolean"], "required": true, "fixed": null}
            }}
        }))
        .expect("plan")
    }

    #[test]
    fn a_range_body_is_checked_and_split_into_its_selection() {
        let plan = plan();
        let check = |option: bool, body: &str| checked(&plan, &ranged(option), Some(&json(body)));
        let (selection, listing) = check(true, r#"{"key": "a", "end": "b"}"#).unwrap();
        assert_eq!(selection, json(r#"{"key": "a", "end": "b"}"#));
        assert!(!listing);
        let (selection, listing) =
            check(true, r#"{"key": "a", "end": "b", "prev": true}"#).unwrap();
        assert_eq!(selection, json(r#"{"key": "a", "end": "b"}"#));
        assert!(listing);
        // An unknown member, a mistyped one, the option with another value.
        assert!(check(true, r#"{"key": "a", "limit": 1}"#).is_err());
        assert!(check(true, r#"{"key": "a", "end": 3}"#).is_err());
        assert!(check(true, r#"{"key": "a", "end": "b", "prev": false}"#).is_err());
        // Without an option shown optional, every recorded member stays required.
        assert!(check(false, r#"{"key": "a", "end": "b"}"#).is_err());
        assert!(check(false, r#"{"key": "a", "end": "b", "prev": true}"#).is_ok());
    }

    #[test]
    fn the_listing_is_the_member_whose_array_showed_the_removed_entity() {
        let mut plan = plan();
        let response = |kind: &str, pointer: Option<&str>| {
            serde_json::from_value(serde_json::json!({
                "ordinal": 1, "status": 200, "media_type": "application/json",
                "kind": kind, "pointer": pointer, "required_members": []
            }))
            .expect("response")
        };
        plan.response = Some(response("entity", Some("/removed/0")));
        assert_eq!(listing_member(&plan), Some(Some("removed".to_owned())));
        plan.response = Some(response("recorded", None));
        assert_eq!(listing_member(&plan), Some(None));
        // An entity at the root or deeper than one array member lists no range.
        plan.response = Some(response("entity", Some("")));
        assert_eq!(listing_member(&plan), None);
        plan.response = Some(response("entity", Some("/a/b/0")));
        assert_eq!(listing_member(&plan), None);
    }
}

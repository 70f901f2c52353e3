//! Member writes (passes 2 to 4 for one kind of target, and serving): a `PUT` or `DELETE` of a
//! member view's path plus a key segment (`/-/package/{name}/dist-tags/{tag}` beside the view
//! `/-/package/{name}/dist-tags` showing a package's `dist-tags` map, see
//! [`super::target`]) sets that key of the map to the body sent, or removes it. The entity is
//! otherwise unchanged, so what else such a write changes (a revision it steps) is left to the
//! reads after it: a read of the entity showing more than the member changed contradicts the
//! plan, as for any write.
//!
//! Learned from the calls' bodies (any JSON value, of the types the recorded calls sent, or none
//! for a removal) and their answer; confirmed by the reads of the member view after them (each
//! read agreeing with the replayed state confirms the entity's last write, one disagreeing
//! blames it).

use rea_plugin_api::contracts::capture::CompactString;
use rea_plugin_api::json::Json;

use super::apply::{
    Change, Refused, Values, WriteInput, member_rule_effects, path_value, set_effects,
};
use super::explain::{Explanation, Observed, learn_request, template_segments};
use super::model::{BodyModel, Effect, FieldModel, MemberWrite, WritePlan};
use super::observe::{After, Call};
use super::{Draft, Views};
use crate::model::{Entity, MemberStep};
use crate::observation::{RequestBody, Timeline};
use crate::rules::RuleSet;
use crate::store::LiveState;

/// The entity `fields` after a member write: the member its steps name (the keys a call's path
/// gives, through `value_at`) set to `body`, or removed. `None` when a step before the last
/// names nothing the entity holds as an object, or a removal names a key it lacks.
pub(crate) fn member_written(
    fields: &Json,
    member: &MemberWrite,
    value_at: impl Fn(usize) -> Option<String>,
    body: Option<&Json>,
) -> Option<Json> {
    let keys: Vec<String> = member
        .steps
        .iter()
        .map(|step| match step {
            MemberStep::Key(key) => Some(key.clone()),
            MemberStep::Segment(index) => value_at(*index),
            MemberStep::Via(_) | MemberStep::Or(_) => None,
        })
        .collect::<Option<_>>()?;
    let (last, parents) = keys.split_last()?;
    let mut after = fields.clone();
    let mut object = &mut after;
    for key in parents {
        object = match object {
            Json::Object(members) => members.get_mut(key)?,
            _ => return None,
        };
    }
    let Json::Object(map) = object else {
        return None;
    };
    if member.remove {
        map.remove(last)?;
    } else {
        map.insert(last, body?.clone());
    }
    Some(after)
}

/// The entity a member write names: its type, the member view's collection and the id its path
/// segment gives (as held: decoded, else as spelled).
fn named_entity<'s>(
    plan: &WritePlan,
    state: &'s LiveState,
    segments: &[CompactString],
) -> Option<&'s Entity> {
    let target = plan.target.as_ref()?;
    let (entity_type, collection) = (
        target.entity_type.as_deref()?,
        target.collection.as_deref()?,
    );
    let at = target.entity_segment?;
    let id = path_value(plan, segments, at)?;
    state.entity(entity_type, collection, &id).or_else(|| {
        let spelled = segments.get(at)?;
        state.entity(entity_type, collection, spelled)
    })
}

/// A served (or replayed) member write's change: the named entity with its member set or
/// removed, then what the plan's rules set besides it (a revision the write steps); refused
/// (`not_found`) for an entity the state lacks or a member it cannot hold.
pub(crate) fn prepare(
    plan: &WritePlan,
    rules: &RuleSet,
    (state, input, values): (&LiveState, &WriteInput, &Values<'_>),
) -> Result<Change, Refused> {
    let Some(member) = plan
        .target
        .as_ref()
        .and_then(|target| target.member.as_ref())
    else {
        return Err(Refused {
            code: "internal_error",
            message: "the plan names no member".to_owned(),
        });
    };
    let mut change = Change::of(Effect::Update);
    let Some(before) = named_entity(plan, state, &input.segments) else {
        change.missing = true;
        return Ok(change);
    };
    let value_at = |index| path_value(plan, &input.segments, index);
    let Some(fields) = member_written(&before.fields, member, value_at, input.body.as_ref()) else {
        return Err(Refused {
            code: "not_found",
            message: "the entity holds no such member for this write to change".to_owned(),
        });
    };
    let mut after = before.clone();
    after.fields = fields;
    if !plan.rules.is_empty() {
        let applied = (state, input, values);
        let effects =
            member_rule_effects(plan, rules, applied, &before.collection, &before.fields)?;
        set_effects(&mut after.fields, &effects);
    }
    change.entities.push((Some(before.clone()), Some(after)));
    change.positions.push(None);
    change.generated.push(Default::default());
    Ok(change)
}

/// Pass 2 for a member write: the entity it names, before, and after as the write leaves it
/// (the sent value in the member; or, when the first read of the entity by id in the call's
/// window shows that and top-level scalars beside the member stepped, as that read shows it:
/// see [`stepped_beside`]), which the simulation adopts; nothing when the entity is not held.
pub(crate) fn observe(
    draft: &Draft,
    call: &mut Call,
    sim: &mut LiveState,
    (timeline, views): (&Timeline, &Views),
) {
    let plan = &draft.plan;
    let Some(target) = plan.target.as_ref() else {
        return;
    };
    let Some(before) = named_entity(plan, sim, &call.segments).cloned() else {
        return;
    };
    call.key = Some((
        before.entity_type.clone(),
        target.collection.clone().unwrap_or_default(),
        before.id.clone(),
    ));
    let body = match &call.request {
        RequestBody::Json(body) => Some(body),
        _ => None,
    };
    let after = target.member.as_ref().and_then(|member| {
        let value_at = |index| path_value(plan, &call.segments, index);
        let written = member_written(&before.fields, member, value_at, body)?;
        let shown = super::observe::first_shown(timeline, views, call);
        Some(stepped_beside(written, shown, member))
    });
    if let Some(fields) = &after {
        let mut entity = before.clone();
        entity.fields = fields.clone();
        sim.insert_entity(entity, &crate::store::Position::Last);
    }
    call.after = after.map_or(After::Unobserved, After::Present);
    call.before = Some(before);
}

/// The entity after a member write: as the read after it `shown` it when that differs from the
/// `written` fields (the sent value in the member) only in top-level scalars other than the
/// member's own (a revision the write stepped, which the rules may explain); else as written.
fn stepped_beside(written: Json, shown: Option<Json>, member: &MemberWrite) -> Json {
    let own = match member.steps.first() {
        Some(MemberStep::Key(key)) => key.as_str(),
        _ => return written,
    };
    let (Some(Json::Object(shown_fields)), Json::Object(written_fields)) = (&shown, &written)
    else {
        return written;
    };
    let same_keys = shown_fields.len() == written_fields.len()
        && shown_fields
            .iter()
            .all(|(key, _)| written_fields.contains_key(key));
    let stepped_only = shown_fields.iter().all(|(key, value)| {
        let held = written_fields.get(key);
        held == Some(value)
            || (key != own
                && matches!(value, Json::String(_) | Json::Number(_))
                && held.is_some_and(|held| matches!(held, Json::String(_) | Json::Number(_))))
    });
    match shown {
        Some(shown) if same_keys && stepped_only => shown,
        _ => written,
    }
}

/// The rules explaining what a member write's observed calls changed beside the member (see
/// [`stepped_beside`]): learned from each call's entity with the member written against the
/// entity the read after it showed, and kept only when they explain every such change (else
/// the plan models the member alone, and the reads after it judge it as before).
fn learn_stepped(draft: &mut Draft, calls: &[Call], (views, rules): (&Views, &RuleSet)) {
    let Some(member) = draft
        .plan
        .target
        .as_ref()
        .and_then(|target| target.member.clone())
    else {
        return;
    };
    let stepped: Vec<Call> = draft
        .calls
        .iter()
        .filter_map(|index| written_before(&draft.plan, &calls[*index], &member))
        .collect();
    if stepped.is_empty() {
        return;
    }
    let sent = rea_plugin_api::json::Object::new();
    let observed: Vec<Observed<'_>> = stepped
        .iter()
        .map(|call| Observed { call, sent: &sent })
        .collect();
    let identity = draft
        .plan
        .target
        .as_ref()
        .and_then(|target| target.entity_type.as_ref())
        .and_then(|entity_type| views.types.get(entity_type))
        .map_or_else(String::new, |info| info.identity.clone());
    let template = template_segments(&draft.plan.path_template);
    let mut explanation = Explanation::of_calls(Effect::Update, &observed, &template);
    let all: Vec<&Call> = draft.calls.iter().map(|index| &calls[*index]).collect();
    let request = learn_request(&draft.plan, false, &all, &observed, &identity, &template);
    let mut learned = draft.plan.clone();
    learned.rules.clear();
    explanation.run_rules(&mut learned, rules, request);
    if !explanation.unexplained() {
        draft.plan.rules = learned.rules;
    }
}

/// A call whose read after it showed more than its member written, with its entity before
/// taken as the member written (so what remains changed is what it stepped beside); `None`
/// for a call observed as written.
fn written_before(plan: &WritePlan, call: &Call, member: &MemberWrite) -> Option<Call> {
    let (Some(before), After::Present(after)) = (&call.before, &call.after) else {
        return None;
    };
    let body = match &call.request {
        RequestBody::Json(body) => Some(body),
        _ => None,
    };
    let value_at = |index| path_value(plan, &call.segments, index);
    let written = member_written(&before.fields, member, value_at, body)?;
    if written == *after {
        return None;
    }
    let mut stepped = call.clone();
    if let Some(before) = stepped.before.as_mut() {
        before.fields = written;
    }
    Some(stepped)
}

/// Pass 3 for a member write: the body its calls sent (a JSON value, or none for a removal), the
/// calls that wrote a held entity, the answer, and the rules of what it steps beside the member.
pub(crate) fn learn(
    draft: &mut Draft,
    calls: &[Call],
    records: &[rea_plugin_api::contracts::capture::CaptureRecord],
    learning: (&Views, &RuleSet),
) {
    let remove = draft
        .plan
        .target
        .as_ref()
        .and_then(|target| target.member.as_ref())
        .is_some_and(|member| member.remove);
    draft.calls.retain(|call| calls[*call].before.is_some());
    super::learn::note_calls(draft, calls);
    if draft.calls.is_empty() {
        return draft.plan.withhold("no-observation");
    }
    let mut types: Vec<String> = Vec::new();
    for call in &draft.calls {
        match (&calls[*call].request, remove) {
            (RequestBody::Json(body), false) => {
                let name = body.type_name().to_owned();
                if !types.contains(&name) {
                    types.push(name);
                }
            }
            (RequestBody::Missing, true) => {}
            _ => return draft.plan.withhold("body-unusable"),
        }
    }
    types.sort();
    if let Some(member) = draft
        .plan
        .target
        .as_mut()
        .and_then(|target| target.member.as_mut())
    {
        member.types = types;
    }
    draft.plan.body = Some(BodyModel {
        query: calls[draft.calls[0]].query.clone().unwrap_or_default(),
        none: remove,
        ..BodyModel::default()
    });
    draft.plan.fields = Some(FieldModel::default());
    match super::learn::member_response(draft, calls, records) {
        Ok(response) => draft.plan.response = Some(response),
        Err(reason) => return draft.plan.withhold(reason),
    }
    learn_stepped(draft, calls, learning);
}

/// A served member write's body: of a type the recorded calls sent (any JSON value), or none
/// for a removal. The problem, when it is not.
pub(crate) fn check_body(member: &MemberWrite, body: Option<&Json>) -> Result<(), String> {
    match (member.remove, body) {
        (true, None) => Ok(()),
        (true, Some(_)) => Err("this write takes no body".to_owned()),
        (false, None) => Err("this write takes a JSON body: the member's new value".to_owned()),
        (false, Some(body)) if member.types.iter().any(|name| name == body.type_name()) => Ok(()),
        (false, Some(_)) => Err(format!(
            "the body must be a JSON value of type {} (as the recorded calls sent)",
            member.types.join(" or ")
        )),
    }
}

/// A member view indexed for the confirmation: the type and collection its entity is held in,
/// and the segment naming it.
#[derive(Debug, Clone)]
pub(crate) struct MemberScope {
    /// The type.
    pub entity_type: String,
    /// The collection key.
    pub collection: String,
    /// The path segment naming the entity.
    pub entity_segment: usize,
}

impl Views {
    /// Indexes a member view's reads.
    pub(crate) fn add_member(&mut self, tool: usize, member: &crate::model::MemberView) {
        self.member_reads.insert(
            tool,
            MemberScope {
                entity_type: member.entity_type.clone(),
                collection: crate::derive::entities::collection_key(&member.collection).to_owned(),
                entity_segment: member.entity_segment,
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::parsed_json as json;

    fn tag_write(remove: bool) -> MemberWrite {
        MemberWrite {
            steps: vec![
                MemberStep::Key("dist-tags".to_owned()),
                MemberStep::Segment(4),
            ],
            remove,
            types: vec!["string".to_owned()],
        }
    }

    #[test]
    fn a_member_write_sets_or_removes_one_key_of_the_map() {
        let fields = json(r#"{"name": "a", "dist-tags": {"latest": "1.0.0"}, "versions": {}}"#);
        let key = |index: usize| (index == 4).then(|| "beta".to_owned());
        let set = member_written(&fields, &tag_write(false), key, Some(&json(r#""1.1.0""#)));
        assert_eq!(
            set,
            Some(json(
                r#"{"name": "a", "dist-tags": {"latest": "1.0.0", "beta": "1.1.0"}, "versions": {}}"#
            ))
        );
        let latest = |_: usize| Some("latest".to_owned());
        let removed = member_written(&fields, &tag_write(true), latest, None);
        assert_eq!(
            removed,
            Some(json(r#"{"name": "a", "dist-tags": {}, "versions": {}}"#))
        );
        // A key the map lacks cannot be removed; a map the entity lacks cannot be written; a
        // set needs a value.
        assert_eq!(member_written(&fields, &tag_write(true), key, None), None);
        let bare = json(r#"{"name": "a"}"#);
        assert_eq!(
            member_written(&bare, &tag_write(false), key, Some(&json("1"))),
            None
        );
        assert_eq!(member_written(&fields, &tag_write(false), key, None), None);
    }

    #[test]
    fn a_read_after_showing_scalars_stepped_beside_the_member_is_the_entity_after() {
        let written = json(r#"{"_rev": "9-aa", "n": 1, "dist-tags": {"b": "1"}, "v": {}}"#);
        let shown = |text: &str| Some(json(text));
        // A revision stepped beside the member: as the read showed it.
        let stepped = shown(r#"{"_rev": "10-bb", "n": 1, "dist-tags": {"b": "1"}, "v": {}}"#);
        assert_eq!(
            stepped_beside(written.clone(), stepped.clone(), &tag_write(false)),
            stepped.expect("shown")
        );
        // No read, the member itself shown otherwise, an object member changed, a member added
        // or a scalar turned into another kind: as written.
        for other in [
            None,
            shown(r#"{"_rev": "10-bb", "n": 1, "dist-tags": {"b": "2"}, "v": {}}"#),
            shown(r#"{"_rev": "9-aa", "n": 1, "dist-tags": {"b": "1"}, "v": {"x": 1}}"#),
            shown(r#"{"_rev": "9-aa", "n": 1, "dist-tags": {"b": "1"}, "v": {}, "w": 1}"#),
            shown(r#"{"_rev": null, "n": 1, "dist-tags": {"b": "1"}, "v": {}}"#),
        ] {
            assert_eq!(
                stepped_beside(written.clone(), other.clone(), &tag_write(false)),
                written,
                "{other:?}"
            );
        }
    }

    #[test]
    fn a_member_write_body_is_a_value_of_a_recorded_type_or_none() {
        assert!(check_body(&tag_write(false), Some(&json(r#""1.0.0""#))).is_ok());
        assert!(check_body(&tag_write(false), Some(&json("{}"))).is_err());
        assert!(check_body(&tag_write(false), None).is_err());
        assert!(check_body(&tag_write(true), None).is_ok());
        assert!(check_body(&tag_write(true), Some(&json(r#""x""#))).is_err());
    }
}

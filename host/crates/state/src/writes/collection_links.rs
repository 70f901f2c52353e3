//! Collection link writes (after the four passes, for a withheld write): a write of a relation
//! list's path (`/project/{id}/tasks`, a list view under a parent, see
//! [`crate::relations::ParentSegment`]) or of that path plus one parameter segment naming a
//! member (`/project/{id}/tasks/{fk}`) that changes the members' reference to the parent:
//!
//! | form | path | body | effect on each named child |
//! | --- | --- | --- | --- |
//! | add | list path + `/{fk}` | none | its reference set to the parent (moved out of another) |
//! | remove | list path + `/{fk}` (`DELETE`) | none | its reference cleared where it named the parent |
//! | replace | list path | an array of the children's ids | the named set, the parent's others cleared |
//!
//! The child's member is the list's parent field (`project` of `project.id`); the change is
//! applied through a served update of the child type whose sent references name the parent's
//! type in that member (`PATCH /task/{id} {"project": 2}`), so the link is spelled, and the
//! update's rules (its clock) stamped, as that update stores them. Learned when every successful
//! call answered the parent (its identity member naming it), each named child was held before
//! the call, and every child the reads after showed by id (at least one per call) holds the
//! member as the form sets it: naming the parent, or `null`. Served by applying the update to
//! each child, then answering the parent's item view. Refused, nothing changed: a parent or child
//! the state does not hold, a replace body that is not an array of ids.

use rea_manifest::segments::{split_path, template_affixes};
use rea_plugin_api::contracts::capture::CompactString;
use rea_plugin_api::json::{Json, Object};
use serde::{Deserialize, Serialize};

use super::apply::{WriteInput, commit};
use super::model::{Effect, WritePlan};
use super::observe::{Call, first_shown_after};
use super::referenced::{Key, held_before};
use super::{Draft, Views};
use crate::answer::{StateAnswer, tool_error};
use crate::model::{StateView, ViewDetail};
use crate::observation::{Observation, RequestBody, Timeline, decoded};
use crate::render::scalar_text;
use crate::service::StateService;
use crate::store::LiveState;

/// What a collection link write does, by its form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LinkForm {
    /// Links the child its path's last segment names.
    Add,
    /// Unlinks the child its path's last segment names.
    Remove,
    /// Links the children its body's array names and unlinks the parent's others.
    Replace,
}

/// How a collection link write names its parent and children, and the update applying it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinksModel {
    /// The form.
    pub form: LinkForm,
    /// The parent's type (collection template).
    pub parent_type: String,
    /// The path segment naming the parent.
    pub parent_segment: usize,
    /// The parent type's item view, which answers the call.
    pub parent_view: String,
    /// The children's type.
    pub child_type: String,
    /// The children's member holding the parent.
    pub member: String,
    /// The served update of the child type that sets the member.
    pub through: String,
    /// The link object's members, each the parent's own (empty: the member holds the parent's
    /// id), as the update's sent reference shows them.
    pub shown: Vec<String>,
}

/// The relation list a write's path names, and the form its method and path give: the list
/// view under a parent whose path is the write's (replace) or the write's less a last parameter
/// segment (add, remove); its children's type and member, and the parent's segment.
fn relation_list(
    state: &StateView,
    template: &str,
    method: &str,
) -> Option<(LinkForm, String, String, usize)> {
    let segments = split_path(template);
    let shorter = segments
        .split_last()
        .filter(|(last, _)| template_affixes(last).is_some())
        .map(|(_, rest)| rest.to_vec());
    state.views.iter().find_map(|view| {
        let ViewDetail::List(list) = &view.detail else {
            return None;
        };
        let parent = list
            .parent
            .as_ref()
            .filter(|parent| parent.fixed.is_empty())?;
        let own = split_path(&view.path_template);
        let form = match method {
            "PUT" | "POST" if own == segments => LinkForm::Replace,
            "PUT" | "POST" if Some(&own) == shorter.as_ref() => LinkForm::Add,
            "DELETE" if Some(&own) == shorter.as_ref() => LinkForm::Remove,
            _ => return None,
        };
        let member = parent.field.split('.').next()?.to_owned();
        Some((form, list.entity_type.clone(), member, parent.segment))
    })
}

/// The update of the child type applying the link: a one-entity update (no bulk, action or
/// replacing body) whose sent references name the parent's type in the member, open or served
/// (`PATCH` first); its tool and the reference's shown members.
fn applying_update(
    drafts: &[Draft],
    (child_type, member, parent_type): (&str, &str, &str),
    served: bool,
) -> Option<(String, Vec<String>)> {
    let fits = |draft: &&Draft| {
        let plan = &draft.plan;
        plan.effect == Effect::Update
            && !plan.bulk
            && plan.action.is_none()
            && (plan.served || (!served && plan.reason.is_none()))
            && plan.fields.as_ref().is_some_and(|fields| !fields.replace)
            && plan
                .target
                .as_ref()
                .is_some_and(|target| target.entity_type.as_deref() == Some(child_type))
    };
    let mut fitting: Vec<&Draft> = drafts.iter().filter(fits).collect();
    fitting.sort_by_key(|draft| draft.plan.method != "PATCH");
    fitting.into_iter().find_map(|draft| {
        let reference =
            draft.plan.references.iter().find(|reference| {
                reference.member == member && reference.target_type == parent_type
            })?;
        Some((draft.plan.tool.clone(), reference.shown.clone()))
    })
}

/// The body's description in the tool's input schema.
pub fn described(model: &LinksModel) -> String {
    match model.form {
        LinkForm::Replace => format!(
            "Request body, applied to the environment state: the array of the {} ids the parent's collection is replaced by (each other member of the collection has its {:?} cleared)",
            model.child_type, model.member
        ),
        LinkForm::Add | LinkForm::Remove => "No request body".to_owned(),
    }
}

/// Learns the collection link writes among the withheld drafts: before the replay the model
/// alone (its calls then replayed with it), after it (`serve`) the drafts with a model whose
/// update is served are served.
pub(super) fn learn(
    drafts: &mut [Draft],
    (calls, views): (&[Call], &Views),
    state: &StateView,
    timeline: &Timeline,
    serve: bool,
) {
    for index in 0..drafts.len() {
        let plan = &drafts[index].plan;
        if plan.served
            || plan.reason.is_none()
            || plan.relationship.is_some()
            || plan.to_many.is_some()
        {
            continue;
        }
        let model = match &plan.links {
            Some(model) => Some(model.clone()),
            None => model_of(drafts, index, (calls, views), state, timeline),
        };
        let Some(model) = model else {
            continue;
        };
        let served_update = drafts
            .iter()
            .any(|draft| draft.plan.tool == model.through && draft.plan.served);
        let plan = &mut drafts[index].plan;
        plan.links = Some(model);
        if serve && served_update {
            plan.effect = Effect::Update;
            super::batch::mark_served(plan);
        }
    }
}

/// The model a draft's calls agree on (at least one successful call), see the module docs.
fn model_of(
    drafts: &[Draft],
    index: usize,
    (calls, views): (&[Call], &Views),
    state: &StateView,
    timeline: &Timeline,
) -> Option<LinksModel> {
    let plan = &drafts[index].plan;
    let (form, child_type, member, segment) =
        relation_list(state, &plan.path_template, &plan.method)?;
    let (parent_type, parent_segment) = super::to_many::parent_of(&plan.path_template, views)?;
    let parent_view = state
        .types
        .iter()
        .find(|known| known.collection_template == parent_type)?
        .item_view
        .clone()?;
    let (through, shown) = applying_update(drafts, (&child_type, &member, &parent_type), false)?;
    let model = LinksModel {
        form,
        parent_type,
        parent_segment,
        parent_view,
        child_type,
        member,
        through,
        shown,
    };
    let successes: Vec<&Observation> = timeline
        .all(drafts[index].tool)
        .filter(|call| call.is_success())
        .collect();
    let agreed = !successes.is_empty()
        && segment == parent_segment
        && successes
            .iter()
            .all(|call| shows_links(&model, call, (calls, views), state, timeline));
    agreed.then_some(model)
}

/// Whether one recorded call agrees with the model: it answered the parent, its children were
/// held, and the reads after show each child they show by id linked as the form says (one at
/// least).
fn shows_links(
    model: &LinksModel,
    call: &Observation,
    (calls, views): (&[Call], &Views),
    state: &StateView,
    timeline: &Timeline,
) -> bool {
    let held = held_before(state, calls, call.ordinal);
    let Some(parent_id) = call.segments.get(model.parent_segment).map(|s| decoded(s)) else {
        return false;
    };
    let identity = |entity_type: &str| {
        views
            .types
            .get(entity_type)
            .map(|info| info.identity.trim_start_matches('/').to_owned())
    };
    let Some(parent_identity) = identity(&model.parent_type) else {
        return false;
    };
    let answered = call
        .body
        .as_ref()
        .and_then(|body| body.get(&parent_identity))
        .and_then(scalar_text);
    if answered.as_deref() != Some(parent_id.as_str()) {
        return false;
    }
    let body = match &call.request {
        RequestBody::Json(body) => Some(body),
        _ => None,
    };
    let children: Vec<(&Key, &Json)> = held
        .iter()
        .filter(|(key, _)| key.0 == model.child_type)
        .collect();
    let by_id: Vec<(&str, &Json)> = children
        .iter()
        .map(|(key, fields)| (key.2.as_str(), *fields))
        .collect();
    let ids = (parent_id.as_str(), parent_identity.as_str());
    let Ok(changes) = planned(model, (&call.segments, body), &by_id, ids) else {
        return false;
    };
    let mut shown = 0;
    for (id, links) in changes {
        let Some((key, _)) = children.iter().find(|(key, _)| key.2 == id) else {
            return false;
        };
        let Some(after) = first_shown_after(timeline, views, call.ordinal, key) else {
            continue;
        };
        let value = after.get(&model.member).unwrap_or(&Json::Null);
        let agrees = match links {
            true => names(value, &parent_id, &parent_identity),
            false => *value == Json::Null,
        };
        if !agrees {
            return false;
        }
        shown += 1;
    }
    shown > 0
}

/// Whether a member's value names the parent: its id, or an object whose identity member holds
/// it.
fn names(value: &Json, parent_id: &str, identity: &str) -> bool {
    let held = match value {
        Json::Object(object) => object.get(identity),
        scalar => Some(scalar),
    };
    held.and_then(scalar_text).as_deref() == Some(parent_id)
}

/// The ids a call names: its path's last segment (add, remove) or its body's array of ids
/// (replace); or why it is refused.
fn named_ids(
    form: LinkForm,
    segments: &[CompactString],
    body: Option<&Json>,
) -> Result<Vec<String>, String> {
    if form != LinkForm::Replace {
        return segments
            .last()
            .map(|last| vec![decoded(last)])
            .ok_or_else(|| "the path names no member".to_owned());
    }
    let Some(Json::Array(items)) = body else {
        return Err("the body must be an array of the members' ids".to_owned());
    };
    let mut ids: Vec<String> = Vec::new();
    for item in items {
        let id = match item {
            Json::Object(_) | Json::Array(_) | Json::Null => None,
            scalar => scalar_text(scalar),
        }
        .ok_or_else(|| format!("{} is no member's id", item.to_canonical_string()))?;
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    Ok(ids)
}

/// The children a call changes, each with whether it is linked (else unlinked), among the held
/// children (id, fields); or why it is refused (a named child not held).
fn planned(
    model: &LinksModel,
    (segments, body): (&[CompactString], Option<&Json>),
    children: &[(&str, &Json)],
    (parent_id, parent_identity): (&str, &str),
) -> Result<Vec<(String, bool)>, String> {
    let ids = named_ids(model.form, segments, body)?;
    let linked = |fields: &Json| {
        names(
            fields.get(&model.member).unwrap_or(&Json::Null),
            parent_id,
            parent_identity,
        )
    };
    let mut changes = Vec::new();
    for id in &ids {
        let (_, fields) = children
            .iter()
            .find(|(held, _)| held == id)
            .ok_or_else(|| format!("no {} {id} is held", model.child_type))?;
        if model.form != LinkForm::Remove || linked(fields) {
            changes.push((id.clone(), model.form != LinkForm::Remove));
        }
    }
    if model.form == LinkForm::Replace {
        for (id, fields) in children {
            if !ids.iter().any(|named| named == id) && linked(fields) {
                changes.push(((*id).to_owned(), false));
            }
        }
    }
    Ok(changes)
}

/// The identity member of a type's entities (`id`).
fn identity_of(views: &Views, entity_type: &str) -> Option<String> {
    let info = views.types.get(entity_type)?;
    Some(info.identity.trim_start_matches('/').to_owned())
}

/// The value a linked child's member holds: the parent's id, or the link object of the members
/// the update's reference shows.
fn link_value(model: &LinksModel, parent: &Json, identity: &str) -> Option<Json> {
    if model.shown.is_empty() {
        return parent.get(identity).cloned();
    }
    let mut link = Object::new();
    for member in &model.shown {
        link.insert(member, parent.get(member)?.clone());
    }
    Some(Json::Object(link))
}

/// The object of an answer (at any depth) showing the child: its identity member holding the
/// id, beside the linking member.
fn shown_child<'a>(
    answer: &'a Json,
    (identity, id, member): (&str, &str, &str),
) -> Option<&'a Json> {
    match answer {
        Json::Object(object) => {
            let this = object.get(identity).and_then(scalar_text).as_deref() == Some(id)
                && object.contains_key(member);
            if this {
                return Some(answer);
            }
            object
                .iter()
                .find_map(|(_, inner)| shown_child(inner, (identity, id, member)))
        }
        Json::Array(items) => items
            .iter()
            .find_map(|inner| shown_child(inner, (identity, id, member))),
        _ => None,
    }
}

/// Replays a recorded call on the simulated state (pass 4): each child's member as the model
/// sets it, and its other scalar members as the call's answer shows the child (the clock the
/// update stamped); the keys written, or `None` when the model does not apply (then adopted).
pub(super) fn replay(
    live: &mut LiveState,
    (model, views): (&LinksModel, &Views),
    call: &Call,
) -> Option<Vec<Key>> {
    let request = call.recorded_request.as_ref().unwrap_or(&call.request);
    let body = match request {
        RequestBody::Json(body) => Some(body),
        _ => None,
    };
    let parent_id = decoded(call.segments.get(model.parent_segment)?);
    let parent_identity = identity_of(views, &model.parent_type)?;
    let child_identity = identity_of(views, &model.child_type)?;
    let parent = live
        .entities()
        .find(|entity| entity.entity_type == model.parent_type && entity.id == parent_id)?;
    let link = link_value(model, &parent.fields, &parent_identity)?;
    let children: Vec<crate::model::Entity> = live
        .entities()
        .filter(|entity| entity.entity_type == model.child_type)
        .cloned()
        .collect();
    let by_id: Vec<(&str, &Json)> = children
        .iter()
        .map(|child| (child.id.as_str(), &child.fields))
        .collect();
    let ids = (parent_id.as_str(), parent_identity.as_str());
    let changes = planned(model, (&call.segments, body), &by_id, ids).ok()?;
    let mut keys = Vec::new();
    for (id, links) in changes {
        let mut after = children.iter().find(|child| child.id == id)?.clone();
        let Json::Object(fields) = &mut after.fields else {
            return None;
        };
        fields.insert(&model.member, if links { link.clone() } else { Json::Null });
        let shown = (child_identity.as_str(), id.as_str(), model.member.as_str());
        if let Some(Json::Object(shown)) = call
            .response
            .as_ref()
            .and_then(|answer| shown_child(answer, shown))
        {
            for (name, value) in shown.iter() {
                let scalar = !matches!(value, Json::Object(_) | Json::Array(_));
                let held = fields
                    .get(name)
                    .is_some_and(|held| !matches!(held, Json::Object(_) | Json::Array(_)));
                if name != model.member && scalar && held {
                    fields.insert(name, value.clone());
                }
            }
        }
        keys.push(crate::store::key_of(&after));
        live.update_entity(after, None);
    }
    Some(keys)
}

/// The path segments of the update's call writing one child: its template's, the parameter
/// segment giving the child's id.
fn child_segments(template: &str, id: &str) -> Vec<CompactString> {
    split_path(template)
        .iter()
        .map(|segment| match template_affixes(segment) {
            Some(_) => id.into(),
            None => (*segment).into(),
        })
        .collect()
}

/// What a served call changes: each child's id with the member's new value; or the refusal.
fn served_changes(
    service: &StateService,
    model: &LinksModel,
    (segments, body): (&[CompactString], Option<&Json>),
) -> Result<Vec<(String, Json)>, StateAnswer> {
    let identity = |entity_type: &str| {
        service
            .derived()
            .types
            .iter()
            .find(|known| known.collection_template == entity_type)
            .map(|known| known.identity_field.clone())
    };
    let parent_identity = identity(&model.parent_type).unwrap_or_default();
    let parent_id = segments
        .get(model.parent_segment)
        .map(|s| decoded(s))
        .unwrap_or_default();
    let live = service.read();
    let missing = |what: String| tool_error("not_found", format!("{what}; nothing was changed"));
    let parent = live
        .entities()
        .find(|entity| entity.entity_type == model.parent_type && entity.id == parent_id)
        .ok_or_else(|| missing(format!("no {} {parent_id} is held", model.parent_type)))?;
    let link = parent
        .fields
        .get(&parent_identity)
        .cloned()
        .ok_or_else(|| missing(format!("{} {parent_id} holds no id", model.parent_type)))?;
    let by_id: Vec<(&str, &Json)> = live
        .entities()
        .filter(|entity| entity.entity_type == model.child_type)
        .map(|child| (child.id.as_str(), &child.fields))
        .collect();
    if model.form == LinkForm::Replace && !matches!(body, Some(Json::Array(_))) {
        return Err(tool_error(
            "invalid_arguments",
            "the body must be an array of the members' ids",
        ));
    }
    let changes = planned(
        model,
        (segments, body),
        &by_id,
        (&parent_id, &parent_identity),
    )
    .map_err(missing)?;
    Ok(changes
        .into_iter()
        .map(|(id, links)| (id, if links { link.clone() } else { Json::Null }))
        .collect())
}

/// Serves one call of a collection link write (see the module docs).
pub(super) fn serve(
    service: &StateService,
    plan: &WritePlan,
    model: &LinksModel,
    call: &crate::call::Call,
) -> StateAnswer {
    let Some(update) = service
        .derived()
        .write_plan(&model.through)
        .filter(|update| update.served)
    else {
        return tool_error(
            "internal_error",
            "the update applying the link is not served",
        );
    };
    let segments = call.segments(&plan.path_template);
    let body = call.body.as_ref().map(Json::from_serde_value);
    let changes = match served_changes(service, model, (&segments, body.as_ref())) {
        Ok(changes) => changes,
        Err(refused) => return refused,
    };
    for (id, value) in changes {
        let mut sent = Object::new();
        sent.insert(&model.member, value);
        let input = WriteInput {
            segments: child_segments(&update.path_template, &id),
            body: Some(Json::Object(sent)),
            ..WriteInput::default()
        };
        let (mut live, outcome) = super::serve::prepared(service, update, &input);
        match outcome {
            Ok(change) => commit(&mut live, &change),
            Err(refused) => return tool_error(refused.code, refused.message),
        }
    }
    let Some(definition) = service.replay().tool(&model.parent_view) else {
        return tool_error("internal_error", "the parent's item view is not a tool");
    };
    let parent_path = &segments[..segments.len().min(model.parent_segment + 1)];
    let arguments = super::confirm::arguments_for(definition, parent_path, &[]);
    service.answer_with(&model.parent_view, (&arguments, None), true)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::parsed_json as json;

    fn model(form: LinkForm, shown: &[&str]) -> LinksModel {
        LinksModel {
            form,
            parent_type: "/project".to_owned(),
            parent_segment: 1,
            parent_view: "get_project_by_id".to_owned(),
            child_type: "/task".to_owned(),
            member: "project".to_owned(),
            through: "patch_task_by_id".to_owned(),
            shown: shown.iter().map(|member| (*member).to_owned()).collect(),
        }
    }

    fn segments(path: &str) -> Vec<CompactString> {
        path.split('/').skip(1).map(CompactString::from).collect()
    }

    #[test]
    fn a_member_names_the_parent_by_its_id_or_an_object_holding_it() {
        assert!(names(&json("2"), "2", "id"));
        assert!(names(&json(r#""2""#), "2", "id"));
        assert!(names(
            &json(r#"{"id": 2, "name": "Signal Box"}"#),
            "2",
            "id"
        ));
        assert!(!names(&json(r#"{"id": 3}"#), "2", "id"));
        assert!(!names(&Json::Null, "2", "id"));
        assert!(!names(&json(r#"{"key": 2}"#), "2", "id"));
    }

    #[test]
    fn the_path_names_one_member_and_a_replace_body_lists_ids() {
        let path = segments("/project/2/tasks/8");
        assert_eq!(
            named_ids(LinkForm::Add, &path, None),
            Ok(vec!["8".to_owned()])
        );
        assert_eq!(
            named_ids(LinkForm::Remove, &path, None),
            Ok(vec!["8".to_owned()])
        );
        let listed = json(r#"[9, 10, "6", 9]"#);
        assert_eq!(
            named_ids(LinkForm::Replace, &path, Some(&listed)),
            Ok(vec!["9".to_owned(), "10".to_owned(), "6".to_owned()])
        );
        // A body that is no array of ids is refused.
        for body in [r#"{"ids": [9]}"#, r#"[{"id": 9}]"#, "[null]"] {
            assert!(
                named_ids(LinkForm::Replace, &path, Some(&json(body))).is_err(),
                "{body}"
            );
        }
        assert!(named_ids(LinkForm::Replace, &path, None).is_err());
    }

    #[test]
    fn each_form_links_or_unlinks_the_children_it_names() {
        let held = [
            ("6", json(r#"{"id": 6, "project": {"id": 2}}"#)),
            ("8", json(r#"{"id": 8, "project": {"id": 3}}"#)),
            ("9", json(r#"{"id": 9, "project": {"id": 4}}"#)),
            ("11", json(r#"{"id": 11, "project": {"id": 4}}"#)),
            ("12", json(r#"{"id": 12, "project": null}"#)),
        ];
        let children: Vec<(&str, &Json)> = held.iter().map(|(id, fields)| (*id, fields)).collect();
        let plan = |form, path: &str, body: Option<&str>, parent: &str| {
            let body = body.map(json);
            planned(
                &model(form, &[]),
                (&segments(path), body.as_ref()),
                &children,
                (parent, "id"),
            )
        };
        // An add moves a child out of another parent.
        let moved = plan(LinkForm::Add, "/project/2/tasks/8", None, "2");
        assert_eq!(moved, Ok(vec![("8".to_owned(), true)]));
        // A removal unlinks a child of the parent, and changes none of another's.
        let removed = plan(LinkForm::Remove, "/project/2/tasks/6", None, "2");
        assert_eq!(removed, Ok(vec![("6".to_owned(), false)]));
        assert_eq!(
            plan(LinkForm::Remove, "/project/2/tasks/8", None, "2"),
            Ok(vec![])
        );
        // A replace links those it lists and unlinks the parent's others.
        let replaced = plan(LinkForm::Replace, "/project/4/tasks", Some("[9, 6]"), "4");
        let expected = [("9", true), ("6", true), ("11", false)];
        let expected: Vec<(String, bool)> = expected
            .iter()
            .map(|(id, links)| ((*id).to_owned(), *links))
            .collect();
        assert_eq!(replaced, Ok(expected));
        // A child the state does not hold is refused.
        assert!(plan(LinkForm::Add, "/project/2/tasks/99", None, "2").is_err());
    }

    #[test]
    fn a_link_is_spelled_as_the_update_shows_it() {
        let parent = json(r#"{"tasks": [], "id": 2, "name": "Signal Box", "code": "SGB"}"#);
        assert_eq!(
            link_value(&model(LinkForm::Add, &[]), &parent, "id"),
            Some(json("2"))
        );
        let shown = link_value(&model(LinkForm::Add, &["id", "name"]), &parent, "id");
        assert_eq!(shown, Some(json(r#"{"id": 2, "name": "Signal Box"}"#)));
        assert_eq!(
            link_value(&model(LinkForm::Add, &["budget"]), &parent, "id"),
            None
        );
    }

    #[test]
    fn the_answer_shows_a_child_where_it_holds_its_id_beside_the_member() {
        let answer = json(
            r#"{"tasks": [{"id": 4, "project": 2, "updatedAt": 1}, {"id": 8, "project": 2, "updatedAt": 7}], "id": 8}"#,
        );
        let shown = shown_child(&answer, ("id", "8", "project"));
        assert_eq!(
            shown.and_then(|child| child.get("updatedAt")),
            Some(&json("7"))
        );
        assert!(shown_child(&answer, ("id", "5", "project")).is_none());
    }

    #[test]
    fn the_update_is_called_on_the_childs_own_path() {
        assert_eq!(child_segments("/task/{numeric}", "8"), ["task", "8"]);
        // A template's trailing slash stays an empty last segment, as its calls' paths split.
        assert_eq!(
            child_segments("/api/tasks/{id}/", "8"),
            ["api", "tasks", "8", ""]
        );
    }
}

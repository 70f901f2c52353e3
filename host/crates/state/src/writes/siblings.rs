//! Sibling transfer (opt-in): the plan of a manifest tool inferred on a sibling collection
//! (`ManifestTool::inferred_from`, see `rea_manifest::siblings`), carried over from its source
//! write's served plan. Not a learning pass: the inferred tool has no recorded call, so nothing
//! confirms it; it is served as `inferred` (the catalog and the coverage report say so).
//!
//! A plan transfers only when the entity shapes agree: the source's plan is served, the inferred
//! path names a type of the state with the same effect (no bulk, action or document write), both
//! types hold entities, their identity field has the same name and their ids the same JSON type.
//! What the source learned about its own fields stays behind: the body accepts the sibling
//! type's stored fields (none required), a constant is kept only for a member the sibling type
//! stores with the constant's JSON type (a created list's `added_on`), a rule is kept only when every
//! pointer it explains (and the field it keeps a list sorted by) is a field of the sibling type,
//! the answer keeps its kind (an answer recorded as is transfers only for a delete, whose body
//! names no entity, or when it shows only members the rules the sibling keeps generate, an
//! update's `{"updatedAt": …}`; a delete answering the deleted entity whole, every field its type stores,
//! answers the sibling's deleted entity whole, while one showing some members does not
//! transfer), and an update or delete of a missing entity answers the sibling's own recorded
//! absence where it has one.
//!
//! Write side ([`borrow_missing_write_answers`]): a served update or delete that recorded no
//! missing-entity answer of its own answers a missing entity as its sibling write tools of the
//! same method recorded (agreeing, their body naming no collection), not as its item view's read.
//!
//! Read side ([`borrow_missing_answers`]): an item view whose tool recorded no missing-entity
//! answer answers a missing entity as its sibling item views do, when at least two of them
//! recorded one and all of those agree (status, media type, body): one answer for every entity of
//! two collections names none of them (json-server 1.x's `404 Not Found`); or when one did, whose
//! body names its collection, if at all, only as the whole path segment, which the missing answer
//! renames to the call's (`crate::missing`): directus's `403` "You don't have permission to access
//! this." names nothing, Roundup's "no such issue 99" answers "no such msg 7" for a message, while
//! "no task 9" beside `/tasks/9` names its collection in a form no renaming reaches and stays the
//! tasks' own. A sibling's collection segment may be a parameter (datasette's row pages of every
//! table with numeric keys, `/tracker/{prefix-variance}/{numeric}.json`, beside
//! `/tracker/projects/{fused-affix}.json`).
//!
//! Documents ([`document_transferred`]): an item update offered on a document (`PUT /profile`
//! inferred from `PUT /posts/{numeric}`) takes the document's own served write plan (`PATCH
//! /profile`) with the source's mode: a replace (the sent object becomes the document, members
//! not sent are gone) or a merge. Both modes must be confirmed by the recording's reads (the
//! source's on its entities, the document's own on the document), the document and the source's
//! entities JSON objects, the document written whole at its root; the body accepts the held
//! document's members (none required).

use std::collections::{BTreeMap, BTreeSet};

use rea_manifest::segments::split_path;
use rea_manifest::{Manifest, ManifestTool};
use rea_plugin_api::contracts::capture::CaptureRecord;

use super::Views;
use super::model::{
    BodyModel, Effect, FieldModel, MemberModel, PlanRule, ResponseKind, WritePlan, WriteTarget,
};
use super::sibling_projection::{self, CollectionPaths};
use super::target;
use crate::model::{StateView, ViewDetail};

/// The plans of the manifest's inferred tools whose source plan transfers, in manifest order.
pub(crate) fn transfer(
    manifest: &Manifest,
    state: &StateView,
    views: &Views,
    plans: &[WritePlan],
    records: &[CaptureRecord],
) -> Vec<WritePlan> {
    manifest
        .tools
        .iter()
        .filter_map(|tool| {
            let source_name = tool.inferred_from.as_deref()?;
            let source = plans
                .iter()
                .find(|plan| plan.tool == source_name && plan.served)?;
            if target::classify(tool, state).effect == Effect::Document {
                return document_transferred(tool, source, plans, state);
            }
            transferred(tool, source, state, views, records)
        })
        .collect()
}

/// Gives each item view without a recorded missing-entity answer the one its sibling item views
/// share (see the module docs).
pub(crate) fn borrow_missing_answers(state: &mut StateView, records: &[CaptureRecord]) {
    let items: Vec<(usize, Vec<&str>, Option<u64>)> = state
        .views
        .iter()
        .enumerate()
        .filter_map(|(index, view)| match &view.detail {
            ViewDetail::Item(item) => {
                Some((index, split_path(&view.path_template), item.missing_ordinal))
            }
            _ => None,
        })
        .collect();
    let record_of = |ordinal: u64| records.iter().find(|record| record.ordinal == ordinal);
    let answer_of = |ordinal: u64| {
        record_of(ordinal).map(|record| {
            let response = &record.response;
            let body = response.body.bytes().map(|bytes| bytes.into_owned());
            (response.status, response.media_type.clone(), body)
        })
    };
    let mut borrowed: Vec<(usize, u64)> = Vec::new();
    for (index, template, missing) in &items {
        if missing.is_some() {
            continue;
        }
        let answers: Vec<u64> = items
            .iter()
            .filter(|(other, sibling, _)| other != index && item_siblings(template, sibling))
            .filter_map(|(_, _, missing)| *missing)
            .collect();
        let Some(first) = answers.first().and_then(|ordinal| answer_of(*ordinal)) else {
            continue;
        };
        let agreed = answers
            .iter()
            .all(|ordinal| answer_of(*ordinal).as_ref() == Some(&first));
        let renders = || {
            let record = record_of(answers[0]);
            record.is_some_and(|record| names_collection_as_segment(record, template.len() - 2))
        };
        if agreed && (answers.len() >= 2 || renders()) {
            borrowed.push((*index, answers[0]));
        }
    }
    for (index, ordinal) in borrowed {
        if let ViewDetail::Item(item) = &mut state.views[index].detail {
            item.missing_ordinal = Some(ordinal);
        }
    }
}

/// Gives each served update or delete whose missing entity answers another tool's refusal (its
/// item view's: it recorded no `404`/`410` of its own) the one its sibling write tools of the same
/// method recorded for a missing entity, when they agree (status, media type, body) and the body
/// names no form of their collection (Fortune.js's delete `A record to be deleted could not be
/// found.` beside the item read's `No records match the request.`; see the module docs).
pub(crate) fn borrow_missing_write_answers(state: &mut StateView, records: &[CaptureRecord]) {
    let record_of = |ordinal: u64| records.iter().find(|record| record.ordinal == ordinal);
    let own = |plan: &WritePlan| {
        plan.missing_ordinal.and_then(record_of).filter(|record| {
            record.method.as_deref() == Some(plan.method.as_str())
                && matches!(record.response.status, 404 | 410)
        })
    };
    let answer_of = |record: &CaptureRecord| {
        let response = &record.response;
        let body = response.body.bytes().map(|bytes| bytes.into_owned());
        (response.status, response.media_type.clone(), body)
    };
    let mut borrowed: Vec<(usize, u64)> = Vec::new();
    for (index, plan) in state.write_plans.iter().enumerate() {
        if !plan.served
            || !matches!(plan.effect, Effect::Update | Effect::Delete)
            || own(plan).is_some()
        {
            continue;
        }
        let template = split_path(&plan.path_template);
        let answers: Vec<&CaptureRecord> = (state.write_plans.iter())
            .filter(|other| other.method == plan.method && other.tool != plan.tool)
            .filter(|other| item_siblings(&template, &split_path(&other.path_template)))
            .filter_map(own)
            .collect();
        let Some(first) = answers.first() else {
            continue;
        };
        let agreed = answers
            .iter()
            .all(|record| answer_of(record) == answer_of(first));
        let collection = template.len() - 2;
        if agreed
            && answers
                .iter()
                .all(|record| names_no_collection(record, collection))
        {
            borrowed.push((index, first.ordinal));
        }
    }
    for (index, ordinal) in borrowed {
        state.write_plans[index].missing_ordinal = Some(ordinal);
    }
}

/// Whether a recorded answer's body names no form of its collection (the path segment at
/// `collection`, decoded): not the segment, nor a word it begins or one beginning with it.
fn names_no_collection(record: &CaptureRecord, collection: usize) -> bool {
    let Some(body) = record.response.body.bytes() else {
        return false;
    };
    let text = String::from_utf8_lossy(&body).to_lowercase();
    names_collection_as_segment(record, collection)
        && split_path(record.path.as_deref().unwrap_or(""))
            .get(collection)
            .is_some_and(|segment| {
                let segment = segment.to_lowercase();
                !text
                    .split(|c: char| !c.is_alphanumeric())
                    .any(|word| word == segment)
            })
}

/// Whether a recorded answer's body names its collection (the path segment at `collection`,
/// decoded) only as that whole segment, a word the missing answer renames to the call's, and no
/// other form of it (a word it begins, `task` for `tasks`, or one beginning with it): then the body
/// rendered for a sibling collection names that collection, or nothing of either.
fn names_collection_as_segment(record: &CaptureRecord, collection: usize) -> bool {
    let Some(body) = record.response.body.bytes() else {
        return false;
    };
    let text = String::from_utf8_lossy(&body).to_lowercase();
    let path = record.path.as_deref().unwrap_or("");
    let Some(segment) = split_path(path).get(collection).map(|segment| {
        rea_manifest::segments::percent_decode(segment)
            .map_or_else(|| (*segment).to_owned(), |value| value.into_owned())
            .to_lowercase()
    }) else {
        return false;
    };
    let form_of = |word: &str| {
        word != segment
            && ((word.len() >= 3 && segment.starts_with(word))
                || word.starts_with(segment.as_str()))
    };
    !segment.is_empty()
        && !text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|word| !word.is_empty())
            .any(form_of)
}

/// Whether two item templates are siblings: equal but for the segment before the last (the
/// collection, a literal in at least one), both ending in a parameter (`/tickets/{numeric}`,
/// `/notes/{sibling-variance}`, `/tracker/{prefix-variance}/{numeric}.json`).
fn item_siblings(a: &[&str], b: &[&str]) -> bool {
    let parameter = |segment: &&str| segment.starts_with('{');
    if a.len() < 2
        || a.len() != b.len()
        || !a.last().is_some_and(parameter)
        || !b.last().is_some_and(parameter)
    {
        return false;
    }
    let collection = a.len() - 2;
    let differing: Vec<usize> = (0..a.len() - 1).filter(|at| a[*at] != b[*at]).collect();
    differing == [collection] && !(parameter(&a[collection]) && parameter(&b[collection]))
}

/// One source plan carried over to an inferred tool, when the shapes agree.
fn transferred(
    tool: &ManifestTool,
    source: &WritePlan,
    state: &StateView,
    views: &Views,
    records: &[CaptureRecord],
) -> Option<WritePlan> {
    if source.bulk || source.action.is_some() || source.effect == Effect::Document {
        return None;
    }
    let classified = target::classify(tool, state);
    if classified.effect != source.effect || classified.bulk || classified.action.is_some() {
        return None;
    }
    let target = super::write_target(&classified, views)?;
    let source_target = source.target.as_ref()?;
    let (sibling_type, source_type) = (
        target.entity_type.as_deref()?,
        source_target.entity_type.as_deref()?,
    );
    if sibling_type == source_type
        || source_target.collection.is_some()
        || source_target.key_member.is_some()
        || target.identity_field != source_target.identity_field
        || id_kind(state, sibling_type)? != id_kind(state, source_type)?
    {
        return None;
    }
    let identity = target.identity_field.clone()?;
    let fields: BTreeMap<String, BTreeSet<String>> = views.field_types.get(sibling_type)?.clone();
    let known = |name: &str| name == identity || fields.contains_key(name);
    let mut plan = on_inferred_tool(source, tool);
    plan.body = source
        .body
        .as_ref()
        .map(|body| sibling_body(body, &fields, &identity));
    plan.fields = Some(sibling_fields(
        source.fields.clone().unwrap_or_default(),
        (&known, &fields),
        entity_order(state, sibling_type),
    )?);
    plan.rules = sibling_rules(&source.rules, state, (source_type, sibling_type), &known);
    plan.rules = on_sibling_path(
        plan.rules,
        (&source.path_template, tool),
        state,
        sibling_type,
    );
    keep_known_refusals(&mut plan, &known);
    let generated = answer_generated(source, &plan.rules, records);
    plan.response = sibling_response(
        source,
        views.field_types.get(source_type),
        &known,
        generated,
    )?;
    plan.missing_ordinal = views
        .types
        .get(sibling_type)
        .and_then(|info| info.item.as_ref())
        .and_then(|item| item.missing_ordinal)
        .or(source.missing_ordinal);
    plan.target = Some(WriteTarget {
        item_view: target.item_view.clone(),
        ..target
    });
    plan.served = true;
    Some(plan)
}

/// The source's plan on the inferred tool, without what its recordings made it (its calls, their
/// confirmation, the verdict).
fn on_inferred_tool(source: &WritePlan, tool: &ManifestTool) -> WritePlan {
    let mut plan = source.clone();
    plan.tool = tool.name.clone();
    plan.method = tool.method.clone();
    plan.path_template = tool.path_template.clone();
    plan.reason = None;
    plan.hint = None;
    plan.contradicted_by = None;
    plan.record_ordinals = Vec::new();
    plan.confirmed_by = Vec::new();
    plan.upsert = None;
    // The composed document is the source type's view's (see `super::composed`).
    plan.composed = None;
    plan.inferred_from = Some(source.tool.clone());
    plan
}

/// Keeps the source's learned refusals of a create, and the links it resolves, whose members the
/// sibling holds (`known`).
fn keep_known_refusals(plan: &mut WritePlan, known: &impl Fn(&str) -> bool) {
    plan.references.retain(|reference| known(&reference.member));
    plan.conflicts.retain(|conflict| known(&conflict.member));
    plan.omitted.retain(|omitted| known(&omitted.member));
    if let Some(lent) = &plan.lent_omission
        && !lent.order.iter().all(|member| known(member))
    {
        plan.lent_omission = None;
    }
    plan.keyed_refusals.retain(|refusal| {
        let keyed = refusal.errors.iter().map(|(member, _)| member);
        keyed.chain(&refusal.unkeyed).all(|member| known(member))
    });
}

/// An item update carried over to a document another method wrote (see the module docs).
fn document_transferred(
    tool: &ManifestTool,
    source: &WritePlan,
    plans: &[WritePlan],
    state: &StateView,
) -> Option<WritePlan> {
    let mode = confirmed_item_update(source, state)?;
    let own = plans.iter().find(|plan| {
        plan.served
            && plan.effect == Effect::Document
            && plan.inferred_from.is_none()
            && !plan.confirmed_by.is_empty()
            && plan.path_template == tool.path_template
    })?;
    let fields = own.fields.as_ref()?;
    let view = own.target.as_ref()?.document.as_deref()?;
    let held = state
        .documents
        .iter()
        .find(|document| document.view == view)?
        .value
        .as_object()?;
    let answers_document = own
        .response
        .as_ref()
        .is_none_or(|response| response.kind == ResponseKind::Entity);
    if !fields.document_pointer.is_empty()
        || fields.document_element.is_some()
        || !answers_document
        || own
            .body
            .as_ref()
            .is_none_or(|body| !body.envelope.is_empty())
    {
        return None;
    }
    let mut plan = own.clone();
    plan.tool = tool.name.clone();
    plan.method = tool.method.clone();
    plan.composed = None;
    plan.record_ordinals = Vec::new();
    plan.confirmed_by = Vec::new();
    plan.inferred_from = Some(source.tool.clone());
    if let Some(fields) = plan.fields.as_mut() {
        fields.replace = mode;
        fields.kept.clear();
        fields.removed.clear();
    }
    if let Some(body) = plan.body.as_mut() {
        body.members = document_members(held);
    }
    if let Some(response) = plan.response.as_mut() {
        response.required_members.clear();
    }
    Some(plan)
}

/// The mode (`true`: a replace) of a served, confirmed update of one entity whose type holds
/// JSON objects.
fn confirmed_item_update(source: &WritePlan, state: &StateView) -> Option<bool> {
    let entity_type = source.target.as_ref()?.entity_type.as_deref()?;
    let objects = state
        .entities
        .iter()
        .filter(|entity| entity.entity_type == entity_type)
        .all(|entity| entity.fields.as_object().is_some());
    (source.served
        && source.effect == Effect::Update
        && !source.bulk
        && source.action.is_none()
        && !source.confirmed_by.is_empty()
        && objects)
        .then(|| source.fields.as_ref().map(|fields| fields.replace))
        .flatten()
}

/// A held document's members, each optional, with its JSON type.
fn document_members(held: &rea_plugin_api::json::Object) -> BTreeMap<String, MemberModel> {
    held.iter()
        .map(|(name, value)| {
            (
                name.to_owned(),
                MemberModel {
                    types: vec![value.type_name().to_owned()],
                    required: false,
                    fixed: None,
                },
            )
        })
        .collect()
}

/// The source's rules that speak of the sibling's fields, and its delete's dependents carried
/// over to the member holding the sibling's ids (`super::sibling_dependents`).
fn sibling_rules(
    rules: &[PlanRule],
    state: &StateView,
    (source_type, sibling_type): (&str, &str),
    known: &impl Fn(&str) -> bool,
) -> Vec<PlanRule> {
    rules
        .iter()
        .filter(|rule| rule_fits(rule, known))
        .cloned()
        .chain(super::sibling_dependents::sibling_dependents(
            rules,
            state,
            source_type,
            sibling_type,
        ))
        .collect()
}

/// The source's answer model for the sibling (`None` when the sibling cannot answer as the
/// source does: a recorded answer of a non-delete, or a projection, unless what it shows is
/// `generated` by the rules the sibling keeps, [`sibling_projection`], or the written entity
/// whole, `super::projected`): a delete answering its
/// deleted entity whole answers the sibling's own, and members the sibling does not know are not
/// required.
fn sibling_response(
    source: &WritePlan,
    source_fields: Option<&BTreeMap<String, BTreeSet<String>>>,
    known: &dyn Fn(&str) -> bool,
    generated: bool,
) -> Option<Option<super::model::ResponseModel>> {
    let mut response = source.response.clone();
    if let Some(response) = &mut response {
        if response.kind == ResponseKind::Projection
            && source.effect == Effect::Delete
            && shows_whole(response, source_fields)
        {
            // The deleted entity, whole: the sibling's delete answers its own deleted entity.
            response.kind = ResponseKind::Entity;
        }
        if response.kind == ResponseKind::Recorded && source.effect != Effect::Delete && !generated
            || response.kind == ResponseKind::Projection
                && !generated
                && response
                    .projected
                    .as_ref()
                    .is_none_or(|projected| projected.whole_but.is_none())
        {
            return None;
        }
        response.required_members.retain(|member| known(member));
    }
    Some(response)
}

/// The kept rules with the source's collection path spelled as the sibling's, where the
/// sibling's held entities show it so (see [`sibling_projection`]).
fn on_sibling_path(
    rules: Vec<PlanRule>,
    (source_template, tool): (&str, &ManifestTool),
    state: &StateView,
    sibling_type: &str,
) -> Vec<PlanRule> {
    let Some(paths) = CollectionPaths::of(source_template, &tool.path_template) else {
        return rules;
    };
    let held: Vec<&rea_plugin_api::json::Json> = state
        .entities
        .iter()
        .filter(|entity| entity.entity_type == sibling_type)
        .map(|entity| &entity.fields)
        .collect();
    sibling_projection::rules_on_sibling_path(rules, &paths, &held)
}

/// Whether the source's answer shows only members the kept rules generate: a recorded answer's
/// top-level members, or a projection's (see [`sibling_projection`]).
fn answer_generated(source: &WritePlan, kept: &[PlanRule], records: &[CaptureRecord]) -> bool {
    recorded_generated(source, kept, records)
        || source.response.as_ref().is_some_and(|response| {
            sibling_projection::projection_generated(response, kept, records)
        })
}

/// Whether the source's recorded answer shows only members the rules the sibling keeps generate
/// (an update answering `{"updatedAt": …}`, the stamp its clock rule sets): such an answer names
/// nothing of the source's entity, so the sibling answers it as the source does.
fn recorded_generated(source: &WritePlan, kept: &[PlanRule], records: &[CaptureRecord]) -> bool {
    let Some(response) = source.response.as_ref() else {
        return false;
    };
    let body = records
        .iter()
        .find(|record| record.ordinal == response.ordinal)
        .and_then(|record| record.response.body.bytes())
        .and_then(|bytes| rea_plugin_api::json::Json::parse(&bytes).ok());
    let Some(rea_plugin_api::json::Json::Object(members)) = body else {
        return false;
    };
    let generated: BTreeSet<String> = kept
        .iter()
        .flat_map(|rule| rule.explains.iter())
        .map(|pointer| first_segment(pointer))
        .collect();
    !members.is_empty() && members.keys().all(|name| generated.contains(name))
}

/// Whether a delete's answer shows the deleted entity whole: every recorded answer carried every
/// field its type's entities stored (a projection of some members, a tombstone, does not).
fn shows_whole(
    response: &super::model::ResponseModel,
    fields: Option<&BTreeMap<String, BTreeSet<String>>>,
) -> bool {
    fields.is_some_and(|fields| {
        !fields.is_empty()
            && fields
                .keys()
                .all(|field| response.required_members.contains(field))
    })
}

/// The JSON type of a type's ids (`number` or `string`), when it holds entities that all agree.
fn id_kind(state: &StateView, entity_type: &str) -> Option<&'static str> {
    let identity = state
        .types
        .iter()
        .find(|candidate| candidate.collection_template == entity_type)?
        .identity_field
        .as_str();
    let kinds: BTreeSet<&'static str> = state
        .entities
        .iter()
        .filter(|entity| entity.entity_type == entity_type)
        .map(|entity| {
            crate::render::identity_value(&entity.fields, identity)
                .map_or("missing", |value| value.type_name())
        })
        .collect();
    (kinds.len() == 1)
        .then(|| kinds.into_iter().next())
        .flatten()
        .filter(|kind| *kind != "missing")
}

/// The member order of the sibling type's first entity.
fn entity_order(state: &StateView, entity_type: &str) -> Vec<String> {
    state
        .entities
        .iter()
        .find(|entity| entity.entity_type == entity_type)
        .and_then(|entity| entity.fields.as_object())
        .map(|object| object.iter().map(|(key, _)| key.to_owned()).collect())
        .unwrap_or_default()
}

/// The body a sibling accepts: the source's envelope and query, the sibling type's stored fields
/// as optional members (its identity only where the source accepted its own).
fn sibling_body(
    body: &BodyModel,
    fields: &BTreeMap<String, BTreeSet<String>>,
    identity: &str,
) -> BodyModel {
    if body.none || body.bulk_ids.is_some() {
        return body.clone();
    }
    let members = fields
        .iter()
        .filter(|(name, _)| name.as_str() != identity || body.members.contains_key(identity))
        .map(|(name, types)| {
            (
                name.clone(),
                MemberModel {
                    types: types.iter().cloned().collect(),
                    required: false,
                    fixed: None,
                },
            )
        })
        .collect();
    BodyModel {
        members,
        ..body.clone()
    }
}

/// The source's field model over the sibling's fields: a constant kept where the sibling type
/// stores its member with its JSON type (`stored`: field → JSON types; a nested constant where
/// it stores the object it nests in), every other list kept where it names a sibling field;
/// `None` when a soft delete's flag is no sibling field.
fn sibling_fields(
    mut model: FieldModel,
    (known, stored): (&impl Fn(&str) -> bool, &BTreeMap<String, BTreeSet<String>>),
    order: Vec<String>,
) -> Option<FieldModel> {
    if model
        .soft_delete
        .as_deref()
        .is_some_and(|flag| !known(flag))
    {
        return None;
    }
    model.kept.retain(|name| known(name));
    model.removed.retain(|name| known(name));
    model.constants.retain(|name, value| {
        stored
            .get(name)
            .is_some_and(|kinds| kinds.contains(value.type_name()))
    });
    model.nested_constants.retain(|pointer, _| {
        stored
            .get(&first_segment(pointer))
            .is_some_and(|kinds| kinds.contains("object"))
    });
    model.defaults.retain(|name, _| known(name));
    model.unstored.retain(|name| known(name));
    model.merged.retain(|name, _| known(name));
    model.item_defaults.retain(|name, _| known(name));
    model.collection_constants.retain(|name| known(name));
    model.path_fields.retain(|name, _| known(name));
    model.numbered_by_type.retain(|name| known(name));
    model
        .sent_as
        .retain(|_, pointer| known(first_segment(pointer).as_str()));
    model.order = order;
    Some(model)
}

/// Whether a learned rule speaks only of the sibling's fields. A rule explaining nothing of the
/// written entity and placing nothing (what a delete does to other types' entities) speaks of
/// the source's relations, which the sibling does not share: it stays behind.
fn rule_fits(rule: &PlanRule, known: &impl Fn(&str) -> bool) -> bool {
    let sorted_by = rule
        .rule
        .pointer("/placement/field")
        .and_then(|field| field.as_str());
    (!rule.explains.is_empty() || sorted_by.is_some())
        && rule
            .explains
            .iter()
            .all(|pointer| known(first_segment(pointer).as_str()))
        && sorted_by.is_none_or(known)
}

/// A JSON pointer's first member name, unescaped.
fn first_segment(pointer: &str) -> String {
    rea_plugin_api::json::unescape_pointer_segment(
        pointer
            .trim_start_matches('/')
            .split('/')
            .next()
            .unwrap_or(""),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::json::Json;

    #[test]
    fn a_missing_answer_naming_no_form_of_its_collection_is_borrowed_by_write_siblings() {
        let refusal = |path: &str, detail: &str| {
            let body = serde_json::json!({"errors": [{"detail": detail}]});
            crate::derive::tests::record(98, "DELETE", path, 404, body)
        };
        let general = refusal("/tasks/99", "A record to be deleted could not be found.");
        assert!(names_no_collection(&general, 0));
        // The segment itself, or a form of it, names the collection.
        for detail in ["No tasks record 99.", "No task 99."] {
            assert!(
                !names_no_collection(&refusal("/tasks/99", detail), 0),
                "{detail}"
            );
        }
    }

    fn known(name: &str) -> bool {
        ["id", "body", "postId", "createdAt"].contains(&name)
    }

    fn rule(explains: &[&str], placement: Option<&str>) -> PlanRule {
        let text = placement.map_or_else(
            || "{}".to_owned(),
            |field| format!(r#"{{"placement":{{"kind":"sorted","field":"{field}"}}}}"#),
        );
        PlanRule {
            stage: "s".to_owned(),
            plugin: "p".to_owned(),
            explains: explains
                .iter()
                .map(|pointer| (*pointer).to_owned())
                .collect(),
            needs_clock: false,
            rule: Json::parse(text.as_bytes()).unwrap(),
        }
    }

    #[test]
    fn a_rule_transfers_only_over_the_sibling_fields() {
        assert!(rule_fits(&rule(&["/id"], None), &known));
        assert!(
            !rule_fits(&rule(&[], None), &known),
            "a rule about other entities (a delete's dependents) stays behind"
        );
        assert!(rule_fits(&rule(&["/createdAt"], Some("createdAt")), &known));
        assert!(
            !rule_fits(&rule(&["/title"], None), &known),
            "posts' own field"
        );
        assert!(
            !rule_fits(&rule(&[], Some("views")), &known),
            "sorted by a field comments lack"
        );
    }

    #[test]
    fn the_field_model_keeps_only_what_the_sibling_stores() {
        let mut model = FieldModel {
            kept: vec!["title".to_owned(), "body".to_owned()],
            replace: true,
            ..FieldModel::default()
        };
        model.constants.insert("views".to_owned(), Json::from(0i64));
        model
            .constants
            .insert("createdAt".to_owned(), Json::from(0i64));
        model
            .constants
            .insert("body".to_owned(), Json::String("x".into()));
        // The sibling stores `body` as a string, `createdAt` as a string too.
        let stores: BTreeMap<String, BTreeSet<String>> = ["body", "createdAt"]
            .iter()
            .map(|name| ((*name).to_owned(), ["string".to_owned()].into()))
            .collect();
        let moved = sibling_fields(
            model,
            (&known, &stores),
            vec!["id".to_owned(), "body".to_owned()],
        )
        .expect("no soft delete");
        assert_eq!(moved.kept, vec!["body".to_owned()]);
        assert_eq!(
            moved.constants.keys().collect::<Vec<_>>(),
            vec!["body"],
            "views is no sibling field, the sibling's createdAt no number"
        );
        assert!(moved.replace, "a replace stays a replace");
        let mut nested = FieldModel::default();
        nested
            .nested_constants
            .insert("/status/id".to_owned(), Json::from("1"));
        nested
            .defaults
            .insert("priority".to_owned(), Json::from(3i64));
        nested.defaults.insert("body".to_owned(), Json::Null);
        let moved = sibling_fields(nested, (&known, &stores), Vec::new()).expect("no soft delete");
        assert!(
            moved.nested_constants.is_empty(),
            "the sibling stores no status object"
        );
        assert_eq!(
            moved.defaults.keys().collect::<Vec<_>>(),
            vec!["body"],
            "a default only for a sibling field"
        );
        let soft = FieldModel {
            soft_delete: Some("archived".to_owned()),
            ..FieldModel::default()
        };
        assert!(sibling_fields(soft, (&known, &stores), Vec::new()).is_none());
    }

    #[test]
    fn the_body_accepts_the_sibling_fields_none_required() {
        let fields: BTreeMap<String, BTreeSet<String>> = [
            ("id".to_owned(), ["number".to_owned()].into()),
            ("body".to_owned(), ["string".to_owned()].into()),
        ]
        .into();
        let source = BodyModel::default();
        let body = sibling_body(&source, &fields, "id");
        assert_eq!(body.members.keys().collect::<Vec<_>>(), vec!["body"]);
        assert!(!body.members["body"].required);
        let mut sends_id = BodyModel::default();
        sends_id.members.insert(
            "id".to_owned(),
            MemberModel {
                types: vec!["number".to_owned()],
                required: false,
                fixed: None,
            },
        );
        assert_eq!(sibling_body(&sends_id, &fields, "id").members.len(), 2);
    }

    #[test]
    fn a_delete_answering_the_whole_entity_is_whole_and_a_tombstone_is_not() {
        let fields: BTreeMap<String, BTreeSet<String>> = ["id", "subject", "status"]
            .iter()
            .map(|name| ((*name).to_owned(), BTreeSet::new()))
            .collect();
        let answer = |members: &[&str]| super::super::model::ResponseModel {
            ordinal: 0,
            status: 200,
            media_type: None,
            kind: ResponseKind::Projection,
            pointer: Some(String::new()),
            required_members: members.iter().map(|name| (*name).to_owned()).collect(),
            nulled_members: Vec::new(),
            shows_computed: false,
            renamed: Default::default(),
            by_options: Vec::new(),
            rows: None,
            member: None,
            changed: None,
            echoed: Default::default(),
            sent_names: Default::default(),
            path_echoes: Vec::new(),
            projected: None,
        };
        assert!(shows_whole(
            &answer(&["id", "status", "subject"]),
            Some(&fields)
        ));
        assert!(!shows_whole(&answer(&["id", "deleted"]), Some(&fields)));
        assert!(!shows_whole(&answer(&["id"]), Some(&BTreeMap::new())));
        assert!(!shows_whole(&answer(&["id"]), None));
    }

    #[test]
    fn item_templates_are_siblings_when_one_collection_segment_differs() {
        let path = |text| split_path(text);
        assert!(item_siblings(
            &path("/tickets/{numeric}"),
            &path("/notes/{sibling-variance}")
        ));
        assert!(item_siblings(&path("/api/a/{id}"), &path("/api/b/{id}")));
        assert!(!item_siblings(&path("/api/a/{id}"), &path("/v2/b/{id}")));
        assert!(!item_siblings(&path("/a/{id}"), &path("/a/{id}")));
        assert!(!item_siblings(&path("/a/literal"), &path("/b/literal")));
        assert!(!item_siblings(&path("/a/{id}"), &path("/a/b/{id}")));
    }

    #[test]
    fn item_siblings_differ_in_the_collection_a_literal_in_one_at_least() {
        let split = |path: &'static str| {
            path.split('/')
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
        };
        let siblings = |a, b| item_siblings(&split(a), &split(b));
        assert!(siblings("/tickets/{numeric}", "/agents/{id}"));
        // datasette's row pages: a family of tables beside one table of its own.
        assert!(siblings(
            "/tracker/{prefix-variance}/{numeric}.json",
            "/tracker/projects/{fused-affix}.json"
        ));
        assert!(!siblings("/{a}/{numeric}", "/{b}/{numeric}"));
        assert!(!siblings("/v1/tasks/{id}", "/v2/tasks/{id}"));
        assert!(!siblings("/tasks/{id}", "/tasks/{id}/notes"));
        assert!(!siblings("/tasks/{id}", "/projects/all"));
    }
}

//! Write plans: what each write tool does to the state, learned from its recorded calls and
//! confirmed by replaying the capture through it.
//!
//! 1. [`target`]: what a tool's path names (an entity of a type, a type's collection, a document
//!    view's document), hence its effect.
//! 2. [`observe`]: the calls in record order against a simulated state that adopts what each call
//!    was observed to do: the entity before, what the call sent, the entity after (the first read
//!    of it by id after the call, else the entity the answer showed), and the reads after it.
//! 3. [`learn`]: per plan, the members the body sends (required, optional, fixed), how the
//!    written entity follows from them (stored as sent, kept or removed when unsent, copied from
//!    the path or from every held entity, constant), and what remains unexplained, which the rule
//!    stages explain in pipeline order (or the plan is withheld as `unexplained-change`).
//! 4. [`confirm`]: the capture replayed from the state the reads observed, applying every
//!    modelled call with [`apply`] (the function serving uses) and answering every later read
//!    with the state's own read path: a read that disagrees with an unconfirmed write contradicts
//!    it; one that disagrees with an entity whose write a read already confirmed is a side effect
//!    of a later write; a read that agrees confirms the writes it shows.
//!
//! A plan is served when no read contradicted it, it caused no side effect, a read confirmed at
//! least one of its calls, every view of its type renders what it writes, and its rules' clock
//! has a start. Otherwise it is withheld with the first reason that applies, in the order of
//! [`model::WITHHELD_REASONS`].

pub mod apply;
pub mod confirm;
mod learn;
pub mod model;
mod observe;
pub mod serve;
pub mod target;
#[cfg(test)]
mod tests;

pub use confirm::arguments_for;

use std::collections::{BTreeMap, HashMap};

use rea_manifest::Manifest;
use rea_plugin_api::contracts::capture::CaptureRecord;

use self::model::{Effect, WritePlan, WriteTarget};
use self::target::{Classified, TargetKind};
use crate::model::{StateView, ViewDetail};
use crate::observation::{Timeline, is_write_tool};
use crate::rules::RuleSet;

/// An item view of a type.
#[derive(Debug, Clone)]
pub(crate) struct ItemInfo {
    /// The view's tool index.
    pub tool: usize,
    /// The view's name.
    pub name: String,
    /// Where the entity sits in its answers.
    pub entity_pointer: String,
    /// Its latest recorded `400`/`404`/`410`.
    pub missing_ordinal: Option<u64>,
    /// The fields every read of it carried.
    pub required_fields: Vec<String>,
}

/// A list view of a type.
#[derive(Debug, Clone)]
pub(crate) struct ListInfo {
    /// Where the array sits in its answers.
    pub list_pointer: String,
}

/// A type and the views that read it.
#[derive(Debug, Clone)]
pub(crate) struct TypeInfo {
    /// The collection template.
    pub template: String,
    /// The identity field.
    pub identity: String,
    /// Its item view.
    pub item: Option<ItemInfo>,
}

/// What a read tool reads.
#[derive(Debug, Clone)]
pub(crate) enum Scope {
    /// Entities of a type by id.
    Item(String),
    /// Lists of a type.
    List(String, ListInfo),
    /// A document view's document.
    Document(String),
}

/// The state's types and read views, indexed for the write plans.
#[derive(Debug, Default)]
pub(crate) struct Views {
    pub types: BTreeMap<String, TypeInfo>,
    pub scopes: HashMap<usize, Scope>,
    /// Per type, the top-level fields its observed entities store, with their JSON types.
    pub field_types: BTreeMap<String, BTreeMap<String, std::collections::BTreeSet<String>>>,
    /// Per document view, the top-level members its document holds, with their JSON types.
    pub document_types: BTreeMap<String, BTreeMap<String, std::collections::BTreeSet<String>>>,
}

impl Views {
    fn new(manifest: &Manifest, state: &StateView) -> Self {
        let mut views = Views::default();
        let index_of = |name: &str| manifest.tools.iter().position(|tool| tool.name == name);
        for entity_type in &state.types {
            views.types.insert(
                entity_type.collection_template.clone(),
                TypeInfo {
                    template: entity_type.collection_template.clone(),
                    identity: entity_type.identity_field.clone(),
                    item: None,
                },
            );
        }
        for entity in &state.entities {
            if let Some(fields) = entity.fields.as_object() {
                let known = views
                    .field_types
                    .entry(entity.entity_type.clone())
                    .or_default();
                for (field, value) in fields.iter() {
                    known
                        .entry(field.to_owned())
                        .or_default()
                        .insert(value.type_name().to_owned());
                }
            }
        }
        for document in &state.documents {
            if let Some(members) = document.value.as_object() {
                let known = views
                    .document_types
                    .entry(document.view.clone())
                    .or_default();
                for (member, value) in members.iter() {
                    known
                        .entry(member.to_owned())
                        .or_default()
                        .insert(value.type_name().to_owned());
                }
            }
        }
        for view in &state.views {
            let Some(tool) = index_of(&view.tool) else {
                continue;
            };
            match &view.detail {
                ViewDetail::Item(item) => {
                    if let Some(info) = views.types.get_mut(&item.entity_type)
                        && info.item.is_none()
                    {
                        info.item = Some(ItemInfo {
                            tool,
                            name: view.tool.clone(),
                            entity_pointer: item.entity_pointer.clone(),
                            missing_ordinal: item.missing_ordinal,
                            required_fields: item.shape.required_fields.clone(),
                        });
                    }
                    views
                        .scopes
                        .insert(tool, Scope::Item(item.entity_type.clone()));
                }
                ViewDetail::List(list) => {
                    views.scopes.insert(
                        tool,
                        Scope::List(
                            list.entity_type.clone(),
                            ListInfo {
                                list_pointer: list.list_pointer.clone(),
                            },
                        ),
                    );
                }
                ViewDetail::Document(_) => {
                    views
                        .scopes
                        .insert(tool, Scope::Document(view.tool.clone()));
                }
                ViewDetail::Recorded { .. } => {}
            }
        }
        views
    }
}

/// One write tool's plan under construction.
#[derive(Debug)]
pub(crate) struct Draft {
    /// The manifest tool.
    pub tool: usize,
    /// What its path names.
    pub classified: Classified,
    /// The plan.
    pub plan: WritePlan,
    /// Its successful calls (indexes into the observed calls).
    pub calls: Vec<usize>,
    /// Its failed calls' ordinals.
    pub failed: Vec<u64>,
}

impl Draft {
    /// Whether the plan is still a candidate (no reason decided yet).
    pub fn open(&self) -> bool {
        self.plan.reason.is_none()
    }
}

/// A collection kept sorted by a field is a property of the collection, not of one tool: a plan of
/// a type that learned no placement of its own takes the sort another plan of the type learned,
/// when its writes change that field (the clock an update stamps, a title it sends).
fn share_sorts(drafts: &mut [Draft]) {
    let mut sorts: BTreeMap<String, model::PlanRule> = BTreeMap::new();
    for draft in drafts.iter() {
        let Some(entity_type) = draft
            .plan
            .target
            .as_ref()
            .and_then(|target| target.entity_type.clone())
        else {
            continue;
        };
        for rule in &draft.plan.rules {
            if rule
                .rule
                .pointer("/placement/kind")
                .and_then(|kind| kind.as_str())
                == Some("sorted")
            {
                sorts
                    .entry(entity_type.clone())
                    .or_insert_with(|| rule.clone());
            }
        }
    }
    for draft in drafts.iter_mut() {
        if !draft.open() || draft.plan.effect != Effect::Update {
            continue;
        }
        let Some(entity_type) = draft
            .plan
            .target
            .as_ref()
            .and_then(|target| target.entity_type.clone())
        else {
            continue;
        };
        let Some(sort) = sorts.get(&entity_type) else {
            continue;
        };
        if draft
            .plan
            .rules
            .iter()
            .any(|rule| rule.rule.pointer("/placement").is_some())
        {
            continue;
        }
        let Some(field) = sort
            .rule
            .pointer("/placement/field")
            .and_then(|field| field.as_str())
        else {
            continue;
        };
        let pointer = format!("/{}", rea_plugin_api::json::escape_pointer_segment(field));
        let explained = draft
            .plan
            .rules
            .iter()
            .any(|rule| rule.explains.contains(&pointer));
        let sent = draft
            .plan
            .body
            .as_ref()
            .is_some_and(|body| body.members.contains_key(field));
        if explained || sent {
            draft.plan.rules.push(sort.clone());
        }
    }
}

/// The write plans of a state: one per write tool, in manifest order.
pub fn derive_write_plans(
    manifest: &Manifest,
    timeline: &Timeline,
    state: &StateView,
    records: &[CaptureRecord],
    rules: &RuleSet,
) -> Vec<WritePlan> {
    let views = Views::new(manifest, state);
    let mut drafts: Vec<Draft> = manifest
        .tools
        .iter()
        .enumerate()
        .filter(|(_, tool)| is_write_tool(tool))
        .map(|(index, tool)| {
            let classified = target::classify(tool, state);
            let target = match &classified.kind {
                TargetKind::Item {
                    entity_type,
                    segments,
                }
                | TargetKind::Collection {
                    entity_type,
                    segments,
                } => views.types.get(entity_type).map(|info| WriteTarget {
                    entity_type: Some(entity_type.clone()),
                    identity_field: Some(info.identity.clone()),
                    collection: None,
                    collection_segments: *segments,
                    document: None,
                    item_view: info.item.as_ref().map(|item| item.name.clone()),
                }),
                TargetKind::Document { view } => Some(WriteTarget {
                    document: Some(view.clone()),
                    ..WriteTarget::default()
                }),
                TargetKind::Unlinked | TargetKind::None => None,
            };
            Draft {
                tool: index,
                plan: WritePlan {
                    tool: tool.name.clone(),
                    method: tool.method.clone(),
                    path_template: tool.path_template.clone(),
                    effect: classified.effect,
                    action: classified.action.clone(),
                    bulk: classified.bulk,
                    served: false,
                    reason: None,
                    hint: None,
                    exemplar_ordinal: None,
                    contradicted_by: None,
                    record_ordinals: Vec::new(),
                    confirmed_by: Vec::new(),
                    target,
                    body: None,
                    fields: None,
                    rules: Vec::new(),
                    response: None,
                    missing_ordinal: None,
                },
                classified,
                calls: Vec::new(),
                failed: Vec::new(),
            }
        })
        .collect();
    if drafts.is_empty() {
        return Vec::new();
    }
    let mut observed = observe::observe(manifest, timeline, state, &views, &mut drafts);
    for draft in &mut drafts {
        learn::learn(draft, &mut observed, &views, rules, records);
    }
    share_sorts(&mut drafts);
    confirm::confirm(
        manifest,
        timeline,
        state,
        &views,
        &mut drafts,
        &observed,
        rules,
        records,
    );
    drafts
        .into_iter()
        .map(|mut draft| {
            if draft.plan.reason.is_none() {
                draft.plan.served = true;
            }
            if draft.plan.effect == Effect::Document && draft.plan.target.is_none() {
                draft.plan.withhold("no-state-target");
            }
            draft.plan
        })
        .collect()
}

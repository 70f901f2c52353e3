//! Write plans: what each write tool does to the state, learned from its recorded calls and
//! confirmed by replaying the capture through it, in four passes (each module names its pass;
//! `ARCHITECTURE.md` tells the same steps):
//!
//! 1. [`target`]: what a tool's path names (an entity of a type, a type's collection, a document
//!    view's document), hence its effect; [`action`]: an action route's calls say whether it acts
//!    on the entity its path names.
//! 2. [`observe`]: the calls in record order against a simulated state that adopts what each call
//!    was observed to do: the entity before, what the call sent, the entity after (the first read
//!    of it by id after the call, else the entity the answer showed, else gone when the first
//!    read of the whole collection no longer lists a held entity), and the reads after it; a bulk
//!    call, each entity its body names in turn. An RPC-style write names its entity in a body
//!    member; a write of an item path no type holds is linked by the read of the entity its last
//!    segment names. A call whose entity an earlier write left unobserved (no read between)
//!    shows both writes' effects at once: it is not learned from, unless its answer showed the
//!    one member it changed ([`together`]: the earlier call is then observed from the rest, and
//!    the read after both confirms the two together). An entity a plain item read
//!    between the calls shows for the first time (made by a write the state does not model) is
//!    held from then on, as the read showed it.
//! 3. [`learn`]: per plan, the members the body sends (required, optional, fixed), how the
//!    written entity follows from them ([`explain`]: stored as sent, or under another name, kept
//!    or removed when unsent, copied from the path or from every held entity, constant), and what
//!    remains unexplained (a delete's changes inside a nested object by their own pointers, such
//!    as `/info/lifecycle_stage`), which the rule stages explain in pipeline order (or the plan is
//!    withheld as `unexplained-change`); then its answer. A bulk plan learns each named entity as
//!    one call; a `PUT` that created the entity its path names learns those calls as a create
//!    (its `upsert`). Last in this pass, a plan that learned no placement takes the sort another
//!    plan of its type learned (`share_sorts`).
//! 4. [`confirm`]: the capture replayed from the state the reads observed, applying every
//!    modelled call with [`apply`] (the function serving uses) and answering every later read
//!    with the state's own read path: a read that disagrees with an unconfirmed write contradicts
//!    it; one that disagrees with an entity whose write a read already confirmed is a side effect
//!    of a later write; a read that agrees confirms the writes it shows.
//!
//! Serving a plan's tool is not a pass: [`serve`] checks a call against the plan and applies it
//! with [`apply`], as the confirmation did.
//!
//! A plan is served when no read contradicted it, it caused no side effect, a read confirmed at
//! least one of its calls, every view of its type renders what it writes, and its rules' clock
//! has a start. Otherwise it is withheld with the first reason that applies, in the order of
//! [`model::WITHHELD_REASONS`].

mod action;
pub mod apply;
pub mod batch;
mod batch_options;
mod children;
pub mod collection_links;
pub mod composed;
pub mod confirm;
mod conflict;
mod constant_refusal;
mod defaults;
pub(crate) mod dependents;
pub mod document_defaults;
mod echoed;
mod encoded;
mod encoded_members;
mod explain;
pub mod guarded;
mod input_spelling;
pub mod item_defaults;
mod keyed;
mod keyed_refusal;
mod learn;
mod lent_omission;
mod listed;
mod member;
mod merge_once;
mod merged;
pub mod model;
pub mod named_collection;
mod numbered;
mod observe;
pub(crate) mod omitted;
mod omitted_set;
mod parent_create;
pub mod projected;
pub mod ranged;
mod referenced;
pub mod references;
pub mod relationship;
mod removed_whole;
mod required_in;
mod rows;
pub(crate) mod selected;
mod sent_names;
pub mod serve;
mod shapes;
mod sibling_dependents;
mod sibling_projection;
pub(crate) mod siblings;
pub mod target;
#[cfg(test)]
mod tests;
pub mod to_many;
mod together;
pub(crate) mod type_refusal;
mod update_required;

pub use confirm::arguments_for;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use rea_manifest::Manifest;
use rea_plugin_api::contracts::capture::CaptureRecord;
use rea_plugin_api::json::Json;

use self::model::{Effect, WritePlan, WriteTarget};
use self::target::{Classified, TargetKind};
use crate::model::{ItemKey, RelatedWrite, StateView, ViewDetail, WriteScope};
use crate::observation::{Observation, Timeline, decoded};
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
    /// Envelope members (pointers) each answer minted (the view's `per_response_members`).
    pub minted: Vec<String>,
    /// The list tool's name and path template, and its learned query model (what a write
    /// selecting by a query evaluates, see [`selected`]).
    pub tool: String,
    pub path_template: String,
    pub query: Option<crate::model::QueryModel>,
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

/// An item view: the type it reads, where its answers hold the entity, and how its calls name
/// the entity.
#[derive(Debug, Clone)]
pub(crate) struct ItemScope {
    /// The type.
    pub entity_type: String,
    /// Where the entity sits in its answers.
    pub entity_pointer: String,
    /// How a read names its entity.
    pub key: ItemKey,
    /// The read template's identity segment (`{numeric}`, `{numeric}.json`: the id is the value
    /// a fused parameter holds).
    pub id_pattern: String,
    /// Envelope members (pointers) each answer minted (the view's `per_response_members`: a
    /// row page's measured `query_ms`), which the view's verification set aside.
    pub minted: Vec<String>,
    /// Query parameters the capture shows changing nothing of the answer (the view's
    /// `neutral_query`): a read naming only these shows the entity as a plain read does.
    pub neutral: BTreeSet<String>,
    /// The view's identity field and how its answers nest the properties (see
    /// [`crate::nesting`]), when they do.
    pub nesting: Option<(String, crate::nesting::Nesting)>,
}

impl ItemScope {
    /// The entity a successful read's body shows, flat (see [`crate::nesting`]).
    pub fn shown(&self, body: &Json) -> Option<Json> {
        let object = body.pointer(&self.entity_pointer)?;
        match &self.nesting {
            Some((identity, nesting)) => nesting.flatten(identity, object),
            None => Some(object.clone()),
        }
    }

    /// The entity an item read names, `(collection, id)`: the path without its last segment, and
    /// the identity the last segment or the key parameter gives (a read looking the entity up by
    /// another field names it only by the entity it showed). With `plain_only`, only a read
    /// naming its entity and nothing else names one (see [`crate::derive::items::is_plain`]).
    pub fn named(
        &self,
        identity: &str,
        read: &Observation,
        plain_only: bool,
    ) -> Option<(String, String)> {
        if plain_only && !crate::derive::items::is_plain(&self.key, &self.neutral, read) {
            return None;
        }
        let (last, rest) = crate::derive::entities::item_segments(&read.segments).split_last()?;
        let collection = format!("/{}", rest.join("/"));
        let id = match &self.key {
            ItemKey::Path => decoded(rea_manifest::segments::template_value(
                &self.id_pattern,
                last,
            )),
            ItemKey::Query { parameter, field } => {
                let value = read
                    .pairs()
                    .iter()
                    .find(|(name, _)| name == parameter)
                    .map(|(_, value)| value.clone())?;
                if field == identity {
                    value
                } else {
                    let object = read.body.as_ref()?.pointer(&self.entity_pointer)?;
                    if crate::render::identity_text(object, field).as_deref()
                        != Some(value.as_str())
                    {
                        return None;
                    }
                    crate::render::identity_text(object, identity)?
                }
            }
        };
        Some((collection, id))
    }
}

/// A body-query view: the type its answers list, and where.
#[derive(Debug, Clone)]
pub(crate) struct BodyScope {
    /// The type.
    pub entity_type: String,
    /// The pointer of the answers' list.
    pub list_pointer: String,
}

/// What a read tool reads.
#[derive(Debug, Clone)]
pub(crate) enum Scope {
    /// Entities of a type by id.
    Item(ItemScope),
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
    /// The body-query views (by tool): what reads after a write show of the entity a body names
    /// (see [`observe`]'s body reads); kept apart from `scopes`, whose reads the replay checks.
    pub body_reads: HashMap<usize, BodyScope>,
    /// The member views (by tool): what their reads after a member write show of its entity.
    pub member_reads: HashMap<usize, member::MemberScope>,
    /// The count views (by tool): the type they count and the member holding the number; a read
    /// of one after a delete may show the entity gone (see [`observe`]'s count reads).
    pub count_reads: HashMap<usize, (String, String)>,
    /// Per type, the top-level fields its observed entities store, with their JSON types.
    pub field_types: BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
    /// Per document view, the members its document holds with their JSON types: at its root
    /// (pointer `""`) and inside each top-level object member (an envelope: `/data`).
    pub document_types: BTreeMap<String, BTreeMap<String, MemberTypes>>,
    /// Per type, the key sets of the objects its observed entities store in each member.
    pub field_shapes: BTreeMap<String, shapes::MemberShapes>,
    /// The sliced members of the read tools (by tool): a read giving the parameter shows the
    /// member array from that index on ([`crate::sliced`]).
    pub sliced: HashMap<usize, Vec<(String, String)>>,
    /// The recorded reads of the state's documents, for creates taking members from one
    /// ([`document_defaults`]).
    pub document_reads: document_defaults::DocumentReads,
}

impl Views {
    /// The body members that can name an entity of a type in an RPC-style write, in preference
    /// order: the identity's name (its last segment for a nested one), then the key parameters of
    /// the type's item views.
    pub(crate) fn key_names(&self, entity_type: &str) -> Vec<String> {
        let mut names = Vec::new();
        if let Some(info) = self.types.get(entity_type) {
            let identity = info.identity.rsplit('/').next().unwrap_or(&info.identity);
            names.push(rea_plugin_api::json::unescape_pointer_segment(identity));
        }
        let mut scopes: Vec<(&usize, &Scope)> = self.scopes.iter().collect();
        scopes.sort_by_key(|(tool, _)| **tool);
        for (_, scope) in scopes {
            if let Scope::Item(ItemScope {
                entity_type: read_type,
                key: ItemKey::Query { parameter, .. },
                ..
            }) = scope
                && read_type == entity_type
                && !names.contains(parameter)
            {
                names.push(parameter.clone());
            }
        }
        names
    }

    fn new(manifest: &Manifest, timeline: &Timeline, state: &StateView) -> Self {
        let mut views = Views {
            document_reads: document_defaults::DocumentReads::new(manifest, timeline, state),
            ..Views::default()
        };
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
                note_types(views.field_types.entry(entity.entity_type.clone()), fields);
                let shapes = views.field_shapes.entry(entity.entity_type.clone());
                shapes::note_shapes(shapes.or_default(), fields);
            }
        }
        for document in &state.documents {
            if let Some(members) = document.value.as_object() {
                let by_pointer = views
                    .document_types
                    .entry(document.view.clone())
                    .or_default();
                note_types(by_pointer.entry(String::new()), members);
                for (member, value) in members.iter() {
                    if let Some(inner) = value.as_object() {
                        note_types(by_pointer.entry(explain::pointer_of(member)), inner);
                    }
                }
            }
        }
        let index_of = |name: &str| manifest.tools.iter().position(|tool| tool.name == name);
        for view in &state.views {
            if let Some(tool) = index_of(&view.tool) {
                views.add_view(tool, view);
            }
        }
        for sliced in &state.sliced_members {
            if let Some(tool) = index_of(&sliced.tool) {
                let parts = (sliced.parameter.clone(), sliced.member.clone());
                views.sliced.entry(tool).or_default().push(parts);
            }
        }
        views.share_minted(timeline, state, index_of);
        views
    }

    /// Item views answering in one envelope (the same top-level members, as their envelope
    /// records show) mint the same members: each takes the members any of them learned as
    /// minted, so a row page read once before the first write (whose one answer shows nothing
    /// varying) sets aside the measured `query_ms` its sibling row pages showed varying.
    fn share_minted(
        &mut self,
        timeline: &Timeline,
        state: &StateView,
        index_of: impl Fn(&str) -> Option<usize>,
    ) {
        let envelope_of = |item: &crate::model::ItemView| -> Option<Vec<String>> {
            let body = timeline.get(item.envelope_ordinal)?.body.as_ref()?;
            Some(body.as_object()?.keys().map(str::to_owned).collect())
        };
        let mut shared: BTreeMap<Vec<String>, BTreeSet<String>> = BTreeMap::new();
        let mut members: Vec<(usize, Vec<String>)> = Vec::new();
        for view in &state.views {
            let ViewDetail::Item(item) = &view.detail else {
                continue;
            };
            let (Some(tool), Some(envelope)) = (index_of(&view.tool), envelope_of(item)) else {
                continue;
            };
            shared
                .entry(envelope.clone())
                .or_default()
                .extend(item.per_response_members.iter().cloned());
            members.push((tool, envelope));
        }
        for (tool, envelope) in members {
            if let (Some(Scope::Item(scope)), Some(minted)) =
                (self.scopes.get_mut(&tool), shared.get(&envelope))
            {
                scope.minted = minted.iter().cloned().collect();
            }
        }
    }

    /// Indexes one read view of a manifest tool.
    fn add_view(&mut self, tool: usize, view: &crate::model::ReadView) {
        match &view.detail {
            ViewDetail::Item(item) => {
                if let Some(info) = self.types.get_mut(&item.entity_type)
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
                self.scopes.insert(
                    tool,
                    Scope::Item(ItemScope {
                        entity_type: item.entity_type.clone(),
                        entity_pointer: item.entity_pointer.clone(),
                        key: item.key.clone(),
                        id_pattern: crate::derive::entities::item_segments(
                            &rea_manifest::segments::split_path(&view.path_template),
                        )
                        .last()
                        .map_or_else(String::new, |pattern| (*pattern).to_owned()),
                        minted: item.per_response_members.clone(),
                        neutral: item.neutral_query.iter().cloned().collect(),
                        nesting: item
                            .nesting
                            .clone()
                            .map(|nesting| (item.identity_field.clone(), nesting)),
                    }),
                );
            }
            ViewDetail::List(list) => {
                self.scopes.insert(
                    tool,
                    Scope::List(
                        list.entity_type.clone(),
                        ListInfo {
                            list_pointer: list.list_pointer.clone(),
                            minted: list.per_response_members.clone(),
                            tool: view.tool.clone(),
                            path_template: view.path_template.clone(),
                            query: list.query.clone(),
                        },
                    ),
                );
            }
            ViewDetail::Document(_) => {
                self.scopes.insert(tool, Scope::Document(view.tool.clone()));
            }
            ViewDetail::BodyQuery(query) => {
                self.body_reads.insert(
                    tool,
                    BodyScope {
                        entity_type: query.entity_type.clone(),
                        list_pointer: explain::pointer_of(&query.list_member),
                    },
                );
            }
            ViewDetail::Member(member) => self.add_member(tool, member),
            ViewDetail::Count(count) => {
                self.count_reads
                    .insert(tool, (count.entity_type.clone(), count.member.clone()));
            }
            ViewDetail::IdMap(_) | ViewDetail::Recorded { .. } => {}
        }
    }
}

/// Notes the JSON type of each top-level member an object stores.
/// The top-level members of observed objects, with their JSON types.
pub(crate) type MemberTypes = BTreeMap<String, BTreeSet<String>>;

fn note_types(
    known: std::collections::btree_map::Entry<'_, String, MemberTypes>,
    object: &rea_plugin_api::json::Object,
) {
    let known = known.or_default();
    for (member, value) in object.iter() {
        known
            .entry(member.to_owned())
            .or_default()
            .insert(value.type_name().to_owned());
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
    /// Learned one entity at a time for a bulk plan (the rules see a `bulk-…` effect).
    pub as_bulk: bool,
    /// For an update: the constants the creates of its entity type store (learned before it),
    /// which an update stamping the same value stores too (see
    /// `explain::Explanation::stamped_constants`).
    pub stamped: BTreeMap<String, Json>,
}

impl Draft {
    /// Whether the plan is still a candidate (no reason decided yet).
    pub fn open(&self) -> bool {
        self.plan.reason.is_none()
    }
}

/// The end of pass 3: a collection kept sorted by a field is a property of the collection, not of
/// one tool: a plan of a type that learned no placement of its own takes the sort another plan of
/// the type learned, when its writes change that field (the clock an update stamps, a title it
/// sends).
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
        let Some(entity_type) = draft.plan.entity_type().map(str::to_owned) else {
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

/// What a call's arguments are checked for, learned after pass 3: the recorded refusal of a
/// mistyped member ([`type_refusal`]), the members an update requires
/// ([`update_required`]) and the collections those required members bind ([`required_in`]).
fn learn_argument_checks(drafts: &mut [Draft], timeline: &Timeline, state: &StateView) {
    type_refusal::learn(drafts, timeline);
    update_required::learn(drafts);
    required_in::learn(drafts, timeline, state);
}

/// The write plans of a state (one per write tool, in manifest order), every successful write
/// from the first on with what it relates to (see [`crate::derive::windows`]), and the entity
/// types recorded writes changed though no write tool writes them, and the folder types whose
/// listings served writes of their children changed (see [`confirm`]): the four passes (see the
/// module docs), then each plan still open is served.
pub(crate) fn derive_write_plans(
    manifest: &Manifest,
    timeline: &Timeline,
    state: &StateView,
    records: &[CaptureRecord],
    rules: &RuleSet,
) -> (Vec<WritePlan>, Vec<RelatedWrite>, confirm::Unmodelled) {
    let views = Views::new(manifest, timeline, state);
    let mut drafts = draft_writes(manifest, timeline, state, &views, rules);
    if drafts.is_empty() {
        return (Vec::new(), Vec::new(), Default::default());
    }
    // Pass 2 (`observe`).
    let mut observed = observe::observe(manifest, (timeline, rules), state, &views, &mut drafts);
    references::learn(&mut drafts, &mut observed, state);
    // Pass 3 (`learn`, `explain`), ending with the sorts a type's plans share, and the taken
    // values and left-out members creates were refused for (and the members held entities show
    // a create may leave out, before the refusals that name required members).
    learn_drafts(
        &mut drafts,
        &mut observed,
        (state, timeline, &views),
        (rules, records),
    );
    conflict::share_with_copies(&mut drafts);
    keyed_refusal::lend(&mut drafts, timeline);
    lent_omission::lend(&mut drafts, timeline);
    constant_refusal::learn(&mut drafts, &observed, state, timeline);
    learn_argument_checks(&mut drafts, timeline, state);
    share_sorts(&mut drafts);
    defaults::learn(&mut drafts, &observed);
    learn_relationships(&mut drafts, (&observed, &views), state, timeline, false);
    // Pass 4 (`confirm`).
    let unmodelled = confirm::confirm(
        manifest,
        timeline,
        state,
        &views,
        &mut drafts,
        &observed,
        rules,
        records,
    );
    mark_served(&mut drafts);
    ranged::learn(
        &mut drafts,
        &observed,
        (manifest, timeline, state, &views, rules),
    );
    let mut served: Vec<&mut WritePlan> = drafts.iter_mut().map(|draft| &mut draft.plan).collect();
    composed::learn(manifest, timeline, state, &mut served);
    learn_relationships(&mut drafts, (&observed, &views), state, timeline, true);
    let mut related = related_writes(manifest, timeline, &drafts, &observed);
    let mut plans: Vec<WritePlan> = drafts.into_iter().map(|draft| draft.plan).collect();
    borrowed_plans(
        manifest,
        timeline,
        (state, &views, records),
        (&mut plans, &mut related),
    );
    (plans, related, unmodelled)
}

/// Pass 3's learning of each draft, creates first: an update stamping a member with the value
/// its type's creates store as a constant (a frozen clock's `updated_at`) stores it too
/// ([`Draft::stamped`]).
fn learn_drafts(
    drafts: &mut [Draft],
    observed: &mut [observe::Call],
    (state, timeline, views): (&StateView, &Timeline, &Views),
    (rules, records): (&RuleSet, &[CaptureRecord]),
) {
    let mut order: Vec<usize> = (0..drafts.len()).collect();
    order.sort_by_key(|index| drafts[*index].plan.effect != Effect::Create);
    let mut stamps: BTreeMap<String, BTreeMap<String, Json>> = BTreeMap::new();
    for index in order {
        let draft = &mut drafts[index];
        if draft.plan.effect == Effect::Update {
            draft.stamped = (draft.plan.entity_type())
                .and_then(|entity_type| stamps.get(entity_type))
                .cloned()
                .unwrap_or_default();
        }
        observed_delete(draft, observed);
        if matches!(draft.classified.kind, TargetKind::Member { .. }) {
            member::learn(draft, observed, records, (views, rules));
            continue;
        }
        learn::learn(draft, observed, views, rules, records);
        defaults::learn_held_nulls(draft, observed, state);
        omitted::learn(draft, timeline);
        keyed_refusal::learn(draft, timeline);
        omitted_set::learn(draft, observed, timeline, records);
        children::learn(draft, observed, views);
        conflict::learn(draft, observed, state, timeline);
        referenced::learn(draft, (observed, views), state, timeline);
        numbered::learn(draft, state, rules);
        if draft.plan.effect == Effect::Create
            && !draft.plan.bulk
            && let (Some(entity_type), Some(fields)) =
                (draft.plan.entity_type(), &draft.plan.fields)
        {
            let known = stamps.entry(entity_type.to_owned()).or_default();
            for (field, value) in &fields.constants {
                known.entry(field.clone()).or_insert_with(|| value.clone());
            }
        }
    }
}

/// Pass 1 (`target`, `action`): one draft per write tool the recording wrote through (inferred
/// tools drafted by none), its target classified and its action proposed and resolved.
fn draft_writes(
    manifest: &Manifest,
    timeline: &Timeline,
    state: &StateView,
    views: &Views,
    rules: &RuleSet,
) -> Vec<Draft> {
    let writes: Vec<(usize, Classified)> = manifest
        .tools
        .iter()
        .enumerate()
        .filter(|(index, tool)| timeline.is_write(manifest, *index) && tool.inferred_from.is_none())
        .map(|(index, tool)| (index, target::classify(tool, state)))
        .collect();
    let actions = action::propose(manifest, &writes, rules);
    writes
        .into_iter()
        .zip(actions)
        .map(|((index, classified), proposed)| {
            let proposed = proposed
                .or_else(|| action::revision_route(manifest, timeline, views, index, &classified));
            let classified =
                action::resolve(manifest, timeline, views, index, (classified, proposed));
            Draft::new(manifest, index, timeline, views, classified)
        })
        .collect()
}

/// After the replay: each plan no pass withheld is served; a document write without a target
/// is withheld `no-state-target`.
fn mark_served(drafts: &mut [Draft]) {
    for draft in drafts {
        if draft.plan.reason.is_none() {
            draft.plan.served = true;
        }
        if draft.plan.effect == Effect::Document && draft.plan.target.is_none() {
            draft.plan.withhold("no-state-target");
        }
    }
}

/// The relationship writes among the drafts withheld for want of a target, to-one
/// ([`relationship`]) and to-many ([`to_many`]): before the replay their models, after it
/// (`serve`) the drafts holding one served.
fn learn_relationships(
    drafts: &mut [Draft],
    (calls, views): (&[observe::Call], &Views),
    state: &StateView,
    timeline: &Timeline,
    serve: bool,
) {
    relationship::learn(drafts, (calls, views), state, timeline, serve);
    to_many::learn(drafts, (calls, views), state, timeline, serve);
    collection_links::learn(drafts, (calls, views), state, timeline, serve);
}

/// Not a pass: plans taken from served ones. A write withheld for want of a target whose calls
/// are batches of served writes serves them (`batch`; `guarded`: sub-requests beside guards);
/// the inferred tools of an opt-in sibling transfer take their source's plan; a withheld create
/// below a served create's route takes its plan (`parent_create`). Last, a withheld bodyless
/// write whose reads show it adding its path's name to a names document serves that
/// (`named_collection`), its calls related to the document.
fn borrowed_plans(
    manifest: &Manifest,
    timeline: &Timeline,
    (state, views, records): (&StateView, &Views, &[CaptureRecord]),
    (plans, related): (&mut Vec<WritePlan>, &mut [RelatedWrite]),
) {
    batch::learn(manifest, timeline, plans);
    guarded::learn(manifest, timeline, plans);
    let inferred = siblings::transfer(manifest, state, views, plans, records);
    plans.extend(inferred);
    parent_create::borrow(state, plans);
    named_collection::learn(manifest, timeline, state, records, (plans, related));
}

/// An RPC-style write whose verb names no known effect (`deleterange`) is a delete when every
/// call's reads show the entity its body names gone: held before the call, absent after it.
fn observed_delete(draft: &mut Draft, calls: &[observe::Call]) {
    if draft.classified.key_member.is_none()
        || draft.classified.effect != Effect::Update
        || draft.classified.action.is_none()
        || draft.calls.is_empty()
    {
        return;
    }
    let gone = draft
        .calls
        .iter()
        .all(|call| calls[*call].before.is_some() && calls[*call].after == observe::After::Absent);
    if gone {
        draft.classified.effect = Effect::Delete;
        draft.classified.action = None;
        draft.plan.effect = Effect::Delete;
        draft.plan.action = None;
    }
}

impl Draft {
    /// The draft of a write tool (pass 1): what its path names, `classified` (an action route
    /// already resolved by the reads after its calls; an RPC-style write resolved here by its
    /// calls' bodies) and the target that gives its plan.
    fn new(
        manifest: &Manifest,
        index: usize,
        timeline: &Timeline,
        views: &Views,
        classified: Classified,
    ) -> Self {
        let tool = &manifest.tools[index];
        let classified = match &classified.kind {
            TargetKind::Rpc { entity_type, .. } => {
                let bodies: Vec<Option<&rea_plugin_api::json::Json>> = timeline
                    .all(index)
                    .filter(|call| call.is_success())
                    .map(|call| match &call.request {
                        crate::observation::RequestBody::Json(body) => Some(body),
                        _ => None,
                    })
                    .collect();
                let key_names = views.key_names(entity_type);
                target::resolve_rpc(classified.clone(), &bodies, &key_names)
            }
            _ => classified,
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
                target: write_target(&classified, views),
                body: None,
                fields: None,
                rules: Vec::new(),
                response: None,
                missing_ordinal: None,
                upsert: None,
                inferred_from: None,
                conflicts: Vec::new(),
                omitted: Vec::new(),
                omitted_sets: Vec::new(),
                keyed_refusals: Vec::new(),
                lent_omission: None,
                referenced: Vec::new(),
                constant_refusals: Vec::new(),
                type_refusals: Vec::new(),
                copies: false,
                children: Vec::new(),
                batch: None,
                guarded: None,
                relationship: None,
                to_many: None,
                links: None,
                references: Vec::new(),
                composed: None,
                ranged: None,
            },
            classified,
            calls: Vec::new(),
            failed: Vec::new(),
            as_bulk: false,
            stamped: BTreeMap::new(),
        }
    }
}

/// The target a classified path gives a plan: a type's (its identity, item view and key member),
/// or a document; `None` for what only the calls can place.
fn write_target(classified: &Classified, views: &Views) -> Option<WriteTarget> {
    match &classified.kind {
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
            key_member: classified.key_member.clone(),
            entity_id: None,
            entity_segment: None,
            member: None,
        }),
        TargetKind::Member {
            entity_type,
            collection,
            entity_segment,
            member,
        } => views.types.get(entity_type).map(|info| WriteTarget {
            entity_type: Some(entity_type.clone()),
            identity_field: Some(info.identity.clone()),
            collection: Some(collection.clone()),
            item_view: info.item.as_ref().map(|item| item.name.clone()),
            entity_segment: Some(*entity_segment),
            member: Some(member.clone()),
            ..WriteTarget::default()
        }),
        TargetKind::Document { view } => Some(WriteTarget {
            document: Some(view.clone()),
            ..WriteTarget::default()
        }),
        TargetKind::Rpc { .. }
        | TargetKind::Unlinked
        | TargetKind::Linked { .. }
        | TargetKind::None => None,
    }
}

/// What each successful write from the first on relates to: what its plan writes (the type and
/// the collection its call wrote, or the document), or everything when the state does not model
/// its effect.
fn related_writes(
    manifest: &Manifest,
    timeline: &Timeline,
    drafts: &[Draft],
    calls: &[observe::Call],
) -> Vec<RelatedWrite> {
    let call_of: HashMap<u64, &observe::Call> =
        calls.iter().map(|call| (call.ordinal, call)).collect();
    let mut related = Vec::new();
    for ordinal in &timeline.ordered {
        let Some(observation) = timeline.get(*ordinal) else {
            continue;
        };
        if observation.position < timeline.cutoff
            || !crate::derive::windows::closes_windows(manifest, timeline, observation)
        {
            continue;
        }
        let scope = call_of
            .get(ordinal)
            .and_then(|call| call_scope(&drafts[call.draft], call))
            .unwrap_or(WriteScope::All);
        related.push(RelatedWrite {
            ordinal: *ordinal,
            tool: manifest.tools[observation.tool].name.clone(),
            scope,
        });
    }
    related
}

/// Whether a call writes the one entity its path names: an item path (no body member naming the
/// entity, no batch or bulk of several, no copy under a new identity).
fn path_named(draft: &Draft, call: &observe::Call) -> bool {
    matches!(draft.classified.kind, TargetKind::Item { .. })
        && draft.classified.key_member.is_none()
        && !draft.as_bulk
        && call.bulk.is_empty()
        && call.copy.is_none()
}

/// What one modelled call relates to, when the state models its effect.
fn call_scope(draft: &Draft, call: &observe::Call) -> Option<WriteScope> {
    // A delete changing other types' entities relates to everything, as one the state does not
    // model would.
    if draft.plan.reason.as_deref() == Some("side-effect") || draft.plan.has_dependents() {
        return None;
    }
    let target = draft.plan.target.as_ref()?;
    if let Some(document) = &target.document {
        return Some(WriteScope::Document {
            document: document.clone(),
        });
    }
    let entity_type = target.entity_type.clone()?;
    // A copy moved into another collection changes two collections of its type.
    if call.moved_to.is_some() {
        return Some(WriteScope::Type {
            entity_type,
            collection: None,
            entity: None,
        });
    }
    if let Some((called_type, collection, id)) = &call.key {
        // A member write changes the one entity its path names, and nothing else of the
        // collection (the reads after it confirmed so, or the plan is withheld as a side effect);
        // so does a write of one item its path names (`PUT /{name}`, `DELETE /posts/{id}`),
        // confirmed as a plan: a create or update of another entity of the collection that
        // changed a held one is charged as a side effect, and then relates to everything.
        let entity = target
            .member
            .as_ref()
            .zip(target.entity_segment)
            .and_then(|(_, at)| apply::path_value(&draft.plan, &call.segments, at))
            .or_else(|| path_named(draft, call).then(|| id.clone()));
        return (*called_type == entity_type).then(|| WriteScope::Type {
            entity_type,
            collection: Some(crate::derive::entities::collection_key(collection).to_owned()),
            entity,
        });
    }
    match &draft.classified.kind {
        TargetKind::Item { segments, .. } | TargetKind::Collection { segments, .. }
            if call.segments.len() >= *segments =>
        {
            let collection = format!("/{}", call.segments[..*segments].join("/"));
            Some(WriteScope::Type {
                entity_type,
                collection: Some(crate::derive::entities::collection_key(&collection).to_owned()),
                entity: None,
            })
        }
        _ => None,
    }
}

//! Extraction: capture records and their manifest → the [`StateView`].
//!
//! 1. [`Timeline`]: the cited records in time order and the observation windows (each read's
//!    before the first write related to what it shows, see [`windows`]).
//! 2. Item views ([`items`]): a `GET` whose last path segment is a parameter and whose answers
//!    echo it in one member (at the root or one envelope level down) names an entity type
//!    (the template before that segment) and its identity field; so does a `GET` ending in a
//!    literal segment whose reads name their entity by a query parameter the answers echo
//!    (`…/runs/get?run_id=…`, the identity possibly nested in the entity, `/info/run_id`; or a
//!    field the view looks the entity up by, `…/get-by-name?experiment_name=…`); its reads seed
//!    entities, the plain ones and those whose query only restates the entity they answer
//!    (`?type=file&format=text` answering `"type": "file", "format": "text"`).
//!    An object marked deleted (`deleted`, `isDeleted` or `is_deleted` true) never seeds one.
//! 3. List views ([`lists`]): a `GET` answering an array of objects (the root array, or the one
//!    array of objects an envelope carries) whose members are entities of a type, or of a new
//!    type the list itself names; lines, membership, view values, counters, and the query model.
//! 4. Document views ([`documents`]): other `GET`s answering JSON, one request line each, or
//!    one document per id of their path template (read on several paths without a query; any
//!    write closes such a view's observation window, as it shows what the id names).
//! 5. Verification: every item and list view is rendered from the state with the functions serving
//!    uses ([`crate::render`]) and compared with its checked recordings; a view that does not
//!    reproduce them is recorded (`item-differs`, `list-differs`), and parameters whose reads show
//!    entities in another representation become `projected_query_keys`, as do the parameters
//!    a tool took from a query family (recorded on none of its reads: `shared-query`).
//!
//! 6. Body queries ([`body_queries`]): a read whose query is its request body, read by the query
//!    grammars into terms, is a view of a held type when evaluating its recorded bodies reproduces
//!    their answers; a page token one learned is lent to sibling routes' ([`sibling_body_pages`]).
//!
//! 6a. Member views ([`members`]): a read whose every checked answer is one member of a held
//!    entity of another type (named by a path parameter, the member by literal keys and other
//!    path parameters) answers that member of the live entity.
//!
//! 7. Folder entries ([`crate::entries`]): a read tool answering from its recordings whose reads
//!    agree with the entries the folder listings show answers those entries too.
//!
//! 8. Created reads ([`crate::created`]): a read tool answering from its recordings whose every
//!    successful recording showed only entities the capture's writes created answers the state
//!    before them (an item tool its missing answer, a list tool its recordings less them).
//!
//! Everything else a read tool may be answers from its recordings with a reason: `method-replay`
//! (`HEAD`, `OPTIONS`, `TRACE`), `query-body` (query `POST`s), `no-view` (no JSON read in the
//! observation window), `query-varies`/`path-varies` (a document tool read on several lines),
//! `document-differs`, `rendered-oversize`.

pub mod body_queries;
pub(crate) mod created_mentions;
pub(crate) mod default_page;
pub mod documents;
pub mod entities;
pub mod items;
mod later_members;
pub(crate) mod list_place;
pub(crate) mod list_query;
pub mod lists;
pub mod members;
mod null_placement;
pub mod query_grammar;
pub(crate) mod repeated_sort;
mod shared_arithmetic;
mod shared_links;
mod shared_paging;
mod shared_totals;
pub(crate) mod sibling_body_pages;
pub(crate) mod sibling_pages;
#[cfg(test)]
pub(crate) mod tests;
pub(crate) mod tie_order;
pub(crate) mod variant_relief;
pub mod windows;

use std::collections::{BTreeMap, BTreeSet};

use rea_evidence::Refusal;
use rea_manifest::catalog::{is_query_post, is_safe_method};
use rea_manifest::{Manifest, ManifestTool};
use rea_plugin_api::contracts::capture::{Body, CaptureRecord};
use rea_plugin_api::json::Json;

use crate::model::{Entity, EntityType, QueryRole, ReadView, StateView, ViewDetail};
use crate::observation::{Observation, Timeline};
use crate::rules::RuleSet;
use crate::writes::model::WritePlan;

pub use entities::Entities;

/// The members that mark an object soft-deleted when `true`.
pub const DELETED_FLAGS: [&str; 3] = ["deleted", "isDeleted", "is_deleted"];

/// Derives the state a capture observed from its records and the manifest projected from them,
/// with the write plans the rules explain. Extraction runs in passes until the observation
/// windows are settled (see [`windows`]; a read naming an entity created before it ends at the
/// create, [`created_mentions`]).
pub fn derive_state(
    manifest: &Manifest,
    manifest_evidence_id: &str,
    records: &[CaptureRecord],
    rules: &RuleSet,
) -> Result<StateView, Refusal> {
    check_bodies_kept(manifest, records)?;
    // One timeline: a later pass sets its windows, and they are set back to the base windows
    // after it (a copy per pass would hold every parsed body twice).
    let mut timeline = Timeline::new(manifest, records);
    let conservative = derive_pass(manifest, manifest_evidence_id, &timeline, records, rules);
    let base_ends = timeline.window_ends();
    let mut used = base_ends.clone();
    // The state of the latest pass after the first (`None`: the first's, not copied, as most
    // captures settle there).
    let mut later: Option<StateView> = None;
    for pass in 1..=windows::MAX_PASSES {
        let current = later.as_ref().unwrap_or(&conservative);
        let mut ends = windows::window_ends(
            manifest,
            &timeline,
            &current.views,
            &current.related_writes,
            &current.types,
        );
        let written = (&current.related_writes[..], &current.types[..]);
        created_mentions::close_windows(manifest, &timeline, written, &mut ends);
        if windows::same_checks(&timeline, &ends, &used) {
            // The windows this pass ran with check the reads its views and plans give.
            return Ok(later.unwrap_or(conservative));
        }
        if pass == windows::MAX_PASSES {
            break;
        }
        // The previous later pass is dropped before the next is derived.
        drop(later.take());
        timeline.set_windows(&ends);
        later = Some(derive_pass(
            manifest,
            manifest_evidence_id,
            &timeline,
            records,
            rules,
        ));
        timeline.set_windows(&base_ends);
        used = ends;
    }
    tracing::debug!("the observation windows did not settle; every write relates to everything");
    let mut state = conservative;
    state.related_writes = windows::all_related(manifest, &timeline);
    Ok(state)
}

/// Refuses a capture whose reads kept no response body at all (a capture that selected header
/// values only): the state holds what reads showed, so none can be derived from it
/// (`unsupported_target`; serving then falls back to replay). A capture without reads, or with
/// one read that kept a body (even one withheld as sensitive), is derived.
fn check_bodies_kept(manifest: &Manifest, records: &[CaptureRecord]) -> Result<(), Refusal> {
    let reads: BTreeSet<u64> = manifest
        .tools
        .iter()
        .filter(|tool| {
            tool.method.eq_ignore_ascii_case("GET")
                || is_query_post(&tool.method, &tool.path_template)
        })
        .flat_map(|tool| tool.record_ordinals.iter().copied())
        .collect();
    let mut answered = records
        .iter()
        .filter(|record| reads.contains(&record.ordinal) && record.response.status != 0)
        .peekable();
    if answered.peek().is_none() {
        return Ok(());
    }
    if answered.any(|record| !matches!(record.response.body, Body::Missing | Body::ReportedNull)) {
        return Ok(());
    }
    Err(Refusal::unsupported_target(
        "the capture kept no response body of any read, so no environment state can be derived from it; record response bodies to serve from the state",
    )
    .in_stage(rea_manifest::STAGE))
}

/// Marks the types and document views recorded writes changed though no write tool writes them
/// (`unmodelled.types`: type templates and document view tools) or that lie inside a written
/// collection (`nested`), which answer not modelled after a served write, and the folder types
/// whose listings a served write of a child changed (`unmodelled.folders`).
fn mark_unmodelled(
    state: &mut StateView,
    unmodelled: &crate::writes::confirm::Unmodelled,
    nested: &BTreeSet<String>,
) {
    for known in &mut state.types {
        known.unmodelled_after_writes = unmodelled.types.contains(&known.collection_template)
            || nested.contains(&known.collection_template);
        known.folder_listings_after_writes =
            unmodelled.folders.contains(&known.collection_template);
    }
    for view in &mut state.views {
        if let ViewDetail::Document(document) = &mut view.detail {
            document.unmodelled_after_writes = unmodelled.types.contains(&view.tool);
        }
    }
}

/// The read views of the tools a view was derived for, in the manifest's tool order.
fn read_views(manifest: &Manifest, details: Vec<Option<ViewDetail>>) -> Vec<ReadView> {
    manifest
        .tools
        .iter()
        .zip(details)
        .filter_map(|(tool, detail)| {
            detail.map(|detail| ReadView {
                tool: tool.name.clone(),
                method: tool.method.clone(),
                path_template: tool.path_template.clone(),
                detail,
            })
        })
        .collect()
}

/// A type whose served delete keeps its entities marked deleted names that member.
fn mark_deleted_flags(state: &mut StateView, plans: &[WritePlan]) {
    for plan in plans {
        let (Some(flag), Some(entity_type)) = (
            plan.fields
                .as_ref()
                .and_then(|fields| fields.soft_delete.as_ref()),
            plan.target
                .as_ref()
                .and_then(|target| target.entity_type.as_ref()),
        ) else {
            continue;
        };
        if let Some(known) = state
            .types
            .iter_mut()
            .find(|known| known.collection_template == *entity_type)
            && known.deleted_flag.is_none()
        {
            known.deleted_flag = Some(flag.clone());
        }
    }
}

/// Extends the read views beyond their recorded queries: field selections, relations, the
/// joins relation paths read, the link objects item views fill from the entities they name
/// ([`crate::embedded_links`]), and (after the joins, whose fields a grammar's filters reach) the
/// query grammars, taking back the variant marks they read ([`variant_relief`]), then the page links a paged list lends its siblings and the link relations lists at one place share ([`shared_links`]), the offset and size members ([`shared_paging`]) and the page arithmetic ([`shared_arithmetic`]) lists lend their siblings; then a paging parameter
/// a list's model plays loses its shared-query mark; last, the reads counting what a list selects
/// become count views ([`crate::count_views`]) and the reads mapping a type's ids to one member
/// id map views ([`crate::id_maps`]).
fn generalize_views(
    manifest: &Manifest,
    timeline: &Timeline,
    (types, entities): (&[EntityType], &[Entity]),
    views: &mut [ReadView],
    rules: &RuleSet,
) {
    crate::selection::generalize(manifest, timeline, entities, views);
    crate::digests::generalize(manifest, timeline, views);
    crate::relations::generalize((manifest, rules), timeline, (types, entities), views);
    crate::relations::generalize_lists(entities, views);
    crate::parent_items::generalize(entities, views);
    crate::joins::generalize(manifest, timeline, (types, entities), views);
    crate::embedded_links::generalize(timeline, (types, entities), views);
    query_grammar::generalize(manifest, timeline, views, entities, rules);
    crate::link_keys::generalize(entities, views);
    variant_relief::relieve(manifest, timeline, views);
    sibling_pages::offer(manifest, timeline, views);
    shared_links::share(manifest, timeline, views);
    shared_paging::share(manifest, timeline, views);
    shared_arithmetic::share(manifest, timeline, views);
    shared_totals::share(views, rules);
    unmark_paging_grammar(views);
    crate::count_views::derive(manifest, timeline, entities, views, rules);
    crate::id_maps::derive(manifest, timeline, entities, views);
    null_placement::share(entities, views, rules);
    repeated_sort::share(views);
}

/// The derived entities, shared (the state's, its live and initial copies), in a list of their
/// count. Collected in place, the list of handles would keep the entity list's allocation, grown
/// by doubling and about twenty times the room the handles take, for as long as the state lives.
fn shared_entities(entities: Vec<Entity>) -> Vec<std::sync::Arc<Entity>> {
    let mut shared = Vec::with_capacity(entities.len());
    shared.extend(entities.into_iter().map(std::sync::Arc::new));
    shared
}

/// One extraction pass over a timeline whose observation windows are given.
fn derive_pass(
    manifest: &Manifest,
    manifest_evidence_id: &str,
    timeline: &Timeline,
    records: &[CaptureRecord],
    rules: &RuleSet,
) -> StateView {
    let mut builder = Builder {
        manifest,
        timeline,
        rules,
        entities: Entities::default(),
        details: vec![None; manifest.tools.len()],
    };
    builder.run();
    let (entities, details) = (builder.entities, builder.details);
    let (types, entities, documents) = entities.finish();
    let mut views = read_views(manifest, details);
    mark_shared_queries(manifest, &mut views);
    generalize_views(manifest, timeline, (&types, &entities), &mut views, rules);
    crate::page_past_end::derive(manifest, timeline, &entities, &mut views);
    let (folder_entries, folder_listings, tree_writes) =
        folder_rules(manifest, timeline, records, &views);
    let absent_answers = crate::absent::derive(manifest, timeline, (&types, &entities), &views);
    let query_refusals =
        crate::query_refusals::derive(manifest, (timeline, records), (&entities, &views), rules);
    let sliced_members = crate::sliced::derive(manifest, timeline, &views);
    let created_reads = crate::created::derive(manifest, timeline, &views);
    let write_clock = write_clock_of(timeline);
    let (compound, related_routes, linkage_routes) =
        relationship_rules(manifest, timeline, (&entities, &views));
    let echo = crate::request_echo::learn(manifest, timeline, &views);
    let mut state = StateView {
        sparse: crate::sparse::learn(manifest, timeline, &entities, &views),
        expansion: crate::expansion::learn(manifest, timeline, &entities, &views),
        chosen_relations: crate::chosen_relations::learn(
            manifest,
            timeline,
            (&types, &entities),
            &views,
        ),
        compound,
        sideloads: crate::sideloads::learn(manifest, timeline, &views),
        related_routes,
        linkage_routes,
        appended_lists: Vec::new(),
        request_echo: echo.as_ref().map(|echo| echo.pointer.clone()),
        request_echo_prefix: echo.map(|echo| echo.prefix).unwrap_or_default(),
        documents,
        entities: shared_entities(entities),
        first_write_ordinal: timeline.first_write,
        related_writes: Vec::new(),
        manifest_evidence_id: manifest_evidence_id.to_owned(),
        parent_evidence_id: manifest.parent_evidence_id.clone(),
        record_order: timeline.order,
        template_rules: manifest.template_rules.clone(),
        types,
        views,
        write_clock,
        rule_stages: rules.refs(),
        query_grammars: rules.query_grammar_refs(),
        write_plans: Vec::new(),
        folder_entries,
        folder_listings,
        tree_writes,
        absent_answers,
        query_refusals,
        created_reads,
        sliced_members,
        store_counters: crate::counters::derive(manifest, timeline),
        // Sealed once the state is whole (`crate::evidence::draw_seed`).
        draw_seed: String::new(),
    };
    settle_writes(manifest, timeline, records, rules, &mut state);
    state
}

/// The write plans learned over the state read so far, and what they settle of it: the lists
/// appended after writes, the views written types leave unmodelled, deleted flags, folder-tree
/// writes, inferred depths and sibling reads, and (opt-in) the answers siblings lend.
fn settle_writes(
    manifest: &Manifest,
    timeline: &Timeline,
    records: &[CaptureRecord],
    rules: &RuleSet,
    state: &mut StateView,
) {
    state.appended_lists = crate::inverse::appended_after_writes(timeline, &state.entities);
    // Before the plans: a to-many write answering its own path's linkage renders it through the
    // route a sibling read is lent (`writes::to_many`).
    crate::sibling_reads::attach(manifest, state);
    let (plans, related, unmodelled) =
        crate::writes::derive_write_plans(manifest, timeline, state, records, rules);
    let nested = nested_in_written(&state.types, &plans);
    mark_unmodelled(state, &unmodelled, &nested);
    crate::folder_compose::learn_stamps(timeline, state);
    mark_deleted_flags(state, &plans);
    state.write_plans = plans;
    mark_tree_writes(state);
    crate::tree_depths::attach(manifest, state);
    state.related_writes = related;
    if rules.sibling_transfer() {
        crate::writes::siblings::borrow_missing_answers(state, records);
        crate::writes::siblings::borrow_missing_write_answers(state, records);
    }
}

/// The folder entries the read views' recordings show, the folder listings composed from them
/// and the writes of folder trees those listings teach.
fn folder_rules(
    manifest: &Manifest,
    timeline: &Timeline,
    records: &[CaptureRecord],
    views: &[ReadView],
) -> (
    Vec<crate::entries::FolderEntries>,
    Vec<crate::listings::FolderListing>,
    Vec<crate::tree_writes::TreeWrites>,
) {
    let folder_entries = crate::entries::derive(manifest, timeline, views);
    let folder_listings = crate::listings::derive(timeline, &folder_entries);
    let tree_writes = crate::tree_writes::derive(
        manifest,
        timeline,
        records,
        &folder_listings,
        &folder_entries,
    );
    (folder_entries, folder_listings, tree_writes)
}

/// The clock served writes start from: after the capture's last record.
fn write_clock_of(timeline: &Timeline) -> Option<String> {
    crate::instant::write_clock(
        timeline
            .by_ordinal
            .values()
            .map(|observation| (observation.started.as_deref(), observation.duration_ms)),
    )
}

/// The compound documents the reads taught ([`crate::compound`]), the to-one related routes
/// answered through their linkage ([`crate::related_routes`]) and the routes answering the
/// linkage itself ([`crate::linkage_routes`]).
fn relationship_rules(
    manifest: &Manifest,
    timeline: &Timeline,
    (entities, views): (&[Entity], &[ReadView]),
) -> (
    Option<crate::compound::CompoundDocuments>,
    Vec<crate::related_routes::RelatedRoute>,
    Vec<crate::linkage_routes::LinkageRoute>,
) {
    let compound = crate::compound::learn(manifest, timeline, entities, views);
    let routes =
        crate::related_routes::learn(manifest, timeline, (entities, views), compound.as_ref());
    let linkages =
        crate::linkage_routes::learn(manifest, timeline, (entities, views), compound.as_ref());
    (compound, routes, linkages)
}

/// The write tools a folder tree's learned writes serve (see [`crate::tree_writes`]): their
/// plans are served, confirmed by the reads that agreed with the tree's replayed writes.
fn mark_tree_writes(state: &mut StateView) {
    for writes in &state.tree_writes {
        for tool in &writes.tools {
            let Some(plan) = state
                .write_plans
                .iter_mut()
                .find(|plan| plan.tool == tool.tool)
            else {
                continue;
            };
            if tool.classes.is_empty() {
                continue;
            }
            plan.served = true;
            plan.reason = None;
            plan.hint = None;
            plan.confirmed_by = writes.confirmed_by.clone();
        }
    }
}

/// The types no write tool writes whose collection lies inside the collection of a type a
/// served write writes (`/{db}/_design/d/_view/v` or `/{db}/_changes` inside `/{db}`): an index,
/// a view or a feed of the written entities, which a served write changes in ways no plan models
/// even where no recorded read after a write showed it. Their views answer not modelled after a
/// served write rather than what the state held before it. A written collection at the root
/// (`/`, no segment) holds every path, so it names no such type.
fn nested_in_written(types: &[EntityType], plans: &[WritePlan]) -> BTreeSet<String> {
    let templates = |plan: &WritePlan| {
        plan.target
            .as_ref()
            .and_then(|target| target.entity_type.clone())
    };
    let written: BTreeSet<String> = plans.iter().filter_map(templates).collect();
    let served_templates: BTreeSet<String> = plans
        .iter()
        .filter(|plan| plan.served)
        .filter_map(templates)
        .collect();
    let served: Vec<Vec<&str>> = served_templates
        .iter()
        .map(|template| template_segments(template).collect::<Vec<&str>>())
        .filter(|segments| !segments.is_empty())
        .collect();
    types
        .iter()
        .filter(|known| !written.contains(&known.collection_template))
        .filter(|known| {
            let inner: Vec<&str> = template_segments(&known.collection_template).collect();
            served.iter().any(|outer| {
                inner.len() > outer.len()
                    && outer
                        .iter()
                        .zip(&inner)
                        .all(|(outer, inner)| same_segment(outer, inner))
            })
        })
        .map(|known| known.collection_template.clone())
        .collect()
}

/// A template's non-empty segments.
fn template_segments(template: &str) -> impl Iterator<Item = &str> {
    template.split('/').filter(|segment| !segment.is_empty())
}

/// Two template segments name the same place: equal literals, or parameters both.
fn same_segment(a: &str, b: &str) -> bool {
    let parameter = |segment: &str| segment.starts_with('{') && segment.ends_with('}');
    a == b || (parameter(a) && parameter(b))
}

/// A manifest tool's index by its name.
pub(crate) fn tool_index(manifest: &Manifest, name: &str) -> Option<usize> {
    manifest.tools.iter().position(|tool| tool.name == name)
}

/// The `GET` views answering from their recordings or as a document, each with its position
/// among `views` and its tool's latest checked lines ([`latest_lines`]): what the views derived
/// from such reads (counts, id maps) are learned from.
pub(crate) fn recorded_reads<'t>(
    manifest: &Manifest,
    timeline: &'t Timeline,
    views: &[ReadView],
) -> Vec<(usize, Vec<&'t Observation>)> {
    views
        .iter()
        .enumerate()
        .filter(|(_, view)| {
            matches!(
                view.detail,
                ViewDetail::Recorded { .. } | ViewDetail::Document(_)
            ) && view.method.eq_ignore_ascii_case("GET")
        })
        .filter_map(|(index, view)| {
            let tool = tool_index(manifest, &view.tool)?;
            Some((index, latest_lines(timeline, tool)))
        })
        .collect()
}

/// Whether a tool is a read tool by its method and name: safe methods and query `POST`s. (The
/// `POST` tools the capture shows only reading are read tools too, see
/// [`crate::observation::reading_posts`]; every read tool of a state has a view.)
pub fn is_read_tool(tool: &ManifestTool) -> bool {
    is_safe_method(&tool.method) || is_query_post(&tool.method, &tool.path_template)
}

fn recorded(reason: &str) -> ViewDetail {
    ViewDetail::Recorded {
        reason: reason.to_owned(),
    }
}

/// The state under construction.
struct Builder<'a> {
    manifest: &'a Manifest,
    timeline: &'a Timeline,
    /// The query grammars split expression parameters of list queries.
    rules: &'a RuleSet,
    entities: Entities,
    /// Per manifest tool, its view (`None` for write tools).
    details: Vec<Option<ViewDetail>>,
}

impl Builder<'_> {
    fn run(&mut self) {
        let gets = self.read_gets();
        let mut items = Vec::new();
        let mut rest = Vec::new();
        for index in gets {
            match items::plan(self.manifest, self.timeline, index, &mut self.entities) {
                Ok(plan) => items.push(plan),
                Err(Some(reason)) => self.details[index] = Some(recorded(reason)),
                Err(None) => rest.push(index),
            }
        }
        for plan in &items {
            items::seed(self.timeline, plan, &mut self.entities);
        }
        let mut lists = Vec::new();
        let mut others = Vec::new();
        let mut unlisted = Vec::new();
        for index in rest {
            match lists::plan(self.manifest, self.timeline, index, &mut self.entities) {
                Ok(plan) => lists.push(plan),
                // An answer holding an array no list view reads (a version's `contributors`)
                // may still be a member of a held entity.
                Err(Some("no-view")) => unlisted.push(index),
                Err(Some(reason)) => self.details[index] = Some(recorded(reason)),
                Err(None) => others.push(index),
            }
        }
        self.settle_lists(&mut lists);
        let whole_members = self.seed_body_queries();
        let orders: Vec<(String, String, Vec<String>)> = lists
            .iter()
            .flat_map(|plan| plan.whole_orders(self.timeline, &self.entities))
            .collect();
        self.entities.settle_order(&orders);
        for plan in items {
            let index = plan.tool;
            self.details[index] = Some(items::verify(self.timeline, plan, &mut self.entities));
        }
        for plan in lists {
            let index = plan.tool;
            self.details[index] = Some(lists::verify(
                self.timeline,
                plan,
                &mut self.entities,
                self.rules,
            ));
        }
        self.derive_body_queries(&whole_members);
        for index in others {
            self.details[index] = Some(
                match members::derive(self.manifest, self.timeline, index, &self.entities) {
                    Some(member) => ViewDetail::Member(member),
                    None => {
                        documents::derive(self.manifest, self.timeline, index, &mut self.entities)
                    }
                },
            );
        }
        for index in unlisted {
            self.details[index] = Some(
                match members::derive(self.manifest, self.timeline, index, &self.entities) {
                    Some(member) => ViewDetail::Member(member),
                    None => recorded("no-view"),
                },
            );
        }
        self.members_of_other_types();
    }

    /// Derives the body-query views of the tools answering `query-body` so far, then lends a
    /// page token one learned to its siblings ([`sibling_body_pages`]).
    fn derive_body_queries(&mut self, whole_members: &BTreeMap<usize, Vec<String>>) {
        for index in 0..self.details.len() {
            if matches!(&self.details[index], Some(ViewDetail::Recorded { reason }) if reason == "query-body")
            {
                self.details[index] = Some(body_queries::derive(
                    self.timeline,
                    index,
                    (&self.entities, whole_members.get(&index)),
                    self.rules,
                ));
            }
        }
        sibling_body_pages::offer(self.timeline, &self.entities, &mut self.details, self.rules);
    }

    /// Seeds the row documents of the list plans, then joins the lines of a collection's
    /// trailing-slash spelling to its plain spelling's plan ([`lists::join_slash_spellings`]).
    fn settle_lists(&mut self, lists: &mut [lists::ListPlan]) {
        for plan in lists.iter_mut() {
            plan.seed_row_documents(self.timeline, &mut self.entities);
        }
        lists::join_slash_spellings(self.manifest, lists);
    }

    /// The GET read tools, in manifest order; other read tools (and posts that only read)
    /// answer their recordings: `method-replay` for a safe method, `query-body` for the rest
    /// (body-query views are derived for those later).
    fn read_gets(&mut self) -> Vec<usize> {
        let mut gets = Vec::new();
        for (index, tool) in self.manifest.tools.iter().enumerate() {
            if !is_read_tool(tool) && !self.timeline.reading_posts.contains(&index) {
                continue;
            }
            if tool.method.eq_ignore_ascii_case("GET") {
                gets.push(index);
            } else if is_safe_method(&tool.method) {
                self.details[index] = Some(recorded("method-replay"));
            } else {
                self.details[index] = Some(recorded("query-body"));
            }
        }
        gets
    }

    /// Seeds the entities the body-query tools' answers list; per such tool, the members its
    /// answers show whole.
    fn seed_body_queries(&mut self) -> BTreeMap<usize, Vec<String>> {
        let mut whole_members = BTreeMap::new();
        for index in 0..self.details.len() {
            if matches!(&self.details[index], Some(ViewDetail::Recorded { reason }) if reason == "query-body")
                && let Some(whole) = body_queries::seed(
                    self.timeline,
                    (&self.manifest.tools[index].path_template, index),
                    &|tool| self.timeline.is_write(self.manifest, tool),
                    &mut self.entities,
                )
            {
                whole_members.insert(index, whole);
            }
        }
        whole_members
    }

    /// Item views whose every read answers a member of another type's entity become member
    /// views: the entity is what writes change, so the member follows them. Their own type
    /// keeps no item view, and when no other view renders it, it is no type at all: its
    /// entities were members of the other type's (`/{name}/{version}` read as an item of a
    /// collection `/{name}` would make a write to `/{name}` a bulk write of versions). Then a
    /// member view's key step that a sibling view looks up through another map widens to
    /// either map ([`members::widen_lookups`]).
    fn members_of_other_types(&mut self) {
        for index in 0..self.details.len() {
            let Some(ViewDetail::Item(item)) = &self.details[index] else {
                continue;
            };
            let own = item.entity_type.clone();
            let Some(member) = members::derive(self.manifest, self.timeline, index, &self.entities)
                .filter(|member| member.entity_type != own)
            else {
                continue;
            };
            for known in &mut self.entities.types {
                if known.collection_template == own {
                    known.item_view = None;
                }
            }
            self.details[index] = Some(ViewDetail::Member(member));
            if !self
                .details
                .iter()
                .flatten()
                .any(|detail| renders(detail, &own))
            {
                self.entities.retire_type(&own);
            }
        }
        members::widen_lookups(self.manifest, &mut self.details);
    }
}

/// Whether a view renders the entities of a type (a member view renders its entity's member).
fn renders(detail: &ViewDetail, template: &str) -> bool {
    match detail {
        ViewDetail::Item(item) => item.entity_type == template,
        ViewDetail::List(list) => list.entity_type == template,
        ViewDetail::BodyQuery(query) => query.entity_type == template,
        ViewDetail::Member(member) => member.entity_type == template,
        ViewDetail::Document(_)
        | ViewDetail::Count(_)
        | ViewDetail::IdMap(_)
        | ViewDetail::Recorded { .. } => false,
    }
}

/// The request lines of a tool's checked `2xx` reads: the latest record per line, in record
/// order.
pub(crate) fn latest_lines(timeline: &Timeline, tool: usize) -> Vec<&Observation> {
    let mut latest: BTreeMap<LineKey, &Observation> = BTreeMap::new();
    for observation in timeline.checked(tool) {
        if observation.is_success() && !observation.query_withheld {
            latest.insert(observation.line_key(), observation);
        }
    }
    let mut lines: Vec<&Observation> = latest.into_values().collect();
    lines.sort_by_key(|observation| observation.position);
    lines
}

/// A request line: its path and decoded query pairs.
type LineKey = (String, Vec<(String, String)>);

/// Whether a body marks an object deleted.
pub(crate) fn marked_deleted(object: &Json) -> bool {
    DELETED_FLAGS
        .iter()
        .any(|flag| object.get(flag).and_then(Json::as_bool) == Some(true))
}

/// The reason a call naming a query parameter its tool took from a query family (recorded on
/// none of its own records) replays its recording: no read shows what the parameter does there.
pub(crate) const SHARED_QUERY: &str = "shared-query";

/// Marks, on each item and list view, the query parameters its tool took from a query family
/// (recorded on none of its records, see `rea_manifest`'s projection) as
/// `projected_query_keys` with the reason [`SHARED_QUERY`], so a call naming one answers its
/// recording or a `not_modelled` refusal, never the view as though the parameter were absent.
/// On a list view, a parameter an item view under the list's path learned as restating its
/// entity ([`crate::model::ItemView::restated_query`]) becomes the list's `restated_query`
/// instead: checked against the answer's own member. A recorded view (folder entries and
/// listings) checks a call's query pairs itself.
fn mark_shared_queries(manifest: &Manifest, views: &mut [ReadView]) {
    let restating = restating_items(views);
    for view in views.iter_mut() {
        let Some(tool) = manifest.tools.iter().find(|tool| tool.name == view.tool) else {
            continue;
        };
        let below = format!("{}/", view.path_template.trim_end_matches('/'));
        for parameter in tool.query_parameters.iter().filter(|q| q.records == 0) {
            let name = &parameter.name;
            let keys = match &mut view.detail {
                ViewDetail::Item(item) => &mut item.projected_query_keys,
                ViewDetail::List(list) => {
                    let restated = restating.iter().any(|(template, names)| {
                        template.starts_with(&below) && names.contains(name)
                    });
                    if restated {
                        list.restated_query.push(name.clone());
                        continue;
                    }
                    &mut list.projected_query_keys
                }
                _ => break,
            };
            keys.entry(name.clone())
                .or_insert_with(|| SHARED_QUERY.to_owned());
        }
    }
}

/// Takes back the [`SHARED_QUERY`] mark of a list view's paging parameter its model gives a
/// paging role (learned from the lines of the route's trailing-slash spelling, `page[offset]`
/// recorded only through `/api/tasks/`, see [`lists::join_slash_spellings`], or proposed by its
/// query grammar): that role says what it does there.
fn unmark_paging_grammar(views: &mut [ReadView]) {
    for view in views.iter_mut() {
        let ViewDetail::List(list) = &mut view.detail else {
            continue;
        };
        let Some(model) = &list.query else {
            continue;
        };
        list.projected_query_keys.retain(|name, reason| {
            reason != SHARED_QUERY || !model.role(name).is_some_and(QueryRole::is_paging)
        });
    }
}

/// The path template and restating parameters of each item view that learned some.
fn restating_items(views: &[ReadView]) -> Vec<(String, Vec<String>)> {
    views
        .iter()
        .filter_map(|view| match &view.detail {
            ViewDetail::Item(item) if !item.restated_query.is_empty() => {
                Some((view.path_template.clone(), item.restated_query.clone()))
            }
            _ => None,
        })
        .collect()
}

/// The query keys of failing lines, which show entities in another representation than the
/// passing lines do: per failing line, the parameters no passing line names (`name`); failing
/// that, the values of parameters no passing line gave (`name=value`); failing that, the
/// parameters every passing line names that it leaves out (`!name`, matched by a call leaving
/// them out). `None` when some failing line differs from the passing ones in none of these ways
/// (the view differs).
pub(crate) fn projected_keys(
    passing: &[&Observation],
    failing: &[&Observation],
) -> Option<BTreeMap<String, String>> {
    let seen: BTreeSet<&str> = passing
        .iter()
        .flat_map(|observation| observation.pairs().iter().map(|(name, _)| name.as_str()))
        .collect();
    let seen_values: BTreeSet<(&str, &str)> = passing
        .iter()
        .flat_map(|observation| {
            observation
                .pairs()
                .iter()
                .map(|(name, value)| (name.as_str(), value.as_str()))
        })
        .collect();
    // The parameters every passing line names.
    let always: BTreeSet<&str> = passing
        .iter()
        .map(|observation| {
            observation
                .pairs()
                .iter()
                .map(|(name, _)| name.as_str())
                .collect::<BTreeSet<&str>>()
        })
        .reduce(|common, names| common.intersection(&names).copied().collect())
        .unwrap_or_default();
    let reason_of = |name: &str| {
        if crate::query::is_projection(name) {
            "projection"
        } else {
            "variant"
        }
    };
    let mut keys = BTreeMap::new();
    for observation in failing {
        let pairs = observation.pairs();
        let own: Vec<&str> = pairs
            .iter()
            .map(|(name, _)| name.as_str())
            .filter(|name| !seen.contains(name))
            .collect();
        if !own.is_empty() {
            for name in own {
                keys.insert(name.to_owned(), reason_of(name).to_owned());
            }
            continue;
        }
        let own_values: Vec<(&str, &str)> = pairs
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
            .filter(|pair| !seen_values.contains(pair))
            .collect();
        if !own_values.is_empty() {
            for (name, value) in own_values {
                keys.insert(format!("{name}={value}"), reason_of(name).to_owned());
            }
            continue;
        }
        let left_out: Vec<&str> = always
            .iter()
            .copied()
            .filter(|name| !pairs.iter().any(|(named, _)| named == name))
            .collect();
        if left_out.is_empty() {
            return None;
        }
        for name in left_out {
            keys.insert(format!("!{name}"), reason_of(name).to_owned());
        }
    }
    Some(keys)
}

//! The answers read tools give from the live state.
//!
//! | View | Answer |
//! | --- | --- |
//! | `item` | The entity the path arguments name (collection segments matched as written or percent-decoded, the identity percent-decoded first, then as written; for a query key, the key parameter's one value names the identity or the field the view looks the entity up by, and a call without it answers from the recording, `unrecorded-request`), rendered into the envelope of `envelope_ordinal`. Missing: the tool's latest recorded `400`/`404`/`410` (or other client error reading a path a recorded delete removed) with `state.view: "missing"`, else a tool error. |
//! | `list` | A checked line named exactly: its envelope with the members rendered from the state (`all`: the collection in state order; `recorded`: the recorded members still held). No query argument: a line of the collection that only pages its list (`exact_match` false). Every argument with a role in the query model: the query evaluated over the state (`membership: "query"`). Otherwise the recording (`unrecorded-request`). |
//! | `document` | The checked line named exactly: the state's document; otherwise the recording. |
//! | `member` | The member of the live entity the path's entity segment names that the view's steps (literal keys, the values of other path segments) name, in the status and media type of `envelope_ordinal`. No entity: its item view's recorded missing answer; no member: the tool's own latest `404`/`410`; either naming the call's values, else a `not_found` tool error. A call with query arguments: the recording (`member-query`). |
//! | `recorded` | The entry a folder listing shows for the path, where the tool learned folder entries and no served write changed what it shows ([`crate::entries`]); otherwise the recording, with the view's reason. |
//!
//! Repeated query values (`repeated-query`) and calls naming a `projected_query_keys` parameter
//! (`projection`/`variant`) replay their recordings. A field selection (`_fields`, `exclude`, …)
//! a checked read made renders the entity, or a checked line's members, with the fields that
//! read showed (`projected_record_ordinals`); another selection replays (`projection`). An entity lacking a field every recording
//! carried is a tool error, never a partial answer, unless a served create made it and answered it
//! whole without that field (`made_whole`); a rendered body over 256 KiB is a
//! `resource_constraint` tool error.

use rea_manifest::segments::{percent_decode, split_path, template_value};
use rea_plugin_api::contracts::capture::CompactString;
use rea_plugin_api::json::{Json, Object};
use rea_plugin_api::query_lists::{
    flag_parts, fold_flags, fold_indexed, folded_list, indexed_base, list_base,
};
use serde_json::{Map, Value};
use std::borrow::Cow;

use crate::answer::{
    KeptRecord, StateAnswer, StateSource, ToolError, recording_answer, state_answer, tool_error,
};
use crate::call::Call;
use crate::compound::CompoundDocuments;
use crate::derive::entities::item_segments;
use crate::missing::missing_answer;
use crate::model::{
    DocumentView, Entity, ItemKey, ItemView, ListLine, ListView, MemberView, Membership,
    QueryModel, QueryRole, ViewDetail, ViewShape, WriteScope,
};
use crate::page_envelope::{PageEnvelope, PageNumbers};
use crate::query::evaluate;
use crate::recorded::{NotModelled, RecordingUnusable, call_scope};
use crate::render::{
    missing_required, project_to, render_entity, selects_fields, set_counter, with_value_at,
};
use crate::service::StateService;
use crate::store::LiveState;
use crate::writes::model::{Effect, ResponseKind};

/// A call's query pairs.
type QueryPairs = [(String, String)];

/// Whether recorded path segments are the call's: each as written, or percent-decoded.
fn segments_match(recorded: &[&str], call: &[CompactString]) -> bool {
    recorded.len() == call.len()
        && recorded.iter().zip(call).all(|(segment, value)| {
            *segment == value || percent_decode(segment).is_some_and(|decoded| decoded == *value)
        })
}

/// A held collection's path segments: none for the root collection `/` (entities whose item
/// path is one segment, `/{name}`).
fn collection_segments(held: &str) -> Vec<&str> {
    if held == "/" {
        Vec::new()
    } else {
        split_path(held)
    }
}

/// Whether a recorded line's query gives every one of these pairs.
fn gives_all(recorded: Option<&[(String, String)]>, wanted: &[&(String, String)]) -> bool {
    let recorded = recorded.unwrap_or_default();
    wanted.iter().all(|pair| recorded.contains(pair))
}

fn same_pairs(recorded: Option<&Vec<(String, String)>>, call: &[(String, String)]) -> bool {
    let mut recorded: Vec<&(String, String)> =
        recorded.map_or_else(Vec::new, |pairs| pairs.iter().collect());
    let mut call: Vec<&(String, String)> = call.iter().collect();
    recorded.sort();
    call.sort();
    recorded == call
}

/// Whether the checked lines all name a field-selection parameter (`_fields`, `select`, …) that
/// the call leaves out.
fn leaves_out_selection(lines: &[ListLine], call: &[(String, String)]) -> bool {
    let names_of = |line: &ListLine| -> std::collections::BTreeSet<String> {
        line.query
            .iter()
            .flatten()
            .map(|(name, _)| name.clone())
            .filter(|name| crate::query::is_projection(name.as_str()))
            .collect()
    };
    let common = lines
        .iter()
        .map(names_of)
        .reduce(|common, names| common.intersection(&names).cloned().collect())
        .unwrap_or_default();
    common
        .iter()
        .any(|name| !call.iter().any(|(given, _)| given == name))
}

fn membership_name(membership: Membership) -> &'static str {
    match membership {
        Membership::All => "all",
        Membership::Recorded => "recorded",
    }
}

/// What names an item call's entity: the last path segment (decoded first, then as written),
/// or the key parameter's one value; and the field it names, when not the identity.
fn item_names<'a>(
    item: &'a ItemView,
    call: &Call,
    last: &str,
) -> Result<(Vec<String>, Option<&'a str>), &'static str> {
    match &item.key {
        ItemKey::Path => {
            let decoded = percent_decode(last).map(|value| value.into_owned());
            Ok((
                decoded
                    .into_iter()
                    .chain(std::iter::once(last.to_owned()))
                    .collect(),
                None,
            ))
        }
        ItemKey::Query { parameter, field } => {
            let given: Vec<&String> = call
                .query
                .iter()
                .filter(|(name, _)| name == parameter)
                .flat_map(|(_, values)| values)
                .collect();
            let [value] = given.as_slice() else {
                // The call names no entity the way the recordings did.
                return Err("unrecorded-request");
            };
            Ok((
                vec![(*value).clone()],
                (*field != item.identity_field).then_some(field.as_str()),
            ))
        }
    }
}

/// The collections of an item view's type that the segments of a call's path before its id name.
fn called_collections<'a>(
    live: &'a LiveState,
    item: &ItemView,
    collection: &[CompactString],
) -> Vec<&'a str> {
    live.collections_of(&item.entity_type)
        .into_iter()
        .filter(|held| segments_match(&collection_segments(held), collection))
        .collect()
}

/// Whether an id names no entity by its form: no live entity of the collections the call names
/// has an id of that form (see [`crate::id_forms`]).
fn names_malformed(
    live: &LiveState,
    item: &ItemView,
    collection: &[CompactString],
    id: &str,
) -> bool {
    if item.malformed_ordinal.is_none() {
        return false;
    }
    let held = called_collections(live, item, collection)
        .into_iter()
        .flat_map(|held| live.collection(&item.entity_type, held))
        .map(|entity| crate::id_forms::form(&entity.id))
        .collect::<std::collections::BTreeSet<_>>();
    !held.is_empty() && !held.contains(&crate::id_forms::form(&crate::observation::decoded(id)))
}

/// The entity an item call names: held in a collection the call's path names, by identity (or
/// by the field the view looks it up by); else, by identity, a soft-deleted one (answered with its
/// last fields, marked deleted).
fn find_item<'a>(
    live: &'a LiveState,
    item: &ItemView,
    collection: &[CompactString],
    names: &[String],
    field: Option<&str>,
) -> Option<&'a Entity> {
    if let (Some(parent), None) = (&item.parent, field) {
        return parent.entity(live, collection, names);
    }
    let collections = called_collections(live, item, collection);
    for held in &collections {
        for name in names {
            let entity = match field {
                None => live.entity(&item.entity_type, held, name),
                Some(field) => {
                    live.collection(&item.entity_type, held)
                        .into_iter()
                        .find(|entity| {
                            crate::render::identity_text(&entity.fields, field).as_deref()
                                == Some(name.as_str())
                        })
                }
            };
            if entity.is_some() {
                return entity;
            }
        }
    }
    if field.is_some() {
        return None;
    }
    collections.iter().find_map(|held| {
        names
            .iter()
            .find_map(|name| live.deleted_entity(&item.entity_type, held, name))
    })
}

/// The reason a call whose query names a value the entity does not hold, for a parameter the
/// checked reads named only to restate the entity ([`ItemView::restated_query`]), replays its
/// recording: no read shows what such a value does.
const UNRESTATED_QUERY: &str = "unrestated-query";

/// The reason a compound-document call ([`crate::compound`]) the state cannot answer (a
/// relationship its entities do not hold, a related resource it lacks) replays its recording.
const COMPOUND_DOCUMENT: &str = "compound-document";
/// A sideloading call the state cannot answer ([`crate::sideloads`]).
const SIDELOADED: &str = "sideloaded";

/// The reason a reshaping answer's call whose own recorded line the query model does not
/// answer replays its recording: the line's links do not spell what the call left out.
const RELINKED_LINE: &str = "relinked-line";

/// Whether every pair of the call naming a restating parameter gives the value the rendered
/// entity holds in that member.
fn restates_call(item: &ItemView, call: &Call, rendered: &Json) -> bool {
    restates_pairs(&item.restated_query, call, rendered)
}

/// Whether every pair of the call naming one of `restated` gives the value the rendered answer
/// holds in its top-level member of that name.
fn restates_pairs(restated: &[String], call: &Call, rendered: &Json) -> bool {
    call.pairs().iter().all(|(name, value)| {
        !restated.contains(name)
            || rendered
                .get(name)
                .and_then(crate::render::scalar_text)
                .is_some_and(|shown| shown == *value)
    })
}

/// Whether the view reads every name the call repeats (true for a call repeating none): a list
/// view's query model reads a sort it lets repeat (see
/// [`crate::model::QueryModel::repeated_sort`]).
fn reads_repetitions(detail: &ViewDetail, call: &Call) -> bool {
    match detail {
        _ if !call.repeated() => true,
        ViewDetail::List(list) => list
            .query
            .as_ref()
            .is_some_and(|model| call.repeats_only(model)),
        _ => false,
    }
}

/// Whether the call names a parameter the list view checks against its answer's own member
/// ([`ListView::restated_query`]).
fn names_restated(list: &ListView, call: &Call) -> bool {
    call.query
        .iter()
        .any(|(name, _)| list.restated_query.contains(name))
}

/// The call without the parameters the list view checks against its answer's own member.
fn restated_off(list: &ListView, call: &Call) -> Call {
    Call {
        path: call.path.clone(),
        query: call
            .query
            .iter()
            .filter(|(name, _)| !list.restated_query.contains(name))
            .cloned()
            .collect(),
        body: call.body.clone(),
        sent: call.sent.clone(),
        relink: call.relink,
        order: call.order.clone(),
    }
}

/// The fields an item answer shows: those a field selection a checked read made showed; `None`
/// for no selection. Another selection, or none where every checked read made one, replays
/// (`projection`).
fn item_projection<'a>(
    item: &'a ItemView,
    call: &Call,
) -> Result<Option<&'a Vec<String>>, &'static str> {
    let selection: Vec<(String, String)> = call
        .pairs()
        .into_iter()
        .filter(|(name, _)| crate::query::is_projection(name.as_str()))
        .collect();
    if selection.is_empty() {
        // A call leaving out a field selection every checked read made shows the entity in a
        // representation no checked read showed.
        let all_projected = !item.checked_ordinals.is_empty()
            && item
                .checked_ordinals
                .iter()
                .all(|ordinal| item.projected_record_ordinals.contains(ordinal));
        return if all_projected {
            Err("projection")
        } else {
            Ok(None)
        };
    }
    let mut wanted = selection;
    wanted.sort();
    item.projections
        .iter()
        .find(|known| {
            let mut query = known.query.clone();
            query.sort();
            query == wanted
        })
        .map(|known| Some(&known.fields))
        .ok_or("projection")
}

/// Related entities (an object, an array of objects, or `null`) shown with some fields only
/// (all for `None`).
fn project_related(value: Json, fields: Option<&Vec<String>>) -> Json {
    let Some(fields) = fields else {
        return value;
    };
    match value {
        Json::Array(items) => {
            Json::Array(items.iter().map(|item| project_to(item, fields)).collect())
        }
        Json::Object(_) => project_to(&value, fields),
        other => other,
    }
}

/// A query argument: its name and values.
type QueryArgument = (String, Vec<String>);

/// A read call's arguments split in two: those its tool's recorded input schema names (replay
/// checks and matches them), and the query arguments only its list view's learned grammar extends
/// to (see [`crate::derive::query_grammar`]: a name it proposed, or one of a family of names it
/// reads as terms) or the parameters the state offers the tool (`offered`: a sparse fieldset,
/// compound documents), as query name and values. A count view takes every query argument its
/// schema does not name (those the catalog offered from its sibling list, see
/// [`crate::count_views`]): its model refuses one it does not evaluate.
fn split_generalized(
    (view, offered): (Option<&crate::model::ReadView>, &[String]),
    definition: Option<&rea_manifest::ToolDefinition>,
    arguments: &Map<String, Value>,
) -> (Map<String, Value>, Vec<QueryArgument>) {
    let Some(view) = view else {
        return (arguments.clone(), Vec::new());
    };
    let mut generalized = crate::catalog::generalized_names(view);
    generalized.extend(offered.iter().cloned());
    let families = crate::catalog::argument_families(view);
    let nested_selection = [view_selection(view)]
        .into_iter()
        .flatten()
        .find(|parameter| rea_plugin_api::query_fields::unnested(parameter).is_some());
    let counts = matches!(view.detail, ViewDetail::Count(_));
    if generalized.is_empty() && families.is_empty() && nested_selection.is_none() && !counts {
        return (arguments.clone(), Vec::new());
    }
    let mut recorded = Map::new();
    let mut extended = Vec::new();
    for (name, value) in arguments {
        let in_schema =
            definition.is_some_and(|definition| definition.input_schema.argument(name).is_some());
        match rea_manifest::replay::query_texts(value) {
            Some(values)
                if !in_schema
                    && (counts
                        || generalized.contains(name)
                        || crate::families::family_of(families, name).is_some()) =>
            {
                extended.push(folded_argument(name, values));
            }
            // A generalized name spelled as a list name (see [`crate::catalog`]'s offered list
            // names), its values folded as the recorded lines' are.
            Some(values)
                if !in_schema
                    && list_base(name).is_some_and(|base| {
                        generalized.contains(base)
                            || crate::catalog::is_recorded_set_filter(view, base)
                    })
                    && folded_list(name, &values).is_some() =>
            {
                extended.push(folded_argument(name, values));
            }
            // An indexed name of a generalized list name (`status[inq][0]`), its run folded
            // below as the recorded lines' are.
            Some(values)
                if !in_schema
                    && (indexed_base(name).is_some_and(|(base, _)| generalized.contains(base))
                        || flag_parts(name).is_some_and(|(base, _)| {
                            crate::query::is_projection(base)
                                && (generalized.contains(base) || selects_by(view, base))
                        })) =>
            {
                extended.push((name.clone(), values));
            }
            _ => {
                recorded.insert(name.clone(), value.clone());
            }
        }
    }
    let extended = fold_flags(fold_indexed(extended), crate::query::is_projection);
    (recorded, extended)
}

/// Joins the field lists of a selection named twice into its first place: the members of a
/// nested selection its tool recorded (`filter[fields][title]`) and those only its learned
/// selection takes (`filter[fields][priority]`) fold apart, each into `filter[fields]`.
fn merge_selection_members(query: &mut Vec<(String, Vec<String>)>) {
    let mut merged: Vec<(String, Vec<String>)> = Vec::with_capacity(query.len());
    for (name, values) in std::mem::take(query) {
        let nested = crate::query::is_projection(&name)
            && rea_plugin_api::query_fields::unnested(&name).is_some();
        match merged
            .iter_mut()
            .find(|(known, _)| nested && *known == name)
        {
            Some((_, first)) if first.len() == 1 && values.len() == 1 => {
                first[0] = format!("{},{}", first[0], values[0]);
            }
            _ => merged.push((name, values)),
        }
    }
    *query = merged;
}

/// Whether a view learned a field selection by the parameter `name` (see
/// [`crate::selection::FieldSelection`]).
fn selects_by(view: &crate::model::ReadView, name: &str) -> bool {
    view_selection(view) == Some(name)
}

/// The parameter of a view's learned field selection, when it has one.
fn view_selection(view: &crate::model::ReadView) -> Option<&str> {
    let selection = match &view.detail {
        ViewDetail::List(list) => list.selection.as_deref(),
        ViewDetail::Item(item) => item.selection.as_ref(),
        _ => None,
    };
    selection.map(|selection| selection.parameter.as_str())
}

/// A query argument as the state reads it: a list name's values folded into one comma list
/// under its base name (see [`rea_plugin_api::query_lists`]), else as given.
fn folded_argument(name: &str, values: Vec<String>) -> QueryArgument {
    match folded_list(name, &values) {
        Some((base, list)) => (base, vec![list]),
        None => (name.to_owned(), values),
    }
}

/// The relation a call's query asks for (see [`crate::relations`]): the first whose query pairs
/// the call makes.
fn relation_of<'a>(
    view: &'a crate::model::ReadView,
    call: &Call,
) -> Option<&'a crate::relations::Relation> {
    let relations = match &view.detail {
        ViewDetail::Item(item) => &item.relations,
        ViewDetail::List(list) => &list.relations,
        _ => return None,
    };
    let pairs = call.pairs();
    relations
        .iter()
        .find(|relation| relation.query.iter().all(|pair| pairs.contains(pair)))
}

impl StateService {
    /// Answers a read tool's call from the live state or, where the state does not back it,
    /// from its recordings (see the module docs); `provenance` as in
    /// [`StateService::answer_with`].
    pub(crate) fn answer_read(
        &self,
        tool: &str,
        (arguments, sent): (&Map<String, Value>, Option<&[String]>),
        provenance: bool,
    ) -> StateAnswer {
        let (recorded, generalized) = split_generalized(
            (self.derived().view(tool), &self.offered_parameters(tool)),
            self.replay().tool(tool),
            arguments,
        );
        // An inferred read (a listed depth) cites no recording to replay.
        let replayed = if provenance && !self.replay().is_inferred(tool) {
            match self.replay().answer(tool, &recorded) {
                Ok(answer) => Some(answer),
                Err(error) => return ToolError::from(&error).into(),
            }
        } else {
            None
        };
        let (Some(view), Some(definition)) = (self.derived().view(tool), self.replay().tool(tool))
        else {
            return ToolError::from(&rea_manifest::ToolCallError::UnknownTool(tool.to_owned()))
                .into();
        };
        let mut call = Call::resolve(definition, arguments);
        call.order = sent.map(|sent| Call::sent_names(definition, sent));
        call.query.extend(generalized);
        merge_selection_members(&mut call.query);
        let exact = replayed
            .as_ref()
            .is_some_and(|replayed| replayed.replay.exact_match);
        let template = view.path_template.as_str();
        // A type recorded writes changed in ways the state does not model shows, after a served
        // write, what the state held before it: not modelled, never stale.
        let unmodelled = view
            .entity_type()
            .and_then(|template| self.derived().entity_type(template))
            .is_some_and(|known| known.unmodelled_after_writes);
        if unmodelled && self.written_any() {
            return self.recording(tool, template, &call, "unmodelled-after-write", true);
        }
        // A folder a served write created lists the children served writes made, whatever the
        // view its path's tool has.
        if let Some(answer) = self.answer_created_folder(template, &call) {
            return answer;
        }
        // A folder whose listing a served write of a child (or of anything below it) changed
        // lists what the state does not model: not modelled, never stale.
        let folder = view
            .entity_type()
            .and_then(|template| self.derived().entity_type(template))
            .is_some_and(|known| known.folder_listings_after_writes);
        if folder
            && self
                .read()
                .written_below(&format!("/{}", call.segments(template).join("/")))
        {
            return self
                .answer_composed_folder(view, &call)
                .unwrap_or_else(|reason| self.recording(tool, template, &call, reason, true));
        }
        let stale = self
            .read()
            .written_since_reset(&call_scope(view, &call.segments(template)));
        // A query showing related entities is answered with them or not from the state: a view
        // answering the entity alone would leave them out.
        if relation_of(view, &call).is_some() {
            return self
                .answer_relation(tool, view, &call, stale)
                .unwrap_or_else(|| self.recording(tool, template, &call, "relation", stale));
        }
        let answer = self.answer_view(tool, view, &call, exact, stale);
        if matches!(answer, StateAnswer::Rendered(_)) {
            return answer;
        }
        self.answer_selection(tool, view, &call, stale)
            .unwrap_or(answer)
    }

    /// A read call answered by its view (see the module docs), before field selections are
    /// generalized.
    fn answer_view(
        &self,
        tool: &str,
        view: &crate::model::ReadView,
        call: &Call,
        exact: bool,
        stale: bool,
    ) -> StateAnswer {
        let template = view.path_template.as_str();
        let recording = |reason: &str| self.recording(tool, template, call, reason, stale);
        if let Some(answer) = self.answer_route_or_tree(tool, view, call, exact) {
            return answer;
        }
        // A query an item view was read with that shows the document as its folder lists it.
        if matches!(view.detail, ViewDetail::Item(_))
            && let Some(answer) = self.answer_entry(tool, template, call, self.written_any())
        {
            return answer;
        }
        if let Some(answer) = self.answer_reshaping(tool, view, call, stale) {
            return answer;
        }
        match &view.detail {
            ViewDetail::Recorded { reason } => self
                .answer_entry(tool, template, call, stale)
                .or_else(|| self.answer_listing(template, call))
                .or_else(|| {
                    self.listing_order_unknown(template, call)
                        .then(|| recording("listing-order"))
                })
                .or_else(|| self.answer_absent(tool, template, call, exact))
                .or_else(|| self.answer_created(tool, template, call, (exact, stale)))
                .or_else(|| self.answer_sliced(tool, template, call, stale))
                .unwrap_or_else(|| recording(reason)),
            detail if !reads_repetitions(detail, call) && !self.splits_repetitions(call) => {
                recording("repeated-query")
            }
            ViewDetail::Item(item) => match call.projected(&item.projected_query_keys) {
                Some(reason) => self
                    .answer_digest(tool, &view.path_template, item, call, exact)
                    .unwrap_or_else(|| recording(reason)),
                None => self
                    .answer_item(tool, &view.path_template, item, call, exact)
                    .unwrap_or_else(recording),
            },
            ViewDetail::List(list) if names_restated(list, call) => {
                match call.projected(&list.projected_query_keys) {
                    Some(reason) => recording(reason),
                    None => self
                        .answer_restated_list(tool, template, list, call, exact)
                        .unwrap_or_else(recording),
                }
            }
            ViewDetail::List(list) => match call.projected(&list.projected_query_keys) {
                Some(reason) => recording(reason),
                None => self
                    .answer_list(tool, &view.path_template, list, call, exact)
                    .unwrap_or_else(recording),
            },
            ViewDetail::BodyQuery(query) => {
                self.answer_body_query_view(tool, template, query, call, (exact, stale))
            }
            ViewDetail::Document(document) => {
                self.answer_document_view(tool, template, document, call, (exact, stale))
            }
            ViewDetail::Member(member) if call.pairs().is_empty() => {
                self.answer_member(template, member, call, exact)
            }
            ViewDetail::Member(_) => recording("member-query"),
            ViewDetail::Count(count) => self.answer_count(template, count, call, exact),
            ViewDetail::IdMap(map) => self
                .answer_id_map(template, map, call, exact)
                .unwrap_or_else(recording),
        }
    }

    /// A body query view's call: its answer from the state, else refused as recorded after
    /// writes where its recordings are, else its recording.
    fn answer_body_query_view(
        &self,
        tool: &str,
        template: &str,
        query: &crate::model::BodyQueryView,
        call: &Call,
        (exact, stale): (bool, bool),
    ) -> StateAnswer {
        self.answer_body_query(template, query, call, exact)
            .unwrap_or_else(|reason| {
                if !stale && self.recorded_after_writes(tool, template, call) {
                    NotModelled {
                        reason: reason.to_owned(),
                        recording: RecordingUnusable::RecordedAfterWrites,
                    }
                    .into()
                } else {
                    self.recording(tool, template, call, reason, stale)
                }
            })
    }

    /// A list or item call naming the sparse fieldset the state learned ([`crate::sparse`]) for
    /// the type its entities show: the call without it answered from the state, each entity of
    /// that type keeping only the named properties; `None` for any other call or answer.
    fn answer_sparse(
        &self,
        tool: &str,
        view: &crate::model::ReadView,
        call: &Call,
        stale: bool,
    ) -> Option<StateAnswer> {
        let rule = self.derived().sparse.as_ref()?;
        let pointer = view.shown_pointer()?;
        let pairs = call.pairs();
        let (name, (type_name, requested)) = pairs
            .iter()
            .find_map(|(name, value)| Some((name, rule.asked(name, value)?)))?;
        let mut rendered = self.rendered_without(tool, view, call, name, stale)?;
        let shown = crate::render::pointer_mut(&mut rendered.body, pointer)?;
        rule.apply(shown, type_name, &requested)?;
        Some(StateAnswer::Rendered(rendered))
    }

    /// A list or item call naming the reference expansion the state learned
    /// ([`crate::expansion`]) for a tool it offers it to: the call without it answered from the
    /// state (through a field selection too), each reference gaining its entity's members;
    /// `None` for any other call or answer.
    fn answer_expanded(
        &self,
        tool: &str,
        view: &crate::model::ReadView,
        call: &Call,
        stale: bool,
    ) -> Option<StateAnswer> {
        let rule =
            (self.derived().expansion.as_ref()).filter(|rule| rule.offered.contains(tool))?;
        let pointer = view.shown_pointer()?;
        let pairs = call.pairs();
        let (name, _) = pairs.iter().find(|(name, value)| rule.asked(name, value))?;
        let query = call.query.iter().filter(|(sent, _)| sent != name);
        let bare = call.reshaped(query.cloned().collect(), true);
        let mut rendered = match self.answer_view(tool, view, &bare, false, stale) {
            StateAnswer::Rendered(rendered) => rendered,
            _ => match self.answer_selection(tool, view, &bare, stale)? {
                StateAnswer::Rendered(rendered) => rendered,
                _ => return None,
            },
        };
        let live = self.read();
        let held: Vec<&Entity> = live.entities().collect();
        rule.apply(
            crate::render::pointer_mut(&mut rendered.body, pointer)?,
            &held,
        )?;
        Some(StateAnswer::Rendered(rendered))
    }

    /// A list or item call of a tool recorded with a parameter choosing the relation its answer
    /// embeds ([`crate::chosen_relations`]), naming one relation member: the call without it
    /// answered from the state, each entity's other relation members spelled by their key;
    /// `None` for any other call or answer.
    fn answer_chosen_relation(
        &self,
        tool: &str,
        view: &crate::model::ReadView,
        call: &Call,
        stale: bool,
    ) -> Option<StateAnswer> {
        let entity_type = view.entity_type()?;
        let (rule, chosen) = (self.derived().chosen_relations.iter())
            .filter(|rule| rule.entity_type == entity_type && rule.tools.contains(tool))
            .find_map(|rule| {
                let (_, values) = (call.query.iter()).find(|(name, _)| *name == rule.parameter)?;
                Some((rule, rule.chosen(values)?))
            })?;
        self.answer_reshaped(
            (tool, view, stale),
            call,
            |name| name == rule.parameter,
            |entity| rule.apply(entity, chosen),
        )
    }

    /// A call answered as a relationship linkage route ([`crate::linkage_routes`]), or a recorded
    /// or document view's call as a related route ([`crate::related_routes`]) or a folder tree's
    /// read; `None` for any other view or call.
    fn answer_route_or_tree(
        &self,
        tool: &str,
        view: &crate::model::ReadView,
        call: &Call,
        exact: bool,
    ) -> Option<StateAnswer> {
        let template = view.path_template.as_str();
        // A linkage route answers before any view its reads taught (see `linkage_routes`).
        if let Some(answer) = self.answer_linkage_route(tool, template, call, exact) {
            return Some(answer);
        }
        matches!(
            view.detail,
            ViewDetail::Recorded { .. } | ViewDetail::Document(_)
        )
        .then(|| {
            self.answer_related_route(tool, template, call, exact)
                .or_else(|| self.answer_tree_read(tool, template, call))
        })
        .flatten()
    }

    /// A call a reshaping answer takes: naming relationships to include ([`crate::compound`]),
    /// a sparse fieldset ([`crate::sparse`]), a reference expansion ([`crate::expansion`]) or
    /// the relation to embed ([`crate::chosen_relations`]), answered as the call without it,
    /// with the echo of the call its item envelopes show ([`Self::with_echo`]); `None` for any
    /// other call.
    fn answer_reshaping(
        &self,
        tool: &str,
        view: &crate::model::ReadView,
        call: &Call,
        stale: bool,
    ) -> Option<StateAnswer> {
        let answer = self
            .answer_compound(tool, view, call, stale)
            .or_else(|| self.answer_sideloaded(tool, view, call, stale))
            .or_else(|| self.answer_sparse(tool, view, call, stale))
            .or_else(|| self.answer_expanded(tool, view, call, stale))
            .or_else(|| self.answer_chosen_relation(tool, view, call, stale))?;
        Some(self.with_echo(tool, &view.path_template, (call, stale), answer))
    }

    /// A reshaping answer of an item call with a query, with the envelope member echoing the call
    /// ([`crate::request_echo`]) where the tool's reads show one: its origin (if any), path and
    /// pairs as sent.
    fn with_echo(
        &self,
        tool: &str,
        template: &str,
        (call, stale): (&Call, bool),
        answer: StateAnswer,
    ) -> StateAnswer {
        let StateAnswer::Rendered(mut rendered) = answer else {
            return answer;
        };
        let pairs = call.sent.clone().unwrap_or_else(|| call.pairs());
        if let Some(pointer) = &self.derived().request_echo
            && matches!(
                self.derived().view(tool).map(|view| &view.detail),
                Some(ViewDetail::Item(_))
            )
            && !pairs.is_empty()
        {
            let path = format!("/{}", call.segments(template).join("/"));
            let line = crate::request_echo::request_line(&path, &pairs);
            let echoed = format!("{}{line}", self.derived().request_echo_prefix);
            if crate::request_echo::apply(&mut rendered.body, pointer, echoed).is_none() {
                return self.recording(tool, template, call, "request-echo", stale);
            }
        }
        StateAnswer::Rendered(rendered)
    }

    /// A call of a to-one related route ([`crate::related_routes`]) without a query: the related
    /// resource the live state links the call's entity to, in the route's envelope; `None` for
    /// any other call, or one the state cannot answer so.
    fn answer_related_route(
        &self,
        tool: &str,
        template: &str,
        call: &Call,
        exact: bool,
    ) -> Option<StateAnswer> {
        let derived = self.derived();
        let route = (derived.related_routes.iter()).find(|route| route.tool == tool)?;
        self.answer_envelope_route(
            route.envelope_ordinal,
            (template, call, exact),
            |rule, path, held| route.answer(rule, path, held),
        )
    }

    /// A call of a relationship linkage route ([`crate::linkage_routes`]) without a query: the
    /// linkage the live state holds for the call's entity, in the route's envelope; `None` for
    /// any other call, or one the state cannot answer so.
    fn answer_linkage_route(
        &self,
        tool: &str,
        template: &str,
        call: &Call,
        exact: bool,
    ) -> Option<StateAnswer> {
        let derived = self.derived();
        let routes: Vec<&crate::linkage_routes::LinkageRoute> = (derived.linkage_routes.iter())
            .filter(|route| route.tool == tool)
            .collect();
        let first = routes.first()?;
        // Several routes (an inferred sibling read's, see `sibling_reads`): the first whose
        // recorded linkage is of the live one's kind, else the first.
        let of_kind = (routes.len() > 1)
            .then(|| {
                routes.iter().find_map(|route| {
                    self.answer_envelope_route(
                        route.envelope_ordinal,
                        (template, call, exact),
                        |(rule, envelope), path, held| {
                            let body = route.answer((rule, envelope), path, held)?;
                            route.same_kind(envelope, &body).then_some(body)
                        },
                    )
                })
            })
            .flatten();
        of_kind.or_else(|| {
            self.answer_envelope_route(
                first.envelope_ordinal,
                (template, call, exact),
                |rule, path, held| first.answer(rule, path, held),
            )
        })
    }

    /// A query-free call of a route answered in a recorded envelope (the record at
    /// `envelope_ordinal`) from the live entities, by `answer` (given the compound documents'
    /// rule with the envelope, the called path and the held entities).
    fn answer_envelope_route(
        &self,
        envelope_ordinal: u64,
        (template, call, exact): (&str, &Call, bool),
        answer: impl FnOnce((&CompoundDocuments, &Json), &str, &[&Entity]) -> Option<Json>,
    ) -> Option<StateAnswer> {
        let rule = self.derived().compound.as_ref()?;
        if !call.query.is_empty() {
            return None;
        }
        let envelope = self.kept(envelope_ordinal)?;
        let path = format!("/{}", call.segments(template).join("/"));
        let live = self.read();
        let held: Vec<&Entity> = live.entities().collect();
        let body = answer((rule, envelope.json()?), &path, &held)?;
        Some(state_answer(
            envelope,
            body,
            self.replay().evidence_id(),
            exact,
            StateSource::state(path, None),
        ))
    }

    /// The query parameters the state offers a tool beyond its recorded ones: the sparse fieldset
    /// ([`crate::sparse`]) and the compound documents' parameter ([`crate::compound`]).
    fn offered_parameters(&self, tool: &str) -> Vec<String> {
        let derived = self.derived();
        let sparse = (derived.sparse.as_ref()).and_then(|rule| rule.offered.get(tool));
        let compound = (derived.compound.as_ref())
            .filter(|rule| rule.offered.contains_key(tool))
            .map(|rule| &rule.parameter);
        let expansion = (derived.expansion.as_ref())
            .filter(|rule| rule.offered.contains(tool))
            .map(|rule| &rule.parameter);
        let sideloads = (derived.sideloads.as_ref())
            .filter(|rule| derived.view(tool).is_some_and(|view| rule.offered(view)))
            .map(|rule| &rule.parameter);
        (sparse
            .into_iter()
            .chain(compound)
            .chain(expansion)
            .chain(sideloads))
        .cloned()
        .collect()
    }

    /// A list or item call naming relationships to include ([`crate::compound`]): the call
    /// without the parameter answered from the state, the linkage filled and the related
    /// resources the live state holds added; `None` for any other call or answer.
    fn answer_compound(
        &self,
        tool: &str,
        view: &crate::model::ReadView,
        call: &Call,
        stale: bool,
    ) -> Option<StateAnswer> {
        let rule = self.derived().compound.as_ref()?;
        let pointer = view.shown_pointer()?;
        let (name, value) = (call.pairs().into_iter())
            .find(|(name, _)| *name == rule.parameter && rule.offered.contains_key(tool))?;
        let Some(names) = rule.asked(tool, &name, &value) else {
            return Some(self.recording(tool, &view.path_template, call, COMPOUND_DOCUMENT, stale));
        };
        let reshape = |body: &mut Json| {
            let written = self.written_any();
            let live = self.read();
            let held: Vec<&crate::model::Entity> = live.entities().collect();
            let entity_type = view.entity_type().unwrap_or_default();
            let unkept = |name: &str| {
                written && !live.inverse_keeps(entity_type, &rule.linkage_member(name))
            };
            rule.apply(body, pointer, &names, (&held, &unkept))
        };
        Some(self.reshaped_answer(tool, view, call, (&name, COMPOUND_DOCUMENT, stale), reshape))
    }

    /// A list or item call naming members whose related records to sideload
    /// ([`crate::sideloads`]): the call without the parameter answered from the state, the
    /// arrays of related records the live state holds added; `None` for any other call.
    fn answer_sideloaded(
        &self,
        tool: &str,
        view: &crate::model::ReadView,
        call: &Call,
        stale: bool,
    ) -> Option<StateAnswer> {
        let rule = self.derived().sideloads.as_ref()?;
        let pointer = view.shown_pointer()?;
        let pairs = call.pairs();
        let values: Vec<&str> = (pairs.iter())
            .filter(|(name, _)| *name == rule.parameter)
            .map(|(_, value)| value.as_str())
            .collect();
        if values.is_empty() || !rule.offered(view) {
            return None;
        }
        let Some(asked) = rule.asked(view, &values) else {
            return Some(self.recording(tool, &view.path_template, call, SIDELOADED, stale));
        };
        let reshape = |body: &mut Json| rule.apply(body, pointer, &asked, &self.read());
        Some(self.reshaped_answer(
            tool,
            view,
            call,
            (&rule.parameter, SIDELOADED, stale),
            reshape,
        ))
    }

    /// The call without the parameter `name` answered from the state and reshaped by `reshape`;
    /// where the state renders no such answer or `reshape` cannot reshape it, the recording (or
    /// refusal) of a call the state does not model for `reason`.
    fn reshaped_answer(
        &self,
        tool: &str,
        view: &crate::model::ReadView,
        call: &Call,
        (name, reason, stale): (&str, &'static str, bool),
        reshape: impl FnOnce(&mut Json) -> Option<()>,
    ) -> StateAnswer {
        let refused = || self.recording(tool, &view.path_template, call, reason, stale);
        let Some(mut rendered) = self.rendered_without(tool, view, call, name, stale) else {
            return refused();
        };
        match reshape(&mut rendered.body) {
            Some(()) => StateAnswer::Rendered(rendered),
            None => refused(),
        }
    }

    /// The answer the state renders for the call without the parameter `name` (what a reshaping
    /// answer starts from); `None` when the state renders none.
    fn rendered_without(
        &self,
        tool: &str,
        view: &crate::model::ReadView,
        call: &Call,
        name: &str,
        stale: bool,
    ) -> Option<crate::answer::RenderedAnswer> {
        let query = call.query.iter().filter(|(sent, _)| sent.as_str() != name);
        let bare = call.reshaped(query.cloned().collect(), true);
        match self.answer_view(tool, view, &bare, false, stale) {
            StateAnswer::Rendered(rendered) => Some(rendered),
            _ => None,
        }
    }

    /// A list call naming a parameter its view learned as restating the answer: the list
    /// answered without it, where the answer's own top-level member holds the value the call
    /// gives (else `unrestated-query`).
    fn answer_restated_list(
        &self,
        tool: &str,
        template: &str,
        list: &ListView,
        call: &Call,
        exact: bool,
    ) -> Result<StateAnswer, &'static str> {
        let unrestated = restated_off(list, call);
        match self.answer_list(tool, template, list, &unrestated, exact)? {
            StateAnswer::Rendered(answer)
                if restates_pairs(&list.restated_query, call, &answer.body) =>
            {
                Ok(StateAnswer::Rendered(answer))
            }
            _ => Err(UNRESTATED_QUERY),
        }
    }

    /// A member view's answer: the member of the live entity the call's path names, in the
    /// envelope record's status and media type; for an entity the state lacks, its item view's
    /// recorded missing answer, and for a member the entity lacks, the tool's own (naming the
    /// call's values), else a `not_found` tool error.
    fn answer_member(
        &self,
        template: &str,
        member: &MemberView,
        call: &Call,
        exact: bool,
    ) -> StateAnswer {
        let segments = call.segments(template);
        let segments = item_segments(&segments);
        let written = split_path(template);
        let values: Vec<&str> = item_segments(&written)
            .iter()
            .zip(segments)
            .map(|(pattern, segment)| template_value(pattern, segment))
            .collect();
        let path = format!("/{}", segments.join("/"));
        let missing = |ordinal: Option<u64>, what: &str| match ordinal
            .and_then(|ordinal| self.kept(ordinal))
        {
            Some(missing) => missing_answer(
                missing,
                (segments, &call.pairs()),
                self.replay().evidence_id(),
                exact,
            ),
            None => tool_error(
                "not_found",
                format!(
                    "the state holds no such {what}, and the capture recorded no 404 or 410 answer to give"
                ),
            ),
        };
        let live = self.read();
        let Some(entity) = values.get(member.entity_segment).and_then(|id| {
            live.entity(&member.entity_type, &member.collection, id)
                .or_else(|| {
                    let decoded = percent_decode(id)?;
                    live.entity(&member.entity_type, &member.collection, &decoded)
                })
        }) else {
            return missing(member.missing_entity_ordinal, "entity");
        };
        let Some(value) = crate::derive::members::member_of(&entity.fields, &member.steps, &values)
        else {
            return missing(member.missing_ordinal, "member");
        };
        let Some(envelope) = self.kept(member.envelope_ordinal) else {
            return tool_error(
                "internal_error",
                "the member view's envelope record is not retained",
            );
        };
        state_answer(
            envelope,
            value.clone(),
            self.replay().evidence_id(),
            exact,
            StateSource::state(path, None),
        )
    }

    /// A recorded read tool's missing answer for a call naming an entity the live state lacks
    /// (see [`crate::absent`]), naming the call's values; `None` for a held entity or a tool
    /// that learned none.
    fn answer_absent(
        &self,
        tool: &str,
        template: &str,
        call: &Call,
        exact: bool,
    ) -> Option<StateAnswer> {
        let absent = self
            .derived()
            .absent_answers
            .iter()
            .find(|absent| absent.tool == tool)?;
        let segments = call.segments(template);
        let (id, collection) = crate::absent::named(template, &segments)?;
        let live = self.read();
        let held = live.entity(&absent.entity_type, &collection, id).is_some()
            || percent_decode(id).is_some_and(|decoded| {
                live.entity(&absent.entity_type, &collection, &decoded)
                    .is_some()
            });
        if held {
            return None;
        }
        let missing = self.kept(absent.missing_ordinal)?;
        Some(missing_answer(
            missing,
            (&segments, &call.pairs()),
            self.replay().evidence_id(),
            exact,
        ))
    }

    /// A recorded read tool's answer from the state before the capture's creates (see
    /// [`crate::created`]): an item tool's missing answer naming the call's values, a list
    /// tool's recordings less the created entities; `None` after a served write of a tool that
    /// created what it answers in the capture (any, when that is not known), for a call with a
    /// query, or for a tool that learned none.
    fn answer_created(
        &self,
        tool: &str,
        template: &str,
        call: &Call,
        (exact, stale): (bool, bool),
    ) -> Option<StateAnswer> {
        let pairs = call.pairs();
        if !pairs.is_empty() {
            return None;
        }
        let created = self
            .derived()
            .created_reads
            .iter()
            .find(|read| read.tool == tool)?;
        let served = self
            .derived()
            .served_writes()
            .map(|plan| plan.record_ordinals.as_slice());
        if stale && created.created_by_served(served) {
            return None;
        }
        let evidence_id = self.replay().evidence_id();
        let segments = call.segments(template);
        match &created.answer {
            crate::created::CreatedAnswer::Item {
                missing_ordinal, ..
            } => Some(missing_answer(
                self.kept(*missing_ordinal)?,
                (&segments, &pairs),
                evidence_id,
                exact,
            )),
            crate::created::CreatedAnswer::List { base_ordinal, seed } => Some(state_answer(
                self.kept(*base_ordinal)?,
                seed.clone(),
                evidence_id,
                exact,
                StateSource::state(format!("/{}", segments.join("/")), Some("all")),
            )),
        }
    }

    /// The sliced member view a call of `tool` slices, with where the call starts and the call's
    /// other query pairs.
    fn sliced_call(
        &self,
        tool: &str,
        call: &Call,
    ) -> Option<(
        &crate::sliced::SlicedMember,
        usize,
        crate::observation::QueryPairs,
    )> {
        let pairs = call.pairs();
        let (sliced, start) = self
            .derived()
            .sliced_members
            .iter()
            .filter(|sliced| sliced.tool == tool)
            .find_map(|sliced| {
                Some((sliced, crate::sliced::start_of(&pairs, &sliced.parameter)?))
            })?;
        let rest = crate::sliced::without(&pairs, &sliced.parameter);
        Some((sliced, start, rest))
    }

    /// A recorded read tool's answer for a call giving a parameter that slices a member of it
    /// (see [`crate::sliced`]): the checked recording of the call's line without the parameter,
    /// that member from the given index on; `None` after a served write (as the recording) or
    /// without such a recording.
    fn answer_sliced(
        &self,
        tool: &str,
        template: &str,
        call: &Call,
        stale: bool,
    ) -> Option<StateAnswer> {
        if stale {
            return None;
        }
        let (sliced, start, rest) = self.sliced_call(tool, call)?;
        let path = format!("/{}", call.segments(template).join("/"));
        let base = sliced.bases.iter().find(|base| {
            base.query == rest
                && (base.path == path
                    || percent_decode(&base.path).as_deref() == percent_decode(&path).as_deref())
        })?;
        let kept = self.kept(base.ordinal)?;
        let body = crate::sliced::slice(kept.json()?, &sliced.member, start)?;
        Some(state_answer(
            kept,
            body,
            self.replay().evidence_id(),
            false,
            StateSource::state(path, None),
        ))
    }

    /// Whether a served write changed anything since the last reset.
    fn written_any(&self) -> bool {
        self.read().written_since_reset(&WriteScope::All)
    }

    /// The folder a call names, composed from the folder entries for a learned listing query
    /// (see [`crate::listings`]), else, for a read tool of the tree (its template below the
    /// tree's prefix), the missing answer for a path no listing shows in a listed folder (see
    /// [`crate::unlisted`]); neither after a served write changed anything.
    /// Whether a call names a listed folder whose listing without its order flag would show two
    /// children or more in the application's own order, which no read shows (see
    /// [`crate::listings::FolderListing::order_unknown`]).
    fn listing_order_unknown(&self, template: &str, call: &Call) -> bool {
        let path = format!("/{}", call.segments(template).join("/"));
        let pairs = call.pairs();
        self.derived().folder_listings.iter().any(|listing| {
            path.strip_prefix(&listing.prefix).is_some_and(|rest| {
                (rest.is_empty() || rest.starts_with('/')) && listing.order_unknown(rest, &pairs)
            })
        })
    }

    fn answer_listing(&self, template: &str, call: &Call) -> Option<StateAnswer> {
        if self.written_any() {
            return None;
        }
        let path = format!("/{}", call.segments(template).join("/"));
        let pairs = call.pairs();
        self.derived().folder_listings.iter().find_map(|listing| {
            let rest = path.strip_prefix(&listing.prefix)?;
            if !rest.is_empty() && !rest.starts_with('/') {
                return None;
            }
            let composed = self.kept(listing.base_ordinal).and_then(|base| {
                let body = listing.answer(rest, &pairs, base.json()?)?;
                Some((base, body, StateSource::state(path.clone(), None)))
            });
            let of_tree = template
                .strip_prefix(&listing.prefix)
                .is_some_and(|below| below.starts_with('/'));
            let unlisted = || {
                let base = self.kept(listing.missing.as_ref()?.base_ordinal)?;
                let body = listing.answer_unlisted(rest, &pairs, base.json()?)?;
                Some((base, body, StateSource::state("missing", None)))
            };
            let (base, body, source) = composed.or_else(|| unlisted().filter(|_| of_tree))?;
            Some(state_answer(
                base,
                body,
                self.replay().evidence_id(),
                false,
                source,
            ))
        })
    }

    /// A call selecting fields the view's learned field selection explains (see
    /// [`crate::selection`]): the call without its selection answered from the state, the entity
    /// or each listed member then shown with the fields selected. `None` when no rule explains
    /// the selection or the call without it is not answered from the state.
    fn answer_selection(
        &self,
        tool: &str,
        view: &crate::model::ReadView,
        call: &Call,
        stale: bool,
    ) -> Option<StateAnswer> {
        if let Some(answer) = self.answer_excluded((tool, view, stale), call) {
            return Some(answer);
        }
        let (selection, entity_type) = match &view.detail {
            ViewDetail::Item(item) => (item.selection.as_ref()?, &item.entity_type),
            ViewDetail::List(list) => (list.selection.as_deref()?, &list.entity_type),
            _ => return None,
        };
        if call.repeated() {
            return None;
        }
        let held = self.held_fields(entity_type);
        let Some(fields) = selection.fields_for(&call.pairs(), |field| held.contains(field)) else {
            let parts = selection.paths_for(&call.pairs())?;
            return self.answer_paths((tool, view, stale), call, selection, &parts);
        };
        let shown = shown_selected(view, &fields);
        self.answer_reshaped(
            (tool, shown.as_ref().unwrap_or(view), stale),
            call,
            |name| name == selection.parameter,
            |entity| {
                *entity = project_to(entity, &fields);
                Some(())
            },
        )
        .or_else(|| self.answer_narrowed((tool, view, stale), call, selection, &fields))
    }

    /// A list call leaving out fields (see [`crate::model::ListView::exclusion`]): the call
    /// without its selection answered from the state, the view showing the fields it hides that
    /// a recorded exclusion of it named, each entity then shown without the fields left out.
    /// `None` when the view learned no exclusion or the call makes none it explains.
    fn answer_excluded(
        &self,
        (tool, view, stale): (&str, &crate::model::ReadView, bool),
        call: &Call,
    ) -> Option<StateAnswer> {
        let ViewDetail::List(list) = &view.detail else {
            return None;
        };
        let exclusion = list.exclusion.as_ref()?;
        if call.repeated() {
            return None;
        }
        let held = self.held_fields(&list.entity_type);
        let excluded = exclusion.excluded_for(&call.pairs(), |field| held.contains(field))?;
        let named: Vec<String> = (list.lines.iter())
            .flat_map(|line| line.query.iter().flatten())
            .filter(|(name, _)| *name == exclusion.parameter)
            .filter_map(|(_, value)| crate::selection::plain_fields(value))
            .flatten()
            .filter(|field| !excluded.contains(field))
            .collect();
        let shown = shown_selected(view, &named);
        self.answer_reshaped(
            (tool, shown.as_ref().unwrap_or(view), stale),
            call,
            |name| name == exclusion.parameter,
            |entity| {
                *entity = crate::render::project_without(entity, &excluded);
                Some(())
            },
        )
    }

    /// A list call selecting fields a checked line's wider selection showed (`username` where a
    /// line selected `username,realname`): the call with that line's selection answered from the
    /// state, each member then narrowed to the fields asked for. `None` when no checked line's
    /// selection holds them all or that call is not answered from the state.
    fn answer_narrowed(
        &self,
        (tool, view, stale): (&str, &crate::model::ReadView, bool),
        call: &Call,
        selection: &crate::selection::FieldSelection,
        fields: &[String],
    ) -> Option<StateAnswer> {
        let ViewDetail::List(list) = &view.detail else {
            return None;
        };
        let wider = list.lines.iter().find_map(|line| {
            let (_, value) = line
                .query
                .iter()
                .flatten()
                .find(|(name, _)| *name == selection.parameter)?;
            // A line showing every field its entities hold kept no projection of its own.
            let shown = match &line.projection {
                Some(shown) => shown.clone(),
                None => crate::selection::plain_fields(value)?,
            };
            let kept = |field: &String| selection.kept.contains(field);
            fields
                .iter()
                .all(|field| shown.contains(field) || kept(field))
                .then_some(value)
        })?;
        let query = call
            .query
            .iter()
            .map(|(name, values)| match *name == selection.parameter {
                true => (name.clone(), vec![wider.clone()]),
                false => (name.clone(), values.clone()),
            });
        let widened = call.reshaped(query.collect(), false);
        let StateAnswer::Rendered(mut rendered) =
            self.answer_view(tool, view, &widened, false, stale)
        else {
            return None;
        };
        let Json::Array(members) =
            crate::render::pointer_mut(&mut rendered.body, &list.list_pointer)?
        else {
            return None;
        };
        for member in members.iter_mut() {
            *member = project_to(member, fields);
        }
        Some(StateAnswer::Rendered(rendered))
    }

    /// A call selecting fields through relation paths (see [`crate::selection::Selected`]): the
    /// call without its selection answered from the state, each entity then shown with the
    /// fields named (all for `*`) and each member the paths go through holding its related
    /// entities (see [`crate::joins`]) with the fields named through it. `None` when a field is
    /// not held, a member joins nothing, or a related entity is not held.
    fn answer_paths(
        &self,
        (tool, view, stale): (&str, &crate::model::ReadView, bool),
        call: &Call,
        selection: &crate::selection::FieldSelection,
        parts: &[crate::selection::Selected],
    ) -> Option<StateAnswer> {
        use crate::selection::Selected;
        let (entity_type, joins) = match &view.detail {
            ViewDetail::Item(item) => (&item.entity_type, &item.joins),
            ViewDetail::List(list) => (&list.entity_type, &list.joins),
            _ => return None,
        };
        let held = self.held_fields(entity_type);
        let mut shown: Vec<String> = Vec::new();
        let mut related = Vec::new();
        for part in parts {
            match part {
                Selected::All => {}
                Selected::Field(field) if held.contains(field) => shown.push(field.clone()),
                Selected::Field(_) => return None,
                Selected::Related { member, fields } => {
                    let join = joins.iter().find(|join| join.member == *member)?;
                    let related_held = self.held_fields(&join.entity_type);
                    if !fields
                        .iter()
                        .flatten()
                        .all(|field| related_held.contains(field))
                    {
                        return None;
                    }
                    shown.push(member.clone());
                    related.push((join, fields.as_ref()));
                }
            }
        }
        let all = parts.contains(&Selected::All);
        shown.extend(selection.kept.iter().cloned());
        self.answer_reshaped(
            (tool, view, stale),
            call,
            |name| name == selection.parameter,
            |entity| {
                let Json::Object(object) = entity else {
                    return None;
                };
                let held = object.clone();
                if !all {
                    *entity = project_to(entity, &shown);
                }
                let Json::Object(target) = entity else {
                    return None;
                };
                let live = self.read();
                for (join, fields) in &related {
                    let value = join.value_for(&held, &join.collection, &live)?;
                    target.insert(join.member.clone(), project_related(value, *fields));
                }
                Some(())
            },
        )
    }

    /// A call making a query the reads of its view's entity type showed related entities for
    /// (see [`crate::relations`]): the call without that query answered from the state, with
    /// the related entities the live state holds in the member of the entity (or of each listed
    /// one). `None` when no relation is learned for the query, the call without it is not
    /// answered from the state, or a related entity is not held.
    fn answer_relation(
        &self,
        tool: &str,
        view: &crate::model::ReadView,
        call: &Call,
        stale: bool,
    ) -> Option<StateAnswer> {
        if call.repeated() {
            return None;
        }
        let relation = relation_of(view, call)?;
        let path = format!("/{}", call.segments(&view.path_template).join("/"));
        let collection = relation.collection_for(&path)?;
        self.answer_reshaped(
            (tool, view, stale),
            call,
            |name| relation.query.iter().any(|(asked, _)| asked == name),
            |entity| {
                let Json::Object(entity) = entity else {
                    return None;
                };
                let value = relation.value_for(entity, &collection, &self.read())?;
                entity.insert(relation.member.clone(), value);
                Some(())
            },
        )
    }

    /// The call without the query parameters `left_out` names answered from the state, the
    /// entity it shows (or each member it lists) then reshaped; `None` when that call is not
    /// answered from the state or a reshape fails.
    fn answer_reshaped(
        &self,
        (tool, view, stale): (&str, &crate::model::ReadView, bool),
        call: &Call,
        left_out: impl Fn(&str) -> bool,
        mut reshape: impl FnMut(&mut Json) -> Option<()>,
    ) -> Option<StateAnswer> {
        let (pointer, is_list) = match &view.detail {
            ViewDetail::Item(item) => (&item.entity_pointer, false),
            ViewDetail::List(list) => (&list.list_pointer, true),
            _ => return None,
        };
        let query = call.query.iter().filter(|(name, _)| !left_out(name));
        let bare = call.reshaped(query.cloned().collect(), false);
        let StateAnswer::Rendered(mut rendered) = self.answer_view(tool, view, &bare, false, stale)
        else {
            return None;
        };
        match crate::render::pointer_mut(&mut rendered.body, pointer)? {
            Json::Array(members) if is_list => {
                for member in members.iter_mut() {
                    reshape(member)?;
                }
            }
            entity if !is_list => reshape(entity)?,
            _ => return None,
        }
        Some(StateAnswer::Rendered(rendered))
    }

    /// The top-level fields the state's entities of a type hold.
    fn held_fields(&self, entity_type: &str) -> std::collections::BTreeSet<String> {
        let live = self.read();
        live.collections_of(entity_type)
            .into_iter()
            .flat_map(|collection| live.collection(entity_type, collection))
            .filter_map(|entity| entity.fields.as_object())
            .flat_map(|fields| fields.keys().map(str::to_owned))
            .collect()
    }

    /// The recording of the very request a call makes, standing in for a read the state does not
    /// render, when no served write changed what it shows (see [`crate::recorded`]); otherwise a
    /// `not_modelled` refusal.
    fn recording(
        &self,
        tool: &str,
        template: &str,
        call: &Call,
        reason: &str,
        stale: bool,
    ) -> StateAnswer {
        let refused = |recording| {
            NotModelled {
                reason: reason.to_owned(),
                recording,
            }
            .into()
        };
        if stale {
            return refused(RecordingUnusable::StaleAfterWrite);
        }
        self.recorded_lines()
            .exact(tool, template, call)
            .and_then(|ordinal| self.replay().answer_record(tool, ordinal))
            .map_or_else(
                || refused(RecordingUnusable::NotRecorded),
                |answer| recording_answer(answer, StateSource::recording(reason)),
            )
    }

    /// Whether the capture recorded the very request a call makes only after its first write:
    /// that recording shows other data than a view holding what the capture observed before it.
    fn recorded_after_writes(&self, tool: &str, template: &str, call: &Call) -> bool {
        self.recorded_lines()
            .exact(tool, template, call)
            .zip(self.derived().first_write_ordinal)
            .is_some_and(|(ordinal, first)| ordinal > first)
    }

    fn render_members(
        &self,
        view: &str,
        shape: &ViewShape,
        members: &[&Entity],
    ) -> Result<Vec<Json>, StateAnswer> {
        members
            .iter()
            .map(|entity| {
                let rendered = render_entity(shape, view, entity);
                match missing_required(shape, &rendered) {
                    Some(field) if !self.made_whole(entity) => Err(tool_error(
                        "incomplete_entity",
                        format!(
                            "the state's entity {:?} of {} lacks the field {field:?} every recording of this view carried, so it cannot be rendered",
                            entity.id, entity.collection
                        ),
                    )),
                    _ => Ok(rendered),
                }
            })
            .collect()
    }

    /// Whether a served create made the entity and answered it whole: it holds no recorded value
    /// and its type's served creates answer the written entity whole, so a member such a create
    /// left out is one the application's own answer did not show either, and its views show the
    /// entity without it rather than refuse it.
    fn made_whole(&self, entity: &Entity) -> bool {
        entity.record_ordinals.is_empty()
            && self.derived().served_writes().any(|plan| {
                plan.effect == Effect::Create
                    && plan
                        .target
                        .as_ref()
                        .and_then(|target| target.entity_type.as_deref())
                        == Some(entity.entity_type.as_str())
                    && plan
                        .response
                        .as_ref()
                        .is_some_and(|response| response.kind == ResponseKind::Entity)
            })
    }

    fn answer_item(
        &self,
        tool: &str,
        template: &str,
        item: &ItemView,
        call: &Call,
        exact: bool,
    ) -> Result<StateAnswer, &'static str> {
        let segments = call.segments(template);
        let Some((last, collection)) = item_segments(&segments).split_last() else {
            return Ok(tool_error("invalid_arguments", "the call names no entity"));
        };
        // The id a fused parameter names is its value between the prefix and suffix.
        let written = split_path(template);
        let last = item_segments(&written)
            .last()
            .map_or(last.as_str(), |pattern| template_value(pattern, last));
        let (names, field) = item_names(item, call, last)?;
        let view = match &item.key {
            ItemKey::Path => format!("/{}", segments.join("/")),
            ItemKey::Query { parameter, .. } => format!(
                "/{}?{parameter}={}",
                segments.join("/"),
                names.first().map_or("", String::as_str)
            ),
        };
        let live = self.read();
        let Some(entity) = find_item(&live, item, collection, &names, field) else {
            let malformed = names_malformed(&live, item, collection, last);
            return Ok(self.missing_item(item, (&segments, &call.pairs()), (malformed, exact)));
        };
        let projection = item_projection(item, call)?;
        let mut rendered = match self.render_members(tool, &item.shape, &[entity]) {
            Ok(mut rendered) => rendered.remove(0),
            Err(error) => return Ok(error),
        };
        crate::embedded_links::fill(&item.embedded_links, &live, &mut rendered);
        if !restates_call(item, call, &rendered) {
            return Err(UNRESTATED_QUERY);
        }
        let rendered = match projection {
            Some(fields) => project_to(&rendered, fields),
            None => rendered,
        };
        let Some(envelope) = self.kept(item.envelope_ordinal) else {
            return Ok(tool_error(
                "internal_error",
                "the item view's envelope record is not retained",
            ));
        };
        // The envelope names the entity it was recorded for; it names this one.
        let mut body = envelope.json().cloned().unwrap_or_default();
        let names_of = |object: Option<&Json>| {
            object.and_then(|object| crate::fused_identity::names(object, &item.identity_field))
        };
        if let (Some(recorded), Some(called)) = (
            names_of(body.pointer(&item.entity_pointer)),
            names_of(Some(&rendered)),
        ) {
            let pairs: Vec<(String, String)> = recorded.into_iter().zip(called).collect();
            crate::missing::rename_entity_values(&mut body, &pairs);
        }
        set_identity_echoes(&mut body, item, &rendered);
        let rendered = match (&item.nesting, body.pointer(&item.entity_pointer)) {
            (Some(nesting), Some(shell)) => nesting.nest(&item.identity_field, shell, &rendered),
            _ => rendered,
        };
        let body = with_value_at(body, &item.entity_pointer, rendered);
        Ok(state_answer(
            envelope,
            body,
            self.replay().evidence_id(),
            exact,
            StateSource::state(view, None),
        ))
    }

    /// A call naming a digest query pair ([`crate::digests`]) the view's reads never showed: the
    /// entity answered without the pair, its digest set from the live text; `None` when no pair
    /// is named, the rest of the call is itself replayed, or the answer is no rendered entity
    /// with that text.
    fn answer_digest(
        &self,
        tool: &str,
        template: &str,
        item: &ItemView,
        call: &Call,
        exact: bool,
    ) -> Option<StateAnswer> {
        let digest = item
            .digests
            .iter()
            .find(|digest| digest.named_by(&call.query))?;
        let rest = Call {
            path: call.path.clone(),
            query: call
                .query
                .iter()
                .filter(|(name, _)| *name != digest.parameter)
                .cloned()
                .collect(),
            body: call.body.clone(),
            sent: call.sent.clone(),
            relink: call.relink,
            order: call.order.clone(),
        };
        if rest.projected(&item.projected_query_keys).is_some() {
            return None;
        }
        let StateAnswer::Rendered(mut answer) =
            self.answer_item(tool, template, item, &rest, exact).ok()?
        else {
            return None;
        };
        let entity = crate::render::pointer_mut(&mut answer.body, &item.entity_pointer)?;
        digest.apply(entity)?;
        Some(StateAnswer::Rendered(answer))
    }

    /// The answer for an entity the state does not hold: the tool's latest recorded
    /// `400`/`404`/`410` (`state.view: "missing"`) naming the call's entity (see
    /// [`crate::missing`]), or the error recorded for ids of no held form where the call's id
    /// has none (`malformed`, [`crate::id_forms`]), else a tool error.
    fn missing_item(
        &self,
        item: &ItemView,
        call: (&[CompactString], &[(String, String)]),
        (malformed, exact): (bool, bool),
    ) -> StateAnswer {
        let error = match malformed {
            true => item.malformed_ordinal,
            false => item.missing_ordinal,
        };
        match error.and_then(|ordinal| self.kept(ordinal)) {
            Some(missing) => missing_answer(missing, call, self.replay().evidence_id(), exact),
            None => tool_error(
                "not_found",
                "the state holds no such entity, and the capture recorded no 400, 404 or 410 answer of this tool to give",
            ),
        }
    }

    fn line_names_call(
        line: &ListLine,
        segments: &[CompactString],
        pairs: &[(String, String)],
    ) -> bool {
        segments_match(&split_path(&line.path), segments) && same_pairs(line.query.as_ref(), pairs)
    }

    /// A list call: a list under a parent called without a query answers the entities holding
    /// the parent ([`Self::answer_children`]), any other call its lines or query model
    /// ([`Self::answer_lines`]); a query over a list under a parent they do not answer is
    /// evaluated over the parent's entities ([`Self::answer_children_query`]).
    fn answer_list(
        &self,
        tool: &str,
        template: &str,
        list: &ListView,
        call: &Call,
        exact: bool,
    ) -> Result<StateAnswer, &'static str> {
        match &list.parent {
            Some(parent) if call.query.is_empty() => {
                self.answer_children(tool, list, parent, &call.segments(template))
            }
            Some(parent) => self
                .answer_lines(tool, template, list, call, exact)
                .or_else(|error| {
                    self.answer_children_query(tool, (list, parent), &call.segments(template), call)
                        .map_err(|_| error)
                }),
            None => self.answer_lines(tool, template, list, call, exact),
        }
    }

    /// A query over a list under a parent (see [`crate::nested_query`]): the entities holding
    /// the parent the call names, evaluated with the first lent model reading every parameter,
    /// in the first checked line's envelope.
    fn answer_children_query(
        &self,
        tool: &str,
        (list, parent): (&ListView, &crate::relations::ParentSegment),
        segments: &[CompactString],
        call: &Call,
    ) -> Result<StateAnswer, &'static str> {
        let expanded = self.expand_query(list, &call.pairs());
        let holds_field = |field: &str| {
            self.holds_field(&list.entity_type, field) || Self::joins_through(list, field)
        };
        let model = crate::nested_query::lent_models(&self.derived().views, list)
            .find_map(|model| {
                let model = match expanded.extend(model, &holds_field) {
                    Some(extended) => Cow::Owned(extended),
                    None => Cow::Borrowed(model),
                };
                crate::nested_query::reads_every(&model, &expanded.pairs).then_some(model)
            })
            .ok_or("unrecorded-request")?;
        let live = self.read();
        let members = parent
            .members(segments, &list.entity_type, &live)
            .ok_or("unrecorded-request")?;
        let objects = Self::joined_objects(&live, (tool, list), &members, &model, &expanded.pairs)?;
        let candidates: Vec<&Object> = objects.iter().collect();
        let evaluated =
            evaluate(&model, &expanded.pairs, &candidates).ok_or("unrecorded-request")?;
        let chosen: Vec<&Entity> = evaluated
            .members
            .iter()
            .map(|index| members[*index])
            .collect();
        self.answer_members(tool, list, &chosen, segments, "query")
    }

    /// A list call answered by its own recorded line ([`Self::answer_named_line`]), a page
    /// envelope the state computes ([`Self::answer_enveloped`]), or the query model over the
    /// state ([`Self::answer_unnamed`]).
    fn answer_lines(
        &self,
        tool: &str,
        template: &str,
        list: &ListView,
        call: &Call,
        exact: bool,
    ) -> Result<StateAnswer, &'static str> {
        let segments = call.segments(template);
        let pairs = call.pairs();
        // What links to pages repeat: the query as sent, with what a reshaping answer left out.
        let linked = call.sent.clone().unwrap_or_else(|| pairs.clone());
        let expanded = self.expand_query(list, &pairs);
        let holds_field = |field: &str| {
            self.holds_field(&list.entity_type, field) || Self::joins_through(list, field)
        };
        let extended = list
            .query
            .as_ref()
            .and_then(|model| expanded.extend(model, &holds_field));
        let model = extended.as_ref().or(list.query.as_ref());
        let linked = crate::query_order::repeated(model, linked, call.order.as_deref());
        // A call a reshaping answer left every parameter out of links its pages as sent: no
        // plain line's recorded links answer it.
        let reshaped_bare = call.relink && pairs.is_empty();
        if let Some(line) = list
            .lines
            .iter()
            .filter(|_| !reshaped_bare)
            .find(|line| Self::line_names_call(line, &segments, &pairs))
        {
            return self.answer_named_line(
                tool,
                list,
                (model, line),
                (&expanded.pairs, &pairs, &linked),
                (exact, call.relink),
            );
        }
        if let (Some(envelope), Some(model)) = (&list.page_envelope, model)
            && envelope.names_call(&expanded.pairs)
        {
            return self.answer_enveloped(
                tool,
                list,
                (envelope, model),
                (&expanded.pairs, &pairs, &linked),
                &segments,
            );
        }
        self.answer_unnamed(
            tool,
            list,
            model,
            (&expanded.pairs, &pairs, &linked),
            (&segments, call.relink),
        )
    }

    /// A call its own recorded line names: evaluated when the query model answers that line,
    /// else the line as recorded.
    fn answer_named_line(
        &self,
        tool: &str,
        list: &ListView,
        (model, line): (Option<&QueryModel>, &ListLine),
        (expanded, pairs, linked): (&QueryPairs, &QueryPairs, &QueryPairs),
        (exact, relink): (bool, bool),
    ) -> Result<StateAnswer, &'static str> {
        let answered_by_query = list
            .query
            .as_ref()
            .is_some_and(|model| model.record_ordinals.contains(&line.record_ordinal));
        // A reshaping answer's call that links its pages as sent (`relink`) links them with what
        // it left out: the line's recorded links do not spell them.
        if !answered_by_query && relink && linked != pairs {
            return Err(RELINKED_LINE);
        }
        if answered_by_query {
            return self.evaluate_query(
                tool,
                list,
                (model, line, true),
                (expanded, linked),
                (exact, None),
            );
        }
        self.render_line(tool, list, line, exact)
            .or_else(|error| self.reevaluate_plain(tool, list, (model, line), (expanded, error)))
    }

    /// A call naming a page of the envelope the state computes (page numbers and totals).
    fn answer_enveloped(
        &self,
        tool: &str,
        list: &ListView,
        (envelope, model): (&PageEnvelope, &QueryModel),
        (expanded, pairs, linked): (&QueryPairs, &QueryPairs, &QueryPairs),
        segments: &[CompactString],
    ) -> Result<StateAnswer, &'static str> {
        let extended = envelope.extend(model);
        if !expanded
            .iter()
            .all(|(name, _)| extended.role(name).is_some())
        {
            return Err("unrecorded-request");
        }
        let base = self
            .query_base(list, &extended, (pairs, expanded), segments)
            .ok_or("unrecorded-request")?;
        self.evaluate_query(
            tool,
            list,
            (Some(&extended), base, false),
            (expanded, linked),
            (false, Some(envelope)),
        )
    }

    /// A call no recorded line names: a field selection refused, no query answered by a whole
    /// line, any other query evaluated by the model over a base line of its collection.
    fn answer_unnamed(
        &self,
        tool: &str,
        list: &ListView,
        model: Option<&QueryModel>,
        (expanded, pairs, linked): (&QueryPairs, &QueryPairs, &QueryPairs),
        (segments, relink): (&[CompactString], bool),
    ) -> Result<StateAnswer, &'static str> {
        let same_collection = |line: &&ListLine| segments_match(&split_path(&line.path), segments);
        // A field selection no checked line made replays its recording, and so does a call
        // leaving out a field-selection parameter every checked line names.
        if selects_fields(pairs) || leaves_out_selection(&list.lines, pairs) {
            return Err("projection");
        }
        // A call a reshaping answer left a parameter out of still links its pages as sent.
        if pairs.is_empty() && !relink {
            let paging = list
                .lines
                .iter()
                .filter(same_collection)
                .filter(|line| line.whole)
                .min_by_key(|line| line.query.is_some());
            return match paging {
                Some(line) => self.render_line(tool, list, line, false).or_else(|error| {
                    self.reevaluate_plain(tool, list, (model, line), (expanded, error))
                }),
                None => self.answer_under_created(tool, list, segments),
            };
        }
        let Some(model) = model else {
            return Err("unrecorded-request");
        };
        if !expanded.iter().all(|(name, _)| model.role(name).is_some()) {
            return Err("unrecorded-request");
        }
        let base = self.query_base(list, model, (pairs, expanded), segments);
        match base {
            Some(line) => self.evaluate_query(
                tool,
                list,
                (Some(model), line, false),
                (expanded, linked),
                (false, None),
            ),
            None => Err("unrecorded-request"),
        }
    }

    /// A plain call whose recorded page a write may have changed (`stale-membership`) evaluated
    /// over the state by the list's query model, when the model pages a call naming no page at a
    /// size its answered lines showed: the first page, its totals and links computed.
    fn reevaluate_plain(
        &self,
        tool: &str,
        list: &ListView,
        (model, line): (Option<&QueryModel>, &ListLine),
        (pairs, error): (&QueryPairs, &'static str),
    ) -> Result<StateAnswer, &'static str> {
        let plain = pairs.is_empty() && error == "stale-membership";
        match model {
            Some(model) if plain && model.default_page_size.is_some() => {
                let none: Vec<(String, String)> = Vec::new();
                self.evaluate_query(
                    tool,
                    list,
                    (Some(model), line, true),
                    (&none, &none),
                    (false, None),
                )
            }
            _ => Err(error),
        }
    }

    /// A list no recorded line names, of the collection under an item a served create made
    /// since the reset or load (`/lists/3/entries` after `POST /lists` made list 3): no recording
    /// listed it, so it holds what the writes since made there (none, at first), answered in
    /// the first checked line's envelope, in state order.
    fn answer_under_created(
        &self,
        tool: &str,
        list: &ListView,
        segments: &[CompactString],
    ) -> Result<StateAnswer, &'static str> {
        let path = item_segments(segments);
        let (_, parent) = path.split_last().ok_or("unrecorded-request")?;
        let (parent_id, parent_collection) = parent.split_last().ok_or("unrecorded-request")?;
        let parent_id = percent_decode(parent_id).ok_or("unrecorded-request")?;
        let live = self.read();
        if !live.created_here(&format!("/{}", parent_collection.join("/")), &parent_id) {
            return Err("unrecorded-request");
        }
        let members = live.collection(&list.entity_type, &format!("/{}", path.join("/")));
        self.answer_members(tool, list, &members, segments, "all")
    }

    /// The checked line whose envelope a call (its pairs as sent and with every expression split
    /// into terms) evaluated over the state renders into: one that gave the call's inert values
    /// when the state computes its envelope, else the plain line, a whole line, or a line the
    /// query model answers, of the call's collection; none when no line of the collection gave
    /// the inert values the call sends as they are (not split).
    fn query_base<'a>(
        &self,
        list: &'a ListView,
        model: &QueryModel,
        (pairs, expanded): (&QueryPairs, &QueryPairs),
        segments: &[CompactString],
    ) -> Option<&'a ListLine> {
        let same_collection = |line: &&ListLine| segments_match(&split_path(&line.path), segments);
        let answered_by_query = |line: &ListLine| {
            list.query
                .as_ref()
                .is_some_and(|model| model.record_ordinals.contains(&line.record_ordinal))
        };
        // Inert parameters may still shape the envelope (`meta=total_count`, `_extra=count`): a
        // line that gave the call's inert values answers in the envelope the call asks for.
        let inert: Vec<&(String, String)> = pairs
            .iter()
            .filter(|(name, _)| matches!(model.role(name), Some(QueryRole::Inert { .. })))
            .collect();
        // An inert value only another collection's lines gave was never seen on this one: what
        // it shows here is not known. (A name the grammar offered from a sibling list's lines,
        // `model.generalized`, is inert by what that list showed, answered in the plain envelope.)
        let sent_inert: Vec<&(String, String)> = inert
            .iter()
            .copied()
            .filter(|(name, _)| model.parameters.contains_key(name))
            .filter(|pair| expanded.contains(pair))
            .collect();
        if !sent_inert.is_empty()
            && !list
                .lines
                .iter()
                .filter(same_collection)
                .any(|line| gives_all(line.query.as_deref(), &sent_inert))
        {
            return None;
        }
        let plain = list
            .lines
            .iter()
            .filter(same_collection)
            .find(|line| line.whole && line.query.is_none());
        let shaped = (!inert.is_empty())
            .then(|| {
                list.lines
                    .iter()
                    .filter(same_collection)
                    .filter(|line| answered_by_query(line))
                    .find(|line| gives_all(line.query.as_deref(), &inert))
            })
            .flatten()
            .filter(|line| self.envelope_modelled(list, model, line, plain));
        shaped
            .or(plain)
            .or_else(|| {
                list.lines
                    .iter()
                    .filter(same_collection)
                    .find(|line| line.whole)
            })
            .or_else(|| {
                list.lines
                    .iter()
                    .filter(same_collection)
                    .find(|line| answered_by_query(line))
            })
    }

    /// A list under a parent answered from the state: the entities holding the parent the call
    /// names (see [`crate::relations::ParentSegment`]), in the first checked line's envelope.
    fn answer_children(
        &self,
        tool: &str,
        list: &ListView,
        parent: &crate::relations::ParentSegment,
        segments: &[CompactString],
    ) -> Result<StateAnswer, &'static str> {
        let live = self.read();
        let members = parent
            .members(segments, &list.entity_type, &live)
            .ok_or("unrecorded-request")?;
        self.answer_members(tool, list, &members, segments, "query")
    }

    /// `members` rendered in the list's shape and answered in its first checked line's envelope,
    /// from the state at the called path (`scope`: what of the collection the answer shows), the
    /// envelope members echoing the lines' paths naming the called one ([`crate::path_echo`]).
    fn answer_members(
        &self,
        tool: &str,
        list: &ListView,
        members: &[&Entity],
        segments: &[CompactString],
        scope: &'static str,
    ) -> Result<StateAnswer, &'static str> {
        let rendered = match self.render_members(tool, &list.shape, members) {
            Ok(rendered) => rendered,
            Err(error) => return Ok(error),
        };
        let line = list.lines.first().ok_or("unrecorded-request")?;
        let listed = rendered.len();
        let (mut body, base) = self
            .list_body(list, line, rendered, Some((listed, listed)))
            .ok_or("unrecorded-request")?;
        let lines: Vec<(&Json, &str)> = list
            .lines
            .iter()
            .filter_map(|line| self.kept(line.record_ordinal))
            .filter_map(|kept| Some((kept.json()?, kept.path.as_str())))
            .collect();
        let called = format!("/{}", segments.join("/"));
        crate::path_echo::mint(&mut body, &crate::path_echo::echoing(&lines), &called);
        Ok(state_answer(
            base,
            body,
            self.replay().evidence_id(),
            false,
            StateSource::state(format!("/{}", segments.join("/")), Some(scope)),
        ))
    }

    /// Whether every envelope member a line holds besides the list is one the state computes
    /// (a counter, a query total) or one the plain line holds too: a member only that line's
    /// query showed (`count` of `_extra=count` where no page told it from the number listed)
    /// is not answered with that line's recorded value.
    fn envelope_modelled(
        &self,
        list: &ListView,
        model: &crate::model::QueryModel,
        line: &ListLine,
        plain: Option<&ListLine>,
    ) -> bool {
        let Some(body) = self.kept(line.record_ordinal).and_then(|kept| kept.json()) else {
            return false;
        };
        let plain = plain
            .and_then(|plain| self.kept(plain.record_ordinal))
            .and_then(|kept| kept.json());
        crate::derive::lists::scalar_pointers(body, &list.list_pointer)
            .into_iter()
            .all(|(pointer, _)| {
                model.totals.contains(&pointer)
                    || model.unfiltered_totals.contains(&pointer)
                    || model.complete_totals.contains(&pointer)
                    || model.collection_totals.contains(&pointer)
                    || list.counters.contains(&pointer)
                    || plain.is_some_and(|plain| plain.pointer(&pointer).is_some())
            })
    }

    fn list_body(
        &self,
        list: &ListView,
        line: &ListLine,
        members: Vec<Json>,
        matched: Option<(usize, usize)>,
    ) -> Option<(Json, &KeptRecord)> {
        let base = self.kept(line.record_ordinal)?;
        let count = members.len();
        let mut envelope = base.json().cloned()?;
        if let Some(entity_type) = (!list.identity_lists.is_empty())
            .then(|| self.derived().entity_type(&list.entity_type))
            .flatten()
        {
            crate::identity_lists::set(
                &mut envelope,
                &list.identity_lists,
                (&members, &entity_type.identity_field),
            );
        }
        let mut body = with_value_at(envelope, &list.list_pointer, Json::Array(members));
        for counter in &list.counters {
            set_counter(&mut body, counter, count);
        }
        if let (Some((matched, size)), Some(model)) = (matched, &list.query) {
            let totals = model.totals.iter().chain(&model.unfiltered_totals);
            for total in totals.chain(&model.complete_totals) {
                set_counter(&mut body, total, matched);
            }
            for total in &model.collection_totals {
                set_counter(&mut body, total, size);
            }
        }
        Some((body, base))
    }

    fn render_line(
        &self,
        tool: &str,
        list: &ListView,
        line: &ListLine,
        exact: bool,
    ) -> Result<StateAnswer, &'static str> {
        let live = self.read();
        let members: Vec<&Entity> = match line.membership {
            Membership::All => {
                let collection =
                    crate::derive::lists::listed_collection(&line.path, &list.entity_type);
                let mut members = live.collection(
                    &list.entity_type,
                    collection.as_deref().unwrap_or(&line.path),
                );
                members.retain(|entity| {
                    !line.excluded.iter().any(|excluded| {
                        excluded.id == entity.id
                            && crate::derive::entities::collection_key(&excluded.collection)
                                == crate::derive::entities::collection_key(&entity.collection)
                    })
                });
                members
            }
            Membership::Recorded => {
                // A write that added or changed an entity of the listed collection may have put
                // it on this list, which the recorded members cannot show.
                let listed = WriteScope::Type {
                    entity_type: list.entity_type.clone(),
                    collection: crate::derive::lists::listed_collection(
                        &line.path,
                        &list.entity_type,
                    )
                    .map(|listed| crate::derive::entities::collection_key(&listed).to_owned()),
                    entity: None,
                };
                if live.grown_since_reset(&listed) {
                    return Err("stale-membership");
                }
                line.members
                    .iter()
                    .filter_map(|member| {
                        live.entity(&list.entity_type, &member.collection, &member.id)
                    })
                    .collect()
            }
        };
        if line
            .page_size
            .is_some_and(|size| members.len() as u64 > size)
        {
            return Err("page-exceeded");
        }
        let rendered = match self.render_members(tool, &list.shape, &members) {
            Ok(rendered) => match &line.projection {
                Some(fields) => rendered
                    .iter()
                    .map(|member| project_to(member, fields))
                    .collect(),
                None => rendered,
            },
            Err(error) => return Ok(error),
        };
        // A line listing the whole collection matched every member it lists now: its query
        // totals count them (a plain list's `count` after a create).
        let matched =
            matches!(line.membership, Membership::All).then_some((rendered.len(), rendered.len()));
        let Some((body, base)) = self.list_body(list, line, rendered, matched) else {
            return Err("unrecorded-request");
        };
        Ok(state_answer(
            base,
            body,
            self.replay().evidence_id(),
            exact,
            StateSource::state(line.path.clone(), Some(membership_name(line.membership))),
        ))
    }

    /// Whether some entity the live state holds of a type holds a field, as a filter reads it
    /// (see [`crate::query::field_value`]).
    fn holds_field(&self, entity_type: &str, field: &str) -> bool {
        let live = self.read();
        live.collections_of(entity_type)
            .into_iter()
            .any(|collection| {
                live.collection(entity_type, collection)
                    .into_iter()
                    .any(|entity| {
                        entity.fields.as_object().is_some_and(|object| {
                            crate::query::field_value(object, field).is_some()
                        })
                    })
            })
    }

    /// Whether a dotted field reaches through a member the list joins to related entities
    /// (`project.status` where the list joins `project`; see [`crate::joins`]), which a filter
    /// reads over the joined entity.
    fn joins_through(list: &ListView, field: &str) -> bool {
        field
            .split_once('.')
            .is_some_and(|(member, _)| list.joins.iter().any(|join| join.member == member))
    }

    /// Whether the query grammars split every value of each name the call repeats into terms, no
    /// term named twice: a repeated expression parameter (@nestjsx/crud's two `filter=` conditions)
    /// is a conjunction of its terms, as one query's terms are.
    fn splits_repetitions(&self, call: &Call) -> bool {
        let repeated: Vec<(String, String)> = (call.query.iter())
            .filter(|(_, values)| values.len() > 1)
            .flat_map(|(name, values)| {
                values
                    .iter()
                    .map(move |value| (name.clone(), value.clone()))
            })
            .collect();
        if repeated.is_empty() {
            return false;
        }
        let expanded = crate::query_terms::expand(self.rules(), &repeated, &[]);
        let mut names: Vec<&String> = expanded.pairs.iter().map(|(name, _)| name).collect();
        let count = names.len();
        names.sort();
        names.dedup();
        names.len() == count
            && expanded
                .pairs
                .iter()
                .all(|(name, _)| expanded.candidates.contains_key(name))
    }

    /// A call's query with its expressions split by the query grammars, given the fields the
    /// state holds for the list's type (read only when some parameter splits).
    fn expand_query(
        &self,
        list: &ListView,
        pairs: &[(String, String)],
    ) -> crate::query_terms::Expanded {
        let expanded = crate::query_terms::expand(self.rules(), pairs, &[]);
        if !expanded.split_any() {
            return expanded;
        }
        let live = self.read();
        let held = live
            .collections_of(&list.entity_type)
            .into_iter()
            .flat_map(|collection| live.collection(&list.entity_type, collection));
        let fields: Vec<String> = crate::derive::query_grammar::scalar_fields(held)
            .into_iter()
            .collect();
        crate::query_terms::expand(self.rules(), pairs, &fields)
    }

    /// Whether the envelope of `base` tells what an evaluated call's envelope holds: not when a
    /// member counts the matches or the collection (the recordings never told which) and the call
    /// filters, nor when one counts the matches or the members listed (never told apart) and the
    /// call's page leaves matches out, nor when `base`, another query's line (`own` false), holds a member lines showed
    /// with values of their own (a next cursor) unless the call's page lists every match and
    /// every such page showed one value there (set by [`Self::set_complete_members`]).
    fn envelope_known(
        &self,
        model: &QueryModel,
        base: &ListLine,
        (evaluated, candidates): (&crate::query::Evaluated, usize),
        own: bool,
    ) -> bool {
        let Some(body) = self.kept(base.record_ordinal).and_then(|kept| kept.json()) else {
            return true;
        };
        let holds_any = |pointers: &[String]| {
            pointers
                .iter()
                .any(|pointer| body.pointer(pointer).is_some())
        };
        let filters = evaluated.matched != candidates;
        let partial = evaluated.members.len() < evaluated.matched;
        if (filters && holds_any(&model.unfiltered_totals))
            || (partial && holds_any(&model.complete_totals))
        {
            return false;
        }
        own || model
            .paged_members
            .iter()
            .all(|member| match body.pointer(&member.pointer) {
                _ if member.offset
                    || member.size
                    || member.echo.is_some()
                    || member.arithmetic.is_some() =>
                {
                    true
                }
                None => true,
                Some(_) => !partial && member.complete.len() == 1,
            })
    }

    /// Sets the envelope members the lines whose page listed every match showed one value in
    /// (`next: null`, see [`crate::model::PagedMember::complete`]) to that value, when the
    /// call's page lists every match too: the base line, another query's (a first default page
    /// linking the next), may hold another.
    fn set_complete_members(body: &mut Json, model: &QueryModel, partial: bool) {
        if partial {
            return;
        }
        for member in &model.paged_members {
            let [complete] = member.complete.as_slice() else {
                continue;
            };
            if member.offset || member.size || member.echo.is_some() || member.arithmetic.is_some()
            {
                continue;
            }
            if let Some(slot) = crate::render::pointer_mut(body, &member.pointer) {
                *slot = complete.clone();
            }
        }
    }

    /// The query evaluated over the state with the list's model (extended by the terms a query
    /// grammar names alone), rendered into the envelope of `base` (`own`: the line of the call's
    /// very query), or into the list's page envelope with its members computed (`page`).
    fn evaluate_query(
        &self,
        tool: &str,
        list: &ListView,
        (model, base, own): (Option<&QueryModel>, &ListLine, bool),
        (pairs, linked): (&QueryPairs, &QueryPairs),
        (exact, page): (bool, Option<&PageEnvelope>),
    ) -> Result<StateAnswer, &'static str> {
        let Some(model) = model else {
            return Err("unrecorded-request");
        };
        if !own && !Self::seen_whole(list, base) {
            return Err("unrecorded-request");
        }
        if self.holds_elsewhere(list, base) {
            return Err("unrecorded-request");
        }
        let live = self.read();
        let (collection, objects) = Self::query_objects(&live, (tool, list, base), model, pairs)?;
        let candidates: Vec<&Object> = objects.iter().collect();
        let Some(evaluated) = evaluate(model, pairs, &candidates) else {
            return Err("unrecorded-request");
        };
        if page.is_none()
            && let Some(refused) =
                self.past_end_answer(model, pairs, evaluated.members.len(), (base, exact))
        {
            return Ok(refused);
        }
        let numbers = match page {
            Some(envelope) => Some(
                envelope
                    .numbers(pairs, (evaluated.matched, evaluated.members.len()))
                    .filter(|numbers| envelope.serves(numbers))
                    .ok_or("unrecorded-request")?,
            ),
            None if !self.envelope_known(model, base, (&evaluated, candidates.len()), own) => {
                return Err("unrecorded-request");
            }
            None => None,
        };
        let members: Vec<&Entity> = evaluated
            .members
            .iter()
            .map(|index| collection[*index])
            .collect();
        let rendered = match self.render_members(tool, &list.shape, &members) {
            Ok(rendered) => rendered,
            Err(error) => return Ok(error),
        };
        if let (Some(envelope), Some(numbers)) = (page, numbers) {
            return self.paged_answer(envelope, &numbers, rendered, (base, exact));
        }
        let Some((mut body, record)) = self.list_body(
            list,
            base,
            rendered,
            Some((evaluated.matched, candidates.len())),
        ) else {
            return Err("unrecorded-request");
        };
        Self::set_computed_members(&mut body, model, (pairs, linked))?;
        Self::set_arithmetic_members(&mut body, model, pairs, evaluated.matched)?;
        Self::set_complete_members(
            &mut body,
            model,
            evaluated.members.len() < evaluated.matched,
        );
        let end = crate::page_cursor::PageEnd {
            model,
            expanded: pairs,
            sent: linked,
            last: evaluated.members.last().map(|index| candidates[*index]),
            remaining: evaluated.members.len() < evaluated.matched,
            matched: evaluated.matched,
        };
        let body = Self::with_cursor_members(body, model, &end)?;
        Ok(self.query_answer(record, body, (base, exact)))
    }

    /// A list line's answer computed by evaluating the call's query over the state (`query`).
    fn query_answer(
        &self,
        record: &KeptRecord,
        body: Json,
        (base, exact): (&ListLine, bool),
    ) -> StateAnswer {
        state_answer(
            record,
            body,
            self.replay().evidence_id(),
            exact,
            StateSource::state(base.path.clone(), Some("query")),
        )
    }

    /// An evaluated page rendered into its page envelope's recorded answer (see
    /// [`crate::page_envelope`]): the members and the page numbers computed for the call.
    fn paged_answer(
        &self,
        envelope: &PageEnvelope,
        numbers: &PageNumbers,
        rendered: Vec<Json>,
        (base, exact): (&ListLine, bool),
    ) -> Result<StateAnswer, &'static str> {
        let record = self
            .kept(envelope.record_ordinal)
            .ok_or("unrecorded-request")?;
        let recorded = record.json().cloned().ok_or("unrecorded-request")?;
        let body = envelope.render(recorded, rendered, numbers);
        Ok(self.query_answer(record, body, (base, exact)))
    }

    /// The build's refusal of a page past the last (see [`crate::page_past_end`]) for a call
    /// naming a page after the first whose page lists nothing (`listed` entities).
    fn past_end_answer(
        &self,
        model: &QueryModel,
        pairs: &QueryPairs,
        listed: usize,
        (base, exact): (&ListLine, bool),
    ) -> Option<StateAnswer> {
        let ordinal = model.past_end_refusal?;
        let (page, first) = crate::page_past_end::named_page(
            model,
            pairs.iter().map(|(name, value)| (name, value)),
        )?;
        if listed > 0 || page <= first {
            return None;
        }
        let record = self.kept(ordinal)?;
        let body = record.json().cloned()?;
        Some(self.query_answer(record, body, (base, exact)))
    }

    /// Sets the envelope members holding the page's offset (see
    /// [`crate::model::PagedMember::offset`]) to the offset the call asked for, 0 without one,
    /// and those holding its size ([`Self::set_size_members`]).
    fn set_offset_members(
        body: &mut Json,
        model: &QueryModel,
        pairs: &QueryPairs,
    ) -> Result<(), &'static str> {
        Self::set_size_members(body, model, pairs)?;
        if !model.paged_members.iter().any(|member| member.offset) {
            return Ok(());
        }
        let offset = match pairs
            .iter()
            .find(|(name, _)| matches!(model.role(name), Some(QueryRole::Offset)))
        {
            Some((_, value)) => value.parse().map_err(|_| "unrecorded-request")?,
            None => 0,
        };
        for member in model.paged_members.iter().filter(|member| member.offset) {
            crate::render::set_counter(body, &member.pointer, offset);
        }
        Ok(())
    }

    /// Sets the envelope members the state computes per call: the page's offset and size
    /// ([`Self::set_offset_members`], from the evaluated pairs) and the call's echo
    /// ([`Self::set_echo_members`], from the pairs as sent).
    fn set_computed_members(
        body: &mut Json,
        model: &QueryModel,
        (pairs, sent): (&QueryPairs, &QueryPairs),
    ) -> Result<(), &'static str> {
        Self::set_offset_members(body, model, pairs)?;
        Self::set_echo_members(body, model, sent);
        Ok(())
    }

    /// Sets the envelope members holding an arithmetic of the page (see
    /// [`crate::model::PagedMember::arithmetic`]): the page the call named (else the first) and
    /// the pages its `matched` entities fill at the size it named (else the default);
    /// `unrecorded-request` when the call's page or size is no whole number or no size is known.
    fn set_arithmetic_members(
        body: &mut Json,
        model: &QueryModel,
        pairs: &QueryPairs,
        matched: usize,
    ) -> Result<(), &'static str> {
        if model
            .paged_members
            .iter()
            .all(|member| member.arithmetic.is_none())
        {
            return Ok(());
        }
        let value_of = |plays: &dyn Fn(&QueryRole) -> bool| {
            (pairs.iter())
                .find(|(name, _)| model.role(name).is_some_and(plays))
                .map(|(_, value)| value.parse::<u64>().map_err(|_| "unrecorded-request"))
                .transpose()
        };
        let first = (model.parameters.values())
            .chain(model.generalized.values())
            .find_map(|role| match role {
                QueryRole::Page { base } => Some(*base),
                _ => None,
            })
            .ok_or("unrecorded-request")?;
        let page = value_of(&|role| matches!(role, QueryRole::Page { .. }))?.unwrap_or(first);
        let size = match value_of(&|role| matches!(role, QueryRole::PageSize))? {
            Some(size) => size,
            None => u64::from(model.default_page_size.ok_or("unrecorded-request")?),
        };
        for member in &model.paged_members {
            let Some(arithmetic) = member.arithmetic else {
                continue;
            };
            let value = arithmetic
                .value((page, first), size, matched as u64)
                .ok_or("unrecorded-request")?;
            crate::render::set_counter(body, &member.pointer, value as usize);
        }
        Ok(())
    }

    /// Sets the envelope members echoing the call (see [`crate::query_echo`]) to its own
    /// address, from the pairs it sent.
    fn set_echo_members(body: &mut Json, model: &QueryModel, sent: &QueryPairs) {
        for member in &model.paged_members {
            let Some(echo) = &member.echo else {
                continue;
            };
            if let Some(slot) = crate::render::pointer_mut(body, &member.pointer) {
                *slot = Json::from(crate::query_echo::render(echo, sent));
            }
        }
    }

    /// Sets the envelope members holding the page size (see
    /// [`crate::model::PagedMember::size`]) to the size the call asked for, else the default the
    /// lines giving none showed (`unrecorded-request` when none did).
    fn set_size_members(
        body: &mut Json,
        model: &QueryModel,
        pairs: &QueryPairs,
    ) -> Result<(), &'static str> {
        let size = pairs
            .iter()
            .find(|(name, _)| matches!(model.role(name), Some(QueryRole::PageSize)));
        for member in model.paged_members.iter().filter(|member| member.size) {
            match size {
                Some((_, value)) => {
                    let size: usize = value.parse().map_err(|_| "unrecorded-request")?;
                    let size = member.max.map_or(size, |max| size.min(max as usize));
                    crate::render::set_counter(body, &member.pointer, size);
                }
                None => {
                    let [default] = member.complete.as_slice() else {
                        return Err("unrecorded-request");
                    };
                    *crate::render::pointer_mut(body, &member.pointer)
                        .ok_or("unrecorded-request")? = default.clone();
                }
            }
        }
        Ok(())
    }

    /// The candidates of a query (see [`Self::query_candidates`]) with the related entities its
    /// filters read through a one-to-many member ([`crate::quantified::join_many`]) and the
    /// entities its link filters name ([`Self::link_objects`]).
    fn query_objects<'a>(
        live: &'a crate::store::LiveState,
        (tool, list, base): (&str, &ListView, &ListLine),
        model: &QueryModel,
        pairs: &QueryPairs,
    ) -> Result<(Vec<&'a Entity>, Vec<Object>), &'static str> {
        let collection = Self::query_candidates(live, list, base);
        let objects = Self::joined_objects(live, (tool, list), &collection, model, pairs)?;
        Ok((collection, objects))
    }

    /// The objects a query over `collection` reads (see [`Self::candidate_objects`]), with the
    /// related entities its filters read through a one-to-many member and the entities its link
    /// filters name.
    fn joined_objects(
        live: &crate::store::LiveState,
        (tool, list): (&str, &ListView),
        collection: &[&Entity],
        model: &QueryModel,
        pairs: &QueryPairs,
    ) -> Result<Vec<Object>, &'static str> {
        let mut objects = Self::candidate_objects(live, (tool, list), collection);
        crate::quantified::join_many(live, list, model, pairs, &mut objects);
        Self::link_objects(live, model, pairs, &mut objects)?;
        Ok(objects)
    }

    /// Whether the collection `base` reads held no entity at the start though its recorded line
    /// listed members: the list shows entities the state holds in another collection (a nested
    /// route, `/projects/1/tasks`, whose parent it does not model), so no query over it is
    /// answered from that empty collection.
    fn holds_elsewhere(&self, list: &ListView, base: &ListLine) -> bool {
        let listed = crate::derive::lists::listed_collection(&base.path, &list.entity_type);
        !base.members.is_empty()
            && self
                .initial()
                .collection(&list.entity_type, listed.as_deref().unwrap_or(&base.path))
                .is_empty()
    }

    /// The entities of the collection `base` reads, less those the lines left out.
    fn query_candidates<'a>(
        live: &'a crate::store::LiveState,
        list: &ListView,
        base: &ListLine,
    ) -> Vec<&'a Entity> {
        let listed = crate::derive::lists::listed_collection(&base.path, &list.entity_type);
        let left_out = crate::derive::list_query::left_out(&list.lines);
        let mut collection =
            live.collection(&list.entity_type, listed.as_deref().unwrap_or(&base.path));
        collection.retain(|entity| {
            !left_out.contains(&(
                crate::derive::entities::collection_key(&entity.collection).to_owned(),
                entity.id.clone(),
            ))
        });
        collection
    }

    /// The objects a query over the entities reads: each one's fields with the tool's view
    /// fields over them and the related entities the list joins.
    fn candidate_objects(
        live: &crate::store::LiveState,
        (tool, list): (&str, &ListView),
        collection: &[&Entity],
    ) -> Vec<Object> {
        collection
            .iter()
            .map(|entity| {
                let mut object = entity.fields.as_object().cloned().unwrap_or_default();
                if let Some(Json::Object(overlay)) = entity.view_fields.get(tool) {
                    for (key, value) in overlay.iter() {
                        object.insert(key, value.clone());
                    }
                }
                Self::join_related(live, list, &mut object);
                object
            })
            .collect()
    }

    /// Sets over the query's objects the values of the model's link filters (see
    /// [`crate::link_filters`]); refuses a link filter whose value names no held entity of the
    /// linked type (no recording showed what it answers), or whose member some candidate does
    /// not hold (the state cannot tell whether it matches).
    fn link_objects(
        live: &crate::store::LiveState,
        model: &QueryModel,
        pairs: &QueryPairs,
        objects: &mut [Object],
    ) -> Result<(), &'static str> {
        use crate::link_filters::{LinkField, model_links, names_held, with_links};
        // The generalized link filters the call names (a reached key, `author__born`) beside
        // the learned ones: an unnamed one would add its values to every object a search reads.
        let named = pairs
            .iter()
            .filter_map(|(name, _)| model.generalized.get(name));
        let links = model_links(model.parameters.values().chain(named));
        if links.is_empty() {
            return Ok(());
        }
        let held: Vec<&Entity> = live.entities().collect();
        for (name, value) in pairs {
            let role = model.role(name);
            if let Some(crate::model::QueryRole::Filter { field, op }) = role
                && let Some(link) = LinkField::parse(field)
                && (!names_held(&link, op, value, &held)
                    || objects
                        .iter()
                        .any(|object| object.get(&link.member).is_none()))
            {
                return Err("unrecorded-request");
            }
        }
        with_links(objects.iter_mut(), &links, &held);
        Ok(())
    }

    /// Sets over a query's object the entity each many-to-one join of the list names (see
    /// [`crate::query::JOINED`]), so filters and sorts read its fields through the member.
    fn join_related(live: &crate::store::LiveState, list: &ListView, object: &mut Object) {
        for join in &list.joins {
            if !matches!(join.link, crate::relations::Link::Parent { .. }) {
                continue;
            }
            if let Some(related @ Json::Object(_)) = join.value_for(object, &join.collection, live)
            {
                object.insert(crate::query::joined_member(&join.member), related);
            }
        }
    }

    /// The body with each envelope member naming the page's position by the keyset cursor set.
    fn with_cursor_members(
        mut body: Json,
        model: &QueryModel,
        end: &crate::page_cursor::PageEnd<'_>,
    ) -> Result<Json, &'static str> {
        for member in &model.cursor_members {
            let value = end.minted(&member.form).ok_or("unrecorded-request")?;
            body = crate::flat_links::set(body, member, value).ok_or("unrecorded-request")?;
        }
        Ok(body)
    }

    /// Whether some checked line listed the whole collection `base` reads (a whole line, or one
    /// the query model answers whose parameters only sort it): else the state
    /// holds only the members some recorded query selected, and another query over them would
    /// leave out members no recording showed.
    fn seen_whole(list: &ListView, base: &ListLine) -> bool {
        let segments: Vec<CompactString> = split_path(&base.path)
            .into_iter()
            .map(CompactString::from)
            .collect();
        let only_sorts = |line: &ListLine| {
            let Some(model) = &list.query else {
                return false;
            };
            model.record_ordinals.contains(&line.record_ordinal)
                && line.query.iter().flatten().all(|(name, _)| {
                    matches!(model.role(name), Some(QueryRole::Sort | QueryRole::Order))
                })
        };
        list.lines.iter().any(|line| {
            (line.whole || only_sorts(line)) && segments_match(&split_path(&line.path), &segments)
        })
    }

    /// The entry a folder listing shows for the call's path (see [`crate::entries`]), unless a
    /// served write changed what the view shows.
    fn answer_entry(
        &self,
        tool: &str,
        template: &str,
        call: &Call,
        stale: bool,
    ) -> Option<StateAnswer> {
        if stale {
            return None;
        }
        let path = format!("/{}", call.segments(template).join("/"));
        let pairs = call.pairs();
        let (entries, entry) = self
            .derived()
            .folder_entries
            .iter()
            .filter(|entries| entries.tool == tool)
            .find_map(|entries| Some((entries, entries.entry_for(&path, &pairs)?)))?;
        let base = self.kept(entries.base_ordinal)?;
        let body =
            crate::render::with_value_at(base.json().cloned()?, &entries.pointer, entry.clone());
        Some(state_answer(
            base,
            body,
            self.replay().evidence_id(),
            false,
            StateSource::state(path, None),
        ))
    }

    fn answer_document(
        &self,
        tool: &str,
        template: &str,
        document: &DocumentView,
        call: &Call,
    ) -> Result<StateAnswer, &'static str> {
        let segments = call.segments(template);
        let named = document.lines().find(|(path, _)| {
            segments_match(&split_path(path), &segments)
                && same_pairs(document.query.as_ref(), &call.pairs())
        });
        // A document the recordings show argument-free answers every path of its template.
        let (named, exact) = match named {
            Some(named) => (Some(named), true),
            None => (self.argument_free_line(tool, document, call), false),
        };
        let Some((path, record_ordinal)) = named else {
            return self
                .answer_composed(tool, template, document, call)
                .ok_or("unrecorded-request");
        };
        if document.unmodelled_after_writes && self.written_any() {
            return Ok(self.recording(tool, template, call, "unmodelled-after-write", true));
        }
        let live = self.read();
        let Some(held) = live.document(tool, path) else {
            return Ok(tool_error(
                "not_found",
                "the state holds no value for this document",
            ));
        };
        let Some(base) = self.kept(record_ordinal) else {
            return Err("unrecorded-request");
        };
        let body = with_recorded_members(document, held.value.clone(), base.json());
        Ok(state_answer(
            base,
            body,
            self.replay().evidence_id(),
            exact,
            StateSource::state(path.to_owned(), None),
        ))
    }

    /// A keyed document view's document a served create composed for the entity it made (see
    /// [`crate::writes::composed`]), at the call's path, read without a query; `None` when the
    /// state holds none there.
    fn answer_composed(
        &self,
        tool: &str,
        template: &str,
        document: &DocumentView,
        call: &Call,
    ) -> Option<StateAnswer> {
        if !document.is_keyed() || !call.pairs().is_empty() {
            return None;
        }
        let path = format!("/{}", call.segments(template).join("/"));
        let value = self.read().document(tool, &path)?.value.clone();
        let base = self.kept(document.record_ordinal)?;
        let body = with_recorded_members(document, value, base.json());
        Some(state_answer(
            base,
            body,
            self.replay().evidence_id(),
            false,
            StateSource::state(path, None),
        ))
    }

    /// A keyed document view's call giving a parameter that slices a member of it (see
    /// [`crate::sliced`]): the live document of the call's path (a recorded line's, or one a
    /// served create composed), that member from the given index on; `None` when the call's
    /// other pairs are not the view's query, the state holds no such document, or the view
    /// answers its recordings after a write.
    fn answer_sliced_document(
        &self,
        tool: &str,
        template: &str,
        document: &DocumentView,
        call: &Call,
    ) -> Option<StateAnswer> {
        let (sliced, start, rest) = self.sliced_call(tool, call)?;
        if !same_pairs(document.query.as_ref(), &rest)
            || (document.unmodelled_after_writes && self.written_any())
        {
            return None;
        }
        let segments = call.segments(template);
        let (path, record_ordinal, exact) = match document
            .lines()
            .find(|(path, _)| segments_match(&split_path(path), &segments))
        {
            Some((path, record_ordinal)) => (path.to_owned(), record_ordinal, true),
            // A document a served create composed (see `crate::writes::composed`).
            None => (
                format!("/{}", segments.join("/")),
                document.record_ordinal,
                false,
            ),
        };
        let value = self.read().document(tool, &path)?.value.clone();
        let base = self.kept(record_ordinal)?;
        let whole = with_recorded_members(document, value, base.json());
        let body = crate::sliced::slice(&whole, &sliced.member, start)?;
        Some(state_answer(
            base,
            body,
            self.replay().evidence_id(),
            exact,
            StateSource::state(path, None),
        ))
    }

    /// A document view's answer: a keyed view's missing or sliced answer, else the document
    /// the call's line names, else the folder listing or the recording.
    fn answer_document_view(
        &self,
        tool: &str,
        template: &str,
        document: &DocumentView,
        call: &Call,
        (exact, stale): (bool, bool),
    ) -> StateAnswer {
        self.answer_keyed(tool, template, document, call, (exact, stale))
            .map_or_else(|| self.answer_document(tool, template, document, call), Ok)
            .or_else(|reason| {
                let unknown = self.listing_order_unknown(template, call);
                self.answer_listing(template, call).ok_or(if unknown {
                    "listing-order"
                } else {
                    reason
                })
            })
            .unwrap_or_else(|reason| self.recording(tool, template, call, reason, stale))
    }

    /// A keyed document view's answer before its documents (see
    /// [`crate::derive::documents`]): the recorded missing answer for an id the live collection
    /// of its entity lacks ([`crate::absent`]), and a sliced member of a line read with a
    /// query ([`crate::sliced`]); `None` for a view read on one line, or to answer the document.
    fn answer_keyed(
        &self,
        tool: &str,
        template: &str,
        document: &DocumentView,
        call: &Call,
        (exact, stale): (bool, bool),
    ) -> Option<StateAnswer> {
        if !document.is_keyed() {
            return None;
        }
        self.answer_absent(tool, template, call, exact)
            .or_else(|| self.answer_sliced_document(tool, template, document, call))
            .or_else(|| self.answer_sliced(tool, template, call, stale))
    }
}

/// A document's value with the top-level members each response mints as its recording showed
/// them.
fn with_recorded_members(document: &DocumentView, mut body: Json, recorded: Option<&Json>) -> Json {
    if let (Json::Object(value), Some(Json::Object(recorded))) = (&mut body, recorded) {
        for member in &document.per_response_members {
            let name = member
                .trim_start_matches('/')
                .replace("~1", "/")
                .replace("~0", "~");
            if let Some(kept) = recorded.get(&name) {
                value.insert(name, kept.clone());
            }
        }
    }
    body
}

/// A list view showing the fields a selection names that its plain reads leave out (see
/// [`crate::derive::lists::unhidden`]); `None` when it hides none of them.
fn shown_selected(
    view: &crate::model::ReadView,
    fields: &[String],
) -> Option<crate::model::ReadView> {
    let ViewDetail::List(list) = &view.detail else {
        return None;
    };
    if !list
        .shape
        .hidden_fields
        .iter()
        .any(|hidden| fields.contains(hidden))
    {
        return None;
    }
    let mut shown = view.clone();
    if let ViewDetail::List(list) = &mut shown.detail {
        list.shape = crate::derive::lists::unhidden(&list.shape, fields);
    }
    Some(shown)
}

/// Sets the envelope members beside an item's entity that echo its identity
/// ([`ItemView::identity_echoes`]) to the identity of the entity answered.
fn set_identity_echoes(body: &mut Json, item: &ItemView, rendered: &Json) {
    if item.identity_echoes.is_empty() {
        return;
    }
    let Some(identity) = crate::render::identity_value(rendered, &item.identity_field) else {
        return;
    };
    for echo in &item.identity_echoes {
        if let Some(slot) = crate::render::pointer_mut(body, echo) {
            *slot = identity.clone().into_owned();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{collection_segments, restates_pairs, segments_match};
    use crate::call::Call;

    #[test]
    fn the_root_collection_matches_a_one_segment_item_path() {
        // `/date-helpers` names an entity of the root collection: no collection segments.
        assert!(collection_segments("/").is_empty());
        assert!(segments_match(&collection_segments("/"), &[]));
        assert!(!segments_match(
            &collection_segments("/"),
            &["library".into()]
        ));
        // Any other collection keeps its segments, as written or decoded.
        assert_eq!(collection_segments("/library"), vec!["library"]);
        assert!(segments_match(
            &collection_segments("/@corp%2fui-kit"),
            &["@corp/ui-kit".into()]
        ));
        assert!(!segments_match(&collection_segments("/library"), &[]));
    }

    #[test]
    fn a_call_restates_an_answer_when_each_restating_pair_is_its_member() {
        let folder =
            rea_plugin_api::json::parse(br#"{"type":"directory","format":"json","content":[]}"#)
                .expect("JSON");
        let restated = ["type".to_owned(), "format".to_owned()];
        let call = |pairs: &[(&str, &str)]| Call {
            query: pairs
                .iter()
                .map(|(name, value)| ((*name).to_owned(), vec![(*value).to_owned()]))
                .collect(),
            ..Call::default()
        };
        assert!(restates_pairs(
            &restated,
            &call(&[("type", "directory")]),
            &folder
        ));
        assert!(restates_pairs(
            &restated,
            &call(&[("type", "directory"), ("format", "json")]),
            &folder
        ));
        // Another value, or one the answer has no member for, does not restate it.
        assert!(!restates_pairs(
            &restated,
            &call(&[("type", "file")]),
            &folder
        ));
        let bare = rea_plugin_api::json::parse(br#"{"content":[]}"#).expect("JSON");
        assert!(!restates_pairs(
            &restated,
            &call(&[("type", "directory")]),
            &bare
        ));
        // A parameter that is not restating is left to the other checks.
        assert!(restates_pairs(&restated, &call(&[("hash", "1")]), &folder));
    }
}

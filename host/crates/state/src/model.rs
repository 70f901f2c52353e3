//! The environment state view: what the state Evidence holds.
//!
//! The format is rea's own; it keeps every member the reference names. Sealed as Evidence (see
//! [`crate::evidence`]) it reads:
//!
//! ```text
//! operation            "inspect_analysis_view"
//! view                 "environment-state"
//! schema_version       1
//! parameters           {"view": {"kind": "environment-state", "template_rules": […]}}
//! parent_evidence_id   the capture Evidence id
//! manifest_evidence_id the manifest the same capture and rules project (its tools are the views')
//! template_rules       the rules, in the views' fixed order
//! record_order         "start-instant" | "record-order"
//! first_write_ordinal  the first successful write of any kind (the replay of writes starts there),
//!                      or null
//! related_writes       every successful write from there on and what it relates to (a type, one
//!                      collection of a type, a document, or `all`): each read's observation window
//!                      ends at the first write related to what it shows (see
//!                      [`crate::derive::windows`])
//! write_clock          the served writes' clock start (`YYYY-MM-DDTHH:MM:SSZ`, the end of the
//!                      capture rounded up to a whole second), or null (see [`crate::instant`])
//! rule_stages          the rule stages the write plans were learned with, in pipeline order
//! query_grammars       the query grammars the list queries were extended with, in pipeline order
//!                      (absent: the built-in default, `field-affixes` of `rea-query-grammar`)
//! types                [{collection_template, identity_field, item_view, deleted_flag}]
//! entities             [{type, collection, id, fields, view_fields?, record_ordinals}]  (state order)
//! documents            [{view, path, value, record_ordinal}]
//! views                one per read tool (manifest order): {tool, method, path_template, kind, …}
//! write_plans          one per write tool (manifest order): served, or withheld with a reason
//!                      (see [`crate::writes::model`])
//! draw_seed            what served writes' generated values derive from: the id the state
//!                      seals with its two parent ids and this member left out, free of the
//!                      capture file's path
//! ```
//!
//! A view's `kind` is `item`, `list`, `document` or `recorded` (with a `reason`); see
//! [`ViewDetail`]. Every list has a defined order, every map is a `BTreeMap`, so the same capture
//! and rules always seal the same id.
//!

use std::collections::BTreeMap;
use std::sync::Arc;

use rea_plugin_api::json::Json;
use serde::{Deserialize, Serialize};

use crate::observation::RecordOrder;

/// The view kind of the state.
pub const STATE_VIEW_KIND: &str = "environment-state";

/// The state Evidence layout version.
pub const STATE_SCHEMA_VERSION: u64 = 1;

/// The derived state.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StateView {
    /// Documents: reads that are not entities, one per document view.
    pub documents: Vec<Document>,
    /// Entities, in state order (the order lists render them in). Shared with the served state's
    /// live and initial copies ([`crate::store::LiveState::from_shared`]): a service holds each
    /// derived entity once. Written and read as a plain array of entities.
    #[serde(with = "shared_entities")]
    pub entities: Vec<Arc<Entity>>,
    /// The first successful write's ordinal (the replay of writes starts there).
    pub first_write_ordinal: Option<u64>,
    /// Every successful write from the first on, with what it relates to, in record order.
    pub related_writes: Vec<RelatedWrite>,
    /// The manifest Evidence id the same capture and rules project.
    pub manifest_evidence_id: String,
    /// The capture Evidence id.
    pub parent_evidence_id: String,
    /// How records were ordered in time.
    pub record_order: RecordOrder,
    /// The template rules, in their fixed order.
    pub template_rules: Vec<String>,
    /// The entity types.
    pub types: Vec<EntityType>,
    /// One view per read tool, in manifest order.
    pub views: Vec<ReadView>,
    /// The clock served writes start from.
    pub write_clock: Option<String>,
    /// The rule stages the write plans were learned with.
    pub rule_stages: Vec<crate::rules::RuleStageRef>,
    /// The query grammars the list queries were extended with, in pipeline order; left out when
    /// they are the built-in default, so a state derived with the default keeps its id.
    #[serde(
        default = "crate::rules::default_query_grammar_refs",
        skip_serializing_if = "crate::rules::is_default_query_grammars"
    )]
    pub query_grammars: Vec<crate::rules::QueryGrammarRef>,
    /// One plan per write tool, in manifest order.
    pub write_plans: Vec<crate::writes::model::WritePlan>,
    /// The entries folder listings show, per read tool answering from its recordings (see
    /// [`crate::entries`]); left out when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub folder_entries: Vec<crate::entries::FolderEntries>,
    /// The sparse fieldset the list reads taught ([`crate::sparse`]), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sparse: Option<crate::sparse::SparseFields>,
    /// The reference expansion the item reads taught ([`crate::expansion`]), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expansion: Option<crate::expansion::ReferenceExpansion>,
    /// The parameters choosing the relation an entity type's answers embed
    /// ([`crate::chosen_relations`]); left out when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chosen_relations: Vec<crate::chosen_relations::ChosenRelation>,
    /// The compound documents the list and item reads taught ([`crate::compound`]), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compound: Option<crate::compound::CompoundDocuments>,
    /// The sideloaded records the list and item reads taught ([`crate::sideloads`]), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sideloads: Option<crate::sideloads::Sideloads>,
    /// The to-one related routes the reads taught ([`crate::related_routes`]); left out when
    /// none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub related_routes: Vec<crate::related_routes::RelatedRoute>,
    /// The relationship linkage routes the reads taught ([`crate::linkage_routes`]); left out
    /// when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub linkage_routes: Vec<crate::linkage_routes::LinkageRoute>,
    /// The inverse linkages' arrays a read after a write showed a joining child put last
    /// ([`crate::inverse::appended`]); left out when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub appended_lists: Vec<crate::inverse::AppendedList>,
    /// The item envelopes' member echoing a call's path and query ([`crate::request_echo`]), if
    /// any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_echo: Option<String>,
    /// The constant text the request echo shows before the call's line: an origin, or nothing
    /// ([`crate::request_echo::Echo::prefix`]).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub request_echo_prefix: String,
    /// The folder listings composed from those entries (see [`crate::listings`]); left out when
    /// none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub folder_listings: Vec<crate::listings::FolderListing>,
    /// The writes of folder trees learned from the listings' entries (see
    /// [`crate::tree_writes`]); left out when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tree_writes: Vec<crate::tree_writes::TreeWrites>,
    /// The recorded read tools that answer their recorded missing answer for an entity the live
    /// state lacks (see [`crate::absent`]); left out when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub absent_answers: Vec<crate::absent::AbsentAnswer>,
    /// The list read tools that answer their recorded refusal of a query naming a field their
    /// entities do not hold (see [`crate::query_refusals`]), or a word the application does not
    /// allow (see [`crate::operator_refusals`]); left out when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub query_refusals: Vec<crate::query_refusals::QueryRefusal>,
    /// The recorded read tools that answer the state before the capture's creates (see
    /// [`crate::created`]); left out when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub created_reads: Vec<crate::created::CreatedRead>,
    /// The recorded read tools' query parameters that slice a member array of their answers
    /// (see [`crate::sliced`]); left out when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sliced_members: Vec<crate::sliced::SlicedMember>,
    /// The store counters the capture shows (see [`crate::counters`]); left out when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub store_counters: Vec<crate::counters::StoreCounter>,
    /// What the values served writes generate derive from: the id the state seals with no parent
    /// Evidence id (see [`crate::evidence::draw_seed`]), so a recording generates the same values
    /// wherever its file is stored (the capture Evidence names the file's path). Left out when
    /// empty (a state from before it, whose writes draw from the state Evidence id).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub draw_seed: String,
}

/// A successful write and what it relates to: the reads of what it relates to end their
/// observation window at it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RelatedWrite {
    /// The write's record.
    pub ordinal: u64,
    /// Its tool.
    pub tool: String,
    /// What it relates to.
    pub scope: WriteScope,
}

/// What a write relates to (or what a read shows).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum WriteScope {
    /// Everything: a write whose effect the state does not model (no target, an unmodelled side
    /// effect, no answer), or a read no item, list or document view explains.
    All,
    /// The entities of a type: those of one collection (as a key: a single trailing slash
    /// dropped), or of every collection when `collection` is null.
    Type {
        /// The type's collection template.
        #[serde(rename = "type")]
        entity_type: String,
        /// The collection key, when one collection.
        collection: Option<String>,
        /// The one entity of that collection (its identity, decoded), when a write changes only
        /// the entity its path names (a member write) or a read shows only the entity its path
        /// names (an item or member read by path); every entity of the collection when null.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        entity: Option<String>,
    },
    /// A document view's document.
    Document {
        /// The document view.
        document: String,
    },
}

/// An entity type: a collection template and the field whose value names an entity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntityType {
    /// The collection template (`/posts`, `/v1/buckets/workspace/collections/{prefix-variance}/records`).
    pub collection_template: String,
    /// The member a read by id echoes the id in (or a JSON pointer, `/info/run_id`, for an
    /// identity nested in the entity).
    pub identity_field: String,
    /// The item view (`GET …/{id}`) that reads it, when there is one.
    pub item_view: Option<String>,
    /// The member item reads set `true` on a record the application soft-deleted, when known.
    pub deleted_flag: Option<String>,
    /// A recorded write changed entities of this type that no write tool writes (rows of an
    /// index or a changes feed of the written documents, a parent's counts): the confirming
    /// replay did not charge that to the write, and the type's views answer not modelled once a
    /// served write changed anything (they would show what the state held before it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unmodelled_after_writes: bool,
    /// Its entities are folders listing their children by path, and a recorded write of a
    /// child changed its folder's listing (the child's entry, the folder's stamps) as the state
    /// does not model: the confirming replay did not charge that to the write, and a read of a
    /// folder at or above a collection a served write changed answers not modelled.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub folder_listings_after_writes: bool,
    /// The members of its folders a write below them stamps with the write's clock, and the
    /// clock format they show (see [`crate::folder_compose`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub folder_stamps: BTreeMap<String, String>,
}

impl EntityType {
    /// A type of `collection_template` named by `identity_field`, read by `item_view` when there
    /// is one: no deleted flag known, and nothing writes change unmodelled yet.
    pub fn new(
        collection_template: String,
        identity_field: String,
        item_view: Option<String>,
    ) -> Self {
        Self {
            collection_template,
            identity_field,
            item_view,
            deleted_flag: None,
            unmodelled_after_writes: false,
            folder_listings_after_writes: false,
            folder_stamps: BTreeMap::new(),
        }
    }
}

/// An entity: its type, the collection it lives in (spelled as requests spell it), its id, and
/// its recorded values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entity {
    /// The type's collection template.
    #[serde(rename = "type")]
    pub entity_type: String,
    /// The collection path as recorded requests spell it.
    pub collection: String,
    /// The identity field's value, as text.
    pub id: String,
    /// The recorded values (a JSON object).
    pub fields: Json,
    /// Per view (item or list views of the type), the members that view shows otherwise than
    /// the fields do (rendered over them).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub view_fields: BTreeMap<String, Json>,
    /// The records the values come from, ascending.
    pub record_ordinals: Vec<u64>,
}

/// A document: the value a `document` view answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Document {
    /// The document view (tool) it belongs to.
    pub view: String,
    /// The path of its checked line.
    pub path: String,
    /// The value.
    pub value: Json,
    /// The record it comes from (`None` once edited or loaded without citation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record_ordinal: Option<u64>,
}

/// One read tool's view.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ReadView {
    /// The tool name.
    pub tool: String,
    /// The method as recorded.
    pub method: String,
    /// The path template.
    pub path_template: String,
    /// What the view is.
    #[serde(flatten)]
    pub detail: ViewDetail,
}

impl ReadView {
    /// `item`, `list`, `body-query`, `document`, `member`, `count`, `id-map` or `recorded`.
    pub fn kind(&self) -> &'static str {
        match self.detail {
            ViewDetail::Item(_) => "item",
            ViewDetail::List(_) => "list",
            ViewDetail::BodyQuery(_) => "body-query",
            ViewDetail::Document(_) => "document",
            ViewDetail::Member(_) => "member",
            ViewDetail::Count(_) => "count",
            ViewDetail::IdMap(_) => "id-map",
            ViewDetail::Recorded { .. } => "recorded",
        }
    }

    /// The reason of a recorded view.
    pub fn reason(&self) -> Option<&str> {
        match &self.detail {
            ViewDetail::Recorded { reason } => Some(reason),
            _ => None,
        }
    }

    /// A list view and its query model; `None` for another view or a list without one.
    pub fn list_query(&self) -> Option<(&ListView, &QueryModel)> {
        match &self.detail {
            ViewDetail::List(list) => Some((list, list.query.as_ref()?)),
            _ => None,
        }
    }

    /// A list view's query model, to change; `None` for another view or a list without one.
    pub fn list_query_mut(&mut self) -> Option<&mut QueryModel> {
        match &mut self.detail {
            ViewDetail::List(list) => list.query.as_mut(),
            _ => None,
        }
    }

    /// The render shape of an item or list view.
    pub fn shape(&self) -> Option<&ViewShape> {
        match &self.detail {
            ViewDetail::Item(item) => Some(&item.shape),
            ViewDetail::List(list) => Some(&list.shape),
            _ => None,
        }
    }

    /// Where an item or list view's answers show its objects: the item's entity pointer, the
    /// list's pointer.
    pub fn shown_pointer(&self) -> Option<&str> {
        match &self.detail {
            ViewDetail::Item(item) => Some(&item.entity_pointer),
            ViewDetail::List(list) => Some(&list.list_pointer),
            _ => None,
        }
    }

    /// The entity type an item or list view renders (an item route under a parent: the type it
    /// reads, see [`crate::parent_items`]).
    pub fn entity_type(&self) -> Option<&str> {
        match &self.detail {
            ViewDetail::Item(item) => Some(match &item.parent {
                Some(parent) => &parent.entity_type,
                None => &item.entity_type,
            }),
            ViewDetail::List(list) => Some(&list.entity_type),
            ViewDetail::BodyQuery(query) => Some(&query.entity_type),
            ViewDetail::Member(member) => Some(&member.entity_type),
            ViewDetail::Count(count) => Some(&count.entity_type),
            ViewDetail::IdMap(map) => Some(&map.entity_type),
            _ => None,
        }
    }
}

/// The kind of a view and what it needs to render.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ViewDetail {
    /// Reads one entity by the last path argument.
    Item(ItemView),
    /// Reads a list of entities.
    List(ListView),
    /// Reads a list of entities selected by its request body (see [`BodyQueryView`]).
    BodyQuery(BodyQueryView),
    /// Reads one document.
    Document(DocumentView),
    /// Reads a member of a held entity (see [`MemberView`]).
    Member(MemberView),
    /// Counts what a sibling list selects (see [`crate::count_views`]).
    Count(Box<crate::count_views::CountView>),
    /// Maps a type's ids to one of its members (see [`crate::id_maps`]).
    IdMap(Box<crate::id_maps::IdMapView>),
    /// Answers from the recordings.
    Recorded {
        /// Why: `no-view`, `list-differs`, `item-differs`, `document-differs`,
        /// `rendered-oversize`, `query-body`, `method-replay`, `query-varies`, `path-varies`.
        reason: String,
    },
}

/// How a view shows an entity's fields.
///
/// Rendering takes the entity's fields, drops `hidden_fields`, shows each `nested_fields` object
/// with those keys only, lists each `sorted_arrays` string array sorted, respells each
/// `clock_formats` clock, shows each `linked_ids` record as its key's value, shows the members
/// of each `lifted_fields` object at the top level, and finally sets the entity's `view_fields`
/// for the view over the result.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewShape {
    /// Fields the view does not show.
    pub hidden_fields: Vec<String>,
    /// Fields every recording of the view carried: an entity lacking one is not rendered.
    pub required_fields: Vec<String>,
    /// Clock fields the view spells otherwise than the stored value: field → format.
    pub clock_formats: BTreeMap<String, String>,
    /// Object fields the view shows with fewer keys: field → the keys shown.
    pub nested_fields: BTreeMap<String, Vec<String>>,
    /// String-array fields the view lists sorted.
    pub sorted_arrays: Vec<String>,
    /// Object fields (hidden themselves) whose members the view shows at the top level, where no
    /// field of the same name is (a list flattening each member's `fields` object).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lifted_fields: Vec<String>,
    /// Link members the view shows as one scalar of the linked record where the entity stores
    /// the whole record: field → the record's key shown (a relation list showing `"project": 5`
    /// where the entity, as its own reads show it, embeds the project).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub linked_ids: BTreeMap<String, String>,
}

/// How an item view's calls name their entity.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ItemKey {
    /// The last path segment holds the identity (`GET /posts/{id}`).
    #[default]
    Path,
    /// A query parameter holds the value of a field: the identity
    /// (`GET /api/2.0/mlflow/runs/get?run_id=…`), or another field the view looks the entity up
    /// by (`…/experiments/get-by-name?experiment_name=…` names an experiment by `name`). The
    /// path without its last segment is the collection.
    Query {
        /// The query parameter.
        parameter: String,
        /// The field it names (a member, or a JSON pointer for a nested one).
        field: String,
    },
}

impl ItemKey {
    /// Whether the last path segment names the entity.
    pub fn is_path(&self) -> bool {
        matches!(self, ItemKey::Path)
    }
}

/// An item view.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ItemView {
    /// The entity type.
    #[serde(rename = "type")]
    pub entity_type: String,
    /// The identity field (a member, or a JSON pointer for an identity nested in the entity).
    pub identity_field: String,
    /// How calls name the entity (omitted for the last path segment).
    #[serde(default, skip_serializing_if = "ItemKey::is_path")]
    pub key: ItemKey,
    /// Where the entity sits in the envelope (`""`: the body is the entity; `/data`: one down).
    pub entity_pointer: String,
    /// The record whose envelope answers are rendered into.
    pub envelope_ordinal: u64,
    /// The latest recorded `400`/`404`/`410` of the tool, or another client error reading a path
    /// a recorded delete removed, which answers a missing entity.
    pub missing_ordinal: Option<u64>,
    /// The recorded client error answering an id of a form no held id of the type has, where
    /// the missing answer names one of a held form (see [`crate::id_forms`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub malformed_ordinal: Option<u64>,
    /// The checked records (latest per request line in the observation window).
    pub checked_ordinals: Vec<u64>,
    /// Envelope members (pointers) whose value each response minted: they keep the recorded
    /// value.
    pub per_response_members: Vec<String>,
    /// Query keys whose recorded reads show the entity in another representation, each with its
    /// reason (`projection` or `variant`): a parameter (`name`), a value of one (`name=value`),
    /// or a parameter every other line named (`!name`); and the parameters the tool took from a
    /// query family, which no read of it shows (`shared-query`). A call naming the parameter,
    /// giving the value, or leaving the parameter out replays its recording.
    pub projected_query_keys: BTreeMap<String, String>,
    /// The checked reads that asked for some fields only (a field-selection parameter such as
    /// `_fields`) and showed the entity with those fields.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub projected_record_ordinals: Vec<u64>,
    /// The field selections those reads made, and the fields each showed: a call making one of
    /// them answers the entity with those fields; one asking for another selection replays its
    /// recording (`projection`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub projections: Vec<Projection>,
    /// Query parameters the checked reads named only to restate the entity they answered (each a
    /// top-level member holding the value given: `?type=file&format=text`): a call naming one
    /// answers the entity when the live entity holds the value it gives, and its recording
    /// otherwise (`unrestated-query`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub restated_query: Vec<String>,
    /// Query parameters the capture shows changing nothing of the answer (a read naming them
    /// answered as the plain read of its path did: `?write=true`; see
    /// [`crate::derive::items::neutral_names`]): a read naming only these shows the entity.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub neutral_query: Vec<String>,
    /// How the entity object nests the entity's properties in one member, the state holding the
    /// entity flat (see [`crate::nesting`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nesting: Option<crate::nesting::Nesting>,
    /// Envelope members beside the entity that echo its identity (`/id` of `{"id": 1, "result":
    /// {"id": 1, …}}`): set to the identity of the entity answered.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub identity_echoes: Vec<String>,
    /// Query pairs whose answer shows a digest of a member's text (see [`crate::digests`]): a
    /// call naming one the view would otherwise replay answers the entity with the digest.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub digests: Vec<crate::digests::DigestQuery>,
    /// The field selection the state's checked reads taught, when the tool takes its parameter
    /// (see [`crate::selection`]): a call selecting other fields answers with those.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selection: Option<crate::selection::FieldSelection>,
    /// The queries showing related entities in one member that its reads taught (see
    /// [`crate::relations`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub relations: Vec<crate::relations::Relation>,
    /// The members its entities name related entities by, for query paths through them (see
    /// [`crate::joins`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub joins: Vec<crate::relations::Relation>,
    /// The members it shows as link objects filled from the entities they name (see
    /// [`crate::embedded_links`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub embedded_links: Vec<crate::embedded_links::EmbeddedLink>,
    /// Where a route under a parent reads its entities (see [`crate::parent_items`]); `None`:
    /// in its own collections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<crate::parent_items::ItemParent>,
    /// How the view shows fields.
    pub shape: ViewShape,
}

/// A field selection a checked read made, and the fields it showed (in the recorded order).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Projection {
    /// The field-selection query pairs.
    pub query: Vec<(String, String)>,
    /// The fields shown.
    pub fields: Vec<String>,
}

/// A list view.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ListView {
    /// The entity type of its members.
    #[serde(rename = "type")]
    pub entity_type: String,
    /// Where the array sits (`""`: the body is the array; `/data`: one down).
    pub list_pointer: String,
    /// The checked lines (latest recordings per request line in the observation window).
    pub lines: Vec<ListLine>,
    /// Envelope members (pointers) counting the members listed.
    pub counters: Vec<String>,
    /// Envelope members (pointers) listing the identities of the members listed, in order
    /// (see [`crate::identity_lists`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub identity_lists: Vec<String>,
    /// The query model learned from the recordings, when one reproduced them.
    pub query: Option<QueryModel>,
    /// Envelope members (pointers) whose value each response minted.
    pub per_response_members: Vec<String>,
    /// Query keys whose recorded reads show the members in another representation (as for
    /// [`ItemView::projected_query_keys`]).
    pub projected_query_keys: BTreeMap<String, String>,
    /// The checked lines that asked for some fields only (see [`ListLine::projection`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub projected_record_ordinals: Vec<u64>,
    /// Query parameters the tool took from a query family whose item views under this list's
    /// path learned them as restating the entity ([`ItemView::restated_query`]): a call naming
    /// one answers the list where the answer's top-level member of that name holds the value it
    /// gives (a folder model's `type=directory`), and its recording otherwise
    /// (`unrestated-query`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub restated_query: Vec<String>,
    /// The field selection the state's checked reads taught (as [`ItemView::selection`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selection: Option<Box<crate::selection::FieldSelection>>,
    /// The selection of the fields to leave out the state's checked reads taught (a
    /// [`crate::selection::FieldSelection::excludes`] rule), beside a selection of the fields
    /// to show.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclusion: Option<Box<crate::selection::FieldSelection>>,
    /// The queries showing related entities in one member of each listed entity (as
    /// [`ItemView::relations`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub relations: Vec<crate::relations::Relation>,
    /// The members its entities name related entities by (as [`ItemView::joins`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub joins: Vec<crate::relations::Relation>,
    /// For a list under a parent (`/posts/{id}/comments`), the member its entities hold the
    /// parent in (see [`crate::relations::ParentSegment`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<crate::relations::ParentSegment>,
    /// The second answer shape a call paging by page number takes (see
    /// [`crate::page_envelope`]), when the reads holding the list elsewhere taught it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_envelope: Option<Box<crate::page_envelope::PageEnvelope>>,
    /// How the view shows fields.
    pub shape: ViewShape,
}

/// A read whose query is its request body (an RPC-style search: a Mango selector, a search
/// request with a filter, order and page size): the pipeline's query grammars read each body into
/// terms (`split_body`), which the state evaluates over the entities of one type held in the
/// collection the call's path lies under. Kept only when evaluating every checked recording's
/// body reproduces its answer; a body no grammar reads answers the recording of that very body
/// or the `not_modelled` refusal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BodyQueryView {
    /// The entity type of its members.
    #[serde(rename = "type")]
    pub entity_type: String,
    /// The top-level member holding the list.
    pub list_member: String,
    /// Its place among the envelope members (the index of the first member after it).
    pub list_position: usize,
    /// The order of a body that sorts nothing (see [`DefaultOrder`]).
    pub default_order: DefaultOrder,
    /// The envelope members besides the list, in the recorded order.
    pub envelope: Vec<BodyEnvelopeMember>,
    /// Whether a recording showed a page that left matches out (otherwise the envelope of such a
    /// page is unknown, and a call whose page leaves matches out is not modelled).
    pub partial_pages: bool,
    /// How the page token of a page leaving matches out is minted, when every recorded such page
    /// showed it as the base64 of one text holding the next page's offset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_token: Option<PageToken>,
    /// The record whose status and headers answers take.
    pub record_ordinal: u64,
    /// The checked recordings the view reproduces.
    pub record_ordinals: Vec<u64>,
    /// The list member is absent when nothing is listed (every recording listing nothing
    /// lacked it), as an encoding leaving out an empty list does.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub omit_empty_list: bool,
    /// For a type seeded from the view's own answers (see
    /// [`crate::derive::body_queries::seed`]): the members its entities held where the answers
    /// listed them whole. A listed entity lacking one that the call's selection keeps was only
    /// ever seen projected, so the call is not modelled.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub whole_members: Vec<String>,
    /// The fields the query grammars read as bytes in an encoding in the recorded bodies
    /// (field → encoding, `base64`): a write storing a value there that does not decode is not
    /// modelled (`writes/encoded_members.rs`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub encoded_fields: BTreeMap<String, String>,
}

/// A page token learned from a body query's recorded pages: the standard base64 of `prefix`,
/// the next page's offset in decimal, then `suffix` (`{"offset": 3}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageToken {
    /// The envelope member holding it.
    pub member: String,
    /// The decoded text before the offset.
    pub prefix: String,
    /// The decoded text after it.
    pub suffix: String,
}

/// The order of a body query that names no sort, learned from the recordings that named none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DefaultOrder {
    /// State order.
    State,
    /// State order reversed.
    Reversed,
    /// By the identity value, ascending.
    Identity,
    /// By the identity value, descending.
    IdentityDescending,
}

/// One envelope member of a body query's answers besides the list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BodyEnvelopeMember {
    /// The member's name.
    pub member: String,
    /// Its value (the same in every recording holding it).
    pub value: Json,
    /// When the answer holds it (see [`EnvelopePresence`]).
    pub presence: EnvelopePresence,
}

/// When a body query's answer holds an envelope member.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "when", rename_all = "kebab-case")]
pub enum EnvelopePresence {
    /// Always.
    Always,
    /// Unless the body filters or sorts by one of these fields (every recording naming one
    /// lacked it; every recording holding it named none).
    UnlessNamed {
        /// The fields.
        fields: Vec<String>,
    },
    /// Exactly when the page left matches out (a page token, its value minted per answer): a
    /// call whose page leaves matches out is not modelled; the others do not hold it.
    Paged,
    /// Exactly when the page left matches out, with its recorded value (a flag such as
    /// `"more": true`, the same on every such page; never a text, which may be a token).
    LeftOut,
    /// The number of matches before paging (as decimal text when the recordings spelled it
    /// so), which every recording holding it showed with at least two different numbers.
    Matched {
        /// Spelled as decimal text.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        text: bool,
        /// Absent when nothing matched (every recording lacking it matched nothing), as an
        /// encoding leaving out a zero does.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        omit_zero: bool,
    },
}

/// One checked list line.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ListLine {
    /// The record whose envelope the line renders into.
    pub record_ordinal: u64,
    /// The recorded path.
    pub path: String,
    /// The decoded query pairs (`null` without a query).
    pub query: Option<Vec<(String, String)>>,
    /// `all`: every entity of the collection in state order; `recorded`: the recorded members
    /// still held.
    pub membership: Membership,
    /// The recorded members, for `recorded` membership.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<MemberRef>,
    /// For `all` membership: the entities the collection held that the line's read left out (the
    /// list's own filter, such as an application's system entries), never listed; every other
    /// entity, a created one too, is.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub excluded: Vec<MemberRef>,
    /// The page size the line asked for, when it only pages its list (a whole list that outgrows
    /// it answers from the recording with `page-exceeded`).
    pub page_size: Option<u64>,
    /// Whether the line only pages its list from the beginning (answers an argument-less call).
    pub whole: bool,
    /// For a line asking for some fields only (`_fields=title,status`): the fields its members
    /// showed, in the recorded order; its members render with those fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub projection: Option<Vec<String>>,
}

/// A list line's membership.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Membership {
    /// Every entity of the collection.
    All,
    /// The recorded members still held.
    Recorded,
}

/// A member of a recorded list line.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct MemberRef {
    /// The entity's collection.
    pub collection: String,
    /// The entity's id.
    pub id: String,
}

/// A list query model: parameter roles, evaluated over the state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryModel {
    /// Parameter name → role.
    pub parameters: BTreeMap<String, QueryRole>,
    /// Envelope members (pointers) holding the number matched.
    pub totals: Vec<String>,
    /// Envelope members only some recorded queries showed (such as `meta=total_count`), each
    /// counting the matches of every line showing it, none of which filtered the collection: the
    /// number matched or the collection's size, which the recordings do not tell apart. Set for
    /// a call matching the whole collection; a call that filters answers not modelled.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unfiltered_totals: Vec<String>,
    /// Envelope members only lines whose page listed every match showed, each as that number,
    /// on a line that filtered the collection (`count` of `_extra=count`): the number matched or
    /// the number listed, which the recordings do not tell apart. Set for a call whose page lists
    /// every match (where both agree); a call whose page leaves matches out answers not modelled.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub complete_totals: Vec<String>,
    /// Envelope members holding the number of members the call's collection holds, whatever
    /// the query selects or pages (`total_rows` beside a key range): every answered line showed
    /// its collection's size there, and some line showed it apart from both the number matched
    /// and the number listed. Set to the collection's size when a call is evaluated.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub collection_totals: Vec<String>,
    /// Envelope members the answered lines showed with values of their own that the state does
    /// not compute (a next-page cursor, a link to it, the last position listed): a call answers
    /// not modelled unless its own query's line was checked, or its page lists every match and
    /// its envelope line holds the one value every such page showed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paged_members: Vec<PagedMember>,
    /// Envelope members naming the page's position by the keyset cursor, minted per call.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cursor_members: Vec<CursorMember>,
    /// Whether a sort places members lacking a key (or holding `null` there) before the others
    /// ascending and after them descending, as SQLite orders NULL (else after them ascending):
    /// learned where only that placement reproduces the recorded sorted lines.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub nulls_first: bool,
    /// Whether a sort parameter may be sent repeated, its values' keys sorting in sequence, the
    /// first key first (`order_by=genre&order_by=-year`, as django-tastypie's `getlist` reads
    /// it): learned where a recorded line repeating it agrees with its keys in sequence and not
    /// with its first key alone (see [`crate::derive::repeated_sort`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub repeated_sort: bool,
    /// The page size a call naming none is cut at: the default page an argument-less read
    /// showed (see [`crate::derive::default_page`]); `None` lists every match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_page_size: Option<u32>,
    /// The sort a call naming no sort and no direction is listed in (`-id`): the descending
    /// identity order an argument-less read showed beside a default page (see
    /// [`crate::derive::default_page`]); `None` lists in the state's order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_sort: Option<Box<str>>,
    /// The key a sort breaks its ties by (`id` ascending, `-id` descending), spelled as a sort
    /// key: the identity order the recorded sorted lines showed where the state's order does not
    /// reproduce them (PiccoloCRUD's `__order` leaving ties in SQLite's rowid order beside a
    /// newest-first default list; see [`crate::derive::tie_order`]); `None` keeps ties in the
    /// state's order. Boxed text, as `default_sort`: a model is held in every list view.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tie_order: Option<Box<str>>,
    /// The page size value a recorded line showed asking for no bound (`limit=0` listing the
    /// whole collection; see [`crate::derive::default_page`]): a line sending it teaches no
    /// role, and a call sending it (spelled so: `0`, not `00`) is not evaluated, as the bound the
    /// application applies instead shows in its envelope; `None` when no line showed one. A
    /// number: a model is held in every list view.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unbounded_page_size: Option<u32>,
    /// The lines the model reproduced.
    pub record_ordinals: Vec<u64>,
    /// Parameters no recorded line named that the application's query grammar, learned from the
    /// roles its lists' recorded queries established, extends to (equality and operator forms on
    /// the other fields, sorts and pages of sibling lists; see [`crate::derive::query_grammar`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub generalized: BTreeMap<String, QueryRole>,
    /// Families of parameter names no recorded line named that the query grammar reads as
    /// terms (anchored pattern → what a name of it does; see [`crate::families`]): offered in the
    /// state catalog as `patternProperties`, each call's such parameter evaluated through the
    /// terms the grammar splits it into; `None` when there is none. Boxed: a model is held in
    /// every list view.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub families: Option<Box<BTreeMap<String, String>>>,
    /// For one call only (never learned): the disjunction branches each of its terms lies in
    /// (term name → path, outermost first), as the query grammar that split the call's
    /// expression named them; a term not named lies in none (see
    /// [`rea_plugin_api::contracts::query::QueryTerm::within`]); `None` when none lies in one.
    /// Boxed: a model is held in every list view.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub groups: Option<Box<BTreeMap<String, Vec<TermBranch>>>>,
    /// The record of the build's refused read of a page past the list's last page, which a
    /// call naming a later page than the first whose page lists nothing answers (see
    /// [`crate::page_past_end`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub past_end_refusal: Option<u64>,
}

/// An envelope member naming the page's position by the list's keyset cursor (see
/// [`crate::page_cursor`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CursorMember {
    /// The member's pointer.
    pub pointer: String,
    /// How it names the position.
    pub form: CursorForm,
    /// Whether a links form's relations are members of the envelope object at `pointer` beside
    /// its other members (`{count, next, previous, results}`) rather than the whole object there
    /// (see [`crate::flat_links`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub flat: bool,
}

/// How a cursor member names a page's position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "form", rename_all = "kebab-case")]
pub enum CursorForm {
    /// The last member listed (its key's value without a sort; the cursor text with one).
    Last,
    /// The cursor of the last member listed while matches remain, else null.
    Next,
    /// A link to the next page while matches remain (`prefix?` the call's other arguments, the
    /// cursor, then its sorts, form-encoded), else null.
    NextLink {
        /// The text before the query.
        prefix: String,
    },
    /// An object of links to pages beside the list (`{"next": [{"rel": "next", "uri": …}],
    /// "self": …}`), present when the call names a page size (or always, given a default size):
    /// each relation's entry repeats the call's query with the page (or offset) parameter first
    /// or, with the page size, last, set to the page it names, and is present where its learned
    /// [`PagePresence`] holds.
    PageLinks {
        /// The text before each link's query.
        prefix: String,
        /// Whether names and values are spelled as decoded (else form-encoded).
        decoded: bool,
        /// The relations, in the order the recordings showed them.
        relations: Vec<PageRelation>,
        /// Whether the position and page-size parameters follow the call's other arguments
        /// (else the position parameter comes first and the others keep their places).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        position_last: bool,
        /// The page size a call naming none is linked with (else such a call lists no links).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        default_size: Option<u64>,
        /// The offset and page-size parameters the links name when the list's calls name
        /// none (so every call lists from the first item, with the default size), learned from
        /// the links.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        link_only: Option<(String, String)>,
        /// Whether every pair of a link is spelled in name order (the call's arguments, the
        /// position and the page size sorted together), as an application re-encoding the
        /// whole query spells it.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        sorted: bool,
        /// Whether a link naming the first item leaves the position parameter out (`first`
        /// without `page[offset]`; a link left with no pair is the prefix alone).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        first_unnamed: bool,
        /// Whether a relation the page lacks is shown as `null` under its key (else left out).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        absent_null: bool,
        /// Whether the position parameter follows the call's other arguments, the page size
        /// keeping its place among them (an application setting the page on a copy of the
        /// call's query: `?sort=title&page[size]=5&page[number]=2`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        appended: bool,
        /// The order the recorded calls sent their parameters in, which the links repeat the
        /// call's query in (a call's arguments arrive unordered).
        #[serde(
            default,
            skip_serializing_if = "crate::query_order::QueryOrder::is_empty"
        )]
        order: crate::query_order::QueryOrder,
        /// Whether names and values are encoded but for letters, digits and `-._~` (RFC 3986's
        /// unreserved characters: `*` as `%2A`), a space as `+`, where `decoded` is not set.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        strict: bool,
        /// How the links restate the call's query, where they do not repeat it as sent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        restated: Option<Restatement>,
    },
}

/// How a [`CursorForm::PageLinks`] form's links restate a call's query: the names `leading`
/// lists first, in its order (each with the value the call sent, else its default; the page
/// size the page's), then the call's other pairs choosing the page's members in the order sent
/// (those the query model gives a role other than [`QueryRole::Inert`]: a sparse fieldset or an
/// include is left out), then the position. Learned where every recorded page's links spell
/// their queries so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Restatement {
    /// The names spelled first, each with the value a call sending none is linked with (`None`:
    /// left out then).
    pub leading: Vec<(String, Option<String>)>,
    /// Whether a sort's descending marks are left out (`sort=-title` linked as `sort=title`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unsigned_sort: bool,
}

/// One relation of a [`CursorForm::PageLinks`] object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageRelation {
    /// Its key in the links object.
    pub key: String,
    /// The page it names, less the call's page (-1, 0 or 1), unless anchored.
    pub step: i64,
    /// The page it names regardless of the call's page, when so learned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<PageAnchor>,
    /// Whether its step stops at the first item (`previous` from offset 1 with pages of 2
    /// naming offset 0, Django REST framework's `LimitOffsetPagination`): the page named is
    /// `max(o + step·s, 0)`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub clamped: bool,
    /// When the relation is present.
    #[serde(default, skip_serializing_if = "PagePresence::is_exists")]
    pub present: PagePresence,
    /// Its entry as recorded, the link's text left `null`.
    pub template: Json,
    /// The pointer of the link's text within the entry.
    pub link: String,
    /// Whether the link leaves the page size out when the call sent none (`first` repeating
    /// the call as sent; else it names the default size).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub leaves_unsent_size: bool,
    /// Whether the link names the position parameter at the first item though the form leaves
    /// it out there (`prev` naming `page[number]=1` beside a `first` naming no page).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub names_first: bool,
    /// Whether the relation repeats the call itself, its query as sent (the query echo of
    /// [`crate::query_echo`], `self` beside the page links), on every page.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub echo: bool,
    /// For an echo relation: whether it repeats the call's path alone, its query left out
    /// (Flask-Restless's `self: "/api/task"` beside the page links of `?page[number]=2`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub echo_bare: bool,
    /// For an echo relation: whether it repeats the query decoded (`Some(true)`) or
    /// form-encoded, where the recorded pages told the two apart and its form's other links
    /// may be spelled otherwise; `None`: as the form's `decoded` says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub echo_decoded: Option<bool>,
}

/// A page a [`PageRelation`] names whatever page the call asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PageAnchor {
    /// The page starting at the first item.
    First,
    /// The page starting at the matched count rounded down to a whole number of pages.
    LastWhole,
    /// The page holding the last match (the first page when none matched): the page count's
    /// page.
    LastPage,
}

/// When a [`PageRelation`] is present, its target `t` (an item offset, never negative) read
/// against the call's page offset `o`, page size `s` and matched count `m`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PagePresence {
    /// Where the page exists: `t <= o` or `t < m`.
    #[default]
    Exists,
    /// On every page.
    Always,
    /// Before the whole-page last offset: `t < ⌊m/s⌋·s`.
    BeforeLastWhole,
    /// After the call's page start: `t > o`.
    AfterCall,
    /// A whole page or more before the call's page: `t + s <= o`.
    PageBeforeCall,
    /// Where the call's page starts after the first item: `o > 0`.
    AfterFirst,
}

impl PagePresence {
    /// Every presence, the default first (the order learning tries them in).
    pub const ALL: [PagePresence; 6] = [
        PagePresence::Exists,
        PagePresence::Always,
        PagePresence::BeforeLastWhole,
        PagePresence::AfterCall,
        PagePresence::PageBeforeCall,
        PagePresence::AfterFirst,
    ];

    /// Whether this is the default presence.
    pub fn is_exists(&self) -> bool {
        *self == PagePresence::Exists
    }
}

/// An envelope member query lines showed with values of their own (see
/// [`QueryModel::paged_members`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PagedMember {
    /// The member's pointer.
    pub pointer: String,
    /// The values the lines whose page listed every match showed, each once (one when they
    /// agree).
    pub complete: Vec<Json>,
    /// Whether the member holds the offset the page starts at (`offset` beside `skip`): every
    /// answered line showed there the value its offset parameter gave (0 without one), and some
    /// line gave one. Computed per call (the call's offset), so it refuses no page.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub offset: bool,
    /// Whether the member holds the page size (`limit` beside `page[limit]`): every answered line
    /// giving a size showed it there, each line giving none showed one default value (held in
    /// `complete`, empty when every line gave a size), and two lines showed different values.
    /// Computed per call (the call's size, else the default), so it refuses no page size.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub size: bool,
    /// For a size member: the largest size it shows, where a line asking for more showed it
    /// (Feathers' `paginate.max`: `$limit=100` answers `limit: 50`); a call's size is cut to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<u64>,
    /// Whether the member names the call itself, a prefix then its query as sent (see
    /// [`crate::query_echo`]). Computed per call, so it refuses no query.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub echo: Option<QueryEcho>,
    /// Whether the member holds the page's number or the number of pages (dynamic-rest's
    /// `meta.page` and `meta.total_pages`): every answered line showed there the arithmetic of
    /// its page number, page size and matches. Computed per call, so it refuses no page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arithmetic: Option<PageArithmetic>,
}

/// What a page member computes from the call's page (see [`PagedMember::arithmetic`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PageArithmetic {
    /// The page's number: the one the call named, else the first page's.
    Number,
    /// The number of pages: the matches over the page size, rounded up.
    Pages,
    /// The number of pages, one when nothing matched (a first page always exists).
    PagesAtLeastOne,
}

impl PageArithmetic {
    /// The member's value for a page (its number, the first page's number), the page size and
    /// the matches.
    pub fn value(self, (page, first): (u64, u64), size: u64, matched: u64) -> Option<u64> {
        let pages = (size > 0).then(|| matched.div_ceil(size))?;
        match self {
            PageArithmetic::Number => Some(page.max(first)),
            PageArithmetic::Pages => Some(pages),
            PageArithmetic::PagesAtLeastOne => Some(pages.max(1)),
        }
    }
}

impl PagedMember {
    /// A member holding the page's offset (see [`PagedMember::offset`]).
    pub fn offset_at(pointer: String) -> Self {
        PagedMember {
            pointer,
            complete: Vec::new(),
            offset: true,
            size: false,
            max: None,
            echo: None,
            arithmetic: None,
        }
    }

    /// A member holding an arithmetic of the page (see [`PagedMember::arithmetic`]).
    pub fn arithmetic_at(pointer: String, arithmetic: PageArithmetic) -> Self {
        PagedMember {
            arithmetic: Some(arithmetic),
            ..PagedMember::offset_at(pointer)
        }
        .without_offset()
    }

    fn without_offset(self) -> Self {
        PagedMember {
            offset: false,
            ..self
        }
    }

    /// A member holding the page size, with the default the lines giving none showed (see
    /// [`PagedMember::size`]) and the largest size it shows.
    pub fn size_at(pointer: String, default: Option<Json>, max: Option<u64>) -> Self {
        PagedMember {
            pointer,
            complete: default.into_iter().collect(),
            offset: false,
            size: true,
            max,
            echo: None,
            arithmetic: None,
        }
    }
}

/// How a list's envelope member spells the call it answers (see [`crate::query_echo`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryEcho {
    /// The text before the query (the list's own address, as the application writes it).
    pub prefix: String,
    /// Whether names and values are spelled as decoded (else form-encoded).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub decoded: bool,
    /// Whether the answered lines show the application repeating a call's query as it was sent
    /// ([`crate::query_order::shows_sent_order`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub as_sent: bool,
}

impl QueryModel {
    /// A model of these roles alone (a body query's terms, a grammar's start, unit tests).
    pub(crate) fn of_roles(roles: &[(&str, QueryRole)]) -> Self {
        QueryModel {
            parameters: roles
                .iter()
                .map(|(name, role)| ((*name).to_owned(), role.clone()))
                .collect(),
            totals: Vec::new(),
            unfiltered_totals: Vec::new(),
            complete_totals: Vec::new(),
            collection_totals: Vec::new(),
            paged_members: Vec::new(),
            cursor_members: Vec::new(),
            nulls_first: false,
            repeated_sort: false,
            default_page_size: None,
            default_sort: None,
            tie_order: None,
            unbounded_page_size: None,
            record_ordinals: Vec::new(),
            generalized: BTreeMap::new(),
            families: None,
            groups: None,
            past_end_refusal: None,
        }
    }

    /// The disjunction branches a term of the call lies in (see [`QueryModel::groups`]).
    pub fn within(&self, name: &str) -> &[TermBranch] {
        self.groups
            .as_ref()
            .and_then(|groups| groups.get(name))
            .map_or(&[][..], Vec::as_slice)
    }

    /// The role of a parameter: the one its recorded lines established, else the one the learned
    /// grammar extends to it.
    /// Whether a parameter of this role may be sent repeated (see [`QueryModel::repeated_sort`]).
    pub fn repeats(&self, role: &QueryRole) -> bool {
        self.repeated_sort && matches!(role, QueryRole::Sort)
    }

    pub fn role(&self, name: &str) -> Option<&QueryRole> {
        self.parameters
            .get(name)
            .or_else(|| self.generalized.get(name))
    }
}

/// A query parameter's role (the plugin contract's type: query-grammar stages read and propose
/// roles).
pub use rea_plugin_api::contracts::query::{QueryRole, TermBranch};

/// A member view: a read answering one member of a held entity, the entity named by one path
/// segment and the member by a pointer whose steps are literal keys or other path segments'
/// values (`/{name}/{version}` answering the entity `name`'s `versions[version]`,
/// `/-/package/{name}/dist-tags` its `dist-tags`). Learned where every checked read's answer
/// equals that member of the entity the state holds (see [`crate::derive::members`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemberView {
    /// The held entity's type.
    #[serde(rename = "type")]
    pub entity_type: String,
    /// The collection the entities the checked reads showed are held in.
    pub collection: String,
    /// The path segment naming the entity.
    pub entity_segment: usize,
    /// The steps from the entity's fields to the member.
    pub steps: Vec<MemberStep>,
    /// The record whose status and media type answers are rendered into.
    pub envelope_ordinal: u64,
    /// The tool's latest recorded `404`/`410`, which answers a member the entity lacks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing_ordinal: Option<u64>,
    /// The entity type's item view's missing answer, which answers an entity the state lacks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing_entity_ordinal: Option<u64>,
    /// The checked records.
    pub checked_ordinals: Vec<u64>,
}

impl MemberView {
    /// What a write must touch to change what the view shows: its entity type's collection.
    pub fn scope(&self) -> WriteScope {
        WriteScope::Type {
            entity_type: self.entity_type.clone(),
            collection: Some(crate::derive::entities::collection_key(&self.collection).to_owned()),
            entity: None,
        }
    }
}

/// One step of a [`MemberView`]'s pointer.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MemberStep {
    /// A literal member name.
    Key(String),
    /// The value of a path segment (by index).
    Segment(usize),
    /// The string another member of the entity holds, named by steps from the entity's root
    /// (literal keys and path segments): `versions[dist-tags[tag]]`, the version a tag names.
    Via(Vec<MemberStep>),
    /// The first of these steps naming a key the member holds: `versions[version]`, else
    /// `versions[dist-tags[version]]` (a segment naming a version or a tag; see
    /// [`crate::derive::members::widen_lookups`]).
    Or(Vec<MemberStep>),
}

/// A document view.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DocumentView {
    /// The checked line's path.
    pub path: String,
    /// The checked line's decoded query pairs.
    pub query: Option<Vec<(String, String)>>,
    /// The checked record.
    pub record_ordinal: u64,
    /// Top-level members whose value each response minted.
    pub per_response_members: Vec<String>,
    /// Whether recorded writes changed the document though no write tool writes it (a
    /// database's overview of its tables and their counts): after a served write its view
    /// answers not modelled, never what the state held before it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unmodelled_after_writes: bool,
    /// The further checked lines of a view whose documents differ by path (one document per
    /// id of its path template, each read without a query): the first is `path`. Empty for a
    /// view read on one line.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keyed: Vec<DocumentLine>,
}

/// One further checked line of a keyed document view: its path and record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocumentLine {
    /// The line's path.
    pub path: String,
    /// The checked record.
    pub record_ordinal: u64,
}

impl DocumentView {
    /// Whether the view holds one document per id of its path template.
    pub fn is_keyed(&self) -> bool {
        !self.keyed.is_empty()
    }

    /// Every checked line's path and record, the first line first.
    pub fn lines(&self) -> impl Iterator<Item = (&str, u64)> {
        std::iter::once((self.path.as_str(), self.record_ordinal)).chain(
            self.keyed
                .iter()
                .map(|line| (line.path.as_str(), line.record_ordinal)),
        )
    }
}

impl StateView {
    /// The view of a tool.
    pub fn view(&self, tool: &str) -> Option<&ReadView> {
        self.views.iter().find(|view| view.tool == tool)
    }

    /// The type with that collection template.
    pub fn entity_type(&self, template: &str) -> Option<&EntityType> {
        self.types
            .iter()
            .find(|entity_type| entity_type.collection_template == template)
    }

    /// The plan of a write tool.
    pub fn write_plan(&self, tool: &str) -> Option<&crate::writes::model::WritePlan> {
        self.write_plans.iter().find(|plan| plan.tool == tool)
    }

    /// The served write plans.
    pub fn served_writes(&self) -> impl Iterator<Item = &crate::writes::model::WritePlan> {
        self.write_plans.iter().filter(|plan| plan.served)
    }

    /// How many read views are state-backed and how many answer from recordings.
    pub fn coverage(&self) -> (usize, usize) {
        let recorded = self
            .views
            .iter()
            .filter(|view| matches!(view.detail, ViewDetail::Recorded { .. }))
            .count();
        (self.views.len() - recorded, recorded)
    }
}

/// Entities held shared, written and read as the plain array of entities (no `rc` feature of
/// serde: the bytes are those of a `Vec<Entity>`).
mod shared_entities {
    use std::sync::Arc;

    use serde::{Deserialize, Deserializer, Serializer};

    use super::Entity;

    pub fn serialize<S: Serializer>(
        entities: &[Arc<Entity>],
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(entities.iter().map(|entity| &**entity))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<Arc<Entity>>, D::Error> {
        let entities = Vec::<Entity>::deserialize(deserializer)?;
        Ok(entities.into_iter().map(Arc::new).collect())
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use serde::Serialize;

        #[derive(Serialize, Deserialize)]
        struct Shared {
            #[serde(with = "super")]
            entities: Vec<Arc<Entity>>,
        }

        #[derive(Serialize)]
        struct Plain {
            entities: Vec<Entity>,
        }

        #[test]
        fn shared_entities_write_and_read_as_a_plain_array() {
            let entity = Entity {
                entity_type: "/items".to_owned(),
                collection: "/items".to_owned(),
                id: "1".to_owned(),
                fields: rea_plugin_api::json::Json::Null,
                view_fields: Default::default(),
                record_ordinals: vec![3],
            };
            let plain = serde_json::to_string(&Plain {
                entities: vec![entity.clone()],
            })
            .unwrap();
            let shared = serde_json::to_string(&Shared {
                entities: vec![Arc::new(entity.clone())],
            })
            .unwrap();
            assert_eq!(shared, plain);
            let read: Shared = serde_json::from_str(&plain).unwrap();
            assert_eq!(read.entities.len(), 1);
            assert_eq!(*read.entities[0], entity);
        }
    }
}

//! The write plans a state holds: one per write tool (`POST`, `PUT`, `PATCH`, `DELETE` and other
//! unsafe methods, query `POST`s excepted), served or withheld with a reason.
//!
//! ```text
//! tool, method, path_template
//! effect            create | update | delete | document
//! action            the action segment of an action update (`archive`), else null
//! bulk              a bulk update or delete (ids named in the body)
//! served            whether the tool is served
//! reason, hint      why it is withheld (see [`WITHHELD_REASONS`]), and what to record next
//! exemplar_ordinal  the call the plan's answer and body follow
//! contradicted_by   the read that disagreed with the modelled effect
//! record_ordinals   the calls the plan models; confirmed_by: the reads that showed their effect
//! target            {type, identity_field, collection (a create tied to its exemplar's
//!                   collection), collection_segments, document, item_view, key_member (the
//!                   body member naming the entity of an RPC-style write)}
//! body              {envelope, members: {name: {types, required, fixed?}}, query}
//! fields            {kept, removed, replace, constants, nested_constants (pointer → value),
//!                   collection_constants, path_fields,
//!                   order, soft_delete, null_removes, sent_as, document_pointer,
//!                   document_element, adds_name}
//! rules             [{stage, plugin, explains, needs_clock, rule}] in pipeline order
//! response          {ordinal, status, media_type, kind, pointer, body}
//! missing_ordinal   the recorded 400/404/410 an update or delete of a missing entity answers
//! conflicts         a create's recorded refusals of a taken value: [{member, ordinal, taken}]
//! omitted           a create's recorded refusals of a member left out: [{member, ordinal}]
//! omitted_sets      a create's recorded refusals of members left out together:
//!                   [{ordinal, members (paths: `attributes/title`), spelling?}]
//! children          a create's body members nesting new entities of another type:
//!                   [{member, type, reference}]
//!                   (a create sending a value its collection holds in `member` answers `ordinal`)
//! inferred_from     the served plan a sibling transfer carried over (no call of its own)
//! upsert            a PUT creating the entity its path names when absent: {record_ordinals,
//!                   fields, rules, response} of the calls that created one
//! copies            an update copying its entity under a new generated identity, removing the
//!                   original (absent: false)
//! batch             a batch of sub-requests, each applied as the served write it names:
//!                   {requests, method, path, body, wrapper, answer_ordinal} (absent: none)
//! relationship      a relationship write setting a parent's member to a related entity's id
//!                   (or its linkage object to the identifier sent):
//!                   {parent_type, parent_segment, identifier, id_member, prefix, suffix,
//!                   numeric, named, answer_ordinal, answer_path, answer_pointer, linkage,
//!                   answers_identifier} (absent: none)
//! ranged            a delete by a body member selecting a range through its type's body read:
//!                   {read_tool, members, count, count_text, listed, option} (absent: none)
//! ```

use std::collections::BTreeMap;

use rea_plugin_api::json::{Json, Object};
use serde::{Deserialize, Serialize};

/// The withheld reasons, in the order they are decided, with their hints.
pub const WITHHELD_REASONS: [(&str, &str); 10] = [
    (
        "no-state-target",
        "The write could not be linked to a modelled target. Check the path template and recorded views; record missing reads. Some route forms may not be supported.",
    ),
    (
        "no-call",
        "No recorded call of this tool was modelled, for example because every call failed. Record a successful call.",
    ),
    (
        "body-unusable",
        "The retained request or response cannot be modelled. Record a successful call with a complete supported request and reproducible response.",
    ),
    (
        "no-observation",
        "Nothing showed the entity or document this write changed. Read a created entity back by id right after the write; for an update or delete the state must already hold the entity, so read it before the write or record the create that made it.",
    ),
    (
        "unexplained-change",
        "The write changed fields it did not send, in a way no rule explains. A second, different call of the same tool can show the pattern.",
    ),
    (
        "contradicted",
        "A later read disagreed with the modelled effect. Check the read at contradicted_by.",
    ),
    (
        "side-effect",
        "The write changed something besides its own entity, which the environment does not model.",
    ),
    (
        "unconfirmed",
        "No later read showed the effect. Read the entity and its list after the write.",
    ),
    (
        "incomplete-entities",
        "The write is confirmed, but the views that show its entity cannot render it in full. Read the written entity through every view that lists it.",
    ),
    (
        "unknown-clock",
        "The learned rules generate timestamps, but the capture establishes no global served clock start. Record usable start times and completed durations for every request.",
    ),
];

/// The hint of a withheld reason.
pub fn hint(reason: &str) -> &'static str {
    WITHHELD_REASONS
        .iter()
        .find(|(name, _)| *name == reason)
        .map_or("", |(_, hint)| hint)
}

/// What a write does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Effect {
    /// Adds an entity.
    Create,
    /// Changes an entity (or, in bulk, several).
    Update,
    /// Removes an entity (or, in bulk, several).
    Delete,
    /// Changes a document.
    Document,
}

impl Effect {
    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Effect::Create => "create",
            Effect::Update => "update",
            Effect::Delete => "delete",
            Effect::Document => "document",
        }
    }
}

/// One write tool's plan.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WritePlan {
    /// The tool.
    pub tool: String,
    /// The method as recorded.
    pub method: String,
    /// The path template.
    pub path_template: String,
    /// What the write does.
    pub effect: Effect,
    /// The action segment of an action update.
    pub action: Option<String>,
    /// A bulk update or delete.
    pub bulk: bool,
    /// Whether the tool is served.
    pub served: bool,
    /// Why it is withheld.
    pub reason: Option<String>,
    /// What to record next.
    pub hint: Option<String>,
    /// The call the plan's answer and accepted body follow.
    pub exemplar_ordinal: Option<u64>,
    /// The read that disagreed with the modelled effect.
    pub contradicted_by: Option<u64>,
    /// The calls the plan models.
    pub record_ordinals: Vec<u64>,
    /// The reads that showed the modelled effect.
    pub confirmed_by: Vec<u64>,
    /// What it writes.
    pub target: Option<WriteTarget>,
    /// The body and query it accepts.
    pub body: Option<BodyModel>,
    /// How the written entity's fields follow from the call.
    pub fields: Option<FieldModel>,
    /// The rules that explain the rest, in pipeline order.
    pub rules: Vec<PlanRule>,
    /// The recorded answer it gives.
    pub response: Option<ResponseModel>,
    /// The recorded `400`/`404`/`410` an update or delete of a missing entity answers.
    pub missing_ordinal: Option<u64>,
    /// A `PUT` that creates the entity its path names when the state does not hold it: how the
    /// calls that created one built it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upsert: Option<UpsertModel>,
    /// The served write tool this plan is carried over from (opt-in sibling transfer): inferred
    /// on a sibling collection, no recorded call of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inferred_from: Option<String>,
    /// A create's recorded refusals of a value already taken (see [`super::conflict`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<ConflictModel>,
    /// A create's recorded refusals of a body leaving out a member (see [`super::omitted`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub omitted: Vec<OmittedModel>,
    /// A create's recorded refusals of a body leaving out a set of members (see
    /// [`super::omitted_set`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub omitted_sets: Vec<OmittedSet>,
    /// A create's recorded refusals keyed by the members it left out (see
    /// [`super::keyed_refusal`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keyed_refusals: Vec<KeyedRefusal>,
    /// A create's refusal of a left-out member carried over from another create's recorded one
    /// (see [`super::lent_omission`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lent_omission: Option<LentOmission>,
    /// A delete's recorded refusal of an entity another type's entity names (see
    /// [`super::referenced`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub referenced: Vec<ReferencedModel>,
    /// A create's recorded refusal of a value other than its collection's constant (see
    /// [`super::constant_refusal`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub constant_refusals: Vec<ConstantRefusal>,
    /// A create's or update's recorded refusal of a member sent with a value of another JSON
    /// type (see [`super::type_refusal`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub type_refusals: Vec<TypeRefusal>,
    /// An update that copies its entity under a new identity (its rules generate it) and
    /// removes the original: a rename making a new record.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub copies: bool,
    /// A create's body members nesting new entities of another type (see [`super::children`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<NestedChildren>,
    /// A batch of sub-requests, each applied as the served write it names (see
    /// [`super::batch`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<super::batch::BatchModel>,
    /// A guarded batch: sub-requests wrapped by their tools' verbs, applied when the guards
    /// beside them hold (see [`super::guarded`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guarded: Option<super::guarded::GuardedModel>,
    /// A relationship write: the parent's member the route's last segment names, set to the
    /// id of the entity the body's identifier names, or to the identifier itself where the
    /// member is a linkage object (see [`super::relationship`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relationship: Option<super::relationship::RelationshipModel>,
    /// A to-many relationship write: the linkage of each entity the body's identifiers name,
    /// set to the parent the path names or cleared (see [`super::to_many`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_many: Option<super::to_many::ToManyModel>,
    /// A collection link write: each child the path or body names linked to the parent the
    /// path names, or unlinked (see [`super::collection_links`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub links: Option<super::collection_links::LinksModel>,
    /// Members the calls send as ids or key names of another type's entities, stored as their
    /// link objects (see [`super::references`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub references: Vec<super::references::SentReference>,
    /// The document a served create holds for the entity it made, in its type's keyed document
    /// view (see [`super::composed`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub composed: Option<super::composed::ComposedDocument>,
    /// A delete by a body member whose type's body-query read selects a range of it: a call
    /// sending a range deletes every entity the read's grammar selects (see [`super::ranged`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ranged: Option<super::ranged::RangeDelete>,
}

/// A create body's member whose objects the application created as entities of another type,
/// each holding the new parent's id in its reference member.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NestedChildren {
    /// The top-level body member holding the child objects.
    pub member: String,
    /// The child type (collection template).
    #[serde(rename = "type")]
    pub entity_type: String,
    /// The child's member holding its parent's id.
    pub reference: String,
    /// The child's identity member (its type's generated id).
    pub identity: String,
    /// The members an answered child shows, in the answer's order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<String>,
    /// The value an answered child shows for a member it was not sent, where every recorded
    /// child left unsent showed the same one (a member without one must be sent).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub defaults: BTreeMap<String, Json>,
}

/// A create the application refused for sending, in a top-level member, a text other than the one
/// its collection's entities all hold there (`type`), its answer spelling both.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConstantRefusal {
    /// The member (a top-level member of the body's envelope).
    pub member: String,
    /// The failed call's record.
    pub ordinal: u64,
    /// The text the failed call sent there.
    pub recorded_sent: String,
    /// The constant of the failed call's tool, which its answer spells.
    pub recorded_constant: String,
    /// This tool's constant: every successful call sent it, every held entity holds it.
    pub constant: String,
}

/// A write the application refused for sending a member with a scalar of another JSON type than
/// its successful calls sent there, its answer spelling the member and both types' names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TypeRefusal {
    /// The failed call's record.
    pub ordinal: u64,
    /// The member it sent mistyped (a top-level member of the body's envelope).
    pub member: String,
    /// The JSON type the successful calls sent there (`number`).
    pub expected: String,
    /// The JSON type the failed call sent (`string`).
    pub sent: String,
    /// How the answer spells JSON type names.
    pub spelling: TypeSpelling,
}

/// How an answer spells JSON type names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TypeSpelling {
    /// `number`.
    Lower,
    /// `Number`.
    Capitalised,
    /// `NUMBER`.
    Upper,
}

/// A delete the application refused while an entity of another type named the deleted entity in
/// a member: a delete of an entity the live state's entities of that type name there answers
/// that failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReferencedModel {
    /// The naming entities' type.
    pub entity_type: String,
    /// The member naming the deleted entity (a top-level name, or a JSON pointer).
    pub member: String,
    /// The failed call's record.
    pub ordinal: u64,
}

/// A create the application refused for leaving out a member every successful call sent, its
/// answer naming that member: a call leaving it out answers that failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OmittedModel {
    /// The member left out (a top-level member of the body's envelope).
    pub member: String,
    /// The failed call's record.
    pub ordinal: u64,
    /// The other required members the failed call left out, which its answer did not name (so
    /// leaving them out is not what it refused): a member another call leaves out alone is
    /// refused with this answer renamed only when it is none of these (see [`super::omitted`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unnamed: Vec<String>,
    /// The other required members the failed call sent that its answer names too (a validation
    /// error listing every required member: `['title', 'original_url']`): the application says
    /// they are required alike, so a call leaving one of them out alone answers this refusal
    /// with that member named instead.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub named_too: Vec<String>,
}

/// A create the application refused for leaving out required members (top-level members of the
/// body's envelope, or members one level inside one), its answer naming each: a call leaving
/// them all out answers that failure (see [`super::omitted_set`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OmittedSet {
    /// The failed call's record.
    pub ordinal: u64,
    /// The members its answer names, as paths from the envelope (`title`, `attributes/title`).
    pub members: Vec<String>,
    /// How its answer spells the members the failed call sent, when it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spelling: Option<InputSpelling>,
}

/// A refusal's spelling of the members its call sent (see [`super::input_spelling`]): the
/// recorded text, and the JSON types of the values it showed spelled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputSpelling {
    /// The failed call's members as its answer spells them (`{'priority': 3}`).
    pub recorded: String,
    /// The JSON types of the values the recorded spelling showed (`string` always: its keys).
    pub shown: Vec<String>,
}

/// A create's refusal of a left-out member, carried over from another create the application
/// refused so (inferred: the plan's own calls were never refused): a call leaving out the
/// plan's required members answers the lender's recorded failure with the first of them named.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LentOmission {
    /// The lender's failed call's record.
    pub ordinal: u64,
    /// The member the lender's answer names.
    pub member: String,
    /// The JSON types the lender's calls sent that member with: a member of other types is not
    /// named so (the answer may say the type).
    pub types: Vec<String>,
    /// The lender's recorded request path, which its answer may repeat.
    pub path: String,
    /// The plan's required members in the order its first recorded create sent them: a call
    /// is refused for the first it leaves out.
    pub order: Vec<String>,
    /// Whether a call may leave out more than one of them: some lender left out several and
    /// its answer named only the first (otherwise only a call leaving out one is answered).
    pub first_of_many: bool,
    /// The create tool the refusal is carried over from.
    pub inferred_from: String,
}

/// A create the application refused for leaving out members every successful call sent, an
/// object of its answer keyed by them: a call leaving out such members answers that failure
/// keyed by the ones it leaves out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyedRefusal {
    /// The failed call's record.
    pub ordinal: u64,
    /// The object keys leading from the answer's top to the keyed object (empty: the answer).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub path: Vec<String>,
    /// Each keyed member's recorded error, in the answer's order.
    pub errors: Vec<(String, Json)>,
    /// The required members the failed call left out that the answer keys not: leaving them
    /// out is not what it refused.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unkeyed: Vec<String>,
    /// The create tool whose recorded refusal this one is carried over from (inferred: the
    /// plan's own calls were never so refused), its error the one text every keyed refusal of
    /// the state's creates recorded for every member.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inferred_from: Option<String>,
}

/// A create the application refused for sending, in one member, a value an entity of the
/// collection already held: a call sending a held value there answers that failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConflictModel {
    /// The top-level body member (a stored field of the same name).
    pub member: String,
    /// The failed call's record.
    pub ordinal: u64,
    /// The value it sent there (its answer names it, renamed for a call sending another).
    pub taken: String,
}

/// The create half of an upsert (`PUT` of an item path creating the entity when absent).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UpsertModel {
    /// The calls that created an entity.
    pub record_ordinals: Vec<u64>,
    /// How a created entity's fields follow from the call.
    pub fields: Option<FieldModel>,
    /// The rules that explain the rest of a created entity, in pipeline order.
    pub rules: Vec<PlanRule>,
    /// The recorded answer of a call that created one.
    pub response: Option<ResponseModel>,
}

impl WritePlan {
    /// The failed calls its refusals of left-out members answer (one member, a set of them, or
    /// keyed by them): failures no other refusal or conflict needs to explain.
    pub fn omission_refusals(&self) -> impl Iterator<Item = u64> + '_ {
        let omitted = self.omitted.iter().map(|omitted| omitted.ordinal);
        let sets = self.omitted_sets.iter().map(|set| set.ordinal);
        let keyed = self.keyed_refusals.iter().map(|keyed| keyed.ordinal);
        omitted.chain(sets).chain(keyed)
    }

    /// The type it writes, when its target names one.
    pub fn entity_type(&self) -> Option<&str> {
        self.target.as_ref()?.entity_type.as_deref()
    }

    /// The plan a call of an upsert that creates its entity follows: a create with the upsert's
    /// fields, rules and answer.
    pub fn upsert_plan(&self) -> Option<WritePlan> {
        let upsert = self.upsert.as_ref()?;
        let mut plan = self.clone();
        plan.effect = Effect::Create;
        plan.fields = upsert.fields.clone();
        plan.rules = upsert.rules.clone();
        plan.response = upsert.response.clone().or_else(|| self.response.clone());
        plan.upsert = None;
        Some(plan)
    }

    /// The plan answering a call that sends `body`: itself, or, where the recorded calls
    /// answered by the options they sent (`ResponseModel::by_options`), the plan answering as
    /// the calls that sent the same options did; `None` when no recorded call sent them.
    pub fn answering_options(
        &self,
        body: Option<&Json>,
    ) -> Option<std::borrow::Cow<'_, WritePlan>> {
        let by_options = match &self.response {
            Some(response) if !response.by_options.is_empty() => &response.by_options,
            _ => return Some(std::borrow::Cow::Borrowed(self)),
        };
        let sent = self.body.as_ref()?.sent_options(body);
        let chosen = by_options.iter().find(|answer| answer.options == sent)?;
        let mut plan = self.clone();
        plan.response = Some(chosen.response.clone());
        Some(std::borrow::Cow::Owned(plan))
    }

    /// Whether a rule of the plan (or of its upsert's create half) needs the served clock.
    pub fn needs_clock(&self) -> bool {
        self.rules.iter().any(|rule| rule.needs_clock)
            || self
                .upsert
                .as_ref()
                .is_some_and(|upsert| upsert.rules.iter().any(|rule| rule.needs_clock))
    }

    /// Whether a rule of the plan changes the entities of other types referring to a deleted one
    /// (its learned rule names `dependents`).
    pub fn has_dependents(&self) -> bool {
        self.rules
            .iter()
            .any(|rule| rule.rule.get("dependents").is_some())
    }

    /// Withholds the plan (the first reason decided stays).
    pub fn withhold(&mut self, reason: &str) {
        if self.reason.is_none() {
            self.served = false;
            self.reason = Some(reason.to_owned());
            self.hint = Some(hint(reason).to_owned());
        }
    }
}

/// What a write plan writes.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct WriteTarget {
    /// The entity type (collection template).
    #[serde(rename = "type")]
    pub entity_type: Option<String>,
    /// Its identity field.
    pub identity_field: Option<String>,
    /// The collection a create is tied to: its exemplar's, when the tool's path does not name
    /// the type's collection (a nested create such as `POST /posts/{id}/comments`).
    pub collection: Option<String>,
    /// How many leading path segments name the collection (for item and action paths, the
    /// identity follows them).
    pub collection_segments: usize,
    /// The document view a document write changes.
    pub document: Option<String>,
    /// The type's item view.
    pub item_view: Option<String>,
    /// The body member naming the written entity, for an RPC-style write whose path does not
    /// (`run_id` of `POST /api/2.0/mlflow/runs/update`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_member: Option<String>,
    /// The one entity a literal path writes (with its tied `collection`), for a write whose
    /// path is no type's item path (`DELETE /bags/default/tiddlers/Call%20the%20plumber`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entity_id: Option<String>,
    /// The path segment naming the written entity, for an action route (a route-form stage
    /// named it: `2` of `/{table}/{pk}/-/update`); otherwise the last segment names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entity_segment: Option<usize>,
    /// For a write of one member of a held entity's map (`PUT /-/package/{name}/dist-tags/{tag}`
    /// beside the member view `/-/package/{name}/dist-tags`): where that member is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub member: Option<MemberWrite>,
}

/// A write of one member of a map a held entity holds: a `PUT` sets it to the body sent, a
/// `DELETE` removes it; the entity is otherwise unchanged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemberWrite {
    /// The steps from the entity's fields to the member (the last one the key's path segment).
    pub steps: Vec<crate::model::MemberStep>,
    /// Whether the write removes the member (else it sets it).
    pub remove: bool,
    /// The JSON types the recorded calls sent the value with (none for a removal).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub types: Vec<String>,
}

/// A member the body may send.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemberModel {
    /// The JSON types recorded calls sent it with (`string`, `number`, `boolean`, `array`,
    /// `object`, `null`).
    pub types: Vec<String>,
    /// Whether every recorded call sent it.
    pub required: bool,
    /// The one value it is accepted with: a member the writes did not store.
    pub fixed: Option<Json>,
}

/// The body and query a write accepts.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct BodyModel {
    /// Where the members sit: `""` (the body is the object) or a pointer such as `/data`; a
    /// one-element array at the pointer is written `/posts/0`.
    pub envelope: String,
    /// The members, by name.
    pub members: BTreeMap<String, MemberModel>,
    /// The exemplar's query pairs: a call sends exactly these, or none when the exemplar had none.
    pub query: Vec<(String, String)>,
    /// For a bulk write: where the ids are (`""`: the body is the array; else the one array
    /// member's pointer), and whether the array holds ids or objects carrying the id field.
    pub bulk_ids: Option<BulkIds>,
    /// Whether the call sends no body at all (a delete).
    pub none: bool,
    /// Scalar members a call may send beside a top-level envelope, which store nothing (options
    /// such as `{"update": {…}, "return": true}`), by name: their recorded JSON types.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub options: BTreeMap<String, MemberModel>,
    /// Whether a call may send members the recorded calls did not (of any JSON type): a whole
    /// document's write whose document held nothing before the first recorded write, so every
    /// member it holds is one a write sent and the application showed no member set of its own
    /// (a settings section written by JSON merge patches).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub open: bool,
    /// The collections (as a path spells them, `/v1/…/collections/tasks/records`) the required
    /// members were shown on, where the tool's path names the collection by a parameter (see
    /// [`super::required_in`]); empty: the members are required of every call.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub required_in: Vec<String>,
}

impl BodyModel {
    /// The options a body sends beside its envelope (see [`BodyModel::options`]), as sent.
    pub fn sent_options(&self, body: Option<&Json>) -> BTreeMap<String, Json> {
        let Some(Json::Object(object)) = body else {
            return BTreeMap::new();
        };
        self.options
            .keys()
            .filter_map(|name| Some((name.clone(), object.get(name)?.clone())))
            .collect()
    }
}

/// Where a bulk write's body names its entities.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BulkIds {
    /// The array's pointer.
    pub pointer: String,
    /// `true` when the array holds objects carrying the identity field.
    pub objects: bool,
    /// A write naming no ids: the entities the call's query selects over the held entities,
    /// evaluated with a list view's learned query model (see [`super::selected`]); the body
    /// (`pointer` empty) is what it sends each of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selected: Option<Box<SelectedBy>>,
    /// The one object member beside an array of bare ids holding what each entity is sent
    /// (`{"keys": [14, 15], "data": {"assignee": "bo"}}`): its name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
}

/// How a write selects its entities by a query (see [`super::selected`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SelectedBy {
    /// The list tool of the write's collection whose learned query grammar selects.
    pub list_tool: String,
    /// That list's query model.
    pub model: crate::model::QueryModel,
    /// The wrapper the list nests the write's query names in (`filter`, when the write sends
    /// `where[projectId]` and the list reads `filter[where][projectId]`; see
    /// [`rea_plugin_api::query_fields::unnested`]); `None` when the list reads them as sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nesting: Option<String>,
}

impl BulkIds {
    /// The members a body sends beside its id array (`{"IDs": […], "Read": true}` gives
    /// `{"Read": true}`), or inside its `data` member (see [`BulkIds::data`]); empty when the
    /// body is not an object.
    pub fn members_beside(&self, body: &Json) -> Object {
        if let Some(data) = &self.data {
            return body
                .as_object()
                .and_then(|object| object.get(data)?.as_object().cloned())
                .unwrap_or_default();
        }
        let array_key = self
            .pointer
            .trim_start_matches('/')
            .replace("~1", "/")
            .replace("~0", "~");
        body.as_object()
            .map(|object| {
                object
                    .iter()
                    .filter(|(key, _)| *key != array_key)
                    .map(|(key, value)| (key.to_owned(), value.clone()))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The members the array's object naming `id` (by its `identity` field) sends, without its
    /// identity; `None` when no object of the array names it.
    pub fn object_members(&self, body: &Json, identity: &str, id: &str) -> Option<Object> {
        let object = body
            .pointer(&self.pointer)?
            .as_array()?
            .iter()
            .find(|item| crate::render::identity_text(item, identity).as_deref() == Some(id))?;
        let mut members = object.as_object()?.clone();
        members.remove(identity);
        Some(members)
    }

    /// What the body sends the entity `id`: its object's members in the array, or the members
    /// beside the id array.
    pub fn entity_members(&self, body: &Json, identity: &str, id: &str) -> Option<Object> {
        if self.objects {
            self.object_members(body, identity, id)
        } else {
            Some(self.members_beside(body))
        }
    }
}

/// How the written entity's fields follow from the call (besides what rules explain).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct FieldModel {
    /// Update: unsent members the writes kept.
    pub kept: Vec<String>,
    /// Update: unsent members the writes removed.
    pub removed: Vec<String>,
    /// Update: an unsent member no call showed is removed (a `PUT` replaces) rather than kept.
    pub replace: bool,
    /// Create: unsent members every create stored with one value.
    pub constants: BTreeMap<String, Json>,
    /// Create: the top-level fields a largest-value rule numbers across the type's collections
    /// (see [`super::numbered`]): the entries of every list share one id sequence.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub numbered_by_type: Vec<String>,
    /// Create: members nested inside an unsent object that every create stored with one value
    /// (JSON pointer → value: `/info/status`), or left out of a sent object where a held entity
    /// shows `null` (`/attributes/email`, see `writes::defaults`), set where they nest and are
    /// absent.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub nested_constants: BTreeMap<String, Json>,
    /// Create: unsent members every create copied from the value every held entity of the
    /// collection shares.
    pub collection_constants: Vec<String>,
    /// Create: members holding a path value (field → segment index; `true` when stored as a
    /// number).
    pub path_fields: BTreeMap<String, PathField>,
    /// The exemplar entity's member order.
    pub order: Vec<String>,
    /// Delete: the member a soft delete sets `true` (the entity is kept, marked deleted).
    pub soft_delete: Option<String>,
    /// Update: a member sent `null` is removed (JSON merge patch) rather than set to `null`.
    pub null_removes: bool,
    /// Members the calls sent under another name than the field they set (member → the field's
    /// JSON pointer): an update's `new_name` setting `/name`, a create's `url` setting the nested
    /// leaf of its own name, `/entry/url`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub sent_as: BTreeMap<String, String>,
    /// Document writes: where in the document the sent members land, when not at its root (the
    /// envelope member its reads hold the document's object under: `/data`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub document_pointer: String,
    /// Document writes landing in an element (`/studies/{id}/{trial}/note`): the element member
    /// whose value the path segment before the last names (`trial_id`). Every top-level array
    /// element of the document holding that value is written, `document_pointer` then pointing
    /// inside the element (`/note`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document_element: Option<String>,
    /// Create: members a call may leave out, with the value the type's recorded creations that
    /// left them out stored (see `writes::defaults`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub defaults: BTreeMap<String, Json>,
    /// Create: unsent members stored as the same-named member of a document the state holds
    /// held at the time (a defaults document; see `writes::document_defaults`), member → the
    /// document.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub document_defaults: BTreeMap<String, super::document_defaults::DocumentRef>,
    /// Create: a sent identity is kept as sent rather than generated (a recorded creation of the
    /// type sent it and was created under it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub identity_as_sent: bool,
    /// Map-merge members (see `writes::merged`): a sent object member whose entries the write
    /// set key-wise into the held object of the same name (member → the members each entry it
    /// set gained with one value, `{"contributors": []}`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub merged: BTreeMap<String, Json>,
    /// Sent arrays of objects whose items the write stores with gained members, in an order (see
    /// `writes::item_defaults`): member → what it does to the items.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub item_defaults: BTreeMap<String, super::item_defaults::ItemDefaults>,
    /// Members sent but not stored, whatever their value (see `writes::merged`): an update keeps
    /// what the entity held, a create stores its constant or nothing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unstored: Vec<String>,
    /// Create below a parent (see `writes::parent_create`): the parent and the members spelling
    /// the created entity's path below it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub below_parent: Option<BelowParent>,
    /// Document writes adding the name their path gives to a document of names (see
    /// `writes::named_collection`): where the name goes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adds_name: Option<super::named_collection::NamePlacement>,
}

/// A create below a parent: the path segment naming the parent (an entity of `parent_type` in
/// the collection the segments before it spell), and the members spelling the created entity's
/// parent path (the collection's segments from that one on, decoded), `/`, and its identity.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BelowParent {
    /// The parent's path segment.
    pub parent_at: usize,
    /// The parent's type.
    pub parent_type: String,
    /// The members spelling the path.
    pub members: Vec<String>,
}

/// A member holding a path value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathField {
    /// The path segment.
    pub segment: usize,
    /// Whether the member holds the value as a number.
    pub number: bool,
}

/// A learned rule of a plan.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PlanRule {
    /// The stage.
    pub stage: String,
    /// The plugin providing it.
    pub plugin: String,
    /// The pointers it explains.
    pub explains: Vec<String>,
    /// Whether applying it needs the served clock.
    pub needs_clock: bool,
    /// The learned rule, as the stage answered it.
    pub rule: Json,
}

/// What a write's recorded answer is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ResponseKind {
    /// The written entity, whole, at `pointer`.
    Entity,
    /// Some members of the written entity at `pointer` (a delete's tombstone as recorded; a
    /// write's members, envelopes and links as [`ResponseModel::projected`] says).
    Projection,
    /// The written entity's identity, at `pointer`.
    Identity,
    /// The recorded body, unchanged.
    Recorded,
    /// No body.
    None,
    /// One item per row a batch wrote, in the array at `pointer` (`""`: the answer is the
    /// array), each item as the model's `rows` says (`{"ok": true, "rows": […]}`,
    /// `[{"ok": true, "id": …, "rev": …}, …]`).
    Rows,
    /// The number of rows the write wrote, at `pointer` (`{"count": 3}`: a write selected by
    /// its query answering how many entities it changed, see [`super::selected`]).
    Count,
}

/// A write's recorded answer, which served calls answer in.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ResponseModel {
    /// The exemplar record.
    pub ordinal: u64,
    /// Its status.
    pub status: u16,
    /// Its media type.
    pub media_type: Option<String>,
    /// What the body is.
    pub kind: ResponseKind,
    /// Where the entity (or identity) sits in the body.
    pub pointer: Option<String>,
    /// The entity members every recorded answer carried: a rendered answer lacking one is a
    /// tool error.
    pub required_members: Vec<String>,
    /// For an entity answer: the members every recorded answer showed `null` where the written
    /// entity held a value (a document store answering a save without the content it saved).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nulled_members: Vec<String>,
    /// For a recorded answer: its top-level members that every recorded call's answer showed
    /// equal to a text member of the written entity under another name (`{"ok": true, "id": …,
    /// "rev": …}` naming `_id` and `_rev`), answer member → entity member: a served call's answer
    /// shows the written entity's values there, never the recorded call's.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub renamed: std::collections::BTreeMap<String, String>,
    /// For a recorded answer: every recorded answer showed, beside the members all of them
    /// share, each member its call sent that the entity stores otherwise (a value a rule
    /// computed from what was sent, an operator applied), with its stored value: a served call's
    /// answer shows its own such members.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub shows_computed: bool,
    /// Where the recorded calls answered otherwise by the options they sent beside their
    /// envelope (`{"update": {…}, "return": true}` answering the row, the same call without
    /// `return` only `{"ok": true}`): the answer of each recorded set of options. A served call
    /// sending options no recorded call sent has no answer to give, and is refused.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub by_options: Vec<OptionedAnswer>,
    /// For a [`ResponseKind::Rows`] answer: the order of its items and what each shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<RowsModel>,
    /// For an [`ResponseKind::Entity`] answer showing one object member of the written entity
    /// rather than the entity (`{"run_info": …}`, the run's `info`): that member's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub member: Option<String>,
    /// The answer's object member naming the members the call changed, each as stored or as its
    /// link object's id (see [`super::references::ChangedMembers`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changed: Option<super::references::ChangedMembers>,
    /// For an [`ResponseKind::Entity`] answer: the places outside the entity that repeat one of
    /// its text members naming it by id (answer pointer → entity member pointer, see
    /// [`super::echoed`]): a served answer shows the served entity's value there.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub echoed: std::collections::BTreeMap<String, String>,
    /// The places outside the entity listing the names the call sent in one object of its body
    /// (answer pointer → body pointer, see [`super::sent_names`]): a served answer lists its own
    /// call's names there.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub sent_names: std::collections::BTreeMap<String, String>,
    /// The answer's text members spelling the call's own path (after a constant origin, before
    /// a constant query: see [`crate::path_echo`]), as every recorded call's answer did: a
    /// served answer spells the served call's path there (a delete's `links.self`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub path_echoes: Vec<crate::path_echo::PathEcho>,
    /// For a [`ResponseKind::Projection`] answer: its envelope members holding more of the
    /// entity's members, and the member its links are spelled by (see [`super::projected`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub projected: Option<super::projected::ProjectedAnswer>,
}

impl ResponseModel {
    /// An answer of `kind` at `pointer` in the status and media type of the exemplar record, with
    /// nothing else learned yet (a bulk write's rows, a selecting write's count).
    pub(crate) fn recorded_at(
        record: &rea_plugin_api::contracts::capture::CaptureRecord,
        kind: ResponseKind,
        pointer: String,
        rows: Option<RowsModel>,
    ) -> Self {
        ResponseModel {
            ordinal: record.ordinal,
            status: record.response.status,
            media_type: record.response.media_type.as_deref().map(str::to_owned),
            kind,
            pointer: Some(pointer),
            required_members: Vec::new(),
            nulled_members: Vec::new(),
            shows_computed: false,
            renamed: Default::default(),
            by_options: Vec::new(),
            rows,
            member: None,
            changed: None,
            echoed: Default::default(),
            sent_names: Default::default(),
            path_echoes: Vec::new(),
            projected: None,
        }
    }
}

/// How a batch's answer lists the rows it wrote, one item per row (see [`ResponseKind::Rows`]),
/// learned from the recorded answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RowsModel {
    /// The order the items follow.
    pub order: RowOrder,
    /// What each item shows of its written entity: `None`, the entity whole; else these
    /// members, in the recorded item's order.
    pub members: Option<Vec<RowMember>>,
}

/// The order a batch's answer lists its rows in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RowOrder {
    /// The order the body sent them in.
    Body,
    /// The written entities' identities, ascending (the application reads the rows back by
    /// key: `DOC` before `WEB` whatever order they were sent in).
    Identity,
}

/// One member of a batch answer's item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RowMember {
    /// The item's member.
    pub name: String,
    /// The written entity's member it shows (the same name, or a text member under another
    /// name: `id` showing `_id`); `None`: it shows `value`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shows: Option<String>,
    /// The value every recorded item showed there (`"ok": true`), when it shows no member.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Json>,
}

/// The answer the recorded calls gave when they sent one set of options beside their envelope.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OptionedAnswer {
    /// The options sent, as sent (those not sent left out).
    pub options: BTreeMap<String, Json>,
    /// The answer those calls gave.
    pub response: ResponseModel,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_options_a_body_sends_are_those_the_model_names_as_sent() {
        let option = MemberModel {
            types: vec!["boolean".to_owned()],
            required: false,
            fixed: None,
        };
        let model = BodyModel {
            envelope: "/update".to_owned(),
            options: [("return".to_owned(), option)].into_iter().collect(),
            ..BodyModel::default()
        };
        let body = |text: &str| Json::parse(text.as_bytes()).expect("JSON");
        let sent = model.sent_options(Some(&body(r#"{"update": {"a": 1}, "return": true}"#)));
        assert_eq!(
            sent,
            [("return".to_owned(), Json::Bool(true))]
                .into_iter()
                .collect()
        );
        // Not sent (or no body): no options, the set the calls without `return` sent.
        assert!(
            model
                .sent_options(Some(&body(r#"{"update": {"a": 1}}"#)))
                .is_empty()
        );
        assert!(model.sent_options(None).is_empty());
    }
}

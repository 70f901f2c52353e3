//! The rule contract: what a state rule learns from, and what it answers when applied.
//!
//! A rule explains what a write changes besides what it sent (a generated id, a timestamp, a
//! soft-delete flag, a flipped boolean, a list order). The host gathers, for one write tool, the
//! observations of its recorded calls — the entity before each call, what was sent, what the
//! response showed, the reads after it — and asks each rule in pipeline order to `learn`. A rule
//! that explains something answers a learned rule (its own JSON, opaque to the host) and the fields
//! it explains; the host confirms the plan by replaying the capture and, when serving, calls `apply`
//! with the learned rule and the served call's context to get the values the rule sets.
//!
//! What the host has already explained for each call (members stored as sent, members an update
//! kept or a `PUT` removed, constants a create copies, values taken from the path) is left out of
//! [`ObservedCall::unexplained`]: a rule explains the rest (a generated id, a clock, a counter, a
//! flipped flag) or the placement of the written entity in its list. Rules run in pipeline order,
//! and each sees only what the rules before it left unexplained.
//!
//! The types are generic where a rule's own types cross: a rule's pipeline options
//! ([`LearnRequest::options`], [`RawOptions`] on the wire) and its learned rule
//! ([`LearnOutcome::Learned::rule`], [`ApplyRequest::rule`], a JSON value on the wire). A rule
//! written with [`crate::StateRule`] names its `Options` and `Rule` types and sees only those; the
//! host, to which both are opaque, uses the defaults. [`OptionsCheckRequest`] and [`OptionsCheck`]
//! let `rea pipeline check` ask a rule whether option *values* fit before anything runs.

use std::collections::BTreeMap;

use abi_stable::std_types::RString;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{current_schema_version, schema_versioned};

/// A rule's options as the pipeline wrote them (`[[rules]] options = {…}`): the wire form.
pub type RawOptions = BTreeMap<String, Value>;

/// The options of a rule that takes none: only an empty table fits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoOptions {}

/// The effect the host models for a write tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Effect {
    /// Adds an entity.
    Create,
    /// Changes an entity.
    Update,
    /// Changes an entity through an action segment (`/{type}/{id}/archive`).
    Action,
    /// Removes an entity.
    Delete,
    /// Changes several entities.
    BulkUpdate,
    /// Removes several entities.
    BulkDelete,
    /// Changes a document.
    Document,
}

impl Effect {
    /// The effects that change entities the state holds: an update, an action, a bulk update.
    pub const UPDATES: [Effect; 3] = [Effect::Update, Effect::Action, Effect::BulkUpdate];

    /// The effects that remove entities: a delete, a bulk delete.
    pub const DELETES: [Effect; 2] = [Effect::Delete, Effect::BulkDelete];

    /// The effects whose calls write members: every effect but the deletes.
    pub const WRITING_MEMBERS: [Effect; 5] = [
        Effect::Create,
        Effect::Update,
        Effect::Action,
        Effect::BulkUpdate,
        Effect::Document,
    ];

    /// The wire spelling (`create`, `bulk-update`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Effect::Create => "create",
            Effect::Update => "update",
            Effect::Action => "action",
            Effect::Delete => "delete",
            Effect::BulkUpdate => "bulk-update",
            Effect::BulkDelete => "bulk-delete",
            Effect::Document => "document",
        }
    }

    /// Whether it changes entities it keeps: `update`, `action` or `bulk-update`.
    pub fn updates(self) -> bool {
        matches!(self, Effect::Update | Effect::Action | Effect::BulkUpdate)
    }

    /// Whether it removes entities: `delete` or `bulk-delete`.
    pub fn deletes(self) -> bool {
        matches!(self, Effect::Delete | Effect::BulkDelete)
    }
}

impl std::fmt::Display for Effect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a read after a write shows: one entity, or a list.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReadKind {
    /// A read of one entity.
    #[default]
    Item,
    /// A read of a list.
    List,
}

/// What a rule is asked to learn from: one write tool's recorded calls, with the rule's options
/// (typed `O` for a rule, [`RawOptions`] on the wire).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LearnRequest<O = RawOptions> {
    /// The recorded calls of the tool, in capture order.
    pub calls: Vec<ObservedCall>,
    /// Clock anchors: record start instants the write clock may be learned from.
    #[serde(default)]
    pub clock_anchors: Vec<ClockAnchor>,
    /// The effect the host models for the tool.
    pub effect: Effect,
    /// The identity field of the written type, when known.
    pub identity_field: Option<String>,
    /// The rule's options from the pipeline.
    #[serde(default)]
    pub options: O,
    /// Always [`super::SCHEMA_VERSION`].
    #[serde(default = "current_schema_version")]
    pub schema_version: u32,
    /// The tool: method and path template.
    pub tool: ToolRef,
}

/// A manifest tool, by name, method and path template.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolRef {
    /// The HTTP method.
    pub method: String,
    /// The tool's MCP name.
    pub name: String,
    /// The path template (`/api/posts/{id}`).
    pub path_template: String,
}

/// One recorded call of a write tool and what was seen around it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ObservedCall {
    /// The record's duration in whole milliseconds, when recorded.
    #[serde(default)]
    pub duration_ms: Option<u64>,
    /// The entity as the host observed it after the call (the first read of it by id after the
    /// call, else the entity the response showed); `None` when absent or unobserved.
    #[serde(default)]
    pub entity_after: Option<Value>,
    /// The entity as the state held it before the call, when the call wrote one it held.
    pub entity_before: Option<Value>,
    /// Per top-level field, the largest integer (a number, or a string of digits) the written
    /// collection held or had been given before the call (what a sequence continues from).
    #[serde(default)]
    pub held_max: BTreeMap<String, Value>,
    /// Per top-level field, the largest integer the written collection held at any time before
    /// the call, entities since deleted included, where that is more than `held_max` (a counter
    /// that never gives a number twice continues from it: a create after the latest was
    /// deleted). Empty otherwise, and from a host built before it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub given_max: BTreeMap<String, Value>,
    /// The path parameters of the call, by template index.
    #[serde(default)]
    pub path_params: Vec<String>,
    /// Reads after the call that show the written entity or its list, in capture order.
    #[serde(default)]
    pub reads_after: Vec<ObservedRead>,
    /// The record's ordinal.
    pub record_ordinal: u64,
    /// The parsed request body, when JSON.
    pub request_body: Option<Value>,
    /// The parsed response body, when JSON.
    pub response_body: Option<Value>,
    /// The response status.
    pub response_status: u16,
    /// The record's start instant (see `StartTime::instant`).
    pub started: Option<String>,
    /// The written entity's position in its collection's order before the call (`None` for a
    /// create, or when the state held no such entity).
    #[serde(default)]
    pub position_before: Option<usize>,
    /// What the call changed that the host could not explain from what it sent: JSON pointer into
    /// the entity → the value after the call (`null` for a member the call removed). A rule
    /// explains some of these pointers.
    #[serde(default)]
    pub unexplained: BTreeMap<String, Value>,
    /// What the rules before this one in the pipeline explained of the call (JSON pointer → the
    /// value after the call): values another rule generates in the same call (a created
    /// entity's id), which a rule whose learned rule names `"earlier": true` gets, served, in
    /// [`ServedCall::earlier`]. Empty from a host built before it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub earlier: BTreeMap<String, Value>,
    /// For a delete: the entities of other types the state held before the call with a top-level
    /// member equal to the deleted entity's id, each as the first read of it by id after the call
    /// (before the next write) showed it. Empty for other writes and when no read showed one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dependents: Vec<ObservedDependent>,
    /// The store-wide counters the host keeps (see [`ServedCall::store_counters`]), at their
    /// values before this call: the answer pointer → its value. Empty when the host keeps none
    /// (a host built before store counters, or a capture showing none).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub store_counters: BTreeMap<String, Value>,
    /// The top-level member names of the request body in the order the call sent them (a parsed
    /// `request_body` keeps no order); empty when the body is not a JSON object. For a rule whose
    /// value digests the document as the application serialized it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub member_order: Vec<String>,
    /// For a create: the entities of the written type the state held before the call (their
    /// top-level members holding a string, number, boolean or null), passed only when some
    /// member the call's collection held with one value is offered in `unexplained` because the
    /// type's other collections hold it with others (a value the collection shares by chance,
    /// which a rule may explain as a function of another member). Empty otherwise, and from a
    /// host built before it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub held_entities: Vec<Value>,
    /// The response statuses of the same tool's refused calls since its previous successful
    /// call (or the capture's start), in record order: a refused create may have consumed a
    /// number its collection's sequence would otherwise have given the next one. Empty when
    /// none was refused, and from a host built before it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused_before: Vec<u16>,
}

/// An entity of another type that held a deleted entity's id, and what a read after the delete
/// showed of it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ObservedDependent {
    /// Its type (the collection template its item view reads).
    pub entity_type: String,
    /// The members whose value (as text) is the deleted entity's id: a top-level member by its
    /// name, a member nested in object members by its JSON pointer (starting with `/`), the
    /// items of an array by a `*` segment (`/devices/*/deviceID`: some item's member holds it).
    pub fields: Vec<String>,
    /// The entity as the state held it before the delete.
    pub before: Value,
    /// The entity as the read after the delete showed it (`None`: the read showed it absent).
    pub after: Option<Value>,
}

/// What a delete does to the entities of another type that hold the deleted entity's id in a
/// top-level member (a relation): the host applies it to every such entity it holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DependentEffect {
    /// The dependent type.
    pub entity_type: String,
    /// The member holding the deleted entity's id (a top-level name, or a JSON pointer starting
    /// with `/` for a member nested in object members).
    pub field: String,
    /// What happens to each dependent.
    pub action: DependentAction,
}

/// What a delete does to one dependent entity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum DependentAction {
    /// It is removed with the deleted entity (a cascade).
    Remove,
    /// Its member is set to `null` (the relation is cleared).
    Clear,
    /// The items of its array naming the deleted entity are taken out, the others kept (a
    /// membership list: a folder's `devices`, `[{"deviceID": …}]`, losing a deleted device). The
    /// field names the array's items with a `*` segment (`/devices/*/deviceID`, `/tags/*`).
    /// Added after `Clear`: an older host reads no rule naming it.
    Pull,
}

/// A read after a write that shows the written entity or its collection.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ObservedRead {
    /// The entity as this read showed it (`None` when the read showed it absent).
    pub entity: Option<Value>,
    /// For a read of a list: the identities in the order the list showed them.
    pub list_order: Option<Vec<String>>,
    /// For a list read: where the written entity appears in `list_order`, when it does.
    #[serde(default)]
    pub position: Option<usize>,
    /// Whether the read's query sorted the list (a sort must not be learned from such a read).
    #[serde(default)]
    pub query_sorted: bool,
    /// The read's kind.
    pub kind: ReadKind,
    /// The read's record ordinal.
    pub record_ordinal: u64,
    /// For a whole list read: the top-level fields every member carries whose values the list's
    /// order follows (`field` ascending, `-field` descending; ties allowed).
    #[serde(default)]
    pub sorted_by: Vec<String>,
    /// The read's response status.
    pub status: u16,
    /// Whether the read lists the whole collection (no query other than paging from the start).
    #[serde(default)]
    pub whole: bool,
}

/// A point where the capture fixes the clock: a record's start instant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockAnchor {
    /// The record ordinal.
    pub record_ordinal: u64,
    /// The record's start instant (see `StartTime::instant`).
    pub instant: String,
    /// The record's recorded duration in whole milliseconds, when recorded.
    pub duration_ms: Option<u64>,
}

/// What a rule answers to `learn` (its learned rule typed `R` for the rule, JSON on the wire).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "kebab-case")]
pub enum LearnOutcome<R = Value> {
    /// The rule explains some fields of the tool's writes.
    Learned {
        /// The fields (JSON pointers into the entity) the rule explains.
        explains: Vec<String>,
        /// Whether applying the rule needs the served clock (`ServedCall::clock`): a plan with
        /// such a rule is withheld (`unknown-clock`) when the capture fixes no write clock.
        #[serde(default)]
        needs_clock: bool,
        /// The learned rule, opaque to the host: passed back to `apply`.
        rule: R,
        /// Always [`super::SCHEMA_VERSION`].
        #[serde(default = "current_schema_version")]
        schema_version: u32,
    },
    /// The rule does not explain this tool's writes.
    NoExplanation {
        /// One sentence: why not.
        reason: String,
        /// Always [`super::SCHEMA_VERSION`].
        #[serde(default = "current_schema_version")]
        schema_version: u32,
    },
}

/// What a rule is asked when a served call applies it (the learned rule typed `R` for the rule,
/// JSON on the wire).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApplyRequest<R = Value> {
    /// The served call.
    pub call: ServedCall,
    /// The learned rule, as `learn` answered it.
    pub rule: R,
    /// Always [`super::SCHEMA_VERSION`].
    #[serde(default = "current_schema_version")]
    pub schema_version: u32,
    /// The tool.
    pub tool: ToolRef,
}

/// The context of a served write call.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ServedCall {
    /// The body the caller sent.
    pub body: Option<Value>,
    /// The served clock for this write (`YYYY-MM-DDTHH:MM:SS.fffffffffZ`), when the state has one.
    pub clock: Option<String>,
    /// The entity the call writes, as held before the call (`None` for a create).
    pub entity_before: Option<Value>,
    /// What the plan's other rules set for this call (pointer → value), passed only to a rule
    /// whose learned rule names `"earlier": true` (a value spelled from one another rule
    /// generates in the same call, such as a created entity's URL ending in its generated id),
    /// which the host calls after the others answered; empty otherwise.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub earlier: BTreeMap<String, Value>,
    /// Every value the collection holds for each field the rule explains, with the largest a
    /// sequence generated there (field pointer → held values): passed only to a stage that
    /// declares [`HeldIndexKind::Values`] (a stage built before held indexes, by default), since
    /// it grows with the collection. Other stages ask [`ServedCall::held`].
    #[serde(default)]
    pub held_values: BTreeMap<String, Vec<Value>>,
    /// What the written collection holds, answered from the indexes the host keeps for the
    /// kinds the stage declares ([`crate::StateRule::held_indexes`]); not part of the JSON. Read
    /// it through [`ServedCall::largest_integer`], [`ServedCall::holds_text`],
    /// [`ServedCall::holds_folded_text`] and [`ServedCall::held_strings`], which fall back to
    /// [`ServedCall::held_values`] when the host passed no index (a rule's unit tests).
    #[serde(skip)]
    pub held: Held,
    /// The path parameters by template index.
    #[serde(default)]
    pub path_params: Vec<String>,
    /// The state Evidence id.
    pub state_evidence_id: String,
    /// What the values a write generates derive from (fresh ids, tokens): a digest of the served
    /// state that names no file, path or parent Evidence, so the same recording generates the
    /// same values wherever it is stored. Empty from a host built before it: read it through
    /// [`ServedCall::generation_seed`].
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub draw_seed: String,
    /// The store-wide counters the host keeps (an integer member of the application's answers
    /// that holds steady between writes and steps by one per served write, such as a store's
    /// revision in every answer's header): the answer pointer a rule learned it at → its value
    /// before this write. Empty when the host keeps none (a host built before store counters).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub store_counters: BTreeMap<String, Value>,
    /// How many writes the state served since its last reset or load, this one excluded.
    pub write_count: u64,
    /// The response statuses of the tool's served calls refused since its previous served
    /// success (see [`ObservedCall::refused_before`]). Empty from a host built before it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused_before: Vec<u16>,
}

/// A question a rule may ask about what the written collection holds at a top-level field it
/// explains, which the host answers from an index it keeps up to date as served writes change
/// the collection (so a served write costs the same at 1k entities as at 100k).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HeldIndexKind {
    /// The largest integer held there ([`held_integer`]) or generated there by a sequence
    /// ([`ServedCall::largest_integer`]).
    LargestInteger,
    /// Whether a value's text is held there ([`held_text`], [`ServedCall::holds_text`]).
    Texts,
    /// Whether a string is held there, ASCII case ignored ([`ServedCall::holds_folded_text`]).
    FoldedTexts,
    /// The distinct strings held there ([`ServedCall::held_strings`]; as many as the
    /// collection holds, so a rule asks only on a rare path).
    Strings,
    /// Every held value in [`ServedCall::held_values`], as the host passed them before held
    /// indexes: a cost that grows with the collection (what a stage built before them gets).
    Values,
}

/// The held-index kinds a rule stage asks about (its answer to the ABI's `held_indexes`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeldIndexes {
    /// The kinds, for every top-level field the stage's learned rules explain.
    pub kinds: Vec<HeldIndexKind>,
    /// Always [`super::SCHEMA_VERSION`].
    #[serde(default = "current_schema_version")]
    pub schema_version: u32,
}

impl HeldIndexes {
    /// The kinds a stage's declaration (its `held_indexes` answer) names; one that does not read
    /// back asks for [`HeldIndexKind::Values`], what a stage built before declarations gets, so
    /// the stage still applies as it was built to.
    pub fn declared(text: &str) -> Vec<HeldIndexKind> {
        serde_json::from_str::<HeldIndexes>(text)
            .map_or_else(|_| vec![HeldIndexKind::Values], |declared| declared.kinds)
    }
}

/// When a rule stage's `learn` can explain anything (its answer to the ABI's `learn_scope`): the
/// host asks it only then, so a stage is not sent, decoded and dropped a tool's whole request to
/// answer "nothing" (issue 12). The default, what a stage built before declarations gets, is
/// asked for every tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LearnScope {
    /// The effects the stage learns for ([`LearnRequest::effect`]); none: every effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effects: Option<Vec<Effect>>,
    /// Whether the stage's learned rule joins a plan only by explaining members the calls left
    /// unexplained (it places no entity and changes no dependents): the host does not ask it when
    /// no call has anything unexplained.
    #[serde(default)]
    pub explains_only: bool,
    /// Always [`super::SCHEMA_VERSION`].
    #[serde(default = "current_schema_version")]
    pub schema_version: u32,
}

impl Default for LearnScope {
    /// Every tool: every effect, asked whatever is left unexplained.
    fn default() -> Self {
        Self {
            effects: None,
            explains_only: false,
            schema_version: super::SCHEMA_VERSION,
        }
    }
}

impl LearnScope {
    /// A stage that learns only for these effects (still asked when nothing is unexplained).
    pub fn effects(effects: impl IntoIterator<Item = Effect>) -> Self {
        Self {
            effects: Some(effects.into_iter().collect()),
            ..Self::default()
        }
    }

    /// This scope, for a stage whose rule joins only by explaining (see
    /// [`LearnScope::explains_only`]).
    pub fn explaining(mut self) -> Self {
        self.explains_only = true;
        self
    }

    /// The scope a stage's declaration (its `learn_scope` answer) names; one that does not read
    /// back is every tool, what a stage built before declarations gets.
    pub fn declared(text: &str) -> Self {
        serde_json::from_str::<LearnScope>(text).unwrap_or_default()
    }

    /// Whether the stage is asked to learn for a tool of this effect, when some call of it has
    /// something unexplained (`unexplained`) or none has.
    pub fn asks(&self, effect: Effect, unexplained: bool) -> bool {
        (unexplained || !self.explains_only)
            && self
                .effects
                .as_ref()
                .is_none_or(|effects| effects.contains(&effect))
    }
}

/// An integer as a sequence reads it: a JSON number within 64 bits, or a non-empty string of
/// ASCII digits (within 128 bits).
pub fn held_integer(value: &Value) -> Option<i128> {
    match value {
        Value::Number(number) => number.as_i64().map(i128::from),
        Value::String(text) if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => {
            text.parse().ok()
        }
        _ => None,
    }
}

/// A value's text as membership reads it: a string's text, an integer number's decimal digits.
pub fn held_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) if number.is_u64() || number.is_i64() => Some(number.to_string()),
        _ => None,
    }
}

/// What the written collection holds, as a served call's rule may ask it: the host's index
/// (crossing the ABI as a [`crate::abi::HeldIndexBox`]), or none (then
/// [`ServedCall::held_values`] answers).
#[derive(Clone, Default)]
pub struct Held(Option<std::sync::Arc<crate::abi::HeldIndexBox>>);

impl Held {
    /// The host's index, as the ABI passed it.
    pub fn from_index(index: crate::abi::HeldIndexBox) -> Self {
        Self(Some(std::sync::Arc::new(index)))
    }

    fn index(&self) -> Option<&crate::abi::HeldIndexBox> {
        self.0.as_deref()
    }
}

impl std::fmt::Debug for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Held(index)"
        } else {
            "Held(none)"
        })
    }
}

impl PartialEq for Held {
    /// Two answers are equal when both are the same index, or neither has one.
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Some(left), Some(right)) => std::sync::Arc::ptr_eq(left, right),
            (None, None) => true,
            _ => false,
        }
    }
}

impl ServedCall {
    /// What generated values derive from: [`ServedCall::draw_seed`], or the state Evidence id
    /// when the host passed no draw seed.
    pub fn generation_seed(&self) -> &str {
        if self.draw_seed.is_empty() {
            &self.state_evidence_id
        } else {
            &self.draw_seed
        }
    }

    fn listed(&self, pointer: &str) -> impl Iterator<Item = &Value> {
        self.held_values.get(pointer).into_iter().flatten()
    }

    /// The largest integer ([`held_integer`]) the collection holds at `pointer`, or a sequence
    /// generated there ([`HeldIndexKind::LargestInteger`]).
    pub fn largest_integer(&self, pointer: &str) -> Option<i128> {
        match self.held.index() {
            Some(index) => index
                .largest_integer(pointer.into())
                .into_option()
                .and_then(|text| text.as_str().parse().ok()),
            None => self.listed(pointer).filter_map(held_integer).max(),
        }
    }

    /// Whether the collection holds a value whose [`held_text`] is `text` at `pointer`, or a
    /// sequence generated it there ([`HeldIndexKind::Texts`]).
    pub fn holds_text(&self, pointer: &str, text: &str) -> bool {
        match self.held.index() {
            Some(index) => index.holds_text(pointer.into(), text.into(), false),
            None => self
                .listed(pointer)
                .any(|value| held_text(value).as_deref() == Some(text)),
        }
    }

    /// Whether the collection holds a string equal to `text`, ASCII case ignored, at `pointer`
    /// ([`HeldIndexKind::FoldedTexts`]).
    pub fn holds_folded_text(&self, pointer: &str, text: &str) -> bool {
        match self.held.index() {
            Some(index) => index.holds_text(pointer.into(), text.into(), true),
            None => self
                .listed(pointer)
                .filter_map(Value::as_str)
                .any(|held| held.eq_ignore_ascii_case(text)),
        }
    }

    /// The distinct strings the collection holds at `pointer`, sorted
    /// ([`HeldIndexKind::Strings`]).
    pub fn held_strings(&self, pointer: &str) -> Vec<String> {
        let strings: std::collections::BTreeSet<String> = match self.held.index() {
            Some(index) => index
                .strings(pointer.into())
                .into_iter()
                .map(RString::into_string)
                .collect(),
            None => self
                .listed(pointer)
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
        };
        strings.into_iter().collect()
    }
}

/// What a rule answers to `apply`: the field values it sets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApplyOutcome {
    /// For a delete: keep the entity, marked by `set`, instead of removing it (a soft delete).
    #[serde(default)]
    pub keep: bool,
    /// For a delete: what happens to the entities of other types holding the deleted entity's
    /// id (see [`DependentEffect`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dependents: Vec<DependentEffect>,
    /// Where the written entity goes in its collection's order, when the rule decides it.
    #[serde(default)]
    pub placement: Option<Placement>,
    /// Members to remove (JSON pointers into the entity).
    #[serde(default)]
    pub remove: Vec<String>,
    /// Always [`super::SCHEMA_VERSION`].
    #[serde(default = "current_schema_version")]
    pub schema_version: u32,
    /// Values to set (JSON pointer into the entity → value).
    pub set: BTreeMap<String, Value>,
}

/// Where a written entity goes in its collection's order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Placement {
    /// First.
    First,
    /// Last.
    Last,
    /// Where it was (an update), or last (a create).
    Keep,
    /// Where a sort by a top-level field puts it: after the entities that sort before it or
    /// equal to it (ascending), or before them (descending).
    Sorted {
        /// The field.
        field: String,
        /// Whether the order is descending.
        descending: bool,
    },
}

impl Default for ApplyOutcome {
    /// Sets nothing, at the current schema version.
    fn default() -> Self {
        Self {
            dependents: Vec::new(),
            keep: false,
            placement: None,
            remove: Vec::new(),
            schema_version: super::SCHEMA_VERSION,
            set: BTreeMap::new(),
        }
    }
}

impl<R> LearnOutcome<R> {
    /// A learned rule explaining `explains`, at the current schema version.
    pub fn learned(explains: Vec<String>, rule: R) -> Self {
        LearnOutcome::Learned {
            explains,
            needs_clock: false,
            rule,
            schema_version: super::SCHEMA_VERSION,
        }
    }

    /// The same outcome, its rule needing the served clock (no change to `NoExplanation`).
    pub fn needing_clock(mut self) -> Self {
        if let LearnOutcome::Learned { needs_clock, .. } = &mut self {
            *needs_clock = true;
        }
        self
    }

    /// No explanation, with its reason, at the current schema version.
    pub fn no_explanation(reason: impl Into<String>) -> Self {
        LearnOutcome::NoExplanation {
            reason: reason.into(),
            schema_version: super::SCHEMA_VERSION,
        }
    }

    fn version(&self) -> u32 {
        match self {
            LearnOutcome::Learned { schema_version, .. }
            | LearnOutcome::NoExplanation { schema_version, .. } => *schema_version,
        }
    }

    /// The same outcome with its rule turned into another type (its JSON form, for instance).
    pub fn map_rule<S, E>(self, map: impl FnOnce(R) -> Result<S, E>) -> Result<LearnOutcome<S>, E> {
        Ok(match self {
            LearnOutcome::Learned {
                explains,
                needs_clock,
                rule,
                schema_version,
            } => LearnOutcome::Learned {
                explains,
                needs_clock,
                rule: map(rule)?,
                schema_version,
            },
            LearnOutcome::NoExplanation {
                reason,
                schema_version,
            } => LearnOutcome::NoExplanation {
                reason,
                schema_version,
            },
        })
    }
}

impl<O> LearnRequest<O> {
    /// The same request with other options (the typed reading of the wire's).
    pub fn with_options<P>(self, options: P) -> LearnRequest<P> {
        LearnRequest {
            calls: self.calls,
            clock_anchors: self.clock_anchors,
            effect: self.effect,
            identity_field: self.identity_field,
            options,
            schema_version: self.schema_version,
            tool: self.tool,
        }
    }
}

impl<R> ApplyRequest<R> {
    /// The same request with another rule (the typed reading of the wire's).
    pub fn with_rule<S>(self, rule: S) -> ApplyRequest<S> {
        ApplyRequest {
            call: self.call,
            rule,
            schema_version: self.schema_version,
            tool: self.tool,
        }
    }
}

/// `rea pipeline check` asking a rule stage whether option values fit its options.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OptionsCheckRequest {
    /// The options as the pipeline wrote them (only names the stage declares).
    pub options: RawOptions,
    /// Always [`super::SCHEMA_VERSION`].
    #[serde(default = "current_schema_version")]
    pub schema_version: u32,
}

/// What a rule answers to an options check: every problem it found (none when the values fit).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OptionsCheck {
    /// The problems, each located by JSON pointer into the options.
    pub problems: Vec<OptionProblem>,
    /// Always [`super::SCHEMA_VERSION`].
    #[serde(default = "current_schema_version")]
    pub schema_version: u32,
}

/// One option value that does not fit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OptionProblem {
    /// JSON pointer into the options (`/fields/1`; empty for the options as a whole).
    pub pointer: String,
    /// One sentence.
    pub message: String,
}

impl<R> super::SchemaVersioned for LearnOutcome<R> {
    const CONTRACT: &'static str = "rule learn outcome";
    fn schema_version(&self) -> u32 {
        self.version()
    }
}

impl<O> super::SchemaVersioned for LearnRequest<O> {
    const CONTRACT: &'static str = "rule learn request";
    fn schema_version(&self) -> u32 {
        self.schema_version
    }
}

impl<R> super::SchemaVersioned for ApplyRequest<R> {
    const CONTRACT: &'static str = "rule apply request";
    fn schema_version(&self) -> u32 {
        self.schema_version
    }
}

schema_versioned! {
    ApplyOutcome => "rule apply outcome",
    HeldIndexes => "rule held indexes",
    LearnScope => "rule learn scope",
    OptionsCheckRequest => "rule options check request",
    OptionsCheck => "rule options check",
}

#[cfg(test)]
mod tests {
    use super::ServedCall;

    #[test]
    fn generated_values_draw_from_the_draw_seed_or_else_the_state_id() {
        let mut call = ServedCall {
            state_evidence_id: "ev_state".to_owned(),
            ..ServedCall::default()
        };
        // A host built before draw seeds passes none: the state Evidence id stands in.
        assert_eq!(call.generation_seed(), "ev_state");
        let json = serde_json::to_value(&call).expect("json");
        assert!(json.get("draw_seed").is_none(), "an empty seed is left out");
        call.draw_seed = "ev_seed".to_owned();
        assert_eq!(call.generation_seed(), "ev_seed");
        let read: ServedCall =
            serde_json::from_value(serde_json::to_value(&call).expect("json")).expect("read");
        assert_eq!(read.draw_seed, "ev_seed");
    }
}

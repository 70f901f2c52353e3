//! Pass 3, second half: what explains the changes a plan's observed calls made.
//!
//! In order: what each call itself shows (members stored as sent, unsent members an update kept
//! or a `PUT` removed, members sent under another name, and for creates members holding a path
//! value or the value every held entity of the collection shares); then the rule stages in
//! pipeline order, each seeing what the ones before it left; then, for creates, members every
//! create stored with one value (constants). What is left is unexplained.

use rea_plugin_api::contracts::capture::CompactString;
use std::collections::{BTreeMap, BTreeSet};

use rea_plugin_api::contracts::rule::Effect as RuleEffect;
use rea_plugin_api::contracts::rule::{
    ClockAnchor, LearnOutcome, LearnRequest, ObservedCall, ToolRef,
};
use rea_plugin_api::json::{Json, Object, escape_pointer_segment};

use super::encoded::EncodedRequest;
use super::model::{Effect, FieldModel, PathField, PlanRule, WritePlan};
use super::observe::{After, Call};
use crate::derive::{DELETED_FLAGS, marked_deleted};
use crate::observation::{RequestBody, decoded};
use crate::render::scalar_text;
use crate::rules::{ConfiguredRule, RuleSet};

/// Where a document write's sent members land: the document's root when it holds every one of
/// them, else the one top-level member (an envelope: `/data`) whose object holds every one as
/// sent.
pub(super) fn document_pointer(sent: &Object, after: &Json) -> String {
    let Some(root) = after.as_object() else {
        return String::new();
    };
    if sent.is_empty()
        || sent
            .iter()
            .all(|(key, value)| root.contains_key(key) || value.is_null())
    {
        return String::new();
    }
    let holding: Vec<&str> = root
        .iter()
        .filter(|(_, value)| {
            value.as_object().is_some_and(|inner| {
                sent.iter()
                    .all(|(key, member)| inner.get(key) == Some(member))
            })
        })
        .map(|(key, _)| key)
        .collect();
    match holding.as_slice() {
        [envelope] => pointer_of(envelope),
        _ => String::new(),
    }
}

/// Where a document write of `{document}/{id}/{member}` lands when the document's root does not
/// hold what it sent: the element member (`trial_id`) whose value is the path's `id` in every
/// top-level array element holding the sent members in its `member` object, when one member
/// does, with the pointer to `member` inside the element (`/note`).
pub(super) fn document_element(
    sent: &Object,
    after: &Json,
    segments: &[CompactString],
) -> Option<(String, String)> {
    let [.., id, member] = segments else {
        return None;
    };
    let root = after.as_object()?;
    if sent.is_empty() || sent.iter().all(|(key, _)| root.contains_key(key)) {
        return None;
    }
    let id = crate::observation::decoded(id);
    let holds = |element: &Json| {
        element
            .get(member)
            .and_then(Json::as_object)
            .is_some_and(|inner| {
                sent.iter()
                    .all(|(key, value)| inner.get(key) == Some(value))
            })
    };
    let mut keys = BTreeSet::new();
    for (_, value) in root.iter() {
        let elements = value
            .as_array()
            .map_or(&[][..], |elements| elements.as_slice());
        for fields in elements
            .iter()
            .filter(|element| holds(element))
            .filter_map(Json::as_object)
        {
            keys.extend(
                fields
                    .iter()
                    .filter(|(_, field)| scalar_text(field).as_deref() == Some(id.as_str()))
                    .map(|(name, _)| name.to_owned()),
            );
        }
    }
    let mut keys = keys.into_iter();
    match (keys.next(), keys.next()) {
        (Some(key), None) => Some((key, pointer_of(member))),
        _ => None,
    }
}

/// The pointers of the elements of a document's top-level arrays whose `key` member holds `id`
/// (`/trials/3`, `/best_trials/0`), in document order.
pub(crate) fn element_pointers(document: &Json, key: &str, id: &str) -> Vec<String> {
    let Some(root) = document.as_object() else {
        return Vec::new();
    };
    let mut pointers = Vec::new();
    for (name, value) in root.iter() {
        let elements = value
            .as_array()
            .map_or(&[][..], |elements| elements.as_slice());
        for (index, element) in elements.iter().enumerate() {
            if element.get(key).and_then(scalar_text).as_deref() == Some(id) {
                pointers.push(format!("{}/{index}", pointer_of(name)));
            }
        }
    }
    pointers
}

/// Whether a document write sent `null` for a member the document held before (at the object
/// where its writes land) and holds no more.
fn sent_null_removed(sent: &Object, before: Option<&Json>, after: &Object, pointer: &str) -> bool {
    let held = before.and_then(|before| before.pointer(pointer));
    sent.iter().any(|(key, value)| {
        value.is_null()
            && !after.contains_key(key)
            && held.is_some_and(|held| held.get(key).is_some())
    })
}

/// What is left unexplained of one call: JSON pointer → the value after.
pub(super) type Residual = BTreeMap<String, Json>;

/// A JSON pointer to a top-level member.
pub(super) fn pointer_of(field: &str) -> String {
    format!("/{}", escape_pointer_segment(field))
}

/// One observed call of a plan, with the members it sent (inside the body's envelope, without the
/// member naming its entity).
#[derive(Debug, Clone, Copy)]
pub(super) struct Observed<'a> {
    /// The call.
    pub call: &'a Call,
    /// What it sent.
    pub sent: &'a Object,
}

/// A path template's segment: its index and, for a parameter, its pattern (`{numeric}`, or
/// `{numeric}.json` for an id fused with literal text).
pub(super) type PathSlot = (usize, Option<String>);

/// A path template's segments (see [`PathSlot`]).
pub(super) fn template_segments(template: &str) -> Vec<PathSlot> {
    rea_manifest::segments::split_path(template)
        .iter()
        .enumerate()
        .map(|(index, segment)| {
            let parameter = rea_manifest::segments::template_affixes(segment).is_some();
            (index, parameter.then(|| (*segment).to_owned()))
        })
        .collect()
}

/// The decoded value a call's path holds at a parameter (a fused one without its prefix and
/// suffix).
fn path_value(call: &Call, position: usize, pattern: &str) -> Option<String> {
    call.segments
        .get(position)
        .map(|segment| decoded(rea_manifest::segments::template_value(pattern, segment)))
}

/// How a sent member that no stored field shows is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unstored {
    /// Fixed at the first value sent (document writes).
    FirstValue,
    /// Fixed when every call sent it with one value.
    OneValue,
    /// As [`Unstored::OneValue`], except that sending `null` removes the member (updates).
    NullRemoves,
}

/// What explains a plan's observed calls, gathered call by call, then by the rules.
#[derive(Debug, Default)]
pub(super) struct Explanation {
    /// The field model the calls show.
    pub model: FieldModel,
    /// Members sent but never stored: their one value (`None`: sent with several).
    pub fixed: BTreeMap<String, Option<Json>>,
    /// Per observed call, what is left unexplained.
    pub residuals: Vec<Residual>,
    /// Creates, per observed call: the members stored without being sent.
    unsent: Vec<Residual>,
    /// Creates: the path segment each unsent member holds in every call (`None`: not in all).
    path_candidates: BTreeMap<String, Option<PathField>>,
    /// Creates: whether each unsent member holds, in every call, the value every held entity of
    /// the collection shared.
    shared_candidates: BTreeMap<String, bool>,
    /// Creates: members every held entity of the collection shared in every call, but the
    /// type's other collections held otherwise: offered to the rules, a collection constant
    /// when none explains them (see [`Explanation::settle_offered_constants`]).
    offered_shared: BTreeSet<String>,
    /// Updates and document writes: unsent members some call kept.
    kept: BTreeSet<String>,
    /// Updates and document writes: unsent members some call removed.
    removed: BTreeSet<String>,
}

/// What changed from `before` to `after` under `pointer`: inside two objects, each member that
/// changed, by its own pointer (`null` for a member removed), so a rule sees the one nested
/// member a write changed (`/info/lifecycle_stage` of an MLflow run) rather than the whole
/// object; otherwise the value after, when it differs.
fn changed_leaves(pointer: String, before: Option<&Json>, after: &Json, residual: &mut Residual) {
    match (before, after) {
        (Some(before), after) if before == after => {}
        // A new object inside one that changed: each of its leaves, as a create's.
        (None, Json::Object(_)) => created_leaves(pointer, after, residual),
        (Some(Json::Object(before)), Json::Object(after)) => {
            for (key, value) in after.iter() {
                changed_leaves(
                    format!("{pointer}/{}", escape_pointer_segment(key)),
                    before.get(key),
                    value,
                    residual,
                );
            }
            for (key, _) in before.iter() {
                if !after.contains_key(key) {
                    residual.insert(
                        format!("{pointer}/{}", escape_pointer_segment(key)),
                        Json::Null,
                    );
                }
            }
        }
        _ => {
            residual.insert(pointer, after.clone());
        }
    }
}

/// Whether a write merged into an object member (`before` → `after`): it kept at least one of
/// its leaves as it was (MLflow's run `info` keeps its `run_uuid`). An object every leaf of
/// which changed or is new may have been replaced whole by what was sent (flexget's entry PUT
/// overriding the entry data), so nothing may be placed inside it by leaf.
fn merged_into(before: &Object, after: &Object) -> bool {
    before
        .iter()
        .any(|(key, value)| after.get(key) == Some(value))
}

/// Whether every leaf of a sent object is stored as sent at its own place inside `stored`, which
/// may hold more (a JSON:API `relationships` object: the sent `author.data` kept, the `links`
/// beside it and another relationship added).
fn kept_within(sent: &Json, stored: &Json) -> bool {
    match (sent, stored) {
        (Json::Object(sent), Json::Object(stored)) => {
            !sent.is_empty()
                && sent.iter().all(|(key, value)| {
                    stored.get(key).is_some_and(|held| kept_within(value, held))
                })
        }
        (sent, stored) => sent == stored,
    }
}

/// Whether a non-empty string `value` is a leaf of an object nested in `entity` under a member
/// the call did not send (not a top-level member): an entity whose properties sit under an
/// envelope object shows the sent value there, as it is (`/attributes/summary`) or as a linked
/// object's identity (`/attributes/author/id`). A value shown only inside a member the call sent
/// itself (a publish's `versions`, holding its `description`) is that member's data, not this one's.
fn shows_nested(entity: &Object, value: &Json, sent: &Object) -> bool {
    fn holds(json: &Json, value: &Json) -> bool {
        match json {
            Json::Object(members) => members.iter().any(|(_, member)| holds(member, value)),
            Json::Array(items) => items.iter().any(|item| holds(item, value)),
            leaf => leaf == value,
        }
    }
    matches!(value, Json::String(text) if !text.is_empty())
        && entity
            .iter()
            .filter(|(key, _)| !sent.contains_key(key))
            .any(|(_, member)| matches!(member, Json::Object(_)) && holds(member, value))
}

/// What a create stored unsent under `pointer`: inside a non-empty object, each member by its
/// own pointer, so the rules and constants explain the generated values nested in a created
/// object (`/kernel/id`, `/info/run_id`) one by one rather than the whole object; otherwise the
/// value itself.
fn created_leaves(pointer: String, value: &Json, residual: &mut Residual) {
    match value {
        Json::Object(members) if !members.is_empty() => {
            for (key, member) in members.iter() {
                created_leaves(
                    format!("{pointer}/{}", escape_pointer_segment(key)),
                    member,
                    residual,
                );
            }
        }
        _ => {
            residual.insert(pointer, value.clone());
        }
    }
}

/// The one leaf of `fields` (pointers that took a sent member's value) the member sets: the only
/// one, or, of several, the one whose last segment is the member's name; with `own_name_only`,
/// that leaf alone, nested under a top-level field (`/entry/url` for `url`).
fn placed_leaf(fields: Vec<String>, member: &str, own_name_only: bool) -> Option<String> {
    let own_name = |pointer: &String| {
        pointer
            .rsplit('/')
            .next()
            .is_some_and(|last| rea_plugin_api::json::unescape_pointer_segment(last) == member)
            && pointer.matches('/').count() > 1
    };
    if !own_name_only && let [only] = fields.as_slice() {
        return Some(only.clone());
    }
    let mut named = fields.into_iter().filter(own_name);
    match (named.next(), named.next()) {
        (Some(only), None) => Some(only),
        _ => None,
    }
}

/// What a delete left unexplained: the changes of an entity it kept (a soft delete), or what the
/// answer's projection of the deleted entity shows changed.
fn delete_residual(call: &Call, residual: &mut Residual) {
    let Some(Json::Object(before)) = call.before.as_ref().map(|before| &before.fields) else {
        return;
    };
    if let After::Present(after) = &call.after {
        if let Some(after) = after.as_object() {
            for (key, value) in after.iter() {
                changed_leaves(pointer_of(key), before.get(key), value, residual);
            }
        }
        return;
    }
    if let (Some(response), Some(pointer)) = (&call.response, &call.response_pointer)
        && let Some(Json::Object(shown)) = response.pointer(pointer)
    {
        for (key, value) in shown.iter() {
            if let Some(held) = before.get(key)
                && held != value
            {
                residual.insert(pointer_of(key), value.clone());
            }
        }
    }
}

impl Explanation {
    /// What the observed calls themselves explain, and what they leave for the rules.
    pub(super) fn of_calls(
        effect: Effect,
        observed: &[Observed<'_>],
        template: &[PathSlot],
    ) -> Self {
        let mut explanation = Self::default();
        explanation.model.merged = super::merged::learn_merged(effect, observed);
        explanation.model.item_defaults = super::item_defaults::learn(effect, observed);
        for seen in observed {
            let mut residual = Residual::new();
            let mut unsent = Residual::new();
            match (&seen.call.after, effect) {
                (After::Document(after), Effect::Document) => {
                    explanation.document_call(seen, after, &mut residual);
                }
                (After::Present(after), Effect::Create) => {
                    explanation.create_call(seen, after, template, &mut residual, &mut unsent);
                }
                (After::Present(after), Effect::Update) => {
                    explanation.update_call(seen, after, &mut residual);
                }
                (_, Effect::Delete) => delete_residual(seen.call, &mut residual),
                _ => {}
            }
            explanation.residuals.push(residual);
            explanation.unsent.push(unsent);
        }
        match effect {
            Effect::Update => explanation.map_sent_as(observed, false),
            Effect::Create => {
                explanation.settle_create_candidates(observed);
                explanation.map_sent_as(observed, true);
            }
            _ => {}
        }
        explanation.offer_unstored();
        explanation.key_residuals(effect, observed);
        explanation
    }

    /// Each sent member against what was stored: as sent, stored otherwise (unexplained), or not
    /// stored (fixed, or a `null` that removes).
    fn compare_sent(
        &mut self,
        sent: &Object,
        after: &Object,
        residual: &mut Residual,
        unstored: Unstored,
    ) {
        for (key, value) in sent.iter() {
            if self.model.merged.contains_key(key) || self.model.item_defaults.contains_key(key) {
                continue;
            }
            match after.get(key) {
                Some(stored) if stored == value => {}
                // A sent object stored in part as sent (merged into, see [`merged_into`]): each
                // leaf stored otherwise, so a rule sees the one entry the write changed (a
                // clock stamped in a sent map) rather than the whole member.
                Some(stored @ Json::Object(inside))
                    if value.as_object().is_some_and(|sent| {
                        merged_into(sent, inside) || kept_within(value, stored)
                    }) =>
                {
                    changed_leaves(pointer_of(key), Some(value), stored, residual);
                }
                Some(stored) => {
                    residual.insert(pointer_of(key), stored.clone());
                }
                None if unstored == Unstored::NullRemoves && value.is_null() => {
                    self.model.null_removes = true;
                }
                None => {
                    // A create whose entity shows the sent value inside a nested object kept it
                    // as data where the plan does not place it: not a constant to insist on.
                    let shown = unstored == Unstored::OneValue && shows_nested(after, value, sent);
                    let entry = self
                        .fixed
                        .entry(key.to_owned())
                        .or_insert(Some(value.clone()));
                    if shown || (unstored != Unstored::FirstValue && entry.as_ref() != Some(value))
                    {
                        *entry = None;
                    }
                }
            }
        }
    }

    /// Each unsent member held before: kept, removed, or changed (unexplained).
    fn kept_or_removed(
        &mut self,
        sent: &Object,
        before: &Object,
        after: &Object,
        residual: &mut Residual,
    ) {
        for (key, value) in before.iter() {
            if sent.contains_key(key) {
                continue;
            }
            match after.get(key) {
                Some(now) if now == value => {
                    self.kept.insert(key.to_owned());
                }
                None => {
                    self.removed.insert(key.to_owned());
                }
                // An object member changed in part (merged into, see [`merged_into`]): each
                // changed leaf, so a member sent under another name can be placed inside it
                // (`status` setting `/info/status`).
                Some(now @ Json::Object(inside))
                    if value
                        .as_object()
                        .is_some_and(|held| merged_into(held, inside)) =>
                {
                    changed_leaves(pointer_of(key), Some(value), now, residual);
                }
                Some(now) => {
                    residual.insert(pointer_of(key), now.clone());
                }
            }
        }
    }

    /// A document write: the sent members against the document's object where they land (its
    /// root, or the one envelope member holding them, the same in every call); the rest of the
    /// document unchanged.
    fn document_call(&mut self, seen: &Observed<'_>, after: &Json, residual: &mut Residual) {
        let before = seen.call.document_before.as_ref();
        let element = document_element(seen.sent, after, &seen.call.segments);
        let key = element.as_ref().map(|(key, _)| key.clone());
        let pointer = element.map_or_else(|| document_pointer(seen.sent, after), |(_, at)| at);
        if self.residuals.is_empty() {
            self.model.document_pointer = pointer.clone();
            self.model.document_element = key.clone();
        } else if self.model.document_pointer != pointer || self.model.document_element != key {
            residual.insert(String::new(), after.clone());
            return;
        }
        if let Some(key) = &key {
            self.element_call(seen, (key, &pointer), after, residual);
            return;
        }
        let Some(inner) = after.pointer(&pointer).and_then(Json::as_object) else {
            residual.insert(String::new(), after.clone());
            return;
        };
        if let (Some(envelope), Json::Object(whole)) = (pointer.strip_prefix('/'), after) {
            for (key, value) in whole.iter() {
                if key != envelope && before.and_then(|before| before.get(key)) != Some(value) {
                    residual.insert(pointer_of(key), value.clone());
                }
            }
        }
        let mut inside = Residual::new();
        // A sent `null` the document no longer holds removed the member (a JSON merge patch);
        // another member not stored is fixed at its first value.
        let unstored = if sent_null_removed(seen.sent, before, inner, &pointer) {
            Unstored::NullRemoves
        } else {
            Unstored::FirstValue
        };
        self.compare_sent(seen.sent, inner, &mut inside, unstored);
        if let Some(Json::Object(before)) = before.and_then(|before| before.pointer(&pointer)) {
            self.kept_or_removed(seen.sent, before, inner, &mut inside);
        }
        for (inner_pointer, value) in inside {
            residual.insert(format!("{pointer}{inner_pointer}"), value);
        }
    }

    /// A document write landing in the elements its path's id names: the sent members against
    /// the first such element's member object; every other such element showing that object,
    /// and the rest of the document unchanged.
    fn element_call(
        &mut self,
        seen: &Observed<'_>,
        (key, pointer): (&str, &str),
        after: &Json,
        residual: &mut Residual,
    ) {
        let id = seen.call.segments.iter().rev().nth(1).map(|id| decoded(id));
        let (Some(before), Some(id)) = (seen.call.document_before.as_ref(), id) else {
            residual.insert(String::new(), after.clone());
            return;
        };
        let targets = element_pointers(before, key, &id);
        let written = targets
            .first()
            .map(|target| format!("{target}{pointer}"))
            .and_then(|first| Some((after.pointer(&first)?.as_object()?, first)));
        let Some((inner, first)) = written else {
            residual.insert(String::new(), after.clone());
            return;
        };
        let mut inside = Residual::new();
        self.compare_sent(seen.sent, inner, &mut inside, Unstored::FirstValue);
        if let Some(Json::Object(held)) = before.pointer(&first) {
            self.kept_or_removed(seen.sent, held, inner, &mut inside);
        }
        for (inner_pointer, value) in inside {
            residual.insert(format!("{first}{inner_pointer}"), value);
        }
        let mut expected = before.clone();
        for target in &targets {
            if let Some(slot) =
                crate::render::pointer_mut(&mut expected, &format!("{target}{pointer}"))
            {
                *slot = Json::Object(inner.clone());
            }
        }
        if expected != *after {
            residual.insert(String::new(), after.clone());
        }
    }

    fn create_call(
        &mut self,
        seen: &Observed<'_>,
        after: &Json,
        template: &[PathSlot],
        residual: &mut Residual,
        unsent: &mut Residual,
    ) {
        let Some(after) = after.as_object() else {
            // An entity that is not an object cannot be modelled.
            residual.insert(String::new(), after.clone());
            return;
        };
        self.compare_sent(seen.sent, after, residual, Unstored::OneValue);
        for (key, value) in after.iter() {
            if seen.sent.contains_key(key) {
                continue;
            }
            self.path_candidate(seen.call, key, value, template);
            let shared = seen.call.shared.get(key) == Some(value);
            let entry = self
                .shared_candidates
                .entry(key.to_owned())
                .or_insert(shared);
            *entry &= shared;
            unsent.insert(key.to_owned(), value.clone());
        }
    }

    /// Whether an unsent member holds a path value, in this call and every call before.
    fn path_candidate(&mut self, call: &Call, key: &str, value: &Json, template: &[PathSlot]) {
        let text = scalar_text(value);
        let segment = template.iter().find_map(|(position, pattern)| {
            let pattern = pattern.as_deref()?;
            (path_value(call, *position, pattern) == text).then_some(*position)
        });
        let path = segment.map(|segment| PathField {
            segment,
            number: matches!(value, Json::Number(_)),
        });
        let entry = self
            .path_candidates
            .entry(key.to_owned())
            .or_insert_with(|| path.clone());
        if *entry != path {
            *entry = None;
        }
    }

    fn update_call(&mut self, seen: &Observed<'_>, after: &Json, residual: &mut Residual) {
        let before = seen.call.before.as_ref().map(|before| &before.fields);
        let (Some(after), Some(Json::Object(before))) = (after.as_object(), before) else {
            residual.insert(String::new(), after.clone());
            return;
        };
        self.compare_sent(seen.sent, after, residual, Unstored::NullRemoves);
        self.kept_or_removed(seen.sent, before, after, residual);
        for (key, value) in after.iter() {
            if !seen.sent.contains_key(key) && !before.contains_key(key) {
                residual.insert(pointer_of(key), value.clone());
            }
        }
    }

    /// A member sent under another name than the field it sets (`new_name` setting `name`): a
    /// member the entity does not store under its own name whose value one changed, unsent field
    /// took in every observed call that sent it (of several, the one leaf of the member's own
    /// name: `url` beside `original_url`, both taking one value). Creates place a member only on
    /// a nested leaf of its own name (`url` → `/entry/url`): a created entity shows every field
    /// new, so another leaf taking the sent value may do so by chance.
    fn map_sent_as(&mut self, observed: &[Observed<'_>], own_name_only: bool) {
        let mut mapped: BTreeMap<String, Option<String>> = BTreeMap::new();
        for (position, seen) in observed.iter().enumerate() {
            let After::Present(Json::Object(after)) = &seen.call.after else {
                continue;
            };
            for (member, value) in seen.sent.iter() {
                if after.contains_key(member) || value.is_null() {
                    mapped.insert(member.to_owned(), None);
                    continue;
                }
                let fields = self.unsent_fields_taking(position, value, seen.sent);
                let placed = placed_leaf(fields, member, own_name_only);
                let entry = mapped
                    .entry(member.to_owned())
                    .or_insert_with(|| placed.clone());
                if placed.is_none() || *entry != placed {
                    *entry = None;
                }
            }
        }
        for (member, pointer) in mapped {
            let Some(pointer) = pointer else {
                continue;
            };
            for (position, seen) in observed.iter().enumerate() {
                if seen.sent.contains_key(&member) {
                    self.residuals[position].remove(&pointer);
                }
            }
            self.fixed.remove(&member);
            self.model.sent_as.insert(member, pointer);
        }
    }

    /// The unexplained fields of one call that took `value` without being sent: top-level
    /// fields, or leaves of an object field (`/info/status`) the call sent nothing into.
    fn unsent_fields_taking(&self, position: usize, value: &Json, sent: &Object) -> Vec<String> {
        self.residuals[position]
            .iter()
            .filter(|(pointer, changed)| {
                let Some(field) = pointer.strip_prefix('/') else {
                    return false;
                };
                let top = field.split('/').next().unwrap_or(field);
                *changed == value
                    && !sent.contains_key(&rea_plugin_api::json::unescape_pointer_segment(top))
            })
            .map(|(pointer, _)| pointer.clone())
            .collect()
    }

    /// Creates: path values and values every held entity shares are the host's; the rest goes
    /// to the rules. A value the collection shares while the type's other collections hold
    /// others is offered to the rules first.
    fn settle_create_candidates(&mut self, observed: &[Observed<'_>]) {
        for (key, shared) in &self.shared_candidates {
            if *shared
                && self.path_candidates.get(key).cloned().flatten().is_none()
                && observed
                    .iter()
                    .all(|seen| seen.call.shared_by_chance.contains(key))
            {
                self.offered_shared.insert(key.clone());
            }
        }
        for (index, unsent) in self.unsent.iter().enumerate() {
            for (key, value) in unsent {
                if self.path_candidates.get(key).cloned().flatten().is_some() {
                    continue;
                }
                if self.shared_candidates.get(key) == Some(&true)
                    && !self.offered_shared.contains(key)
                {
                    continue;
                }
                created_leaves(pointer_of(key), value, &mut self.residuals[index]);
            }
        }
        for (key, path) in &self.path_candidates {
            if let Some(path) = path {
                self.model.path_fields.insert(key.clone(), path.clone());
            }
        }
        for (key, shared) in &self.shared_candidates {
            if *shared
                && !self.model.path_fields.contains_key(key)
                && !self.offered_shared.contains(key)
            {
                self.model.collection_constants.push(key.clone());
                if let Some(value) = self.unsent.iter().find_map(|unsent| unsent.get(key)) {
                    self.model.constants.insert(key.clone(), value.clone());
                }
            }
        }
    }

    /// A member the calls sent with several values that no stored field shows is unexplained;
    /// a rule that reads it (a `reference` naming other entities by it) may explain it.
    fn offer_unstored(&mut self) {
        for (name, value) in &self.fixed {
            if value.is_none()
                && let Some(residual) = self.residuals.first_mut()
            {
                residual.insert(pointer_of(name), Json::Null);
            }
        }
    }

    /// The rule stages in pipeline order, each offered what the ones before it left: a rule that
    /// explains something (or places the entity) joins the plan. The request is encoded once
    /// ([`EncodedRequest`]); each stage gets it with its options and the calls' residuals, unless
    /// its learn scope says it explains nothing for the tool's effect, or, a stage joining only by
    /// explaining, when no call has anything unexplained left.
    pub(super) fn run_rules(
        &mut self,
        plan: &mut WritePlan,
        rules: &RuleSet,
        request: LearnRequest,
    ) {
        let encoded = match EncodedRequest::new(&request) {
            Ok(encoded) => encoded,
            Err(error) => {
                for step in rules.steps() {
                    rules.record_failure(step, "learn", &plan.tool, &error.to_string());
                }
                return;
            }
        };
        let effect = request.effect;
        drop(request);
        let mut earlier: Vec<BTreeMap<String, serde_json::Value>> =
            vec![BTreeMap::new(); encoded.len()];
        for step in rules.steps() {
            // A stage that declared it can explain nothing here is not asked (issue 12).
            if !step.handle.learn_scope().asks(effect, self.unexplained()) {
                continue;
            }
            let Some((explains, needs_clock, rule)) =
                self.learn_encoded(rules, step, &encoded, &earlier, &plan.tool)
            else {
                continue;
            };
            let offered: BTreeSet<&String> = self
                .residuals
                .iter()
                .flat_map(|residual| residual.keys())
                .collect();
            let explains: Vec<String> = explains
                .into_iter()
                .filter(|pointer| offered.contains(pointer))
                .collect();
            // A rule explaining nothing joins when it places the entity or changes the entities
            // referring to a deleted one.
            if explains.is_empty()
                && !matches!(rule, serde_json::Value::Object(ref object)
                    if object.contains_key("placement") || object.contains_key("dependents"))
            {
                continue;
            }
            for (earlier, residual) in earlier.iter_mut().zip(&mut self.residuals) {
                for pointer in &explains {
                    if let Some(value) = residual.remove(pointer) {
                        earlier.insert(pointer.clone(), to_value(&value));
                    }
                }
            }
            plan.rules.push(PlanRule {
                stage: step.stage.clone(),
                plugin: step.plugin.clone(),
                explains,
                needs_clock,
                rule: Json::from_serde_value(&rule),
            });
        }
    }

    /// One stage's [`learn_step`] on the encoded request, offered the calls' current residuals.
    fn learn_encoded(
        &self,
        rules: &RuleSet,
        step: &ConfiguredRule,
        encoded: &EncodedRequest,
        earlier: &[BTreeMap<String, serde_json::Value>],
        tool: &str,
    ) -> Option<(Vec<String>, bool, serde_json::Value)> {
        let residuals: Vec<BTreeMap<String, serde_json::Value>> = self
            .residuals
            .iter()
            .map(|residual| {
                residual
                    .iter()
                    .map(|(pointer, value)| (pointer.clone(), to_value(value)))
                    .collect()
            })
            .collect();
        match encoded.text(&step.options, &residuals, earlier) {
            Ok(text) => learn_step(rules, step, text, tool),
            Err(error) => {
                rules.record_failure(step, "learn", tool, &error.to_string());
                None
            }
        }
    }

    /// Creates: a member offered to the rules as shared by chance (see
    /// [`Explanation::settle_create_candidates`]) that no rule explained is the collection
    /// constant the calls showed after all.
    pub(super) fn settle_offered_constants(&mut self) {
        for key in std::mem::take(&mut self.offered_shared) {
            let pointer = pointer_of(&key);
            let inside = format!("{pointer}/");
            let mut left = false;
            for residual in &mut self.residuals {
                let before = residual.len();
                residual.retain(|at, _| *at != pointer && !at.starts_with(&inside));
                left |= residual.len() != before;
            }
            if !left {
                continue;
            }
            self.model.collection_constants.push(key.clone());
            if let Some(value) = self.unsent.iter().find_map(|unsent| unsent.get(&key)) {
                self.model.constants.insert(key, value.clone());
            }
        }
        self.model.collection_constants.sort();
    }

    /// Updates: a top-level member no call sent that a call left holding the value its type's
    /// creates store as a constant (`stamped`), every call's entity holding that value after it
    /// (changed to it, or holding it before), is that constant, stored by every update: the
    /// application stamps it (a frozen clock's `updated_at`, the instant every create and update
    /// writes).
    pub(super) fn stamped_constants(
        &mut self,
        observed: &[Observed<'_>],
        stamped: &BTreeMap<String, Json>,
    ) {
        for (field, value) in stamped {
            let pointer = format!("/{}", rea_plugin_api::json::escape_pointer_segment(field));
            let changed = self
                .residuals
                .iter()
                .any(|residual| residual.get(&pointer) == Some(value));
            let every = self.residuals.iter().zip(observed).all(|(residual, seen)| {
                let held =
                    (seen.call.before.as_ref()).and_then(|before| before.fields.pointer(&pointer));
                !sends(seen.sent, &pointer)
                    && match residual.get(&pointer) {
                        Some(after) => after == value,
                        None => held == Some(value),
                    }
            });
            if changed && every {
                self.model.constants.insert(field.clone(), value.clone());
                for residual in &mut self.residuals {
                    residual.remove(&pointer);
                }
            }
        }
    }

    /// Creates: what every create that did not send it stored with one value is a constant (a
    /// default, applied where a call does not send the member), when every other create sent
    /// it (the call explains its value).
    pub(super) fn create_constants(&mut self, observed: &[Observed<'_>]) {
        let mut values: BTreeMap<String, Option<Json>> = BTreeMap::new();
        for residual in &self.residuals {
            for (pointer, value) in residual {
                let entry = values.entry(pointer.clone()).or_insert(Some(value.clone()));
                if entry.as_ref() != Some(value) {
                    *entry = None;
                }
            }
        }
        for (pointer, value) in values {
            let Some(value) = value else {
                continue;
            };
            // A member some creates neither sent nor stored is not a constant of every create
            // (a nested member is sent when the sent object holds its pointer).
            if self.residuals.iter().zip(observed).all(|(residual, seen)| {
                residual.contains_key(&pointer) || sends(seen.sent, &pointer)
            }) {
                if nested_pointer(&pointer) {
                    self.model.nested_constants.insert(pointer.clone(), value);
                } else {
                    let field = rea_plugin_api::json::unescape_pointer_segment(&pointer[1..]);
                    self.model.constants.insert(field, value);
                }
                for residual in &mut self.residuals {
                    residual.remove(&pointer);
                }
            }
        }
    }

    /// The field model: unsent members kept or removed (a `PUT` replaces), the exemplar's member
    /// order, and a soft delete's flag.
    pub(super) fn field_model(
        &mut self,
        plan: &WritePlan,
        observed: &[Observed<'_>],
    ) -> FieldModel {
        let mut model = std::mem::take(&mut self.model);
        let removed = std::mem::take(&mut self.removed);
        model.kept = self.kept.difference(&removed).cloned().collect();
        model.removed = removed.into_iter().collect();
        let method = plan.method.to_ascii_uppercase();
        model.replace =
            method == "PUT" && (!model.removed.is_empty() || plan.effect == Effect::Document);
        if let Some(After::Present(Json::Object(object))) =
            observed.first().map(|seen| &seen.call.after)
        {
            model.order = object.keys().map(str::to_owned).collect();
        }
        // A delete whose entity reads back marked deleted keeps it.
        if plan.effect == Effect::Delete {
            model.soft_delete = observed.iter().find_map(|seen| match &seen.call.after {
                After::Present(object) if marked_deleted(object) => DELETED_FLAGS
                    .iter()
                    .find(|flag| object.get(flag).and_then(Json::as_bool) == Some(true))
                    .map(|flag| (*flag).to_owned()),
                _ => None,
            });
        }
        model
    }

    /// Whether some change is still unexplained.
    pub(super) fn unexplained(&self) -> bool {
        self.residuals.iter().any(|residual| !residual.is_empty())
    }
}

/// Whether a sent object holds the member a pointer names, at the top level or nested
/// (`/attributes/status` in `{"attributes": {"status": "todo"}}`).
fn sends(sent: &Object, pointer: &str) -> bool {
    let mut segments = pointer
        .get(1..)
        .unwrap_or_default()
        .split('/')
        .map(rea_plugin_api::json::unescape_pointer_segment);
    let Some(first) = segments.next() else {
        return false;
    };
    let mut value = sent.get(&first);
    for segment in segments {
        value = value
            .and_then(Json::as_object)
            .and_then(|object| object.get(&segment));
    }
    value.is_some()
}

/// Whether a pointer names a member nested inside a top-level member (`/info/run_id`).
pub(super) fn nested_pointer(pointer: &str) -> bool {
    pointer.get(1..).is_some_and(|rest| rest.contains('/'))
}

/// Runs one rule stage's `learn`: what it explains, whether it needs the clock, and its rule; a
/// stage that fails explains nothing.
fn learn_step(
    rules: &RuleSet,
    step: &ConfiguredRule,
    request: String,
    tool: &str,
) -> Option<(Vec<String>, bool, serde_json::Value)> {
    match step.handle.learn_text(request) {
        Ok(LearnOutcome::Learned {
            explains,
            needs_clock,
            rule,
            ..
        }) => Some((explains, needs_clock, rule)),
        Ok(LearnOutcome::NoExplanation { reason, .. }) => {
            tracing::debug!(
                stage = step.stage.as_str(),
                tool,
                reason = reason.as_str(),
                "a rule stage explains nothing for this tool"
            );
            None
        }
        Err(error) => {
            tracing::warn!(
                stage = step.stage.as_str(),
                plugin = step.plugin.as_str(),
                tool,
                error = error.as_str(),
                "a rule stage failed to learn; it explains nothing for this tool"
            );
            rules.record_failure(step, "learn", tool, &error);
            None
        }
    }
}

fn to_value(json: &Json) -> serde_json::Value {
    json.to_serde_value().unwrap_or_default()
}

/// The effect the rule stages see: `action`, `bulk-update`, `bulk-delete`, or the plan's effect.
fn rule_effect(plan: &WritePlan, as_bulk: bool) -> RuleEffect {
    match (plan.effect, plan.action.is_some(), plan.bulk || as_bulk) {
        (Effect::Update, true, _) => RuleEffect::Action,
        (Effect::Update, _, true) => RuleEffect::BulkUpdate,
        (Effect::Delete, _, true) => RuleEffect::BulkDelete,
        (Effect::Create, ..) => RuleEffect::Create,
        (Effect::Update, ..) => RuleEffect::Update,
        (Effect::Delete, ..) => RuleEffect::Delete,
        (Effect::Document, ..) => RuleEffect::Document,
    }
}

/// One observed call as the rule stages see it (`unexplained` is filled per stage).
fn observed_call(call: &Call, template: &[PathSlot]) -> ObservedCall {
    ObservedCall {
        duration_ms: call.duration_ms.map(|duration| duration.ceil() as u64),
        entity_after: match &call.after {
            After::Present(value) | After::Document(value) => Some(to_value(value)),
            _ => None,
        },
        entity_before: call
            .before
            .as_ref()
            .map(|before| to_value(&before.fields))
            .or_else(|| call.document_before.as_ref().map(to_value)),
        held_max: call
            .held_max
            .iter()
            .map(|(field, value)| (field.clone(), to_value(value)))
            .collect(),
        given_max: call
            .given_max
            .iter()
            .map(|(field, value)| (field.clone(), to_value(value)))
            .collect(),
        path_params: template
            .iter()
            .filter_map(|(position, pattern)| path_value(call, *position, pattern.as_deref()?))
            .collect(),
        reads_after: call.reads.clone(),
        record_ordinal: call.ordinal,
        request_body: match &call.request {
            RequestBody::Json(body) => Some(to_value(body)),
            _ => None,
        },
        response_body: call.response.as_ref().map(to_value),
        response_status: call.status,
        started: call.started.clone(),
        position_before: call.before_position,
        unexplained: BTreeMap::new(),
        earlier: BTreeMap::new(),
        dependents: call.dependents.clone(),
        refused_before: call.refused_before.clone(),
        store_counters: call
            .counters_before
            .iter()
            .map(|(pointer, value)| (pointer.clone(), to_value(value)))
            .collect(),
        member_order: match &call.request {
            RequestBody::Json(Json::Object(members)) => {
                members.iter().map(|(name, _)| name.to_owned()).collect()
            }
            _ => Vec::new(),
        },
        held_entities: call.held_entities.iter().map(to_value).collect(),
    }
}

/// What the rule stages learn from: the observed calls, the clock anchors of every call of the
/// plan, the effect, the identity field and the tool.
pub(super) fn learn_request(
    plan: &WritePlan,
    as_bulk: bool,
    all_calls: &[&Call],
    observed: &[Observed<'_>],
    identity: &str,
    template: &[PathSlot],
) -> LearnRequest {
    let clock_anchors: Vec<ClockAnchor> = all_calls
        .iter()
        .filter_map(|call| {
            Some(ClockAnchor {
                record_ordinal: call.ordinal,
                instant: call.started.clone()?,
                duration_ms: call.duration_ms.map(|duration| duration.ceil() as u64),
            })
        })
        .collect();
    LearnRequest {
        calls: observed
            .iter()
            .map(|seen| observed_call(seen.call, template))
            .collect(),
        clock_anchors,
        effect: rule_effect(plan, as_bulk),
        identity_field: (!identity.is_empty()).then(|| identity.to_owned()),
        options: BTreeMap::new(),
        schema_version: rea_plugin_api::contracts::SCHEMA_VERSION,
        tool: ToolRef {
            method: plan.method.clone(),
            name: plan.tool.clone(),
            path_template: plan.path_template.clone(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::{Explanation, Residual, Unstored, placed_leaf, sends, shows_nested, to_value};
    use rea_plugin_api::json::{Json, parse};

    #[test]
    fn a_nested_member_is_sent_when_the_sent_object_holds_its_pointer() {
        let json: Json =
            parse(br#"{"type": "Task", "attributes": {"status": "todo"}}"#).expect("json");
        let sent = json.as_object().expect("object");
        // A create that sent the nested member explains its value: a default is what the
        // creates that did not send it stored.
        assert!(sends(sent, "/attributes/status"));
        assert!(sends(sent, "/type"));
        assert!(!sends(sent, "/attributes/priority"));
        assert!(!sends(sent, "/type/status"));
    }

    #[test]
    fn a_sent_object_stored_in_part_as_sent_offers_its_changed_leaves() {
        let object = |text: &str| {
            let json: Json = parse(text.as_bytes()).expect("json");
            json.as_object().expect("object").clone()
        };
        let sent = object(r#"{"time": {"modified": "t0", "1.0.0": "t1", "1.1.0": "t2"}, "n": 1}"#);
        let after = object(r#"{"time": {"modified": "t9", "1.1.0": "t2"}, "n": 2}"#);
        let mut residual = Residual::default();
        Explanation::default().compare_sent(&sent, &after, &mut residual, Unstored::OneValue);
        let found: Vec<(&str, serde_json::Value)> = residual
            .iter()
            .map(|(pointer, value)| (pointer.as_str(), to_value(value)))
            .collect();
        assert_eq!(
            found,
            [
                ("/n", serde_json::json!(2)),
                ("/time/1.0.0", serde_json::Value::Null),
                ("/time/modified", serde_json::json!("t9"))
            ]
        );
        // An object every leaf of which changed is offered whole.
        let after = object(r#"{"time": {"modified": "t9"}, "n": 1}"#);
        let mut residual = Residual::default();
        Explanation::default().compare_sent(&sent, &after, &mut residual, Unstored::OneValue);
        assert_eq!(residual.keys().collect::<Vec<_>>(), ["/time"]);
    }

    #[test]
    fn a_sent_object_kept_within_what_was_stored_offers_each_added_leaf() {
        let object = |text: &str| {
            let json: Json = parse(text.as_bytes()).expect("json");
            json.as_object().expect("object").clone()
        };
        let sent = object(r#"{"rel": {"author": {"data": {"id": "1"}}}}"#);
        let after = object(
            r#"{"rel": {"author": {"links": {"self": "/b/11/author"}, "data": {"id": "1"}},
                        "borrower": {"links": {"self": "/b/11/borrower"}, "data": null}}}"#,
        );
        let mut residual = Residual::default();
        Explanation::default().compare_sent(&sent, &after, &mut residual, Unstored::OneValue);
        assert_eq!(
            residual.keys().collect::<Vec<_>>(),
            [
                "/rel/author/links/self",
                "/rel/borrower/data",
                "/rel/borrower/links/self"
            ]
        );
        // A sent leaf stored otherwise: the object is no longer kept within, offered whole.
        let sent = object(r#"{"rel": {"author": {"data": {"id": "2"}}}}"#);
        let mut residual = Residual::default();
        Explanation::default().compare_sent(&sent, &after, &mut residual, Unstored::OneValue);
        assert_eq!(residual.keys().collect::<Vec<_>>(), ["/rel"]);
    }

    fn leaves(pointers: &[&str]) -> Vec<String> {
        pointers
            .iter()
            .map(|pointer| (*pointer).to_owned())
            .collect()
    }

    #[test]
    fn a_sent_member_is_placed_on_the_one_leaf_or_the_one_of_its_name() {
        // An update: the only leaf taking the value, whatever its name.
        assert_eq!(
            placed_leaf(leaves(&["/name"]), "new_name", false).as_deref(),
            Some("/name")
        );
        // Of several leaves taking one value, the one of the member's name.
        let both = leaves(&["/entry/original_url", "/entry/url"]);
        assert_eq!(
            placed_leaf(both.clone(), "url", false).as_deref(),
            Some("/entry/url")
        );
        assert_eq!(placed_leaf(both, "link", false), None);
        // A create places a member only on a nested leaf of its own name.
        assert_eq!(placed_leaf(leaves(&["/entry/title"]), "name", true), None);
        assert_eq!(
            placed_leaf(leaves(&["/info/run_name"]), "run_name", true).as_deref(),
            Some("/info/run_name")
        );
        assert_eq!(placed_leaf(leaves(&["/url"]), "url", true), None);
    }

    #[test]
    fn a_sent_value_a_nested_object_shows_is_data_not_a_constant() {
        let entity: Json = parse(
            br#"{"id": "9", "type": "msg", "attributes": {"author": {"id": "4"}, "summary": "Hi"}}"#,
        )
        .expect("json");
        let entity = entity.as_object().expect("object");
        let sent: Json = parse(br#"{"author": "4", "content": "Hi"}"#).expect("json");
        let sent = sent.as_object().expect("object");
        let text = |value: &str| Json::String(value.into());
        assert!(shows_nested(entity, &text("4"), sent));
        assert!(shows_nested(entity, &text("Hi"), sent));
        // A top-level member is no nested leaf; an absent value and an empty one are not shown.
        assert!(!shows_nested(entity, &text("msg"), sent));
        assert!(!shows_nested(entity, &text("5"), sent));
        assert!(!shows_nested(entity, &text(""), sent));
        // Shown only inside a member the call sent itself: that member's data.
        let publish: Json = parse(br#"{"versions": {"1.3.0": {"summary": "Hi"}}}"#).expect("json");
        let publish = publish.as_object().expect("object");
        let package: Json =
            parse(br#"{"name": "p", "versions": {"1.3.0": {"summary": "Hi"}}}"#).expect("json");
        let package = package.as_object().expect("object");
        assert!(!shows_nested(package, &text("Hi"), publish));
    }
}

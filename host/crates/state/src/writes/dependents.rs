//! The entities a delete changes besides its own: what the rule stages learn from, and what a
//! learned effect does when a delete applies.
//!
//! **Observed** (pass 2, for each recorded delete of one entity): each entity of another type the
//! simulated state held with a top-level member equal (as text) to the deleted entity's id, as
//! the first read after the delete and before the next write showed it: a read of it by id
//! (absent for a `404`/`410`), or a read of its whole collection (a list read without any query
//! that lists every other entity of that collection the simulation held, so an unlisted
//! dependent is gone, not on another page: absent when unlisted, else as listed), or a read its
//! list's query model evaluates over the simulated collection (with the query grammars splitting
//! expressions), listing what the query selects but for entities naming the deleted one: those
//! absent when unlisted, else as listed. A rule stage
//! (`dependents`) decides whether the delete removes such entities or clears their member; this
//! module only gathers and applies.
//!
//! **Changed** (applying a delete whose plan learned effects): every entity of the effect's type
//! the state holds, in any collection, whose member holds the deleted id is removed or has the
//! member set to `null`. The first delete of a plan with effects walks the held entities; the
//! commit then keeps, per effect, which entities hold each value at its field
//! ([`LiveState::keep_referrers`]), so the deletes after it visit only the entities holding the
//! deleted id. Deletes without effects walk nothing.

use std::collections::HashSet;

use rea_manifest::Manifest;
use rea_plugin_api::contracts::rule::{DependentAction, DependentEffect, ObservedDependent};
use rea_plugin_api::json::{Json, Object, escape_pointer_segment};

use super::observe::{self, Call};
use super::{Scope, Views};
use crate::derive::lists::listed_collection;
use crate::derive::marked_deleted;
use crate::model::{Entity, QueryModel};
use crate::observation::{Observation, Timeline};
use crate::render::scalar_text;
use crate::rules::RuleSet;
use crate::store::LiveState;

/// The members of `fields` (its identity left out) holding `id` as text: a top-level member by
/// its name, a member nested in object members by its JSON pointer
/// (`/attributes/assignee_id`; see [`member_at`]).
pub(super) fn members_holding(fields: &Json, identity: &str, id: &str) -> Vec<String> {
    members_naming(fields, identity, ("", id))
}

/// The members of `fields` (its identity left out) naming the entity `id` of `collection`: as
/// [`members_holding`], a member holding the id or the entity's item path as text
/// (`"author": "/api/v1/author/7/"`, see [`crate::item_uris`]).
pub(super) fn members_naming(
    fields: &Json,
    identity: &str,
    (collection, id): (&str, &str),
) -> Vec<String> {
    let Json::Object(object) = fields else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (name, value) in object.iter() {
        if name == identity {
            continue;
        }
        let escaped = format!("/{}", escape_pointer_segment(name));
        if matches!(value, Json::Object(_) | Json::Array(_)) {
            nested_holding(value, &escaped, (collection, id), &mut found);
        } else if scalar_text(value).is_some_and(|text| names(&text, collection, id)) {
            // A name that reads as a pointer is spelled as one.
            found.push(if name.starts_with('/') {
                escaped
            } else {
                name.to_owned()
            });
        }
    }
    found
}

/// Whether a member's text names the entity `id` of `collection`: the id, or its item path.
fn names(text: &str, collection: &str, id: &str) -> bool {
    crate::item_uris::names(text, collection, id)
}

/// The pointers below `at` of the scalar members nested in object members naming the entity
/// `id` of `collection` (see [`members_naming`]), an array's items by a `*` segment
/// (`/devices/*/deviceID`), each pointer once.
fn nested_holding(value: &Json, at: &str, deleted: (&str, &str), found: &mut Vec<String>) {
    match value {
        Json::Object(object) => {
            for (name, inner) in object.iter() {
                let pointer = format!("{at}/{}", escape_pointer_segment(name));
                nested_holding(inner, &pointer, deleted, found);
            }
        }
        Json::Array(items) => {
            let pointer = format!("{at}/*");
            for item in items {
                nested_holding(item, &pointer, deleted, found);
            }
        }
        scalar => {
            let named = scalar_text(scalar).is_some_and(|text| names(&text, deleted.0, deleted.1));
            if named && !found.iter().any(|known| known == at) {
                found.push(at.to_owned());
            }
        }
    }
}

/// Whether an entity's member a dependent effect's field names (see [`member_at`]; an array's
/// items by a `*` segment, some item's member; `""`: the value itself) names the deleted entity.
fn names_at(fields: &Json, field: &str, deleted: &Entity) -> bool {
    let Some((array, rest)) = field.split_once("/*") else {
        let member = if field.is_empty() {
            Some(fields)
        } else {
            member_at(fields, field)
        };
        return member
            .and_then(scalar_text)
            .is_some_and(|text| names(&text, &deleted.collection, &deleted.id));
    };
    let items = member_at(fields, array).and_then(Json::as_array);
    items
        .into_iter()
        .flatten()
        .any(|item| names_at(item, rest, deleted))
}

/// Takes the items naming the deleted entity out of the array a pull's field names (see
/// [`names_at`]).
fn pull_items(fields: &mut Json, field: &str, deleted: &Entity) {
    let Some((array, rest)) = field.split_once("/*") else {
        return;
    };
    let Some(Json::Array(items)) = pointer_mut(fields, array) else {
        return;
    };
    items.retain(|item| !names_at(item, rest, deleted));
}

/// The member at a pointer (or a top-level member's name), mutable.
fn pointer_mut<'f>(fields: &'f mut Json, field: &str) -> Option<&'f mut Json> {
    if !field.starts_with('/') {
        return match fields {
            Json::Object(object) => object.get_mut(field),
            _ => None,
        };
    }
    crate::render::pointer_mut(fields, field)
}

/// The member a dependent effect's field names in an entity's fields: a JSON pointer when it
/// starts with `/` (a member nested in object members), else a top-level member's name.
pub(crate) fn member_at<'a>(fields: &'a Json, field: &str) -> Option<&'a Json> {
    if field.starts_with('/') {
        fields.pointer(field)
    } else {
        fields.get(field)
    }
}

/// [`member_at`] in an object (a call's sent members).
pub(crate) fn object_member_at<'a>(object: &'a Object, field: &str) -> Option<&'a Json> {
    let Some(pointer) = field.strip_prefix('/') else {
        return object.get(field);
    };
    let mut parts = pointer
        .split('/')
        .map(rea_plugin_api::json::unescape_pointer_segment);
    let mut value = object.get(&parts.next()?)?;
    for part in parts {
        value = value.as_object()?.get(&part)?;
    }
    Some(value)
}

/// Sets the member a dependent effect's field names (see [`member_at`]) to `null`, when held.
fn clear_member(fields: &mut Json, field: &str) {
    if !field.starts_with('/') {
        if let Json::Object(object) = fields {
            object.insert(field, Json::Null);
        }
        return;
    }
    let parts: Vec<String> = field[1..]
        .split('/')
        .map(rea_plugin_api::json::unescape_pointer_segment)
        .collect();
    let Some((last, parents)) = parts.split_last() else {
        return;
    };
    let mut current = fields;
    for part in parents {
        match current {
            Json::Object(object) => match object.get_mut(part) {
                Some(inner) => current = inner,
                None => return,
            },
            _ => return,
        }
    }
    if let Json::Object(object) = current
        && object.contains_key(last)
    {
        object.insert(last.clone(), Json::Null);
    }
}

/// The pointer of the object holding a nested member when that object is an identifier of the
/// deleted entity (each of its scalar members equal, as text, to the entity's member of that name:
/// a JSON:API linkage `{"type": "Member", "id": "4"}` at `/relationships/borrower/data`), so
/// clearing the relation clears the object whole, as the application shows it (`data: null`).
fn identifier_holding<'f>(fields: &Json, field: &'f str, deleted: &Entity) -> Option<&'f str> {
    let (holder, _) = field.rsplit_once('/')?;
    let Some(Json::Object(object)) = fields.pointer(holder).filter(|_| !holder.is_empty()) else {
        return None;
    };
    object
        .iter()
        .all(|(key, value)| {
            scalar_text(value).is_some_and(|text| {
                deleted.fields.get(key).and_then(scalar_text).as_deref() == Some(text.as_str())
            })
        })
        .then_some(holder)
}

/// What the reads after a recorded delete of one entity show of the entities of other types
/// that held its id (see the module docs); empty for other calls.
pub(crate) fn observed(
    (manifest, rules): (&Manifest, &RuleSet),
    timeline: &Timeline,
    views: &Views,
    sim: &LiveState,
    call: &Call,
) -> Vec<ObservedDependent> {
    let (Some((deleted_type, deleted_collection, id)), Some(_)) = (&call.key, &call.before) else {
        return Vec::new();
    };
    let mut seen: HashSet<(String, String)> = HashSet::new();
    let mut dependents = Vec::new();
    let after_call = timeline
        .ordered
        .iter()
        .skip_while(|ordinal| **ordinal != call.ordinal)
        .skip(1);
    for ordinal in after_call {
        let Some(read) = timeline.get(*ordinal) else {
            continue;
        };
        if timeline.is_write(manifest, read.tool) {
            break;
        }
        if let Some(Scope::List(list_type, list)) = views.scopes.get(&read.tool) {
            if list_type != deleted_type
                && let Some(info) = views.types.get(list_type)
            {
                let listing = Listing {
                    entity_type: list_type,
                    identity: &info.identity,
                    list_pointer: &list.list_pointer,
                    query: list.query.as_ref().map(|model| (model, rules)),
                };
                for dependent in listing.dependents(sim, read, (deleted_collection, id)) {
                    if seen.insert((list_type.clone(), dependent.0)) {
                        dependents.push(dependent.1);
                    }
                }
            }
            continue;
        }
        let Some(Scope::Item(item)) = views.scopes.get(&read.tool) else {
            continue;
        };
        if item.entity_type == *deleted_type {
            continue;
        }
        let Some(info) = views.types.get(&item.entity_type) else {
            continue;
        };
        let Some((collection, read_id)) = item.named(&info.identity, read, true) else {
            continue;
        };
        if !seen.insert((item.entity_type.clone(), read_id.clone())) {
            continue;
        }
        let Some(held) = held(sim, &item.entity_type, &collection, &read_id) else {
            continue;
        };
        let fields = members_naming(&held.fields, &info.identity, (deleted_collection, id));
        if fields.is_empty() {
            continue;
        }
        let Some(after) = shown(read, &item.entity_pointer) else {
            continue;
        };
        dependents.push(ObservedDependent {
            entity_type: item.entity_type.clone(),
            fields,
            before: to_value(&held.fields),
            after: after.map(|object| to_value(&object)),
        });
    }
    dependents
}

/// A list view of a dependent type, as a whole-collection read after a delete shows it, or a
/// read its query model evaluates (with the query grammars splitting expressions).
struct Listing<'a> {
    entity_type: &'a str,
    identity: &'a str,
    list_pointer: &'a str,
    query: Option<(&'a QueryModel, &'a RuleSet)>,
}

impl Listing<'_> {
    /// The held entities of the read's collection naming the deleted entity (its collection and
    /// id) in a member, each with its id and what the read showed of it; none unless the read is
    /// of the whole collection (no query, a success, listing every other held entity of the
    /// collection), or filters it by such a member alone (see [`Listing::filtered_dependents`]).
    fn dependents(
        &self,
        sim: &LiveState,
        read: &Observation,
        deleted: (&str, &str),
    ) -> Vec<(String, ObservedDependent)> {
        if !read.is_success() {
            return Vec::new();
        }
        if !read.pairs().is_empty() {
            let filtered = self.filtered_dependents(sim, read, deleted);
            if !filtered.is_empty() {
                return filtered;
            }
            return self
                .queried_dependents(sim, read, deleted)
                .unwrap_or_default();
        }
        let Some(collection) = listed_collection(&read.path, self.entity_type) else {
            return Vec::new();
        };
        let listed: Vec<(String, &Json)> = observe::members(read, self.list_pointer)
            .iter()
            .filter_map(|object| {
                let listed_id = crate::render::identity_text(object, self.identity)?;
                Some((listed_id, object))
            })
            .collect();
        let held = sim.collection(self.entity_type, &collection);
        self.shown_dependents(held, &listed, deleted)
            .unwrap_or_default()
    }

    /// Of the entities a read would list, those naming the deleted entity, each as the read
    /// listed it (absent when unlisted; one it lists marked deleted is left out); `None` when
    /// one naming nothing of it is unlisted (the read may be one page of many).
    fn shown_dependents(
        &self,
        entities: Vec<&Entity>,
        listed: &[(String, &Json)],
        deleted: (&str, &str),
    ) -> Option<Vec<(String, ObservedDependent)>> {
        let mut dependents = Vec::new();
        for entity in entities {
            let shown = listed
                .iter()
                .find(|(listed_id, _)| *listed_id == entity.id)
                .map(|(_, object)| *object);
            let fields = members_naming(&entity.fields, self.identity, deleted);
            if fields.is_empty() {
                shown?;
                continue;
            }
            if shown.is_some_and(marked_deleted) {
                continue;
            }
            dependents.push((
                entity.id.clone(),
                ObservedDependent {
                    entity_type: self.entity_type.to_owned(),
                    fields,
                    before: to_value(&entity.fields),
                    after: shown.map(to_value),
                },
            ));
        }
        Some(dependents)
    }
}

impl Listing<'_> {
    /// The held entities of the read's collection naming the deleted entity in the member its
    /// one query parameter names, the parameter's value the deleted id (`book?author=7` after
    /// author 7's delete), each as absent, when the read lists nothing: an empty answer to that
    /// filter is no page of many, so every entity it would list is gone. None otherwise (a read
    /// listing some may be one page of many).
    fn filtered_dependents(
        &self,
        sim: &LiveState,
        read: &Observation,
        deleted: (&str, &str),
    ) -> Vec<(String, ObservedDependent)> {
        let [(member, value)] = read.pairs() else {
            return Vec::new();
        };
        let listed = observe::members(read, self.list_pointer);
        if value != deleted.1 || !listed.is_empty() {
            return Vec::new();
        }
        let Some(collection) = listed_collection(&read.path, self.entity_type) else {
            return Vec::new();
        };
        sim.collection(self.entity_type, &collection)
            .into_iter()
            .filter(|held| {
                held.fields
                    .get(member)
                    .and_then(scalar_text)
                    .is_some_and(|text| names(&text, deleted.0, deleted.1))
            })
            .map(|held| {
                let dependent = ObservedDependent {
                    entity_type: self.entity_type.to_owned(),
                    fields: members_naming(&held.fields, self.identity, deleted),
                    before: to_value(&held.fields),
                    after: None,
                };
                (held.id.clone(), dependent)
            })
            .collect()
    }
}

impl Listing<'_> {
    /// The held entities of the read's collection naming the deleted entity that the read's
    /// query selects, evaluated with the list's query model over the held entities (every
    /// parameter filtering or ordering, none paging): each as the read listed it, absent when
    /// unlisted. None unless the read lists exactly what the query selects but for such
    /// entities (a selected entity naming nothing of the deleted one left unlisted, or one
    /// listed that the query does not select, and the read may be a page, or the query not
    /// what the application evaluates).
    fn queried_dependents(
        &self,
        sim: &LiveState,
        read: &Observation,
        deleted: (&str, &str),
    ) -> Option<Vec<(String, ObservedDependent)>> {
        let (model, rules) = self.query?;
        let collection = listed_collection(&read.path, self.entity_type)?;
        let held = sim.collection(self.entity_type, &collection);
        let fields: Vec<String> = crate::derive::query_grammar::scalar_fields(held.iter().copied())
            .into_iter()
            .collect();
        let expanded = crate::query_terms::expand(rules, read.pairs(), &fields);
        if !expanded.groups.is_empty() || !crate::nested_query::reads_every(model, &expanded.pairs)
        {
            return None;
        }
        let objects = held
            .iter()
            .map(|entity| entity.fields.as_object())
            .collect::<Option<Vec<&Object>>>()?;
        let evaluated = crate::query::evaluate(model, &expanded.pairs, &objects)?;
        let listed: Vec<(String, &Json)> = observe::members(read, self.list_pointer)
            .iter()
            .map(|object| Some((crate::render::identity_text(object, self.identity)?, object)))
            .collect::<Option<_>>()?;
        let selected: Vec<&Entity> = evaluated.members.iter().map(|index| held[*index]).collect();
        if listed
            .iter()
            .any(|(id, _)| !selected.iter().any(|entity| entity.id == *id))
        {
            return None;
        }
        self.shown_dependents(selected, &listed, deleted)
    }
}

/// The entity the simulation holds by type and id: in the collection the read named, else in
/// another collection of its type (a nested create holds it under its parent's path).
fn held<'a>(
    sim: &'a LiveState,
    entity_type: &str,
    collection: &str,
    id: &str,
) -> Option<&'a Entity> {
    sim.entity(entity_type, collection, id).or_else(|| {
        sim.collections_of(entity_type)
            .into_iter()
            .find_map(|other| sim.entity(entity_type, other, id))
    })
}

/// What a read by id showed: `Some(None)` absent, `Some(Some(entity))` present, `None` nothing
/// either way (another status, or an entity marked deleted).
fn shown(read: &Observation, pointer: &str) -> Option<Option<Json>> {
    if matches!(read.status, 404 | 410) {
        return Some(None);
    }
    if !read.is_success() {
        return None;
    }
    let object = read.body.as_ref()?.pointer(pointer)?;
    (!marked_deleted(object)).then(|| Some(object.clone()))
}

fn to_value(json: &Json) -> serde_json::Value {
    json.to_serde_value().unwrap_or_default()
}

/// The held entities a delete's effects may change, in state order: those the kept referrer
/// indexes name as holding the deleted id at an effect's field, else every held entity.
fn candidates<'a>(
    state: &'a LiveState,
    deleted: &Entity,
    effects: &[DependentEffect],
) -> Box<dyn Iterator<Item = &'a Entity> + 'a> {
    let fields = effects
        .iter()
        .map(|effect| (effect.entity_type.as_str(), effect.field.as_str()));
    let spellings = crate::item_uris::spellings(&deleted.collection, &deleted.id);
    if effects.iter().any(|effect| effect.field.contains("/*")) {
        return Box::new(state.entities());
    }
    match state.referring(fields, &spellings) {
        Some(referring) => Box::new(referring.into_iter()),
        None => Box::new(state.entities()),
    }
}

/// The field each of a delete's effects looks the deleted id up in, per type: what
/// [`LiveState::keep_referrers`] keeps after the delete, so the next one finds its dependents
/// without walking the state.
pub(crate) fn looked_up(effects: &[DependentEffect]) -> Vec<(String, String)> {
    effects
        .iter()
        .filter(|effect| !effect.field.contains("/*"))
        .map(|effect| (effect.entity_type.clone(), effect.field.clone()))
        .collect()
}

/// The entities a delete of `deleted` changes by its plan's learned effects: before, and after
/// (`None`: removed). With the referrer indexes kept, only the entities holding the deleted id
/// are visited.
pub(crate) fn changed(
    state: &LiveState,
    deleted: &Entity,
    effects: &[DependentEffect],
) -> Vec<(Entity, Option<Entity>)> {
    if effects.is_empty() {
        return Vec::new();
    }
    let mut changed = Vec::new();
    for entity in candidates(state, deleted, effects) {
        let Some(effect) = effects.iter().find(|effect| {
            effect.entity_type == entity.entity_type
                && entity.entity_type != deleted.entity_type
                && names_at(&entity.fields, &effect.field, deleted)
        }) else {
            continue;
        };
        let after = match effect.action {
            DependentAction::Remove => None,
            DependentAction::Clear => {
                let mut after = entity.clone();
                let field = identifier_holding(&entity.fields, &effect.field, deleted)
                    .unwrap_or(&effect.field);
                clear_member(&mut after.fields, field);
                Some(after)
            }
            DependentAction::Pull => {
                let mut after = entity.clone();
                pull_items(&mut after.fields, &effect.field, deleted);
                Some(after)
            }
        };
        changed.push((entity.clone(), after));
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entity(entity_type: &str, collection: &str, id: &str, fields: &str) -> Entity {
        Entity {
            entity_type: entity_type.to_owned(),
            collection: collection.to_owned(),
            id: id.to_owned(),
            fields: Json::parse(fields.as_bytes()).expect("json"),
            view_fields: Default::default(),
            record_ordinals: Vec::new(),
        }
    }

    /// What deleting post 5 of [`state`] changes when its comments' `postId` follows `action`.
    fn changed_by(action: DependentAction) -> Vec<(Entity, Option<Entity>)> {
        let (state, post) = state();
        let effect = DependentEffect {
            entity_type: "/comments".to_owned(),
            field: "postId".to_owned(),
            action,
        };
        changed(&state, &post, &[effect])
    }

    fn state() -> (LiveState, Entity) {
        let post = entity("/posts", "/posts", "5", r#"{"id":5,"title":"a"}"#);
        let held = vec![
            post.clone(),
            entity("/comments", "/comments", "6", r#"{"id":6,"postId":5}"#),
            entity(
                "/comments",
                "/posts/5/comments",
                "7",
                r#"{"id":7,"postId":"5"}"#,
            ),
            entity("/comments", "/comments", "8", r#"{"id":8,"postId":2}"#),
        ];
        (LiveState::new(held, Vec::new()), post)
    }

    #[test]
    fn a_cascade_removes_every_entity_holding_the_id_in_any_collection() {
        let changed = changed_by(DependentAction::Remove);
        let ids: Vec<(&str, bool)> = changed
            .iter()
            .map(|(before, after)| (before.id.as_str(), after.is_none()))
            .collect();
        assert_eq!(ids, [("6", true), ("7", true)]);
    }

    #[test]
    fn a_cleared_relation_sets_the_member_null_and_keeps_the_rest() {
        let changed = changed_by(DependentAction::Clear);
        assert_eq!(changed.len(), 2);
        let after = changed[0].1.as_ref().expect("kept");
        assert_eq!(
            after.fields.to_canonical_string(),
            r#"{"id":6,"postId":null}"#
        );
    }

    #[test]
    fn kept_referrers_find_what_the_walk_finds_as_entities_change() {
        use crate::store::Position;
        for action in [DependentAction::Remove, DependentAction::Clear] {
            let (mut state, post) = state();
            let effects = [DependentEffect {
                entity_type: "/comments".to_owned(),
                field: "postId".to_owned(),
                action,
            }];
            let walked = changed(&state, &post, &effects);
            state.keep_referrers("/comments", "postId");
            assert_eq!(changed(&state, &post, &effects), walked);
            // Changes after the index is kept: a new comment on post 5 placed first, comment 6
            // moved to post 2, comment 7 removed, comment 8 moved to post 5.
            let new = entity("/comments", "/comments", "9", r#"{"id":9,"postId":5}"#);
            state.insert_entity(new, &Position::First);
            let moved = entity("/comments", "/comments", "6", r#"{"id":6,"postId":2}"#);
            assert!(state.update_entity(moved, None));
            assert!(
                state
                    .remove_entity("/comments", "/posts/5/comments", "7")
                    .is_some()
            );
            let moved = entity("/comments", "/comments", "8", r#"{"id":8,"postId":5}"#);
            assert!(state.update_entity(moved, None));
            let indexed = changed(&state, &post, &effects);
            let fresh = LiveState::new(state.entities().cloned().collect(), Vec::new());
            assert_eq!(indexed, changed(&fresh, &post, &effects));
            let ids: Vec<&str> = indexed
                .iter()
                .map(|(before, _)| before.id.as_str())
                .collect();
            assert_eq!(ids, ["9", "8"], "state order");
        }
    }

    #[test]
    fn a_member_nested_in_an_object_member_is_named_by_its_pointer_and_cleared_there() {
        let fields = Json::parse(
            br#"{"id": "6", "attributes": {"assignee_id": 5, "estimate": 8}, "links": {"self": "/t/6/"}}"#,
        )
        .expect("json");
        assert_eq!(
            members_holding(&fields, "id", "5"),
            ["/attributes/assignee_id"]
        );
        let user = entity("/users", "/users", "5", r#"{"id": "5"}"#);
        let task = Entity {
            fields,
            ..entity("/tasks", "/tasks", "6", "{}")
        };
        let state = LiveState::new(vec![user.clone(), task], Vec::new());
        let effect = DependentEffect {
            entity_type: "/tasks".to_owned(),
            field: "/attributes/assignee_id".to_owned(),
            action: DependentAction::Clear,
        };
        let changed = changed(&state, &user, &[effect]);
        let after = changed[0].1.as_ref().expect("kept");
        assert_eq!(
            after.fields.pointer("/attributes/assignee_id"),
            Some(&Json::Null)
        );
        assert_eq!(
            after
                .fields
                .pointer("/attributes/estimate")
                .and_then(scalar_text),
            Some("8".to_owned())
        );
    }

    #[test]
    fn a_cleared_identifier_of_the_deleted_entity_is_cleared_whole() {
        let member = entity(
            "/members",
            "/members",
            "4",
            r#"{"type": "Member", "id": "4"}"#,
        );
        let book = entity(
            "/books",
            "/books",
            "6",
            r#"{"id": "6", "relationships": {"borrower": {"links": {"self": "/b/6"}, "data": {"type": "Member", "id": "4"}}, "author": {"data": {"type": "Author", "id": "4"}}}}"#,
        );
        let state = LiveState::new(vec![member.clone(), book], Vec::new());
        let effect = DependentEffect {
            entity_type: "/books".to_owned(),
            field: "/relationships/borrower/data/id".to_owned(),
            action: DependentAction::Clear,
        };
        let changed = changed(&state, &member, &[effect]);
        let after = changed[0].1.as_ref().expect("kept");
        assert_eq!(
            after.fields.pointer("/relationships/borrower"),
            Some(&Json::parse(br#"{"links": {"self": "/b/6"}, "data": null}"#).expect("json"))
        );
        // Another type's linkage naming the same id is no identifier of the member.
        let author = after.fields.pointer("/relationships/author/data/id");
        assert_eq!(author.and_then(scalar_text).as_deref(), Some("4"));
    }

    #[test]
    fn no_effects_change_nothing_and_members_other_than_the_identity_are_candidates() {
        let (state, post) = state();
        assert!(changed(&state, &post, &[]).is_empty());
        let fields = Json::parse(br#"{"id":"5","postId":5,"title":"5x"}"#).expect("json");
        assert_eq!(members_holding(&fields, "id", "5"), ["postId"]);
    }

    #[test]
    fn a_member_holding_the_deleted_entitys_item_path_is_a_dependent() {
        let author = entity("/api/author", "/api/author/", "7", r#"{"id": 7}"#);
        let held = vec![
            author.clone(),
            entity(
                "/api/book",
                "/api/book/",
                "1",
                r#"{"id": 1, "author": "/api/author/7/"}"#,
            ),
            entity(
                "/api/book",
                "/api/book/",
                "2",
                r#"{"id": 2, "author": "/api/author/17/"}"#,
            ),
            entity("/api/book", "/api/book/", "3", r#"{"id": 3, "author": 7}"#),
        ];
        let fields = &held[1].fields;
        assert_eq!(
            members_naming(fields, "id", ("/api/author/", "7")),
            ["author"]
        );
        assert!(
            members_holding(fields, "id", "7").is_empty(),
            "no collection, no path"
        );
        let effects = [DependentEffect {
            entity_type: "/api/book".to_owned(),
            field: "author".to_owned(),
            action: DependentAction::Remove,
        }];
        let mut state = LiveState::new(held, Vec::new());
        let walked = changed(&state, &author, &effects);
        let ids: Vec<&str> = walked
            .iter()
            .map(|(before, _)| before.id.as_str())
            .collect();
        assert_eq!(
            ids,
            ["1", "3"],
            "author 17's path holds a 7, but names author 17"
        );
        state.keep_referrers("/api/book", "author");
        assert_eq!(changed(&state, &author, &effects), walked);
    }

    #[test]
    fn an_array_item_naming_the_deleted_entity_is_found_by_a_star_and_pulled() {
        let device = entity("/devices", "/devices", "B", r#"{"deviceID": "B"}"#);
        let folder = |id: &str, devices: &str| {
            let fields = format!(r#"{{"id": "{id}", "devices": {devices}, "tags": ["B", "x"]}}"#);
            entity("/folders", "/folders", id, &fields)
        };
        let docs = folder(
            "docs",
            r#"[{"deviceID": "A"}, {"deviceID": "B", "by": ""}]"#,
        );
        assert_eq!(
            members_holding(&docs.fields, "id", "B"),
            ["/devices/*/deviceID", "/tags/*"]
        );
        let held = vec![
            device.clone(),
            docs,
            folder("music", r#"[{"deviceID": "A"}]"#),
        ];
        let state = LiveState::new(held, Vec::new());
        let effect = DependentEffect {
            entity_type: "/folders".to_owned(),
            field: "/devices/*/deviceID".to_owned(),
            action: DependentAction::Pull,
        };
        assert!(looked_up(std::slice::from_ref(&effect)).is_empty());
        let changed = changed(&state, &device, &[effect]);
        assert_eq!(changed.len(), 1, "music names no B");
        let after = changed[0].1.as_ref().expect("kept");
        assert_eq!(
            after.fields.to_canonical_string(),
            r#"{"devices":[{"deviceID":"A"}],"id":"docs","tags":["B","x"]}"#
        );
    }
}

//! Reading a `rea-state/v1` document into a [`LiveState`]: every rule the reference states, the
//! first problem reported by JSON pointer into the document.
//!
//! * The document is `{"rea_state": {"version": 1, "entities": […], "documents": […]}}` with the
//!   optional `state_evidence_id` and `types`, which must then be the served state's. Unknown
//!   members of this structure are refused (located at the object holding them).
//! * Each entity is `{type, collection, id, fields, view_fields?, record_ordinals?}`: `type` a
//!   served type's collection template, `collection` matching it segment by segment (a template
//!   parameter matches any one segment), `fields` an object whose identity field's value reads as
//!   `id`, `view_fields` naming item or list views of the type and never setting the identity
//!   field to another value; `(type, collection, id)` unique (a single trailing slash names the
//!   same collection; repeated separators stay distinct).
//! * Each document is `{view, path, value, record_ordinal?}`: a `document` view, once, at its
//!   checked line's path (a view holding one document per id: once per checked line).
//! * Record citations may be omitted or empty; given, they must be the served Evidence's for that
//!   entity or document.
//! * Every number must be exact ([`crate::exact`]).
//!
//! A problem inside caller data (`fields`, `view_fields`, `value`, `types`) is located at that
//! member, never at a caller's key, and no message repeats caller content.
//!
//! After loading, an entity or document whose values equal the Evidence's cites its records; an
//! edited or added one cites none.

use std::collections::{BTreeMap, BTreeSet};

use rea_plugin_api::json::Json;

use crate::derive::entities::collection_key;
use crate::derive::lists::fits_template;
use crate::exact::first_inexact_number;
use crate::model::{Document, Entity, EntityType, StateView, ViewDetail};
use crate::render::scalar_text;
use crate::store::{LiveState, same_value};

/// A refused document: where and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid rea-state/v1 document at {pointer:?}: {message}")]
pub struct IntakeError {
    /// JSON pointer into the document.
    pub pointer: String,
    /// One sentence, without caller content.
    pub message: String,
}

fn refuse<T>(pointer: impl Into<String>, message: impl Into<String>) -> Result<T, IntakeError> {
    Err(IntakeError {
        pointer: pointer.into(),
        message: message.into(),
    })
}

/// What a document is checked against: the served state.
#[derive(Debug)]
pub struct IntakeContext<'a> {
    /// The served state Evidence id.
    pub state_evidence_id: &'a str,
    /// The derived state (types, views, and the citations of its entities and documents).
    pub derived: &'a StateView,
    /// The derived state, indexed.
    pub initial: &'a LiveState,
}

fn only_members(
    object: &rea_plugin_api::json::Object,
    allowed: &[&str],
    pointer: &str,
    what: &str,
) -> Result<(), IntakeError> {
    if object.keys().any(|key| !allowed.contains(&key)) {
        return refuse(
            pointer,
            format!(
                "{what} has a member the format does not define; its members are {}",
                allowed.join(", ")
            ),
        );
    }
    Ok(())
}

fn exact(value: &Json, pointer: &str, what: &str) -> Result<(), IntakeError> {
    if first_inexact_number(value).is_some() {
        return refuse(
            pointer,
            format!(
                "{what} holds a number without an exact value; numbers are refused rather than altered"
            ),
        );
    }
    Ok(())
}

fn string<'a>(
    object: &'a rea_plugin_api::json::Object,
    name: &str,
    pointer: &str,
) -> Result<&'a str, IntakeError> {
    match object.get(name) {
        Some(Json::String(text)) => Ok(text),
        Some(_) => refuse(
            format!("{pointer}/{name}"),
            format!("`{name}` must be a string"),
        ),
        None => refuse(pointer, format!("lacks its `{name}` member")),
    }
}

fn citations(value: &Json, pointer: &str) -> Result<Vec<u64>, IntakeError> {
    let Json::Array(items) = value else {
        return refuse(
            pointer,
            "`record_ordinals` must be an array of record ordinals",
        );
    };
    items
        .iter()
        .map(|item| {
            item.as_number()
                .and_then(|number| number.as_u64())
                .ok_or(())
        })
        .collect::<Result<Vec<u64>, ()>>()
        .or_else(|()| {
            refuse(
                pointer,
                "`record_ordinals` must be an array of record ordinals",
            )
        })
}

/// Validates a document and builds the state it holds. A refused document changes nothing (the
/// caller keeps its state).
pub fn read_document(
    document: &Json,
    context: &IntakeContext<'_>,
) -> Result<LiveState, IntakeError> {
    let base = "/rea_state";
    let state = read_header(document, context)?;
    let (entities, documents) = (
        array_member(state, "entities", base)?,
        array_member(state, "documents", base)?,
    );
    let types: BTreeMap<&str, &EntityType> = context
        .derived
        .types
        .iter()
        .map(|entity_type| (entity_type.collection_template.as_str(), entity_type))
        .collect();
    let mut loaded = Vec::with_capacity(entities.len());
    let mut seen: BTreeSet<(String, String, String)> = BTreeSet::new();
    for (position, item) in entities.iter().enumerate() {
        let pointer = format!("{base}/entities/{position}");
        let entity = read_entity(item, &pointer, &types, context)?;
        let key = (
            entity.entity_type.clone(),
            collection_key(&entity.collection).to_owned(),
            entity.id.clone(),
        );
        if !seen.insert(key) {
            return refuse(
                format!("{pointer}/id"),
                "another entity of the document has the same type, collection and id",
            );
        }
        loaded.push(entity);
    }
    let mut loaded_documents = Vec::with_capacity(documents.len());
    let mut views_seen = BTreeSet::new();
    for (position, item) in documents.iter().enumerate() {
        let pointer = format!("{base}/documents/{position}");
        let document = read_document_entry(item, &pointer, context)?;
        if !views_seen.insert((document.view.clone(), document.path.clone())) {
            return refuse(
                format!("{pointer}/view"),
                "another document names the same view",
            );
        }
        loaded_documents.push(document);
    }
    Ok(LiveState::new(loaded, loaded_documents))
}

/// The document's `rea_state` object, its structure, `version`, and (when given) the served
/// state's Evidence id and types checked.
fn read_header<'a>(
    document: &'a Json,
    context: &IntakeContext<'_>,
) -> Result<&'a rea_plugin_api::json::Object, IntakeError> {
    let Json::Object(root) = document else {
        return refuse("", "a rea-state/v1 document must be a JSON object");
    };
    only_members(root, &["rea_state"], "", "the document")?;
    let Some(Json::Object(state)) = root.get("rea_state") else {
        return refuse("/rea_state", "`rea_state` must be an object");
    };
    let base = "/rea_state";
    only_members(
        state,
        &[
            "version",
            "state_evidence_id",
            "types",
            "entities",
            "documents",
        ],
        base,
        "`rea_state`",
    )?;
    match state.get("version") {
        Some(Json::Number(number)) if number.as_str() == "1" => {}
        Some(_) => return refuse(format!("{base}/version"), "`version` must be 1"),
        None => return refuse(base, "lacks its `version` member"),
    }
    if let Some(id) = state.get("state_evidence_id")
        && id.as_str() != Some(context.state_evidence_id)
    {
        return refuse(
            format!("{base}/state_evidence_id"),
            "`state_evidence_id` is not the served state's Evidence id",
        );
    }
    if let Some(types) = state.get("types") {
        let served = Json::from_serialize(&context.derived.types).unwrap_or_default();
        if !same_value(types, &served) {
            return refuse(
                format!("{base}/types"),
                "`types` are not the served state's types",
            );
        }
    }
    Ok(state)
}

/// A member of `rea_state` that must be an array.
fn array_member<'a>(
    state: &'a rea_plugin_api::json::Object,
    name: &str,
    base: &str,
) -> Result<&'a Vec<Json>, IntakeError> {
    match state.get(name) {
        Some(Json::Array(items)) => Ok(items),
        found => refuse(
            if found.is_some() {
                format!("{base}/{name}")
            } else {
                base.to_owned()
            },
            format!("`{name}` must be an array"),
        ),
    }
}

fn read_entity(
    item: &Json,
    pointer: &str,
    types: &BTreeMap<&str, &EntityType>,
    context: &IntakeContext<'_>,
) -> Result<Entity, IntakeError> {
    let Json::Object(object) = item else {
        return refuse(pointer, "an entity must be an object");
    };
    only_members(
        object,
        &[
            "type",
            "collection",
            "id",
            "fields",
            "view_fields",
            "record_ordinals",
        ],
        pointer,
        "an entity",
    )?;
    let type_name = string(object, "type", pointer)?;
    let Some(entity_type) = types.get(type_name) else {
        return refuse(
            format!("{pointer}/type"),
            "`type` is not one of the state's types",
        );
    };
    let collection = string(object, "collection", pointer)?;
    if !collection.starts_with('/') || !fits_collection(collection, type_name) {
        return refuse(
            format!("{pointer}/collection"),
            "`collection` does not match its type's collection template",
        );
    }
    let id = string(object, "id", pointer)?;
    let fields = read_fields(object, pointer, entity_type, id)?;
    let view_fields = match object.get("view_fields") {
        Some(value) => read_view_fields(value, pointer, entity_type, id, context)?,
        None => BTreeMap::new(),
    };
    let derived = context.initial.entity(type_name, collection, id);
    if let Some(value) = object.get("record_ordinals") {
        let at = format!("{pointer}/record_ordinals");
        let given = citations(value, &at)?;
        if !given.is_empty() && derived.is_none_or(|entity| entity.record_ordinals != given) {
            return refuse(
                at,
                "`record_ordinals` are not the served Evidence's citations for this entity",
            );
        }
    }
    let unchanged = derived.is_some_and(|entity| {
        same_value(&entity.fields, fields)
            && entity.view_fields.len() == view_fields.len()
            && entity.view_fields.iter().all(|(view, shown)| {
                view_fields
                    .get(view)
                    .is_some_and(|other| same_value(shown, other))
            })
    });
    Ok(Entity {
        entity_type: type_name.to_owned(),
        collection: collection.to_owned(),
        id: id.to_owned(),
        fields: fields.clone(),
        view_fields,
        record_ordinals: match (unchanged, derived) {
            (true, Some(entity)) => entity.record_ordinals.clone(),
            _ => Vec::new(),
        },
    })
}

/// An entity's `fields`: an object of exact values holding the type's identity field with the
/// entity's `id`.
fn read_fields<'a>(
    object: &'a rea_plugin_api::json::Object,
    pointer: &str,
    entity_type: &EntityType,
    id: &str,
) -> Result<&'a Json, IntakeError> {
    let fields = match object.get("fields") {
        Some(fields @ Json::Object(_)) => fields,
        Some(_) => return refuse(format!("{pointer}/fields"), "`fields` must be an object"),
        None => return refuse(pointer, "lacks its `fields` member"),
    };
    exact(fields, &format!("{pointer}/fields"), "`fields`")?;
    if crate::render::identity_text(fields, &entity_type.identity_field).as_deref() != Some(id) {
        return refuse(
            format!("{pointer}/fields"),
            "`fields` must hold the type's identity field with the entity's `id` as its value",
        );
    }
    Ok(fields)
}

/// An entity's `view_fields`: per item or list view of its type, an object of exact values that
/// never sets the identity field to another value.
fn read_view_fields(
    value: &Json,
    pointer: &str,
    entity_type: &EntityType,
    id: &str,
    context: &IntakeContext<'_>,
) -> Result<BTreeMap<String, Json>, IntakeError> {
    let at = format!("{pointer}/view_fields");
    let Json::Object(views) = value else {
        return refuse(at, "`view_fields` must be an object of views");
    };
    exact(value, &at, "`view_fields`")?;
    let mut view_fields = BTreeMap::new();
    for (view, shown) in views.iter() {
        let fits = context.derived.view(view).is_some_and(|read_view| {
            matches!(read_view.detail, ViewDetail::Item(_) | ViewDetail::List(_))
                && read_view.entity_type() == Some(entity_type.collection_template.as_str())
        });
        if !fits {
            return refuse(
                at,
                "`view_fields` names a view that is not an item or list view of the entity's type",
            );
        }
        let Json::Object(_) = shown else {
            return refuse(at, "each view's values must be an object");
        };
        if let Some(identity) = crate::render::identity_value(shown, &entity_type.identity_field)
            && scalar_text(&identity).as_deref() != Some(id)
        {
            return refuse(
                at,
                "a view's values set the identity field to another value than the entity's `id`",
            );
        }
        view_fields.insert(view.to_owned(), shown.clone());
    }
    Ok(view_fields)
}

/// Whether a collection path matches a type's template (a single trailing slash of either
/// ignored: a type listed at `/api/v1/task/` holds the entities its item reads placed in
/// `/api/v1/task`).
fn fits_collection(collection: &str, template: &str) -> bool {
    fits_template(collection_key(collection), collection_key(template))
}

fn read_document_entry(
    item: &Json,
    pointer: &str,
    context: &IntakeContext<'_>,
) -> Result<Document, IntakeError> {
    let Json::Object(object) = item else {
        return refuse(pointer, "a document must be an object");
    };
    only_members(
        object,
        &["view", "path", "value", "record_ordinal"],
        pointer,
        "a document",
    )?;
    let view = string(object, "view", pointer)?;
    let Some(ViewDetail::Document(document_view)) =
        context.derived.view(view).map(|view| &view.detail)
    else {
        return refuse(
            format!("{pointer}/view"),
            "`view` is not one of the state's document views",
        );
    };
    let path = string(object, "path", pointer)?;
    if !document_view.lines().any(|(checked, _)| checked == path) {
        return refuse(
            format!("{pointer}/path"),
            "`path` is not the document view's path",
        );
    }
    let Some(value) = object.get("value") else {
        return refuse(pointer, "lacks its `value` member");
    };
    exact(value, &format!("{pointer}/value"), "`value`")?;
    let derived = context.initial.document(view, path);
    if let Some(ordinal) = object.get("record_ordinal") {
        let given = ordinal.as_number().and_then(|number| number.as_u64());
        if given.is_none() || derived.and_then(|document| document.record_ordinal) != given {
            return refuse(
                format!("{pointer}/record_ordinal"),
                "`record_ordinal` is not the served Evidence's citation for this document",
            );
        }
    }
    let unchanged = derived.is_some_and(|document| same_value(&document.value, value));
    Ok(Document {
        view: view.to_owned(),
        path: path.to_owned(),
        value: value.clone(),
        record_ordinal: if unchanged {
            derived.and_then(|document| document.record_ordinal)
        } else {
            None
        },
    })
}

#[cfg(test)]
mod tests {
    use super::fits_collection;

    #[test]
    fn a_collection_fits_its_template_with_or_without_a_trailing_slash() {
        assert!(fits_collection("/api/v1/task", "/api/v1/task/"));
        assert!(fits_collection("/api/v1/task/", "/api/v1/task/"));
        assert!(fits_collection("/posts/", "/posts"));
        assert!(fits_collection(
            "/lists/3/entries",
            "/lists/{numeric}/entries"
        ));
        assert!(!fits_collection("/api/v1/tasks", "/api/v1/task/"));
        assert!(!fits_collection("/api/v1", "/api/v1/task/"));
    }
}

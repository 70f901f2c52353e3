//! Rendering: how views show the state. Extraction verifies views with these functions and
//! serving answers with them, so a view kept by verification answers exactly what was checked.

use std::borrow::Cow;

use rea_plugin_api::json::{Json, Number, Object};

use crate::model::{Entity, ViewShape};

/// The value at a JSON pointer of a body, mutably (`""` is the body).
pub fn pointer_mut<'a>(value: &'a mut Json, pointer: &str) -> Option<&'a mut Json> {
    if pointer.is_empty() {
        return Some(value);
    }
    let mut current = value;
    for raw in pointer.strip_prefix('/')?.split('/') {
        let segment = rea_plugin_api::json::unescape_pointer_segment(raw);
        current = match current {
            Json::Object(object) => object.get_mut(&segment)?,
            Json::Array(items) => items.get_mut(segment.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(current)
}

/// The value of an entity's identity field: a member (`id`), or, for an identity nested inside
/// the entity, a JSON pointer into it (`/info/run_id`).
/// A fused identity (`{task_id},{tag}`, see [`crate::fused_identity`]) is its members' texts
/// joined, as a JSON string.
pub fn identity_value<'a>(object: &'a Json, identity: &str) -> Option<Cow<'a, Json>> {
    if identity.starts_with('/') {
        object.pointer(identity).map(Cow::Borrowed)
    } else if let Some(fused) = crate::fused_identity::value(object, identity) {
        Some(fused)
    } else {
        object.get(identity).map(Cow::Borrowed)
    }
}

/// The text of an entity's identity (see [`identity_value`]), when it is a scalar.
pub fn identity_text(object: &Json, identity: &str) -> Option<String> {
    scalar_text(identity_value(object, identity)?.as_ref())
}

/// The top-level member an identity field lives in (`info` for `/info/run_id`).
pub fn identity_member(identity: &str) -> String {
    match identity.strip_prefix('/') {
        Some(rest) => rest
            .split('/')
            .next()
            .unwrap_or("")
            .replace("~1", "/")
            .replace("~0", "~"),
        None => identity.to_owned(),
    }
}

/// A rendered entity with only the given fields, in that order (fields it lacks are left out).
pub fn project_to(rendered: &Json, fields: &[String]) -> Json {
    let Some(object) = rendered.as_object() else {
        return rendered.clone();
    };
    let mut projected = Object::with_capacity(fields.len());
    for field in fields {
        if let Some(value) = object.get(field) {
            projected.insert(field.clone(), value.clone());
        }
    }
    Json::Object(projected)
}

/// An entity without the named fields, its other members in their order.
pub fn project_without(rendered: &Json, excluded: &[String]) -> Json {
    let Some(object) = rendered.as_object() else {
        return rendered.clone();
    };
    let kept = object
        .iter()
        .filter(|(name, _)| !excluded.iter().any(|field| field == name))
        .map(|(name, value)| (name.to_owned(), value.clone()));
    Json::Object(Object::from_iter(kept))
}

/// Whether a read asked for some fields only: it names a field-selection parameter.
pub fn selects_fields(pairs: &[(String, String)]) -> bool {
    pairs
        .iter()
        .any(|(name, _)| crate::query::is_projection(name.as_str()))
}

/// An entity as a view shows it (see [`ViewShape`]): its fields with the hidden ones dropped, the
/// shape's rules applied, and the view's own values set over them.
pub fn render_entity(shape: &ViewShape, view: &str, entity: &Entity) -> Json {
    let mut object = match &entity.fields {
        Json::Object(fields) => project_fields(shape, fields),
        _ => Object::new(),
    };
    if let Some(Json::Object(overlay)) = entity.view_fields.get(view) {
        for (key, value) in overlay.iter() {
            object.insert(key, value.clone());
        }
    }
    Json::Object(object)
}

/// The fields a shape shows, before any view values are set over them.
pub fn project_fields(shape: &ViewShape, fields: &Object) -> Object {
    let mut object = Object::with_capacity(fields.len());
    for (key, value) in fields.iter() {
        if shape.hidden_fields.iter().any(|hidden| hidden == key) {
            continue;
        }
        let value = match (shape.nested_fields.get(key), value) {
            (Some(keys), Json::Object(nested)) => Json::Object(
                nested
                    .iter()
                    .filter(|(name, _)| keys.iter().any(|kept| kept == name))
                    .map(|(name, item)| (name.to_owned(), item.clone()))
                    .collect(),
            ),
            (None, Json::Object(record)) => match shape.linked_ids.get(key) {
                Some(id_key) => record.get(id_key).unwrap_or(value).clone(),
                None => value.clone(),
            },
            _ => value.clone(),
        };
        let value = if shape.sorted_arrays.iter().any(|sorted| sorted == key) {
            sorted_strings(value)
        } else {
            value
        };
        let value = match shape.clock_formats.get(key) {
            Some(format) => crate::clock::respell(&value, format).unwrap_or(value),
            None => value,
        };
        object.insert(key, value);
    }
    for lifted in &shape.lifted_fields {
        let Some(Json::Object(nested)) = fields.get(lifted) else {
            continue;
        };
        for (name, value) in nested.iter() {
            if !fields.contains_key(name) {
                object.insert(name, value.clone());
            }
        }
    }
    object
}

fn sorted_strings(value: Json) -> Json {
    match value {
        Json::Array(mut items) if items.iter().all(|item| matches!(item, Json::String(_))) => {
            items.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
            Json::Array(items)
        }
        other => other,
    }
}

/// The first required field a rendered entity lacks.
pub fn missing_required<'a>(shape: &'a ViewShape, rendered: &Json) -> Option<&'a str> {
    let object = rendered.as_object()?;
    shape
        .required_fields
        .iter()
        .find(|field| !object.contains_key(field))
        .map(String::as_str)
}

/// An envelope with the value at `pointer` replaced (`""` replaces the whole body).
pub fn with_value_at(mut envelope: Json, pointer: &str, value: Json) -> Json {
    if pointer.is_empty() {
        return value;
    }
    if let Some(slot) = pointer_mut(&mut envelope, pointer) {
        *slot = value;
    }
    envelope
}

/// An envelope with the member at `pointer` set (added when absent) or, for `None`, removed;
/// `None` when the object holding it is not there.
pub fn with_member_at(mut envelope: Json, pointer: &str, value: Option<Json>) -> Option<Json> {
    let Some((parent, key)) = pointer.rsplit_once('/') else {
        return value;
    };
    let key = rea_plugin_api::json::unescape_pointer_segment(key);
    let Json::Object(object) = pointer_mut(&mut envelope, parent)? else {
        return None;
    };
    match value {
        Some(value) => {
            object.insert(key, value);
        }
        None => {
            object.remove(&key);
        }
    }
    Some(envelope)
}

/// Sets a counter to `count`, keeping its recorded representation: a number stays a number, a
/// digit string stays a digit string of at least its recorded width (zero padding kept).
pub fn set_counter(envelope: &mut Json, pointer: &str, count: usize) {
    let Some(slot) = pointer_mut(envelope, pointer) else {
        return;
    };
    match slot {
        Json::Number(_) => *slot = Json::Number(Number::from(count as u64)),
        Json::String(text) => {
            let width = text.len();
            *slot = Json::from(format!("{count:0width$}"));
        }
        _ => {}
    }
}

/// Whether a value is a counter spelling of `count`: the number, or a digit string (zero padding
/// allowed).
pub fn counts(value: &Json, count: usize) -> bool {
    match value {
        Json::Number(number) => number.as_u64() == Some(count as u64),
        Json::String(text) => {
            !text.is_empty()
                && text.bytes().all(|byte| byte.is_ascii_digit())
                && text.trim_start_matches('0').parse::<u64>().unwrap_or(0) == count as u64
        }
        _ => false,
    }
}

/// Whether a value is a canonical decimal count of `count` (no zero padding): what query totals
/// are inferred from.
pub fn counts_canonically(value: &Json, count: usize) -> bool {
    match value {
        Json::Number(number) => number.as_str() == count.to_string(),
        Json::String(text) => *text == count.to_string(),
        _ => false,
    }
}

/// A scalar's text as requests spell it (`1`, `true`, `alice`); `None` for objects, arrays and
/// null.
pub fn scalar_text(value: &Json) -> Option<String> {
    match value {
        Json::String(text) => Some(text.to_string()),
        Json::Number(number) => Some(number.as_str().to_owned()),
        Json::Bool(flag) => Some(flag.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::parsed_json as json;

    #[test]
    fn an_entity_without_fields_keeps_the_others_in_order() {
        let entity = json(r#"{"id": 3, "name": "Ana", "email": "a@x.test", "role": "qa"}"#);
        let without = project_without(&entity, &["email".to_owned(), "colour".to_owned()]);
        assert_eq!(
            without.to_canonical_string(),
            json(r#"{"id": 3, "name": "Ana", "role": "qa"}"#).to_canonical_string()
        );
        assert_eq!(
            without
                .as_object()
                .map(|object| object.keys().collect::<Vec<_>>()),
            Some(vec!["id", "name", "role"])
        );
    }

    #[test]
    fn counters_keep_their_representation() {
        // contract: STATE-067, STATE-068, STATE-079, STATE-080, STATE-081
        let mut envelope =
            json(r#"{"total": 2, "pageInfo": {"totalRows": "002", "isLastPage": true}}"#);
        set_counter(&mut envelope, "/total", 5);
        set_counter(&mut envelope, "/pageInfo/totalRows", 13);
        assert_eq!(
            envelope.to_canonical_string(),
            r#"{"pageInfo":{"isLastPage":true,"totalRows":"013"},"total":5}"#
        );
        set_counter(&mut envelope, "/pageInfo/totalRows", 1234);
        assert_eq!(
            envelope.pointer("/pageInfo/totalRows"),
            Some(&Json::String("1234".into()))
        );
        assert!(counts(&json(r#""007""#), 7));
        assert!(!counts_canonically(&json(r#""007""#), 7));
        assert!(counts_canonically(&json("7"), 7));
    }

    #[test]
    fn a_shape_hides_nests_sorts_and_sets_view_values() {
        // contract: STATE-073, STATE-074, STATE-076, STATE-077
        let shape = ViewShape {
            hidden_fields: vec!["text".into()],
            nested_fields: [("parent".to_owned(), vec!["id".to_owned()])]
                .into_iter()
                .collect(),
            sorted_arrays: vec!["tags".into()],
            ..ViewShape::default()
        };
        let entity = Entity {
            entity_type: "/t".into(),
            collection: "/t".into(),
            id: "1".into(),
            fields: json(
                r#"{"id": 1, "text": "x", "parent": {"id": 2, "name": "p"}, "tags": ["b", "a"]}"#,
            ),
            view_fields: [("list".to_owned(), json(r#"{"status": "open"}"#))]
                .into_iter()
                .collect(),
            record_ordinals: vec![],
        };
        let rendered = render_entity(&shape, "list", &entity);
        assert_eq!(
            rendered.to_canonical_string(),
            r#"{"id":1,"parent":{"id":2},"status":"open","tags":["a","b"]}"#
        );
        // The stored order is kept: only the view sorts.
        assert_eq!(
            entity.fields.pointer("/tags/0"),
            Some(&Json::String("b".into()))
        );
        let other = render_entity(&shape, "item", &entity);
        assert!(other.get("status").is_none());
    }

    #[test]
    fn a_linked_record_is_shown_as_its_id_and_a_null_link_as_null() {
        let shape = ViewShape {
            linked_ids: [("project".to_owned(), "id".to_owned())].into(),
            ..ViewShape::default()
        };
        let entity = |fields: &str| Entity {
            entity_type: "/t".into(),
            collection: "/t".into(),
            id: "1".into(),
            fields: json(fields),
            view_fields: std::collections::BTreeMap::new(),
            record_ordinals: vec![],
        };
        let linked = entity(r#"{"id": 1, "project": {"id": 5, "name": "p"}, "owner": {"id": 2}}"#);
        assert_eq!(
            render_entity(&shape, "list", &linked).to_canonical_string(),
            r#"{"id":1,"owner":{"id":2},"project":5}"#
        );
        let unlinked = entity(r#"{"id": 1, "project": null}"#);
        assert_eq!(
            render_entity(&shape, "list", &unlinked).to_canonical_string(),
            r#"{"id":1,"project":null}"#
        );
        // Another view shows the record whole.
        assert_eq!(
            render_entity(&ViewShape::default(), "item", &linked).pointer("/project/name"),
            Some(&Json::String("p".into()))
        );
    }

    #[test]
    fn a_lifted_object_shows_its_members_at_the_top_level() {
        let shape = ViewShape {
            hidden_fields: vec!["fields".into(), "text".into()],
            lifted_fields: vec!["fields".into()],
            ..ViewShape::default()
        };
        let entity = Entity {
            entity_type: "/t".into(),
            collection: "/t".into(),
            id: "a".into(),
            fields: json(
                r#"{"title": "a", "text": "x", "status": "kept", "fields": {"status": "shadowed", "due": "2026"}}"#,
            ),
            view_fields: std::collections::BTreeMap::new(),
            record_ordinals: vec![],
        };
        let rendered = render_entity(&shape, "list", &entity);
        // A top-level field of the same name wins over the lifted member.
        assert_eq!(
            rendered.to_canonical_string(),
            r#"{"due":"2026","status":"kept","title":"a"}"#
        );
    }

    #[test]
    fn a_member_is_set_added_or_removed_in_the_object_holding_it() {
        let body = json(r#"{"data": {"list": [], "total": 2}}"#);
        let added = with_member_at(body, "/data/links", Some(json(r#"{"self": "s"}"#)));
        assert_eq!(
            added,
            Some(json(
                r#"{"data": {"list": [], "total": 2, "links": {"self": "s"}}}"#
            ))
        );
        let removed = with_member_at(added.expect("added"), "/data/links", None);
        assert_eq!(removed, Some(json(r#"{"data": {"list": [], "total": 2}}"#)));
        // No object holding it: not set.
        assert_eq!(with_member_at(json("[]"), "/data/links", None), None);
    }
}

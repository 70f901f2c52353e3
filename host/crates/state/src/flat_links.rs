//! Page links an application writes as members of a list's envelope itself, beside its other
//! members, rather than as an object of their own: Django REST framework's
//! `{count, next, previous, results}` (absolute `next`/`previous` URLs or `null`). They are
//! learned as a [`CursorForm::PageLinks`] over a virtual links object made, per page, of the
//! envelope members holding a link text or `null` ([`virtual_links`]), kept as a
//! [`CursorMember`] marked `flat`, compared through the same virtual object ([`shown`]) and
//! minted by setting each relation back into the envelope ([`set`]).

use rea_plugin_api::json::{Json, Object, escape_pointer_segment};

use crate::model::{CursorForm, CursorMember};

/// Whether a text is a link: an absolute URL or an absolute path.
fn is_link(text: &str) -> bool {
    text.starts_with("http://") || text.starts_with("https://") || text.starts_with('/')
}

/// The keys of the envelope members at `parent` (besides the list at `list_pointer`) that every
/// page showing them holds as a link text or `null`, some page as a link text.
fn link_keys(bodies: &[&Json], (parent, list_pointer): (&str, &str)) -> Vec<String> {
    let envelopes = || {
        bodies
            .iter()
            .filter_map(|body| body.pointer(parent).and_then(Json::as_object))
    };
    let mut keys: Vec<String> = Vec::new();
    for envelope in envelopes() {
        for (key, _) in envelope.iter() {
            let pointer = format!("{parent}/{}", escape_pointer_segment(key));
            if pointer != list_pointer && !keys.iter().any(|known| known == key) {
                keys.push(key.to_owned());
            }
        }
    }
    keys.retain(|key| {
        let values = || envelopes().filter_map(|envelope| envelope.get(key));
        values().all(|value| match value {
            Json::Null => true,
            Json::String(text) => is_link(text),
            _ => false,
        }) && values().any(|value| matches!(value, Json::String(_)))
    });
    keys
}

/// The objects whose own members may hold page links, as pointers: the list's envelope at
/// `parent` (Django REST framework's `{count, next, previous, results}`), then each object
/// member some page's envelope holds beside the list (django-tastypie's `{"meta": {limit, next,
/// offset, previous, total_count}, "objects": […]}`), in first-shown order.
pub fn link_parents(bodies: &[&Json], (parent, list_pointer): (&str, &str)) -> Vec<String> {
    let mut parents = vec![parent.to_owned()];
    for envelope in bodies
        .iter()
        .filter_map(|body| body.pointer(parent).and_then(Json::as_object))
    {
        for (key, value) in envelope.iter() {
            let pointer = format!("{parent}/{}", escape_pointer_segment(key));
            if pointer != list_pointer
                && matches!(value, Json::Object(_))
                && !parents.contains(&pointer)
            {
                parents.push(pointer);
            }
        }
    }
    parents
}

/// Per page (in order), the virtual links object of the envelope's link members (see
/// [`link_keys`]), `null` for a page without an envelope object; `None` when no member holds
/// links.
pub fn virtual_links(bodies: &[&Json], places: (&str, &str)) -> Option<Vec<Json>> {
    let keys = link_keys(bodies, places);
    if keys.is_empty() {
        return None;
    }
    let objects = bodies
        .iter()
        .map(
            |body| match body.pointer(places.0).and_then(Json::as_object) {
                Some(envelope) => Json::Object(of_keys(envelope, keys.iter().map(String::as_str))),
                None => Json::Null,
            },
        )
        .collect();
    Some(objects)
}

/// The members of `envelope` under `keys`, those it holds.
fn of_keys<'k>(envelope: &Object, keys: impl Iterator<Item = &'k str>) -> Object {
    let mut object = Object::new();
    for key in keys {
        if let Some(value) = envelope.get(key) {
            object.insert(key.to_owned(), value.clone());
        }
    }
    object
}

/// The relation keys of a links form.
fn relation_keys(form: &CursorForm) -> Vec<&str> {
    match form {
        CursorForm::PageLinks { relations, .. } => relations
            .iter()
            .map(|relation| relation.key.as_str())
            .collect(),
        _ => Vec::new(),
    }
}

/// What a body shows for a cursor member: the value at its pointer, or for a flat member the
/// object of its relations as the envelope there holds them (`None` without an envelope).
pub fn shown(member: &CursorMember, body: &Json) -> Option<Json> {
    if !member.flat {
        return body.pointer(&member.pointer).cloned();
    }
    let envelope = body.pointer(&member.pointer).and_then(Json::as_object)?;
    Some(Json::Object(of_keys(
        envelope,
        relation_keys(&member.form).into_iter(),
    )))
}

/// A flat member's relation the minted links lack: `null` where the pages showed a missing
/// relation so, else left out.
fn absent(member: &CursorMember) -> Option<Json> {
    match &member.form {
        CursorForm::PageLinks {
            absent_null: true, ..
        } => Some(Json::Null),
        _ => None,
    }
}

/// What a body shows for a cursor member once its minted value is set (see [`shown`]): the
/// value itself, or for a flat member the object of every relation as [`set`] sets it.
pub fn expected(member: &CursorMember, value: Option<Json>) -> Option<Json> {
    if !member.flat {
        return value;
    }
    let minted = value.as_ref().and_then(Json::as_object);
    let mut object = Object::new();
    for key in relation_keys(&member.form) {
        let held = (minted.and_then(|object| object.get(key)).cloned()).or(absent(member));
        if let Some(held) = held {
            object.insert(key.to_owned(), held);
        }
    }
    Some(Json::Object(object))
}

/// The body with a cursor member's minted value set: at its pointer, or for a flat member each
/// relation set in the envelope there (see [`expected`]).
pub fn set(body: Json, member: &CursorMember, value: Option<Json>) -> Option<Json> {
    if !member.flat {
        return crate::render::with_member_at(body, &member.pointer, value);
    }
    let minted = value.as_ref().and_then(Json::as_object);
    let mut body = body;
    for key in relation_keys(&member.form) {
        let pointer = format!("{}/{}", member.pointer, escape_pointer_segment(key));
        let held = (minted.and_then(|object| object.get(key)).cloned()).or(absent(member));
        body = crate::render::with_member_at(body, &pointer, held)?;
    }
    Some(body)
}

/// Whether a cursor member mints the envelope member at `pointer`: one at or under its pointer,
/// or for a flat member one of its relations.
pub fn covers(member: &CursorMember, pointer: &str) -> bool {
    if member.flat {
        return relation_keys(&member.form)
            .into_iter()
            .any(|key| format!("{}/{}", member.pointer, escape_pointer_segment(key)) == pointer);
    }
    pointer
        .strip_prefix(member.pointer.as_str())
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::parsed_json;

    fn pages() -> Vec<Json> {
        [
            r#"{"count": 14, "next": "http://h/api/tasks/?page=2", "previous": null, "results": []}"#,
            r#"{"count": 14, "next": null, "previous": "http://h/api/tasks/", "results": []}"#,
        ]
        .iter()
        .map(|text| parsed_json(text))
        .collect()
    }

    #[test]
    fn the_envelope_members_holding_links_make_the_virtual_object() {
        let pages = pages();
        let bodies: Vec<&Json> = pages.iter().collect();
        let objects = virtual_links(&bodies, ("", "/results")).unwrap();
        assert_eq!(
            objects[0],
            parsed_json(r#"{"next": "http://h/api/tasks/?page=2", "previous": null}"#)
        );
        assert_eq!(
            objects[1],
            parsed_json(r#"{"next": null, "previous": "http://h/api/tasks/"}"#)
        );
    }

    /// Django REST framework's pages of 14 tasks, 10 a page by default: `page=2` and
    /// `page_size=5`, its links re-encoding the whole query in name order.
    fn learned() -> CursorMember {
        use crate::page_cursor::{Position, ShownPage, page_link_forms_sized};
        let pages: Vec<Json> = [
            r#"{"next": "http://h/t/?page=2", "previous": null}"#,
            r#"{"next": null, "previous": "http://h/t/"}"#,
            r#"{"next": "http://h/t/?page=2&page_size=5&status=open", "previous": null}"#,
            r#"{"next": null, "previous": "http://h/t/?page_size=5&status=open"}"#,
        ]
        .iter()
        .map(|text| parsed_json(text))
        .collect();
        let sent: Vec<Vec<(String, String)>> = [
            vec![],
            vec![("page", "2")],
            vec![("status", "open"), ("page_size", "5")],
            vec![("status", "open"), ("page", "2"), ("page_size", "5")],
        ]
        .into_iter()
        .map(|pairs| {
            (pairs.into_iter())
                .map(|(name, value)| (name.to_owned(), value.to_owned()))
                .collect()
        })
        .collect();
        let shape = [
            (None, None, 14),
            (Some("2"), None, 14),
            (None, Some(5), 7),
            (Some("2"), Some(5), 7),
        ];
        let shown: Vec<ShownPage<'_>> = (pages.iter().zip(&sent).zip(shape))
            .map(|((links, sent), (position, size, matched))| ShownPage {
                links,
                position,
                size,
                matched,
                sent,
            })
            .collect();
        let position = Position::Page {
            name: "page",
            base: 1,
        };
        let forms = page_link_forms_sized(&shown, (position, "page_size"), Some(10));
        assert!(page_link_forms_sized(&shown, (position, "page_size"), None).is_empty());
        let form = forms
            .into_iter()
            .find(|form| {
                matches!(
                    form,
                    CursorForm::PageLinks {
                        sorted: true,
                        decoded: false,
                        ..
                    }
                )
            })
            .unwrap();
        CursorMember {
            pointer: String::new(),
            form,
            flat: true,
        }
    }

    #[test]
    fn links_beside_the_list_are_learned_with_the_default_size_and_set_back_in_place() {
        let member = learned();
        let body = parsed_json(r#"{"count": 3, "next": "x", "previous": "y", "results": []}"#);
        let minted = parsed_json(r#"{"next": "http://h/t/?page=3"}"#);
        let set = set(body, &member, Some(minted.clone())).unwrap();
        assert_eq!(
            set,
            parsed_json(
                r#"{"count": 3, "next": "http://h/t/?page=3", "previous": null, "results": []}"#
            )
        );
        assert_eq!(shown(&member, &set), expected(&member, Some(minted)));
        assert!(covers(&member, "/next") && covers(&member, "/previous"));
        assert!(!covers(&member, "/count") && !covers(&member, "/results"));
    }

    #[test]
    fn links_inside_an_object_beside_the_list_are_read_there() {
        // django-tastypie's `{"meta": {limit, next, offset, previous, total_count}, "objects"}`.
        let pages: Vec<Json> = [
            r#"{"meta": {"limit": 5, "next": "/b/?limit=5&offset=5", "offset": 0, "previous": null, "total_count": 14}, "objects": []}"#,
            r#"{"meta": {"limit": 5, "next": null, "offset": 10, "previous": "/b/?limit=5&offset=5", "total_count": 14}, "objects": []}"#,
        ]
        .iter()
        .map(|text| parsed_json(text))
        .collect();
        let bodies: Vec<&Json> = pages.iter().collect();
        assert_eq!(link_parents(&bodies, ("", "/objects")), ["", "/meta"]);
        assert!(virtual_links(&bodies, ("", "/objects")).is_none());
        let objects = virtual_links(&bodies, ("/meta", "/objects")).unwrap();
        assert_eq!(
            objects[1],
            parsed_json(r#"{"next": null, "previous": "/b/?limit=5&offset=5"}"#)
        );
        // The list itself, or a list nested in an object, is no parent of links.
        let nested = parsed_json(r#"{"data": {"items": []}, "count": 2}"#);
        assert_eq!(
            link_parents(&[&nested], ("/data", "/data/items")),
            ["/data"]
        );
    }

    #[test]
    fn a_member_that_is_no_link_or_never_one_is_left_out() {
        let pages: Vec<Json> = [
            r#"{"label": "tasks", "after": null, "next": null, "results": []}"#,
            r#"{"label": "tasks", "after": null, "next": "/api/tasks/?page=3", "results": []}"#,
        ]
        .iter()
        .map(|text| parsed_json(text))
        .collect();
        let bodies: Vec<&Json> = pages.iter().collect();
        let objects = virtual_links(&bodies, ("", "/results")).unwrap();
        assert_eq!(objects[1], parsed_json(r#"{"next": "/api/tasks/?page=3"}"#));
        let plain = [parsed_json(r#"{"count": 2, "next": null, "results": []}"#)];
        assert!(virtual_links(&[&plain[0]], ("", "/results")).is_none());
    }
}

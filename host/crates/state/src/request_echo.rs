//! Request echoes: an envelope member an item answer shows only when its call has a query,
//! naming the call's path and query (`links.related: "/api/projects/1?include=tasks"`).
//!
//! Learned per item view from its successful reads: every read with a query shows, at one
//! pointer of the envelope (a top-level member or one object down, outside the entity), the
//! path as written, `?`, and the query pairs as decoded, joined by `&`; every read without a
//! query lacks that member. A reshaping answer of such a call (a sparse fieldset, a compound
//! document), rendered from the call without its query, gets the member back with the call's
//! pairs as sent.

use rea_manifest::Manifest;
use rea_plugin_api::json::{Json, Object};

use crate::model::{ReadView, ViewDetail};
use crate::observation::{Observation, Timeline};

/// The request line a path and query pairs make (`/a/1?x=1&y=2`; the path alone without pairs).
pub fn request_line(path: &str, pairs: &[(String, String)]) -> String {
    if pairs.is_empty() {
        return path.to_owned();
    }
    let query: Vec<String> = pairs
        .iter()
        .map(|(name, value)| format!("{name}={value}"))
        .collect();
    format!("{path}?{}", query.join("&"))
}

/// The pointer of the member echoing the request (see the module docs): one for every item
/// view, as an application's item envelopes are one language; `None` when no item read with a
/// query shows one, two views show different ones, or a view's read without a query shows it.
pub fn learn(manifest: &Manifest, timeline: &Timeline, views: &[ReadView]) -> Option<String> {
    let mut learned: Option<String> = None;
    let mut reads: Vec<(&Observation, &str)> = Vec::new();
    for view in views {
        let ViewDetail::Item(item) = &view.detail else {
            continue;
        };
        let Some(index) = crate::derive::tool_index(manifest, &view.tool) else {
            continue;
        };
        let own: Vec<&Observation> = timeline
            .all(index)
            .filter(|observation| observation.is_success() && observation.body.is_some())
            .collect();
        if let Some(pointer) = echo_pointer(&own, &item.entity_pointer) {
            if learned.as_ref().is_some_and(|known| *known != pointer) {
                return None;
            }
            learned = Some(pointer);
        }
        reads.extend(
            own.into_iter()
                .map(|read| (read, item.entity_pointer.as_str())),
        );
    }
    let pointer = learned?;
    let bare_lacks = |(read, _): &(&Observation, &str)| {
        !read.pairs().is_empty()
            || read
                .body
                .as_ref()
                .and_then(|b| b.pointer(&pointer))
                .is_none()
    };
    reads.iter().all(bare_lacks).then_some(pointer)
}

/// The one pointer every read with a query echoes it at and no read without one shows.
fn echo_pointer(reads: &[&Observation], entity_pointer: &str) -> Option<String> {
    let with_query: Vec<&&Observation> = reads
        .iter()
        .filter(|read| !read.pairs().is_empty())
        .collect();
    let first = with_query.first()?;
    let line = request_line(&first.path, first.pairs());
    let candidates = string_pointers(first.body.as_ref()?.as_object()?)
        .into_iter()
        .filter(|(pointer, value)| *value == line && !within(pointer, entity_pointer))
        .map(|(pointer, _)| pointer);
    let echoes = |pointer: &String| {
        reads.iter().all(|read| {
            let shown = read.body.as_ref().and_then(|body| body.pointer(pointer));
            if read.pairs().is_empty() {
                shown.is_none()
            } else {
                shown.and_then(Json::as_str)
                    == Some(request_line(&read.path, read.pairs()).as_str())
            }
        })
    };
    let mut found = candidates.filter(echoes);
    let pointer = found.next()?;
    found.next().is_none().then_some(pointer)
}

/// Whether a pointer is the entity's or below it (every pointer is, for an entity at the root).
fn within(pointer: &str, entity_pointer: &str) -> bool {
    pointer == entity_pointer || pointer.starts_with(&format!("{entity_pointer}/"))
}

/// The pointers of the string members of an object, at most one object down (what an echo or
/// a related route's minted members may be).
pub(crate) fn string_pointers(object: &Object) -> Vec<(String, &str)> {
    let mut found = Vec::new();
    for (key, value) in object.iter() {
        match value {
            Json::String(text) => found.push((format!("/{key}"), text.as_str())),
            Json::Object(inner) => found.extend(
                inner
                    .iter()
                    .filter_map(|(name, value)| Some((format!("/{key}/{name}"), value.as_str()?))),
            ),
            _ => {}
        }
    }
    found
}

/// Sets the echo member at `pointer` (its parent object must exist) to the request line.
pub fn apply(body: &mut Json, pointer: &str, line: String) -> Option<()> {
    let (parent, name) = pointer.rsplit_once('/')?;
    let parent = crate::render::pointer_mut(body, parent)?.as_object_mut()?;
    parent.insert(name, Json::String(line.into()));
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::json::parse;

    fn read(path: &str, query: &[(&str, &str)], body: &str) -> Observation {
        crate::test_support::read_observation(0, path, query, body)
    }

    #[test]
    fn a_member_naming_the_request_line_only_with_a_query_is_an_echo() {
        let queried = read(
            "/p/1",
            &[("include", "tasks")],
            r#"{"data": {"id": "1", "self": "/p/1?include=tasks"}, "links": {"self": "/p/1/", "related": "/p/1?include=tasks"}}"#,
        );
        let plain = read(
            "/p/2",
            &[],
            r#"{"data": {"id": "2"}, "links": {"self": "/p/2/"}}"#,
        );
        // The entity's own member is left out; the envelope's is the echo.
        assert_eq!(
            echo_pointer(&[&queried, &plain], "/data"),
            Some("/links/related".to_owned())
        );
        // A plain read showing the member too: no echo.
        let shown = read(
            "/p/2",
            &[],
            r#"{"data": {"id": "2"}, "links": {"related": "/p/2?include=tasks"}}"#,
        );
        assert_eq!(echo_pointer(&[&queried, &shown], "/data"), None);
        let mut body = parse(br#"{"links": {"self": "/p/3/"}}"#).expect("JSON");
        let pairs = [("fields[P]".to_owned(), "a,b".to_owned())];
        let line = request_line("/p/3", &pairs);
        assert_eq!(apply(&mut body, "/links/related", line), Some(()));
        assert_eq!(
            body.pointer("/links/related").and_then(Json::as_str),
            Some("/p/3?fields[P]=a,b")
        );
    }
}

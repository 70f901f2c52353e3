//! Request echoes: an envelope member an item answer shows only when its call has a query,
//! naming the call's path and query (`links.related: "/api/projects/1?include=tasks"`).
//!
//! Learned per item view from its successful reads: every read with a query shows, at one
//! pointer of the envelope (a top-level member or one object down, outside the entity), the
//! path as written, `?`, and the query pairs as decoded, joined by `&`, after one constant
//! origin or none (`http://127.0.0.1:18898/api/projects/1?include=tasks`); every read without a
//! query lacks that member or shows the origin and its path alone (`links.self` of every
//! pyramid-jsonapi item answer). A reshaping answer of such a call (a sparse fieldset, a
//! compound document), rendered from the call without its query, gets the member back with the
//! origin and the call's pairs as sent.

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

/// A member echoing the request (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Echo {
    /// The member's pointer in the envelope.
    pub pointer: String,
    /// The constant text before the request line: an origin (`http://127.0.0.1:18898`), or
    /// nothing.
    pub prefix: String,
}

impl Echo {
    /// Whether a read shows this echo of its own request: its line after the prefix, or, for a
    /// read without a query, nothing or its path alone after the prefix.
    fn shown_by(&self, read: &Observation) -> bool {
        let shown = read
            .body
            .as_ref()
            .and_then(|body| body.pointer(&self.pointer));
        if read.pairs().is_empty() {
            shown.is_none_or(|shown| {
                shown.as_str() == Some(&format!("{}{}", self.prefix, read.path))
            })
        } else {
            let line = request_line(&read.path, read.pairs());
            shown.and_then(Json::as_str) == Some(&format!("{}{line}", self.prefix))
        }
    }
}

/// The member echoing the request (see the module docs): one for every item view, as an
/// application's item envelopes are one language; `None` when no item read with a query shows
/// one, two views show different ones, or a read without a query shows it otherwise.
pub fn learn(manifest: &Manifest, timeline: &Timeline, views: &[ReadView]) -> Option<Echo> {
    let mut learned: Option<Echo> = None;
    let mut reads: Vec<&Observation> = Vec::new();
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
        if let Some(echo) = echo_of(&own, &item.entity_pointer) {
            if learned.as_ref().is_some_and(|known| *known != echo) {
                return None;
            }
            learned = Some(echo);
        }
        reads.extend(own);
    }
    let echo = learned?;
    let bare = reads.iter().filter(|read| read.pairs().is_empty());
    bare.clone().all(|read| echo.shown_by(read)).then_some(echo)
}

/// Whether a text is an origin (`http://127.0.0.1:18898`: a scheme and an authority, no path)
/// or empty.
fn is_origin_or_empty(text: &str) -> bool {
    text.is_empty()
        || text.split_once("://").is_some_and(|(scheme, authority)| {
            !scheme.is_empty() && !authority.is_empty() && !authority.contains('/')
        })
}

/// The one echo every read shows of its own request (see [`Echo::shown_by`]), some read with a
/// query showing it.
fn echo_of(reads: &[&Observation], entity_pointer: &str) -> Option<Echo> {
    let first = reads.iter().find(|read| !read.pairs().is_empty())?;
    let line = request_line(&first.path, first.pairs());
    let candidates = string_pointers(first.body.as_ref()?.as_object()?)
        .into_iter()
        .filter(|(pointer, _)| !within(pointer, entity_pointer))
        .filter_map(|(pointer, value)| {
            let prefix = value.strip_suffix(line.as_str())?;
            is_origin_or_empty(prefix).then(|| Echo {
                pointer,
                prefix: prefix.to_owned(),
            })
        });
    let mut found = candidates.filter(|echo| reads.iter().all(|read| echo.shown_by(read)));
    let echo = found.next()?;
    found.next().is_none().then_some(echo)
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
        let related = Echo {
            pointer: "/links/related".to_owned(),
            prefix: String::new(),
        };
        assert_eq!(echo_of(&[&queried, &plain], "/data"), Some(related));
        // A plain read showing the member too: no echo.
        let shown = read(
            "/p/2",
            &[],
            r#"{"data": {"id": "2"}, "links": {"related": "/p/2?include=tasks"}}"#,
        );
        assert_eq!(echo_of(&[&queried, &shown], "/data"), None);
        let mut body = parse(br#"{"links": {"self": "/p/3/"}}"#).expect("JSON");
        let pairs = [("fields[P]".to_owned(), "a,b".to_owned())];
        let line = request_line("/p/3", &pairs);
        assert_eq!(apply(&mut body, "/links/related", line), Some(()));
        assert_eq!(
            body.pointer("/links/related").and_then(Json::as_str),
            Some("/p/3?fields[P]=a,b")
        );
    }

    #[test]
    fn a_member_naming_the_origin_and_the_request_line_echoes_the_path_alone_without_a_query() {
        let origin = "http://127.0.0.1:18898";
        let body = |line: &str| {
            format!(r#"{{"data": {{"id": "1"}}, "links": {{"self": "{origin}{line}"}}}}"#)
        };
        let queried = read("/p/1", &[("include", "tasks")], &body("/p/1?include=tasks"));
        let plain = read("/p/2", &[], &body("/p/2"));
        let echo = Echo {
            pointer: "/links/self".to_owned(),
            prefix: origin.to_owned(),
        };
        assert_eq!(echo_of(&[&queried, &plain], "/data"), Some(echo));
        // A plain read showing the member as another path: no echo.
        let other = read("/p/2", &[], &body("/p/9"));
        assert_eq!(echo_of(&[&queried, &other], "/data"), None);
        // Text before the line that is no origin: no echo.
        let nested = read(
            "/p/1",
            &[("include", "tasks")],
            &body("/v2/p/1?include=tasks"),
        );
        assert_eq!(echo_of(&[&nested, &plain], "/data"), None);
    }
}

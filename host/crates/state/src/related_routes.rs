//! To-one related routes: a read whose path is an entity's path and one more segment naming
//! one of its relationships (`/books/4/author/`, `/api/tasks/4/project`), answering the related
//! resource the entity's linkage names ([`crate::compound`]: held, or keyed) as its own entity
//! holds it, in the envelope of a recorded answer.
//!
//! Learned per read tool from its successful reads without a query: the segments before the last
//! name a held entity (its collection and id), the last one of its relationships whose linkage
//! names one held resource, and one place of the body (the top, or a top-level member) shows
//! exactly that resource (a read of an empty linkage shows `null` there). The envelope's other
//! text members are kept as recorded, or minted per call: the call's path after a constant
//! prefix where every read spells it so (an absolute `links.self`, even shown by one read), or,
//! where the reads show them otherwise, a text member of the related resource (`links.related`
//! its `links.self`). A call for any entity the state holds is answered so, an empty linkage
//! (`null`) with `null` at the resource's place; an entity or a related resource the state lacks
//! is not modelled. Only reads in their observation windows teach (a later write may have
//! changed what they show).

use serde::{Deserialize, Serialize};

use rea_manifest::Manifest;
use rea_plugin_api::json::Json;

use crate::compound::{CompoundDocuments, names_resource};
use crate::model::{Entity, ReadView};
use crate::observation::{Observation, Timeline};

/// Where a minted envelope member's text comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemberSource {
    /// The call's path after this prefix (`http://127.0.0.1:18851`).
    Request(String),
    /// The related resource's text member at this pointer (`/links/self`).
    Related(String),
}

/// A learned related route (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RelatedRoute {
    /// The read tool.
    pub tool: String,
    /// Where the related resource sits in the body (`/data`; `""`: the body).
    pub pointer: String,
    /// The record whose envelope answers are rendered into.
    pub envelope_ordinal: u64,
    /// The envelope members minted per call, by pointer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub minted: Vec<(String, MemberSource)>,
}

/// The segments of a path, empty ones left out.
fn segments(path: &str) -> Vec<&str> {
    path.split('/')
        .filter(|segment| !segment.is_empty())
        .collect()
}

/// The held entity a path's segments before the last name, and the last segment.
fn parent_of<'a, 'b>(path: &'b str, held: &[&'a Entity]) -> Option<(&'a Entity, &'b str)> {
    let segments = segments(path);
    let (name, parent) = segments.split_last()?;
    let (id, collection) = parent.split_last()?;
    let collection = collection.join("/");
    let entity = held
        .iter()
        .copied()
        .find(|entity| entity.id == *id && entity.collection.trim_matches('/') == collection)?;
    Some((entity, name))
}

/// The one held resource a parent's relationship links (`Some(Some(_))`), or `Some(None)` when
/// the linkage is `null` (a to-one relationship linking nothing); `None` when it links several,
/// none the state holds, or the parent has no such relationship.
fn related_of<'a>(
    rule: &CompoundDocuments,
    parent: &Entity,
    name: &str,
    held: &[&'a Entity],
) -> Option<Option<&'a Entity>> {
    let linkage = rule.linkage(parent.fields.as_object()?, name, held)?;
    if linkage.is_null() {
        return Some(None);
    }
    let identifier = linkage.as_object()?;
    held.iter()
        .copied()
        .find(|entity| {
            (entity.fields.as_object()).is_some_and(|fields| names_resource(identifier, fields))
        })
        .map(Some)
}

/// Learns the related routes of every read tool (see the module docs).
pub fn learn(
    manifest: &Manifest,
    timeline: &Timeline,
    (entities, views): (&[Entity], &[ReadView]),
    rule: Option<&CompoundDocuments>,
) -> Vec<RelatedRoute> {
    learn_per_tool(manifest, timeline, (entities, views), rule, route_of)
}

/// What `route_of` learns of each read tool from its successful query-free reads with a body in
/// their observation windows,
/// given the compound documents' rule and the held entities (nothing without the rule): the
/// routes of [`learn`] and of [`crate::linkage_routes::learn`].
pub(crate) fn learn_per_tool<R>(
    manifest: &Manifest,
    timeline: &Timeline,
    (entities, views): (&[Entity], &[ReadView]),
    rule: Option<&CompoundDocuments>,
    route_of: impl Fn(&str, &[&Observation], &CompoundDocuments, &[&Entity]) -> Option<R>,
) -> Vec<R> {
    let Some(rule) = rule else {
        return Vec::new();
    };
    let held: Vec<&Entity> = entities.iter().collect();
    let mut routes = Vec::new();
    for view in views {
        let Some(index) = crate::derive::tool_index(manifest, &view.tool) else {
            continue;
        };
        let reads: Vec<&Observation> = timeline
            .checked(index)
            .filter(|read| read.is_success() && read.pairs().is_empty() && read.body.is_some())
            .collect();
        routes.extend(route_of(&view.tool, &reads, rule, &held));
    }
    routes
}

/// A read's body and the related resource it shows (`None`: the linkage is `null`).
type Shown<'a> = (&'a Observation, &'a Json, Option<&'a Entity>);

/// What a read shows at a pointer where it shows its related resource: the resource as held, or
/// `null` for an empty linkage.
fn shows_related(body: &Json, pointer: &str, related: Option<&Entity>) -> bool {
    let shown = body.pointer(pointer);
    match related {
        Some(related) => shown == Some(&related.fields),
        None => !pointer.is_empty() && shown.is_some_and(Json::is_null),
    }
}

/// The route a tool's reads teach, when every one of them fits (see the module docs).
fn route_of(
    tool: &str,
    reads: &[&Observation],
    rule: &CompoundDocuments,
    held: &[&Entity],
) -> Option<RelatedRoute> {
    let mut shown: Vec<Shown<'_>> = Vec::new();
    for read in reads {
        let (parent, name) = parent_of(&read.path, held)?;
        let related = related_of(rule, parent, name, held)?;
        shown.push((read, read.body.as_ref()?, related));
    }
    let (last, body, _) = *shown.last()?;
    let (_, _, related) = *shown
        .iter()
        .rev()
        .find(|(_, _, related)| related.is_some())?;
    let pointer = std::iter::once(String::new())
        .chain(body.as_object()?.keys().map(|key| format!("/{key}")))
        .find(|pointer| {
            shown
                .iter()
                .all(|(_, body, related)| shows_related(body, pointer, *related))
        })?;
    let related_texts = crate::request_echo::string_pointers(related?.fields.as_object()?);
    // A member spelling each read's own path after a constant prefix (`links.self`), even where
    // one read shows it ([`crate::path_echo`]).
    let lines: Vec<(&Json, &str)> = (shown.iter())
        .map(|(read, body, _)| (*body, read.path.as_str()))
        .collect();
    let echoes = crate::path_echo::echoing(&lines);
    let mut minted = Vec::new();
    for (member, value) in crate::request_echo::string_pointers(body.as_object()?) {
        if !pointer.is_empty() && (member == pointer || member.starts_with(&format!("{pointer}/")))
        {
            continue;
        }
        if let Some(echo) =
            (echoes.iter()).find(|echo| echo.pointer == member && echo.suffix.is_empty())
        {
            minted.push((member, MemberSource::Request(echo.prefix.clone())));
            continue;
        }
        let varies = shown
            .iter()
            .any(|(_, other, _)| other.pointer(&member).and_then(Json::as_str) != Some(value));
        if !varies {
            continue;
        }
        let source = related_source(&member, &shown, value, &related_texts)?;
        minted.push((member, source));
    }
    Some(RelatedRoute {
        tool: tool.to_owned(),
        pointer,
        envelope_ordinal: last.ordinal,
        minted,
    })
}

/// The text of a body's member, when it is a text.
fn member_text(body: &Json, member: &str) -> Option<String> {
    body.pointer(member)
        .and_then(Json::as_str)
        .map(str::to_owned)
}

/// The related resource's text member a member the reads show otherwise spells, when every read
/// shows a related resource and agrees on it.
fn related_source(
    member: &str,
    shown: &[Shown<'_>],
    value: &str,
    related_texts: &[(String, &str)],
) -> Option<MemberSource> {
    related_texts
        .iter()
        .filter(|(_, text)| *text == value)
        .map(|(pointer, _)| pointer)
        .find(|pointer| {
            shown.iter().all(|(_, body, related)| {
                let shown_text = member_text(body, member);
                related.is_some_and(|related| {
                    shown_text.is_some_and(|text| {
                        related.fields.pointer(pointer).and_then(Json::as_str)
                            == Some(text.as_str())
                    })
                })
            })
        })
        .map(|pointer| MemberSource::Related(pointer.clone()))
}

impl RelatedRoute {
    /// The answer body for a call of `path`: the envelope with the related resource the state
    /// holds and the minted members; `None` when the state holds no such entity, its linkage is
    /// empty or names no held resource.
    pub fn answer(
        &self,
        (rule, envelope): (&CompoundDocuments, &Json),
        path: &str,
        held: &[&Entity],
    ) -> Option<Json> {
        let (parent, name) = parent_of(path, held)?;
        let related = related_of(rule, parent, name, held)?;
        if related.is_none() && self.pointer.is_empty() {
            return None;
        }
        let mut body = envelope.clone();
        *crate::render::pointer_mut(&mut body, &self.pointer)? =
            related.map_or(Json::Null, |related| related.fields.clone());
        for (member, source) in &self.minted {
            let text = match source {
                MemberSource::Request(prefix) => format!("{prefix}{path}"),
                MemberSource::Related(pointer) => {
                    related?.fields.pointer(pointer)?.as_str()?.to_owned()
                }
            };
            *crate::render::pointer_mut(&mut body, member)? = Json::String(text.into());
        }
        Some(body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::entity;

    use crate::test_support::parsed_json as json;

    fn read(ordinal: u64, path: &str, body: &str) -> Observation {
        crate::test_support::read_observation(ordinal, path, &[], body)
    }

    fn book(id: &str, author: &str) -> String {
        format!(
            r#"{{"type": "Book", "id": "{id}", "relationships": {{"author": {{"data": {author}}}}}}}"#
        )
    }

    fn author(id: &str) -> String {
        format!(r#"{{"type": "Author", "id": "{id}", "links": {{"self": "/authors/{id}/"}}}}"#)
    }

    fn rule() -> CompoundDocuments {
        crate::test_support::json_api_compound()
    }

    #[test]
    fn a_relationship_segment_answers_the_linked_resource_in_the_envelope() {
        let a = |id: &str| format!(r#"{{"type": "Author", "id": "{id}"}}"#);
        let held = [
            entity("/books/", "4", &book("4", &a("2"))),
            entity("/books/", "9", &book("9", &a("4"))),
            entity("/books/", "3", &book("3", "null")),
            entity("/authors/", "2", &author("2")),
            entity("/authors/", "4", &author("4")),
        ];
        let held: Vec<&Entity> = held.iter().collect();
        let reads = [
            read(
                31,
                "/books/4/author/",
                &envelope_text("/books/4/author/", "2"),
            ),
            read(
                32,
                "/books/9/author/",
                &envelope_text("/books/9/author/", "4"),
            ),
        ];
        let reads: Vec<&Observation> = reads.iter().collect();
        let route = route_of("get_author", &reads, &rule(), &held).expect("a route");
        assert_eq!(route.pointer, "/data");
        assert_eq!(route.envelope_ordinal, 32);
        assert_eq!(
            route.minted,
            [
                (
                    "/links/self".to_owned(),
                    MemberSource::Request("http://h".to_owned())
                ),
                (
                    "/links/related".to_owned(),
                    MemberSource::Related("/links/self".to_owned())
                ),
            ]
        );
        let envelope = json(&envelope_text("/books/9/author/", "4"));
        let body = route
            .answer((&rule(), &envelope), "/books/4/author/", &held)
            .expect("an answer");
        assert_eq!(body, json(&envelope_text("/books/4/author/", "2")));
        // An empty linkage, or an entity the state lacks, is not answered.
        assert_eq!(
            route.answer((&rule(), &envelope), "/books/3/author/", &held),
            None
        );
        assert_eq!(
            route.answer((&rule(), &envelope), "/books/7/author/", &held),
            None
        );
        // A read showing another resource than the linkage names teaches no route.
        let wrong = [read(
            33,
            "/books/4/author/",
            &envelope_text("/books/4/author/", "4"),
        )];
        let wrong: Vec<&Observation> = wrong.iter().collect();
        assert_eq!(route_of("get_author", &wrong, &rule(), &held), None);
    }

    #[test]
    fn an_empty_linkage_answers_null_and_one_read_teaches_its_path_echo() {
        let a = |id: &str| format!(r#"{{"type": "Author", "id": "{id}"}}"#);
        let held = [
            entity("/books/", "4", &book("4", &a("2"))),
            entity("/books/", "3", &book("3", "null")),
            entity("/authors/", "2", &author("2")),
            entity("/authors/", "4", &author("4")),
        ];
        let held: Vec<&Entity> = held.iter().collect();
        let echo = |path: &str, data: &str| {
            format!(r#"{{"data": {data}, "links": {{"self": "{path}"}}}}"#)
        };
        // One read of a linked resource: its `links.self` spelling the call's path is minted.
        let one = [read(
            31,
            "/books/4/author/",
            &echo("/books/4/author/", &author("2")),
        )];
        let one: Vec<&Observation> = one.iter().collect();
        let route = route_of("get_author", &one, &rule(), &held).expect("a route");
        assert_eq!(
            route.minted,
            [(
                "/links/self".to_owned(),
                MemberSource::Request(String::new())
            )]
        );
        // A read of an empty linkage showing `null` where the others show the resource fits.
        let both = [
            read(
                31,
                "/books/4/author/",
                &echo("/books/4/author/", &author("2")),
            ),
            read(32, "/books/3/author/", &echo("/books/3/author/", "null")),
        ];
        let both: Vec<&Observation> = both.iter().collect();
        let route = route_of("get_author", &both, &rule(), &held).expect("a route");
        assert_eq!(route.pointer, "/data");
        let envelope = json(&echo("/books/3/author/", "null"));
        let null = route.answer((&rule(), &envelope), "/books/3/author/", &held);
        assert_eq!(null, Some(json(&echo("/books/3/author/", "null"))));
        let linked = route.answer((&rule(), &envelope), "/books/4/author/", &held);
        assert_eq!(linked, Some(json(&echo("/books/4/author/", &author("2")))));
        // Reads showing only empty linkages teach no place of the resource.
        let empty: Vec<&Observation> = both[1..].to_vec();
        assert_eq!(route_of("get_author", &empty, &rule(), &held), None);
    }

    fn envelope_text(path: &str, id: &str) -> String {
        format!(
            r#"{{"data": {}, "links": {{"self": "http://h{path}", "related": "/authors/{id}/", "kind": "to-one"}}}}"#,
            author(id)
        )
    }
}

//! Relationship linkage routes: a read whose path is an entity's path, segments every read of
//! the tool gave one value, and a relationship's name (`/tasks/5/relationships/assignee`,
//! `/projects/2/relationships/tasks`), answering the entity's linkage of that relationship
//! ([`crate::compound`]: `relationships.<name>.data`, held or keyed) in the envelope of a
//! recorded answer: a to-one identifier, `null`, or a to-many array.
//!
//! Learned per read tool from its successful reads without a query (whatever view the reads
//! taught: an identifiers' list of the related type renders them as held, not as read): the
//! segments before the name name a held entity, and one top-level member of the body shows
//! exactly its linkage (an identifier or an array of them, some read showing one), each identifier's members spelled as the linkage holds them or, where
//! every read spells a member's text as the number it reads as, as that number
//! (`numbered`: flask-rest-jsonapi-next's `{"id": 3}` beside the resource's `"3"`). The
//! envelope's other text members are kept as recorded, or minted per call where they spell the
//! call's path (after a constant prefix: `links.self`; before a constant query too: a page's
//! link, `links.first`), the named entity's collection path (Flask-Restless's `links.self`) or
//! the entity's text member of the same relationship (`links.related`, the entity's
//! `relationships.<name>.links.related`); its numbers that every read of a to-many linkage
//! shows equal to the linkage's length (`meta.total`) count the live linkage. A call for any
//! entity the state holds is answered from its live linkage; an entity the state lacks, or a
//! segment other than the recorded ones, is not modelled.

use serde::{Deserialize, Serialize};

use rea_manifest::Manifest;
use rea_plugin_api::json::{Json, Object};

use crate::compound::CompoundDocuments;
use crate::model::{Entity, ReadView};
use crate::observation::{Observation, Timeline};
use crate::render::scalar_text;

/// Where a minted envelope member's text comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkageText {
    /// The call's path after this prefix.
    Request(String),
    /// The entity's text member at the pointer these two parts spell around the relationship's
    /// name (`/relationships/` + `tasks` + `/links/related`).
    Entity(String, String),
    /// The related route's path after this prefix: the call's path without its segment before
    /// the relationship's name (`/api/task/1/assignee` for `/api/task/1/relationships/assignee`).
    Related(String),
    /// The call's path between this prefix and this constant query (a first page's link,
    /// `…/api/projects/2/relationships/tasks?page%5Blimit%5D=10&sort=id`).
    RequestQuery(String, String),
    /// The collection path of the entity the call names after this prefix (Flask-Restless's
    /// `links.self`, `/api/project` for `/api/project/2/relationships/tasks`).
    Collection(String),
}

/// A learned linkage route (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkageRoute {
    /// The read tool.
    pub tool: String,
    /// How many segments name the entity's collection (the id follows).
    pub collection_segments: usize,
    /// The segments between the id and the relationship's name, as every read gave them.
    pub between: Vec<String>,
    /// Where the linkage sits in the body (`/data`).
    pub pointer: String,
    /// The identifiers' members spelled as numbers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub numbered: Vec<String>,
    /// The record whose envelope answers are rendered into.
    pub envelope_ordinal: u64,
    /// The envelope members minted per call, by pointer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub minted: Vec<(String, LinkageText)>,
    /// The envelope's numbers counting a to-many linkage's identifiers, by pointer
    /// (`/meta/total`, `/meta/results/returned`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub counted: Vec<String>,
    /// The recorded read whose route an inferred sibling read took ([`crate::sibling_reads`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inferred_from: Option<String>,
}

/// The segments of a path, empty ones left out.
fn segments(path: &str) -> Vec<&str> {
    path.split('/')
        .filter(|segment| !segment.is_empty())
        .collect()
}

/// The held entity a path names with `collection` segments before its id, the segments between
/// the id and the last, and the last (the relationship's name).
fn parent_at<'a, 'p>(
    path: &'p str,
    collection: usize,
    held: &[&'a Entity],
) -> Option<(&'a Entity, Vec<&'p str>, &'p str)> {
    let segments = segments(path);
    let (name, before) = segments.split_last()?;
    let id = before.get(collection)?;
    let named = before[..collection].join("/");
    let entity = held
        .iter()
        .copied()
        .find(|entity| entity.id == *id && entity.collection.trim_matches('/') == named)?;
    Some((entity, before[collection + 1..].to_vec(), name))
}

/// Learns the linkage routes of every read tool (see the module docs).
pub fn learn(
    manifest: &Manifest,
    timeline: &Timeline,
    (entities, views): (&[Entity], &[ReadView]),
    rule: Option<&CompoundDocuments>,
) -> Vec<LinkageRoute> {
    let per_tool =
        |tool: &str, reads: &[&Observation], rule: &CompoundDocuments, held: &[&Entity]| {
            (1..4).find_map(|collection| route_of(tool, reads, rule, (held, collection)))
        };
    crate::related_routes::learn_per_tool(manifest, timeline, (entities, views), rule, per_tool)
}

/// The route a tool's reads teach with `collection` segments naming the entity's collection,
/// when every read fits (see the module docs).
fn route_of(
    tool: &str,
    reads: &[&Observation],
    rule: &CompoundDocuments,
    (held, collection): (&[&Entity], usize),
) -> Option<LinkageRoute> {
    let mut shown: Vec<(&Observation, &Json, &Entity, Json)> = Vec::new();
    let mut between: Option<Vec<&str>> = None;
    for read in reads {
        let (parent, segments, name) = parent_at(&read.path, collection, held)?;
        if between.get_or_insert_with(|| segments.clone()) != &segments {
            return None;
        }
        let linkage = rule.linkage(parent.fields.as_object()?, name, held)?;
        if !identifiers_only(&linkage) {
            return None;
        }
        shown.push((read, read.body.as_ref()?, parent, linkage));
    }
    // An empty linkage (`null`, `[]`) alone shows no place: some read must show an identifier.
    if shown
        .iter()
        .all(|(.., linkage)| identifiers(linkage).next().is_none())
    {
        return None;
    }
    let (last, body, parent, _) = shown.last()?;
    let (pointer, numbered) = body.as_object()?.keys().find_map(|key| {
        let pointer = format!("/{key}");
        let numbered = numbered_members(&shown, &pointer)?;
        Some((pointer, numbered))
    })?;
    let name = segments(&last.path).last()?.to_string();
    let mut minted = Vec::new();
    for (member, value) in crate::request_echo::string_pointers(body.as_object()?) {
        if member == pointer || member.starts_with(&format!("{pointer}/")) {
            continue;
        }
        minted.extend(minted_text(&member, value, &shown, (parent, &name)));
    }
    Some(LinkageRoute {
        tool: tool.to_owned(),
        collection_segments: collection,
        between: between?.into_iter().map(str::to_owned).collect(),
        counted: counted_members(&shown, &pointer),
        pointer,
        numbered,
        envelope_ordinal: last.ordinal,
        minted,
        inferred_from: None,
    })
}

/// The pointers of the envelope's numbers (down to three levels, outside the linkage at
/// `pointer`) that every read showing a to-many linkage shows equal to its length; none
/// without such a read.
fn counted_members(shown: &[(&Observation, &Json, &Entity, Json)], pointer: &str) -> Vec<String> {
    let arrays: Vec<(&Json, usize)> = shown
        .iter()
        .filter_map(|(_, body, _, linkage)| Some((*body, linkage.as_array()?.len())))
        .collect();
    let Some((first, _)) = arrays.first() else {
        return Vec::new();
    };
    let mut numbers = Vec::new();
    number_pointers(first, String::new(), &mut numbers);
    numbers.retain(|at| {
        *at != pointer
            && !at.starts_with(&format!("{pointer}/"))
            && arrays.iter().all(|(body, length)| {
                body.pointer(at).and_then(scalar_text) == Some(length.to_string())
            })
    });
    numbers
}

/// The pointers of a value's numbers, down to three levels of objects.
fn number_pointers(value: &Json, at: String, found: &mut Vec<String>) {
    match value {
        Json::Number(_) => found.push(at),
        Json::Object(object) if at.matches('/').count() < 3 => {
            for (key, member) in object.iter() {
                let pointer = format!("{at}/{}", rea_plugin_api::json::escape_pointer_segment(key));
                number_pointers(member, pointer, found);
            }
        }
        _ => {}
    }
}

/// The identifier members every read at `pointer` spells as numbers where the linkage holds
/// their text, when each read shows its linkage there so; `None` when one shows anything else.
fn numbered_members(
    shown: &[(&Observation, &Json, &Entity, Json)],
    pointer: &str,
) -> Option<Vec<String>> {
    let mut numbered: Option<Vec<String>> = None;
    for (_, body, _, linkage) in shown {
        let found = body.pointer(pointer)?;
        let candidates: Vec<String> = identifiers(found)
            .flat_map(|object| object.iter())
            .filter(|(_, value)| matches!(value, Json::Number(_)))
            .map(|(key, _)| key.to_owned())
            .collect();
        let mut members = numbered.clone().unwrap_or(candidates);
        members.sort();
        members.dedup();
        if respelled(linkage, &members) != *found {
            return None;
        }
        numbered = Some(members);
    }
    numbered
}

/// Whether a linkage is `null`, one identifier or an array of them (objects of scalars), not
/// the related resources themselves.
fn identifiers_only(linkage: &Json) -> bool {
    let scalars = |object: &Object| object.iter().all(|(_, value)| scalar_text(value).is_some());
    match linkage {
        Json::Null => true,
        Json::Object(object) => scalars(object),
        Json::Array(items) => items
            .iter()
            .all(|item| item.as_object().is_some_and(scalars)),
        _ => false,
    }
}

/// The identifier objects of a linkage: itself, or its array's entries.
fn identifiers(linkage: &Json) -> Box<dyn Iterator<Item = &Object> + '_> {
    match linkage {
        Json::Object(object) => Box::new(std::iter::once(object)),
        Json::Array(items) => Box::new(items.iter().filter_map(Json::as_object)),
        _ => Box::new(std::iter::empty()),
    }
}

/// A linkage with the `numbered` members of its identifiers spelled as the numbers they read as.
fn respelled(linkage: &Json, numbered: &[String]) -> Json {
    let number = |object: &Object| {
        let mut out = Object::new();
        for (key, value) in object.iter() {
            let as_number = numbered
                .iter()
                .any(|member| member == key)
                .then(|| scalar_text(value))
                .flatten()
                .and_then(|text| Json::parse(text.as_bytes()).ok())
                .filter(|parsed| matches!(parsed, Json::Number(_)));
            out.insert(key, as_number.unwrap_or_else(|| value.clone()));
        }
        Json::Object(out)
    };
    match linkage {
        Json::Object(object) => number(object),
        Json::Array(items) => Json::Array(
            items
                .iter()
                .map(|item| item.as_object().map_or_else(|| item.clone(), number))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Where a text member the reads show comes from, when it spells the call's path or the
/// entity's text of the same relationship in every read; `None`: kept as recorded.
fn minted_text(
    member: &str,
    value: &str,
    shown: &[(&Observation, &Json, &Entity, Json)],
    (parent, name): (&Entity, &str),
) -> Option<(String, LinkageText)> {
    let text = |body: &Json| {
        body.pointer(member)
            .and_then(Json::as_str)
            .map(str::to_owned)
    };
    if let Some(source) = path_text(value, shown, &text) {
        return Some((member.to_owned(), source));
    }
    if let Some(source) = entity_text(value, shown, (parent, name), &text) {
        return Some((member.to_owned(), source));
    }
    let (last, ..) = shown.last()?;
    let prefix = value.strip_suffix(related_path(&last.path)?.as_str())?;
    let agrees = shown.iter().all(|(read, body, ..)| {
        let related = related_path(&read.path).map(|path| format!("{prefix}{path}"));
        related.is_some() && text(body) == related
    });
    agrees.then(|| (member.to_owned(), LinkageText::Related(prefix.to_owned())))
}

/// Where a text every read spells from its own path comes from: the call's path after a
/// constant prefix ([`LinkageText::Request`]), then a constant query
/// ([`LinkageText::RequestQuery`]), or the named entity's collection path after a constant
/// prefix ([`LinkageText::Collection`]).
fn path_text(
    value: &str,
    shown: &[(&Observation, &Json, &Entity, Json)],
    text: &dyn Fn(&Json) -> Option<String>,
) -> Option<LinkageText> {
    let (last, _, parent, _) = shown.last()?;
    let every = |spelled: &dyn Fn(&Observation, &Entity) -> String| {
        (shown.iter()).all(|(read, body, entity, _)| text(body) == Some(spelled(read, entity)))
    };
    if let Some((prefix, query)) = crate::path_echo::around_path(value, last.path.as_str())
        && every(&|read, _| format!("{prefix}{}{query}", read.path))
    {
        return Some(if query.is_empty() {
            LinkageText::Request(prefix.to_owned())
        } else {
            LinkageText::RequestQuery(prefix.to_owned(), query.to_owned())
        });
    }
    let prefix = value.strip_suffix(parent.collection.as_str())?;
    every(&|_, entity| format!("{prefix}{}", entity.collection))
        .then(|| LinkageText::Collection(prefix.to_owned()))
}

/// The entity's text member of the same relationship every read's member spells
/// ([`LinkageText::Entity`]), when there is one.
fn entity_text(
    value: &str,
    shown: &[(&Observation, &Json, &Entity, Json)],
    (parent, name): (&Entity, &str),
    text: &dyn Fn(&Json) -> Option<String>,
) -> Option<LinkageText> {
    let mut texts = Vec::new();
    string_leaves(&parent.fields, String::new(), &mut texts);
    let (at, _) = texts
        .into_iter()
        .find(|(at, text)| *text == value && at.contains(&format!("/{name}/")))?;
    let (before, after) = at.split_once(&format!("/{name}/"))?;
    let agrees = shown.iter().all(|(read, body, entity, _)| {
        let name = segments(&read.path).last().copied().unwrap_or_default();
        let pointer = format!("{before}/{name}/{after}");
        text(body).as_deref() == entity.fields.pointer(&pointer).and_then(Json::as_str)
    });
    agrees.then(|| LinkageText::Entity(format!("{before}/"), format!("/{after}")))
}

/// A linkage route's path without its segment before the relationship's name: the related
/// route's (`/api/task/1/relationships/assignee` → `/api/task/1/assignee`); `None` for a path
/// of fewer than three segments.
fn related_path(path: &str) -> Option<String> {
    let mut kept = segments(path);
    if kept.len() < 3 {
        return None;
    }
    kept.remove(kept.len() - 2);
    let slash = if path.ends_with('/') { "/" } else { "" };
    Some(format!("/{}{slash}", kept.join("/")))
}

/// The string leaves of a value's objects, by pointer, down to four levels.
fn string_leaves<'a>(value: &'a Json, at: String, found: &mut Vec<(String, &'a str)>) {
    match value {
        Json::String(text) => found.push((at, text.as_str())),
        Json::Object(object) if at.matches('/').count() < 4 => {
            for (key, member) in object.iter() {
                let pointer = format!("{at}/{}", rea_plugin_api::json::escape_pointer_segment(key));
                string_leaves(member, pointer, found);
            }
        }
        _ => {}
    }
}

impl LinkageRoute {
    /// Whether an answer's linkage is of the kind the envelope's recorded one is: both arrays (to
    /// many) or neither (to one: an identifier or `null`).
    pub fn same_kind(&self, envelope: &Json, answer: &Json) -> bool {
        let many = |body: &Json| matches!(body.pointer(&self.pointer), Some(Json::Array(_)));
        many(envelope) == many(answer)
    }

    /// The route answering in another recorded envelope holding the linkage where the route's
    /// does (a to-many write's answer, [`crate::writes::to_many`]): its minted and counted
    /// members kept where that envelope holds them.
    pub fn within(&self, envelope: &Json) -> LinkageRoute {
        let mut route = self.clone();
        (route.minted).retain(|(pointer, _)| envelope.pointer(pointer).is_some());
        (route.counted).retain(|pointer| envelope.pointer(pointer).is_some());
        route
    }

    /// The answer body for a call of `path`: the envelope with the linkage the state holds for
    /// the entity the path names and the minted members; `None` when the state holds no such
    /// entity, the segments between differ from the recorded ones, or a minted text is lacking.
    pub fn answer(
        &self,
        (rule, envelope): (&CompoundDocuments, &Json),
        path: &str,
        held: &[&Entity],
    ) -> Option<Json> {
        let (parent, between, name) = parent_at(path, self.collection_segments, held)?;
        if between != self.between {
            return None;
        }
        let linkage = rule.linkage(parent.fields.as_object()?, name, held)?;
        let mut body = envelope.clone();
        *crate::render::pointer_mut(&mut body, &self.pointer)? =
            respelled(&linkage, &self.numbered);
        for (member, source) in &self.minted {
            let text = match source {
                LinkageText::Request(prefix) => format!("{prefix}{path}"),
                LinkageText::Entity(before, after) => {
                    let pointer = format!("{before}{name}{after}");
                    parent.fields.pointer(&pointer)?.as_str()?.to_owned()
                }
                LinkageText::Related(prefix) => format!("{prefix}{}", related_path(path)?),
                LinkageText::RequestQuery(prefix, query) => format!("{prefix}{path}{query}"),
                LinkageText::Collection(prefix) => format!("{prefix}{}", parent.collection),
            };
            *crate::render::pointer_mut(&mut body, member)? = Json::String(text.into());
        }
        if let Json::Array(identifiers) = &linkage {
            for counted in &self.counted {
                *crate::render::pointer_mut(&mut body, counted)? =
                    Json::from(identifiers.len() as u64);
            }
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

    fn rule() -> CompoundDocuments {
        crate::test_support::json_api_compound()
    }

    /// A task linking its owner, or nobody.
    fn task(id: &str, owner: Option<&str>) -> Entity {
        let data = owner.map_or("null".to_owned(), |owner| {
            format!(r#"{{"type": "person", "id": "{owner}"}}"#)
        });
        let fields = format!(
            r#"{{"type": "task", "id": "{id}", "relationships": {{"owner": {{"data": {data}, "links": {{"self": "/tasks/{id}/relationships/owner"}}}}}}}}"#
        );
        entity("/tasks", id, &fields)
    }

    /// A person listing their tasks, with the relationship's links.
    fn person(id: &str, tasks: &[&str]) -> Entity {
        let data: Vec<String> = tasks
            .iter()
            .map(|task| format!(r#"{{"type": "task", "id": "{task}"}}"#))
            .collect();
        let fields = format!(
            r#"{{"type": "person", "id": "{id}", "relationships": {{"tasks": {{"data": [{}], "links": {{"related": "/people/{id}/tasks"}}}}}}}}"#,
            data.join(", ")
        );
        entity("/people", id, &fields)
    }

    #[test]
    fn a_route_within_another_envelope_mints_and_counts_only_what_it_holds() {
        let route = LinkageRoute {
            tool: "get_projects_relationships_tasks".to_owned(),
            collection_segments: 2,
            between: vec!["relationships".to_owned()],
            pointer: "/data".to_owned(),
            numbered: Vec::new(),
            envelope_ordinal: 57,
            minted: vec![
                (
                    "/links/self".to_owned(),
                    LinkageText::Request(String::new()),
                ),
                (
                    "/links/related".to_owned(),
                    LinkageText::Related(String::new()),
                ),
            ],
            counted: vec!["/meta/results/returned".to_owned()],
            inferred_from: None,
        };
        // A write's answer: the linkage and `links.self`, no `related` link, no count.
        let envelope = json(r#"{"data": [], "links": {"self": "x"}, "meta": {"results": {}}}"#);
        let within = route.within(&envelope);
        assert_eq!(
            within.minted,
            vec![(
                "/links/self".to_owned(),
                LinkageText::Request(String::new())
            )]
        );
        assert!(within.counted.is_empty());
        assert_eq!(within.pointer, route.pointer);
        assert_eq!(route.within(&json(r#"{"data": []}"#)).minted, Vec::new());
    }

    #[test]
    fn a_route_answers_the_linkage_its_entity_holds_with_ids_spelled_as_the_reads_spelled_them() {
        let held = [
            task("5", Some("3")),
            task("7", None),
            person("3", &["5"]),
            person("4", &[]),
        ];
        let held: Vec<&Entity> = held.iter().collect();
        let envelope = |path: &str, data: &str| {
            format!(
                r#"{{"data": {data}, "jsonapi": {{"version": "1.0"}}, "links": {{"related": null, "self": "{path}"}}}}"#
            )
        };
        let path = "/tasks/5/relationships/owner";
        let reads = [read(
            37,
            path,
            &envelope(path, r#"{"id": 3, "type": "person"}"#),
        )];
        let reads: Vec<&Observation> = reads.iter().collect();
        let route = route_of("get_route", &reads, &rule(), (&held, 1)).expect("a route");
        assert_eq!(route.pointer, "/data");
        assert_eq!(route.numbered, ["id"]);
        assert_eq!(route.between, ["relationships"]);
        assert_eq!(
            route.minted,
            [(
                "/links/self".to_owned(),
                LinkageText::Request(String::new())
            )]
        );
        let recorded = json(&envelope(path, r#"{"id": 3, "type": "person"}"#));
        let answer = |path: &str| route.answer((&rule(), &recorded), path, &held);
        let nobody = "/tasks/7/relationships/owner";
        assert_eq!(answer(nobody), Some(json(&envelope(nobody, "null"))));
        // Another segment between, or an entity the state lacks: not answered.
        assert_eq!(answer("/tasks/7/links/owner"), None);
        assert_eq!(answer("/tasks/9/relationships/owner"), None);
        // A read showing another linkage than the entity holds teaches no route.
        let wrong = [read(
            38,
            path,
            &envelope(path, r#"{"id": 4, "type": "person"}"#),
        )];
        let wrong: Vec<&Observation> = wrong.iter().collect();
        assert_eq!(route_of("get_route", &wrong, &rule(), (&held, 1)), None);
    }

    #[test]
    fn a_to_many_route_mints_its_page_link_its_collection_and_its_count() {
        // Flask-Restless's `links.first` and bare `self`, `meta.total`; pyramid-jsonapi's
        // `meta.results` beside a constant `limit`.
        let held = [person("3", &["5", "8"]), person("4", &["9"])];
        let held: Vec<&Entity> = held.iter().collect();
        let origin = "http://h:1";
        let body = |id: &str, data: &str, count: usize| {
            format!(
                r#"{{"data": [{data}], "links": {{"first": "{origin}/people/{id}/relationships/tasks?page[size]=10", "self": "/people"}}, "meta": {{"total": {count}, "results": {{"limit": 10, "returned": {count}}}}}}}"#
            )
        };
        let recorded = body(
            "3",
            r#"{"type": "task", "id": "5"}, {"type": "task", "id": "8"}"#,
            2,
        );
        let reads = [read(38, "/people/3/relationships/tasks", &recorded)];
        let reads: Vec<&Observation> = reads.iter().collect();
        let route = route_of("get_route", &reads, &rule(), (&held, 1)).expect("a route");
        let first = LinkageText::RequestQuery(origin.to_owned(), "?page[size]=10".to_owned());
        assert!(route.minted.contains(&("/links/first".to_owned(), first)));
        let own = LinkageText::Collection(String::new());
        assert!(route.minted.contains(&("/links/self".to_owned(), own)));
        assert_eq!(route.counted, ["/meta/total", "/meta/results/returned"]);
        let answer = route.answer(
            (&rule(), &json(&recorded)),
            "/people/4/relationships/tasks",
            &held,
        );
        let expected = body("4", r#"{"type": "task", "id": "9"}"#, 1);
        assert_eq!(answer, Some(json(&expected)));
    }

    #[test]
    fn a_to_many_route_mints_the_entitys_link_of_the_relationship() {
        let held = [person("3", &["5", "8"]), person("4", &[])];
        let held: Vec<&Entity> = held.iter().collect();
        let body = r#"{"data": [{"type": "task", "id": "5"}, {"type": "task", "id": "8"}], "links": {"related": "/people/3/tasks", "self": "/people/3/relationships/tasks"}}"#;
        let reads = [read(38, "/people/3/relationships/tasks", body)];
        let reads: Vec<&Observation> = reads.iter().collect();
        let route = route_of("get_route", &reads, &rule(), (&held, 1)).expect("a route");
        assert!(route.numbered.is_empty());
        let related =
            LinkageText::Entity("/relationships/".to_owned(), "/links/related".to_owned());
        assert!(
            route
                .minted
                .contains(&("/links/related".to_owned(), related)),
            "{:?}",
            route.minted
        );
        let answer = route
            .answer(
                (&rule(), &json(body)),
                "/people/4/relationships/tasks",
                &held,
            )
            .expect("an answer");
        assert_eq!(
            answer,
            json(
                r#"{"data": [], "links": {"related": "/people/4/tasks", "self": "/people/4/relationships/tasks"}}"#
            )
        );
    }

    #[test]
    fn a_related_link_no_entity_holds_is_minted_from_the_call_path() {
        // The tasks hold no `links.related`; every read's is its path without `relationships`.
        let held = [
            task("5", Some("3")),
            task("7", Some("4")),
            person("3", &["5"]),
        ];
        let held: Vec<&Entity> = held.iter().collect();
        let body = |id: &str, owner: &str| {
            format!(
                r#"{{"data": {{"type": "person", "id": "{owner}"}}, "links": {{"related": "/tasks/{id}/owner", "self": "/tasks/{id}/relationships/owner"}}}}"#
            )
        };
        let reads = [read(40, "/tasks/5/relationships/owner", &body("5", "3"))];
        let reads: Vec<&Observation> = reads.iter().collect();
        let route = route_of("get_route", &reads, &rule(), (&held, 1)).expect("a route");
        let related = (
            "/links/related".to_owned(),
            LinkageText::Related(String::new()),
        );
        assert!(route.minted.contains(&related), "{:?}", route.minted);
        let answer = route.answer(
            (&rule(), &json(&body("5", "3"))),
            "/tasks/7/relationships/owner",
            &held,
        );
        assert_eq!(answer, Some(json(&body("7", "4"))));
        assert_eq!(
            related_path("/a/1/relationships/b/").as_deref(),
            Some("/a/1/b/")
        );
        assert_eq!(related_path("/a/b"), None);
    }
}

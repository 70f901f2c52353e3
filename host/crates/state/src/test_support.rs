//! Fixtures the crate's unit tests share (compiled only for them).

use rea_plugin_api::contracts::capture::StartTime;
use rea_plugin_api::json::{Json, Object};

use crate::compound::CompoundDocuments;
use crate::model::Entity;
use crate::observation::{Observation, RequestBody};

/// A JSON text the test writes, parsed (the text is known to be JSON).
pub(crate) fn parsed_json(text: &str) -> Json {
    Json::parse(text.as_bytes()).expect("JSON")
}

/// A JSON object text the test writes, parsed (the text is known to be an object).
pub(crate) fn parsed_object(text: &str) -> Object {
    parsed_json(text).as_object().expect("an object").clone()
}

/// An entity of `entity_type`, held in the collection of that name, with these JSON fields.
pub(crate) fn entity(entity_type: &str, id: &str, fields: &str) -> Entity {
    Entity {
        entity_type: entity_type.to_owned(),
        collection: entity_type.to_owned(),
        id: id.to_owned(),
        fields: Json::parse(fields.as_bytes()).expect("fixture JSON"),
        view_fields: Default::default(),
        record_ordinals: Vec::new(),
    }
}

/// A recorded `GET` of `path` (with `query` pairs, none for an empty list) answering 200 with
/// this JSON body, at position `ordinal`, its window open to the end.
pub(crate) fn read_observation(
    ordinal: u64,
    path: &str,
    query: &[(&str, &str)],
    body: &str,
) -> Observation {
    let query: Vec<(String, String)> = query
        .iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect();
    Observation {
        ordinal,
        tool: 0,
        path: path.into(),
        segments: Vec::new(),
        query: (!query.is_empty()).then_some(query),
        query_withheld: false,
        status: 200,
        body: Some(Json::parse(body.as_bytes()).expect("fixture JSON")),
        body_bytes: body.len(),
        position: ordinal as usize,
        method: "GET".into(),
        request: RequestBody::Missing,
        started: None,
        duration_ms: None,
        window_end: usize::MAX,
    }
}

/// JSON:API's compound-document rule (`include`, `included`, `relationships`, `data`), offering
/// no include names.
pub fn json_api_compound() -> CompoundDocuments {
    CompoundDocuments {
        parameter: "include".to_owned(),
        included: "included".to_owned(),
        relationships: "relationships".to_owned(),
        linkage: "data".to_owned(),
        keyed: Vec::new(),
        offered: std::collections::BTreeMap::new(),
        sorted: false,
    }
}

/// The write learners' views of these types, each at its own collection template, identified by
/// `id`, with no item view.
pub fn views_of_types(templates: &[&str]) -> crate::writes::Views {
    let mut views = crate::writes::Views::default();
    for template in templates {
        let info = crate::writes::TypeInfo {
            template: (*template).to_owned(),
            identity: "id".to_owned(),
            item: None,
        };
        views.types.insert((*template).to_owned(), info);
    }
    views
}

/// Query pairs from `(name, value)` literals.
pub(crate) fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect()
}

/// A record's start at position `ordinal`: one second per position from 2026-01-01T00:00:00Z.
pub(crate) fn started_at(ordinal: u64) -> StartTime {
    StartTime {
        instant: Some(
            format!(
                "2026-01-01T00:{:02}:{:02}.000000000Z",
                ordinal / 60,
                ordinal % 60
            )
            .into(),
        ),
        recorded: Default::default(),
    }
}

/// Query pairs as owned texts.
pub(crate) fn owned_pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect()
}

/// Names as owned texts.
pub(crate) fn owned_names(items: &[&str]) -> Vec<String> {
    items.iter().map(|item| (*item).to_owned()).collect()
}

/// Names as a set of owned texts (the member names a type holds).
pub(crate) fn name_set(items: &[&str]) -> std::collections::BTreeSet<String> {
    items.iter().map(|item| (*item).to_owned()).collect()
}

/// A list read view of `entity_type` (its tool and path named after it) listing at
/// `list_pointer`, one recorded line per query, with `query` as its model and nothing else
/// learned.
pub(crate) fn list_read_view(
    entity_type: &str,
    list_pointer: &str,
    queries: &[Vec<(String, String)>],
    query: crate::model::QueryModel,
) -> crate::model::ReadView {
    use crate::model::{ListLine, ListView, Membership, ReadView, ViewDetail};
    let lines = queries
        .iter()
        .enumerate()
        .map(|(ordinal, pairs)| ListLine {
            record_ordinal: ordinal as u64,
            path: entity_type.to_owned(),
            query: Some(pairs.clone()),
            membership: Membership::Recorded,
            members: Vec::new(),
            excluded: Vec::new(),
            page_size: None,
            whole: false,
            projection: None,
        })
        .collect();
    ReadView {
        tool: format!("get{}", entity_type.replace('/', "_")),
        method: "GET".to_owned(),
        path_template: entity_type.to_owned(),
        detail: ViewDetail::List(ListView {
            entity_type: entity_type.to_owned(),
            list_pointer: list_pointer.to_owned(),
            lines,
            counters: Vec::new(),
            identity_lists: Vec::new(),
            query: Some(query),
            per_response_members: Vec::new(),
            projected_query_keys: Default::default(),
            projected_record_ordinals: Vec::new(),
            restated_query: Vec::new(),
            selection: None,
            exclusion: None,
            relations: Vec::new(),
            joins: Vec::new(),
            parent: None,
            page_envelope: None,
            shape: Default::default(),
        }),
    }
}

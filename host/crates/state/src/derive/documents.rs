//! Document views: `GET`s answering JSON that is neither an entity nor a list of entities, read on
//! one request line, or one document per id of their path template: a view whose template is a
//! held type's collection plus one whole parameter, read on several paths without a query, each
//! answering an object and naming an entity the state holds in that collection (a study's detail
//! at `/studies/{id}`, naming its study by path only), holds a document per path.

use std::collections::BTreeSet;

use rea_manifest::Manifest;
use rea_plugin_api::json::{Json, escape_pointer_segment};

use rea_manifest::segments::{percent_decode, split_path, template_affixes};

use super::entities::{Entities, item_segments};
use super::{latest_lines, recorded};
use crate::model::{Document, DocumentLine, DocumentView, ViewDetail};
use crate::observation::{Observation, Timeline};

/// The document view of a tool, or the reason it answers from recordings.
pub fn derive(
    manifest: &Manifest,
    timeline: &Timeline,
    index: usize,
    entities: &mut Entities,
) -> ViewDetail {
    let tool = &manifest.tools[index];
    let lines = latest_lines(timeline, index);
    if lines.is_empty() || lines.iter().any(|line| line.body.is_none()) {
        return recorded("no-view");
    }
    let checked: Vec<&Observation> = if lines.len() > 1 {
        let paths: BTreeSet<&str> = lines.iter().map(|line| line.path.as_str()).collect();
        if paths.len() == 1 {
            return recorded("query-varies");
        }
        match keyed_lines(&lines, &tool.path_template, entities) {
            Some(keyed) => keyed,
            None => return recorded("path-varies"),
        }
    } else {
        lines
    };
    let mut per_response: BTreeSet<String> = BTreeSet::new();
    let mut documents = Vec::with_capacity(checked.len());
    for line in &checked {
        match checked_document(timeline, index, line) {
            Ok((value, minted)) => {
                per_response.extend(minted);
                documents.push(value);
            }
            Err(reason) => return recorded(reason),
        }
    }
    for (line, value) in checked.iter().zip(documents) {
        entities.documents.push(Document {
            view: tool.name.clone(),
            path: line.path.to_string(),
            value,
            record_ordinal: Some(line.ordinal),
        });
    }
    let (first, rest) = checked.split_first().expect("a checked line");
    ViewDetail::Document(DocumentView {
        path: first.path.to_string(),
        query: first.query.clone(),
        record_ordinal: first.ordinal,
        per_response_members: per_response.into_iter().collect(),
        unmodelled_after_writes: false,
        keyed: rest
            .iter()
            .map(|line| DocumentLine {
                path: line.path.to_string(),
                record_ordinal: line.ordinal,
            })
            .collect(),
    })
}

/// The lines of a view holding one document per id: its lines without a query, when they name
/// two paths or more, each answering an object and naming an entity the state holds in the
/// collection its template's last parameter follows (lines with a query answer their
/// recordings).
fn keyed_lines<'o>(
    lines: &[&'o Observation],
    template: &str,
    entities: &Entities,
) -> Option<Vec<&'o Observation>> {
    let written = split_path(template);
    let (last, parent) = item_segments(&written).split_last()?;
    if template_affixes(last)? != ("", "") || parent.is_empty() {
        return None;
    }
    let entity_type = format!("/{}", parent.join("/"));
    entities.entity_type(&entity_type)?;
    let plain: Vec<&Observation> = lines
        .iter()
        .copied()
        .filter(|line| line.pairs().is_empty())
        .collect();
    let paths: BTreeSet<&str> = plain.iter().map(|line| line.path.as_str()).collect();
    let named = |line: &Observation| {
        let segments = item_segments(&line.segments);
        let Some((id, collection)) = segments.split_last() else {
            return false;
        };
        let collection = format!("/{}", collection.join("/"));
        segments.len() == item_segments(&written).len()
            && matches!(line.body, Some(Json::Object(_)))
            && (entities.find(&entity_type, &collection, id).is_some()
                || percent_decode(id).is_some_and(|decoded| {
                    entities.find(&entity_type, &collection, &decoded).is_some()
                }))
    };
    (paths.len() > 1 && plain.iter().all(|line| named(line))).then_some(plain)
}

/// The document one checked line shows, with the top-level members each response minted: every
/// read of the line must show the same document, those members aside.
fn checked_document(
    timeline: &Timeline,
    index: usize,
    line: &Observation,
) -> Result<(Json, BTreeSet<String>), &'static str> {
    let Some(value) = line.body.clone() else {
        return Err("no-view");
    };
    let mut per_response: BTreeSet<String> = BTreeSet::new();
    let key = line.line_key();
    for other in timeline.checked(index) {
        if !other.is_success() || other.line_key() != key {
            continue;
        }
        let Some(body) = &other.body else {
            return Err("document-differs");
        };
        if *body == value {
            continue;
        }
        let (Json::Object(earlier), Json::Object(latest)) = (body, &value) else {
            return Err("document-differs");
        };
        let names: BTreeSet<&str> = earlier.keys().chain(latest.keys()).collect();
        for name in names {
            if earlier.get(name) != latest.get(name) {
                if earlier.get(name).is_none() || latest.get(name).is_none() {
                    return Err("document-differs");
                }
                per_response.insert(format!("/{}", escape_pointer_segment(name)));
            }
        }
    }
    if value.to_canonical_vec().len() > rea_manifest::REPLY_BODY_LIMIT {
        return Err("rendered-oversize");
    }
    Ok((value, per_response))
}

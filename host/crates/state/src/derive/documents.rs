//! Document views: `GET`s answering JSON that is neither an entity nor a list of entities, read on
//! one request line.

use std::collections::BTreeSet;

use rea_manifest::Manifest;
use rea_plugin_api::json::{Json, escape_pointer_segment};

use super::entities::Entities;
use super::{latest_lines, recorded};
use crate::model::{Document, DocumentView, ViewDetail};
use crate::observation::Timeline;

/// The document view of a tool, or the reason it answers from recordings.
pub fn derive(
    manifest: &Manifest,
    timeline: &Timeline,
    index: usize,
    entities: &mut Entities,
) -> ViewDetail {
    let tool = &manifest.tools[index];
    let lines = latest_lines(timeline, index);
    let Some(line) = lines.last() else {
        return recorded("no-view");
    };
    if lines.iter().any(|line| line.body.is_none()) {
        return recorded("no-view");
    }
    if lines.len() > 1 {
        let paths: BTreeSet<&str> = lines.iter().map(|line| line.path.as_str()).collect();
        return recorded(if paths.len() > 1 {
            "path-varies"
        } else {
            "query-varies"
        });
    }
    let Some(value) = line.body.clone() else {
        return recorded("no-view");
    };
    // Every read of the line must show the same document, members each response minted aside.
    let mut per_response: BTreeSet<String> = BTreeSet::new();
    let key = line.line_key();
    for other in timeline.checked(index) {
        if !other.is_success() || other.line_key() != key {
            continue;
        }
        let Some(body) = &other.body else {
            return recorded("document-differs");
        };
        if *body == value {
            continue;
        }
        match (body, &value) {
            (Json::Object(earlier), Json::Object(latest)) => {
                let names: BTreeSet<&str> = earlier.keys().chain(latest.keys()).collect();
                for name in names {
                    if earlier.get(name) != latest.get(name) {
                        if earlier.get(name).is_none() || latest.get(name).is_none() {
                            return recorded("document-differs");
                        }
                        per_response.insert(format!("/{}", escape_pointer_segment(name)));
                    }
                }
            }
            _ => return recorded("document-differs"),
        }
    }
    if value.to_canonical_vec().len() > rea_manifest::REPLY_BODY_LIMIT {
        return recorded("rendered-oversize");
    }
    entities.documents.push(Document {
        view: tool.name.clone(),
        path: line.path.clone(),
        value,
        record_ordinal: Some(line.ordinal),
    });
    ViewDetail::Document(DocumentView {
        path: line.path.clone(),
        query: line.query.clone(),
        record_ordinal: line.ordinal,
        per_response_members: per_response.into_iter().collect(),
        unmodelled_after_writes: false,
    })
}

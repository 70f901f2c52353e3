//! Ids over two segments: an id whose values carry a fixed first segment (`@corp/ui-kit`,
//! `_design/catalog`) is one path segment, so its routes join the tools of the ids that hold no
//! `/` (`GET /@corp/ui-kit/1.0.0` calls `/{name}/{version}` as `GET /date-helpers/1.1.0` does).
//!
//! [`learn`] finds the *heads* of such ids in a capture: the decoded segment `H` of a run `H/T`
//! (two consecutive decoded segments of a recorded path, neither empty) when
//! 1. the recording shows `H/T` as one id: a recorded segment decodes to it (`@corp%2fui-kit`), or
//!    a 2xx answer's body holds it as a whole JSON string (an `_all_docs` row's
//!    `"id": "_design/catalog"`), and
//! 2. `H` is never a resource itself: no recorded path ends with it (a folder tree, whose
//!    `notes/todo.md` lies below the read folder `notes`, is no such id).
//!
//! The heads are the manifest's `joined_segments`. [`join_path`] reads a path with each segment
//! spelling a head and the segment after it as one segment, the `/` encoded (`%2F`):
//! [`rewrite_records`] rewrites a capture's records so before the projection, the state's
//! derivation and replay read them, and the comparer reads a probe's path so before it matches
//! a tool. A call's argument `@corp/ui-kit` is rendered encoded the same way.

use std::collections::{BTreeMap, BTreeSet};

use rea_plugin_api::contracts::capture::{CaptureRecord, CompactString};
use rea_plugin_api::json::Json;

use crate::segments::{segment_value, split_path};

/// The longest JSON string read as a possible id.
const MAX_ID_LENGTH: usize = 256;

/// The heads of the two-segment ids a capture shows (see the module docs), sorted.
pub fn learn(records: &[CaptureRecord]) -> Vec<String> {
    let mut runs: BTreeMap<String, String> = BTreeMap::new();
    let mut last: BTreeSet<String> = BTreeSet::new();
    let mut encoded: BTreeSet<String> = BTreeSet::new();
    for path in records.iter().filter_map(|record| record.path.as_deref()) {
        let decoded: Vec<String> = split_path(path)
            .into_iter()
            .map(|segment| {
                let value = segment_value(segment).into_owned();
                if value.contains('/') {
                    encoded.insert(value.clone());
                }
                value
            })
            .collect();
        if let Some(end) = decoded.last().filter(|end| !end.is_empty()) {
            last.insert(end.clone());
        }
        for pair in decoded.windows(2) {
            if pair
                .iter()
                .all(|part| !part.is_empty() && !part.contains('/'))
            {
                runs.insert(format!("{}/{}", pair[0], pair[1]), pair[0].clone());
            }
        }
    }
    if runs.is_empty() {
        return Vec::new();
    }
    let mut shown: BTreeSet<&str> = encoded
        .iter()
        .filter(|id| runs.contains_key(id.as_str()))
        .map(String::as_str)
        .collect();
    for record in records.iter().filter(|record| answered(record)) {
        if let Some(body) = record.response.body.text() {
            let Ok(json) = Json::parse(body.as_bytes()) else {
                continue;
            };
            let mut strings = Vec::new();
            json_strings(&json, &mut strings);
            shown.extend(
                strings
                    .into_iter()
                    .filter_map(|text| runs.get_key_value(text).map(|(id, _)| id.as_str())),
            );
        }
    }
    let heads: BTreeSet<String> = shown
        .into_iter()
        .map(|id| runs[id].clone())
        .filter(|head| !last.contains(head))
        .collect();
    heads.into_iter().collect()
}

/// Whether a record answered 2xx.
fn answered(record: &CaptureRecord) -> bool {
    (200..300).contains(&record.response.status)
}

/// The strings of a JSON answer holding a `/` (member names and values, at any depth), at most
/// [`MAX_ID_LENGTH`] bytes long.
fn json_strings<'j>(value: &'j Json, found: &mut Vec<&'j str>) {
    let possible_id = |text: &str| text.contains('/') && text.len() <= MAX_ID_LENGTH;
    match value {
        Json::String(text) if possible_id(text) => found.push(text),
        Json::Array(items) => items.iter().for_each(|item| json_strings(item, found)),
        Json::Object(object) => {
            for (name, member) in object.iter() {
                if possible_id(name) {
                    found.push(name);
                }
                json_strings(member, found);
            }
        }
        _ => {}
    }
}

/// The path with each segment spelling a head (decoded) and the non-empty segment after it
/// joined into one, `/` encoded as `%2F`; `None` when nothing joins.
pub fn join_path(path: &str, heads: &[String]) -> Option<String> {
    if heads.is_empty() {
        return None;
    }
    let segments = split_path(path);
    let mut joined: Vec<String> = Vec::with_capacity(segments.len());
    let mut index = 0;
    while index < segments.len() {
        let segment = segments[index];
        let next = segments.get(index + 1).filter(|next| !next.is_empty());
        match next {
            Some(next) if heads.iter().any(|head| *head == segment_value(segment)) => {
                joined.push(format!("{segment}%2F{next}"));
                index += 2;
            }
            _ => {
                joined.push(segment.to_owned());
                index += 1;
            }
        }
    }
    (joined.len() < segments.len()).then(|| format!("/{}", joined.join("/")))
}

/// A record's path and URL as recorded, before [`rewrite_records`] joined them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// The record's position in the records rewritten.
    pub index: usize,
    /// Its path as recorded.
    pub path: Option<CompactString>,
    /// Its URL as recorded.
    pub url: Option<CompactString>,
}

/// Rewrites the path (and the URL's path) of every record whose path joins (see [`join_path`]);
/// answers what they were, for [`restore_records`].
pub fn rewrite_records(records: &mut [CaptureRecord], heads: &[String]) -> Vec<Recorded> {
    let mut recorded = Vec::new();
    if heads.is_empty() {
        return recorded;
    }
    for (index, record) in records.iter_mut().enumerate() {
        let Some(path) = record.path.as_deref() else {
            continue;
        };
        let Some(joined) = join_path(path, heads) else {
            continue;
        };
        recorded.push(Recorded {
            index,
            path: record.path.clone(),
            url: record.url.clone(),
        });
        if let Some(url) = record.url.as_mut()
            && let Some(at) = url.find(path)
        {
            url.replace_range(at..at + path.len(), &joined);
        }
        record.path = Some(joined.into());
    }
    recorded
}

/// Gives rewritten records back their recorded path and URL (the capture's own records, as its
/// Evidence holds them).
pub fn restore_records(records: &mut [CaptureRecord], recorded: Vec<Recorded>) {
    for Recorded { index, path, url } in recorded {
        if let Some(record) = records.get_mut(index) {
            record.path = path;
            record.url = url;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::record;

    #[test]
    fn a_head_is_learned_from_an_encoded_segment_or_a_listed_id_spelled_by_a_path() {
        let scoped = record(1, "GET", "http://app.test/@corp%2fui-kit")
            .json(200, r#"{"name": "@corp/ui-kit"}"#)
            .build();
        let version = record(2, "GET", "http://app.test/@corp/ui-kit/2.0.0")
            .json(200, r#"{"version": "2.0.0"}"#)
            .build();
        assert_eq!(learn(&[scoped.clone(), version.clone()]), vec!["@corp"]);
        assert!(
            learn(&[scoped]).is_empty(),
            "no path spells the id over two segments"
        );
        let listing = record(3, "GET", "http://app.test/db/_all_docs")
            .json(
                200,
                r#"{"rows": [{"id": "_design/app", "note": "say \"hi/there\""}, {"id": "a:1"}]}"#,
            )
            .build();
        let view = record(4, "GET", "http://app.test/db/_design/app/_view/all")
            .json(200, r#"{"rows": []}"#)
            .build();
        assert_eq!(learn(&[listing, view]), vec!["_design"]);
    }

    #[test]
    fn a_head_read_as_a_resource_is_a_folder_not_an_id() {
        let folder = record(1, "GET", "http://app.test/api/contents/notes")
            .json(200, r#"{"content": [{"path": "notes/todo.md"}]}"#)
            .build();
        let file = record(2, "GET", "http://app.test/api/contents/notes/todo.md")
            .json(200, r#"{"path": "notes/todo.md"}"#)
            .build();
        assert!(learn(&[folder, file]).is_empty());
    }

    #[test]
    fn paths_join_a_head_with_the_segment_after_it() {
        let heads = vec!["@corp".to_owned(), "_design".to_owned()];
        assert_eq!(
            join_path("/@corp/ui-kit/1.0.0", &heads).as_deref(),
            Some("/@corp%2Fui-kit/1.0.0")
        );
        assert_eq!(
            join_path("/db/_design/app/_view/all", &heads).as_deref(),
            Some("/db/_design%2Fapp/_view/all")
        );
        assert_eq!(join_path("/@corp", &heads), None, "nothing after the head");
        assert_eq!(
            join_path("/@corp/", &heads),
            None,
            "an empty segment after it"
        );
        assert_eq!(join_path("/@corp%2fui-kit/1.0.0", &heads), None);
        assert_eq!(join_path("/@corp/ui-kit", &[]), None);
        let mut records = vec![
            record(1, "GET", "http://app.test/@corp/ui-kit/1.0.0?write=true")
                .json(200, "{}")
                .build(),
        ];
        let before = records.clone();
        let recorded = rewrite_records(&mut records, &heads);
        assert_eq!(records[0].path.as_deref(), Some("/@corp%2Fui-kit/1.0.0"));
        assert_eq!(
            records[0].url.as_deref(),
            Some("http://app.test/@corp%2Fui-kit/1.0.0?write=true")
        );
        assert!(
            rewrite_records(&mut records, &heads).is_empty(),
            "a joined path joins nothing more"
        );
        restore_records(&mut records, recorded);
        assert_eq!(records, before);
    }
}

//! What route form stages are asked: one origin's recorded request lines and answers as a
//! [`RouteFormRequest`] (see `rea_plugin_api::contracts::route`), with the segments the host's
//! format rules already made parameters.
//!
//! An answer is reduced to what templating asks of it: its status, the JSON kind of a 2xx JSON
//! answer, that answer's top-level member names (sorted), and its scalars at most three levels
//! below the root whose text some path of the origin spells: a whole segment (as recorded or
//! decoded) or a run of a decoded segment's parts between separators
//! (`rea_plugin_api::route_fields::separated_runs`). At most [`MAX_ANSWER_VALUES`] per answer, in
//! document order. Its strings at most [`MAX_PATH_DEPTH`] levels below the root that spell a
//! path run (two or more consecutive decoded segments of a path of the origin joined by `/`, or
//! `/` and one or more of them: what a folder listing names its entries by) are its `paths`, at
//! most [`MAX_ANSWER_VALUES`] as well. The member names of its maps (objects whose members all
//! hold one JSON kind: the root and its members) that spell a whole decoded segment are its
//! `keys` (a document naming its parts: `versions/1.0.0`, `_attachments/cover.txt`).
//!
//! [`apply_route_forms`] runs the pipeline's stages in order, each on the forms the ones before
//! left, and keeps a proposed change only where it fits: a segment still literal and not empty,
//! whose recorded and decoded spellings both hold the prefix and suffix with something between
//! them, a rule of lower-case letters, digits and `-`, affixes without `{`, `}` or `/`, and a
//! proposed argument name of `[A-Za-z_][A-Za-z0-9_]*`. A change that does not fit is ignored (a
//! form only ever proposes); a stage that fails refuses the projection. The query families the
//! stages propose (routes read with one query language) are merged where they overlap.

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet};
use std::convert::Infallible;
use std::sync::Arc;

use rea_evidence::Refusal;
use rea_registry::RouteFormHandle;

use rea_plugin_api::contracts::SCHEMA_VERSION;
use rea_plugin_api::contracts::capture::{CaptureRecord, CompactString};
use rea_plugin_api::contracts::route::{
    AnswerValue, RecordedAnswer, RecordedRoute, RouteFormRequest, SegmentChange, SegmentForm,
};
use rea_plugin_api::route_fields::{format_rule, separated_runs};
use serde_json::{Map, Value};

use crate::encoded_request::EncodedRequest;
use crate::responses::ParsedResponses;
use crate::segments::{segment_value, split_path};

/// The most answer values one recorded route carries.
pub const MAX_ANSWER_VALUES: usize = 256;

/// How many levels below the root an answer value may sit.
const MAX_VALUE_DEPTH: usize = 3;

/// How many levels below the root a path run an answer spells may sit (a recursive folder
/// listing nests its entries, `/node/nodes/0/nodes/1/key`).
pub const MAX_PATH_DEPTH: usize = 8;

/// The longest run of segments a path run spells.
const MAX_RUN_SEGMENTS: usize = 8;

/// The route form request for one origin's records (`paths[r]` is record `r`'s path), in record
/// order, with the format rules' forms filled in.
pub fn route_form_request(records: &[&CaptureRecord], paths: &[&str]) -> RouteFormRequest {
    let responses = ParsedResponses::new(records);
    let segments: Vec<Vec<&str>> = paths.iter().map(|path| split_path(path)).collect();
    let forms = segments
        .iter()
        .map(|path| {
            path.iter()
                .map(|segment| format_rule(&segment_value(segment)).map(SegmentForm::whole))
                .collect()
        })
        .collect();
    let Ok(routes) = routes_with_forms(&responses, paths, forms, Ok::<_, Infallible>);
    RouteFormRequest {
        options: Map::new(),
        routes,
        schema_version: SCHEMA_VERSION,
    }
}

/// What the route-form stages learned of one origin's records.
#[derive(Debug, Clone, PartialEq)]
pub struct AppliedForms {
    /// The forms after the last stage, per record, per segment.
    pub forms: Vec<Vec<Option<SegmentForm>>>,
    /// The query families (record indexes, each in at most one family, families ordered by their
    /// first record), the stages' overlapping families merged.
    pub query_families: Vec<BTreeSet<usize>>,
}

/// Merges a proposed query family into `families`, with every family it overlaps; indexes past
/// the records are ignored.
fn merge_family(families: &mut Vec<BTreeSet<usize>>, proposed: &[usize], records: usize) {
    let mut merged: BTreeSet<usize> = proposed
        .iter()
        .copied()
        .filter(|index| *index < records)
        .collect();
    if merged.len() < 2 {
        return;
    }
    families.retain(|family| {
        if family.is_disjoint(&merged) {
            return true;
        }
        merged.extend(family);
        false
    });
    families.push(merged);
    families.sort_by_key(|family| family.first().copied());
}

/// Runs route-form stages in order on one origin's records (`paths[r]` is record `r`'s path, its
/// response read through `responses`, the projection's own parsed bodies, so no body is parsed
/// twice), starting from `forms` (per record, per segment), and answers the forms after the last
/// stage (see the module docs for which changes are kept).
pub(crate) fn apply_route_forms(
    responses: &ParsedResponses<'_>,
    paths: &[&str],
    forms: Vec<Vec<Option<SegmentForm>>>,
    stages: &[Arc<RouteFormHandle>],
) -> Result<AppliedForms, Refusal> {
    let mut query_families: Vec<BTreeSet<usize>> = Vec::new();
    if stages.is_empty() {
        return Ok(AppliedForms {
            forms,
            query_families,
        });
    }
    let mut request = EncodedRequest::new();
    routes_with_forms(responses, paths, forms, |route| request.push(route))?;
    let mut request = request.finish()?;
    for stage in stages {
        let outcome = stage.apply_text(request.text()).map_err(|error| {
            Refusal::internal(format!(
                "route form `{}` of plugin `{}` failed: {error}",
                stage.stage(),
                stage.plugin()
            ))
        })?;
        let changed = kept_changes(&request, paths, outcome.changes)?;
        for family in &outcome.query_families {
            merge_family(&mut query_families, family, responses.records().len());
        }
        if !changed.is_empty() {
            request = request.with_changed(&changed)?;
        }
    }
    Ok(AppliedForms {
        forms: request.all_forms()?,
        query_families,
    })
}

/// The forms of the routes a stage's changes fit (see [`fits`]), each route's read from the
/// request and changed in order; routes no kept change names are left out.
fn kept_changes(
    request: &EncodedRequest,
    paths: &[&str],
    changes: Vec<SegmentChange>,
) -> Result<BTreeMap<usize, Vec<Option<SegmentForm>>>, Refusal> {
    let mut read: BTreeMap<usize, Vec<Option<SegmentForm>>> = BTreeMap::new();
    let mut kept: BTreeSet<usize> = BTreeSet::new();
    for change in changes {
        let Some(path) = paths.get(change.route) else {
            continue;
        };
        let route_forms = match read.entry(change.route) {
            Entry::Occupied(held) => held.into_mut(),
            Entry::Vacant(slot) => match request.forms_of(change.route)? {
                Some(forms) => slot.insert(forms),
                None => continue,
            },
        };
        if fits(path, route_forms, change.segment, &change.form) {
            route_forms[change.segment] = Some(change.form);
            kept.insert(change.route);
        }
    }
    read.retain(|route, _| kept.contains(route));
    Ok(read)
}

/// Whether a proposed form fits a still-literal segment of a route (its path and its forms so
/// far; see the module docs).
fn fits(path: &str, forms: &[Option<SegmentForm>], segment: usize, form: &SegmentForm) -> bool {
    let (Some(raw), Some(None)) = (split_path(path).get(segment).copied(), forms.get(segment))
    else {
        return false;
    };
    let decoded = segment_value(raw);
    let clean = |affix: &str| !affix.contains(['{', '}', '/']);
    let rule_ok = !form.rule.is_empty()
        && form
            .rule
            .bytes()
            .all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'-');
    let name_ok = form.name.as_deref().is_none_or(is_argument_name);
    !raw.is_empty()
        && rule_ok
        && name_ok
        && clean(&form.prefix)
        && clean(&form.suffix)
        && form.value_in(raw).is_some_and(|value| !value.is_empty())
        && form
            .value_in(&decoded)
            .is_some_and(|value| !value.is_empty())
}

/// `[A-Za-z_][A-Za-z0-9_]*`, at most 64 characters.
pub(crate) fn is_argument_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 64
        && (bytes[0].is_ascii_alphabetic() || bytes[0] == b'_')
        && bytes
            .iter()
            .all(|byte| byte.is_ascii_alphanumeric() || *byte == b'_')
}

/// The request's routes for records (read through `responses`) whose segments have these forms
/// so far, each made into what the caller holds (`hold`) as soon as it is made.
fn routes_with_forms<T, E>(
    responses: &ParsedResponses<'_>,
    paths: &[&str],
    mut forms: Vec<Vec<Option<SegmentForm>>>,
    mut hold: impl FnMut(RecordedRoute) -> Result<T, E>,
) -> Result<Vec<T>, E> {
    let records = responses.records();
    let segments: Vec<Vec<&str>> = paths.iter().map(|path| split_path(path)).collect();
    let decoded: Vec<Vec<String>> = segments
        .iter()
        .map(|path| {
            path.iter()
                .map(|segment| segment_value(segment).into_owned())
                .collect()
        })
        .collect();
    let spelled = spelled_texts(&segments, &decoded);
    let runs = path_runs(&decoded);
    let whole: BTreeSet<&str> = decoded.iter().flatten().map(String::as_str).collect();
    let mut routes = Vec::with_capacity(records.len());
    for (index, record) in records.iter().enumerate() {
        let route = RecordedRoute {
            method: record.method.clone().unwrap_or_default(),
            segments: segments[index]
                .iter()
                .map(|segment| (*segment).into())
                .collect(),
            forms: std::mem::take(&mut forms[index]),
            decoded: decoded[index]
                .iter()
                .map(|text| text.as_str().into())
                .collect(),
            answer: responses.with_success_json(index, |json| {
                recorded_answer(
                    record.response.status,
                    json,
                    &Spelled {
                        texts: &spelled,
                        runs: &runs,
                        segments: &whole,
                    },
                )
            }),
        };
        routes.push(hold(route)?);
    }
    Ok(routes)
}

/// Every text a path of the origin spells (see the module docs).
fn spelled_texts<'a>(
    segments: &'a [Vec<&'a str>],
    decoded: &'a [Vec<String>],
) -> BTreeSet<&'a str> {
    let mut spelled = BTreeSet::new();
    for (raw, decoded) in segments.iter().zip(decoded) {
        for (segment, value) in raw.iter().zip(decoded) {
            spelled.insert(*segment);
            spelled.extend(separated_runs(value));
        }
    }
    spelled
}

/// Every path run a path of the origin spells (see the module docs).
fn path_runs(decoded: &[Vec<String>]) -> BTreeSet<String> {
    let mut runs = BTreeSet::new();
    let distinct: BTreeSet<&Vec<String>> = decoded.iter().collect();
    for path in distinct {
        let path: Vec<&str> = path
            .iter()
            .map(String::as_str)
            .filter(|segment| !segment.is_empty())
            .collect();
        for first in 0..path.len() {
            let last = path.len().min(first + MAX_RUN_SEGMENTS);
            for end in first + 1..=last {
                let run = path[first..end].join("/");
                if end - first >= 2 {
                    runs.insert(run.clone());
                }
                runs.insert(format!("/{run}"));
            }
        }
    }
    runs
}

/// What the origin's paths spell (see the module docs).
struct Spelled<'a> {
    /// Whole segments as recorded or decoded and the runs of a decoded segment's parts.
    texts: &'a BTreeSet<&'a str>,
    /// Path runs of two or more segments, or `/` and one or more.
    runs: &'a BTreeSet<String>,
    /// Whole decoded segments.
    segments: &'a BTreeSet<&'a str>,
}

fn recorded_answer(status: u16, json: Option<&Value>, spelled: &Spelled<'_>) -> RecordedAnswer {
    let Some(json) = json else {
        return RecordedAnswer {
            status,
            ..RecordedAnswer::default()
        };
    };
    let kind = match json {
        Value::Object(_) => "object",
        Value::Array(_) => "array",
        _ => "scalar",
    };
    let mut members: Vec<CompactString> = match json {
        Value::Object(object) => object.keys().map(|key| key.as_str().into()).collect(),
        _ => Vec::new(),
    };
    members.sort();
    let mut values = Vec::new();
    collect_values(json, "", false, 0, spelled.texts, &mut values);
    let mut paths = Vec::new();
    collect_paths(json, "", false, 0, spelled.runs, &mut paths);
    RecordedAnswer {
        status,
        json: Some(kind.into()),
        members,
        item_members: item_members(json),
        values,
        paths,
        keys: map_keys(json, spelled.segments),
    }
}

/// The names of an answer's maps that a path spells (see [`RecordedAnswer::keys`]): the root's
/// and its members' when they are maps.
fn map_keys(json: &Value, segments: &BTreeSet<&str>) -> Vec<AnswerValue> {
    let mut keys = Vec::new();
    let Value::Object(root) = json else {
        return keys;
    };
    let mut maps: Vec<(String, &Map<String, Value>)> = vec![(String::new(), root)];
    for (name, member) in root {
        if let Value::Object(object) = member {
            maps.push((format!("/{}", escape(name)), object));
        }
    }
    for (pointer, map) in maps.into_iter().filter(|(_, map)| is_map(map)) {
        for name in map.keys().filter(|name| segments.contains(name.as_str())) {
            if keys.len() < MAX_ANSWER_VALUES {
                keys.push(AnswerValue {
                    pointer: format!("{pointer}/{}", escape(name)).into(),
                    in_array: false,
                    text: name.as_str().into(),
                });
            }
        }
    }
    keys
}

/// Whether every member of an object holds one JSON kind (a map keyed by name).
fn is_map(object: &Map<String, Value>) -> bool {
    let kind = |value: &Value| std::mem::discriminant(value);
    let mut kinds = object.values().map(kind);
    kinds
        .next()
        .is_some_and(|first| kinds.all(|other| other == first))
}

/// The strings of an answer that spell a path run (see the module docs).
fn collect_paths(
    value: &Value,
    pointer: &str,
    in_array: bool,
    depth: usize,
    runs: &BTreeSet<String>,
    paths: &mut Vec<AnswerValue>,
) {
    if paths.len() >= MAX_ANSWER_VALUES {
        return;
    }
    let children: Vec<(String, &Value, bool)> = match value {
        Value::String(text) => {
            if text.contains('/') && runs.contains(text.as_str()) {
                paths.push(AnswerValue {
                    pointer: pointer.into(),
                    in_array,
                    text: text.as_str().into(),
                });
            }
            return;
        }
        Value::Object(object) if depth < MAX_PATH_DEPTH => object
            .iter()
            .map(|(name, child)| (escape(name), child, in_array))
            .collect(),
        Value::Array(items) if depth < MAX_PATH_DEPTH => items
            .iter()
            .enumerate()
            .map(|(index, child)| (index.to_string(), child, true))
            .collect(),
        _ => return,
    };
    for (token, child, inside) in children {
        collect_paths(
            child,
            &format!("{pointer}/{token}"),
            inside,
            depth + 1,
            runs,
            paths,
        );
    }
}

/// The member names of the objects an answer lists (see [`RecordedAnswer::item_members`]).
fn item_members(json: &Value) -> Vec<CompactString> {
    fn objects(value: &Value) -> Option<&Vec<Value>> {
        value
            .as_array()
            .filter(|items| !items.is_empty() && items.iter().all(Value::is_object))
    }
    let list = match json {
        Value::Array(_) => objects(json),
        Value::Object(members) => members
            .values()
            .filter_map(objects)
            .reduce(|longest, items| {
                if items.len() > longest.len() {
                    items
                } else {
                    longest
                }
            }),
        _ => None,
    };
    let names: BTreeSet<&String> = list
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
        .flat_map(|object| object.keys())
        .collect();
    names.into_iter().map(|name| name.as_str().into()).collect()
}

fn collect_values(
    value: &Value,
    pointer: &str,
    in_array: bool,
    depth: usize,
    spelled: &BTreeSet<&str>,
    values: &mut Vec<AnswerValue>,
) {
    if values.len() >= MAX_ANSWER_VALUES {
        return;
    }
    let children: Vec<(String, &Value, bool)> = match value {
        Value::Object(object) => object
            .iter()
            .map(|(name, child)| (escape(name), child, in_array))
            .collect(),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(index, child)| (index.to_string(), child, true))
            .collect(),
        scalar => {
            let text = match scalar {
                Value::String(text) => text.clone(),
                Value::Null => return,
                other => other.to_string(),
            };
            if spelled.contains(text.as_str()) {
                values.push(AnswerValue {
                    pointer: pointer.into(),
                    in_array,
                    text: text.into(),
                });
            }
            return;
        }
    };
    if depth >= MAX_VALUE_DEPTH {
        return;
    }
    for (token, child, inside) in children {
        collect_values(
            child,
            &format!("{pointer}/{token}"),
            inside,
            depth + 1,
            spelled,
            values,
        );
    }
}

fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::record;

    #[test]
    fn overlapping_query_families_merge_and_out_of_range_indexes_are_ignored() {
        let mut families = Vec::new();
        merge_family(&mut families, &[4, 5], 8);
        merge_family(&mut families, &[1, 2], 8);
        merge_family(&mut families, &[9, 3], 8);
        assert_eq!(families.len(), 2, "a family of one known record is none");
        merge_family(&mut families, &[2, 5, 12], 8);
        assert_eq!(families, vec![BTreeSet::from([1, 2, 4, 5])]);
    }

    #[test]
    fn a_stage_keeps_only_the_changes_that_fit_read_from_the_held_text() {
        let item = record(1, "GET", "http://app.test/api/items/7.json")
            .json(200, r#"{"id": 7}"#)
            .build();
        let listing = record(2, "GET", "http://app.test/api/items")
            .json(200, "[]")
            .build();
        let records = [&item, &listing];
        let paths = ["/api/items/7.json", "/api/items"];
        let responses = ParsedResponses::new(&records);
        let mut request = EncodedRequest::new();
        let forms = vec![vec![None; 3], vec![None; 2]];
        routes_with_forms(&responses, &paths, forms, |route| request.push(route)).unwrap();
        let request = request.finish().unwrap();
        let form = SegmentForm {
            rule: "numeric".to_owned(),
            prefix: String::new(),
            suffix: ".json".to_owned(),
            name: None,
        };
        let change = |route, segment| SegmentChange {
            route,
            segment,
            form: form.clone(),
        };
        // The item's id fits; `items` holds no `.json`; route 5 is past the last.
        let changes = vec![change(0, 2), change(1, 1), change(5, 0), change(0, 2)];
        let kept = kept_changes(&request, &paths, changes).unwrap();
        assert_eq!(kept.keys().copied().collect::<Vec<_>>(), [0]);
        assert_eq!(kept[&0], vec![None, None, Some(form.clone())]);
        let rewritten = request.with_changed(&kept).unwrap();
        assert_eq!(
            rewritten.all_forms().unwrap(),
            vec![vec![None, None, Some(form)], vec![None, None]]
        );
    }

    #[test]
    fn the_held_request_is_sent_as_the_typed_request_it_stands_for() {
        let listing = record(1, "GET", "http://app.test/api/items")
            .json(
                200,
                r#"[{"id": 7, "title": "a \"quoted\" é"}, {"id": 8, "tags": ["x"]}]"#,
            )
            .build();
        let item = record(2, "GET", "http://app.test/api/items/7")
            .json(
                200,
                r#"{"id": 7, "path": "api/items", "versions": {"1.0": {}}}"#,
            )
            .build();
        let missing = record(3, "DELETE", "http://app.test/api/items/9")
            .json(404, "{}")
            .build();
        let records = [&listing, &item, &missing];
        let paths = ["/api/items", "/api/items/7", "/api/items/9"];
        let typed = route_form_request(&records, &paths);
        let responses = ParsedResponses::new(&records);
        let forms = typed
            .routes
            .iter()
            .map(|route| route.forms.clone())
            .collect();
        let mut held = EncodedRequest::new();
        routes_with_forms(&responses, &paths, forms, |route| held.push(route)).unwrap();
        let held = held.finish().unwrap();
        let text = held.text();
        assert_eq!(text, serde_json::to_string(&typed).unwrap());
        assert!(
            text.contains(r#""text":"7""#),
            "the answers are sent: {text}"
        );
    }

    #[test]
    fn answers_keep_only_scalars_a_path_spells_and_format_rules_fill_forms() {
        let first = record(1, "GET", "http://app.test/t/projects/WEB.json")
            .json(
                200,
                r#"{"rows": [{"code": "WEB", "name": "Web site", "deep": {"a": {"b": "WEB"}}}], "ok": true}"#,
            )
            .build();
        let second = record(2, "GET", "http://app.test/t/tasks/7.json")
            .json(404, r#"{"error": "7"}"#)
            .build();
        let request = route_form_request(
            &[&first, &second],
            &["/t/projects/WEB.json", "/t/tasks/7.json"],
        );
        let answer = &request.routes[0].answer;
        assert_eq!(answer.json.as_deref(), Some("object"));
        assert_eq!(answer.members, vec!["ok", "rows"]);
        assert_eq!(answer.item_members, vec!["code", "deep", "name"]);
        let values: Vec<(&str, bool, &str)> = answer
            .values
            .iter()
            .map(|value| (value.pointer.as_str(), value.in_array, value.text.as_str()))
            .collect();
        assert_eq!(
            values,
            vec![("/rows/0/code", true, "WEB")],
            "deeper than three levels is left out"
        );
        let missing = &request.routes[1];
        assert_eq!(missing.answer.status, 404);
        assert_eq!(missing.answer.json, None, "only 2xx answers are read");
        assert_eq!(missing.decoded, vec!["t", "tasks", "7.json"]);
        assert_eq!(
            missing.forms,
            vec![None, None, None],
            "7.json fits no format rule whole"
        );
        assert!(answer.paths.is_empty(), "no string spells a path run");
        let numbered = route_form_request(&[&second], &["/t/7"]);
        assert_eq!(
            numbered.routes[0].forms[1],
            Some(SegmentForm::whole("numeric"))
        );
    }

    #[test]
    fn a_request_read_through_the_projections_parsed_bodies_is_the_one_a_fresh_parse_gives() {
        let listing = record(1, "GET", "http://app.test/api/items")
            .json(200, r#"[{"id": 7, "title": "items"}, {"id": 8}]"#)
            .build();
        let item = record(2, "GET", "http://app.test/api/items/7")
            .json(200, r#"{"id": 7, "path": "api/items"}"#)
            .build();
        let records = [&listing, &item];
        let paths = ["/api/items", "/api/items/7"];
        let fresh = route_form_request(&records, &paths);
        // The projection reads every body before the stages run; the request reuses those.
        let shared = ParsedResponses::new(&records);
        for index in 0..records.len() {
            assert!(shared.json(index).is_some());
        }
        let forms = fresh
            .routes
            .iter()
            .map(|route| route.forms.clone())
            .collect();
        let routes = routes_with_forms(&shared, &paths, forms, Ok::<_, Infallible>);
        assert_eq!(routes.as_ref(), Ok(&fresh.routes));
        assert_eq!(
            apply_route_forms(&shared, &paths, vec![vec![None; 2], vec![None; 3]], &[])
                .expect("no stage")
                .forms,
            vec![vec![None; 2], vec![None; 3]],
            "without stages the forms are answered as given"
        );
    }

    #[test]
    fn map_keys_are_names_of_one_kind_objects_a_segment_spells() {
        let answer = serde_json::json!({
            "name": "pkg", "count": 2,
            "versions": {"1.0.0": {"v": 1}, "1.1.0": {"v": 2}},
            "dist-tags": {"latest": "1.1.0"},
            "mixed": {"latest": 1, "other": "x"}
        });
        let segments: BTreeSet<&str> = ["pkg", "1.0.0", "latest", "name"].into_iter().collect();
        let keys: Vec<(String, String)> = map_keys(&answer, &segments)
            .into_iter()
            .map(|key| (key.pointer.to_string(), key.text.to_string()))
            .collect();
        assert_eq!(
            keys,
            vec![
                ("/dist-tags/latest".to_owned(), "latest".to_owned()),
                ("/versions/1.0.0".to_owned(), "1.0.0".to_owned()),
            ],
            "the root mixes kinds, so `name` is no key; nor is a key of a mixed object"
        );
        assert!(map_keys(&serde_json::json!(["latest"]), &segments).is_empty());
    }

    #[test]
    fn folder_listings_name_their_entries_by_path_runs() {
        let root = record(1, "GET", "http://app.test/keys/")
            .json(
                200,
                r#"{"node": {"nodes": [{"key": "/config", "nodes": [{"key": "/config/web/theme"}]}, {"key": "/other/x"}]}}"#,
            )
            .build();
        let folder = record(2, "GET", "http://app.test/keys/config/web")
            .json(
                200,
                r#"{"content": [{"path": "config/web", "name": "web"}]}"#,
            )
            .build();
        let request = route_form_request(&[&root, &folder], &["/keys/", "/keys/config/web"]);
        let paths: Vec<(&str, bool, &str)> = request.routes[0]
            .answer
            .paths
            .iter()
            .map(|value| (value.pointer.as_str(), value.in_array, value.text.as_str()))
            .collect();
        assert_eq!(
            paths,
            vec![("/node/nodes/0/key", true, "/config")],
            "/config/web/theme and /other/x are runs no path spells"
        );
        let listed: Vec<&str> = request.routes[1]
            .answer
            .paths
            .iter()
            .map(|value| value.text.as_str())
            .collect();
        assert_eq!(
            listed,
            vec!["config/web"],
            "one segment alone is no path run"
        );
    }
}

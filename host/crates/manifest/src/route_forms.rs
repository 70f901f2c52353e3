//! What route form stages are asked: one origin's recorded request lines and answers as a
//! [`RouteFormRequest`] (see `rea_plugin_api::contracts::route`), with the segments the host's
//! format rules already made parameters.
//!
//! An answer is reduced to what templating asks of it: its status, the JSON kind of a 2xx JSON
//! answer, that answer's top-level member names (sorted), and its scalars at most three levels
//! below the root whose text some path of the origin spells: a whole segment (as recorded or
//! decoded) or a run of a decoded segment's parts between separators
//! (`rea_plugin_api::route_fields::separated_runs`). At most [`MAX_ANSWER_VALUES`] per answer, in
//! document order.

use std::collections::BTreeSet;

use rea_plugin_api::contracts::SCHEMA_VERSION;
use rea_plugin_api::contracts::capture::CaptureRecord;
use rea_plugin_api::contracts::route::{
    AnswerValue, RecordedAnswer, RecordedRoute, RouteFormRequest, SegmentForm,
};
use rea_plugin_api::route_fields::{format_rule, separated_runs};
use serde_json::{Map, Value};

use crate::responses::ParsedResponses;
use crate::segments::{segment_value, split_path};

/// The most answer values one recorded route carries.
pub const MAX_ANSWER_VALUES: usize = 256;

/// How many levels below the root an answer value may sit.
const MAX_VALUE_DEPTH: usize = 3;

/// The route form request for one origin's records (`paths[r]` is record `r`'s path), in record
/// order, with the format rules' forms filled in.
pub fn route_form_request(records: &[&CaptureRecord], paths: &[&str]) -> RouteFormRequest {
    let responses = ParsedResponses::new(records);
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
    let routes = records
        .iter()
        .enumerate()
        .map(|(index, record)| RecordedRoute {
            method: record.method.clone().unwrap_or_default(),
            segments: segments[index]
                .iter()
                .map(|segment| (*segment).to_owned())
                .collect(),
            forms: decoded[index]
                .iter()
                .map(|value| format_rule(value).map(SegmentForm::whole))
                .collect(),
            decoded: decoded[index].clone(),
            answer: recorded_answer(
                record.response.status,
                responses.success_json(index),
                &spelled,
            ),
        })
        .collect();
    RouteFormRequest {
        options: Map::new(),
        routes,
        schema_version: SCHEMA_VERSION,
    }
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

fn recorded_answer(status: u16, json: Option<&Value>, spelled: &BTreeSet<&str>) -> RecordedAnswer {
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
    let mut members: Vec<String> = match json {
        Value::Object(object) => object.keys().cloned().collect(),
        _ => Vec::new(),
    };
    members.sort();
    let mut values = Vec::new();
    collect_values(json, "", false, 0, spelled, &mut values);
    RecordedAnswer {
        status,
        json: Some(kind.to_owned()),
        members,
        values,
    }
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
                    pointer: pointer.to_owned(),
                    in_array,
                    text,
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
        let numbered = route_form_request(&[&second], &["/t/7"]);
        assert_eq!(
            numbered.routes[0].forms[1],
            Some(SegmentForm::whole("numeric"))
        );
    }
}

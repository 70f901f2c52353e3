//! Replaying recorded calls against a served environment and comparing the answers with the
//! recordings: the route of a recorded request to a tool, the arguments (body included), ids the
//! environment generated mapped to the recorded ones, and clocks compared by kind only.

use std::collections::BTreeMap;

use rea_manifest::segments::split_path;
use rea_plugin_api::contracts::capture::CaptureRecord;
use serde_json::{Map, Value};

use super::Served;

/// The tool whose method and template a request fits best (most literal segments), and its
/// arguments (path and query values, and the JSON body as `body`); `None` when no tool fits or
/// the request names a query parameter the tool never recorded.
pub fn route(served: &Served, record: &CaptureRecord) -> Option<(String, Map<String, Value>)> {
    let method = record.method.as_deref()?;
    let path = record.path.as_deref()?;
    let segments = split_path(path);
    let pairs: Vec<(String, String)> = record
        .query
        .as_ref()
        .map(|query| query.pairs.iter().flatten().cloned().collect())
        .unwrap_or_default();
    let mut best: Option<(usize, &str)> = None;
    for tool in &served.manifest.tools {
        if !tool.method.eq_ignore_ascii_case(method) {
            continue;
        }
        let template = split_path(&tool.path_template);
        if template.len() != segments.len() {
            continue;
        }
        let mut literal = 0;
        let fits = template
            .iter()
            .zip(&segments)
            .enumerate()
            .all(|(index, (pattern, segment))| {
                if tool
                    .path_parameters
                    .iter()
                    .any(|parameter| parameter.segment_index == index)
                {
                    !segment.is_empty()
                } else {
                    literal += 1;
                    pattern == segment
                }
            });
        if fits && best.is_none_or(|(score, _)| literal > score) {
            best = Some((literal, &tool.name));
        }
    }
    let (_, name) = best?;
    let definition = served.replay.tool(name)?;
    let mut arguments = super::arguments_of(&served.replay, name, record);
    for (query_name, _) in &pairs {
        let known = definition.input_schema.arguments.iter().any(|argument| {
            matches!(&argument.target, rea_manifest::catalog::ArgumentTarget::Query { name: captured } if captured == query_name)
        });
        if !known {
            return None;
        }
    }
    if let Some(body) = request_json(record) {
        let body_name = definition
            .input_schema
            .arguments
            .iter()
            .find(|argument| argument.target == rea_manifest::catalog::ArgumentTarget::Body)
            .map(|argument| argument.name.clone());
        if let Some(body_name) = body_name {
            arguments.insert(body_name, body);
        }
    }
    Some((name.to_owned(), arguments))
}

/// A recorded request's body as JSON.
pub fn request_json(record: &CaptureRecord) -> Option<Value> {
    let bytes = record.request.body.bytes()?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    serde_json::from_slice(&bytes).ok()
}

/// Ids the environment generated, mapped from the ones a recording holds.
#[derive(Debug, Default)]
pub struct IdMap {
    map: BTreeMap<String, String>,
}

fn id_like(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower == "id" || lower.ends_with("_id") || lower.ends_with("id") || lower.contains("uuid")
}

fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

impl IdMap {
    /// Learns id pairs from a recorded answer and the environment's answer to the same call:
    /// id-named members at the same place holding different values.
    pub fn learn(&mut self, recorded: &Value, answered: &Value) {
        match (recorded, answered) {
            (Value::Object(left), Value::Object(right)) => {
                for (key, value) in left {
                    let Some(other) = right.get(key) else {
                        continue;
                    };
                    if id_like(key)
                        && let (Some(a), Some(b)) = (scalar(value), scalar(other))
                        && a != b
                    {
                        self.map.insert(a, b);
                    }
                    self.learn(value, other);
                }
            }
            (Value::Array(left), Value::Array(right)) => {
                for (value, other) in left.iter().zip(right) {
                    self.learn(value, other);
                }
            }
            _ => {}
        }
    }

    /// A recorded value with its mapped ids replaced.
    pub fn translate(&self, value: &Value) -> Value {
        match value {
            Value::String(text) => {
                let mapped = self.map.get(text).cloned().unwrap_or_else(|| {
                    // An id inside a path or text (`/records/<id>`).
                    let mut out = text.clone();
                    for (from, to) in &self.map {
                        if from.len() >= 8 && out.contains(from.as_str()) {
                            out = out.replace(from.as_str(), to);
                        }
                    }
                    out
                });
                Value::String(mapped)
            }
            Value::Number(number) => match self.map.get(&number.to_string()) {
                Some(mapped) => mapped
                    .parse::<serde_json::Number>()
                    .map(Value::Number)
                    .unwrap_or_else(|_| Value::String(mapped.clone())),
                None => value.clone(),
            },
            Value::Array(items) => {
                Value::Array(items.iter().map(|item| self.translate(item)).collect())
            }
            Value::Object(members) => Value::Object(
                members
                    .iter()
                    .map(|(key, item)| (key.clone(), self.translate(item)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    /// Arguments with mapped ids replaced (path and query values, and the body).
    pub fn translate_arguments(&self, arguments: &Map<String, Value>) -> Map<String, Value> {
        arguments
            .iter()
            .map(|(name, value)| {
                let translated = match value {
                    Value::String(text) => {
                        // Path values are percent-encoded as recorded.
                        let decoded = rea_manifest::segments::percent_decode(text)
                            .map(|decoded| decoded.into_owned())
                            .unwrap_or_else(|| text.clone());
                        match self.map.get(&decoded) {
                            Some(mapped) => Value::String(mapped.clone()),
                            None => self.translate(value),
                        }
                    }
                    other => self.translate(other),
                };
                (name.clone(), translated)
            })
            .collect()
    }

    /// How many ids are mapped.
    pub fn len(&self) -> usize {
        self.map.len()
    }
}

/// Whether a text is an ISO-8601 date-time.
fn is_iso(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() >= 19
        && bytes[..4].iter().all(u8::is_ascii_digit)
        && bytes[4] == b'-'
        && bytes[7] == b'-'
        && matches!(bytes[10], b'T' | b' ')
        && bytes[13] == b':'
}

/// A value with clocks replaced by their kind: ISO date-times by their length, epoch numbers of
/// seconds or milliseconds by their unit (under clock-named members).
pub fn without_clocks(value: &Value, member: &str) -> Value {
    let clock_name = {
        let lower = member.to_ascii_lowercase();
        [
            "at",
            "time",
            "date",
            "timestamp",
            "created",
            "updated",
            "modified",
        ]
        .iter()
        .any(|word| lower.contains(word))
    };
    match value {
        Value::String(text) if is_iso(text) => Value::String(format!("<clock {}>", text.len())),
        Value::Number(number) if clock_name => match number.as_i64() {
            Some(1_000_000_000..10_000_000_000) => Value::String("<epoch s>".into()),
            Some(1_000_000_000_000..10_000_000_000_000) => Value::String("<epoch ms>".into()),
            _ => value.clone(),
        },
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| without_clocks(item, member))
                .collect(),
        ),
        Value::Object(members) => Value::Object(
            members
                .iter()
                .map(|(key, item)| (key.clone(), without_clocks(item, key)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// How an environment answer compares with a recorded one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    /// The statuses agree.
    pub status: bool,
    /// The bodies agree (ids mapped, clocks by kind).
    pub body: bool,
}

/// Compares an environment answer (`{status, body, …}`) with a recording.
pub fn compare(ids: &IdMap, record: &CaptureRecord, answer: &Value) -> Verdict {
    let (status, body) = super::recorded_answer(record);
    let answered_status = answer
        .get("status")
        .and_then(Value::as_u64)
        .map(|status| status as u16);
    let recorded_body = without_clocks(&ids.translate(&body), "");
    let answered_body = without_clocks(answer.get("body").unwrap_or(&Value::Null), "");
    Verdict {
        status: answered_status == status,
        body: recorded_body == answered_body,
    }
}

//! Replaying recorded calls against a served environment and comparing the answers with the
//! recordings, as the spec's "Measure fidelity against the application" describes: the route of
//! a recorded request to a tool, the arguments (body included), ids mapped from the live answer to
//! the environment's (objects of two answers pair by a natural key; their identifier fields map),
//! clocks compared by format only (ISO-8601 strings, and epoch numbers under clock-named
//! members), and each difference classified (`status`, `missing-field`, `extra-field`, `value`,
//! `length`, `order`, `clock-format`).

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
    // A query parameter the recorded schema lacks is an argument when the list view's learned
    // grammar extends to it (the state catalog offers it by its query name).
    let generalized = match served.state().view(name).map(|view| &view.detail) {
        Some(rea_state::model::ViewDetail::List(list)) => list
            .query
            .as_ref()
            .map(|model| model.generalized.clone())
            .unwrap_or_default(),
        _ => Default::default(),
    };
    for (query_name, value) in &pairs {
        let known = definition.input_schema.arguments.iter().any(|argument| {
            matches!(&argument.target, rea_manifest::catalog::ArgumentTarget::Query { name: captured } if captured == query_name)
        });
        if known {
            continue;
        }
        if !generalized.contains_key(query_name) || arguments.contains_key(query_name) {
            return None;
        }
        arguments.insert(query_name.clone(), Value::String(value.clone()));
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

/// Ids mapped from the live application's answers to the environment's.
#[derive(Debug, Default)]
pub struct IdMap {
    map: BTreeMap<String, String>,
}

/// Whether a member name is an identifier field (`id`, `uuid`, `guid`, and names ending in `_id`,
/// `Id`, `ID`, `_uuid` or `Uuid`).
fn id_like(name: &str) -> bool {
    matches!(name, "id" | "uuid" | "guid")
        || name.ends_with("_id")
        || name.ends_with("Id")
        || name.ends_with("ID")
        || name.ends_with("_uuid")
        || name.ends_with("Uuid")
}

/// Whether a member holds a list of ids (`ids`, `uuids`, `guids`).
fn id_list(name: &str) -> bool {
    matches!(name, "ids" | "uuids" | "guids")
}

fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

impl IdMap {
    /// Learns id pairs from a live answer and the environment's answer to the same call:
    /// identifier members of paired objects (at the same place, or paired by a natural key in
    /// arrays) holding different values.
    pub fn learn(&mut self, live: &Value, answered: &Value) {
        match (live, answered) {
            (Value::Object(left), Value::Object(right)) => {
                for (key, value) in left {
                    let Some(other) = right.get(key) else {
                        continue;
                    };
                    if id_like(key)
                        && let (Some(a), Some(b)) = (scalar(value), scalar(other))
                        && a != b
                        && !self.map.contains_key(&a)
                    {
                        self.map.insert(a, b);
                    }
                    self.learn(value, other);
                }
            }
            (Value::Array(left), Value::Array(right)) => {
                for (a, b) in pair_items(left, right).pairs {
                    self.learn(&left[a], &right[b]);
                }
            }
            _ => {}
        }
    }

    /// Whether a live value is a mapped id.
    pub fn maps(&self, live: &str) -> bool {
        self.map.contains_key(live)
    }

    /// A live scalar with its mapped id (an identifier field's value).
    pub fn translate(&self, value: &Value) -> Value {
        let Some(text) = scalar(value) else {
            return value.clone();
        };
        match self.map.get(&text) {
            Some(mapped) => match value {
                Value::Number(_) => mapped
                    .parse::<serde_json::Number>()
                    .map(Value::Number)
                    .unwrap_or_else(|_| Value::String(mapped.clone())),
                _ => Value::String(mapped.clone()),
            },
            None => value.clone(),
        }
    }

    /// A live value with the ids at its identifier fields (and in `ids`, `uuids`, `guids` lists)
    /// mapped; other values unchanged.
    pub fn translate_ids(&self, value: &Value, member: &str) -> Value {
        match value {
            Value::Object(members) => Value::Object(
                members
                    .iter()
                    .map(|(key, item)| (key.clone(), self.translate_ids(item, key)))
                    .collect(),
            ),
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|item| self.translate_ids(item, member))
                    .collect(),
            ),
            scalar if id_like(member) || id_list(member) => self.translate(scalar),
            other => other.clone(),
        }
    }

    /// Arguments with mapped ids replaced: a path or query value that is a mapped id, and the
    /// body's identifier fields.
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
                            None => value.clone(),
                        }
                    }
                    other => self.translate_ids(other, ""),
                };
                (name.clone(), translated)
            })
            .collect()
    }
}

/// An ISO-8601 date-time's format: separator, seconds, fraction digits, zone spelling (`Z`,
/// `+00:00`, `+0000`, or none). `None` when the text is not one.
pub fn iso_format(text: &str) -> Option<(char, bool, usize, String)> {
    let spelling = rea_plugin_api::date::parse(text)?.spelling;
    Some((
        spelling.separator,
        spelling.seconds,
        spelling.digits,
        spelling.zone,
    ))
}

/// Whether a member name is a clock's: a word of it (snake-case or camel-case) is `at`, `time`,
/// `date`, `timestamp`, `created`, `updated` or `modified`.
pub fn clock_named(member: &str) -> bool {
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    for character in member.chars() {
        if character == '_' || character == '-' || character == '.' {
            words.push(std::mem::take(&mut word));
        } else if character.is_uppercase() {
            words.push(std::mem::take(&mut word));
            word.extend(character.to_lowercase());
        } else {
            word.push(character);
        }
    }
    words.push(word);
    words.iter().any(|word| {
        matches!(
            word.as_str(),
            "at" | "time" | "date" | "timestamp" | "created" | "updated" | "modified"
        )
    })
}

/// A clock's format: ISO-8601 text, or an epoch number (seconds or milliseconds) under a
/// clock-named member.
fn clock_format(value: &Value, clock_context: bool) -> Option<String> {
    match value {
        Value::String(text) => iso_format(text).map(|(separator, seconds, fraction, zone)| {
            format!("iso {separator} {seconds} {fraction} {zone}")
        }),
        Value::Number(number) if clock_context => match number.as_i64() {
            Some(1_000_000_000..10_000_000_000) => Some("epoch s".to_owned()),
            Some(1_000_000_000_000..10_000_000_000_000) => Some("epoch ms".to_owned()),
            _ => None,
        },
        _ => None,
    }
}

/// Items of two arrays paired: by a natural key (a string member every object on each side
/// carries, unique on each side, some values shared) when there is one, else by position.
pub struct Paired {
    /// (live index, environment index).
    pub pairs: Vec<(usize, usize)>,
    /// Whether every item on both sides paired.
    pub complete: bool,
}

fn natural_key(left: &[Value], right: &[Value]) -> Option<String> {
    if left.is_empty() || right.is_empty() {
        return None;
    }
    let first = left[0].as_object()?;
    let mut names: Vec<&String> = first
        .iter()
        .filter(|(name, value)| value.is_string() && !id_like(name))
        .map(|(name, _)| name)
        .collect();
    let preference = |name: &str| match name {
        "name" | "title" | "slug" | "key" | "code" | "username" | "email" => 0,
        _ => 1,
    };
    names.sort_by_key(|name| (preference(name), (*name).clone()));
    names.into_iter().find_map(|name| {
        let values = |items: &[Value]| -> Option<Vec<String>> {
            items
                .iter()
                .map(|item| item.get(name).and_then(Value::as_str).map(str::to_owned))
                .collect()
        };
        let (left_values, right_values) = (values(left)?, values(right)?);
        let unique = |values: &Vec<String>| {
            values
                .iter()
                .collect::<std::collections::BTreeSet<_>>()
                .len()
                == values.len()
        };
        (unique(&left_values)
            && unique(&right_values)
            && left_values.iter().any(|value| right_values.contains(value)))
        .then(|| name.clone())
    })
}

/// Pairs two arrays' items (see [`Paired`]).
pub fn pair_items(left: &[Value], right: &[Value]) -> Paired {
    if let Some(key) = natural_key(left, right) {
        let mut pairs = Vec::new();
        for (index, item) in left.iter().enumerate() {
            let value = item.get(&key);
            if let Some(other) = right
                .iter()
                .position(|candidate| candidate.get(&key) == value)
            {
                pairs.push((index, other));
            }
        }
        let complete = pairs.len() == left.len() && pairs.len() == right.len();
        return Paired { pairs, complete };
    }
    let count = left.len().min(right.len());
    Paired {
        pairs: (0..count).map(|index| (index, index)).collect(),
        complete: left.len() == right.len(),
    }
}

/// One difference between the application's answer and the environment's.
#[derive(Debug, Clone)]
pub struct Difference {
    /// `status`, `missing-field`, `extra-field`, `value`, `length`, `order`, `clock-format`.
    pub category: &'static str,
    /// Where (a JSON pointer into the application's answer).
    pub pointer: String,
    /// Both values, cut short.
    pub live: String,
    /// The environment's.
    pub env: String,
}

fn short(value: Option<&Value>) -> String {
    value
        .map(|value| value.to_string())
        .unwrap_or_else(|| "<absent>".to_owned())
        .chars()
        .take(80)
        .collect()
}

fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// The differences of two answer bodies (the application's first), ids mapped and clocks by
/// format.
pub fn differences(ids: &IdMap, live: &Value, env: &Value) -> Vec<Difference> {
    let mut out = Vec::new();
    walk(ids, live, env, String::new(), "", &mut out);
    out
}

fn walk(
    ids: &IdMap,
    live: &Value,
    env: &Value,
    pointer: String,
    member: &str,
    out: &mut Vec<Difference>,
) {
    let clock_context = clock_named(member);
    let differ = |category: &'static str, out: &mut Vec<Difference>| {
        out.push(Difference {
            category,
            pointer: pointer.clone(),
            live: short(Some(live)),
            env: short(Some(env)),
        });
    };
    if let (Some(left), Some(right)) = (
        clock_format(live, clock_context),
        clock_format(env, clock_context),
    ) {
        if left != right {
            differ("clock-format", out);
        }
        return;
    }
    match (live, env) {
        (Value::Object(left), Value::Object(right)) => {
            for (key, value) in left {
                let at = format!("{pointer}/{}", escape(key));
                match right.get(key) {
                    Some(other) => walk(ids, value, other, at, key, out),
                    None => out.push(Difference {
                        category: "missing-field",
                        pointer: at,
                        live: short(Some(value)),
                        env: short(None),
                    }),
                }
            }
            for (key, value) in right {
                if !left.contains_key(key) {
                    out.push(Difference {
                        category: "extra-field",
                        pointer: format!("{pointer}/{}", escape(key)),
                        live: short(None),
                        env: short(Some(value)),
                    });
                }
            }
        }
        (Value::Array(left), Value::Array(right)) => {
            let paired = pair_items(left, right);
            if !paired.complete {
                differ("length", out);
            }
            let mut previous: Option<usize> = None;
            let mut ordered = true;
            for (a, b) in &paired.pairs {
                if previous.is_some_and(|previous| *b < previous) {
                    ordered = false;
                }
                previous = Some(*b);
                walk(
                    ids,
                    &left[*a],
                    &right[*b],
                    format!("{pointer}/{a}"),
                    member,
                    out,
                );
            }
            if !ordered {
                differ("order", out);
            }
        }
        _ => {
            let live = if id_like(member) || id_list(member) {
                ids.translate(live)
            } else {
                live.clone()
            };
            if live != *env {
                differ("value", out);
            }
        }
    }
}

/// Whether the environment answered this very call (ids may be learned from the answer): from
/// its state, or from a recording of the same request line for a call without a body (a query
/// `POST` replays a recording its arguments cannot tell from another call's). A missing write
/// target's answer (`state.view: "missing"`) is another call's recorded absence: not this call's.
pub fn answered_this_call(record: &CaptureRecord, answer: &Value) -> bool {
    if answer.get("error").is_some()
        || answer.pointer("/state/view").and_then(Value::as_str) == Some("missing")
    {
        return false;
    }
    answer.pointer("/state/source").and_then(Value::as_str) == Some("state")
        || (answer
            .pointer("/replay/exact_match")
            .and_then(Value::as_bool)
            == Some(true)
            && request_json(record).is_none())
}

/// How an environment answer compares with a recording.
#[derive(Debug, Clone)]
pub struct Verdict {
    /// The statuses agree.
    pub status: bool,
    /// The bodies agree (ids mapped, clocks by format).
    pub body: bool,
    /// The bodies agree but for the order of items.
    pub body_ignoring_order: bool,
    /// The differences (at most 20).
    pub differences: Vec<Difference>,
}

/// Compares an environment answer (`{status, body, …}`) with a recording.
pub fn compare(ids: &IdMap, record: &CaptureRecord, answer: &Value) -> Verdict {
    let (status, body) = super::recorded_answer(record);
    let answered_status = answer
        .get("status")
        .and_then(Value::as_u64)
        .map(|status| status as u16);
    let mut differences = differences(ids, &body, answer.get("body").unwrap_or(&Value::Null));
    let body_agrees = differences.is_empty();
    let body_ignoring_order = differences
        .iter()
        .all(|difference| difference.category == "order");
    if answered_status != status {
        differences.insert(
            0,
            Difference {
                category: "status",
                pointer: String::new(),
                live: format!("{status:?}"),
                env: format!("{answered_status:?}"),
            },
        );
    }
    differences.truncate(20);
    Verdict {
        status: answered_status == status,
        body: body_agrees,
        body_ignoring_order,
        differences,
    }
}

/// A verdict's differences as one short line (the first `count`).
pub fn describe(verdict: &Verdict, count: usize) -> String {
    verdict
        .differences
        .iter()
        .take(count)
        .map(|difference| {
            format!(
                "{} at {:?} (live {}, env {})",
                difference.category, difference.pointer, difference.live, difference.env
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

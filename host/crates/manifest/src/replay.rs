//! Replay: one tool call → one of the records the tool cites → its recorded response.
//!
//! Arguments are checked against the tool's input schema first: a name the schema does not have
//! is refused (a misspelled parameter never degrades into an omitted one), as is a missing path
//! parameter, a path value that is not a string, a query value that is not a string, number,
//! boolean or array of strings, and a body that is not an object. Values are not validated
//! further. The body is accepted and ignored.
//!
//! Selection compares, for each cited record in manifest order, the supplied path values with
//! the record's segments at the parameters' indexes (a value matches the segment as written or
//! percent-decoded) and, only when query arguments were supplied, each query argument's values
//! with the record's decoded occurrences of that name in captured order (a scalar is a list of
//! one). The record with the most matches (path values, and query arguments whose values equal
//! the recorded occurrences) wins; among equals the one with more occurrences agreeing position
//! by position, then the one with more as-written path matches, then the earliest. With no match
//! at all the first cited record answers. `exact_match` is true when every supplied path value matches and every
//! supplied query list equals the recorded occurrences, and no other such record differs only in
//! how its repeated values interleave across names (per-name arrays cannot choose between them).

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use rea_plugin_api::contracts::capture::{Body, CaptureRecord, CompactString, RecordQuery};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::body::{BodyEncoding, InterpretedBody, ReplayBody, interpret};
use crate::catalog::{ArgumentTarget, InputSchema};
use crate::display::{DISPLAY_BUDGET, utf8_prefix};
use crate::segments::{fused_segment, percent_decode, split_path};

/// Where one segment of a recorded path starts and ends.
type SegmentBounds = (u32, u32);

/// `_meta.provenance.source` of every replayed result.
pub const PROVENANCE_SOURCE: &str = "analysis_target";

/// The provenance every tool result carries in `_meta.provenance`, argument errors included. The
/// MCP server adds it; this type describes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Provenance {
    /// Always true: replayed content is target content.
    pub untrusted_content: bool,
    /// Always [`PROVENANCE_SOURCE`].
    pub source: &'static str,
}

/// The provenance of replayed content.
pub const PROVENANCE: Provenance = Provenance {
    untrusted_content: true,
    source: PROVENANCE_SOURCE,
};

/// `{"provenance": {"untrusted_content": true, "source": "analysis_target"}}`: the `_meta` of
/// every tool result.
pub fn provenance_meta() -> Map<String, Value> {
    let mut meta = Map::new();
    meta.insert(
        "provenance".to_owned(),
        serde_json::to_value(PROVENANCE).unwrap_or(Value::Null),
    );
    meta
}

/// What a replay keeps of a cited record: its request line and its response.
#[derive(Debug)]
pub struct ReplayRecord {
    /// The record's ordinal.
    pub ordinal: u64,
    /// The recorded path.
    pub path: CompactString,
    /// The recorded query.
    pub query: Option<RecordQuery>,
    /// The recorded status (0: no answer recorded).
    pub status: u16,
    /// The recorded response media type.
    pub media_type: Option<CompactString>,
    /// The path's segments, split once.
    segments: Box<[SegmentBounds]>,
    body: Body,
    interpreted: OnceLock<Arc<InterpretedBody>>,
}

impl ReplayRecord {
    /// Keeps what replay needs of a capture record; `None` when the capture did not keep its path.
    pub fn from_capture(record: CaptureRecord) -> Option<Self> {
        let path = record.path?;
        let base = path.as_ptr() as usize;
        let segments = split_path(&path)
            .into_iter()
            .map(|segment| {
                let start = (segment.as_ptr() as usize - base) as u32;
                (start, start + segment.len() as u32)
            })
            .collect();
        Some(Self {
            ordinal: record.ordinal,
            path,
            segments,
            query: record.query,
            status: record.response.status,
            media_type: record.response.media_type,
            body: record.response.body,
            interpreted: OnceLock::new(),
        })
    }

    /// The recorded path's segment at `index` (see [`crate::segments::split_path`]).
    pub fn segment(&self, index: usize) -> Option<&str> {
        self.segments
            .get(index)
            .map(|(start, end)| &self.path[*start as usize..*end as usize])
    }

    /// The body as replay answers it (interpreted once).
    pub fn interpreted(&self) -> &Arc<InterpretedBody> {
        self.interpreted
            .get_or_init(|| Arc::new(interpret(&self.body, self.media_type.as_deref())))
    }
}

/// A replayed answer: `{status, content_type, body, replay}` (`content_type_truncated` appears
/// only when the content type was cut).
#[derive(Debug, Clone, Serialize)]
pub struct ReplayAnswer {
    /// The recorded status; `null` when the capture recorded no answer.
    pub status: Option<u16>,
    /// The recorded media type, cut to 1 KiB.
    pub content_type: Option<String>,
    /// True when `content_type` was cut.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub content_type_truncated: bool,
    /// The body (see [`crate::body`]).
    pub body: ReplayBody,
    /// Where the answer came from.
    pub replay: ReplayProvenance,
}

/// Where a replayed answer came from.
#[derive(Debug, Clone, Serialize)]
pub struct ReplayProvenance {
    /// The answering record's ordinal.
    pub record_ordinal: u64,
    /// The capture Evidence id.
    pub evidence_id: String,
    /// Whether every supplied argument matched (see the module docs).
    pub exact_match: bool,
    /// The recorded path, cut to 1 KiB.
    pub recorded_path: String,
    /// `?` and the recorded query as written, cut to 1 KiB; `null` when the URL had no `?`.
    pub recorded_query: Option<String>,
    /// True when the path or query was cut.
    pub recorded_line_truncated: bool,
    /// Whether the capture kept the response body.
    pub body_recorded: bool,
    /// `utf-8` or `base64`.
    pub body_encoding: BodyEncoding,
    /// True when the body was cut at 256 KiB.
    pub truncated: bool,
}

impl ReplayAnswer {
    /// The answer as compact JSON text (JSON bodies spelled exactly as recorded).
    pub fn to_json_string(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "null".to_owned())
    }

    /// The answer as a JSON value (for structured content).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// Why a tool call was refused before any replay.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolCallError {
    /// No tool has that name.
    #[error("unknown tool {0:?}")]
    UnknownTool(String),
    /// An argument the input schema does not name.
    #[error("unknown argument {argument:?} for tool {tool}; accepted arguments: {accepted}")]
    UnknownArgument {
        /// The tool.
        tool: String,
        /// The argument as given.
        argument: String,
        /// The accepted names, comma-separated.
        accepted: String,
    },
    /// A required argument is missing.
    #[error("missing required argument {argument:?} for tool {tool}")]
    MissingArgument {
        /// The tool.
        tool: String,
        /// The argument.
        argument: String,
    },
    /// An argument of the wrong JSON type.
    #[error("argument {argument:?} of tool {tool} must be {expected}")]
    InvalidArgument {
        /// The tool.
        tool: String,
        /// The argument.
        argument: String,
        /// What it must be.
        expected: &'static str,
    },
}

impl ToolCallError {
    /// A stable code: `unknown_tool` or `invalid_arguments`.
    pub fn code(&self) -> &'static str {
        match self {
            ToolCallError::UnknownTool(_) => "unknown_tool",
            _ => "invalid_arguments",
        }
    }

    /// `{"code", "message"}` for an error result.
    pub fn to_json(&self) -> Value {
        serde_json::json!({"code": self.code(), "message": self.to_string()})
    }
}

/// Supplied arguments, resolved to what they select.
#[derive(Debug, Default)]
pub(crate) struct Supplied {
    path: Vec<(usize, String)>,
    query: Vec<(String, Vec<String>)>,
}

/// Checks call arguments against a schema and resolves them.
pub(crate) fn resolve_arguments(
    tool: &str,
    schema: &InputSchema,
    arguments: &Map<String, Value>,
) -> Result<Supplied, ToolCallError> {
    let mut supplied = Supplied::default();
    for (name, value) in arguments {
        let Some(argument) = schema.argument(name) else {
            return Err(ToolCallError::UnknownArgument {
                tool: tool.to_owned(),
                argument: name.clone(),
                accepted: schema
                    .arguments
                    .iter()
                    .map(|argument| argument.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        };
        let invalid = |expected| ToolCallError::InvalidArgument {
            tool: tool.to_owned(),
            argument: name.clone(),
            expected,
        };
        match &argument.target {
            ArgumentTarget::Path {
                segment_index,
                prefix,
                suffix,
                ..
            } => match path_text(value) {
                Some(text) => supplied
                    .path
                    .push((*segment_index, fused_segment(prefix, &text, suffix))),
                None => return Err(invalid("a string or an integer")),
            },
            ArgumentTarget::Query { name: captured } => {
                let expected = "a string, a number, a boolean or an array of them";
                let values = query_texts(value).ok_or_else(|| invalid(expected))?;
                supplied.query.push((captured.clone(), values));
            }
            ArgumentTarget::Body => {
                if !value.is_object() {
                    return Err(invalid("an object"));
                }
            }
        }
    }
    for required in schema.required() {
        if !arguments.contains_key(required) {
            return Err(ToolCallError::MissingArgument {
                tool: tool.to_owned(),
                argument: required.to_owned(),
            });
        }
    }
    Ok(supplied)
}

/// A path argument's segment text: a string as given, an integer as its JSON text.
pub fn path_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) if number.is_i64() || number.is_u64() => Some(number.to_string()),
        _ => None,
    }
}

/// A query argument's values: a string as given, a number or boolean as its JSON text, an array
/// of those one value per item (repeated values in order).
pub fn query_texts(value: &Value) -> Option<Vec<String>> {
    let scalar = |value: &Value| match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        Value::Bool(flag) => Some(flag.to_string()),
        _ => None,
    };
    match value {
        Value::Array(items) => items.iter().map(scalar).collect(),
        other => scalar(other).map(|value| vec![value]),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Score {
    /// Path values and whole query arguments that match.
    matches: usize,
    /// Query occurrences that agree position by position.
    occurrences: usize,
    /// Path values that match as written (not only decoded).
    written: usize,
}

struct Assessment {
    score: Score,
    exact: bool,
}

fn assess(record: &ReplayRecord, supplied: &Supplied) -> Assessment {
    let mut score = Score {
        matches: 0,
        occurrences: 0,
        written: 0,
    };
    let mut exact = true;
    if !supplied.path.is_empty() {
        for (index, value) in &supplied.path {
            match record.segment(*index) {
                Some(segment) if segment == value => {
                    score.matches += 1;
                    score.written += 1;
                }
                Some(segment)
                    if percent_decode(segment).is_some_and(|decoded| decoded == *value) =>
                {
                    score.matches += 1;
                }
                _ => exact = false,
            }
        }
    }
    if !supplied.query.is_empty() {
        let pairs: &[Option<(String, String)>] =
            record.query.as_ref().map_or(&[], |query| &query.pairs);
        for (name, values) in &supplied.query {
            let occurrences: Vec<&str> = pairs
                .iter()
                .flatten()
                .filter(|(pair_name, _)| pair_name == name)
                .map(|(_, value)| value.as_str())
                .collect();
            let agreeing = values
                .iter()
                .zip(&occurrences)
                .filter(|(supplied, recorded)| supplied.as_str() == **recorded)
                .count();
            score.occurrences += agreeing;
            if agreeing == values.len() && occurrences.len() == values.len() {
                score.matches += 1;
            } else {
                exact = false;
            }
        }
    }
    Assessment { score, exact }
}

/// Per-name occurrence lists of a query, for telling apart records that differ only in how
/// repeated values interleave across names.
fn grouped(query: Option<&RecordQuery>) -> BTreeMap<&str, Vec<&str>> {
    let mut groups: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    if let Some(query) = query {
        for (name, value) in query.pairs.iter().flatten() {
            groups.entry(name).or_default().push(value);
        }
    }
    groups
}

/// Selects the answering record among `cited` (manifest order) and whether it matched exactly.
pub(crate) fn select<'a, I>(cited: I, supplied: &Supplied) -> (&'a ReplayRecord, bool)
where
    I: IntoIterator<Item = &'a ReplayRecord>,
    I::IntoIter: Clone,
{
    let cited = cited.into_iter();
    let mut best: Option<(&ReplayRecord, Assessment)> = None;
    for record in cited.clone() {
        let assessment = assess(record, supplied);
        if best
            .as_ref()
            .is_none_or(|(_, held)| assessment.score > held.score)
        {
            best = Some((record, assessment));
        }
    }
    let Some((chosen, assessment)) = best else {
        unreachable!(
            "a manifest tool cites at least one record (checked when the environment is built)"
        )
    };
    let mut exact = assessment.exact;
    if exact && !supplied.query.is_empty() {
        let chosen_pairs = chosen.query.as_ref().map(|query| &query.pairs);
        let chosen_groups = grouped(chosen.query.as_ref());
        let ambiguous = cited.into_iter().any(|other| {
            other.path == chosen.path
                && other.query.as_ref().map(|query| &query.pairs) != chosen_pairs
                && assess(other, supplied).exact
                && grouped(other.query.as_ref()) == chosen_groups
        });
        if ambiguous {
            exact = false;
        }
    }
    (chosen, exact)
}

/// The answer a record gives.
pub(crate) fn answer_from(
    record: &ReplayRecord,
    evidence_id: &str,
    exact_match: bool,
) -> ReplayAnswer {
    let interpreted = record.interpreted();
    let (content_type, content_type_truncated) = match &record.media_type {
        Some(media_type) => {
            let shown = utf8_prefix(media_type, DISPLAY_BUDGET);
            (Some(shown.to_owned()), shown.len() < media_type.len())
        }
        None => (None, false),
    };
    let recorded_path = utf8_prefix(&record.path, DISPLAY_BUDGET);
    let mut line_truncated = recorded_path.len() < record.path.len();
    let recorded_query = record
        .query
        .as_ref()
        .and_then(|query| query.raw.as_ref())
        .map(|raw| {
            let whole = format!("?{raw}");
            let shown = utf8_prefix(&whole, DISPLAY_BUDGET).to_owned();
            line_truncated |= shown.len() < whole.len();
            shown
        });
    ReplayAnswer {
        status: (record.status != 0).then_some(record.status),
        content_type,
        content_type_truncated,
        body: interpreted.body.clone(),
        replay: ReplayProvenance {
            record_ordinal: record.ordinal,
            evidence_id: evidence_id.to_owned(),
            exact_match,
            recorded_path: recorded_path.to_owned(),
            recorded_query,
            recorded_line_truncated: line_truncated,
            body_recorded: interpreted.recorded,
            body_encoding: interpreted.encoding,
            truncated: interpreted.truncated,
        },
    }
}

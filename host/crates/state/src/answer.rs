//! Tool answers in the replay shape, with the `state` member.
//!
//! A state answer is `{status, content_type, body, replay, state}`: the base record's status and
//! content type, the body rendered from the state, the base record's `replay` provenance with
//! `truncated: false`, and `state: {"source": "state", "view": …}`. A recording answer is replay's
//! answer with `state: {"source": "recording", "reason": …}` added. Either is spelled as compact
//! JSON with the body's member order and number lexemes kept.

use std::collections::BTreeMap;

use rea_manifest::body::interpret;
use rea_manifest::display::{DISPLAY_BUDGET, utf8_prefix};
use rea_manifest::{ReplayAnswer, ReplayProvenance};
use rea_plugin_api::contracts::capture::{Body, CaptureRecord, RecordQuery};
use rea_plugin_api::json::Json;
use rea_serve::ToolAnswer;
use serde::Serialize;
use serde_json::{Value, json};

/// The most bytes of JSON a state answer's body may take.
pub const STATE_BODY_LIMIT: usize = rea_manifest::REPLY_BODY_LIMIT;

/// A record a state answer may be based on: its request line and response.
#[derive(Debug, Clone)]
pub struct KeptRecord {
    /// The ordinal.
    pub ordinal: u64,
    /// The recorded path.
    pub path: String,
    /// The recorded query.
    pub query: Option<RecordQuery>,
    /// The status (0: none recorded).
    pub status: u16,
    /// The media type.
    pub media_type: Option<String>,
    /// The recorded body.
    pub body: Body,
    /// The body as exact JSON, when it is JSON.
    pub json: Option<Json>,
}

impl KeptRecord {
    /// Keeps a capture record.
    pub fn new(record: &CaptureRecord) -> Option<Self> {
        let json = record
            .response
            .body
            .bytes()
            .and_then(|bytes| rea_plugin_api::json::parse(&bytes).ok());
        Some(Self {
            ordinal: record.ordinal,
            path: record.path.clone()?,
            query: record.query.clone(),
            status: record.response.status,
            media_type: record.response.media_type.clone(),
            body: record.response.body.clone(),
            json,
        })
    }

    fn provenance(&self, evidence_id: &str, exact_match: bool) -> ReplayProvenance {
        let recorded_path = utf8_prefix(&self.path, DISPLAY_BUDGET);
        let mut line_truncated = recorded_path.len() < self.path.len();
        let recorded_query = self
            .query
            .as_ref()
            .and_then(|query| query.raw.as_ref())
            .map(|raw| {
                let whole = format!("?{raw}");
                let shown = utf8_prefix(&whole, DISPLAY_BUDGET).to_owned();
                line_truncated |= shown.len() < whole.len();
                shown
            });
        ReplayProvenance {
            record_ordinal: self.ordinal,
            evidence_id: evidence_id.to_owned(),
            exact_match,
            recorded_path: recorded_path.to_owned(),
            recorded_query,
            recorded_line_truncated: line_truncated,
            body_recorded: true,
            body_encoding: rea_manifest::BodyEncoding::Utf8,
            truncated: false,
        }
    }

    fn content_type(&self) -> (Option<String>, bool) {
        match &self.media_type {
            Some(media_type) => {
                let shown = utf8_prefix(media_type, DISPLAY_BUDGET);
                (Some(shown.to_owned()), shown.len() < media_type.len())
            }
            None => (None, false),
        }
    }

    /// The record as replay answers it.
    pub fn replay_answer(&self, evidence_id: &str, exact_match: bool) -> ReplayAnswer {
        let interpreted = interpret(&self.body, self.media_type.as_deref());
        let (content_type, content_type_truncated) = self.content_type();
        let mut replay = self.provenance(evidence_id, exact_match);
        replay.body_recorded = interpreted.recorded;
        replay.body_encoding = interpreted.encoding;
        replay.truncated = interpreted.truncated;
        ReplayAnswer {
            status: (self.status != 0).then_some(self.status),
            content_type,
            content_type_truncated,
            body: interpreted.body,
            replay,
        }
    }
}

/// The `state` member of an answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum StateSource {
    /// Rendered from the state.
    State {
        /// Always `state`.
        source: &'static str,
        /// The entity, collection or document path, or `missing`.
        view: String,
        /// For lists: `all`, `recorded` or `query`.
        #[serde(skip_serializing_if = "Option::is_none")]
        membership: Option<&'static str>,
    },
    /// A served write.
    Write {
        /// Always `state`.
        source: &'static str,
        /// `create`, `update`, `delete` or `document-write`.
        view: &'static str,
        /// The collection (or document path) written.
        #[serde(skip_serializing_if = "Option::is_none")]
        collection: Option<String>,
        /// The entity written (the first, for a bulk write).
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// A bulk write's entities, in body order.
        #[serde(skip_serializing_if = "Option::is_none")]
        ids: Option<Vec<String>>,
    },
    /// Answered from the recording.
    Recording {
        /// Always `recording`.
        source: &'static str,
        /// Why.
        reason: String,
    },
}

impl StateSource {
    /// A state answer naming a path.
    pub fn state(view: impl Into<String>, membership: Option<&'static str>) -> Self {
        Self::State {
            source: "state",
            view: view.into(),
            membership,
        }
    }

    /// A recording answer with its reason.
    pub fn recording(reason: impl Into<String>) -> Self {
        Self::Recording {
            source: "recording",
            reason: reason.into(),
        }
    }
}

#[derive(Serialize)]
struct StateAnswer<'a> {
    status: Option<u16>,
    content_type: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    content_type_truncated: bool,
    body: &'a Json,
    replay: ReplayProvenance,
    state: &'a StateSource,
}

/// A tool error result: `{"error": {"code", "message", …}}`.
pub fn tool_error(code: &str, message: impl Into<String>) -> ToolAnswer {
    ToolAnswer::error(json!({ "code": code, "message": message.into() }))
}

/// A state answer rendered into a base record; a body over [`STATE_BODY_LIMIT`] is a
/// `resource_constraint` tool error, never cut.
pub fn state_answer(
    base: &KeptRecord,
    body: &Json,
    evidence_id: &str,
    exact_match: bool,
    source: &StateSource,
) -> ToolAnswer {
    let size = body.to_canonical_vec().len();
    if size > STATE_BODY_LIMIT {
        return ToolAnswer::error(json!({
            "code": "resource_constraint",
            "message": format!("the answer rendered from the state takes {size} bytes of JSON, over the {STATE_BODY_LIMIT}-byte reply limit; read a smaller page"),
            "data": {"reply_bytes": size, "max_reply_bytes": STATE_BODY_LIMIT},
        }));
    }
    let (content_type, content_type_truncated) = base.content_type();
    let answer = StateAnswer {
        status: (base.status != 0).then_some(base.status),
        content_type,
        content_type_truncated,
        body,
        replay: base.provenance(evidence_id, exact_match),
        state: source,
    };
    ToolAnswer::text(serde_json::to_string(&answer).unwrap_or_else(|_| "null".to_owned()))
}

/// A replayed answer with its `state` member added.
pub fn recording_answer(answer: &ReplayAnswer, source: &StateSource) -> ToolAnswer {
    let text = answer.to_json_string();
    let state = serde_json::to_string(source).unwrap_or_else(|_| "null".to_owned());
    let spliced = match text.strip_suffix('}') {
        Some(open) => format!("{open},\"state\":{state}}}"),
        None => text,
    };
    ToolAnswer::text(spliced)
}

/// The kept records, by ordinal.
pub type KeptRecords = BTreeMap<u64, KeptRecord>;

/// The answer document of a tool answer, parsed (tests and the agreement report read it).
pub fn parse_answer(answer: &ToolAnswer) -> Value {
    serde_json::from_str(&answer.text).unwrap_or(Value::Null)
}

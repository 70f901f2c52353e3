//! What the state answers a tool call, typed: [`StateAnswer`].
//!
//! A rendered answer is `{status, content_type, body, replay, state}`: the base record's status
//! and content type, the body rendered from the state, the base record's `replay` provenance with
//! `truncated: false`, and `state: {"source": "state", "view": …}`. A recorded answer is replay's
//! answer with `state: {"source": "recording", "reason": …}` added (or, for a missing entity,
//! `state.view: "missing"`). Either is spelled as compact JSON with the body's member order and
//! number lexemes kept; a [`ToolError`] as `{"error": {"code", "message", "data"?}}`. How a
//! transport carries an answer (an MCP tool result, `isError`) is not this crate's concern.

use std::collections::BTreeMap;

use rea_manifest::body::interpret;
use rea_manifest::display::{DISPLAY_BUDGET, utf8_prefix};
use rea_manifest::{ReplayAnswer, ReplayProvenance, ToolCallError};
use rea_plugin_api::contracts::capture::{Body, CaptureRecord, CompactString, RecordQuery};
use rea_plugin_api::json::Json;
use serde::Serialize;
use serde_json::{Map, Value, json};

/// The most bytes of JSON a state answer's body may take.
pub const STATE_BODY_LIMIT: usize = rea_manifest::REPLY_BODY_LIMIT;

/// A record a state answer may be based on: its request line and response.
#[derive(Debug, Clone)]
pub struct KeptRecord {
    /// The ordinal.
    pub ordinal: u64,
    /// The recorded path.
    pub path: CompactString,
    /// The recorded query.
    pub query: Option<RecordQuery>,
    /// The status (0: none recorded).
    pub status: u16,
    /// The media type.
    pub media_type: Option<CompactString>,
    /// The recorded body.
    pub body: Body,
    /// The body as exact JSON, when it is JSON: read the first time an answer needs it
    /// ([`KeptRecord::json`]), so a server starts without parsing every kept body.
    json: std::sync::OnceLock<Option<Json>>,
}

impl KeptRecord {
    /// Keeps a capture record.
    pub fn new(record: &CaptureRecord) -> Option<Self> {
        Some(Self {
            ordinal: record.ordinal,
            path: record.path.clone()?,
            query: record.query.clone(),
            status: record.response.status,
            media_type: record.response.media_type.clone(),
            body: record.response.body.clone(),
            json: std::sync::OnceLock::new(),
        })
    }

    /// The body as exact JSON, when it is JSON.
    pub fn json(&self) -> Option<&Json> {
        self.json
            .get_or_init(|| {
                self.body
                    .bytes()
                    .and_then(|bytes| rea_plugin_api::json::parse(&bytes).ok())
            })
            .as_ref()
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
    /// A withheld write answered with its recording (`[serve] withheld = "replay"`): the state
    /// did not change.
    WithheldWrite {
        /// Always `recording`.
        source: &'static str,
        /// Always `withheld-write`.
        reason: &'static str,
        /// Why the write is withheld (its plan's reason).
        withheld: String,
        /// Always `false`: the call changed no state.
        changed: bool,
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

    /// A withheld write's recording, with the reason its plan is withheld.
    pub fn withheld_write(withheld: impl Into<String>) -> Self {
        Self::WithheldWrite {
            source: "recording",
            reason: "withheld-write",
            withheld: withheld.into(),
            changed: false,
        }
    }
}

/// What the state answers one tool call: rendered from the state, a recorded answer, or a tool
/// error. How a transport carries it (an MCP tool result and its `isError`) is not the state's
/// concern: [`StateAnswer::to_json_string`] spells the answer document, [`StateAnswer::is_error`]
/// says whether the call failed.
#[derive(Debug, Clone)]
pub enum StateAnswer {
    /// Rendered from the state into a recorded answer's envelope.
    Rendered(RenderedAnswer),
    /// A recorded answer as replay gives it, with the `state` member.
    Recorded(RecordedAnswer),
    /// The call was refused or failed.
    Error(ToolError),
    /// A read the state does not model, refused rather than answered by another request's
    /// recording or by one from before a served write ([`crate::recorded`]).
    NotModelled(crate::recorded::NotModelled),
}

/// An answer rendered from the state: the base record's status and content type, the body
/// rendered from the state, the base record's provenance, and the `state` member.
#[derive(Debug, Clone, Serialize)]
pub struct RenderedAnswer {
    /// The base record's status (`null` when none was recorded).
    pub status: Option<u16>,
    /// The base record's media type, cut to 1 KiB.
    pub content_type: Option<String>,
    /// True when `content_type` was cut.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub content_type_truncated: bool,
    /// The body rendered from the state (member order and number lexemes kept).
    pub body: Json,
    /// The base record's provenance (`truncated: false`).
    pub replay: ReplayProvenance,
    /// What the state answered from.
    pub state: StateSource,
}

/// A recorded answer with the `state` member added.
#[derive(Debug, Clone)]
pub struct RecordedAnswer {
    /// Replay's answer.
    pub answer: ReplayAnswer,
    /// Why the recording answers (or, for a missing entity, `state.view: "missing"`).
    pub state: StateSource,
}

/// A tool error: `{"error": {"code", "message", "data"?}}`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolError {
    /// A stable code (`invalid_arguments`, `not_found`, `resource_constraint`, …).
    pub code: String,
    /// One sentence.
    pub message: String,
    /// Structured detail.
    pub data: Option<Value>,
}

impl ToolError {
    /// An error with a code and message.
    pub fn new(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            message: message.into(),
            data: None,
        }
    }

    /// The error object (`{"code", "message", "data"?}`).
    pub fn to_value(&self) -> Value {
        let mut error = Map::new();
        error.insert("code".to_owned(), Value::String(self.code.clone()));
        error.insert("message".to_owned(), Value::String(self.message.clone()));
        if let Some(data) = &self.data {
            error.insert("data".to_owned(), data.clone());
        }
        Value::Object(error)
    }
}

impl From<&ToolCallError> for ToolError {
    fn from(error: &ToolCallError) -> Self {
        Self::new(error.code(), error.to_string())
    }
}

impl StateAnswer {
    /// Whether the call failed.
    pub fn is_error(&self) -> bool {
        matches!(self, Self::Error(_) | Self::NotModelled(_))
    }

    /// Whether the call was refused as a read the state does not model: no answer from the
    /// state, so nothing a check of the state may compare.
    pub fn is_not_modelled(&self) -> bool {
        matches!(self, Self::NotModelled(_))
    }

    /// The answer document as compact JSON text: `{status, content_type, body, replay, state}`
    /// with the body's member order and number lexemes kept, or `{"error": {…}}`.
    pub fn to_json_string(&self) -> String {
        match self {
            Self::Rendered(answer) => {
                serde_json::to_string(answer).unwrap_or_else(|_| "null".to_owned())
            }
            Self::Recorded(recorded) => {
                let text = recorded.answer.to_json_string();
                let state =
                    serde_json::to_string(&recorded.state).unwrap_or_else(|_| "null".to_owned());
                match text.strip_suffix('}') {
                    Some(open) => format!("{open},\"state\":{state}}}"),
                    None => text,
                }
            }
            Self::Error(error) => json!({ "error": error.to_value() }).to_string(),
            Self::NotModelled(refusal) => {
                json!({ "error": refusal.to_tool_error().to_value() }).to_string()
            }
        }
    }

    /// The `state` member (none for an error).
    pub fn source(&self) -> Option<&StateSource> {
        match self {
            Self::Rendered(answer) => Some(&answer.state),
            Self::Recorded(recorded) => Some(&recorded.state),
            Self::Error(_) | Self::NotModelled(_) => None,
        }
    }

    /// Whether the state answered (rendered, a served write, or a missing entity), not a
    /// recording standing in for it.
    pub fn is_from_state(&self) -> bool {
        matches!(
            self.source(),
            Some(StateSource::State { .. } | StateSource::Write { .. })
        )
    }

    /// The answered status (none for an error).
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::Rendered(answer) => answer.status,
            Self::Recorded(recorded) => recorded.answer.status,
            Self::Error(_) | Self::NotModelled(_) => None,
        }
    }

    /// The answered body as a `serde_json` value, numbers as `serde_json` reads them (the write
    /// plans' confirmation compares recordings this way); none for an error.
    pub fn body_value(&self) -> Option<Value> {
        match self {
            Self::Rendered(answer) => Some(serde_json::to_value(&answer.body).unwrap_or_default()),
            Self::Recorded(recorded) => Some(recorded.answer.body.to_value()),
            Self::Error(_) | Self::NotModelled(_) => None,
        }
    }
}

impl From<ToolError> for StateAnswer {
    fn from(error: ToolError) -> Self {
        Self::Error(error)
    }
}

/// A tool error answer: `{"error": {"code", "message"}}`.
pub fn tool_error(code: &str, message: impl Into<String>) -> StateAnswer {
    StateAnswer::Error(ToolError::new(code, message))
}

/// A state answer rendered into a base record; a body over [`STATE_BODY_LIMIT`] is a
/// `resource_constraint` tool error, never cut.
pub fn state_answer(
    base: &KeptRecord,
    body: Json,
    evidence_id: &str,
    exact_match: bool,
    source: StateSource,
) -> StateAnswer {
    let size = body.to_canonical_vec().len();
    if size > STATE_BODY_LIMIT {
        return StateAnswer::Error(ToolError {
            data: Some(json!({"reply_bytes": size, "max_reply_bytes": STATE_BODY_LIMIT})),
            ..ToolError::new(
                "resource_constraint",
                format!(
                    "the answer rendered from the state takes {size} bytes of JSON, over the {STATE_BODY_LIMIT}-byte reply limit; read a smaller page"
                ),
            )
        });
    }
    let (content_type, content_type_truncated) = base.content_type();
    StateAnswer::Rendered(RenderedAnswer {
        status: (base.status != 0).then_some(base.status),
        content_type,
        content_type_truncated,
        body,
        replay: base.provenance(evidence_id, exact_match),
        state: source,
    })
}

/// A replayed answer with its `state` member added.
pub fn recording_answer(answer: ReplayAnswer, source: StateSource) -> StateAnswer {
    StateAnswer::Recorded(RecordedAnswer {
        answer,
        state: source,
    })
}

/// The kept records, by ordinal.
pub type KeptRecords = BTreeMap<u64, KeptRecord>;

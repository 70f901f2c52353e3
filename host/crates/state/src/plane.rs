//! The data plane's operations on the served state: `data/reset`, `data/add`, `data/get`, without
//! a transport.
//!
//! | Operation | Effect |
//! | --- | --- |
//! | `data/reset` | [`StateService::reset`] restores the derived state |
//! | `data/add` | [`read_part`] reads the one part of the params; an inline part's document is [`InlinePart::document`], a `file` part's `uri` is read by the server's data plane (`rea-backends`), and [`StateService::load`] replaces the whole state with the document once it is a valid `rea-state/v1` document |
//! | `data/get` | [`StateService::get_parts`]: `{"parts": [{"kind": "data", "data": <rea-state/v1 document>}]}` |
//!
//! `data/add` takes exactly one part: `{"kind": "data", "data": <document>}`, or
//! `{"kind": "file", "file": {"bytes": <base64 of UTF-8 JSON>} | {"uri": "file://…" | "https://…"}}`
//! with an optional `mimeType` (`application/json`) in `file`. Inline parts stay within the 4 MiB
//! request bound; any document within 32 MiB, and the state `data/get` would write back from it
//! too. A refusal is a [`DataPlaneError`]: malformed params and refused documents are
//! [`DataPlaneError::InvalidParams`] (a document problem names its JSON pointer), a file or
//! download failure [`DataPlaneError::Unavailable`] with its reason. A refused call changes
//! nothing. How a transport spells these errors (JSON-RPC codes) is the server's concern.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use rea_plugin_api::json::{Json, ParseOptions, parse_with};
use serde_json::{Value, json};

use crate::intake::{IntakeContext, read_document};
use crate::service::StateService;
use crate::store::MAX_STATE_BYTES;

/// The inline part bound: the 4 MiB request body bound.
pub const MAX_INLINE_BYTES: usize = 4 * 1024 * 1024;

/// The nesting a loaded document may have: the state's own structure plus 64 levels of values.
pub const MAX_DOCUMENT_DEPTH: usize = 128;

/// Why a data-plane call was refused; the state is unchanged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DataPlaneError {
    /// The params are malformed, or the document they give is refused.
    #[error("invalid params: {message}")]
    InvalidParams {
        /// One sentence, without caller content.
        message: String,
        /// Structured detail: where in the document, or the size limit.
        detail: Option<InvalidDetail>,
    },
    /// Reading or downloading the file part failed.
    #[error("{message}")]
    Unavailable {
        /// The category (`not-found`, `permission`, `timeout`, `http-status`, `network`, …).
        reason: &'static str,
        /// One sentence without the URL.
        message: String,
    },
    /// The state cannot be reported (an internal fault).
    #[error("internal error: {0}")]
    Internal(String),
}

/// The structured detail of refused params.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InvalidDetail {
    /// The JSON pointer of the problem inside the document.
    Path(String),
    /// The size limit the document exceeds, in bytes.
    MaxBytes(usize),
}

impl DataPlaneError {
    /// Refused params.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::InvalidParams {
            message: message.into(),
            detail: None,
        }
    }

    /// Refused params with structured detail.
    pub fn invalid_with(message: impl Into<String>, detail: InvalidDetail) -> Self {
        Self::InvalidParams {
            message: message.into(),
            detail: Some(detail),
        }
    }

    /// The structured detail as JSON (`{"path": …}`, `{"max_bytes": …}`, `{"reason": …}`).
    pub fn data(&self) -> Option<Value> {
        match self {
            Self::InvalidParams {
                detail: Some(InvalidDetail::Path(path)),
                ..
            } => Some(json!({ "path": path })),
            Self::InvalidParams {
                detail: Some(InvalidDetail::MaxBytes(limit)),
                ..
            } => Some(json!({ "max_bytes": limit })),
            Self::Unavailable { reason, .. } => Some(json!({ "reason": reason })),
            Self::InvalidParams { detail: None, .. } | Self::Internal(_) => None,
        }
    }
}

/// The one part of `data/add` params.
#[derive(Debug, Clone, PartialEq)]
pub enum AddPart {
    /// The document in the params.
    Inline(InlinePart),
    /// `{"kind": "file", "file": {"uri": …}}`: where the server reads the document.
    Uri(String),
}

/// A part carrying its document.
#[derive(Debug, Clone, PartialEq)]
pub enum InlinePart {
    /// `{"kind": "data", "data": …}`: the document inline.
    Data(Json),
    /// `{"kind": "file", "file": {"bytes": …}}`: the document as base64.
    Bytes(String),
}

fn invalid(message: impl Into<String>) -> DataPlaneError {
    DataPlaneError::invalid(message)
}

/// Checks that an object holds only the members a part allows.
fn only(
    part: &rea_plugin_api::json::Object,
    allowed: &[&str],
    problem: &str,
) -> Result<(), DataPlaneError> {
    if part.keys().any(|key| !allowed.contains(&key)) {
        return Err(invalid(problem));
    }
    Ok(())
}

/// Reads the one part of `data/add` params, given as strict JSON (number lexemes kept).
pub fn read_part(params: Option<&Json>) -> Result<AddPart, DataPlaneError> {
    let Some(Json::Object(params)) = params else {
        return Err(invalid("data/add takes {\"parts\": [one part]}"));
    };
    if params.keys().any(|key| key != "parts") {
        return Err(invalid("data/add takes only `parts`"));
    }
    let Some(Json::Array(parts)) = params.get("parts") else {
        return Err(invalid("`parts` must be an array of one part"));
    };
    let [part] = parts.as_slice() else {
        return Err(invalid(format!(
            "`parts` must hold exactly one part, not {}",
            parts.len()
        )));
    };
    let Json::Object(part) = part else {
        return Err(invalid("a part must be an object"));
    };
    match part.get("kind").and_then(Json::as_str) {
        Some("data") => {
            only(
                part,
                &["kind", "data", "metadata"],
                "a data part takes `kind` and `data`",
            )?;
            let data = part
                .get("data")
                .ok_or_else(|| invalid("a data part lacks `data`"))?;
            Ok(AddPart::Inline(InlinePart::Data(data.clone())))
        }
        Some("file") => {
            only(
                part,
                &["kind", "file", "metadata"],
                "a file part takes `kind` and `file`",
            )?;
            let Some(Json::Object(file)) = part.get("file") else {
                return Err(invalid("a file part's `file` must be an object"));
            };
            read_file_part(file)
        }
        _ => Err(invalid("a part's `kind` must be `data` or `file`")),
    }
}

/// Reads a file part's `file` member: `bytes` or `uri`, and an optional JSON `mimeType`.
fn read_file_part(file: &rea_plugin_api::json::Object) -> Result<AddPart, DataPlaneError> {
    only(
        file,
        &["bytes", "uri", "mimeType", "name"],
        "`file` takes `bytes` or `uri`, and `mimeType`",
    )?;
    if let Some(mime) = file.get("mimeType") {
        let essence = mime
            .as_str()
            .map(rea_manifest::media::essence)
            .unwrap_or_default();
        if essence != "application/json" {
            return Err(invalid("`mimeType`, when given, must be application/json"));
        }
    }
    match (file.get("bytes"), file.get("uri")) {
        (Some(Json::String(bytes)), None) => {
            Ok(AddPart::Inline(InlinePart::Bytes(bytes.to_string())))
        }
        (None, Some(Json::String(uri))) => Ok(AddPart::Uri(uri.to_string())),
        (Some(_), Some(_)) => Err(invalid("`file` carries either `bytes` or `uri`, not both")),
        _ => Err(invalid(
            "`file` must carry `bytes` (base64) or `uri` as a string",
        )),
    }
}

/// Parses a document's bytes (strict JSON within [`MAX_DOCUMENT_DEPTH`]).
pub fn parse_document(bytes: &[u8]) -> Result<Json, DataPlaneError> {
    parse_with(
        bytes,
        &ParseOptions::default().max_depth(MAX_DOCUMENT_DEPTH),
    )
    .map_err(|error| {
        let message = format!("the document is not valid JSON ({})", error.kind.code());
        if error.pointer.is_empty() {
            invalid(message)
        } else {
            DataPlaneError::invalid_with(message, InvalidDetail::Path(error.pointer))
        }
    })
}

/// Parses `data/add` params given as raw JSON text, by the strict reader so every number keeps
/// its lexeme (a `data` part's inexact numbers are then refused, never altered).
pub fn parse_params(params: &str) -> Result<Json, DataPlaneError> {
    parse_with(
        params.as_bytes(),
        &ParseOptions::default().max_depth(MAX_DOCUMENT_DEPTH + 4),
    )
    .map_err(|_| invalid("the params are not valid JSON"))
}

fn inline_too_large() -> DataPlaneError {
    invalid(format!(
        "an inline document is at most {MAX_INLINE_BYTES} bytes; send a larger state by uri"
    ))
}

impl InlinePart {
    /// The part's document (`data`, or `bytes` decoded and parsed), within [`MAX_INLINE_BYTES`].
    pub fn document(&self) -> Result<Json, DataPlaneError> {
        match self {
            InlinePart::Data(json) => {
                if json.to_canonical_vec().len() > MAX_INLINE_BYTES {
                    return Err(inline_too_large());
                }
                Ok(json.clone())
            }
            InlinePart::Bytes(text) => decode_bytes(text),
        }
    }
}

fn decode_bytes(text: &str) -> Result<Json, DataPlaneError> {
    if text.len() / 4 * 3 > MAX_INLINE_BYTES + 3 {
        return Err(inline_too_large());
    }
    let bytes = STANDARD
        .decode(text.as_bytes())
        .map_err(|_| invalid("`bytes` is not base64"))?;
    if bytes.len() > MAX_INLINE_BYTES {
        return Err(inline_too_large());
    }
    parse_document(&bytes)
}

impl StateService {
    /// `data/add`'s effect: replaces the whole live state with a valid `rea-state/v1` document
    /// whose `data/get` report stays within [`MAX_STATE_BYTES`]; a refused document changes
    /// nothing.
    pub fn load(&self, document: &Json) -> Result<(), DataPlaneError> {
        let context = IntakeContext {
            state_evidence_id: self.state_evidence_id(),
            derived: self.derived(),
            initial: self.initial(),
        };
        let mut state = read_document(document, &context).map_err(|error| {
            DataPlaneError::invalid_with(
                format!("{} (at {})", error.message, error.pointer),
                InvalidDetail::Path(error.pointer),
            )
        })?;
        let written = state
            .to_document(self.state_evidence_id(), &self.derived().types)
            .to_canonical_vec()
            .len();
        if written > MAX_STATE_BYTES {
            return Err(DataPlaneError::invalid_with(
                format!(
                    "the state data/get would report from this document takes {written} bytes, over the {MAX_STATE_BYTES}-byte limit a document may load"
                ),
                InvalidDetail::MaxBytes(MAX_STATE_BYTES),
            ));
        }
        state.keep_counters_of(self.initial());
        self.replace(state);
        Ok(())
    }

    /// `data/get`'s result: `{"parts": [{"kind": "data", "data": <rea-state/v1 document>}]}`.
    pub fn get_parts(&self) -> Result<Value, DataPlaneError> {
        let document = self.document();
        let data = document.to_serde_value().map_err(|_| {
            DataPlaneError::Internal("the state holds an inexact number".to_owned())
        })?;
        Ok(json!({ "parts": [{ "kind": "data", "data": data }] }))
    }
}

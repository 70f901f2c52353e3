//! The data plane of a state environment: `data/reset`, `data/add`, `data/get`.
//!
//! | Method | Result |
//! | --- | --- |
//! | `data/reset` | `{}` after restoring the derived state |
//! | `data/add` | `{}` after replacing the whole state with one valid `rea-state/v1` document |
//! | `data/get` | `{"parts": [{"kind": "data", "data": <rea-state/v1 document>}]}` |
//!
//! `data/add` takes exactly one part: `{"kind": "data", "data": <document>}`, or
//! `{"kind": "file", "file": {"bytes": <base64 of UTF-8 JSON>} | {"uri": "file://…" | "https://…"}}`
//! with an optional `mimeType` (`application/json`) in `file`. Inline parts stay within the 4 MiB
//! request bound; any document within 32 MiB, and the state `data/get` would write back from it
//! too. Malformed params and refused documents are `-32602` (a document problem names its JSON
//! pointer in the message and `error.data.path`); a file or download failure is `-32000` with
//! `error.data.reason`; a call cancelled by the server's stop or its caller's departure is
//! `-32000` with reason `cancelled`. A refused or cancelled call changes nothing. Other methods
//! are `-32601`.
//!
//! Calls arrive one at a time in arrival order (the server's queue), so a load is validated and
//! installed before the next call runs.

use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use rea_plugin_api::json::{Json, ParseOptions, parse_with};
use rea_serve::{BoxFuture, DataCall, DataPlane, RpcError};
use serde_json::{Value, json};

use crate::fetch::{FetchError, FetchOptions, client, download, file_path, is_download, read_file};
use crate::intake::{IntakeContext, read_document};
use crate::service::StateService;
use crate::store::MAX_STATE_BYTES;

/// The inline part bound: the 4 MiB request body bound.
pub const MAX_INLINE_BYTES: usize = 4 * 1024 * 1024;

/// The nesting a loaded document may have: the state's own structure plus 64 levels of values.
pub const MAX_DOCUMENT_DEPTH: usize = 128;

/// The data plane over a shared state service.
#[derive(Debug)]
pub struct StatePlane {
    service: Arc<StateService>,
    options: FetchOptions,
    client: Option<reqwest::Client>,
}

enum Part {
    Data(Json),
    Bytes(String),
    Uri(String),
}

fn invalid(message: impl Into<String>) -> RpcError {
    RpcError::new(
        RpcError::INVALID_PARAMS,
        format!("invalid params: {}", message.into()),
    )
}

fn from_fetch(error: FetchError) -> RpcError {
    match error {
        FetchError::Invalid(message) => invalid(message),
        FetchError::TooLarge { limit } => invalid(format!(
            "the document is larger than the {limit}-byte limit"
        ))
        .with_data(json!({ "max_bytes": limit })),
        FetchError::Failed { reason, message } => {
            RpcError::new(RpcError::SERVER_ERROR, message).with_data(json!({ "reason": reason }))
        }
    }
}

/// Reads the one part of `data/add` params, given as strict JSON (number lexemes kept).
fn read_part(params: Option<&Json>) -> Result<Part, RpcError> {
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
            if part
                .keys()
                .any(|key| !matches!(key, "kind" | "data" | "metadata"))
            {
                return Err(invalid("a data part takes `kind` and `data`"));
            }
            let data = part
                .get("data")
                .ok_or_else(|| invalid("a data part lacks `data`"))?;
            Ok(Part::Data(data.clone()))
        }
        Some("file") => {
            if part
                .keys()
                .any(|key| !matches!(key, "kind" | "file" | "metadata"))
            {
                return Err(invalid("a file part takes `kind` and `file`"));
            }
            let Some(Json::Object(file)) = part.get("file") else {
                return Err(invalid("a file part's `file` must be an object"));
            };
            if file
                .keys()
                .any(|key| !matches!(key, "bytes" | "uri" | "mimeType" | "name"))
            {
                return Err(invalid("`file` takes `bytes` or `uri`, and `mimeType`"));
            }
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
                (Some(Json::String(bytes)), None) => Ok(Part::Bytes(bytes.clone())),
                (None, Some(Json::String(uri))) => Ok(Part::Uri(uri.clone())),
                (Some(_), Some(_)) => {
                    Err(invalid("`file` carries either `bytes` or `uri`, not both"))
                }
                _ => Err(invalid(
                    "`file` must carry `bytes` (base64) or `uri` as a string",
                )),
            }
        }
        _ => Err(invalid("a part's `kind` must be `data` or `file`")),
    }
}

fn parse_document(bytes: &[u8]) -> Result<Json, RpcError> {
    parse_with(
        bytes,
        &ParseOptions::default().max_depth(MAX_DOCUMENT_DEPTH),
    )
    .map_err(|error| {
        let message = format!("the document is not valid JSON ({})", error.kind.code());
        let refusal = invalid(message);
        if error.pointer.is_empty() {
            refusal
        } else {
            refusal.with_data(json!({ "path": error.pointer }))
        }
    })
}

impl StatePlane {
    /// The data plane of a state service, downloading with the default options.
    pub fn new(service: Arc<StateService>) -> Self {
        Self::with_options(service, FetchOptions::default())
    }

    /// The data plane with explicit download options (tests shorten the time limit or serve
    /// documents over loopback HTTP).
    pub fn with_options(service: Arc<StateService>, options: FetchOptions) -> Self {
        let client = client(&options).ok();
        Self {
            service,
            options,
            client,
        }
    }

    /// The shared state service.
    pub fn service(&self) -> &Arc<StateService> {
        &self.service
    }

    async fn load(&self, part: Part) -> Result<Json, RpcError> {
        match part {
            Part::Data(json) => {
                let size = json.to_canonical_vec().len();
                if size > MAX_INLINE_BYTES {
                    return Err(invalid(format!(
                        "an inline document is at most {MAX_INLINE_BYTES} bytes; send a larger state by uri"
                    )));
                }
                Ok(json)
            }
            Part::Bytes(text) => {
                if text.len() / 4 * 3 > MAX_INLINE_BYTES + 3 {
                    return Err(invalid(format!(
                        "an inline document is at most {MAX_INLINE_BYTES} bytes; send a larger state by uri"
                    )));
                }
                let bytes = STANDARD
                    .decode(text.as_bytes())
                    .map_err(|_| invalid("`bytes` is not base64"))?;
                if bytes.len() > MAX_INLINE_BYTES {
                    return Err(invalid(format!(
                        "an inline document is at most {MAX_INLINE_BYTES} bytes; send a larger state by uri"
                    )));
                }
                parse_document(&bytes)
            }
            Part::Uri(uri) if uri.starts_with("file:") => {
                let path = file_path(&uri).map_err(from_fetch)?;
                let bytes = tokio::task::spawn_blocking(move || read_file(&path, MAX_STATE_BYTES))
                    .await
                    .map_err(|_| {
                        from_fetch(FetchError::Failed {
                            reason: "read-failed",
                            message: "the file could not be read".to_owned(),
                        })
                    })?
                    .map_err(from_fetch)?;
                parse_document(&bytes)
            }
            Part::Uri(uri) if is_download(&uri, &self.options) => {
                let Some(client) = &self.client else {
                    return Err(from_fetch(FetchError::Failed {
                        reason: "network",
                        message: "the HTTP client is unavailable".to_owned(),
                    }));
                };
                let bytes = download(client, &uri, MAX_STATE_BYTES)
                    .await
                    .map_err(from_fetch)?;
                parse_document(&bytes)
            }
            Part::Uri(_) => Err(invalid("a `uri` must be a file:// or https:// URL")),
        }
    }

    async fn add(&self, params: Option<&Json>) -> Result<Value, RpcError> {
        let part = read_part(params)?;
        let document = self.load(part).await?;
        let service = &self.service;
        let context = IntakeContext {
            state_evidence_id: service.state_evidence_id(),
            derived: service.derived(),
            initial: service.initial(),
        };
        let state = read_document(&document, &context).map_err(|error| {
            invalid(format!("{} (at {})", error.message, error.pointer))
                .with_data(json!({ "path": error.pointer }))
        })?;
        let written = state
            .to_document(service.state_evidence_id(), &service.derived().types)
            .to_canonical_vec()
            .len();
        if written > MAX_STATE_BYTES {
            return Err(invalid(format!(
                "the state data/get would report from this document takes {written} bytes, over the {MAX_STATE_BYTES}-byte limit a document may load"
            ))
            .with_data(json!({ "max_bytes": MAX_STATE_BYTES })));
        }
        service.replace(state);
        Ok(json!({}))
    }

    fn get(&self) -> Result<Value, RpcError> {
        let document = self.service.document();
        let data = document.to_serde_value().map_err(|_| {
            RpcError::new(-32603, "internal error: the state holds an inexact number")
        })?;
        Ok(json!({ "parts": [{ "kind": "data", "data": data }] }))
    }

    /// `data/add` with its params as raw JSON text, read by the strict reader so every number
    /// keeps its lexeme (a `data` part's inexact numbers are then refused, never altered).
    pub async fn add_raw(&self, params: &str) -> Result<Value, RpcError> {
        let params = parse_with(
            params.as_bytes(),
            &ParseOptions::default().max_depth(MAX_DOCUMENT_DEPTH + 4),
        )
        .map_err(|_| invalid("the params are not valid JSON"))?;
        self.add(Some(&params)).await
    }

    /// Runs one call (the server has queued it behind every earlier call).
    pub async fn run(&self, call: DataCall) -> Result<Value, RpcError> {
        let cancel = call.cancel.clone();
        let work = async {
            match call.method.as_str() {
                "data/reset" => {
                    self.service.reset();
                    Ok(json!({}))
                }
                "data/get" => self.get(),
                "data/add" => match call.params_raw.as_deref() {
                    // Over the wire the params text is read by the strict reader, so every
                    // number spelling is checked as written.
                    Some(raw) => self.add_raw(raw).await,
                    // An in-process call has only the parsed value (its numbers are native).
                    None => {
                        let params = call.params.as_ref().map(Json::from_serde_value);
                        self.add(params.as_ref()).await
                    }
                },
                other => Err(RpcError::method_not_found(other)),
            }
        };
        tokio::select! {
            biased;
            () = cancel.cancelled() => Err(RpcError::cancelled()),
            result = work => result,
        }
    }
}

impl DataPlane for StatePlane {
    fn handle(&self, call: DataCall) -> BoxFuture<'_, Result<Value, RpcError>> {
        Box::pin(self.run(call))
    }

    fn state_report(&self) -> Value {
        json!({ "served": true, "evidence_id": self.service.state_evidence_id() })
    }
}

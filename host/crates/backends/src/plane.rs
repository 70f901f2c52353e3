//! The data plane of a state environment over JSON-RPC: `data/reset`, `data/add`, `data/get`
//! (what each does is [`rea_state::plane`]'s), with the transport's part here.
//!
//! | Method | Result |
//! | --- | --- |
//! | `data/reset` | `{}` after restoring the derived state |
//! | `data/add` | `{}` after replacing the whole state with one valid `rea-state/v1` document |
//! | `data/get` | `{"parts": [{"kind": "data", "data": <rea-state/v1 document>}]}` |
//!
//! A `file` part's `uri` is read here ([`crate::fetch`]: a local `file://` file, or an
//! `https://` download). Errors ([`rpc_error`]): malformed params and refused documents are
//! `-32602` (a document problem names its JSON pointer in the message and `error.data.path`, a
//! size limit `error.data.max_bytes`); a file or download failure is `-32000` with
//! `error.data.reason`; a state that cannot be reported is `-32603`; a call cancelled by the
//! server's stop or its caller's departure is `-32000` with reason `cancelled`. A refused or
//! cancelled call changes nothing. Other methods are `-32601`.
//!
//! Calls arrive one at a time in arrival order (the server's queue), so a load is validated and
//! installed before the next call runs.

use std::sync::Arc;

use rea_plugin_api::json::Json;
use rea_serve::{BoxFuture, DataCall, DataPlane, RpcError};
use rea_state::plane::{
    AddPart, DataPlaneError, InvalidDetail, parse_document, parse_params, read_part,
};
use rea_state::service::StateService;
use rea_state::store::MAX_STATE_BYTES;
use serde_json::{Value, json};

use crate::fetch::{
    FetchError, FetchOptions, checked_client, download, file_path, is_download, read_file,
};

/// A data-plane refusal as its JSON-RPC error.
pub fn rpc_error(error: &DataPlaneError) -> RpcError {
    let code = match error {
        DataPlaneError::InvalidParams { .. } => RpcError::INVALID_PARAMS,
        DataPlaneError::Unavailable { .. } => RpcError::SERVER_ERROR,
        DataPlaneError::Internal(_) => RpcError::INTERNAL_ERROR,
    };
    let rpc = RpcError::new(code, error.to_string());
    match error.data() {
        Some(data) => rpc.with_data(data),
        None => rpc,
    }
}

impl From<FetchError> for DataPlaneError {
    fn from(error: FetchError) -> Self {
        match error {
            FetchError::Invalid(message) => DataPlaneError::invalid(message),
            FetchError::TooLarge { limit } => DataPlaneError::invalid_with(
                format!("the document is larger than the {limit}-byte limit"),
                InvalidDetail::MaxBytes(limit),
            ),
            FetchError::Failed { reason, message } => {
                DataPlaneError::Unavailable { reason, message }
            }
        }
    }
}

/// The data plane over a shared state service.
#[derive(Debug)]
pub struct StatePlane {
    service: Arc<StateService>,
    options: FetchOptions,
}

impl StatePlane {
    /// The data plane of a state service, downloading with the default options.
    pub fn new(service: Arc<StateService>) -> Self {
        Self::with_options(service, FetchOptions::default())
    }

    /// The data plane with explicit download options (tests shorten the time limit or serve
    /// documents over loopback HTTP).
    pub fn with_options(service: Arc<StateService>, options: FetchOptions) -> Self {
        Self { service, options }
    }

    /// The shared state service.
    pub fn service(&self) -> &Arc<StateService> {
        &self.service
    }

    /// The document a `uri` part names: a local file, or a download.
    async fn fetch(&self, uri: &str) -> Result<Json, DataPlaneError> {
        if uri.starts_with("file:") {
            let path = file_path(uri)?;
            self.options.allow.check_file(&path)?;
            let bytes = tokio::task::spawn_blocking(move || read_file(&path, MAX_STATE_BYTES))
                .await
                .map_err(|_| FetchError::Failed {
                    reason: "read-failed",
                    message: "the file could not be read".to_owned(),
                })??;
            return parse_document(&bytes);
        }
        if !is_download(uri, &self.options) {
            return Err(DataPlaneError::invalid(
                "a `uri` must be a file:// or https:// URL",
            ));
        }
        let client = checked_client(uri, &self.options).await?;
        let bytes = download(&client, uri, MAX_STATE_BYTES).await?;
        parse_document(&bytes)
    }

    async fn add(&self, params: Option<&Json>) -> Result<Value, DataPlaneError> {
        let document = match read_part(params)? {
            AddPart::Inline(part) => part.document()?,
            AddPart::Uri(uri) => self.fetch(&uri).await?,
        };
        self.service.load(&document)?;
        Ok(json!({}))
    }

    /// `data/add` with its params as raw JSON text, read by the strict reader so every number
    /// keeps its lexeme (a `data` part's inexact numbers are then refused, never altered).
    pub async fn add_raw(&self, params: &str) -> Result<Value, RpcError> {
        let params = parse_params(params).map_err(|error| rpc_error(&error))?;
        self.add(Some(&params))
            .await
            .map_err(|error| rpc_error(&error))
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
                "data/get" => self.service.get_parts().map_err(|error| rpc_error(&error)),
                "data/add" => match call.params_raw.as_deref() {
                    // Over the wire the params text is read by the strict reader, so every
                    // number spelling is checked as written.
                    Some(raw) => self.add_raw(raw).await,
                    // An in-process call has only the parsed value (its numbers are native).
                    None => {
                        let params = call.params.as_ref().map(Json::from_serde_value);
                        self.add(params.as_ref())
                            .await
                            .map_err(|error| rpc_error(&error))
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

//! `rea-plugin-browser-scenario`: the browser-scenario capture extractor.
//!
//! Its input is a recorded browser session (`rea-browser-session/v1`,
//! [`rea_plugin_api::contracts::session`]), which `rea capture-browser-scenario` collects from the
//! browser with every declared secret already replaced by its marker and authentication header
//! values dropped. It pairs the session's network events into transactions
//! ([`transactions`]) and answers one [`CaptureRecord`] per transaction it can attribute to a
//! single request and response, in request order, the ordinal being the record's position: the
//! same records the HAR extractor gives for the same traffic, so nothing after it knows which
//! extractor ran. The session document itself is the extraction's `container`, so every event
//! stays in the capture Evidence, including those no record represents.
//!
//! Left unrepresented (each kind listed as a limitation about the whole capture): a transaction
//! whose URL carried a secret marker (it is not templated), one the events do not attribute to a
//! single request and response (no request event, two, or no response), and a request to a URL
//! that is not `http` or `https`.
//!
//! [`CaptureRecord`]: rea_plugin_api::contracts::capture::CaptureRecord

mod record;
pub mod transactions;

use rea_plugin_api::contracts::SCHEMA_VERSION;
use rea_plugin_api::contracts::capture::{ExtractRequest, Extraction};
use rea_plugin_api::contracts::session::{
    EVENTS_POINTER, INPUT_KIND, RecordedSession, SESSION_SCHEMA,
};
use rea_plugin_api::json::{self, ParseOptions};
use rea_plugin_api::{CaptureExtractor, Plugin, PluginError, StageInfo};

use rea_plugin_api::contracts::capture::Limitations;

/// The plugin's name, and the name of its one capture stage.
pub const NAME: &str = "browser-scenario";

/// The largest session accepted: 64 MiB (the default total event budget is 16 MiB of charged
/// allocation; a session raising it may be larger).
pub const MAX_INPUT_BYTES: usize = 64 * 1024 * 1024;

rea_plugin_api::plugin_root_module! {
    /// The root module of the browser-scenario plugin (the built-in and the cdylib export the
    /// same one).
    pub fn root_module() = Plugin::new(NAME, env!("CARGO_PKG_VERSION")).capture(
        StageInfo::new(NAME, "Reads a browser session recorded by `rea capture-browser-scenario` into capture records")
            .inputs([INPUT_KIND]),
        BrowserScenarioExtractor,
    );
}

rea_plugin_api::submit_builtin!(root_module);

/// The browser-scenario extractor behind the plugin contract.
#[derive(Debug, Clone, Copy, Default)]
pub struct BrowserScenarioExtractor;

impl CaptureExtractor for BrowserScenarioExtractor {
    fn extract(&self, request: &ExtractRequest, bytes: &[u8]) -> Result<Extraction, PluginError> {
        extract(request, bytes)
    }
}

/// Extracts every attributable transaction of a recorded session, or refuses it.
pub fn extract(request: &ExtractRequest, bytes: &[u8]) -> Result<Extraction, PluginError> {
    if request.input_kind != INPUT_KIND {
        return Err(refusal(
            "unsupported_target",
            "input",
            format!(
                "the browser-scenario extractor reads `{INPUT_KIND}` inputs, not `{}`",
                request.input_kind
            ),
            None,
        ));
    }
    if !request.sensitive_values.is_empty() {
        return Err(refusal(
            "unsupported_target",
            "input",
            "a recorded browser session takes no sensitive-value declarations: declare secrets in the scenario, which replaces them by markers while recording".to_owned(),
            None,
        ));
    }
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(refusal(
            "resource_constraint",
            "resource",
            format!(
                "the session has {} bytes, more than the {MAX_INPUT_BYTES}-byte (64 MiB) budget",
                bytes.len()
            ),
            None,
        ));
    }
    let document = json::parse_with(bytes, &ParseOptions::default()).map_err(|error| {
        refusal(
            "invalid_request",
            "input",
            format!("the session is not JSON: {}", error.describe()),
            Some(error.pointer.clone()),
        )
    })?;
    let session: RecordedSession = serde_json::from_slice(bytes).map_err(|error| {
        refusal(
            "invalid_request",
            "input",
            format!("the session is not a `{SESSION_SCHEMA}` document: {error}"),
            None,
        )
    })?;
    if session.schema != SESSION_SCHEMA {
        return Err(refusal(
            "unsupported_target",
            "input",
            format!("only `{SESSION_SCHEMA}` sessions are read"),
            Some("/schema".to_owned()),
        ));
    }
    let container = serde_json::value::RawValue::from_string(document.to_canonical_string())
        .map_err(|error| {
            PluginError::new(
                "internal_error",
                format!("the session did not serialize: {error}"),
            )
        })?;
    let mut limitations = Limitations::default();
    let mut redactions = Vec::new();
    let records = record::records(&session, &mut redactions, &mut limitations);
    Ok(Extraction {
        container,
        limitations: limitations.into_list(),
        records,
        records_pointer: EVENTS_POINTER.to_owned(),
        redactions,
        schema_version: SCHEMA_VERSION,
    })
}

fn refusal(
    code: &str,
    category: &str,
    message: impl Into<String>,
    pointer: Option<String>,
) -> PluginError {
    PluginError::with_detail(
        code,
        message,
        &serde_json::json!({"category": category, "pointer": pointer}),
    )
}

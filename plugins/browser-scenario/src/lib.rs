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

#[cfg(test)]
mod tests {
    use super::*;
    use rea_plugin_api::contracts::capture::Body;
    use rea_plugin_api::contracts::session::{
        Allocation, Content, EndEvent, EventLog, NetworkSelection, NormalizedResult, OmittedEvent,
        RecordedSession, RequestEvent, ResponseEvent, SessionBrowser, SessionCapture, SessionEvent,
        SessionLimits, SessionSecret,
    };

    fn request(id: &str, hop: u32, url: &str, timestamp: f64) -> SessionEvent {
        SessionEvent::Request(RequestEvent {
            body: Content::Absent,
            headers: Vec::new(),
            hop,
            method: "GET".to_owned(),
            observed: 1_700_000_000.0 + timestamp,
            request_id: id.to_owned(),
            resource_type: Some("Fetch".to_owned()),
            step_id: None,
            timestamp,
            url: url.to_owned(),
            wall_time: Some(1_700_000_000.0 + timestamp),
        })
    }

    fn response(id: &str, hop: u32, body: Content, timestamp: f64) -> SessionEvent {
        SessionEvent::Response(ResponseEvent {
            body,
            headers: Vec::new(),
            hop,
            media_type: Some("application/json".to_owned()),
            protocol: Some("http/1.1".to_owned()),
            request_id: id.to_owned(),
            status: 200,
            status_text: Some("OK".to_owned()),
            timestamp,
        })
    }

    fn finished(id: &str, timestamp: f64) -> SessionEvent {
        SessionEvent::Finished(EndEvent {
            request_id: id.to_owned(),
            timestamp,
        })
    }

    fn session(items: Vec<SessionEvent>, omitted: Vec<OmittedEvent>) -> Vec<u8> {
        let limits = SessionLimits {
            max_event_allocation_bytes: 4_194_304,
            max_network_body_allocation_bytes: 1_048_576,
            max_network_body_bytes: 65_536,
            max_total_event_allocation_bytes: 16_777_216,
        };
        let session = RecordedSession {
            browser: SessionBrowser {
                mode: "launch".to_owned(),
                product: None,
                protocol_version: None,
            },
            capture: SessionCapture {
                events: vec!["network".to_owned()],
                limits,
                network: NetworkSelection {
                    header_values: true,
                    request_body: true,
                    response_body: true,
                },
            },
            normalized_result: NormalizedResult {
                allocation: Allocation { charged_bytes: 0 },
                events: EventLog { items, omitted },
                steps: Vec::new(),
            },
            schema: SESSION_SCHEMA.to_owned(),
            secrets: vec![SessionSecret {
                marker: "[redacted:pw]".to_owned(),
                secret_id: "pw".to_owned(),
            }],
            start_origin: "http://app".to_owned(),
        };
        serde_json::to_vec(&session).unwrap()
    }

    fn extracted(bytes: &[u8]) -> Extraction {
        let request = ExtractRequest {
            input_kind: INPUT_KIND.to_owned(),
            sensitive_values: Vec::new(),
            schema_version: SCHEMA_VERSION,
        };
        extract(&request, bytes).expect("extracted")
    }

    #[test]
    fn unattributable_transactions_have_no_record() {
        let text = |text: &str| Content::Text {
            text: text.to_owned(),
        };
        let bytes = session(
            vec![
                // A response to a request sent before the scenario attached.
                response("early", 0, text("{}"), 0.5),
                request("one", 0, "http://app/a", 1.0),
                response("one", 0, text("[1]"), 1.1),
                finished("one", 1.2),
                // Two request events with one key: not one request and response.
                request("twice", 0, "http://app/b", 2.0),
                request("twice", 0, "http://app/b", 2.0),
                response("twice", 0, text("{}"), 2.1),
                // No response at all.
                request("lost", 0, "http://app/c", 3.0),
                request("secret", 0, "http://app/d?key=[redacted:pw]", 4.0),
                response("secret", 0, text("{}"), 4.1),
                request("two", 0, "http://app/e", 5.0),
                response("two", 0, text("[2]"), 5.1),
                finished("two", 5.3),
            ],
            Vec::new(),
        );
        let extraction = extracted(&bytes);
        let paths: Vec<&str> = extraction
            .records
            .iter()
            .filter_map(|record| record.path.as_deref())
            .collect();
        // contract: SCENARIO-017
        assert_eq!(paths, ["/a", "/e"]);
        // contract: SCENARIO-015
        assert_eq!(extraction.records[1].ordinal, 1);
        let codes: Vec<&str> = extraction
            .limitations
            .iter()
            .map(|limitation| limitation.code.as_str())
            .collect();
        for code in [
            "no-response",
            "response-without-request",
            "secret-in-url",
            "unattributed-transaction",
        ] {
            assert!(codes.contains(&code), "{code} in {codes:?}");
        }
        let record = &extraction.records[0];
        assert_eq!(record.pointer, "/normalized_result/events/items/1");
        assert!((record.duration_ms.unwrap() - 200.0).abs() < 1e-6);
        assert_eq!(
            record.started.as_ref().unwrap().recorded,
            "2023-11-14T22:13:21.000000Z"
        );
    }

    #[test]
    fn a_body_the_session_does_not_hold_replays_none() {
        let bytes = session(
            vec![
                request("cut", 0, "http://app/cut", 1.0),
                response(
                    "cut",
                    0,
                    Content::Unavailable {
                        reason: "max_network_body_allocation_bytes".to_owned(),
                    },
                    1.1,
                ),
                finished("cut", 1.2),
                request("dropped", 0, "http://app/dropped", 2.0),
                finished("dropped", 2.2),
            ],
            vec![OmittedEvent {
                charged_bytes: 9_000_000,
                event: "response".to_owned(),
                hop: 0,
                reason: "max_event_allocation_bytes".to_owned(),
                request_id: "dropped".to_owned(),
                status: Some(200),
                timestamp: 2.1,
            }],
        );
        let extraction = extracted(&bytes);
        assert_eq!(extraction.records.len(), 2);
        for record in &extraction.records {
            // contract: SCENARIO-009
            assert_eq!(record.response.body, Body::Missing);
            assert_eq!(record.response.status, 200);
        }
        let codes: Vec<&str> = extraction
            .limitations
            .iter()
            .map(|limitation| limitation.code.as_str())
            .collect();
        assert!(
            codes.contains(&"body-over-allocation") && codes.contains(&"response-event-omitted")
        );
    }

    #[test]
    fn the_stage_answers_what_extract_answers() {
        let bytes = session(
            vec![
                request("one", 0, "http://app/a", 1.0),
                response(
                    "one",
                    0,
                    Content::Text {
                        text: "[]".to_owned(),
                    },
                    1.1,
                ),
                finished("one", 1.2),
            ],
            Vec::new(),
        );
        let built_in = BrowserScenarioExtractor;
        let request = ExtractRequest {
            input_kind: INPUT_KIND.to_owned(),
            sensitive_values: Vec::new(),
            schema_version: SCHEMA_VERSION,
        };
        assert_eq!(
            CaptureExtractor::extract(&built_in, &request, &bytes).unwrap(),
            extract(&request, &bytes).unwrap()
        );
        let refused = extract(
            &ExtractRequest {
                input_kind: "har".to_owned(),
                ..request
            },
            &bytes,
        )
        .unwrap_err();
        assert_eq!(refused.code.as_str(), "unsupported_target");
    }
}

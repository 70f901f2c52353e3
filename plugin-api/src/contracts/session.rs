//! The recorded browser session (`rea-browser-session/v1`): what `rea capture-browser-scenario`
//! collected from the browser, handed to the `browser-scenario` capture extractor as its input
//! bytes (input kind [`INPUT_KIND`]).
//!
//! The host writes it after every declared secret was replaced by its marker ([`secret_marker`])
//! and every authentication header value was dropped, so the document holds no value the
//! scenario declared secret. The extractor pairs its network events into transactions and
//! answers one capture record per transaction it can attribute; the document itself becomes the
//! capture Evidence's `container`, so every event stays in the Evidence, including those no record
//! represents.
//!
//! ```text
//! schema              "rea-browser-session/v1"
//! browser             {mode: "launch" | "connect", product, protocol_version}
//! start_origin        the scenario's start origin (request steps go there)
//! capture             the selection: {events, network {request_body, response_body,
//!                     header_values}, limits {max_network_body_bytes, …}}
//! secrets             [{secret_id, marker}] (never a value)
//! normalized_result   {events {items, omitted}, steps, allocation {charged_bytes}}
//! ```
//!
//! Events are in the order the browser reported them. A transaction is one `request` event
//! (`request_id`, `hop`: a redirect makes a new hop of the same id) with the `response` event of
//! the same id and hop, ended by the `finished` or `failed` event of its id (the last hop), or by
//! the next hop's request. Times: `wall_time` is the browser's clock (seconds since the epoch),
//! `timestamp` its monotonic clock (seconds), `observed` the host's clock when the event arrived
//! (seconds since the epoch), used where the browser gave no wall time.
//!
//! Field order in these structs is alphabetical so serde writes keys sorted.

use serde::{Deserialize, Serialize};

/// The input kind of a recorded session.
pub const INPUT_KIND: &str = "browser-scenario";

/// The `schema` of a recorded session.
pub const SESSION_SCHEMA: &str = "rea-browser-session/v1";

/// The JSON pointer of the event list in the session.
pub const EVENTS_POINTER: &str = "/normalized_result/events/items";

/// The marker that stands for a declared secret wherever its value was seen.
pub fn secret_marker(secret_id: &str) -> String {
    format!("[redacted:{secret_id}]")
}

/// A recorded browser session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordedSession {
    /// How the browser was reached.
    pub browser: SessionBrowser,
    /// What the scenario selected.
    pub capture: SessionCapture,
    /// What was observed.
    pub normalized_result: NormalizedResult,
    /// Always [`SESSION_SCHEMA`].
    pub schema: String,
    /// The declared secrets, by id and marker.
    pub secrets: Vec<SessionSecret>,
    /// `scheme://host[:port]` of the scenario's start URL.
    pub start_origin: String,
}

/// The browser the session ran in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionBrowser {
    /// `launch` (rea started it with a temporary profile) or `connect` (an existing browser).
    pub mode: String,
    /// The browser's product string (`Chrome/…`), as it reported it.
    pub product: Option<String>,
    /// The DevTools protocol version it reported.
    pub protocol_version: Option<String>,
}

/// The scenario's capture selection, with every limit in force.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionCapture {
    /// The event families recorded (`network`).
    pub events: Vec<String>,
    /// The limits in force.
    pub limits: SessionLimits,
    /// What network events keep.
    pub network: NetworkSelection,
}

/// What network events keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkSelection {
    /// Header values (names are always kept).
    pub header_values: bool,
    /// Request bodies.
    pub request_body: bool,
    /// Response bodies.
    pub response_body: bool,
}

/// Body and allocation limits, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionLimits {
    /// The most allocation one content event may be charged.
    pub max_event_allocation_bytes: u64,
    /// The most allocation one body may be charged.
    pub max_network_body_allocation_bytes: u64,
    /// The most bytes of one body kept.
    pub max_network_body_bytes: u64,
    /// The most allocation all content events together may be charged.
    pub max_total_event_allocation_bytes: u64,
}

/// A declared secret: its id and the marker standing for its value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionSecret {
    /// What replaced the value ([`secret_marker`]).
    pub marker: String,
    /// The scenario's `secret_id`.
    pub secret_id: String,
}

/// What the session observed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NormalizedResult {
    /// What the content events were charged in all.
    pub allocation: Allocation,
    /// The network events.
    pub events: EventLog,
    /// One outcome per scenario step, in order.
    pub steps: Vec<StepOutcome>,
}

/// The allocation the content events were charged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Allocation {
    /// The sum of the kept content events' charges.
    pub charged_bytes: u64,
}

/// The network events kept, and those left out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventLog {
    /// The kept events, in the order the browser reported them.
    pub items: Vec<SessionEvent>,
    /// Content events left out whole, with why.
    pub omitted: Vec<OmittedEvent>,
}

/// One network event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum SessionEvent {
    /// A request the page sent (one hop of a redirect chain).
    Request(RequestEvent),
    /// The response to a request hop.
    Response(ResponseEvent),
    /// The last hop's response finished loading.
    Finished(EndEvent),
    /// The request failed (or was cancelled) before a response finished.
    Failed(FailedEvent),
}

/// A request hop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequestEvent {
    /// The request body.
    pub body: Content,
    /// Request headers as the browser sent them (values `None` when not selected or redacted).
    pub headers: Vec<SessionHeader>,
    /// The hop: 0, then one more per redirect.
    pub hop: u32,
    /// The method.
    pub method: String,
    /// The host's clock when the event arrived (seconds since the epoch).
    pub observed: f64,
    /// The browser's id of the request (shared by its hops).
    pub request_id: String,
    /// What the browser loaded it as (`Document`, `Fetch`, `XHR`, …).
    pub resource_type: Option<String>,
    /// The scenario step running when it was sent.
    pub step_id: Option<String>,
    /// The browser's monotonic clock (seconds).
    pub timestamp: f64,
    /// The URL (declared secrets replaced by their markers).
    pub url: String,
    /// The browser's wall clock (seconds since the epoch), when it reported one.
    pub wall_time: Option<f64>,
}

/// A response to a request hop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResponseEvent {
    /// The body as the browser exposes it.
    pub body: Content,
    /// Response headers (values `None` when not selected or redacted).
    pub headers: Vec<SessionHeader>,
    /// The hop it answers.
    pub hop: u32,
    /// The media type the browser reported for the body (`mimeType`, without parameters).
    pub media_type: Option<String>,
    /// The protocol (`http/1.1`, `h2`, …).
    pub protocol: Option<String>,
    /// The request's id.
    pub request_id: String,
    /// The status.
    pub status: u16,
    /// The status text.
    pub status_text: Option<String>,
    /// The browser's monotonic clock (seconds).
    pub timestamp: f64,
}

/// The end of a request: its last hop's body finished loading.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EndEvent {
    /// The request's id.
    pub request_id: String,
    /// The browser's monotonic clock (seconds).
    pub timestamp: f64,
}

/// A request that failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FailedEvent {
    /// Whether it was cancelled.
    pub canceled: bool,
    /// The browser's error text (`net::ERR_…`).
    pub error_text: String,
    /// The request's id.
    pub request_id: String,
    /// The browser's monotonic clock (seconds).
    pub timestamp: f64,
}

/// A header name and, when kept, its value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionHeader {
    /// The name.
    pub name: String,
    /// Why the value is absent: `authentication` (a standard authentication header) or
    /// `not-selected` (`header_values: false`); `None` when kept.
    pub redacted: Option<String>,
    /// The value (declared secrets replaced by their markers).
    pub value: Option<String>,
}

/// A body as the session kept it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Content {
    /// The message has no body.
    Absent,
    /// UTF-8 text (declared secrets replaced by their markers).
    Text {
        /// The text.
        text: String,
    },
    /// Bytes that are not UTF-8, as standard base64 with padding.
    Base64 {
        /// The bytes.
        base64: String,
        /// How many.
        bytes: u64,
    },
    /// The first `max_network_body_bytes` of a longer body, kept for reading only: it is not the
    /// body, so no record replays it.
    Truncated {
        /// The whole body's size.
        bytes: u64,
        /// The kept prefix as text (cut at a character boundary), or `None` for binary bodies.
        prefix: Option<String>,
    },
    /// A body that held a declared secret in bytes that are not text: redaction emptied it.
    Redacted,
    /// A body the session does not have, with why (`not-selected`, `max_network_body_allocation_bytes`,
    /// `not-exposed` (the browser had none to give, as for a redirect), `not-finished`).
    Unavailable {
        /// Why.
        reason: String,
    },
}

/// A content event left out whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OmittedEvent {
    /// What it would have been charged.
    pub charged_bytes: u64,
    /// `request` or `response`.
    pub event: String,
    /// The hop.
    pub hop: u32,
    /// The limit it would have exceeded: `max_event_allocation_bytes` or
    /// `max_total_event_allocation_bytes`.
    pub reason: String,
    /// The request's id.
    pub request_id: String,
    /// The status of an omitted response (not content: kept so the transaction still has one).
    pub status: Option<u16>,
    /// The browser's monotonic clock (seconds) of the omitted event.
    pub timestamp: f64,
}

/// What one scenario step did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepOutcome {
    /// The step's action.
    pub action: String,
    /// The status a request step's response had.
    pub response_status: Option<u16>,
    /// The value a `save` or `save_response` step stored.
    pub saved: Option<SavedValue>,
    /// The step's id.
    pub step_id: String,
}

/// A value a step saved for later steps.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SavedValue {
    /// The name later steps use (`{"source": "stored", "name"}`).
    pub name: String,
    /// Whether the scenario marked it `secret: true` (then `value` is its marker).
    pub secret: bool,
    /// The value as saved (a secret's marker when `secret`).
    pub value: String,
}

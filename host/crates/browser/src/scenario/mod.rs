//! The browser scenario (`rea-browser-scenario/v1`): what to drive and what to record.
//!
//! The shape is fixed by `schema.json` (JSON Schema 2020-12, shipped in this crate and checked
//! with the `jsonschema` crate); [`validate`] adds the checks a schema cannot make. A scenario is
//! parsed and validated whole before anything starts, every problem reported with its JSON
//! pointer.

mod validate;

use serde::Deserialize;
use serde_json::Value;

pub use validate::{Problem, ValidatedScenario, validate};

/// The scenario format this crate reads.
pub const SCENARIO_SCHEMA: &str = "rea-browser-scenario/v1";

/// The JSON Schema of a scenario.
pub const SCHEMA_JSON: &str = include_str!("schema.json");

/// The default `max_network_body_bytes`: 64 KiB.
pub const DEFAULT_MAX_BODY_BYTES: u64 = 64 * 1024;
/// The default `max_network_body_allocation_bytes`: 1 MiB.
pub const DEFAULT_MAX_BODY_ALLOCATION_BYTES: u64 = 1024 * 1024;
/// The default `max_event_allocation_bytes`: 4 MiB.
pub const DEFAULT_MAX_EVENT_ALLOCATION_BYTES: u64 = 4 * 1024 * 1024;
/// The default `max_total_event_allocation_bytes`: 16 MiB.
pub const DEFAULT_MAX_TOTAL_EVENT_ALLOCATION_BYTES: u64 = 16 * 1024 * 1024;

/// A scenario as written (shape checked by the schema first).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// `rea-browser-scenario/v1` when given.
    #[serde(default)]
    pub schema: Option<String>,
    /// How to reach the browser.
    pub browser: BrowserSpec,
    /// Where the session starts; its origin is where request steps go.
    pub start_url: UrlSpec,
    /// Origins besides the start URL's that `goto` may visit (and, in launch mode, the only hosts
    /// the browser resolves).
    #[serde(default)]
    pub allowed_origins: Vec<String>,
    /// Values read from environment variables and replaced by markers wherever they are seen.
    #[serde(default)]
    pub secrets: Vec<SecretSpec>,
    /// The steps, in order.
    pub actions: Vec<Action>,
    /// What to record.
    pub capture: CaptureSpec,
    /// Deadlines.
    #[serde(default)]
    pub timeouts: Timeouts,
}

/// How to reach the browser.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "mode", rename_all = "snake_case", deny_unknown_fields)]
pub enum BrowserSpec {
    /// Start Chromium headless with a temporary profile the command owns.
    Launch {
        /// The absolute path of the Chromium executable.
        executable_path: String,
    },
    /// Attach to a running Chromium's DevTools port on loopback; disconnect at the end.
    Connect {
        /// The DevTools port on `127.0.0.1`.
        port: u16,
    },
}

/// A URL with query pairs whose values may come from any source.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UrlSpec {
    /// An absolute `http` or `https` URL.
    pub url: String,
    /// Pairs appended to its query, in order.
    pub query: Vec<Pair>,
}

/// A name and a value from a source (a query pair or a header).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pair {
    /// The name.
    pub name: String,
    /// Where its value comes from.
    pub value: ValueSource,
}

/// Where a value comes from.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "source", rename_all = "snake_case", deny_unknown_fields)]
pub enum ValueSource {
    /// Written in the scenario.
    Literal {
        /// The value.
        value: String,
    },
    /// A declared secret.
    Secret {
        /// Its `secret_id`.
        secret_id: String,
    },
    /// A cookie of the browser's jar for the start origin, read when the step runs.
    Cookie {
        /// The cookie's name.
        name: String,
    },
    /// A value an earlier `save` or `save_response` stored.
    Stored {
        /// The saved value's name.
        name: String,
    },
}

/// A declared secret.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SecretSpec {
    /// The id steps name it by.
    pub secret_id: String,
    /// The environment variable holding its value.
    pub environment_variable: String,
}

/// An element, found by CSS selector.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Locator {
    /// Always `css`.
    pub kind: String,
    /// The selector.
    pub selector: String,
}

/// When a `goto` is done: at the page's `load` event (then the network must be quiet too).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WaitUntil {
    /// The `load` event.
    #[default]
    Load,
}

/// One step.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// Navigate.
    Goto {
        /// The step's id.
        step_id: String,
        /// Where to.
        destination: UrlSpec,
        /// When it is done.
        #[serde(default)]
        wait_until: WaitUntil,
    },
    /// Replace an input's value.
    Fill {
        /// The step's id.
        step_id: String,
        /// The input.
        locator: Locator,
        /// The value.
        value: ValueSource,
    },
    /// Press a key (in an element, or wherever the focus is).
    Press {
        /// The step's id.
        step_id: String,
        /// The element to focus first.
        #[serde(default)]
        locator: Option<Locator>,
        /// The key (`Enter`, `Tab`, `a`, …).
        key: String,
    },
    /// Click an element.
    Click {
        /// The step's id.
        step_id: String,
        /// The element.
        locator: Locator,
    },
    /// Wait for an element, or a fixed time.
    Wait {
        /// The step's id.
        step_id: String,
        /// The element to wait for.
        #[serde(default)]
        locator: Option<Locator>,
        /// How long to wait.
        #[serde(default)]
        milliseconds: Option<u64>,
    },
    /// Send one request to the start origin through the page's own `fetch`.
    Request {
        /// The step's id.
        step_id: String,
        /// The method.
        method: String,
        /// The path (and nothing before it) on the start origin.
        path: String,
        /// Query pairs appended to the path.
        #[serde(default)]
        query: Vec<Pair>,
        /// Request headers.
        #[serde(default)]
        headers: Vec<Pair>,
        /// A JSON body (sent with `Content-Type: application/json` unless a header says
        /// otherwise).
        #[serde(default)]
        json: Option<Value>,
        /// A text body from any source.
        #[serde(default)]
        body: Option<ValueSource>,
        /// The statuses that count as success (any when absent).
        #[serde(default)]
        expected_status: Option<Vec<u16>>,
        /// Save a value of the JSON response for later steps.
        #[serde(default)]
        save_response: Option<SaveResponse>,
    },
    /// Save a value of the page for later steps.
    Save {
        /// The step's id.
        step_id: String,
        /// The name later steps use.
        name: String,
        /// Where the value is.
        from: SaveSource,
        /// Treat the value as a secret: replaced by its marker wherever it is seen.
        #[serde(default)]
        secret: bool,
    },
}

impl Action {
    /// The step's id.
    pub fn step_id(&self) -> &str {
        match self {
            Action::Goto { step_id, .. }
            | Action::Fill { step_id, .. }
            | Action::Press { step_id, .. }
            | Action::Click { step_id, .. }
            | Action::Wait { step_id, .. }
            | Action::Request { step_id, .. }
            | Action::Save { step_id, .. } => step_id,
        }
    }

    /// The action's name.
    pub fn name(&self) -> &'static str {
        match self {
            Action::Goto { .. } => "goto",
            Action::Fill { .. } => "fill",
            Action::Press { .. } => "press",
            Action::Click { .. } => "click",
            Action::Wait { .. } => "wait",
            Action::Request { .. } => "request",
            Action::Save { .. } => "save",
        }
    }

    /// The name a step saves a value under, with whether it is secret and the pointer member.
    pub fn saves(&self) -> Option<(&str, bool, &'static str)> {
        match self {
            Action::Save { name, secret, .. } => Some((name, *secret, "name")),
            Action::Request {
                save_response: Some(save),
                ..
            } => Some((&save.name, save.secret, "save_response")),
            _ => None,
        }
    }
}

/// Save a value of a request step's JSON response.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SaveResponse {
    /// The name later steps use.
    pub name: String,
    /// The JSON pointer of a string or number in the response body.
    pub pointer: String,
    /// Treat the value as a secret.
    #[serde(default)]
    pub secret: bool,
}

/// Where a `save` step reads its value.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "source", rename_all = "snake_case", deny_unknown_fields)]
pub enum SaveSource {
    /// A cookie of the start origin.
    Cookie {
        /// Its name.
        name: String,
    },
    /// An element's text, or one of its attributes.
    Element {
        /// The element.
        locator: Locator,
        /// The attribute (the text when absent).
        #[serde(default)]
        attribute: Option<String>,
    },
    /// A `localStorage` item of the page.
    LocalStorage {
        /// Its key.
        key: String,
    },
}

/// What to record.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaptureSpec {
    /// The event families (`network`).
    pub events: Vec<String>,
    /// What network events keep.
    pub network: NetworkSpec,
    /// Body and allocation limits.
    #[serde(default)]
    pub limits: LimitsSpec,
}

/// What network events keep.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkSpec {
    /// Request bodies.
    pub request_body: bool,
    /// Response bodies.
    pub response_body: bool,
    /// Header values.
    pub header_values: bool,
}

/// Body and allocation limits as written (defaults applied by [`LimitsSpec::resolved`]).
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsSpec {
    /// The most bytes of one body kept (64 KiB).
    pub max_network_body_bytes: Option<u64>,
    /// The most allocation one body may be charged (1 MiB).
    pub max_network_body_allocation_bytes: Option<u64>,
    /// The most allocation one content event may be charged (4 MiB).
    pub max_event_allocation_bytes: Option<u64>,
    /// The most allocation all content events may be charged (16 MiB).
    pub max_total_event_allocation_bytes: Option<u64>,
}

impl LimitsSpec {
    /// The limits in force.
    pub fn resolved(&self) -> rea_plugin_api::contracts::session::SessionLimits {
        rea_plugin_api::contracts::session::SessionLimits {
            max_event_allocation_bytes: self
                .max_event_allocation_bytes
                .unwrap_or(DEFAULT_MAX_EVENT_ALLOCATION_BYTES),
            max_network_body_allocation_bytes: self
                .max_network_body_allocation_bytes
                .unwrap_or(DEFAULT_MAX_BODY_ALLOCATION_BYTES),
            max_network_body_bytes: self
                .max_network_body_bytes
                .unwrap_or(DEFAULT_MAX_BODY_BYTES),
            max_total_event_allocation_bytes: self
                .max_total_event_allocation_bytes
                .unwrap_or(DEFAULT_MAX_TOTAL_EVENT_ALLOCATION_BYTES),
        }
    }
}

/// Deadlines, in milliseconds.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Timeouts {
    /// How long Chromium may take to open its DevTools port (20 s).
    #[serde(default = "default_launch_ms")]
    pub launch_ms: u64,
    /// How long one step may take, a page load included (30 s).
    #[serde(default = "default_step_ms")]
    pub step_ms: u64,
    /// How long the whole scenario may take (10 min).
    #[serde(default = "default_scenario_ms")]
    pub scenario_ms: u64,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            launch_ms: default_launch_ms(),
            step_ms: default_step_ms(),
            scenario_ms: default_scenario_ms(),
        }
    }
}

fn default_launch_ms() -> u64 {
    20_000
}

fn default_step_ms() -> u64 {
    30_000
}

fn default_scenario_ms() -> u64 {
    600_000
}

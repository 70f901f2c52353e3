//! The structured refusal: one error shape for every command, tool and plugin failure.
//!
//! A refusal is `{code, category, message, pointer?, stage?, retryable?, data?}`. `code` is stable
//! and snake_case (`invalid_request`, `resource_constraint`, `configuration_invalid`,
//! `unsupported_target`, `access_denied`, `artifact_changed`, `cancelled`, …); `category` groups
//! codes (`input`, `unavailable`, `integrity_mismatch`, `resource`, `configuration`,
//! `cancelled`, `internal`); `pointer` is a JSON pointer into the input the refusal is about.
//! A refusal never carries a value the caller declared sensitive.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The `data` member naming a [`Refusal::missing_file`]'s path.
pub const MISSING_FILE: &str = "missing_file";

/// A structured refusal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[error("{code}: {message}")]
pub struct Refusal {
    /// Stable snake_case code.
    pub code: String,
    /// The code's group.
    pub category: String,
    /// One sentence.
    pub message: String,
    /// JSON pointer into the input, when the refusal is about one place.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub pointer: Option<String>,
    /// The stage that refused (`inspect_web_network_capture`, `environment-build`, …).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub stage: Option<String>,
    /// Whether the same call may succeed when repeated.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub retryable: Option<bool>,
    /// Structured detail.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub data: Option<Value>,
}

impl Refusal {
    /// A refusal with a code, category and message.
    pub fn new(
        code: impl Into<String>,
        category: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            code: code.into(),
            category: category.into(),
            message: message.into(),
            pointer: None,
            stage: None,
            retryable: None,
            data: None,
        }
    }

    /// Bad input: `invalid_request` in category `input`.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new("invalid_request", "input", message)
    }

    /// A named input file that does not exist: `invalid_request` in category `input` (an input
    /// failure), with `data.missing_file` naming it. Commands treat it as a usage mistake (exit 2,
    /// [`Refusal::is_missing_file`]): the path given is wrong, not the file's content.
    pub fn missing_file(shown: &str) -> Self {
        Self::invalid_request(format!("{shown}: no such file"))
            .with_data(serde_json::json!({ MISSING_FILE: shown }))
    }

    /// Whether this is a [`Refusal::missing_file`] refusal.
    pub fn is_missing_file(&self) -> bool {
        self.code == "invalid_request"
            && self
                .data
                .as_ref()
                .and_then(|data| data.get(MISSING_FILE))
                .is_some_and(Value::is_string)
    }

    /// A limit was exceeded: `resource_constraint` in category `resource`.
    pub fn resource_constraint(message: impl Into<String>) -> Self {
        Self::new("resource_constraint", "resource", message)
    }

    /// A configuration problem: `configuration_invalid` in category `configuration`.
    pub fn configuration_invalid(message: impl Into<String>) -> Self {
        Self::new("configuration_invalid", "configuration", message)
    }

    /// An input of a kind this stage does not handle: `unsupported_target` in category `input`.
    pub fn unsupported_target(message: impl Into<String>) -> Self {
        Self::new("unsupported_target", "input", message)
    }

    /// The operation was cancelled: `cancelled` in category `cancelled`.
    pub fn cancelled(message: impl Into<String>) -> Self {
        Self::new("cancelled", "cancelled", message)
    }

    /// A failure that is a bug in `rea` or a plugin: `internal_error` in category `internal`.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new("internal_error", "internal", message)
    }

    /// Sets the JSON pointer.
    pub fn at(mut self, pointer: impl Into<String>) -> Self {
        self.pointer = Some(pointer.into());
        self
    }

    /// Names the refusing stage.
    pub fn in_stage(mut self, stage: impl Into<String>) -> Self {
        self.stage = Some(stage.into());
        self
    }

    /// Marks whether the call may be retried.
    pub fn retryable(mut self, retryable: bool) -> Self {
        self.retryable = Some(retryable);
        self
    }

    /// Attaches structured detail.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// The refusal as one JSON line.
    pub fn to_json_line(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| format!("{{\"code\":\"{}\"}}", self.code))
    }

    /// The refusal as one human line: `rea: <code>: <message> (at <pointer>)`.
    pub fn to_text_line(&self) -> String {
        let mut line = format!("rea: {}: {}", self.code, self.message);
        if let Some(pointer) = &self.pointer {
            line.push_str(&format!(" (at {pointer})"));
        }
        line
    }
}

//! The extractor's refusals and how they cross the plugin boundary.
//!
//! Each becomes a [`PluginError`] whose `code` is the refusal code and whose `detail_json` is
//! `{"category": …, "pointer": …}` (`pointer` is `null` when the refusal is about the whole
//! input), so the host builds its structured refusal `{code, category, message, pointer}`. Every
//! declared sensitive value is replaced by [`SENSITIVE_MARKER`] in the message and the pointer
//! before anything leaves the plugin.

use rea_plugin_api::PluginError;

use crate::sensitive::Sensitive;

/// What replaces a sensitive value in a refusal.
pub const SENSITIVE_MARKER: &str = "<sensitive-value>";

/// Bad input: `invalid_request` in category `input`.
pub const INVALID_REQUEST: &str = "invalid_request";
/// A limit: `resource_constraint` in category `resource`.
pub const RESOURCE_CONSTRAINT: &str = "resource_constraint";
/// Another format or version: `unsupported_target` in category `input`.
pub const UNSUPPORTED_TARGET: &str = "unsupported_target";

/// A refusal inside the extractor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HarRefusal {
    code: &'static str,
    category: &'static str,
    message: String,
    pointer: Option<String>,
}

impl HarRefusal {
    pub(crate) fn input(message: impl Into<String>, pointer: Option<String>) -> Self {
        Self {
            code: INVALID_REQUEST,
            category: "input",
            message: message.into(),
            pointer,
        }
    }

    pub(crate) fn resource(message: impl Into<String>, pointer: Option<String>) -> Self {
        Self {
            code: RESOURCE_CONSTRAINT,
            category: "resource",
            message: message.into(),
            pointer,
        }
    }

    pub(crate) fn unsupported(message: impl Into<String>, pointer: Option<String>) -> Self {
        Self {
            code: UNSUPPORTED_TARGET,
            category: "input",
            message: message.into(),
            pointer,
        }
    }

    pub(crate) fn internal(message: impl Into<String>) -> Self {
        Self {
            code: "internal_error",
            category: "internal",
            message: message.into(),
            pointer: None,
        }
    }

    /// The refusal as a plugin error, with every sensitive value scrubbed.
    pub(crate) fn into_plugin_error(self, sensitive: &Sensitive) -> PluginError {
        let message = sensitive.scrub(&self.message);
        let pointer = self.pointer.map(|pointer| sensitive.scrub(&pointer));
        PluginError::with_detail(
            self.code,
            message,
            &serde_json::json!({"category": self.category, "pointer": pointer}),
        )
    }
}

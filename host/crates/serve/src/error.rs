//! The errors of this crate, each with its structured refusal.

use rea_evidence::Refusal;

/// Why the server could not start or stopped other than by a signal.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// A configuration value (flag or environment variable) is not usable; nothing was bound.
    #[error("{message}")]
    Configuration {
        /// The flag or variable (`ENVIRONMENT_NAME`, `MCP_PORT`, `--host`, …).
        setting: String,
        /// One sentence.
        message: String,
    },
    /// The host could not be resolved or the address could not be bound.
    #[error("cannot listen on {address}: {source}")]
    Bind {
        /// `host:port` as configured.
        address: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The listener failed after it was bound.
    #[error("the listener failed after binding: {message}")]
    ListenerFailed {
        /// What failed.
        message: String,
    },
    /// The backend's card does not list the tools `tools/list` advertises (a bug of the backend).
    #[error("the environment card disagrees with the tool catalog: {message}")]
    CatalogMismatch {
        /// Which tool and member differ.
        message: String,
    },
}

impl ServeError {
    /// A configuration error about one setting.
    pub fn configuration(setting: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Configuration {
            setting: setting.into(),
            message: message.into(),
        }
    }

    /// The structured refusal: `configuration_invalid`, `resource_constraint` (address in use,
    /// listener failure), `access_denied` (binding not permitted) or `internal_error`.
    pub fn refusal(&self) -> Refusal {
        let refusal = match self {
            Self::Configuration { setting, message } => {
                Refusal::configuration_invalid(message.clone())
                    .with_data(serde_json::json!({ "setting": setting }))
            }
            Self::Bind { address, source } => {
                let message = self.to_string();
                let refusal = match source.kind() {
                    std::io::ErrorKind::PermissionDenied => {
                        Refusal::new("access_denied", "unavailable", message)
                    }
                    std::io::ErrorKind::AddrInUse | std::io::ErrorKind::AddrNotAvailable => {
                        Refusal::resource_constraint(message)
                    }
                    _ => Refusal::configuration_invalid(message),
                };
                refusal.with_data(serde_json::json!({ "address": address }))
            }
            Self::ListenerFailed { .. } => Refusal::resource_constraint(self.to_string()),
            Self::CatalogMismatch { .. } => Refusal::internal(self.to_string()),
        };
        refusal.in_stage("environment-serve")
    }
}

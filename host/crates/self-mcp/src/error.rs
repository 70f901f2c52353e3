//! The crate's error type: what can go wrong while assembling the catalog, the scope or the server.
//!
//! Failures of a single tool call, search or render are not errors of this type: they are
//! [`rea_evidence::Refusal`]s returned to the caller, because they are answers, not faults.

use rea_evidence::Refusal;

/// Errors of `rea-self-mcp` outside a single request.
#[derive(Debug, thiserror::Error)]
pub enum SelfMcpError {
    /// A tool was registered twice under one name.
    #[error("the tool `{0}` is registered twice")]
    DuplicateTool(String),
    /// A tool name is not MCP-legal (1 to 128 characters of `[A-Za-z0-9_.-]`).
    #[error("the tool name `{0}` is not a legal MCP tool name")]
    IllegalToolName(String),
    /// A family name is not a lowercase identifier (`[a-z][a-z0-9_-]*`, at most 64 characters).
    #[error("the tool family `{0}` is not a legal family name")]
    IllegalFamilyName(String),
    /// The configured tool scope is invalid (unknown family, blank value).
    #[error("{0}")]
    Scope(Refusal),
    /// The server could not start or stopped abnormally.
    #[error("the MCP server failed: {0}")]
    Server(String),
    /// Reading or writing the transport failed.
    #[error("transport I/O failed: {0}")]
    Io(#[from] std::io::Error),
}

impl SelfMcpError {
    /// The structured refusal a command reports for this error.
    pub fn to_refusal(&self) -> Refusal {
        match self {
            Self::Scope(refusal) => refusal.clone(),
            Self::DuplicateTool(_) | Self::IllegalToolName(_) | Self::IllegalFamilyName(_) => {
                Refusal::configuration_invalid(self.to_string())
            }
            Self::Server(_) | Self::Io(_) => {
                Refusal::resource_constraint(self.to_string()).in_stage("mcp")
            }
        }
    }
}

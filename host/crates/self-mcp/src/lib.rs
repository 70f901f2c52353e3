//! `rea-self-mcp`: rea's own MCP server (`rea mcp`).
//!
//! * [`catalog`]: the tool catalog the host and plugins contribute to, each tool in a family;
//!   [`scope`] selects the advertised families (`REA_MCP_TOOL_FAMILIES`).
//! * [`tools`]: the tools rea contributes: guidance tools, and the capture and view stage tools
//!   registered from the stage implementations the host passes in.
//! * [`workflows`]: the six guided workflows, scoped by the tools in scope, and their renderer.
//! * [`completion`]: session-aware completion of workflow arguments from the [`ledger`].
//! * [`guidance`]: the guidance bundle rea ships and its search.
//! * [`identity`]: the scoped contracts, their digest and the `rea mcp doctor` report.
//! * [`server`]: the rmcp handler and the stdio and Streamable HTTP transports.

// `Refusal`, the house error every request answers with, is large; it is returned, not boxed,
// as in the other host crates.
#![allow(clippy::result_large_err)]

pub mod catalog;
pub mod completion;
pub mod error;
pub mod guidance;
pub mod identity;
pub mod ledger;
pub mod linked;
pub mod paths;
pub mod schema;
pub mod scope;
pub mod server;
pub mod text;
pub mod tools;
pub mod workflows;

pub use catalog::{ToolCatalog, ToolContext, ToolHandler, ToolOutcome, ToolSpec};
pub use error::SelfMcpError;
pub use guidance::BundleSource;
pub use identity::{ScopedContracts, doctor_report};
pub use ledger::{EvidenceDocument, EvidenceLedger};
pub use scope::ToolScope;
pub use server::{ScopeChange, SelfMcpServer};
pub use tools::stages::{
    CaptureInspection, CaptureRequest, SourceEvidence, StageImplementations, ViewProjection,
};

/// The catalog rea serves: the guidance tools, plus a tool for each stage implementation given.
pub fn standard_catalog(stages: &StageImplementations) -> Result<ToolCatalog, SelfMcpError> {
    let mut catalog = ToolCatalog::new();
    tools::guidance::register_guidance_tools(&mut catalog)?;
    tools::stages::register_stage_tools(&mut catalog, stages)?;
    Ok(catalog)
}

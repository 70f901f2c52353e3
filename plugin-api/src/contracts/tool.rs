//! The tool contract: MCP tools a plugin contributes to `rea mcp`'s catalog.
//!
//! A tool stage describes itself (the family the scope selects it by, a title, a description, the
//! JSON Schema of its arguments, MCP annotations) and answers calls whose arguments already passed
//! that schema. `rea mcp` advertises it beside its own tools; `REA_MCP_TOOL_FAMILIES` selects it by
//! its family like any other tool.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{current_schema_version, schema_versioned};

/// What a tool stage says about itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDescription {
    /// MCP annotations (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`).
    #[serde(default)]
    pub annotations: Map<String, Value>,
    /// What the tool does and returns.
    pub description: String,
    /// The family `REA_MCP_TOOL_FAMILIES` selects it by (lower-case letters, digits, `-`, `_`).
    pub family: String,
    /// The JSON Schema of the arguments: an object schema.
    pub input_schema: Map<String, Value>,
    /// Always [`super::SCHEMA_VERSION`].
    #[serde(default = "current_schema_version")]
    pub schema_version: u32,
    /// A short human title.
    pub title: String,
}

/// One call of a tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallRequest {
    /// The arguments, already checked against the tool's input schema.
    pub arguments: Map<String, Value>,
    /// Always [`super::SCHEMA_VERSION`].
    #[serde(default = "current_schema_version")]
    pub schema_version: u32,
}

/// What a tool answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallOutcome {
    /// The result document.
    pub result: Value,
    /// Always [`super::SCHEMA_VERSION`].
    #[serde(default = "current_schema_version")]
    pub schema_version: u32,
}

schema_versioned! {
    ToolDescription => "tool description",
    ToolCallRequest => "tool call request",
    ToolCallOutcome => "tool call outcome",
}

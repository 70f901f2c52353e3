//! Plugin tool stages in `rea mcp`'s catalog: each `tool` stage a loaded plugin provides becomes one
//! MCP tool, in the family the plugin declares, answered by calling the plugin through the ABI.

use std::sync::Arc;

use rea_evidence::Refusal;
use rea_plugin_api::StageKind;
use rea_registry::{Registry, StageCallError, ToolHandle};
use rea_self_mcp::{ToolCatalog, ToolContext, ToolHandler, ToolOutcome, ToolSpec};
use serde_json::{Map, Value};

/// Registers every tool stage of `registry`'s plugins in `catalog`. A plugin tool whose name or
/// family is not MCP-legal, or that clashes with a tool already in the catalog, is refused.
pub fn register_plugin_tools(
    catalog: &mut ToolCatalog,
    registry: &Registry,
) -> Result<(), Refusal> {
    for (plugin, stage) in registry.stages_of_kind(StageKind::Tool) {
        let handle = registry
            .tool_stage(&stage.name)
            .map_err(|error| Refusal::configuration_invalid(error.to_string()))?;
        let description = handle.describe().map_err(|error| {
            Refusal::configuration_invalid(format!(
                "plugin {} could not describe its tool {}: {error}",
                plugin.name, stage.name
            ))
        })?;
        let spec = ToolSpec {
            name: stage.name.clone(),
            family: description.family,
            title: description.title,
            description: description.description,
            input_schema: description.input_schema,
            annotations: description.annotations,
        };
        catalog
            .register(spec, Arc::new(PluginTool(handle)))
            .map_err(|error| {
                let mut refusal = error.to_refusal();
                refusal.message = format!("plugin {}: {}", plugin.name, refusal.message);
                refusal
            })?;
    }
    Ok(())
}

/// A plugin's tool stage as a catalog handler.
struct PluginTool(ToolHandle);

impl ToolHandler for PluginTool {
    fn call(&self, arguments: &Map<String, Value>, _: &ToolContext) -> ToolOutcome {
        match self.0.call(arguments) {
            Ok(result) => ToolOutcome::value(result),
            Err(error) => ToolOutcome::refused(stage_refusal(&error)),
        }
    }
}

fn stage_refusal(error: &StageCallError) -> Refusal {
    match error.plugin_error() {
        Some(plugin_error) => Refusal::new(plugin_error.code.as_str(), "plugin", error.to_string()),
        None => Refusal::internal(error.to_string()),
    }
}

//! `rea plugins`: list every plugin the registry holds (built-ins, pipeline libraries, `--plugin`
//! paths) with their versions, API versions, stages and sources.

use std::path::PathBuf;

use clap::Args;
use rea_evidence::Refusal;
use rea_registry::Registry;

use crate::output::{CommandFailure, print_json, write_stdout};

/// Arguments of `rea plugins`.
#[derive(Debug, Args)]
pub struct PluginsArgs {
    /// A pipeline file whose plugin libraries to load too.
    #[arg(long, value_name = "FILE")]
    pub pipeline: Option<PathBuf>,
    /// A plugin library to load (repeatable).
    #[arg(long = "plugin", value_name = "PATH")]
    pub plugins: Vec<PathBuf>,
    /// Print JSON (an array of `{name, version, api_version, stages, source}`).
    #[arg(long)]
    pub json: bool,
}

/// Runs `rea plugins`.
pub fn run(args: &PluginsArgs) -> Result<(), CommandFailure> {
    let registry = build_registry(args.pipeline.as_deref(), &args.plugins, args.json)?;
    if args.json {
        let plugins: Vec<serde_json::Value> = registry.plugins().map(|p| p.to_json()).collect();
        return print_json(&serde_json::Value::Array(plugins));
    }
    let mut text = String::new();
    for plugin in registry.plugins() {
        text.push_str(&format!(
            "{} {} (plugin API {}, {})\n",
            plugin.name,
            plugin.version,
            plugin.api_version,
            plugin.source.display()
        ));
        for stage in &plugin.stages {
            let inputs = if stage.inputs.is_empty() {
                String::new()
            } else {
                format!(" [inputs: {}]", stage.inputs.join(", "))
            };
            text.push_str(&format!(
                "  {} {}{}: {}\n",
                stage.kind, stage.name, inputs, stage.summary
            ));
        }
    }
    write_stdout(text.as_bytes())
}

/// The registry a command runs with: built-ins, the pipeline's libraries (when a pipeline file is
/// named, it is validated whole) and extra `--plugin` libraries.
pub fn build_registry(
    pipeline: Option<&std::path::Path>,
    extra: &[PathBuf],
    json: bool,
) -> Result<Registry, CommandFailure> {
    let mut registry = crate::builtin_registry()
        .map_err(|error| CommandFailure::refused(registry_refusal(&error), json))?;
    let mut problems = Vec::new();
    for path in extra {
        if let Err(error) = registry.load_library(path, None) {
            problems.push(registry_refusal(&error));
        }
    }
    if let Some(path) = pipeline
        && let Err(errors) = rea_pipeline::load(Some(path), &mut registry)
    {
        problems.extend(
            errors
                .0
                .iter()
                .map(crate::commands::pipeline::diagnostic_refusal),
        );
    }
    if problems.is_empty() {
        Ok(registry)
    } else {
        Err(CommandFailure::configuration(problems, json))
    }
}

/// A registry error as a refusal (category `configuration`).
pub fn registry_refusal(error: &rea_registry::RegistryError) -> Refusal {
    Refusal::new(error.code(), "configuration", error.to_string())
}

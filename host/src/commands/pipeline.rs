//! `rea pipeline check FILE`: validate a pipeline file whole and print the resolved chain.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use rea_evidence::Refusal;
use rea_pipeline::Diagnostic;

use crate::commands::plugins::build_registry;
use crate::output::{CommandFailure, print_json, write_stdout};

/// `rea pipeline …` subcommands.
#[derive(Debug, Subcommand)]
pub enum PipelineCommand {
    /// Validate a pipeline (every problem with its line and column) and print the resolved chain.
    Check(CheckArgs),
}

/// Arguments of `rea pipeline check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The pipeline file; `-` or omitted checks the embedded default pipeline.
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Extra plugin libraries to load first (repeatable).
    #[arg(long = "plugin", value_name = "PATH")]
    pub plugins: Vec<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs a `rea pipeline` subcommand.
pub fn run(command: &PipelineCommand) -> Result<(), CommandFailure> {
    match command {
        PipelineCommand::Check(args) => check(args),
    }
}

fn check(args: &CheckArgs) -> Result<(), CommandFailure> {
    let mut registry = build_registry(None, &args.plugins, args.json)?;
    let file = args.file.as_deref().filter(|path| path.as_os_str() != "-");
    let pipeline = rea_pipeline::load(file, &mut registry).map_err(|errors| {
        CommandFailure::configuration(errors.0.iter().map(diagnostic_refusal).collect(), args.json)
    })?;
    // A pipeline reads captures only through an extractor: without one, environment-build and
    // inspection cannot read a HAR with it.
    if pipeline.capture_extractors.is_empty() {
        let refusal = Refusal::new(
            "no_capture_extractor",
            "configuration",
            format!(
                "{}: the pipeline binds no capture extractor, so no capture can be read with it; add [capture.extractors] with har = \"har\"",
                pipeline.origin
            ),
        );
        return Err(CommandFailure::configuration(vec![refusal], args.json));
    }
    if args.json {
        return print_json(&pipeline.to_json());
    }
    let mut text = format!("pipeline {}: valid\n", pipeline.origin);
    for library in &pipeline.libraries {
        text.push_str(&format!(
            "  library {} -> plugin {}{}\n",
            library.path.display(),
            library.plugin,
            library
                .sha256
                .as_ref()
                .map(|sha| format!(" (sha256 {sha})"))
                .unwrap_or_default()
        ));
    }
    for (input, stage) in &pipeline.capture_extractors {
        text.push_str(&format!(
            "  capture {input} -> {} ({}, {})\n",
            stage.stage, stage.plugin, stage.source
        ));
    }
    text.push_str(&format!(
        "  manifest template rules: {}\n",
        if pipeline.template_rules.is_empty() {
            "none (format rules only)".to_owned()
        } else {
            pipeline.template_rules.join(", ")
        }
    ));
    for (index, rule) in pipeline.rules.iter().enumerate() {
        text.push_str(&format!(
            "  rule {}: {} ({}, {}){}\n",
            index + 1,
            rule.stage.stage,
            rule.stage.plugin,
            rule.stage.source,
            if rule.options.is_empty() {
                String::new()
            } else {
                format!(
                    " options {}",
                    serde_json::Value::Object(rule.options.clone().into_iter().collect())
                )
            }
        ));
    }
    text.push_str(&format!(
        "  serve {}:{} (withheld writes: {})\n",
        pipeline.serve.host.as_deref().unwrap_or("127.0.0.1"),
        pipeline.serve.port.unwrap_or(0),
        pipeline.serve.withheld.name()
    ));
    write_stdout(text.as_bytes())
}

/// A pipeline diagnostic as a refusal: `code` from the diagnostic, category `configuration`, the
/// message prefixed with `file:line:column`.
pub fn diagnostic_refusal(diagnostic: &Diagnostic) -> Refusal {
    let mut refusal = Refusal::new(
        diagnostic.code.clone(),
        "configuration",
        diagnostic.to_string(),
    );
    refusal.data = Some(serde_json::json!({
        "file": diagnostic.origin,
        "line": diagnostic.line,
        "column": diagnostic.column,
    }));
    refusal
}

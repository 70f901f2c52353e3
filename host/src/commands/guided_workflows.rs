//! `rea guided-workflows [--action list|render] [--workflow-id ID] [--arguments-json JSON]
//! [--format json|text] [--pipeline FILE] [--plugin PATH]…`: list the guided workflows, or render
//! one, with the contracts and renderer of the MCP prompts and the `guided_workflows` tool, over
//! the same catalog (plugins included) and scoped by `REA_MCP_TOOL_FAMILIES` like `rea mcp`.
//! Rendering prints guidance only: it reads no capture and changes nothing.

use clap::{Args, ValueEnum};
use rea_evidence::Refusal;
use rea_self_mcp::ScopedContracts;
use rea_self_mcp::tools::guidance::run_guided_workflows;
use serde_json::{Map, Value};

use crate::commands::mcp;
use crate::output::{CommandFailure, print_json, write_stdout};

/// What to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WorkflowAction {
    /// List the workflows: ids, descriptions, arguments.
    List,
    /// Render one workflow.
    Render,
}

/// The output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WorkflowFormat {
    /// The result document, as the `guided_workflows` tool returns it.
    Json,
    /// The rendered text (render) or one line per workflow (list).
    Text,
}

/// Arguments of `rea guided-workflows`.
#[derive(Debug, Args)]
pub struct GuidedWorkflowsArgs {
    /// `list` (default) or `render`.
    #[arg(long, value_enum, default_value = "list")]
    pub action: WorkflowAction,
    /// The workflow to render.
    #[arg(long, value_name = "ID")]
    pub workflow_id: Option<String>,
    /// The workflow's arguments as a JSON object of strings, e.g. `{"feature":"offline search"}`.
    #[arg(long, value_name = "JSON")]
    pub arguments_json: Option<String>,
    /// Print JSON (the default; `--format json`).
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// Output format (`--json` is `--format json`).
    #[arg(long, value_enum, default_value = "json")]
    pub format: WorkflowFormat,
    /// Plugins whose tool stages join the catalog, as for `rea mcp`, so the workflows render
    /// the optional routes of their families.
    #[command(flatten)]
    pub plugins: mcp::PluginSources,
}

/// Runs `rea guided-workflows`.
pub fn run(args: &GuidedWorkflowsArgs) -> Result<(), CommandFailure> {
    // Refusals follow the output: JSON lines with JSON output, else text lines.
    let json = args.format == WorkflowFormat::Json;
    let catalog = mcp::catalog_with_plugins(&args.plugins)?;
    let (scope, _) = mcp::scope(&catalog, None)?;
    let contracts = ScopedContracts::new(&catalog, &scope);
    let mut request = Map::new();
    request.insert(
        "action".into(),
        Value::String(
            match args.action {
                WorkflowAction::List => "list",
                WorkflowAction::Render => "render",
            }
            .into(),
        ),
    );
    if let Some(id) = &args.workflow_id {
        request.insert("workflow_id".into(), Value::String(id.clone()));
    }
    if let Some(text) = &args.arguments_json {
        let arguments: Value = serde_json::from_str(text).map_err(|error| {
            CommandFailure::configuration(
                vec![
                    Refusal::invalid_request(format!("--arguments-json is not JSON: {error}"))
                        .at("/arguments"),
                ],
                json,
            )
        })?;
        request.insert("arguments".into(), arguments);
    }
    let result = run_guided_workflows(&contracts.workflows, &request)
        .map_err(|refusal| CommandFailure::refused(refusal, json))?;
    match args.format {
        WorkflowFormat::Json => print_json(&result),
        WorkflowFormat::Text => {
            let text = match result.get("text").and_then(Value::as_str) {
                Some(text) => text.to_owned(),
                None => result["workflows"]
                    .as_array()
                    .map(|workflows| {
                        workflows
                            .iter()
                            .map(|workflow| {
                                format!(
                                    "{}\t{}\n",
                                    workflow["id"].as_str().unwrap_or_default(),
                                    workflow["description"].as_str().unwrap_or_default()
                                )
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
            };
            write_stdout(text.as_bytes())
        }
    }
}

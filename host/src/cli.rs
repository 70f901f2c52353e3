//! The command line: one clap subcommand per command module in [`crate::commands`].

use std::ffi::OsString;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::commands;
use crate::output::CommandFailure;

/// `rea`: turn a recorded web session into an agent environment.
#[derive(Debug, Parser)]
#[command(name = "rea", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List every plugin the registry holds: built-ins and libraries named by a pipeline or --plugin.
    Plugins(commands::plugins::PluginsArgs),
    /// Work with pipeline files.
    #[command(subcommand)]
    Pipeline(commands::pipeline::PipelineCommand),
    /// Inspect a recorded capture file (HAR) offline and print its capture Evidence.
    InspectWebNetworkCapture(commands::inspect_capture::InspectCaptureArgs),
    /// Record a scripted browser session (a browser scenario) and print its capture Evidence.
    CaptureBrowserScenario(commands::capture_scenario::CaptureScenarioArgs),
    /// Project an analysis view (the environment manifest) from capture Evidence and print it.
    InspectAnalysisView(commands::inspect_view::InspectViewArgs),
    /// Serve a capture (.har or its Evidence) or a bundle folder as an agent environment, in one step.
    Serve(commands::serve::ServeArgs),
    /// Serve a manifest as an agent environment: MCP at /mcp, the card, the /agentenv data plane.
    EnvironmentServe(commands::environment_serve::EnvironmentServeArgs),
    /// Write a manifest and its capture as an agentenv bundle (a folder `agent-env run` runs).
    EnvironmentExport(commands::environment_export::EnvironmentExportArgs),
    /// Measure an environment against probes recorded on the live application.
    EnvironmentCompare(commands::environment_compare::EnvironmentCompareArgs),
    /// Build an agentenv bundle from one capture (.har or capture Evidence) in one step.
    EnvironmentBuild(commands::environment_build::EnvironmentBuildArgs),
    /// Serve rea's own tools over MCP (stdio, or Streamable HTTP with --http), or `mcp doctor`.
    Mcp(commands::mcp::McpArgs),
    /// List the guided workflows, or render one (--action render --workflow-id ID).
    GuidedWorkflows(commands::guided_workflows::GuidedWorkflowsArgs),
    /// Search rea's guidance (--query), or read a section (--action read --locator L).
    Guidance(commands::guidance::GuidanceArgs),
}

impl Command {
    /// The subcommand's name as typed (`environment-build`), for hints.
    fn name(&self) -> &'static str {
        match self {
            Self::Plugins(_) => "plugins",
            Self::Pipeline(_) => "pipeline",
            Self::InspectWebNetworkCapture(_) => "inspect-web-network-capture",
            Self::InspectAnalysisView(_) => "inspect-analysis-view",
            Self::CaptureBrowserScenario(_) => "capture-browser-scenario",
            Self::Serve(_) => "serve",
            Self::EnvironmentServe(_) => "environment-serve",
            Self::EnvironmentExport(_) => "environment-export",
            Self::EnvironmentCompare(_) => "environment-compare",
            Self::EnvironmentBuild(_) => "environment-build",
            Self::Mcp(_) => "mcp",
            Self::GuidedWorkflows(_) => "guided-workflows",
            Self::Guidance(_) => "guidance",
        }
    }
}

/// Runs `rea` with these arguments (the first is the program name) and returns the exit code.
pub fn main_with_args<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return if error.use_stderr() {
                ExitCode::from(CommandFailure::USAGE_EXIT)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let name = cli.command.name();
    let outcome = match cli.command {
        Command::Plugins(args) => commands::plugins::run(&args),
        Command::Pipeline(command) => commands::pipeline::run(&command),
        Command::InspectWebNetworkCapture(args) => commands::inspect_capture::run(&args),
        Command::CaptureBrowserScenario(args) => commands::capture_scenario::run(&args),
        Command::InspectAnalysisView(args) => commands::inspect_view::run(&args),
        Command::Serve(args) => commands::serve::run(&args),
        Command::EnvironmentServe(args) => commands::environment_serve::run(&args),
        Command::EnvironmentExport(args) => commands::environment_export::run(&args),
        Command::EnvironmentBuild(args) => commands::environment_build::run(&args),
        Command::EnvironmentCompare(args) => commands::environment_compare::run(&args),
        Command::Mcp(args) => commands::mcp::run(&args),
        Command::GuidedWorkflows(args) => commands::guided_workflows::run(&args),
        Command::Guidance(args) => commands::guidance::run(&args),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => failure.report(name),
    }
}

//! `rea mcp [--http [--host H] [--port P]] [--tool-families-file PATH]` and `rea mcp doctor`:
//! rea's own tools over MCP, with the guided workflow prompts, session completion and guidance
//! search ([`rea_self_mcp`]).
//!
//! The catalog holds the guidance tools and one tool per pipeline stage this build has
//! (`inspect_web_network_capture`, `inspect_analysis_view`), each in its family;
//! `REA_MCP_TOOL_FAMILIES` (or `--tool-families-file`) limits the advertised families.
//! `inspect_analysis_view` projects the views `rea inspect-analysis-view` does: the environment
//! manifest, and the environment state and coverage, whose write plans the rule stages of
//! `--pipeline` (default: the embedded pipeline) learn.
//!
//! * stdio (default): MCP on stdin/stdout until the client closes stdin (exit 0), or until SIGINT
//!   or SIGTERM (exit 130 or 143). Logs go to stderr as JSON lines (`REA_LOG_LEVEL`).
//! * `--http`: Streamable HTTP at `/mcp`, resolved, bound, guarded and announced exactly as
//!   `environment-serve` does ([`rea_serve::config`], [`rea_serve::server`],
//!   [`rea_serve::guard`]); SIGINT/SIGTERM prints one `{"status": "stopped", …}` document.
//! * SIGHUP re-reads `--tool-families-file` (when given): if the advertised prompts or tools
//!   change, connected clients get `notifications/prompts/list_changed` or
//!   `notifications/tools/list_changed`. Decision: the spec has prompts change only when a
//!   registered prompt is updated; in rea the prompts follow the tools in scope, so narrowing or
//!   widening a running server's scope is what updates them.
//! * `doctor` prints the served identity (name, version, contracts digest), the scope, the tools,
//!   the advertised and omitted workflows and the guidance bundle status, from the same scoped
//!   contracts the server advertises.

#![allow(clippy::result_large_err)]

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use clap::{Args, Subcommand};
use rea_evidence::envelope::EVIDENCE_FILE_MAX_BYTES;
use rea_evidence::{Evidence, Refusal};
use rea_manifest::{ViewSpec, parse_view_request, project_manifest_evidence};
use rea_self_mcp::scope::TOOL_FAMILIES_ENV;
use rea_self_mcp::{
    BundleSource, CaptureInspection, CaptureRequest, EvidenceDocument, SelfMcpServer,
    SourceEvidence, StageImplementations, ToolCatalog, ToolScope, ViewProjection,
};
use rea_serve::ShutdownToken;
use rea_serve::config::{EnvSource, ListenConfig, ProcessEnv};
use rea_serve::server;
use serde_json::{Value, json};

use crate::commands::inspect_capture::{InspectRequest, inspect_with_builtins};
use crate::output::{CommandFailure, print_json};

/// The stage name refusals carry.
pub const STAGE: &str = "mcp";

/// Arguments of `rea mcp`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct McpArgs {
    /// `doctor`, or nothing to serve.
    #[command(subcommand)]
    pub command: Option<McpCommand>,
    /// How to serve.
    #[command(flatten)]
    pub serve: McpServeArgs,
}

/// Subcommands of `rea mcp`.
#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// Report the served identity, tool scope, tools, workflows and the digest of their contracts.
    Doctor(DoctorArgs),
}

/// How `rea mcp` serves.
#[derive(Debug, Args)]
pub struct McpServeArgs {
    /// Serve MCP over Streamable HTTP at `/mcp` instead of stdio.
    #[arg(long)]
    pub http: bool,
    /// The host to bind (default: `MCP_HOST`, else 127.0.0.1).
    #[arg(long, requires = "http")]
    pub host: Option<String>,
    /// The port to bind (default: `MCP_PORT`, else an ephemeral port).
    #[arg(long, requires = "http")]
    pub port: Option<u16>,
    /// Read the advertised tool families from this file (names separated by commas or
    /// whitespace) instead of `REA_MCP_TOOL_FAMILIES`; SIGHUP reads it again.
    #[arg(long, value_name = "PATH")]
    pub tool_families_file: Option<PathBuf>,
    /// Plugins whose tool stages join the catalog.
    #[command(flatten)]
    pub plugins: PluginSources,
}

/// Where plugin tool stages come from: a pipeline's libraries and extra `--plugin` libraries.
#[derive(Debug, Args)]
pub struct PluginSources {
    /// A pipeline file whose plugin libraries to load (their tool stages join the catalog) and
    /// whose rule stages the state and coverage views learn write plans with.
    #[arg(long, value_name = "FILE")]
    pub pipeline: Option<PathBuf>,
    /// A plugin library to load (repeatable); its tool stages join the catalog.
    #[arg(long = "plugin", value_name = "PATH")]
    pub plugins: Vec<PathBuf>,
}

/// Arguments of `rea mcp doctor`.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Read the tool families from this file instead of `REA_MCP_TOOL_FAMILIES`.
    #[arg(long, value_name = "PATH")]
    pub tool_families_file: Option<PathBuf>,
    /// Plugins whose tool stages join the catalog.
    #[command(flatten)]
    pub plugins: PluginSources,
    /// Print JSON: the report's only form, accepted as every command accepts it.
    #[arg(long)]
    pub json: bool,
}

/// Runs `rea mcp`.
pub fn run(args: &McpArgs) -> Result<(), CommandFailure> {
    match &args.command {
        Some(McpCommand::Doctor(doctor)) => run_doctor(doctor),
        None => run_server(&args.serve),
    }
}

/// The stage implementations of this build. The state and coverage views learn write plans with
/// the rule stages of `pipeline` (default: the embedded pipeline), as `rea inspect-analysis-view
/// --pipeline` does.
pub fn stages(pipeline: Option<&Path>) -> StageImplementations {
    StageImplementations {
        capture: Some(Arc::new(CaptureStage)),
        views: Some(Arc::new(ViewStage {
            pipeline: pipeline.map(Path::to_path_buf),
            rules: OnceLock::new(),
        })),
    }
}

/// The catalog `rea mcp` serves with the built-in plugins only.
pub fn catalog() -> Result<ToolCatalog, CommandFailure> {
    catalog_for(None)
}

/// The catalog whose state and coverage views use the rule stages of `pipeline`.
fn catalog_for(pipeline: Option<&Path>) -> Result<ToolCatalog, CommandFailure> {
    let mut catalog = rea_self_mcp::standard_catalog(&stages(pipeline))
        .map_err(|error| CommandFailure::configuration(vec![error.to_refusal()], true))?;
    crate::commands::environment_build::register_export_tool(&mut catalog)
        .map_err(|error| CommandFailure::configuration(vec![error.to_refusal()], true))?;
    crate::commands::environment_compare::register_compare_tool(&mut catalog, pipeline)
        .map_err(|error| CommandFailure::configuration(vec![error.to_refusal()], true))?;
    crate::commands::environment_build::register_build_tool(&mut catalog)
        .map_err(|error| CommandFailure::configuration(vec![error.to_refusal()], true))?;
    Ok(catalog)
}

/// The catalog with every tool stage of the plugins `sources` names (and the built-ins); the
/// state and coverage views use the rule stages of `sources.pipeline`.
pub fn catalog_with_plugins(sources: &PluginSources) -> Result<ToolCatalog, CommandFailure> {
    let mut catalog = catalog_for(sources.pipeline.as_deref())?;
    let registry = crate::commands::plugins::build_registry(
        sources.pipeline.as_deref(),
        &sources.plugins,
        true,
    )?;
    crate::commands::plugin_tools::register_plugin_tools(&mut catalog, &registry)
        .map_err(|refusal| CommandFailure::configuration(vec![refusal.in_stage(STAGE)], true))?;
    Ok(catalog)
}

/// The scope: `--tool-families-file`, else `REA_MCP_TOOL_FAMILIES`, else every family; with
/// the name of where it came from.
pub fn scope(
    catalog: &ToolCatalog,
    file: Option<&Path>,
) -> Result<(ToolScope, String), CommandFailure> {
    let configuration = |refusal: Refusal| CommandFailure::configuration(vec![refusal], true);
    match file {
        Some(path) => Ok((
            scope_from_file(catalog, path).map_err(configuration)?,
            path.display().to_string(),
        )),
        None => {
            let scope = ToolScope::from_env(&catalog.families()).map_err(configuration)?;
            let source = match scope {
                ToolScope::All => "default",
                ToolScope::Families(_) => TOOL_FAMILIES_ENV,
            };
            Ok((scope, source.to_owned()))
        }
    }
}

fn scope_from_file(catalog: &ToolCatalog, path: &Path) -> Result<ToolScope, Refusal> {
    let text = std::fs::read_to_string(path).map_err(|error| {
        Refusal::configuration_invalid(format!(
            "the tool families file {} cannot be read: {error}",
            Value::String(path.display().to_string())
        ))
    })?;
    ToolScope::parse(&text, &catalog.families(), "the tool families file")
}

fn run_doctor(args: &DoctorArgs) -> Result<(), CommandFailure> {
    let catalog = catalog_with_plugins(&args.plugins)?;
    let (scope, source) = scope(&catalog, args.tool_families_file.as_deref())?;
    let contracts = rea_self_mcp::ScopedContracts::new(&catalog, &scope);
    print_json(&rea_self_mcp::doctor_report(
        &catalog,
        &contracts,
        &source,
        &BundleSource::from_env(),
    ))
}

fn refused(refusal: Refusal) -> CommandFailure {
    CommandFailure::refused(refusal.in_stage(STAGE), true)
}

fn run_server(args: &McpServeArgs) -> Result<(), CommandFailure> {
    let env = ProcessEnv;
    let configuration = |error: rea_serve::ServeError| {
        CommandFailure::configuration(vec![error.refusal().in_stage(STAGE)], true)
    };
    let level = rea_serve::config::log_level(&env).map_err(configuration)?;
    let listen = if args.http {
        Some(
            ListenConfig::resolve(args.host.as_deref(), args.port, &env as &dyn EnvSource)
                .map_err(configuration)?,
        )
    } else {
        None
    };
    let catalog = catalog_with_plugins(&args.plugins)?;
    let (scope, _) = scope(&catalog, args.tool_families_file.as_deref())?;
    rea_serve::logging::init(level);
    let server = SelfMcpServer::new(catalog, scope, BundleSource::from_env());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|error| {
            refused(Refusal::internal(format!(
                "cannot start the runtime: {error}"
            )))
        })?;
    let outcome = runtime.block_on(async {
        if let Some(path) = args.tool_families_file.clone() {
            reload_on_hangup(server.clone(), path)?;
        }
        match listen {
            Some(listen) => serve_http(&server, &listen).await,
            None => serve_stdio(&server).await,
        }
    });
    runtime.shutdown_background();
    outcome
}

/// On SIGHUP, reads the families file again and applies it; a file that no longer parses keeps
/// the current scope (logged as a warning).
fn reload_on_hangup(server: SelfMcpServer, path: PathBuf) -> Result<(), CommandFailure> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut hangups = signal(SignalKind::hangup()).map_err(|error| {
            refused(Refusal::internal(format!(
                "cannot install a SIGHUP handler: {error}"
            )))
        })?;
        tokio::spawn(async move {
            while hangups.recv().await.is_some() {
                match scope_from_file(server.catalog(), &path) {
                    Ok(scope) => {
                        let change = server.set_scope(scope).await;
                        tracing::info!(
                            prompts_changed = change.prompts_changed,
                            tools_changed = change.tools_changed,
                            digest = %server.contracts().digest,
                            "tool scope reloaded"
                        );
                    }
                    Err(refusal) => tracing::warn!(
                        code = %refusal.code,
                        message = %refusal.message,
                        "tool scope not reloaded; keeping the current scope"
                    ),
                }
            }
        });
    }
    #[cfg(not(unix))]
    {
        let _ = (server, path);
    }
    Ok(())
}

async fn serve_stdio(server: &SelfMcpServer) -> Result<(), CommandFailure> {
    let stop = server::stop_signals().map_err(|error| refused(error.refusal()))?;
    let cancel = ShutdownToken::new();
    let serving = server.serve_stdio(cancel.clone());
    tokio::select! {
        result = serving => result.map_err(|error| refused(error.to_refusal())),
        signal = stop => {
            cancel.cancel();
            Err(CommandFailure::signalled(signal.exit_code()))
        }
    }
}

async fn serve_http(server: &SelfMcpServer, listen: &ListenConfig) -> Result<(), CommandFailure> {
    let stop = server::stop_signals().map_err(|error| refused(error.refusal()))?;
    let bound = server::bind(listen).await.map_err(|error| match error {
        rea_serve::ServeError::Configuration { .. } => {
            CommandFailure::configuration(vec![error.refusal().in_stage(STAGE)], true)
        }
        other => refused(other.refusal()),
    })?;
    let url = bound.url.clone();
    let shutdown = ShutdownToken::new();
    let router = server.http_router(listen.allowed_hosts.clone(), shutdown.child_token());
    let signal = server::serve(bound, router, shutdown, stop)
        .await
        .map_err(|error| refused(error.refusal()))?;
    let contracts = server.contracts();
    print_json(&json!({
        "status": "stopped",
        "signal": signal.name(),
        "name": rea_self_mcp::identity::SERVER_NAME,
        "url": url,
        "tool_count": contracts.tools.len(),
        "identity_digest": contracts.digest,
    }))?;
    Err(CommandFailure::signalled(signal.exit_code()))
}

fn evidence_document(evidence: &Evidence) -> Result<EvidenceDocument, Refusal> {
    let text = String::from_utf8(evidence.to_canonical_vec())
        .map_err(|error| Refusal::internal(format!("Evidence is not UTF-8: {error}")))?;
    EvidenceDocument::from_canonical(text)
}

/// `inspect_web_network_capture` over the built-in plugins and the default pipeline, exactly as
/// `rea inspect-web-network-capture` runs.
struct CaptureStage;

impl CaptureInspection for CaptureStage {
    fn inspect(&self, request: &CaptureRequest) -> Result<EvidenceDocument, Refusal> {
        let evidence = inspect_with_builtins(&InspectRequest {
            capture: &request.path,
            input_kind: &request.input_kind,
            selection: request.records.as_deref(),
            sensitive_values: &request.sensitive_values,
        })?;
        evidence_document(&evidence)
    }
}

/// `inspect_analysis_view` as `rea inspect-analysis-view` projects: the `environment-manifest`
/// view over the manifest crate, the `environment-state` and `environment-coverage` views over
/// [`rea_state`] with the pipeline's rule stages (loaded once, on the first such view).
struct ViewStage {
    pipeline: Option<PathBuf>,
    rules: OnceLock<Result<rea_state::rules::RuleSet, Refusal>>,
}

impl ViewStage {
    fn rules(&self) -> Result<&rea_state::rules::RuleSet, Refusal> {
        self.rules
            .get_or_init(|| {
                let mut registry = crate::builtin_registry()
                    .map_err(|error| Refusal::internal(error.to_string()))?;
                rea_state::rules::load_pipeline(self.pipeline.as_deref(), &mut registry)
                    .map(|(_, rules)| rules)
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

fn load_source(source: SourceEvidence) -> Result<Evidence, Refusal> {
    match source {
        SourceEvidence::Retained(document) => Evidence::authenticate(document.canonical.as_bytes()),
        SourceEvidence::File(path) => Evidence::read_file(&path, EVIDENCE_FILE_MAX_BYTES),
        SourceEvidence::Inline(value) => Evidence::authenticate(value.to_string().as_bytes())
            .map_err(|refusal| {
                let pointer = format!(
                    "/source/evidence{}",
                    refusal.pointer.as_deref().unwrap_or("")
                );
                refusal.at(pointer)
            }),
    }
    .map_err(|refusal| refusal.in_stage(rea_manifest::STAGE))
}

impl ViewProjection for ViewStage {
    fn project(&self, source: SourceEvidence, view: &Value) -> Result<EvidenceDocument, Refusal> {
        // The view member is checked by the views' own request parsers, so its refusals and
        // pointers (`/view/...`) are the CLI's.
        let request = json!({"source": {"kind": "evidence-file", "path": "/"}, "view": view});
        let text = request.to_string();
        if let Some((kind, request)) = rea_state::view::state_view_request(&text) {
            let request = request?;
            let capture = load_source(source)?;
            let ViewSpec::EnvironmentManifest { template_rules } = &request.view;
            let projected =
                rea_state::project_state_evidence(&capture, template_rules, self.rules()?)
                    .map_err(|refusal| {
                        if refusal.stage.is_none() {
                            refusal.in_stage(rea_manifest::STAGE)
                        } else {
                            refusal
                        }
                    })?;
            let evidence = match kind {
                rea_state::view::StateViewKind::State => projected.evidence,
                rea_state::view::StateViewKind::Coverage => {
                    rea_state::coverage::seal_coverage(&projected)?
                }
            };
            return evidence_document(&evidence);
        }
        let request = parse_view_request(&text)?;
        let capture = load_source(source)?;
        let ViewSpec::EnvironmentManifest { template_rules } = &request.view;
        let templating = self.rules()?.templating(template_rules);
        let (_, evidence) = project_manifest_evidence(&capture, &templating)?;
        evidence_document(&evidence)
    }
}

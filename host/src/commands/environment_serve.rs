//! `rea environment-serve MANIFEST.json --evidence CAPTURE.json [--replay-only] [--host H]
//! [--port P] [--pipeline FILE]`: serve a manifest as an agent environment (MCP at `/mcp`, the
//! card at `/.well-known/agent-env.json`, the data plane at `/agentenv`) until SIGINT or SIGTERM.
//!
//! Order of work, every refusal before the listener binds:
//! 1. configuration: `REA_LOG_LEVEL`; the pipeline (`--pipeline`, else the embedded default),
//!    validated whole with its plugin libraries loaded (its rule stages learn and apply the
//!    state's write plans; an invalid one is `configuration_invalid`, exit 2);
//!    `--host`/`--port`/`MCP_HOST`/`MCP_PORT` (then the pipeline's `[serve]` host and port) and
//!    `MCP_ALLOWED_HOSTS`; `ENVIRONMENT_NAME` (set but blank is `configuration_invalid`, exit 2);
//! 2. the two Evidence files, read once within their bounds and authenticated; the manifest must
//!    be an `environment-manifest` whose parent is the supplied capture (`invalid_request` naming
//!    both ids); only the cited records are kept ([`rea_manifest::Environment`]);
//! 3. the 1 MiB discovery reservation of the catalog under the served name
//!    (`resource_constraint`);
//! 4. resolve and bind (outside loopback only with `MCP_ALLOWED_HOSTS`), log
//!    `{"msg":"MCP transport listening","url":…}` on stderr, serve.
//!
//! SIGINT/SIGTERM stops the listener and prints `{"status":"stopped", …, "state": {…}}` on
//! stdout, exit 130/143. A signal during loading or binding ends with a `cancelled` refusal and
//! the same exit status, before any listening line. A listener failing after binding is
//! `resource_constraint`, exit 1.
//!
//! Without `--replay-only` the state is derived in-process before binding and served
//! ([`rea_backends::prepare`]: the state catalog's discovery reservation, the `environment-state`
//! view with the manifest's rules, the `data/get` size); when it is unavailable a warning naming
//! the code and message is logged, replay is served, and the stopped document reports
//! `state: {"served": false, "reason": "unavailable", "code", "message"}`. `--state FILE` (a
//! bundle's `state.json`) reads the derived state and its write plans instead of deriving them,
//! when they were derived from this capture and manifest by this build with this pipeline
//! ([`rea_state::precomputed`]); otherwise, or when the file cannot be read, a warning says why
//! and the state is derived.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use rea_backends::replay::ReplayBackend;
use rea_evidence::{Evidence, Refusal};
use rea_manifest::Environment;
use rea_serve::config::{EnvSource, ListenConfig, ProcessEnv};
use rea_serve::server::{self, StopSignal};
use rea_serve::{
    AppOptions, DataPlane, DataPlaneLimits, ReplayDataPlane, ShutdownToken, ToolBackend,
};
use serde_json::{Value, json};

use crate::output::{CommandFailure, print_json};

/// The stage name refusals carry.
pub const STAGE: &str = "environment-serve";

/// Arguments of `rea environment-serve`.
#[derive(Debug, Args)]
pub struct EnvironmentServeArgs {
    /// The manifest Evidence (`rea inspect-analysis-view` with an `environment-manifest` view).
    #[arg(value_name = "MANIFEST.json")]
    pub manifest: PathBuf,
    /// The capture Evidence the manifest was projected from.
    #[arg(long, value_name = "CAPTURE.json")]
    pub evidence: PathBuf,
    /// Serve replay only: every tool replays its recorded records; the data plane serves nothing.
    #[arg(long)]
    pub replay_only: bool,
    /// The host to bind (default: `MCP_HOST`, else 127.0.0.1).
    #[arg(long)]
    pub host: Option<String>,
    /// The port to bind (default: `MCP_PORT`, else the pipeline's `[serve]` port, else an
    /// ephemeral port).
    #[arg(long)]
    pub port: Option<u16>,
    /// The pipeline whose plugin libraries and rule stages the state's write plans use (default:
    /// the embedded pipeline).
    #[arg(long, value_name = "FILE")]
    pub pipeline: Option<PathBuf>,
    /// A precomputed state (`state.json` of a bundle, written by `environment-build`): read instead
    /// of deriving the state when it was derived from these inputs by this build with this
    /// pipeline; otherwise the state is derived, with a warning saying why.
    #[arg(long, value_name = "FILE", conflicts_with = "replay_only")]
    pub state: Option<PathBuf>,
}

/// Runs `rea environment-serve`.
pub fn run(args: &EnvironmentServeArgs) -> Result<(), CommandFailure> {
    let env = ProcessEnv;
    let configuration =
        |error: rea_serve::ServeError| CommandFailure::configuration(vec![error.refusal()], true);
    let level = rea_serve::config::log_level(&env).map_err(configuration)?;
    let mut registry =
        crate::builtin_registry().map_err(|error| refused(Refusal::internal(error.to_string())))?;
    let (pipeline, rules) =
        rea_state::rules::load_pipeline(args.pipeline.as_deref(), &mut registry).map_err(
            |refusal| CommandFailure::configuration(vec![refusal.in_stage(STAGE)], true),
        )?;
    // The command line, then MCP_HOST/MCP_PORT, then the pipeline's [serve] settings.
    let unset = |name: &str| env.var(name).is_none_or(|value| value.trim().is_empty());
    let host = args
        .host
        .clone()
        .or_else(|| pipeline.serve.host.clone().filter(|_| unset("MCP_HOST")));
    let port = args
        .port
        .or_else(|| pipeline.serve.port.filter(|_| unset("MCP_PORT")));
    let listen = ListenConfig::resolve(host.as_deref(), port, &env).map_err(configuration)?;
    // Checked before loading so a blank name never waits for the inputs.
    rea_serve::config::environment_name("", &env).map_err(configuration)?;
    rea_serve::logging::init(level);

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|error| {
            refused(Refusal::internal(format!(
                "cannot start the runtime: {error}"
            )))
        })?;
    let provenance = crate::provenance::provenance(&pipeline, &registry);
    let outcome = runtime.block_on(serve(
        args,
        &env,
        listen,
        (Arc::new(rules), provenance),
        &pipeline,
    ));
    // Never wait for a blocking load a signal abandoned.
    runtime.shutdown_background();
    outcome
}

fn refused(refusal: Refusal) -> CommandFailure {
    CommandFailure::refused(refusal.in_stage(STAGE), true)
}

fn cancelled(signal: StopSignal, during: &str) -> CommandFailure {
    let refusal = Refusal::cancelled(format!("{} received during {during}", signal.name()))
        .in_stage(STAGE)
        .with_data(json!({ "signal": signal.name() }));
    CommandFailure {
        refusals: vec![refusal],
        exit: signal.exit_code(),
        json: true,
    }
}

async fn serve(
    args: &EnvironmentServeArgs,
    env: &dyn EnvSource,
    listen: ListenConfig,
    (rules, provenance): (
        Arc<rea_state::rules::RuleSet>,
        rea_state::precomputed::Provenance,
    ),
    pipeline: &rea_pipeline::Pipeline,
) -> Result<(), CommandFailure> {
    let mut stop = Box::pin(server::stop_signals().map_err(|error| refused(error.refusal()))?);

    let manifest_path = args.manifest.clone();
    let evidence_path = args.evidence.clone();
    let loading = tokio::task::spawn_blocking(move || load(&manifest_path, &evidence_path));
    let (environment, manifest, capture) = tokio::select! {
        loaded = loading => match loaded {
            Ok(result) => result.map_err(|refusal| refused(*refusal))?,
            Err(error) => return Err(refused(Refusal::internal(format!("loading failed: {error}")))),
        },
        signal = &mut stop => return Err(cancelled(signal, "input loading")),
    };

    // The state derives with the manifest's template rules (the spec's contract); a pipeline
    // naming others says so once, when a state is derived at all.
    if !args.replay_only && pipeline.template_rules != manifest.template_rules {
        tracing::warn!(
            pipeline = pipeline.template_rules.join(",").as_str(),
            manifest = manifest.template_rules.join(",").as_str(),
            "the pipeline's template rules differ from the manifest's; the state derives with the manifest's"
        );
    }
    let name = rea_serve::config::environment_name(environment.name(), env)
        .map_err(|error| CommandFailure::configuration(vec![error.refusal()], true))?;
    environment
        .check_discovery_reservation(&name)
        .map_err(refused)?;
    // Serving from the state (rea-state) unless `--replay-only`; an unavailable state (logged by
    // `rea_backends::prepare`) serves replay.
    let (backend, data_plane, state): (Arc<dyn ToolBackend>, Arc<dyn DataPlane>, Value) =
        if args.replay_only {
            let state = json!({ "served": false, "reason": "replay-only" });
            let backend = Arc::new(ReplayBackend::new(environment, &name));
            (
                backend,
                Arc::new(ReplayDataPlane::new(state.clone())),
                state,
            )
        } else {
            let served_name = name.clone();
            let state_path = args.state.clone();
            let preparing = tokio::task::spawn_blocking(move || {
                let precomputed = state_path.and_then(|path| read_state(&path, provenance));
                rea_backends::prepare_precomputed(
                    environment,
                    &manifest,
                    &capture,
                    &served_name,
                    rules,
                    precomputed,
                )
            });
            let serving = tokio::select! {
                prepared = preparing => prepared.map_err(|error| {
                    refused(Refusal::internal(format!("deriving the state failed: {error}")))
                })?,
                signal = &mut stop => return Err(cancelled(signal, "state derivation")),
            };
            match serving {
                rea_backends::Serving::State {
                    backend,
                    plane,
                    report,
                    ..
                } => (backend, plane, report),
                rea_backends::Serving::Replay {
                    environment,
                    report,
                    ..
                } => {
                    let backend = Arc::new(ReplayBackend::new(environment, &name));
                    (
                        backend,
                        Arc::new(ReplayDataPlane::new(report.clone())),
                        report,
                    )
                }
            }
        };
    rea_serve::check_card_agrees(backend.as_ref()).map_err(|error| refused(error.refusal()))?;
    let tool_count = backend.tools().len();

    let bound = tokio::select! {
        bound = server::bind(&listen) => bound.map_err(|error| match error {
            rea_serve::ServeError::Configuration { .. } => {
                CommandFailure::configuration(vec![error.refusal()], true)
            }
            other => refused(other.refusal()),
        })?,
        signal = &mut stop => return Err(cancelled(signal, "binding")),
    };
    let url = bound.url.clone();
    let shutdown = ShutdownToken::new();
    let app = rea_serve::app(
        backend,
        data_plane,
        AppOptions {
            allowed_hosts: listen.allowed_hosts.clone(),
            shutdown: shutdown.clone(),
            limits: DataPlaneLimits::default(),
        },
    );
    let signal = server::serve(bound, app, shutdown, stop)
        .await
        .map_err(|error| refused(error.refusal()))?;
    print_json(&server::stopped_document(
        signal, &name, &url, tool_count, state,
    ))?;
    Err(CommandFailure::signalled(signal.exit_code()))
}

/// Reads a precomputed state file; one that cannot be read is logged and the state derived.
fn read_state(
    path: &Path,
    provenance: rea_state::precomputed::Provenance,
) -> Option<rea_state::startup::PrecomputedInput> {
    let limit = rea_state::evidence::DERIVATION_BUDGET_BYTES + 64 * 1024;
    match rea_evidence::read_bounded(path, limit) {
        Ok(file) => Some(rea_state::startup::PrecomputedInput {
            bytes: file.bytes,
            provenance,
        }),
        Err(refusal) => {
            tracing::warn!(
                path = path.display().to_string().as_str(),
                code = refusal.code.as_str(),
                reason = refusal.message.as_str(),
                "the precomputed state cannot be read; deriving the state"
            );
            None
        }
    }
}

/// Reads both Evidence files once, authenticates them, and builds the replay environment; the
/// manifest and the capture Evidence are kept for deriving the state.
fn load(
    manifest_path: &Path,
    evidence_path: &Path,
) -> Result<(Environment, rea_manifest::Manifest, Evidence), Box<Refusal>> {
    let at = |path: &Path, refusal: Refusal| {
        let data = json!({ "path": path.display().to_string() });
        Box::new(match refusal.data {
            None => refusal.with_data(data),
            Some(_) => refusal,
        })
    };
    let limit = rea_evidence::envelope::EVIDENCE_FILE_MAX_BYTES;
    let manifest = Evidence::read_file(manifest_path, limit).map_err(|r| at(manifest_path, r))?;
    let capture = Evidence::read_file(evidence_path, limit).map_err(|r| at(evidence_path, r))?;
    // Refuses a manifest of another view kind, capture Evidence of another operation, and a
    // manifest whose parent is not this capture (`invalid_request` naming both ids).
    let environment = Environment::from_evidence(&manifest, &capture).map_err(Box::new)?;
    let manifest = rea_manifest::evidence::read_manifest(&manifest).map_err(Box::new)?;
    Ok((environment, manifest, capture))
}

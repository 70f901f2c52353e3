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
//! bundle's `state.json`) reads the derived state, its write plans and the records they and the
//! manifest cite instead of deriving them, when they were derived from this capture file (its
//! bytes' SHA-256) and manifest by this build with this pipeline ([`rea_state::precomputed`]):
//! the capture Evidence is then hashed, never parsed ([`load_precomputed`]). Otherwise, or when
//! the file cannot be read, a warning says why and the inputs are loaded and the state derived as
//! without it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use rea_backends::replay::ReplayBackend;
use rea_evidence::{Evidence, Refusal};
use rea_manifest::Environment;
use rea_serve::config::{EnvSource, ListenConfig, ProcessEnv};
use rea_serve::journal::{Echo, Journal};
use rea_serve::server::{self, StopSignal};
use rea_serve::{
    AppOptions, DataPlane, DataPlaneLimits, ReplayDataPlane, ShutdownToken, ToolBackend,
};
use serde_json::{Value, json};

use crate::memory_limit::MemoryLimit;
use crate::output::CommandFailure;

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
    /// Answer credential-named values the recording holds (query parameters, body members) as
    /// recorded; by default they are answered as "[redacted]".
    #[arg(long)]
    pub keep_credentials: bool,
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
    /// Write every MCP and data-plane call to stderr as one journal line.
    #[command(flatten)]
    pub journal: JournalArgs,
    /// Also print a `listening` JSON document on stdout (as `rea serve --json`); refusals are
    /// JSON lines either way, as the server's log is.
    #[arg(long)]
    pub json: bool,
    /// Refuse (`resource_constraint`, before binding) rather than pass this much memory while
    /// starting: inputs larger than the limit are refused before they are read, and the peak
    /// resident memory is checked after loading and after preparing the state. Bytes, or K, M, G
    /// (binary units).
    #[arg(long, value_name = "SIZE", value_parser = crate::memory_limit::parse_size)]
    pub max_memory: Option<u64>,
}

/// The request journal's flags (`environment-serve`, `serve`).
#[derive(Debug, Clone, Args)]
pub struct JournalArgs {
    /// Write every MCP tool call and data-plane call to stderr as one line (time, tool, argument
    /// digest, source, status, µs); the last calls are always at `/agentenv/journal`.
    #[arg(long)]
    pub journal: bool,
    /// The journal lines' format (implies --journal).
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub journal_format: Option<JournalFormat>,
}

/// How journal lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum JournalFormat {
    /// Aligned text.
    Text,
    /// JSON lines.
    Json,
}

impl JournalArgs {
    /// How the journal echoes its entries.
    pub fn echo(&self) -> Echo {
        match (self.journal, self.journal_format) {
            (_, Some(JournalFormat::Json)) => Echo::Json,
            (_, Some(JournalFormat::Text)) | (true, None) => Echo::Text,
            (false, None) => Echo::Off,
        }
    }
}

/// What a server serves, loaded off the runtime's threads: the replay environment, its manifest
/// and the capture Evidence the state derives from, or a precomputed state.
pub struct Loaded {
    /// The replay environment (the manifest's tools over the cited records).
    pub environment: Environment,
    /// The manifest.
    pub manifest: rea_manifest::Manifest,
    /// Where the state comes from.
    pub capture: CaptureSource,
    /// The name the loader chose (`rea serve`'s capture naming), below [`ServeRequest::name`].
    pub name: Option<String>,
}

/// What a server's state is made from.
pub enum CaptureSource {
    /// The capture Evidence, to derive the state from.
    Evidence(Evidence),
    /// A precomputed state read in its stead ([`load_precomputed`]).
    Precomputed(Box<rea_state::precomputed::PrecomputedState>),
}

/// Loads the inputs (blocking; run on a blocking thread so a signal can cancel the wait).
pub type Loader = Box<dyn FnOnce() -> Result<Loaded, Box<Refusal>> + Send>;

/// How a server announces itself and reports its stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Announce {
    /// `environment-serve`: the listening JSON log line only, the stopped document on stdout.
    Log,
    /// `rea serve`: also the addresses and the coverage table on stdout as text, and a text
    /// line when it stops.
    Text,
    /// `rea serve --json`: also a `listening` JSON document on stdout, then the stopped one.
    Json,
}

/// One server to run: what it serves and how.
pub struct ServeRequest {
    /// Loads the inputs.
    pub loader: Loader,
    /// Serve replay only.
    pub replay_only: bool,
    /// Where to listen.
    pub listen: ListenConfig,
    /// Session, request and `data/add` limits ([`serve_limits`]).
    pub limits: ServeLimits,
    /// Answer recorded credentials as recorded instead of redacted.
    pub keep_credentials: bool,
    /// The rule stages the state's write plans use.
    pub rules: Arc<rea_state::rules::RuleSet>,
    /// The pipeline's template rules (a warning when the manifest's differ).
    pub pipeline_template_rules: Vec<String>,
    /// The served name when `ENVIRONMENT_NAME` is unset (`None`: the manifest's).
    pub name: Option<String>,
    /// How it announces itself.
    pub announce: Announce,
    /// How the request journal echoes its entries on stderr.
    pub journal: Echo,
    /// A precomputed state to read instead of deriving one (`--state`).
    pub state_file: Option<StateFile>,
    /// `--max-memory`, checked after loading and after preparing the state
    /// ([`crate::memory_limit`]).
    pub memory: Option<MemoryLimit>,
}

/// A precomputed state file ([`rea_state::precomputed`]), the inputs it must have been derived
/// from and the provenance it must have been derived with to be read.
pub struct StateFile {
    /// The file (a bundle's `state.json`).
    pub path: PathBuf,
    /// The manifest Evidence served.
    pub manifest: PathBuf,
    /// The capture Evidence file served.
    pub evidence: PathBuf,
    /// This server's own code and pipeline.
    pub provenance: rea_state::precomputed::Provenance,
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
    let listen = listen_config(args.host.as_deref(), args.port, &pipeline, &env)?;
    let limits = serve_limits(&env)?;
    rea_serve::logging::init(level);
    let state_file = args.state.clone().map(|path| StateFile {
        path,
        manifest: args.manifest.clone(),
        evidence: args.evidence.clone(),
        provenance: crate::provenance::provenance(&pipeline, &registry),
    });
    let memory = args.max_memory.map(MemoryLimit::new);
    let mut inputs = vec![args.manifest.as_path(), args.evidence.as_path()];
    inputs.extend(args.state.as_deref());
    check_inputs(memory, &inputs, 1, STAGE).map_err(refused)?;
    let (manifest, evidence) = (args.manifest.clone(), args.evidence.clone());
    run_server(ServeRequest {
        loader: Box::new(move || {
            let (environment, manifest, capture) = load(&manifest, &evidence)?;
            Ok(Loaded {
                environment,
                manifest,
                capture: CaptureSource::Evidence(capture),
                name: None,
            })
        }),
        replay_only: args.replay_only,
        listen,
        limits,
        keep_credentials: args.keep_credentials,
        rules: Arc::new(rules),
        pipeline_template_rules: pipeline.template_rules.clone(),
        name: None,
        announce: if args.json {
            Announce::Json
        } else {
            Announce::Log
        },
        journal: args.journal.echo(),
        state_file,
        memory,
    })
}

/// Refuses, under `--max-memory`, input files whose load needs at least `factor` times their
/// summed size over the limit, before they are read.
pub fn check_inputs(
    memory: Option<MemoryLimit>,
    paths: &[&Path],
    factor: u64,
    stage: &str,
) -> Result<(), Refusal> {
    let Some(limit) = memory else {
        return Ok(());
    };
    let bytes = crate::memory_limit::file_bytes(paths);
    limit
        .check_estimate("the inputs", bytes, bytes.saturating_mul(factor))
        .map_err(|refusal| refusal.in_stage(stage))
}

/// Refuses, under `--max-memory`, a server whose peak memory passed the limit by the end of
/// `stage` (before it binds).
fn check_peak(memory: Option<MemoryLimit>, stage: &str) -> Result<(), CommandFailure> {
    match memory {
        Some(limit) => limit.check_peak(stage).map_err(|refusal| {
            let mut refusal = refusal;
            refusal.message.push_str("; nothing was bound");
            refused(refusal)
        }),
        None => Ok(()),
    }
}

/// Where to listen: the command line, then `MCP_HOST`/`MCP_PORT`, then the pipeline's `[serve]`
/// settings; and `ENVIRONMENT_NAME`, checked before loading so a blank name never waits for the
/// inputs.
pub fn listen_config(
    host: Option<&str>,
    port: Option<u16>,
    pipeline: &rea_pipeline::Pipeline,
    env: &dyn EnvSource,
) -> Result<ListenConfig, CommandFailure> {
    let configuration =
        |error: rea_serve::ServeError| CommandFailure::configuration(vec![error.refusal()], true);
    let unset = |name: &str| env.var(name).is_none_or(|value| value.trim().is_empty());
    let host = host
        .map(str::to_owned)
        .or_else(|| pipeline.serve.host.clone().filter(|_| unset("MCP_HOST")));
    let port = port.or_else(|| pipeline.serve.port.filter(|_| unset("MCP_PORT")));
    let listen = ListenConfig::resolve(host.as_deref(), port, env).map_err(configuration)?;
    rea_serve::config::environment_name("", env).map_err(configuration)?;
    Ok(listen)
}

/// The limits a server keeps: MCP sessions (`REA_MAX_SESSIONS`, `REA_SESSION_IDLE_SECONDS`),
/// request header and body timeouts, and the sources `data/add` may read (`REA_DATA_ADD_ALLOW`).
pub struct ServeLimits {
    sessions: rea_serve::sessions::SessionLimits,
    timeouts: rea_serve::config::RequestTimeouts,
    sources: rea_backends::fetch::SourceAllowList,
}

/// Reads [`ServeLimits`] from the environment (a malformed setting is `configuration_invalid`).
pub fn serve_limits(env: &dyn EnvSource) -> Result<ServeLimits, CommandFailure> {
    let configuration =
        |error: rea_serve::ServeError| CommandFailure::configuration(vec![error.refusal()], true);
    Ok(ServeLimits {
        sessions: rea_serve::config::session_limits(env).map_err(configuration)?,
        timeouts: rea_serve::config::request_timeouts(env).map_err(configuration)?,
        sources: data_add_sources(env).map_err(configuration)?,
    })
}

/// The sources `data/add` may read: `REA_DATA_ADD_ALLOW` (see [`rea_backends::fetch`]).
fn data_add_sources(
    env: &dyn EnvSource,
) -> Result<rea_backends::fetch::SourceAllowList, rea_serve::ServeError> {
    let setting = rea_backends::fetch::ALLOW_SETTING;
    match env.var(setting).filter(|value| !value.trim().is_empty()) {
        None => Ok(rea_backends::fetch::SourceAllowList::default()),
        Some(text) => rea_backends::fetch::SourceAllowList::parse(&text).map_err(|entry| {
            rea_serve::ServeError::configuration(
                setting,
                format!(
                    "{setting} must list absolute folders (file:/path) and https://host[:port] origins separated by commas; {} is neither",
                    Value::String(entry)
                ),
            )
        }),
    }
}

/// Runs a server on its own runtime until a signal stops it.
pub fn run_server(request: ServeRequest) -> Result<(), CommandFailure> {
    // Before the runtime starts its threads (they would each take an arena of their own).
    rea_serve::memory::configure_allocator();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|error| {
            refused(Refusal::internal(format!(
                "cannot start the runtime: {error}"
            )))
        })?;
    let outcome = runtime.block_on(serve(request, &ProcessEnv));
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

/// What the server binds: the backend, the data plane, the stopped document's `state`, and the
/// coverage summary (`None` when replay serves).
struct Bound {
    backend: Arc<dyn ToolBackend>,
    data_plane: Arc<dyn DataPlane>,
    state: Value,
    coverage: Option<Value>,
}

async fn serve(mut request: ServeRequest, env: &dyn EnvSource) -> Result<(), CommandFailure> {
    let mut stop = Box::pin(server::stop_signals().map_err(|error| refused(error.refusal()))?);
    let (loader, state_file) = (request.loader, request.state_file.take());
    let loading = tokio::task::spawn_blocking(move || load_with_state(state_file, loader));
    let loaded = tokio::select! {
        loaded = loading => match loaded {
            Ok(result) => result.map_err(|refusal| refused(*refusal))?,
            Err(error) => return Err(refused(Refusal::internal(format!("loading failed: {error}")))),
        },
        signal = &mut stop => return Err(cancelled(signal, "input loading")),
    };
    check_peak(request.memory, "load")?;
    if !request.replay_only {
        warn_on_other_template_rules(&request.pipeline_template_rules, &loaded);
    }
    let name = environment_name(request.name.clone(), &loaded, env)?;
    let bound = tokio::select! {
        bound = prepare(
            loaded,
            &name,
            request.replay_only,
            Arc::clone(&request.rules),
            request.limits.sources.clone(),
        ) => bound?,
        signal = &mut stop => return Err(cancelled(signal, "state derivation")),
    };
    check_peak(request.memory, "state")?;
    rea_serve::check_card_agrees(bound.backend.as_ref())
        .map_err(|error| refused(error.refusal()))?;
    let tool_count = bound.backend.tools().len();

    let listener = tokio::select! {
        listener = server::bind(&request.listen) => listener.map_err(|error| match error {
            rea_serve::ServeError::Configuration { .. } => {
                CommandFailure::configuration(vec![error.refusal()], true)
            }
            other => refused(other.refusal()),
        })?,
        signal = &mut stop => return Err(cancelled(signal, "binding")),
    };
    let url = listener.url.clone();
    crate::commands::serve::announce(
        request.announce,
        &name,
        &url,
        tool_count,
        &bound.state,
        bound.coverage.as_ref(),
    )?;
    let shutdown = ShutdownToken::new();
    let journal = Arc::new(Journal::new(request.journal));
    let options = app_options(
        &request.listen,
        &request.limits,
        request.keep_credentials,
        shutdown.clone(),
        Arc::clone(&journal),
    );
    let app = rea_serve::app_with_mcp_lane(bound.backend, bound.data_plane, options);
    let signal = server::serve_with(
        listener,
        app,
        shutdown,
        stop,
        request.limits.timeouts.header,
    )
    .await
    .map_err(|error| refused(error.refusal()))?;
    let stopped = server::stopped_document(signal, &name, &url, tool_count, bound.state);
    crate::commands::serve::report_stop(request.announce, &stopped, journal.recent(0).1)?;
    Err(CommandFailure::signalled(signal.exit_code()))
}

/// The state derives with the manifest's template rules (the spec's contract); a pipeline
/// naming others says so once, when a state is derived at all.
fn warn_on_other_template_rules(pipeline_rules: &[String], loaded: &Loaded) {
    if pipeline_rules != loaded.manifest.template_rules {
        tracing::warn!(
            pipeline = pipeline_rules.join(",").as_str(),
            manifest = loaded.manifest.template_rules.join(",").as_str(),
            "the pipeline's template rules differ from the manifest's; the state derives with the manifest's"
        );
    }
}

/// The served environment's name: `--name`, the loaded bundle's, or the environment's own,
/// overridden by the environment variable; a name the discovery document reserves is refused.
fn environment_name(
    requested: Option<String>,
    loaded: &Loaded,
    env: &dyn EnvSource,
) -> Result<String, CommandFailure> {
    let default_name = requested
        .or_else(|| loaded.name.clone())
        .unwrap_or_else(|| loaded.environment.name().to_owned());
    let name = rea_serve::config::environment_name(&default_name, env)
        .map_err(|error| CommandFailure::configuration(vec![error.refusal()], true))?;
    loaded
        .environment
        .check_discovery_reservation(&name)
        .map_err(refused)?;
    Ok(name)
}

/// The served app's options from the request's listen, limit and credential settings.
fn app_options(
    listen: &ListenConfig,
    limits: &ServeLimits,
    keep_credentials: bool,
    shutdown: ShutdownToken,
    journal: Arc<Journal>,
) -> AppOptions {
    AppOptions {
        allowed_hosts: listen.allowed_hosts.clone(),
        shutdown,
        limits: DataPlaneLimits {
            body_timeout: limits.timeouts.body,
            ..DataPlaneLimits::default()
        },
        sessions: limits.sessions,
        keep_credentials,
        journal,
    }
}

/// Prepares what to serve: replay with `--replay-only`, else the state derived in-process (an
/// unavailable state, logged by `rea_backends::prepare`, serves replay).
async fn prepare(
    loaded: Loaded,
    name: &str,
    replay_only: bool,
    rules: Arc<rea_state::rules::RuleSet>,
    sources: rea_backends::fetch::SourceAllowList,
) -> Result<Bound, CommandFailure> {
    if replay_only {
        let state = json!({ "served": false, "reason": "replay-only" });
        return Ok(Bound {
            backend: Arc::new(ReplayBackend::new(loaded.environment, name)),
            data_plane: Arc::new(ReplayDataPlane::new(state.clone())),
            state,
            coverage: None,
        });
    }
    let served_name = name.to_owned();
    let serving = tokio::task::spawn_blocking(move || {
        let options = rea_backends::fetch::FetchOptions {
            allow: sources,
            ..rea_backends::fetch::FetchOptions::default()
        };
        match loaded.capture {
            CaptureSource::Evidence(capture) => rea_backends::prepare_with(
                loaded.environment,
                &loaded.manifest,
                &capture,
                &served_name,
                rules,
                options,
            ),
            CaptureSource::Precomputed(stored) => rea_backends::prepare_precomputed(
                loaded.environment,
                &loaded.manifest,
                &served_name,
                rules,
                options,
                *stored,
            ),
        }
    })
    .await
    .map_err(|error| {
        refused(Refusal::internal(format!(
            "deriving the state failed: {error}"
        )))
    })?;
    Ok(match serving {
        rea_backends::Serving::State {
            backend,
            plane,
            report,
            ..
        } => Bound {
            coverage: Some(rea_state::coverage::summary(backend.service().derived())),
            backend,
            data_plane: plane,
            state: report,
        },
        rea_backends::Serving::Replay {
            environment,
            report,
            ..
        } => Bound {
            backend: Arc::new(ReplayBackend::new(environment, name)),
            data_plane: Arc::new(ReplayDataPlane::new(report.clone())),
            state: report,
            coverage: None,
        },
    })
}

/// Loads from a precomputed state file when one is given and usable ([`load_precomputed`]);
/// otherwise (a warning says why) with the loader, the state then being derived.
fn load_with_state(state_file: Option<StateFile>, loader: Loader) -> Result<Loaded, Box<Refusal>> {
    if let Some(file) = state_file {
        match load_precomputed(&file) {
            Ok(loaded) => return Ok(loaded),
            Err(reason) => tracing::warn!(
                path = file.path.display().to_string().as_str(),
                reason = reason.as_str(),
                "the precomputed state is not used; deriving the state"
            ),
        }
    }
    loader()
}

/// Loads a server's inputs from a precomputed state file ([`rea_state::precomputed`]): the
/// manifest Evidence is read and authenticated; the capture Evidence file is only hashed (its
/// bytes must be those the state was derived from, which the bundle's build authenticated); the
/// replay environment is built from the manifest and the records the file keeps. `Err` says why
/// the file cannot be used.
pub fn load_precomputed(file: &StateFile) -> Result<Loaded, String> {
    // The evidence file is hashed through a bounded buffer (never held whole: the server never
    // parses it) on a second thread while the manifest is read.
    let (evidence_sha256, manifest) = std::thread::scope(|scope| {
        let digest = scope.spawn(|| {
            rea_evidence::sha256_bounded(
                &file.evidence,
                rea_evidence::envelope::EVIDENCE_FILE_MAX_BYTES,
            )
        });
        let manifest = read_manifest(file);
        (digest.join(), manifest)
    });
    let evidence_sha256 = evidence_sha256
        .map_err(|_| "the capture Evidence could not be hashed".to_owned())?
        .map_err(|refusal| format!("the capture Evidence cannot be read: {}", refusal.message))?;
    let (manifest, manifest_id) = manifest?;
    let expected = rea_state::precomputed::ExpectedInputs {
        evidence_sha256: &evidence_sha256,
        manifest_evidence_id: &manifest_id,
        provenance: &file.provenance,
    };
    // The state file is read value by value (its bytes are never held whole), its records as a
    // server reads them.
    let limit = rea_evidence::envelope::EVIDENCE_FILE_MAX_BYTES
        + rea_state::evidence::DERIVATION_BUDGET_BYTES
        + 64 * 1024;
    let stored = rea_evidence::read_bounded_with(&file.path, limit, |reader| {
        rea_state::precomputed::read_served_from(reader, &expected)
    })
    .map_err(|refusal| format!("the precomputed state cannot be read: {}", refusal.message))??;
    // Refuses a manifest whose parent is not the state's capture, or citing a record not kept.
    let environment = Environment::new(
        &manifest,
        &stored.capture_evidence_id,
        stored.records.iter().cloned(),
    )
    .map_err(|refusal| format!("its records do not serve the manifest: {}", refusal.message))?;
    Ok(Loaded {
        environment,
        manifest,
        capture: CaptureSource::Precomputed(Box::new(stored)),
        name: None,
    })
}

/// The manifest a precomputed state must have been derived for, with its Evidence id.
fn read_manifest(file: &StateFile) -> Result<(rea_manifest::Manifest, String), String> {
    let manifest = Evidence::read_file(
        &file.manifest,
        rea_evidence::envelope::EVIDENCE_FILE_MAX_BYTES,
    )
    .and_then(|evidence| rea_manifest::evidence::read_manifest(&evidence))
    .map_err(|refusal| format!("the manifest cannot be read: {}", refusal.message))?;
    let manifest_id = rea_manifest::evidence::sealed_manifest_id(&manifest)
        .map_err(|refusal| format!("the manifest cannot be sealed: {}", refusal.message))?;
    Ok((manifest, manifest_id))
}

/// Reads both Evidence files once, authenticates them, and builds the replay environment; the
/// manifest and the capture Evidence are kept for deriving the state.
pub fn load(
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

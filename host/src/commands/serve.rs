//! `rea serve INPUT [--port P] [--host H] [--pipeline FILE] [--name N] [--replay-only] [--json]
//! [--quiet]`:
//! the one command from a recording to a served environment. INPUT is
//!
//! - a HAR file (`.har`): inspected and projected in memory, as `environment-build` does;
//! - capture Evidence (`.json`, from `inspect-web-network-capture`): projected in memory;
//! - a browser scenario (`SCENARIO.json`: `browser`, `start_url`, `actions`): recorded first, as
//!   `rea capture-browser-scenario` records it (Chromium driven through its steps, secrets
//!   replaced by their markers, the browser closed and its temporary profile deleted), the
//!   capture Evidence kept in memory and projected; a scenario problem exits 2 and starts no
//!   browser, a failed recording exits 1 and serves nothing, a signal while recording exits 130
//!   or 143;
//! - a bundle folder (`environment-build`'s output, or its `envs/NAME` folder): its
//!   `manifest.json`, `evidence.json`, `pipeline.toml` and precomputed `state.json`, served under
//!   the bundle's name, as its Dockerfile serves them (the state is read from `state.json` when it
//!   was derived from these inputs by this build; otherwise a warning says why and it is derived).
//!
//! A HAR document saved as `.json`, a manifest Evidence file and any other extension are refused
//! with a hint of what to do instead.
//!
//! Then it serves exactly as `rea environment-serve` does (the same code, [`run_server`]): from
//! the state, or replay with `--replay-only` or when the state is unavailable; SIGINT/SIGTERM stop
//! it (exit 130/143). On stdout it prints the addresses (MCP, card, status page, data plane) and
//! the coverage table, then one line when it stops; `--json` prints a `listening` document and
//! the stopped document instead. Logging: the `MCP transport listening` JSON line and warnings go
//! to stderr, at `warn` on a terminal (so a person sees the text alone) and `info` otherwise;
//! `REA_LOG_LEVEL` overrides both. While a HAR is read, the share read goes to stderr as
//! `environment-build` shows it (a bar after the first second on a terminal, `progress` JSON
//! lines otherwise); `--quiet` leaves it out.
//!
//! Names: `--name`, else the bundle's (`env.toml`'s `environment_name`, else its folder), else as
//! `environment-build` names a capture (the manifest's, or for a loopback origin the capture file
//! or the folder holding a generically named one); `ENVIRONMENT_NAME` overrides all, as for
//! `environment-serve`.

#![allow(clippy::result_large_err)]

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use rea_evidence::{Evidence, Refusal};
use rea_manifest::{Environment, TemplateRules, project_manifest_evidence};
use serde_json::{Value, json};

use crate::commands::environment_serve::{
    Announce, CaptureSource, JournalArgs, Loaded, Loader, ServeRequest, StateFile, listen_config,
    run_server, serve_limits,
};
use crate::commands::inspect_capture::{InspectRequest, inspect_reporting};
use crate::output::{CommandFailure, print_json, write_stdout};
use crate::progress::{Interrupt, Progress};

/// The stage of `rea serve`'s own refusals.
pub const STAGE: &str = "serve";

/// Arguments of `rea serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// What to serve: CAPTURE.har, capture Evidence CAPTURE.json, a browser scenario
    /// SCENARIO.json (recorded first), or a bundle folder.
    #[arg(value_name = "CAPTURE.har|CAPTURE.json|SCENARIO.json|BUNDLE_DIR")]
    pub input: PathBuf,
    /// The port to bind (default: `MCP_PORT`, else the pipeline's `[serve]` port, else an
    /// ephemeral port).
    #[arg(long, short = 'p')]
    pub port: Option<u16>,
    /// The host to bind (default: `MCP_HOST`, else 127.0.0.1).
    #[arg(long)]
    pub host: Option<String>,
    /// The pipeline (default: the bundle's `pipeline.toml`, else the embedded pipeline).
    #[arg(long, value_name = "FILE")]
    pub pipeline: Option<PathBuf>,
    /// The served environment name (default: the bundle's, else the capture's).
    #[arg(long, value_name = "N")]
    pub name: Option<String>,
    /// Serve replay only: every tool replays its recorded records.
    #[arg(long)]
    pub replay_only: bool,
    /// Answer credential-named values the recording holds as recorded (default: "[redacted]").
    #[arg(long)]
    pub keep_credentials: bool,
    /// Print JSON documents on stdout (listening, then stopped) instead of text.
    #[arg(long)]
    pub json: bool,
    /// No progress on stderr while a HAR is read (refusals, warnings and the journal still are).
    #[arg(long)]
    pub quiet: bool,
    /// The request journal on stderr.
    #[command(flatten)]
    pub journal: JournalArgs,
    /// Refuse (`resource_constraint`, before binding) rather than pass this much memory while
    /// starting: an input needing more is refused before it is read (a HAR at 3x its size), and
    /// the peak resident memory is checked after loading and after preparing the state. Bytes,
    /// or K, M, G (binary units).
    #[arg(long, value_name = "SIZE", value_parser = crate::memory_limit::parse_size)]
    pub max_memory: Option<u64>,
}

/// Runs `rea serve`.
pub fn run(args: &ServeArgs) -> Result<(), CommandFailure> {
    let failed = |refusal: Refusal| CommandFailure::refused(refusal.in_stage(STAGE), args.json);
    // An input kind rea does not read is a usage mistake (exit 2), as a missing file is.
    let input = Input::of(&args.input).map_err(|refusal| {
        match (refusal.category.as_str(), refusal.code.as_str()) {
            ("configuration", _) | (_, "unsupported_target") => {
                CommandFailure::configuration(vec![refusal.in_stage(STAGE)], args.json)
            }
            _ => failed(refusal),
        }
    })?;
    if let Some(name) = &args.name {
        rea_bundle::check_name(name).map_err(failed)?;
    }
    let memory = args.max_memory.map(crate::memory_limit::MemoryLimit::new);
    let (files, factor) = input.files();
    let files: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    super::environment_serve::check_inputs(memory, &files, factor, STAGE)
        .map_err(|refusal| CommandFailure::refused(refusal, args.json))?;
    let env = rea_serve::config::ProcessEnv;
    let level = log_level(&env).map_err(|error| {
        CommandFailure::configuration(vec![error.refusal().in_stage(STAGE)], args.json)
    })?;
    let pipeline_path = args.pipeline.clone().or_else(|| input.bundled_pipeline());
    let mut registry =
        crate::builtin_registry().map_err(|error| failed(Refusal::internal(error.to_string())))?;
    let (pipeline, rules) =
        rea_state::rules::load_pipeline(pipeline_path.as_deref(), &mut registry).map_err(
            |refusal| CommandFailure::configuration(vec![refusal.in_stage(STAGE)], args.json),
        )?;
    let listen = listen_config(args.host.as_deref(), args.port, &pipeline, &env)?;
    let limits = serve_limits(&env)?;
    rea_serve::logging::init(level);
    let input = input.recorded(args.json)?;
    let name = args.name.clone().or_else(|| input.bundle_name());
    let template_rules = pipeline.template_rules.clone();
    let state_file = input
        .bundled_state()
        .filter(|_| !args.replay_only)
        .map(|path| StateFile {
            manifest: path.with_file_name("manifest.json"),
            evidence: path.with_file_name("evidence.json"),
            path,
            provenance: crate::provenance::provenance(&pipeline, &registry),
        });
    let loader = input.loader(registry, pipeline, args.name.clone(), args.quiet);
    run_server(ServeRequest {
        loader,
        replay_only: args.replay_only,
        listen,
        limits,
        keep_credentials: args.keep_credentials,
        rules: Arc::new(rules),
        pipeline_template_rules: template_rules,
        name,
        announce: if args.json {
            Announce::Json
        } else {
            Announce::Text
        },
        journal: args.journal.echo(),
        state_file,
        memory,
    })
}

/// `REA_LOG_LEVEL`, else `warn` on a terminal (the text is for a person) and `info` otherwise.
fn log_level(
    env: &dyn rea_serve::config::EnvSource,
) -> Result<tracing::level_filters::LevelFilter, rea_serve::ServeError> {
    let set = env
        .var("REA_LOG_LEVEL")
        .is_some_and(|level| !level.trim().is_empty());
    if !set && std::io::stderr().is_terminal() {
        return Ok(tracing::level_filters::LevelFilter::WARN);
    }
    rea_serve::config::log_level(env)
}

/// What `rea serve` was given.
#[derive(Debug, Clone, PartialEq)]
enum Input {
    Har(PathBuf),
    Evidence(PathBuf),
    Scenario(PathBuf),
    /// A scenario once recorded: its capture Evidence, and the scenario file.
    Recorded(Box<Evidence>, PathBuf),
    Bundle {
        env: PathBuf,
        name: String,
    },
}

impl Input {
    /// The input's kind, from the folder or the file extension (and, for `.json`, its content).
    fn of(path: &Path) -> Result<Self, Refusal> {
        let metadata = std::fs::metadata(path).map_err(|error| {
            let hint =
                "pass a .har file, capture Evidence (.json), a browser scenario (.json) or a bundle folder";
            match error.kind() {
                std::io::ErrorKind::NotFound => {
                    let refusal = Refusal::missing_file(&path.display().to_string());
                    let message = format!("{}; {hint}", refusal.message);
                    Refusal { message, ..refusal }
                }
                _ => Refusal::invalid_request(format!(
                    "{} cannot be read: {error}; {hint}",
                    path.display()
                )),
            }
            .at("/input")
        })?;
        if metadata.is_dir() {
            return bundle_env(path);
        }
        let extension = path
            .extension()
            .map(|extension| extension.to_string_lossy().to_ascii_lowercase());
        match extension.as_deref() {
            Some("har") => Ok(Self::Har(path.to_path_buf())),
            Some("json") => json_kind(path),
            _ => Err(Refusal::unsupported_target(format!(
                "{} is neither a .har file, capture Evidence (.json) nor a bundle folder; record the application as a HAR (the browser's developer tools: Network, \"Save all as HAR\") and pass that file",
                path.display()
            ))
            .at("/input")),
        }
    }

    /// A browser scenario recorded (see [`crate::commands::capture_scenario::record_capture`]);
    /// any other input as it is.
    fn recorded(self, json_errors: bool) -> Result<Self, CommandFailure> {
        let Self::Scenario(path) = self else {
            return Ok(self);
        };
        let output =
            crate::commands::capture_scenario::record_capture(&path, json_errors, !json_errors)?;
        let evidence = output
            .into_evidence()
            .map_err(|refusal| CommandFailure::refused(refusal.in_stage(STAGE), json_errors))?;
        Ok(Self::Recorded(Box::new(evidence), path))
    }

    /// The bundle's pipeline, when the input is a bundle that carries one.
    fn bundled_pipeline(&self) -> Option<PathBuf> {
        match self {
            Self::Bundle { env, .. } => {
                Some(env.join("pipeline.toml")).filter(|path| path.is_file())
            }
            _ => None,
        }
    }

    /// The bundle's precomputed state (`state.json`), when the input is a bundle that carries one.
    fn bundled_state(&self) -> Option<PathBuf> {
        match self {
            Self::Bundle { env, .. } => {
                Some(env.join(rea_bundle::content::STATE_FILE)).filter(|path| path.is_file())
            }
            _ => None,
        }
    }

    /// The files loading the input reads, and what reading them costs at the least per byte
    /// (`--max-memory`'s estimate): a HAR is inspected into Evidence first; a scenario is
    /// recorded (nothing to estimate before).
    fn files(&self) -> (Vec<PathBuf>, u64) {
        match self {
            Self::Har(path) => (vec![path.clone()], crate::memory_limit::BUILD_INPUT_FACTOR),
            Self::Evidence(path) => (vec![path.clone()], 1),
            Self::Bundle { env, .. } => {
                let named = [
                    "manifest.json",
                    "evidence.json",
                    rea_bundle::content::STATE_FILE,
                ];
                (named.iter().map(|name| env.join(name)).collect(), 1)
            }
            Self::Scenario(_) | Self::Recorded(..) => (Vec::new(), 1),
        }
    }

    /// The bundle's name, when the input is a bundle.
    fn bundle_name(&self) -> Option<String> {
        match self {
            Self::Bundle { name, .. } => Some(name.clone()),
            _ => None,
        }
    }

    /// The loader of what to serve. A capture is projected with the pipeline's template rules
    /// and named as `environment-build` names it.
    fn loader(
        self,
        registry: rea_registry::Registry,
        pipeline: rea_pipeline::Pipeline,
        explicit: Option<String>,
        quiet: bool,
    ) -> Loader {
        Box::new(move || {
            let (capture, path) = match self {
                Self::Bundle { env, .. } => return load_bundle(&env),
                Self::Har(path) => (inspect_har(&registry, &pipeline, &path, quiet)?, path),
                Self::Evidence(path) => (
                    Evidence::read_file(&path, rea_evidence::envelope::EVIDENCE_FILE_MAX_BYTES)?,
                    path,
                ),
                Self::Recorded(evidence, path) => (*evidence, path),
                Self::Scenario(path) => {
                    return Err(Box::new(Refusal::internal(format!(
                        "the browser scenario {} was not recorded before serving",
                        path.display()
                    ))));
                }
            };
            project(capture, (&pipeline, &registry), &path, explicit.as_deref())
        })
    }
}

/// The env folder of a bundle folder (`BUNDLE/envs/NAME`, the only one), or the folder itself
/// when it holds `manifest.json` and `evidence.json`.
fn bundle_env(path: &Path) -> Result<Input, Refusal> {
    let holds =
        |dir: &Path| dir.join("manifest.json").is_file() && dir.join("evidence.json").is_file();
    let env = if holds(path) {
        path.to_path_buf()
    } else {
        let envs: Vec<PathBuf> = std::fs::read_dir(path.join("envs"))
            .map(|entries| {
                entries
                    .filter_map(Result::ok)
                    .map(|entry| entry.path())
                    .filter(|dir| holds(dir))
                    .collect()
            })
            .unwrap_or_default();
        match envs.as_slice() {
            [env] => env.clone(),
            [] => {
                return Err(Refusal::invalid_request(format!(
                    "{} is not a bundle: it has no envs/NAME/ folder holding manifest.json and evidence.json; build one with `rea environment-build CAPTURE.har {}`, or pass the capture itself",
                    path.display(),
                    path.display()
                ))
                .at("/input"));
            }
            _ => {
                return Err(Refusal::invalid_request(format!(
                    "{} holds {} envs; pass the one to serve (for example {})",
                    path.display(),
                    envs.len(),
                    envs[0].display()
                ))
                .at("/input"));
            }
        }
    };
    let name = bundle_env_name(&env);
    Ok(Input::Bundle { env, name })
}

/// The bundle's name: `env.toml`'s `environment_name`, else the env folder's name.
fn bundle_env_name(env: &Path) -> String {
    let declared = std::fs::read_to_string(env.join("env.toml"))
        .ok()
        .and_then(|text| text.parse::<toml::Table>().ok())
        .and_then(|table| {
            table
                .get("environment_name")
                .and_then(toml::Value::as_str)
                .map(str::to_owned)
        });
    declared.unwrap_or_else(|| {
        std::path::absolute(env)
            .ok()
            .and_then(|env| {
                env.file_name()
                    .map(|name| name.to_string_lossy().into_owned())
            })
            .unwrap_or_default()
    })
}

/// What a `.json` input is: capture Evidence, or a refusal naming what it is instead.
fn json_kind(path: &Path) -> Result<Input, Refusal> {
    #[derive(serde::Deserialize)]
    struct JsonInputMembers {
        log: Option<serde::de::IgnoredAny>,
        actions: Option<serde::de::IgnoredAny>,
        start_url: Option<serde::de::IgnoredAny>,
        operation: Option<String>,
        view: Option<serde::de::IgnoredAny>,
    }
    let shape = std::fs::File::open(path).ok().and_then(|file| {
        serde_json::from_reader::<_, JsonInputMembers>(std::io::BufReader::new(file)).ok()
    });
    let Some(shape) = shape else {
        // Not an object of these members: capture Evidence reading refuses it precisely.
        return Ok(Input::Evidence(path.to_path_buf()));
    };
    let shown = path.display();
    if shape.log.is_some() {
        return Err(Refusal::unsupported_target(format!(
            "{shown} is a HAR document saved as .json: name it .har (for example {}) and serve that",
            path.with_extension("har").display()
        ))
        .at("/input"));
    }
    if shape.actions.is_some() && shape.start_url.is_some() {
        return Ok(Input::Scenario(path.to_path_buf()));
    }
    if shape.operation.as_deref() == Some(rea_manifest::evidence::VIEW_OPERATION)
        || shape.view.is_some()
    {
        return Err(Refusal::unsupported_target(format!(
            "{shown} is view Evidence (a manifest), not a capture: serve it with `rea environment-serve {shown} --evidence CAPTURE.json`, or pass the capture (.har or its Evidence) to `rea serve`"
        ))
        .at("/input"));
    }
    Ok(Input::Evidence(path.to_path_buf()))
}

/// Inspects a HAR file as `inspect-web-network-capture` does, with the pipeline's extractor,
/// showing the share read as `environment-build` does (unless `quiet`).
fn inspect_har(
    registry: &rea_registry::Registry,
    pipeline: &rea_pipeline::Pipeline,
    path: &Path,
    quiet: bool,
) -> Result<Evidence, Box<Refusal>> {
    rea_bundle::headroom::check_file_fits("the HAR file", path)?;
    let Some(extractor) = pipeline.capture_extractors.get("har") else {
        return Err(Box::new(Refusal::configuration_invalid(
            "the pipeline binds no capture extractor to `har` inputs; add `har = \"har\"` under [capture.extractors]",
        )));
    };
    let mut progress = Progress::start(Interrupt::never(), quiet);
    let inspected = inspect_reporting(
        registry,
        &extractor.stage,
        &InspectRequest {
            capture: path,
            input_kind: "har",
            selection: None,
            sensitive_values: &[],
        },
        &mut |done, total| progress.bytes("inspect", done, total),
    );
    progress.finish();
    Ok(inspected?)
}

/// Projects the manifest from capture Evidence with the pipeline's template rules and route forms;
/// names the environment as `environment-build` would (`--name`, the manifest, the capture file).
fn project(
    capture: Evidence,
    (pipeline, registry): (&rea_pipeline::Pipeline, &rea_registry::Registry),
    path: &Path,
    explicit: Option<&str>,
) -> Result<Loaded, Box<Refusal>> {
    let rules = TemplateRules::parse(&pipeline.template_rules)
        .map_err(|error| {
            Refusal::configuration_invalid(format!(
                "the pipeline's template rules are not valid: {error}"
            ))
        })?
        .with_route_forms(rea_state::rules::route_form_handles(pipeline, registry)?)
        .with_sibling_transfer(pipeline.sibling_transfer);
    let (_, manifest_evidence) = project_manifest_evidence(&capture, &rules)?;
    let environment = Environment::from_evidence(&manifest_evidence, &capture)?;
    let manifest = rea_manifest::evidence::read_manifest(&manifest_evidence)?;
    let chosen = rea_bundle::choose_name(
        explicit,
        &manifest.name,
        &manifest.primary_origin,
        &rea_bundle::LocalOriginName::File(path.to_path_buf()),
    )?;
    if let Some(message) = chosen.generic.as_deref().or(chosen.from_file.as_deref()) {
        tracing::info!(name = chosen.name.as_str(), "{message}");
    }
    Ok(Loaded {
        environment,
        manifest,
        capture: CaptureSource::Evidence(capture),
        name: Some(chosen.name),
    })
}

/// Reads a bundle's pair as its Dockerfile serves it.
fn load_bundle(env: &Path) -> Result<Loaded, Box<Refusal>> {
    let (environment, manifest, capture) = crate::commands::environment_serve::load(
        &env.join("manifest.json"),
        &env.join("evidence.json"),
    )?;
    Ok(Loaded {
        environment,
        manifest,
        capture: CaptureSource::Evidence(capture),
        name: None,
    })
}

/// Announces a bound server on stdout (see [`Announce`]).
pub fn announce(
    announce: Announce,
    name: &str,
    url: &str,
    tool_count: usize,
    state: &Value,
    coverage: Option<&Value>,
) -> Result<(), CommandFailure> {
    let base = url.strip_suffix("/mcp").unwrap_or(url);
    match announce {
        Announce::Log => Ok(()),
        Announce::Json => print_json(&json!({
            "status": "listening",
            "name": name,
            "url": url,
            "card": format!("{base}/.well-known/agent-env.json"),
            "status_page": format!("{base}/"),
            "data_plane": format!("{base}/agentenv"),
            "tool_count": tool_count,
            "state": state,
            "coverage": coverage,
        })),
        Announce::Text => {
            let serves = if state.get("served") == Some(&Value::Bool(true)) {
                "from the state".to_owned()
            } else {
                format!(
                    "replay ({})",
                    state
                        .get("message")
                        .or_else(|| state.get("reason"))
                        .and_then(Value::as_str)
                        .unwrap_or("the state is unavailable")
                )
            };
            let mut text = format!(
                "serving {name}: {tool_count} tools, {serves}\n  MCP     {url}\n  card    {base}/.well-known/agent-env.json\n  status  {base}/\n  data    {base}/agentenv\n"
            );
            match coverage {
                Some(coverage) => {
                    text.push_str(&rea_backends::status::coverage_table(coverage).to_text())
                }
                None => text.push_str("coverage: none, every tool replays its recordings\n"),
            }
            text.push_str("Ctrl-C stops it.\n");
            write_stdout(text.as_bytes())
        }
    }
}

/// Reports the stop on stdout: the stopped document (`environment-serve`, `--json`) or a line
/// with the number of calls served.
pub fn report_stop(announce: Announce, stopped: &Value, calls: u64) -> Result<(), CommandFailure> {
    match announce {
        Announce::Log | Announce::Json => print_json(stopped),
        Announce::Text => write_stdout(
            format!(
                "stopped ({}): {} after {calls} call{}\n",
                stopped["signal"].as_str().unwrap_or_default(),
                stopped["name"].as_str().unwrap_or_default(),
                if calls == 1 { "" } else { "s" }
            )
            .as_bytes(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_told_apart_by_folder_extension_and_content() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            path
        };
        let har = write("a.har", "{}");
        assert_eq!(Input::of(&har).unwrap(), Input::Har(har.clone()));
        let evidence = write(
            "capture.json",
            r#"{"evidence_id": "ev_x", "operation": "inspect_web_network_capture"}"#,
        );
        assert_eq!(
            Input::of(&evidence).unwrap(),
            Input::Evidence(evidence.clone())
        );
        let scenario = write(
            "s.json",
            r#"{"browser": {}, "start_url": {"url": "http://x"}, "actions": []}"#,
        );
        assert_eq!(
            Input::of(&scenario).unwrap(),
            Input::Scenario(scenario.clone())
        );
        let saved = write("h.json", r#"{"log": {"entries": []}}"#);
        assert!(
            Input::of(&saved)
                .unwrap_err()
                .message
                .contains("name it .har")
        );
        let other = write("c.txt", "");
        assert_eq!(Input::of(&other).unwrap_err().code, "unsupported_target");
        let refusal = Input::of(&dir.path().join("missing.har")).unwrap_err();
        assert_eq!(refusal.code, "invalid_request");
        assert!(refusal.is_missing_file(), "{refusal:?}");
        // A folder that is no bundle, one bundle, an env folder.
        assert!(
            Input::of(dir.path())
                .unwrap_err()
                .message
                .contains("environment-build")
        );
        let env = dir.path().join("b/envs/wiki");
        std::fs::create_dir_all(&env).unwrap();
        for file in ["manifest.json", "evidence.json"] {
            std::fs::write(env.join(file), "{}").unwrap();
        }
        std::fs::write(env.join("env.toml"), "environment_name = \"my-wiki\"\n").unwrap();
        let bundle = Input::of(&dir.path().join("b")).unwrap();
        assert_eq!(
            bundle,
            Input::Bundle {
                env: env.clone(),
                name: "my-wiki".to_owned()
            }
        );
        std::fs::remove_file(env.join("env.toml")).unwrap();
        assert_eq!(
            Input::of(&env).unwrap(),
            Input::Bundle {
                env: env.clone(),
                name: "wiki".to_owned()
            }
        );
    }
}

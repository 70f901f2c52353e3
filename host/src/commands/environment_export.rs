//! `rea environment-export MANIFEST.json --evidence CAPTURE.json DIR [--name N] [--binary PATH]
//! [--pipeline FILE] [--json]`: write a manifest and its capture as an agentenv bundle
//! ([`rea_bundle`]).
//!
//! Order of work, every refusal before anything is written: the directory (absent with an
//! existing parent, or empty), the name when given, the pipeline (validated whole, its plugin
//! libraries loaded and read), the binary (the running one, or `--binary`, hashed), then the two
//! Evidence files, each read once within its bound and authenticated from the bytes the bundle
//! copies, and cross-checked as `environment-serve` checks them (a manifest of another capture is
//! `invalid_request` naming both ids). Then the bundle is planned (name, what it serves, warnings)
//! and written. SIGINT or SIGTERM cancels (`cancelled`, exit 130 or 143); during the write, the
//! refusal names the bundle and the files written, and nothing is left (the bundle is written
//! into a staging folder renamed at the end; see [`super::interrupt`]).
//!
//! Without `--json` a short text report goes to stdout; with it, the JSON report (see
//! [`rea_bundle::export`]) and refusals as JSON lines on stderr. Stage progress goes to stderr: a
//! progress bar on a terminal, JSON log lines otherwise.
//!
//! Decisions: without `--name` the env is named by the manifest even for a loopback origin (the
//! build names such an env after its capture file); the bundle's `bin/rea` is the running binary
//! unless `--binary` names a Linux build for the image; the pipeline is the embedded default
//! unless `--pipeline` is given, and the bundle always carries it as `pipeline.toml`.

#![allow(clippy::result_large_err)]

use std::path::{Path, PathBuf};

use clap::Args;
use rea_bundle::{
    AuthenticatedPair, BundlePipeline, BundledBinary, Destination, EXPORT_STAGE, ExportRequest,
    LocalOriginName, PipelineLibrary, ServeCommand, Stages, Target,
};
use rea_evidence::envelope::EVIDENCE_FILE_MAX_BYTES;
use rea_evidence::{Refusal, read_bounded};
use rea_registry::Registry;
use serde_json::Value;

pub use crate::commands::interrupt::Interrupt;
use crate::output::{CommandFailure, print_json, write_stdout};
pub use crate::progress::{Progress, Quiet};

/// Arguments of `rea environment-export`.
#[derive(Debug, Args)]
pub struct EnvironmentExportArgs {
    /// The manifest Evidence (`rea inspect-analysis-view` with an `environment-manifest` view).
    #[arg(value_name = "MANIFEST.json")]
    pub manifest: PathBuf,
    /// The capture Evidence the manifest was projected from.
    #[arg(long, value_name = "CAPTURE.json")]
    pub evidence: PathBuf,
    /// The bundle directory: absent (its parent existing) or empty.
    #[arg(value_name = "DIR")]
    pub directory: PathBuf,
    /// The env folder name and env id (default: the manifest's name).
    #[arg(long, value_name = "N")]
    pub name: Option<String>,
    /// The rea binary the bundle carries (default: this one); a Linux build for the image.
    #[arg(long, value_name = "PATH")]
    pub binary: Option<PathBuf>,
    /// The pipeline the bundle carries, with its plugin libraries (default: the embedded one).
    #[arg(long, value_name = "FILE")]
    pub pipeline: Option<PathBuf>,
    /// Print the JSON report (refusals as JSON lines on stderr).
    #[arg(long)]
    pub json: bool,
    /// No progress on stderr (refusals are still reported).
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// Runs `rea environment-export`.
pub fn run(args: &EnvironmentExportArgs) -> Result<(), CommandFailure> {
    let interrupt = Interrupt::install(args.json, EXPORT_STAGE);
    let mut progress = Progress::start(interrupt.clone(), args.quiet);
    let outcome = export(args, &mut progress);
    progress.finish();
    finish(outcome, args.json, &interrupt)
}

fn export(args: &EnvironmentExportArgs, progress: &mut Progress) -> Result<Value, Refusal> {
    let stage = |refusal: Refusal| refusal.in_stage(EXPORT_STAGE);
    let directory = absolute(&args.directory);
    rea_bundle::check_destination(&directory, Destination::AbsentOrEmpty).map_err(stage)?;
    if let Some(name) = &args.name {
        rea_bundle::check_name(name).map_err(stage)?;
    }
    progress.stage("pipeline", "loading the pipeline");
    let (pipeline, (registry, resolved)) =
        load_pipeline(args.pipeline.as_deref()).map_err(stage)?;
    let rules = state_rules(&registry, &resolved).map_err(stage)?;
    let provenance = crate::provenance::provenance(&resolved, &registry);
    progress.stage(
        "binary",
        "reading the rea binary and removing its debug information",
    );
    let binary = bundled_binary(args.binary.as_deref()).map_err(stage)?;
    progress.check().map_err(stage)?;

    progress.stage("read", "reading and authenticating the pair");
    let read = |path: &Path| {
        read_bounded(path, EVIDENCE_FILE_MAX_BYTES)
            .map(|file| file.bytes)
            .map_err(|refusal| {
                // The path joins what the refusal says already (a missing file's name).
                let mut refusal = stage(refusal);
                let data = refusal.data.get_or_insert_with(|| serde_json::json!({}));
                if let Some(data) = data.as_object_mut() {
                    data.insert("path".to_owned(), path.display().to_string().into());
                }
                refusal
            })
    };
    // Both inputs must fit the live heap headroom before either is read.
    rea_bundle::headroom::check_file_fits("the manifest file", &args.manifest).map_err(stage)?;
    rea_bundle::headroom::check_file_fits("the capture Evidence file", &args.evidence)
        .map_err(stage)?;
    let manifest_bytes = read(&args.manifest)?;
    let capture_bytes = read(&args.evidence)?;
    let (pair, environment) =
        AuthenticatedPair::authenticate(manifest_bytes, capture_bytes).map_err(stage)?;
    progress.check().map_err(stage)?;

    let request = ExportRequest {
        pair,
        projection: None,
        name: args.name.clone(),
        local_origin: LocalOriginName::Manifest,
        pipeline,
        rules,
        provenance: Some(provenance),
        binary,
        serve: serve_command(),
        target: Some(Target {
            directory,
            rule: Destination::AbsentOrEmpty,
        }),
        dry_run: false,
        input: "evidence",
        stages: Stages {
            checks: EXPORT_STAGE,
            bundle: EXPORT_STAGE,
            destination: EXPORT_STAGE,
        },
    };
    rea_bundle::export(request, environment, progress)
}

/// Prints the report (JSON, or text) or reports the refusal: exit 130 (SIGINT) or 143 (SIGTERM)
/// for a cancellation, naming the signal, 2 for a configuration problem (an invalid pipeline), 1
/// otherwise.
pub fn finish(
    outcome: Result<Value, Refusal>,
    json: bool,
    interrupt: &Interrupt,
) -> Result<(), CommandFailure> {
    interrupt.claim_report();
    match outcome {
        Ok(report) => {
            if json {
                print_json(&report)
            } else {
                write_stdout(text_report(&report).as_bytes())
            }
        }
        Err(refusal) => {
            let cancelled = refusal.code == "cancelled" || interrupt.fired();
            // A configuration mistake, or a capture of a kind the build does not read (its
            // extension, a HAR saved as `.json`, a browser scenario): usage mistakes, exit 2.
            let configuration = refusal.category == "configuration"
                || (refusal.code == "unsupported_target"
                    && refusal.pointer.as_deref() == Some("/capture"));
            let refusal = if cancelled && interrupt.fired() {
                interrupt.name_signal(refusal)
            } else {
                refusal
            };
            let mut failure = CommandFailure::refused(refusal, json);
            if cancelled {
                failure.exit = interrupt.exit_code();
            } else if configuration {
                failure.exit = CommandFailure::USAGE_EXIT;
            }
            Err(failure)
        }
    }
}

/// The text report: what was written or planned, what it serves and its coverage table, the
/// files, the warnings and what next.
pub fn text_report(report: &Value) -> String {
    let text = |pointer: &str| {
        report
            .pointer(pointer)
            .map(|value| match value {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            })
            .unwrap_or_default()
    };
    let serves = if report.pointer("/state/served") == Some(&Value::Bool(true)) {
        format!("from the state {}", text("/state/evidence_id"))
    } else {
        format!("replay: {} {}", text("/state/code"), text("/state/message"))
    };
    let mut out = format!(
        "{} {} ({} tools, {serves})\n",
        text("/status"),
        report
            .get("directory")
            .and_then(Value::as_str)
            .unwrap_or("(no directory)"),
        text("/tool_count"),
    );
    out.push_str(&format!(
        "  name {}\n  capture {} ({} records)\n  manifest {} ({} tools)\n",
        text("/name"),
        text("/capture/evidence_id"),
        text("/capture/records"),
        text("/manifest/evidence_id"),
        text("/manifest/tools"),
    ));
    out.push_str(&format!(
        "  package {} {} ({} bytes, SHA-256 {}{})\n",
        text("/package_source/kind"),
        text("/package_source/path"),
        text("/package_source/bytes"),
        text("/package_source/sha256"),
        match report.pointer("/package_source/debug_info/source_bytes") {
            Some(bytes) =>
                format!("; debug information and symbol table removed, {bytes} bytes with them"),
            None => String::new(),
        }
    ));
    match report
        .get("coverage")
        .filter(|coverage| !coverage.is_null())
    {
        Some(coverage) => out.push_str(&rea_backends::status::coverage_table(coverage).to_text()),
        None => out.push_str("coverage: none, the bundle serves replay\n"),
    }
    for file in array(report, "files") {
        out.push_str(&format!(
            "  {:>12}  {}\n",
            file.get("bytes").and_then(Value::as_u64).unwrap_or(0),
            file.get("path").and_then(Value::as_str).unwrap_or_default()
        ));
    }
    for warning in array(report, "warnings") {
        let member = |key: &str| warning.get(key).and_then(Value::as_str).unwrap_or_default();
        out.push_str(&format!(
            "warning {}: {}\n",
            member("code"),
            member("message")
        ));
        for item in array(warning, "items") {
            out.push_str(&format!("  {}\n", item.as_str().unwrap_or_default()));
        }
    }
    for next in array(report, "next") {
        out.push_str(&format!("next: {}\n", next.as_str().unwrap_or_default()));
    }
    out
}

/// The items of an array member (none when absent).
fn array<'a>(value: &'a Value, key: &str) -> impl Iterator<Item = &'a Value> {
    value
        .get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

/// A path made absolute against the working directory (not resolved: it may not exist yet).
pub fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The registry and pipeline a bundle is built with: the built-in plugins plus the pipeline's
/// libraries; the pipeline file (or the embedded default) is read once, validated whole, and
/// copied with its libraries for the bundle.
pub fn load_pipeline(
    path: Option<&Path>,
) -> Result<(BundlePipeline, (Registry, rea_pipeline::Pipeline)), Refusal> {
    let mut registry =
        crate::builtin_registry().map_err(|error| Refusal::internal(error.to_string()))?;
    let (text, origin, base) = match path {
        None => (
            rea_pipeline::DEFAULT_PIPELINE.to_owned(),
            rea_pipeline::DEFAULT_ORIGIN.to_owned(),
            PathBuf::from("."),
        ),
        Some(path) => {
            let file = read_bounded(path, 1024 * 1024)?;
            let text = String::from_utf8(file.bytes).map_err(|_| {
                Refusal::configuration_invalid(format!(
                    "the pipeline file {} is not UTF-8 text",
                    path.display()
                ))
            })?;
            let base = file
                .path
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| PathBuf::from("."));
            (text, path.display().to_string(), base)
        }
    };
    let invalid = |errors: rea_pipeline::PipelineErrors| {
        let diagnostics: Vec<String> = errors.0.iter().map(ToString::to_string).collect();
        Refusal::configuration_invalid(format!(
            "the pipeline is not valid: {}",
            diagnostics.join("; ")
        ))
        .with_data(serde_json::json!({ "diagnostics": diagnostics }))
    };
    let spec = rea_pipeline::parse(&text, &origin, &base).map_err(invalid)?;
    let pipeline = rea_pipeline::resolve(&spec, &mut registry).map_err(invalid)?;
    let libraries: Vec<PipelineLibrary> = pipeline
        .libraries
        .iter()
        .map(|library| PipelineLibrary {
            path: library.path.clone(),
            sha256: library.sha256.clone(),
        })
        .collect();
    let bundled = BundlePipeline::new(&text, &libraries)?;
    Ok((bundled, (registry, pipeline)))
}

/// The rule stages of a resolved pipeline, which the bundle's state learns write plans with.
pub fn state_rules(
    registry: &Registry,
    pipeline: &rea_pipeline::Pipeline,
) -> Result<std::sync::Arc<rea_state::rules::RuleSet>, Refusal> {
    rea_state::rules::RuleSet::from_pipeline(pipeline, registry).map(std::sync::Arc::new)
}

/// The binary the bundle carries: `--binary`, else the running one; read once, and shipped without
/// its debug sections ([`rea_bundle::strip`]).
pub fn bundled_binary(path: Option<&Path>) -> Result<BundledBinary, Refusal> {
    let (path, running) = match path {
        Some(path) => (absolute(path), false),
        None => (
            std::env::current_exe().map_err(|error| {
                Refusal::internal(format!("the running rea binary cannot be found: {error}"))
            })?,
            true,
        ),
    };
    match std::fs::metadata(&path) {
        Ok(metadata) if metadata.is_file() => {}
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err(
                Refusal::missing_file(&format!("the rea binary {}", path.display())).at("/binary"),
            );
        }
        _ => {
            return Err(Refusal::invalid_request(format!(
                "the rea binary {} is not a regular file",
                path.display()
            ))
            .at("/binary"));
        }
    }
    let version = running.then(|| env!("CARGO_PKG_VERSION").to_owned());
    BundledBinary::read(path, running, version)
}

/// The serve command the image runs: `--pipeline` and `--state` are passed when
/// `environment-serve` takes them.
pub fn serve_command() -> ServeCommand {
    use clap::CommandFactory;
    let command = crate::cli::Cli::command();
    let takes = |flag: &str| {
        command
            .find_subcommand("environment-serve")
            .is_some_and(|serve| {
                serve
                    .get_arguments()
                    .any(|argument| argument.get_long() == Some(flag))
            })
    };
    ServeCommand {
        pipeline_flag: takes("pipeline"),
        state_file: takes("state"),
    }
}

//! `rea environment-build CAPTURE [DIR] [--name N] [--template-rule R]... [--format-rules-only]
//! [--pipeline FILE] [--binary PATH] [--dry-run] [--json]`: one recorded capture in, an agentenv
//! bundle out, every stage in-process; and the MCP tool `export_environment_bundle`.
//!
//! Stages, each refusal naming its own: the build's checks (`environment-build`: arguments, the
//! name, the directory, the capture's format), inspection of a `.har` exactly as
//! `rea inspect-web-network-capture` inspects it (`inspect_web_network_capture`; capture Evidence
//! JSON skips it), projection of the environment manifest from the capture as retained Evidence
//! (`inspect_analysis_view`), then the export (`environment-export`: the pair authenticated, the
//! state prepared as the bundle's server prepares it, the files planned and written). For the same
//! capture path every file is byte-identical to what `inspect-web-network-capture`,
//! `inspect-analysis-view` (same rules) and `environment-export --name <the build's name>` write.
//!
//! A HAR document saved as `.json` is refused with a hint to name it `.har`; other extensions are
//! `unsupported_target`, as is a browser scenario (each exits 2, a usage mistake). Template
//! rules: `--template-rule` (repeatable, applied in the views'
//! fixed order, a repeat refused) replaces the pipeline's (the default pipeline's are
//! `after-uid-literal`, `opaque-token`, `sibling-variance`, `prefix-variance`);
//! `--format-rules-only` applies none. Without `--name` the manifest names the env, unless the
//! capture's origin is a loopback name or an IP literal: then the capture file does, with a
//! `name-from-file` warning. `--dry-run` runs every stage and writes nothing; it does not check
//! the directory, which may then be omitted (`status: "planned"`). SIGINT or SIGTERM cancels (`cancelled`,
//! exit 130 or 143; a bundle appears whole or not at all, see [`super::interrupt`]). Stage
//! progress goes to stderr; the report is the only output on stdout.
//!
//! Inputs must fit the live heap headroom ([`rea_bundle::headroom`]) as well as their readers'
//! fixed budgets (32 MiB HAR, 64 MiB Evidence): a capture Evidence file or a HAR before it is
//! read, an inspected HAR's Evidence and the projected manifest before they are serialized
//! (`resource_constraint` otherwise). A test hook can hold a stage until SIGINT (only with the
//! `test-hooks` feature, see `Progress`).
//!
//! Decisions: the report's `coverage` is the state's summary (`rea_state::coverage`, the
//! environment-coverage view's), `null` when the bundle serves replay; the pipeline's
//! `[manifest] template_rules` are the build's default rules.

#![allow(clippy::result_large_err)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use rea_bundle::{
    AuthenticatedPair, BUILD_STAGE, Destination, EXPORT_STAGE, ExportObserver, ExportRequest,
    LocalOriginName, Stages, TOOL_STAGE, Target,
};
use rea_evidence::capture::CaptureOutput;
use rea_evidence::envelope::EVIDENCE_FILE_MAX_BYTES;
use rea_evidence::{Evidence, Refusal, read_bounded};
use rea_manifest::{Projection, TemplateRules, seal_manifest};
use rea_self_mcp::catalog::tool_names::{BUILD_ENVIRONMENT, EXPORT_ENVIRONMENT_BUNDLE};
use rea_self_mcp::catalog::{FAMILY_ENVIRONMENT, ToolCatalog, ToolContext, ToolOutcome, ToolSpec};
use serde_json::{Map, Value, json};

use crate::commands::environment_export::{
    Progress, Quiet, absolute, bundled_binary, finish, load_pipeline, serve_command,
};
use crate::commands::inspect_capture::{InspectRequest, inspect_output_reporting};
use crate::memory_limit::MemoryLimit;
use crate::output::CommandFailure;
use crate::progress::Interrupt;

/// The stage of inspection refusals.
const INSPECT_STAGE: &str = rea_evidence::capture::INSPECT_CAPTURE_OPERATION;

/// Arguments of `rea environment-build`.
#[derive(Debug, Args)]
pub struct EnvironmentBuildArgs {
    /// The capture: a `.har` file, or capture Evidence JSON (`rea inspect-web-network-capture`
    /// or `rea capture-browser-scenario`).
    #[arg(value_name = "CAPTURE")]
    pub capture: PathBuf,
    /// The bundle directory: absent (its parent existing) or empty; optional with --dry-run.
    #[arg(value_name = "DIR")]
    pub directory: Option<PathBuf>,
    /// The env folder name and env id (default: the manifest's, or the capture file's for a
    /// loopback or IP origin).
    #[arg(long, value_name = "N")]
    pub name: Option<String>,
    /// A template rule to apply (repeatable; replaces the pipeline's rules).
    #[arg(
        long = "template-rule",
        value_name = "R",
        conflicts_with = "format_rules_only"
    )]
    pub template_rules: Vec<String>,
    /// Apply no template rule, only the format rules.
    #[arg(long)]
    pub format_rules_only: bool,
    /// The pipeline to build with and bundle (default: the embedded one).
    #[arg(long, value_name = "FILE")]
    pub pipeline: Option<PathBuf>,
    /// The rea binary the bundle carries (default: this one); a Linux build for the image.
    #[arg(long, value_name = "PATH")]
    pub binary: Option<PathBuf>,
    /// Run every stage and report the files, writing nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Print the JSON report (refusals as JSON lines on stderr).
    #[arg(long)]
    pub json: bool,
    /// No progress on stderr (refusals are still reported).
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Refuse (`resource_constraint`, nothing written) rather than pass this much memory: a
    /// capture needing at least 3x its size is refused before it is read, and the peak resident
    /// memory is checked at every stage and written file. Bytes, or K, M, G (binary units).
    #[arg(long, value_name = "SIZE", value_parser = crate::memory_limit::parse_size)]
    pub max_memory: Option<u64>,
}

/// Runs `rea environment-build`.
pub fn run(args: &EnvironmentBuildArgs) -> Result<(), CommandFailure> {
    // As a server does, before any other thread starts: large buffers (the capture's text, its
    // typed records, the projection's parsed bodies) are mapped alone and given back when freed,
    // rather than left in the heap the next stage grows from.
    rea_serve::memory::configure_allocator();
    if args.directory.is_none() && !args.dry_run {
        return Err(CommandFailure::configuration(
            vec![
                Refusal::invalid_request(
                    "a bundle directory is required (only --dry-run may omit it)",
                )
                .at("/directory")
                .in_stage(BUILD_STAGE),
            ],
            args.json,
        ));
    }
    let interrupt = Interrupt::install(args.json, BUILD_STAGE);
    let memory = args.max_memory.map(MemoryLimit::new);
    let mut progress = Progress::start(interrupt.clone(), args.quiet).with_memory_limit(memory);
    let outcome = build(args, &mut progress).map_err(|refusal| progress.explain(refusal));
    progress.finish();
    finish(outcome, args.json, &interrupt)
}

/// A capture read for a build: its Evidence and the bytes `evidence.json` holds.
struct CaptureInput {
    evidence: Evidence,
    /// `None`: the Evidence as `--format json` writes it (retained Evidence, an inspected HAR
    /// whose extractor's answer is not canonical JSON), or written again from `records`.
    bytes: Option<Vec<u8>>,
    /// The length and SHA-256 of `evidence.json` when it is written again from `records`
    /// ([`rea_evidence::rewrite`]): an inspected HAR whose every record serializes back to its
    /// text, so the build holds no bytes of the capture Evidence.
    written: Option<rea_evidence::rewrite::WrittenDigest>,
    /// The records typed from an inspected HAR's canonical record text, when the build kept that
    /// text: `evidence` is then the Evidence without its records
    /// ([`rea_evidence::capture::SealedCapture::into_header`]) and `written` its file's digest
    /// (or `bytes` the whole, written before the record text was dropped), so no JSON tree of
    /// the records is ever held.
    records: Option<Vec<rea_plugin_api::contracts::capture::CaptureRecord>>,
    input: &'static str,
}

/// What the build makes of a capture.
struct BuildOptions {
    rules: TemplateRules,
    state_rules: std::sync::Arc<rea_state::rules::RuleSet>,
    provenance: rea_state::precomputed::Provenance,
    name: Option<String>,
    local_origin: LocalOriginName,
    pipeline: rea_bundle::BundlePipeline,
    binary: rea_bundle::BundledBinary,
    target: Option<Target>,
    dry_run: bool,
    destination_stage: &'static str,
}

fn build(args: &EnvironmentBuildArgs, progress: &mut Progress) -> Result<Value, Refusal> {
    let own = |refusal: Refusal| refusal.in_stage(BUILD_STAGE);
    if let Some(name) = &args.name {
        rea_bundle::check_name(name).map_err(own)?;
    }
    let target = args.directory.as_deref().map(|directory| Target {
        directory: absolute(directory),
        rule: Destination::AbsentOrEmpty,
    });
    if let (Some(target), false) = (&target, args.dry_run) {
        rea_bundle::check_destination(&target.directory, target.rule).map_err(own)?;
    }
    let kind = capture_kind(&args.capture).map_err(own)?;
    if let Some(limit) = args.max_memory.map(MemoryLimit::new) {
        let bytes = crate::memory_limit::file_bytes(&[&args.capture]);
        let needed = bytes.saturating_mul(crate::memory_limit::BUILD_INPUT_FACTOR);
        limit
            .check_estimate("the capture", bytes, needed)
            .map_err(own)?;
    }
    progress.stage("pipeline", "loading the pipeline");
    let (pipeline, (registry, resolved)) = load_pipeline(args.pipeline.as_deref()).map_err(own)?;
    let state_rules = super::environment_export::state_rules(&registry, &resolved).map_err(own)?;
    let provenance = crate::provenance::provenance(&resolved, &registry);
    let rules = if args.format_rules_only {
        TemplateRules::none()
    } else if !args.template_rules.is_empty() {
        parse_rules(&args.template_rules, "/template_rules").map_err(own)?
    } else {
        TemplateRules::parse(&resolved.template_rules).map_err(|error| {
            own(Refusal::configuration_invalid(format!(
                "the pipeline's template rules are not valid: {error}"
            )))
        })?
    };
    progress.stage(
        "binary",
        "reading the rea binary and removing its debug information",
    );
    let binary = bundled_binary(args.binary.as_deref()).map_err(own)?;
    progress.check().map_err(own)?;

    let capture = read_capture(args, kind, (&registry, &resolved), progress)?;
    progress.check().map_err(own)?;
    let options = BuildOptions {
        rules,
        state_rules,
        provenance,
        name: args.name.clone(),
        local_origin: LocalOriginName::File(args.capture.clone()),
        pipeline,
        binary,
        target,
        dry_run: args.dry_run,
        destination_stage: BUILD_STAGE,
    };
    bundle_capture(capture, options, progress)
}

/// The capture Evidence of the build's input: a HAR file inspected with the pipeline's `har`
/// extractor, or capture Evidence read as it is.
fn read_capture(
    args: &EnvironmentBuildArgs,
    kind: CaptureKind,
    (registry, resolved): (&rea_registry::Registry, &rea_pipeline::Pipeline),
    progress: &mut Progress,
) -> Result<CaptureInput, Refusal> {
    match kind {
        CaptureKind::Har => {
            progress.stage("inspect", &format!("inspecting {}", args.capture.display()));
            rea_bundle::headroom::check_file_fits("the HAR file", &args.capture)
                .map_err(|refusal| refusal.in_stage(INSPECT_STAGE))?;
            let Some(extractor) = resolved.capture_extractors.get("har") else {
                return Err(Refusal::unsupported_target(
                    "the pipeline binds no capture extractor to `har` inputs",
                )
                .in_stage(INSPECT_STAGE));
            };
            let output = inspect_output_reporting(
                registry,
                &extractor.stage,
                &InspectRequest {
                    capture: &args.capture,
                    input_kind: "har",
                    selection: None,
                    sensitive_values: &[],
                },
                &mut |done, total| progress.bytes("inspect", done, total),
            )?;
            let input = inspected_input(output)?;
            let records = rea_evidence::capture::capture_record_count(&input.evidence).unwrap_or(0);
            let bytes = std::fs::metadata(&args.capture).map_or(0, |metadata| metadata.len());
            progress.counted("inspect", &[("records", records), ("bytes", bytes)]);
            Ok(input)
        }
        CaptureKind::Evidence => {
            progress.stage("read", &format!("reading {}", args.capture.display()));
            read_capture_evidence(&args.capture)
        }
    }
}

/// An inspected HAR's capture input. Record text kept as the extractor wrote it is typed record
/// by record, then dropped: the build holds the typed records and the Evidence without its
/// records, never a JSON tree of the records (the largest part of a build's memory otherwise).
/// When every record serializes back to its text, `evidence.json` is written again from the
/// records when the bundle is written ([`rea_evidence::rewrite`]) and only its length and SHA-256
/// are held; otherwise its bytes are written now and held. Either way the file is what
/// `--format json` writes of the Evidence document ([`rea_bundle::written_as_json`]).
fn inspected_input(output: CaptureOutput) -> Result<CaptureInput, Refusal> {
    let stage = |refusal: Refusal| refusal.in_stage(INSPECT_STAGE);
    match output {
        CaptureOutput::Raw(sealed) => {
            let (records, given_back) = sealed.typed_records_checked().map_err(stage)?;
            // Each record serializes back to its text: the file is written again from the
            // records, only its digest held; otherwise its bytes are kept.
            let (bytes, written) = if given_back {
                let written = sealed.written_digest().map_err(|error| {
                    stage(Refusal::internal(format!(
                        "the capture Evidence could not be measured: {error}"
                    )))
                })?;
                (None, Some(written))
            } else {
                (Some(written_exactly(&sealed).map_err(stage)?), None)
            };
            Ok(CaptureInput {
                evidence: sealed.into_header(),
                bytes,
                written,
                records: Some(records),
                input: "har",
            })
        }
        CaptureOutput::Sealed(evidence) => Ok(CaptureInput {
            evidence,
            bytes: None,
            written: None,
            records: None,
            input: "har",
        }),
    }
}

/// The canonical serialization and a newline, in a buffer of exactly that size (counted first:
/// a buffer grown as it is written copies the whole at every doubling).
fn written_exactly(sealed: &rea_evidence::capture::SealedCapture) -> Result<Vec<u8>, Refusal> {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let failed = |error: std::io::Error| {
        Refusal::internal(format!(
            "the capture Evidence could not be written: {error}"
        ))
    };
    let mut counter = Counter(0);
    sealed.write_to(&mut counter).map_err(failed)?;
    let mut bytes = Vec::with_capacity(counter.0 + 1);
    sealed.write_to(&mut bytes).map_err(failed)?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// The capture formats a build reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CaptureKind {
    Har,
    Evidence,
}

fn capture_kind(path: &Path) -> Result<CaptureKind, Refusal> {
    let extension = path
        .extension()
        .map(|extension| extension.to_string_lossy().to_ascii_lowercase());
    match extension.as_deref() {
        Some("har") => Ok(CaptureKind::Har),
        Some("json") => Ok(CaptureKind::Evidence),
        _ => Err(Refusal::unsupported_target(format!(
            "{} is neither a `.har` file nor capture Evidence JSON (`.json`); other capture formats are not read",
            path.display()
        ))
        .at("/capture")),
    }
}

/// Reads capture Evidence JSON once; a HAR document saved as `.json` is refused with a hint.
fn read_capture_evidence(path: &Path) -> Result<CaptureInput, Refusal> {
    rea_bundle::headroom::check_file_fits("the capture Evidence file", path)
        .map_err(|refusal| refusal.in_stage(BUILD_STAGE))?;
    let file = read_bounded(path, EVIDENCE_FILE_MAX_BYTES)
        .map_err(|refusal| refusal.in_stage(rea_manifest::STAGE))?;
    let evidence = match Evidence::authenticate(&file.bytes) {
        Ok(evidence) => evidence,
        Err(refusal) => {
            if is_har_document(&file.bytes) {
                return Err(Refusal::unsupported_target(format!(
                    "{} is a HAR document saved as `.json`, not capture Evidence: name it `.har` (for example {}) to build from it",
                    path.display(),
                    path.with_extension("har").display()
                ))
                .at("/capture")
                .in_stage(BUILD_STAGE));
            }
            if is_browser_scenario(&file.bytes) {
                return Err(Refusal::unsupported_target(format!(
                    "{} is a browser scenario, not capture Evidence: the build launches no browser, so record it first (`rea capture-browser-scenario {} --format json > capture.json`) and build from that Evidence, or serve it in one step with `rea serve {}`",
                    path.display(),
                    path.display(),
                    path.display()
                ))
                .at("/capture")
                .in_stage(BUILD_STAGE));
            }
            return Err(refusal.in_stage(rea_manifest::STAGE));
        }
    };
    Ok(CaptureInput {
        evidence,
        bytes: Some(file.bytes),
        written: None,
        records: None,
        input: "evidence",
    })
}

/// Whether bytes are a JSON object with `browser` and `actions` members (a browser scenario).
fn is_browser_scenario(bytes: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct ScenarioShape {
        #[allow(dead_code)]
        browser: serde::de::IgnoredAny,
        #[allow(dead_code)]
        actions: serde::de::IgnoredAny,
    }
    serde_json::from_slice::<ScenarioShape>(bytes).is_ok()
}

/// Whether bytes are a JSON object with a `log` member (a HAR document).
fn is_har_document(bytes: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct HarShape {
        #[allow(dead_code)]
        log: serde::de::IgnoredAny,
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    serde_json::from_slice::<HarShape>(bytes).is_ok()
}

fn parse_rules(names: &[String], pointer: &str) -> Result<TemplateRules, Refusal> {
    TemplateRules::parse(names).map_err(|error| {
        let index = match &error {
            rea_manifest::template::RuleListError::Unknown { index, .. }
            | rea_manifest::template::RuleListError::Repeated { index, .. } => *index,
        };
        Refusal::invalid_request(error.to_string()).at(format!("{pointer}/{index}"))
    })
}

/// The capture Evidence built in this process must fit the live heap headroom before it is
/// serialized for the bundle (a capture Evidence file was checked before it was read). Written
/// in this process from record text it kept, its canonical JSON is the file without its newline.
fn capture_fits(
    evidence: &Evidence,
    written: (Option<&[u8]>, Option<&rea_evidence::rewrite::WrittenDigest>),
    typed_here: bool,
) -> Result<(), Refusal> {
    let canonical = match written {
        (Some(bytes), _) if typed_here => bytes.len().saturating_sub(1) as u64,
        (Some(_), _) => return Ok(()),
        (None, Some(written)) => written.bytes.saturating_sub(1),
        (None, None) => {
            return rea_bundle::headroom::check_evidence_fits("the capture Evidence", evidence)
                .map_err(|refusal| refusal.in_stage(BUILD_STAGE));
        }
    };
    rea_bundle::headroom::check_fits("the capture Evidence", canonical)
        .map_err(|refusal| refusal.in_stage(BUILD_STAGE))
}

/// Projects the manifest from capture Evidence, authenticates the pair and exports the bundle.
fn bundle_capture(
    capture: CaptureInput,
    options: BuildOptions,
    observer: &mut dyn ExportObserver,
) -> Result<Value, Refusal> {
    observer.stage("manifest", "projecting the environment manifest");
    let in_stage = |refusal: Refusal| match refusal.stage {
        Some(_) => refusal,
        None => refusal.in_stage(rea_manifest::STAGE),
    };
    // The pipeline's route forms run with the template rules, as the state's manifest does; the
    // projection (its records typed once) is kept for the state, replay and the credential scan.
    let templating = options.state_rules.templating(&options.rules);
    let typed_here = capture.records.is_some();
    let projection = match capture.records {
        Some(records) => Projection::of_records(&capture.evidence, records, &templating),
        None => Projection::project(&capture.evidence, &templating),
    }
    .map_err(in_stage)?;
    let manifest = seal_manifest(projection.manifest()).map_err(in_stage)?;
    if observer.cancelled() {
        return Err(Refusal::cancelled(
            "a signal was received before the bundle was written; nothing was written",
        )
        .in_stage(BUILD_STAGE));
    }
    // The Evidence built in this process must fit the live heap headroom before it is
    // serialized for the bundle (a capture Evidence file was checked before it was read).
    let written = (capture.bytes.as_deref(), capture.written.as_ref());
    capture_fits(&capture.evidence, written, typed_here)?;
    rea_bundle::headroom::check_evidence_fits("the projected manifest Evidence", &manifest)
        .map_err(|refusal| refusal.in_stage(BUILD_STAGE))?;
    let (pair, environment) = match (capture.bytes, capture.written) {
        (Some(bytes), _) => {
            AuthenticatedPair::from_capture_file(manifest, bytes, capture.evidence, &projection)
        }
        (None, Some(written)) => {
            AuthenticatedPair::from_rewritten(manifest, written, capture.evidence, &projection)
        }
        (None, None) => AuthenticatedPair::from_sealed(manifest, capture.evidence, &projection),
    }
    .map_err(|refusal| refusal.in_stage(EXPORT_STAGE))?;
    observer.counted(
        "manifest",
        &[
            ("tools", pair.manifest.tools.len() as u64),
            ("records", pair.record_count()),
        ],
    );
    let request = ExportRequest {
        pair,
        projection: Some(projection),
        name: options.name,
        local_origin: options.local_origin,
        pipeline: options.pipeline,
        rules: options.state_rules,
        provenance: Some(options.provenance),
        binary: options.binary,
        serve: serve_command(),
        target: options.target,
        dry_run: options.dry_run,
        input: capture.input,
        stages: Stages {
            checks: BUILD_STAGE,
            bundle: EXPORT_STAGE,
            destination: options.destination_stage,
        },
    };
    rea_bundle::export(request, environment, observer)
}

/// Registers `export_environment_bundle` (family `environment`) in `rea mcp`'s catalog.
pub fn register_export_tool(catalog: &mut ToolCatalog) -> Result<(), rea_self_mcp::SelfMcpError> {
    catalog.register(
        export_tool_spec(),
        Arc::new(|arguments: &Map<String, Value>, context: &ToolContext| {
            match export_tool(arguments, context) {
                Ok(report) => ToolOutcome::value(report),
                Err(refusal) => ToolOutcome::refused(refusal),
            }
        }),
    )
}

fn export_tool_spec() -> ToolSpec {
    let schema = json!({
        "type": "object",
        "properties": {
            "source": crate::commands::environment_compare::source_schema("Capture Evidence: `{\"kind\": \"retained-evidence\", \"evidence_id\"}` (an inspect_web_network_capture result this session retained) or `{\"kind\": \"evidence-file\", \"path\"}` (an absolute path). Inspect a HAR with inspect_web_network_capture first."),
            "output_directory": {
                "type": "string",
                "description": "Absolute path of the bundle directory: it must not exist yet, and its parent must."
            },
            "name": {
                "type": "string",
                "description": "The env folder name and env id: kebab-case, at most 63 characters. Required when the capture's origin is a loopback name or an IP literal and the source is retained Evidence."
            },
            "template_rules": {
                "type": "array",
                "items": {"type": "string", "enum": ["after-uid-literal", "opaque-token", "sibling-variance", "prefix-variance"]},
                "description": "Template rules replacing the default four (after-uid-literal, opaque-token, sibling-variance, prefix-variance); [] applies none."
            },
            "dry_run": {
                "type": "boolean",
                "description": "Run every stage and report the files without writing (output_directory is still checked)."
            }
        },
        "required": ["source", "output_directory"],
        "additionalProperties": false
    });
    let annotations = json!({
        "readOnlyHint": false,
        "destructiveHint": false,
        "idempotentHint": false,
        "openWorldHint": false
    });
    ToolSpec {
        name: EXPORT_ENVIRONMENT_BUNDLE.to_owned(),
        family: FAMILY_ENVIRONMENT.to_owned(),
        title: "Export an environment bundle".to_owned(),
        description: "Builds an agentenv bundle from capture Evidence, as `rea environment-build` does: projects the environment manifest, prepares the state the bundle's server derives, and writes README.md, envs/NAME/ (Dockerfile, env.toml, manifest.json, evidence.json, pipeline.toml, bin/rea), artifacts/check_NAME/verify.py and tasks/smoke.json into a new directory. Returns the build report (status, directory, name, capture, manifest, state, coverage, tool_count, files, warnings, next); `agent-env run DIRECTORY` runs the bundle.".to_owned(),
        input_schema: schema.as_object().cloned().unwrap_or_default(),
        annotations: annotations.as_object().cloned().unwrap_or_default(),
    }
}

fn export_tool(arguments: &Map<String, Value>, context: &ToolContext) -> Result<Value, Refusal> {
    let directory = export_directory(arguments)?;
    let name = export_name(arguments)?;
    let rules = export_rules(arguments)?;
    let dry_run = arguments
        .get("dry_run")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let (capture, local_origin) = export_source(arguments, context)?;
    let own = |refusal: Refusal| refusal.in_stage(BUILD_STAGE);
    let (pipeline, (registry, resolved)) = load_pipeline(None).map_err(own)?;
    let state_rules = super::environment_export::state_rules(&registry, &resolved).map_err(own)?;
    let provenance = crate::provenance::provenance(&resolved, &registry);
    let binary = bundled_binary(None).map_err(own)?;
    let options = BuildOptions {
        rules,
        state_rules,
        provenance,
        name,
        local_origin,
        pipeline,
        binary,
        target: Some(Target {
            directory,
            rule: Destination::Absent,
        }),
        dry_run,
        destination_stage: TOOL_STAGE,
    };
    bundle_capture(capture, options, &mut Quiet)
}

/// The export's `output_directory`: an absolute path to a directory that does not exist yet.
fn export_directory(arguments: &Map<String, Value>) -> Result<PathBuf, Refusal> {
    let tool = |refusal: Refusal| refusal.in_stage(TOOL_STAGE);
    let directory = arguments
        .get("output_directory")
        .and_then(Value::as_str)
        .map(PathBuf::from)
        .ok_or_else(|| {
            tool(
                Refusal::invalid_request("`output_directory` must be a string")
                    .at("/output_directory"),
            )
        })?;
    if !directory.is_absolute() {
        return Err(tool(
            Refusal::invalid_request(
                "`output_directory` must be an absolute path: the server's working directory is not the caller's",
            )
            .at("/output_directory"),
        ));
    }
    rea_bundle::check_destination(&directory, Destination::Absent)
        .map_err(|refusal| tool(refusal.at("/output_directory")))?;
    Ok(directory)
}

/// The export's `name`, checked as a bundle name when given.
fn export_name(arguments: &Map<String, Value>) -> Result<Option<String>, Refusal> {
    let own = |refusal: Refusal| refusal.in_stage(BUILD_STAGE);
    let name = match arguments.get("name") {
        None => None,
        Some(Value::String(name)) => {
            rea_bundle::check_name(name).map_err(own)?;
            Some(name.clone())
        }
        Some(_) => {
            return Err(own(
                Refusal::invalid_request("`name` must be a string").at("/name")
            ));
        }
    };
    Ok(name)
}

/// The export's `template_rules`, every rule when not given.
fn export_rules(arguments: &Map<String, Value>) -> Result<TemplateRules, Refusal> {
    let own = |refusal: Refusal| refusal.in_stage(BUILD_STAGE);
    let rules = match arguments.get("template_rules") {
        None => TemplateRules::all(),
        Some(Value::Array(items)) => {
            let names: Vec<String> = items
                .iter()
                .map(|item| item.as_str().unwrap_or_default().to_owned())
                .collect();
            parse_rules(&names, "/template_rules").map_err(own)?
        }
        Some(_) => {
            return Err(own(Refusal::invalid_request(
                "`template_rules` must be an array of rule names",
            )
            .at("/template_rules")));
        }
    };
    Ok(rules)
}

/// The export's capture Evidence (retained in the ledger, or an Evidence file) and how the
/// bundle's local origin is named.
fn export_source(
    arguments: &Map<String, Value>,
    context: &ToolContext,
) -> Result<(CaptureInput, LocalOriginName), Refusal> {
    let own = |refusal: Refusal| refusal.in_stage(BUILD_STAGE);
    let source = arguments.get("source").cloned().unwrap_or(Value::Null);
    let source_evidence = match source.get("kind").and_then(Value::as_str) {
        Some("retained-evidence") => {
            let document = context.ledger.resolve(&source, "/source").map_err(own)?;
            rea_bundle::headroom::check_fits(
                "the retained capture Evidence",
                document.canonical.len() as u64,
            )
            .map_err(own)?;
            let evidence = Evidence::authenticate(document.canonical.as_bytes())
                .map_err(|refusal| refusal.in_stage(rea_manifest::STAGE))?;
            (
                CaptureInput {
                    evidence,
                    bytes: None,
                    written: None,
                    records: None,
                    input: "evidence",
                },
                LocalOriginName::Required,
            )
        }
        Some("evidence-file") => {
            let path = source
                .get("path")
                .and_then(Value::as_str)
                .map(PathBuf::from)
                .filter(|path| path.is_absolute())
                .ok_or_else(|| {
                    own(Refusal::invalid_request(
                        "an evidence-file source needs an absolute `path`",
                    )
                    .at("/source/path"))
                })?;
            if capture_kind(&path).ok() == Some(CaptureKind::Har) {
                return Err(own(
                    Refusal::unsupported_target(
                        "the source is a HAR file: inspect it with inspect_web_network_capture first and pass the retained Evidence",
                    )
                    .at("/source/path"),
                ));
            }
            (read_capture_evidence(&path)?, LocalOriginName::File(path))
        }
        _ => {
            return Err(own(Refusal::invalid_request(
                "`source.kind` must be `retained-evidence` or `evidence-file`",
            )
            .at("/source/kind")));
        }
    };
    Ok(source_evidence)
}

/// Registers `build_environment` (family `environment`) in `rea mcp`'s catalog: the one-step
/// build from a capture file (`.har`, or capture Evidence `.json`), as `rea environment-build`
/// does, into a new directory.
pub fn register_build_tool(catalog: &mut ToolCatalog) -> Result<(), rea_self_mcp::SelfMcpError> {
    catalog.register(
        build_tool_spec(),
        Arc::new(
            |arguments: &Map<String, Value>, _: &ToolContext| match build_tool(arguments) {
                Ok(report) => ToolOutcome::value(report),
                Err(refusal) => ToolOutcome::refused(refusal),
            },
        ),
    )
}

fn build_tool_spec() -> ToolSpec {
    let schema = json!({
        "type": "object",
        "properties": {
            "capture": {
                "type": "string",
                "description": "Absolute path of the capture: a .har file, or capture Evidence JSON from inspect_web_network_capture."
            },
            "output_directory": {
                "type": "string",
                "description": "Absolute path of the bundle directory: it must not exist yet, and its parent must."
            },
            "name": {
                "type": "string",
                "description": "The env folder name and env id (kebab-case, at most 63 characters); default: the capture's, as environment-build names it."
            },
            "dry_run": {
                "type": "boolean",
                "description": "Run every stage and report the files without writing."
            }
        },
        "required": ["capture", "output_directory"],
        "additionalProperties": false
    });
    let annotations = json!({
        "readOnlyHint": false,
        "destructiveHint": false,
        "idempotentHint": false,
        "openWorldHint": false
    });
    ToolSpec {
        name: BUILD_ENVIRONMENT.to_owned(),
        family: FAMILY_ENVIRONMENT.to_owned(),
        title: "Build an environment from a capture file".to_owned(),
        description: "Builds an agentenv bundle from a capture file in one step, as `rea environment-build CAPTURE DIR --json` does: inspects a .har (or reads capture Evidence), projects the manifest, derives the state and writes the bundle into a new directory. Returns the build report (name, tool_count, state, coverage with each withheld write's reason and hint, files, warnings, next); `rea serve DIRECTORY` serves it.".to_owned(),
        input_schema: schema.as_object().cloned().unwrap_or_default(),
        annotations: annotations.as_object().cloned().unwrap_or_default(),
    }
}

fn build_tool(arguments: &Map<String, Value>) -> Result<Value, Refusal> {
    let tool = |refusal: Refusal| refusal.in_stage(TOOL_STAGE_BUILD);
    let path = |key: &str| -> Result<PathBuf, Refusal> {
        arguments
            .get(key)
            .and_then(Value::as_str)
            .map(PathBuf::from)
            .filter(|path| path.is_absolute())
            .ok_or_else(|| {
                tool(Refusal::invalid_request(format!(
                    "`{key}` must be an absolute path: the server's working directory is not the caller's"
                ))
                .at(format!("/{key}")))
            })
    };
    let capture = path("capture")?;
    let directory = path("output_directory")?;
    rea_bundle::check_destination(&directory, Destination::Absent)
        .map_err(|refusal| tool(refusal.at("/output_directory")))?;
    let args = EnvironmentBuildArgs {
        capture,
        directory: Some(directory),
        name: arguments
            .get("name")
            .and_then(Value::as_str)
            .map(str::to_owned),
        template_rules: Vec::new(),
        format_rules_only: false,
        pipeline: None,
        binary: None,
        dry_run: arguments
            .get("dry_run")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        json: true,
        quiet: true,
        max_memory: None,
    };
    let mut progress = Progress::start(Interrupt::never(), true);
    build(&args, &mut progress)
}

/// The stage of `build_environment`'s own refusals.
const TOOL_STAGE_BUILD: &str = BUILD_ENVIRONMENT;

//! `rea environment-compare MANIFEST.json --evidence CAPTURE.json --probe PROBE.json...
//! [--replay-only] [--pipeline FILE] [--json]`: the environment measured against the
//! application ([`rea_compare`]).
//!
//! The manifest, the capture and every probe are read once within the Evidence file bound and
//! authenticated; the pair must authenticate (the manifest's parent is the capture) and every
//! probe must be usable, or the command refuses with one line on stderr (a JSON line with
//! `--json`), exit 1, and prints nothing. A pipeline that is not valid is `configuration_invalid`,
//! exit 2. The environment is served in-process, never over the network. With `--json` the
//! comparison Evidence is printed as canonical JSON and a newline; otherwise a readable report.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use rea_compare::adapter::Mode;
use rea_compare::{CompareInputs, STAGE};
use rea_evidence::{Evidence, Refusal};
use rea_self_mcp::catalog::tool_names::COMPARE_ENVIRONMENT;
use rea_self_mcp::catalog::{FAMILY_ENVIRONMENT, ToolCatalog, ToolContext, ToolOutcome, ToolSpec};
use rea_self_mcp::ledger::EvidenceDocument;
use serde_json::{Map, Value, json};

use crate::output::CommandFailure;

/// Arguments of `rea environment-compare`.
#[derive(Debug, Args)]
pub struct EnvironmentCompareArgs {
    /// The manifest Evidence of the environment.
    #[arg(value_name = "MANIFEST.json")]
    pub manifest: PathBuf,
    /// The capture Evidence the manifest was projected from.
    #[arg(long, value_name = "CAPTURE.json")]
    pub evidence: PathBuf,
    /// Capture Evidence of one call sequence recorded on the live application, seeded as it was
    /// for the capture and reset before the sequence (repeatable).
    #[arg(long = "probe", value_name = "PROBE.json", required = true)]
    pub probes: Vec<PathBuf>,
    /// Compare the replay environment (`environment-serve --replay-only`) instead of the state.
    #[arg(long)]
    pub replay_only: bool,
    /// The pipeline whose rule stages served writes use (default: the embedded pipeline), as
    /// `environment-serve --pipeline`.
    #[arg(long, value_name = "FILE")]
    pub pipeline: Option<PathBuf>,
    /// Print the comparison Evidence as JSON (refusals as JSON lines).
    #[arg(long)]
    pub json: bool,
}

/// Reads an Evidence file within the Evidence bound, naming the path in a refusal.
fn read(path: &Path) -> Result<Evidence, Refusal> {
    Evidence::read_file(path, rea_evidence::envelope::EVIDENCE_FILE_MAX_BYTES).map_err(
        |mut refusal| {
            let path = json!(path.display().to_string());
            match &mut refusal.data {
                Some(serde_json::Value::Object(data)) => {
                    data.insert("path".to_owned(), path);
                }
                Some(_) => {}
                None => refusal.data = Some(json!({ "path": path })),
            }
            refusal
        },
    )
}

/// Runs `rea environment-compare`.
pub fn run(args: &EnvironmentCompareArgs) -> Result<(), CommandFailure> {
    let refused = |refusal: Refusal| CommandFailure::refused(refusal.in_stage(STAGE), args.json);
    let mut registry =
        crate::builtin_registry().map_err(|error| refused(Refusal::internal(error.to_string())))?;
    let rules = rea_compare::adapter::load_rules(args.pipeline.as_deref(), &mut registry).map_err(
        |refusal| CommandFailure::configuration(vec![refusal.in_stage(STAGE)], args.json),
    )?;
    let manifest = read(&args.manifest).map_err(refused)?;
    let capture = read(&args.evidence).map_err(refused)?;
    let probes = args
        .probes
        .iter()
        .map(|path| read(path))
        .collect::<Result<Vec<_>, _>>()
        .map_err(refused)?;
    let comparison = rea_compare::compare(&CompareInputs {
        manifest: &manifest,
        capture: &capture,
        probes: &probes,
        mode: if args.replay_only {
            Mode::ReplayOnly
        } else {
            Mode::State
        },
        rules,
    })
    .map_err(refused)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let written = if args.json {
        comparison
            .evidence
            .write_to(&mut out)
            .and_then(|()| out.write_all(b"\n"))
    } else {
        out.write_all(
            comparison
                .report
                .to_text(comparison.evidence.id())
                .as_bytes(),
        )
    };
    written.and_then(|()| out.flush()).map_err(|error| {
        CommandFailure::refused(
            Refusal::new("output_failed", "unavailable", error.to_string()),
            args.json,
        )
    })
}

/// Registers `compare_environment` in `rea mcp`: the same comparison, its Evidence returned
/// inline and retained by the session (the `verify_reconstruction` workflow's
/// `comparison_evidence`).
pub fn register_compare_tool(
    catalog: &mut ToolCatalog,
    pipeline: Option<&Path>,
) -> Result<(), rea_self_mcp::SelfMcpError> {
    let pipeline = pipeline.map(Path::to_path_buf);
    catalog.register(
        compare_tool_spec(),
        Arc::new(
            move |arguments: &Map<String, Value>, context: &ToolContext| match compare_tool(
                arguments,
                context,
                pipeline.as_deref(),
            ) {
                Ok(evidence) => ToolOutcome::evidence(evidence),
                Err(refusal) => ToolOutcome::refused(refusal.in_stage(STAGE)),
            },
        ),
    )
}

/// The schema of one Evidence source of a `rea mcp` tool: retained by the session, or a file.
pub fn source_schema(description: &str) -> Value {
    json!({
        "type": "object",
        "description": description,
        "properties": {
            "kind": {"type": "string", "enum": ["retained-evidence", "evidence-file"]},
            "evidence_id": {"type": "string"},
            "path": {"type": "string"}
        },
        "required": ["kind"],
        "additionalProperties": false
    })
}

fn compare_tool_spec() -> ToolSpec {
    let schema = json!({
        "type": "object",
        "properties": {
            "manifest": source_schema("The environment manifest Evidence: `{\"kind\": \"retained-evidence\", \"evidence_id\"}` or `{\"kind\": \"evidence-file\", \"path\"}` (absolute)."),
            "capture": source_schema("The capture Evidence the manifest was projected from (same forms)."),
            "probes": {
                "type": "array",
                "minItems": 1,
                "items": source_schema("A probe: capture Evidence of one call sequence (same forms)."),
                "description": "Capture Evidence of call sequences recorded on the live application, seeded as for the capture and reset before each (same forms)."
            },
            "replay_only": {"type": "boolean", "description": "Compare the replay environment instead of the state (default false)."}
        },
        "required": ["manifest", "capture", "probes"],
        "additionalProperties": false
    });
    ToolSpec {
        name: COMPARE_ENVIRONMENT.to_owned(),
        family: FAMILY_ENVIRONMENT.to_owned(),
        title: "Compare an environment with the application".to_owned(),
        description: "Measures an environment against probes recorded on the live application, as `rea environment-compare` does: the state is reset before each probe, every probe call is answered in-process as the served environment would answer it (no network call) and compared with the application's answer (ids mapped, clocks by format). Returns the comparison Evidence inline: agreement overall, per probe and per tool, `agreement_ignoring_order`, each step's differences (`status`, `missing-field`, `extra-field`, `value`, `length`, `order`, `clock-format`, `refused`, `not-served`, `no-tool`, `unmapped-id`) and the unobserved records. The session retains it.".to_owned(),
        input_schema: schema.as_object().cloned().unwrap_or_default(),
        annotations: json!({
            "readOnlyHint": true,
            "destructiveHint": false,
            "idempotentHint": true,
            "openWorldHint": false
        })
        .as_object()
        .cloned()
        .unwrap_or_default(),
    }
}

/// One Evidence source of the tool: retained by the session, or an absolute file path.
fn tool_source(source: &Value, pointer: &str, context: &ToolContext) -> Result<Evidence, Refusal> {
    match source.get("kind").and_then(Value::as_str) {
        Some("retained-evidence") => {
            let document = context.ledger.resolve(source, pointer)?;
            Evidence::authenticate(document.canonical.as_bytes())
        }
        Some("evidence-file") => {
            let path = source.get("path").and_then(Value::as_str).map(PathBuf::from);
            match path {
                Some(path) if path.is_absolute() => read(&path),
                _ => Err(Refusal::invalid_request(
                    "`path` must be an absolute path: the server's working directory is not the caller's",
                )
                .at(format!("{pointer}/path"))),
            }
        }
        _ => Err(Refusal::invalid_request(
            "a source is `{\"kind\": \"retained-evidence\", \"evidence_id\"}` or `{\"kind\": \"evidence-file\", \"path\"}`",
        )
        .at(format!("{pointer}/kind"))),
    }
}

fn compare_tool(
    arguments: &Map<String, Value>,
    context: &ToolContext,
    pipeline: Option<&Path>,
) -> Result<EvidenceDocument, Refusal> {
    let member = |name: &str| arguments.get(name).cloned().unwrap_or(Value::Null);
    let manifest = tool_source(&member("manifest"), "/manifest", context)?;
    let capture = tool_source(&member("capture"), "/capture", context)?;
    let probes = member("probes")
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .enumerate()
        .map(|(index, probe)| tool_source(probe, &format!("/probes/{index}"), context))
        .collect::<Result<Vec<_>, _>>()?;
    let mut registry =
        crate::builtin_registry().map_err(|error| Refusal::internal(error.to_string()))?;
    let rules = rea_compare::adapter::load_rules(pipeline, &mut registry)?;
    let replay_only = arguments.get("replay_only").and_then(Value::as_bool) == Some(true);
    let comparison = rea_compare::compare(&CompareInputs {
        manifest: &manifest,
        capture: &capture,
        probes: &probes,
        mode: if replay_only {
            Mode::ReplayOnly
        } else {
            Mode::State
        },
        rules,
    })?;
    let text = String::from_utf8(comparison.evidence.to_canonical_vec())
        .map_err(|error| Refusal::internal(format!("Evidence is not UTF-8: {error}")))?;
    EvidenceDocument::from_canonical(text)
}

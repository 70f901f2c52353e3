//! `rea inspect-web-network-capture CAPTURE INPUT_KIND [--record N]... [--sensitive-value V]...
//! [--format json|text]`: a recorded capture file in, capture Evidence out.
//!
//! The file is read within its 32 MiB budget (refusing a file that changes while read), handed to
//! the capture extractor the default pipeline binds to the input kind (the built-in `har` stage),
//! which validates every record, and the answer is sealed as capture Evidence
//! ([`rea_evidence::capture`]). `--format json` (the default) prints the Evidence as canonical
//! compact JSON and a newline; `text` prints a short summary. A refusal prints one line on stderr
//! (a JSON line with `--format json`), nothing on stdout, and exits 1.

// `Refusal` is the one error shape of every stage; refusals end the command, so their size does
// not matter.
#![allow(clippy::result_large_err)]

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use rea_evidence::capture::{
    CAPTURE_MAX_BYTES, CaptureInputs, CaptureOrigin, CaptureOutput, ExtractorRef,
    INSPECT_CAPTURE_OPERATION, build_capture_evidence, capture_record_count, capture_records,
    check_extraction, seal_capture_answer,
};
use rea_evidence::envelope::EVIDENCE_MAX_DEPTH;
use rea_evidence::{Evidence, Refusal, read_bounded, sha256_hex};
use rea_json::{self as json, ParseOptions};
use rea_plugin_api::contracts::SCHEMA_VERSION;
use rea_plugin_api::contracts::capture::{Body, ExtractRequest};
use rea_registry::{CaptureHandle, Registry, StageCallError};

use crate::output::CommandFailure;

/// The output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EvidenceFormat {
    /// The Evidence as canonical compact JSON.
    Json,
    /// A short human summary.
    Text,
}

/// Arguments of `rea inspect-web-network-capture`.
#[derive(Debug, Args)]
pub struct InspectCaptureArgs {
    /// The capture file (a HAR 1.2 file for `har`).
    #[arg(value_name = "CAPTURE")]
    pub capture: PathBuf,
    /// The input kind: which capture extractor reads it (`har`); default: the file extension's.
    #[arg(value_name = "INPUT_KIND")]
    pub input_kind: Option<String>,
    /// Return only this record (zero-based producer ordinal; repeatable, kept in the given order).
    #[arg(long = "record", value_name = "N")]
    pub records: Vec<u64>,
    /// A value that must not appear in the Evidence (repeatable): every field holding it is null.
    #[arg(long = "sensitive-value", value_name = "V")]
    pub sensitive_values: Vec<String>,
    /// Print the Evidence as JSON (the default when stdout is not a terminal).
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// Output format (`--json` is `--format json`; default: text on a terminal, else JSON).
    #[arg(long, value_enum)]
    pub format: Option<EvidenceFormat>,
}

/// The output format of a command printing Evidence: `--json`, else `--format`, else text on a
/// terminal and JSON otherwise (so `> capture.json` still writes the Evidence).
pub fn output_format(json: bool, format: Option<EvidenceFormat>) -> EvidenceFormat {
    use std::io::IsTerminal;
    match (json, format) {
        (true, _) => EvidenceFormat::Json,
        (false, Some(format)) => format,
        (false, None) if std::io::stdout().is_terminal() => EvidenceFormat::Text,
        (false, None) => EvidenceFormat::Json,
    }
}

/// The input kind a capture file's extension names (`.har` → `har`); a usage error otherwise.
pub fn input_kind_of(
    capture: &Path,
    given: Option<&str>,
    json_errors: bool,
) -> Result<String, CommandFailure> {
    if let Some(kind) = given {
        return Ok(kind.to_owned());
    }
    let extension = capture
        .extension()
        .map(|extension| extension.to_string_lossy().to_ascii_lowercase());
    match extension.as_deref() {
        Some("har") => Ok("har".to_owned()),
        _ => Err(CommandFailure::configuration(
            vec![
                Refusal::invalid_request(format!(
                    "the input kind of {} cannot be told from its extension; name the file .har, or pass the kind: `rea inspect-web-network-capture {} har`",
                    capture.display(),
                    capture.display()
                ))
                .at("/input_kind"),
            ],
            json_errors,
        )),
    }
}

/// What to inspect.
#[derive(Debug, Clone, Copy)]
pub struct InspectRequest<'a> {
    /// The capture file.
    pub capture: &'a Path,
    /// Its input kind (`har`).
    pub input_kind: &'a str,
    /// The selected ordinals in the caller's order, `None` for every record.
    pub selection: Option<&'a [u64]>,
    /// Declared sensitive values.
    pub sensitive_values: &'a [String],
}

/// Runs `rea inspect-web-network-capture`.
pub fn run(args: &InspectCaptureArgs) -> Result<(), CommandFailure> {
    let format = output_format(args.json, args.format);
    // Refusals are text lines unless JSON was asked for, as in every command.
    let json_errors = args.json || args.format == Some(EvidenceFormat::Json);
    let input_kind = input_kind_of(&args.capture, args.input_kind.as_deref(), json_errors)?;
    let request = InspectRequest {
        capture: &args.capture,
        input_kind: &input_kind,
        selection: (!args.records.is_empty()).then_some(args.records.as_slice()),
        sensitive_values: &args.sensitive_values,
    };
    let output = inspect_output_with_builtins(&request)
        .map_err(|refusal| CommandFailure::refused(refusal, json_errors))?;
    let written = match format {
        EvidenceFormat::Json => {
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::with_capacity(1 << 20, stdout.lock());
            output
                .write_to(&mut out)
                .and_then(|()| out.write_all(b"\n"))
                .and_then(|()| out.flush())
        }
        EvidenceFormat::Text => {
            let evidence = output
                .into_evidence()
                .map_err(|refusal| CommandFailure::refused(refusal, json_errors))?;
            let summary = text_summary(&evidence)
                .map_err(|refusal| CommandFailure::refused(refusal, json_errors))?;
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            out.write_all(summary.as_bytes()).and_then(|()| out.flush())
        }
    };
    written.map_err(|error| {
        CommandFailure::refused(
            Refusal::new("output_failed", "unavailable", error.to_string()),
            json_errors,
        )
    })
}

/// Inspects with the built-in plugins and the default pipeline's capture extractor for the input
/// kind, returning the Evidence as a document.
pub fn inspect_with_builtins(request: &InspectRequest<'_>) -> Result<Evidence, Refusal> {
    let (registry, stage) = builtin_stage(request.input_kind)?;
    inspect(&registry, &stage, request)
}

/// Inspects with the built-ins as the command does: the Evidence ready to write, its record text
/// kept as the extractor wrote it when that is canonical (see [`inspect_output`]).
pub fn inspect_output_with_builtins(
    request: &InspectRequest<'_>,
) -> Result<CaptureOutput, Refusal> {
    let (registry, stage) = builtin_stage(request.input_kind)?;
    inspect_output(&registry, &stage, request)
}

/// The built-in registry and the capture stage the default pipeline binds to the input kind.
pub(crate) fn builtin_stage(input_kind: &str) -> Result<(Registry, String), Refusal> {
    let mut registry = Registry::with_builtins().map_err(|error| {
        Refusal::internal(error.to_string()).in_stage(INSPECT_CAPTURE_OPERATION)
    })?;
    let pipeline = rea_pipeline::load(None, &mut registry).map_err(|errors| {
        Refusal::configuration_invalid(errors.to_string()).in_stage(INSPECT_CAPTURE_OPERATION)
    })?;
    let Some(resolved) = pipeline.capture_extractors.get(input_kind) else {
        let known: Vec<&str> = pipeline
            .capture_extractors
            .keys()
            .map(String::as_str)
            .collect();
        return Err(Refusal::unsupported_target(format!(
            "no capture extractor reads `{input_kind}` inputs (known input kinds: {})",
            known.join(", ")
        ))
        .in_stage(INSPECT_CAPTURE_OPERATION));
    };
    let stage = resolved.stage.clone();
    Ok((registry, stage))
}

/// Inspects a capture file with the named capture stage of `registry`: the Evidence as a
/// document (the answer parsed whole).
pub fn inspect(
    registry: &Registry,
    stage: &str,
    request: &InspectRequest<'_>,
) -> Result<Evidence, Refusal> {
    inspect_reporting(registry, stage, request, &mut |_, _| {})
}

/// [`inspect`], with `read` hearing how many of the capture's bytes the extractor has read and
/// how many there are (`read(done, total)`, for a byte-based percentage).
pub fn inspect_reporting(
    registry: &Registry,
    stage: &str,
    request: &InspectRequest<'_>,
    read: &mut dyn FnMut(u64, u64),
) -> Result<Evidence, Refusal> {
    let staged = |refusal: Refusal| refusal.in_stage(INSPECT_CAPTURE_OPERATION);
    let extracted = run_extractor(registry, stage, request, read).map_err(staged)?;
    let options = ParseOptions::default().max_depth(EVIDENCE_MAX_DEPTH);
    let answer = json::parse_with(extracted.answer.as_bytes(), &options)
        .map_err(|error| staged(extracted.answer_problem(error.to_string())))?;
    check_extraction(&answer).map_err(|reason| staged(extracted.answer_problem(reason)))?;
    build_capture_evidence(&extracted.inputs(request), answer).map_err(staged)
}

/// Inspects a capture file with the named capture stage of `registry`, as the command does: the
/// answer is checked one record at a time and, when canonical, its record text is kept as it is
/// ([`seal_capture_answer`]). The bytes are those of [`inspect`]'s Evidence.
pub fn inspect_output(
    registry: &Registry,
    stage: &str,
    request: &InspectRequest<'_>,
) -> Result<CaptureOutput, Refusal> {
    inspect_output_reporting(registry, stage, request, &mut |_, _| {})
}

/// [`inspect_output`], with `read` hearing the extractor's progress as [`inspect_reporting`]'s.
pub fn inspect_output_reporting(
    registry: &Registry,
    stage: &str,
    request: &InspectRequest<'_>,
    read: &mut dyn FnMut(u64, u64),
) -> Result<CaptureOutput, Refusal> {
    let staged = |refusal: Refusal| refusal.in_stage(INSPECT_CAPTURE_OPERATION);
    let mut extracted = run_extractor(registry, stage, request, read).map_err(staged)?;
    let answer = std::mem::take(&mut extracted.answer);
    seal_capture_answer(&extracted.inputs(request), answer).map_err(staged)
}

/// What running the extractor on a file gives.
struct Extracted {
    path: PathBuf,
    size: u64,
    sha256: String,
    extractor: ExtractorRef,
    answer: String,
}

impl Extracted {
    fn inputs<'a>(&'a self, request: &InspectRequest<'a>) -> CaptureInputs<'a> {
        CaptureInputs {
            path: &self.path,
            bytes: self.size,
            sha256: &self.sha256,
            input_kind: request.input_kind,
            extractor: &self.extractor,
            selection: request.selection,
            sensitive_values: request.sensitive_values,
            origin: CaptureOrigin::File,
        }
    }

    fn answer_problem(&self, reason: String) -> Refusal {
        Refusal::internal(format!(
            "capture stage {} of plugin {} answered something that is not a capture extraction: {reason}",
            self.extractor.stage, self.extractor.plugin
        ))
    }
}

/// The capture stage `stage` names and how Evidence cites it (plugin, stage, version).
pub fn capture_extractor(
    registry: &Registry,
    stage: &str,
) -> Result<(CaptureHandle, ExtractorRef), Refusal> {
    let handle = registry
        .capture_stage(stage)
        .map_err(|error| Refusal::configuration_invalid(error.to_string()))?;
    let version = registry
        .stage(stage)
        .map(|(plugin, _)| plugin.version.clone())
        .unwrap_or_default();
    let extractor = ExtractorRef {
        plugin: handle.plugin().to_owned(),
        stage: handle.stage().to_owned(),
        version,
    };
    Ok((handle, extractor))
}

/// Reads the file within its budget, hashes it, and runs the extractor on it (`read` hears its
/// progress through the file).
fn run_extractor(
    registry: &Registry,
    stage: &str,
    request: &InspectRequest<'_>,
    read: &mut dyn FnMut(u64, u64),
) -> Result<Extracted, Refusal> {
    if request.sensitive_values.iter().any(String::is_empty) {
        return Err(Refusal::invalid_request(
            "a --sensitive-value must not be empty",
        ));
    }
    let (handle, extractor) = capture_extractor(registry, stage)?;
    let file = read_bounded(request.capture, CAPTURE_MAX_BYTES)?;
    // The digest does not depend on the extraction: compute both at once.
    let (sha256, answer) = std::thread::scope(|scope| {
        let digest = scope.spawn(|| sha256_hex(&file.bytes));
        let total = file.bytes.len() as u64;
        let answer = extract(&handle, request, &file.bytes, &mut |done| read(done, total));
        (digest.join(), answer)
    });
    let sha256 = sha256.map_err(|_| Refusal::internal("hashing the capture failed"))?;
    let answer = answer?;
    Ok(Extracted {
        path: file.path,
        size: file.bytes.len() as u64,
        sha256,
        extractor,
        answer,
    })
}

/// Runs the extractor: its answer's JSON text.
fn extract(
    handle: &CaptureHandle,
    request: &InspectRequest<'_>,
    bytes: &[u8],
    read: &mut dyn FnMut(u64),
) -> Result<String, Refusal> {
    let extract_request = ExtractRequest {
        input_kind: request.input_kind.to_owned(),
        sensitive_values: request.sensitive_values.to_vec(),
        schema_version: SCHEMA_VERSION,
    };
    handle
        .extract_raw_reporting(&extract_request, bytes, read)
        .map_err(|error| plugin_refusal(&error))
}

/// A stage's error as a refusal: the plugin's code, and its `{category, pointer}` detail.
pub(crate) fn plugin_refusal(error: &StageCallError) -> Refusal {
    let Some(plugin_error) = error.plugin_error() else {
        return Refusal::internal(error.to_string());
    };
    let code = plugin_error.code.as_str();
    if code == rea_plugin_api::PluginError::PANICKED {
        return Refusal::internal(error.to_string());
    }
    let detail: serde_json::Value =
        serde_json::from_str(plugin_error.detail_json.as_str()).unwrap_or_default();
    let category = detail
        .get("category")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("internal");
    let mut refusal = Refusal::new(code, category, plugin_error.message.as_str());
    if let Some(pointer) = detail.get("pointer").and_then(serde_json::Value::as_str) {
        refusal = refusal.at(pointer);
    }
    refusal
}

/// The `--format text` summary.
pub(crate) fn text_summary(evidence: &Evidence) -> Result<String, Refusal> {
    let records = capture_records(evidence)?;
    let total = capture_record_count(evidence).unwrap_or(records.len() as u64);
    let path = evidence
        .get("parameters")
        .and_then(|parameters| parameters.get("capture_path"))
        .and_then(json::Json::as_str)
        .unwrap_or("(withheld)");
    let count = |member: &str| {
        evidence
            .get(member)
            .and_then(json::Json::as_array)
            .map_or(0, Vec::len)
    };
    let mut text = format!(
        "{path}: {} of {total} records, {} redactions, {} limitations\nevidence {}\n",
        records.len(),
        count("redactions"),
        count("limitations"),
        evidence.id()
    );
    for record in &records {
        text.push_str(&format!(
            "#{} {} {} {} (request body: {}, response body: {})\n",
            record.ordinal,
            record.method.as_deref().unwrap_or("(withheld)"),
            record.response.status,
            record.url.as_deref().unwrap_or("(withheld)"),
            body_summary(&record.request.body),
            body_summary(&record.response.body),
        ));
    }
    Ok(text)
}

fn body_summary(body: &Body) -> String {
    match body {
        Body::Missing => "missing".to_owned(),
        Body::ReportedNull => "reported null".to_owned(),
        Body::Text { text } => format!("text, {} bytes", text.len()),
        Body::Base64 { bytes, .. } => format!("base64, {bytes} bytes"),
        Body::Excluded { .. } => "excluded".to_owned(),
    }
}

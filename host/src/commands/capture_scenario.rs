//! `rea capture-browser-scenario SCENARIO [--json|--format json|text]`: a scripted browser session in,
//! capture Evidence (`capture_browser_scenario`) out.
//!
//! Everything is checked before any browser side effect: the scenario ([`rea_browser::validate`]:
//! every problem one refusal line with its JSON pointer) and the pipeline's capture extractor for
//! `browser-scenario` inputs; a problem exits 2 and starts no browser. Then [`rea_browser::record`]
//! drives Chromium and answers the recorded session, which the pipeline's extractor (the built-in
//! `browser-scenario` stage, through the registry like any capture stage) turns into records,
//! sealed as capture Evidence whose `parameters.scenario` is the scenario as given (secrets named
//! by environment variable, never by value). `--format json` (the default) prints the Evidence as
//! canonical compact JSON and a newline; `text` prints a summary. A failed recording prints one
//! refusal line on stderr and exits 1; SIGINT and SIGTERM exit 130 and 143, the browser closed
//! and its temporary profile deleted either way.

#![allow(clippy::result_large_err)]

use std::io::Write;
use std::path::Path;

use clap::Args;
use rea_browser::{BrowserError, Problem, ValidatedScenario};
use rea_evidence::capture::{
    CaptureInputs, CaptureOrigin, CaptureOutput, SCENARIO_CAPTURE_OPERATION, seal_capture_answer,
};
use rea_evidence::{Refusal, read_bounded, sha256_hex};
use rea_plugin_api::contracts::SCHEMA_VERSION;
use rea_plugin_api::contracts::capture::ExtractRequest;
use rea_plugin_api::contracts::session::{INPUT_KIND, RecordedSession};
use rea_plugin_api::json::{Json, Object};
use rea_registry::Registry;

use crate::commands::inspect_capture::{
    EvidenceFormat, builtin_stage, capture_extractor, plugin_refusal, text_summary,
};
use crate::output::CommandFailure;

/// The largest scenario file read: 4 MiB.
pub const SCENARIO_MAX_BYTES: u64 = 4 * 1024 * 1024;

/// Arguments of `rea capture-browser-scenario`.
#[derive(Debug, Args)]
pub struct CaptureScenarioArgs {
    /// The scenario (`rea-browser-scenario/v1` JSON).
    #[arg(value_name = "SCENARIO")]
    pub scenario: std::path::PathBuf,
    /// Print the Evidence as JSON (`--format json`, the default).
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// Output format (default: json).
    #[arg(long, value_enum)]
    pub format: Option<EvidenceFormat>,
}

/// Runs `rea capture-browser-scenario`.
pub fn run(args: &CaptureScenarioArgs) -> Result<(), CommandFailure> {
    let format = match (args.json, args.format) {
        (false, Some(format)) => format,
        _ => EvidenceFormat::Json,
    };
    let json_errors = format == EvidenceFormat::Json;
    let output = record_capture(&args.scenario, json_errors, false)?;
    write(output, format).map_err(|refusal| CommandFailure::refused(refusal, json_errors))
}

/// Checks a scenario file, records it in the browser and seals the session as capture Evidence
/// (`rea capture-browser-scenario`, and `rea serve SCENARIO.json`). A problem with the scenario or
/// the pipeline exits 2 and starts no browser; a failed recording exits 1, a signal 130 or 143,
/// the browser closed and its profile deleted either way. With `announce`, a line on stderr says
/// when the browser starts (once everything is checked).
pub fn record_capture(
    path: &Path,
    json_errors: bool,
    announce: bool,
) -> Result<CaptureOutput, CommandFailure> {
    let staged = |refusal: Refusal| refusal.in_stage(SCENARIO_CAPTURE_OPERATION);
    let configuration =
        |refusals: Vec<Refusal>| CommandFailure::configuration(refusals, json_errors);
    let file = read_bounded(path, SCENARIO_MAX_BYTES)
        .map_err(|refusal| configuration(vec![staged(refusal)]))?;
    let validated = rea_browser::validate(&file.bytes, &|name| std::env::var(name).ok())
        .map_err(|problems| configuration(problems.into_iter().map(problem_refusal).collect()))?;
    let (registry, stage) =
        builtin_stage(INPUT_KIND).map_err(|refusal| configuration(vec![staged(refusal)]))?;
    if announce {
        eprintln!("recording {} in the browser", path.display());
    }
    let session = rea_browser::record(&validated).map_err(|error| {
        let exit = match &error {
            BrowserError::Cancelled { signal: "SIGTERM" } => 143,
            BrowserError::Cancelled { .. } => 130,
            _ => CommandFailure::REFUSAL_EXIT,
        };
        CommandFailure {
            refusals: vec![staged(browser_refusal(&error))],
            exit,
            json: json_errors,
        }
    })?;
    let scenario = Scenario {
        path: &file.path,
        bytes: &file.bytes,
        validated: &validated,
    };
    capture_evidence(&registry, &stage, &scenario, &session)
        .map_err(|refusal| CommandFailure::refused(staged(refusal), json_errors))
}

/// The scenario file a session was recorded from.
pub struct Scenario<'a> {
    /// Its absolute path.
    pub path: &'a Path,
    /// Its bytes.
    pub bytes: &'a [u8],
    /// What validation resolved.
    pub validated: &'a ValidatedScenario,
}

/// Seals a recorded session as capture Evidence: the extractor's records, the session as the
/// container, the scenario file as the subject.
pub fn capture_evidence(
    registry: &Registry,
    stage: &str,
    scenario: &Scenario<'_>,
    session: &RecordedSession,
) -> Result<CaptureOutput, Refusal> {
    let session_bytes = serde_json::to_vec(session)
        .map_err(|error| Refusal::internal(format!("the session did not serialize: {error}")))?;
    let (handle, extractor) = capture_extractor(registry, stage)?;
    let request = ExtractRequest {
        input_kind: INPUT_KIND.to_owned(),
        sensitive_values: Vec::new(),
        schema_version: SCHEMA_VERSION,
    };
    let answer = handle
        .extract_raw(&request, &session_bytes)
        .map_err(|error| plugin_refusal(&error))?;
    let parameters = match Json::from_serde_value(&scenario.validated.document) {
        Json::Object(object) => object,
        _ => Object::new(),
    };
    let session_sha256 = sha256_hex(&session_bytes);
    let inputs = CaptureInputs {
        path: scenario.path,
        bytes: scenario.bytes.len() as u64,
        sha256: &sha256_hex(scenario.bytes),
        input_kind: INPUT_KIND,
        extractor: &extractor,
        selection: None,
        sensitive_values: &[],
        origin: CaptureOrigin::Scenario {
            session_bytes: session_bytes.len() as u64,
            session_sha256: &session_sha256,
            parameters: &parameters,
        },
    };
    seal_capture_answer(&inputs, answer)
}

fn write(output: CaptureOutput, format: EvidenceFormat) -> Result<(), Refusal> {
    let stdout = std::io::stdout();
    let written = match format {
        EvidenceFormat::Json => {
            let mut out = std::io::BufWriter::with_capacity(1 << 20, stdout.lock());
            output
                .write_to(&mut out)
                .and_then(|()| out.write_all(b"\n"))
                .and_then(|()| out.flush())
        }
        EvidenceFormat::Text => {
            let evidence = output.into_evidence()?;
            let summary = text_summary(&evidence)?;
            let mut out = stdout.lock();
            out.write_all(summary.as_bytes()).and_then(|()| out.flush())
        }
    };
    written.map_err(|error| Refusal::new("output_failed", "unavailable", error.to_string()))
}

fn problem_refusal(problem: Problem) -> Refusal {
    Refusal::invalid_request(problem.message)
        .at(problem.pointer)
        .in_stage(SCENARIO_CAPTURE_OPERATION)
}

fn browser_refusal(error: &BrowserError) -> Refusal {
    let refusal = match error {
        BrowserError::Cancelled { signal } => {
            Refusal::cancelled(error.to_string()).with_data(serde_json::json!({ "signal": signal }))
        }
        BrowserError::Launch(_) | BrowserError::Connect(_) | BrowserError::Exited(_) => {
            Refusal::new("browser_unavailable", "unavailable", error.to_string())
        }
        BrowserError::Step { .. } => Refusal::new("step_failed", "input", error.to_string()),
        BrowserError::Deadline(_) => {
            Refusal::new("deadline_exceeded", "unavailable", error.to_string())
        }
        BrowserError::Cleanup(_) | BrowserError::Protocol(_) => {
            Refusal::internal(error.to_string())
        }
    };
    match error.pointer() {
        Some(pointer) => refusal.at(pointer),
        None => refusal,
    }
}

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

use clap::Args;
use rea_compare::adapter::Mode;
use rea_compare::{CompareInputs, STAGE};
use rea_evidence::{Evidence, Refusal};
use serde_json::json;

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
    /// Capture Evidence of one call sequence recorded on the live application (repeatable).
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

//! `rea inspect-analysis-view VIEW.json [--format json|text] [--pipeline FILE]`: a view request
//! in, view Evidence out: the `environment-manifest` view, and (through `rea_state`) the
//! `environment-state` and `environment-coverage` views, whose write plans the pipeline's rule
//! stages learn.
//!
//! The view file is read within the view's 96 MiB budget; its `source` is the capture Evidence
//! inline (`{"kind": "inline", "evidence": {…}}`) or a capture Evidence file
//! (`{"kind": "evidence-file", "path": "capture.json"}`, a relative path taken from the view
//! file's folder). The Evidence is authenticated, then projected ([`rea_manifest`]) and sealed.
//! `--format json` (the default) prints the manifest Evidence as canonical compact JSON and a
//! newline; `text` prints a short summary. A refusal prints one line on stderr (a JSON line with
//! `--format json`), nothing on stdout, and exits 1.

#![allow(clippy::result_large_err)]

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use rea_evidence::{Evidence, Refusal, read_bounded};
use rea_manifest::evidence::VIEW_FILE_MAX_BYTES;
use rea_manifest::{Manifest, STAGE, ViewSpec, parse_view_request, project_manifest_evidence};

use crate::output::CommandFailure;

pub use crate::commands::inspect_capture::EvidenceFormat;

/// Arguments of `rea inspect-analysis-view`.
#[derive(Debug, Args)]
pub struct InspectViewArgs {
    /// The view request (`{"source": …, "view": {"kind": "environment-manifest", …}}`).
    #[arg(value_name = "VIEW")]
    pub view: PathBuf,
    /// Print the view Evidence as JSON (the default when stdout is not a terminal).
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// Output format (`--json` is `--format json`; default: text on a terminal, else JSON; the
    /// coverage view's text is its coverage table).
    #[arg(long, value_enum)]
    pub format: Option<EvidenceFormat>,
    /// The pipeline whose rule stages the `environment-state` and `environment-coverage` views
    /// learn write plans with (default: the embedded pipeline), as `environment-serve --pipeline`.
    #[arg(long, value_name = "FILE")]
    pub pipeline: Option<PathBuf>,
}

/// Runs `rea inspect-analysis-view`.
pub fn run(args: &InspectViewArgs) -> Result<(), CommandFailure> {
    let format = crate::commands::inspect_capture::output_format(args.json, args.format);
    // Refusals are text lines unless JSON was asked for, as in every command.
    let json_errors = args.json || args.format == Some(EvidenceFormat::Json);
    // The `environment-state` and `environment-coverage` views are projected by
    // `rea_state::view` with the pipeline's rule stages (the same the server derives with).
    let mut registry = crate::builtin_registry().map_err(|error| {
        CommandFailure::refused(Refusal::internal(error.to_string()), json_errors)
    })?;
    let (_, rules) = rea_state::rules::load_pipeline(args.pipeline.as_deref(), &mut registry)
        .map_err(|refusal| CommandFailure::configuration(vec![refusal], json_errors))?;
    let state = rea_state::view::inspect_state_view(&args.view, &rules)
        .transpose()
        .map_err(|refusal| CommandFailure::refused(refusal, json_errors))?;
    let (summary, evidence) = match state {
        Some(projected) => (
            coverage_text(&projected.evidence).unwrap_or(projected.summary),
            projected.evidence,
        ),
        None => {
            let (manifest, evidence) = inspect_view(&args.view, &rules)
                .map_err(|refusal| CommandFailure::refused(refusal, json_errors))?;
            (text_summary(&manifest, &evidence), evidence)
        }
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 20, stdout.lock());
    let written = match format {
        EvidenceFormat::Json => evidence
            .write_to(&mut out)
            .and_then(|()| out.write_all(b"\n")),
        EvidenceFormat::Text => out.write_all(summary.as_bytes()),
    };
    written.and_then(|()| out.flush()).map_err(|error| {
        CommandFailure::refused(
            Refusal::new("output_failed", "unavailable", error.to_string()),
            json_errors,
        )
    })
}

/// The coverage view's text: its Evidence id and the coverage table (`None` for other views).
fn coverage_text(evidence: &Evidence) -> Option<String> {
    let document: serde_json::Value = serde_json::from_slice(&evidence.to_canonical_vec()).ok()?;
    let view = document
        .pointer("/parameters/view/kind")
        .and_then(serde_json::Value::as_str);
    let is_coverage = view == Some(rea_state::coverage::COVERAGE_VIEW_KIND)
        || (document.get("reads").is_some() && document.get("writes").is_some());
    is_coverage.then(|| {
        format!(
            "environment coverage {}\n{}",
            evidence.id(),
            rea_backends::status::coverage_table(&document).to_text()
        )
    })
}

/// Reads a view request file and projects its view with the view's template rules and the
/// pipeline's route forms (`rules`): the manifest and its sealed Evidence.
pub fn inspect_view(
    view: &Path,
    rules: &rea_state::rules::RuleSet,
) -> Result<(Manifest, Evidence), Refusal> {
    let file =
        read_bounded(view, VIEW_FILE_MAX_BYTES).map_err(|refusal| refusal.in_stage(STAGE))?;
    let text = std::str::from_utf8(&file.bytes).map_err(|_| {
        Refusal::invalid_request("the view request is not UTF-8 text")
            .at("")
            .in_stage(STAGE)
    })?;
    let request = parse_view_request(text)?;
    let base = file.path.parent().unwrap_or(Path::new("."));
    let capture = request.source.load(base)?;
    match &request.view {
        ViewSpec::EnvironmentManifest { template_rules } => {
            project_manifest_evidence(&capture, &rules.templating(template_rules))
        }
    }
}

fn text_summary(manifest: &Manifest, evidence: &Evidence) -> String {
    let mut text = format!(
        "environment manifest {}\n  name: {}\n  parent evidence: {}\n  primary origin: {}\n  template rules: {}\n  records: {} ({} cited, {} excluded)\n  tools: {}\n",
        evidence.id(),
        manifest.name,
        manifest.parent_evidence_id,
        manifest.primary_origin,
        if manifest.template_rules.is_empty() {
            "none (format rules only)".to_owned()
        } else {
            manifest.template_rules.join(", ")
        },
        manifest.records.total,
        manifest.records.cited,
        manifest.records.excluded,
        manifest.tools.len(),
    );
    for tool in &manifest.tools {
        text.push_str(&format!(
            "    {} {} {}  ({} records)\n",
            tool.name,
            tool.method,
            tool.path_template,
            tool.record_ordinals.len()
        ));
    }
    text.push_str(&format!(
        "  excluded groups: {}\n",
        manifest.excluded_groups.len()
    ));
    for group in &manifest.excluded_groups {
        text.push_str(&format!(
            "    {} {} {} {}  ({} records)\n",
            group.reason,
            group.method.as_deref().unwrap_or("-"),
            group.origin.as_deref().unwrap_or("-"),
            group.path_template.as_deref().unwrap_or("-"),
            group.record_ordinals.len()
        ));
    }
    text
}

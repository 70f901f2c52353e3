//! The export: from an authenticated pair to a written (or planned) bundle and its report.
//!
//! In order: the name ([`crate::name::choose_name`]), the prediction of what the bundle serves
//! under it ([`crate::predict::predict`], which also charges the served catalog against the
//! discovery reservation), the credential-name scan, the files, and then (unless it is a dry run)
//! the write ([`crate::output::write_tree`]). Nothing is written before the write stage, so every
//! refusal before it leaves the file system as it was.
//!
//! The report (`environment-build`'s, `environment-export`'s and `export_environment_bundle`'s):
//!
//! ```text
//! status        "built" (written) or "planned" (dry run)
//! directory     the bundle directory made absolute (null for a dry run without one)
//! name          the env name
//! capture       {evidence_id, operation, records, input: "har" | "evidence"}
//! manifest      {evidence_id, tools, excluded_groups, template_rules}
//! state         the server's stopped-document `state`: {served: true, evidence_id} or
//!               {served: false, reason: "unavailable", code, message}
//! coverage      the state's read views and write plans summarized (as the environment-coverage
//!               view reports them), null when the bundle serves replay
//! tool_count    how many tools the bundle serves
//! package_source the binary the bundle carries: {kind, path, sha256, bytes, version} of the
//!                shipped file, and `debug_info` {shipped: false, removed_sections, source_bytes,
//!                source_sha256} when its debug sections were removed
//! files         [{path, bytes}] written (or planned), by path
//! warnings      [{code, message, count?, items?}]
//! next          ["agent-env run <directory>"]
//! ```

use std::path::PathBuf;
use std::sync::Arc;

use rea_evidence::capture::{SCENARIO_CAPTURE_OPERATION, capture_records, recorded_session};
use rea_evidence::{Evidence, Refusal};
use rea_manifest::{Environment, Projection};
use serde_json::{Value, json};

use crate::content::{self, BundledBinary, ServeCommand};
use crate::credentials::{self, Warning};
use crate::name::{LocalOriginName, choose_name};
use crate::output::{Destination, FileContent, PlannedFile, WriteObserver, write_tree};
use crate::pair::{AuthenticatedPair, CaptureFile};
use crate::pipeline::BundlePipeline;
use crate::predict::{CaptureRecords, Prediction, Projected, predict};

/// The `name-from-file` warning code.
pub const NAME_FROM_FILE: &str = "name-from-file";

/// The `generic-name` warning code: the name is a generic file stem (`build`).
pub const GENERIC_NAME: &str = "generic-name";

/// The stage names refusals carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stages {
    /// The command's own checks (the name): `environment-build` or `environment-export`.
    pub checks: &'static str,
    /// The bundle (prediction, planning, writing): `environment-export`.
    pub bundle: &'static str,
    /// The destination checks: the command's, or `export_environment_bundle`.
    pub destination: &'static str,
}

/// Where the bundle goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The directory, absolute.
    pub directory: PathBuf,
    /// What it may be.
    pub rule: Destination,
}

/// Everything an export needs.
#[derive(Debug)]
pub struct ExportRequest {
    /// The authenticated pair.
    pub pair: AuthenticatedPair,
    /// The projection of the pair's capture the manifest was made by in this process (with the
    /// pipeline's route forms), when it was: the state is derived from it and its records are
    /// read, instead of typing the records and projecting the manifest again.
    pub projection: Option<Projection>,
    /// `--name`.
    pub name: Option<String>,
    /// What names a local origin's environment without `--name`.
    pub local_origin: LocalOriginName,
    /// The pipeline the bundle carries.
    pub pipeline: BundlePipeline,
    /// Its rule stages (the bundle's server learns and applies write plans with them).
    pub rules: std::sync::Arc<rea_state::rules::RuleSet>,
    /// The binary the bundle carries.
    pub binary: BundledBinary,
    /// The serve command the image runs.
    pub serve: ServeCommand,
    /// What the bundled state is keyed with ([`rea_state::precomputed`]): the code and pipeline
    /// deriving it; `None` stores no precomputed state.
    pub provenance: Option<rea_state::precomputed::Provenance>,
    /// Where to write; `None` only for a dry run.
    pub target: Option<Target>,
    /// Plan only: write nothing.
    pub dry_run: bool,
    /// The report's `capture.input` (`har` or `evidence`).
    pub input: &'static str,
    /// Refusal stages.
    pub stages: Stages,
}

/// What an export reports as it goes.
pub trait ExportObserver: WriteObserver {
    /// A stage starts (`state`, `scan`, `plan`, `write`).
    fn stage(&mut self, stage: &str, detail: &str);

    /// A stage counted what it made (`state`: entities, types, documents, write plans).
    fn counted(&mut self, _stage: &str, _counts: &[(&str, u64)]) {}

    /// The files about to be written, with their sizes (for a byte-based percentage).
    fn planned(&mut self, _files: &[(&str, u64)]) {}
}

/// A planned bundle.
#[derive(Debug, Clone)]
pub struct BundlePlan {
    /// The env name.
    pub name: String,
    /// The prediction.
    pub prediction: Prediction,
    /// The files, by path.
    pub files: Vec<PlannedFile>,
    /// The warnings.
    pub warnings: Vec<Warning>,
}

/// The warning of rule stages that failed while the state was prepared.
pub const RULE_STAGE_FAILED: &str = "rule-stage-failed";

/// Plans the bundle: name, prediction, scan, files. Writes nothing. `environment` is the replay
/// environment the pair's check built ([`AuthenticatedPair::authenticate`]); the prediction hands
/// it to the server's startup decision. The request's projection is taken (scanned, then moved
/// into the prediction, whose precomputed state keeps its records): the files are written
/// without it.
pub fn plan(
    request: &mut ExportRequest,
    environment: Environment,
    observer: &mut dyn ExportObserver,
) -> Result<BundlePlan, Refusal> {
    let manifest = &request.pair.manifest;
    let chosen = choose_name(
        request.name.as_deref(),
        &manifest.name,
        &manifest.primary_origin,
        &request.local_origin,
    )
    .map_err(|refusal| refusal.in_stage(request.stages.checks))?;
    let name = chosen.name;
    let mut warnings = Vec::new();
    if let Some(message) = chosen.from_file {
        warnings.push(Warning::new(NAME_FROM_FILE, message));
    }
    if let Some(message) = chosen.generic {
        warnings.push(Warning::new(GENERIC_NAME, message));
    }
    cancelled(observer, request.stages.bundle)?;

    // The scan reads the projection's records before the prediction takes them; its outcome is
    // reported at its own stage, after the state's.
    let projection = request.projection.take();
    let scan = credential_scan(&request.pair.capture_evidence, projection.as_ref());
    let request = &*request;
    observer.stage("state", &format!("preparing what {name} serves"));
    let (prediction, evidence) = predicted(request, projection, environment, &name)
        .map_err(|refusal| refusal.in_stage(request.stages.bundle))?;
    let failures = request.rules.failures();
    if !failures.is_empty() {
        let mut warning = Warning::new(
            RULE_STAGE_FAILED,
            "Rule stages failed while the state was prepared (a plugin returned an error or panicked); each explains nothing for the tools named, so writes only it would explain are withheld.",
        );
        warning.count = Some(failures.len() as u64);
        warning.items = failures
            .into_iter()
            .take(credentials::LISTED_LIMIT)
            .collect();
        warnings.push(warning);
    }
    observer.counted("state", &prediction.counts);
    cancelled(observer, request.stages.bundle)?;

    observer.stage("scan", "scanning recorded names for credentials");
    let scan = scan.map_err(|refusal| refusal.in_stage(request.stages.bundle))?;
    warnings.extend(scan.warnings());
    cancelled(observer, request.stages.bundle)?;

    observer.stage("plan", "planning the bundle's files");
    let files = plan_files(request, &name, &prediction, evidence);
    Ok(BundlePlan {
        name,
        prediction,
        files,
        warnings,
    })
}

/// The prediction under `name` and `evidence.json`'s content (the capture Evidence written again
/// from the records the prediction hands back, when the pair holds only its digest).
fn predicted(
    request: &ExportRequest,
    projection: Option<Projection>,
    environment: Environment,
    name: &str,
) -> Result<(Prediction, FileContent), Refusal> {
    let evidence_sha256 = request.pair.capture_file.sha256();
    let precompute = request
        .provenance
        .as_ref()
        .map(|provenance| crate::predict::Precompute {
            provenance,
            evidence_sha256: &evidence_sha256,
        });
    let keep_records = matches!(request.pair.capture_file, CaptureFile::Rewritten(_));
    let projected = projection.map(|projection| Projected {
        projection,
        keep_records,
    });
    let (prediction, records) = predict(
        environment,
        &request.pair.manifest,
        &request.pair.capture_evidence,
        projected,
        name,
        std::sync::Arc::clone(&request.rules),
        precompute,
    )?;
    // The derivation's working set (the timeline's parsed answers, its lookups) is freed by now,
    // leaving the heap holed; given back, what follows (the capture file's content, the files'
    // buffers) is not mapped beside it (issue 17: the build's peak had moved past derivation).
    rea_serve::memory::give_memory_back();
    let evidence = evidence_content(&request.pair, records)?;
    Ok((prediction, evidence))
}

/// The credential-name scan: a HAR inspection's records (a projection's, when it is of this
/// capture); a browser scenario's events (which include what no record represents) and its saved
/// values.
fn credential_scan(
    capture: &Evidence,
    projection: Option<&Projection>,
) -> Result<credentials::CredentialScan, Refusal> {
    if capture.operation() != SCENARIO_CAPTURE_OPERATION {
        if let Some(projection) = projection.filter(|p| p.capture_id() == capture.id()) {
            return Ok(credentials::scan(projection.records()));
        }
        let records = capture_records(capture)?;
        return Ok(credentials::scan(&records));
    }
    let session = recorded_session(capture)?;
    let mut scan = credentials::scan_session(&session);
    if let Some(scenario) = capture
        .get("parameters")
        .and_then(|parameters| parameters.get("scenario"))
    {
        scan.saved = credentials::saved_values(scenario);
    }
    Ok(scan)
}

fn cancelled(observer: &mut dyn ExportObserver, stage: &str) -> Result<(), Refusal> {
    if observer.cancelled() {
        return Err(Refusal::cancelled(
            "cancelled before the bundle was written; nothing was written",
        )
        .in_stage(stage));
    }
    Ok(())
}

/// The bundle's `bin/rea`: the binary stripped of its debug information as planned, or copied.
fn binary_file(request: &ExportRequest, env: &str) -> PlannedFile {
    PlannedFile {
        path: format!("{env}/bin/rea"),
        content: match &request.binary.stripped {
            Some(stripped) => FileContent::Stripped {
                source: request.binary.path.clone(),
                plan: stripped.plan.clone(),
                sha256: request.binary.sha256.clone(),
            },
            None => FileContent::Copy {
                source: request.binary.path.clone(),
                bytes: request.binary.bytes,
                sha256: request.binary.sha256.clone(),
            },
        },
        executable: true,
    }
}

/// `evidence.json`'s content: the pair's bytes, or the capture Evidence written again from the
/// records the prediction handed back.
fn evidence_content(
    pair: &AuthenticatedPair,
    records: CaptureRecords,
) -> Result<FileContent, Refusal> {
    match (&pair.capture_file, records) {
        (CaptureFile::Bytes(bytes), _) => Ok(FileContent::Bytes(Arc::clone(bytes))),
        (CaptureFile::Rewritten(digest), Some(records)) => Ok(FileContent::Capture(Arc::new(
            rea_evidence::rewrite::CaptureRewrite::new(
                pair.capture_evidence.clone(),
                records,
                digest.clone(),
            ),
        ))),
        (CaptureFile::Rewritten(_), None) => Err(Refusal::internal(
            "the capture's records were not kept to write evidence.json from",
        )),
    }
}

/// The bundle's files, sorted by path.
fn plan_files(
    request: &ExportRequest,
    name: &str,
    prediction: &Prediction,
    evidence: FileContent,
) -> Vec<PlannedFile> {
    let env = format!("envs/{name}");
    let shared = |path: String, bytes: Arc<Vec<u8>>| PlannedFile {
        path,
        content: FileContent::Bytes(bytes),
        executable: false,
    };
    let bytes = |path: String, bytes: Vec<u8>| PlannedFile {
        path,
        content: FileContent::Bytes(Arc::new(bytes)),
        executable: false,
    };
    let serve = ServeCommand {
        state_file: request.serve.state_file && prediction.precomputed.is_some(),
        ..request.serve.clone()
    };
    let mut files = vec![
        bytes(
            "README.md".to_owned(),
            content::readme(
                name,
                &request.pair,
                prediction,
                &request.binary,
                &serve,
                request.rules.withheld(),
            )
            .into_bytes(),
        ),
        bytes(
            format!("artifacts/check_{name}/verify.py"),
            content::verify_py(name, prediction).into_bytes(),
        ),
        bytes(
            format!("{env}/Dockerfile"),
            content::dockerfile(name, &serve, !request.pipeline.plugins.is_empty()).into_bytes(),
        ),
        binary_file(request, &env),
        bytes(
            format!("{env}/env.toml"),
            content::env_toml(name).into_bytes(),
        ),
        PlannedFile {
            path: format!("{env}/evidence.json"),
            content: evidence,
            executable: false,
        },
        shared(
            format!("{env}/manifest.json"),
            Arc::clone(&request.pair.manifest_bytes),
        ),
        bytes(
            format!("{env}/pipeline.toml"),
            request.pipeline.text.clone(),
        ),
        bytes(
            "tasks/smoke.json".to_owned(),
            content::smoke_task(name).into_bytes(),
        ),
    ];
    if let (true, Some(state)) = (serve.state_file, &prediction.precomputed) {
        files.push(PlannedFile {
            path: format!("{env}/{}", content::STATE_FILE),
            content: FileContent::State(Arc::clone(state)),
            executable: false,
        });
    }
    for (path, library) in &request.pipeline.plugins {
        files.push(bytes(format!("{env}/{path}"), library.clone()));
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files
}

/// Plans and (unless a dry run) writes the bundle; returns the report.
pub fn export(
    mut request: ExportRequest,
    environment: Environment,
    observer: &mut dyn ExportObserver,
) -> Result<Value, Refusal> {
    // The projection serves the scan and the prediction; the files are written without it.
    let plan = plan(&mut request, environment, observer)?;
    let request = &request;
    let (status, files): (&str, Vec<(String, u64)>) = if request.dry_run {
        (
            "planned",
            plan.files
                .iter()
                .map(|file| (file.path.clone(), file.content.len()))
                .collect(),
        )
    } else {
        let Some(target) = &request.target else {
            return Err(Refusal::invalid_request("a bundle directory is required")
                .in_stage(request.stages.destination));
        };
        crate::output::check_destination(&target.directory, target.rule)
            .map_err(|refusal| refusal.in_stage(request.stages.destination))?;
        observer.stage(
            "write",
            &format!(
                "writing {} files into {}",
                plan.files.len(),
                target.directory.display()
            ),
        );
        let sizes: Vec<(&str, u64)> = plan
            .files
            .iter()
            .map(|file| (file.path.as_str(), file.content.len()))
            .collect();
        observer.planned(&sizes);
        let written = write_tree(&target.directory, target.rule, &plan.files, observer)
            .map_err(|refusal| refusal.in_stage(request.stages.bundle))?;
        (
            "built",
            written
                .into_iter()
                .map(|file| (file.path, file.bytes))
                .collect(),
        )
    };
    Ok(report(request, &plan, status, &files))
}

fn report(
    request: &ExportRequest,
    plan: &BundlePlan,
    status: &str,
    files: &[(String, u64)],
) -> Value {
    let pair = &request.pair;
    let manifest = &pair.manifest;
    let directory = request
        .target
        .as_ref()
        .map(|target| target.directory.display().to_string());
    let next: Vec<String> = match &directory {
        Some(directory) if status == "built" => vec![format!("agent-env run {directory}")],
        Some(directory) => vec![format!(
            "run again without the dry run to write the bundle, then: agent-env run {directory}"
        )],
        None => vec![
            "run again with a directory and without the dry run to write the bundle".to_owned(),
        ],
    };
    json!({
        "status": status,
        "directory": directory,
        "name": plan.name,
        "capture": {
            "evidence_id": pair.capture_evidence.id(),
            "operation": pair.capture_evidence.operation(),
            "records": pair.record_count(),
            "input": request.input,
        },
        "manifest": {
            "evidence_id": pair.manifest_evidence_id,
            "tools": manifest.tools.len(),
            "excluded_groups": manifest.excluded_groups.len(),
            "template_rules": manifest.template_rules,
        },
        "state": plan.prediction.state,
        "coverage": plan.prediction.coverage.clone().unwrap_or(Value::Null),
        "tool_count": plan.prediction.tool_count(),
        "package_source": request.binary.package_source(),
        "files": files.iter().map(|(path, bytes)| json!({"path": path, "bytes": bytes})).collect::<Vec<_>>(),
        "warnings": plan.warnings,
        "next": next,
    })
}

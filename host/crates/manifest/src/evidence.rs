//! Manifest Evidence: projecting capture Evidence into sealed manifest Evidence, reading manifest
//! Evidence back, and loading a view request's source.
//!
//! Manifest Evidence is the [`Manifest`]'s members at the top level of an Evidence document
//! sealed under `inspect_analysis_view`, plus `schema_version` and `parameters`
//! (`{"view": {"kind": "environment-manifest", "template_rules": […]}}`). It depends only on the
//! capture Evidence and the rules, never on how the source was given (inline or a file, and
//! where), so the same capture and rules always seal the same id.

use std::path::{Path, PathBuf};

use rea_evidence::capture::{capture_records, declared_sensitive_values};
use rea_evidence::envelope::EVIDENCE_FILE_MAX_BYTES;
use rea_evidence::{Evidence, Refusal};
use rea_json::{Json, from_json};
use rea_plugin_api::contracts::capture::CaptureRecord;
use serde::Serialize;

use crate::environment::Environment;
use crate::manifest::{MANIFEST_VIEW_KIND, Manifest};
use crate::projection::{STAGE, project_manifest};
use crate::template::TemplateRules;
use crate::view::ViewSource;

/// The operation of analysis-view Evidence (manifests and, later, the other views).
pub const VIEW_OPERATION: &str = "inspect_analysis_view";

/// The manifest Evidence layout version.
pub const MANIFEST_SCHEMA_VERSION: u64 = 1;

/// The capture Evidence operations a manifest can be projected from: a HAR inspection and a
/// browser scenario alike.
pub use rea_evidence::capture::CAPTURE_OPERATIONS;

/// The members manifest Evidence adds around the manifest.
const ENVELOPE_MEMBERS: [&str; 4] = ["evidence_id", "operation", "parameters", "schema_version"];

#[derive(Serialize)]
struct ManifestParameters {
    view: ViewParameters,
}

#[derive(Serialize)]
struct ViewParameters {
    kind: &'static str,
    template_rules: Vec<String>,
}

#[derive(Serialize)]
struct ManifestDocument<'a> {
    #[serde(flatten)]
    manifest: &'a Manifest,
    parameters: ManifestParameters,
    schema_version: u64,
}

/// Checks that Evidence is capture Evidence a view can project: of a capture operation, and not
/// inspected with declared sensitive values (the environment views refuse those: scrub the
/// capture instead).
pub fn check_capture_evidence(capture: &Evidence) -> Result<(), Refusal> {
    capture
        .expect_operation(&CAPTURE_OPERATIONS)
        .map_err(|refusal| refusal.in_stage(STAGE))?;
    let declared = declared_sensitive_values(capture);
    if declared > 0 {
        return Err(Refusal::unsupported_target(format!(
            "capture Evidence {} was inspected with {declared} --sensitive-value declaration(s); the environment views refuse such captures: scrub the capture and inspect it again without --sensitive-value",
            capture.id()
        ))
        .at("/parameters/sensitive_value_count")
        .in_stage(STAGE));
    }
    Ok(())
}

/// A manifest projected in this process: the capture's records (typed once), the rules they
/// were templated with and the manifest, so a later stage (the state's derivation, the replay
/// environment, the bundle's credential scan) reads them instead of typing the records and
/// projecting the manifest again. Only [`Projection::project`] and [`Projection::of_records`]
/// make one.
#[derive(Debug)]
pub struct Projection {
    capture_id: String,
    rules: TemplateRules,
    /// The records with ids over two segments joined ([`crate::joined`]).
    records: Vec<CaptureRecord>,
    /// The paths and URLs the joined records were recorded with.
    recorded: Vec<crate::joined::Recorded>,
    manifest: Manifest,
}

impl Projection {
    /// Projects capture Evidence (checked as [`check_capture_evidence`] checks it) with the
    /// rules (the pipeline's route forms included).
    pub fn project(capture: &Evidence, rules: &TemplateRules) -> Result<Self, Refusal> {
        check_capture_evidence(capture)?;
        let records = capture_records(capture).map_err(|refusal| refusal.in_stage(STAGE))?;
        Self::of_records(capture, records, rules)
    }

    /// Projects the records of capture Evidence typed by the caller (a build that kept the
    /// capture's record text and typed it record by record, never holding the records as a JSON
    /// tree: [`rea_evidence::capture::SealedCapture::typed_records`]); `capture` gives the id and
    /// is checked as [`Projection::project`] checks it, its own `records` not read.
    pub fn of_records(
        capture: &Evidence,
        records: Vec<CaptureRecord>,
        rules: &TemplateRules,
    ) -> Result<Self, Refusal> {
        check_capture_evidence(capture)?;
        let mut records = records;
        let joined = crate::joined::learn(&records);
        let recorded = crate::joined::rewrite_records(&mut records, &joined);
        let mut manifest = project_manifest(capture.id(), &records, rules)?;
        manifest.joined_segments = joined;
        Ok(Self {
            capture_id: capture.id().to_owned(),
            rules: rules.clone(),
            records,
            recorded,
            manifest,
        })
    }

    /// Whether this is the projection of that capture with those rules.
    pub fn is_of(&self, capture_id: &str, rules: &TemplateRules) -> bool {
        self.capture_id == capture_id && self.rules == *rules
    }

    /// The id of the capture Evidence projected.
    pub fn capture_id(&self) -> &str {
        &self.capture_id
    }

    /// The capture's records, in capture order, read as the manifest reads them (ids over two
    /// segments joined: [`crate::joined`]).
    pub fn records(&self) -> &[CaptureRecord] {
        &self.records
    }

    /// The projected manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The manifest and the records as the capture holds them (their recorded paths).
    pub fn into_parts(self) -> (Manifest, Vec<CaptureRecord>) {
        let mut records = self.records;
        crate::joined::restore_records(&mut records, self.recorded);
        (self.manifest, records)
    }
}

/// Projects capture Evidence into sealed manifest Evidence.
pub fn project_manifest_evidence(
    capture: &Evidence,
    rules: &TemplateRules,
) -> Result<(Manifest, Evidence), Refusal> {
    let (manifest, _) = Projection::project(capture, rules)?.into_parts();
    let evidence = seal_manifest(&manifest)?;
    Ok((manifest, evidence))
}

/// Seals a manifest as Evidence.
pub fn seal_manifest(manifest: &Manifest) -> Result<Evidence, Refusal> {
    Evidence::seal_value(VIEW_OPERATION, &manifest_document(manifest))
        .map_err(|refusal| refusal.in_stage(STAGE))
}

/// The id [`seal_manifest`] gives the manifest's Evidence, hashed as the document serializes,
/// never built as its tree: where only the id is needed (a derivation naming the manifest it
/// projects), a tree of a 16k-item capture's manifest held every observed value again for the
/// derivation's life (issue 17).
pub fn sealed_manifest_id(manifest: &Manifest) -> Result<String, Refusal> {
    rea_evidence::streamed::sealed_id_of(VIEW_OPERATION, &manifest_document(manifest))
        .map_err(|refusal| refusal.in_stage(STAGE))
}

fn manifest_document(manifest: &Manifest) -> ManifestDocument<'_> {
    ManifestDocument {
        manifest,
        parameters: ManifestParameters {
            view: ViewParameters {
                kind: MANIFEST_VIEW_KIND,
                template_rules: manifest.template_rules.clone(),
            },
        },
        schema_version: MANIFEST_SCHEMA_VERSION,
    }
}

/// Reads the manifest out of authenticated manifest Evidence. Evidence of another operation or
/// another view kind, or whose members are not a manifest, is refused (`invalid_request`).
pub fn read_manifest(evidence: &Evidence) -> Result<Manifest, Refusal> {
    evidence.expect_operation(&[VIEW_OPERATION])?;
    match evidence.get("view").and_then(Json::as_str) {
        Some(MANIFEST_VIEW_KIND) => {}
        Some(other) => {
            return Err(Refusal::invalid_request(format!(
                "Evidence {} is a {other:?} view, not an {MANIFEST_VIEW_KIND:?}",
                evidence.id()
            ))
            .at("/view"));
        }
        None => {
            return Err(Refusal::invalid_request(format!(
                "Evidence {} names no view kind",
                evidence.id()
            ))
            .at("/view"));
        }
    }
    let mut body = evidence.body().clone();
    for member in ENVELOPE_MEMBERS {
        body.remove(member);
    }
    from_json(&Json::Object(body)).map_err(|error| {
        Refusal::invalid_request(format!(
            "Evidence {} is not a well-formed environment manifest: {error}",
            evidence.id()
        ))
    })
}

impl Environment {
    /// The replay environment of authenticated manifest Evidence and its parent capture Evidence
    /// (see [`Environment::new`] for the refusals).
    pub fn from_evidence(manifest: &Evidence, capture: &Evidence) -> Result<Environment, Refusal> {
        hold_loading();
        let parsed = read_manifest(manifest)?;
        capture.expect_operation(&CAPTURE_OPERATIONS)?;
        crate::environment::check_parent(&parsed, capture.id())?;
        let records = capture_records(capture)?;
        Environment::new(&parsed, capture.id(), records)
    }

    /// [`Environment::from_evidence`] reading the records of a projection of the capture made in
    /// this process (typed once) instead of typing them again; a projection of another capture
    /// is not read.
    pub fn from_projection(
        manifest: &Evidence,
        capture: &Evidence,
        projection: &Projection,
    ) -> Result<Environment, Refusal> {
        if projection.capture_id != capture.id() {
            return Environment::from_evidence(manifest, capture);
        }
        hold_loading();
        let parsed = read_manifest(manifest)?;
        capture.expect_operation(&CAPTURE_OPERATIONS)?;
        crate::environment::check_parent(&parsed, capture.id())?;
        let cited: std::collections::BTreeSet<u64> = parsed
            .tools
            .iter()
            .flat_map(|tool| tool.record_ordinals.iter().copied())
            .collect();
        let records = projection
            .records
            .iter()
            .filter(|record| cited.contains(&record.ordinal))
            .cloned();
        Environment::new(&parsed, capture.id(), records)
    }
}

/// The `loading` test hold (`REA_TEST_HOLD`, test builds only).
fn hold_loading() {
    if rea_evidence::test_hooks::holds("loading") {
        eprintln!(
            "{}",
            serde_json::json!({"level": "warn", "msg": "test hold", "stage": "loading"})
        );
        std::thread::sleep(rea_evidence::test_hooks::HOLD);
    }
}

/// The largest view request file: the view's 96 MiB input budget.
pub const VIEW_FILE_MAX_BYTES: u64 = 96 * 1024 * 1024;

impl ViewSource {
    /// Loads and authenticates the source's capture Evidence. A relative `evidence-file` path is
    /// resolved against `base` (the folder of the view file).
    pub fn load(&self, base: &Path) -> Result<Evidence, Refusal> {
        match self {
            ViewSource::Inline { evidence } => Evidence::authenticate(evidence.get().as_bytes())
                .map_err(|refusal| prefix_pointer(refusal, "/source/evidence").in_stage(STAGE)),
            ViewSource::EvidenceFile { path } => {
                let path = resolve(base, path);
                Evidence::read_file(&path, EVIDENCE_FILE_MAX_BYTES)
                    .map_err(|refusal| refusal.in_stage(STAGE))
            }
        }
    }
}

fn resolve(base: &Path, path: &str) -> PathBuf {
    let path = Path::new(path);
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    }
}

fn prefix_pointer(mut refusal: Refusal, prefix: &str) -> Refusal {
    refusal.pointer = Some(format!(
        "{prefix}{}",
        refusal.pointer.as_deref().unwrap_or("")
    ));
    refusal
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::template::TemplateRules;
    use crate::testing::record;

    #[test]
    fn the_streamed_manifest_id_is_the_sealed_one() {
        let records = [
            record(1, "GET", "http://app.test/api/items/7")
                .json(200, r#"{"id": 7, "title": "a \"b\" é"}"#)
                .build(),
            record(2, "GET", "http://app.test/api/items/8?fields=id")
                .json(200, r#"{"id": 8}"#)
                .build(),
        ];
        let manifest = crate::projection::project_manifest(
            "ev_parent",
            &records,
            &TemplateRules::parse(&["after-uid-literal"]).unwrap(),
        )
        .unwrap();
        assert_eq!(
            manifest.tools[0].path_parameters[0].observed_values,
            ["7", "8"]
        );
        assert_eq!(
            sealed_manifest_id(&manifest).unwrap(),
            seal_manifest(&manifest).unwrap().id()
        );
    }
}

//! The authenticated pair: a manifest and the capture it was projected from, with the exact bytes
//! the bundle copies.
//!
//! Both documents are authenticated as Evidence from the bytes the bundle will hold (so the bytes
//! copied are the bytes authenticated), and cross-checked as `environment-serve` checks them
//! ([`Environment::from_evidence`]: a manifest of another view kind, capture Evidence of another
//! operation and a manifest projected from another capture are refused with `invalid_request`
//! naming both ids). Nothing is written before this passes. A build that inspected a HAR holds no
//! bytes of the capture Evidence: `evidence.json` is written again from the capture's records and
//! checked against the digest of the bytes sealed at inspection ([`CaptureFile::Rewritten`]).

use rea_evidence::capture::capture_record_count;
use rea_evidence::rewrite::WrittenDigest;
use rea_evidence::{Evidence, Refusal};
use rea_json::Json;
use rea_manifest::{Environment, Manifest, Projection, read_manifest};
use serde_json::json;
use std::sync::Arc;

/// A manifest and its capture, authenticated, with their bytes.
#[derive(Debug, Clone)]
pub struct AuthenticatedPair {
    /// `manifest.json` as the bundle holds it (shared with the planned file).
    pub manifest_bytes: Arc<Vec<u8>>,
    /// `evidence.json` as the bundle holds it.
    pub capture_file: CaptureFile,
    /// The manifest Evidence's id. Its document is kept as `manifest_bytes` and read into
    /// `manifest`, not as a tree too: the tree of a large capture's manifest holds every observed
    /// value and record ordinal as its own node, and the state stage's peak is the build's
    /// (issue 17).
    pub manifest_evidence_id: String,
    /// The capture Evidence.
    pub capture_evidence: Evidence,
    /// The manifest.
    pub manifest: Manifest,
}

/// `evidence.json` as the bundle holds it.
#[derive(Debug, Clone)]
pub enum CaptureFile {
    /// Its bytes (shared with the planned file).
    Bytes(Arc<Vec<u8>>),
    /// Its length and SHA-256: the file is written again from the capture's records
    /// ([`rea_evidence::rewrite::CaptureRewrite`]), the capture Evidence being the one sealed
    /// without its records ([`rea_evidence::capture::SealedCapture::into_header`]).
    Rewritten(WrittenDigest),
}

impl CaptureFile {
    /// The file's SHA-256 (lower-case hex).
    pub fn sha256(&self) -> String {
        match self {
            CaptureFile::Bytes(bytes) => rea_evidence::sha256_hex(bytes),
            CaptureFile::Rewritten(digest) => digest.sha256.clone(),
        }
    }

    /// The file's length in bytes.
    pub fn len(&self) -> u64 {
        match self {
            CaptureFile::Bytes(bytes) => bytes.len() as u64,
            CaptureFile::Rewritten(digest) => digest.bytes,
        }
    }

    /// Whether the file is empty (never for Evidence).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Which input a refusal is about.
fn about(refusal: Refusal, input: &str) -> Refusal {
    match refusal.data {
        None => refusal.with_data(json!({ "input": input })),
        Some(_) => refusal,
    }
}

impl AuthenticatedPair {
    /// Authenticates a manifest file's and a capture file's bytes and checks they are a pair.
    /// Returns the pair and the replay environment the check built.
    pub fn authenticate(
        manifest_bytes: Vec<u8>,
        capture_bytes: Vec<u8>,
    ) -> Result<(Self, Environment), Refusal> {
        let manifest_evidence = Evidence::authenticate(&manifest_bytes)
            .map_err(|refusal| about(refusal, "manifest"))?;
        let capture_evidence =
            Evidence::authenticate(&capture_bytes).map_err(|refusal| about(refusal, "evidence"))?;
        Self::check(
            manifest_bytes,
            CaptureFile::Bytes(Arc::new(capture_bytes)),
            (manifest_evidence, capture_evidence),
            None,
        )
    }

    /// The pair of Evidence sealed in this process, as `--format json` writes each (canonical
    /// JSON and a newline), checked as [`AuthenticatedPair::authenticate`] checks files; the
    /// replay environment reads the records of the capture's projection.
    pub fn from_sealed(
        manifest_evidence: Evidence,
        capture_evidence: Evidence,
        projection: &Projection,
    ) -> Result<(Self, Environment), Refusal> {
        let manifest_bytes = written_as_json(&manifest_evidence);
        let capture_bytes = written_as_json(&capture_evidence);
        Self::check(
            manifest_bytes,
            CaptureFile::Bytes(Arc::new(capture_bytes)),
            (manifest_evidence, capture_evidence),
            Some(projection),
        )
    }

    /// Sealed manifest Evidence with capture Evidence authenticated from the given bytes (a
    /// capture Evidence file projected in this process, `projection`).
    pub fn from_capture_file(
        manifest_evidence: Evidence,
        capture_bytes: Vec<u8>,
        capture_evidence: Evidence,
        projection: &Projection,
    ) -> Result<(Self, Environment), Refusal> {
        let manifest_bytes = written_as_json(&manifest_evidence);
        Self::check(
            manifest_bytes,
            CaptureFile::Bytes(Arc::new(capture_bytes)),
            (manifest_evidence, capture_evidence),
            Some(projection),
        )
    }

    /// Sealed manifest Evidence with capture Evidence sealed in this process without its records
    /// (`capture_header`, their projection `projection`), whose file is written again from them
    /// and must be the one `written` names.
    pub fn from_rewritten(
        manifest_evidence: Evidence,
        written: WrittenDigest,
        capture_header: Evidence,
        projection: &Projection,
    ) -> Result<(Self, Environment), Refusal> {
        let manifest_bytes = written_as_json(&manifest_evidence);
        Self::check(
            manifest_bytes,
            CaptureFile::Rewritten(written),
            (manifest_evidence, capture_header),
            Some(projection),
        )
    }

    fn check(
        manifest_bytes: Vec<u8>,
        capture_file: CaptureFile,
        (manifest_evidence, capture_evidence): (Evidence, Evidence),
        projection: Option<&Projection>,
    ) -> Result<(Self, Environment), Refusal> {
        let environment = match projection {
            Some(projection) => {
                Environment::from_projection(&manifest_evidence, &capture_evidence, projection)?
            }
            None => Environment::from_evidence(&manifest_evidence, &capture_evidence)?,
        };
        let manifest = read_manifest(&manifest_evidence)?;
        Ok((
            Self {
                manifest_bytes: Arc::new(manifest_bytes),
                capture_file,
                manifest_evidence_id: manifest_evidence.id().to_owned(),
                capture_evidence,
                manifest,
            },
            environment,
        ))
    }

    /// How many records the capture has.
    pub fn record_count(&self) -> u64 {
        capture_record_count(&self.capture_evidence).unwrap_or(0)
    }

    /// The capture artifact's SHA-256 as the capture Evidence records it (`artifact.sha256`),
    /// when recorded.
    pub fn capture_sha256(&self) -> Option<&str> {
        self.capture_evidence
            .get("artifact")
            .and_then(|artifact| artifact.get("sha256"))
            .and_then(Json::as_str)
    }
}

/// An Evidence document as `--format json` writes it: canonical JSON and a newline.
pub fn written_as_json(evidence: &Evidence) -> Vec<u8> {
    let mut bytes = evidence.to_canonical_vec();
    bytes.push(b'\n');
    bytes
}

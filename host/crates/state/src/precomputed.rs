//! Precomputed state: the derived state and its write plans as `environment-build` stores them in
//! a bundle (`envs/NAME/state.json`), read back by the server instead of deriving them again.
//!
//! The file is one header line of canonical JSON, then the body:
//!
//! ```text
//! {"body_bytes":N,"body_sha256":"…","data_get_bytes":N,"format":"rea-precomputed-state",
//!  "key":{"capture_evidence_id":"ev_…","deriver":"…","manifest_evidence_id":"ev_…","pipeline":"…"},
//!  "state_evidence_id":"ev_…","version":1}
//! the StateView as JSON (struct members in declaration order, recorded objects in recorded order)
//! ```
//!
//! A state depends on the capture (its Evidence id), the manifest the same capture and template
//! rules project (its Evidence id), the pipeline's rule stages (each stage, its plugin and that
//! plugin's version and source — builtin, or the SHA-256 of its library — and its options:
//! [`pipeline_identity`]) and the code that derived it (the `deriver`: the rea version and the
//! running binary's build id). That is the file's [`StateKey`]. A server reads the state only when
//! the key equals its own and the body's length and SHA-256 are the header's
//! ([`read_precomputed`]); otherwise it derives the state as it would without the file and logs
//! why, so a state made from other inputs or by other code is never served. The same state, key
//! and code write the same bytes.

use rea_evidence::{Refusal, sha256_hex};
use rea_plugin_api::json::{self, Json, ParseOptions};
use rea_registry::{PluginSource, Registry};
use serde::{Deserialize, Serialize};

use crate::model::StateView;

/// The header's `format`.
pub const PRECOMPUTED_FORMAT: &str = "rea-precomputed-state";

/// The header's `version`: bumped whenever an older reader would misread the body.
pub const PRECOMPUTED_VERSION: u64 = 1;

/// The longest header line read.
const MAX_HEADER_BYTES: usize = 64 * 1024;

/// What a state was derived with besides the capture and the manifest: the code and the pipeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provenance {
    /// The code that derives: the rea version and the running binary's build id.
    pub deriver: String,
    /// The pipeline's rule stages ([`pipeline_identity`]).
    pub pipeline: String,
}

/// Everything a precomputed state depends on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StateKey {
    /// The capture Evidence id.
    pub capture_evidence_id: String,
    /// The code that derived it ([`Provenance::deriver`]).
    pub deriver: String,
    /// The manifest Evidence id.
    pub manifest_evidence_id: String,
    /// The pipeline ([`Provenance::pipeline`]).
    pub pipeline: String,
}

impl StateKey {
    /// The key of a state derived from this capture and manifest with this provenance.
    pub fn new(
        capture_evidence_id: &str,
        manifest_evidence_id: &str,
        provenance: &Provenance,
    ) -> Self {
        Self {
            capture_evidence_id: capture_evidence_id.to_owned(),
            deriver: provenance.deriver.clone(),
            manifest_evidence_id: manifest_evidence_id.to_owned(),
            pipeline: provenance.pipeline.clone(),
        }
    }

    /// The first member that differs from `other`, as a sentence.
    fn difference(&self, other: &StateKey) -> Option<String> {
        let members = [
            (
                "capture Evidence",
                &self.capture_evidence_id,
                &other.capture_evidence_id,
            ),
            (
                "manifest Evidence",
                &self.manifest_evidence_id,
                &other.manifest_evidence_id,
            ),
            ("pipeline", &self.pipeline, &other.pipeline),
            ("rea build", &self.deriver, &other.deriver),
        ];
        members
            .into_iter()
            .find(|(_, mine, theirs)| mine != theirs)
            .map(|(what, mine, theirs)| format!("it was derived for {what} {mine}, not {theirs}"))
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct Header {
    body_bytes: u64,
    body_sha256: String,
    data_get_bytes: u64,
    format: String,
    key: StateKey,
    state_evidence_id: String,
    version: u64,
}

/// A precomputed state, read back.
#[derive(Debug)]
pub struct PrecomputedState {
    /// The state.
    pub state: StateView,
    /// Its Evidence id.
    pub state_evidence_id: String,
    /// How many bytes `data/get` writes it in.
    pub data_get_bytes: u64,
}

/// The file of a derived state: its Evidence id, the size of its `data/get` document, and its key.
pub fn write_precomputed(
    state: &StateView,
    state_evidence_id: &str,
    data_get_bytes: usize,
    key: &StateKey,
) -> Result<Vec<u8>, Refusal> {
    let body = serde_json::to_vec(state).map_err(|error| {
        Refusal::internal(format!("the derived state cannot be written: {error}"))
    })?;
    let header = Header {
        body_bytes: body.len() as u64,
        body_sha256: sha256_hex(&body),
        data_get_bytes: data_get_bytes as u64,
        format: PRECOMPUTED_FORMAT.to_owned(),
        key: key.clone(),
        state_evidence_id: state_evidence_id.to_owned(),
        version: PRECOMPUTED_VERSION,
    };
    let header = Json::from_serialize(&header).map_err(|error| {
        Refusal::internal(format!("the state header cannot be written: {error}"))
    })?;
    let mut bytes = header.to_canonical_vec();
    bytes.push(b'\n');
    bytes.extend_from_slice(&body);
    Ok(bytes)
}

/// Reads a precomputed state whose key must be `expected`. `Err` says, in one sentence, why it
/// cannot be used (the caller derives the state instead).
pub fn read_precomputed(bytes: &[u8], expected: &StateKey) -> Result<PrecomputedState, String> {
    let split = bytes
        .iter()
        .take(MAX_HEADER_BYTES)
        .position(|byte| *byte == b'\n')
        .ok_or("it has no header line")?;
    let (header, body) = (&bytes[..split], &bytes[split + 1..]);
    let header: Header = Json::parse(header)
        .map_err(|error| error.to_string())
        .and_then(|header| json::from_json_exact(header).map_err(|error| error.to_string()))
        .map_err(|error| format!("its header cannot be read: {error}"))?;
    if header.format != PRECOMPUTED_FORMAT || header.version != PRECOMPUTED_VERSION {
        return Err(format!(
            "it is {} version {}, not {PRECOMPUTED_FORMAT} version {PRECOMPUTED_VERSION}",
            header.format, header.version
        ));
    }
    if let Some(difference) = header.key.difference(expected) {
        return Err(difference);
    }
    if body.len() as u64 != header.body_bytes || sha256_hex(body) != header.body_sha256 {
        return Err("its body is not the one its header names (length or SHA-256)".to_owned());
    }
    // Nesting is bounded by the capture the state was derived from; the body is the one derived.
    let tree = json::parse_with(body, &ParseOptions::default().max_depth(usize::MAX))
        .map_err(|error| format!("its body cannot be read: {error}"))?;
    let state: StateView =
        json::from_json_exact(tree).map_err(|error| format!("its body is not a state: {error}"))?;
    Ok(PrecomputedState {
        state,
        state_evidence_id: header.state_evidence_id,
        data_get_bytes: header.data_get_bytes,
    })
}

/// The pipeline's rule stages as a precomputed state's key names them: the SHA-256 of each
/// `[[rules]]` step in order — its stage, plugin, the plugin's version and source (`builtin`, or
/// the SHA-256 of its library) and its options — as canonical JSON.
pub fn pipeline_identity(pipeline: &rea_pipeline::Pipeline, registry: &Registry) -> String {
    let steps: Vec<serde_json::Value> = pipeline
        .rules
        .iter()
        .map(|rule| {
            let plugin = registry.plugin(&rule.stage.plugin);
            let source = plugin.map(|plugin| match &plugin.source {
                PluginSource::Builtin => "builtin".to_owned(),
                PluginSource::Library { sha256, .. } => sha256.clone(),
            });
            serde_json::json!({
                "stage": rule.stage.stage,
                "plugin": rule.stage.plugin,
                "version": plugin.map(|plugin| plugin.version.clone()),
                "source": source,
                "options": rule.options,
            })
        })
        .collect();
    let canonical = Json::from_serde_value(&serde_json::Value::Array(steps)).to_canonical_vec();
    sha256_hex(&canonical)
}

//! Precomputed state: the derived state and its write plans as `environment-build` stores them in
//! a bundle (`envs/NAME/state.json`), read back by the server instead of deriving them again.
//!
//! The file is one header line of canonical JSON, then the body:
//!
//! ```text
//! {"body_bytes":N,"body_sha256":"…","data_get_bytes":N,"evidence_sha256":"…",
//!  "format":"rea-precomputed-state",
//!  "key":{"capture_evidence_id":"ev_…","deriver":"…","manifest_evidence_id":"ev_…","pipeline":"…"},
//!  "state_evidence_id":"ev_…","version":2}
//! {"records":[the capture records the state and the manifest cite, by ordinal],"state":the StateView}
//! ```
//!
//! (struct members in declaration order, recorded objects in recorded order). The records are the
//! ones the replay environment keeps (the manifest's citations) and the ones the state's answers
//! quote ([`stored_ordinals`]), so a server builds its environment and state
//! service from the file and the manifest alone, never parsing the capture Evidence.
//!
//! A state depends on the capture (its Evidence id), the manifest the same capture and template
//! rules project (its Evidence id), the pipeline's rule stages (each stage, its plugin and that
//! plugin's version and source — builtin, or the SHA-256 of its library — and its options:
//! [`pipeline_identity`]) and the code that derived it (the `deriver`: the rea version and the
//! running binary's build id). That is the file's [`StateKey`]. The header also
//! names the SHA-256 of the capture Evidence file's bytes the state was derived from (the bundle's
//! `evidence.json`, authenticated with the key's capture Evidence id when the bundle was built):
//! a server whose evidence file has those bytes holds that capture without authenticating it
//! again. A server reads the state only when its evidence file's SHA-256 is the header's, the rest
//! of the key equals its own and the body's length and SHA-256 are the header's
//! ([`read_precomputed`]); otherwise it derives the state as it would without the file and logs
//! why, so a state made from other inputs or by other code is never served. The same state,
//! records, key and code write the same bytes.

use std::borrow::Borrow;
use std::collections::BTreeSet;
use std::io::{BufRead, Read};

use rea_evidence::{HashingWriter, Refusal, sha256_hex};
use rea_manifest::Manifest;
use rea_plugin_api::contracts::capture::CaptureRecord;
use rea_plugin_api::json::{self, Json};
use rea_registry::{PluginSource, Registry};
use serde::{Deserialize, Serialize};

use crate::model::StateView;

mod served;
mod values;

pub use served::served_part;

/// The header's `format`.
pub const PRECOMPUTED_FORMAT: &str = "rea-precomputed-state";

/// The header's `version`: bumped whenever an older reader would misread the body.
pub const PRECOMPUTED_VERSION: u64 = 2;

/// Why a body whose length or digest is not the header's is not used.
const NOT_ITS_BODY: &str = "its body is not the one its header names (length or SHA-256)";

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
    evidence_sha256: String,
    format: String,
    key: StateKey,
    state_evidence_id: String,
    version: u64,
}

/// The body written: the records, then the state.
#[derive(Serialize)]
struct BodyOut<'a> {
    records: &'a [&'a CaptureRecord],
    state: &'a StateView,
}

/// What a state's file is written with besides the state: its Evidence id, the size of its
/// `data/get` document, its key and the SHA-256 of the capture Evidence file's bytes.
#[derive(Debug, Clone)]
pub struct StateFacts<'a> {
    /// The state Evidence id.
    pub state_evidence_id: &'a str,
    /// How many bytes `data/get` writes the state in.
    pub data_get_bytes: usize,
    /// Its key.
    pub key: &'a StateKey,
    /// The SHA-256 (hex) of the capture Evidence file the state was derived from.
    pub evidence_sha256: &'a str,
}

/// What a server expects a precomputed state to have been derived from: the SHA-256 of its
/// capture Evidence file's bytes, its manifest's Evidence id, and its own code and pipeline.
#[derive(Debug, Clone)]
pub struct ExpectedInputs<'a> {
    /// The SHA-256 (hex) of the served capture Evidence file.
    pub evidence_sha256: &'a str,
    /// The served manifest's Evidence id.
    pub manifest_evidence_id: &'a str,
    /// The server's code and pipeline.
    pub provenance: &'a Provenance,
}

/// A precomputed state, read back.
#[derive(Debug)]
pub struct PrecomputedState {
    /// The capture Evidence id it was derived from (the one the evidence file holds).
    pub capture_evidence_id: String,
    /// The capture records the manifest and the state cite: whole ([`read_precomputed_from`]),
    /// or the part a server reads ([`read_served_from`]).
    pub records: Vec<CaptureRecord>,
    /// The state.
    pub state: StateView,
    /// Its Evidence id.
    pub state_evidence_id: String,
    /// How many bytes `data/get` writes it in.
    pub data_get_bytes: u64,
}

/// The ordinals of the records a state's file keeps: those the manifest's tools cite (the replay
/// environment's) and those the state's answers quote.
pub fn stored_ordinals(state: &StateView, manifest: &Manifest) -> BTreeSet<u64> {
    let mut wanted: BTreeSet<u64> = crate::service::answered_ordinals(state);
    wanted.extend(
        manifest
            .tools
            .iter()
            .flat_map(|tool| tool.record_ordinals.iter().copied()),
    );
    wanted
}

/// The file of a derived state and the records it keeps ([`stored_ordinals`]).
pub fn write_precomputed<R: Borrow<CaptureRecord>>(
    state: &StateView,
    records: &[R],
    facts: &StateFacts<'_>,
) -> Result<Vec<u8>, Refusal> {
    let records: Vec<&CaptureRecord> = records.iter().map(Borrow::borrow).collect();
    let body = BodyOut {
        records: &records,
        state,
    };
    let failed = |error: serde_json::Error| {
        Refusal::internal(format!("the derived state cannot be written: {error}"))
    };
    // Written twice, counted then kept, into a buffer of its exact size with room for the header:
    // a buffer grown as it is written would copy the whole body on the way (and hold the copy and
    // the original at once) at every doubling.
    let mut counted = ByteCount(0);
    serde_json::to_writer(&mut counted, &body).map_err(failed)?;
    let mut written = Vec::with_capacity(counted.0 + MAX_HEADER_BYTES);
    serde_json::to_writer(&mut written, &body).map_err(failed)?;
    let mut body = written;
    let line = header_line(facts, body.len() as u64, &sha256_hex(&body))?;
    // The header goes in front of the body in place (no second copy of a large body).
    body.reserve_exact(line.len());
    body.splice(0..0, line);
    Ok(body)
}

/// The header line (canonical JSON and a newline) of a body of `body_bytes` bytes and this SHA-256.
fn header_line(
    facts: &StateFacts<'_>,
    body_bytes: u64,
    body_sha256: &str,
) -> Result<Vec<u8>, Refusal> {
    let header = Header {
        body_bytes,
        body_sha256: body_sha256.to_owned(),
        data_get_bytes: facts.data_get_bytes as u64,
        evidence_sha256: facts.evidence_sha256.to_owned(),
        format: PRECOMPUTED_FORMAT.to_owned(),
        key: facts.key.clone(),
        state_evidence_id: facts.state_evidence_id.to_owned(),
        version: PRECOMPUTED_VERSION,
    };
    let header = Json::from_serialize(&header).map_err(|error| {
        Refusal::internal(format!("the state header cannot be written: {error}"))
    })?;
    let mut line = header.to_canonical_vec();
    line.push(b'\n');
    Ok(line)
}

/// A derived state's file ready to be written ([`PrecomputedFile::write_to`]): its header, and
/// the state and the records its body serializes as they are written, so the file's bytes are
/// never held (the same bytes [`write_precomputed`] gives). Its body is serialized once when it is
/// prepared (counted and hashed for the header) and once when it is written (checked against the
/// header).
#[derive(Debug)]
pub struct PrecomputedFile {
    header: Vec<u8>,
    body_bytes: u64,
    body_sha256: String,
    state: StateView,
    records: KeptRecords,
}

/// The records a precomputed state's file keeps: a list of them, or those at some positions of a
/// list shared with another writer (a build writing the capture Evidence again from the capture's
/// records, [`rea_evidence::rewrite`], keeps one list of them, not two).
#[derive(Debug)]
pub struct KeptRecords {
    records: std::sync::Arc<Vec<CaptureRecord>>,
    /// The kept positions in `records`, ascending; `None`: every record.
    positions: Option<Vec<usize>>,
}

impl KeptRecords {
    /// Every record of the list.
    pub fn all(records: Vec<CaptureRecord>) -> Self {
        Self {
            records: std::sync::Arc::new(records),
            positions: None,
        }
    }

    /// The records of a shared list whose ordinals are `wanted`, in the list's order.
    pub fn wanted(records: std::sync::Arc<Vec<CaptureRecord>>, wanted: &BTreeSet<u64>) -> Self {
        let positions = records
            .iter()
            .enumerate()
            .filter(|(_, record)| wanted.contains(&record.ordinal))
            .map(|(position, _)| position)
            .collect();
        Self {
            records,
            positions: Some(positions),
        }
    }

    /// The kept records, in order.
    fn listed(&self) -> Vec<&CaptureRecord> {
        match &self.positions {
            None => self.records.iter().collect(),
            Some(positions) => positions
                .iter()
                .map(|&position| &self.records[position])
                .collect(),
        }
    }
}

impl PartialEq for PrecomputedFile {
    /// The header names the body's length and SHA-256: equal headers, equal files.
    fn eq(&self, other: &Self) -> bool {
        self.header == other.header
    }
}

impl Eq for PrecomputedFile {}

/// The buffer a precomputed body is serialized through (serde writes it piece by piece).
const WRITE_BUFFER_BYTES: usize = 64 * 1024;

/// Serializes the body of `state` and `records` to `out` through a buffer.
fn write_body(
    state: &StateView,
    records: &KeptRecords,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let records = records.listed();
    let body = BodyOut {
        records: &records,
        state,
    };
    let mut buffered = std::io::BufWriter::with_capacity(WRITE_BUFFER_BYTES, out);
    serde_json::to_writer(&mut buffered, &body).map_err(std::io::Error::other)?;
    std::io::Write::flush(&mut buffered)
}

impl PrecomputedFile {
    /// Prepares the file of a derived state and the records it keeps ([`stored_ordinals`]).
    pub fn prepare(
        state: StateView,
        records: KeptRecords,
        facts: &StateFacts<'_>,
    ) -> Result<Self, Refusal> {
        let mut digest = HashingWriter::new(std::io::sink());
        write_body(&state, &records, &mut digest).map_err(|error| {
            Refusal::internal(format!("the derived state cannot be written: {error}"))
        })?;
        let (body_sha256, body_bytes) = digest.finish();
        Ok(Self {
            header: header_line(facts, body_bytes, &body_sha256)?,
            body_bytes,
            body_sha256,
            state,
            records,
        })
    }

    /// The file's size in bytes.
    pub fn len(&self) -> u64 {
        self.header.len() as u64 + self.body_bytes
    }

    /// Whether the file is empty (never: it has a header).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Writes the file to `out`; fails when the body written is not the one the header names.
    pub fn write_to(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        out.write_all(&self.header)?;
        let mut digest = HashingWriter::new(out);
        write_body(&self.state, &self.records, &mut digest)?;
        if digest.finish() != (self.body_sha256.clone(), self.body_bytes) {
            return Err(std::io::Error::other(
                "the derived state's body changed after its header was written",
            ));
        }
        Ok(())
    }
}

/// A writer that only counts the bytes written to it.
struct ByteCount(usize);

impl std::io::Write for ByteCount {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0 += bytes.len();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Reads a precomputed state derived from the `expected` inputs. `Err` says, in one sentence, why
/// it cannot be used (the caller derives the state instead).
pub fn read_precomputed(
    bytes: &[u8],
    expected: &ExpectedInputs<'_>,
) -> Result<PrecomputedState, String> {
    read_precomputed_from(bytes, expected)
}

/// [`read_precomputed`] from a reader (a state file): the body is read value by value
/// ([`values`]), hashed and counted as it is read, so its bytes are never held whole; what was
/// read is used only when the body's length and SHA-256 are the header's. Reads at most the
/// header's line and the length it names, and one byte more.
pub fn read_precomputed_from<R: Read>(
    reader: R,
    expected: &ExpectedInputs<'_>,
) -> Result<PrecomputedState, String> {
    read_from(reader, expected, values::RecordForm::Whole)
}

/// [`read_precomputed_from`] for a server: each kept record is typed as the part a server reads
/// ([`served_part`]: the members it does not read are skipped, never allocated).
pub fn read_served_from<R: Read>(
    reader: R,
    expected: &ExpectedInputs<'_>,
) -> Result<PrecomputedState, String> {
    read_from(reader, expected, values::RecordForm::Served)
}

fn read_from<R: Read>(
    reader: R,
    expected: &ExpectedInputs<'_>,
    form: values::RecordForm,
) -> Result<PrecomputedState, String> {
    let mut reader = std::io::BufReader::with_capacity(READ_BUFFER_BYTES, reader);
    let header = read_header_line(&mut reader)?;
    let header = read_header(&header)?;
    check_inputs(&header, expected)?;
    // One byte past the header's length is read, so a longer body is told from its prefix.
    let body = values::HashingReader::new(reader.take(header.body_bytes.saturating_add(1)));
    let mut body = std::io::BufReader::with_capacity(READ_BUFFER_BYTES, body);
    let read = values::read_body(&mut body, form);
    let (digest, length) = body
        .into_inner()
        .finish()
        .map_err(|error| format!("it cannot be read: {error}"))?;
    if length != header.body_bytes || digest != header.body_sha256 {
        return Err(NOT_ITS_BODY.to_owned());
    }
    let body = read?;
    Ok(PrecomputedState {
        capture_evidence_id: header.key.capture_evidence_id,
        records: body.records,
        state: body.state,
        state_evidence_id: header.state_evidence_id,
        data_get_bytes: header.data_get_bytes,
    })
}

/// The buffer a state file is read through.
const READ_BUFFER_BYTES: usize = 256 * 1024;

/// The header line, without its newline.
fn read_header_line(reader: &mut impl BufRead) -> Result<Vec<u8>, String> {
    let mut line = Vec::new();
    reader
        .take(MAX_HEADER_BYTES as u64)
        .read_until(b'\n', &mut line)
        .map_err(|error| format!("it cannot be read: {error}"))?;
    if line.pop() != Some(b'\n') {
        return Err("it has no header line".to_owned());
    }
    Ok(line)
}

/// Whether the header names the expected capture Evidence file, manifest, pipeline and code.
fn check_inputs(header: &Header, expected: &ExpectedInputs<'_>) -> Result<(), String> {
    if header.evidence_sha256 != expected.evidence_sha256 {
        return Err(format!(
            "it was derived from a capture Evidence file of SHA-256 {}, not {}",
            header.evidence_sha256, expected.evidence_sha256
        ));
    }
    // The evidence file is the one the state was derived from: it holds the key's capture.
    let key = StateKey::new(
        &header.key.capture_evidence_id,
        expected.manifest_evidence_id,
        expected.provenance,
    );
    match header.key.difference(&key) {
        Some(difference) => Err(difference),
        None => Ok(()),
    }
}

/// The header line, of this format and version (checked first: another version's header may
/// have other members).
fn read_header(header: &[u8]) -> Result<Header, String> {
    #[derive(Deserialize)]
    struct Version {
        format: String,
        version: u64,
    }
    let cannot = |error: String| format!("its header cannot be read: {error}");
    let header = Json::parse(header).map_err(|error| cannot(error.to_string()))?;
    let Version { format, version } =
        json::from_json(&header).map_err(|error| cannot(error.to_string()))?;
    if format != PRECOMPUTED_FORMAT || version != PRECOMPUTED_VERSION {
        return Err(format!(
            "it is {format} version {version}, not {PRECOMPUTED_FORMAT} version {PRECOMPUTED_VERSION}"
        ));
    }
    json::from_json_exact(header).map_err(|error| cannot(error.to_string()))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn record(ordinal: u64) -> CaptureRecord {
        let text = r#"{"duration_ms":null,"method":"GET","ordinal":0,"origin":"http://h","path":"/","pointer":"/log/entries/0","query":null,"request":{"body":{"kind":"missing"},"headers":[],"http_version":null,"media_type":null},"response":{"body":{"kind":"text","text":"{}"},"headers":[],"http_version":null,"media_type":"application/json","status":200,"status_text":"OK"},"started":null,"url":"http://h/"}"#;
        let mut record: CaptureRecord = serde_json::from_str(text).unwrap();
        record.ordinal = ordinal;
        record
    }

    #[test]
    fn kept_records_are_the_wanted_ordinals_of_a_shared_list_in_its_order() {
        let all = std::sync::Arc::new(vec![record(0), record(1), record(2)]);
        let kept = KeptRecords::wanted(std::sync::Arc::clone(&all), &BTreeSet::from([2, 0, 7]));
        let ordinals: Vec<u64> = kept.listed().iter().map(|record| record.ordinal).collect();
        assert_eq!(ordinals, [0, 2]);
        // The list is shared, not copied.
        assert!(std::ptr::eq(kept.listed()[1], &all[2]));
        let every = KeptRecords::all(vec![record(4), record(5)]);
        let ordinals: Vec<u64> = every.listed().iter().map(|record| record.ordinal).collect();
        assert_eq!(ordinals, [4, 5]);
    }
}

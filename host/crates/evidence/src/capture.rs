//! Capture Evidence (`inspect_web_network_capture` of a capture file, `capture_browser_scenario`
//! of a recorded browser session): built from a capture extractor's answer, and read back as
//! typed records by the stages after it, whichever operation made it.
//!
//! The document (keys as written, canonical order on output):
//!
//! ```text
//! evidence_id      ev_ + SHA-256 of the canonical serialization of everything else
//! operation        "inspect_web_network_capture"
//! schema_version   1
//! subject          {kind: "file", local_path, bytes, sha256} — null when its digest holds a
//!                  declared sensitive value
//! artifact         {path, bytes, sha256}
//! locations        [{role: "capture", path}]
//! parameters       {capture_path, input_kind, extractor {plugin, stage, version},
//!                   records (the --record ordinals or null), sensitive_value_count}
//! container        the capture without its records (a HAR's `log.entries` is null)
//! records_pointer  "/log/entries"
//! record_count     how many records the capture has (before selection)
//! records          the selected records (all by default), in the caller's order
//! redactions       what was excluded, where and why (for the capture and the selected records)
//! limitations      caveats (for the capture and the selected records)
//! ```
//!
//! A browser scenario's Evidence (`capture_browser_scenario`) differs only in its envelope: the
//! subject is the scenario file (`kind: "browser-scenario"`), the artifact is the recorded session
//! the extractor read (`path: null`, its size and digest), the location's role is `scenario`, the
//! parameters add `scenario` (how it was captured: the scenario as given, without secret values,
//! and the browser mode), and the container is the recorded session, whose
//! `normalized_result.events.items` keeps every network event.
//!
//! Paths are absolute (the capture's path made absolute against the working directory). A declared
//! sensitive value is never written: the parameters carry only the count, and a path or digest
//! holding one is withheld (`null`) with a limitation saying so.

use std::collections::BTreeSet;
use std::path::Path;

use rea_json::{self as json, ItemStream, Json, Object, ParseOptions, from_json};
use rea_plugin_api::contracts::capture::CaptureRecord;
use rea_plugin_api::contracts::session::RecordedSession;

use sha2::{Digest, Sha256};

use crate::envelope::{
    EVIDENCE_MAX_DEPTH, Evidence, RawArray, RawItems, document_around, id_of_digest, id_of_members,
    write_document,
};
use crate::refusal::Refusal;

/// The operation of capture Evidence from a HAR (or another recorded capture file).
pub const INSPECT_CAPTURE_OPERATION: &str = "inspect_web_network_capture";

/// The operation of capture Evidence recorded from a browser scenario.
pub const SCENARIO_CAPTURE_OPERATION: &str = "capture_browser_scenario";

/// Every capture Evidence operation: the stages after capture read both alike.
pub const CAPTURE_OPERATIONS: [&str; 2] = [INSPECT_CAPTURE_OPERATION, SCENARIO_CAPTURE_OPERATION];

/// The largest capture file accepted: 32 MiB.
pub const CAPTURE_MAX_BYTES: u64 = 32 * 1024 * 1024;

/// The capture Evidence layout version.
pub const CAPTURE_SCHEMA_VERSION: u64 = 1;

/// The extractor stage that produced the records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtractorRef {
    /// The plugin's name.
    pub plugin: String,
    /// The stage's name.
    pub stage: String,
    /// The plugin's version.
    pub version: String,
}

/// Everything capture Evidence says about its input besides the extractor's answer.
#[derive(Debug, Clone)]
pub struct CaptureInputs<'a> {
    /// The capture file's absolute path.
    pub path: &'a Path,
    /// Its size in bytes.
    pub bytes: u64,
    /// Its lower-case hex SHA-256.
    pub sha256: &'a str,
    /// The input kind (`har`).
    pub input_kind: &'a str,
    /// The stage that extracted the records.
    pub extractor: &'a ExtractorRef,
    /// The `--record` ordinals in the caller's order, `None` for every record.
    pub selection: Option<&'a [u64]>,
    /// The declared sensitive values (only their count is written).
    pub sensitive_values: &'a [String],
    /// How the capture was made.
    pub origin: CaptureOrigin<'a>,
}

/// How a capture was made.
#[derive(Debug, Clone, Copy)]
pub enum CaptureOrigin<'a> {
    /// A capture file was inspected (`inspect_web_network_capture`); [`CaptureInputs`]' path,
    /// size and digest are the file's.
    File,
    /// A browser scenario was recorded (`capture_browser_scenario`); [`CaptureInputs`]' path,
    /// size and digest are the scenario file's.
    Scenario {
        /// The recorded session's size (the extractor's input).
        session_bytes: u64,
        /// Its lower-case hex SHA-256.
        session_sha256: &'a str,
        /// The `scenario` parameters: how it was captured.
        parameters: &'a Object,
    },
}

impl CaptureOrigin<'_> {
    /// The operation of Evidence of this origin.
    pub fn operation(&self) -> &'static str {
        match self {
            CaptureOrigin::File => INSPECT_CAPTURE_OPERATION,
            CaptureOrigin::Scenario { .. } => SCENARIO_CAPTURE_OPERATION,
        }
    }
}

/// Builds and seals capture Evidence from an extractor's answer (the `Extraction` contract as
/// [`Json`], numbers as the extractor spelled them).
///
/// Refuses (`invalid_request`, pointer into the parameters) a duplicate or out-of-range selected
/// ordinal; the extractor has validated every record before this runs.
pub fn build_capture_evidence(
    inputs: &CaptureInputs<'_>,
    extraction: Json,
) -> Result<Evidence, Refusal> {
    let Json::Object(mut extraction) = extraction else {
        return Err(Refusal::internal(
            "the extractor's answer is not a JSON object",
        ));
    };
    let Some(Json::Array(records)) = extraction.take("records") else {
        return Err(Refusal::internal(
            "the extractor's `records` is not an array",
        ));
    };
    let (mut body, selected) = capture_body(inputs, extraction, records.len() as u64)?;
    let records: Vec<Json> = match &selected {
        None => records,
        Some(ordinals) => {
            let mut slots: Vec<Option<Json>> = records.into_iter().map(Some).collect();
            ordinals
                .iter()
                .map(|&ordinal| slots[ordinal as usize].take().unwrap_or_default())
                .collect()
        }
    };
    body.insert("records", records);
    Ok(Evidence::seal(inputs.origin.operation(), body))
}

/// Everything of capture Evidence but its records (and its id): checks the selection against
/// `record_count`, keeps the redactions and limitations of the selected records, and adds the
/// subject, artifact, locations, parameters and the `operation`. Returns the selected ordinals.
fn capture_body(
    inputs: &CaptureInputs<'_>,
    mut extraction: Object,
    record_count: u64,
) -> Result<(Object, Option<Vec<u64>>), Refusal> {
    let mut take = |name: &str| -> Result<Json, Refusal> {
        extraction
            .take(name)
            .ok_or_else(|| Refusal::internal(format!("the extractor's answer has no `{name}`")))
    };
    let container = take("container")?;
    let records_pointer = take("records_pointer")?;
    let Json::Array(redactions) = take("redactions")? else {
        return Err(Refusal::internal(
            "the extractor's `redactions` is not an array",
        ));
    };
    let Json::Array(limitations) = take("limitations")? else {
        return Err(Refusal::internal(
            "the extractor's `limitations` is not an array",
        ));
    };
    let selected = checked_selection(inputs.selection, record_count)?;
    let (redactions, mut limitations) =
        notes_of_selected(redactions, limitations, selected.as_deref());
    let (path, digest) = withheld_identity(inputs, &mut limitations);
    let (subject, artifact, location) = capture_envelope(inputs, path.as_ref(), digest.as_ref());
    let parameters = capture_parameters(inputs, path, selected.as_deref());

    let mut body = Object::with_capacity(16);
    body.insert("schema_version", CAPTURE_SCHEMA_VERSION);
    body.insert(
        "subject",
        if digest.is_some() {
            Json::Object(subject)
        } else {
            Json::Null
        },
    );
    body.insert("artifact", artifact);
    body.insert("locations", vec![Json::Object(location)]);
    body.insert("parameters", parameters);
    body.insert("container", container);
    body.insert("records_pointer", records_pointer);
    body.insert("record_count", record_count);
    body.insert("redactions", redactions);
    body.insert("limitations", limitations);
    body.insert("operation", inputs.origin.operation());
    Ok((body, selected))
}

/// The `--record` ordinals, refused (`invalid_request`, pointer into the parameters) when one
/// is out of range or given twice; `None` selects every record.
fn checked_selection(
    selection: Option<&[u64]>,
    record_count: u64,
) -> Result<Option<Vec<u64>>, Refusal> {
    let Some(ordinals) = selection else {
        return Ok(None);
    };
    let mut seen = BTreeSet::new();
    for (index, &ordinal) in ordinals.iter().enumerate() {
        if ordinal >= record_count {
            return Err(Refusal::invalid_request(format!(
                "--record {ordinal} is out of range: the capture has {record_count} records (ordinals 0 to {})",
                record_count.saturating_sub(1)
            ))
            .at(format!("/parameters/records/{index}")));
        }
        if !seen.insert(ordinal) {
            return Err(Refusal::invalid_request(format!(
                "--record {ordinal} is given more than once"
            ))
            .at(format!("/parameters/records/{index}")));
        }
    }
    Ok(Some(ordinals.to_vec()))
}

/// The redactions and limitations that concern the capture or a selected record (a
/// limitation's ordinals narrowed to the selected ones).
fn notes_of_selected(
    redactions: Vec<Json>,
    limitations: Vec<Json>,
    selected: Option<&[u64]>,
) -> (Vec<Json>, Vec<Json>) {
    let is_selected = |ordinal: u64| selected.is_none_or(|ordinals| ordinals.contains(&ordinal));
    let redactions: Vec<Json> = redactions
        .into_iter()
        .filter(|redaction| {
            redaction
                .get("record_ordinal")
                .and_then(Json::as_number)
                .and_then(|number| number.as_u64())
                .is_none_or(is_selected)
        })
        .collect();
    let limitations: Vec<Json> = limitations
        .into_iter()
        .filter_map(|mut limitation| {
            let object = limitation.as_object_mut()?;
            if let Some(Json::Array(ordinals)) = object.get_mut("record_ordinals")
                && !ordinals.is_empty()
            {
                ordinals.retain(|ordinal| {
                    ordinal
                        .as_number()
                        .and_then(|number| number.as_u64())
                        .is_some_and(is_selected)
                });
                if ordinals.is_empty() {
                    return None;
                }
            }
            Some(limitation)
        })
        .collect();
    (redactions, limitations)
}

/// The capture's path and digest, each `None` (withheld, with a limitation saying so) when it
/// holds a declared sensitive value; a limitation also counts the declared values.
fn withheld_identity(
    inputs: &CaptureInputs<'_>,
    limitations: &mut Vec<Json>,
) -> (Option<String>, Option<String>) {
    let sensitive = |text: &str| {
        inputs
            .sensitive_values
            .iter()
            .any(|value| !value.is_empty() && text.contains(value.as_str()))
    };
    let path_text = inputs.path.display().to_string();
    let path = (!sensitive(&path_text)).then_some(path_text);
    let digest = (!sensitive(inputs.sha256)).then(|| inputs.sha256.to_owned());
    if !inputs.sensitive_values.is_empty() {
        limitations.push(limitation(
            "sensitive-values-declared",
            &format!(
                "{} value(s) were declared sensitive: fields holding one are null and listed in redactions, and the values are not recorded.",
                inputs.sensitive_values.len()
            ),
        ));
    }
    if path.is_none() {
        limitations.push(limitation(
            "path-withheld",
            "The capture file's path holds a declared sensitive value, so it is withheld.",
        ));
    }
    if digest.is_none() {
        limitations.push(limitation(
            "subject-withheld",
            "The capture file's SHA-256 digest holds a declared sensitive value, so the subject and the artifact digest are withheld.",
        ));
    }
    (path, digest)
}

/// The subject, artifact and location of capture Evidence of `inputs`' origin.
fn capture_envelope(
    inputs: &CaptureInputs<'_>,
    path: Option<&String>,
    digest: Option<&String>,
) -> (Object, Object, Object) {
    let mut subject = Object::new();
    let mut artifact = Object::new();
    let mut location = Object::new();
    match inputs.origin {
        CaptureOrigin::File => {
            subject.insert("kind", "file");
            artifact.insert("path", path.cloned());
            artifact.insert("bytes", inputs.bytes);
            artifact.insert("sha256", digest.cloned());
            location.insert("role", "capture");
        }
        CaptureOrigin::Scenario {
            session_bytes,
            session_sha256,
            ..
        } => {
            subject.insert("kind", "browser-scenario");
            artifact.insert("path", Json::Null);
            artifact.insert("bytes", session_bytes);
            artifact.insert("sha256", session_sha256);
            location.insert("role", "scenario");
        }
    }
    subject.insert("local_path", path.cloned());
    subject.insert("bytes", inputs.bytes);
    subject.insert("sha256", digest.cloned());
    location.insert("path", path.cloned());
    (subject, artifact, location)
}

/// The Evidence's `parameters`: how the capture was inspected (the sensitive values only
/// counted).
fn capture_parameters(
    inputs: &CaptureInputs<'_>,
    path: Option<String>,
    selected: Option<&[u64]>,
) -> Object {
    let mut extractor = Object::new();
    extractor.insert("plugin", inputs.extractor.plugin.as_str());
    extractor.insert("stage", inputs.extractor.stage.as_str());
    extractor.insert("version", inputs.extractor.version.as_str());
    let mut parameters = Object::new();
    parameters.insert("capture_path", path);
    parameters.insert("input_kind", inputs.input_kind);
    parameters.insert("extractor", extractor);
    parameters.insert(
        "records",
        selected.map(|ordinals| Json::Array(ordinals.iter().map(|&o| Json::from(o)).collect())),
    );
    parameters.insert("sensitive_value_count", inputs.sensitive_values.len());
    if let CaptureOrigin::Scenario {
        parameters: scenario,
        ..
    } = inputs.origin
    {
        parameters.insert("scenario", Json::Object(scenario.clone()));
    }
    parameters
}

fn limitation(code: &str, message: &str) -> Json {
    let mut object = Object::new();
    object.insert("code", code);
    object.insert("message", message);
    object.insert("record_ordinals", Json::Array(Vec::new()));
    Json::Object(object)
}

/// The records of capture Evidence, typed (numbers must be lossless, as extractors write them).
pub fn capture_records(evidence: &Evidence) -> Result<Vec<CaptureRecord>, Refusal> {
    evidence.expect_operation(&CAPTURE_OPERATIONS)?;
    let records = evidence.get("records").ok_or_else(|| {
        Refusal::invalid_request("the capture Evidence has no `records`").at("/records")
    })?;
    from_json(records).map_err(|error| {
        Refusal::invalid_request(format!(
            "the capture Evidence's records are malformed: {error}"
        ))
        .at("/records")
    })
}

/// The records of capture Evidence whose ordinals are `wanted`, typed one by one (as
/// [`capture_records`], without holding every record typed at once).
pub fn capture_records_of(
    evidence: &Evidence,
    wanted: &BTreeSet<u64>,
) -> Result<Vec<CaptureRecord>, Refusal> {
    evidence.expect_operation(&CAPTURE_OPERATIONS)?;
    let malformed = |error: String| {
        Refusal::invalid_request(format!(
            "the capture Evidence's records are malformed: {error}"
        ))
        .at("/records")
    };
    let records = evidence
        .get("records")
        .ok_or_else(|| {
            Refusal::invalid_request("the capture Evidence has no `records`").at("/records")
        })?
        .as_array()
        .ok_or_else(|| malformed("not an array".to_owned()))?;
    records
        .iter()
        .filter(|record| match record.get("ordinal") {
            Some(Json::Number(ordinal)) => ordinal.as_u64().is_some_and(|o| wanted.contains(&o)),
            _ => true,
        })
        .map(|record| from_json(record).map_err(|error| malformed(error.to_string())))
        .collect()
}

/// The recorded session a browser scenario's Evidence keeps as its container (every network
/// event, the capture selection it was recorded with); refused for other Evidence.
pub fn recorded_session(evidence: &Evidence) -> Result<RecordedSession, Refusal> {
    evidence.expect_operation(&[SCENARIO_CAPTURE_OPERATION])?;
    let container = evidence.get("container").ok_or_else(|| {
        Refusal::invalid_request("the browser scenario's Evidence has no `container`")
            .at("/container")
    })?;
    from_json(container).map_err(|error| {
        Refusal::invalid_request(format!(
            "the browser scenario's recorded session is malformed: {error}"
        ))
        .at("/container")
    })
}

/// How many records the captured file has (before any `--record` selection).
pub fn capture_record_count(evidence: &Evidence) -> Option<u64> {
    evidence
        .get("record_count")
        .and_then(Json::as_number)
        .and_then(|number| number.as_u64())
}

/// Whether the Evidence was inspected with sensitive-value declarations (the environment views
/// refuse such captures).
pub fn declared_sensitive_values(evidence: &Evidence) -> u64 {
    evidence
        .get("parameters")
        .and_then(|parameters| parameters.get("sensitive_value_count"))
        .and_then(Json::as_number)
        .and_then(|number| number.as_u64())
        .unwrap_or(0)
}

/// Checks that an extractor's answer (as [`Json`]) has the shape of the `Extraction` contract
/// (`rea_plugin_api::contracts::capture`): every member with its type, no unknown member, record
/// ordinals equal to their positions. A structural walk with no copies: the typed contract would
/// copy every body once more. `capture_records` reads the same records typed, and the capture
/// tests check that both agree on every shared capture.
pub fn check_extraction(answer: &Json) -> Result<(), String> {
    let root = At::Root;
    fields(
        answer,
        &root,
        &[
            "container",
            "limitations",
            "records",
            "records_pointer",
            "redactions",
            "schema_version",
        ],
    )?;
    member(answer, &root, "container")?;
    string(answer, &root, "records_pointer")?;
    let version = u64_of(answer, &root, "schema_version")?;
    if version != u64::from(rea_plugin_api::contracts::SCHEMA_VERSION) {
        return Err(format!(
            "/schema_version is {version}, not {}",
            rea_plugin_api::contracts::SCHEMA_VERSION
        ));
    }
    let list = At::Member(&root, "limitations");
    for (index, limitation) in array(answer, &root, "limitations")?.iter().enumerate() {
        let at = At::Index(&list, index);
        fields(limitation, &at, &["code", "message", "record_ordinals"])?;
        string(limitation, &at, "code")?;
        string(limitation, &at, "message")?;
        if limitation.get("record_ordinals").is_some() {
            let ordinals_at = At::Member(&at, "record_ordinals");
            for (position, ordinal) in array(limitation, &at, "record_ordinals")?
                .iter()
                .enumerate()
            {
                unsigned(ordinal, &At::Index(&ordinals_at, position))?;
            }
        }
    }
    let list = At::Member(&root, "redactions");
    for (index, redaction) in array(answer, &root, "redactions")?.iter().enumerate() {
        let at = At::Index(&list, index);
        fields(redaction, &at, &["pointer", "reason", "record_ordinal"])?;
        string(redaction, &at, "pointer")?;
        string(redaction, &at, "reason")?;
        if !nullable(redaction, "record_ordinal") {
            u64_of(redaction, &at, "record_ordinal")?;
        }
    }
    for (index, record) in array(answer, &root, "records")?.iter().enumerate() {
        check_record(record, index)?;
    }
    Ok(())
}

/// Where a checked value is, spelled out only when a check fails.
#[derive(Clone, Copy)]
enum At<'a> {
    Root,
    Member(&'a At<'a>, &'a str),
    Index(&'a At<'a>, usize),
}

impl std::fmt::Display for At<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            At::Root => Ok(()),
            At::Member(parent, name) => write!(f, "{parent}/{name}"),
            At::Index(parent, index) => write!(f, "{parent}/{index}"),
        }
    }
}

fn check_record(record: &Json, index: usize) -> Result<(), String> {
    let records = At::Member(&At::Root, "records");
    let at = At::Index(&records, index);
    fields(
        record,
        &at,
        &[
            "duration_ms",
            "method",
            "ordinal",
            "origin",
            "path",
            "pointer",
            "query",
            "request",
            "response",
            "started",
            "url",
        ],
    )?;
    if u64_of(record, &at, "ordinal")? != index as u64 {
        return Err(format!("{at}/ordinal is not the record's position {index}"));
    }
    string(record, &at, "pointer")?;
    for name in ["method", "origin", "path", "url"] {
        nullable_string(record, &at, name)?;
    }
    if !nullable(record, "duration_ms") {
        number(record, &at, "duration_ms")?;
    }
    if !nullable(record, "query") {
        check_query(member(record, &at, "query")?, &At::Member(&at, "query"))?;
    }
    if !nullable(record, "started") {
        let started = member(record, &at, "started")?;
        let started_at = At::Member(&at, "started");
        fields(started, &started_at, &["instant", "recorded"])?;
        nullable_string(started, &started_at, "instant")?;
        string(started, &started_at, "recorded")?;
    }
    for side in ["request", "response"] {
        check_message(member(record, &at, side)?, &At::Member(&at, side), side)?;
    }
    Ok(())
}

/// A record's query: its raw text and its pairs, each null or `[name, value]`.
fn check_query(query: &Json, at: &At<'_>) -> Result<(), String> {
    fields(query, at, &["pairs", "raw"])?;
    nullable_string(query, at, "raw")?;
    for (position, pair) in array(query, at, "pairs")?.iter().enumerate() {
        match pair {
            Json::Null => {}
            Json::Array(items)
                if items.len() == 2 && items.iter().all(|item| item.as_str().is_some()) => {}
            _ => {
                return Err(format!(
                    "{at}/pairs/{position} is not null or [name, value]"
                ));
            }
        }
    }
    Ok(())
}

/// A record's request or response (`side`): its members, status, headers and body.
fn check_message(message: &Json, at: &At<'_>, side: &str) -> Result<(), String> {
    if side == "request" {
        fields(
            message,
            at,
            &["body", "headers", "http_version", "media_type"],
        )?;
    } else {
        fields(
            message,
            at,
            &[
                "body",
                "headers",
                "http_version",
                "media_type",
                "status",
                "status_text",
            ],
        )?;
        let status = u64_of(message, at, "status")?;
        if status > u64::from(u16::MAX) {
            return Err(format!("{at}/status is out of range"));
        }
        nullable_string(message, at, "status_text")?;
    }
    nullable_string(message, at, "http_version")?;
    nullable_string(message, at, "media_type")?;
    let headers_at = At::Member(at, "headers");
    for (position, header) in array(message, at, "headers")?.iter().enumerate() {
        let header_at = At::Index(&headers_at, position);
        fields(header, &header_at, &["excluded", "name", "value"])?;
        for name in ["excluded", "name", "value"] {
            nullable_string(header, &header_at, name)?;
        }
    }
    check_body(member(message, at, "body")?, &At::Member(at, "body"))
}

fn check_body(body: &Json, at: &At<'_>) -> Result<(), String> {
    match body.get("kind").and_then(Json::as_str) {
        Some("missing" | "reported-null") => fields(body, at, &["kind"]).map(drop),
        Some("text") => {
            fields(body, at, &["kind", "text"])?;
            string(body, at, "text").map(drop)
        }
        Some("base64") => {
            fields(body, at, &["base64", "bytes", "kind"])?;
            string(body, at, "base64")?;
            u64_of(body, at, "bytes").map(drop)
        }
        Some("excluded") => {
            fields(body, at, &["kind", "reason"])?;
            string(body, at, "reason").map(drop)
        }
        _ => Err(format!("{at}/kind is not a body kind")),
    }
}

/// The object, refusing members outside `allowed` (required ones are checked by the caller).
fn fields<'a>(value: &'a Json, at: &At<'_>, allowed: &[&str]) -> Result<&'a Object, String> {
    let object = value
        .as_object()
        .ok_or_else(|| format!("{at} is not an object"))?;
    if let Some(unknown) = object.keys().find(|key| !allowed.contains(key)) {
        return Err(format!("{at} has an unknown member `{unknown}`"));
    }
    Ok(object)
}

fn member<'a>(value: &'a Json, at: &At<'_>, name: &str) -> Result<&'a Json, String> {
    value
        .get(name)
        .ok_or_else(|| format!("{at}/{name} is missing"))
}

fn nullable(value: &Json, name: &str) -> bool {
    value.get(name).is_none_or(Json::is_null)
}

fn string<'a>(value: &'a Json, at: &At<'_>, name: &str) -> Result<&'a str, String> {
    member(value, at, name)?
        .as_str()
        .ok_or_else(|| format!("{at}/{name} is not a string"))
}

fn nullable_string(value: &Json, at: &At<'_>, name: &str) -> Result<(), String> {
    if nullable(value, name) {
        Ok(())
    } else {
        string(value, at, name).map(drop)
    }
}

fn number<'a>(value: &'a Json, at: &At<'_>, name: &str) -> Result<&'a rea_json::Number, String> {
    let number = member(value, at, name)?
        .as_number()
        .ok_or_else(|| format!("{at}/{name} is not a number"))?;
    if number.is_lossless() {
        Ok(number)
    } else {
        Err(format!("{at}/{name} is not a lossless number"))
    }
}

fn u64_of(value: &Json, at: &At<'_>, name: &str) -> Result<u64, String> {
    number(value, at, name)?
        .as_u64()
        .ok_or_else(|| format!("{at}/{name} is not an unsigned integer"))
}

fn array<'a>(value: &'a Json, at: &At<'_>, name: &str) -> Result<&'a Vec<Json>, String> {
    member(value, at, name)?
        .as_array()
        .ok_or_else(|| format!("{at}/{name} is not an array"))
}

fn unsigned(value: &Json, at: &At<'_>) -> Result<u64, String> {
    value
        .as_number()
        .and_then(|number| number.as_u64())
        .ok_or_else(|| format!("{at} is not an unsigned integer"))
}

/// Capture Evidence sealed over an extractor's own record text.
///
/// When an extractor answers canonical JSON (the built-in HAR extractor does: every contract type
/// serializes with sorted keys), each record's text in the answer is already its canonical form,
/// so the Evidence keeps those bytes instead of parsing and writing every body again. The bytes
/// written are exactly those [`build_capture_evidence`] gives for the same answer (the capture
/// tests compare both on every shared capture).
#[derive(Debug)]
pub struct SealedCapture {
    id: String,
    body: Object,
    answer: String,
    records: Vec<std::ops::Range<usize>>,
}

impl SealedCapture {
    /// The sealed capture over `answer`'s record ranges, with the id the early digest computed
    /// or, without one, the id hashed now.
    fn assemble(
        id: Option<String>,
        body: Object,
        answer: String,
        records: Vec<std::ops::Range<usize>>,
    ) -> Self {
        let mut sealed = Self {
            id: String::new(),
            body,
            answer,
            records,
        };
        sealed.id = match id {
            Some(id) => id,
            None => {
                let items = sealed.items();
                id_of_members(&sealed.body, Some(sealed.raw(&items)))
            }
        };
        sealed
    }

    /// The Evidence id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The Evidence without its records and id.
    pub fn body(&self) -> &Object {
        &self.body
    }

    /// Streams the canonical serialization of the whole Evidence.
    pub fn write_to(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        let items = self.items();
        let mut failure = None;
        write_document(
            &self.body,
            Some(self.raw(&items)),
            Some(&self.id),
            &mut |chunk| {
                if failure.is_none()
                    && let Err(error) = out.write_all(chunk)
                {
                    failure = Some(error);
                }
            },
        );
        failure.map_or(Ok(()), Err)
    }

    /// The canonical serialization of the whole Evidence.
    pub fn to_canonical_vec(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let _ = self.write_to(&mut out);
        out
    }

    /// The Evidence as a document (parsed back from its bytes and authenticated).
    pub fn into_evidence(self) -> Result<Evidence, Refusal> {
        Evidence::authenticate(&self.to_canonical_vec())
    }

    /// The records, typed one by one from their canonical text (as [`capture_records`] types
    /// them from the Evidence document, without parsing the records into a JSON tree first).
    /// The list is allocated at its size once (a fallible collect grows it by doubling: up to
    /// twice the records' room held).
    pub fn typed_records(&self) -> Result<Vec<CaptureRecord>, Refusal> {
        self.typed(false).map(|(records, _)| records)
    }

    /// [`SealedCapture::typed_records`], and whether every record serializes back to exactly its
    /// text, so the Evidence can be written again from the records
    /// ([`crate::rewrite::CaptureRewrite`]) rather than kept as bytes.
    pub fn typed_records_checked(&self) -> Result<(Vec<CaptureRecord>, bool), Refusal> {
        self.typed(true)
    }

    fn typed(&self, check: bool) -> Result<(Vec<CaptureRecord>, bool), Refusal> {
        let items = self.items();
        let mut records = Vec::with_capacity(items.len());
        let mut given_back = check;
        for text in items {
            let record: CaptureRecord = json::from_slice_exact(text).map_err(|error| {
                Refusal::invalid_request(format!(
                    "the capture Evidence's records are malformed: {error}"
                ))
                .at("/records")
            })?;
            given_back = given_back && crate::rewrite::gives_back(&record, text);
            records.push(record);
        }
        Ok((records, given_back))
    }

    /// The length and SHA-256 of the file `--format json` writes: the canonical serialization
    /// and a newline.
    pub fn written_digest(&self) -> std::io::Result<crate::rewrite::WrittenDigest> {
        crate::rewrite::WrittenDigest::of(|mut out| {
            self.write_to(&mut out)?;
            std::io::Write::write_all(out, b"\n")
        })
    }

    /// The Evidence without its records: its id, operation and every other member, the record
    /// text dropped. For a build that typed the records ([`SealedCapture::typed_records`]) and
    /// wrote the whole ([`SealedCapture::write_to`]) first, so no JSON tree of the records is
    /// held: a reader of this Evidence's `records` finds none (they are the caller's).
    pub fn into_header(self) -> Evidence {
        let operation = self
            .body
            .get("operation")
            .and_then(Json::as_str)
            .unwrap_or_default()
            .to_owned();
        Evidence::from_parts(self.id, operation, self.body)
    }

    fn items(&self) -> Vec<&[u8]> {
        self.records
            .iter()
            .map(|range| &self.answer.as_bytes()[range.clone()])
            .collect()
    }

    fn raw<'a>(&self, items: &'a [&'a [u8]]) -> RawArray<'a> {
        RawArray {
            key: "records",
            items: RawItems::Text(items),
        }
    }
}

/// Capture Evidence as the command writes it.
#[derive(Debug)]
pub enum CaptureOutput {
    /// Sealed over the extractor's canonical record text.
    Raw(SealedCapture),
    /// Built from the parsed answer (an extractor whose answer is not canonical JSON).
    Sealed(Evidence),
}

impl CaptureOutput {
    /// The Evidence id.
    pub fn id(&self) -> &str {
        match self {
            CaptureOutput::Raw(sealed) => sealed.id(),
            CaptureOutput::Sealed(evidence) => evidence.id(),
        }
    }

    /// Streams the canonical serialization.
    pub fn write_to(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        match self {
            CaptureOutput::Raw(sealed) => sealed.write_to(out),
            CaptureOutput::Sealed(evidence) => evidence.write_to(out),
        }
    }

    /// The canonical serialization.
    pub fn to_canonical_vec(&self) -> Vec<u8> {
        match self {
            CaptureOutput::Raw(sealed) => sealed.to_canonical_vec(),
            CaptureOutput::Sealed(evidence) => evidence.to_canonical_vec(),
        }
    }

    /// The Evidence as a document.
    pub fn into_evidence(self) -> Result<Evidence, Refusal> {
        match self {
            CaptureOutput::Raw(sealed) => sealed.into_evidence(),
            CaptureOutput::Sealed(evidence) => Ok(evidence),
        }
    }
}

/// Builds and seals capture Evidence from an extractor's answer text (the `Extraction` contract
/// as JSON): checks it ([`check_extraction`]) reading records one at a time, and keeps the record
/// text as it is when the answer is canonical JSON; otherwise parses it whole
/// ([`build_capture_evidence`]). The answer crossed the plugin boundary as a string, so it is not
/// checked for UTF-8 again.
pub fn seal_capture_answer(
    inputs: &CaptureInputs<'_>,
    answer: String,
) -> Result<CaptureOutput, Refusal> {
    let problem = extraction_problem;
    let options = ParseOptions::default().max_depth(EVIDENCE_MAX_DEPTH);
    // With every record selected, the id can be hashed while the answer is still being checked.
    let claimed = inputs
        .selection
        .is_none()
        .then(|| claimed_record_count(&answer))
        .flatten();
    let sealed = std::thread::scope(|scope| {
        let mut ranges = Vec::new();
        let mut record_problem: Option<String> = None;
        let mut early: Option<EarlyDigest<'_>> = None;
        let streamed = json::parse_streaming_text(
            &answer,
            &options,
            ItemStream {
                path: &["records"],
                string_limit: CHECKED_STRING_LIMIT,
                on_item: &mut |index, item, range: std::ops::Range<usize>| {
                    if index == 0
                        && let Some(count) = claimed
                    {
                        early = EarlyDigest::start(scope, inputs, &answer, range.start, count);
                    }
                    if let Some(early) = early.as_mut() {
                        early.reached(range.end);
                    }
                    if record_problem.is_none()
                        && let Err(reason) = check_record(&item, index)
                    {
                        record_problem = Some(reason);
                    }
                    ranges.push(range);
                },
            },
        )
        .map_err(|error| problem(error.to_string()))?;
        if let Some(reason) = record_problem {
            return Err(problem(reason));
        }
        check_extraction(&streamed.document).map_err(problem)?;
        if !streamed.canonical {
            return Ok(None);
        }
        let Json::Object(mut extraction) = streamed.document else {
            return Err(problem("not an object".to_owned()));
        };
        extraction.remove("records");
        let (body, selected) = capture_body(inputs, extraction, ranges.len() as u64)?;
        let records = match selected {
            None => ranges,
            Some(ordinals) => ordinals
                .iter()
                .map(|&ordinal| ranges[ordinal as usize].clone())
                .collect(),
        };
        let id = early.and_then(|early| early.finish(&body, &records));
        Ok(Some((id, body, records)))
    })?;
    match sealed {
        Some((id, body, records)) => Ok(CaptureOutput::Raw(SealedCapture::assemble(
            id, body, answer, records,
        ))),
        None => {
            let full = json::parse_with(answer.as_bytes(), &options)
                .map_err(|error| problem(error.to_string()))?;
            drop(answer);
            build_capture_evidence(inputs, full).map(CaptureOutput::Sealed)
        }
    }
}

/// The refusal for an extractor answer that does not fit the `Extraction` contract.
fn extraction_problem(reason: String) -> Refusal {
    Refusal::internal(format!(
        "the extractor's answer is not a capture extraction: {reason}"
    ))
}

/// Checking a record reads the type of every member but the text of only one kind of string,
/// a body's `kind` (at most 13 bytes): longer strings need not be copied out of the answer.
const CHECKED_STRING_LIMIT: usize = 16;

/// The number of records an answer claims: its last record's `ordinal` plus one, read from the
/// end of the text. Only a guess that lets [`EarlyDigest`] start; the check decides.
fn claimed_record_count(answer: &str) -> Option<u64> {
    // In JSON text a quote inside a string is escaped, so these only match member names.
    const RECORDS_END: &str = "}],\"records_pointer\":";
    const ORDINAL: &str = ",\"ordinal\":";
    let end = answer.rfind(RECORDS_END)?;
    let at = answer[..end].rfind(ORDINAL)? + ORDINAL.len();
    let rest = &answer[at..end];
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    rest[..digits].parse::<u64>().ok()?.checked_add(1)
}

/// The Evidence id, hashed on a second thread while the answer is still being checked.
///
/// The hashed serialization has the members sorting before `records` first, and those include
/// `record_count`, known only once the whole answer is read. So the count the answer claims
/// ([`claimed_record_count`]) stands in for it: those members are built from the answer's text
/// before its first record, and the record text is hashed as the check goes past it (a canonical
/// answer's records are already their canonical text, one after the other). The digest counts
/// only if, once the answer is checked, the members before `records` are byte for byte those of
/// the checked answer and the hashed text is exactly its records; otherwise the id is hashed
/// again the ordinary way. Either way the id is that of [`id_of_members`].
struct EarlyDigest<'scope> {
    /// The serialization up to the records' `[`, as guessed.
    before: Vec<u8>,
    /// Where the first record starts in the answer.
    first: usize,
    /// How far the hashing thread has been told to go.
    sent: usize,
    progress: std::sync::mpsc::Sender<Progress>,
    digest: std::thread::ScopedJoinHandle<'scope, Option<String>>,
}

/// What the hashing thread of an [`EarlyDigest`] is told.
enum Progress {
    /// Hash the answer's text up to this offset.
    Through(usize),
    /// Hash these bytes (the serialization after the records) and finish.
    Finish(Vec<u8>),
}

impl<'scope> EarlyDigest<'scope> {
    /// Hashing hands the thread the record text in steps of at least this many bytes.
    const STEP: usize = 1 << 20;

    /// Starts hashing when the first record is reached, at `first` in `answer`: `None` when the
    /// text before it does not give the members before `records`.
    fn start<'env>(
        scope: &'scope std::thread::Scope<'scope, 'env>,
        inputs: &CaptureInputs<'_>,
        answer: &'env str,
        first: usize,
        claimed_count: u64,
    ) -> Option<Self> {
        // The text so far, closed, is the answer's head (already read by the check, so JSON).
        let head = format!("{}]}}", answer.get(..first)?);
        let options = ParseOptions::default().max_depth(EVIDENCE_MAX_DEPTH);
        let Ok(Json::Object(mut head)) = json::parse_with(head.as_bytes(), &options) else {
            return None;
        };
        head.remove("records");
        // Members after the records are not hashed yet: stand-ins keep `capture_body` going.
        for (name, stand_in) in [
            ("records_pointer", Json::Null),
            ("redactions", Json::Array(Vec::new())),
        ] {
            if !head.contains_key(name) {
                head.insert(name, stand_in);
            }
        }
        let (body, _) = capture_body(inputs, head, claimed_count).ok()?;
        let (before, _) = document_around(&body, "records");
        let (progress, receiver) = std::sync::mpsc::channel();
        let start = before.clone();
        let digest = scope.spawn(move || {
            let mut hasher = Sha256::new();
            hasher.update(&start);
            let mut hashed = first;
            for step in receiver {
                match step {
                    Progress::Through(end) => {
                        hasher.update(&answer.as_bytes()[hashed..end]);
                        hashed = end;
                    }
                    Progress::Finish(after) => {
                        hasher.update(&after);
                        return Some(id_of_digest(&hasher.finalize()));
                    }
                }
            }
            // Abandoned: the guess did not hold.
            None
        });
        Some(Self {
            before,
            first,
            sent: first,
            progress,
            digest,
        })
    }

    /// The check has read the answer up to `end` (the end of a record).
    fn reached(&mut self, end: usize) {
        if end - self.sent >= Self::STEP {
            let _ = self.progress.send(Progress::Through(end));
            self.sent = end;
        }
    }

    /// The id, when the guess held for the checked answer's `body` and record `ranges` (which
    /// must be the records of a canonical answer, every one selected in order).
    fn finish(self, body: &Object, ranges: &[std::ops::Range<usize>]) -> Option<String> {
        let (before, after) = document_around(body, "records");
        let first = ranges.first()?;
        let last = ranges.last()?;
        if before != self.before || first.start != self.first {
            // Dropping the sender ends the thread without a digest.
            return None;
        }
        let _ = self.progress.send(Progress::Through(last.end));
        let _ = self.progress.send(Progress::Finish(after));
        self.digest.join().ok().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    const RECORD: &str = r#"{"duration_ms":1.5,"method":"GET","ordinal":0,"origin":"http://h","path":"/","pointer":"/log/entries/0","query":{"pairs":[["a","1"],null],"raw":null},"request":{"body":{"kind":"missing"},"headers":[{"excluded":null,"name":"A","value":"b"}],"http_version":null,"media_type":null},"response":{"body":{"base64":"AA==","bytes":1,"kind":"base64"},"headers":[],"http_version":"HTTP/1.1","media_type":"x","status":200,"status_text":"OK"},"started":{"instant":null,"recorded":"x"},"url":"http://h/"}"#;

    fn answer(record: &str) -> Json {
        let text = format!(
            r#"{{"container":{{"log":{{"entries":null}}}},"limitations":[{{"code":"c","message":"m","record_ordinals":[0]}}],"records":[{record}],"records_pointer":"/log/entries","redactions":[{{"pointer":"/p","reason":"r","record_ordinal":null}}],"schema_version":1}}"#
        );
        json::parse(text.as_bytes()).unwrap()
    }

    fn answer_text(count: usize) -> String {
        let records: Vec<String> = (0..count)
            .map(|ordinal| {
                RECORD
                    .replace(r#""ordinal":0"#, &format!(r#""ordinal":{ordinal}"#))
                    .replace("/log/entries/0", &format!("/log/entries/{ordinal}"))
            })
            .collect();
        answer(&records.join(","))
            .to_canonical_string()
            .replace(r#""records":[null]"#, r#""records":[]"#)
    }

    /// The extractor the test answers name.
    fn test_extractor() -> ExtractorRef {
        ExtractorRef {
            plugin: "p".to_owned(),
            stage: "s".to_owned(),
            version: "1".to_owned(),
        }
    }

    /// The inputs of a test capture (`/c.har`, no selection) declaring these sensitive values.
    fn test_inputs<'a>(
        extractor: &'a ExtractorRef,
        sensitive_values: &'a [String],
    ) -> CaptureInputs<'a> {
        CaptureInputs {
            path: Path::new("/c.har"),
            bytes: 9,
            sha256: "00",
            input_kind: "har",
            extractor,
            selection: None,
            sensitive_values,
            origin: CaptureOrigin::File,
        }
    }

    #[test]
    fn the_id_hashed_during_the_check_is_the_id() {
        let extractor = test_extractor();
        let sensitive = ["zzz".to_owned()];
        for sensitive_values in [&[][..], &sensitive[..]] {
            let inputs = test_inputs(&extractor, sensitive_values);
            for count in [0, 1, 3, 40] {
                let text = answer_text(count);
                assert_eq!(
                    claimed_record_count(&text),
                    (count > 0).then_some(count as u64)
                );
                let sealed = seal_capture_answer(&inputs, text.clone()).unwrap();
                assert!(matches!(sealed, CaptureOutput::Raw(_)), "{count}");
                let built =
                    build_capture_evidence(&inputs, json::parse(text.as_bytes()).unwrap()).unwrap();
                assert_eq!(sealed.id(), built.id(), "{count}");
                assert_eq!(sealed.to_canonical_vec(), built.to_canonical_vec());
            }
            // A wrong guess gives no digest (the id is then hashed the ordinary way).
            let text = answer_text(3);
            let first = text.find(r#"{"duration_ms""#).unwrap();
            let Json::Object(mut extraction) = json::parse(text.as_bytes()).unwrap() else {
                unreachable!("the answer is an object")
            };
            let mut ranges = Vec::new();
            json::parse_streaming_text(
                &text,
                &ParseOptions::default(),
                ItemStream {
                    path: &["records"],
                    string_limit: usize::MAX,
                    on_item: &mut |_, _, range| ranges.push(range),
                },
            )
            .unwrap();
            assert_eq!(ranges[0].start, first);
            extraction.remove("records");
            let (body, _) = capture_body(&inputs, extraction, 3).unwrap();
            std::thread::scope(|scope| {
                for (guess, expected) in [(3, true), (2, false), (4, false)] {
                    let early = EarlyDigest::start(scope, &inputs, &text, first, guess).unwrap();
                    assert_eq!(early.finish(&body, &ranges).is_some(), expected, "{guess}");
                }
            });
        }
    }

    /// A sealed capture of an answer text (no selection, no declared values).
    fn sealed_of(text: String) -> SealedCapture {
        let extractor = test_extractor();
        let inputs = test_inputs(&extractor, &[]);
        match seal_capture_answer(&inputs, text).unwrap() {
            CaptureOutput::Raw(sealed) => sealed,
            CaptureOutput::Sealed(_) => panic!("a canonical answer is sealed over its text"),
        }
    }

    #[test]
    fn the_evidence_written_again_from_its_typed_records_is_the_sealed_file() {
        use crate::rewrite::{CaptureRewrite, WrittenDigest};
        for count in [0, 1, 3] {
            let sealed = sealed_of(answer_text(count));
            let mut file = sealed.to_canonical_vec();
            file.push(b'\n');
            let (records, given_back) = sealed.typed_records_checked().unwrap();
            assert!(given_back, "{count}");
            assert_eq!(records, sealed.typed_records().unwrap());
            let digest = sealed.written_digest().unwrap();
            let expected = WrittenDigest {
                bytes: file.len() as u64,
                sha256: crate::sha256_hex(&file),
            };
            assert_eq!(digest, expected);
            let rewrite = CaptureRewrite::new(sealed.into_header(), Arc::new(records), digest);
            assert_eq!(rewrite.len(), file.len() as u64);
            let mut written = Vec::new();
            rewrite.write_to(&mut written).unwrap();
            assert_eq!(
                String::from_utf8(written).unwrap(),
                String::from_utf8(file).unwrap()
            );
        }
    }

    #[test]
    fn a_record_not_given_back_is_told_and_a_file_not_the_sealed_one_is_an_error() {
        use crate::rewrite::{CaptureRewrite, RewriteError, WrittenDigest};
        // A number spelled otherwise than serde writes it is kept as recorded (canonical text),
        // but the typed record would not give it back.
        let text = answer_text(2).replacen(r#""duration_ms":1.5"#, r#""duration_ms":1.50"#, 1);
        let sealed = sealed_of(text);
        let (records, given_back) = sealed.typed_records_checked().unwrap();
        assert!(!given_back);
        // Written again anyway, the file is not the sealed one: the write fails, naming both.
        let digest = sealed.written_digest().unwrap();
        let rewrite = CaptureRewrite::new(sealed.into_header(), Arc::new(records), digest);
        let error = rewrite.write_to(&mut Vec::new()).unwrap_err();
        assert!(matches!(error, RewriteError::Changed { .. }), "{error}");
        assert!(
            error.to_string().contains("is not the one inspected"),
            "{error}"
        );
        let _: WrittenDigest = rewrite.digest().clone();
    }

    #[test]
    fn the_answer_check_accepts_the_contract_and_names_what_breaks_it() {
        check_extraction(&answer(RECORD)).unwrap();
        let typed: rea_plugin_api::contracts::capture::CaptureRecord =
            from_json(&json::parse(RECORD.as_bytes()).unwrap()).unwrap();
        assert_eq!(typed.ordinal, 0);
        for (change, expected) in [
            (
                RECORD.replace(r#""ordinal":0"#, r#""ordinal":1"#),
                "/records/0/ordinal",
            ),
            (
                RECORD.replace(r#""kind":"missing""#, r#""kind":"gone""#),
                "/records/0/request/body/kind",
            ),
            (
                RECORD.replace(r#""name":"A""#, r#""name":1"#),
                "/records/0/request/headers/0/name",
            ),
            (
                RECORD.replace(r#""url":"http://h/""#, r#""url":"http://h/","extra":1"#),
                "unknown member `extra`",
            ),
            (
                RECORD.replace(r#""status":200"#, r#""status":-1"#),
                "/records/0/response/status",
            ),
        ] {
            let problem = check_extraction(&answer(&change)).unwrap_err();
            assert!(problem.contains(expected), "{problem}");
        }
    }
}

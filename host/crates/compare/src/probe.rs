//! Probes: capture Evidence of one call sequence made on the live application, checked and put
//! in the order the calls were made.
//!
//! A probe is refused (`invalid_request`, nothing compared) when it is not capture Evidence
//! (`inspect_web_network_capture` or `capture_browser_scenario`), holds no records, is a browser
//! capture that kept no response bodies or writes (`POST`, `PUT`, `PATCH`) without request
//! bodies, was recorded against another origin than the application's (its origin is the one
//! with the most JSON-like records, chosen as the manifest chooses its own), or matches no tool
//! of the manifest at all (another application on the same origin).
//!
//! Requests are taken in start-time order (equal instants by ordinal), or in record order when
//! any record's start is absent or unreadable ([`crate::clock::start_key`]).

use rea_evidence::capture::{
    CAPTURE_OPERATIONS, SCENARIO_CAPTURE_OPERATION, capture_records, recorded_session,
};
use rea_evidence::{Evidence, Refusal};
use rea_manifest::Manifest;
use rea_plugin_api::contracts::capture::CaptureRecord;

use crate::clock::start_key;
use crate::route::match_tool;

/// How a probe's requests were ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// By recorded start time, ordinal among equals.
    StartTime,
    /// By record ordinal (some start was absent or unreadable).
    Record,
}

impl Order {
    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Order::StartTime => "start-time",
            Order::Record => "record",
        }
    }
}

/// A checked probe.
#[derive(Debug, Clone)]
pub struct Probe {
    /// The probe's Evidence id.
    pub evidence_id: String,
    /// The application's origin the probe was recorded against.
    pub origin: String,
    /// Its records, in the order the calls were made.
    pub records: Vec<CaptureRecord>,
    /// How they were ordered.
    pub order: Order,
}

fn refused(evidence: &Evidence, message: String) -> Refusal {
    Refusal::invalid_request(message).with_data(serde_json::json!({ "probe": evidence.id() }))
}

/// A browser probe's bodies: read from the recorded session its Evidence keeps, as the build
/// reads it (the capture selection the session was recorded with, not the scenario as given).
/// Refused without response bodies, or with writes (`POST`, `PUT`, `PATCH`) but no request
/// bodies.
fn browser_bodies(evidence: &Evidence, records: &[CaptureRecord]) -> Result<(), Refusal> {
    let session = recorded_session(evidence)
        .map_err(|refusal| refusal.with_data(serde_json::json!({ "probe": evidence.id() })))?;
    let selection = &session.capture.network;
    if !selection.response_body {
        return Err(refused(
            evidence,
            format!(
                "browser probe {} was captured without capture.network.response_body: its answers cannot be compared",
                evidence.id()
            ),
        ));
    }
    if records.iter().any(is_write) && !selection.request_body {
        return Err(refused(
            evidence,
            format!(
                "browser probe {} makes POST, PUT or PATCH calls but was captured without capture.network.request_body",
                evidence.id()
            ),
        ));
    }
    Ok(())
}

fn is_write(record: &CaptureRecord) -> bool {
    record.method.as_deref().is_some_and(|method| {
        ["POST", "PUT", "PATCH"]
            .iter()
            .any(|write| method.eq_ignore_ascii_case(write))
    })
}

/// Reads and checks one probe against the manifest (see the module docs).
pub fn read_probe(evidence: &Evidence, manifest: &Manifest) -> Result<Probe, Refusal> {
    evidence
        .expect_operation(&CAPTURE_OPERATIONS)
        .map_err(|refusal| refusal.with_data(serde_json::json!({ "probe": evidence.id() })))?;
    let records = capture_records(evidence)
        .map_err(|refusal| refusal.with_data(serde_json::json!({ "probe": evidence.id() })))?;
    if records.is_empty() {
        return Err(refused(
            evidence,
            format!(
                "probe {} holds no records: record the calls to compare",
                evidence.id()
            ),
        ));
    }
    if evidence.operation() == SCENARIO_CAPTURE_OPERATION {
        browser_bodies(evidence, &records)?;
    }
    let origin = rea_manifest::projection::primary_origin_of(&records).ok_or_else(|| {
        refused(
            evidence,
            format!(
                "probe {} has no record with a usable request line",
                evidence.id()
            ),
        )
    })?;
    if origin != manifest.primary_origin {
        return Err(refused(
            evidence,
            format!(
                "probe {} was recorded against {origin}, but the environment's application is {}",
                evidence.id(),
                manifest.primary_origin
            ),
        ));
    }
    let matches_any = records.iter().any(|record| {
        record.origin.as_deref() == Some(origin.as_str())
            && match (&record.method, &record.path) {
                (Some(method), Some(path)) => {
                    let joined = rea_manifest::joined::join_path(path, &manifest.joined_segments);
                    match_tool(&manifest.tools, method, joined.as_deref().unwrap_or(path)).is_some()
                }
                _ => false,
            }
    });
    if !matches_any {
        return Err(refused(
            evidence,
            format!(
                "probe {} matches no tool of environment {}: it records another application",
                evidence.id(),
                manifest.name
            ),
        ));
    }
    let (records, order) = ordered(records);
    Ok(Probe {
        evidence_id: evidence.id().to_owned(),
        origin,
        records,
        order,
    })
}

/// Records in the order their calls were made (see the module docs).
pub fn ordered(mut records: Vec<CaptureRecord>) -> (Vec<CaptureRecord>, Order) {
    let keys: Option<Vec<_>> = records
        .iter()
        .map(|record| start_key(&record.started.as_ref()?.recorded))
        .collect();
    match keys {
        Some(keys) => {
            let mut keyed: Vec<_> = keys.into_iter().zip(records).collect();
            keyed.sort_by(|(a, left), (b, right)| a.cmp(b).then(left.ordinal.cmp(&right.ordinal)));
            (
                keyed.into_iter().map(|(_, record)| record).collect(),
                Order::StartTime,
            )
        }
        None => {
            records.sort_by_key(|record| record.ordinal);
            (records, Order::Record)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::record;

    fn started(ordinal: u64, recorded: Option<&str>) -> CaptureRecord {
        let mut record = record(ordinal, "GET", "/posts", 200, "[]");
        record.started = recorded.map(|recorded| rea_plugin_api::contracts::capture::StartTime {
            instant: None,
            recorded: recorded.into(),
        });
        record
    }

    fn ordinals(records: &[CaptureRecord]) -> Vec<u64> {
        records.iter().map(|record| record.ordinal).collect()
    }

    #[test]
    fn calls_are_taken_in_start_order_with_ordinal_ties() {
        let records = vec![
            started(0, Some("2026-01-01T10:00:02Z")),
            started(1, Some("2026-01-01T10:00:01.5Z")),
            started(2, Some("2026-01-01T12:00:01.5+02:00")),
            started(3, Some("2026-01-01T10:00:00.9999999999Z")),
        ];
        let (ordered, order) = ordered(records.clone());
        // contract: COMPARE-007
        assert_eq!(order, Order::StartTime);
        // contract: COMPARE-056
        assert_eq!(ordinals(&ordered), vec![3, 1, 2, 0]);
        // contract: COMPARE-059
        assert_eq!(
            ordered
                .iter()
                .find(|record| record.ordinal == 3)
                .unwrap()
                .started,
            records[3].started
        );
    }

    #[test]
    fn one_absent_or_unreadable_start_makes_the_probe_use_record_order() {
        for broken in [None, Some("soon")] {
            let records = vec![
                started(1, Some("2026-01-01T10:00:02Z")),
                started(0, Some("2026-01-01T10:00:03Z")),
                started(2, broken),
            ];
            let (ordered, order) = ordered(records);
            // contract: COMPARE-008, COMPARE-058
            assert_eq!((order, ordinals(&ordered)), (Order::Record, vec![0, 1, 2]));
        }
    }
}

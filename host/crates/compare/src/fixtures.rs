//! Hand-made capture records and manifests for the unit tests.

use rea_manifest::{Environment, Manifest, TemplateRules};
use rea_plugin_api::contracts::capture::{
    Body, CaptureRecord, RecordQuery, RecordRequest, RecordResponse, StartTime,
};

/// A record of `METHOD http://app{path_and_query}` answering JSON `body` with `status`.
pub fn record(
    ordinal: u64,
    method: &str,
    path_and_query: &str,
    status: u16,
    body: &str,
) -> CaptureRecord {
    let (path, query) = match path_and_query.split_once('?') {
        Some((path, raw)) => (
            path,
            Some(RecordQuery {
                pairs: raw
                    .split('&')
                    .map(|pair| {
                        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
                        Some((name.to_owned(), value.to_owned()))
                    })
                    .collect(),
                raw: Some(raw.to_owned()),
            }),
        ),
        None => (path_and_query, None),
    };
    CaptureRecord {
        duration_ms: Some(5.0),
        method: Some(method.to_owned()),
        ordinal,
        origin: Some("http://app".to_owned()),
        path: Some(path.to_owned()),
        pointer: format!("/log/entries/{ordinal}"),
        query,
        request: RecordRequest {
            body: Body::Missing,
            headers: Vec::new(),
            http_version: None,
            media_type: None,
        },
        response: RecordResponse {
            body: Body::Text {
                text: body.to_owned(),
            },
            headers: Vec::new(),
            http_version: None,
            media_type: Some("application/json".to_owned()),
            status,
            status_text: None,
        },
        started: Some(StartTime {
            instant: None,
            recorded: format!("2026-01-01T10:00:{:02}.000Z", ordinal % 60),
        }),
        url: Some(format!("http://app{path_and_query}")),
    }
}

/// The manifest (format rules only) and replay environment of records.
pub fn environment(records: &[CaptureRecord]) -> (Manifest, Environment) {
    let manifest = rea_manifest::project_manifest("ev_capture", records, &TemplateRules::none())
        .expect("a manifest");
    let environment =
        Environment::new(&manifest, "ev_capture", records.to_vec()).expect("an environment");
    (manifest, environment)
}

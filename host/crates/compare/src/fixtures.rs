//! Hand-made capture records and manifests for the unit tests.

use rea_manifest::{Environment, Manifest, TemplateRules};
use rea_plugin_api::contracts::capture::CaptureRecord;

/// A record of `METHOD http://app{path_and_query}` answering JSON `body` with `status`, started
/// a second per ordinal after 10:00.
pub fn record(
    ordinal: u64,
    method: &str,
    path_and_query: &str,
    status: u16,
    body: &str,
) -> CaptureRecord {
    rea_manifest::testing::record(ordinal, method, &format!("http://app{path_and_query}"))
        .json(status, body)
        .started(&format!("2026-01-01T10:00:{:02}.000Z", ordinal % 60), None)
        .build()
}

/// The manifest (format rules only) and replay environment of records.
pub fn environment(records: &[CaptureRecord]) -> (Manifest, Environment) {
    let manifest = rea_manifest::project_manifest("ev_capture", records, &TemplateRules::none())
        .expect("a manifest");
    let environment =
        Environment::new(&manifest, "ev_capture", records.to_vec()).expect("an environment");
    (manifest, environment)
}

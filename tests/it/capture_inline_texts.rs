//! Typed capture records hold their short texts inside the record (issue 17, bounded memory): on
//! recorded applications, the records `environment-build` types from the extractor's text keep
//! every method, pointer, path, HTTP version, media type, status text, start time and header name
//! and value of up to 24 bytes without an allocation of its own, and still equal the Evidence's.

use rea::commands::inspect_capture::{InspectRequest, inspect_output_with_builtins};
use rea_evidence::capture::{CaptureOutput, capture_records};
use rea_plugin_api::contracts::capture::{CaptureRecord, CompactString};

/// The typed records `environment-build` keeps of a shared capture's build recording.
fn typed(app: &str) -> Vec<CaptureRecord> {
    let path = rea_tests::shared_dir()
        .join("captures")
        .join(app)
        .join("build.har");
    let request = InspectRequest {
        capture: &path,
        input_kind: "har",
        selection: None,
        sensitive_values: &[],
    };
    let CaptureOutput::Raw(sealed) = inspect_output_with_builtins(&request).expect("inspects")
    else {
        panic!("{app}: the built-in extractor answers canonical JSON");
    };
    let (records, given_back) = sealed.typed_records_checked().expect("typed");
    assert!(
        given_back,
        "{app}: every record serializes back to its text"
    );
    let evidence = sealed.into_evidence().expect("authenticates");
    assert_eq!(records, capture_records(&evidence).unwrap(), "{app}");
    records
}

/// A record's short texts: every text field but the URL, origin and query.
fn short_texts(record: &CaptureRecord) -> Vec<&CompactString> {
    let headers = record
        .request
        .headers
        .iter()
        .chain(&record.response.headers)
        .flat_map(|header| [&header.excluded, &header.name, &header.value]);
    let started = record.started.iter().flat_map(|started| {
        [Some(&started.recorded), started.instant.as_ref()]
            .into_iter()
            .flatten()
    });
    [
        &record.method,
        &record.path,
        &record.request.http_version,
        &record.request.media_type,
        &record.response.http_version,
        &record.response.media_type,
        &record.response.status_text,
    ]
    .into_iter()
    .chain(headers)
    .flatten()
    .chain([&record.pointer])
    .chain(started)
    .collect()
}

#[test]
fn short_record_texts_are_held_inside_the_record() {
    for app in ["json-server", "kinto"] {
        let records = typed(app);
        let texts: Vec<&CompactString> = records.iter().flat_map(short_texts).collect();
        let short: Vec<&&CompactString> = texts.iter().filter(|text| text.len() <= 24).collect();
        // Methods, pointers, versions and most header names and values.
        assert!(
            short.len() > 10 * records.len(),
            "{app}: {} short texts in {} records",
            short.len(),
            records.len()
        );
        for text in short {
            assert!(!text.is_heap_allocated(), "{app}: {text:?} allocated");
        }
    }
}

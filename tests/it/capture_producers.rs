//! What the HAR extractor keeps from the producers seen in practice: bodies in their
//! representation, authentication values excluded, selection, lexemes, container metadata.

use crate::capture_support;

use capture_support::*;
use rea_evidence::capture::capture_records;
use rea_json::Json;
use rea_plugin_api::contracts::capture::{Body, CaptureRecord};

fn typed(path: &std::path::Path) -> Vec<CaptureRecord> {
    capture_records(&inspect_all(path).expect("inspect")).expect("typed records")
}

// contract: CAPTURE-014
#[test]
fn base64_bodies_are_decoded_exactly() {
    let records = typed(&captures_dir().join("producers/har_files--chrome.har"));
    // Chrome recorded `content.size` 7108 for this PNG; the decoded bytes must be exactly those.
    let Body::Base64 { bytes, .. } = &records[2].response.body else {
        panic!("a base64 body: {:?}", records[2].response.body)
    };
    assert_eq!(*bytes, 7108);
    let decoded = records[2].response.body.bytes().expect("decodes");
    assert_eq!(decoded.len(), 7108);
    assert!(decoded.starts_with(b"\x89PNG\r\n\x1a\n"));
    // The first entry's HTML: 23866 bytes per Chrome.
    assert_eq!(
        records[0].response.body.bytes().expect("decodes").len(),
        23866
    );
}

// contract: CAPTURE-008, CAPTURE-014
#[test]
fn text_missing_empty_and_reported_null_bodies_stay_distinct() {
    let post =
        |post_data: &str| entry("http://h/api", &format!(r#", "postData": {post_data}"#), "");
    let text = har_with_entries(&[
        &post(r#"{"mimeType": "application/json", "text": "{\"a\":1}"}"#),
        &post(r#"{"mimeType": "", "text": ""}"#),
        // mitmproxy's SaveHar writes `text: null`: kept as a reported null.
        &post(r#"{"mimeType": "application/json", "text": null}"#),
        &entry("http://h/api", "", ""),
        &entry("http://h/api", "", "").replace(r#", "text": "{}""#, ""),
    ]);
    let (_dir, path) = temp_capture("bodies.har", text.as_bytes());
    let records = typed(&path);
    assert_eq!(
        records[0].request.body,
        Body::Text {
            text: "{\"a\":1}".into()
        }
    );
    assert_eq!(records[1].request.body, Body::Text { text: "".into() });
    assert_eq!(records[2].request.body, Body::ReportedNull);
    assert_eq!(records[3].request.body, Body::Missing);
    assert_eq!(records[4].response.body, Body::Missing);
    let evidence = inspect_all(&path).unwrap();
    let codes: Vec<&str> = evidence
        .get("limitations")
        .and_then(Json::as_array)
        .unwrap()
        .iter()
        .filter_map(|limitation| limitation.get("code").and_then(Json::as_str))
        .collect();
    assert!(codes.contains(&"body-reported-null"), "{codes:?}");
    assert!(codes.contains(&"response-body-not-recorded"), "{codes:?}");
}

// contract: CAPTURE-015
#[test]
fn authentication_header_values_and_url_userinfo_are_excluded_and_listed() {
    let records = typed(&captures_dir().join("kinto/build.har"));
    let authorization = records[0]
        .request
        .headers
        .iter()
        .find(|header| header.name.as_deref() == Some("Authorization"))
        .expect("kinto sends Basic auth");
    assert_eq!(authorization.value, None);
    assert_eq!(authorization.excluded.as_deref(), Some("authentication"));
    let text = har_with_entries(&[r#"{"startedDateTime": "2024-05-01T10:00:00Z", "time": 1,
        "request": {"method": "GET", "url": "https://user:pw@Example.com:443/a?b=1", "httpVersion": "HTTP/1.1",
            "cookies": [{"name": "sid", "value": "1"}], "queryString": [{"name": "b", "value": "1"}],
            "headers": [{"name": "cookie", "value": "sid=1"}, {"name": "Proxy-Authorization", "value": "Basic x"}, {"name": "Accept", "value": "*/*"}],
            "headersSize": -1, "bodySize": 0},
        "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
            "headers": [{"name": "Set-Cookie", "value": "sid=2"}], "content": {"size": 0, "mimeType": "text/plain", "text": ""},
            "redirectURL": "", "headersSize": -1, "bodySize": 0},
        "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}}"#]);
    let (_dir, path) = temp_capture("auth.har", text.as_bytes());
    let evidence = inspect_all(&path).expect("inspect");
    let written = String::from_utf8(evidence.to_canonical_vec()).unwrap();
    for secret in ["sid=1", "sid=2", "Basic x", "user:pw", "pw@"] {
        assert!(!written.contains(secret), "{secret} leaked");
    }
    let records = capture_records(&evidence).unwrap();
    assert_eq!(
        records[0].url.as_deref(),
        Some("https://Example.com:443/a?b=1")
    );
    assert_eq!(records[0].origin.as_deref(), Some("https://example.com"));
    assert_eq!(records[0].request_header("accept"), Some("*/*"));
    let reasons: Vec<(String, String)> = evidence
        .get("redactions")
        .and_then(Json::as_array)
        .unwrap()
        .iter()
        .map(|r| {
            (
                r.get("pointer").and_then(Json::as_str).unwrap().to_owned(),
                r.get("reason").and_then(Json::as_str).unwrap().to_owned(),
            )
        })
        .collect();
    let expect = |pointer: &str, reason: &str| {
        assert!(
            reasons.contains(&(pointer.to_owned(), reason.to_owned())),
            "{pointer} {reason} in {reasons:?}"
        );
    };
    expect("/log/entries/0/request/url", "url-userinfo");
    expect(
        "/log/entries/0/request/headers/0/value",
        "authentication-header",
    );
    expect(
        "/log/entries/0/request/headers/1/value",
        "authentication-header",
    );
    expect(
        "/log/entries/0/response/headers/0/value",
        "authentication-header",
    );
}

// contract: CAPTURE-002
#[test]
fn record_selection_keeps_the_callers_order_and_original_ordinals() {
    let path = captures_dir().join("json-server/build.har");
    let all = inspect_all(&path).unwrap();
    let all_records = records(&all);
    let selected = inspect(&path, Some(&[5, 0, 3]), &[]).unwrap();
    let chosen = records(&selected);
    assert_eq!(chosen.len(), 3);
    for (record, ordinal) in chosen.iter().zip([5usize, 0, 3]) {
        assert_eq!(record, &all_records[ordinal]);
        assert_eq!(
            record.get("pointer").and_then(Json::as_str),
            Some(format!("/log/entries/{ordinal}").as_str())
        );
    }
    assert_eq!(selected.get("record_count"), all.get("record_count"));
    let parameters = selected.get("parameters").unwrap();
    assert_eq!(
        parameters.get("records").unwrap().to_canonical_string(),
        "[5,0,3]"
    );
    assert_eq!(
        all.get("parameters").unwrap().get("records"),
        Some(&Json::Null)
    );
}

// contract: CAPTURE-007, CAPTURE-012, CAPTURE-013
#[test]
fn container_metadata_keeps_proto_members_and_number_lexemes() {
    let text = format!(
        r#"{{"log": {{"version": "1.2", "creator": {{"name": "t", "version": "1"}}, "__proto__": {{"polluted": true}},
           "_big": 123456789012345678901234567890, "_precise": 0.10000000000000000001, "entries": [{}]}}, "__proto__": 1}}"#,
        entry("http://h/", r#", "_x": 1e400"#, "")
    );
    let (_dir, path) = temp_capture("container.har", text.as_bytes());
    let evidence = inspect_all(&path).expect("non-standard members may hold any number");
    let container = evidence.get("container").unwrap();
    assert_eq!(
        evidence.get("records_pointer").and_then(Json::as_str),
        Some("/log/entries")
    );
    assert_eq!(container.pointer("/log/entries"), Some(&Json::Null));
    assert_eq!(
        container.pointer("/log/__proto__/polluted"),
        Some(&Json::Bool(true))
    );
    assert!(container.get("__proto__").is_some());
    let written = String::from_utf8(evidence.to_canonical_vec()).unwrap();
    assert!(
        written.contains(r#""_big":123456789012345678901234567890"#),
        "lexeme kept"
    );
    assert!(
        written.contains(r#""_precise":0.10000000000000000001"#),
        "lexeme kept"
    );
}

#[test]
fn producers_quirks_are_accepted() {
    let root = captures_dir();
    // Chrome on Windows: a byte-order mark, skipped and noted.
    let bom = inspect_all(&root.join("producers/har_files--with-bom.har")).expect("BOM accepted");
    let codes = bom.get("limitations").unwrap().to_canonical_string();
    assert!(codes.contains("byte-order-mark"), "{codes}");
    // Firefox leaves image bodies out: missing, not empty.
    let firefox = typed(&root.join("producers/har_files--firefox.har"));
    assert_eq!(firefox[1].response.body, Body::Missing);
    // Records to other origins are kept.
    let mixed = typed(&root.join("producers/flows--diff_data.har"));
    let origins: std::collections::BTreeSet<_> =
        mixed.iter().filter_map(|r| r.origin.clone()).collect();
    assert_eq!(mixed.len(), 5);
    assert!(origins.len() >= 4, "{origins:?}");
    // Start times are parsed to UTC instants, offsets applied.
    let charles = typed(&root.join("producers/har_files--charles.har"));
    let started = charles[0].started.as_ref().unwrap();
    assert_eq!(started.recorded, "2023-03-29T17:37:42.482-07:00");
    assert_eq!(
        started.instant.as_deref(),
        Some("2023-03-30T00:37:42.482000000Z")
    );
    // An explicit empty query keeps its spelling.
    assert_eq!(charles[0].query.as_ref().unwrap().raw.as_deref(), Some("="));
}

#[test]
fn text_format_prints_a_summary() {
    let capture = captures_dir().join("producers/flows--error_log.har");
    let output = std::process::Command::new(rea_binary())
        .args([
            "inspect-web-network-capture",
            capture.to_str().unwrap(),
            "har",
            "--format",
            "text",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("2 of 2 records"), "{stdout}");
    assert!(
        stdout.contains("#1 POST 405 https://httpbin.org/get"),
        "{stdout}"
    );
    assert!(stdout.contains("evidence ev_"), "{stdout}");
}

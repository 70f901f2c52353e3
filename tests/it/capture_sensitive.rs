//! `--sensitive-value`: every field holding a declared value is null with a redaction entry, the
//! value is never written (Evidence, errors), and only the count of declarations is recorded.

use crate::capture_support;

use capture_support::*;
use rea_evidence::capture::capture_records;
use rea_json::Json;
use rea_plugin_api::contracts::capture::Body;

const SECRET: &str = "Zq7-sekret-77";

fn capture_with_secret() -> String {
    // base64 of "token=Zq7-sekret-77;" so the secret is only visible after decoding.
    let encoded = "dG9rZW49WnE3LXNla3JldC03Nzs=";
    har_with_entries(&[
        &format!(
            r#"{{"startedDateTime": "2024-05-01T10:00:00Z", "time": 1,
              "request": {{"method": "POST", "url": "http://h/api/items?key={SECRET}&page=2", "httpVersion": "HTTP/1.1",
                  "cookies": [], "queryString": [], "headers": [{{"name": "X-Api-Key", "value": "k {SECRET}"}}, {{"name": "Accept", "value": "*/*"}}],
                  "postData": {{"mimeType": "application/json", "text": "{{\"password\": \"{SECRET}\"}}"}},
                  "headersSize": -1, "bodySize": 0}},
              "response": {{"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [], "headers": [],
                  "content": {{"size": 20, "mimeType": "text/plain", "text": "{encoded}", "encoding": "base64"}},
                  "redirectURL": "", "headersSize": -1, "bodySize": 0}},
              "cache": {{}}, "timings": {{"send": 0, "wait": 1, "receive": 0}}}}"#
        ),
        &entry("http://h/other", "", ""),
    ])
    .replace("\"creator\": {\"name\": \"test\"", &format!("\"comment\": \"made by {SECRET}\", \"creator\": {{\"name\": \"test\""))
}

// contract: CAPTURE-016
#[test]
fn a_declared_value_excludes_every_field_holding_it_and_is_never_written() {
    let (_dir, path) = temp_capture("secret.har", capture_with_secret().as_bytes());
    let sensitive = [SECRET.to_owned(), "never-present".to_owned()];
    let evidence = inspect(&path, None, &sensitive).expect("inspect");
    let written = String::from_utf8(evidence.to_canonical_vec()).unwrap();
    assert!(!written.contains(SECRET), "the value was written");
    let parameters = evidence.get("parameters").unwrap();
    assert_eq!(
        parameters
            .get("sensitive_value_count")
            .unwrap()
            .to_canonical_string(),
        "2"
    );

    let records = capture_records(&evidence).unwrap();
    let record = &records[0];
    assert_eq!(record.url, None);
    assert_eq!(record.path.as_deref(), Some("/api/items"));
    let query = record.query.as_ref().unwrap();
    assert_eq!(query.raw, None);
    assert_eq!(
        query.pairs,
        vec![None, Some(("page".to_owned(), "2".to_owned()))]
    );
    assert_eq!(record.request.headers[0].value, None);
    assert_eq!(
        record.request.headers[0].excluded.as_deref(),
        Some("sensitive-value")
    );
    assert_eq!(record.request.headers[1].value.as_deref(), Some("*/*"));
    assert!(matches!(record.request.body, Body::Excluded { .. }));
    assert!(
        matches!(record.response.body, Body::Excluded { .. }),
        "found in the decoded bytes"
    );
    // The other record is untouched.
    assert_eq!(records[1].url.as_deref(), Some("http://h/other"));
    // The container's comment held it too.
    assert_eq!(
        evidence.get("container").unwrap().pointer("/log/comment"),
        Some(&Json::Null)
    );

    let pointers: Vec<&str> = evidence
        .get("redactions")
        .and_then(Json::as_array)
        .unwrap()
        .iter()
        .filter(|r| r.get("reason").and_then(Json::as_str) == Some("sensitive-value"))
        .filter_map(|r| r.get("pointer").and_then(Json::as_str))
        .collect();
    for expected in [
        "/log/entries/0/request/url",
        "/log/entries/0/request/headers/0/value",
        "/log/entries/0/request/postData/text",
        "/log/entries/0/response/content/text",
        "/log/comment",
    ] {
        assert!(pointers.contains(&expected), "{expected} in {pointers:?}");
    }
}

// contract: CAPTURE-017
#[test]
fn a_declared_value_never_appears_in_error_messages() {
    // A duplicate key spelled with the secret: the refusal's pointer would name it.
    let text = har_with_entries(&[&entry(
        "http://h/",
        &format!(r#", "{SECRET}": 1, "{SECRET}": 2"#),
        "",
    )]);
    let (_dir, path) = temp_capture("secret-error.har", text.as_bytes());
    let output = std::process::Command::new(rea_binary())
        .args([
            "inspect-web-network-capture",
            path.to_str().unwrap(),
            "har",
            "--sensitive-value",
            SECRET,
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("duplicate"), "{stderr}");
    assert!(!stderr.contains(SECRET), "{stderr}");
    assert!(stderr.contains("<sensitive-value>"), "{stderr}");
    // Without the declaration the pointer names the key.
    let refusal = inspect_all(&path).unwrap_err();
    assert_eq!(
        refusal.pointer.as_deref(),
        Some(format!("/log/entries/0/request/{SECRET}").as_str())
    );
}

// contract: CAPTURE-018
#[test]
fn a_declaration_matching_the_file_digest_withholds_the_subject() {
    let (_dir, path) = temp_capture(
        "digest.har",
        har_with_entries(&[&entry("http://h/", "", "")]).as_bytes(),
    );
    let digest = rea_evidence::sha256_hex(&std::fs::read(&path).unwrap());
    let evidence = inspect(&path, None, &[digest[10..30].to_owned()]).expect("inspect");
    assert_eq!(evidence.get("subject"), Some(&Json::Null));
    assert_eq!(
        evidence.get("artifact").unwrap().get("sha256"),
        Some(&Json::Null)
    );
    let written = String::from_utf8(evidence.to_canonical_vec()).unwrap();
    assert!(!written.contains(&digest[10..30]));
    assert!(
        written.contains("subject-withheld"),
        "explained in the limitations"
    );
}

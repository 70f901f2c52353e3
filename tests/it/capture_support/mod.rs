//! Helpers of the capture_* tests: the shared captures, inspecting in-process, golden files, and
//! HAR documents made for one test.

// `Refusal` is rea's one error shape; its size does not matter in tests.
#![allow(clippy::result_large_err)]

use std::path::{Path, PathBuf};

use rea::commands::inspect_capture::{InspectRequest, inspect_with_builtins};
use rea_evidence::{Evidence, Refusal};
use rea_json::{self as json, Json};

/// What replaces the captures folder's absolute path in golden files.
pub const CAPTURES_PLACEHOLDER: &str = "<captures>";

/// The `rea` binary under test.
pub fn rea_binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rea-under-test"))
}

/// `shared/captures`, canonical.
pub fn captures_dir() -> PathBuf {
    let dir = rea_tests::shared_dir().join("captures");
    std::fs::canonicalize(&dir).unwrap_or_else(|error| {
        panic!(
            "the shared captures are missing at {}: {error}",
            dir.display()
        )
    })
}

/// Every `.har` file under the captures folder, as paths relative to it, sorted.
pub fn all_captures() -> Vec<PathBuf> {
    let root = captures_dir();
    let mut found = Vec::new();
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("captures folder")
        .map(|entry| entry.expect("entry").path())
        .filter(|path| path.is_dir())
        .collect();
    folders.sort();
    for folder in folders {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
            .expect("capture folder")
            .map(|entry| entry.expect("entry").path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "har"))
            .collect();
        files.sort();
        found.extend(
            files
                .into_iter()
                .map(|path| path.strip_prefix(&root).expect("under root").to_path_buf()),
        );
    }
    assert!(
        found.len() >= 20,
        "expected the shared captures, found {found:?}"
    );
    found
}

/// Inspects a capture in-process with the built-in plugins.
pub fn inspect(
    path: &Path,
    selection: Option<&[u64]>,
    sensitive: &[String],
) -> Result<Evidence, Refusal> {
    inspect_with_builtins(&InspectRequest {
        capture: path,
        input_kind: "har",
        selection,
        sensitive_values: sensitive,
    })
}

/// Inspects every record with no declarations.
pub fn inspect_all(path: &Path) -> Result<Evidence, Refusal> {
    inspect(path, None, &[])
}

/// The Evidence with the captures folder's path replaced by [`CAPTURES_PLACEHOLDER`] in every
/// string, re-sealed (so the golden's id is that of the normalized content), canonical, with a
/// trailing newline.
pub fn normalized_evidence(evidence: &Evidence) -> Vec<u8> {
    let root = captures_dir().display().to_string();
    let mut body = Json::Object(evidence.body().clone());
    replace_in_strings(&mut body, &root, CAPTURES_PLACEHOLDER);
    let Json::Object(body) = body else {
        unreachable!("an object stays an object")
    };
    let mut bytes = Evidence::seal(evidence.operation(), body).to_canonical_vec();
    bytes.push(b'\n');
    bytes
}

/// A refusal as the JSON line the binary prints, the captures folder's path replaced.
pub fn normalized_refusal(refusal: &Refusal) -> Vec<u8> {
    let root = captures_dir().display().to_string();
    let mut line = refusal.to_json_line().replace(&root, CAPTURES_PLACEHOLDER);
    line.push('\n');
    line.into_bytes()
}

fn replace_in_strings(value: &mut Json, from: &str, to: &str) {
    match value {
        Json::String(text) if text.contains(from) => *text = text.replace(from, to).into(),
        Json::Array(items) => items
            .iter_mut()
            .for_each(|item| replace_in_strings(item, from, to)),
        Json::Object(object) => {
            for (_, item) in object.iter_mut() {
                replace_in_strings(item, from, to);
            }
        }
        _ => {}
    }
}

/// Compares `actual` with the golden file byte for byte (see [`rea_tests::golden`]); returns
/// the golden file used.
pub fn check_golden(golden: &Path, actual: &[u8]) -> Result<PathBuf, String> {
    rea_tests::golden::check(golden, actual)
}

/// The golden folder of the capture tests.
pub fn golden_dir() -> PathBuf {
    rea_tests::workspace_root()
        .join("tests")
        .join("golden")
        .join("capture")
}

/// A minimal valid HAR 1.2 document with the given entries (JSON text each).
pub fn har_with_entries(entries: &[&str]) -> String {
    format!(
        r#"{{"log": {{"version": "1.2", "creator": {{"name": "test", "version": "1"}}, "entries": [{}]}}}}"#,
        entries.join(",")
    )
}

/// A valid entry; `request_extra` and `response_extra` are spliced into the request and response
/// objects (each starting with a comma when not empty).
pub fn entry(url: &str, request_extra: &str, response_extra: &str) -> String {
    format!(
        r#"{{"startedDateTime": "2024-05-01T10:00:00.000Z", "time": 12.5,
            "request": {{"method": "GET", "url": "{url}", "httpVersion": "HTTP/1.1", "cookies": [], "headers": [], "queryString": [], "headersSize": -1, "bodySize": -1{request_extra}}},
            "response": {{"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [], "headers": [], "content": {{"size": 2, "mimeType": "application/json", "text": "{{}}"}}, "redirectURL": "", "headersSize": -1, "bodySize": -1{response_extra}}},
            "cache": {{}}, "timings": {{"send": 0, "wait": 1, "receive": 0}}}}"#
    )
}

/// Writes `text` to `name` in a fresh temporary folder.
pub fn temp_capture(name: &str, text: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join(name);
    std::fs::write(&path, text).expect("write capture");
    (dir, path)
}

/// The Evidence's records as JSON.
pub fn records(evidence: &Evidence) -> &Vec<Json> {
    evidence
        .get("records")
        .and_then(Json::as_array)
        .expect("records")
}

/// Parses canonical output (tests compare members).
pub fn parse(bytes: &[u8]) -> Json {
    json::parse_with(bytes, &json::ParseOptions::default().max_depth(256)).expect("valid JSON")
}

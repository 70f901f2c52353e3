//! One test per refusal of `rea inspect-web-network-capture`: each exits 1, prints nothing on
//! stdout and one structured line on stderr `{code, category, message, pointer?, stage}`.
//!
//! A read permission denial (CAPTURE-019, `access_denied`) runs as an unprivileged user (root reads
//! any file). A file changed while read (CAPTURE-020) is tested in `rea-evidence`'s unit tests
//! (`file::tests`): it needs a hook between opening and reading.

use crate::capture_support;

use std::path::Path;

use capture_support::*;
use rea_json::Json;

struct Refused {
    code: String,
    category: String,
    message: String,
    pointer: Option<String>,
    stage: Option<String>,
}

/// Runs the binary with `--json` and expects a refusal: exit 1, empty stdout, one JSON line on
/// stderr.
fn refused(path: &Path, extra: &[&str]) -> Refused {
    refused_with(path, extra, 1)
}

/// [`refused`] with another exit code (2: a usage mistake, such as a missing file).
fn refused_with(path: &Path, extra: &[&str], exit: i32) -> Refused {
    let mut args = vec![
        "inspect-web-network-capture",
        path.to_str().expect("utf-8 path"),
        "har",
        "--json",
    ];
    args.extend_from_slice(extra);
    let output = std::process::Command::new(rea_binary())
        .args(&args)
        .output()
        .expect("run rea");
    assert_eq!(
        output.status.code(),
        Some(exit),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.stdout.is_empty(),
        "stdout must be empty on a refusal"
    );
    let stderr = String::from_utf8(output.stderr).expect("utf-8 stderr");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    let line = parse(stderr.trim_end().as_bytes());
    let text = |name: &str| line.get(name).and_then(Json::as_str).map(str::to_owned);
    Refused {
        code: text("code").expect("code"),
        category: text("category").expect("category"),
        message: text("message").expect("message"),
        pointer: text("pointer"),
        stage: text("stage"),
    }
}

fn refused_text(text: &str, extra: &[&str]) -> Refused {
    let (_dir, path) = temp_capture("capture.har", text.as_bytes());
    refused(&path, extra)
}

fn assert_input(refusal: &Refused, pointer: Option<&str>) {
    assert_eq!(
        (refusal.code.as_str(), refusal.category.as_str()),
        ("invalid_request", "input"),
        "{}",
        refusal.message
    );
    assert_eq!(refusal.pointer.as_deref(), pointer, "{}", refusal.message);
    assert_eq!(
        refusal.stage.as_deref(),
        Some("inspect_web_network_capture")
    );
}

// contract: CAPTURE-019
#[test]
fn a_missing_file_is_an_input_failure() {
    let dir = tempfile::tempdir().unwrap();
    // An input failure in the refusal; the command exits 2 (a path that names no file is a
    // usage mistake, as README says).
    let refusal = refused_with(&dir.path().join("absent.har"), &[], 2);
    assert_input(&refusal, None);
    assert!(
        refusal.message.contains("no such file"),
        "{}",
        refusal.message
    );
}

#[test]
fn an_unreadable_file_is_access_denied_in_category_unavailable() {
    #[cfg(unix)]
    if rea_tests::subject_to_permissions(
        "capture_refusals::an_unreadable_file_is_access_denied_in_category_unavailable",
    ) {
        use std::os::unix::fs::PermissionsExt as _;
        let (_dir, path) = temp_capture("locked.har", b"{}");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).unwrap();
        let refusal = refused(&path, &[]);
        // contract: CAPTURE-019
        assert_eq!(
            (refusal.code.as_str(), refusal.category.as_str()),
            ("access_denied", "unavailable"),
            "{}",
            refusal.message
        );
    }
}

#[test]
fn a_directory_is_not_a_regular_file() {
    let dir = tempfile::tempdir().unwrap();
    let refusal = refused(dir.path(), &[]);
    assert_input(&refusal, None);
    assert!(
        refusal.message.contains("not a regular file"),
        "{}",
        refusal.message
    );
}

// contract: CAPTURE-009
#[test]
fn a_file_over_32_mib_is_refused_naming_the_path_and_budget() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.har");
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(32 * 1024 * 1024 + 1).unwrap();
    let refusal = refused(&path, &[]);
    assert_eq!(
        (refusal.code.as_str(), refusal.category.as_str()),
        ("resource_constraint", "resource")
    );
    assert!(
        refusal
            .message
            .contains(&std::fs::canonicalize(&path).unwrap().display().to_string())
    );
    assert!(refusal.message.contains("33554432"), "{}", refusal.message);
}

#[test]
fn a_file_of_exactly_32_mib_is_read() {
    // Whitespace after a valid document: within the budget, so it is read and accepted.
    let mut text = har_with_entries(&[&entry("http://h/", "", "")]).into_bytes();
    text.resize(32 * 1024 * 1024, b' ');
    let (_dir, path) = temp_capture("exact.har", &text);
    let evidence = inspect_all(&path).expect("a 32 MiB file is within the budget");
    assert_eq!(records(&evidence).len(), 1);
}

#[test]
fn a_file_that_is_not_json_is_refused() {
    let broken = captures_dir().join("producers/corrupted_har--brokenfile.har");
    let refusal = refused(&broken, &[]);
    assert_input(&refusal, Some(""));
    assert!(refusal.message.contains("not JSON"), "{}", refusal.message);
    let refusal = refused_text(
        "{\"log\": {\"version\": \"1.2\", \"entries\": []}} trailing",
        &[],
    );
    assert_input(&refusal, Some(""));
}

#[test]
fn json_without_log_is_not_a_har_document() {
    let refusal = refused(&captures_dir().join("producers/har_extractor.har"), &[]);
    assert_input(&refusal, Some("/log"));
}

// contract: CAPTURE-006
#[test]
fn a_duplicate_key_anywhere_is_refused_even_spelled_with_escapes_or_with_equal_values() {
    let escaped = har_with_entries(&[&entry(
        "http://h/",
        r#", "comment": "a", "\u0063omment": "b""#,
        "",
    )]);
    let refusal = refused_text(&escaped, &[]);
    assert_input(&refusal, Some("/log/entries/0/request/comment"));
    assert!(refusal.message.contains("duplicate"), "{}", refusal.message);
    let equal = r#"{"log": {"version": "1.2", "entries": [], "_x": {"k": 1, "k": 1}}}"#;
    assert_input(&refused_text(equal, &[]), Some("/log/_x/k"));
}

// contract: CAPTURE-010
#[test]
fn nesting_deeper_than_64_levels_is_refused() {
    // The document, `log`, `entries` and the entry are four levels; `_deep` adds `arrays` more.
    let deep = |arrays: usize| {
        let plain = entry("http://h/", "", "");
        let nested = format!(
            r#"{{"_deep": {}{}, {}"#,
            "[".repeat(arrays),
            "]".repeat(arrays),
            &plain[1..]
        );
        har_with_entries(&[&nested])
    };
    let at_limit = deep(60);
    let (_dir, path) = temp_capture("deep.har", at_limit.as_bytes());
    inspect_all(&path).expect("64 levels are accepted");
    let refusal = refused_text(&deep(61), &[]);
    assert_eq!(
        (refusal.code.as_str(), refusal.category.as_str()),
        ("resource_constraint", "resource")
    );
    assert!(refusal.message.contains("64"), "{}", refusal.message);
}

// contract: CAPTURE-005
#[test]
fn another_har_version_is_refused() {
    let text = har_with_entries(&[]).replace("\"1.2\"", "\"1.1\"");
    let refusal = refused_text(&text, &[]);
    assert_eq!(
        (refusal.code.as_str(), refusal.category.as_str()),
        ("unsupported_target", "input")
    );
    assert_eq!(refusal.pointer.as_deref(), Some("/log/version"));
    let missing = r#"{"log": {"entries": []}}"#;
    assert_eq!(refused_text(missing, &[]).code, "unsupported_target");
}

#[test]
fn a_standard_field_of_the_wrong_type_names_its_pointer() {
    let text = har_with_entries(&[
        &entry("http://h/", "", ""),
        &entry("http://h/", "", "").replace("\"status\": 200", "\"status\": \"200\""),
    ]);
    let refusal = refused_text(&text, &[]);
    assert_input(&refusal, Some("/log/entries/1/response/status"));
    let headers = har_with_entries(&[&entry("http://h/", "", "").replace(
        "\"headers\": []",
        "\"headers\": [{\"name\": \"a\", \"value\": 1}]",
    )]);
    assert_input(
        &refused_text(&headers, &[]),
        Some("/log/entries/0/request/headers/0/value"),
    );
    let entries = r#"{"log": {"version": "1.2", "entries": {}}}"#;
    assert_input(&refused_text(entries, &[]), Some("/log/entries"));
}

// contract: CAPTURE-013
#[test]
fn an_unsafe_number_in_a_standard_field_fails_validation() {
    let text =
        har_with_entries(&[&entry("http://h/", "", "")
            .replace("\"time\": 12.5", "\"time\": 12.500000000000000000001")]);
    let refusal = refused_text(&text, &[]);
    assert_input(&refusal, Some("/log/entries/0/time"));
    let huge = har_with_entries(&[&entry("http://h/", "", "").replace(
        "\"redirectURL\": \"\", \"headersSize\": -1, \"bodySize\": -1",
        "\"redirectURL\": \"\", \"headersSize\": -1, \"bodySize\": 1e400",
    )]);
    assert_input(
        &refused_text(&huge, &[]),
        Some("/log/entries/0/response/bodySize"),
    );
}

// contract: CAPTURE-014
#[test]
fn undecodable_base64_is_refused() {
    let text = har_with_entries(&[&entry("http://h/", "", "").replace(
        r#""text": "{}"}"#,
        r#""text": "aGVsbG8=x", "encoding": "base64"}"#,
    )]);
    let refusal = refused_text(&text, &[]);
    assert_input(&refusal, Some("/log/entries/0/response/content/text"));
}

// contract: CAPTURE-003
#[test]
fn duplicate_or_out_of_range_record_ordinals_are_input_errors() {
    let capture = captures_dir().join("producers/flows--error_log.har");
    let duplicate = refused(&capture, &["--record", "1", "--record", "1"]);
    assert_input(&duplicate, Some("/parameters/records/1"));
    let out_of_range = refused(&capture, &["--record", "0", "--record", "2"]);
    assert_input(&out_of_range, Some("/parameters/records/1"));
    assert!(
        out_of_range.message.contains("2 records"),
        "{}",
        out_of_range.message
    );
}

// contract: CAPTURE-004
#[test]
fn selecting_a_record_does_not_hide_a_malformed_one_elsewhere() {
    let text = har_with_entries(&[
        &entry("http://h/", "", ""),
        &entry("http://h/", "", "").replace("\"method\": \"GET\"", "\"method\": 7"),
    ]);
    let refusal = refused_text(&text, &["--record", "0"]);
    assert_input(&refusal, Some("/log/entries/1/request/method"));
}

#[test]
fn an_empty_sensitive_value_is_refused() {
    let capture = captures_dir().join("producers/flows--error_log.har");
    assert_input(&refused(&capture, &["--sensitive-value", ""]), None);
}

#[test]
fn an_unknown_input_kind_is_unsupported() {
    let capture = captures_dir().join("producers/flows--error_log.har");
    let output = std::process::Command::new(rea_binary())
        .args([
            "inspect-web-network-capture",
            capture.to_str().unwrap(),
            "pcap",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let line = parse(&output.stderr);
    assert_eq!(
        line.get("code").and_then(Json::as_str),
        Some("unsupported_target")
    );
}

#[test]
fn with_format_text_the_refusal_is_one_text_line() {
    let dir = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(rea_binary())
        .args([
            "inspect-web-network-capture",
            dir.path().join("x.har").to_str().unwrap(),
            "har",
            "--format",
            "text",
        ])
        .output()
        .unwrap();
    // A missing file: exit 2 (a usage mistake).
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1);
    assert!(stderr.starts_with("rea: invalid_request: "), "{stderr}");
}

// contract: CAPTURE-021
#[test]
fn the_capture_file_is_never_changed() {
    let source = std::fs::read(captures_dir().join("producers/har_files--chrome.har")).unwrap();
    let (_dir, path) = temp_capture("chrome.har", &source);
    let before = std::fs::metadata(&path).unwrap();
    let output = std::process::Command::new(rea_binary())
        .args([
            "inspect-web-network-capture",
            path.to_str().unwrap(),
            "har",
            "--sensitive-value",
            "mitmproxy",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let after = std::fs::metadata(&path).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), source);
    assert_eq!(before.modified().unwrap(), after.modified().unwrap());
}

//! Golden capture Evidence for every recording in `shared/captures`, and byte-identical reruns.
//!
//! The goldens under `tests/golden/capture/` were produced by the code, reviewed, and are compared
//! byte for byte; `REA_BLESS=1 cargo test -p rea-tests --test it capture_golden` rewrites them. The
//! captures folder's absolute path is replaced by `<captures>` (and the Evidence re-sealed) so the
//! goldens do not depend on where the checkout lives; the real path is checked separately.

use crate::capture_support;

use std::path::PathBuf;

use capture_support::*;
use rea_evidence::Evidence;
use rea_json::Json;

// contract: CAPTURE-001, CAPTURE-011, CAPTURE-012, CAPTURE-014, CAPTURE-015, CAPTURE-022
#[test]
fn every_shared_capture_matches_its_golden_evidence() {
    let root = captures_dir();
    let mut problems = Vec::new();
    let mut expected_goldens = Vec::new();
    for relative in all_captures() {
        let path = root.join(&relative);
        let (golden, actual) = match inspect_all(&path) {
            Ok(evidence) => {
                check_real_evidence(&evidence, &path);
                (
                    golden_dir().join(relative.with_extension("json")),
                    normalized_evidence(&evidence),
                )
            }
            Err(refusal) => (
                golden_dir().join(relative.with_extension("refusal.json")),
                normalized_refusal(&refusal),
            ),
        };
        match check_golden(&golden, &actual) {
            Ok(file) => expected_goldens.push(file),
            Err(problem) => {
                expected_goldens.push(rea_tests::golden::golden_file(&golden, actual.len()));
                problems.push(problem);
            }
        }
    }
    // No stale golden without its capture.
    for folder in std::fs::read_dir(golden_dir()).expect("golden folder") {
        for file in std::fs::read_dir(folder.expect("entry").path()).expect("golden subfolder") {
            let file: PathBuf = file.expect("entry").path();
            if !expected_goldens.contains(&file) {
                problems.push(format!("{} has no capture any more", file.display()));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// What normalization hides: the real Evidence authenticates and names the real absolute path.
fn check_real_evidence(evidence: &Evidence, path: &std::path::Path) {
    let written = evidence.to_canonical_vec();
    let back = Evidence::authenticate(&written).expect("the Evidence authenticates");
    assert_eq!(back.id(), evidence.id());
    let path = path.display().to_string();
    let parameters = evidence.get("parameters").expect("parameters");
    assert_eq!(
        parameters.get("capture_path").and_then(Json::as_str),
        Some(path.as_str())
    );
    let subject = evidence.get("subject").expect("subject");
    assert_eq!(
        subject.get("local_path").and_then(Json::as_str),
        Some(path.as_str())
    );
    assert!(std::path::Path::new(&path).is_absolute());
}

// contract: CAPTURE-022
#[test]
fn two_runs_of_the_binary_give_byte_identical_evidence() {
    let root = captures_dir();
    for relative in [
        "kinto/build.har",
        "producers/har_files--safari.har",
        "producers/flows--websocket.har",
    ] {
        let run = || {
            let output = std::process::Command::new(rea_binary())
                .args(["inspect-web-network-capture", relative, "har"])
                .current_dir(&root)
                .output()
                .expect("run rea");
            assert_eq!(
                output.status.code(),
                Some(0),
                "{}",
                String::from_utf8_lossy(&output.stderr)
            );
            assert!(output.stderr.is_empty());
            output.stdout
        };
        let first = run();
        let second = run();
        assert_eq!(first, second, "{relative}: two runs differ");
        // Canonical compact JSON and one newline, carrying an id that matches it.
        let (body, newline) = first.split_at(first.len() - 1);
        assert_eq!(newline, b"\n");
        assert_eq!(
            parse(body).to_canonical_vec(),
            body,
            "{relative}: not canonical"
        );
        let evidence = Evidence::authenticate(body).expect("authenticates");
        // The relative argument is recorded as the absolute path.
        let expected = root.join(relative).display().to_string();
        assert_eq!(
            evidence
                .get("artifact")
                .and_then(|a| a.get("path"))
                .and_then(Json::as_str),
            Some(expected.as_str())
        );
        // In-process inspection of the same file gives the same bytes.
        let in_process = inspect_all(&root.join(relative)).expect("inspect");
        assert_eq!(in_process.to_canonical_vec(), body);
    }
}

/// The command keeps the extractor's canonical record text instead of re-serializing it; the
/// bytes must be those of the Evidence built from the parsed answer, on every capture, with a
/// selection and with declarations too.
#[test]
fn the_command_path_writes_exactly_the_parsed_paths_bytes() {
    use rea::commands::inspect_capture::{InspectRequest, inspect_output_with_builtins};
    use rea_evidence::capture::{CaptureOutput, capture_records};
    let root = captures_dir();
    for relative in all_captures() {
        let path = root.join(&relative);
        let sensitive = ["mitmproxy".to_owned()];
        for (selection, sensitive) in [(None, &[][..]), (Some(&[0u64][..]), &sensitive[..])] {
            let request = InspectRequest {
                capture: &path,
                input_kind: "har",
                selection,
                sensitive_values: sensitive,
            };
            let parsed = inspect(&path, selection, sensitive);
            let output = inspect_output_with_builtins(&request);
            match (parsed, output) {
                (Ok(parsed), Ok(output)) => {
                    assert!(
                        matches!(output, CaptureOutput::Raw(_)),
                        "{}: the built-in answers canonical JSON",
                        relative.display()
                    );
                    assert_eq!(output.id(), parsed.id(), "{}", relative.display());
                    let bytes = output.to_canonical_vec();
                    assert!(
                        bytes == parsed.to_canonical_vec(),
                        "{}: bytes differ",
                        relative.display()
                    );
                    // The typed records read back from either.
                    let evidence =
                        rea_evidence::Evidence::authenticate(&bytes).expect("authenticates");
                    let records = capture_records(&parsed).unwrap();
                    assert_eq!(capture_records(&evidence).unwrap(), records);
                    // What environment-build keeps instead of the document: the records typed
                    // from the kept text, and the Evidence without them (its id and every other
                    // member).
                    let CaptureOutput::Raw(sealed) = output else {
                        unreachable!("checked above")
                    };
                    let (typed, given_back) = sealed.typed_records_checked().unwrap();
                    assert_eq!(typed, records, "{}", relative.display());
                    // Every record serializes back to its text, so environment-build writes
                    // evidence.json again from the typed records, never holding its bytes: the
                    // same bytes, with the length and SHA-256 it checks them against.
                    assert!(given_back, "{}", relative.display());
                    let digest = sealed.written_digest().unwrap();
                    let mut file = bytes.clone();
                    file.push(b'\n');
                    assert_eq!(digest.bytes, file.len() as u64);
                    assert_eq!(digest.sha256, rea_evidence::sha256_hex(&file));
                    let header = sealed.into_header();
                    let rewrite = rea_evidence::rewrite::CaptureRewrite::new(
                        header.clone(),
                        std::sync::Arc::new(typed),
                        digest,
                    );
                    let mut written = Vec::new();
                    rewrite.write_to(&mut written).unwrap();
                    assert!(
                        written == file,
                        "{}: rewritten bytes differ",
                        relative.display()
                    );
                    let mut body = parsed.body().clone();
                    body.remove("records");
                    assert_eq!(header.id(), parsed.id());
                    assert_eq!(header.operation(), parsed.operation());
                    assert!(header.body() == &body, "{}", relative.display());
                }
                (Err(a), Err(b)) => assert_eq!(a, b, "{}", relative.display()),
                (a, b) => panic!("{}: paths disagree: {a:?} / {b:?}", relative.display()),
            }
        }
    }
}

/// An extractor whose answer is not canonical JSON (another plugin, another serializer) gets the
/// same Evidence through the parsed path.
#[test]
fn a_non_canonical_answer_gives_the_same_evidence() {
    use rea_evidence::capture::{
        CaptureInputs, CaptureOrigin, CaptureOutput, ExtractorRef, seal_capture_answer,
    };
    use rea_plugin_api::contracts::capture::ExtractRequest;
    let bytes = std::fs::read(captures_dir().join("producers/har_files--chrome.har")).unwrap();
    let request = ExtractRequest {
        input_kind: "har".to_owned(),
        sensitive_values: Vec::new(),
        schema_version: rea_plugin_api::contracts::SCHEMA_VERSION,
    };
    let extraction = rea_plugin_har::extract(&request, &bytes).unwrap();
    let extractor = ExtractorRef {
        plugin: "har".to_owned(),
        stage: "har".to_owned(),
        version: "test".to_owned(),
    };
    let path = std::path::PathBuf::from("/captures/chrome.har");
    let inputs = CaptureInputs {
        path: &path,
        bytes: bytes.len() as u64,
        sha256: "00",
        input_kind: "har",
        extractor: &extractor,
        selection: Some(&[2, 0]),
        sensitive_values: &[],
        origin: CaptureOrigin::File,
    };
    let compact =
        seal_capture_answer(&inputs, serde_json::to_string(&extraction).unwrap()).unwrap();
    let pretty =
        seal_capture_answer(&inputs, serde_json::to_string_pretty(&extraction).unwrap()).unwrap();
    assert!(matches!(compact, CaptureOutput::Raw(_)));
    assert!(matches!(pretty, CaptureOutput::Sealed(_)));
    assert_eq!(compact.id(), pretty.id());
    assert!(compact.to_canonical_vec() == pretty.to_canonical_vec());
}

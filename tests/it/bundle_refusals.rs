//! Refusals of `rea environment-build` and `rea environment-export`: each is structured, names its
//! stage, and leaves the file system exactly as it was (no directory created, nothing in an
//! existing one changed).

use crate::bundle_support;
use crate::serve_support;

use std::path::Path;

use bundle_support::*;
use serde_json::{Value, json};
use serve_support::process::Server;
use serve_support::synthetic::wide_har;

// contract: BUILD-031, BUILD-032, EXPORT-019, EXPORT-020
#[test]
fn an_occupied_directory_is_refused_and_left_as_it_was() {
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path();
    let binary = stand_in_binary(work).display().to_string();
    std::fs::create_dir(work.join("occupied")).unwrap();
    std::fs::write(work.join("occupied/notes.txt"), b"mine").unwrap();
    let capture = har("tiddlywiki");
    let har = capture.display().to_string();

    let refusal = refused_unchanged(
        work,
        &[
            "environment-build",
            &har,
            "occupied",
            "--binary",
            &binary,
            "--json",
        ],
    );
    assert_eq!(refusal["code"], "invalid_request");
    assert_eq!(refusal["stage"], "environment-build");
    assert!(
        refusal["message"].as_str().unwrap().contains("not empty"),
        "{refusal}"
    );

    inspect_into(work, &capture, "capture.json");
    project_into(work, "capture.json", &DEFAULT_RULES, "manifest.json");
    let refusal = refused_unchanged(
        work,
        &[
            "environment-export",
            "manifest.json",
            "--evidence",
            "capture.json",
            "occupied",
            "--binary",
            &binary,
            "--json",
        ],
    );
    assert_eq!(refusal["code"], "invalid_request");
    assert_eq!(refusal["stage"], "environment-export");

    // A file, or a directory whose parent is missing.
    std::fs::write(work.join("a-file"), b"x").unwrap();
    for target in ["a-file", "missing/bundle"] {
        let refusal = refused_unchanged(
            work,
            &[
                "environment-build",
                &har,
                target,
                "--binary",
                &binary,
                "--json",
            ],
        );
        assert_eq!(refusal["code"], "invalid_request", "{target}");
    }
}

#[test]
fn names_that_are_no_portable_label_are_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path();
    let binary = stand_in_binary(work).display().to_string();
    let har_path = har("json-server");
    let har = har_path.display().to_string();
    let long = "a".repeat(64);
    for name in [
        "Bad_Name",
        "con",
        "com1",
        "1234",
        "0x1f",
        long.as_str(),
        "gateway",
        "a--b",
    ] {
        let refusal = refused_unchanged(
            work,
            &[
                "environment-build",
                &har,
                "bundle",
                "--name",
                name,
                "--binary",
                &binary,
                "--json",
            ],
        );
        // contract: EXPORT-029, EXPORT-030, EXPORT-031
        assert_eq!(refusal["code"], "invalid_request", "{name}");
        // contract: BUILD-035
        assert_eq!(refusal["stage"], "environment-build", "{name}");
        assert_eq!(refusal["pointer"], "/name", "{name}");
        assert!(!work.join("bundle").exists());
    }
    inspect_into(work, &har_path, "capture.json");
    project_into(work, "capture.json", &DEFAULT_RULES, "manifest.json");
    let refusal = refused_unchanged(
        work,
        &[
            "environment-export",
            "manifest.json",
            "--evidence",
            "capture.json",
            "bundle",
            "--name",
            "CON",
            "--binary",
            &binary,
            "--json",
        ],
    );
    assert_eq!(refusal["stage"], "environment-export");

    // A loopback capture whose file name is no portable label: pass --name (not kebab-case,
    // longer than 63 characters, a device name, an IP address label).
    let long_file = format!("{}.har", "a".repeat(64));
    for (file, id) in [
        ("My Capture.har", "BUILD-022"),
        (long_file.as_str(), "BUILD-023"),
        ("lpt1.har", "BUILD-024"),
        ("192.har", "BUILD-025"),
    ] {
        std::fs::copy(&har_path, work.join(file)).unwrap();
        let refusal = refused_unchanged(
            work,
            &[
                "environment-build",
                file,
                "bundle",
                "--binary",
                &binary,
                "--json",
            ],
        );
        assert_eq!(refusal["code"], "invalid_request", "{file}");
        // contract: BUILD-022, BUILD-023, BUILD-024, BUILD-025
        assert!(
            refusal["message"].as_str().unwrap().contains("pass --name"),
            "{id} {refusal}"
        );
    }
}

// contract: BUILD-010, BUILD-011, BUILD-032, BUILD-036
#[test]
fn a_har_saved_as_json_and_other_formats_are_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path();
    let binary = stand_in_binary(work).display().to_string();
    std::fs::copy(har("kinto"), work.join("session.json")).unwrap();
    let refusal = refused_unchanged(
        work,
        &[
            "environment-build",
            "session.json",
            "bundle",
            "--binary",
            &binary,
            "--json",
        ],
    );
    assert_eq!(refusal["code"], "unsupported_target");
    assert_eq!(refusal["stage"], "environment-build");
    let message = refusal["message"].as_str().unwrap();
    assert!(
        message.contains("HAR") && message.contains("session.har"),
        "{message}"
    );

    std::fs::copy(har("kinto"), work.join("session.txt")).unwrap();
    let refusal = refused_unchanged(
        work,
        &[
            "environment-build",
            "session.txt",
            "bundle",
            "--binary",
            &binary,
            "--json",
        ],
    );
    assert_eq!(refusal["code"], "unsupported_target");

    // JSON that is neither: refused by the view that reads capture Evidence.
    std::fs::write(work.join("other.json"), b"{\"x\": 1}").unwrap();
    let refusal = refused_unchanged(
        work,
        &[
            "environment-build",
            "other.json",
            "bundle",
            "--binary",
            &binary,
            "--json",
        ],
    );
    assert_eq!(refusal["code"], "invalid_request");
    assert_eq!(refusal["stage"], "inspect_analysis_view");

    // A HAR that does not parse: refused by inspection.
    std::fs::write(work.join("broken.har"), b"{\"log\": ").unwrap();
    let refusal = refused_unchanged(
        work,
        &[
            "environment-build",
            "broken.har",
            "bundle",
            "--binary",
            &binary,
            "--json",
        ],
    );
    assert_eq!(refusal["stage"], "inspect_web_network_capture");
}

// contract: EXPORT-016, EXPORT-017, BUILD-032
#[test]
fn a_manifest_of_another_capture_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path();
    let binary = stand_in_binary(work).display().to_string();
    inspect_into(work, &har("json-server"), "json-server.json");
    let kinto = inspect_into(work, &har("kinto"), "kinto.json");
    project_into(work, "json-server.json", &DEFAULT_RULES, "manifest.json");
    let refusal = refused_unchanged(
        work,
        &[
            "environment-export",
            "manifest.json",
            "--evidence",
            "kinto.json",
            "bundle",
            "--binary",
            &binary,
            "--json",
        ],
    );
    assert_eq!(refusal["code"], "invalid_request");
    assert_eq!(refusal["stage"], "environment-export");
    let kinto_id = rea_evidence::Evidence::authenticate(&std::fs::read(kinto).unwrap())
        .unwrap()
        .id()
        .to_owned();
    assert!(
        refusal["message"].as_str().unwrap().contains(&kinto_id),
        "{refusal}"
    );
    assert!(!work.join("bundle").exists());

    // Evidence changed after sealing is not authenticated.
    let text = std::fs::read_to_string(work.join("json-server.json")).unwrap();
    std::fs::write(
        work.join("changed.json"),
        text.replacen("\"GET\"", "\"PUT\"", 1),
    )
    .unwrap();
    let refusal = refused_unchanged(
        work,
        &[
            "environment-export",
            "manifest.json",
            "--evidence",
            "changed.json",
            "bundle",
            "--binary",
            &binary,
            "--json",
        ],
    );
    assert_eq!(refusal["code"], "invalid_request");
    assert_eq!(refusal["pointer"], "/evidence_id");
}

#[test]
fn the_directory_may_be_omitted_only_for_a_dry_run() {
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path();
    let har = har("tiddlywiki").display().to_string();
    let before = snapshot(work);
    let run = run(work, &["environment-build", &har, "--json"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(run.stdout.is_empty());
    assert!(snapshot(work) == before);
}

#[test]
fn an_invalid_pipeline_is_a_configuration_error_before_anything_is_written() {
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path();
    std::fs::write(
        work.join("bad.toml"),
        "[capture.extractors]\nhar = \"no-such-stage\"\n",
    )
    .unwrap();
    let har = har("tiddlywiki").display().to_string();
    let before = snapshot(work);
    let run = run(
        work,
        &[
            "environment-build",
            &har,
            "bundle",
            "--pipeline",
            "bad.toml",
            "--json",
        ],
    );
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(run.stdout.is_empty());
    let refusal: Value = serde_json::from_str(run.stderr.lines().last().unwrap()).unwrap();
    assert_eq!(refusal["code"], "configuration_invalid");
    assert!(
        refusal["message"]
            .as_str()
            .unwrap()
            .contains("no-such-stage"),
        "{refusal}"
    );
    assert!(snapshot(work) == before);
}

/// Runs a command with extra environment variables that must be refused and must change nothing
/// under `work`; returns the refusal and the stderr lines.
fn refused_unchanged_with(work: &Path, args: &[&str], env: &[(&str, &str)]) -> (Value, String) {
    let before = snapshot(work);
    let mut command = std::process::Command::new(rea());
    command.args(args).current_dir(work);
    for (name, value) in env {
        command.env(name, value);
    }
    let output = command.output().expect("run rea");
    let run = rea_tests::Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    let refusal = refusal(&run);
    assert!(
        snapshot(work) == before,
        "the refusal changed the file system: {refusal}"
    );
    (refusal, run.stderr)
}

// contract: BUILD-033, BUILD-034, EXPORT-014, EXPORT-015
#[test]
fn inputs_that_do_not_fit_the_heap_headroom_are_refused_before_they_are_read() {
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path();
    let binary = stand_in_binary(work).display().to_string();
    let har_path = har("kinto");
    let har = har_path.display().to_string();
    inspect_into(work, &har_path, "capture.json");
    project_into(work, "capture.json", &DEFAULT_RULES, "manifest.json");
    let tiny = [("REA_TEST_HEAP_HEADROOM", "1000")];
    let export = [
        "environment-export",
        "manifest.json",
        "--evidence",
        "capture.json",
        "bundle",
        "--binary",
        &binary,
        "--json",
    ];

    // The export: the manifest file, then the capture file, before either is read.
    let (refusal, _) = refused_unchanged_with(work, &export, &tiny);
    assert_eq!(refusal["code"], "resource_constraint", "{refusal}");
    assert_eq!(refusal["stage"], "environment-export");
    assert!(
        refusal["message"]
            .as_str()
            .unwrap()
            .contains("manifest.json"),
        "{refusal}"
    );
    assert_eq!(refusal["data"]["headroom_bytes"], 1000);
    let manifest_bytes = std::fs::metadata(work.join("manifest.json")).unwrap().len();
    let capture_bytes = std::fs::metadata(work.join("capture.json")).unwrap().len();
    let between = (manifest_bytes * 8).to_string();
    let (refusal, _) =
        refused_unchanged_with(work, &export, &[("REA_TEST_HEAP_HEADROOM", &between)]);
    assert!(capture_bytes > manifest_bytes);
    assert_eq!(refusal["code"], "resource_constraint");
    assert!(
        refusal["message"]
            .as_str()
            .unwrap()
            .contains("capture.json"),
        "{refusal}"
    );

    // The build: a capture Evidence file, a HAR.
    let (refusal, _) = refused_unchanged_with(
        work,
        &[
            "environment-build",
            "capture.json",
            "bundle",
            "--binary",
            &binary,
            "--json",
        ],
        &tiny,
    );
    assert_eq!(refusal["code"], "resource_constraint");
    assert_eq!(refusal["stage"], "environment-build");
    let (refusal, _) = refused_unchanged_with(
        work,
        &[
            "environment-build",
            &har,
            "bundle",
            "--binary",
            &binary,
            "--json",
        ],
        &tiny,
    );
    assert_eq!(refusal["code"], "resource_constraint");
    assert_eq!(refusal["stage"], "inspect_web_network_capture");

    // An inspected HAR whose Evidence is larger than the HAR: the HAR fits, its Evidence does
    // not, and is refused before it is serialized.
    let entries: Vec<Value> = (0..200)
        .map(|n| {
            json!({
                "startedDateTime": "2026-01-01T00:00:00.000Z", "time": 1,
                "request": {"method": "GET", "url": format!("https://api.example.com/r{n}"),
                            "httpVersion": "HTTP/1.1", "headers": [], "cookies": [],
                            "queryString": [], "headersSize": -1, "bodySize": 0},
                "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                             "headers": [], "cookies": [],
                             "content": {"size": 2, "mimeType": "application/json", "text": "{}"},
                             "redirectURL": "", "headersSize": -1, "bodySize": 2},
                "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}
            })
        })
        .collect();
    let tiny_har = json!({"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": entries}});
    std::fs::write(work.join("tiny.har"), tiny_har.to_string()).unwrap();
    let inspected = inspect_into(work, &work.join("tiny.har"), "tiny.capture.json");
    let har_bytes = std::fs::metadata(work.join("tiny.har")).unwrap().len();
    let evidence_bytes = std::fs::metadata(&inspected).unwrap().len() - 1;
    assert!(
        evidence_bytes > har_bytes,
        "{evidence_bytes} <= {har_bytes}"
    );
    let headroom = (har_bytes * 8).to_string();
    let (refusal, _) = refused_unchanged_with(
        work,
        &[
            "environment-build",
            "tiny.har",
            "tiny",
            "--binary",
            &binary,
            "--json",
        ],
        &[("REA_TEST_HEAP_HEADROOM", &headroom)],
    );
    assert_eq!(refusal["code"], "resource_constraint");
    assert_eq!(refusal["stage"], "environment-build");
    assert!(
        refusal["message"]
            .as_str()
            .unwrap()
            .contains("the capture Evidence"),
        "{refusal}"
    );
    assert_eq!(refusal["data"]["bytes"], evidence_bytes);
}

/// Starts a command held at `stage` (`REA_TEST_HOLD`), sends SIGINT inside the stage; returns
/// the exit code and the refusal.
fn interrupted_in(work: &Path, args: &[&str], stage: &str) -> (Option<i32>, Value) {
    let mut command = std::process::Command::new(rea());
    command.args(args);
    let mut process = Server::spawn_in(command, work, &[("REA_TEST_HOLD", stage)]);
    process.wait_for_line(|line| line["msg"] == "test hold" && line["stage"] == stage);
    process.signal("INT");
    let (code, stdout, stderr) = process.finish();
    assert!(stdout.is_empty(), "{stdout}");
    let refusal = stderr
        .iter()
        .rev()
        .find(|line| line.contains("\"code\""))
        .unwrap_or_else(|| panic!("no refusal: {stderr:?}"));
    (code, serde_json::from_str(refusal).unwrap())
}

// contract: BUILD-039, BUILD-040, BUILD-041, BUILD-038
#[test]
fn sigint_before_the_bundle_stage_writes_nothing_and_during_the_write_names_the_bundle() {
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path();
    let binary = stand_in_binary(work).display().to_string();
    let har = har("tiddlywiki").display().to_string();
    let args = [
        "environment-build",
        har.as_str(),
        "bundle",
        "--name",
        "wiki",
        "--binary",
        binary.as_str(),
        "--json",
    ];
    // Before the bundle stage: inspection, projection, the state's preparation.
    for stage in ["inspect", "manifest", "state"] {
        let before = snapshot(work);
        let (code, refusal) = interrupted_in(work, &args, stage);
        assert_eq!(code, Some(130), "{stage}: {refusal}");
        assert_eq!(refusal["code"], "cancelled", "{stage}");
        assert!(snapshot(work) == before, "{stage}: something was written");
        assert!(!work.join("bundle").exists());
    }
    // During the write: the refusal names the bundle stage and the folder; nothing is left (a
    // bundle appears whole or not at all, see CONTRACT-NOTES.md on EXPORT-042).
    let before = snapshot(work);
    let (code, refusal) = interrupted_in(work, &args, "write");
    assert_eq!(code, Some(130), "{refusal}");
    assert_eq!(refusal["code"], "cancelled");
    assert_eq!(refusal["stage"], "environment-export");
    let bundle = std::path::absolute(work.join("bundle")).unwrap();
    assert_eq!(refusal["data"]["directory"], bundle.display().to_string());
    assert_eq!(refusal["data"]["written"], json!([]));
    assert_eq!(refusal["data"]["signal"], "SIGINT");
    assert!(!bundle.exists(), "no partial bundle is left");
    assert!(snapshot(work) == before, "no staging folder is left");
}

// contract: EXPORT-021
#[test]
fn the_name_is_checked_before_the_state_is_prepared() {
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path();
    let binary = stand_in_binary(work).display().to_string();
    // A loopback capture whose file name is no portable label: the name is refused in the
    // export's plan, before the state stage starts.
    std::fs::copy(har("json-server"), work.join("My Capture.har")).unwrap();
    let (refusal, stderr) = refused_unchanged_with(
        work,
        &[
            "environment-build",
            "My Capture.har",
            "bundle",
            "--binary",
            &binary,
            "--json",
        ],
        &[],
    );
    assert_eq!(refusal["pointer"], "/name", "{refusal}");
    assert!(
        stderr.contains("\"stage\":\"manifest\""),
        "the projection ran: {stderr}"
    );
    assert!(
        !stderr.contains("\"stage\":\"state\""),
        "the state was prepared before the name was checked: {stderr}"
    );
}

// contract: EXPORT-025
#[test]
fn a_catalog_over_the_discovery_budget_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path();
    let binary = stand_in_binary(work).display().to_string();
    std::fs::write(
        work.join("wide.har"),
        wide_har(200, "https://api.example.com"),
    )
    .unwrap();
    let (refusal, _) = refused_unchanged_with(
        work,
        &[
            "environment-build",
            "wide.har",
            "bundle",
            "--format-rules-only",
            "--binary",
            &binary,
            "--json",
        ],
        &[],
    );
    assert_eq!(refusal["code"], "resource_constraint", "{refusal}");
    assert_eq!(refusal["stage"], "environment-export");
    assert!(!work.join("bundle").exists());
}

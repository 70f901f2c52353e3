//! Refusals of `rea environment-build` and `rea environment-export`: each is structured, names its
//! stage, and leaves the file system exactly as it was (no directory created, nothing in an
//! existing one changed).

mod bundle_support;

use std::path::Path;

use bundle_support::*;
use serde_json::Value;

/// Runs a command that must be refused and must change nothing under `work`; returns the refusal.
fn refused_unchanged(work: &Path, args: &[&str]) -> Value {
    let before = snapshot(work);
    let run = run(work, args);
    let refusal = refusal(&run);
    assert!(
        snapshot(work) == before,
        "the refusal changed the file system: {refusal}"
    );
    refusal
}

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

// contract: BUILD-022, BUILD-023, BUILD-024, BUILD-025, BUILD-035, EXPORT-029, EXPORT-030, EXPORT-031
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
        assert_eq!(refusal["code"], "invalid_request", "{name}");
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

    // A loopback capture whose file name is no portable label: pass --name.
    for file in ["My Capture.har", "lpt1.har", "192.har"] {
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
        assert!(
            refusal["message"].as_str().unwrap().contains("pass --name"),
            "{refusal}"
        );
    }
}

// contract: BUILD-010, BUILD-011, BUILD-032
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

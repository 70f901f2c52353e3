//! `rea environment-compare` refusals: each one clear line on stderr, exit 1 (2 for usage and
//! configuration), nothing on stdout.

use serde_json::{Value, json};

use crate::compare_support::{
    app_dir, compare, edited_har_into, inspect_into, refusal_of, shared_har,
};

#[test]
fn a_probe_of_another_application_is_refused() {
    let dir = app_dir("json-server");
    // Kinto's probe, as if recorded on json-server's origin: no request fits a tool.
    edited_har_into(
        dir.path(),
        &shared_har("kinto", "probe-reads"),
        "other-app",
        |entries| {
            for entry in entries.iter_mut() {
                let url = entry["request"]["url"].as_str().unwrap().to_owned();
                entry["request"]["url"] = json!(url.replace("127.0.0.1:18801", "127.0.0.1:3000"));
            }
        },
    );
    let refusal = refusal_of(&compare(
        dir.path(),
        &["--probe", "other-app.json", "--json"],
    ));
    assert_eq!(refusal["code"], "invalid_request");
    assert!(
        refusal["message"]
            .as_str()
            .unwrap()
            .contains("matches no tool of environment 127-0-0-1-3000"),
        "{refusal}"
    );
}

#[test]
fn a_probe_recorded_against_another_origin_is_refused() {
    let dir = app_dir("json-server");
    inspect_into(
        dir.path(),
        &shared_har("kinto", "probe-reads"),
        "kinto-reads",
    );
    let run = compare(
        dir.path(),
        &["--probe", "probe-reads.json", "--probe", "kinto-reads.json"],
    );
    assert_eq!(run.code, Some(1));
    assert!(run.stdout.is_empty());
    assert_eq!(
        run.stderr.trim_end(),
        format!(
            "rea: invalid_request: probe {} was recorded against http://127.0.0.1:18801, but the environment's application is http://127.0.0.1:3000; hint: `rea environment-compare --help` says what each argument takes",
            probe_id(dir.path(), "kinto-reads.json")
        )
    );
}

fn probe_id(dir: &std::path::Path, name: &str) -> String {
    let text = std::fs::read_to_string(dir.join(name)).expect("probe");
    let value: Value = serde_json::from_str(&text).expect("JSON");
    value["evidence_id"].as_str().expect("id").to_owned()
}

#[test]
fn an_empty_probe_is_refused() {
    let dir = app_dir("json-server");
    edited_har_into(
        dir.path(),
        &shared_har("json-server", "probe-reads"),
        "empty",
        Vec::clear,
    );
    let refusal = refusal_of(&compare(dir.path(), &["--probe", "empty.json", "--json"]));
    assert_eq!(refusal["code"], "invalid_request");
    assert!(
        refusal["message"]
            .as_str()
            .unwrap()
            .ends_with("holds no records: record the calls to compare"),
        "{refusal}"
    );
    assert_eq!(refusal["stage"], "environment-compare");
}

// Browser probes are refused on real scenario captures (`browser_compare.rs`).

#[test]
fn a_manifest_and_capture_that_do_not_authenticate_are_refused() {
    let dir = app_dir("json-server");
    inspect_into(dir.path(), &shared_har("kinto", "build"), "kinto-build");
    let run = rea_tests::run_rea(
        &crate::compare_support::rea(),
        dir.path(),
        &[
            "environment-compare",
            "manifest.json",
            "--evidence",
            "kinto-build.json",
            "--probe",
            "probe-reads.json",
            "--json",
        ],
    );
    let refusal = refusal_of(&run);
    assert_eq!(refusal["code"], "invalid_request");
    assert!(
        refusal["message"].as_str().unwrap().contains("ev_"),
        "{refusal}"
    );
    // A tampered probe does not authenticate either.
    let text = std::fs::read_to_string(dir.path().join("probe-reads.json")).unwrap();
    std::fs::write(
        dir.path().join("tampered.json"),
        text.replacen("dana", "dina", 1),
    )
    .unwrap();
    let refusal = refusal_of(&compare(
        dir.path(),
        &["--probe", "tampered.json", "--json"],
    ));
    assert_eq!(refusal["data"]["path"], "tampered.json");
}

#[test]
fn the_help_states_how_probes_are_recorded() {
    let dir = tempfile::tempdir().expect("temp dir");
    let run = rea_tests::run_rea(
        &crate::compare_support::rea(),
        dir.path(),
        &["environment-compare", "--help"],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let help = run.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    // COMPARE-004 itself is a precondition on the recording (a deviation in
    // host/crates/compare/CONTRACT-NOTES.md); the help states it.
    assert!(
        help.contains("recorded on the live application, seeded as it was for the capture and reset before the sequence"),
        "{help}"
    );
}

#[test]
fn the_guidance_states_what_agreement_does_not_show() {
    let dir = tempfile::tempdir().expect("temp dir");
    let run = rea_tests::run_rea(
        &crate::compare_support::rea(),
        dir.path(),
        &["guidance", "--query", "equal answer write effect"],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let found: Value = serde_json::from_str(&run.stdout).expect("JSON");
    let excerpt = found["matches"][0]["excerpt"].as_str().expect("a match");
    let text = excerpt.split_whitespace().collect::<Vec<_>>().join(" ");
    // contract: COMPARE-107
    assert!(text.contains("Clocks compared by format and fields normalized under generation rules can still differ in content"), "{text}");
    // contract: COMPARE-108
    assert!(text.contains("an equal answer after a write shows the state matched for that read, not that the write had no other effect"), "{text}");
}

#[test]
fn usage_and_configuration_errors_exit_2() {
    let dir = app_dir("json-server");
    let run = compare(dir.path(), &[]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("--probe"), "{}", run.stderr);
    std::fs::write(
        dir.path().join("broken.toml"),
        "[[rules]]\nstage = \"no-such-stage\"\n",
    )
    .unwrap();
    let run = compare(
        dir.path(),
        &["--probe", "probe-reads.json", "--pipeline", "broken.toml"],
    );
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(run.stdout.is_empty());
    assert!(
        run.stderr.starts_with("rea: configuration_invalid:"),
        "{}",
        run.stderr
    );
}

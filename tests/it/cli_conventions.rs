//! One command-line convention for every command (issue 14): `--json` everywhere (`--format`
//! kept where it was), refusals as text lines `rea: CODE: MESSAGE (at POINTER); hint: …` or, with
//! `--json`, JSON lines; no `(at )` with an empty pointer; exit 2 for every usage or
//! configuration mistake (a file without a kind included) and 1 for other refusals; the input kind from the file extension.

use std::path::PathBuf;

use rea_tests::{Run, run_rea};
use serde_json::Value;

fn rea() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rea-under-test"))
}

/// How a case's refusals are written.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Errors {
    /// Text lines, each ending in a hint.
    Text,
    /// JSON lines (the refusal's members).
    Json,
    /// clap's usage message (`error: …`).
    Usage,
    /// Nothing refused.
    None,
}

/// Every stderr line that is a refusal (the JSON progress log lines left out).
fn refusal_lines(run: &Run) -> Vec<&str> {
    run.stderr
        .lines()
        .filter(|line| !line.starts_with("{\"level\""))
        .filter(|line| !line.trim().is_empty())
        .collect()
}

fn check_errors(case: &str, run: &Run, errors: Errors) {
    let lines = refusal_lines(run);
    match errors {
        Errors::None => assert!(lines.is_empty(), "{case}: {}", run.stderr),
        Errors::Usage => assert!(run.stderr.starts_with("error: "), "{case}: {}", run.stderr),
        Errors::Text => {
            assert!(!lines.is_empty(), "{case}: no refusal");
            for line in lines {
                assert!(line.starts_with("rea: "), "{case}: {line}");
                assert!(line.contains("; hint: "), "{case}: no hint in {line}");
                assert!(!line.contains("(at )"), "{case}: {line}");
                let hint = line.rsplit("; hint: ").next().unwrap_or_default();
                assert!(hint.len() > 10, "{case}: an empty hint in {line}");
            }
        }
        Errors::Json => {
            assert!(!lines.is_empty(), "{case}: no refusal");
            for line in lines {
                let refusal: Value = serde_json::from_str(line)
                    .unwrap_or_else(|error| panic!("{case}: not JSON ({error}): {line}"));
                assert!(refusal["code"].is_string(), "{case}: {line}");
                assert!(refusal["message"].is_string(), "{case}: {line}");
            }
        }
    }
}

#[test]
fn every_command_refuses_in_one_format_with_a_hint_and_the_usage_exit_code() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path();
    let har = rea_tests::shared_dir().join("captures/json-server/build.har");
    let har = har.display().to_string();
    std::fs::write(dir.join("notes.txt"), "not a capture").unwrap();
    std::fs::write(dir.join("broken.toml"), "[[stage]\n").unwrap();
    let not_empty = dir.join("full");
    std::fs::create_dir(&not_empty).unwrap();
    std::fs::write(not_empty.join("x"), "x").unwrap();
    let not_empty = not_empty.display().to_string();
    #[rustfmt::skip]
    let cases: Vec<(Vec<&str>, i32, Errors)> = vec![
        // Input kind from the extension; a file without one is a usage mistake.
        (vec!["inspect-web-network-capture", &har], 0, Errors::None),
        (vec!["inspect-web-network-capture", &har, "--json"], 0, Errors::None),
        (vec!["inspect-web-network-capture", &har, "har", "--format", "json"], 0, Errors::None),
        (vec!["inspect-web-network-capture", "notes.txt"], 2, Errors::Text),
        (vec!["inspect-web-network-capture", "notes.txt", "--json"], 2, Errors::Json),
        (vec!["inspect-web-network-capture", &har, "xml"], 1, Errors::Text),
        // A named input file that does not exist is a usage mistake (exit 2), for every
        // command and every file argument.
        (vec!["inspect-web-network-capture", "missing.har"], 2, Errors::Text),
        (vec!["inspect-web-network-capture", "missing.har", "--json"], 2, Errors::Json),
        (vec!["inspect-web-network-capture", &har, "--json", "--format", "text"], 2, Errors::Usage),
        (vec!["inspect-analysis-view", "missing.json"], 2, Errors::Text),
        (vec!["inspect-analysis-view", "missing.json", "--json"], 2, Errors::Json),
        (vec!["serve", "notes.txt"], 2, Errors::Text),
        (vec!["serve", "missing.har"], 2, Errors::Text),
        (vec!["serve", "missing.har", "--json"], 2, Errors::Json),
        (vec!["serve", &har, "--pipeline", "missing.toml"], 2, Errors::Text),
        (vec!["serve", &har, "--port", "99999"], 2, Errors::Usage),
        // The long form's stderr is the server's JSON log (SERVE-*): its refusals are JSON lines.
        (vec!["environment-serve", "missing.json", "--evidence", "missing.json"], 2, Errors::Json),
        (vec!["environment-serve", "missing.json", "--evidence", "missing.json", "--pipeline", "missing.toml"], 2, Errors::Json),
        (vec!["environment-build", "missing.har", "out"], 2, Errors::Text),
        (vec!["environment-build", "missing.har", "out", "--json"], 2, Errors::Json),
        (vec!["environment-build", &har, "out", "--pipeline", "missing.toml"], 2, Errors::Text),
        (vec!["environment-build", &har, "out", "--binary", "missing.bin"], 2, Errors::Text),
        (vec!["environment-build", &har, &not_empty], 1, Errors::Text),
        (vec!["environment-build", "notes.txt", "out"], 2, Errors::Text),
        (vec!["environment-build", "notes.txt", "out", "--json"], 2, Errors::Json),
        (vec!["environment-export", "missing.json", "--evidence", "missing.json", "out"], 2, Errors::Text),
        (vec!["environment-export", "missing.json", "--evidence", "missing.json", "out", "--json"], 2, Errors::Json),
        (vec!["environment-compare", "missing.json", "--evidence", "m.json", "--probe", "p.json"], 2, Errors::Text),
        (vec!["environment-compare", "missing.json", "--evidence", "m.json", "--probe", "p.json", "--json"], 2, Errors::Json),
        (vec!["capture-browser-scenario", "missing.json"], 2, Errors::Json),
        (vec!["capture-browser-scenario", "missing.json", "--json"], 2, Errors::Json),
        (vec!["capture-browser-scenario", "missing.json", "--format", "text"], 2, Errors::Text),
        (vec!["capture-browser-scenario", "s.json", "--json", "--format", "text"], 2, Errors::Usage),
        (vec!["plugins", "--pipeline", "missing.toml"], 2, Errors::Text),
        (vec!["pipeline", "check", "missing.toml"], 2, Errors::Text),
        (vec!["pipeline", "check", "broken.toml"], 2, Errors::Text),
        (vec!["plugins", "--plugin", "missing.so"], 2, Errors::Text),
        (vec!["guided-workflows", "--action", "render", "--workflow-id", "nope", "--format", "text"], 1, Errors::Text),
        (vec!["guided-workflows", "--action", "render", "--workflow-id", "nope", "--json"], 1, Errors::Json),
        (vec!["guided-workflows", "--arguments-json", "{", "--format", "text"], 2, Errors::Text),
        (vec!["guidance", "--format", "text"], 2, Errors::Text),
        (vec!["guidance", "--query", "record a session", "--json"], 0, Errors::None),
        (vec!["guidance", "--json", "--format", "text"], 2, Errors::Usage),
        (vec!["mcp", "--bogus"], 2, Errors::Usage),
    ];
    for (args, exit, errors) in cases {
        let case = format!("rea {}", args.join(" "));
        let run = run_rea(&rea(), dir, &args);
        assert_eq!(run.code, Some(exit), "{case}: {}", run.stderr);
        check_errors(&case, &run, errors);
        if args.iter().any(|arg| arg.starts_with("missing.")) {
            // Exit 2 for the missing file itself, named as one.
            let stderr = run.stderr.to_lowercase();
            assert!(stderr.contains("no such file"), "{case}: {}", run.stderr);
        }
        if exit == 0 && args[0] == "inspect-web-network-capture" {
            // Off a terminal the Evidence is JSON, with or without `--json`.
            let evidence: Value = serde_json::from_str(&run.stdout).expect("Evidence JSON");
            assert_eq!(
                evidence["operation"], "inspect_web_network_capture",
                "{case}"
            );
        }
    }
    assert!(
        !dir.join("out").exists(),
        "a refused build or export wrote its folder"
    );
}

#[test]
fn every_command_takes_json() {
    let work = tempfile::tempdir().unwrap();
    let commands: [&[&str]; 14] = [
        &["plugins"],
        &["capture-browser-scenario"],
        &["pipeline", "check"],
        &["inspect-web-network-capture"],
        &["inspect-analysis-view"],
        &["serve"],
        &["environment-serve"],
        &["environment-export"],
        &["environment-compare"],
        &["environment-build"],
        &["mcp", "doctor"],
        &["guided-workflows"],
        &["guidance"],
        &["mcp", "doctor", "--json"],
    ];
    for command in commands {
        let json_given = command.last() == Some(&"--json");
        let mut args = command.to_vec();
        if !json_given {
            args.push("--help");
        }
        let run = run_rea(&rea(), work.path(), &args);
        assert_eq!(run.code, Some(0), "rea {}: {}", args.join(" "), run.stderr);
        if json_given {
            let report: Value = serde_json::from_str(&run.stdout).expect("JSON report");
            assert!(report.is_object());
        } else {
            assert!(
                run.stdout.contains("--json"),
                "rea {} has no --json",
                command.join(" ")
            );
        }
    }
}

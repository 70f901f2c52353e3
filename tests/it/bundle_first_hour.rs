//! What a new user sees of `rea environment-build` (issue 14): the coverage table in the text
//! report (served, replayed and withheld writes with reasons and hints; `--json` keeps the JSON)
//! and in the coverage view's text, and progress on stderr: JSON log lines with each stage's
//! counts off a terminal, nothing with `--quiet`, and on a terminal a bar that appears after the
//! first second with the counted lines; a long build shows the percentage of the capture read
//! (on the bar, or as `progress` log lines per tenth).

use crate::bundle_support::*;
use crate::serve_support::synthetic::{LARGE_HAR_BYTES, large_har};

use serde_json::Value;

fn build_args<'a>(har: &'a str, binary: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["environment-build", har, "--binary", binary, "--dry-run"];
    args.extend_from_slice(extra);
    args
}

#[test]
fn the_text_report_shows_the_coverage_table_the_json_report_carries() {
    for (name, har) in build_captures() {
        let dir = tempfile::tempdir().expect("temp dir");
        let binary = stand_in_binary(dir.path()).display().to_string();
        let har = har.display().to_string();
        let json = report(&run(dir.path(), &build_args(&har, &binary, &["--json"])));
        let text = run(dir.path(), &build_args(&har, &binary, &[]));
        assert_eq!(text.code, Some(0), "{name}: {}", text.stderr);
        let coverage = &json["coverage"];
        assert!(
            coverage.is_object(),
            "{name}: the shared captures serve the state"
        );
        let served = coverage["writes"]["served"].as_array().unwrap();
        let withheld = coverage["writes"]["withheld"].as_array().unwrap();
        let headline = format!(
            "coverage: reads {} from the state, {} from recordings",
            coverage["reads"]["state"], coverage["reads"]["recorded"]
        );
        assert!(text.stdout.contains(&headline), "{name}: {}", text.stdout);
        assert!(
            text.stdout.contains(&format!(
                "writes {} served, {} withheld",
                served.len(),
                withheld.len()
            )),
            "{name}: {}",
            text.stdout
        );
        let row = |tool: &Value| {
            text.stdout
                .lines()
                .find(|line| line.split_whitespace().next() == tool.as_str())
                .unwrap_or_else(|| panic!("{name}: no row for {tool}: {}", text.stdout))
                .to_owned()
        };
        for write in served {
            assert!(row(&write["tool"]).contains(" served"), "{name}");
        }
        for write in withheld {
            let line = row(&write["tool"]);
            let reason = write["reason"].as_str().unwrap();
            let hint = write["hint"].as_str().unwrap();
            assert!(
                line.contains(" withheld ") && line.contains(reason),
                "{line}"
            );
            assert!(
                line.ends_with(hint),
                "{name}: the hint ends the row: {line}"
            );
        }
        // The JSON report is JSON alone.
        assert!(!json.to_string().contains("WRITE TOOL"));
    }
}

/// The JSON log lines of a run's stderr.
fn log_lines(stderr: &str) -> Vec<Value> {
    stderr
        .lines()
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|_| panic!("not a JSON line: {line}"))
        })
        .collect()
}

#[test]
fn off_a_terminal_progress_is_json_lines_with_each_stages_counts_and_quiet_is_silent() {
    let dir = tempfile::tempdir().expect("temp dir");
    let binary = stand_in_binary(dir.path()).display().to_string();
    let har = har("json-server").display().to_string();
    let built = run(dir.path(), &build_args(&har, &binary, &["--json"]));
    let report = report(&built);
    let lines = log_lines(&built.stderr);
    let counted = |stage: &str| -> Value {
        let line = lines
            .iter()
            .find(|line| line["msg"] == "counted" && line["stage"] == stage)
            .unwrap_or_else(|| panic!("no counted line for {stage}: {}", built.stderr));
        serde_json::from_str(line["counts"].as_str().expect("counts")).expect("counts JSON")
    };
    let inspect = counted("inspect");
    assert_eq!(inspect["records"], report["capture"]["records"]);
    assert_eq!(
        inspect["bytes"],
        std::fs::metadata(&har).unwrap().len(),
        "the input's bytes"
    );
    assert_eq!(counted("manifest")["tools"], report["manifest"]["tools"]);
    let state = counted("state");
    let plans = report["coverage"]["writes"]["served"]
        .as_array()
        .unwrap()
        .len()
        + report["coverage"]["writes"]["withheld"]
            .as_array()
            .unwrap()
            .len();
    assert_eq!(state["write_plans"], plans as u64);
    assert!(state["entities"].as_u64().unwrap() > 0, "{state}");
    for stage in ["pipeline", "binary", "inspect", "manifest", "state", "plan"] {
        assert!(
            lines
                .iter()
                .any(|line| line["stage"] == stage && line["level"] == "info"),
            "{stage}: {}",
            built.stderr
        );
    }

    let quiet = run(
        dir.path(),
        &build_args(&har, &binary, &["--json", "--quiet"]),
    );
    assert_eq!(quiet.code, Some(0));
    assert_eq!(quiet.stderr, "", "--quiet prints no progress");
    assert_eq!(
        serde_json::from_str::<Value>(&quiet.stdout).unwrap(),
        report
    );
}

/// Runs a shell command on a pseudo-terminal (`script`, util-linux), without `REA_LOG_LEVEL`.
fn on_a_terminal(dir: &std::path::Path, command: &str) -> std::process::Output {
    std::process::Command::new("script")
        .args(["-qec", command, "/dev/null"])
        .current_dir(dir)
        .env_remove("REA_LOG_LEVEL")
        .output()
        .expect("script (util-linux) runs")
}

#[test]
fn on_a_terminal_the_bar_appears_after_a_second_with_the_counted_stages() {
    // `script` (util-linux) gives the command a pseudo-terminal. The build is held in its
    // `state` stage (REA_TEST_HOLD) for two seconds, then interrupted.
    let dir = tempfile::tempdir().expect("temp dir");
    let binary = stand_in_binary(dir.path()).display().to_string();
    let har = har("json-server").display().to_string();
    let command = format!(
        "REA_TEST_HOLD=state '{}' environment-build '{har}' --binary '{binary}' --dry-run & pid=$!; sleep 2.5; kill -INT $pid; wait $pid",
        rea().display()
    );
    let output = on_a_terminal(dir.path(), &command);
    let typescript = String::from_utf8_lossy(&output.stdout);
    let records =
        report(&run(dir.path(), &build_args(&har, &binary, &["--json"])))["capture"]["records"]
            .clone();
    assert!(
        typescript.contains(&format!("inspect: {records} records, ")),
        "{typescript}"
    );
    assert!(typescript.contains("manifest: "), "{typescript}");
    assert!(typescript.contains("state: preparing what"), "{typescript}");
    assert!(
        !typescript.contains("\"level\""),
        "no JSON lines on a terminal"
    );
    // Interrupted in the state stage: the refusal still reaches the terminal.
    assert!(typescript.contains("cancelled"), "{typescript}");
}

/// A folder with a stand-in binary and a [`large_har`]: the folder, the binary, the HAR and its
/// size.
fn long_build_inputs() -> (tempfile::TempDir, String, String, u64) {
    let dir = tempfile::tempdir().expect("temp dir");
    let binary = stand_in_binary(dir.path()).display().to_string();
    let har = dir.path().join("large.har");
    large_har(&har, LARGE_HAR_BYTES);
    let size = std::fs::metadata(&har).unwrap().len();
    (dir, binary, har.display().to_string(), size)
}

#[test]
fn off_a_terminal_a_long_build_logs_the_share_of_the_capture_read() {
    let (dir, binary, har, size) = long_build_inputs();
    // The quiet second is forced to nothing (a test hook): this machine may read the capture in
    // less than a second.
    let built = rea_tests::run_rea_with(
        &rea(),
        dir.path(),
        &build_args(&har, &binary, &["--json"]),
        &[("REA_TEST_QUIET_PERIOD_MS", "0")],
    );
    report(&built);
    let progress: Vec<Value> = log_lines(&built.stderr)
        .into_iter()
        .filter(|line| line["msg"] == "progress" && line["stage"] == "inspect")
        .collect();
    assert!(
        progress.len() >= 2,
        "a build of {size} bytes logs its progress: {}",
        built.stderr
    );
    let mut last: Option<(u64, u64)> = None;
    for line in &progress {
        // contract: BUILD-042 (stage progress is logged to stderr at info level)
        assert_eq!(line["level"], "info", "{line}");
        assert_eq!(line["total_bytes"], size, "the capture's size: {line}");
        let bytes = line["bytes"].as_u64().expect("bytes");
        let percent = line["percent"].as_u64().expect("percent");
        assert_eq!(percent, bytes * 100 / size, "{line}");
        if let Some((last_bytes, last_percent)) = last {
            assert!(
                bytes > last_bytes && percent / 10 > last_percent / 10,
                "one line per tenth, the bytes read growing: {line} after {last:?}"
            );
        }
        last = Some((bytes, percent));
    }
    assert_eq!(
        last,
        Some((size, 100)),
        "the last line is the whole capture"
    );
}

#[test]
fn on_a_terminal_a_long_build_shows_the_percentage_of_the_capture_read() {
    let (dir, binary, har, size) = long_build_inputs();
    let total = rea::progress::human_bytes(size);
    // The quiet second is forced to nothing (a test hook): this machine may read the capture in
    // less than a second.
    let command = format!(
        "REA_TEST_QUIET_PERIOD_MS=0 '{}' environment-build '{har}' --binary '{binary}' --dry-run",
        rea().display(),
    );
    let output = on_a_terminal(dir.path(), &command);
    assert!(output.status.success(), "{output:?}");
    let typescript = String::from_utf8_lossy(&output.stdout);
    let shown = typescript
        .split(['\r', '\n'])
        .filter_map(|line| line.split("inspect: ").nth(1))
        .filter(|rest| {
            let (percent, rest) = rest.trim_start().split_once("% ").unwrap_or_default();
            percent.parse::<u64>().is_ok_and(|percent| percent <= 100)
                && rest.contains(&format!(" of {total}"))
        })
        .count();
    assert!(shown > 0, "no percentage of {total}: {typescript}");
    assert!(
        !typescript.contains("\"level\""),
        "no JSON lines on a terminal"
    );
}

#[test]
fn the_coverage_view_prints_its_coverage_table_as_text() {
    let dir = tempfile::tempdir().expect("temp dir");
    let har = har("json-server").display().to_string();
    let inspected = run(dir.path(), &["inspect-web-network-capture", &har, "--json"]);
    assert_eq!(inspected.code, Some(0), "{}", inspected.stderr);
    let capture = dir.path().join("capture.json");
    std::fs::write(&capture, &inspected.stdout).unwrap();
    let view = serde_json::json!({
        "source": {"kind": "evidence-file", "path": capture.display().to_string()},
        "view": {"kind": "environment-coverage"},
    });
    std::fs::write(dir.path().join("coverage.json"), view.to_string()).unwrap();
    let json = report(&run(
        dir.path(),
        &["inspect-analysis-view", "coverage.json", "--json"],
    ));
    let text = run(
        dir.path(),
        &["inspect-analysis-view", "coverage.json", "--format", "text"],
    );
    assert_eq!(text.code, Some(0), "{}", text.stderr);
    let first = text.stdout.lines().next().unwrap_or_default();
    assert_eq!(
        first,
        format!(
            "environment coverage {}",
            json["evidence_id"].as_str().unwrap()
        )
    );
    let served = json["writes"]["served"].as_array().unwrap();
    let withheld = json["writes"]["withheld"].as_array().unwrap();
    for needle in [
        format!(
            "coverage: reads {} from the state, {} from recordings",
            json["reads"]["state"], json["reads"]["recorded"]
        ),
        format!(
            "writes {} served, {} withheld",
            served.len(),
            withheld.len()
        ),
    ] {
        assert!(text.stdout.contains(&needle), "{needle}\n{}", text.stdout);
    }
    for write in withheld {
        assert!(
            text.stdout.contains(write["hint"].as_str().unwrap()),
            "{}",
            text.stdout
        );
    }
    assert!(!text.stdout.trim_start().starts_with('{'), "text, not JSON");
}

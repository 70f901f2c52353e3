//! Issue 15, defect 2: SIGTERM or a second SIGINT while `environment-build` writes the bundle.
//! A bundle appears whole or not at all (written into a sibling staging folder and renamed at the
//! end; a signal removes the staging folder), and the command ends 143/130 with a `cancelled`
//! refusal naming the signal. SIGKILL leaves the staging folder; the next build of that bundle
//! sweeps it.
//!
//! `REA_TEST_HOLD=written:<file>` holds the write after that file until a signal ends the command
//! (SIGTERM or a second SIGINT), so the signal lands mid-write.

use crate::bundle_support;
use crate::serve_support;

use std::path::Path;
use std::time::Duration;

use bundle_support::{har, rea, snapshot, stand_in_binary};
use serde_json::Value;
use serve_support::process::Server;

/// Starts a build held after its first file, sends `signals` (100 ms apart), and returns the exit
/// code and every stderr line.
fn build_signalled(work: &Path, signals: &[&str]) -> (Option<i32>, String, Vec<String>) {
    build_held_and_signalled(work, "written:README.md", signals)
}

fn build_held_and_signalled(
    work: &Path,
    hold: &str,
    signals: &[&str],
) -> (Option<i32>, String, Vec<String>) {
    let binary = stand_in_binary(work).display().to_string();
    let har = har("tiddlywiki").display().to_string();
    let mut command = std::process::Command::new(rea());
    command.args([
        "environment-build",
        har.as_str(),
        "bundle",
        "--name",
        "wiki",
        "--binary",
        binary.as_str(),
        "--json",
    ]);
    let mut process = Server::spawn_in(command, work, &[("REA_TEST_HOLD", hold)]);
    let point = hold.trim_start_matches("stuck:");
    process.wait_for_line(|line| line["msg"] == "test hold" && line["stage"] == point);
    for signal in signals {
        process.signal(signal);
        std::thread::sleep(Duration::from_millis(300));
    }
    process.finish()
}

/// The last refusal line of a run's stderr.
pub fn refusal_line(stderr: &[String]) -> Value {
    let line = stderr
        .iter()
        .rev()
        .find(|line| line.contains("\"code\""))
        .unwrap_or_else(|| panic!("no refusal on stderr: {stderr:?}"));
    serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}"))
}

fn assert_nothing_left(
    work: &Path,
    before: &std::collections::BTreeMap<String, (Option<Vec<u8>>, u32)>,
) {
    let after = snapshot(work);
    let added: Vec<&String> = after
        .keys()
        .filter(|path| !before.contains_key(*path))
        .collect();
    assert!(
        added.is_empty(),
        "a signal mid-write must leave no bundle and no staging folder: {added:?}"
    );
}

#[test]
fn sigterm_while_writing_removes_the_partial_bundle_and_exits_143() {
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path();
    stand_in_binary(work);
    let before = snapshot(work);
    let (code, stdout, stderr) = build_signalled(work, &["TERM"]);
    assert_eq!(code, Some(143), "stderr: {stderr:?}");
    assert!(stdout.is_empty(), "{stdout}");
    let refusal = refusal_line(&stderr);
    assert_eq!(refusal["code"], "cancelled", "{refusal}");
    assert_eq!(refusal["data"]["signal"], "SIGTERM", "{refusal}");
    assert!(
        refusal["message"].as_str().unwrap().contains("removed"),
        "{refusal}"
    );
    assert_nothing_left(work, &before);
}

#[test]
fn a_second_sigint_while_writing_removes_the_partial_bundle_and_exits_130() {
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path();
    stand_in_binary(work);
    let before = snapshot(work);
    let (code, stdout, stderr) = build_signalled(work, &["INT", "INT"]);
    assert_eq!(code, Some(130), "stderr: {stderr:?}");
    assert!(stdout.is_empty(), "{stdout}");
    let refusal = refusal_line(&stderr);
    assert_eq!(refusal["code"], "cancelled", "{refusal}");
    assert_eq!(refusal["data"]["signal"], "SIGINT", "{refusal}");
    assert_nothing_left(work, &before);
}

#[test]
fn sigterm_before_the_write_exits_143_with_a_message() {
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path();
    let binary = stand_in_binary(work).display().to_string();
    let har = har("tiddlywiki").display().to_string();
    let before = snapshot(work);
    let mut command = std::process::Command::new(rea());
    command.args([
        "environment-build",
        har.as_str(),
        "bundle",
        "--binary",
        binary.as_str(),
        "--json",
    ]);
    let mut process = Server::spawn_in(command, work, &[("REA_TEST_HOLD", "inspect")]);
    process.wait_for_line(|line| line["msg"] == "test hold" && line["stage"] == "inspect");
    process.signal("TERM");
    let (code, _, stderr) = process.finish();
    assert_eq!(code, Some(143), "stderr: {stderr:?}");
    let refusal = refusal_line(&stderr);
    assert_eq!(refusal["code"], "cancelled", "{refusal}");
    assert_eq!(refusal["data"]["signal"], "SIGTERM", "{refusal}");
    assert_nothing_left(work, &before);
}

#[test]
fn sigterm_while_a_write_is_stuck_removes_the_staging_folder_from_the_signal_thread() {
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path();
    stand_in_binary(work);
    let before = snapshot(work);
    let (code, stdout, stderr) =
        build_held_and_signalled(work, "stuck:written:README.md", &["TERM"]);
    assert_eq!(code, Some(143), "stderr: {stderr:?}");
    assert!(stdout.is_empty(), "{stdout}");
    let refusal = refusal_line(&stderr);
    assert_eq!(refusal["code"], "cancelled", "{refusal}");
    assert_eq!(refusal["data"]["signal"], "SIGTERM", "{refusal}");
    assert!(
        refusal["message"].as_str().unwrap().contains("removed"),
        "{refusal}"
    );
    assert_nothing_left(work, &before);
}

/// The staging folders beside a work folder's `bundle` destination.
fn staging_folders(work: &Path) -> Vec<String> {
    std::fs::read_dir(work)
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| name.starts_with(".bundle.partial-"))
        .collect()
}

#[test]
fn a_staging_folder_a_sigkill_left_is_swept_by_the_next_build_of_that_bundle() {
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path();
    let (code, _, stderr) = build_signalled(work, &["KILL"]);
    assert_eq!(code, None, "SIGKILL ends the build: {stderr:?}");
    let left = staging_folders(work);
    assert_eq!(left.len(), 1, "a killed build cannot clean up: {left:?}");
    assert!(!work.join("bundle").exists());

    let binary = stand_in_binary(work).display().to_string();
    let har = har("tiddlywiki").display().to_string();
    let args = ["environment-build", &har, "bundle", "--name", "wiki"];
    let run = bundle_support::run(
        work,
        &[&args[..], &["--binary", &binary, "--json"]].concat(),
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(work.join("bundle/README.md").is_file());
    assert_eq!(staging_folders(work), Vec::<String>::new());
    let warned: Value = run
        .stderr
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|line| line["level"] == "warn" && line["folder"].is_string())
        .unwrap_or_else(|| panic!("no warning about the swept folder: {}", run.stderr));
    assert!(
        warned["folder"].as_str().unwrap().ends_with(&left[0]),
        "{warned}"
    );
}

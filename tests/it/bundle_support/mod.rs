//! Helpers of the bundle tests: running `rea environment-build`/`environment-export`, the shared
//! captures, and snapshots of folders to show a refusal changed nothing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rea_tests::{Run, run_rea, shared_dir};
use serde_json::{Value, json};

/// The binary under test.
pub fn rea() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rea-under-test"))
}

/// The shared captures that have a `build.har`, by folder name.
pub fn build_captures() -> Vec<(String, PathBuf)> {
    let mut captures: Vec<(String, PathBuf)> = std::fs::read_dir(shared_dir().join("captures"))
        .expect("the shared captures")
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|dir| dir.join("build.har").is_file())
        .map(|dir| {
            let name = dir
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_default();
            (name, dir.join("build.har"))
        })
        .collect();
    captures.sort();
    assert!(!captures.is_empty(), "no shared capture has a build.har");
    captures
}

/// The `build.har` of a shared capture.
pub fn har(name: &str) -> PathBuf {
    shared_dir().join("captures").join(name).join("build.har")
}

/// Runs the binary in `dir`.
pub fn run(dir: &Path, args: &[&str]) -> Run {
    run_rea(&rea(), dir, args)
}

/// A small stand-in for the bundled binary (`--binary`), so bundles stay small.
pub fn stand_in_binary(dir: &Path) -> PathBuf {
    let path = dir.join("rea-stand-in");
    std::fs::write(&path, b"#!/bin/sh\necho stand-in rea\n").expect("stand-in binary");
    path
}

/// The JSON report of a successful run.
pub fn report(run: &Run) -> Value {
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    serde_json::from_str(&run.stdout)
        .unwrap_or_else(|error| panic!("the report is not JSON ({error}): {}", run.stdout))
}

/// The one JSON refusal line of a refused run (exit 1, nothing on stdout).
/// The refusal a run ended with (its JSON line): exit 2 for a usage mistake (a configuration
/// problem), else 1; nothing on stdout.
pub fn refusal(run: &Run) -> Value {
    assert!(run.stdout.is_empty(), "stdout: {}", run.stdout);
    let line = run
        .stderr
        .lines()
        .rev()
        .find(|line| line.contains("\"code\""))
        .unwrap_or_else(|| panic!("no refusal line: {}", run.stderr));
    let refusal: Value = serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}"));
    // A configuration mistake or an input kind the build does not read (README: exit 2).
    let usage = refusal["category"] == "configuration"
        || (refusal["code"] == "unsupported_target" && refusal["pointer"] == "/capture");
    assert_eq!(
        run.code,
        Some(if usage { 2 } else { 1 }),
        "stdout: {} stderr: {}",
        run.stdout,
        run.stderr
    );
    refusal
}

/// Every entry below a folder: relative path → (bytes of a file or `None` for a folder, mode).
pub fn snapshot(dir: &Path) -> BTreeMap<String, (Option<Vec<u8>>, u32)> {
    let mut entries = BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).expect("list") {
            let path = entry.expect("entry").path();
            let metadata = std::fs::symlink_metadata(&path).expect("metadata");
            let relative = path
                .strip_prefix(dir)
                .expect("inside")
                .to_string_lossy()
                .replace('\\', "/");
            let mode = mode(&metadata);
            if metadata.is_dir() {
                entries.insert(relative, (None, mode));
                pending.push(path);
            } else {
                entries.insert(relative, (Some(std::fs::read(&path).expect("read")), mode));
            }
        }
    }
    entries
}

/// Runs a command that must be refused and must change nothing under `work`; returns the refusal.
pub fn refused_unchanged(work: &Path, args: &[&str]) -> Value {
    let before = snapshot(work);
    let run = run(work, args);
    let refusal = refusal(&run);
    assert!(
        snapshot(work) == before,
        "the refusal changed the file system: {refusal}"
    );
    refusal
}

/// The files below a folder (relative paths), sorted.
pub fn files(dir: &Path) -> Vec<String> {
    snapshot(dir)
        .into_iter()
        .filter(|(_, (bytes, _))| bytes.is_some())
        .map(|(path, _)| path)
        .collect()
}

#[cfg(unix)]
fn mode(metadata: &std::fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    metadata.permissions().mode() & 0o7777
}

#[cfg(not(unix))]
fn mode(_: &std::fs::Metadata) -> u32 {
    0
}

/// Inspects a HAR into `dir/<file>` with `rea inspect-web-network-capture`.
pub fn inspect_into(dir: &Path, har: &Path, file: &str) -> PathBuf {
    let har = har.display().to_string();
    let run = run(dir, &["inspect-web-network-capture", &har, "har"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let path = dir.join(file);
    std::fs::write(&path, run.stdout).expect("write capture Evidence");
    path
}

/// Projects the manifest of `dir/<capture>` into `dir/<file>` with `rea inspect-analysis-view`.
pub fn project_into(dir: &Path, capture: &str, rules: &[&str], file: &str) -> PathBuf {
    let view = json!({
        "source": {"kind": "evidence-file", "path": capture},
        "view": {"kind": "environment-manifest", "template_rules": rules},
    });
    let view_path = dir.join(format!("{file}.view.json"));
    std::fs::write(&view_path, view.to_string()).expect("write view");
    let view_path = view_path.display().to_string();
    let run = run(dir, &["inspect-analysis-view", &view_path]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let path = dir.join(file);
    std::fs::write(&path, run.stdout).expect("write manifest");
    path
}

/// The default template rules of the build, in the views' order.
pub const DEFAULT_RULES: [&str; 4] = [
    "after-uid-literal",
    "opaque-token",
    "sibling-variance",
    "prefix-variance",
];

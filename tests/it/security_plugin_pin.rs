//! Issue 15, defect 1: the pinned bytes are the loaded bytes. A pipeline given as a bare file name
//! whose `[[plugins]] path` has no slash once handed a bare name to `dlopen`, which searched the
//! system library path (`LD_LIBRARY_PATH`) while the pin was checked against `./lib….so`.

use std::path::{Path, PathBuf};
use std::process::Command;

use rea_tests::built_library;
use sha2::{Digest, Sha256};

fn rea() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rea-under-test"))
}

fn sha256_hex(path: &Path) -> String {
    let bytes = std::fs::read(path).expect("library read");
    hex::encode(Sha256::digest(&bytes))
}

/// The plugins `rea plugins --json --pipeline pipeline.toml` lists, run in `dir` with
/// `LD_LIBRARY_PATH` set to `search` (the library path dlopen would search for a bare name).
fn plugins_listed(dir: &Path, search: &Path) -> (Option<i32>, Vec<String>, String) {
    let output = Command::new(rea())
        .args(["plugins", "--json", "--pipeline", "pipeline.toml"])
        .current_dir(dir)
        .env("LD_LIBRARY_PATH", search)
        .env_remove("REA_LOG_LEVEL")
        .output()
        .expect("rea runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let names = serde_json::from_str::<serde_json::Value>(&stdout)
        .ok()
        .and_then(|value| value.as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|plugin| plugin["name"].as_str().map(str::to_owned))
        .collect();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output.status.code(), names, stderr)
}

/// A folder holding `pipeline.toml` that pins `libpinned.so` (a copy of the example plugin) by a
/// bare name, and a decoy folder holding another plugin under the same file name.
fn pinned_and_decoy() -> (tempfile::TempDir, tempfile::TempDir) {
    let work = tempfile::tempdir().expect("tempdir");
    let decoy = tempfile::tempdir().expect("tempdir");
    let pinned = work.path().join("libpinned.so");
    std::fs::copy(built_library("rea_example_revision_counter"), &pinned).expect("copied");
    std::fs::copy(
        built_library("rea_fixture_panicking_stage"),
        decoy.path().join("libpinned.so"),
    )
    .expect("decoy copied");
    std::fs::write(
        work.path().join("pipeline.toml"),
        format!(
            "[[plugins]]\npath = \"libpinned.so\"\nsha256 = \"{}\"\n",
            sha256_hex(&pinned)
        ),
    )
    .expect("pipeline written");
    (work, decoy)
}

#[test]
fn a_bare_plugin_name_loads_the_pinned_file_not_one_on_the_library_path() {
    let (work, decoy) = pinned_and_decoy();
    let (code, names, stderr) = plugins_listed(work.path(), decoy.path());
    assert_eq!(code, Some(0), "stderr: {stderr}");
    assert!(
        names.iter().any(|name| name == "example-revision-counter"),
        "the pinned library is loaded: {names:?}"
    );
    assert!(
        !names.iter().any(|name| name == "fixture-panicking-stage"),
        "the decoy on LD_LIBRARY_PATH is never loaded: {names:?}"
    );
}

#[test]
fn a_bare_plugin_name_loads_without_any_library_path() {
    let (work, _decoy) = pinned_and_decoy();
    let empty = tempfile::tempdir().expect("tempdir");
    let (code, names, stderr) = plugins_listed(work.path(), empty.path());
    assert_eq!(
        code,
        Some(0),
        "a valid pinned plugin loads; stderr: {stderr}"
    );
    assert!(names.iter().any(|name| name == "example-revision-counter"));
}

#[test]
fn a_bare_plugin_name_on_the_command_line_is_the_file_in_the_working_folder() {
    let (work, decoy) = pinned_and_decoy();
    let output = Command::new(rea())
        .args(["plugins", "--json", "--plugin", "libpinned.so"])
        .current_dir(work.path())
        .env("LD_LIBRARY_PATH", decoy.path())
        .output()
        .expect("rea runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("example-revision-counter"), "{stdout}");
    assert!(!stdout.contains("fixture-panicking-stage"), "{stdout}");
}

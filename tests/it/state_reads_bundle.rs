//! The state a bundle serves: `environment-build` prepares the state the bundle's server derives
//! at startup and reports whether it is served; the bundle's one state file is the precomputed
//! `state.json` (issue 17; STATE-118 is a documented deviation, `rea-bundle`'s CONTRACT-NOTES.md),
//! and without it the server derives the state the build reported.

use crate::state_support;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rea_backends::Serving;
use rea_evidence::Evidence;
use rea_manifest::{Environment, Manifest};
use serde_json::Value;
use state_support::{capture_path, rules, state_rules};

fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rea-under-test"))
}

/// Every file under a folder, relative, sorted.
fn files(root: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("read_dir").flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if let Ok(relative) = path.strip_prefix(root) {
                found.push(relative.display().to_string());
            }
        }
    }
    found.sort();
    found
}

#[test]
fn a_bundle_serves_the_state_its_build_prepared_even_without_its_state_file() {
    // contract: STATE-009
    let dir = tempfile::tempdir().expect("temp dir");
    let stand_in = dir.path().join("rea-stand-in");
    std::fs::write(&stand_in, b"#!/bin/sh\necho stand-in rea\n").expect("stand-in");
    let capture = capture_path("json-server/build.har").display().to_string();
    let run = rea_tests::run_rea(
        &binary(),
        dir.path(),
        &[
            "environment-build",
            &capture,
            "bundle",
            "--binary",
            &stand_in.display().to_string(),
            "--name",
            "blog",
            "--json",
        ],
    );
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).expect("report");
    assert_eq!(report["state"]["served"], true, "{}", report["state"]);
    let reported = report["state"]["evidence_id"]
        .as_str()
        .expect("state.evidence_id")
        .to_owned();
    // One state file, the precomputed state; the capture and its manifest, from which a server
    // without it derives the state at startup.
    let bundle = dir.path().join("bundle");
    let listed = files(&bundle);
    let states: Vec<&String> = listed
        .iter()
        .filter(|path| path.contains("state"))
        .collect();
    assert_eq!(states, ["envs/blog/state.json"], "{listed:?}");
    let env = bundle.join("envs").join("blog");
    let evidence = Evidence::authenticate(&std::fs::read(env.join("evidence.json")).expect("read"))
        .expect("capture Evidence");
    let manifest_evidence =
        Evidence::authenticate(&std::fs::read(env.join("manifest.json")).expect("read"))
            .expect("manifest Evidence");
    let manifest: Manifest =
        rea_manifest::evidence::read_manifest(&manifest_evidence).expect("a manifest");
    // What the bundle's server derives at startup from those files is the state the build
    // reported.
    let environment =
        Environment::from_evidence(&manifest_evidence, &evidence).expect("the bundle's pair");
    match rea_backends::prepare(
        environment,
        &manifest,
        &evidence,
        &manifest.name,
        Arc::clone(&state_rules()),
    ) {
        Serving::State { report: state, .. } => {
            assert_eq!(state["served"], true);
            assert_eq!(state["evidence_id"], reported.as_str());
        }
        Serving::Replay { refusal, .. } => panic!("the bundle's state is unavailable: {refusal:?}"),
    }
    // So does the view.
    let projected =
        rea_state::project_state_evidence(&evidence, &rules(), &state_rules()).expect("state");
    assert_eq!(projected.evidence.id(), reported);
}

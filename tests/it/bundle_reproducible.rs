//! Reproducible bundles (issue 17): the same capture, pipeline and binary give the same bundle,
//! byte for byte and mode for mode, wherever and whenever it is written — every shared capture
//! built twice into different folders, from its HAR and from its capture Evidence.

use crate::bundle_support;

use bundle_support::{build_captures, inspect_into, report, run, snapshot, stand_in_binary};

/// Builds `capture` into `work/folder` with the stand-in binary; returns the bundle's snapshot.
fn built(
    work: &std::path::Path,
    capture: &str,
    folder: &str,
    name: &str,
) -> std::collections::BTreeMap<String, (Option<Vec<u8>>, u32)> {
    let binary = stand_in_binary(work).display().to_string();
    let built = report(&run(
        work,
        &[
            "environment-build",
            capture,
            folder,
            "--name",
            name,
            "--binary",
            &binary,
            "--json",
        ],
    ));
    assert_eq!(built["status"], "built", "{built}");
    snapshot(&work.join(folder))
}

#[test]
fn the_same_inputs_and_binary_build_the_same_bundle() {
    for (name, har) in build_captures() {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path();
        let har = har.display().to_string();
        let first = built(work, &har, "first", &name);
        // Later, into another folder, with the same inputs: the same files, bytes and modes.
        std::fs::create_dir(work.join("elsewhere")).unwrap();
        let second = built(work, &har, "elsewhere/second", &name);
        assert_eq!(
            first.keys().collect::<Vec<_>>(),
            second.keys().collect::<Vec<_>>(),
            "{name}"
        );
        for (path, entry) in &first {
            assert!(second[path] == *entry, "{name}: {path} differs");
        }
        let state = format!("envs/{name}/state.json");
        assert!(first.contains_key(&state), "{name}: no {state}");

        // From the capture Evidence: the same bundle again, twice.
        let evidence = inspect_into(work, std::path::Path::new(&har), "capture.json");
        let evidence = evidence.display().to_string();
        let third = built(work, &evidence, "third", &name);
        let fourth = built(work, &evidence, "fourth", &name);
        assert!(third == fourth, "{name}: two builds from Evidence differ");
    }
}

//! `--max-memory` (issue 17): `environment-build`, `environment-serve` and `serve` refuse
//! (`resource_constraint`, exit 1) rather than pass the limit, naming the limit and the figure
//! over it, and leave nothing behind: an input whose load needs more is refused before it is
//! read (the estimate), and the peak resident memory is checked at the stage boundaries (the
//! measured figure). A limit the command fits changes nothing.

use crate::bundle_support;

use std::path::Path;

use bundle_support::*;
use serde_json::Value;

/// Arguments as `&str`s.
fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

/// [`refused_unchanged`] with owned arguments.
fn refused_owned(work: &Path, args: &[String]) -> Value {
    refused_unchanged(work, &strs(args))
}

/// The size of a file.
fn bytes(path: &Path) -> u64 {
    std::fs::metadata(path).expect("metadata").len()
}

#[test]
fn a_build_over_the_limit_is_refused_before_reading_or_at_a_stage_and_writes_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path();
    let binary = stand_in_binary(work).display().to_string();
    let har_path = har("kinto");
    let har = har_path.display().to_string();
    let args = |limit: &str| {
        [
            "environment-build",
            har.as_str(),
            "bundle",
            "--binary",
            binary.as_str(),
            "--json",
            "--max-memory",
        ]
        .into_iter()
        .map(str::to_owned)
        .chain([limit.to_owned()])
        .collect::<Vec<String>>()
    };

    // The estimate: 3x the capture is over 1 KiB, refused before anything is read.
    let refusal = refused_owned(work, &args("1K"));
    assert_eq!(refusal["code"], "resource_constraint", "{refusal}");
    assert_eq!(refusal["stage"], "environment-build");
    assert_eq!(refusal["data"]["limit"], "max-memory");
    assert_eq!(refusal["data"]["max_memory_bytes"], 1024);
    let capture = bytes(&har_path);
    assert_eq!(refusal["data"]["input_bytes"], capture);
    assert_eq!(refusal["data"]["estimated_bytes"], 3 * capture);
    assert!(
        refusal["message"]
            .as_str()
            .unwrap()
            .contains("nothing was read"),
        "{refusal}"
    );

    // The measured figure: 1 MiB holds the estimate (3x a capture under 340 KiB), but no
    // process runs in it; the first stage boundary refuses, naming its peak.
    assert!(3 * capture < 1 << 20, "{capture}");
    let refusal = refused_owned(work, &args("1M"));
    assert_eq!(refusal["code"], "resource_constraint", "{refusal}");
    assert_eq!(refusal["data"]["max_memory_bytes"], 1 << 20);
    let peak = refusal["data"]["peak_rss_bytes"]
        .as_u64()
        .expect("the peak");
    assert!(peak > 1 << 20, "{refusal}");
    assert!(refusal["data"]["stage"].is_string(), "{refusal}");
    assert!(
        refusal["message"]
            .as_str()
            .unwrap()
            .ends_with("nothing was written"),
        "{refusal}"
    );

    // A limit the build fits: the bundle is written as without one.
    let owned = args("4G");
    let built = report(&run(work, &strs(&owned)));
    assert_eq!(built["status"], "built", "{built}");
}

#[test]
fn a_limit_that_is_no_size_is_a_usage_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path();
    let har = har("kinto").display().to_string();
    for limit in ["0", "1.5G", "lots", "12T"] {
        let run = run(
            work,
            &[
                "environment-build",
                &har,
                "--dry-run",
                "--max-memory",
                limit,
            ],
        );
        assert_eq!(run.code, Some(2), "{limit}: {}", run.stderr);
        assert!(run.stderr.contains("--max-memory"), "{}", run.stderr);
    }
}

#[test]
fn a_server_over_the_limit_is_refused_before_it_binds() {
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path();
    let binary = stand_in_binary(work).display().to_string();
    let har = har("tiddlywiki").display().to_string();
    let built = report(&run(
        work,
        &[
            "environment-build",
            &har,
            "bundle",
            "--binary",
            &binary,
            "--name",
            "wiki",
            "--json",
        ],
    ));
    assert_eq!(built["status"], "built");
    let env = work.join("bundle/envs/wiki");
    let inputs: u64 = ["manifest.json", "evidence.json", "state.json"]
        .iter()
        .map(|name| bytes(&env.join(name)))
        .sum();
    let serve = |limit: &str| -> Vec<String> {
        [
            "environment-serve",
            "manifest.json",
            "--evidence",
            "evidence.json",
            "--state",
            "state.json",
            "--pipeline",
            "pipeline.toml",
            "--port",
            "0",
            "--max-memory",
            limit,
        ]
        .into_iter()
        .map(str::to_owned)
        .collect()
    };

    // The estimate: the inputs alone are over the limit; nothing is read.
    let refusal = refused_owned(&env, &serve(&(inputs - 1).to_string()));
    assert_eq!(refusal["code"], "resource_constraint", "{refusal}");
    assert_eq!(refusal["stage"], "environment-serve");
    assert_eq!(refusal["data"]["input_bytes"], inputs);
    assert_eq!(refusal["data"]["max_memory_bytes"], inputs - 1);

    // The measured figure: the inputs fit, the server loading them does not.
    assert!(inputs < 4 << 20, "{inputs}");
    let refusal = refused_owned(&env, &serve(&inputs.to_string()));
    assert_eq!(refusal["code"], "resource_constraint", "{refusal}");
    assert_eq!(refusal["data"]["stage"], "load", "{refusal}");
    assert!(
        refusal["data"]["peak_rss_bytes"]
            .as_u64()
            .expect("the peak")
            > inputs,
        "{refusal}"
    );
    assert!(
        refusal["message"]
            .as_str()
            .unwrap()
            .ends_with("nothing was bound"),
        "{refusal}"
    );

    // `rea serve BUNDLE` takes the same limit.
    let bundle = work.join("bundle").display().to_string();
    let refusal = refused_unchanged(
        work,
        &[
            "serve",
            &bundle,
            "--port",
            "0",
            "--json",
            "--max-memory",
            "1K",
        ],
    );
    assert_eq!(refusal["code"], "resource_constraint", "{refusal}");
    assert_eq!(refusal["stage"], "serve");
    assert_eq!(refusal["data"]["input_bytes"], inputs);
}

//! `rea environment-build` and `rea environment-export` through the binary: the bundle's layout and
//! contents for every shared capture, byte-identity of the one-step build with the separate
//! commands, the dry run, template rules, names, credential warnings and the bundled pipeline.
//! The framework's own checks of these bundles (`agent-env run --dry-run`, `verify.py` through
//! `run_verify.py`) are `tests/bundle/run.sh`.

use crate::bundle_support;

use std::path::Path;

use bundle_support::*;
use rea_evidence::Evidence;
use rea_json::Json;
use serde_json::{Value, json};

fn text(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

fn string(value: &Value) -> &str {
    value
        .as_str()
        .unwrap_or_else(|| panic!("not a string: {value}"))
}

/// Builds a shared capture with a stand-in binary into `dir/bundle`; returns the report.
fn build(dir: &Path, capture: &Path, extra: &[&str]) -> Value {
    let binary = stand_in_binary(dir).display().to_string();
    let capture = capture.display().to_string();
    let mut args = vec![
        "environment-build",
        capture.as_str(),
        "bundle",
        "--binary",
        binary.as_str(),
        "--json",
    ];
    args.extend_from_slice(extra);
    report(&run(dir, &args))
}

// Each contract id sits on the assertion that checks it. Every shared capture serves from the
// state (the test asserts the state branch is taken); the replay branch's ids (BUILD-053,
// EXPORT-058, EXPORT-078's replay bundle, EXPORT-080's replay half) are checked where a capture
// does serve replay: `bundle_serving.rs`, `a_state_catalog_over_the_reservation_exports_a_replay_bundle`.
#[test]
fn every_shared_capture_builds_a_bundle_of_the_documented_layout() {
    let mut served_from_state = 0;
    for (name, har) in build_captures() {
        let dir = tempfile::tempdir().expect("temp dir");
        // contract: BUILD-001, BUILD-003, BUILD-096
        let report = build(dir.path(), &har, &["--name", &name]);
        let bundle = dir.path().join("bundle");
        let env = bundle.join("envs").join(&name);

        // The report.
        // contract: BUILD-044
        assert_eq!(report["status"], "built", "{name}");
        assert_eq!(report["name"], name.as_str());
        assert_eq!(
            report["directory"],
            std::path::absolute(&bundle).unwrap().display().to_string()
        );
        // contract: BUILD-045
        assert_eq!(
            report["capture"]["operation"],
            "inspect_web_network_capture"
        );
        assert_eq!(report["capture"]["input"], "har");
        assert!(report["capture"]["records"].is_u64(), "{report}");
        // contract: BUILD-046
        assert_eq!(report["manifest"]["template_rules"], json!(DEFAULT_RULES));
        assert!(report["manifest"]["excluded_groups"].is_u64(), "{report}");
        // contract: STATE-010
        // The state serves: coverage summarizes its read views and write plans.
        assert!(
            report["coverage"]["reads"]["state"].is_u64(),
            "{}",
            report["coverage"]
        );
        assert!(report["coverage"]["writes"]["served"].is_array());
        assert!(report["coverage"]["writes"]["withheld"].is_array());
        // contract: BUILD-051
        assert_eq!(
            report["next"],
            json!([format!("agent-env run {}", string(&report["directory"]))])
        );
        assert!(report["warnings"].is_array());

        // The layout: exactly these files, each 0600 (bin/rea 0700), sizes as reported.
        let bundle_has = |path: &str| bundle.join(path).is_file();
        let bundle_text = |path: &str| std::fs::read_to_string(bundle.join(path)).unwrap();
        // contract: EXPORT-004
        assert!(bundle_text("README.md").contains("agent-env run"), "{name}");
        // contract: EXPORT-005
        assert!(bundle_has(&format!("envs/{name}/Dockerfile")), "{name}");
        // contract: EXPORT-008
        assert!(
            bundle_text(&format!("envs/{name}/env.toml"))
                .contains(&format!("environment_name = \"{name}\"")),
            "{name}"
        );
        // contract: EXPORT-011
        assert!(
            bundle_has(&format!("artifacts/check_{name}/verify.py")),
            "{name}"
        );
        let smoke = bundle_text("tasks/smoke.json");
        // contract: EXPORT-012
        assert!(
            smoke.contains("deploy_env") && smoke.contains("env_outcome_verifier"),
            "{name}: {smoke}"
        );
        // contract: BUILD-004, EXPORT-002
        let expected: Vec<String> = [
            "README.md".to_owned(),
            format!("artifacts/check_{name}/verify.py"),
            format!("envs/{name}/Dockerfile"),
            format!("envs/{name}/bin/rea"),
            format!("envs/{name}/env.toml"),
            format!("envs/{name}/evidence.json"),
            format!("envs/{name}/manifest.json"),
            format!("envs/{name}/pipeline.toml"),
            format!("envs/{name}/state.json"),
            "tasks/smoke.json".to_owned(),
        ]
        .into();
        assert_eq!(files(&bundle), expected, "{name}");
        // contract: EXPORT-035
        let reported: Vec<(String, u64)> = report["files"]
            .as_array()
            .expect("files")
            .iter()
            .map(|file| {
                (
                    string(&file["path"]).to_owned(),
                    file["bytes"].as_u64().unwrap(),
                )
            })
            .collect();
        let actual: Vec<(String, u64)> = expected
            .iter()
            .map(|path| {
                let length = std::fs::metadata(bundle.join(path)).unwrap().len();
                (path.clone(), length)
            })
            .collect();
        assert_eq!(reported, actual, "{name}");
        #[cfg(unix)]
        for (path, (bytes, mode)) in snapshot(&bundle) {
            if bytes.is_some() {
                let expected = if path.ends_with("/bin/rea") {
                    0o700
                } else {
                    0o600
                };
                // contract: EXPORT-044 (every file but bin/rea, executable: CONTRACT-NOTES)
                assert_eq!(mode, expected, "{name}: {path}");
            }
        }
        assert_eq!(
            std::fs::read(env.join("bin/rea")).unwrap(),
            std::fs::read(dir.path().join("rea-stand-in")).unwrap()
        );

        // The pair: authenticated Evidence, the manifest's parent is the capture.
        // contract: BUILD-067
        let capture = Evidence::authenticate(&std::fs::read(env.join("evidence.json")).unwrap())
            .expect("evidence.json is Evidence");
        let manifest = Evidence::authenticate(&std::fs::read(env.join("manifest.json")).unwrap())
            .expect("manifest.json is Evidence");
        assert_eq!(report["capture"]["evidence_id"], capture.id());
        // contract: BUILD-084
        for path in [
            capture.get("subject").and_then(|s| s.get("local_path")),
            capture
                .get("parameters")
                .and_then(|p| p.get("capture_path")),
            capture.get("artifact").and_then(|a| a.get("path")),
        ] {
            let path = Path::new(path.and_then(Json::as_str).expect("a recorded path"));
            assert!(path.is_absolute(), "{name}: {}", path.display());
            assert!(
                path.ends_with(format!("{name}/build.har")),
                "{}",
                path.display()
            );
        }
        assert_eq!(report["manifest"]["evidence_id"], manifest.id());
        assert_eq!(
            manifest.get("parent_evidence_id").and_then(Json::as_str),
            Some(capture.id())
        );
        let manifest_tools = manifest
            .get("tools")
            .and_then(Json::as_array)
            .map_or(0, Vec::len) as u64;
        assert_eq!(report["manifest"]["tools"], manifest_tools);
        // contract: EXPORT-037
        let tool_count = report["tool_count"].as_u64().expect("tool_count");
        // contract: BUILD-047, EXPORT-038
        let served = report["state"]["served"].as_bool().expect("state.served");
        if served {
            served_from_state += 1;
            assert!(
                report["state"]["evidence_id"]
                    .as_str()
                    .is_some_and(|id| id.starts_with("ev_"))
            );
            // contract: EXPORT-057
            assert!(tool_count <= manifest_tools);
        } else {
            assert_eq!(
                tool_count, manifest_tools,
                "replay serves every manifest tool"
            );
            assert_eq!(report["state"]["reason"], "unavailable");
        }

        // env.toml: only the keys the framework allows.
        // contract: EXPORT-008
        let toml = text(&env.join("env.toml"));
        let keys: Vec<&str> = toml
            .lines()
            .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
            .map(|line| line.split('=').next().unwrap_or_default().trim())
            .collect();
        assert_eq!(keys, ["type", "id", "environment_name"], "{toml}");
        assert!(toml.contains(&format!("environment_name = \"{name}\"")));
        assert!(toml.contains(&format!("id = \"@local/{name}\"")));

        // The Dockerfile.
        let dockerfile = text(&env.join("Dockerfile"));
        for needle in [
            "FROM debian:bookworm-slim".to_owned(),
            // contract: EXPORT-051
            "--no-install-recommends python3".to_owned(),
            // contract: EXPORT-046
            "MCP_HOST=0.0.0.0".to_owned(),
            // contract: EXPORT-047
            "MCP_PORT=18765".to_owned(),
            // contract: EXPORT-048
            format!("MCP_ALLOWED_HOSTS=localhost,127.0.0.1,::1,{name}"),
            // contract: EXPORT-052
            "COPY --chown=rea:rea manifest.json evidence.json pipeline.toml state.json /env/"
                .to_owned(),
            // contract: EXPORT-053
            "\nUSER rea\n".to_owned(),
            "\"environment-serve\",\"/env/manifest.json\",\"--evidence\",\"/env/evidence.json\""
                .to_owned(),
            "\"--state\",\"/env/state.json\"]".to_owned(),
        ] {
            assert!(
                dockerfile.contains(&needle),
                "{name}: {needle} in\n{dockerfile}"
            );
        }

        // The verifier: the only file of its artifact, checking the predicted count.
        let verify = text(&bundle.join(format!("artifacts/check_{name}/verify.py")));
        // contract: EXPORT-055
        assert!(verify.contains("async def verify(mcp_url):"));
        // contract: EXPORT-056
        assert!(verify.contains(&format!("EXPECTED_TOOLS = {tool_count}  #")));
        // contract: EXPORT-060
        assert!(verify.contains("\"id\": \"serve\""));

        // The task.
        let task: Value = serde_json::from_str(&text(&bundle.join("tasks/smoke.json"))).unwrap();
        // contract: EXPORT-012, EXPORT-067
        assert_eq!(task[0]["type"], "deploy_env");
        assert_eq!(task[0]["env_id"], name.as_str());
        assert_eq!(task[0]["sandbox_type"], "local");
        assert_eq!(task[1]["type"], "env_outcome_verifier");
        assert_eq!(task[1]["file_artifact_id"], format!("check_{name}"));

        // The README: a one-sentence first line, provenance, mode, run command, rights.
        let readme = text(&bundle.join("README.md"));
        let first = readme.lines().next().unwrap_or_default();
        assert!(!first.starts_with('#') && first.ends_with('.'), "{first}");
        assert_eq!(first.matches(". ").count(), 0, "one sentence: {first}");
        let artifact_sha = capture
            .get("artifact")
            .and_then(|artifact| artifact.get("sha256"))
            .and_then(Json::as_str)
            .expect("artifact.sha256");
        let manifest_digest =
            rea_evidence::sha256_hex(&std::fs::read(env.join("manifest.json")).unwrap());
        let package_sha = string(&report["package_source"]["sha256"]);
        for needle in [
            // contract: EXPORT-069
            artifact_sha,
            // contract: EXPORT-075
            package_sha,
            // contract: EXPORT-070
            capture.id(),
            // contract: EXPORT-071
            manifest.id(),
            // contract: EXPORT-072
            manifest_digest.as_str(),
            // contract: EXPORT-076
            "agent-env run .",
            // contract: EXPORT-077
            "serves the write tools whose effect the capture's later reads confirmed",
            "offers the `/agentenv` data plane on that state",
            // contract: EXPORT-078
            "When the state is unavailable, it serves replay",
            // contract: EXPORT-079
            "`rea environment-serve --replay-only` serves pure replay",
            // contract: EXPORT-082
            "Neither is an emulation of the application",
            "untrusted",
            // contract: EXPORT-083
            "Do not publish this bundle without the rights",
        ] {
            assert!(readme.contains(needle), "{name}: {needle}");
        }
        // contract: EXPORT-073
        assert!(readme.contains(&format!("Served tools: {tool_count}")));
        if served {
            // contract: EXPORT-080
            assert!(readme.contains("This bundle serves **from the state**"));
            // contract: EXPORT-074
            assert!(readme.contains(string(&report["state"]["evidence_id"])));
        } else {
            assert!(readme.contains("This bundle serves **replay**"));
            assert!(readme.contains(string(&report["state"]["code"])));
        }
    }
    assert!(
        served_from_state > 0,
        "no shared capture serves from the state: the state branch's ids went unchecked"
    );
}

#[test]
fn the_build_writes_what_the_separate_commands_write() {
    for (name, har) in build_captures() {
        let dir = tempfile::tempdir().expect("temp dir");
        let work = dir.path();
        let binary = stand_in_binary(work).display().to_string();
        let har_text = har.display().to_string();

        let built = report(&run(
            work,
            &[
                "environment-build",
                &har_text,
                "built",
                "--name",
                &name,
                "--binary",
                &binary,
                "--json",
            ],
        ));

        inspect_into(work, &har, "capture.json");
        project_into(work, "capture.json", &DEFAULT_RULES, "manifest.json");
        let exported = report(&run(
            work,
            &[
                "environment-export",
                "manifest.json",
                "--evidence",
                "capture.json",
                "exported",
                "--name",
                &name,
                "--binary",
                &binary,
                "--json",
            ],
        ));
        let from_evidence = report(&run(
            work,
            &[
                "environment-build",
                "capture.json",
                "from-evidence",
                "--name",
                &name,
                "--binary",
                &binary,
                "--json",
            ],
        ));

        let built_tree = snapshot(&work.join("built"));
        assert!(!built_tree.is_empty());
        // contract: EXPORT-001 (`environment-export MANIFEST --evidence CAPTURE DIR` wrote the
        // pair as a bundle folder `agent-env run DIR` runs: the build's layout, checked above)
        let exported_dir = std::path::absolute(work.join("exported")).unwrap();
        assert_eq!(
            (&exported["status"], &exported["next"]),
            (
                &json!("built"),
                &json!([format!("agent-env run {}", exported_dir.display())])
            ),
            "{name}"
        );
        // contract: BUILD-007, BUILD-008 (file for file, byte for byte)
        assert!(
            built_tree == snapshot(&work.join("exported")),
            "{name}: environment-build and the separate commands wrote different bundles"
        );
        // contract: BUILD-005 (Evidence input skips inspection and builds the same bundle)
        assert!(
            built_tree == snapshot(&work.join("from-evidence")),
            "{name}: building from the capture Evidence wrote a different bundle"
        );
        // contract: EXPORT-028 (`--name` names the env folder), EXPORT-010, EXPORT-018 (the
        // capture the export authenticated, byte-exact)
        assert_eq!(
            std::fs::read(work.join("capture.json")).unwrap(),
            std::fs::read(work.join(format!("exported/envs/{name}/evidence.json"))).unwrap()
        );
        // contract: EXPORT-009, BUILD-002 (the manifest of the pair, byte-exact)
        assert_eq!(
            std::fs::read(work.join("manifest.json")).unwrap(),
            std::fs::read(work.join(format!("exported/envs/{name}/manifest.json"))).unwrap()
        );
        // contract: EXPORT-003 (`--json` prints the report the build prints)
        for key in ["tool_count", "state", "files", "manifest"] {
            assert_eq!(built[key], exported[key], "{name}: {key}");
        }
        assert_eq!(
            built["capture"]["evidence_id"],
            exported["capture"]["evidence_id"]
        );
        assert_eq!(exported["capture"]["input"], "evidence");
        assert_eq!(from_evidence["capture"]["input"], "evidence");
    }
}

// contract: EXPORT-007, EXPORT-036
#[test]
fn the_bundle_carries_the_running_binary_by_default() {
    let dir = tempfile::tempdir().expect("temp dir");
    let har = har("tiddlywiki").display().to_string();
    let report = report(&run(
        dir.path(),
        &[
            "environment-build",
            &har,
            "bundle",
            "--name",
            "wiki",
            "--json",
        ],
    ));
    let running = std::fs::read(rea()).expect("the binary under test");
    assert_eq!(report["package_source"]["kind"], "running-binary");
    // The bundle ships the running binary without its debug sections and symbol table,
    // executable by its owner.
    let bundled_path = dir.path().join("bundle/envs/wiki/bin/rea");
    let bundled = std::fs::read(&bundled_path).expect("bin/rea");
    assert_eq!(
        report["package_source"]["debug_info"]["source_sha256"],
        rea_evidence::sha256_hex(&running)
    );
    assert_eq!(report["package_source"]["debug_info"]["shipped"], false);
    assert_eq!(
        report["package_source"]["sha256"],
        rea_evidence::sha256_hex(&bundled)
    );
    assert_eq!(report["package_source"]["bytes"], bundled.len() as u64);
    assert!(
        bundled.len() < running.len(),
        "stripped {} of {} bytes",
        bundled.len(),
        running.len()
    );
    // A debug section the loader maps (`.debug_gdb_scripts`) is part of the image and stays.
    let has_debug = |bytes: &[u8]| {
        use object::{Object, ObjectSection};
        let file = object::File::parse(bytes).expect("an ELF file");
        file.sections().any(|section| {
            let mapped = matches!(
                section.flags(),
                object::SectionFlags::Elf { sh_flags, .. } if sh_flags.contains(object::elf::SHF_ALLOC)
            );
            !mapped && section.name().is_ok_and(|name| name.starts_with(".debug_"))
        })
    };
    assert!(has_debug(&running), "the test binary has line tables");
    assert!(!has_debug(&bundled), "bin/rea still carries .debug_line");
    let symbols = |bytes: &[u8]| {
        use object::Object;
        object::File::parse(bytes)
            .expect("an ELF file")
            .symbols()
            .count()
    };
    assert!(symbols(&running) > 0, "the test binary has a symbol table");
    assert_eq!(symbols(&bundled), 0, "bin/rea still carries .symtab");
    // It runs as written, from the bundle, and is the same rea.
    let version = std::process::Command::new(&bundled_path)
        .arg("--version")
        .output()
        .expect("bin/rea runs");
    assert!(version.status.success());
    assert_eq!(
        String::from_utf8_lossy(&version.stdout).trim(),
        format!("rea {}", env!("CARGO_PKG_VERSION"))
    );
}

// contract: BUILD-028, BUILD-029
#[test]
fn a_dry_run_runs_every_stage_and_writes_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path();
    let binary = stand_in_binary(work).display().to_string();
    let har = har("json-server").display().to_string();
    let before = snapshot(work);

    let planned = report(&run(
        work,
        &[
            "environment-build",
            &har,
            "bundle",
            "--name",
            "js",
            "--binary",
            &binary,
            "--dry-run",
            "--json",
        ],
    ));
    assert_eq!(planned["status"], "planned");
    assert!(
        !work.join("bundle").exists(),
        "a dry run wrote the directory"
    );
    assert_eq!(snapshot(work), before);

    // Without a directory, and with an occupied one (not checked).
    let nowhere = report(&run(
        work,
        &[
            "environment-build",
            &har,
            "--name",
            "js",
            "--binary",
            &binary,
            "--dry-run",
            "--json",
        ],
    ));
    assert_eq!(nowhere["status"], "planned");
    assert_eq!(nowhere["directory"], Value::Null);
    std::fs::create_dir(work.join("occupied")).unwrap();
    std::fs::write(work.join("occupied/keep"), b"mine").unwrap();
    let before = snapshot(work);
    let occupied = report(&run(
        work,
        &[
            "environment-build",
            &har,
            "occupied",
            "--name",
            "js",
            "--binary",
            &binary,
            "--dry-run",
            "--json",
        ],
    ));
    assert_eq!(occupied["status"], "planned");
    assert_eq!(snapshot(work), before);

    // The plan is what a build writes.
    let built = report(&run(
        work,
        &[
            "environment-build",
            &har,
            "bundle",
            "--name",
            "js",
            "--binary",
            &binary,
            "--json",
        ],
    ));
    assert_eq!(built["status"], "built");
    for key in [
        "files",
        "tool_count",
        "state",
        "capture",
        "manifest",
        "warnings",
    ] {
        assert_eq!(planned[key], built[key], "{key}");
    }

    // A dry run reads the bundled binary as a build does: a binary it cannot copy is refused.
    let before = snapshot(work);
    let refused = refusal(&run(
        work,
        &[
            "environment-build",
            &har,
            "--name",
            "js",
            "--binary",
            "occupied",
            "--dry-run",
            "--json",
        ],
    ));
    assert_eq!(refused["pointer"], "/binary", "{refused}");
    assert_eq!(snapshot(work), before);
}

#[test]
fn template_rules_are_the_default_four_replaced_or_none() {
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path();
    let binary = stand_in_binary(work).display().to_string();
    let har = har("tiddlywiki").display().to_string();
    let plan = |extra: &[&str]| {
        let mut args = vec![
            "environment-build",
            har.as_str(),
            "--binary",
            binary.as_str(),
            "--dry-run",
            "--json",
        ];
        args.extend_from_slice(extra);
        run(work, &args)
    };
    // contract: BUILD-012, BUILD-016
    assert_eq!(
        report(&plan(&[]))["manifest"]["template_rules"],
        json!(DEFAULT_RULES)
    );
    // contract: BUILD-014
    assert_eq!(
        report(&plan(&["--format-rules-only"]))["manifest"]["template_rules"],
        json!([])
    );
    // contract: BUILD-013, BUILD-015 (two rules replace the four, in the views' order)
    assert_eq!(
        report(&plan(&[
            "--template-rule",
            "prefix-variance",
            "--template-rule",
            "after-uid-literal"
        ]))["manifest"]["template_rules"],
        json!(["after-uid-literal", "prefix-variance"])
    );
    let repeated = refusal(&plan(&[
        "--template-rule",
        "opaque-token",
        "--template-rule",
        "opaque-token",
    ]));
    // contract: BUILD-017
    assert_eq!(repeated["code"], "invalid_request");
    assert_eq!(repeated["stage"], "environment-build");
    assert_eq!(repeated["pointer"], "/template_rules/1");
    let unknown = refusal(&plan(&["--template-rule", "guess"]));
    assert_eq!(unknown["code"], "invalid_request");
    // The same rules give the manifest `inspect-analysis-view` projects with them.
    inspect_into(work, Path::new(&har), "capture.json");
    let manifest = project_into(
        work,
        "capture.json",
        &["after-uid-literal", "prefix-variance"],
        "m.json",
    );
    let manifest = Evidence::authenticate(&std::fs::read(manifest).unwrap()).unwrap();
    assert_eq!(
        report(&plan(&[
            "--template-rule",
            "prefix-variance",
            "--template-rule",
            "after-uid-literal"
        ]))["manifest"]["evidence_id"],
        manifest.id()
    );
}

#[test]
fn names_come_from_the_option_the_manifest_or_the_capture_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path();
    let binary = stand_in_binary(work).display().to_string();
    let har_path = har("json-server");
    let har = har_path.display().to_string();

    // A loopback origin: the capture file names it, with a warning.
    let by_file = report(&run(
        work,
        &[
            "environment-build",
            &har,
            "--binary",
            &binary,
            "--dry-run",
            "--json",
        ],
    ));
    // `build.har` is a generic file name: the folder holding it names the environment.
    // contract: BUILD-020
    assert_eq!(by_file["name"], "json-server");
    let codes: Vec<&str> = by_file["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|warning| string(&warning["code"]))
        .collect();
    // contract: BUILD-021
    assert!(codes.contains(&"name-from-file"), "{codes:?}");
    assert!(!codes.contains(&"generic-name"), "{codes:?}");
    assert!(
        by_file["files"]
            .as_array()
            .unwrap()
            .iter()
            .any(|file| file["path"] == "envs/json-server/env.toml")
    );

    // A generic file name in a folder that cannot name it either keeps the file's name, with a
    // `generic-name` warning, also in the text report.
    let generic_dir = work.join("My Captures");
    std::fs::create_dir(&generic_dir).unwrap();
    std::fs::copy(&har_path, generic_dir.join("build.har")).unwrap();
    let generic = run(
        work,
        &[
            "environment-build",
            "My Captures/build.har",
            "--binary",
            &binary,
            "--dry-run",
        ],
    );
    assert_eq!(generic.code, Some(0), "{}", generic.stderr);
    assert!(
        generic.stdout.contains("generic-name"),
        "{}",
        generic.stdout
    );
    assert!(generic.stdout.contains("pass --name"), "{}", generic.stdout);

    // `NAME.capture.json` names it NAME.
    inspect_into(work, &har_path, "json-server.capture.json");
    let by_evidence = report(&run(
        work,
        &[
            "environment-build",
            "json-server.capture.json",
            "--binary",
            &binary,
            "--dry-run",
            "--json",
        ],
    ));
    // contract: BUILD-020 (`NAME.capture.json` becomes NAME)
    assert_eq!(by_evidence["name"], "json-server");

    // --name names the env folder and id.
    let named = report(&run(
        work,
        &[
            "environment-build",
            &har,
            "b",
            "--name",
            "posts",
            "--binary",
            &binary,
            "--json",
        ],
    ));
    // contract: BUILD-018
    assert_eq!(named["name"], "posts");
    assert!(
        !named["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|warning| warning["code"] == "name-from-file")
    );
    assert!(text(&work.join("b/envs/posts/env.toml")).contains("id = \"@local/posts\""));

    // The export keeps the manifest's name.
    let manifest = project_into(
        work,
        "json-server.capture.json",
        &DEFAULT_RULES,
        "manifest.json",
    );
    let manifest_name = Evidence::authenticate(&std::fs::read(manifest).unwrap())
        .unwrap()
        .get("name")
        .and_then(Json::as_str)
        .unwrap()
        .to_owned();
    let exported = report(&run(
        work,
        &[
            "environment-export",
            "manifest.json",
            "--evidence",
            "json-server.capture.json",
            "e",
            "--binary",
            &binary,
            "--json",
        ],
    ));
    // contract: EXPORT-027
    assert_eq!(exported["name"], manifest_name.as_str());
    assert!(work.join("e/envs").join(&manifest_name).is_dir());
}

/// A HAR of one remote request carrying credential-like names.
fn credential_har() -> String {
    json!({"log": {
        "version": "1.2",
        "creator": {"name": "rea-tests", "version": "1"},
        "entries": [{
            "startedDateTime": "2024-01-01T00:00:00.000Z",
            "time": 1,
            "request": {
                "method": "GET",
                "url": "https://api.example.com/items?access_token=qval-secret-1",
                "httpVersion": "HTTP/1.1",
                "headers": [{"name": "X-Api-Key", "value": "hval-secret-2"}],
                "queryString": [{"name": "access_token", "value": "qval-secret-1"}],
                "cookies": [],
                "headersSize": -1,
                "bodySize": 0
            },
            "response": {
                "status": 200,
                "statusText": "OK",
                "httpVersion": "HTTP/1.1",
                "headers": [{"name": "Content-Type", "value": "application/json"}],
                "cookies": [],
                "content": {
                    "size": 40,
                    "mimeType": "application/json",
                    "text": "{\"items\": [{\"id\": 1, \"token\": \"bval-secret-3\"}]}"
                },
                "redirectURL": "",
                "headersSize": -1,
                "bodySize": 40
            },
            "cache": {},
            "timings": {"send": 0, "wait": 1, "receive": 0}
        }]
    }})
    .to_string()
}

#[test]
fn credential_like_names_are_warned_by_record_and_pointer_never_by_value() {
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path();
    std::fs::write(work.join("api.har"), credential_har()).unwrap();
    let binary = stand_in_binary(work).display().to_string();
    let run = run(
        work,
        &[
            "environment-build",
            "api.har",
            "bundle",
            "--binary",
            &binary,
            "--json",
        ],
    );
    // contract: BUILD-083 (built, not refused)
    let report = report(&run);
    // A remote origin keeps the manifest's name.
    // contract: BUILD-019
    assert_eq!(report["name"], "api-example-com");
    let warning = report["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|warning| warning["code"] == "credential-named-members")
        .unwrap_or_else(|| panic!("no credential warning: {report}"))
        .clone();
    // contract: BUILD-071
    assert_eq!(warning["count"], 3);
    // contract: BUILD-072, BUILD-073 (by record and pointer)
    assert_eq!(
        warning["items"],
        json!([
            "record 0 request header X-Api-Key",
            "record 0 query access_token",
            "record 0 response /items/0/token"
        ])
    );
    for value in ["qval-secret-1", "hval-secret-2", "bval-secret-3"] {
        // contract: BUILD-073 (never by value)
        assert!(!run.stdout.contains(value), "{value} is in the report");
        assert!(!run.stderr.contains(value), "{value} is on stderr");
    }
    // The values remain in the bundle's Evidence: the warning is about them.
    let evidence = text(&work.join("bundle/envs/api-example-com/evidence.json"));
    // contract: BUILD-069
    assert!(evidence.contains("hval-secret-2") && evidence.contains("bval-secret-3"));
}

// contract: BUILD-004
#[test]
fn a_pipeline_and_its_plugin_libraries_travel_with_the_bundle() {
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path();
    let library = rea_tests::built_library("rea_example_revision_counter");
    let pipeline = format!(
        "# a pipeline with a third-party rule\n[[plugins]]\npath = {}\n\n[capture.extractors]\nhar = \"har\"\n\n[manifest]\ntemplate_rules = [\"after-uid-literal\", \"opaque-token\"]\n\n[[rules]]\nstage = \"revision-counter\"\noptions = {{ fields = [\"version\"] }}\n",
        json!(library.display().to_string())
    );
    std::fs::write(work.join("pipeline.toml"), &pipeline).unwrap();
    let binary = stand_in_binary(work).display().to_string();
    let har = har("kinto").display().to_string();
    let report = report(&run(
        work,
        &[
            "environment-build",
            &har,
            "bundle",
            "--name",
            "kinto",
            "--pipeline",
            "pipeline.toml",
            "--binary",
            &binary,
            "--json",
        ],
    ));
    // The pipeline's rules are the build's default.
    assert_eq!(
        report["manifest"]["template_rules"],
        json!(["after-uid-literal", "opaque-token"])
    );
    let env = work.join("bundle/envs/kinto");
    let file = library.file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(
        std::fs::read(env.join("plugins").join(&file)).unwrap(),
        std::fs::read(&library).unwrap()
    );
    let bundled = text(&env.join("pipeline.toml"));
    assert!(bundled.starts_with("# a pipeline with a third-party rule\n"));
    assert!(
        bundled.contains(&format!("path = \"plugins/{file}\"")),
        "{bundled}"
    );
    assert!(bundled.contains("stage = \"revision-counter\""));
    assert!(text(&env.join("Dockerfile")).contains("COPY --chown=rea:rea plugins/ /env/plugins/"));
    // The bundled pipeline loads its library from inside the bundle.
    let pipeline_path = env.join("pipeline.toml").display().to_string();
    let check = run(work, &["pipeline", "check", &pipeline_path, "--json"]);
    assert_eq!(check.code, Some(0), "{}", check.stderr);
    let resolved: Value = serde_json::from_str(&check.stdout).unwrap();
    let loaded = string(&resolved["libraries"][0]["path"]);
    assert!(
        Path::new(loaded).starts_with(&env),
        "the bundled pipeline loads {loaded}, outside the bundle"
    );
}

// contract: BUILD-042, BUILD-043, EXPORT-036
#[test]
fn progress_goes_to_stderr_and_the_report_alone_to_stdout() {
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path();
    let binary = stand_in_binary(work).display().to_string();
    let har_path = har("tiddlywiki");
    let har = har_path.display().to_string();
    let built = run(
        work,
        &[
            "environment-build",
            &har,
            "bundle",
            "--name",
            "wiki",
            "--binary",
            &binary,
            "--json",
        ],
    );
    // stdout: one JSON document, the report.
    let report = report(&built);
    assert_eq!(report["status"], "built");
    let documents = serde_json::Deserializer::from_str(&built.stdout)
        .into_iter::<Value>()
        .count();
    assert_eq!(documents, 1, "{}", built.stdout);
    // stderr: a JSON log line at info level per stage, in order.
    let stages: Vec<String> = built
        .stderr
        .lines()
        .map(|line| {
            serde_json::from_str::<Value>(line).unwrap_or_else(|_| panic!("not JSON: {line}"))
        })
        .filter(|line| line["level"] == "info")
        .filter_map(|line| line["stage"].as_str().map(str::to_owned))
        .collect();
    for stage in ["inspect", "manifest", "state", "scan", "plan", "write"] {
        assert!(
            stages.iter().any(|seen| seen == stage),
            "{stage}: {stages:?}"
        );
    }
    let position = |stage: &str| stages.iter().position(|seen| seen == stage).unwrap();
    assert!(position("inspect") < position("manifest") && position("state") < position("write"));

    // Without --json the report is text on stdout: files, the package source, what next.
    inspect_into(work, &har_path, "capture.json");
    project_into(work, "capture.json", &DEFAULT_RULES, "manifest.json");
    let exported = run(
        work,
        &[
            "environment-export",
            "manifest.json",
            "--evidence",
            "capture.json",
            "text",
            "--name",
            "wiki",
            "--binary",
            &binary,
        ],
    );
    assert_eq!(exported.code, Some(0), "{}", exported.stderr);
    let sha = rea_evidence::sha256_hex(&std::fs::read(work.join("rea-stand-in")).unwrap());
    assert!(
        exported
            .stdout
            .contains(&format!("package binary {binary} ("))
            && exported.stdout.contains(&sha),
        "{}",
        exported.stdout
    );
    assert!(exported.stdout.contains("envs/wiki/evidence.json"));
    assert!(exported.stdout.contains("next: agent-env run "));
    assert!(
        !exported.stdout.contains("\"level\""),
        "log lines on stdout"
    );
}

// contract: BUILD-068
#[test]
fn standard_authentication_values_do_not_reach_the_bundle() {
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path();
    let har = json!({"log": {
        "version": "1.2",
        "creator": {"name": "rea-tests", "version": "1"},
        "entries": [{
            "startedDateTime": "2024-01-01T00:00:00.000Z",
            "time": 1,
            "request": {
                "method": "GET",
                "url": "https://someone:userinfo-secret-1@api.example.com/items",
                "httpVersion": "HTTP/1.1",
                "headers": [
                    {"name": "Authorization", "value": "Bearer auth-secret-2"},
                    {"name": "Cookie", "value": "sid=cookie-secret-3"},
                    {"name": "Proxy-Authorization", "value": "Basic proxy-secret-4"}
                ],
                "queryString": [],
                "cookies": [{"name": "sid", "value": "cookie-secret-3"}],
                "headersSize": -1,
                "bodySize": 0
            },
            "response": {
                "status": 200,
                "statusText": "OK",
                "httpVersion": "HTTP/1.1",
                "headers": [
                    {"name": "Content-Type", "value": "application/json"},
                    {"name": "Set-Cookie", "value": "sid=set-cookie-secret-5; HttpOnly"}
                ],
                "cookies": [{"name": "sid", "value": "set-cookie-secret-5"}],
                "content": {"size": 11, "mimeType": "application/json", "text": "{\"items\":[]}"},
                "redirectURL": "",
                "headersSize": -1,
                "bodySize": 11
            },
            "cache": {},
            "timings": {"send": 0, "wait": 1, "receive": 0}
        }]
    }});
    std::fs::write(work.join("auth.har"), har.to_string()).unwrap();
    let binary = stand_in_binary(work).display().to_string();
    let built = run(
        work,
        &[
            "environment-build",
            "auth.har",
            "bundle",
            "--name",
            "auth",
            "--binary",
            &binary,
            "--json",
        ],
    );
    let report = report(&built);
    assert_eq!(report["status"], "built");
    let bundle = work.join("bundle");
    let evidence = text(&bundle.join("envs/auth/evidence.json"));
    // The request is there; the authentication values are not, anywhere in the bundle.
    assert!(evidence.contains("/items"), "{evidence}");
    for path in files(&bundle) {
        let bytes = std::fs::read(bundle.join(&path)).unwrap();
        let content = String::from_utf8_lossy(&bytes);
        for secret in [
            "userinfo-secret-1",
            "auth-secret-2",
            "cookie-secret-3",
            "proxy-secret-4",
            "set-cookie-secret-5",
        ] {
            assert!(!content.contains(secret), "{secret} in {path}");
        }
    }
    for secret in ["auth-secret-2", "cookie-secret-3", "set-cookie-secret-5"] {
        assert!(!built.stdout.contains(secret) && !built.stderr.contains(secret));
    }
}

/// Runs `rea` under `strace -e trace=open,openat,openat2` in `work`; returns the exit code and
/// the traced open calls.
fn traced_opens(work: &Path, args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, Vec<String>) {
    let trace = work.join("opens.trace");
    let mut command = std::process::Command::new("strace");
    command
        .args([
            "-f",
            "-qq",
            "-s",
            "512",
            "-e",
            "trace=open,openat,openat2",
            "-o",
        ])
        .arg(&trace)
        .arg(rea())
        .args(args)
        .current_dir(work)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    for (name, value) in env {
        command.env(name, value);
    }
    let status = command.status().expect("strace");
    let lines = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    std::fs::remove_file(&trace).unwrap();
    (status.code(), lines)
}

// contract: EXPORT-013, EXPORT-015
#[test]
fn the_export_opens_each_input_once_and_none_that_does_not_fit() {
    rea_tests::require_strace();
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path();
    let binary = stand_in_binary(work).display().to_string();
    inspect_into(work, &har("kinto"), "the-capture.json");
    project_into(
        work,
        "the-capture.json",
        &DEFAULT_RULES,
        "the-manifest.json",
    );
    let args = [
        "environment-export",
        "the-manifest.json",
        "--evidence",
        "the-capture.json",
        "bundle",
        "--binary",
        binary.as_str(),
        "--json",
    ];
    let opened = |lines: &[String], file: &str| {
        lines
            .iter()
            .filter(|line| line.contains(&format!("{file}\"")) && !line.contains("ENOENT"))
            .count()
    };
    let (code, lines) = traced_opens(work, &args, &[]);
    assert_eq!(code, Some(0));
    assert!(work.join("bundle").is_dir());
    assert_eq!(opened(&lines, "the-manifest.json"), 1, "{lines:#?}");
    assert_eq!(opened(&lines, "the-capture.json"), 1, "{lines:#?}");

    // Inputs that do not fit the heap headroom are refused without being opened.
    let (code, lines) = traced_opens(
        work,
        &[&args[..4], &["second"], &args[5..]].concat(),
        &[("REA_TEST_HEAP_HEADROOM", "1000")],
    );
    assert_eq!(code, Some(1));
    assert!(!work.join("second").exists());
    assert_eq!(opened(&lines, "the-manifest.json"), 0, "{lines:#?}");
    assert_eq!(opened(&lines, "the-capture.json"), 0, "{lines:#?}");
}

#[test]
fn the_build_reads_its_capture_writes_one_folder_and_fetches_nothing() {
    rea_tests::require_strace();
    let dir = tempfile::tempdir().expect("temp dir");
    let work = std::path::absolute(dir.path()).unwrap();
    let binary = stand_in_binary(&work).display().to_string();
    let har_path = har("json-server").display().to_string();
    let trace = work.join("trace.txt");
    let status = std::process::Command::new("strace")
        .args(["-f", "-qq", "-s", "512", "-e"])
        .arg("trace=execve,execveat,fork,vfork,clone,clone3,connect,open,openat,openat2,creat,mkdir,mkdirat")
        .arg("-o")
        .arg(&trace)
        .arg(rea())
        .args(["environment-build", &har_path, "bundle", "--binary", &binary])
        .args(["--name", "json-server", "--json"])
        .current_dir(&work)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("strace");
    assert_eq!(status.code(), Some(0));
    let lines: Vec<String> = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    // The bundle folder, written whole under a staging name beside it first.
    let bundle = work.join("bundle").display().to_string();
    let staging = work.join(".bundle.partial-").display().to_string();
    // The paths a traced line names (its quoted arguments).
    let paths = |line: &str| -> Vec<String> {
        line.split('"')
            .skip(1)
            .step_by(2)
            .map(|path| {
                if path.starts_with('/') {
                    path.to_owned()
                } else {
                    format!("{}/{path}", work.display())
                }
            })
            .collect()
    };
    // contract: BUILD-009 (it reads the capture it was given)
    assert!(
        rea_tests::strace_calls(&lines, "openat")
            .iter()
            .chain(&rea_tests::strace_calls(&lines, "open"))
            .any(|line| line.contains(&format!("\"{har_path}\""))),
        "{lines:#?}"
    );
    // contract: BUILD-009 (everything it writes is in the one bundle folder)
    for name in ["open", "openat", "openat2", "creat", "mkdir", "mkdirat"] {
        for line in rea_tests::strace_calls(&lines, name) {
            let writes = name.starts_with("creat")
                || name.starts_with("mkdir")
                || ["O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC"]
                    .iter()
                    .any(|flag| line.contains(flag));
            if writes && !line.contains("ENOENT") {
                assert!(
                    paths(line)
                        .iter()
                        .any(|path| path.starts_with(&bundle) || path.starts_with(&staging)),
                    "written outside the bundle: {line}"
                );
            }
        }
    }
    let mut left: Vec<String> = std::fs::read_dir(&work)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["bundle", "rea-stand-in", "trace.txt"]);
    // contract: BUILD-009 (it fetches nothing and launches no browser: no connection leaves the
    // machine, and the only program run is rea itself)
    for line in rea_tests::strace_calls(&lines, "connect") {
        assert!(!line.contains("AF_INET"), "a network connection: {line}");
    }
    assert_eq!(
        rea_tests::strace_calls(&lines, "execve").len(),
        1,
        "{lines:#?}"
    );
    assert!(
        rea_tests::strace_calls(&lines, "execveat").is_empty()
            && rea_tests::strace_calls(&lines, "fork").is_empty()
            && rea_tests::strace_calls(&lines, "vfork").is_empty(),
        "{lines:#?}"
    );
    for clone in rea_tests::strace_calls(&lines, "clone")
        .into_iter()
        .chain(rea_tests::strace_calls(&lines, "clone3"))
    {
        assert!(
            clone.contains("CLONE_THREAD"),
            "a process was launched: {clone}"
        );
    }
}

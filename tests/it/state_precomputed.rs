//! Precomputed state (`rea_state::precomputed`, issue 17): the state, write plans and cited
//! records a bundle stores read back exactly (every shared and corpus capture: the same bytes
//! written again, the same Evidence id sealed again, the same records; a server reads the same
//! state and the part of each record it reads); another evidence file (its SHA-256), a key that
//! differs in any other member, a changed body or another format is not used; a bundle's server reads its `state.json` and answers as a deriving server does; a
//! `state.json` of another capture, a damaged one, or one whose evidence file changed is not
//! served (the server derives, saying why).

use crate::bundle_support;
use crate::serve_support;
use crate::state_support;

use std::path::{Path, PathBuf};

use rea_evidence::capture::capture_records;
use rea_state::precomputed::{
    ExpectedInputs, PrecomputedState, Provenance, StateFacts, StateKey, read_precomputed,
    read_served_from, served_part, write_precomputed,
};
use serde_json::{Value, json};
use serve_support::process::{Server, call_tool, tools_list};

fn provenance() -> Provenance {
    Provenance {
        deriver: "rea test build-id 00".to_owned(),
        pipeline: "pipeline-digest".to_owned(),
    }
}

/// Every capture with a `build.har`: the shared ones and the recorded corpus.
pub(crate) fn every_capture() -> Vec<PathBuf> {
    let mut captures: Vec<PathBuf> = bundle_support::build_captures()
        .into_iter()
        .map(|(_, path)| path)
        .collect();
    let corpus = rea_tests::workspace_root().join("tests/corpus/apps");
    let mut recorded: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .expect("the corpus")
        .filter_map(Result::ok)
        .map(|entry| entry.path().join("build.har"))
        .filter(|path| path.is_file())
        .collect();
    recorded.sort();
    assert!(recorded.len() >= 2, "the corpus has fewer than two apps");
    captures.extend(recorded);
    captures
}

const EVIDENCE_SHA256: &str = "e0";

fn expected<'a>(manifest_evidence_id: &'a str, provenance: &'a Provenance) -> ExpectedInputs<'a> {
    ExpectedInputs {
        evidence_sha256: EVIDENCE_SHA256,
        manifest_evidence_id,
        provenance,
    }
}

#[test]
fn every_capture_state_reads_back_exactly() {
    let rules = state_support::state_rules();
    let provenance = provenance();
    for path in every_capture() {
        let capture = state_support::capture_file(&path);
        let projected =
            rea_state::project_state_evidence(&capture, &state_support::rules(), &rules)
                .unwrap_or_else(|refusal| panic!("{}: {refusal:?}", path.display()));
        let manifest_id = projected.state.manifest_evidence_id.clone();
        let key = StateKey::new(capture.id(), &manifest_id, &provenance);
        let id = projected.evidence.id();
        let records = capture_records(&capture).unwrap();
        let facts = StateFacts {
            state_evidence_id: id,
            data_get_bytes: 1234,
            key: &key,
            evidence_sha256: EVIDENCE_SHA256,
        };
        let bytes = write_precomputed(&projected.state, &records, &facts).unwrap();
        let loaded: PrecomputedState =
            read_precomputed(&bytes, &expected(&manifest_id, &provenance))
                .unwrap_or_else(|reason| panic!("{}: {reason}", path.display()));
        assert_eq!(loaded.state_evidence_id, id);
        assert_eq!(loaded.capture_evidence_id, capture.id());
        assert_eq!(loaded.data_get_bytes, 1234);
        assert!(
            loaded.records == records,
            "{}: the records changed",
            path.display()
        );
        // The state read back writes the same bytes and seals the same Evidence id.
        let again = write_precomputed(&loaded.state, &loaded.records, &facts).unwrap();
        assert!(again == bytes, "{}: the state changed", path.display());
        // A server reads the same state and the part of each record it reads.
        let served = read_served_from(bytes.as_slice(), &expected(&manifest_id, &provenance))
            .unwrap_or_else(|reason| panic!("{}: {reason}", path.display()));
        let parts: Vec<_> = records.iter().map(served_part).collect();
        assert!(
            served.records == parts,
            "{}: the served records changed",
            path.display()
        );
        let served_again = write_precomputed(&served.state, &loaded.records, &facts).unwrap();
        assert!(
            served_again == bytes,
            "{}: the served state changed",
            path.display()
        );
        let resealed = rea_state::seal_state(&loaded.state).unwrap();
        assert_eq!(resealed.id(), id, "{}", path.display());
    }
}

#[test]
fn a_precomputed_state_of_other_inputs_or_damaged_is_not_used() {
    let path = bundle_support::har("json-server");
    let capture = state_support::capture_file(&path);
    let projected = rea_state::project_state_evidence(
        &capture,
        &state_support::rules(),
        &state_support::state_rules(),
    )
    .unwrap();
    let manifest_id = projected.state.manifest_evidence_id.clone();
    let provenance = provenance();
    let key = StateKey::new(capture.id(), &manifest_id, &provenance);
    let records = capture_records(&capture).unwrap();
    let facts = StateFacts {
        state_evidence_id: projected.evidence.id(),
        data_get_bytes: 10,
        key: &key,
        evidence_sha256: EVIDENCE_SHA256,
    };
    let bytes = write_precomputed(&projected.state, &records, &facts).unwrap();
    assert!(read_precomputed(&bytes, &expected(&manifest_id, &provenance)).is_ok());

    let other = |evidence: &str, manifest: &str, provenance: &Provenance| {
        let expected = ExpectedInputs {
            evidence_sha256: evidence,
            manifest_evidence_id: manifest,
            provenance,
        };
        read_precomputed(&bytes, &expected).map(|_| ()).unwrap_err()
    };
    let reason = other("e1", &manifest_id, &provenance);
    assert!(
        reason.contains("capture Evidence file of SHA-256 e0, not e1"),
        "{reason}"
    );
    let reason = other(EVIDENCE_SHA256, "ev_other", &provenance);
    assert!(
        reason.contains(&format!("manifest Evidence {manifest_id}, not ev_other")),
        "{reason}"
    );
    let pipeline = Provenance {
        pipeline: "another pipeline".to_owned(),
        ..provenance.clone()
    };
    let reason = other(EVIDENCE_SHA256, &manifest_id, &pipeline);
    assert!(
        reason.contains("pipeline pipeline-digest, not another pipeline"),
        "{reason}"
    );
    let build = Provenance {
        deriver: "rea test build-id 01".to_owned(),
        ..provenance.clone()
    };
    let reason = other(EVIDENCE_SHA256, &manifest_id, &build);
    assert!(
        reason.contains("rea build rea test build-id 00"),
        "{reason}"
    );

    // A changed body (one byte), a cut one, no header line, another version.
    let read = |bytes: &[u8]| {
        read_precomputed(bytes, &expected(&manifest_id, &provenance))
            .map(|_| ())
            .unwrap_err()
    };
    let split = bytes.iter().position(|byte| *byte == b'\n').unwrap();
    let mut changed = bytes.clone();
    let at = split + 1 + (bytes.len() - split) / 2;
    changed[at] = if changed[at] == b'1' { b'2' } else { b'1' };
    for damaged in [changed, bytes[..bytes.len() - 1].to_vec()] {
        let reason = read(&damaged);
        assert!(reason.contains("length or SHA-256"), "{reason}");
    }
    let reason = read(&bytes[split + 1..]);
    assert!(reason.contains("header"), "{reason}");
    let text = String::from_utf8(bytes.clone()).unwrap();
    let earlier = text.replacen("\"version\":2}", "\"version\":1}", 1);
    let reason = read(earlier.as_bytes());
    assert!(
        reason.contains("version 1, not rea-precomputed-state version 2"),
        "{reason}"
    );
}

/// Builds a shared capture into `work/NAME` (a stand-in binary); returns the env folder.
fn build(work: &Path, name: &str) -> PathBuf {
    let binary = bundle_support::stand_in_binary(work).display().to_string();
    let capture = bundle_support::har(name).display().to_string();
    let run = bundle_support::run(
        work,
        &[
            "environment-build",
            &capture,
            name,
            "--name",
            name,
            "--binary",
            &binary,
            "--json",
        ],
    );
    let report = bundle_support::report(&run);
    assert_eq!(report["state"]["served"], true, "{report}");
    work.join(name).join("envs").join(name)
}

/// Serves an env folder's inputs (with `--state FILE` when given) on an ephemeral port.
pub(crate) fn serve(env: &Path, state: Option<&Path>) -> (Server, String) {
    let mut command = std::process::Command::new(bundle_support::rea());
    command
        .arg("environment-serve")
        .arg(env.join("manifest.json"))
        .arg("--evidence")
        .arg(env.join("evidence.json"))
        .arg("--pipeline")
        .arg(env.join("pipeline.toml"));
    if let Some(state) = state {
        command.arg("--state").arg(state);
    }
    let mut server = Server::spawn_in(command, env, &[("MCP_PORT", "0")]);
    let url = server.url();
    (server, url)
}

fn data_get(url: &str) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "data/get"}).to_string();
    let (status, answer) = serve_support::process::request(
        &serve_support::process::address(url),
        "POST",
        "/agentenv",
        &[],
        Some(&body),
    );
    assert_eq!(status, 200, "{answer}");
    serde_json::from_str::<Value>(&answer).unwrap()["result"].clone()
}

/// What a server answers: its catalog, each argument-less read, its state; then its log.
fn answers(env: &Path, state: Option<&Path>) -> (Vec<Value>, String) {
    let (server, url) = serve(env, state);
    let mut seen = vec![Value::Array(tools_list(&url))];
    for tool in tools_list(&url) {
        let name = tool["name"].as_str().unwrap();
        if tool["inputSchema"]["required"]
            .as_array()
            .is_none_or(Vec::is_empty)
            && name.starts_with("get_")
        {
            seen.push(call_tool(&url, name, &json!({})));
        }
    }
    seen.push(data_get(&url));
    server.signal("TERM");
    let (code, _, stderr) = server.finish();
    let stderr = stderr.join("\n");
    assert_eq!(code, Some(143), "{stderr}");
    (seen, stderr)
}

#[test]
fn a_bundle_server_reads_its_state_and_answers_as_deriving_does() {
    let dir = tempfile::tempdir().unwrap();
    let env = build(dir.path(), "json-server");
    let dockerfile = std::fs::read_to_string(env.join("Dockerfile")).unwrap();
    assert!(
        dockerfile.contains("manifest.json evidence.json pipeline.toml state.json /env/"),
        "{dockerfile}"
    );
    assert!(
        dockerfile.contains("\"--state\",\"/env/state.json\"]"),
        "{dockerfile}"
    );
    let state = env.join("state.json");
    let (derived, derived_log) = answers(&env, None);
    let (read, read_log) = answers(&env, Some(&state));
    assert_eq!(derived, read);
    assert!(!derived_log.contains("precomputed"), "{derived_log}");
    assert!(
        read_log.contains("the state is read from the precomputed file"),
        "{read_log}"
    );
}

/// A server's log saying the precomputed state was not used, for `reason`, and the state derived.
fn assert_derived_again(log: &str, reason: &str) {
    assert!(log.contains("the precomputed state is not used"), "{log}");
    assert!(log.contains(reason), "{log}");
    assert!(!log.contains("read from the precomputed file"), "{log}");
}

#[test]
fn a_state_of_another_capture_or_damaged_is_derived_again_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let env = build(dir.path(), "json-server");
    let other = build(dir.path(), "kinto");
    let (derived, _) = answers(&env, None);

    let (read, log) = answers(&env, Some(&other.join("state.json")));
    assert_eq!(read, derived);
    assert_derived_again(
        &log,
        "it was derived from a capture Evidence file of SHA-256",
    );

    let mut bytes = std::fs::read(env.join("state.json")).unwrap();
    let last = bytes.len() - 2;
    bytes[last] = b' ';
    let damaged = dir.path().join("damaged.json");
    std::fs::write(&damaged, bytes).unwrap();
    let (read, log) = answers(&env, Some(&damaged));
    assert_eq!(read, derived);
    assert!(log.contains("length or SHA-256"), "{log}");

    let (read, log) = answers(&env, Some(&dir.path().join("missing.json")));
    assert_eq!(read, derived);
    assert!(
        log.contains("the precomputed state cannot be read"),
        "{log}"
    );
}

#[test]
fn a_state_whose_evidence_file_changed_is_derived_again_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let env = build(dir.path(), "json-server");
    let (derived, _) = answers(&env, None);
    // The same Evidence (its id is of its canonical form), other bytes: the state was not
    // derived from this file, so it is not served.
    let evidence = env.join("evidence.json");
    let mut bytes = std::fs::read(&evidence).unwrap();
    bytes.extend_from_slice(b"\n\n");
    std::fs::write(&evidence, bytes).unwrap();
    let (read, log) = answers(&env, Some(&env.join("state.json")));
    assert_eq!(read, derived);
    assert_derived_again(
        &log,
        "it was derived from a capture Evidence file of SHA-256",
    );
}

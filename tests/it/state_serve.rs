//! `rea environment-serve` served from the state, as a process: the card in state mode, the data
//! plane over the socket, the stopped document's `state` member, `--replay-only`, and the
//! unavailable state falling back to replay.

use crate::serve_support;
use crate::state_support;

use rea_evidence::Evidence;
use rea_json::Json;
use rea_manifest::evidence::project_manifest_evidence;
use rea_state::project_state_evidence;
use serde_json::{Value, json};
use serve_support::process::{Server, address, answer_of, binary, call_tool, request};
use state_support::{capture, rules};

struct Inputs {
    folder: tempfile::TempDir,
    state_id: String,
}

/// `capture.json`, `manifest.json` and a manifest sealed from an edited copy (`renamed.json`,
/// whose capture projects another manifest).
fn inputs() -> Inputs {
    let folder = tempfile::tempdir().expect("temp");
    let capture = capture("json-server/build.har");
    let (_, manifest) = project_manifest_evidence(&capture, &rules()).expect("manifest");
    let state =
        project_state_evidence(&capture, &rules(), &state_support::state_rules()).expect("state");
    std::fs::write(
        folder.path().join("capture.json"),
        capture.to_canonical_vec(),
    )
    .expect("write");
    std::fs::write(
        folder.path().join("manifest.json"),
        manifest.to_canonical_vec(),
    )
    .expect("write");
    let mut body = manifest.body().clone();
    body.insert("name", Json::String("renamed".into()));
    let renamed = Evidence::seal(manifest.operation(), body);
    std::fs::write(
        folder.path().join("renamed.json"),
        renamed.to_canonical_vec(),
    )
    .expect("write");
    Inputs {
        folder,
        state_id: state.evidence.id().to_owned(),
    }
}

/// Stops the server with `SIGTERM`: its exit code, stopped document and stderr lines.
fn stop(server: Server) -> (Option<i32>, Value, Vec<String>) {
    server.signal("TERM");
    let (code, stdout, stderr) = server.finish();
    (
        code,
        serde_json::from_str(&stdout).unwrap_or(Value::Null),
        stderr,
    )
}

/// One HTTP/1.1 request over loopback; returns the status and the JSON body.
fn http(address: &str, method: &str, path: &str, body: Option<&str>) -> (u16, Value) {
    let (status, payload) = request(address, method, path, &[], body);
    (
        status,
        serde_json::from_str(&payload).unwrap_or(Value::Null),
    )
}

#[test]
fn environment_serve_serves_from_the_state_by_default() {
    let inputs = inputs();
    let mut server = Server::start_in(
        inputs.folder.path(),
        &["manifest.json", "--evidence", "capture.json"],
    );
    let url = server.url();
    let address = address(&url);
    let (status, card) = http(&address, "GET", "/.well-known/agent-env.json", None);
    assert_eq!(status, 200);
    // contract: DATA-082
    assert_eq!(
        card["capabilities"]["operations"],
        json!(["data/reset", "data/add", "data/get"])
    );
    let extensions = card["capabilities"]["extensions"]
        .as_array()
        .expect("extensions");
    assert_eq!(extensions.len(), 1, "{extensions:?}");
    let intake = &extensions[0];
    // contract: DATA-079
    assert_eq!(
        (&intake["uri"], &intake["description"]),
        (
            &json!("urn:agentenv:intake/v1"),
            &json!(
                "data/add replaces the whole environment state with one rea-state/v1 document; data/get returns the current state in the same format."
            )
        )
    );
    // contract: DATA-080
    assert_eq!(
        intake["params"]["add"],
        json!([
            {"part": "data", "format": "rea-state/v1", "load": "replace"},
            {"part": "file", "format": "rea-state/v1", "mimeTypes": ["application/json"], "load": "replace"}
        ])
    );
    // contract: DATA-081
    assert_eq!(
        intake["params"]["get"],
        json!([{"part": "data", "format": "rea-state/v1"}])
    );
    let tools = card["capabilities"]["tools"].as_array().expect("tools");
    // Read tools answer from the state; the write tools whose plan is served apply their effect
    // (json-server's build serves every write it recorded).
    for tool in tools {
        let name = tool["name"].as_str().expect("name");
        let description = tool["description"].as_str().expect("description");
        if name.starts_with("get_") {
            assert!(
                description.contains("answers from the environment state"),
                "{name}"
            );
        } else {
            assert!(
                description.contains("applied to the environment state"),
                "{name}"
            );
        }
    }
    let names: Vec<&str> = tools
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert!(names.contains(&"post_posts"), "{names:?}");
    // The delete whose reads showed it cascading to the post's comments is served with that
    // cascade (the `dependents` rule; `state_writes_dependents.rs`).
    assert!(names.contains(&"delete_posts_by_id"), "{names:?}");
    // contract: STATE-001 (a read tool answers from the derived state)
    let answer = answer_of(&call_tool(&url, "get_posts_by_id", &json!({"id": "1"})));
    assert_eq!(answer["state"]["source"], "state", "{answer}");
    let (status, reply) = http(
        &address,
        "POST",
        "/agentenv",
        Some(r#"{"jsonrpc":"2.0","id":1,"method":"data/get"}"#),
    );
    assert_eq!(status, 200);
    // contract: STATE-012, STATE-014 (the state served is the one the in-process projection of
    // the capture derives, Evidence id for Evidence id)
    assert_eq!(
        reply["result"]["parts"][0]["data"]["rea_state"]["state_evidence_id"],
        inputs.state_id.as_str()
    );
    let (_, reply) = http(
        &address,
        "POST",
        "/agentenv",
        Some(r#"{"jsonrpc":"2.0","id":2,"method":"data/reset"}"#),
    );
    assert_eq!(reply["result"], json!({}));
    let (code, stopped, _) = stop(server);
    assert_eq!(code, Some(143));
    // contract: STATE-027
    assert_eq!(
        stopped["state"],
        json!({"served": true, "evidence_id": inputs.state_id})
    );
}

#[test]
fn replay_only_derives_nothing() {
    let inputs = inputs();
    let mut server = Server::start_in(
        inputs.folder.path(),
        &[
            "manifest.json",
            "--evidence",
            "capture.json",
            "--replay-only",
        ],
    );
    let address = address(&server.url());
    let (_, card) = http(&address, "GET", "/.well-known/agent-env.json", None);
    // contract: STATE-026 (replay's card: no data plane, no extension)
    assert_eq!(card["capabilities"]["operations"], json!([]));
    assert_eq!(card["capabilities"]["extensions"], Value::Null);
    let (_, reply) = http(
        &address,
        "POST",
        "/agentenv",
        Some(r#"{"jsonrpc":"2.0","id":1,"method":"data/get"}"#),
    );
    // contract: STATE-026 (replay's `/agentenv` answers)
    assert_eq!(reply["error"]["code"], -32601);
    let (_, stopped, _) = stop(server);
    // contract: STATE-028
    assert_eq!(
        stopped["state"],
        json!({"served": false, "reason": "replay-only"})
    );
    // The renamed manifest's state could not be derived (see the test below): with
    // `--replay-only` nothing is derived, so nothing says so.
    let mut server = Server::start_in(
        inputs.folder.path(),
        &[
            "renamed.json",
            "--evidence",
            "capture.json",
            "--replay-only",
        ],
    );
    let _ = server.url();
    let (code, stopped, stderr) = stop(server);
    assert_eq!(code, Some(143));
    assert_eq!(stopped["state"]["reason"], "replay-only");
    // contract: STATE-025
    assert!(
        !stderr
            .iter()
            .any(|line| line.contains("\"level\":\"warn\"")),
        "{stderr:?}"
    );
}

#[test]
fn an_unavailable_state_is_logged_and_replay_served() {
    let inputs = inputs();
    // The renamed manifest cites the capture, but the capture projects another manifest: the
    // state derived with its rules would name other tools, so it is unavailable.
    let mut server = Server::start_in(
        inputs.folder.path(),
        &["renamed.json", "--evidence", "capture.json"],
    );
    let address = address(&server.url());
    let (_, card) = http(&address, "GET", "/.well-known/agent-env.json", None);
    // contract: STATE-018 (the server runs, serving replay)
    assert_eq!(card["capabilities"]["operations"], json!([]));
    let (_, stopped, stderr) = stop(server);
    // contract: STATE-016 (a state naming other tools than the manifest's is refused),
    // STATE-029
    assert_eq!(stopped["state"]["served"], false);
    assert_eq!(stopped["state"]["reason"], "unavailable");
    assert_eq!(stopped["state"]["code"], "invalid_request");
    let message = stopped["state"]["message"].as_str().expect("message");
    // contract: STATE-019, STATE-030 (the warning names the code and message the stopped
    // document holds)
    let warning = stderr
        .iter()
        .position(|line| {
            line.contains("\"level\":\"warn\"")
                && line.contains("invalid_request")
                && line.contains(&message[..40])
        })
        .unwrap_or_else(|| panic!("a warning naming the code and message: {stderr:?}"));
    let listening = stderr
        .iter()
        .position(|line| line.contains("MCP transport listening"))
        .expect("listening");
    // contract: STATE-019 (before it binds)
    assert!(warning < listening);
}

#[test]
fn environment_serve_takes_its_rule_stages_from_the_pipeline() {
    // The default pipeline serves json-server's create; a pipeline without the `sequence` rule
    // leaves its generated id unexplained, so the create is withheld and not in the catalog; an
    // invalid pipeline is a configuration error before anything binds.
    let inputs = inputs();
    let tool_names = |args: &[&str]| {
        let mut server = Server::start_in(inputs.folder.path(), args);
        let address = address(&server.url());
        let (_, card) = http(&address, "GET", "/.well-known/agent-env.json", None);
        let _ = stop(server);
        card["capabilities"]["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .filter_map(|tool| tool["name"].as_str().map(str::to_owned))
            .collect::<Vec<String>>()
    };
    let default = tool_names(&["manifest.json", "--evidence", "capture.json"]);
    assert!(default.contains(&"post_posts".to_owned()), "{default:?}");
    let without = rea_pipeline::DEFAULT_PIPELINE.replace("[[rules]]\nstage = \"sequence\"\n", "");
    assert_ne!(without, rea_pipeline::DEFAULT_PIPELINE);
    std::fs::write(inputs.folder.path().join("no-sequence.toml"), without).expect("pipeline");
    let reduced = tool_names(&[
        "manifest.json",
        "--evidence",
        "capture.json",
        "--pipeline",
        "no-sequence.toml",
    ]);
    assert!(!reduced.contains(&"post_posts".to_owned()), "{reduced:?}");
    assert!(
        reduced.contains(&"patch_posts_by_id".to_owned()),
        "{reduced:?}"
    );
    std::fs::write(
        inputs.folder.path().join("bad.toml"),
        "[[rules]]\nstage = \"no-such-rule\"\n",
    )
    .expect("pipeline");
    let run = rea_tests::run_rea(
        &binary(),
        inputs.folder.path(),
        &[
            "environment-serve",
            "manifest.json",
            "--evidence",
            "capture.json",
            "--pipeline",
            "bad.toml",
        ],
    );
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("configuration_invalid"),
        "{}",
        run.stderr
    );
}

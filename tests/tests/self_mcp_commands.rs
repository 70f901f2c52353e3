//! `rea mcp` over stdio (raw JSON-RPC lines), `rea mcp doctor`, `rea guided-workflows` and
//! `rea guidance`, driven through the binary. The official-SDK protocol suite is
//! `tests/self_mcp/run.sh`.

mod self_mcp_support;

use std::path::PathBuf;
use std::process::Command;

use self_mcp_support::{StdioSession, json_of, rea};
use serde_json::{Value, json};

fn capture(name: &str) -> PathBuf {
    rea_tests::shared_dir()
        .join("captures")
        .join(name)
        .join("build.har")
}

/// Runs `rea` with arguments and extra environment; returns (exit code, stdout, stderr).
fn run(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let mut command = Command::new(rea());
    command
        .args(args)
        .env_remove("REA_MCP_TOOL_FAMILIES")
        .env_remove("REA_GUIDANCE_DIR")
        .env_remove("REA_LOG_LEVEL");
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command.output().expect("rea runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn prompt_text(response: &Value) -> String {
    response["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no prompt text: {response}"))
        .to_owned()
}

fn issue_paths(response: &Value) -> Vec<String> {
    response["error"]["data"]["issues"]
        .as_array()
        .map(|issues| {
            issues
                .iter()
                .map(|issue| issue["path"].as_str().unwrap_or_default().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

// contract: PROMPTS-016, PROMPTS-017, PROMPTS-018, PROMPTS-019, PROMPTS-021
#[test]
fn the_cli_renders_exactly_what_prompts_get_returns() {
    let (code, out, _) = run(&["guided-workflows"], &[]);
    assert_eq!(code, Some(0));
    let listed = json_of(&out);
    let ids: Vec<&str> = listed["workflows"]
        .as_array()
        .expect("workflows")
        .iter()
        .map(|workflow| workflow["id"].as_str().expect("id"))
        .collect();
    assert_eq!(ids.len(), 6);

    let arguments = r#"{"feature":"offline search"}"#;
    let (code, out, _) = run(
        &[
            "guided-workflows",
            "--action",
            "render",
            "--workflow-id",
            "investigate_feature",
            "--arguments-json",
            arguments,
        ],
        &[],
    );
    assert_eq!(code, Some(0));
    let rendered = json_of(&out);

    let mut session = StdioSession::start(&[]);
    let got = session.request(
        "prompts/get",
        json!({"name": "investigate_feature", "arguments": {"feature": "offline search"}}),
    );
    assert_eq!(rendered["text"].as_str(), Some(prompt_text(&got).as_str()));
    // Rendering retained nothing: completion still has no capture to offer.
    let completion = session.request(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "investigate_feature"},
               "argument": {"name": "document", "value": ""}}),
    );
    assert_eq!(completion["result"]["completion"]["values"], json!([]));
    assert_eq!(session.close(), Some(0));
}

// contract: PROMPTS-024, PROMPTS-026
#[test]
fn the_cli_refuses_bad_workflow_arguments_with_field_paths() {
    let (code, _, err) = run(
        &[
            "guided-workflows",
            "--action",
            "render",
            "--workflow-id",
            "trace_crash",
            "--arguments-json",
            r#"{"symptom":"500 on save","colour":"red"}"#,
        ],
        &[],
    );
    assert_eq!(code, Some(1));
    let refusal = json_of(err.lines().next().expect("a refusal line"));
    assert_eq!(refusal["code"], "invalid_request");
    assert_eq!(refusal["data"]["issues"][0]["path"], "/arguments/colour");
    let (code, _, err) = run(&["guided-workflows", "--workflow-id", "trace_crash"], &[]);
    assert_eq!(code, Some(1), "list takes no workflow id: {err}");
}

// contract: PROMPTS-071, PROMPTS-072, PROMPTS-073, PROMPTS-074, COMPLETION-048
#[test]
fn schema_invalid_params_are_32602_with_field_diagnostics_and_the_connection_survives() {
    let mut session = StdioSession::start(&[]);
    for (method, params, path) in [
        ("prompts/get", json!({"name": 5}), "/name"),
        (
            "prompts/get",
            json!({"name": "investigate_feature", "arguments": {"feature": ["x"]}}),
            "/arguments/feature",
        ),
        ("prompts/list", json!({"cursor": 1}), "/cursor"),
        ("tools/list", json!({"cursor": {}}), "/cursor"),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "investigate_feature"},
                   "argument": {"name": "procedure"}}),
            "/argument/value",
        ),
    ] {
        let response = session.request(method, params);
        assert_eq!(response["error"]["code"], -32602, "{method}: {response}");
        assert_eq!(issue_paths(&response), [path], "{method}");
    }
    let retry = session.request("prompts/list", json!({}));
    assert_eq!(retry["result"]["prompts"].as_array().map(Vec::len), Some(6));
    assert_eq!(session.close(), Some(0));
}

// contract: COMPLETION-006, COMPLETION-020, COMPLETION-041
#[test]
fn completion_follows_the_session_ledger() {
    let mut session = StdioSession::start(&[]);
    let path = capture("json-server");
    let called = session.request(
        "tools/call",
        json!({"name": "inspect_web_network_capture", "arguments": {"path": path}}),
    );
    let text = called["result"]["content"][0]["text"]
        .as_str()
        .expect("inline Evidence");
    let evidence = json_of(text);
    let id = evidence["evidence_id"]
        .as_str()
        .expect("evidence id")
        .to_owned();
    let completion = session.request(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "trace_crash"},
               "argument": {"name": "capture", "value": "EV_"}}),
    );
    assert_eq!(completion["result"]["completion"]["values"], json!([id]));
    assert_eq!(completion["result"]["completion"]["total"], 1);
    assert_eq!(completion["result"]["completion"]["hasMore"], false);
    assert_eq!(session.close(), Some(0));
    // A new session starts with an empty ledger.
    let mut fresh = StdioSession::start(&[]);
    let completion = fresh.request(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "trace_crash"},
               "argument": {"name": "capture", "value": ""}}),
    );
    assert_eq!(completion["result"]["completion"]["values"], json!([]));
    assert_eq!(fresh.close(), Some(0));
}

// contract: PROMPTS-028, PROMPTS-031, PROMPTS-032, PROMPTS-045, PROMPTS-046
#[test]
fn the_doctor_and_the_server_report_the_same_scoped_contracts() {
    let scopes: [&[(&str, &str)]; 2] = [&[], &[("REA_MCP_TOOL_FAMILIES", "guidance")]];
    let mut digests = Vec::new();
    for env in scopes {
        let (code, out, err) = run(&["mcp", "doctor"], env);
        assert_eq!(code, Some(0), "{err}");
        let doctor = json_of(&out);
        let advertised: Vec<Value> = doctor["prompts"]
            .as_array()
            .expect("prompts")
            .iter()
            .map(|prompt| prompt["name"].clone())
            .collect();
        let mut session = StdioSession::start(env);
        let listed = session.request("prompts/list", json!({}));
        let served: Vec<Value> = listed["result"]["prompts"]
            .as_array()
            .expect("prompts")
            .iter()
            .map(|prompt| prompt["name"].clone())
            .collect();
        assert_eq!(advertised, served);
        let digest = doctor["identity_digest"]
            .as_str()
            .expect("digest")
            .to_owned();
        assert_eq!(
            session.init["result"]["_meta"]["rea/identity"]["digest"],
            json!(digest),
            "the served identity carries the doctor's digest"
        );
        for omitted in doctor["omitted_prompts"].as_array().expect("omitted") {
            let got = session.request(
                "prompts/get",
                json!({"name": omitted["name"], "arguments": {}}),
            );
            assert_eq!(got["error"]["code"], -32602, "{got}");
            assert_eq!(got["error"]["data"]["issues"][0]["code"], "not_found");
        }
        assert_eq!(session.close(), Some(0));
        digests.push(digest);
    }
    assert_ne!(digests[0], digests[1], "the digest changes with the scope");
    let (code, _, err) = run(&["mcp", "doctor"], &[("REA_MCP_TOOL_FAMILIES", "guidence")]);
    assert_eq!(code, Some(2));
    assert!(err.contains("configuration_invalid"), "{err}");
}

// contract: GUIDANCE-004, GUIDANCE-005, GUIDANCE-011, GUIDANCE-015
#[test]
fn the_guidance_cli_searches_and_reads() {
    let (code, out, _) = run(&["guidance", "--query", "exact JavaScript module"], &[]);
    assert_eq!(code, Some(0));
    let nothing = json_of(&out);
    assert_eq!(nothing["total_matches"], 0);
    assert!(
        nothing["note"]
            .as_str()
            .expect("note")
            .contains("says nothing")
    );

    let (code, out, _) = run(&["guidance", "--query", "read back every write"], &[]);
    assert_eq!(code, Some(0));
    let found = json_of(&out);
    let first = &found["matches"][0];
    let locator = first["locator"].as_str().expect("locator");
    let (code, out, _) = run(&["guidance", "--action", "read", "--locator", locator], &[]);
    assert_eq!(code, Some(0));
    let section = json_of(&out);
    assert_eq!(section["locator"], first["locator"]);
    assert_eq!(section["content_length"], first["content_length"]);
    let (code, text, _) = run(
        &[
            "guidance",
            "--action",
            "read",
            "--locator",
            locator,
            "--format",
            "text",
        ],
        &[],
    );
    assert_eq!(code, Some(0));
    assert_eq!(
        text.trim_end(),
        section["text"].as_str().expect("text").trim_end()
    );
}

// contract: GUIDANCE-013, GUIDANCE-014, GUIDANCE-033
#[test]
fn an_installed_bundle_binds_its_locators_and_can_be_unavailable() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bundle = dir.path().join("bundle");
    std::fs::create_dir(&bundle).expect("mkdir");
    let write = |text: &str| {
        std::fs::write(
            bundle.join("bundle.json"),
            r#"{"name":"installed","version":1,"files":["a.md"]}"#,
        )
        .expect("manifest");
        std::fs::write(bundle.join("a.md"), text).expect("file");
    };
    write("# Quokkas\n\nQuokkas are recorded here.\n");
    let env_dir = bundle.to_string_lossy().into_owned();
    let env = [("REA_GUIDANCE_DIR", env_dir.as_str())];
    let (_, out, _) = run(&["guidance", "--query", "quokkas"], &env);
    let locator = json_of(&out)["matches"][0]["locator"]
        .as_str()
        .expect("locator")
        .to_owned();
    write("# Quokkas\n\nQuokkas are recorded here, and edited.\n");
    let (code, out, err) = run(
        &["guidance", "--action", "read", "--locator", &locator],
        &env,
    );
    assert_eq!(code, Some(1));
    assert!(out.is_empty(), "no cached content: {out}");
    assert_eq!(
        json_of(err.lines().next().expect("refusal"))["code"],
        "guidance_stale"
    );

    let missing = dir.path().join("missing").to_string_lossy().into_owned();
    let (code, out, err) = run(
        &["guidance", "--query", "quokkas"],
        &[("REA_GUIDANCE_DIR", missing.as_str())],
    );
    assert_eq!(code, Some(1));
    assert!(out.is_empty());
    assert_eq!(
        json_of(err.lines().next().expect("refusal"))["code"],
        "bundle_unavailable"
    );
}

#[test]
fn relative_capture_paths_are_refused_over_mcp() {
    let mut session = StdioSession::start(&[]);
    let called = session.request(
        "tools/call",
        json!({"name": "inspect_web_network_capture", "arguments": {"path": "build.har"}}),
    );
    assert_eq!(called["result"]["isError"], true, "{called}");
    let refusal = &called["result"]["structuredContent"]["refusal"];
    assert_eq!(refusal["pointer"], "/path");
    assert_eq!(session.close(), Some(0));
}

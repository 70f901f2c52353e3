//! `rea mcp` over stdio (raw JSON-RPC lines), `rea mcp doctor`, `rea guided-workflows` and
//! `rea guidance`, driven through the binary. The official-SDK protocol suite is
//! `tests/self_mcp/run.sh`.

use crate::self_mcp_support;

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

// contract: PROMPTS-068, COMPLETION-047
// Adapted: rea has no active target; `inspect_analysis_view` (rea's `inspect_artifact`) acts on
// the source its own request names, whatever the session retained later, and returns the whole
// view (tools and unknowns) inline.
#[test]
fn a_view_acts_on_the_source_its_request_names_and_returns_it_inline() {
    let mut session = StdioSession::start(&[]);
    let path = capture("json-server");
    let mut ids = Vec::new();
    for records in [[0, 1], [2, 3]] {
        let called = session.request(
            "tools/call",
            json!({"name": "inspect_web_network_capture",
                   "arguments": {"path": path, "records": records}}),
        );
        let evidence = json_of(
            called["result"]["content"][0]["text"]
                .as_str()
                .expect("inline Evidence"),
        );
        ids.push((
            evidence["evidence_id"].as_str().expect("id").to_owned(),
            called["result"]["content"][0]["text"]
                .as_str()
                .expect("text")
                .to_owned(),
        ));
    }
    let (first_id, first_text) = ids[0].clone();
    assert_ne!(first_id, ids[1].0);
    // Completion offers both; the suggestion picked is the earlier capture, not the latest.
    let offered = session.request(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "trace_crash"},
               "argument": {"name": "capture", "value": ""}}),
    );
    let mut expected = vec![json!(first_id), json!(ids[1].0)];
    expected.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
    assert_eq!(offered["result"]["completion"]["values"], json!(expected));

    let projected = session.request(
        "tools/call",
        json!({"name": "inspect_analysis_view", "arguments": {
            "source": {"kind": "retained-evidence", "evidence_id": first_id},
            "view": {"kind": "environment-manifest", "template_rules": []}
        }}),
    );
    assert_eq!(projected["result"]["isError"], false, "{projected}");
    let inline = projected["result"]["content"][0]["text"]
        .as_str()
        .expect("inline view Evidence")
        .to_owned();
    let manifest = json_of(&inline);
    assert_eq!(manifest["parent_evidence_id"], json!(first_id));
    assert!(
        manifest["tools"]
            .as_array()
            .is_some_and(|tools| !tools.is_empty())
    );
    assert!(
        manifest["unknowns"]
            .as_array()
            .is_some_and(|unknowns| !unknowns.is_empty())
    );
    assert_eq!(session.close(), Some(0));

    // Byte for byte what the CLI projects from that capture alone.
    let dir = tempfile::tempdir().expect("tempdir");
    let evidence_file = dir.path().join("capture.json");
    std::fs::write(&evidence_file, &first_text).expect("write");
    let view_file = dir.path().join("view.json");
    std::fs::write(
        &view_file,
        json!({"source": {"kind": "evidence-file", "path": evidence_file},
               "view": {"kind": "environment-manifest", "template_rules": []}})
        .to_string(),
    )
    .expect("write");
    let view_arg = view_file.display().to_string();
    let (code, out, err) = run(&["inspect-analysis-view", &view_arg], &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out.trim_end_matches('\n'), inline);
}

/// Projects a view with the CLI from capture Evidence text; returns its stdout.
fn cli_view(dir: &std::path::Path, capture_text: &str, kind: &str) -> String {
    let evidence_file = dir.join(format!("capture-{kind}.json"));
    std::fs::write(&evidence_file, capture_text).expect("write");
    let view_file = dir.join(format!("view-{kind}.json"));
    std::fs::write(
        &view_file,
        json!({"source": {"kind": "evidence-file", "path": evidence_file}, "view": {"kind": kind}})
            .to_string(),
    )
    .expect("write");
    let view_arg = view_file.display().to_string();
    let (code, out, err) = run(&["inspect-analysis-view", &view_arg], &[]);
    assert_eq!(code, Some(0), "{err}");
    out.trim_end_matches('\n').to_owned()
}

/// A tool's Evidence text: inline, or read whole from its resource link when it is large.
fn call_text(session: &mut StdioSession, name: &str, arguments: Value) -> String {
    let called = session.request("tools/call", json!({"name": name, "arguments": arguments}));
    assert_eq!(called["result"]["isError"], false, "{called}");
    let content = &called["result"]["content"];
    if content[1]["type"] == "resource_link" {
        let read = session.request("resources/read", json!({"uri": content[1]["uri"]}));
        return read["result"]["contents"][0]["text"]
            .as_str()
            .expect("linked Evidence")
            .to_owned();
    }
    content[0]["text"]
        .as_str()
        .expect("inline Evidence")
        .to_owned()
}

// contract: COMPLETION-025
// The residual unknowns are the withheld writes of the session's `environment-coverage` view
// (`writes.withheld[].tool`) and the unknowns of the manifest in context; the coverage view over
// MCP is byte for byte the CLI's.
#[test]
fn withheld_write_completion_reads_the_coverage_view() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut session = StdioSession::start(&[]);
    let mut expected = Vec::new();
    let mut manifests = Vec::new();
    let mut withheld_by_app = Vec::new();
    for app in ["mlflow", "tiddlywiki"] {
        let capture_text = call_text(
            &mut session,
            "inspect_web_network_capture",
            json!({"path": capture(app)}),
        );
        let capture_id = json_of(&capture_text)["evidence_id"]
            .as_str()
            .expect("id")
            .to_owned();
        let source = json!({"kind": "retained-evidence", "evidence_id": capture_id});
        let coverage_text = call_text(
            &mut session,
            "inspect_analysis_view",
            json!({"source": source, "view": {"kind": "environment-coverage"}}),
        );
        let app_dir = dir.path().join(app);
        std::fs::create_dir(&app_dir).expect("mkdir");
        assert_eq!(
            coverage_text,
            cli_view(&app_dir, &capture_text, "environment-coverage")
        );
        let coverage = json_of(&coverage_text);
        assert_eq!(coverage["parent_evidence_id"], json!(capture_id));
        // Every member the `audit_residual_unknowns` workflow and the coverage guidance name.
        for write in coverage["writes"]["withheld"]
            .as_array()
            .expect("withheld writes")
        {
            for member in [
                "tool",
                "effect",
                "reason",
                "hint",
                "exemplar_ordinal",
                "contradicted_by",
            ] {
                assert!(write.get(member).is_some(), "{member} missing in {write}");
            }
        }
        let withheld: Vec<String> = coverage["writes"]["withheld"]
            .as_array()
            .expect("withheld writes")
            .iter()
            .map(|write| write["tool"].as_str().expect("tool").to_owned())
            .collect();
        let mut residual: std::collections::BTreeSet<String> = withheld.iter().cloned().collect();
        withheld_by_app.push(withheld);
        let manifest = json_of(&call_text(
            &mut session,
            "inspect_analysis_view",
            json!({"source": source, "view": {"kind": "environment-manifest"}}),
        ));
        residual.extend(
            manifest["unknowns"]
                .as_array()
                .expect("unknowns")
                .iter()
                .map(|unknown| unknown["subject"].as_str().expect("subject").to_owned()),
        );
        manifests.push(manifest["evidence_id"].as_str().expect("id").to_owned());
        expected.push(residual.into_iter().collect::<Vec<_>>());
    }
    // The withheld writes of whichever recording has some (the recordings are chosen for it).
    let (app, withheld) = withheld_by_app
        .iter()
        .enumerate()
        .find(|(_, tools)| !tools.is_empty())
        .expect("mlflow or tiddlywiki withholds a write");
    let unknowns = |session: &mut StdioSession, value: &str, context: Value| {
        session.request(
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "audit_residual_unknowns"},
                   "argument": {"name": "unknown", "value": value},
                   "context": {"arguments": context}}),
        )["result"]["completion"]["values"]
            .clone()
    };
    // Without context: the latest manifest (tiddlywiki's) and its capture's coverage.
    assert_eq!(unknowns(&mut session, "", json!({})), json!(expected[1]));
    // The manifest in context selects its own capture's coverage.
    assert_eq!(
        unknowns(&mut session, "", json!({"manifest": manifests[0]})),
        json!(expected[0])
    );
    // A prefix typed in another case selects the matching withheld writes, spelled as recorded.
    let prefix: String = withheld[0].chars().take(6).collect();
    let matching: std::collections::BTreeSet<&String> = expected[app]
        .iter()
        .filter(|value| value.to_lowercase().starts_with(&prefix.to_lowercase()))
        .collect();
    assert_eq!(
        unknowns(
            &mut session,
            &prefix.to_uppercase(),
            json!({"manifest": manifests[app]})
        ),
        json!(matching)
    );
    assert_eq!(session.close(), Some(0));
}

/// The `rea` commands the shipped guidance names (`rea COMMAND` in backticks or opening a code
/// line), each with the options written on its code lines (a line ending in `\` continues).
fn commands_in_guidance() -> Vec<(String, String, Vec<String>)> {
    let folder = rea_tests::workspace_root().join("host/crates/self-mcp/guidance");
    let mut found = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
        .expect("the guidance folder")
        .map(|entry| entry.expect("entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("guidance file");
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let lines: Vec<&str> = text.lines().collect();
        for (index, line) in lines.iter().enumerate() {
            let code_line = line.starts_with("rea ");
            for (start, _) in line.match_indices("rea ") {
                if !(start == 0 && code_line || line[..start].ends_with('`')) {
                    continue;
                }
                let command: String = line[start + 4..]
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || *c == '-')
                    .collect();
                let mut options = Vec::new();
                if code_line {
                    let mut span = vec![*line];
                    let mut next = index;
                    while span.last().is_some_and(|l| l.trim_end().ends_with('\\')) {
                        next += 1;
                        span.extend(lines.get(next));
                    }
                    for word in span.iter().flat_map(|l| l.split_whitespace()) {
                        if word.starts_with("--") {
                            options.push(word.to_owned());
                        }
                    }
                }
                found.push((format!("{name}:{}", index + 1), command, options));
            }
        }
    }
    found
}

// The guidance once documented `rea environment-compare` before the command existed, and a search
// test locked that text in; every command and option the guidance names must be the binary's.
#[test]
fn every_command_the_guidance_names_exists_with_its_options() {
    let commands = commands_in_guidance();
    assert!(
        commands.iter().any(|(_, _, options)| !options.is_empty()),
        "no command line with options found in the guidance: {commands:?}"
    );
    for (place, command, options) in commands {
        let (code, help, stderr) = run(&[command.as_str(), "--help"], &[]);
        assert_eq!(
            code,
            Some(0),
            "{place}: `rea {command}` is no command: {stderr}"
        );
        for option in options {
            assert!(
                help.contains(&option),
                "{place}: `rea {command}` has no {option}:\n{help}"
            );
        }
    }
}

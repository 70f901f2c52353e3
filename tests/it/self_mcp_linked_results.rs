//! `rea mcp` (issue 14): a large Evidence result is a summary plus a resource link that
//! `resources/read` returns whole (byte for byte what the CLI prints), small ones stay inline,
//! and completion of a side that takes a path offers the working directory's `.har` files and
//! bundle folders beside the session's Evidence.

use crate::self_mcp_support;

use std::process::Command;

use self_mcp_support::{StdioSession, json_of, rea};
use serde_json::json;

#[test]
fn a_large_capture_is_a_summary_and_a_link_the_session_reads_whole() {
    let work = tempfile::tempdir().unwrap();
    let har = work.path().join("json-server.har");
    std::fs::copy(
        rea_tests::shared_dir().join("captures/json-server/build.har"),
        &har,
    )
    .unwrap();
    let mut session = StdioSession::start_in(work.path());
    let called = session.request(
        "tools/call",
        json!({"name": "inspect_web_network_capture", "arguments": {"path": har}}),
    );
    let content = &called["result"]["content"];
    let text = content[0]["text"].as_str().expect("summary text");
    assert!(text.len() < 4096, "{} bytes inline", text.len());
    let summary = json_of(text);
    let id = summary["evidence_id"].as_str().expect("id").to_owned();
    assert_eq!(summary["operation"], "inspect_web_network_capture");
    assert_eq!(summary["inline"], false);
    assert!(summary["summary"]["records"]["items"].as_u64().unwrap() > 0);
    let uri = format!("rea://evidence/{id}");
    assert_eq!(content[1]["type"], "resource_link");
    assert_eq!(content[1]["uri"], uri);
    assert_eq!(content[1]["mimeType"], "application/json");
    let bytes = summary["bytes"].as_u64().unwrap();
    assert!(bytes > 32 * 1024);
    assert_eq!(content[1]["size"], bytes);

    // The whole Evidence is the CLI's output, byte for byte.
    let read = session.request("resources/read", json!({"uri": uri}));
    let whole = read["result"]["contents"][0]["text"]
        .as_str()
        .expect("text");
    let cli = Command::new(rea())
        .args(["inspect-web-network-capture", "--json"])
        .arg(&har)
        .output()
        .unwrap();
    assert_eq!(cli.status.code(), Some(0));
    assert_eq!(
        whole.trim_end(),
        String::from_utf8_lossy(&cli.stdout).trim_end()
    );
    assert_eq!(whole.len() as u64, bytes);
    let listed = session.request("resources/list", json!({}));
    assert_eq!(listed["result"]["resources"][0]["uri"], uri);

    // A retained-evidence source takes it, as before.
    let (manifest, failed) = session.call(
        "inspect_analysis_view",
        json!({"source": {"kind": "retained-evidence", "evidence_id": id},
               "view": {"kind": "environment-manifest"}}),
    );
    assert!(!failed, "{manifest}");

    // A small result stays inline: the whole Evidence as text, no link.
    let small = session.request(
        "tools/call",
        json!({"name": "inspect_web_network_capture", "arguments": {"path": har, "records": [0]}}),
    );
    let content = small["result"]["content"].as_array().unwrap();
    assert_eq!(content.len(), 1);
    assert!(json_of(content[0]["text"].as_str().unwrap())["records"].is_array());

    // An address the session never retained is refused with the MCP code and a hint.
    let missing = session.request("resources/read", json!({"uri": "rea://evidence/ev_none"}));
    assert_eq!(missing["error"]["code"], -32002, "{missing}");
    assert!(
        missing["error"]["message"]
            .as_str()
            .unwrap()
            .contains("resources/list")
    );
    assert_eq!(session.close(), Some(0));
}

#[test]
fn completion_of_a_side_offers_har_files_bundles_and_retained_evidence() {
    let work = tempfile::tempdir().unwrap();
    let root = std::path::absolute(work.path()).unwrap();
    std::fs::create_dir(root.join("captures")).unwrap();
    let har = root.join("captures/json-server.har");
    std::fs::copy(
        rea_tests::shared_dir().join("captures/json-server/build.har"),
        &har,
    )
    .unwrap();
    std::fs::write(root.join("captures/notes.txt"), "not a capture").unwrap();
    let env = root.join("bundle/envs/json-server");
    std::fs::create_dir_all(&env).unwrap();
    std::fs::write(env.join("manifest.json"), "{}").unwrap();
    std::fs::write(env.join("evidence.json"), "{}").unwrap();
    let mut session = StdioSession::start_in(&root);
    let complete = |session: &mut StdioSession, value: &str| {
        session.request(
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "compare_application_versions"},
                   "argument": {"name": "baseline", "value": value}}),
        )["result"]["completion"]["values"]
            .clone()
    };
    let prefix = root.display().to_string();
    assert_eq!(
        complete(&mut session, &prefix),
        json!([
            root.join("bundle").display().to_string(),
            har.display().to_string()
        ])
    );
    let (capture, failed) = session.call(
        "inspect_web_network_capture",
        json!({"path": har, "records": [0, 1]}),
    );
    assert!(!failed, "{capture}");
    assert_eq!(
        complete(&mut session, "ev_"),
        json!([capture["evidence_id"]])
    );
    // The other workflows' session arguments still offer only retained Evidence.
    let other = session.request(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "trace_crash"},
               "argument": {"name": "capture", "value": prefix}}),
    );
    assert_eq!(other["result"]["completion"]["values"], json!([]));
    assert_eq!(session.close(), Some(0));
}

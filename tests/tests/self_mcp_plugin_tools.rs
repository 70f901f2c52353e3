//! Tools that plugins contribute to `rea mcp` through the ABI's `tool` stage: advertised in the
//! family the plugin declares, selected by `REA_MCP_TOOL_FAMILIES` like rea's own, and answered by
//! the plugin.

mod self_mcp_support;

use self_mcp_support::{StdioSession, json_of};
use serde_json::json;

fn example_plugin() -> String {
    rea_tests::built_library("rea_example_revision_counter")
        .display()
        .to_string()
}

fn tool_names(session: &mut StdioSession) -> Vec<String> {
    let listed = session.request("tools/list", json!({}));
    listed["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|tool| tool["name"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn a_plugin_tool_is_advertised_in_its_family_and_answers() {
    let plugin = example_plugin();
    let mut session = StdioSession::start_with(&["--plugin", &plugin], &[]);
    assert!(
        tool_names(&mut session).contains(&"revision_counter_check".to_owned()),
        "the plugin's tool is listed"
    );
    let called = session.request(
        "tools/call",
        json!({"name": "revision_counter_check", "arguments": {
            "before": {"id": 1, "version": 4},
            "after": {"id": 1, "version": 5},
            "sent": {"title": "renamed"}
        }}),
    );
    assert_eq!(called["result"]["isError"], json!(false), "{called}");
    let text = called["result"]["content"][0]["text"]
        .as_str()
        .expect("text content");
    assert_eq!(
        json_of(text),
        json!({"explained": ["version"], "contradicted": []})
    );
    // Arguments the plugin's schema does not name are refused before the plugin runs.
    let refused = session.request(
        "tools/call",
        json!({"name": "revision_counter_check", "arguments": {"before": {}, "after": {}, "colour": 1}}),
    );
    let refused_text = refused.to_string();
    assert!(
        refused["error"].is_object() || refused["result"]["isError"] == json!(true),
        "{refused_text}"
    );
    assert_eq!(session.close(), Some(0));
}

#[test]
fn the_family_scope_selects_plugin_tools_like_any_other() {
    let plugin = example_plugin();
    let mut only_guidance = StdioSession::start_with(
        &["--plugin", &plugin],
        &[("REA_MCP_TOOL_FAMILIES", "guidance")],
    );
    let names = tool_names(&mut only_guidance);
    assert!(
        !names.contains(&"revision_counter_check".to_owned()),
        "{names:?}"
    );
    assert!(
        names.iter().any(|name| name == "search_guidance"),
        "{names:?}"
    );
    assert_eq!(only_guidance.close(), Some(0));

    let mut only_revisions = StdioSession::start_with(
        &["--plugin", &plugin],
        &[("REA_MCP_TOOL_FAMILIES", "revisions")],
    );
    assert_eq!(
        tool_names(&mut only_revisions),
        vec!["revision_counter_check".to_owned()]
    );
    assert_eq!(only_revisions.close(), Some(0));
}

#[test]
fn without_the_plugin_its_family_is_unknown() {
    let output = std::process::Command::new(self_mcp_support::rea())
        .args(["mcp", "doctor"])
        .env("REA_MCP_TOOL_FAMILIES", "revisions")
        .output()
        .expect("runs");
    assert_eq!(
        output.status.code(),
        Some(2),
        "an unknown family is a configuration error"
    );
    let output = std::process::Command::new(self_mcp_support::rea())
        .args(["mcp", "doctor", "--plugin", &example_plugin()])
        .env("REA_MCP_TOOL_FAMILIES", "revisions")
        .output()
        .expect("runs");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report = json_of(&String::from_utf8_lossy(&output.stdout));
    assert!(
        report.to_string().contains("revision_counter_check"),
        "{report}"
    );
}

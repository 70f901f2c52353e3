//! Tools that plugins contribute to `rea mcp` through the ABI's `tool` stage: advertised in the
//! family the plugin declares, selected by `REA_MCP_TOOL_FAMILIES` like rea's own, and answered by
//! the plugin.

use crate::self_mcp_support;

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

fn investigate_feature_text(session: &mut StdioSession) -> String {
    let got = session.request(
        "prompts/get",
        json!({"name": "investigate_feature", "arguments": {"feature": "renaming a post"}}),
    );
    got["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no prompt text: {got}"))
        .to_owned()
}

fn prompt_names(session: &mut StdioSession) -> Vec<String> {
    let listed = session.request("prompts/list", json!({}));
    listed["result"]["prompts"]
        .as_array()
        .expect("prompts")
        .iter()
        .filter_map(|prompt| prompt["name"].as_str().map(str::to_owned))
        .collect()
}

// contract: PROMPTS-033, PROMPTS-034, PROMPTS-035, PROMPTS-036, PROMPTS-037
// Adapted: rea ships no APK, managed, Apple-resource or archive tools; the optional routes of
// `investigate_feature` are the tool families plugins contribute, here the example plugin's
// `revisions` family (host/crates/self-mcp/CONTRACT-NOTES.md).
#[test]
fn a_plugin_family_is_an_optional_route_that_disabling_leaves_out() {
    let plugin = example_plugin();
    let own_families = "capture,views,environment,guidance";

    let mut without_plugin = StdioSession::start(&[]);
    let plain = investigate_feature_text(&mut without_plugin);
    let all_prompts = prompt_names(&mut without_plugin);
    assert_eq!(without_plugin.close(), Some(0));

    let mut enabled = StdioSession::start_with(&["--plugin", &plugin], &[]);
    let routed = investigate_feature_text(&mut enabled);
    assert!(
        routed.contains("`revisions` family") && routed.contains("`revision_counter_check`"),
        "{routed}"
    );
    let rendered = enabled.request(
        "tools/call",
        json!({"name": "guided_workflows", "arguments": {"action": "render",
               "workflow_id": "investigate_feature", "arguments": {"feature": "renaming a post"}}}),
    );
    assert_eq!(
        rendered["result"]["structuredContent"]["text"],
        json!(routed)
    );
    // `rea guided-workflows` over the same plugins renders the same text.
    let cli = std::process::Command::new(self_mcp_support::rea())
        .args([
            "guided-workflows",
            "--action",
            "render",
            "--workflow-id",
            "investigate_feature",
            "--arguments-json",
            r#"{"feature":"renaming a post"}"#,
            "--plugin",
            &plugin,
        ])
        .env_remove("REA_MCP_TOOL_FAMILIES")
        .output()
        .expect("runs");
    assert_eq!(cli.status.code(), Some(0));
    assert_eq!(
        json_of(&String::from_utf8_lossy(&cli.stdout))["text"],
        json!(routed)
    );
    assert_eq!(prompt_names(&mut enabled), all_prompts);
    assert_eq!(enabled.close(), Some(0));

    // The plugin loaded but its family out of scope: the route is gone, the workflow stays, and
    // it renders exactly as without the plugin.
    let mut disabled = StdioSession::start_with(
        &["--plugin", &plugin],
        &[("REA_MCP_TOOL_FAMILIES", own_families)],
    );
    assert_eq!(prompt_names(&mut disabled), all_prompts);
    let unrouted = investigate_feature_text(&mut disabled);
    assert!(!unrouted.contains("revision_counter_check"), "{unrouted}");
    assert_eq!(unrouted, plain);
    assert_eq!(disabled.close(), Some(0));

    // The doctor reports the route from the same scoped contracts.
    let doctor = |env: &[(&str, &str)]| {
        let mut command = std::process::Command::new(self_mcp_support::rea());
        command
            .args(["mcp", "doctor", "--plugin", &plugin])
            .env_remove("REA_MCP_TOOL_FAMILIES");
        for (key, value) in env {
            command.env(key, value);
        }
        let output = command.output().expect("runs");
        assert_eq!(output.status.code(), Some(0));
        json_of(&String::from_utf8_lossy(&output.stdout))
    };
    let routes = |report: &serde_json::Value| {
        report["prompts"]
            .as_array()
            .expect("prompts")
            .iter()
            .find(|prompt| prompt["name"] == "investigate_feature")
            .map(|prompt| prompt["contributed_routes"].clone())
            .expect("investigate_feature")
    };
    let with_route = doctor(&[]);
    let without_route = doctor(&[("REA_MCP_TOOL_FAMILIES", own_families)]);
    assert_eq!(routes(&with_route), json!(["revisions"]));
    assert_eq!(routes(&without_route), json!([]));
    assert_ne!(
        with_route["identity_digest"],
        without_route["identity_digest"]
    );
}

//! The server in-process over a byte pipe: list-change notifications when the scope changes,
//! Evidence retained by tool calls feeding completion, and `-32603` for a failing tool.

use std::collections::BTreeSet;
use std::sync::Arc;

use rea_evidence::Refusal;
use rea_self_mcp::catalog::{FAMILY_CAPTURE, read_only_annotations};
use rea_self_mcp::{
    BundleSource, CaptureInspection, CaptureRequest, EvidenceDocument, SelfMcpServer,
    StageImplementations, ToolCatalog, ToolContext, ToolOutcome, ToolScope, ToolSpec,
};
use serde_json::{Map, Value, json};

use crate::self_mcp_crate_support as support;
use support::start;

/// A capture stage that returns one Evidence document per call, numbered.
struct FakeCapture;

impl CaptureInspection for FakeCapture {
    fn inspect(&self, request: &CaptureRequest) -> Result<EvidenceDocument, Refusal> {
        let id = format!(
            "ev_fake_{}",
            request
                .path
                .file_name()
                .and_then(|name| name.to_str())
                .unwrap_or("x")
        );
        Ok(EvidenceDocument::from_value(json!({
            "evidence_id": id,
            "operation": "inspect_web_network_capture",
            "record_count": 0,
            "records": [],
        })))
    }
}

fn catalog() -> ToolCatalog {
    let mut catalog = rea_self_mcp::standard_catalog(&StageImplementations {
        capture: Some(Arc::new(FakeCapture)),
        views: None,
    })
    .expect("catalog");
    catalog
        .register(
            ToolSpec {
                name: "explode".into(),
                family: FAMILY_CAPTURE.into(),
                title: "Explode".into(),
                description: "Always panics (a bug in a tool).".into(),
                input_schema: json!({"type": "object"})
                    .as_object()
                    .cloned()
                    .expect("object"),
                annotations: read_only_annotations(),
            },
            Arc::new(|_: &Map<String, Value>, _: &ToolContext| -> ToolOutcome {
                panic!("the tool is broken")
            }),
        )
        .expect("registered");
    catalog
}

fn families(names: &[&str]) -> ToolScope {
    ToolScope::Families(
        names
            .iter()
            .map(|name| (*name).to_owned())
            .collect::<BTreeSet<_>>(),
    )
}

// contract: PROMPTS-069, PROMPTS-070
#[tokio::test]
async fn a_scope_change_notifies_prompt_and_tool_list_changes() {
    let server = SelfMcpServer::new(catalog(), ToolScope::All, BundleSource::Embedded);
    let (mut client, cancel, serving) = start(&server).await;
    let listed = client.request("prompts/list", json!({})).await;
    assert_eq!(
        listed["result"]["prompts"].as_array().map(Vec::len),
        Some(2)
    );

    let change = server.set_scope(families(&["guidance"])).await;
    assert!(change.prompts_changed && change.tools_changed);
    let mut seen = Vec::new();
    while seen.len() < 2 {
        let message = client.next_message().await;
        seen.push(
            message["method"]
                .as_str()
                .expect("a notification")
                .to_owned(),
        );
    }
    seen.sort();
    assert_eq!(
        seen,
        [
            "notifications/prompts/list_changed",
            "notifications/tools/list_changed"
        ]
    );
    let listed = client.request("prompts/list", json!({})).await;
    assert_eq!(
        listed["result"]["prompts"][0]["name"],
        "prepare_bounded_process_capture"
    );

    // The same scope again changes nothing and notifies nothing.
    let unchanged = server.set_scope(families(&["guidance"])).await;
    assert!(!unchanged.prompts_changed && !unchanged.tools_changed);
    let ping = client.request("tools/list", json!({})).await;
    assert_eq!(ping["result"]["tools"].as_array().map(Vec::len), Some(3));
    assert!(
        client.notifications.is_empty(),
        "{:?}",
        client.notifications
    );
    cancel.cancel();
    serving.await.expect("served");
}

// contract: PROMPTS-075
#[tokio::test]
async fn a_failing_tool_is_an_internal_error_and_the_session_goes_on() {
    let server = SelfMcpServer::new(catalog(), ToolScope::All, BundleSource::Embedded);
    let (mut client, cancel, serving) = start(&server).await;
    let failed = client
        .request("tools/call", json!({"name": "explode", "arguments": {}}))
        .await;
    assert_eq!(failed["error"]["code"], -32603, "{failed}");
    let fine = client.request("prompts/list", json!({})).await;
    assert!(fine["result"]["prompts"].is_array());
    cancel.cancel();
    serving.await.expect("served");
}

// contract: COMPLETION-006, COMPLETION-039, PROMPTS-021
#[tokio::test]
async fn tool_calls_retain_evidence_that_completion_offers_at_once() {
    let server = SelfMcpServer::new(catalog(), ToolScope::All, BundleSource::Embedded);
    let (mut client, cancel, serving) = start(&server).await;
    let complete = |value: &str| {
        json!({"ref": {"type": "ref/prompt", "name": "trace_crash"},
               "argument": {"name": "capture", "value": value}})
    };
    let before = client.request("completion/complete", complete("")).await;
    assert_eq!(before["result"]["completion"]["values"], json!([]));
    // Rendering a workflow retains nothing.
    client
        .request(
            "prompts/get",
            json!({"name": "trace_crash", "arguments": {"symptom": "500"}}),
        )
        .await;
    assert!(server.ledger().entries().is_empty());
    for name in ["b.har", "a.har"] {
        let called = client
            .request(
                "tools/call",
                json!({"name": "inspect_web_network_capture", "arguments": {"path": format!("/tmp/{name}")}}),
            )
            .await;
        assert_eq!(called["result"]["isError"], false, "{called}");
    }
    let after = client
        .request("completion/complete", complete("EV_FAKE_"))
        .await;
    assert_eq!(
        after["result"]["completion"]["values"],
        json!(["ev_fake_a.har", "ev_fake_b.har"])
    );
    cancel.cancel();
    serving.await.expect("served");
    assert!(
        server.ledger().entries().is_empty(),
        "the ledger ends with the session"
    );
}

// contract: SERVE-013
#[tokio::test]
async fn a_session_delete_over_http_answers_200_and_ends_the_session() {
    use crate::serve_support::{legacy_session, mcp_request, send, session_delete};
    use axum::http::StatusCode;

    let server = SelfMcpServer::new(catalog(), ToolScope::All, BundleSource::Embedded);
    let allowed = rea_serve::HostAllowlist::parse("127.0.0.1").unwrap();
    let app = server.http_router(allowed, tokio_util::sync::CancellationToken::new());
    let (session, _) = legacy_session(&app, "2025-06-18").await;
    let delete = session_delete(&session, "2025-06-18");
    // The SDK answers 202; MCP clients expect 200 or 204 and warn otherwise.
    assert_eq!(send(&app, delete).await.0, StatusCode::OK);
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-06-18"),
    ];
    let (status, _, _) = send(&app, mcp_request(&list, &headers)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

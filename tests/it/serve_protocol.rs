//! The environment server's protocol rules, driven through the axum router in-process: routes, the
//! card, MCP over Streamable HTTP (2025 initialize-based sessions and the 2026-07-28 stateless
//! revision), argument checks and provenance, the `/agentenv` JSON-RPC transport, the response
//! budget, call ordering and cancellation, and the `Host`/`Origin` guard.

use crate::serve_support as support;

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use rea_serve::{AppOptions, DataPlaneLimits, HostAllowlist};
use serde_json::{Value, json};
use support::*;

fn get(path: &str) -> Request<Body> {
    Request::get(path)
        .header("host", "localhost:8765")
        .body(Body::empty())
        .unwrap()
}

// contract: SERVE-026, CARD-001
// SERVE-021 (exactly three routes) differs: `/ready`, the status page `/` and `/agentenv/journal`
// are served too (CONTRACT-NOTES.md); every other path is still 404.
#[tokio::test]
async fn the_card_readiness_and_unknown_routes() {
    let (app, backend) = replay_app();
    let (status, headers, body) = send(&app, get("/.well-known/agent-env.json")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers["content-type"], "application/json");
    let card: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(&card, rea_serve::ToolBackend::card(backend.as_ref()));

    let (status, _, body) = send(&app, get("/ready")).await;
    assert_eq!(
        (status, body),
        (StatusCode::OK, b"{\"ready\":true}".to_vec())
    );

    for path in [
        "/index.html",
        "/mcp/extra",
        "/.well-known/other",
        "/agentenv/x",
    ] {
        let (status, _, _) = send(&app, get(path)).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
    }
    let post_card = Request::post("/.well-known/agent-env.json")
        .header("host", "localhost")
        .body(Body::empty())
        .unwrap();
    assert_eq!(
        send(&app, post_card).await.0,
        StatusCode::METHOD_NOT_ALLOWED
    );
    assert_eq!(
        send(&app, get("/agentenv")).await.0,
        StatusCode::METHOD_NOT_ALLOWED
    );
}

#[tokio::test]
async fn a_2025_session_initializes_lists_and_calls() {
    for version in ["2025-03-26", "2025-06-18", "2025-11-25"] {
        let (app, backend) = replay_app();
        let (session, init) = legacy_session(&app, version).await;
        let result = &init["result"];
        // contract: SERVE-022 (`POST /mcp` initializes an MCP session)
        assert_eq!(result["protocolVersion"], version);
        assert_eq!(result["serverInfo"]["name"], "test-env");
        assert_eq!(result["instructions"], INSTRUCTIONS);
        assert!(result["capabilities"]["tools"].is_object());

        let listed = in_session(
            &app,
            &session,
            version,
            &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        )
        .await;
        let tools = listed["result"]["tools"].as_array().unwrap();
        let card_tools = backend.card_tools();
        assert_eq!(tools.len(), card_tools.len());
        for (tool, card_tool) in tools.iter().zip(&card_tools) {
            // contract: CARD-013
            assert_eq!(tool["name"], card_tool["name"]);
            assert_eq!(tool["description"], card_tool["description"]);
            assert_eq!(tool["inputSchema"], card_tool["inputSchema"]);
            // contract: CARD-014
            assert!(card_tool.get("annotations").is_none());
            // contract: CARD-031
            assert!(tool["annotations"].is_object(), "{tool}");
        }
        assert_eq!(
            tools[0]["annotations"],
            json!({"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false})
        );

        let called = in_session(
            &app,
            &session,
            version,
            &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                    "params": {"name": "get_users_by_id", "arguments": {"id": "2", "page": 1}}}),
        )
        .await;
        let result = &called["result"];
        assert_eq!(result["isError"], false, "{called}");
        // contract: REPLAY-039
        assert_eq!(
            result["_meta"]["provenance"],
            json!({"untrusted_content": true, "source": "analysis_target"})
        );
        let text: Value =
            serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(text["body"]["arguments"], json!({"id": "2", "page": 1}));
        assert!(result.get("structuredContent").is_none());
        assert_eq!(backend.calls.lock().unwrap().len(), 1);
    }
}

// Not a contract tag: rea deviates from SERVE-012 (one MCP client at a time) on purpose, listed in
// host/crates/serve/CONTRACT-NOTES.md: several MCP sessions may be open at once, and a second
// client's session neither ends nor blocks the first.
#[tokio::test]
async fn several_sessions_are_served_side_by_side() {
    let version = "2025-11-25";
    let (app, backend) = replay_app();
    let (first, _) = legacy_session(&app, version).await;
    let (second, _) = legacy_session(&app, version).await;
    assert_ne!(first, second);
    let call = |id: u64, user: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": "get_users_by_id", "arguments": {"id": user}}})
    };
    let (to_first, to_second) = (call(2, "2"), call(2, "3"));
    let (a, b) = tokio::join!(
        in_session(&app, &first, version, &to_first),
        in_session(&app, &second, version, &to_second),
    );
    for (reply, user) in [(a, "2"), (b, "3")] {
        let text: Value =
            serde_json::from_str(reply["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(text["body"]["arguments"], json!({"id": user}));
    }
    // The first session goes on after the second one started and called.
    let again = in_session(&app, &first, version, &call(3, "4")).await;
    assert_eq!(again["result"]["isError"], false, "{again}");
    assert_eq!(backend.calls.lock().unwrap().len(), 3);
}

trait CardTools {
    fn card_tools(&self) -> Vec<Value>;
}

impl CardTools for TestBackend {
    fn card_tools(&self) -> Vec<Value> {
        rea_serve::ToolBackend::card(self)["capabilities"]["tools"]
            .as_array()
            .unwrap()
            .clone()
    }
}

// contract: SERVE-022
#[tokio::test]
async fn the_2026_revision_discovers_and_calls_without_a_session() {
    let (app, _) = replay_app();
    let discovered = mcp_2026(&app, 1, "server/discover", json!({})).await;
    let result = &discovered["result"];
    let versions: Vec<&str> = result["supportedVersions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for version in ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"] {
        assert!(versions.contains(&version), "{versions:?}");
    }
    assert_eq!(result["instructions"], INSTRUCTIONS);

    let listed = mcp_2026(&app, 2, "tools/list", json!({})).await;
    assert_eq!(listed["result"]["tools"].as_array().unwrap().len(), 2);

    let called = mcp_2026(
        &app,
        3,
        "tools/call",
        json!({"name": "get_users_by_id", "arguments": {"id": "3"}}),
    )
    .await;
    assert_eq!(called["result"]["isError"], false, "{called}");
    assert_eq!(
        called["result"]["_meta"]["provenance"]["untrusted_content"],
        true
    );
}

// contract: REPLAY-034, REPLAY-039
#[tokio::test]
async fn argument_errors_are_tool_errors_with_provenance_and_never_reach_the_backend() {
    let (app, backend) = replay_app();
    let cases = [
        (json!({"id": "2", "pag": "1"}), "unknown argument \"pag\""),
        (json!({}), "missing required argument \"id\""),
        (json!({"id": 2}), "argument \"id\" of a type"),
        (
            json!({"id": "2", "page": [1]}),
            "argument \"page\" of a type",
        ),
    ];
    for (id, (arguments, expected)) in cases.into_iter().enumerate() {
        let reply = mcp_2026(
            &app,
            id as u64 + 1,
            "tools/call",
            json!({"name": "get_users_by_id", "arguments": arguments}),
        )
        .await;
        let result = &reply["result"];
        assert_eq!(result["isError"], true, "{reply}");
        assert_eq!(
            result["_meta"]["provenance"],
            json!({"untrusted_content": true, "source": "analysis_target"})
        );
        let text: Value =
            serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
        let error = &text["error"];
        assert_eq!(error["code"], "invalid_arguments");
        let message = error["message"].as_str().unwrap();
        assert!(message.contains(expected), "{message}");
    }
    assert!(backend.calls.lock().unwrap().is_empty());

    let unknown = mcp_2026(
        &app,
        9,
        "tools/call",
        json!({"name": "nope", "arguments": {}}),
    )
    .await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
}

// contract: SERVE-028, SERVE-032
#[tokio::test]
async fn the_replay_data_plane_answers_every_method_not_found() {
    let (app, _) = replay_app();
    for method in ["data/reset", "data/add", "data/get", "anything/else"] {
        let body = json!({"jsonrpc": "2.0", "id": 5, "method": method, "params": {}}).to_string();
        let (status, reply) = rpc(&app, &body).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(
            reply,
            json!({"jsonrpc": "2.0", "id": 5, "error": {"code": -32601, "message": format!("method not found: {method}")}})
        );
    }
}

// contract: SERVE-033, SERVE-034, SERVE-035
#[tokio::test]
async fn bodies_over_four_mib_are_413_before_parsing() {
    let (app, _) = replay_app();
    let limit = 4 * 1024 * 1024;
    // Not JSON at all: refused for its size, not parsed.
    let (status, _, body) = send(&app, agentenv(vec![b'x'; limit + 1])).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    let reply: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(reply["error"]["code"], -32000);
    assert_eq!(reply["id"], Value::Null);

    // Without Content-Length (a streamed body), the bound holds while reading.
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
        (0..5).map(|_| Ok(vec![b' '; 1024 * 1024])).collect();
    let streamed = Body::from_stream(futures_util::stream::iter(chunks));
    let (status, _, _) = send(&app, agentenv(streamed)).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);

    // A declared length over the bound is refused without reading.
    let declared = Request::post("/agentenv")
        .header("host", "127.0.0.1")
        .header("content-length", (limit + 1).to_string())
        .body(Body::from("{}"))
        .unwrap();
    assert_eq!(send(&app, declared).await.0, StatusCode::PAYLOAD_TOO_LARGE);

    // Exactly 4 MiB is within the bound.
    let message = br#"{"jsonrpc":"2.0","id":1,"method":"data/get"}"#;
    let mut exact = message.to_vec();
    exact.resize(limit, b' ');
    let (status, _, body) = send(&app, agentenv(exact)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        serde_json::from_slice::<Value>(&body).unwrap()["error"]["code"],
        -32601
    );
}

// contract: SERVE-036
#[tokio::test]
async fn bodies_that_are_not_json_are_400_parse_errors() {
    let (app, _) = replay_app();
    for body in [
        "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": ",
        "",
        "nope",
        "{} {}",
    ] {
        let (status, reply) = rpc(&app, body).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body:?}");
        assert_eq!(reply["error"]["code"], -32700, "{body:?}");
        assert_eq!(reply["id"], Value::Null);
    }
}

// contract: SERVE-037, SERVE-044
#[tokio::test]
async fn notifications_get_202_and_no_body() {
    let (app, plane) = scripted_app(AppOptions::default());
    for body in [
        r#"{"jsonrpc":"2.0","method":"echo","params":{"tag":"n1"}}"#,
        r#"{"jsonrpc":"2.0","method":"data/nope"}"#,
        r#"[{"jsonrpc":"2.0","method":"echo","params":{"tag":"n2"}},{"jsonrpc":"2.0","method":"x"}]"#,
    ] {
        let (status, _, bytes) = send(&app, agentenv(body.to_owned())).await;
        assert_eq!(status, StatusCode::ACCEPTED, "{body}");
        assert!(bytes.is_empty());
    }
    // The notifications ran (in order), though nobody got a reply.
    let (_, reply) = rpc(
        &app,
        r#"{"jsonrpc":"2.0","id":1,"method":"echo","params":{"tag":"r"}}"#,
    )
    .await;
    assert_eq!(reply["result"]["tag"], "r");
    assert_eq!(
        *plane.log.lock().unwrap(),
        vec!["echo:n1", "echo:n2", "echo:r"]
    );
}

// contract: SERVE-038, SERVE-041, SERVE-042, SERVE-043
#[tokio::test]
async fn a_batch_gets_one_reply_per_request_in_order() {
    let (app, _) = scripted_app(AppOptions::default());
    let body = r#"[
        {"jsonrpc":"2.0","id":"a","method":"echo","params":{"tag":"1"}},
        {"jsonrpc":"2.0","method":"echo","params":{"tag":"note"}},
        {"jsonrpc":"2.0","id":2,"method":"data/get"},
        {"jsonrpc":"2.0","id":3},
        {"jsonrpc":"2.0","id":4,"method":"echo","params":"x"},
        {"jsonrpc":"2.0","id":[4],"method":"echo"},
        5,
        {"jsonrpc":"2.0","id":null,"method":"echo","params":[1]}
    ]"#;
    let (status, reply) = rpc(&app, body).await;
    assert_eq!(status, StatusCode::OK);
    let replies = reply.as_array().unwrap();
    let ids: Vec<&Value> = replies.iter().map(|r| &r["id"]).collect();
    assert_eq!(
        ids,
        vec![
            &json!("a"),
            &json!(2),
            &json!(3),
            &json!(4),
            &Value::Null,
            &Value::Null,
            &Value::Null
        ]
    );
    let codes: Vec<Value> = replies
        .iter()
        .map(|r| r.pointer("/error/code").cloned().unwrap_or(Value::Null))
        .collect();
    assert_eq!(
        codes,
        vec![
            Value::Null,
            json!(-32601),
            json!(-32600),
            json!(-32600),
            json!(-32600),
            json!(-32600),
            Value::Null
        ]
    );
    assert_eq!(replies[0]["result"], json!({"tag": "1"}));
    assert_eq!(replies[6]["result"], json!([1]));
}

// contract: SERVE-039, SERVE-040
#[tokio::test]
async fn empty_and_oversized_batches_are_invalid_requests() {
    let (app, _) = scripted_app(AppOptions::default());
    let (status, reply) = rpc(&app, "[]").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(reply["error"]["code"], -32600);
    assert_eq!(reply["id"], Value::Null);

    let message = |n: usize| format!(r#"{{"jsonrpc":"2.0","id":{n},"method":"echo"}}"#);
    let batch = |count: usize| {
        format!(
            "[{}]",
            (0..count).map(message).collect::<Vec<_>>().join(",")
        )
    };
    let (_, reply) = rpc(&app, &batch(101)).await;
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    assert!(reply.is_object());
    let (_, reply) = rpc(&app, &batch(100)).await;
    assert_eq!(reply.as_array().map(Vec::len), Some(100));
}

// contract: SERVE-029, SERVE-030, SERVE-031
#[tokio::test]
async fn number_ids_are_echoed_as_sent_or_refused_with_a_null_id() {
    let (app, _) = scripted_app(AppOptions::default());
    for id in [
        "1.0",
        "1.50",
        "-0",
        "9007199254740991",
        "1e2",
        "\"9007199254740993\"",
    ] {
        let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"echo"}}"#);
        let (_, _, bytes) = send(&app, agentenv(body)).await;
        let text = String::from_utf8(bytes).unwrap();
        assert!(text.contains(&format!("\"id\":{id},")), "{id}: {text}");
    }
    for id in [
        "9007199254740992",
        "-9007199254740992",
        "1e400",
        "0.10000000000000000001",
        "12345678901234567890",
    ] {
        let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"echo"}}"#);
        let (status, reply) = rpc(&app, &body).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(reply["id"], Value::Null, "{id}");
        assert_eq!(reply["error"]["code"], -32600, "{id}");
    }
}

#[tokio::test]
async fn replies_beyond_the_response_budget_become_budget_errors() {
    // contract: DATA-045 (the spec's 64 MiB, by default)
    assert_eq!(
        DataPlaneLimits::default().max_response_bytes,
        64 * 1024 * 1024
    );
    let limits = DataPlaneLimits {
        max_response_bytes: 4096,
        ..DataPlaneLimits::default()
    };
    let (app, plane) = scripted_app(AppOptions {
        limits,
        ..AppOptions::default()
    });
    // One reply over the budget.
    let (_, reply) = rpc(
        &app,
        r#"{"jsonrpc":"2.0","id":1,"method":"big","params":{"size":5000,"tag":"a"}}"#,
    )
    .await;
    // contract: DATA-049
    assert_eq!(reply["error"]["code"], -32000);
    assert_eq!(reply["error"]["data"]["max_response_bytes"], 4096);
    let expected = json!({"jsonrpc": "2.0", "id": 1, "result": "b".repeat(5000)})
        .to_string()
        .len();
    assert_eq!(reply["error"]["data"]["reply_bytes"], expected);
    // contract: DATA-050 (the call ran)
    assert_eq!(*plane.log.lock().unwrap(), vec!["big:a"]);

    // A batch: the first reply fits, the second would not, small later replies are always kept.
    let body = r#"[
        {"jsonrpc":"2.0","id":1,"method":"big","params":{"size":2000}},
        {"jsonrpc":"2.0","id":2,"method":"big","params":{"size":2000}},
        {"jsonrpc":"2.0","id":3,"method":"echo","params":{}},
        {"jsonrpc":"2.0","id":4,"method":"echo","params":{}}
    ]"#;
    let (_, _, bytes) = send(&app, agentenv(body.to_owned())).await;
    // contract: DATA-047 (the replies, measured in order, keep the response in the budget)
    assert!(bytes.len() <= 4096, "{}", bytes.len());
    let replies: Vec<Value> = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(replies[0]["result"].as_str().map(str::len), Some(2000));
    assert_eq!(replies[1]["error"]["code"], -32000);
    // contract: DATA-048, DATA-051 (room kept for the later replies, kept whole)
    assert_eq!(replies[2]["result"], json!({}));
    assert_eq!(replies[3]["result"], json!({}));
}

// contract: DATA-005, DATA-006, DATA-007
#[tokio::test]
async fn calls_run_one_at_a_time_in_arrival_order_with_batches_together() {
    let (app, plane) = scripted_app(AppOptions::default());
    let shutdown_first = {
        let app = app.clone();
        tokio::spawn(async move {
            let body = r#"[{"jsonrpc":"2.0","id":1,"method":"echo","params":{"tag":"a1"}},
                           {"jsonrpc":"2.0","id":2,"method":"echo","params":{"tag":"a2"}},
                           {"jsonrpc":"2.0","id":3,"method":"echo","params":{"tag":"a3"}}]"#;
            rpc(&app, body).await
        })
    };
    let second = {
        let app = app.clone();
        tokio::spawn(async move {
            rpc(
                &app,
                r#"{"jsonrpc":"2.0","id":9,"method":"echo","params":{"tag":"b"}}"#,
            )
            .await
        })
    };
    shutdown_first.await.unwrap();
    second.await.unwrap();
    let log = plane.log.lock().unwrap().clone();
    let position = |tag: &str| log.iter().position(|entry| entry == tag).unwrap();
    // The batch ran whole, in order; the other request ran before or after it, never inside.
    assert!(
        position("echo:a1") + 1 == position("echo:a2")
            && position("echo:a2") + 1 == position("echo:a3")
    );
    assert_eq!(log.len(), 4);
}

// contract: LIMITS-013
#[tokio::test]
async fn at_most_one_data_plane_call_runs_at_once() {
    let (app, plane) = scripted_app(AppOptions::default());
    let callers: Vec<_> = (0..8)
        .map(|n| {
            let app = app.clone();
            tokio::spawn(async move {
                let body = format!(
                    r#"{{"jsonrpc":"2.0","id":{n},"method":"load","params":{{"tag":"c{n}"}}}}"#
                );
                rpc(&app, &body).await
            })
        })
        .collect();
    for caller in callers {
        let (status, reply) = caller.await.unwrap();
        assert_eq!(status, StatusCode::OK);
        assert_eq!(reply.get("result"), Some(&Value::Null), "{reply}");
    }
    assert_eq!(plane.log.lock().unwrap().len(), 8);
    assert_eq!(
        plane.most_loading.load(std::sync::atomic::Ordering::SeqCst),
        1,
        "two data-plane calls ran at once"
    );
}

// contract: DATA-040, DATA-042, DATA-043
#[tokio::test]
async fn a_caller_that_leaves_cancels_its_own_calls() {
    let (app, plane) = scripted_app(AppOptions::default());
    let body = r#"[{"jsonrpc":"2.0","id":1,"method":"slow","params":{"tag":"mine"}},
                   {"jsonrpc":"2.0","id":2,"method":"echo","params":{"tag":"after"}}]"#;
    // The caller gives up while the slow call runs.
    let left = tokio::time::timeout(Duration::from_millis(200), rpc(&app, body)).await;
    assert!(left.is_err());
    tokio::time::sleep(Duration::from_millis(50)).await;
    // Another caller's call still runs.
    let (_, reply) = rpc(
        &app,
        r#"{"jsonrpc":"2.0","id":3,"method":"echo","params":{"tag":"other"}}"#,
    )
    .await;
    assert_eq!(reply["result"]["tag"], "other");
    // The slow call started and was ended (it would have taken 30 s); the call queued after it in
    // the same batch never ran.
    let log = plane.log.lock().unwrap().clone();
    let ran: Vec<&String> = log
        .iter()
        .filter(|e| !e.starts_with("cancelled:"))
        .collect();
    assert_eq!(ran, vec!["start:mine", "echo:other"], "{log:?}");
}

// contract: DATA-039, DATA-042
#[tokio::test]
async fn stopping_the_server_cancels_pending_calls() {
    let shutdown = rea_serve::ShutdownToken::new();
    let (app, plane) = scripted_app(AppOptions {
        shutdown: shutdown.clone(),
        ..AppOptions::default()
    });
    let pending = {
        let app = app.clone();
        tokio::spawn(async move {
            let body = r#"[{"jsonrpc":"2.0","id":1,"method":"slow","params":{"tag":"s"}},
                           {"jsonrpc":"2.0","id":2,"method":"echo","params":{"tag":"never"}}]"#;
            rpc(&app, body).await
        })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    shutdown.cancel();
    let (_, reply) = tokio::time::timeout(Duration::from_secs(5), pending)
        .await
        .unwrap()
        .unwrap();
    let replies = reply.as_array().unwrap();
    for reply in replies {
        assert_eq!(reply["error"]["code"], -32000);
        assert_eq!(reply["error"]["data"]["reason"], "cancelled");
    }
    let log = plane.log.lock().unwrap().clone();
    let ran: Vec<&String> = log
        .iter()
        .filter(|e| !e.starts_with("cancelled:"))
        .collect();
    assert_eq!(ran, vec!["start:s"], "{log:?}");
}

// contract: SERVE-013
#[tokio::test]
async fn hosts_and_origins_outside_the_allowlist_are_refused_on_every_route() {
    let (app, _) = replay_app();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let requests = |host: &str, origin: Option<&str>| {
        let with = |mut builder: axum::http::request::Builder| {
            builder = builder.header("host", host);
            if let Some(origin) = origin {
                builder = builder.header("origin", origin);
            }
            builder
        };
        vec![
            with(Request::get("/.well-known/agent-env.json"))
                .body(Body::empty())
                .unwrap(),
            with(Request::get("/ready")).body(Body::empty()).unwrap(),
            with(Request::post("/agentenv"))
                .header("content-type", "application/json")
                .body(Body::from(
                    r#"{"jsonrpc":"2.0","id":1,"method":"data/get"}"#,
                ))
                .unwrap(),
            with(Request::post("/mcp"))
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .body(Body::from(init.to_string()))
                .unwrap(),
        ]
    };
    for (host, origin) in [
        ("attacker.example", None),
        ("attacker.example:8765", None),
        ("127.0.0.1:8765", Some("http://attacker.example")),
        ("127.0.0.1:8765", Some("null")),
    ] {
        for request in requests(host, origin) {
            let path = request.uri().path().to_owned();
            let (status, _, body) = send(&app, request).await;
            assert_eq!(status, StatusCode::FORBIDDEN, "{host} {origin:?} {path}");
            let reply: Value = serde_json::from_slice(&body).unwrap();
            assert_eq!(reply["error"]["code"], -32000);
        }
    }
    for (host, origin) in [
        ("127.0.0.1:8765", None),
        ("localhost", Some("http://localhost:3000")),
        ("[::1]:8765", None),
    ] {
        for request in requests(host, origin) {
            let path = request.uri().path().to_owned();
            let (status, _, _) = send(&app, request).await;
            assert_eq!(status, StatusCode::OK, "{host} {origin:?} {path}");
        }
    }

    // A declared allowlist replaces the loopback default.
    let declared = rea_serve::app(
        Arc::new(TestBackend::new("svc")),
        Arc::new(rea_serve::ReplayDataPlane::replay_only()),
        AppOptions {
            allowed_hosts: HostAllowlist::parse("svc:18765,127.0.0.1").unwrap(),
            ..AppOptions::default()
        },
    );
    for (host, expected) in [
        ("svc:18765", StatusCode::OK),
        ("svc:1", StatusCode::FORBIDDEN),
        ("127.0.0.1:9", StatusCode::OK),
        ("localhost:9", StatusCode::FORBIDDEN),
    ] {
        let request = Request::get("/ready")
            .header("host", host)
            .body(Body::empty())
            .unwrap();
        assert_eq!(send(&declared, request).await.0, expected, "{host}");
    }
}

// contract: SERVE-013
#[tokio::test]
async fn a_deleted_session_is_gone() {
    let (app, _) = replay_app();
    let (session, _) = legacy_session(&app, "2025-06-18").await;
    let delete = session_delete(&session, "2025-06-18");
    assert_eq!(send(&app, delete).await.0, StatusCode::OK);
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let (status, _, _) = send(
        &app,
        mcp_request(
            &list,
            &[
                ("mcp-session-id", &session),
                ("mcp-protocol-version", "2025-06-18"),
            ],
        ),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

// contract: SERVE-022, REPLAY-034, REPLAY-039
#[tokio::test]
async fn the_tools_call_fast_path_answers_byte_for_byte_as_the_sdk() {
    let count = FastPathCount::start();
    let (app, backend) = replay_app();
    let cases = fast_path_cases();
    for (id, mut params) in cases {
        params["_meta"] = meta_2026();
        let name = params["name"].as_str().unwrap().to_owned();
        let message = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
        let headers = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", name.as_str()),
        ];
        let ((fast_status, fast_headers, fast_body), (sdk_status, sdk_headers, sdk_body)) =
            count.both_routes(&app, &message, &headers).await;
        assert_eq!(fast_status, sdk_status, "{message}");
        assert_eq!(fast_headers["content-type"], sdk_headers["content-type"]);
        assert_eq!(
            String::from_utf8_lossy(&fast_body),
            String::from_utf8_lossy(&sdk_body),
            "{message}"
        );
        let reply: Value = serde_json::from_slice(&fast_body).unwrap();
        assert_eq!(reply["id"], id);
        assert_eq!(
            reply["result"]["_meta"]["provenance"]["untrusted_content"],
            true
        );
    }
    // The backend ran once per valid call and route (2 valid calls x 2 routes).
    assert_eq!(backend.calls.lock().unwrap().len(), 4);

    // What the fast path does not recognise is the SDK's to answer: a name header that does not
    // match the body, an unknown tool, a missing _meta.
    let mut params =
        json!({"name": "get_users_by_id", "arguments": {"id": "2"}, "_meta": meta_2026()});
    let message =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params.clone()});
    let (status, _, body) = send(
        &app,
        mcp_request(
            &message,
            &[
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "other"),
            ],
        ),
    )
    .await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "{}",
        String::from_utf8_lossy(&body)
    );
    params.as_object_mut().unwrap().remove("_meta");
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    let (status, _, _) = send(
        &app,
        mcp_request(
            &message,
            &[
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "get_users_by_id"),
            ],
        ),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let unknown = mcp_2026(
        &app,
        4,
        "tools/call",
        json!({"name": "nope", "arguments": {}}),
    )
    .await;
    assert_eq!(unknown["error"]["code"], -32602);
}

/// The `data:` payloads of an SSE reply body, as written.
fn sse_data(body: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(body)
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .filter(|data| !data.is_empty())
        .map(str::to_owned)
        .collect()
}

// contract: SERVE-022, REPLAY-034, REPLAY-039
#[tokio::test]
async fn session_tools_calls_take_the_fast_path_with_the_sdks_message() {
    let count = FastPathCount::start();
    let (app, backend) = replay_app();
    let mut cases = fast_path_cases();
    cases[1].1["_meta"] = json!({"progressToken": 5});
    let versions = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
    for version in versions {
        let (session, _) = legacy_session(&app, version).await;
        let headers = [
            ("mcp-session-id", session.as_str()),
            ("mcp-protocol-version", version),
        ];
        for (id, params) in &cases {
            let message =
                json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
            let ((fast_status, fast_headers, fast_body), (sdk_status, sdk_headers, sdk_body)) =
                count.both_routes(&app, &message, &headers).await;
            assert_eq!((fast_status, sdk_status), (StatusCode::OK, StatusCode::OK));
            for name in ["content-type", "cache-control", "x-accel-buffering"] {
                assert_eq!(fast_headers[name], sdk_headers[name], "{name}: {message}");
            }
            // The same message in one event, framed as the SDK frames it, without the SDK's
            // resumption ids (its priming event and the event id of its answer).
            let sdk_messages = sse_data(&sdk_body);
            assert_eq!(
                sdk_messages.len(),
                1,
                "{}",
                String::from_utf8_lossy(&sdk_body)
            );
            assert_eq!(
                String::from_utf8_lossy(&fast_body),
                format!("data: {}\n\n", sdk_messages[0]),
                "{version} {message}"
            );
            let reply: Value = serde_json::from_str(&sdk_messages[0]).unwrap();
            assert_eq!(&reply["id"], id);
            assert_eq!(
                reply["result"]["_meta"]["provenance"]["untrusted_content"],
                true
            );
        }
    }
    // The backend ran once per valid call and route (2 valid calls x 2 routes per revision).
    assert_eq!(backend.calls.lock().unwrap().len(), 4 * versions.len());

    // What the fast path does not recognise is the SDK's to answer: a revision header other than
    // the session's, an unknown tool, other `_meta`, an unknown session.
    let (session, _) = legacy_session(&app, "2025-06-18").await;
    let before = count.answered();
    let call = |params: Value| json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    let known = call(json!({"name": "get_users_by_id", "arguments": {"id": "2"}}));
    let (status, _, body) = send(
        &app,
        mcp_request(
            &known,
            &[
                ("mcp-session-id", &session),
                ("mcp-protocol-version", "2025-11-25"),
            ],
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
    let unknown = in_session(
        &app,
        &session,
        "2025-06-18",
        &call(json!({"name": "nope", "arguments": {}})),
    )
    .await;
    assert_eq!(unknown["error"]["code"], -32602);
    let other_meta = in_session(
        &app,
        &session,
        "2025-06-18",
        &call(json!({"name": "get_users_by_id", "arguments": {"id": "2"}, "_meta": {"x": 1}})),
    )
    .await;
    assert_eq!(other_meta["result"]["isError"], false, "{other_meta}");
    assert_eq!(count.answered(), before, "the SDK answered these");
    let (status, _, _) = send(
        &app,
        mcp_request(
            &known,
            &[
                ("mcp-session-id", "no-such-session"),
                ("mcp-protocol-version", "2025-06-18"),
            ],
        ),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

// An idle session expires after its limit (`REA_SESSION_IDLE_SECONDS`); calls keep it open,
// those the fast path answers too.
#[tokio::test]
async fn a_session_expires_once_idle_and_calls_keep_it_open() {
    let options = AppOptions {
        sessions: rea_serve::sessions::SessionLimits {
            max_sessions: 8,
            idle: Duration::from_secs(1),
        },
        ..AppOptions::default()
    };
    let backend = Arc::new(TestBackend::new("test-env"));
    let app = rea_serve::app(
        backend.clone(),
        Arc::new(rea_serve::ReplayDataPlane::replay_only()),
        options,
    );
    let version = "2025-06-18";
    let (busy, _) = legacy_session(&app, version).await;
    let (idle, _) = legacy_session(&app, version).await;
    let call = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": "get_users_by_id", "arguments": {"id": "2"}}})
    };
    let status_of = |session: String, id: u64| {
        let app = app.clone();
        async move {
            let headers = [
                ("mcp-session-id", session.as_str()),
                ("mcp-protocol-version", version),
            ];
            send(&app, mcp_request(&call(id), &headers)).await.0
        }
    };
    // Calls every 250 ms for twice the idle limit keep the busy session open.
    for id in 0..8 {
        tokio::time::sleep(Duration::from_millis(250)).await;
        assert_eq!(
            status_of(busy.clone(), id).await,
            StatusCode::OK,
            "call {id}"
        );
    }
    assert_eq!(status_of(idle, 9).await, StatusCode::NOT_FOUND);
    tokio::time::sleep(Duration::from_millis(1600)).await;
    assert_eq!(status_of(busy, 10).await, StatusCode::NOT_FOUND);
    assert_eq!(backend.calls.lock().unwrap().len(), 8);
}

/// Counts the `tools/call`s the fast path answered, from its trace events (the test runtime runs
/// every task on this thread), while it lives.
struct FastPathCount {
    trace: Arc<std::sync::Mutex<Vec<u8>>>,
    _guard: tracing::subscriber::DefaultGuard,
}

impl FastPathCount {
    fn start() -> Self {
        let trace = Arc::new(std::sync::Mutex::new(Vec::<u8>::new()));
        let sink: rea_serve::logging::LogSink =
            Arc::new(std::sync::Mutex::new(TraceBuffer(trace.clone())));
        let _guard = tracing::subscriber::set_default(rea_serve::logging::subscriber(
            tracing::level_filters::LevelFilter::TRACE,
            sink,
        ));
        Self { trace, _guard }
    }

    fn answered(&self) -> usize {
        String::from_utf8_lossy(&self.trace.lock().unwrap())
            .matches("answered on the fast path")
            .count()
    }

    /// Sends `message` twice and answers both replies: as given, which the fast path must
    /// answer, then with a quality parameter on `Accept` (legal), which sends it through the SDK.
    async fn both_routes(
        &self,
        app: &axum::Router,
        message: &Value,
        headers: &[(&str, &str)],
    ) -> (Reply, Reply) {
        let before = self.answered();
        let fast = send(app, mcp_request(message, headers)).await;
        assert_eq!(
            self.answered(),
            before + 1,
            "the fast path answered {message}"
        );
        let mut request = mcp_request(message, headers);
        request.headers_mut().insert(
            "accept",
            "application/json;q=1, text/event-stream".parse().unwrap(),
        );
        let sdk = send(app, request).await;
        assert_eq!(self.answered(), before + 1, "the SDK answered {message}");
        (fast, sdk)
    }
}

/// A reply's status, headers and body.
type Reply = (StatusCode, axum::http::HeaderMap, Vec<u8>);

/// The `(id, params)` of the calls both fast-path tests send: two valid calls (an integer and a
/// string id), then an unknown argument, missing arguments and a mistyped one.
fn fast_path_cases() -> Vec<(Value, Value)> {
    vec![
        (
            json!(7),
            json!({"name": "get_users_by_id", "arguments": {"id": "2", "page": ["a", "b"]}}),
        ),
        (
            json!("call-1"),
            json!({"name": "get_users_by_id", "arguments": {"id": "3"}}),
        ),
        (
            json!(8),
            json!({"name": "get_users_by_id", "arguments": {"idd": "3"}}),
        ),
        (json!(9), json!({"name": "get_users_by_id"})),
        (
            json!(10),
            json!({"name": "delete_users_by_id", "arguments": {"id": 5}}),
        ),
    ]
}

struct TraceBuffer(Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for TraceBuffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

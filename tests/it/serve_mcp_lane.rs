//! The MCP lane past the router (`rea_serve::connection`): over real loopback sockets, a server
//! given `app_with_mcp_lane` answers every request as a server given the bare router does, byte
//! for byte (the `Date` header and session ids aside): stateless calls and calls in sessions (the
//! fast path, kept answers, and what it leaves to the SDK), the `Host`/`Origin` guard's refusals,
//! bodies that are not JSON, batches, `GET` and `DELETE`, and the other routes. Served from the
//! state of two recorded applications (the shared json-server capture and the FeathersJS corpus
//! app), each tool of their catalogs called.

use crate::state_support::{self, Served};

use std::sync::Arc;

use rea_serve::config::ListenConfig;
use rea_serve::server::{self, StopSignal};
use rea_serve::{AppOptions, DataPlane, HostAllowlist, ShutdownToken, ToolBackend};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const META: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}"#;

/// One served app on a loopback socket: its address and the stop that ends it.
struct Running {
    address: String,
    stop: tokio::sync::oneshot::Sender<()>,
    serving: tokio::task::JoinHandle<Result<StopSignal, rea_serve::ServeError>>,
}

async fn run(app: impl Into<rea_serve::App>) -> Running {
    let config = ListenConfig {
        host: "127.0.0.1".to_owned(),
        port: 0,
        allowed_hosts: HostAllowlist::loopback(),
        allowlist_declared: false,
    };
    let bound = server::bind(&config).await.unwrap();
    let address = bound.address.to_string();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let app = app.into();
    let serving = tokio::spawn(server::serve(
        bound,
        app,
        ShutdownToken::new(),
        async move {
            let _ = stopped.await;
            StopSignal::Terminate
        },
    ));
    Running {
        address,
        stop,
        serving,
    }
}

/// Sends one request (`Connection: close`) and reads the whole response; the `Date` header's
/// value is masked.
async fn exchange(
    address: &str,
    method: &str,
    path: &str,
    headers: &[String],
    body: &str,
) -> String {
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    let mut request = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    for header in headers {
        request.push_str(header);
        request.push_str("\r\n");
    }
    request.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.unwrap();
    String::from_utf8_lossy(&response)
        .lines()
        .map(|line| match line.get(..5) {
            Some(name) if name.eq_ignore_ascii_case("date:") => "date: <masked>",
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The headers of an MCP `POST` from a loopback client, plus `extra`.
fn mcp_headers(extra: &[&str]) -> Vec<String> {
    let mut headers = vec![
        "Host: 127.0.0.1".to_owned(),
        "Content-Type: application/json".to_owned(),
        "Accept: application/json, text/event-stream".to_owned(),
    ];
    headers.extend(extra.iter().map(|header| (*header).to_owned()));
    headers
}

fn call(id: &str, tool: &str, meta: bool) -> String {
    let meta = if meta {
        format!(",\"_meta\":{META}")
    } else {
        String::new()
    };
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{}}{meta}}}}}"#
    )
}

/// Stateless requests: each tool called twice (the second from a kept answer where one is
/// kept), a call the fast path leaves to the SDK, `tools/list`, refusals, and other routes.
async fn stateless(address: &str, tools: &[String]) -> Vec<String> {
    let mut answers = Vec::new();
    for tool in tools {
        let name = format!("Mcp-Name: {tool}");
        let fast = mcp_headers(&[
            "MCP-Protocol-Version: 2026-07-28",
            "Mcp-Method: tools/call",
            &name,
        ]);
        for id in ["1", "\"a\""] {
            answers.push(exchange(address, "POST", "/mcp", &fast, &call(id, tool, true)).await);
        }
        let sdk = mcp_headers(&[
            "MCP-Protocol-Version: 2026-07-28",
            "Mcp-Method: tools/call",
            &name,
            "Mcp-Name: other",
        ]);
        answers.push(exchange(address, "POST", "/mcp", &sdk, &call("2", tool, true)).await);
    }
    let list =
        format!(r#"{{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{{"_meta":{META}}}}}"#);
    let listing = mcp_headers(&["MCP-Protocol-Version: 2026-07-28", "Mcp-Method: tools/list"]);
    answers.push(exchange(address, "POST", "/mcp", &listing, &list).await);
    let plain = mcp_headers(&[]);
    for body in ["not json", "[]", "{}"] {
        answers.push(exchange(address, "POST", "/mcp", &plain, body).await);
    }
    let mut evil = plain.clone();
    evil[0] = "Host: evil.example".to_owned();
    answers.push(exchange(address, "POST", "/mcp", &evil, &call("4", &tools[0], true)).await);
    let origin = mcp_headers(&["Origin: http://evil.example"]);
    answers.push(
        exchange(
            address,
            "POST",
            "/mcp",
            &origin,
            &call("5", &tools[0], true),
        )
        .await,
    );
    answers.push(
        exchange(
            address,
            "POST",
            "/mcp/",
            &plain,
            &call("6", &tools[0], true),
        )
        .await,
    );
    answers.push(exchange(address, "GET", "/mcp", &plain, "").await);
    answers.push(exchange(address, "GET", "/ready", &plain, "").await);
    answers
}

/// A session at `revision`: initialize, each tool called twice, a batch, and its `DELETE`; the
/// session id is masked.
async fn session(address: &str, revision: &str, tools: &[String]) -> Vec<String> {
    let initialize = format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{revision}","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
    );
    let opened = exchange(address, "POST", "/mcp", &mcp_headers(&[]), &initialize).await;
    let id = opened
        .lines()
        .find_map(|line| line.strip_prefix("mcp-session-id: "))
        .expect("a session id")
        .to_owned();
    let (session, version) = (
        format!("Mcp-Session-Id: {id}"),
        format!("MCP-Protocol-Version: {revision}"),
    );
    let inside = mcp_headers(&[&session, &version]);
    let mut answers = vec![opened];
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    answers.push(exchange(address, "POST", "/mcp", &inside, initialized).await);
    for tool in tools {
        for id in ["7", "\"b\""] {
            answers.push(exchange(address, "POST", "/mcp", &inside, &call(id, tool, false)).await);
        }
    }
    let batch = format!("[{}]", call("8", &tools[0], false));
    answers.push(exchange(address, "POST", "/mcp", &inside, &batch).await);
    answers.push(exchange(address, "DELETE", "/mcp", &inside, "").await);
    answers
        .into_iter()
        .map(|answer| answer.replace(&id, "<session>"))
        .collect()
}

async fn everything(address: &str, tools: &[String]) -> Vec<String> {
    let mut answers = stateless(address, tools).await;
    for revision in ["2025-06-18", "2025-03-26"] {
        answers.extend(session(address, revision, tools).await);
    }
    answers
}

async fn compare(app_name: &str, served: Served) {
    let backend: Arc<dyn ToolBackend> = served.backend.clone();
    let plane: Arc<dyn DataPlane> = served.plane.clone();
    let tools: Vec<String> = backend
        .tools()
        .iter()
        .map(|tool| tool.name.clone())
        .collect();
    assert!(!tools.is_empty(), "{app_name}");
    let router = rea_serve::app(backend.clone(), plane.clone(), AppOptions::default());
    let lane = rea_serve::app_with_mcp_lane(backend, plane, AppOptions::default());
    assert!(lane.mcp.is_some());
    let (by_router, by_lane) = (run(router).await, run(lane).await);
    let expected = everything(&by_router.address, &tools).await;
    let answered = everything(&by_lane.address, &tools).await;
    assert_eq!(expected.len(), answered.len());
    for (expected, answered) in expected.iter().zip(&answered) {
        assert_eq!(answered, expected, "{app_name}");
    }
    // Both the fast path and the SDK answered (an SSE event without an id is the fast path's).
    assert!(
        answered
            .iter()
            .any(|answer| answer.contains("\ndata: {\"jsonrpc\"")),
        "{app_name}"
    );
    assert!(
        answered.iter().any(|answer| answer.contains("\nid: ")),
        "{app_name}"
    );
    for running in [by_router, by_lane] {
        running.stop.send(()).unwrap();
        running.serving.await.unwrap().unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mcp_lane_answers_as_the_router_on_two_recorded_apps() {
    compare("json-server", state_support::serve("json-server/build.har")).await;
    compare("feathers", state_support::serve_corpus_app("feathers")).await;
}

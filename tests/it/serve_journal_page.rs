//! The request journal and the status page (issue 14): every MCP tool call and data-plane call
//! as one line on stderr (`--journal`, `--journal-format json`) and in `GET /agentenv/journal`
//! (loopback callers only), with where each answer came from; `GET /` as server-rendered HTML,
//! loaded in headless Chromium and checked against the catalog, the coverage and the journal.

use std::path::Path;
use std::process::Command;

use axum::body::Body;
use axum::extract::connect_info::ConnectInfo;
use axum::http::{Request, StatusCode};
use rea_serve::server::PeerAddress;
use serde_json::{Value, json};

use crate::bundle_support::har;
use crate::serve_support::process::{Server, address, binary, call_tool, request, tools_list};
use crate::serve_support::{replay_app, rpc, send};

fn serve(dir: &Path, args: &[&str]) -> Server {
    let mut command = Command::new(binary());
    command.arg("serve").args(args).args(["--port", "0"]);
    Server::spawn_in(command, dir, &[])
}

fn journal(url: &str) -> Value {
    let (status, body) = request(
        &address(url),
        "GET",
        "/agentenv/journal?limit=200",
        &[],
        None,
    );
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

fn data_get(url: &str) {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"data/get","params":{}}"#;
    let (status, _) = request(&address(url), "POST", "/agentenv", &[], Some(body));
    assert_eq!(status, 200);
}

#[test]
fn every_call_is_journaled_with_its_source_on_stderr_and_at_agentenv_journal() {
    let dir = tempfile::tempdir().expect("temp dir");
    let har = har("json-server").display().to_string();
    // Replay: an exact recording, an approximate one, invalid arguments, an unknown tool.
    let mut server = serve(
        dir.path(),
        &[&har, "--replay-only", "--journal-format", "json"],
    );
    let url = server.url();
    call_tool(&url, "get_posts_by_id", &json!({"id": "1"}));
    // A value no port, clock or duration on stderr can spell by chance.
    call_tool(&url, "get_posts_by_id", &json!({"id": "unrecorded-qz"}));
    call_tool(&url, "get_posts_by_id", &json!({"nope": 1}));
    let unknown = crate::serve_support::process::mcp(
        &url,
        9,
        "tools/call",
        json!({"name": "no_such_tool", "arguments": {}}),
    );
    assert!(unknown.get("error").is_some(), "{unknown}");
    data_get(&url);
    let served = journal(&url);
    server.signal("TERM");
    let (code, _, stderr) = server.finish();
    assert_eq!(code, Some(143));
    let entries = served["entries"].as_array().unwrap();
    assert_eq!(served["total"], 5);
    let seen: Vec<(&str, &str, &str, &str)> = entries
        .iter()
        .map(|entry| {
            (
                entry["kind"].as_str().unwrap(),
                entry["name"].as_str().unwrap(),
                entry["source"].as_str().unwrap(),
                entry["status"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("mcp", "get_posts_by_id", "recording-exact", "ok"),
            ("mcp", "get_posts_by_id", "recording-approximate", "ok"),
            ("mcp", "get_posts_by_id", "refused", "invalid_arguments"),
            ("mcp", "no_such_tool", "refused", "unknown-tool"),
            ("data", "data/get", "refused", "-32601"),
        ]
    );
    for entry in entries {
        assert!(entry["micros"].is_u64());
        assert_eq!(entry["arguments"].as_str().unwrap().len(), 12);
        assert!(entry["time"].as_str().unwrap().ends_with('Z'));
    }
    // The same entries on stderr, as JSON lines, as they happened.
    let echoed: Vec<Value> = stderr
        .iter()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|line| line.get("kind").is_some())
        .collect();
    assert_eq!(&echoed, entries);
    // Equal arguments, equal digests; the values themselves are never written.
    assert_ne!(entries[0]["arguments"], entries[1]["arguments"]);
    assert!(
        !stderr.iter().any(|line| line.contains("unrecorded-qz")),
        "{stderr:?}"
    );

    // From the state, text lines: a state answer and a served write.
    let mut server = serve(dir.path(), &[&har, "--journal"]);
    let url = server.url();
    call_tool(&url, "get_posts_by_id", &json!({"id": "1"}));
    call_tool(
        &url,
        "post_posts",
        &json!({"body": {"title": "t", "views": 0}}),
    );
    data_get(&url);
    server.signal("TERM");
    let (_, stdout, stderr) = server.finish();
    let lines: Vec<&String> = stderr
        .iter()
        .filter(|line| line.contains(" args:"))
        .collect();
    assert_eq!(lines.len(), 3, "{stderr:?}");
    assert!(lines[0].contains(" mcp  get_posts_by_id ") && lines[0].contains(" state "));
    assert!(lines[1].contains(" post_posts ") && lines[1].contains(" state "));
    assert!(lines[2].contains(" data data/get ") && lines[2].contains(" ok "));
    assert!(lines.iter().all(|line| line.ends_with("µs")), "{lines:?}");
    assert!(stdout.contains("after 3 calls"), "{stdout}");
}

#[tokio::test]
async fn the_journal_answers_loopback_callers_only() {
    let (app, _) = replay_app();
    rpc(&app, r#"{"jsonrpc":"2.0","id":1,"method":"data/get"}"#).await;
    let get = |peer: Option<&str>, path: &str| {
        let mut request = Request::get(path)
            .header("host", "127.0.0.1:8765")
            .body(Body::empty())
            .unwrap();
        if let Some(peer) = peer {
            request
                .extensions_mut()
                .insert(ConnectInfo(PeerAddress(peer.parse().unwrap())));
        }
        request
    };
    let (status, _, body) = send(&app, get(Some("127.0.0.1:40000"), "/agentenv/journal")).await;
    assert_eq!(status, StatusCode::OK);
    let journal: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(journal["entries"][0]["name"], "data/get");
    for peer in [
        Some("192.168.1.20:40000"),
        Some("[2001:db8::1]:40000"),
        None,
    ] {
        let (status, _, body) = send(&app, get(peer, "/agentenv/journal")).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{peer:?}");
        assert!(String::from_utf8_lossy(&body).contains("loopback callers only"));
        // The page is served, without the journal's lines.
        let (status, headers, page) = send(&app, get(peer, "/")).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(headers["content-type"], "text/html; charset=utf-8");
        let page = String::from_utf8_lossy(&page);
        assert!(page.contains("shown to loopback callers only"));
        assert!(!page.contains("data/get"));
    }
    // A host the guard does not allow gets neither.
    let request = Request::get("/")
        .header("host", "evil.example")
        .body(Body::empty())
        .unwrap();
    assert_ne!(send(&app, request).await.0, StatusCode::OK);
}

/// The DOM headless Chromium builds from a page.
fn chromium_dom(url: &str) -> String {
    let profile = tempfile::tempdir().expect("profile dir");
    let output = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            &format!("--user-data-dir={}", profile.path().display()),
            "--dump-dom",
            url,
        ])
        .output()
        .expect("chromium runs (Debian `chromium`, installed by .ci/run)");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn the_status_page_loads_in_headless_chromium_with_tools_coverage_state_and_calls() {
    let dir = tempfile::tempdir().expect("temp dir");
    let har = har("kinto").display().to_string();
    let mut server = serve(dir.path(), &[&har, "--json"]);
    let url = server.url();
    let base = url.trim_end_matches("/mcp").to_owned();
    let tools = tools_list(&url);
    let first = tools
        .iter()
        .find(|tool| {
            tool["inputSchema"]["required"]
                .as_array()
                .unwrap()
                .is_empty()
        })
        .expect("a tool without arguments");
    let first_name = first["name"].as_str().unwrap();
    call_tool(&url, first_name, &json!({}));
    data_get(&url);
    let dom = chromium_dom(&format!("{base}/"));
    server.signal("TERM");
    let (_, stdout, _) = server.finish();
    let listening: Value = serde_json::Deserializer::from_str(&stdout)
        .into_iter::<Value>()
        .next()
        .unwrap()
        .unwrap();
    assert!(dom.contains(&format!("<h1>{}</h1>", listening["name"].as_str().unwrap())));
    assert!(
        dom.contains(&format!("<h2>Tools ({})</h2>", tools.len())),
        "{dom}"
    );
    for tool in &tools {
        let name = tool["name"].as_str().unwrap();
        assert!(
            dom.contains(&format!("<tr><td>{name}</td>")),
            "{name}: {dom}"
        );
    }
    let coverage = &listening["coverage"];
    let headline = format!(
        "reads {} from the state, {} from recordings",
        coverage["reads"]["state"], coverage["reads"]["recorded"]
    );
    assert!(dom.contains(&headline), "{headline}: {dom}");
    for write in coverage["writes"]["withheld"].as_array().unwrap() {
        let hint = write["hint"].as_str().unwrap();
        let hint = hint
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;");
        assert!(dom.contains(&hint), "{hint}");
    }
    assert!(dom.contains("<table id=\"entities\">"), "{dom}");
    // The journal's last calls, newest first: the data plane call, then the tool call.
    let journal = dom
        .split("<table id=\"journal\">")
        .nth(1)
        .expect("the journal table");
    let data = journal.find("data/get").expect("data/get in the journal");
    let tool = journal
        .find(first_name)
        .expect("the tool call in the journal");
    assert!(data < tool, "newest first");
    assert!(!dom.contains("<script"), "no script");
}
